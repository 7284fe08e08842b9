"""The connect-a-client dialog: configuration per client, copy, and a shown, confirmed, backed-up edit."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtGui import QGuiApplication

from ui.dialogs.connect_client import ConnectClientDialog
from ui.infra.interaction import ScriptedInteraction


def _pick(dialog: ConnectClientDialog, key: str) -> None:
    dialog.client_box.setCurrentIndex(dialog.client_box.findData(key))


def test_config_is_shown_and_copied_for_each_client(qtbot: object, tmp_path: Path) -> None:
    dialog = ConnectClientDialog(tmp_path / "vault", ScriptedInteraction(), home=tmp_path)
    _pick(dialog, "claude-desktop")
    assert (
        "mcpServers" in dialog.text.toPlainText()
        and str((tmp_path / "vault").resolve()) in dialog.text.toPlainText()
    )
    assert dialog.add_button.isHidden() and "No configuration file" in dialog.found.text()
    dialog.copy_button.click()
    assert QGuiApplication.clipboard().text() == dialog.text.toPlainText()
    _pick(dialog, "openwebui")
    assert "mcpo" in dialog.text.toPlainText()


def test_a_found_config_file_is_edited_only_after_the_diff_and_a_yes(qtbot: object, tmp_path: Path) -> None:
    config = tmp_path / ".lmstudio" / "mcp.json"
    config.parent.mkdir()
    config.write_text('{"mcpServers": {}}\n', "utf-8")
    no_then_yes = ScriptedInteraction(False, True)
    dialog = ConnectClientDialog(tmp_path / "vault", no_then_yes, home=tmp_path)
    _pick(dialog, "lmstudio")
    assert str(config) in dialog.found.text()
    assert not dialog.add_button.isEnabled()  # nothing to add before the change is shown
    dialog.diff_button.click()
    assert "+" in dialog.text.toPlainText() and "memory-curator" in dialog.text.toPlainText()
    dialog.add_button.click()  # "no"
    assert json.loads(config.read_text("utf-8")) == {"mcpServers": {}}
    dialog.add_button.click()  # "yes"
    assert "memory-curator" in json.loads(config.read_text("utf-8"))["mcpServers"]
    assert (config.parent / "mcp.json.memory-curator.bak").read_text("utf-8") == '{"mcpServers": {}}\n'
