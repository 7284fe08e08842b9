"""Settings > Sources > Memory sent to your chat clients, on a real vault and a real window:
ticking a client shows the diff and asks first; no writes nothing; yes writes and switches on;
undo puts the files back; unticking takes back (issue 21 item 1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from curator.engine import Engine
from curator.vault.documents import Document
from ui.dialogs.settings_dialog import SettingsDialog
from ui.infra.interaction import ScriptedInteraction
from ui.main_window import MainWindow

WAIT = 60_000
PERSONS = "# Mine\n- Be brief.\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "CLAUDE.md").write_text(PERSONS, "utf-8")
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return folder


@pytest.fixture
def engine(tmp_path: Path, home: Path) -> Iterator[Engine]:
    eng = Engine(tmp_path / "vault", triggers=False)
    doc = Document.new(doc_id="kayak00001", kind="fact", title="Red kayak", quality=0.9,
                       body="The person paddles a red kayak on weekends.\n")
    eng.document_changed(eng.store.create(doc, "default", "knowledge", "Facts"))
    yield eng
    eng.close()


@pytest.fixture
def window(qtbot, engine: Engine, tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(interaction=ScriptedInteraction(), state_file=tmp_path / "state.ini", with_tray=False)
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.review.queue_changed, timeout=WAIT):
        win.attach_engine(engine)
    yield win
    win.runner.shutdown(wait=True)
    win.relay.detach()


def _dialog(qtbot, window: MainWindow) -> SettingsDialog:  # type: ignore[no-untyped-def]
    window.settings_action.trigger()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.send_editor.list.count() > 0, timeout=WAIT)
    return dialog


def _item(dialog: SettingsDialog, name: str):  # type: ignore[no-untyped-def]
    lst = dialog.send_editor.list
    return next(lst.item(i) for i in range(lst.count()) if lst.item(i).text().startswith(name))


def test_tick_shows_the_diff_asks_and_writes_only_after_yes(qtbot, window: MainWindow, engine: Engine,
                                                           home: Path) -> None:
    interaction = window.interaction
    assert isinstance(interaction, ScriptedInteraction)
    dialog = _dialog(qtbot, window)
    editor = dialog.send_editor
    claude = _item(dialog, "Claude Code")
    assert claude.checkState() == Qt.CheckState.Unchecked and claude.text() == "Claude Code — ~/.claude"
    kobold = _item(dialog, "KoboldCpp")
    assert not kobold.flags() & Qt.ItemFlag.ItemIsUserCheckable  # said why, never a switch

    interaction.answers.append(False)  # "no" to the first diff
    claude.setCheckState(Qt.CheckState.Checked)
    qtbot.waitUntil(lambda: editor.message.text() == "Nothing was written.", timeout=WAIT)
    qtbot.waitUntil(lambda: _item(dialog, "Claude Code").checkState() == Qt.CheckState.Unchecked, timeout=WAIT)
    assert "+@~/.claude/memory-curator.md" in editor.diff.toPlainText() == interaction.diffs[-1]
    assert not (home / ".claude" / "memory-curator.md").exists() and not engine.settings["send.claude_code"]

    with qtbot.waitSignal(editor.changed, timeout=WAIT):
        _item(dialog, "Claude Code").setCheckState(Qt.CheckState.Checked)
    assert engine.settings["send.claude_code"] is True
    assert "red kayak" in (home / ".claude" / "memory-curator.md").read_text("utf-8")
    assert (home / ".claude" / "CLAUDE.md").read_text("utf-8").startswith(PERSONS)
    asked = [text for kind, text in interaction.asked if kind == "confirm_change"]
    assert len(asked) == 2 and "keep it in step" in asked[-1]

    # Every write can be read again as the diff it was.
    qtbot.mouseClick(editor.writes_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "+@~/.claude/memory-curator.md" in editor.diff.toPlainText(), timeout=WAIT)
    assert editor.diff.toPlainText().startswith("== 20")

    with qtbot.waitSignal(editor.changed, timeout=WAIT):
        qtbot.mouseClick(editor.undo_button, Qt.MouseButton.LeftButton)
    assert (home / ".claude" / "CLAUDE.md").read_text("utf-8") == PERSONS
    assert not (home / ".claude" / "memory-curator.md").exists()

    with qtbot.waitSignal(editor.changed, timeout=WAIT):
        _item(dialog, "Claude Code").setCheckState(Qt.CheckState.Unchecked)
    assert engine.settings["send.claude_code"] is False
    assert (home / ".claude" / "CLAUDE.md").read_text("utf-8") == PERSONS


def test_open_webui_asks_for_its_key_before_anything(qtbot, window: MainWindow, engine: Engine) -> None:
    interaction = window.interaction
    assert isinstance(interaction, ScriptedInteraction)
    engine.client_memory.env = {}
    dialog = _dialog(qtbot, window)
    editor = dialog.send_editor
    item = _item(dialog, "Open WebUI")
    editor.list.setCurrentItem(item)
    assert editor.key_button.isVisibleTo(dialog) and "No API key yet" in editor.detail.text()
    interaction.answers.append("sk-typed")
    with qtbot.waitSignal(editor.changed, timeout=WAIT):
        qtbot.mouseClick(editor.key_button, Qt.MouseButton.LeftButton)
    assert engine.client_memory.api_key_file.read_text("utf-8").strip() == "sk-typed"
    assert ("ask_secret", "Open WebUI's API key (Settings > Account > API keys):") in interaction.asked
