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
import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from curator.clock import Clock, SystemClock
from curator.index.text import STOP_WORDS, WORD_RE, stems
from curator.sources.turns import IndexedTurn
from curator.triggers.keywords import folded, holds_any
from curator.vault.atomic import quarantine, read_json_state, write_json_state
from curator.vault.settings import Settings

log = logging.getLogger(__name__)

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

# A topic is a short phrase, like the seed's "troll farms"; longer turns keep their first words.
_TOPIC_MAX_WORDS = 6

_CORRECTION_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, re.IGNORECASE))
    for label, pattern in (
        ("actually", r"\bactually\b"),
        # "No, ..." / "Nope. ..." at the start of the message or of a sentence.
        ("no,", r"(?:^|[.!?]\s+)(?:no|nope|nah)\b\s*[,.!;:\u2014-]"),
        ("I meant", r"\bI\s+(?:meant|mean\s+to\s+say)\b"),
        (
            "that's wrong",
            r"\bthat(?:'s|\s+is|\s+was)\s+"
            r"(?:wrong|incorrect|not\s+(?:right|true|correct|accurate|what\s+I))",
        ),
        (
            "you're wrong",
            r"\byou(?:'re|\s+are|\s+were|\s+got\s+(?:it|that))\s+(?:wrong|mistaken)\b",
        ),
        ("I was wrong", r"\bI\s+(?:was\s+wrong|misspoke|made\s+a\s+mistake)\b"),
        ("correction", r"\b(?:correction|to\s+correct\s+(?:that|myself|you))\b"),
        ("scratch that", r"\b(?:scratch\s+that|let\s+me\s+rephrase)\b"),
        # "not Paris but Lyon", but not "not only X but also Y".
        (
            "not X but Y",
            r"\bnot\s+(?!only\b|just\b|merely\b|simply\b|because\b)"
            r"[\w'-]+(?:\s+[\w'-]+){0,3}\s*,?\s+but\s+\w",
        ),
    )
)

# Words one of which every correction pattern needs (see ``curator.triggers.keywords``):
# a text without any of them is not searched with the patterns at all.
_CORRECTION_WORDS = ("actually", "mean", "wrong", "mistake", "misspoke", "correct", "scratch", "rephrase")
# "No, ..." needs no/nope/nah right before its punctuation; case-sensitive on folded text.
_NO_HINT = re.compile(r"n(?:o|ope|ah)\s*[,.!;:\u2014-]")

_APPROVE_RE = re.compile(r"\bAPPROVED?\b")
_CONTEXT_APPROVE_RE = re.compile(
    r"\b(?:validation|decision|verdict|result)\b[^\n]{0,20}?\bAPPROVED?\b", re.IGNORECASE
)
_CONTEXT_QUALITY_RE = re.compile(
    r"\bquality(?:[ _]score)?\**\s*[:=]\s*\**\s*([01](?:\.\d+)?)", re.I
)
_CONTEXT_ROUTE_RE = re.compile(r"\broute\b\**\s*[:=]?\s*\**\s*[`\"']?(refresh|clarify)\b", re.I)
_TURN_DIR_RE = re.compile(r"^turn_\d+$")

_VALIDATION_KEYS = ("validation_result", "validation", "validation_decision", "decision", "verdict")
_QUALITY_KEYS = ("quality", "quality_score", "validation_quality")
_ROUTE_KEYS = ("route", "planner_route", "routing")
# ``has_prior_findings`` is what the turn-folder adapter writes (a relative ``turn.file`` cannot
# be checked on disk from here, so the adapter's own look is what counts).
_CONTRADICTION_KEYS = ("prior_findings", "has_prior_findings", "contradiction", "contradiction_detected")
_TURN_DIR_KEYS = ("turn_dir", "turn_folder", "folder")
# Every key name a metadata signal looks for: a flat ``extra`` holding none of them (the
# provenance most adapters write) cannot carry one, and is not searched key by key.
_METADATA_KEYS = frozenset(
    k.lower() for k in (*_VALIDATION_KEYS, *_QUALITY_KEYS, *_ROUTE_KEYS, *_CONTRADICTION_KEYS,
                        *_TURN_DIR_KEYS, "files")
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


# Words of a message are tokenised up to the first white space past this many characters
# at a time: a topic needs only its first few words.
_TOPIC_CHUNK = 128
_SPACE_RE = re.compile(r"\s")


def _leading_words(text: str) -> Iterator[str]:
    """The words of ``text`` in order, exactly as ``WORD_RE.finditer`` finds them, read a
    chunk at a time. A chunk ends at white space, which no word contains or looks past, so
    no word is cut; ``findall`` on a chunk costs far less than a match object per word."""
    start, size = 0, len(text)
    while start < size:
        space = _SPACE_RE.search(text, min(start + _TOPIC_CHUNK, size))
        end = space.start() if space is not None else size
        yield from WORD_RE.findall(text, start, end)
        start = end + 1


def turn_topic(text: str, max_words: int = _TOPIC_MAX_WORDS) -> str:
    """A short topic phrase of a message: its first distinct content words, lower-case."""
    seen: list[str] = []
    # Only the first few words matter: tokenising a whole long message was most of the
    # cost of counting a turn.
    for raw in _leading_words(text):
        word = raw.lower().replace("’", "'")
        if word in STOP_WORDS or len(word) <= 1 or word.isdigit() or word in seen:
            continue
        seen.append(word)
        if len(seen) >= max_words:
            break
    return " ".join(seen)


@lru_cache(maxsize=4096)
def _topic_stems(topic: str) -> frozenset[str]:
    # The recent window holds the same few topics for many turns; stem each once.
    return frozenset(stems(topic.split()))


def same_topic(a: str, b: str, threshold: float) -> bool:
    """True when two topic phrases share at least ``threshold`` of the shorter one's stems."""
    sa, sb = _topic_stems(a), _topic_stems(b)
    if not sa or not sb:
        return False
    return len(sa & sb) / min(len(sa), len(sb)) >= threshold


def _repeats(topic: str, recent_topics: list[str], threshold: float) -> int:
    """How many of ``recent_topics`` are ``same_topic`` as ``topic`` (its stems looked up once)."""
    mine = _topic_stems(topic)
    if not mine:
        return 0
    count = 0
    for other in recent_topics:
        theirs = _topic_stems(other)
        if theirs and len(mine & theirs) / min(len(mine), len(theirs)) >= threshold:
            count += 1
    return count


def _may_correct(text: str) -> bool:
    """False when no correction pattern can match ``text`` (a necessary-word check)."""
    low = folded(text)
    if holds_any(low, _CORRECTION_WORDS):
        return True
    if "not" in low and ("that" in low or "but" in low):  # "that's not right", "not X but Y"
        return True
    return _NO_HINT.search(low) is not None


def find_correction(text: str) -> str | None:
    """The label of the first correction pattern in ``text``, or ``None``."""
    normalised = text.replace("\u2019", "'").replace("\u2018", "'")
    if not _may_correct(normalised):
        return None
    for label, pattern in _CORRECTION_PATTERNS:
        if pattern.search(normalised):
            return label
    return None


@lru_cache(maxsize=64)
def _wanted(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(n.lower() for n in names)


def _find_key(data: Any, names: Iterable[str], depth: int = 3) -> Any:
    """First non-empty value of any of ``names`` in nested mappings (breadth first)."""
    if not data:
        return None  # most turns carry no metadata: asked several times per turn
    wanted = _wanted(names if isinstance(names, tuple) else tuple(names))
    layer: list[Any] = [data]
    for _ in range(depth):
        nested: list[Any] = []
        for item in layer:
            if not isinstance(item, (dict, Mapping)):
                continue
            for key, value in item.items():
                if (key if isinstance(key, str) else str(key)).lower() in wanted \
                        and value not in (None, "", [], {}):
                    return value
                if isinstance(value, (dict, Mapping)):
                    nested.append(value)
        layer = nested
    return None


def _plain(extra: Mapping[Any, Any]) -> bool:
    """True when ``extra`` is flat and names no metadata key: ``_find_key`` finds nothing in it."""
    for key, value in extra.items():
        if (key if isinstance(key, str) else str(key)).lower() in _METADATA_KEYS:
            return False
        if not (value is None or isinstance(value, (str, int, float))) and isinstance(value, Mapping):
            return False
    return True


def _as_float(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _approved(value: Any) -> bool:
    if isinstance(value, Mapping):
        inner = _find_key(value, ("decision", "result", "verdict", "status", "outcome"), depth=1)
        return _approved(inner) if inner is not None else False
    return isinstance(value, str) and bool(_APPROVE_RE.search(value.upper()))


def _high_confidence(turn: IndexedTurn, min_quality: float, plain: bool = False) -> str | None:
    extra = {} if plain else (turn.extra or {})
    validation = _find_key(extra, _VALIDATION_KEYS)
    approved = _approved(validation)
    quality = _as_float(_find_key(extra, _QUALITY_KEYS))
    if quality is None and isinstance(validation, Mapping):
        quality = _as_float(_find_key(validation, _QUALITY_KEYS))
    if not approved and turn.context:
        approved = bool(_CONTEXT_APPROVE_RE.search(turn.context))
    if quality is None and turn.context:
        match = _CONTEXT_QUALITY_RE.search(turn.context)
        quality = _as_float(match.group(1)) if match else None
    if approved and quality is not None and quality >= min_quality:
        return f"validation APPROVE, quality {quality:.2f} >= {min_quality:.2f}"
    return None


def _knowledge_boundary(turn: IndexedTurn, plain: bool = False) -> str | None:
    route = None if plain else _find_key(turn.extra or {}, _ROUTE_KEYS)
    if isinstance(route, Mapping):
        route = _find_key(route, ("name", "route", "action", "type"), depth=1)
    if isinstance(route, str):
        words = set(re.findall(r"[a-z]+", route.lower()))
        for name in ("refresh", "clarify"):
            if name in words:
                return f"planner routed to {name}"
    if turn.context:
        match = _CONTEXT_ROUTE_RE.search(turn.context)
        if match:
            return f"planner routed to {match.group(1).lower()}"
    return None


def _turn_dir(turn: IndexedTurn, plain: bool = False) -> Path | None:
    named = None if plain else _find_key(turn.extra or {}, _TURN_DIR_KEYS, depth=1)
    if isinstance(named, str):
        return Path(named)
    if turn.file and "turn_" in turn.file:  # only a turn folder's files can name one
        path = Path(turn.file)
        for candidate in (path, path.parent):
            if _TURN_DIR_RE.match(candidate.name):
                return candidate
    return None


_UNKNOWN = Path()


def _contradiction(turn: IndexedTurn, folder: Path | None = _UNKNOWN, plain: bool = False) -> str | None:
    if not plain:
        extra = turn.extra or {}
        flagged = _find_key(extra, _CONTRADICTION_KEYS)
        if flagged not in (None, False, 0, "false", "False"):
            return "prior findings present in the turn's metadata"
        files = _find_key(extra, ("files",), depth=1)
        if isinstance(files, list) and any(str(f).endswith("prior_findings.md") for f in files):
            return "prior_findings.md listed in the turn folder"
    if folder is _UNKNOWN:
        folder = _turn_dir(turn, plain)
    if folder is not None and folder.is_absolute():
        try:
            if (folder / "prior_findings.md").is_file():
                return "prior_findings.md in the turn folder"
        except OSError:
            return None
    return None


def detect_signals(
    turn: IndexedTurn, recent_topics: list[str], settings: Settings | None = None, *,
    topic: str | None = None, folder: Path | None = _UNKNOWN,
) -> list[Signal]:
    """The signals a turn carries, given the topics of the recent window (pure, no I/O but a
    possible ``prior_findings.md`` existence check in the turn's folder).

    ``topic`` and ``folder`` are the turn's ``turn_topic`` and ``_turn_dir`` when the caller
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
            repeats = _repeats(topic, recent_topics, tuning.topic_overlap)
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
        plain = _plain(turn.extra or {})
    if not plain or turn.context:
        detail = _high_confidence(turn, tuning.min_quality, plain)
        if detail:
            found.append(Signal(HIGH_CONFIDENCE, weights[HIGH_CONFIDENCE], detail))
        detail = _knowledge_boundary(turn, plain)
        if detail:
            found.append(Signal(KNOWLEDGE_BOUNDARY, weights[KNOWLEDGE_BOUNDARY], detail))
    detail = _contradiction(turn, folder, plain)
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
        state = self._state
        if turn.number <= state.last_batch_turn:
            reason = self._reason(tuning)
            return SignalUpdate(
                turn.number, False, (), state.urgency_score, state.turns_since_last_batch,
                reason is not None, reason,
            )
        plain = _plain(turn.extra or {})
        exchange = _turn_dir(turn, plain)
        topic = turn_topic(turn.text) if turn.role == "user" else ""
        found = _detect(turn, state.recent_topics, tuning, topic, exchange, plain)
        key = str(exchange) if exchange is not None else None
        if key is not None and key == self._last_exchange:
            # Same turn folder as the previous turn: its metadata was already counted.
            found = [s for s in found if s.name not in _METADATA_SIGNALS]
        self._last_exchange = key
        state.turns_since_last_batch += 1
        state.urgency_score = round(state.urgency_score + sum(s.weight for s in found), 6)
        if turn.role == "user" and topic:
            state.recent_topics.append(topic)
            del state.recent_topics[:-tuning.topic_window]
        for signal in found:
            log.info("turn %d of %s: signal %s +%.1f (%s)", turn.number, turn.user_id,
                     signal.name, signal.weight, signal.detail)
        reason = self._reason(tuning)
        return SignalUpdate(
            turn.number,
            True,
            tuple(found),
            state.urgency_score,
            state.turns_since_last_batch,
            reason is not None,
            reason,
        )

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
