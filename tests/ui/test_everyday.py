"""Issue 15, driven as a person would: every action answered, review without traps, progress.

A real vault with real staged files; keys and clicks on the window's widgets; assertions on
the vault's files and on what the window says.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import StagedSet, knowledge_ids, staged_ids
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QToolButton
from test_flows import WAIT, press, select

from curator.engine import Engine
from ui.infra.interaction import ScriptedInteraction
from ui.main_window import MainWindow


@pytest.fixture
def window(qtbot, engine: Engine, staged: StagedSet, interaction: ScriptedInteraction,
           tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(interaction=interaction, state_file=tmp_path / "state.ini", with_tray=False)
    qtbot.addWidget(win)
    win.show()
    with qtbot.waitSignal(win.review.queue_changed, timeout=WAIT):
        win.attach_engine(engine)
    yield win
    win.runner.shutdown(wait=True)
    win.relay.detach()


# ---- Every action answered


def test_approve_is_answered_with_undo_that_works(qtbot, window: MainWindow, engine: Engine,
                                                 staged: StagedSet) -> None:
    select(qtbot, window, staged.fact)
    press(qtbot, window, Qt.Key.Key_A)
    assert window.notice.text() == "Approved “Maya works night shifts as a nurse”"
    assert window.notice.undo_button.isVisibleTo(window)
    with qtbot.waitSignal(window.review.queue_changed, timeout=WAIT):
        qtbot.mouseClick(window.notice.undo_button, Qt.MouseButton.LeftButton)
    assert staged.fact in staged_ids(engine) and staged.fact not in knowledge_ids(engine)
    assert window.notice.text().startswith("Undid the approval")


def test_discard_asks_an_optional_reason_and_keeps_it(qtbot, window: MainWindow, engine: Engine,
                                                     staged: StagedSet, interaction: ScriptedInteraction) -> None:
    interaction.answers.append("Duplicate")
    select(qtbot, window, staged.second_fact)
    press(qtbot, window, Qt.Key.Key_D)
    assert staged.second_fact not in staged_ids(engine)
    assert window.notice.text() == "Discarded “Pixel is a border collie” (duplicate)"
    trash = [e for e in engine.store.list_trash("default") if e.doc_id == staged.second_fact]
    assert trash and trash[0].reason == "discarded: duplicate"
    # ... and the knowledge browser's trash shows the reason.
    pane = window.knowledge
    with qtbot.waitSignal(pane.trash_loaded, timeout=WAIT):
        pane.reload_trash()
    reasons = [pane.trash.index(r, 3).data() for r in range(pane.trash.rowCount())]
    assert "discarded: duplicate" in reasons


def test_discard_with_a_custom_reason_and_cancel(qtbot, window: MainWindow, engine: Engine,
                                                staged: StagedSet, interaction: ScriptedInteraction) -> None:
    select(qtbot, window, staged.fact)
    interaction.answers.append(None)  # the person closes the reasons dialog: nothing happens
    qtbot.keyClick(window.review.tree, Qt.Key.Key_D)
    assert staged.fact in staged_ids(engine)
    interaction.answers.extend(["Other…", "only true last winter"])
    press(qtbot, window, Qt.Key.Key_D)
    trash = [e for e in engine.store.list_trash("default") if e.doc_id == staged.fact]
    assert trash[0].reason == "discarded: only true last winter"


def test_toolbar_reflect_now_opens_the_reflections_menu_and_runs_the_choice(qtbot, window: MainWindow) -> None:
    button = window.findChild(QToolButton, "toolbar_reflect")
    assert button is not None and window.reflect_action.menu() is window.reflections.reflect_menu
    labels = [a.text() for a in window.reflections.reflect_menu.actions()]
    assert labels == ["Context summary", "Batch reflection", "Micro-reflection", "Consolidation cycle"]
    assert window.reflections.reflect_button.menu() is window.reflections.reflect_menu
    batch = window.reflections.reflect_menu.actions()[1]
    with qtbot.waitSignal(window.reflections.reflection_requested, timeout=WAIT) as blocker:
        batch.trigger()
    assert getattr(blocker.args[0], "kind", "") == "batch"
    assert window.notice.text().startswith("Batch reflection queued")


# ---- Review without traps


def test_editing_types_letters_ctrl_enter_approves_esc_restores(qtbot, window: MainWindow, engine: Engine,
                                                               staged: StagedSet) -> None:
    select(qtbot, window, staged.fact)
    qtbot.keyClick(window.review.tree, Qt.Key.Key_E)
    editor = window.review.diff.new_edit
    assert window.review.edit_hint.isVisibleTo(window)
    assert "Ctrl+Enter" in window.review.edit_hint.text() and "Esc" in window.review.edit_hint.text()
    qtbot.keyClick(editor, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(editor, " a")
    assert editor.toPlainText().endswith(" a")
    assert staged.fact in staged_ids(engine)  # plain A typed a letter, approved nothing
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    assert not editor.toPlainText().endswith(" a")
    assert window.notice.text().startswith("Edit cancelled")
    qtbot.keyClick(window.review.tree, Qt.Key.Key_E)
    editor.setFocus()
    editor.setPlainText("Maya works night shifts at St. Clair Hospital.")
    press(qtbot, window, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier, widget=editor)
    assert staged.fact in knowledge_ids(engine)
    assert window.notice.text().startswith("Approved your edit of")


def test_evidence_highlighting_follows_the_edited_text(qtbot, window: MainWindow, staged: StagedSet) -> None:
    select(qtbot, window, staged.fact)
    before = window.review.evidence.support_label.text()
    editor = window.review.diff.new_edit
    editor.setFocus()
    qtbot.waitUntil(editor.hasFocus, timeout=WAIT)
    editor.setPlainText("Maya collects antique submarines")
    qtbot.waitUntil(lambda: window.review.evidence.support_label.text() != before, timeout=WAIT)
    assert "submarines" in window.review.evidence.support_label.text()


def test_confidence_and_quality_are_explained(qtbot, window: MainWindow, staged: StagedSet) -> None:
    select(qtbot, window, staged.fact)
    assert "Confidence" in window.review.card.badges.toolTip()
    assert "Quality" in window.knowledge.editor.fields["quality"].toolTip()
    assert "quality" in window.knowledge.min_quality.toolTip().lower()


# ---- Progress and the status bar


def test_progress_and_tokens_once(qtbot, window: MainWindow, engine: Engine) -> None:
    bus = engine.bus
    bus.emit("jobs.queued", job={"id": "j1", "kind": "micro", "status": "queued"})
    bus.emit("jobs.queued", job={"id": "j2", "kind": "batch", "status": "queued"})
    bus.emit("jobs.running", job={"id": "j1", "kind": "micro", "status": "running"})
    bus.emit("job.started", job_id=7, job_kind="micro_reflection")
    bus.emit("job.progress", job_id=7, job_kind="micro_reflection", phase="prompt", prompt_done=256,
             prompt_tokens=1024, eta_seconds=12.0)
    qtbot.waitUntil(lambda: "256/1024 tokens" in window.work_indicator.now_label.text(), timeout=WAIT)
    assert "~12 s left" in window.work_indicator.now_label.text()
    assert window.work_indicator.bar.maximum() == 1024 and window.work_indicator.bar.value() == 256
    assert window.work_indicator.waiting_label.text() == "1 waiting"
    assert window.work_indicator.waiting_label.toolTip() == "Waiting: batch reflection"
    assert window.work_indicator.cancel_button.isVisibleTo(window)
    for piece in ('{"facts": [{"subject": "user", "subjectName": "Maya", "fact": "Maya ', "runs", ' marathons"'):
        bus.emit("model.token", job_id=7, text=piece)
        bus.emit("reflection.token", job_id="j1", text=piece)  # the service's echo: not shown again
    qtbot.waitUntil(lambda: "marathons" in window.status.stream.toPlainText(), timeout=WAIT)
    assert window.status.stream.toPlainText() == "fact: Maya runs marathons"
    window.tabs.setCurrentWidget(window.status)
    assert not window.status.raw_stream.isVisibleTo(window)
    toggle = window.status.raw_toggle
    qtbot.mouseClick(toggle, Qt.MouseButton.LeftButton, pos=QPoint(8, toggle.height() // 2))
    assert window.status.raw_stream.isVisibleTo(window)
    assert window.status.raw_stream.toPlainText().count("marathons") == 1
    assert "writing “fact: Maya runs marathons”" in window.work_indicator.now_label.text()


def test_import_progress_and_the_queue_filling_on_an_empty_review(qtbot, window: MainWindow, engine: Engine,
                                                                  staged: StagedSet) -> None:
    window.review.model.set_entries([])  # as if the queue were still empty after start-up
    window.review.set_activity("")
    engine.bus.emit("source.progress", source_id="chats", files_done=3, files_total=10, turns_added=120)
    qtbot.waitUntil(lambda: "3 of 10 files" in window.work_indicator.now_label.text(), timeout=WAIT)
    assert window.work_indicator.bar.value() == 3 and window.work_indicator.bar.maximum() == 10
    window.review._update_empty_label()
    assert "Importing chats: 3 of 10 files, 120 turns" in window.review.empty_label.text()
    engine.bus.emit("source.progress", source_id="chats", files_done=10, files_total=10, turns_added=400)
    qtbot.waitUntil(lambda: "files" not in window.work_indicator.now_label.text(), timeout=WAIT)


def test_cancel_in_the_status_bar_cancels_the_running_job(qtbot, window: MainWindow, engine: Engine) -> None:
    job = engine.reflect_now("default", kind="summary", prompt=None)
    engine.bus.emit("jobs.running", job={"id": job.id, "kind": "summary", "status": "running"})
    qtbot.waitUntil(lambda: window.work_indicator.cancel_button.isVisibleTo(window), timeout=WAIT)
    qtbot.mouseClick(window.work_indicator.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: engine.triggers.queue.get(job.id).status == "cancelled", timeout=WAIT)


# ---- Menus


def test_menu_bar_has_file_view_help_and_ctrl_q(qtbot, window: MainWindow) -> None:
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles[:3] == ["&File", "&View", "&Help"]
    assert window.quit_action.shortcut().toString() == "Ctrl+Q"
    view = [a.text() for a in window.view_menu.actions() if a.text()]
    assert view[0] == "Review" and "Knowledge" in view
    view_actions = [a for a in window.view_menu.actions() if a.text() == "Knowledge"]
    view_actions[0].trigger()
    assert window.tabs.currentWidget() is window.knowledge
    assert [a.text() for a in window.help_menu.actions()] == ["&Connect a chat client…", "&Open the README",
                                                             "&About Memory Curator"]
