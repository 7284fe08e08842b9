"""First-run assistant, settings applied through the window, and the app's start-up helpers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QSpinBox

from curator.datafiles import demo_dir
from curator.engine import Engine
from curator.llm.discovery import SOURCE_DEFAULT
from curator.vault.settings import load_settings
from ui.app import apply_first_run, needs_first_run, open_engine, parse_args
from ui.dialogs.first_run import FirstRunResult, FirstRunWizard
from ui.infra.interaction import ScriptedInteraction
from ui.infra.workers import OpRunner
from ui.main_window import MainWindow

WAIT = 15_000


def test_first_run_detects_adapters_and_preselects_the_default_model(qtbot, runner: OpRunner, tmp_path: Path) -> None:
    with qtbot.waitSignal(runner.op_finished, timeout=WAIT):  # the model search
        wizard = FirstRunWizard(runner, tmp_path / "vault")
        qtbot.addWidget(wizard)
    assert "usable" in wizard.models_status.text()
    first = wizard.models.record(wizard.models_view.currentIndex().row())
    assert first is not None and first.source == SOURCE_DEFAULT
    assert "(default)" in wizard.models.index(0, 0).data()
    assert wizard.selected_model_path() == ""  # the default is stored as "use the bundled default"
    wizard.source_user.setText("maya")
    with qtbot.waitSignal(wizard.sources_editor.sources_changed, timeout=WAIT):
        wizard.add_source(str(demo_dir()), "maya")
    assert [(s.adapter, s.user_id) for s in wizard.sources] == [("jsonl", "maya")]
    assert wizard.sources_editor.model.rowCount() == 1
    with qtbot.waitSignal(runner.op_failed, timeout=WAIT):
        wizard.add_source(str(tmp_path), "maya")  # an empty folder: no adapter recognises it
    assert "no adapter recognises" in wizard.source_error.text()
    wizard.vault_edit.setText(str(tmp_path / "my-vault"))
    wizard.name_edit.setText("  Alex   Kim ")
    with qtbot.waitSignal(wizard.finished_with, timeout=WAIT) as blocker:
        wizard.accept()
    result: FirstRunResult = blocker.args[0]
    assert result.vault == tmp_path / "my-vault"
    assert needs_first_run(result.vault)
    apply_first_run(result)
    assert not needs_first_run(result.vault)
    settings, _ = load_settings(result.vault / "curator.yaml")
    assert [(s.adapter, s.user_id) for s in settings.sources] == [("jsonl", "maya")]
    assert settings["person.name"] == "Alex Kim"  # memories of role-only chats call the person so


def test_open_engine_for_the_demo_adds_the_read_only_demo_source_once(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "demo-vault", demo=True, watch=False)
    try:
        assert [Path(s.path) for s in engine.settings.sources] == [demo_dir().resolve()]
        assert engine.index.max_number("default") == 50
    finally:
        engine.close()
    engine = open_engine(tmp_path / "demo-vault", demo=True, watch=False)
    try:
        assert len(engine.settings.sources) == 1
    finally:
        engine.close()


def test_parse_args() -> None:
    args = parse_args(["--vault", "/tmp/v", "--demo"])
    assert args.vault == Path("/tmp/v") and args.demo and not args.first_run


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    eng = Engine(tmp_path / "vault")
    yield eng
    eng.close()


def test_settings_dialog_changes_are_saved(qtbot, engine: Engine, tmp_path: Path) -> None:
    win = MainWindow(interaction=ScriptedInteraction(), state_file=tmp_path / "s.ini", with_tray=False)
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.review.queue_changed, timeout=WAIT):
        win.attach_engine(engine)
    win.settings_action.trigger()
    dialog = win.settings_dialog
    assert dialog is not None and dialog.isVisible()
    spin = dialog.editors["batch.turn_threshold"]
    assert isinstance(spin, QSpinBox)
    spin.setValue(14)
    with qtbot.waitSignal(win.settings_saved, timeout=WAIT):
        dialog.accept()
    settings, _ = load_settings(engine.paths.settings_file)
    assert settings["batch.turn_threshold"] == 14
    win.runner.shutdown()
    win.relay.detach()
