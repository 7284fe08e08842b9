"""The seed 000 §2 signal accumulator: five signals, weights, thresholds, reset, recovery."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from curator.clock import ManualClock
from curator.sources.turns import IndexedTurn, text_hash
from curator.triggers.urgency import (
    CONTRADICTION,
    CORRECTION,
    HIGH_CONFIDENCE,
    KNOWLEDGE_BOUNDARY,
    SIGNAL_STATE_FIELDS,
    TOPIC_REPEAT,
    SignalAccumulator,
    detect_signals,
    find_correction,
    turn_topic,
)
from curator.vault.settings import Settings


def make_turn(
    number: int,
    text: str = "hello there",
    role: str = "user",
    *,
    extra: dict[str, Any] | None = None,
    context: str = "",
    file: str = "chat.jsonl",
    conversation: str = "c1",
) -> IndexedTurn:
    return IndexedTurn(
        number=number,
        user_id="alice",
        source_id="src",
        file=file,
        conversation=conversation,
        key=str(number),
        position=number,
        role=role,
        speaker=role,
        text=text,
        timestamp=1_770_400_000.0 + number,
        sha256=text_hash(text),
        context=context,
        extra=extra or {},
    )


def names(signals: list[Any]) -> list[str]:
    return [s.name for s in signals]


@pytest.fixture
def acc(tmp_path: Path) -> SignalAccumulator:
    return SignalAccumulator(tmp_path / "signal_state.json", Settings(), clock=ManualClock())


# ---- Detection of each signal, with its weight


def test_neutral_turn_has_no_signal() -> None:
    assert detect_signals(make_turn(1, "What is a good reef tank heater?"), []) == []


@pytest.mark.parametrize(
    "text",
    [
        "Actually, I live in Lyon.",
        "No, that was last year.",
        "Nope. It is blue.",
        "I meant the other laptop.",
        "That's wrong, my sister is older.",
        "That is not right at all",
        "It's not Paris but Lyon.",
        "You're wrong about the date.",
        "Scratch that, Tuesday works.",
        "Correction: the meeting is at nine.",
        "I misspoke earlier",
        "That\u2019s wrong",
    ],
)
def test_correction_detected_with_weight_2(text: str) -> None:
    signals = detect_signals(make_turn(1, text), [])
    assert names(signals) == [CORRECTION]
    assert signals[0].weight == 2.0


@pytest.mark.parametrize(
    "text",
    [
        "I have no idea what to cook.",
        "It is not only cheap but also fast.",
        "There is no way around it",
        "Is it noon yet?",
    ],
)
def test_non_corrections_are_not_flagged(text: str) -> None:
    assert find_correction(text) is None


def test_correction_only_read_on_user_turns() -> None:
    assert detect_signals(make_turn(1, "Actually, the answer is 4.", role="assistant"), []) == []


def test_topic_repeat_needs_three_in_window() -> None:
    topic = turn_topic("Tell me about troll farms")
    assert topic == "tell troll farms"
    once = ["troll farms elections"]
    twice = ["troll farms elections", "reef tanks", "who funds troll farms"]
    turn = make_turn(3, "How do troll farms work?")
    assert detect_signals(turn, once) == []
    signals = detect_signals(turn, twice)
    assert names(signals) == [TOPIC_REPEAT]
    assert signals[0].weight == 1.0


def test_accumulator_topic_repeat_on_third_mention(acc: SignalAccumulator) -> None:
    first = acc.update(make_turn(1, "Tell me about troll farms"))
    second = acc.update(make_turn(2, "Are troll farms legal?"))
    third = acc.update(make_turn(3, "Who pays troll farms?"))
    assert first.signals == second.signals == ()
    assert names(list(third.signals)) == [TOPIC_REPEAT]
    assert acc.state.recent_topics == ["tell troll farms", "troll farms legal", "pays troll farms"]


def test_topic_window_is_bounded(tmp_path: Path) -> None:
    settings = Settings()
    settings.set("signals.topic_window", 3)
    acc = SignalAccumulator(tmp_path / "s.json", settings, clock=ManualClock())
    for n, word in enumerate(["apples", "bananas", "cherries", "dates", "figs"], start=1):
        acc.update(make_turn(n, f"I like {word}"))
    assert acc.state.recent_topics == ["cherries", "dates", "figs"]


@pytest.mark.parametrize(
    "extra",
    [
        {"validation": "APPROVE", "quality": 0.9},
        {"validation": {"decision": "APPROVE", "quality": 0.85}},
        {"metadata": {"validation_result": "APPROVED", "quality": 0.95}},
    ],
)
def test_high_confidence_research(extra: dict[str, Any]) -> None:
    signals = detect_signals(make_turn(1, "ok", role="assistant", extra=extra), [])
    assert names(signals) == [HIGH_CONFIDENCE]
    assert signals[0].weight == 1.5


@pytest.mark.parametrize(
    "extra",
    [
        {"validation": "APPROVE", "quality": 0.84},
        {"validation": "REVISE", "quality": 0.99},
        {"quality": 0.99},
        {"validation": "APPROVE"},
    ],
)
def test_not_high_confidence(extra: dict[str, Any]) -> None:
    assert detect_signals(make_turn(1, "ok", role="assistant", extra=extra), []) == []


def test_high_confidence_from_context_sections() -> None:
    context = "## §6 Validation\n**Decision:** APPROVE\n**Quality:** 0.91\n"
    signals = detect_signals(make_turn(1, "ok", role="assistant", context=context), [])
    assert names(signals) == [HIGH_CONFIDENCE]


@pytest.mark.parametrize(
    ("extra", "context"),
    [
        ({"route": "refresh"}, ""),
        ({"plan": {"route": "clarify"}}, ""),
        ({}, "## §3 Plan\nroute: refresh\n"),
    ],
)
def test_knowledge_boundary(extra: dict[str, Any], context: str) -> None:
    signals = detect_signals(make_turn(1, "ok", role="assistant", extra=extra, context=context), [])
    assert names(signals) == [KNOWLEDGE_BOUNDARY]
    assert signals[0].weight == 1.0


def test_route_answer_is_not_a_boundary() -> None:
    assert detect_signals(make_turn(1, "ok", extra={"route": "answer"}), []) == []


def test_contradiction_from_metadata() -> None:
    signals = detect_signals(make_turn(1, "ok", extra={"prior_findings": "earlier: X"}), [])
    assert names(signals) == [CONTRADICTION]
    assert signals[0].weight == 2.5


def test_contradiction_from_prior_findings_file(tmp_path: Path) -> None:
    folder = tmp_path / "turn_000042"
    folder.mkdir()
    (folder / "context.md").write_text("x")
    turn = make_turn(1, "ok", file=str(folder / "context.md"))
    assert detect_signals(turn, []) == []
    (folder / "prior_findings.md").write_text("earlier finding")
    assert names(detect_signals(turn, [])) == [CONTRADICTION]


def test_weights_come_from_settings() -> None:
    settings = Settings()
    settings.set("signals.weight_correction", 0.25)
    signals = detect_signals(make_turn(1, "Actually no."), [], settings)
    assert [(s.name, s.weight) for s in signals] == [(CORRECTION, 0.25)]


def test_signals_add_up(acc: SignalAccumulator) -> None:
    extra = {"validation": "APPROVE", "quality": 0.9, "route": "refresh", "prior_findings": True}
    update = acc.update(make_turn(1, "Actually it's Lyon.", extra=extra))
    assert sorted(names(list(update.signals))) == sorted(
        [CORRECTION, HIGH_CONFIDENCE, KNOWLEDGE_BOUNDARY, CONTRADICTION]
    )
    assert update.added == pytest.approx(2.0 + 1.5 + 1.0 + 2.5)
    assert acc.state.urgency_score == pytest.approx(7.0)


def test_metadata_signals_counted_once_per_turn_folder(acc: SignalAccumulator) -> None:
    meta = {"validation": "APPROVE", "quality": 0.9}
    user = make_turn(1, "question", extra=meta, file="/x/turn_000001/context.md")
    reply = make_turn(2, "answer", role="assistant", extra=meta, file="/x/turn_000001/response.md")
    other = make_turn(3, "answer", role="assistant", extra=meta, file="/x/turn_000002/response.md")
    assert acc.update(user).added == 1.5
    assert acc.update(reply).added == 0.0
    assert acc.update(other).added == 1.5


# ---- Thresholds


WORDS = ["apples", "bananas", "cherries", "dates", "figs", "grapes", "kiwis", "lemons",
         "mangos", "nectarines", "oranges", "pears", "quinces", "raisins"]


def test_ten_turns_trigger(acc: SignalAccumulator) -> None:
    for n in range(1, 10):
        update = acc.update(make_turn(n, f"I like {WORDS[n]}"))
        assert update.signals == ()
        assert not update.should_trigger
    update = acc.update(make_turn(10, "I like pineapples"))
    assert update.should_trigger
    assert update.trigger == "turn_count"
    assert acc.state.turns_since_last_batch == 10


def test_urgency_must_be_strictly_greater_than_five(acc: SignalAccumulator) -> None:
    # Two corrections and one boundary: exactly 5.0, not > 5.0.
    acc.update(make_turn(1, "Actually it is Lyon."))
    acc.update(make_turn(2, "Actually it is Nice."))
    at_five = acc.update(make_turn(3, "ok", role="assistant", extra={"route": "clarify"}))
    assert at_five.urgency_score == pytest.approx(5.0)
    assert not acc.should_trigger()
    over = acc.update(make_turn(4, "ok", role="assistant", extra={"route": "refresh"}))
    assert over.urgency_score == pytest.approx(6.0)
    assert over.should_trigger and over.trigger == "urgency"


def test_reset_after_batch(acc: SignalAccumulator) -> None:
    clock = acc.clock
    assert isinstance(clock, ManualClock)
    for n in range(1, 11):
        acc.update(make_turn(n, "Actually, wait." if n == 1 else f"I like {WORDS[n]}"))
    clock.advance(60)
    acc.reset_after_batch(10)
    state = acc.state
    assert state.turns_since_last_batch == 0
    assert state.urgency_score == 0.0
    assert state.last_batch_turn == 10
    assert state.last_batch_timestamp == clock.now()
    assert not acc.should_trigger()
    # Turns already reviewed are not counted again.
    assert not acc.update(make_turn(9, "I like kiwis")).counted
    assert acc.state.turns_since_last_batch == 0


def test_reset_keeps_turns_that_arrived_during_the_batch(acc: SignalAccumulator) -> None:
    acc.update_many(make_turn(n, f"I like {WORDS[n]}") for n in range(1, 14))
    acc.reset_after_batch(10, last_seen_turn=13)
    assert acc.state.turns_since_last_batch == 3
    assert acc.state.last_batch_turn == 10


# ---- Persistence and recovery


def test_state_file_has_exactly_the_seed_fields(tmp_path: Path) -> None:
    path = tmp_path / "Logs" / "reflector" / "signal_state.json"
    acc = SignalAccumulator(path, Settings(), clock=ManualClock())
    acc.update(make_turn(1, "Tell me about reef tanks"))
    data = json.loads(path.read_text())
    assert sorted(data) == sorted(SIGNAL_STATE_FIELDS)
    assert data["turns_since_last_batch"] == 1
    assert data["recent_topics"] == ["tell reef tanks"]
    reopened = SignalAccumulator(path, Settings(), clock=ManualClock())
    assert reopened.state == acc.state


def test_corrupt_state_recovered_from_backup_with_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "signal_state.json"
    acc = SignalAccumulator(path, Settings(), clock=ManualClock())
    acc.update(make_turn(1, "first"))
    acc.update(make_turn(2, "second"))  # the backup now holds the 1-turn state
    path.write_text('{"turns_since_last_batch": 2, "urgency')
    with caplog.at_level(logging.WARNING):
        reopened = SignalAccumulator(path, Settings(), clock=ManualClock())
    assert reopened.state.turns_since_last_batch == 1
    assert reopened.warnings and "restored from signal_state.json.bak" in reopened.warnings[0]
    assert any("unreadable" in r.getMessage() for r in caplog.records)
    assert (tmp_path / "signal_state.json.corrupt-1").read_text().startswith('{"turns')


def test_corrupt_state_without_backup_restores_defaults(tmp_path: Path) -> None:
    path = tmp_path / "signal_state.json"
    path.write_bytes(b"\xff\xfe not json")
    acc = SignalAccumulator(path, Settings(), clock=ManualClock())
    assert acc.state.turns_since_last_batch == 0
    assert "defaults restored" in acc.warnings[0]
    assert (tmp_path / "signal_state.json.corrupt-1").exists()
    acc.update(make_turn(1, "hello"))
    assert json.loads(path.read_text())["turns_since_last_batch"] == 1


def test_wrong_shape_state_is_kept_aside(tmp_path: Path) -> None:
    path = tmp_path / "signal_state.json"
    path.write_text("[1, 2, 3]")
    acc = SignalAccumulator(path, Settings(), clock=ManualClock())
    assert acc.state.turns_since_last_batch == 0
    assert acc.warnings and "not a JSON object" in acc.warnings[0]
    assert (tmp_path / "signal_state.json.corrupt-1").exists()


def test_bad_field_values_fall_back_per_field(tmp_path: Path) -> None:
    path = tmp_path / "signal_state.json"
    path.write_text(json.dumps({"turns_since_last_batch": "many", "urgency_score": 2.5,
                                "last_batch_turn": 4, "recent_topics": "oops"}))
    acc = SignalAccumulator(path, Settings(), clock=ManualClock())
    assert acc.state.turns_since_last_batch == 0
    assert acc.state.urgency_score == 2.5
    assert acc.state.last_batch_turn == 4
    assert acc.state.recent_topics == []
    assert acc.warnings


def test_dead_paths_now_fire_from_what_adapters_write() -> None:
    folder = make_turn(
        1,
        "Tell me again about the budget.",
        extra={"has_prior_findings": True},
        file="turn_004/context.md",
    )
    assert CONTRADICTION in [s.name for s in detect_signals(folder, [])]
    assert CONTRADICTION not in [s.name for s in detect_signals(make_turn(2, extra={"has_prior_findings": False}), [])]
    routed = make_turn(3, extra={"route": "refresh"})
    assert KNOWLEDGE_BOUNDARY in [s.name for s in detect_signals(routed, [])]


def test_jsonl_messages_carry_their_signal_metadata() -> None:
    from curator.sources.adapters.jsonl import signal_extra

    line = {
        "role": "assistant",
        "content": "x",
        "metadata": {
            "validation": "APPROVE",
            "quality": 0.9,
            "route": "clarify",
            "secret": "not kept",
        },
    }
    extra = signal_extra(line)
    assert extra == {"validation": "APPROVE", "quality": 0.9, "route": "clarify"}
    assert HIGH_CONFIDENCE in [s.name for s in detect_signals(make_turn(4, role="assistant", extra=extra), [])]
