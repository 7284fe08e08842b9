"""The diff view paints word differences from curator.review.diffing; the evidence view highlights support."""

from __future__ import annotations

from curator.review.evidence import Highlight
from curator.sources.turns import IndexedTurn
from ui.panes.diff import DiffView
from ui.panes.evidence import EvidenceView, highlighted_html


def _turn(number: int, text: str, conversation: str = "c1") -> IndexedTurn:
    return IndexedTurn(number=number, user_id="default", source_id="s", file="f.jsonl", conversation=conversation,
                       key=str(number), position=number, role="user", speaker="Maya", text=text,
                       timestamp=1_763_660_000.0 + number, sha256="x")


def test_diff_view_highlights_changed_words(qtbot) -> None:
    view = DiffView()
    qtbot.addWidget(view)
    view.set_texts("The trip to Lisbon is in October.", "The trip to Lisbon is in September.")
    old_spans, new_spans = view.changed_spans
    assert [(s.start, s.length) for s in old_spans] == [(25, 7)]
    assert [(s.start, s.length) for s in new_spans] == [(25, 9)]
    assert len(view.old_edit.extraSelections()) == 1
    assert view.old_edit.extraSelections()[0].cursor.selectedText() == "October"
    assert view.new_edit.extraSelections()[0].cursor.selectedText() == "September"
    assert "1 change" in view.summary.text()


def test_diff_view_edit_repaints_and_reports(qtbot) -> None:
    view = DiffView()
    qtbot.addWidget(view)
    view.set_texts("Pixel is a border collie.", "Pixel is a border collie.")
    assert view.new_edit.extraSelections() == []
    with qtbot.waitSignal(view.edited, check_params_cb=lambda text: text.endswith("puppy.")):
        view.new_edit.setPlainText("Pixel is a border collie puppy.")
    assert view.new_text() == "Pixel is a border collie puppy."
    assert [s.cursor.selectedText() for s in view.new_edit.extraSelections()] == [" puppy"]


def test_highlighted_html_escapes_and_marks() -> None:
    out = highlighted_html("a <b> cat", [Highlight(6, 9, "word")], "#ff0", "#0ff")
    assert "&lt;b&gt;" in out
    assert '<span style="background:#ff0; font-weight:600">cat</span>' in out


def test_evidence_view_shows_cited_turns_and_context(qtbot) -> None:
    view = EvidenceView()
    qtbot.addWidget(view)
    turns = [_turn(3, "I work night shifts as a nurse at St. Clair Hospital.")]
    view.show_evidence("Maya works night shifts as a nurse", turns, quote="night shifts as a nurse", missing=[9])
    html = view.browser.toHtml()
    assert "nurse" in view.plain_text() and "#3" in view.plain_text()
    assert "font-weight:600" in html
    assert "#9" in view.support_label.text()
    assert "100%" not in view.support_label.text() or "not found" not in view.support_label.text()
    # The speaker's name is the turn's author, not an unsupported word.
    assert "100%" in view.support_label.text() and "maya" not in view.support_label.text().lower()
    with qtbot.waitSignal(view.context_requested, check_params_cb=lambda n: n == 3):
        view._on_browser_anchor_clicked(__import__("PySide6.QtCore", fromlist=["QUrl"]).QUrl("context:3"))
    view.show_context(3, [_turn(2, "Hi there"), *turns, _turn(4, "Night shifts are hard.")])
    assert "Conversation around turn #3" in view.header.text()
    assert "Hi there" in view.plain_text() and "Night shifts are hard." in view.plain_text()
    view._on_browser_anchor_clicked(__import__("PySide6.QtCore", fromlist=["QUrl"]).QUrl("back:"))
    assert "Hi there" not in view.plain_text()
    view.show_evidence("anything", [])
    assert "cites no turns" in view.plain_text()


def test_highlights_follow_a_dark_palette(qtbot, qapp) -> None:
    from ui.infra.resources import accents, dark_palette, is_dark

    view = DiffView()
    qtbot.addWidget(view)
    light = accents(view.palette()).changed
    assert not is_dark(view.palette())
    view.setPalette(dark_palette())
    assert is_dark(view.palette())
    view.set_texts("a red car", "a blue car")
    selections = view.old_edit.extraSelections()
    fmt = selections[0].format
    dark = fmt.background().color()
    assert dark == accents(dark_palette()).changed != light
