"""The main flows on a real temporary vault with real staged files, driven like a person would.

Every action goes through the window's widgets (keys, buttons); assertions look at the
files in the vault, not at widget state alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import StagedSet, knowledge_ids, staged_ids
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QUrl

from curator.engine import Engine
from curator.vault.documents import Document
from ui.infra.interaction import ScriptedInteraction
from ui.main_window import MainWindow

WAIT = 10_000



@pytest.fixture
def window(
    qtbot, engine: Engine, staged: StagedSet, interaction: ScriptedInteraction, tmp_path: Path
) -> Iterator[MainWindow]:
    win = MainWindow(interaction=interaction, state_file=tmp_path / "state.ini", with_tray=False)
    qtbot.addWidget(win)
    win.show()
    with qtbot.waitSignal(win.review.queue_changed, timeout=WAIT):
        win.attach_engine(engine)
    yield win
    win.runner.shutdown(wait=True)
    win.relay.detach()


def select(qtbot, win: MainWindow, item_id: str) -> None:
    tree = win.review.tree
    tree.setFocus()
    # The queue selects its first item by itself; start from no selection so that choosing
    # that same item still changes the current index (and shows its detail again).
    tree.selectionModel().setCurrentIndex(QModelIndex(), QItemSelectionModel.SelectionFlag.Clear)
    with qtbot.waitSignal(win.review.detail_shown, timeout=WAIT, check_params_cb=lambda i: i == item_id):
        tree.selectionModel().setCurrentIndex(
            win.review.model.index_of(item_id),
            QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)


def press(qtbot, win: MainWindow, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
          widget: object = None) -> None:
    with qtbot.waitSignal(win.review.queue_changed, timeout=WAIT):
        qtbot.keyClick(widget or win.review.tree, key, modifier)


def knowledge_doc(engine: Engine, doc_id: str) -> Document:
    doc = engine.store.find(doc_id, "default", areas=("knowledge",))
    assert doc is not None
    return doc


def test_queue_shows_lanes_with_counts(window: MainWindow, staged: StagedSet) -> None:
    titles = [window.review.model.index(r, 0).data() for r in range(window.review.model.rowCount())]
    assert titles == ["Flagged — needs a decision (1)", "Contradictions (1)", "Corrections (1)", "New facts (2)"]
    assert window.review.model.total() == 5
    assert window.queue_label.text() == "5 to review"


def test_approve_with_the_keyboard(qtbot, window: MainWindow, engine: Engine, staged: StagedSet) -> None:
    select(qtbot, window, staged.fact)
    assert "night shifts" in window.review.diff.new_text()
    assert "font-weight:600" in window.review.evidence.browser.toHtml()
    press(qtbot, window, Qt.Key.Key_A)
    assert staged.fact not in staged_ids(engine)
    doc = knowledge_doc(engine, staged.fact)
    assert doc.body.strip() == "Maya works night shifts as a nurse at St. Clair Hospital."
    assert window.review.model.total() == 4
    assert window.review.current_entry() is not None  # the selection moved on


def test_edit_then_approve(qtbot, window: MainWindow, engine: Engine, staged: StagedSet) -> None:
    select(qtbot, window, staged.second_fact)
    qtbot.keyClick(window.review.tree, Qt.Key.Key_E)
    editor = window.review.diff.new_edit
    assert editor.hasFocus()
    editor.setPlainText("Maya's border collie Pixel needs two long walks every day.")
    press(qtbot, window, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier, widget=editor)
    doc = knowledge_doc(engine, staged.second_fact)
    assert doc.body.strip() == "Maya's border collie Pixel needs two long walks every day."
    assert staged.second_fact not in staged_ids(engine)


def test_discard_then_undo(qtbot, window: MainWindow, engine: Engine, staged: StagedSet) -> None:
    select(qtbot, window, staged.fact)
    press(qtbot, window, Qt.Key.Key_D)
    assert staged.fact not in staged_ids(engine)
    assert any(e.doc_id == staged.fact for e in engine.store.list_trash("default"))
    press(qtbot, window, Qt.Key.Key_U)
    assert staged.fact in staged_ids(engine)
    assert window.review.current_entry() is not None
    assert window.review.current_entry().item_id == staged.fact


def test_approve_then_ctrl_z(qtbot, window: MainWindow, engine: Engine, staged: StagedSet) -> None:
    select(qtbot, window, staged.fact)
    press(qtbot, window, Qt.Key.Key_A)
    assert staged.fact in knowledge_ids(engine)
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert staged.fact not in knowledge_ids(engine)
    assert staged.fact in staged_ids(engine)


def test_bulk_discard(
    qtbot, window: MainWindow, engine: Engine, staged: StagedSet, interaction: ScriptedInteraction
) -> None:
    select(qtbot, window, staged.fact)
    window.review.tree.selectionModel().select(
        window.review.model.index_of(staged.second_fact), QItemSelectionModel.SelectionFlag.Select)
    assert len(window.review.selected_entries()) == 2
    press(qtbot, window, Qt.Key.Key_D)
    assert {staged.fact, staged.second_fact}.isdisjoint(staged_ids(engine))
    assert interaction.asked[-1] == ("choose", "Discard 2 items? Why (optional):")


def test_flagged_item_needs_an_explicit_decision(qtbot, window: MainWindow, engine: Engine, staged: StagedSet,
                                                  interaction: ScriptedInteraction) -> None:
    select(qtbot, window, staged.flagged)
    assert window.review.card.flags.isVisibleTo(window)
    assert "instruction" in window.review.card.flags.text()
    interaction.answers.append(False)
    with qtbot.assertNotEmitted(window.review.queue_changed, wait=200):
        qtbot.keyClick(window.review.tree, Qt.Key.Key_A)
    assert staged.flagged in staged_ids(engine)
    interaction.answers.append(True)
    press(qtbot, window, Qt.Key.Key_A)
    assert staged.flagged in knowledge_ids(engine)


def test_correction_shows_a_word_diff_and_applies(qtbot, window: MainWindow, engine: Engine, staged: StagedSet) -> None:
    select(qtbot, window, staged.correction)
    diff = window.review.diff
    assert diff.old_edit.isVisibleTo(window)
    assert "October" in diff.old_edit.toPlainText() and "September" in diff.new_text()
    assert [s.cursor.selectedText() for s in diff.old_edit.extraSelections()] == ["October"]
    assert [s.cursor.selectedText() for s in diff.new_edit.extraSelections()] == ["September"]
    press(qtbot, window, Qt.Key.Key_A)
    assert staged.correction not in staged_ids(engine)
    assert "September" in knowledge_doc(engine, staged.corrected_fact).body


def test_resolve_a_contradiction_keeping_both(qtbot, window: MainWindow, engine: Engine, staged: StagedSet) -> None:
    pane = window.contradictions
    window.tabs.setCurrentWidget(pane)
    if pane.model.rowCount() == 0 or not pane.view.isEnabled():
        with qtbot.waitSignal(pane.pair_shown, timeout=WAIT):
            pane.reload()
    assert "Porto" in pane.view.left.body.toPlainText()
    assert "Braga" in pane.view.right.body.toPlainText()
    assert "turns #30" in pane.view.right.source.text()
    assert not pane.view.keep_both_button.isEnabled()
    pane.view.note.setText("Ana moved from Porto to Braga in November 2026")
    with qtbot.waitSignal(pane.contradictions_loaded, timeout=WAIT, check_params_cb=lambda n: n == 0):
        qtbot.mouseClick(pane.view.keep_both_button, Qt.MouseButton.LeftButton)
    assert staged.contradiction not in staged_ids(engine)
    kept = knowledge_doc(engine, staged.contradiction)
    assert kept.get("contradiction_note") == "Ana moved from Porto to Braga in November 2026"
    assert knowledge_doc(engine, staged.existing_fact).get("contradiction_note")


def test_resolve_a_contradiction_in_the_queue_keeping_the_known(qtbot, window: MainWindow, engine: Engine,
                                                                 staged: StagedSet) -> None:
    select(qtbot, window, staged.contradiction)
    view = window.review.contradiction
    assert window.review.detail_stack.currentWidget() is view
    assert not window.review.approve_button.isEnabled()
    with qtbot.waitSignal(window.review.queue_changed, timeout=WAIT):
        qtbot.mouseClick(view.keep_left_button, Qt.MouseButton.LeftButton)
    assert staged.contradiction not in staged_ids(engine)
    assert "Porto" in knowledge_doc(engine, staged.existing_fact).body


def test_evidence_conversation_is_one_click_away(qtbot, window: MainWindow, staged: StagedSet) -> None:
    select(qtbot, window, staged.fact)
    evidence = window.review.evidence
    evidence._on_browser_anchor_clicked(QUrl("context:3"))
    qtbot.waitUntil(lambda: "Conversation around turn #3" in evidence.header.text(), timeout=WAIT)
    text = evidence.plain_text()
    assert "night shifts" in text and "border collie" in text  # the turn and its neighbours


def test_clear_the_whole_queue_with_the_keyboard(qtbot, window: MainWindow, engine: Engine, staged: StagedSet,
                                                 interaction: ScriptedInteraction) -> None:
    tree = window.review.tree
    tree.setFocus()
    qtbot.waitUntil(lambda: window.review.current_entry() is not None, timeout=WAIT)
    decisions = 0
    while window.review.model.total():
        entry = window.review.current_entry()
        assert entry is not None
        key = Qt.Key.Key_D if entry.kind == "contradiction" else Qt.Key.Key_A
        press(qtbot, window, key)
        decisions += 1
        assert decisions <= 5
    assert staged_ids(engine) == set()
    assert {staged.fact, staged.second_fact, staged.flagged} <= knowledge_ids(engine)
    assert window.queue_label.text() == "0 to review"
    assert window.review.empty_label.isVisibleTo(window)
