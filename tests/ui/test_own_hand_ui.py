"""Issue 23 in the window: remember words of a turn, a lane at once, merge, pin, retire, add."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import StagedSet, knowledge_ids, staged_ids
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QTextCursor

from curator.engine import Engine
from curator.index.search import SearchFilters
from ui.dialogs.add_memory import AddMemoryDialog
from ui.infra.interaction import ScriptedInteraction
from ui.infra.workers import OpRunner
from ui.main_window import MainWindow
from ui.services.facade import KnowledgeService

WAIT = 10_000


@pytest.fixture
def window(qtbot, engine: Engine, staged: StagedSet, interaction: ScriptedInteraction,
           tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(interaction=interaction, state_file=tmp_path / "state.ini", with_tray=False)
    qtbot.addWidget(win)
    win.show()
    with qtbot.waitSignals([win.review.queue_changed, win.knowledge.results_shown], timeout=WAIT):
        win.attach_engine(engine)
    yield win
    win.runner.shutdown(wait=True)
    win.relay.detach()


def select(qtbot, win: MainWindow, item_id: str) -> None:
    tree = win.review.tree
    tree.setFocus()
    tree.selectionModel().setCurrentIndex(QModelIndex(), QItemSelectionModel.SelectionFlag.Clear)
    with qtbot.waitSignal(win.review.detail_shown, timeout=WAIT, check_params_cb=lambda i: i == item_id):
        tree.selectionModel().setCurrentIndex(
            win.review.model.index_of(item_id),
            QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)


def press(qtbot, win: MainWindow, key: Qt.Key, widget: object = None) -> None:
    with qtbot.waitSignal(win.review.queue_changed, timeout=WAIT):
        qtbot.keyClick(widget or win.review.tree, key)


def test_select_words_in_the_evidence_and_remember_them(qtbot, window: MainWindow, engine: Engine,
                                                        staged: StagedSet, interaction: ScriptedInteraction) -> None:
    select(qtbot, window, staged.fact)
    browser = window.review.evidence.browser
    cursor = browser.document().find("night shifts")
    assert not cursor.isNull()
    cursor.movePosition(QTextCursor.MoveOperation.EndOfWord, QTextCursor.MoveMode.KeepAnchor)
    browser.setTextCursor(cursor)
    interaction.answers.append("Approve it now")
    before = knowledge_ids(engine)
    press(qtbot, window, Qt.Key.Key_R, widget=browser)
    [new] = knowledge_ids(engine) - before
    doc = engine.store.find(new, "default", areas=("knowledge",))
    assert doc is not None and "night shifts" in doc.body.lower() and doc.source_turns == [3]
    assert doc.get("origin") == "person"


def test_a_lane_at_once_and_one_undo(qtbot, window: MainWindow, engine: Engine, staged: StagedSet) -> None:
    select(qtbot, window, staged.fact)
    qtbot.keyClick(window.review.tree, Qt.Key.Key_L)
    lane = {e.item_id for e in window.review.selected_entries()}
    assert {staged.fact, staged.second_fact} <= lane
    press(qtbot, window, Qt.Key.Key_A)
    assert {staged.fact, staged.second_fact} <= knowledge_ids(engine)
    press(qtbot, window, Qt.Key.Key_U)  # one step undoes the lane
    assert {staged.fact, staged.second_fact} <= staged_ids(engine)


def test_merge_two_proposals(qtbot, window: MainWindow, engine: Engine, staged: StagedSet,
                             interaction: ScriptedInteraction) -> None:
    select(qtbot, window, staged.fact)
    window.review.tree.selectionModel().select(
        window.review.model.index_of(staged.second_fact), QItemSelectionModel.SelectionFlag.Select)
    interaction.answers.append("Maya is a night nurse with a border collie called Pixel.")
    press(qtbot, window, Qt.Key.Key_M)
    assert {staged.fact, staged.second_fact}.isdisjoint(staged_ids(engine))
    merged = [d for _, d in engine.store.iter_documents("default", "knowledge") if d.get("merged_from")]
    assert [d.body.strip() for d in merged] == ["Maya is a night nurse with a border collie called Pixel."]


def test_pin_and_retire_in_the_knowledge_pane(qtbot, window: MainWindow, engine: Engine, staged: StagedSet,
                                              interaction: ScriptedInteraction) -> None:
    pane = window.knowledge
    with qtbot.waitSignal(pane.document_shown, timeout=WAIT):
        pane.open_document(staged.existing_fact)
    assert pane.editor.pin_button.isEnabled() and pane.editor.pin_button.text() == "Pin"
    with qtbot.waitSignal(pane.document_shown, timeout=WAIT):
        qtbot.mouseClick(pane.editor.pin_button, Qt.MouseButton.LeftButton)
    assert engine.store.find(staged.existing_fact, "default").get("pinned") is True  # type: ignore[union-attr]
    assert pane.editor.pin_button.text() == "Unpin"
    interaction.answers.append("Ana moved to Braga")
    with qtbot.waitSignal(pane.document_shown, timeout=WAIT):
        qtbot.mouseClick(pane.editor.retire_button, Qt.MouseButton.LeftButton)
    assert "no longer true since" in pane.editor.meta.text() and not pane.editor.retire_button.isEnabled()
    hits = engine.search("sister Porto", SearchFilters(item_types=("document",)), 10)
    assert staged.existing_fact not in [h.id for h in hits]


def test_add_a_memory_with_evidence_found_as_one_types(qtbot, engine: Engine, runner: OpRunner) -> None:
    service = KnowledgeService(engine)
    dialog = AddMemoryDialog(runner, service.matching_turns)
    qtbot.addWidget(dialog)
    qtbot.keyClicks(dialog.editor, "Maya works night shifts as a nurse")
    qtbot.waitUntil(lambda: dialog.turn_list.count() > 0, timeout=WAIT)
    dialog.turn_list.item(0).setCheckState(Qt.CheckState.Checked)
    turns = dialog.turns()
    result = service.add(dialog.text(), turns)
    doc = engine.store.find(result.doc_id, "default", areas=("knowledge",))
    assert doc is not None and doc.source_turns == turns and doc.get("reviewer_action") == "written"


def test_a_proposal_close_to_a_known_memory_offers_to_merge(qtbot, window: MainWindow, engine: Engine,
                                                            staged: StagedSet) -> None:
    from curator.review.staging import StagedDraft, StagingArea

    close = StagingArea(engine.store, engine.clock).stage("default", StagedDraft(
        kind="fact", title="Ana in Porto", text="Maya's sister Ana lives in Porto with her cat.", category="Facts",
        source_turns=[9], confidence=0.6, batch_id=2, origin="batch", gates=["caps"])).id
    with qtbot.waitSignal(window.review.queue_changed, timeout=WAIT):
        window.review.reload(close)
    select(qtbot, window, close)
    assert window.review.known.isVisibleTo(window) and "Ana lives in Porto" in window.review.known_label.text()
    with qtbot.waitSignal(window.review.queue_changed, timeout=WAIT):
        qtbot.mouseClick(window.review.known_merge, Qt.MouseButton.LeftButton)
    merged = [d for _, d in engine.store.iter_documents("default", "knowledge") if d.get("merged_from")]
    assert len(merged) == 1 and set(merged[0].get("merged_from")) == {close, staged.existing_fact}
    assert engine.store.find(staged.existing_fact, "default").get("merged_into") == merged[0].id  # type: ignore[union-attr]


def test_a_conversations_proposals_at_once(qtbot, window: MainWindow, engine: Engine, staged: StagedSet) -> None:
    from curator.review.staging import StagedDraft, StagingArea

    turns = engine.index.turns("default", limit=None)
    first = turns[0].conversation
    other = next(t for t in turns if t.conversation != first)
    elsewhere = StagingArea(engine.store, engine.clock).stage("default", StagedDraft(
        kind="fact", title="From the other chat", text=other.text[:80], category="Facts",
        source_turns=[other.number], confidence=0.6, batch_id=2, origin="batch", gates=["caps"])).id
    with qtbot.waitSignal(window.review.queue_changed, timeout=WAIT):
        window.review.reload(elsewhere)
    select(qtbot, window, staged.fact)
    fact_turn = engine.index.get_turn("default", 3)
    assert fact_turn is not None and fact_turn.conversation == first
    with qtbot.waitSignal(window.review.action_answered, timeout=WAIT):
        qtbot.keyClick(window.review.tree, Qt.Key.Key_C)
    chosen = {e.item_id for e in window.review.selected_entries()}
    assert staged.fact in chosen and elsewhere not in chosen
    cited = {e.item_id for e in window.review.model.entries()
             if any(t is not None and t.conversation == first
                    for t in (engine.index.get_turn("default", n) for n in e.item.source_turns))}
    assert chosen == cited


def test_a_fact_of_the_moment_says_which_days_it_meant(qtbot, window: MainWindow, engine: Engine,
                                                      staged: StagedSet) -> None:
    """Issue 20: "works nights next week" is marked as dated on the card, not left to mislead later."""
    from curator.review.staging import StagedDraft, StagingArea

    dated = StagingArea(engine.store, engine.clock).stage("default", StagedDraft(
        kind="fact", title="Working nights next week", text="Maya is working nights next week.", category="Facts",
        source_turns=[9], confidence=0.6, batch_id=2, origin="batch", gates=["caps"],
        fields={"dated": {"phrase": "next week", "period": "next week", "said_on": "2026-11-27",
                          "first": "2026-11-30", "last": "2026-12-06"}})).id
    with qtbot.waitSignal(window.review.queue_changed, timeout=WAIT):
        window.review.reload(dated)
    select(qtbot, window, dated)
    label = window.review.dated_label
    assert label.isVisibleTo(window)
    assert label.text().startswith("Said on Fri 27 Nov 2026: “next week” is 30 Nov – 6 Dec 2026.")
    select(qtbot, window, staged.fact)
    assert not label.isVisibleTo(window)  # a lasting fact has no such line
