"""Per-turn shortcuts of the ingest path decide exactly what the long way decided."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from typing import Any

import pytest

from curator.sources.adapters.base import ReadResult
from curator.sources.adapters.jsonl import SIGNAL_KEYS, signal_extra
from curator.sources.adapters.timestamps import parse_time, parse_time_text
from curator.sources.ledger import _with_hash
from curator.sources.turns import IndexedTurn, Turn, built
from curator.sources.unit_plan import UnitPlan
from curator.sources.validation import (
    extra_problem,
    record_problem,
    timestamp_problem,
    turn_problem,
)


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


# Time strings as clients write them: ISO with offsets, Z, fractions, naive, a space for the
# T, the client patterns the fast path must not shadow, epoch numbers as text, and junk.
TIME_STRINGS = [
    "2024-03-01T10:00:00Z", "2024-03-01T10:00:00+00:00", "2024-03-01T10:00:00.5+02:00",
    "2024-03-01T10:00:00.123456Z", "2024-03-01T10:00:00.1234567Z", "2024-03-01T10:00:00-0530",
    "2024-03-01T10:00:00", "2024-03-01T10:00", "2024-03-01 10:00:00", "2024-03-01 10:00:00Z",
    "  2024-03-01T10:00:00Z  ", "2026-01-01 12:00:00.123456789+01:00", "2026-01-01 12:00:00 +0100 CET",
    "2024-13-45T99:00:00Z", "2024-02-30T10:00:00Z", "2024-03-01Tnonsense", "2024-03-01 @20h 02m 47s",
    "2023-4-21 @20h 02m 47s 124ms", "2024-5-24@16h24m11s", "June 3, 2024 6:03pm", "May 03, 2026 14:05",
    "1709287204", "1709287204.5", "1709287204000", "1709287204000000", "1e9", "-1709287204",
    "2024", "2024-03-01", "20240301T100000Z", "soon", "inf", "nan", "1_709_287_204",
]


@pytest.mark.parametrize("value", TIME_STRINGS)
def test_iso_first_decides_what_the_long_way_decides(value: str) -> None:
    assert parse_time(value) == parse_time_text(value.strip())


def test_the_iso_first_strings_are_read() -> None:
    # The fast path is taken for these (a "-" at 4, a "T" or space at 10) and finds a time.
    for value in ("2024-03-01T10:00:00Z", "2024-03-01T10:00:00.5+02:00", "2024-03-01 10:00:00"):
        assert parse_time(value) == parse_time_text(value) is not None


def test_a_planned_add_record_holds_every_field_of_its_turn() -> None:
    turn = Turn("src", "chat.jsonl", "c", "id:m1", 3, "user", "Ann", "hello there", 1_700_000_000.0,
                "ctx", {"message_id": "m1", "quality": 0.5})
    plan = UnitPlan("default", next_number=7, next_seq=11, now=1_800_000_000.0)
    assert plan.add(turn) == 7
    indexed = plan.added[0]
    record = plan.records[0]
    # The ledger's form: the digest of the text is left out, and reading puts it back.
    assert "sha256" not in record["turn"]
    assert _with_hash(copy.deepcopy(record))["turn"] == dataclasses.asdict(indexed)
    assert [*record["turn"]] == [f.name for f in dataclasses.fields(IndexedTurn) if f.name != "sha256"]
    assert (record["seq"], record["op"], record["at"], record["supersedes"]) == (11, "add", 1_800_000_000.0, None)
    assert indexed.sha256 == turn.sha256 and indexed.number == 7 and indexed.status == "active"
    # The record, the indexed turn and the source turn do not share an extra to mutate.
    assert record["turn"]["extra"] is not indexed.extra and indexed.extra is not turn.extra
    assert record_problem(record) is None


def test_add_message_gives_what_add_gives() -> None:
    long_way, short_way = ReadResult(), ReadResult()
    for position, when in enumerate((100.0, None, float("nan"), 200.0)):
        turn = Turn("src", "chat.jsonl", "c", f"pos:{position}", position, "user", "Ann", f"m{position}", 0.0,
                    extra={"quality": 0.5})
        long_way.add(turn, when=when, fallback=5.0, message_id=f"m{position}", title="T", fmt="jsonl")
        short_way.add_message("src", "chat.jsonl", "c", f"pos:{position}", position, "user", "Ann", f"m{position}",
                              {"quality": 0.5}, when=when, fallback=5.0, message_id=f"m{position}", title="T",
                              fmt="jsonl")
    assert [(t, t.extra) for t in short_way.turns] == [(t, t.extra) for t in long_way.turns]
    assert (short_way.problems, short_way.time_unknown) == (long_way.problems, long_way.time_unknown)


@pytest.mark.parametrize("cls", [Turn, IndexedTurn])
def test_a_built_turn_is_the_turn_init_makes(cls: type[Any]) -> None:
    values = {
        "number": 4, "user_id": "default", "source_id": "src", "file": "chat.jsonl", "conversation": "c",
        "key": "id:m1", "position": 3, "role": "user", "speaker": "Ann", "text": "hello", "timestamp": 12.5,
        "sha256": "ab", "status": "edited", "context": "ctx", "extra": {"message_id": "m1"},
    }
    names = [f.name for f in dataclasses.fields(cls)]
    fields = {name: values[name] for name in names}
    made, fast = cls(**fields), built(cls, dict(fields))
    assert fast == made and hash(fast) == hash(made) and repr(fast) == repr(made)
    assert vars(fast) == vars(made) and list(vars(fast)) == names
    assert dataclasses.replace(fast, key="id:m2") == dataclasses.replace(made, key="id:m2")
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.text = "changed"  # type: ignore[misc]
    # Nothing runs after __init__ that built() would skip.
    assert not hasattr(cls, "__post_init__") and not hasattr(cls, "__slots__")


class _Text(str):
    """A str subclass: text to isinstance, not to an exact type test."""


def _timestamp_the_long_way(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"timestamp is {type(value).__name__}, not a number"
    if not math.isfinite(value):
        return f"timestamp {value!r} is not a finite number"
    if not 0.0 <= float(value) <= 7258118400.0:
        return f"timestamp {value!r} is outside 1970..2200"
    return None


@pytest.mark.parametrize("value", [0.0, 1.5, 1_700_000_000.25, 7258118400.0, 7258118400.5, -0.5, math.nan,
                                   math.inf, -math.inf, 5, True, None, "1700000000", _Text("x"), 2**70])
def test_timestamp_check_agrees_with_the_long_way(value: Any) -> None:
    assert timestamp_problem(value) == _timestamp_the_long_way(value)


def _good_record() -> dict[str, Any]:
    turn = Turn("src", "chat.jsonl", "c", "id:m1", 3, "user", "Ann", "hello there", 1_700_000_000.0)
    plan = UnitPlan("default", next_number=1, next_seq=1, now=1_800_000_000.0)
    plan.add(turn)
    return plan.records[0]


@pytest.mark.parametrize("field", ["source_id", "file", "conversation", "key", "speaker", "text", "context",
                                   "role", "sha256", "user_id"])
@pytest.mark.parametrize("value", [_Text("ok"), 5, None, b"raw", ["x"]])
def test_record_text_checks_name_the_field_as_before(field: str, value: Any) -> None:
    record = _good_record()
    record["turn"][field] = value
    problem = record_problem(record)
    if isinstance(value, str):
        assert problem is None or not problem.startswith("turn ")  # a str subclass is text
    else:
        assert problem == f"turn {field} is {type(value).__name__}, not text"
    del record["turn"][field]
    assert record_problem(record) is None or field == "role"  # a missing text field reads as ""


@pytest.mark.parametrize("field", ["source_id", "file", "conversation", "key", "speaker", "text", "context"])
@pytest.mark.parametrize("value", [_Text("ok text"), 5, None])
def test_turn_text_checks_name_the_field_as_before(field: str, value: Any) -> None:
    values = {"source_id": "src", "file": "f", "conversation": "c", "key": "k", "position": 0, "role": "user",
              "speaker": "Ann", "text": "hi", "timestamp": 1.0, "context": "", field: value}
    problem = turn_problem(Turn(**values))
    assert problem == (None if isinstance(value, str) else f"{field} is {type(value).__name__}, not text")
