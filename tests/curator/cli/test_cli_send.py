"""`curator send` as a person uses it from the shell: list, see the diff, write, undo, take back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from curator.engine import Engine
from curator.vault.documents import Document


def curator(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("OPENWEBUI_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "curator.cli.main", *args], capture_output=True, text=True,
                          timeout=120, env=env, input=stdin)


def test_send_lists_shows_writes_undoes_and_takes_back(tmp_path: Path) -> None:
    home, vault = tmp_path / "home", tmp_path / "vault"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "CLAUDE.md").write_text("# Mine\n", "utf-8")
    with Engine(vault, triggers=False) as engine:
        doc = Document.new(doc_id="kayak00001", kind="fact", title="Red kayak", quality=0.9,
                           body="The person paddles a red kayak on weekends.\n")
        engine.document_changed(engine.store.create(doc, "default", "knowledge", "Facts"))
    v = ["--vault", str(vault)]

    listed = curator(home, *v, "--json", "send")
    rows = {r["client"]: r for r in json.loads(listed.stdout)}
    assert rows["claude-code"]["folder"] == str(home / ".claude") and rows["claude-code"]["on"] is False
    assert rows["koboldcpp"]["writable"] is False and rows["openwebui"]["needs_key"] is True

    shown = curator(home, *v, "send", "claude-code", "--on")
    assert shown.returncode == 0 and "+- The person paddles a red kayak on weekends." in shown.stdout
    assert "nothing written" in shown.stdout and not (home / ".claude" / "memory-curator.md").exists()

    written = curator(home, *v, "send", "claude-code", "--on", "--yes")
    assert written.returncode == 0, written.stderr
    assert "red kayak" in (home / ".claude" / "memory-curator.md").read_text("utf-8")
    assert (home / ".claude" / "CLAUDE.md").read_text("utf-8") == "# Mine\n\n@~/.claude/memory-curator.md\n"

    assert curator(home, *v, "send", "claude-code", "--undo", "--yes").returncode == 0
    assert (home / ".claude" / "CLAUDE.md").read_text("utf-8") == "# Mine\n"
    assert not (home / ".claude" / "memory-curator.md").exists()

    assert curator(home, *v, "send", "openwebui", "--api-key-from", "-", stdin="sk-x\n").returncode == 0
    assert (vault / ".secrets" / "openwebui-api-key").read_text("utf-8").strip() == "sk-x"

    refused = curator(home, *v, "send", "koboldcpp", "--on")
    assert refused.returncode == 2 and "saved story" in refused.stderr
    off = curator(home, *v, "send", "claude-code", "--off", "--yes")
    assert off.returncode == 0 and "already in step" in off.stdout
