"""Reflections, knowledge, status and main-window behaviour on a real vault."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import StagedSet, knowledge_ids, stage_items
from PySide6.QtCore import QItemSelectionModel, Qt

from curator.clock import ManualClock
from curator.engine import Engine
from curator.reflection.summaries import SummaryStore
from curator.vault.documents import Document
from ui.infra.interaction import ScriptedInteraction
from ui.main_window import MainWindow
from ui.panes.status import StatusPane, describe_event

WAIT = 10_000



@pytest.fixture
def summary_ids(engine: Engine) -> list[str]:
    clock = ManualClock(1_795_300_000.0)
    store = SummaryStore(engine.store, clock)
    first = store.create("default", "Write a concise summary of the current context.",
                         "Maya is a night-shift nurse getting organised before winter.", (1, 22))
    clock.advance(3600)
    second = store.create("default", "Only the travel plans, please.",
                          "Maya moved her Lisbon trip to September.", (23, 40))
    return [first.id, second.id]


@pytest.fixture
def window(qtbot, engine: Engine, staged: StagedSet, summary_ids: list[str], interaction: ScriptedInteraction,
           tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(interaction=interaction, state_file=tmp_path / "state.ini", with_tray=False)
    qtbot.addWidget(win)
    win.show()
    with qtbot.waitSignals([win.review.queue_changed, win.reflections.summaries_loaded,
                            win.knowledge.results_shown], timeout=WAIT):
        win.attach_engine(engine)
    yield win
    win.runner.shutdown(wait=True)
    win.relay.detach()


def _select_row(view, row: int) -> None:
    view.selectionModel().setCurrentIndex(
        view.model().index(row, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)


# ---- Reflections


def test_timeline_lists_summaries_in_time_order_with_prompts(window: MainWindow, summary_ids: list[str]) -> None:
    pane = window.reflections
    assert pane.model.rowCount() == 2
    assert [r.id for r in pane.model.records()] == summary_ids
    assert pane.model.index(1, 2).data() == "Only the travel plans, please."
    assert "Lisbon" in pane.editor.toPlainText()  # newest selected
    assert "Only the travel plans" in pane.prompt_label.text()


def test_edit_delete_and_restore_a_summary(qtbot, window: MainWindow, engine: Engine, summary_ids: list[str],
                                           interaction: ScriptedInteraction) -> None:
    pane = window.reflections
    store = SummaryStore(engine.store, engine.clock)
    _select_row(pane.table, 0)
    pane.editor.setPlainText("Maya works nights as a nurse; she is organising her winter.")
    with qtbot.waitSignal(pane.summaries_loaded, timeout=WAIT):
        qtbot.mouseClick(pane.save_button, Qt.MouseButton.LeftButton)
    assert (
        store.get("default", summary_ids[0]).get("summary")
        == "Maya works nights as a nurse; she is organising her winter."
    )
    _select_row(pane.table, 0)
    with qtbot.waitSignal(pane.summaries_loaded, timeout=WAIT, check_params_cb=lambda n: n == 1):
        qtbot.mouseClick(pane.delete_button, Qt.MouseButton.LeftButton)
    assert interaction.asked[-1][0] == "confirm"
    assert store.get("default", summary_ids[0]).deleted
    assert not any(h.id == summary_ids[0] for h in engine.search("nurse organising winter", limit=20))
    with qtbot.waitSignal(pane.summaries_loaded, timeout=WAIT, check_params_cb=lambda n: n == 2):
        pane.show_deleted.setChecked(True)
    row = pane.model.row_of(lambda s: s.id == summary_ids[0])
    assert pane.model.index(row, 1).data().startswith("[deleted]")
    _select_row(pane.table, row)
    assert pane.restore_button.isEnabled() and not pane.delete_button.isEnabled()
    with qtbot.waitSignal(pane.summaries_loaded, timeout=WAIT):
        qtbot.mouseClick(pane.restore_button, Qt.MouseButton.LeftButton)
    assert not store.get("default", summary_ids[0]).deleted


def test_reflect_now_queues_a_manual_job_with_the_custom_prompt(qtbot, window: MainWindow, engine: Engine) -> None:
    pane = window.reflections
    pane.custom_prompt.setText("Summarise only the running plans")
    with qtbot.waitSignal(pane.reflection_requested, timeout=WAIT) as blocker:
        qtbot.mouseClick(pane.reflect_button, Qt.MouseButton.LeftButton)
    job = blocker.args[0]
    assert getattr(job, "kind", "summary") == "summary"
    assert window.notice.text() == "Context summary queued; the status bar shows it running"
    assert pane.custom_prompt.text() == ""
    if not hasattr(engine, "reflect_now"):
        assert job.prompt == "Summarise only the running plans" and job.manual


# ---- Knowledge


def test_search_as_you_type_and_open_a_document(qtbot, window: MainWindow, engine: Engine, staged: StagedSet) -> None:
    pane = window.knowledge
    window.tabs.setCurrentWidget(pane)
    with qtbot.waitSignal(pane.results_shown, timeout=WAIT):
        qtbot.keyClicks(pane.query, "sister Porto")
    kinds = {pane.results.index(r, 1).data() for r in range(pane.results.rowCount())}
    assert "fact" in kinds and "turn" in kinds
    row = pane.results.row_of(lambda h: h.id == staged.existing_fact)
    assert row >= 0
    with qtbot.waitSignal(pane.document_shown, timeout=WAIT, check_params_cb=lambda i: i == staged.existing_fact):
        _select_row(pane.table, row)
    assert "Porto" in pane.editor.body.toPlainText()
    with qtbot.waitSignal(pane.results_shown, timeout=WAIT):
        pane.kind.setCurrentText("turn")
    assert {pane.results.index(r, 1).data() for r in range(pane.results.rowCount())} == {"turn"}


def test_edit_a_document_then_see_its_history(qtbot, window: MainWindow, engine: Engine, staged: StagedSet) -> None:
    pane = window.knowledge
    with qtbot.waitSignal(pane.document_shown, timeout=WAIT):
        pane.open_document(staged.existing_fact)
    pane.editor.fields["primary_topic"].setText("family.sister")  # type: ignore[attr-defined]
    pane.editor.body.setPlainText("Maya's sister Ana lives in Porto, near the river.")
    with qtbot.waitSignal(pane.document_shown, timeout=WAIT):
        qtbot.mouseClick(pane.editor.save_button, Qt.MouseButton.LeftButton)
    doc = engine.store.find(staged.existing_fact, "default")
    assert isinstance(doc, Document)
    assert doc.body.strip() == "Maya's sister Ana lives in Porto, near the river."
    assert doc.get("primary_topic") == "family.sister"
    assert pane.history.rowCount() == 1
    _select_row(pane.history_view, 0)
    qtbot.waitUntil(lambda: "lives in Porto." in pane.history_text.toPlainText(), timeout=WAIT)
    assert any(h.id == staged.existing_fact for h in engine.search("river", limit=5))


def test_trash_and_restore_a_document(qtbot, window: MainWindow, engine: Engine, staged: StagedSet,
                                      interaction: ScriptedInteraction) -> None:
    pane = window.knowledge
    with qtbot.waitSignal(pane.document_shown, timeout=WAIT):
        pane.open_document(staged.corrected_fact)
    with qtbot.waitSignal(pane.trash_loaded, timeout=WAIT, check_params_cb=lambda n: n == 1):
        qtbot.mouseClick(pane.editor.trash_button, Qt.MouseButton.LeftButton)
    assert staged.corrected_fact not in knowledge_ids(engine)
    assert pane.current_document() is None
    _select_row(pane.trash_view, 0)
    with qtbot.waitSignal(pane.trash_loaded, timeout=WAIT, check_params_cb=lambda n: n == 0):
        qtbot.mouseClick(pane.restore_button, Qt.MouseButton.LeftButton)
    assert staged.corrected_fact in knowledge_ids(engine)


# ---- Status


def test_status_pane_shows_sources_and_triggers(qtbot, window: MainWindow) -> None:
    pane = window.status
    qtbot.waitUntil(lambda: pane.sources.rowCount() == 1, timeout=WAIT)
    assert pane.sources.index(0, 1).data() == "jsonl"
    assert pane.sources.index(0, 4).data() == "50"  # the demo: two English chats and the Portuguese one
    assert "batch:" in pane.triggers_text.toPlainText()
    assert "next:" in pane.triggers_text.toPlainText()


def test_engine_events_reach_the_activity_log_from_a_worker_thread(qtbot, window: MainWindow, engine: Engine) -> None:
    pane = window.status
    before = pane.activity.rowCount()
    thread = threading.Thread(target=lambda: engine.bus.emit(
        "batch.finished", user_id="default", batch_id=3, staged_files=["a.md"],
        rejections=[{"item": "Maya likes ACME", "gate": "keyword_support", "reason": "words not in the turns"}]))
    with qtbot.waitSignal(window.relay.event_received, timeout=WAIT):
        thread.start()
    thread.join()
    rows = [(pane.activity.index(r, 1).data(), pane.activity.index(r, 2).data())
            for r in range(before, pane.activity.rowCount())]
    assert ("gate.rejected", "keyword_support: words not in the turns — “Maya likes ACME”") in rows
    assert any(kind == "batch.finished" and "1 staged files" in text for kind, text in rows)


def test_tokens_stream_and_cancel_is_requested(qtbot) -> None:
    pane = StatusPane()
    qtbot.addWidget(pane)
    pane.on_engine_event("model.loading", {"path": "/m/smol.gguf"})
    assert pane.model_progress.isVisibleTo(pane) and "loading" in pane.model_label.text()
    pane.on_engine_event("model.ready", {"path": "/m/smol.gguf", "name": "SmolLM2"})
    assert "SmolLM2 — ready" in pane.model_label.text()
    pane.on_engine_event("job.started", {"job_id": 4, "job_kind": "context_summary"})
    pane.on_tokens("4", "Maya is ")
    pane.on_tokens("4", "a nurse.")
    assert pane.stream.toPlainText() == "Maya is a nurse."
    assert pane.cancel_button.isEnabled()
    with qtbot.waitSignal(pane.cancel_requested, check_params_cb=lambda job: job == "4"):
        qtbot.mouseClick(pane.cancel_button, Qt.MouseButton.LeftButton)
    pane.on_engine_event("job.finished", {"job_id": 4, "job_kind": "context_summary", "status": "cancelled"})
    assert "cancelled" in pane.job_label.text() and not pane.cancel_button.isEnabled()


def test_describe_event_is_quiet_for_tokens() -> None:
    assert describe_event("model.token", {"text": "x"}) == []
    lines = describe_event("trigger.decision", {"user_id": "default", "reason": "batch: 10/10 turns"})
    assert lines[0].message == "[default] batch: 10/10 turns"


# ---- Main window


def test_window_remembers_its_geometry(qtbot, engine: Engine, tmp_path: Path) -> None:
    state = tmp_path / "state.ini"
    first = MainWindow(interaction=ScriptedInteraction(), state_file=state, with_tray=False)
    qtbot.addWidget(first)
    first.resize(701, 455)
    first.save_geometry()
    second = MainWindow(interaction=ScriptedInteraction(), state_file=state, with_tray=False)
    qtbot.addWidget(second)
    assert (second.width(), second.height()) == (701, 455)
    assert state.exists()
    for win in (first, second):
        win.runner.shutdown()


def test_window_is_usable_before_the_engine_opens(qtbot, tmp_path: Path) -> None:
    win = MainWindow(interaction=ScriptedInteraction(), state_file=tmp_path / "s.ini", with_tray=False)
    qtbot.addWidget(win)
    win.show()
    assert win.tabs.count() == 6
    assert not win.reflect_action.isEnabled()
    qtbot.keyClick(win.review.tree, Qt.Key.Key_A)  # nothing to do yet; must not fail
    win.show_engine_error("vault locked by another process")
    assert "vault locked" in win.vault_label.text()
    win.runner.shutdown()


def test_queue_count_reaches_title_and_tray(qtbot, engine: Engine, staged: StagedSet, tmp_path: Path) -> None:
    win = MainWindow(interaction=ScriptedInteraction(), state_file=tmp_path / "s.ini", with_tray=True)
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.review.queue_changed, timeout=WAIT):
        win.attach_engine(engine)
    assert win.windowTitle() == "Memory Curator — 5 waiting"
    assert win.tray is not None and win.tray.count == 5 and win.tray.notifications == []
    stage_items(engine)
    with qtbot.waitSignal(win.review.queue_changed, timeout=WAIT, check_params_cb=lambda n: n == 10):
        engine.bus.emit("batch.finished", user_id="default", batch_id=2)
    assert win.tray.notifications == ["5 new items to review (10 waiting)"]
    win.runner.shutdown()
    win.relay.detach()
    win.tray.hide()


def test_batch_logs_and_gate_rejections_fill_the_activity_log(qtbot, window: MainWindow, engine: Engine) -> None:
    import json

    from curator.vault.atomic import atomic_write_text

    folder = engine.paths.user("default").reflector_logs
    log = {
        "batch_id": 1, "timestamp": "2026-11-21T09:00:00Z", "turns_reviewed": [1, 2, 3], "trigger": "turn_count",
        "urgency_score": 2.0,
        "quality_gate_results": {"items_proposed": 3, "items_passed": 1, "rejections": [
            {"item": "Maya owns a red bicycle", "gate": "keyword_support", "reason": "bicycle not in turns 1-3"}]},
        "staged_files": ["Knowledge_staging/Facts/x--abcdef123456.md"], "promoted_files": [], "duration_ms": 2400,
    }
    atomic_write_text(folder / "batch_001.json", json.dumps(log))
    pane = window.status
    before = pane.activity.rowCount()
    window.refresh_status()
    qtbot.waitUntil(lambda: pane.activity.rowCount() >= before + 2, timeout=WAIT)
    texts = [pane.activity.index(r, 2).data() for r in range(before, pane.activity.rowCount())]
    assert "batch 1: 3 turns (turn_count), 3 proposed, 1 passed, 1 staged, 2400 ms" in texts
    assert "keyword_support: bicycle not in turns 1-3 — “Maya owns a red bicycle”" in texts
    with qtbot.waitSignal(window.runner.op_finished, timeout=WAIT):
        window.refresh_status()
    assert pane.activity.rowCount() == before + 2  # a batch is listed once
