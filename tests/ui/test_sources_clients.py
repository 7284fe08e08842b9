"""Sources editor: "Find installed clients" adds what discovery finds; client, version and health columns."""

from __future__ import annotations

from pathlib import Path

from fakes.chatdbs import make_ollama, ollama_save_chat
from PySide6.QtCore import Qt

from curator.engine import Engine
from ui.dialogs.setup_widgets import PendingSources, SourcesEditor
from ui.services.facade import SourcesService

WAIT = 60_000


def _home_with_ollama(tmp_path: Path, monkeypatch, version: int = 18) -> Path:  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    (home / ".ollama").mkdir(parents=True)
    conn = make_ollama(home / ".ollama/db.sqlite", version=version)
    ollama_save_chat(conn, "c", "t", [("user", "hi", "2026-01-01 12:00:00+00:00")])
    conn.close()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "DATA_DIR", "STORAGE_DIR"):
        monkeypatch.delenv(name, raising=False)
    return home


def _cells(editor: SourcesEditor, row: int) -> list[str]:
    model = editor.model
    return [model.index(row, c).data() for c in range(model.columnCount())]


def test_find_installed_clients_adds_them_to_the_engine(qtbot, tmp_path, monkeypatch, runner) -> None:  # type: ignore[no-untyped-def]
    home = _home_with_ollama(tmp_path, monkeypatch)
    engine = Engine(tmp_path / "vault", triggers=False)
    try:
        editor = SourcesEditor(runner, None, SourcesService(engine))
        qtbot.addWidget(editor)
        with qtbot.waitSignal(editor.clients_found, timeout=WAIT) as found:
            qtbot.mouseClick(editor.find_button, Qt.MouseButton.LeftButton)
        assert [(c.client, c.conversations, c.source_id) for c in found.args[0]] == [("Ollama app", 1, "added")]
        assert [(Path(s.path), s.adapter) for s in engine.settings.sources] == [(home / ".ollama/db.sqlite", "ollama")]
        assert "Ollama app schema 18: 1 conversations, added" in editor.found_label.text()
        qtbot.waitUntil(lambda: _cells(editor, 0)[4:] == ["Ollama app", "schema 18", "available"], timeout=WAIT)
        # Finding again adds nothing twice.
        with qtbot.waitSignal(editor.clients_found, timeout=WAIT) as again:
            qtbot.mouseClick(editor.find_button, Qt.MouseButton.LeftButton)
        assert [c.source_id for c in again.args[0]] == ["already"] and len(engine.settings.sources) == 1
        qtbot.waitUntil(lambda: not runner.is_busy(), timeout=WAIT)  # the details refresh, before closing
    finally:
        runner.shutdown(wait=True)
        engine.close()


def test_pending_sources_show_unsupported_version(qtbot, tmp_path, monkeypatch, runner) -> None:  # type: ignore[no-untyped-def]
    _home_with_ollama(tmp_path, monkeypatch, version=77)
    editor = SourcesEditor(runner, None, PendingSources())
    qtbot.addWidget(editor)
    with qtbot.waitSignal(editor.clients_found, timeout=WAIT) as found:
        editor.find_clients()
    assert [c.supported for c in found.args[0]] == [False]
    assert "not readable" in editor.found_label.text() and editor.model.rowCount() == 0
