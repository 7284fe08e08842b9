"""Per-turn shortcuts of the ingest path decide exactly what the long way decided."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from curator.sources.adapters.base import ReadResult
from curator.sources.adapters.jsonl import SIGNAL_KEYS, signal_extra
from curator.sources.turns import Turn
from curator.sources.validation import extra_problem


def _by_serialising(extra: Any) -> str | None:
    if not isinstance(extra, dict):
        return "extra is not a mapping"
    try:
        json.dumps(extra, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return f"extra cannot be stored ({exc})"
    return None


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"format": "jsonl", "message_id": "m1", "time_unknown": True, "quality": 0.9, "n": 3, "x": None},
        {"quality": math.nan},
        {"quality": math.inf},
        {"quality": -math.inf},
        {"when": object()},
        {1: "int key"},
        {(1, 2): "tuple key"},
        {"nested": {"a": [1, 2, {"b": math.nan}]}},
        {"nested": {"a": [1, 2, {"b": "ok"}]}},
        {"bytes": b"raw"},
        {"set": {1, 2}},
        [],
        "text",
        None,
    ],
)
def test_extra_check_agrees_with_serialising_it(extra: Any) -> None:
    assert extra_problem(extra) == _by_serialising(extra)


def test_signal_extra_keeps_key_order_and_later_holders_win() -> None:
    line = {"role": "user", "content": "hi", "quality": 0.5, "metadata": {"route": "refresh", "quality": 0.9},
            "meta": {"closed": True}, "other": 1}
    assert list(signal_extra(line).items()) == [("quality", 0.5), ("route", "refresh"), ("closed", True)]
    assert signal_extra({"role": "user", "content": "hi", "id": "1"}) == {}
    assert set(SIGNAL_KEYS) >= set(signal_extra(line))


def _turn(position: int) -> Turn:
    return Turn("src", "chat.jsonl", "c", f"pos:{position}", position, "user", "user", f"m{position}", 0.0)


def test_time_unknown_turns_take_the_last_known_time_also_after_direct_appends() -> None:
    result = ReadResult()
    result.add(_turn(0), when=None, fallback=5.0)
    result.add(_turn(1), when=100.0, fallback=5.0)
    result.add(_turn(2), when=None, fallback=5.0)
    # Adapters may append ready turns themselves; the next stand-in time still sees them.
    result.turns.append(Turn("src", "chat.jsonl", "c", "pos:3", 3, "user", "user", "m3", 200.0))
    result.add(_turn(4), when=None, fallback=5.0)
    assert [(t.timestamp, t.time_known) for t in result.turns] == [
        (5.0, False), (100.0, True), (100.0, False), (200.0, True), (200.0, False)
    ]
    result.turns = [Turn("src", "chat.jsonl", "c", "pos:9", 9, "user", "user", "m9", 300.0)]
    result.add(_turn(10), when=None, fallback=5.0)
    stamps = [(t.position, t.timestamp, t.time_known) for t in result.turns]
    assert stamps == [(9, 300.0, True), (10, 300.0, False)]
    assert result.time_unknown == 4


def test_many_turns_without_times_are_read_in_linear_time() -> None:
    # 20,000 time-unknown turns: the old look-back over all earlier turns did 200 million steps.
    result = ReadResult()
    result.add(_turn(0), when=50.0, fallback=1.0)
    for position in range(1, 20_001):
        result.add(_turn(position), when=None, fallback=1.0)
    assert {t.timestamp for t in result.turns} == {50.0}
    assert result.time_unknown == 20_000
