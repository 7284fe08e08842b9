"""The streamed JSON of a reflection, read as words while it is written."""

from __future__ import annotations

from curator.index.text import elide
from curator.llm.stream_text import ReadableStream

BATCH = ('{"new_facts": [{"title": "Shifts", "content": "Maya works night shifts\\nat the \\u00e9 ward",'
         ' "source_turns": [1, 2], "related_existing": []}], "corrections": [], "connections": [],'
         ' "open_questions": [{"question": "Which hospital?", "source_turns": [3]')


def test_items_are_named_and_written_piece_by_piece() -> None:
    stream = ReadableStream()
    for ch in BATCH:
        stream.feed(ch)
    assert [(i.label, i.text, i.done) for i in stream.items] == [
        ("new fact", "Maya works night shifts at the é ward", True),
        ("open question", "Which hospital?", True),
    ]
    assert stream.render().splitlines()[0] == "new fact: Maya works night shifts at the é ward"


def test_an_unfinished_item_shows_with_an_ellipsis() -> None:
    stream = ReadableStream()
    stream.feed('{"facts": [{"subject": "user", "subjectName": "Maya", "fact": "Maya has a dog na')
    assert stream.current() == "fact: Maya has a dog na…"


def test_free_text_passes_through() -> None:
    stream = ReadableStream()
    stream.feed("They talked about\n the trip.")
    assert stream.render() == "They talked about the trip."


def test_elide_cuts_at_a_word_with_an_ellipsis() -> None:
    title = "Maya asked about moving her plants all over the flat before the trip"
    assert elide(title, 40) == "Maya asked about moving her plants all…"
    assert elide("short", 40) == "short"
    assert elide("x" * 50, 10) == "x" * 9 + "…"
