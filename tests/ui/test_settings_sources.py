"""Settings dialog: the Sources tab and the model picker, on a real temporary vault.

Folders and files are "chosen" through ``ScriptedInteraction`` (no real file dialog);
every background step is awaited on a signal with a generous timeout (no sleeps).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.gguf_writer import build_gguf
from PySide6.QtCore import QItemSelectionModel, Qt

from curator.datafiles import demo_dir
from curator.engine import Engine
from curator.llm.runtime import ModelRuntime
from curator.vault.settings import SourceConfig, load_settings
from ui.dialogs.settings_dialog import SettingsDialog
from ui.dialogs.setup_widgets import ModelPicker, model_choices
from ui.infra.interaction import ScriptedInteraction
from ui.main_window import MainWindow
from ui.models.sources_model import SourcesModel

WAIT = 60_000  # a loaded 2-core machine: discovery and vault writes can be slow


def _gguf(path: Path, name: str, file_type: int = 15) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(build_gguf(
        {"general.architecture": "llama", "general.name": name, "llama.context_length": 2048,
         "general.file_type": file_type, "tokenizer.ggml.tokens": ["<s>", "</s>", "hi"]},
        [("token_embd.weight", (256, 4), 12)]))
    return path


@pytest.fixture
def models_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "models"
    _gguf(folder / "tiny-test-Q4_K_M.gguf", "Tiny Test")
    (folder / "broken-Q8_0.gguf").write_bytes(b"GGUF\x03\x00\x00\x00 not really a model")
    return folder


@pytest.fixture
def engine(tmp_path: Path, models_dir: Path) -> Iterator[Engine]:
    eng = Engine(tmp_path / "vault")
    eng.update_settings({"model.search_folders": str(models_dir)})
    yield eng
    runtime = getattr(eng, "runtime", None)
    if runtime is not None:
        runtime.shutdown()
    eng.close()


@pytest.fixture
def interaction() -> ScriptedInteraction:
    return ScriptedInteraction()


@pytest.fixture
def window(qtbot, engine: Engine, interaction: ScriptedInteraction, tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(interaction=interaction, state_file=tmp_path / "state.ini", with_tray=False)
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.review.queue_changed, timeout=WAIT):
        win.attach_engine(engine)
    yield win
    win.runner.shutdown(wait=True)
    win.relay.detach()


@pytest.fixture
def dialog(qtbot, window: MainWindow) -> SettingsDialog:
    window.settings_action.trigger()
    dlg = window.settings_dialog
    assert dlg is not None and dlg.isVisible()
    with qtbot.waitSignal(dlg.model_picker.models_loaded, timeout=WAIT):
        pass  # discovery runs on the worker; its result is posted to the GUI thread
    return dlg


@pytest.fixture
def chats(tmp_path: Path) -> Path:
    folder = tmp_path / "chats"
    folder.mkdir()
    shutil.copy(next(demo_dir().glob("*.jsonl")), folder / "conversation.jsonl")
    return folder


def _yaml_sources(engine: Engine) -> list[SourceConfig]:
    settings, _ = load_settings(engine.paths.settings_file)
    return settings.sources


def _select_row(view, row: int) -> None:  # type: ignore[no-untyped-def]
    view.selectionModel().setCurrentIndex(
        view.model().index(row, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)


# ---- Sources


def test_sources_tab_is_first_and_lists_the_engines_sources(dialog: SettingsDialog, engine: Engine) -> None:
    assert dialog.tabs.tabText(0) == "Sources"
    assert dialog.sources_editor.model.rowCount() == len(engine.settings.sources) == 0
    assert [dialog.sources_editor.model.headerData(c, Qt.Orientation.Horizontal) for c in range(4)] == [
        "Path", "Adapter", "User", "Enabled"]


def test_add_a_folder_then_remove_it(qtbot, dialog: SettingsDialog, engine: Engine, interaction: ScriptedInteraction,
                                     chats: Path) -> None:
    editor = dialog.sources_editor
    interaction.answers.append(str(chats))
    with qtbot.waitSignal(editor.detected, timeout=WAIT) as detected:
        qtbot.mouseClick(editor.add_folder_button, Qt.MouseButton.LeftButton)
    assert ("choose_folder", "Folder with chat logs") in interaction.asked
    assert detected.args == ["jsonl"]
    assert editor.path_edit.text() == str(chats)
    assert "jsonl" in editor.adapter_label.text() and editor.add_button.isEnabled()
    assert engine.settings.sources == []  # detecting adds nothing
    editor.user_edit.setText("maya")
    with qtbot.waitSignal(dialog.sources_changed, timeout=WAIT):
        qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)

    model = editor.model
    assert model.rowCount() == 1
    assert [model.index(0, c).data() for c in range(4)] == [str(chats.resolve()), "jsonl", "maya", "yes"]
    assert [(Path(s.path), s.adapter, s.user_id) for s in engine.settings.sources] == [
        (chats.resolve(), "jsonl", "maya")
    ]
    assert [(Path(s.path), s.user_id) for s in _yaml_sources(engine)] == [(chats.resolve(), "maya")]
    assert editor.path_edit.text() == "" and not editor.add_button.isEnabled() and editor.message.text() == ""

    _select_row(editor.view, 0)
    assert editor.remove_button.isEnabled()
    with qtbot.waitSignal(dialog.sources_changed, timeout=WAIT):
        qtbot.mouseClick(editor.remove_button, Qt.MouseButton.LeftButton)
    assert interaction.asked[-1][0] == "confirm"
    assert model.rowCount() == 0
    assert engine.settings.sources == [] and _yaml_sources(engine) == []


def test_a_bad_folder_gives_the_message_and_changes_nothing(qtbot, dialog: SettingsDialog, engine: Engine,
                                                            interaction: ScriptedInteraction, tmp_path: Path) -> None:
    editor = dialog.sources_editor
    settings_file = engine.paths.settings_file
    before = settings_file.read_bytes()

    empty = tmp_path / "empty"
    empty.mkdir()
    interaction.answers.append(str(empty))
    with qtbot.waitSignal(editor.failed, timeout=WAIT) as failed:
        qtbot.mouseClick(editor.add_folder_button, Qt.MouseButton.LeftButton)
    assert "no adapter recognises" in failed.args[0]
    assert "no adapter recognises" in editor.message.text()
    assert not editor.add_button.isEnabled()

    with qtbot.waitSignal(editor.failed, timeout=WAIT) as failed:
        editor.add_source(str(tmp_path / "missing"), "default")
    assert "does not exist" in editor.message.text()

    inside = engine.paths.root / "chats"  # readable, but the vault is never a source
    inside.mkdir()
    shutil.copy(next(demo_dir().glob("*.jsonl")), inside / "c.jsonl")
    interaction.answers.append(str(inside))
    with qtbot.waitSignal(editor.detected, timeout=WAIT):
        qtbot.mouseClick(editor.add_folder_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(editor.failed, timeout=WAIT):
        qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)
    assert "inside the vault" in editor.message.text()

    assert editor.model.rowCount() == 0
    assert engine.settings.sources == []
    assert settings_file.read_bytes() == before


def test_sources_model_passes_the_model_tester(qtmodeltester, tmp_path: Path) -> None:
    model = SourcesModel()
    model.set_records([SourceConfig(str(tmp_path / "a"), "jsonl", "default", "a", True),
                       SourceConfig(str(tmp_path / "b"), "openclaw", "maya", "b", False)])
    qtmodeltester.check(model, force_py=True)
    assert model.index(1, 3).data() == "no"


# ---- Model picker


def test_model_picker_lists_discovered_models_and_saves_the_choice(qtbot, window: MainWindow, dialog: SettingsDialog,
                                                                   engine: Engine, models_dir: Path) -> None:
    picker = dialog.editors["model.path"]
    assert isinstance(picker, ModelPicker) and picker is dialog.model_picker
    model = picker.model
    first = model.record(0)
    assert first is not None and first.is_default and first.value == ""
    assert "(default)" in model.index(0, 0).data()
    assert picker.value() == "" and picker.selected() is first  # the one in use (the default) is selected

    tiny = (models_dir / "tiny-test-Q4_K_M.gguf")
    row = model.row_of(lambda c: Path(c.path) == tiny)
    assert row > 0
    assert model.index(row, 1).data() == "Q4_K_M"
    assert model.index(row, 5).data() == "folder"
    assert model.index(row, 4).data().endswith(" s")  # expected time per batch (an estimate)
    assert "What a larger model buys" in picker.larger_note.text()
    assert "SmolLM2-135M-Instruct" in picker.status.text()  # best fit here: the default, not the tiny test file
    assert model.flags(model.index(row, 0)) & Qt.ItemFlag.ItemIsEnabled

    broken = model.row_of(lambda c: c.path.endswith("broken-Q8_0.gguf"))
    assert broken > row  # unusable files come after the usable ones
    record = model.record(broken)
    assert record is not None and record.error
    assert not model.flags(model.index(broken, 0)) & Qt.ItemFlag.ItemIsEnabled
    assert model.index(broken, 0).data(Qt.ItemDataRole.ToolTipRole) == record.error
    assert not picker.set_value(record.value)

    runtime = ModelRuntime(None)  # a runtime that never loads anything: set_model only records the path
    engine.runtime = runtime  # type: ignore[attr-defined]
    _select_row(picker.view, row)
    assert picker.value() == str(tiny)
    assert dialog.changed_values() == {"model.path": str(tiny)}
    with qtbot.waitSignal(window.settings_saved, timeout=WAIT):
        dialog.accept()
    assert engine.settings["model.path"] == str(tiny)
    settings, _ = load_settings(engine.paths.settings_file)
    assert settings["model.path"] == str(tiny)
    qtbot.waitUntil(lambda: runtime.model_path == tiny, timeout=WAIT)


def test_other_file_is_described_listed_and_selected(qtbot, dialog: SettingsDialog, interaction: ScriptedInteraction,
                                                     tmp_path: Path) -> None:
    picker = dialog.model_picker
    other = _gguf(tmp_path / "elsewhere" / "my-own-Q8_0.gguf", "My Own", file_type=7)
    interaction.answers.append(str(other))
    with qtbot.waitSignal(picker.value_changed, timeout=WAIT) as changed:
        qtbot.mouseClick(picker.other_button, Qt.MouseButton.LeftButton)
    assert interaction.asked[-1] == ("choose_file", "GGUF model file")
    assert changed.args == [str(other)]
    selected = picker.selected()
    assert selected is not None and selected.name and selected.quantization == "Q8_0" and selected.source == "file"
    assert dialog.changed_values() == {"model.path": str(other)}
    dialog._on_restore_clicked()
    assert picker.value() == "" and "model.path" not in dialog.changed_values()


def test_a_model_in_use_that_is_not_found_stays_selected(qtbot, runner, interaction: ScriptedInteraction,
                                                         tmp_path: Path, models_dir: Path) -> None:
    from curator.llm.discovery import discover_models

    current = str(_gguf(tmp_path / "mine" / "kept-Q4_K_M.gguf", "Kept"))
    picker = ModelPicker(runner, interaction, lambda: discover_models([], extra_folders=[models_dir]), current)
    qtbot.addWidget(picker)
    assert picker.value() == current  # before discovery: the value in use
    with qtbot.waitSignal(picker.models_loaded, timeout=WAIT):
        pass
    assert picker.value() == current
    selected = picker.selected()
    assert selected is not None and selected.quantization == "Q4_K_M"


def test_model_choices_and_picker_model_pass_the_model_tester(qtbot, qtmodeltester, dialog: SettingsDialog) -> None:
    assert model_choices([], "")[0].is_default
    assert [c.value for c in model_choices([], "/x/y.gguf")] == ["", "/x/y.gguf"]
    qtmodeltester.check(dialog.model_picker.model, force_py=True)
    qtmodeltester.check(dialog.sources_editor.model, force_py=True)
