"""Connecting a client: printed configurations, and adding the entry to a config file safely."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from curator.mcp.clients import (
    CLIENTS,
    ConfigEditError,
    apply_edit,
    config_for,
    config_paths,
    found_config,
    plan_edit,
)


def test_the_printed_lm_studio_config_starts_the_server_as_written(mcp_vault: dict[str, Any]) -> None:
    entry = json.loads(config_for("lmstudio", mcp_vault["vault"]))["mcpServers"]["memory-curator"]
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=dict(os.environ))

    async def main() -> list[str]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return sorted(t.name for t in (await session.list_tools()).tools)

    assert anyio.run(main) == ["memory_retrieve", "memory_save", "memory_search"]


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_every_client_gets_a_config_naming_this_installation(client: str, tmp_path: Path) -> None:
    text = config_for(client, tmp_path / "v")
    assert str((tmp_path / "v").resolve()) in text and " mcp" in text.replace('"mcp"', " mcp")


def test_adding_the_entry_shows_a_diff_keeps_a_backup_and_other_servers(tmp_path: Path) -> None:
    config = tmp_path / ".lmstudio" / "mcp.json"
    config.parent.mkdir()
    original = json.dumps({"mcpServers": {"other": {"command": "x"}}}, indent=2) + "\n"
    config.write_text(original, "utf-8")
    assert found_config("lmstudio", home=tmp_path) == config
    plan = plan_edit("lmstudio", config, tmp_path / "vault")
    assert plan.changes and "+    \"memory-curator\"" in plan.diff
    assert config.read_text("utf-8") == original  # planning writes nothing
    backup = apply_edit(plan)
    assert backup is not None and backup.read_text("utf-8") == original
    data = json.loads(config.read_text("utf-8"))
    assert set(data["mcpServers"]) == {"other", "memory-curator"}


def test_a_config_changed_after_the_diff_or_not_json_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text("{}", "utf-8")
    plan = plan_edit("lmstudio", config, tmp_path / "vault")
    config.write_text('{"mcpServers": {}}', "utf-8")
    with pytest.raises(ConfigEditError):
        apply_edit(plan)
    config.write_text("{not json", "utf-8")
    with pytest.raises(ConfigEditError):
        plan_edit("lmstudio", config, tmp_path / "vault")
    with pytest.raises(ConfigEditError):
        plan_edit("openwebui", config, tmp_path / "vault")


def test_claude_code_is_added_in_user_scope_and_cursor_and_vscode_have_their_shapes(tmp_path: Path) -> None:
    claude = config_for("claude-code", tmp_path / "v")
    assert claude.startswith("claude mcp add --scope user memory-curator -- ")
    cursor = json.loads(config_for("cursor", tmp_path / "v"))["mcpServers"]["memory-curator"]
    assert cursor["args"][-1] == "mcp"
    vscode = json.loads(config_for("vscode", tmp_path / "v"))
    assert list(vscode) == ["servers"] and vscode["servers"]["memory-curator"]["type"] == "stdio"
    # VS Code's user mcp.json keeps its other servers and inputs when the entry is added.
    config = tmp_path / ".config" / "Code" / "User" / "mcp.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"inputs": [], "servers": {"git": {"type": "stdio", "command": "g"}}}), "utf-8")
    if not os.environ.get("XDG_CONFIG_HOME"):  # found where VS Code keeps it on Linux
        assert found_config("vscode", home=tmp_path) == config
    apply_edit(plan_edit("vscode", config, tmp_path / "vault"))
    data = json.loads(config.read_text("utf-8"))
    assert data["inputs"] == [] and set(data["servers"]) == {"git", "memory-curator"}
    assert config_paths("cursor", tmp_path) == [tmp_path / ".cursor" / "mcp.json"]
