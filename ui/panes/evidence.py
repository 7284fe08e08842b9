"""Evidence pane: the turns an item cites, with the words that support it highlighted.

Which words support an item is decided by ``curator.review.evidence``; this view paints it. Each
cited turn has a "show conversation" link: ``context_requested(turn_number)`` asks the
owner to load the surrounding turns, which come back through ``show_context``. Words selected
in a turn can be remembered (R, or "Remember this" in the context menu):
``remember_requested(turn_number, words)``.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QUrl, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLabel, QMenu, QTextBrowser, QVBoxLayout, QWidget

from curator.review.evidence import Highlight, highlights, support
from curator.sources.turns import IndexedTurn
from ui.infra.resources import accents, set_role
from ui.infra.timefmt import format_time


def highlighted_html(text: str, spans: Sequence[Highlight], word_colour: str, quote_colour: str) -> str:
    """``text`` as HTML with ``spans`` wrapped in coloured spans (nested spans flattened)."""
    marks: list[str | None] = [None] * len(text)
    for span in spans:
        for i in range(max(0, span.start), min(len(text), span.end)):
            if marks[i] != "word":  # a word inside a quote shows as a word (stronger)
                marks[i] = span.kind if marks[i] is None or span.kind == "word" else marks[i]
    out: list[str] = []
    current: str | None = None
    buffer: list[str] = []

    def flush() -> None:
        chunk = html.escape("".join(buffer)).replace("\n", "<br>")
        if current == "word":
            out.append(f'<span style="background:{word_colour}; font-weight:600">{chunk}</span>')
        elif current == "quote":
            out.append(f'<span style="background:{quote_colour}">{chunk}</span>')
        else:
            out.append(chunk)
        buffer.clear()

    for ch, mark in zip(text, marks, strict=True):
        if mark != current:
            flush()
            current = mark
        buffer.append(ch)
    flush()
    return "".join(out)


class EvidenceView(QWidget):
    """Cited turns with supporting words highlighted; the conversation around them on request.

    Signals: ``context_requested(int)`` with a turn number. Threading: GUI thread only.
    Turns are the index's ``IndexedTurn`` records.
    """

    context_requested = Signal(int)
    remember_requested = Signal(int, str)  # turn number, the selected words

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QLabel("Evidence")
        set_role(self.header, "heading")
        self.support_label = QLabel("")
        set_role(self.support_label, "meta")
        self.support_label.setWordWrap(True)
        self.browser = QTextBrowser()
        self.browser.setObjectName("evidence_browser")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._on_browser_anchor_clicked)
        self.browser.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.browser.customContextMenuRequested.connect(self._on_browser_context_menu)
        self.browser.installEventFilter(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(self.support_label)
        layout.addWidget(self.browser)
        self._claim = ""
        self._quote = ""
        self._cited: list[IndexedTurn] = []
        self._shown: list[IndexedTurn] = []  # every turn on screen (cited, or the conversation)

    # ---- Public API

    def show_evidence(self, claim: str, turns: Iterable[IndexedTurn], quote: str = "",
                      missing: Sequence[int] = ()) -> None:
        """Show the cited ``turns`` for an item whose text is ``claim``."""
        self._claim, self._quote, self._cited = claim, quote, list(turns)
        # The speaker's name is part of the turn (its author), as the gates count it.
        result = support(claim, [t.text for t in self._cited] + [t.speaker for t in self._cited])
        parts = [f"{result.ratio:.0%} of the item's content words appear in its turns"]
        if result.unsupported:
            parts.append("not found: " + ", ".join(result.unsupported[:12]))
        if missing:
            parts.append("cited turns not in the index: " + ", ".join(f"#{n}" for n in missing))
        self.support_label.setText(" · ".join(parts) if self._cited or missing else "")
        self.header.setText(f"Evidence — {len(self._cited)} cited turn{'s' if len(self._cited) != 1 else ''}")
        if not self._cited:
            self.browser.setHtml("<p><i>This item cites no turns.</i></p>")
            self._shown = []
            return
        self._shown = list(self._cited)
        self.browser.setHtml(self._render(self._cited, cited_numbers=None, with_links=True))

    def show_context(self, turn_number: int, turns: Iterable[IndexedTurn]) -> None:
        """Show the conversation around ``turn_number``; cited turns stay highlighted."""
        cited = {t.number for t in self._cited}
        back = '<p><a href="back:">← back to the cited turns</a></p>'
        self.header.setText(f"Conversation around turn #{turn_number}")
        self._shown = list(turns)
        self.browser.setHtml(back + self._render(self._shown, cited_numbers=cited | {turn_number}, with_links=False))
        self.browser.scrollToAnchor(f"turn-{turn_number}")

    def clear(self) -> None:
        self._claim, self._quote, self._cited, self._shown = "", "", [], []
        self.header.setText("Evidence")
        self.support_label.setText("")
        self.browser.clear()

    def plain_text(self) -> str:
        return self.browser.toPlainText()

    # ---- Rendering

    def _render(self, turns: list[IndexedTurn], cited_numbers: set[int] | None, with_links: bool) -> str:
        colours = accents(self.palette())
        word, quote = colours.evidence.name(), colours.quote.name()
        blocks: list[str] = []
        for turn in turns:
            number, text = turn.number, turn.text
            who = turn.speaker or turn.role
            when = format_time(turn.timestamp)
            conversation = turn.conversation
            is_cited = cited_numbers is None or number in cited_numbers
            body = (
                highlighted_html(text, highlights(self._claim, text, self._quote), word, quote)
                if is_cited else html.escape(text).replace("\n", "<br>")
            )
            link = f' · <a href="context:{number}">show conversation</a>' if with_links else ""
            style = "" if is_cited else ' style="color:gray"'
            blocks.append(
                f'<a name="turn-{number}"></a><p{style}><b>#{number} {html.escape(who)}</b>'
                f' <small>{html.escape(when)} · {html.escape(conversation)}{link}</small><br>{body}</p>'
            )
        return "".join(blocks)

    def selected_words(self) -> tuple[int, str] | None:
        """The selected words and the turn they are in (None: nothing of one turn selected)."""
        # Qt writes line and paragraph breaks in a selection as U+2029.
        words = " ".join(self.browser.textCursor().selectedText().replace("\u2029", " ").split())
        if not words:
            return None
        for turn in self._shown:
            if words in " ".join(turn.text.split()):
                return turn.number, words
        return None

    def request_remember(self) -> bool:
        """Emit ``remember_requested`` for the selection; False when nothing of a turn is selected."""
        chosen = self.selected_words()
        if chosen is None:
            return False
        self.remember_requested.emit(*chosen)
        return True

    # ---- Qt overrides

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Override: R remembers the selected words."""
        if watched is self.browser and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_R and not event.modifiers() and self.request_remember():
                return True
        return super().eventFilter(watched, event)

    # ---- Controllers

    def _on_browser_context_menu(self, pos: QPoint) -> None:
        menu = QMenu(self)
        menu.addActions(self.browser.createStandardContextMenu().actions())
        remember = menu.addAction("Remember this  (R)")
        remember.setEnabled(self.selected_words() is not None)
        remember.triggered.connect(self.request_remember)
        menu.exec(self.browser.mapToGlobal(pos))

    def _on_browser_anchor_clicked(self, url: QUrl) -> None:
        target = url.toString()
        if target.startswith("context:"):
            self.context_requested.emit(int(target.split(":", 1)[1]))
        elif target.startswith("back:"):
            self.show_evidence(self._claim, self._cited, self._quote)
