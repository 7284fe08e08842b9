"""Review queue pane: lanes of staged items on the left, the selected item on the right.

Keyboard-first: A approve, E edit, D discard, U or Ctrl+Z undo, arrows to move, Shift/Ctrl
for multi-selection, L selects the current item's whole lane, C every proposal from its
conversation, M merges the selected items into one memory. Approving or discarding several
is one step, undone at once. In the evidence, selecting words of a turn and pressing R (or
the context menu) remembers them.
While editing, keys type (A types "a"), Ctrl+Enter approves the edited text and Esc puts
the proposal back and returns to the list; a hint under the editor says so, and the
evidence highlighting follows the edit.
Every action is answered with ``action_answered`` (shown by the window with Undo). Every
action is an engine call run by the ``OpRunner``; the pane refreshes from the engine
afterwards, so the files decide what is shown.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from curator.index.text import elide
from curator.review.records import ActionResult, ReviewItem
from ui.infra.interaction import Interaction
from ui.infra.resources import TREE_STYLE, icon, set_role
from ui.infra.workers import OpRunner
from ui.models.queue_model import QueueEntry, QueueModel, entry_from_item
from ui.panes.contradictions import ContradictionView
from ui.panes.diff import DiffView
from ui.panes.evidence import EvidenceView
from ui.panes.item_card import ItemCard
from ui.services.facade import ReviewDetail, ReviewService

# Discard reasons offered (all optional); the engine keeps the reason with the trashed item.
NO_REASON = "No reason"
OTHER_REASON = "Other…"
DISCARD_REASONS = (NO_REASON, "Wrong", "Not durable", "Duplicate", "Private", OTHER_REASON)
EDIT_HINT = ("E (or a click) edits the proposal; while editing, keys type, Ctrl+Enter approves"
             " your edit and Esc puts the proposal back")


class ReviewPane(QWidget):
    """The review queue.

    Signals (GUI thread): ``queue_changed(count)`` after each reload, ``detail_shown(item_id)``
    once an item's detail (text, diff, evidence) is on screen.
    """

    queue_changed = Signal(int)
    detail_shown = Signal(str)
    action_answered = Signal(str, bool)  # message, undoable

    def __init__(self, runner: OpRunner, interaction: Interaction, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._interaction = interaction
        self._service: ReviewService | None = None
        self._detail: ReviewDetail | None = None
        self._pending_select = ""

        # ---- View
        self.model = QueueModel(self)
        self.tree = QTreeView()
        self.tree.setStyleSheet(TREE_STYLE)
        self.tree.setObjectName("queue_tree")
        self.tree.setModel(self.model)
        self.tree.setHeaderHidden(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.empty_label = QLabel("Nothing waiting for review.")
        self.empty_label.setObjectName("review_empty")
        set_role(self.empty_label, "meta")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self._activity = ""

        self.approve_button = QPushButton(icon("approve"), "Approve  (A)")
        set_role(self.approve_button, "primary")
        self.edit_button = QPushButton(icon("edit"), "Edit  (E)")
        self.discard_button = QPushButton(icon("discard"), "Discard  (D)")
        self.undo_button = QPushButton(icon("undo"), "Undo  (U)")
        buttons = QHBoxLayout()
        for button in (self.approve_button, self.edit_button, self.discard_button, self.undo_button):
            buttons.addWidget(button)
        buttons.addStretch(1)

        self.card = ItemCard()
        # "Already known?": an approved memory that says much the same, and the offer to merge.
        self.known_label = QLabel("")
        self.known_label.setObjectName("already_known")
        self.known_label.setWordWrap(True)
        set_role(self.known_label, "meta")
        self.known_merge = QPushButton("Merge with it…")
        self.known_merge.setObjectName("merge_with_known")
        known_row = QHBoxLayout()
        known_row.addWidget(self.known_label, 1)
        known_row.addWidget(self.known_merge)
        self.known = QWidget()
        self.known.setLayout(known_row)
        self.known.hide()
        # A fact of the moment ("next week"): which days it meant when it was said.
        self.dated_label = QLabel("")
        self.dated_label.setObjectName("dated")
        self.dated_label.setWordWrap(True)
        set_role(self.dated_label, "meta")
        self.dated_label.hide()
        self.diff = DiffView()
        self.contradiction = ContradictionView()
        self.detail_stack = QStackedWidget()
        self.detail_stack.addWidget(self.diff)
        self.detail_stack.addWidget(self.contradiction)
        self.evidence = EvidenceView()
        self.edit_hint = QLabel(EDIT_HINT)
        self.edit_hint.setObjectName("edit_hint")
        set_role(self.edit_hint, "meta")
        # Always shown under an editable proposal: it must not depend on focus, which a
        # window without a window manager (Xvfb, some kiosks) never gets.
        self.edit_hint.hide()
        self._evidence_timer = QTimer(self)
        self._evidence_timer.setSingleShot(True)
        self._evidence_timer.setInterval(250)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.tree)
        left_layout.addWidget(self.empty_label)
        right_split = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.card)
        top_layout.addWidget(self.known)
        top_layout.addWidget(self.dated_label)
        top_layout.addWidget(self.detail_stack, 1)
        top_layout.addWidget(self.edit_hint)
        top_layout.addLayout(buttons)
        right_split.addWidget(top)
        right_split.addWidget(self.evidence)
        right_split.setSizes([360, 300])
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right_split)
        self.splitter.setSizes([380, 720])
        layout = QVBoxLayout(self)
        layout.addWidget(self.splitter)

        # ---- Wiring
        self.tree.selectionModel().selectionChanged.connect(self._on_tree_selection_changed)
        self.approve_button.clicked.connect(self._on_approve_button_clicked)
        self.edit_button.clicked.connect(self._on_edit_button_clicked)
        self.discard_button.clicked.connect(self._on_discard_button_clicked)
        self.undo_button.clicked.connect(self._on_undo_button_clicked)
        self.known_merge.clicked.connect(self._on_known_merge_clicked)
        self.evidence.context_requested.connect(self._on_evidence_context_requested)
        self.evidence.remember_requested.connect(self._on_remember_requested)
        self.contradiction.resolved.connect(self._on_contradiction_resolved)
        self.diff.new_edit.textChanged.connect(self._on_new_edit_text_changed)
        self._evidence_timer.timeout.connect(self._on_evidence_timer_timeout)
        self._tree_keys = {
            Qt.Key.Key_A: self._on_approve_button_clicked,
            Qt.Key.Key_E: self._on_edit_button_clicked,
            Qt.Key.Key_D: self._on_discard_button_clicked,
            Qt.Key.Key_U: self._on_undo_button_clicked,
            Qt.Key.Key_Delete: self._on_discard_button_clicked,
            Qt.Key.Key_L: self._select_lane,
            Qt.Key.Key_C: self._select_conversation,
            Qt.Key.Key_M: self._on_merge_requested,
        }
        self.tree.installEventFilter(self)
        self.diff.new_edit.installEventFilter(self)
        self._update_enabled()

    # ---- Qt overrides

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Override: A/E/D/U (and Ctrl+Z) act on the queue when it has the keyboard;
        Ctrl+Enter approves from the editor and Esc goes back to the queue.

        Handled as key presses on the tree rather than window shortcuts, so they work
        whether or not the window manager made the window active, and the letters never
        fall through to the tree's type-ahead search.
        """
        if watched is self.tree and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.matches(QKeySequence.StandardKey.Undo):
                self._on_undo_button_clicked()
                return True
            slot = self._tree_keys.get(Qt.Key(event.key()))
            if slot is not None and not (event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier):
                slot()
                return True
        if watched is self.diff.new_edit and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            if enter and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                self._on_approve_button_clicked()  # approve the text as edited
                return True
            if event.key() == Qt.Key.Key_Escape:
                self._on_editor_escape()
                return True
        return super().eventFilter(watched, event)

    # ---- Public API

    def attach(self, service: ReviewService) -> None:
        """Start showing the queue of ``service`` (an engine adapter)."""
        self._service = service
        self.reload()

    def reload(self, select_id: str = "") -> None:
        """Reload the queue from the engine (in the background)."""
        if self._service is None:
            return
        service = self._service
        self._pending_select = select_id or self._pending_select
        self._runner.submit("load queue", service.list_items, self._on_queue_loaded, latest_only="queue")

    def set_activity(self, text: str) -> None:
        """What is under way that will fill the queue (shown while it is empty)."""
        self._activity = text
        self._update_empty_label()

    def refresh_palette(self) -> None:
        """Repaint highlights after the system switched between light and dark."""
        entry = self.current_entry()
        if entry is not None and self._detail is not None and self._detail.item_id == entry.item_id:
            self._show_detail(entry, self._detail)

    def selected_entries(self) -> list[QueueEntry]:
        out = []
        for index in self.tree.selectionModel().selectedRows():
            entry = self.model.entry(index)
            if entry is not None:
                out.append(entry)
        return out

    def current_entry(self) -> QueueEntry | None:
        return self.model.entry(self.tree.currentIndex())

    # ---- Engine results (GUI thread)

    def _on_queue_loaded(self, items: list[ReviewItem]) -> None:
        previous = self.current_entry()
        prev_id = self._pending_select or (previous.item_id if previous else "")
        prev_pos = self._flat_position(previous)
        self._pending_select = ""
        self.model.set_entries([entry_from_item(item) for item in items])
        self.tree.expandAll()
        self._update_empty_label()
        target = self.model.index_of(prev_id) if prev_id else QModelIndex()
        if not target.isValid():
            entries = self.model.entries()
            if entries:
                pos = min(max(prev_pos, 0), len(entries) - 1)
                target = self.model.index_of(entries[pos].item_id)
        if target.isValid():
            self.tree.selectionModel().setCurrentIndex(
                target, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            )
        else:
            self._show_detail(None, None)
        self._update_enabled()
        self.queue_changed.emit(self.model.total())

    def _on_detail_loaded(self, detail: ReviewDetail) -> None:
        current = self.current_entry()
        if current is None or current.item_id != detail.item_id:
            return
        self._show_detail(current, detail)

    def _on_action_done(self, _result: Any = None) -> None:
        self.tree.setFocus()  # keyboard-first: the next key acts on the next item
        self.reload()

    def _on_action_failed(self, error: BaseException) -> None:
        self._interaction.inform("Review", f"That did not work: {error}")
        self.reload()

    # ---- Controllers

    def _on_tree_selection_changed(self, *_args: Any) -> None:
        entry = self.current_entry()
        self._update_enabled()
        if entry is None or self._service is None:
            self._show_detail(None, None)
            return
        self.card.show_entry(entry)
        service = self._service
        self._runner.submit(
            "show item", lambda: service.detail(entry.item), self._on_detail_loaded, latest_only="detail"
        )

    def _on_approve_button_clicked(self) -> None:
        entries = self.selected_entries()
        if not entries or self._service is None:
            return
        service = self._service
        if len(entries) == 1:
            entry = entries[0]
            if entry.kind == "contradiction":
                self._interaction.inform("Contradiction", "Resolve a contradiction with the buttons below it.")
                return
            accept_flags = False
            if entry.flags:
                accept_flags = self._interaction.confirm(
                    "Approve a flagged item",
                    "This item was flagged:\n\n" + "\n".join(entry.flags) + "\n\nApprove it anyway, exactly as shown?")
                if not accept_flags:
                    return
            detail = self._detail if self._detail and self._detail.item_id == entry.item_id else None
            edited = self.diff.new_text() if detail is not None else None
            if edited is not None and detail is not None and edited == detail.proposed_text:
                edited = None
            shown_hash = detail.shown_hash if detail is not None else ""
            what = "your edit of" if edited is not None else ""
            message = " ".join(x for x in ("Approved", what, f"“{elide(entry.title or entry.text, 60)}”") if x)
            self._runner.submit(
                "approve", lambda: service.approve(entry.item, edited, shown_hash, accept_flags),
                lambda _r: self._answer(message), self._on_action_failed,
            )
            return
        # Several at once are one step (one undo); items that need their own answer
        # (flagged, corrections, contradictions) are left for one-by-one review.
        items = [e.item for e in entries if e.kind != "contradiction" and not e.flags]
        skipped = len(entries) - len(items)
        note = (
            f"\n({skipped} flagged item(s) or contradiction(s) are skipped; decide those one by one.)"
            if skipped
            else ""
        )
        if not items or not self._interaction.confirm("Approve", f"Approve {len(items)} items as shown, "
                                                                 f"as one step?{note}"):
            return
        self._runner.submit(
            "approve all", lambda: service.approve_all(items),
            lambda r: self._answer(r.message[:1].upper() + r.message[1:]), self._on_action_failed,
        )

    def _on_edit_button_clicked(self) -> None:
        if self.current_entry() is None or self.detail_stack.currentWidget() is not self.diff:
            return
        self.diff.new_edit.setFocus()
        self.diff.new_edit.selectAll()

    def _on_editor_escape(self) -> None:
        # Esc cancels the edit: the proposal comes back as it was proposed.
        if self._detail is not None and self.diff.new_text() != self._detail.proposed_text:
            self.diff.new_edit.setPlainText(self._detail.proposed_text)
            self.action_answered.emit("Edit cancelled; the proposal is as it was", False)
        self.tree.setFocus()

    def _on_discard_button_clicked(self) -> None:
        entries = self.selected_entries()
        if not entries or self._service is None:
            return
        what = f"“{elide(entries[0].title or entries[0].text, 60)}”" if len(entries) == 1 else f"{len(entries)} items"
        reason = self._ask_discard_reason(what)
        if reason is None:
            return
        service = self._service
        items = [e.item for e in entries]
        message = f"Discarded {what}" + (f" ({reason})" if reason else "")
        if len(items) == 1:
            self._runner.submit("discard", lambda: service.discard(items[0], reason),
                                lambda _r: self._answer(message), self._on_action_failed)
            return
        self._runner.submit("discard all", lambda: service.discard_all(items, reason),
                            lambda _r: self._answer(message + " in one step"), self._on_action_failed)

    def _select_lane(self) -> None:
        """Select every item of the current item's lane (then A or D acts on the lane)."""
        current = self.tree.currentIndex()
        lane = current.parent()
        if not current.isValid() or not lane.isValid():
            return
        selection = self.tree.selectionModel()
        selection.clearSelection()
        for row in range(self.model.rowCount(lane)):
            selection.select(self.model.index(row, 0, lane),
                             QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
        self._update_enabled()

    def _select_conversation(self) -> None:
        """Select every proposal citing the current item's conversation (then A or D acts on them)."""
        entry = self.current_entry()
        if entry is None or self._service is None:
            return
        service = self._service
        self._runner.submit("select conversation", lambda: service.same_conversation(entry.item),
                            self._on_conversation_found, self._on_action_failed)

    def _on_conversation_found(self, found: tuple[str, list[str]]) -> None:
        conversation, ids = found
        if not ids:
            self.action_answered.emit("This item cites no conversation", False)
            return
        wanted = set(ids)
        selection = self.tree.selectionModel()
        selection.clearSelection()
        flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        for index in self.model.indexes_of(wanted):
            selection.select(index, flags)
        self._update_enabled()
        self.action_answered.emit(f"Selected {len(ids)} proposal(s) from “{elide(conversation, 50)}”: "
                                  "A approves them, D discards them, in one step", False)

    def _on_merge_requested(self) -> None:
        entries = [e for e in self.selected_entries() if e.kind not in ("contradiction", "correction")]
        if len(entries) < 2 or self._service is None:
            self._interaction.inform("Merge", "Select two or more proposals (Shift or Ctrl) to merge them.")
            return
        if any(e.flags for e in entries):
            self._interaction.inform("Merge", "A flagged item is decided on its own, not merged.")
            return
        joined = " ".join(e.text.strip() for e in entries)
        text = self._interaction.ask_text("Merge", f"One memory instead of {len(entries)} (edit it):", joined,
                                          multiline=True)
        if text is None or not text.strip():
            return
        service = self._service
        ids = [e.item_id for e in entries]
        self._runner.submit("merge", lambda: service.merge(ids, text),
                            lambda r: self._answer(f"Merged {len(ids)} into one memory"), self._on_action_failed)

    def _on_known_merge_clicked(self) -> None:
        detail, service = self._detail, self._service
        if detail is None or service is None or not detail.known_id:
            return
        text = self._interaction.ask_text("Merge", "One memory instead of the two (edit it):",
                                          f"{detail.known_text.strip()} {self.diff.new_text().strip()}".strip(),
                                          multiline=True)
        if text is None or not text.strip():
            return
        ids = [detail.item_id, detail.known_id]
        self._runner.submit("merge", lambda: service.merge(ids, text),
                            lambda _r: self._answer("Merged into the known memory"), self._on_action_failed)

    def _on_remember_requested(self, number: int, text: str) -> None:
        if self._service is None:
            return
        choice = self._interaction.choose(
            "Remember this", f"“{elide(text, 120)}” (turn #{number}) becomes a memory:",
            ["Keep it in the queue for review", "Approve it now"])
        if choice is None:
            return
        approve = choice.startswith("Approve")
        service = self._service
        self._runner.submit("remember", lambda: service.remember(number, text, approve),
                            lambda r: self._answer("Remembered: " + r.message), self._on_action_failed)

    def _ask_discard_reason(self, what: str) -> str | None:
        """The optional reason ("" for none), or None when the person cancelled."""
        choice = self._interaction.choose("Discard", f"Discard {what}? Why (optional):", list(DISCARD_REASONS))
        if choice is None:
            return None
        if choice == OTHER_REASON:
            custom = self._interaction.ask_text("Discard", "Your reason:")
            return None if custom is None else custom.strip()
        return "" if choice == NO_REASON else choice.lower()

    def _on_undo_button_clicked(self) -> None:
        if self._service is None:
            return
        service = self._service
        self._runner.submit("undo", service.undo, self._on_undo_done, self._on_action_failed)

    def _on_undo_done(self, result: ActionResult | None) -> None:
        self._pending_select = result.doc_id if result is not None else ""
        if result is None:
            self.action_answered.emit("Nothing to undo", False)
        else:
            undone = result.message or "undid the last action"
            self.action_answered.emit(undone[:1].upper() + undone[1:], False)
        self.reload()

    def _on_contradiction_resolved(self, choice: str, note: str) -> None:
        entry = self.current_entry()
        if entry is None or self._service is None:
            return
        service = self._service
        self._runner.submit(
            "resolve", lambda: service.resolve(entry.item, choice, note),
            self._on_action_done, self._on_action_failed,
        )

    def _on_evidence_context_requested(self, number: int) -> None:
        if self._service is None:
            return
        service = self._service
        entry = self.current_entry()
        self._runner.submit(
            "load conversation", lambda: service.conversation_around(entry.item if entry else None, number),
            lambda turns: self.evidence.show_context(number, turns),
        )

    # ---- Helpers

    def _show_detail(self, entry: QueueEntry | None, detail: ReviewDetail | None) -> None:
        self._detail = detail
        self.card.show_entry(entry, detail)
        known = detail.known_text if detail is not None else ""
        self.known.setVisible(bool(known))
        self.known_label.setText(f"Already known? “{elide(known, 160)}”" if known else "")
        dated = detail.dated if detail is not None else ""
        self.dated_label.setText(dated)
        self.dated_label.setVisible(bool(dated))
        if entry is None or detail is None:
            self.edit_hint.hide()
            self.diff.clear()
            self.diff.old_edit.hide()
            self.diff.old_title.hide()
            self.evidence.clear()
            return
        if entry.kind == "contradiction":
            self.detail_stack.setCurrentWidget(self.contradiction)
            self.contradiction.show_pair(detail.left, detail.right)
        else:
            self.detail_stack.setCurrentWidget(self.diff)
            self.diff.old_edit.setVisible(bool(detail.old_text))
            self.diff.old_title.setVisible(bool(detail.old_text))
            self.diff.set_texts(
                detail.old_text,
                detail.proposed_text,
                new_title="Proposed (editable)"
                if not detail.old_text
                else "Proposed correction (editable)",
            )
        self.edit_hint.setVisible(entry.kind != "contradiction")
        self.evidence.show_evidence(detail.claim, detail.turns, detail.quote, detail.missing_turns)
        self.detail_shown.emit(detail.item_id)

    def _flat_position(self, entry: QueueEntry | None) -> int:
        if entry is None:
            return 0
        for pos, candidate in enumerate(self.model.entries()):
            if candidate.item_id == entry.item_id:
                return pos
        return 0

    def _answer(self, message: str) -> None:
        self.action_answered.emit(message, True)
        self._on_action_done()

    def _update_empty_label(self) -> None:
        empty = self.model.total() == 0
        text = "Nothing waiting for review."
        if self._activity:
            text += "\n\n" + self._activity + "\nProposals appear here as they pass the quality gates."
        self.empty_label.setText(text)
        self.empty_label.setVisible(empty)

    def _on_new_edit_text_changed(self) -> None:
        if self._detail is not None:
            self._evidence_timer.start()

    def _on_evidence_timer_timeout(self) -> None:
        # The highlighting follows the text as edited: words added by hand and not found in
        # the turns show up as unsupported before the edit is approved.
        detail = self._detail
        if detail is None or self.detail_stack.currentWidget() is not self.diff:
            return
        self.evidence.show_evidence(self.diff.new_text(), detail.turns, detail.quote, detail.missing_turns)

    def _update_enabled(self) -> None:
        selected = self.selected_entries()
        has = bool(selected) and self._service is not None
        only_contradictions = has and all(e.kind == "contradiction" for e in selected)
        self.approve_button.setEnabled(has and not only_contradictions)
        self.edit_button.setEnabled(has and not only_contradictions and len(selected) == 1)
        self.discard_button.setEnabled(has)
        self.undo_button.setEnabled(self._service is not None)


if __name__ == "__main__":  # a preview of this pane alone, on the demo
    import sys

    from ui.panes.preview import main

    raise SystemExit(main(["review", *sys.argv[1:]]))
