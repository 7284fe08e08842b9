"""The trigger engine on a manual clock: batch, summary, micro and cycle jobs, status, state."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from curator.clock import ManualClock
from curator.events import Event, EventBus
from curator.sources.turns import IndexedTurn, text_hash
from curator.triggers.cycle import asks_for_cycle, parse_schedule
from curator.triggers.decisions import DECISION_EVENT, estimate_tokens, format_duration
from curator.triggers.engine import TriggerEngine
from curator.triggers.jobs import PRIORITY_MANUAL, JobQueue
from curator.vault.paths import VaultPaths
from curator.vault.settings import Settings

START = datetime(2026, 2, 6, 12, 0, tzinfo=UTC).timestamp()
FRUITS = ["apples", "bananas", "cherries", "dates", "figs", "grapes", "kiwis", "lemons",
          "mangos", "nectarines", "oranges", "pears", "quinces", "raisins", "plums",
          "limes", "melons", "olives", "papayas", "peaches", "walnuts", "almonds"]


class Chat:
    """Makes numbered turns for one user, stamped with the manual clock's time."""

    def __init__(self, clock: ManualClock, user: str = "alice") -> None:
        self.clock = clock
        self.user = user
        self.number = 0

    def turn(self, text: str | None = None, role: str = "user", conversation: str = "c1",
             extra: dict[str, Any] | None = None) -> IndexedTurn:
        self.number += 1
        body = text if text is not None else f"I like {FRUITS[self.number % len(FRUITS)]}"
        return IndexedTurn(
            number=self.number, user_id=self.user, source_id="s", file="chat.jsonl",
            conversation=conversation, key=str(self.number), position=self.number, role=role,
            speaker=role, text=body, timestamp=self.clock.now(), sha256=text_hash(body),
            extra=extra or {},
        )

    def turns(self, count: int, **kw: Any) -> list[IndexedTurn]:
        return [self.turn(**kw) for _ in range(count)]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def settings() -> Settings:
    s = Settings()
    # Keep the other families quiet unless a test is about them.
    s.set("cycle.unprocessed_turns", 100_000)
    s.set("cycle.schedule", "")
    return s


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def engine(tmp_path: Path, settings: Settings, clock: ManualClock, bus: EventBus) -> TriggerEngine:
    return TriggerEngine(tmp_path, settings, clock=clock, events=bus, tz=UTC)


@pytest.fixture
def chat(clock: ManualClock) -> Chat:
    return Chat(clock)


def fired(decisions: list[Any], kind: str | None = None) -> list[Any]:
    return [d for d in decisions if d.fired and (kind is None or d.trigger == kind)]


def finish(engine: TriggerEngine, job_id: str, ok: bool = True) -> None:
    engine.queue.mark_running(job_id)
    if ok:
        engine.queue.mark_done(job_id, result={})
    else:
        engine.queue.mark_failed(job_id, "model failed")


# ---- Batch (seed 000)


def test_batch_fires_at_ten_turns(engine: TriggerEngine, chat: Chat) -> None:
    assert fired(engine.on_turns("alice", chat.turns(9))) == []
    assert engine.queue.list() == []
    decisions = engine.on_turns("alice", [chat.turn()])
    [decision] = fired(decisions, "batch")
    assert decision.code == "turn_count"
    assert "10/10 turns" in decision.reason
    [job] = engine.queue.list()
    assert (job.kind, job.user_id, job.turn_range, job.trigger) == ("batch", "alice", (1, 10),
                                                                     "turn_count")
    assert job.id == decision.job_id


def test_batch_fires_mid_call_with_exact_range(engine: TriggerEngine, chat: Chat) -> None:
    decisions = engine.on_turns("alice", chat.turns(13))
    assert len(fired(decisions, "batch")) == 1
    [job] = engine.queue.list()
    assert job.turn_range == (1, 10)
    # While it is pending, no second batch is queued; the decision says why (once).
    [waiting] = [d for d in decisions if d.trigger == "batch" and not d.fired]
    assert waiting.code == "pending" and job.id in waiting.reason
    more = engine.on_turns("alice", chat.turns(2))
    assert fired(more) == []
    assert len(engine.queue.list()) == 1
    assert engine.status("alice").lines[0] == f"batch: 15/10 turns, urgency 0.0/5.0 ({job.id} queued)"


def test_batch_urgency_strictly_greater_than_five(engine: TriggerEngine, chat: Chat) -> None:
    # correction 2.0 + correction 2.0 + boundary 1.0 = 5.0: not yet.
    decisions = engine.on_turns("alice", [
        chat.turn("Actually it is Lyon."),
        chat.turn("Actually it was Tuesday."),
        chat.turn("ok", role="assistant", extra={"route": "clarify"}),
    ])
    assert fired(decisions) == []
    assert "urgency 5.0/5.0" in engine.status("alice").lines[0]
    decisions = engine.on_turns("alice", [chat.turn("I meant the red one.")])
    [decision] = fired(decisions, "batch")
    assert decision.code == "urgency"
    assert "urgency 7.0 > 5.0" in decision.reason
    assert engine.queue.list()[0].turn_range == (1, 4)


def test_batch_counters_reset_after_the_job_is_done(
    engine: TriggerEngine, chat: Chat, tmp_path: Path
) -> None:
    engine.on_turns("alice", chat.turns(10))
    engine.on_turns("alice", chat.turns(2))  # arrive while the batch is queued
    job = engine.queue.list()[0]
    finish(engine, job.id)
    state = json.loads(VaultPaths(tmp_path).user("alice").signal_state.read_text())
    assert state["last_batch_turn"] == 10
    assert state["turns_since_last_batch"] == 2
    assert state["urgency_score"] == 0.0
    assert state["last_batch_timestamp"] == engine.clock.now()
    decisions = engine.on_turns("alice", chat.turns(8))
    [decision] = fired(decisions, "batch")
    assert engine.queue.get(decision.job_id).turn_range == (11, 20)  # type: ignore[union-attr]


def test_failed_batch_waits_for_a_new_turn(engine: TriggerEngine, chat: Chat) -> None:
    engine.on_turns("alice", chat.turns(10))
    finish(engine, engine.queue.list()[0].id, ok=False)
    decisions = engine.tick()
    assert fired(decisions) == []
    assert any(d.code == "after_failure" for d in decisions)
    decisions = engine.on_turns("alice", [chat.turn()])
    [decision] = fired(decisions, "batch")
    assert engine.queue.get(decision.job_id).turn_range == (1, 10)  # type: ignore[union-attr]


def test_batch_threshold_is_a_setting(tmp_path: Path, settings: Settings, clock: ManualClock,
                                      chat: Chat) -> None:
    settings.set("batch.turn_threshold", 3)
    engine = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC)
    assert len(fired(engine.on_turns("alice", chat.turns(3)), "batch")) == 1


def test_seen_turns_are_not_counted_twice(engine: TriggerEngine, chat: Chat) -> None:
    turns = chat.turns(6)
    engine.on_turns("alice", turns)
    engine.on_turns("alice", turns)  # a rescan reports them again
    engine.on_turns("alice", turns[:3] + turns[:3])
    assert engine.status("alice").data["batch"]["turns"] == 6


# ---- Context summaries (seed 002)


def test_summary_needs_both_conditions(engine: TriggerEngine, chat: Chat,
                                       clock: ManualClock) -> None:
    engine.on_turns("alice", [chat.turn(), chat.turn(role="assistant"), chat.turn(),
                              chat.turn(role="assistant"), chat.turn(), chat.turn(role="assistant"),
                              chat.turn(), chat.turn(role="assistant")])
    clock.advance(10 * 60)
    # 8 messages but 4 of the person's only, however quiet: seed 002 counts user messages.
    assert fired(engine.tick(), "summary") == []
    engine.on_turns("alice", [chat.turn()])  # the person's 5th message, and the timer restarts
    clock.advance(4 * 60 + 59)
    assert fired(engine.tick(), "summary") == []  # 5 messages but not 5 minutes yet
    clock.advance(1)
    [decision] = fired(engine.tick(), "summary")
    assert decision.code == "inactivity"
    assert decision.conversation == "c1"
    [job] = engine.queue.list(kind="summary")
    assert job.conversation == "c1" and job.turn_range == (1, 9)
    assert fired(engine.tick(), "summary") == []  # pending: not twice


def test_summary_and_micro_switches_turn_them_off(engine: TriggerEngine, chat: Chat, clock: ManualClock,
                                                  settings: Settings) -> None:
    settings.set("summary.enabled", False)
    settings.set("micro.enabled", False)
    decisions = engine.on_turns("alice", chat.turns(12))
    clock.advance(60 * 60)
    decisions += engine.tick()
    assert fired(decisions, "summary") == [] and fired(decisions, "micro") == []
    assert {(d.trigger, d.code) for d in decisions if d.trigger in ("summary", "micro")} == {("summary", "disabled")}
    assert engine.queue.list(kind="summary") == [] and engine.queue.list(kind="micro") == []
    settings.set("summary.enabled", True)  # on again: only what comes after counts
    engine.on_turns("alice", chat.turns(5))
    clock.advance(10 * 60)
    assert len(fired(engine.tick(), "summary")) == 1


def test_each_user_message_restarts_the_summary_timer(engine: TriggerEngine, chat: Chat,
                                                      clock: ManualClock) -> None:
    engine.on_turns("alice", chat.turns(5))
    for _ in range(3):
        clock.advance(4 * 60)
        engine.on_turns("alice", [chat.turn()])
        assert fired(engine.tick(), "summary") == []
    clock.advance(5 * 60)
    assert len(fired(engine.tick(), "summary")) == 1


def test_summary_timer_counts_from_the_last_user_message(engine: TriggerEngine, chat: Chat,
                                                         clock: ManualClock) -> None:
    engine.on_turns("alice", chat.turns(5))
    clock.advance(3 * 60)
    engine.on_turns("alice", [chat.turn(role="assistant")])  # a late reply is not the user
    clock.advance(2 * 60)
    assert len(fired(engine.tick(), "summary")) == 1


def test_summary_is_per_conversation(engine: TriggerEngine, chat: Chat,
                                     clock: ManualClock) -> None:
    engine.on_turns("alice", chat.turns(5, conversation="a"))
    clock.advance(3 * 60)
    engine.on_turns("alice", chat.turns(5, conversation="b"))
    clock.advance(2 * 60)
    decisions = fired(engine.tick(), "summary")
    assert [d.conversation for d in decisions] == ["a"]  # b's chatter does not hold a back
    clock.advance(3 * 60)
    assert [d.conversation for d in fired(engine.tick(), "summary")] == ["b"]


def test_summary_done_resets_by_what_it_covered(engine: TriggerEngine, chat: Chat,
                                                clock: ManualClock) -> None:
    engine.on_turns("alice", chat.turns(5))
    clock.advance(5 * 60)
    engine.tick()
    [job] = engine.queue.list(kind="summary")
    engine.on_turns("alice", chat.turns(2))  # during the summary
    finish(engine, job.id)
    conv = engine.status("alice").data["conversations"][0]
    assert conv["messages_since_summary"] == 2
    engine.on_turns("alice", chat.turns(3))
    clock.advance(5 * 60)
    [decision] = fired(engine.tick(), "summary")
    assert engine.queue.get(decision.job_id).meta == {"messages": 5, "user_messages": 5}  # type: ignore[union-attr]


def test_summary_settings_are_honoured(tmp_path: Path, settings: Settings, clock: ManualClock,
                                       chat: Chat) -> None:
    settings.set("summary.min_messages", 2)
    settings.set("summary.inactivity_minutes", 1)
    engine = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC)
    engine.on_turns("alice", chat.turns(2))
    clock.advance(60)
    assert len(fired(engine.tick(), "summary")) == 1


# ---- Micro-reflection (seed 003)


def test_micro_on_silence(engine: TriggerEngine, chat: Chat, clock: ManualClock) -> None:
    engine.on_turns("alice", [chat.turn(), chat.turn(role="assistant")])
    clock.advance(9 * 60 + 59)
    assert fired(engine.tick(), "micro") == []
    clock.advance(1)
    [decision] = fired(engine.tick(), "micro")
    assert decision.code == "silence"
    [job] = engine.queue.list(kind="micro")
    assert job.conversation == "c1" and job.turn_range == (1, 2)
    clock.advance(60)
    assert fired(engine.tick(), "micro") == []  # pending
    finish(engine, job.id)
    clock.advance(60 * 60)
    assert fired(engine.tick(), "micro") == []  # nothing new since


def test_micro_silence_needs_a_user_message(engine: TriggerEngine, chat: Chat,
                                            clock: ManualClock) -> None:
    engine.on_turns("alice", [chat.turn("A greeting from the bot", role="assistant")])
    clock.advance(60 * 60)
    decisions = engine.tick()
    assert fired(decisions, "micro") == []
    assert [d.code for d in decisions if d.trigger == "micro"] == ["no_user_message"]


def test_worker_thread_completing_jobs_does_not_deadlock(engine: TriggerEngine,
                                                         chat: Chat) -> None:
    turns = chat.turns(200)
    stop = threading.Event()
    completed: list[str] = []

    def worker() -> None:
        while not stop.is_set() or engine.queue.next() is not None:
            job = engine.queue.claim()
            if job is not None:
                engine.queue.mark_done(job.id)
                completed.append(job.id)

    thread = threading.Thread(target=worker)
    thread.start()
    for start in range(0, 200, 5):
        engine.on_turns("alice", turns[start:start + 5])
        engine.tick()
    stop.set()
    thread.join(timeout=20)
    assert not thread.is_alive()
    assert completed
    assert engine.queue.pending() == []
    # Turns that arrived while a batch ran are still counted and drain in later batches.
    for _ in range(30):
        engine.tick()
        while (job := engine.queue.claim()) is not None:
            engine.queue.mark_done(job.id)
    assert engine.status("alice").data["batch"]["turns"] < 10
    assert engine.status("alice").data["batch"]["last_batch_turn"] > 190


def test_micro_on_session_end(engine: TriggerEngine, chat: Chat) -> None:
    engine.on_turns("alice", [chat.turn(), chat.turn(role="assistant")])
    decision = engine.end_session("alice", "c1")
    assert decision.fired and decision.code == "session_end"
    assert engine.queue.get(decision.job_id).kind == "micro"  # type: ignore[union-attr]
    finish(engine, decision.job_id)  # type: ignore[arg-type]
    again = engine.end_session("alice", "c1")
    assert not again.fired and again.code == "nothing_new"
    assert not engine.end_session("alice", "never-seen").fired


def test_micro_on_context_pressure(tmp_path: Path, settings: Settings, clock: ManualClock,
                                   chat: Chat) -> None:
    settings.set("model.n_ctx", 1000)
    settings.set("micro.context_pressure", 0.5)  # 500 tokens
    engine = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC,
                           token_counter=lambda text: len(text.split()))
    assert fired(engine.on_turns("alice", [chat.turn("word " * 300)])) == []
    decisions = engine.on_turns("alice", [chat.turn("word " * 150, role="assistant"),
                                          chat.turn("word " * 60)])
    [decision] = fired(decisions, "micro")
    assert decision.code == "context_pressure"
    assert "510 tokens" in decision.reason
    [job] = engine.queue.list(kind="micro")
    assert job.turn_range == (1, 3)
    finish(engine, job.id)
    status = engine.status("alice").text()
    assert "~0/500 tokens" in status  # the job covered them all
    assert fired(engine.on_turns("alice", [chat.turn("word " * 10)]), "micro") == []


def test_default_token_estimate() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 25) == 25


# ---- Consolidation cycle (seed 001)


def at(day: int, hour: int, minute: int = 0, second: int = 0) -> float:
    return datetime(2026, 2, day, hour, minute, second, tzinfo=UTC).timestamp()


def test_cycle_schedule_fires_once_per_day(tmp_path: Path, settings: Settings,
                                           chat: Chat) -> None:
    settings.set("cycle.schedule", "03:00")
    clock = ManualClock(at(6, 1, 0))
    chat.clock = clock
    engine = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC)
    engine.on_turns("alice", chat.turns(3))
    assert fired(engine.tick(), "cycle") == []  # first tick starts watching the clock
    clock.set(at(6, 2, 59, 59))
    assert fired(engine.tick(), "cycle") == []
    clock.set(at(6, 3, 0, 5))
    [decision] = fired(engine.tick(), "cycle")
    assert decision.code == "schedule"
    assert "03:00 of 2026-02-06" in decision.reason
    job = engine.queue.get(decision.job_id)
    assert job is not None and job.turn_range == (1, 3)
    finish(engine, job.id)
    for hour in (4, 12, 23):
        clock.set(at(6, hour))
        assert fired(engine.tick(), "cycle") == []
    clock.set(at(7, 3, 1))
    assert len(fired(engine.tick(), "cycle")) == 1
    assert engine.status("alice").data["cycle"]["unprocessed_turns"] == 0


def test_cycle_schedule_catches_up_once_after_downtime(tmp_path: Path, settings: Settings,
                                                       chat: Chat) -> None:
    settings.set("cycle.schedule", "03:00")
    clock = ManualClock(at(6, 22))
    chat.clock = clock
    engine = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC)
    engine.on_turns("alice", chat.turns(1))
    engine.tick()
    engine.close()
    clock.set(at(9, 10))  # the app was closed over three 03:00s
    reopened = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC)
    assert len(fired(reopened.tick(), "cycle")) == 1
    assert fired(reopened.tick(), "cycle") == []


def test_cycle_schedule_can_be_disabled_and_validated() -> None:
    assert parse_schedule("") is None
    assert parse_schedule("3:30") is not None
    with pytest.raises(ValueError):
        parse_schedule("25:00")
    with pytest.raises(ValueError):
        parse_schedule("noon")


def test_cycle_on_unprocessed_turns(tmp_path: Path, settings: Settings, clock: ManualClock,
                                    chat: Chat) -> None:
    settings.set("cycle.unprocessed_turns", 15)
    engine = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC)
    assert fired(engine.on_turns("alice", chat.turns(14)), "cycle") == []
    [decision] = fired(engine.on_turns("alice", [chat.turn()]), "cycle")
    assert decision.code == "unprocessed"
    assert engine.queue.get(decision.job_id).turn_range == (1, 15)  # type: ignore[union-attr]


def test_manual_cycle_request(engine: TriggerEngine, chat: Chat, bus: EventBus) -> None:
    events: list[Event] = []
    bus.subscribe(events.append, DECISION_EVENT)
    engine.on_turns("alice", chat.turns(10))  # an automatic batch is queued first
    job = engine.request("cycle", "alice", prompt="Focus on the garden project")
    assert job.kind == "cycle" and job.manual and job.priority == PRIORITY_MANUAL
    assert job.prompt == "Focus on the garden project"
    assert job.turn_range == (1, 10)
    assert engine.queue.next() == job  # manual first
    assert events[-1].data["code"] == "manual" and events[-1].data["job_id"] == job.id
    # The same request again is merged, not queued twice.
    assert engine.request("cycle", "alice", prompt="Focus on the garden project").id == job.id


def test_manual_summary_defaults_to_latest_conversation(engine: TriggerEngine, chat: Chat,
                                                        clock: ManualClock) -> None:
    engine.on_turns("alice", chat.turns(2, conversation="old"))
    clock.advance(30)
    engine.on_turns("alice", chat.turns(2, conversation="new"))
    job = engine.request("summary", "alice")
    assert job.conversation == "new" and job.turn_range == (3, 4)
    with pytest.raises(ValueError):
        engine.request("nap", "alice")


# ---- Status, decisions, persistence


def test_status_text(engine: TriggerEngine, chat: Chat, clock: ManualClock) -> None:
    approved = {"validation": "APPROVE", "quality": 0.9}
    engine.on_turns("alice", [
        chat.turn("Actually I moved to Lyon."),                     # +2.0
        chat.turn("ok", role="assistant", extra=approved),          # +1.5
        chat.turn(),
    ])
    clock.advance(2 * 60 + 10)
    engine.on_turns("alice", [chat.turn(role="assistant"), chat.turn(role="assistant"),
                              chat.turn(role="assistant"), chat.turn(role="assistant")])
    status = engine.status("alice")
    assert status.lines[0] == "batch: 7/10 turns, urgency 3.5/5.0"
    assert "summary [c1]: 2/5 of your messages, inactive 2m of 5m" in status.lines
    assert "micro [c1]: silent 0s of 10m, " in status.text()
    assert "batch: after 3 more turns, or sooner if urgency exceeds 5.0" in status.next
    assert "summary [c1]: after 3 more messages of yours and 5m without a user message" in status.next
    assert status.lines[-1] == "jobs: 0 queued, 0 running"
    assert status.to_dict()["batch"]["urgency"] == pytest.approx(3.5)
    json.dumps(status.to_dict())


def test_status_shows_summary_message_count(engine: TriggerEngine, chat: Chat,
                                            clock: ManualClock) -> None:
    engine.on_turns("alice", chat.turns(3))
    clock.advance(2 * 60)
    assert "summary [c1]: 3/5 of your messages, inactive 2m of 5m" in engine.status("alice").lines


def test_status_shows_next_scheduled_cycle(tmp_path: Path, settings: Settings) -> None:
    settings.set("cycle.schedule", "03:00")
    clock = ManualClock(at(6, 22, 30))
    engine = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC)
    line = next(ln for ln in engine.status("bob").lines if ln.startswith("cycle:"))
    assert line == "cycle: 0/100000 unprocessed turns, next scheduled 2026-02-07 03:00 (in 4h 30m)"


def test_decisions_logged_listed_and_emitted(engine: TriggerEngine, chat: Chat, bus: EventBus,
                                             clock: ManualClock) -> None:
    events: list[Event] = []
    bus.subscribe(events.append, DECISION_EVENT)
    engine.on_turns("alice", chat.turns(5))
    clock.advance(5 * 60)
    engine.tick()
    engine.tick()  # nothing changed: nothing new recorded
    recent = engine.recent_decisions("alice")
    assert [d.to_dict() for d in recent] == [e.data for e in events]
    assert any(not d.fired and d.trigger == "batch" and "5/10 turns" in d.reason for d in recent)
    assert any(d.fired and d.trigger == "summary" for d in recent)
    assert len([d for d in recent if d.trigger == "summary" and d.fired]) == 1
    assert all(d.reason for d in recent)


def test_state_persisted_and_recovered(tmp_path: Path, settings: Settings, clock: ManualClock,
                                       chat: Chat) -> None:
    engine = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC)
    engine.on_turns("alice", chat.turns(4))
    engine.close()
    reopened = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC)
    assert reopened.users() == ["alice"]
    assert reopened.recent_decisions("alice")  # the decision log survives a restart
    reopened.on_turns("alice", [chat.turn()])
    clock.advance(5 * 60)
    assert len(fired(reopened.tick(), "summary")) == 1
    assert reopened.status("alice").data["batch"]["turns"] == 5


def test_corrupt_trigger_state_recovered(tmp_path: Path, settings: Settings, clock: ManualClock,
                                         chat: Chat, caplog: pytest.LogCaptureFixture) -> None:
    engine = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC)
    engine.on_turns("alice", chat.turns(2))
    engine.close()
    path = VaultPaths(tmp_path).user("alice").trigger_state
    path.write_text('{"last_turn": 2, "conv')
    reopened = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC)
    assert reopened.warnings and "trigger_state.json" in reopened.warnings[0]
    assert (path.parent / "trigger_state.json.corrupt-1").exists()
    reopened.on_turns("alice", [chat.turn()])
    assert json.loads(path.read_text())["last_turn"] == 3


def test_wrong_shape_trigger_state_is_kept_aside(tmp_path: Path, settings: Settings,
                                                 clock: ManualClock) -> None:
    path = VaultPaths(tmp_path).user("alice").trigger_state
    path.parent.mkdir(parents=True)
    path.write_text('{"conversations": [1, 2]}')
    engine = TriggerEngine(tmp_path, settings, clock=clock, tz=UTC)
    assert engine.status("alice").data["last_turn"] == 0
    assert engine.warnings and "invalid" in engine.warnings[0]


def test_ticks_that_change_nothing_do_not_write(engine: TriggerEngine, chat: Chat,
                                                tmp_path: Path) -> None:
    engine.on_turns("alice", chat.turns(2))
    path = VaultPaths(tmp_path).user("alice").trigger_state
    before = path.stat().st_mtime_ns
    engine.tick()
    engine.tick()
    assert path.stat().st_mtime_ns == before


def test_shared_queue_is_used(tmp_path: Path, settings: Settings, clock: ManualClock,
                              chat: Chat) -> None:
    queue = JobQueue(tmp_path / "elsewhere.json", clock=clock)
    engine = TriggerEngine(tmp_path, settings, clock=clock, queue=queue, tz=UTC)
    engine.on_turns("alice", chat.turns(10))
    assert [j.kind for j in queue.list()] == ["batch"]


def test_format_duration() -> None:
    assert [format_duration(s) for s in (0, 59, 60, 119, 3600, 3900)] == [
        "0s", "59s", "1m", "1m", "1h", "1h 5m"]


# ---- Session end from what the adapters know (issue 9 item 6)


def test_a_new_conversation_in_the_same_source_ends_the_previous_session(engine: TriggerEngine, chat: Chat) -> None:
    engine.on_turns("alice", chat.turns(3, conversation="morning"))
    decisions = engine.on_turns("alice", [chat.turn(conversation="evening")])
    [decision] = fired(decisions, "micro")
    assert "morning" in str(decision.to_dict())


def test_a_closed_thread_ends_its_session(engine: TriggerEngine, chat: Chat) -> None:
    engine.on_turns("alice", chat.turns(2))
    decisions = engine.on_turns("alice", [chat.turn(extra={"thread_closed": True})])
    assert len(fired(decisions, "micro")) == 1


# ---- Cycle triggers said in the chat and at the end of a long session (seed 001)


@pytest.mark.parametrize("text,asks", [
    ("Could you reflect on your memories tonight?", True),
    ("consolidate", True),
    ("Please consolidate!", True),
    ("Time to consolidate your memory.", True),
    ("We should consolidate our two bank accounts", False),
    ("I reflect on my day every evening", False),
])
def test_phrases_that_ask_for_a_cycle(text: str, asks: bool) -> None:
    assert asks_for_cycle(text) is asks


def test_a_user_turn_asking_queues_one_cycle(engine: TriggerEngine, chat: Chat) -> None:
    engine.on_turns("alice", chat.turns(3))
    [decision] = fired(engine.on_turns("alice", [chat.turn("Please reflect on your memories")]), "cycle")
    assert decision.code == "asked" and "turn 4" in decision.reason
    [job] = [j for j in engine.queue.list() if j.kind == "cycle"]
    assert job.trigger == "asked"
    # The assistant saying it does not count; asking again merges into the pending job.
    assert fired(engine.on_turns("alice", [chat.turn("I will consolidate", role="assistant")]), "cycle") == []
    again = engine.on_turns("alice", [chat.turn("consolidate")])
    assert fired(again, "cycle") == [] and any(d.code == "pending" for d in again)


def test_the_end_of_a_long_session_queues_a_cycle(engine: TriggerEngine, chat: Chat, settings: Settings) -> None:
    settings.set("cycle.session_end_turns", 6)
    engine.on_turns("alice", chat.turns(3, conversation="short"))
    decisions = engine.on_turns("alice", chat.turns(6, conversation="long"))  # "short" ended
    assert fired(decisions, "cycle") == []
    assert any(d.code == "short_session" and "3 messages" in d.reason for d in decisions)
    decisions = engine.on_turns("alice", [chat.turn(conversation="next")])  # "long" ended
    [decision] = fired(decisions, "cycle")
    assert decision.code == "session_end" and "long" in decision.reason


def test_explicit_end_session_of_a_long_conversation(engine: TriggerEngine, chat: Chat, settings: Settings,
                                                     clock: ManualClock, tmp_path: Path) -> None:
    settings.set("cycle.session_end_turns", 4)
    engine.on_turns("alice", chat.turns(5, conversation="c9"))
    engine.end_session("alice", "c9")
    assert [j.trigger for j in engine.queue.list() if j.kind == "cycle"] == ["session_end"]
    # The session that ended is the cycle's SESSION_ID (its git actor, seed 001).
    assert [j.meta.get("session") for j in engine.queue.list() if j.kind == "cycle"] == ["c9"]
