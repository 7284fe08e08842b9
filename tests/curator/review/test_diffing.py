"""curator.review.diffing: lossless, typed word-level hunks."""

from __future__ import annotations

import itertools

import pytest

from curator.review.diffing import (
    FieldChange,
    Hunk,
    Span,
    field_changes,
    side_spans,
    similarity,
    tokenize_keep_all,
    word_diff,
)


@pytest.mark.parametrize(
    "text",
    ["", "plain words", "  spaced\tout\n\nlines  ", "it's a dog's_life: 3.5 km, ok?", "naïve café — ünïcode"],
)
def test_tokenize_is_lossless(text: str) -> None:
    assert "".join(tokenize_keep_all(text)) == text


def test_replaced_word_is_one_hunk() -> None:
    hunks = word_diff("The user lives in Berlin.", "The user lives in Munich.")
    assert hunks == [
        Hunk("equal", "The user lives in ", "The user lives in "),
        Hunk("replace", "Berlin", "Munich"),
        Hunk("equal", ".", "."),
    ]


def test_insert_and_delete() -> None:
    assert word_diff("a b", "a new b") == [
        Hunk("equal", "a ", "a "),
        Hunk("insert", "", "new "),
        Hunk("equal", "b", "b"),
    ]
    assert word_diff("keep this old part", "keep this") == [
        Hunk("equal", "keep this", "keep this"),
        Hunk("delete", " old part", ""),
    ]


def test_whitespace_between_changes_folds_into_one_replace() -> None:
    hunks = word_diff("likes red apples", "hates green apples")
    assert hunks[0] == Hunk("replace", "likes red", "hates green")
    assert hunks[-1].op == "equal"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("", "something new"),
        ("something old", ""),
        ("same", "same"),
        ("User prefers tea over coffee in the morning.", "User prefers coffee, not tea, in the evening."),
        ("line one\nline two\n", "line one\nline 2\nline three\n"),
    ],
)
def test_hunks_rebuild_both_sides(old: str, new: str) -> None:
    hunks = word_diff(old, new)
    assert "".join(h.old for h in hunks) == old
    assert "".join(h.new for h in hunks) == new
    for first, second in itertools.pairwise(hunks):
        assert not (first.op != "equal" and second.op != "equal")
        assert not (first.op == second.op == "equal")


def test_side_spans_point_at_changed_text() -> None:
    old, new = "born in 1990 in Oslo", "born in 1991 in Oslo"
    old_spans, new_spans = side_spans(word_diff(old, new))
    assert old_spans == [Span(8, 4, "replace")]
    assert new_spans == [Span(8, 4, "replace")]
    assert old[8:12] == "1990" and new[8:12] == "1991"


def test_side_spans_insert_only_marks_new_side() -> None:
    old_spans, new_spans = side_spans(word_diff("tea", "green tea"))
    assert old_spans == []
    assert new_spans == [Span(0, 6, "insert")]


def test_similarity() -> None:
    assert similarity(word_diff("same text", "same text")) == 1.0
    assert similarity(word_diff("", "")) == 1.0
    assert similarity(word_diff("abc", "xyz")) == 0.0
    assert 0.0 < similarity(word_diff("a long shared sentence", "a long shared phrase")) < 1.0


def test_field_changes() -> None:
    old = {"id": "x", "title": "Old", "quality": 0.5, "gone": 1}
    new = {"id": "x", "title": "New", "quality": 0.5, "added": [1]}
    assert field_changes(old, new) == [
        FieldChange("title", "Old", "New"),
        FieldChange("added", None, [1]),
        FieldChange("gone", 1, None),
    ]
