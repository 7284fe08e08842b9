"""The per-user signal accumulator of the batch reflector (seed 000 §2), code only, no model.

Every new turn is counted and checked for five signals; each adds its weight (a setting) to
an urgency score. A batch reflection is due when ``turns_since_last_batch`` reaches
``batch.turn_threshold`` (10) OR ``urgency_score`` is strictly greater than
``batch.urgency_threshold`` (5.0). Both reset after a batch completes.

=====================  ======  =====================================================
signal                 weight  detection (code only)
=====================  ======  =====================================================
``topic_repeat``       1.0     a user turn whose topic overlaps ``signals.topic_repeats``-1
                               (2) earlier topics in ``recent_topics`` (3+ in the window)
``correction``         2.0     regex on the user's text: "actually", "no,", "I meant",
                               "that's wrong", "not X but Y", "scratch that", ...
``high_confidence``    1.5     the turn's metadata shows validation APPROVE and quality
                               >= ``signals.high_confidence_quality`` (0.85)
``knowledge_boundary`` 1.0     the planner's route (seed §3) is ``refresh`` or ``clarify``
``contradiction``      2.5     ``prior_findings`` in the metadata, or ``prior_findings.md``
                               in the turn folder (the freshness analyser fired)
=====================  ======  =====================================================

Where metadata is looked for: ``IndexedTurn.extra`` (the turn folder's ``metadata.json`` or
a JSONL line's extra fields), searched a few levels deep for the usual key names
(``validation``/``validation_result``/``decision``, ``quality``, ``route``,
``prior_findings``), then the turn's ``context`` text (the ``context.md`` sections) for
``route: refresh``, ``APPROVE`` and ``quality: 0.9``. A turn folder yields one exchange
but may become several turns (user + assistant) with the same metadata; the three metadata
signals are counted once per turn folder.

Which turns count: every turn the index reports (DESIGN.md §2: a turn is one message), so
``last_batch_turn`` is a per-user turn number and a batch covers a contiguous range.
Correction and topic signals read only ``user`` turns (seed: "regex on query text").

State: ``Users/<u>/Logs/reflector/signal_state.json`` with exactly the seed's fields::

    {"turns_since_last_batch": 7, "urgency_score": 3.5, "last_batch_turn": 230,
     "last_batch_timestamp": 1770400000.0, "recent_topics": ["troll farms", ...]}

``last_batch_turn`` 0 and ``last_batch_timestamp`` 0.0 mean "no batch yet". Written with
``curator.vault.atomic.write_json_state``; a corrupt file is kept aside, the backup copy (else the
defaults) restored, and a warning logged and kept in ``SignalAccumulator.warnings``.
``recent_topics`` is a sliding window, not a counter, so it survives a batch.

Public API::

    acc = SignalAccumulator(user_paths.signal_state, settings, clock=clock)
    update = acc.update(turn)            # or acc.update_many(turns); persists the state
    update.signals, update.should_trigger, update.trigger
    acc.should_trigger() -> bool; acc.trigger_reason() -> "turn_count" | "urgency" | None
    acc.reset_after_batch(last_turn, last_seen_turn=None)   # after a batch completes
    detect_signals(turn, recent_topics, settings) -> list[Signal]   # pure
    turn_topic(text) -> str

Threading contract: an accumulator is guarded by its own lock; any thread may call it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from curator.clock import Clock, SystemClock
from curator.sources.turns import IndexedTurn
from curator.triggers.signal_metadata import (
    UNKNOWN_FOLDER,
    contradiction,
    high_confidence,
    knowledge_boundary,
    plain_metadata,
    turn_dir,
)
from curator.triggers.signal_text import find_correction, same_topic, topic_repeats, turn_topic
from curator.vault.atomic import quarantine, read_json_state, write_json_state
from curator.vault.settings import Settings

log = logging.getLogger(__name__)

# The text detectors lived here; callers still import them from this module.
__all__ = [
    "CONTRADICTION", "CORRECTION", "HIGH_CONFIDENCE", "KNOWLEDGE_BOUNDARY", "SIGNAL_NAMES", "SIGNAL_STATE_FIELDS",
    "TOPIC_REPEAT", "Signal", "SignalAccumulator", "SignalState", "SignalUpdate", "detect_signals",
    "find_correction", "same_topic", "turn_topic",
]

TOPIC_REPEAT = "topic_repeat"
CORRECTION = "correction"
HIGH_CONFIDENCE = "high_confidence"
KNOWLEDGE_BOUNDARY = "knowledge_boundary"
CONTRADICTION = "contradiction"
SIGNAL_NAMES = (TOPIC_REPEAT, CORRECTION, HIGH_CONFIDENCE, KNOWLEDGE_BOUNDARY, CONTRADICTION)
_METADATA_SIGNALS = (HIGH_CONFIDENCE, KNOWLEDGE_BOUNDARY, CONTRADICTION)

SIGNAL_STATE_FIELDS = (
    "turns_since_last_batch",
    "urgency_score",
    "last_batch_turn",
    "last_batch_timestamp",
    "recent_topics",
)


@dataclass(frozen=True)
class Signal:
    """One detected signal: its name, the weight it added and why it fired."""

    name: str
    weight: float
    detail: str


@dataclass
class SignalState:
    """The seed's ``signal_state.json``, field for field."""

    turns_since_last_batch: int = 0
    urgency_score: float = 0.0
    last_batch_turn: int = 0
    last_batch_timestamp: float = 0.0
    recent_topics: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Exactly the five seed fields."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> tuple[SignalState, list[str]]:
        """Build a state from a mapping; bad fields fall back to defaults, with a note each."""
        state = cls()
        problems: list[str] = []
        converters: dict[str, Any] = {
            "turns_since_last_batch": int,
            "urgency_score": float,
            "last_batch_turn": int,
            "last_batch_timestamp": float,
        }
        for name, convert in converters.items():
            if name not in data:
                continue
            try:
                value = convert(data[name] if data[name] is not None else 0)
            except (TypeError, ValueError):
                problems.append(f"{name}={data[name]!r}")
                continue
            if value < 0:
                problems.append(f"{name}={data[name]!r}")
                continue
            setattr(state, name, value)
        topics = data.get("recent_topics", [])
        if isinstance(topics, list):
            state.recent_topics = [str(t) for t in topics if isinstance(t, str) and t.strip()]
        else:
            problems.append(f"recent_topics={topics!r}")
        return state, problems


@dataclass(frozen=True)
class SignalUpdate:
    """What one turn did to the accumulator."""

    turn_number: int
    counted: bool
    signals: tuple[Signal, ...]
    urgency_score: float
    turns_since_last_batch: int
    should_trigger: bool
    trigger: str | None

    @property
    def added(self) -> float:
        """Urgency this turn added."""
        return sum(s.weight for s in self.signals)


@dataclass(frozen=True)
class _Tuning:
    """The settings one turn's counting reads, looked up once per call rather than per turn."""

    weights: dict[str, float]
    topic_overlap: float
    topic_needed: int
    topic_window: int
    min_quality: float
    turn_threshold: int
    urgency_threshold: float

    @classmethod
    def of(cls, settings: Settings) -> _Tuning:
        return cls(
            weights={name: float(settings[f"signals.weight_{name}"]) for name in SIGNAL_NAMES},
            topic_overlap=float(settings["signals.topic_overlap"]),
            topic_needed=int(settings["signals.topic_repeats"]) - 1,
            topic_window=int(settings["signals.topic_window"]),
            min_quality=float(settings["signals.high_confidence_quality"]),
            turn_threshold=int(settings["batch.turn_threshold"]),
            urgency_threshold=float(settings["batch.urgency_threshold"]),
        )


def detect_signals(
    turn: IndexedTurn, recent_topics: list[str], settings: Settings | None = None, *,
    topic: str | None = None, folder: Path | None = UNKNOWN_FOLDER,
) -> list[Signal]:
    """The signals a turn carries, given the topics of the recent window (pure, no I/O but a
    possible ``prior_findings.md`` existence check in the turn's folder).

    ``topic`` and ``folder`` are the turn's ``turn_topic`` and ``turn_dir`` when the caller
    has them already.
    """
    return _detect(turn, recent_topics, _Tuning.of(settings or Settings()), topic, folder)


def _detect(
    turn: IndexedTurn, recent_topics: list[str], tuning: _Tuning, topic: str | None,
    folder: Path | None, plain: bool | None = None,
) -> list[Signal]:
    weights = tuning.weights
    found: list[Signal] = []
    if turn.role == "user":
        if topic is None:
            topic = turn_topic(turn.text)
        if topic:
            repeats = topic_repeats(topic, recent_topics, tuning.topic_overlap)
            if repeats >= tuning.topic_needed:
                found.append(
                    Signal(
                        TOPIC_REPEAT,
                        weights[TOPIC_REPEAT],
                        f"topic {topic!r} seen {repeats + 1} times in the recent window",
                    )
                )
        label = find_correction(turn.text)
        if label:
            found.append(Signal(CORRECTION, weights[CORRECTION], f"user correction ({label!r})"))
    if plain is None:
        plain = plain_metadata(turn.extra or {})
    if not plain or turn.context:
        detail = high_confidence(turn, tuning.min_quality, plain)
        if detail:
            found.append(Signal(HIGH_CONFIDENCE, weights[HIGH_CONFIDENCE], detail))
        detail = knowledge_boundary(turn, plain)
        if detail:
            found.append(Signal(KNOWLEDGE_BOUNDARY, weights[KNOWLEDGE_BOUNDARY], detail))
    detail = contradiction(turn, folder, plain)
    if detail:
        found.append(Signal(CONTRADICTION, weights[CONTRADICTION], detail))
    return found


class SignalAccumulator:
    """One user's signal accumulator, persisted in ``signal_state.json``."""

    def __init__(
        self, path: Path, settings: Settings | None = None, *, clock: Clock | None = None
    ) -> None:
        """Load (or start) the state at ``path``.

        Args:
            path: ``UserPaths.signal_state``.
            settings: Thresholds and weights (defaults when ``None``).
            clock: Time source for ``last_batch_timestamp``.
        """
        self.path = Path(path)
        self.settings = settings or Settings()
        self.clock: Clock = clock or SystemClock()
        self.warnings: list[str] = []
        self._lock = threading.RLock()
        # The last turn folder whose metadata signals were counted; not persisted because
        # the seed's state has exactly five fields (a restart may count one folder twice).
        self._last_exchange: str | None = None
        # Settings read once for a run of updates (``held_settings``); None: read per call.
        self._held: _Tuning | None = None
        self._state = self._load()

    # ---- Public API

    @property
    def state(self) -> SignalState:
        """A copy of the current state."""
        with self._lock:
            data = self._state.to_dict()
            data["recent_topics"] = list(self._state.recent_topics)
            return SignalState(**data)

    def update(self, turn: IndexedTurn, *, save: bool = True) -> SignalUpdate:
        """Count one new turn, detect its signals, and (by default) persist the state.

        Turns at or below ``last_batch_turn`` were already reviewed and are not counted.
        """
        with self._lock:
            update = self._update(turn, self._tuning())
            if save and update.counted:
                self.save()
            return update

    def count(self, turn: IndexedTurn) -> None:
        """``update(turn, save=False)`` for a caller that does not read the update: the
        trigger engine counts every turn of an import and saves once at the end.

        Once the turn count alone makes a batch due, a turn's signals can change no decision:
        the count is the reason that wins, and the batch that resets the counters sets the
        urgency to zero (``reset_after_batch``). From then on only what outlives the reset is
        kept, the count and the window of recent topics; detecting the signals of every turn
        of a first import was most of what counting cost.
        """
        with self._lock:
            tuning = self._tuning()
            state = self._state
            if state.turns_since_last_batch < tuning.turn_threshold or turn.number <= state.last_batch_turn:
                self._count(turn, tuning)
                return
            state.turns_since_last_batch += 1
            self._last_exchange = None
            if turn.role == "user":
                self._remember_topic(turn_topic(turn.text), tuning)

    def update_many(self, turns: Iterable[IndexedTurn]) -> list[SignalUpdate]:
        """``update`` for several turns, persisting once at the end."""
        with self._lock:
            tuning = self._tuning()
            updates = [self._update(t, tuning) for t in sorted(turns, key=lambda t: t.number)]
            if any(u.counted for u in updates):
                self.save()
            return updates

    def counters(self) -> tuple[int, float, int]:
        """(turns since the last batch, urgency, last batch turn) without copying the state."""
        with self._lock:
            state = self._state
            return state.turns_since_last_batch, state.urgency_score, state.last_batch_turn

    def should_trigger(self) -> bool:
        """True when a batch is due: turns >= threshold OR urgency strictly > threshold."""
        return self.trigger_reason() is not None

    def trigger_reason(self) -> str | None:
        """``"turn_count"``, ``"urgency"`` or ``None`` (turn count wins when both hold)."""
        with self._lock:
            return self._reason(self._tuning())

    @contextmanager
    def held_settings(self) -> Iterator[None]:
        """Read the thresholds and weights once for the updates made inside the block.

        The trigger engine counts thousands of turns in one call; looking up a dozen
        settings for each was a measurable part of an import. Changed settings apply from
        the next block.
        """
        with self._lock:
            outer = self._held
            self._held = outer or _Tuning.of(self.settings)
        try:
            yield
        finally:
            with self._lock:
                self._held = outer

    def reset_after_batch(self, last_turn: int, last_seen_turn: int | None = None) -> None:
        """Zero the counters after a batch that reviewed turns up to ``last_turn``.

        Args:
            last_turn: The last turn number the batch covered (becomes ``last_batch_turn``).
            last_seen_turn: The newest turn number counted so far. Turns that arrived while
                the batch ran (``last_turn < n <= last_seen_turn``) stay counted so they
                get their own batch; their urgency is not kept (the seed zeroes it).
        """
        with self._lock:
            last_turn = max(int(last_turn), self._state.last_batch_turn)
            leftover = max(0, (last_seen_turn or last_turn) - last_turn)
            self._state.turns_since_last_batch = leftover
            self._state.urgency_score = 0.0
            self._state.last_batch_turn = last_turn
            self._state.last_batch_timestamp = float(self.clock.now())
            self.save()
            log.info("signals of %s reset after batch up to turn %d", self.path.parent, last_turn)

    def save(self) -> None:
        """Persist the state atomically."""
        with self._lock:
            write_json_state(self.path, self._state.to_dict())

    # ---- Internals

    def _tuning(self) -> _Tuning:
        return self._held or _Tuning.of(self.settings)

    def _reason(self, tuning: _Tuning) -> str | None:
        if self._state.turns_since_last_batch >= tuning.turn_threshold:
            return "turn_count"
        if self._state.urgency_score > tuning.urgency_threshold:
            return "urgency"
        return None

    def _update(self, turn: IndexedTurn, tuning: _Tuning) -> SignalUpdate:
        found = self._count(turn, tuning)
        state = self._state
        reason = self._reason(tuning)
        return SignalUpdate(
            turn.number,
            found is not None,
            tuple(found or ()),
            state.urgency_score,
            state.turns_since_last_batch,
            reason is not None,
            reason,
        )

    def _count(self, turn: IndexedTurn, tuning: _Tuning) -> list[Signal] | None:
        """Count one turn into the state; its signals, or None when it was not counted."""
        state = self._state
        if turn.number <= state.last_batch_turn:
            return None
        plain = plain_metadata(turn.extra or {})
        exchange = turn_dir(turn, plain)
        topic = turn_topic(turn.text) if turn.role == "user" else ""
        found = _detect(turn, state.recent_topics, tuning, topic, exchange, plain)
        key = str(exchange) if exchange is not None else None
        if key is not None and key == self._last_exchange:
            # Same turn folder as the previous turn: its metadata was already counted.
            found = [s for s in found if s.name not in _METADATA_SIGNALS]
        self._last_exchange = key
        state.turns_since_last_batch += 1
        state.urgency_score = round(state.urgency_score + sum(s.weight for s in found), 6)
        if turn.role == "user":
            self._remember_topic(topic, tuning)
        for signal in found:
            log.info("turn %d of %s: signal %s +%.1f (%s)", turn.number, turn.user_id,
                     signal.name, signal.weight, signal.detail)
        return found

    def _remember_topic(self, topic: str, tuning: _Tuning) -> None:
        """Keep a user turn's topic in the window of recent ones (an empty topic is none)."""
        if topic:
            self._state.recent_topics.append(topic)
            del self._state.recent_topics[:-tuning.topic_window]

    def _load(self) -> SignalState:
        data, warning = read_json_state(self.path, {})
        if warning:
            self.warnings.append(warning)
        if not isinstance(data, Mapping):
            message = (
                f"signal state {self.path} is not a JSON object; kept aside, defaults restored"
            )
            if self.path.exists():
                message = f"{message} (see {quarantine(self.path).name})"
            log.warning(message)
            self.warnings.append(message)
            return SignalState()
        state, problems = SignalState.from_dict(data)
        if problems:
            message = (
                f"signal state {self.path}: invalid {', '.join(problems)}; "
                "defaults used for those"
            )
            log.warning(message)
            self.warnings.append(message)
        return state
