"""The Cycle tab: one pending cycle as a unit - MEMORY.md diff, operations with evidence, answers."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fakes.cycle import phase_answers
from fakes.scripted import ScriptedModel
from PySide6.QtCore import Qt

from curator.clock import ManualClock
from curator.datafiles import demo_dir
from curator.engine import Engine
from curator.reflection.cycle.runner import CycleRunner
from curator.reflection.service import RuntimeModelClient
from ui.infra.interaction import ScriptedInteraction
from ui.infra.workers import OpRunner
from ui.panes.cycle import CyclePane
from ui.services.cycles import CycleService

WAIT = 10_000
NOW = datetime(2026, 11, 22, 3, 0, tzinfo=UTC).timestamp()


@pytest.fixture
def cycle_engine(tmp_path: Path) -> Iterator[Engine]:
    engine = Engine(tmp_path / "vault", clock=ManualClock(NOW))
    engine.add_source(demo_dir(), adapter="jsonl", user_id="default")
    engine.scan_all()
    model = ScriptedModel([phase_answers()] * 10)
    client = RuntimeModelClient(model, engine.paths.root)
    runner = CycleRunner(engine.paths, client, lambda user, after: engine.index.turns(user, after=after),
                         n_ctx=4096, clock=engine.clock)
    assert runner.run("default").status == "proposed"
    model.shutdown()
    yield engine
    engine.close()


def test_pane_shows_the_cycle_and_applies_a_partial_approval(qtbot, cycle_engine: Engine, runner: OpRunner,
                                                            interaction: ScriptedInteraction) -> None:
    pane = CyclePane(runner, interaction)
    qtbot.addWidget(pane)
    with qtbot.waitSignal(pane.count_changed, timeout=WAIT, check_params_cb=lambda n: n == 1):
        pane.attach(CycleService(cycle_engine, "default"))
    record = pane.current()
    assert record is not None and "Reflection #1" in pane.header.text()
    assert pane.memory.old_edit.toPlainText() == "" and "## Critical Facts" in pane.memory.new_text()
    assert [pane.model.operation(r).operation for r in range(pane.model.rowCount())] == ["EXTRACT", "CONNECT"]
    pane.table.selectRow(0)
    assert "night shifts" in pane.evidence.toPlainText()
    assert "New Knowledge Extracted" in pane.summary.toPlainText()
    pane.model.setData(pane.model.index(1, 0), Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    pane.include_memory.setChecked(False)
    with qtbot.waitSignal(pane.count_changed, timeout=WAIT, check_params_cb=lambda n: n == 0):
        pane.approve_button.click()
    root = cycle_engine.paths.user("default").root
    assert not (root / "MEMORY.md").exists()
    assert (root / "memory/graph/entities/maya.md").exists()
    assert not (root / "memory/graph/entities/pixel.md").exists()
    assert not pane.approve_button.isEnabled()
