"""The cheap word checks in front of the correction and cycle-request patterns never change
what the patterns decide: the checked functions agree with the patterns searched alone."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from curator.clock import ManualClock
from curator.index.text import STOP_WORDS, WORD_RE
from curator.sources.turns import IndexedTurn, text_hash
from curator.triggers.cycle import _ASK_RE, asks_for_cycle
from curator.triggers.keywords import folded
from curator.triggers.signal_text import (
    _PATTERN_NEEDS,
    CORRECTION_PATTERNS,
    leading_words,
    same_topic,
    topic_repeats,
)
from curator.triggers.urgency import (
    HIGH_CONFIDENCE,
    SignalAccumulator,
    detect_signals,
    find_correction,
    turn_topic,
)
from curator.vault.settings import Settings

# Pieces that make up texts near every pattern, in odd cases and with the characters a
# case-insensitive search folds specially (dotted/dotless i, long s, the Kelvin sign).
_PIECES = [
    "actually", "ACTUALLY", "\u0130 meant", "I MEANT", "i mean to say", "no,", "No.", "nope;",
    "NAH -", "nah\u2014", "no idea", "that's wrong", "That is NOT right", "that was not what I",
    "you're mistaken", "YOU GOT IT WRONG", "I was wrong", "I misspoke", "made a mistake",
    "correction", "to correct myself", "scratch that", "let me rephrase", "not Paris but Lyon",
    "not only cheap but also fast", "cat", "garden", "the", "\u017fcratch that", "wrong",
    "reflect on your memories", "REFLECT ON MY MEMORY", "consolidate", "please consolidate now",
    "Consolidate the memories", "consolidation", "reflection", "\u212aelvin", "\u0131", "...", "!",
    "?", ",", "\u2019s", "\u2018", "\n", "  ", "caf\u00e9", "\u00dfeta", "\u03a3\u039f\u03a3",
]


def make_turn(number: int, text: str, role: str = "user", *, extra: dict[str, Any] | None = None) -> IndexedTurn:
    return IndexedTurn(number=number, user_id="u", source_id="s", file="chat.jsonl", conversation="c",
                       key=str(number), position=number, role=role, speaker=role, text=text,
                       timestamp=1_770_400_000.0 + number, sha256=text_hash(text), extra=extra or {})


def _unfiltered_correction(text: str) -> str | None:
    normalised = text.replace("\u2019", "'").replace("\u2018", "'")
    return next((label for label, p in CORRECTION_PATTERNS if p.search(normalised)), None)


def _texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        rng.choice(["", " ", ". ", "x"]).join(rng.choice(_PIECES) for _ in range(rng.randint(1, 6)))
        for _ in range(count)
    ]


def test_correction_check_agrees_with_the_patterns_alone() -> None:
    texts = _texts(3000, seed=7)
    found = [find_correction(t) for t in texts]
    assert found == [_unfiltered_correction(t) for t in texts]
    assert sum(f is not None for f in found) > 500  # the sample does reach the patterns


def test_cycle_request_check_agrees_with_the_pattern_alone() -> None:
    texts = [*_texts(3000, seed=11), "consolidate", "  Please, consolidate!  ", "\u017fconsolidate"]
    asked = [asks_for_cycle(t) for t in texts]
    assert asked == [bool(_ASK_RE.search(t)) for t in texts]
    assert sum(asked) > 50


@pytest.mark.parametrize("text", ["\u0130 MEANT it", "\u017fcratch that", "I was wrong, \u212aate"])
def test_special_case_folds_still_reach_the_patterns(text: str) -> None:
    assert find_correction(text) == _unfiltered_correction(text) is not None


def test_every_character_a_case_insensitive_letter_matches_folds_to_that_letter() -> None:
    # The claim the word checks rest on, checked over all of Unicode: whatever character an
    # IGNORECASE pattern takes for an ASCII letter, ``folded`` turns into that letter.
    any_letter = re.compile("[a-z]", re.IGNORECASE)
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        if any_letter.fullmatch(char) is None:
            continue
        letters = [c for c in "abcdefghijklmnopqrstuvwxyz" if re.fullmatch(c, char, re.IGNORECASE)]
        assert folded(char) in letters, (hex(code), letters)


def test_words_read_in_chunks_are_the_words_of_the_whole_text() -> None:
    rng = random.Random(3)
    words = ["rock'n'roll", "don't", "it\u2019s", "caf\u00e9", "x_y", "42", "a", "reef", "tank", "heater",
             "o'", "'quoted'", "well-known", "\u03a3\u039f\u03a3", "na\u00efve", "x" * 200]
    for _ in range(300):
        text = "".join(rng.choice(words) + rng.choice([" ", "  ", "\n", ",", "'", "\u2019", "-", "", "\t"])
                       for _ in range(rng.randint(0, 120)))
        assert list(leading_words(text)) == WORD_RE.findall(text)
    assert turn_topic("Tell me about troll farms, " + "reef " * 500) == "tell troll farms reef"


def test_settings_are_read_once_per_held_block(tmp_path: Path) -> None:
    settings = Settings()
    acc = SignalAccumulator(tmp_path / "s.json", settings, clock=ManualClock())
    with acc.held_settings():
        settings.set("batch.turn_threshold", 1)
        acc.update(make_turn(1, "hello"), save=False)
        assert acc.trigger_reason() is None  # the threshold of when the block began (10)
    assert acc.trigger_reason() == "turn_count"  # outside a block, settings apply at once


def test_provenance_only_metadata_carries_no_signal_but_nested_metadata_does() -> None:
    plain = {"format": "jsonl", "message_id": "m1", "title": "Quality time", "time_unknown": True}
    assert detect_signals(make_turn(1, "ok", role="assistant", extra=plain), []) == []
    nested = {"format": "x", "meta": {"validation": "APPROVE", "quality": 0.9}}
    assert [s.name for s in detect_signals(make_turn(1, "ok", role="assistant", extra=nested), [])] == [
        HIGH_CONFIDENCE
    ]


def _topic_the_long_way(text: str, max_words: int = 6) -> str:
    seen: list[str] = []
    for raw in WORD_RE.findall(text):
        word = raw.lower().replace("\u2019", "'")
        if word in STOP_WORDS or len(word) <= 1 or word.isdigit() or word in seen:
            continue
        seen.append(word)
        if len(seen) >= max_words:
            break
    return " ".join(seen)


def test_topic_is_that_of_the_whole_text_read_word_by_word() -> None:
    rng = random.Random(5)
    words = ["Rock'n'Roll", "DON\u2019T", "it\u2019s", "Caf\u00e9", "x_y", "42", "a", "the", "reef", "reef",
             "\u0130stanbul", "\u03a3\u039f\u03a3", "na\u00efve", "I", "x" * 200, "tank", "about", "2nd"]
    texts = ["", " ", "the a an", *(
        "".join(rng.choice(words) + rng.choice([" ", "  ", "\n", ",", "\u2019", "-", ""])
                for _ in range(rng.randint(0, 80)))
        for _ in range(500)
    )]
    for text in texts:
        assert turn_topic(text) == _topic_the_long_way(text)
        assert turn_topic(text, 2) == _topic_the_long_way(text, 2)


def _topic_repeats_the_long_way(topic: str, recent: list[str], threshold: float) -> int:
    return sum(same_topic(topic, other, threshold) for other in recent)


def test_topic_repeats_counts_what_same_topic_says() -> None:
    recent = ["troll farms", "troll farms legal", "", "reef tank heater", "farms", "who pays troll farms"]
    for topic in ("troll farms", "reef", "", "pays farms", "the"):
        for threshold in (0.05, 0.5, 1.0):
            assert topic_repeats(topic, recent, threshold) == _topic_repeats_the_long_way(topic, recent, threshold)


def test_counting_a_turn_leaves_what_an_update_leaves(tmp_path: Path) -> None:
    """Until the turn count makes a batch due, exactly; after it, everything but the urgency,
    which the batch's reset sets to zero in both (issue 22: an import counts without detecting
    the signals of turns that can change no decision)."""
    texts = ["Tell me about troll farms", "Are troll farms legal?", "Actually, I meant Lyon.",
             "Who pays troll farms?", "ok"]
    updated = SignalAccumulator(tmp_path / "a.json", Settings(), clock=ManualClock())
    counted = SignalAccumulator(tmp_path / "b.json", Settings(), clock=ManualClock())
    threshold = int(Settings()["batch.turn_threshold"])
    urgency_when_due = None
    for number, text in enumerate(texts * 3, start=1):
        role = "user" if number % 3 else "assistant"
        extra = {"quality": 0.95, "validation": "APPROVE"} if number % 4 == 0 else {}
        updated.update(make_turn(number, text, role, extra=extra), save=False)
        counted.count(make_turn(number, text, role, extra=extra))
        if number <= threshold:
            assert counted.state == updated.state
            urgency_when_due = counted.state.urgency_score
        else:
            assert replace(counted.state, urgency_score=0.0) == replace(updated.state, urgency_score=0.0)
            assert counted.state.urgency_score == urgency_when_due  # frozen while due by count
            assert counted.trigger_reason() == updated.trigger_reason() == "turn_count"
    assert updated.state.urgency_score > urgency_when_due  # the test saw signals past the threshold
    updated.reset_after_batch(6)
    counted.reset_after_batch(6)
    assert counted.state == updated.state
    counted.count(make_turn(3, "already reviewed"))  # at or below the last batch: not counted
    updated.update(make_turn(3, "already reviewed"), save=False)
    assert counted.state.turns_since_last_batch == updated.state.turns_since_last_batch


def test_each_correction_pattern_is_searched_only_without_its_needs_missing() -> None:
    # A pattern skipped for a missing word could never have matched: checked pattern by
    # pattern, so a later pattern matching cannot hide a wrong skip.
    texts = [*_texts(4000, seed=13), "\u017fcratch that", "I MEANT", "that \u0130S wrong"]
    reached = set()
    for text in texts:
        normalised = text.replace("\u2019", "'").replace("\u2018", "'")
        low = folded(normalised)
        for (label, pattern), needs in zip(CORRECTION_PATTERNS, _PATTERN_NEEDS, strict=True):
            if pattern.search(normalised):
                reached.add(label)
                assert needs(low), (label, text)
    assert reached == {label for label, _ in CORRECTION_PATTERNS}
