"""Connecting a chat client: the exact configuration for each client, and adding it safely.

``server_command`` is the real command of this installation (the ``curator`` script beside
the running interpreter, or the interpreter with ``-m curator.cli.main``). ``config_for``
renders what a person pastes into a client; ``plan_edit`` computes, for a client whose
configuration file exists on this machine, the new file text and a unified diff, and
``apply_edit`` writes it only after a backup, and only when the file is still what the diff
was computed from. Nothing here edits a file on its own initiative.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.vault.atomic import atomic_write_text

SERVER_KEY = "memory-curator"


@dataclass(frozen=True)
class Client:
    """A chat client that speaks MCP."""

    key: str
    name: str
    how: str  # where the configuration goes, in words
    json_key: str = "mcpServers"  # top-level key holding servers ("" when not a JSON file)


CLIENTS: dict[str, Client] = {c.key: c for c in (
    Client("lmstudio", "LM Studio", "Program tab > Install > Edit mcp.json (~/.lmstudio/mcp.json)"),
    Client("jan", "Jan", "Settings > MCP Servers > + (or mcp_config.json in Jan's data folder)"),
    Client("claude-desktop", "Claude Desktop", "Settings > Developer > Edit Config (claude_desktop_config.json)"),
    Client("claude-code", "Claude Code",
           "run the command below (user scope: every project sees it), or add the JSON to ~/.claude.json"),
    Client("cursor", "Cursor", "Settings > MCP > Add new global MCP server (~/.cursor/mcp.json)"),
    Client("vscode", "VS Code", "Command Palette > MCP: Open User Configuration (mcp.json in VS Code's user "
                                "folder; .vscode/mcp.json for one workspace)", json_key="servers"),
    Client("openwebui", "Open WebUI",
           "Open WebUI reaches MCP servers over HTTP: run the bridge command below (mcpo), then "
           "Settings > Tools > + with the URL it prints", json_key=""),
)}


class ConfigEditError(RuntimeError):
    """A client configuration file that cannot be edited safely (the message says why)."""


def server_command(vault: Path, user_id: str = "default") -> list[str]:
    """The command line that starts this installation's MCP server on ``vault``."""
    script = Path(sys.executable).parent / ("curator.exe" if os.name == "nt" else "curator")
    head = [str(script)] if _current_script(script) else [sys.executable, "-m", "curator.cli.main"]
    tail = ["--vault", str(Path(vault).expanduser().resolve()), "mcp"]
    if user_id != "default":
        tail += ["--user", user_id]
    return head + tail


def _current_script(script: Path) -> bool:
    """Whether ``script`` is this version's console script (a stale one from an older layout
    of the package would fail to start; the interpreter with ``-m`` always works)."""
    if not script.is_file():
        return False
    if script.suffix == ".exe":
        return True
    try:
        return "curator.cli.main" in script.read_text("utf-8", errors="replace")[:2000]
    except OSError:
        return False


def server_entry(client: str, command: list[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"command": command[0], "args": command[1:]}
    if client == "jan":
        entry["env"] = {}
        entry["active"] = True
    if client in ("claude-code", "vscode"):
        entry = {"type": "stdio", **entry}
    return entry


def config_for(client: str, vault: Path, user_id: str = "default") -> str:
    """What to paste into ``client``'s configuration (or run), as text."""
    if client not in CLIENTS:
        raise ValueError(f"unknown client {client!r}; one of: {', '.join(CLIENTS)}")
    command = server_command(vault, user_id)
    if client == "openwebui":
        return (
            "uvx mcpo --port 8765 -- "
            + shlex.join(command)
            + "\n# then add http://localhost:8765 as a tool server\n"
        )
    key = CLIENTS[client].json_key
    text = json.dumps({key: {SERVER_KEY: server_entry(client, command)}}, indent=2) + "\n"
    if client == "claude-code":
        text = (f"claude mcp add --scope user {SERVER_KEY} -- {shlex.join(command)}\n\n"
                f"# or, in ~/.claude.json (user scope):\n{text}")
    return text


def config_paths(client: str, home: Path | None = None) -> list[Path]:
    """Where ``client`` keeps its MCP configuration on this kind of machine (first found wins)."""
    home = home or Path.home()
    appdata = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    mac = home / "Library" / "Application Support"
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    share = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    table: dict[str, list[Path]] = {
        "lmstudio": [home / ".lmstudio" / "mcp.json", home / ".cache" / "lm-studio" / "mcp.json"],
        "jan": [share / "Jan" / "data" / "mcp_config.json", mac / "Jan" / "data" / "mcp_config.json",
                appdata / "Jan" / "data" / "mcp_config.json", xdg / "Jan" / "data" / "mcp_config.json"],
        "claude-desktop": [xdg / "Claude" / "claude_desktop_config.json",
                           mac / "Claude" / "claude_desktop_config.json",
                           appdata / "Claude" / "claude_desktop_config.json"],
        "claude-code": [home / ".claude.json"],
        "cursor": [home / ".cursor" / "mcp.json"],
        "vscode": [xdg / "Code" / "User" / "mcp.json", mac / "Code" / "User" / "mcp.json",
                   appdata / "Code" / "User" / "mcp.json"],
        "openwebui": [],
    }
    return table.get(client, [])


def found_config(client: str, home: Path | None = None) -> Path | None:
    """The client's configuration file on this machine, if there is one."""
    return next((p for p in config_paths(client, home) if p.is_file()), None)


@dataclass(frozen=True)
class EditPlan:
    """A proposed change to a client's configuration file, shown before anything is written."""

    client: str
    path: Path
    old_text: str
    new_text: str
    diff: str
    old_sha256: str

    @property
    def changes(self) -> bool:
        return self.old_text != self.new_text


def plan_edit(client: str, path: Path, vault: Path, user_id: str = "default") -> EditPlan:
    """The new text of ``path`` with this server's entry added (or updated), and the diff."""
    info = CLIENTS.get(client)
    if info is None or not info.json_key:
        raise ConfigEditError(f"{client} has no configuration file to edit; paste the printed configuration")
    old = Path(path).read_text("utf-8") if Path(path).exists() else ""
    try:
        data = json.loads(old) if old.strip() else {}
    except ValueError as exc:
        raise ConfigEditError(f"{path} is not valid JSON ({exc}); edit it by hand") from None
    if not isinstance(data, dict):
        raise ConfigEditError(f"{path} does not hold a JSON object; edit it by hand")
    servers = data.get(info.json_key)
    if servers is None:
        servers = {}
    if not isinstance(servers, dict):
        raise ConfigEditError(f"{path}: {info.json_key} is not an object; edit it by hand")
    data[info.json_key] = {**servers, SERVER_KEY: server_entry(client, server_command(vault, user_id))}
    new = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    diff = "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=str(path), tofile=f"{path} (with {SERVER_KEY})"))
    return EditPlan(client, Path(path), old, new, diff, hashlib.sha256(old.encode("utf-8")).hexdigest())


def apply_edit(plan: EditPlan) -> Path | None:
    """Write a planned edit: refuses when the file changed since; returns the backup's path."""
    current = plan.path.read_text("utf-8") if plan.path.exists() else ""
    if hashlib.sha256(current.encode("utf-8")).hexdigest() != plan.old_sha256:
        raise ConfigEditError(f"{plan.path} changed since the diff was shown; nothing written")
    backup: Path | None = None
    if plan.path.exists():
        backup = plan.path.with_name(plan.path.name + ".memory-curator.bak")
        shutil.copy2(plan.path, backup)
    atomic_write_text(plan.path, plan.new_text)
    return backup
