"""From source files to indexed turns: read through adapters, dedup, number, record changes.

Re-reading never duplicates: a message is identified by (source, file, conversation,
message key or position) plus the sha256 of its text. A message whose text changed is
recorded as an edit (the old row is kept, marked ``edited``, and the new text gets a new
number that names the one it supersedes); a message gone from its file is marked
``removed``. Nothing derived from a turn is ever deleted here.

Every change is first appended to the turn ledger (the vault's durable record), then
applied to the index in one transaction, so a crash at any point is repaired by replaying
the ledger on the next start (``Ingestor.replay_ledgers``).

Threading contract: ``ingest_unit``/``scan_source`` may be called from any thread; they
are serialised by one lock. Listeners and ``on_turns`` run on the calling thread.
"""

from __future__ import annotations

import difflib
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import Any

from curator.clock import Clock, SystemClock
from curator.events import EventBus
from curator.faults import fault_point
from curator.index.database import Index
from curator.sources.adapters import Adapter, ReadState, get_adapter
from curator.sources.adapters.base import ReadResult, relative_name
from curator.sources.ledger import TurnLedger
from curator.sources.turns import IndexedTurn, Turn
from curator.sources.validation import checked_turns, record_problem, unique_keys
from curator.vault.settings import SourceConfig

log = logging.getLogger(__name__)

OnTurns = Callable[[str, list[IndexedTurn]], None]
# Inside a batch, units are written together once this many wait (or this many records).
FLUSH_UNITS = 500
FLUSH_RECORDS = 20_000


@dataclass
class IngestReport:
    """What one ingest (of a unit, a source or everything) changed."""

    added: list[IndexedTurn] = field(default_factory=list)
    edited: list[tuple[str, int, int]] = field(default_factory=list)  # (user, old number, new number)
    removed: list[tuple[str, int]] = field(default_factory=list)
    restored: list[tuple[str, int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    units_read: int = 0
    units_unchanged: int = 0
    units_waiting: int = 0

    def merge(self, other: IngestReport) -> IngestReport:
        self.added += other.added
        self.edited += other.edited
        self.removed += other.removed
        self.restored += other.restored
        self.problems += other.problems
        self.units_read += other.units_read
        self.units_unchanged += other.units_unchanged
        self.units_waiting += other.units_waiting
        return self

    def summary(self) -> dict[str, Any]:
        return {
            "added": len(self.added),
            "edited": len(self.edited),
            "removed": len(self.removed),
            "restored": len(self.restored),
            "problems": list(self.problems),
            "units_read": self.units_read,
            "units_unchanged": self.units_unchanged,
            "units_waiting": self.units_waiting,
        }


@dataclass(frozen=True)
class Availability:
    """Whether a source can be read now, and why not."""

    available: bool
    reason: str = ""


def source_root(source: SourceConfig) -> Path:
    """The absolute folder (or file) a source reads."""
    return Path(source.path).expanduser()


# The fields of a ledger ``add`` record's turn, looked up once (``dataclasses.fields`` per
# turn was a visible part of an import).
_TURN_FIELDS = tuple(f.name for f in dataclass_fields(IndexedTurn))


class _Plan:
    """Ledger records for one unit, numbered and sequenced as they are made."""

    def __init__(self, user_id: str, next_number: int, next_seq: int, now: float) -> None:
        self.user_id = user_id
        self.next_number = next_number
        self.next_seq = next_seq
        self.now = now
        self.records: list[dict[str, Any]] = []
        self.added: list[IndexedTurn] = []
        self.edited: list[tuple[str, int, int]] = []
        self.removed: list[tuple[str, int]] = []
        self.restored: list[tuple[str, int]] = []

    def _record(self, op: str, **fields: Any) -> None:
        self.records.append({"seq": self.next_seq, "op": op, "at": self.now, **fields})
        self.next_seq += 1

    def add(self, turn: Turn, supersedes: int | None = None) -> int:
        number = self.next_number
        self.next_number += 1
        indexed = IndexedTurn(
            number=number,
            user_id=self.user_id,
            source_id=turn.source_id,
            file=turn.file,
            conversation=turn.conversation,
            key=turn.key,
            position=turn.position,
            role=turn.role,
            speaker=turn.speaker,
            text=turn.text,
            timestamp=turn.timestamp,
            sha256=turn.sha256,
            context=turn.context,
            extra=dict(turn.extra),
        )
        # A shallow field copy: dataclasses.asdict deep-copies every value and was a tenth of
        # an import's time; the ledger serialises the record right away anyway.
        record = {name: getattr(indexed, name) for name in _TURN_FIELDS}
        record["extra"] = dict(indexed.extra)
        self._record("add", turn=record, supersedes=supersedes)
        if supersedes is None:
            self.added.append(indexed)
        else:
            self.edited.append((self.user_id, supersedes, number))
        return number

    def status(self, number: int, status: str, reason: str) -> None:
        self._record("status", number=number, status=status, reason=reason)
        if status == "removed":
            self.removed.append((self.user_id, number))
        elif status == "active":
            self.restored.append((self.user_id, number))

    def move(self, number: int, key: str, position: int) -> None:
        self._record("move", number=number, key=key, position=position)


class Ingestor:
    """Reads source units into the index through their adapters.

    Args:
        index: the vault's index.
        ledger: the vault's turn ledger.
        bus: where ``turns.added`` / ``turns.edited`` / ``turns.removed`` / ``source.problem``
            events go.
        clock: time of ingestion.
        exclude: folders never read as sources (the vault itself).
        on_turns: called with (user id, new turns) after every ingest that added turns;
            the hook a trigger engine attaches to. Edits and removals are not passed here
            (they arrive as events), so they never count as new conversation.
    """

    def __init__(
        self,
        index: Index,
        ledger: TurnLedger,
        bus: EventBus | None = None,
        clock: Clock | None = None,
        exclude: tuple[Path, ...] = (),
        on_turns: OnTurns | None = None,
    ) -> None:
        self.index = index
        self.ledger = ledger
        self.bus = bus or EventBus()
        self.clock = clock or SystemClock()
        self.exclude = tuple(Path(p).resolve() for p in exclude)
        self.on_turns = on_turns
        self._lock = threading.RLock()
        self.ledger_warnings: list[str] = []
        self._batch_depth = 0
        # Roots of every configured source (the engine sets it): a link from one source into
        # another is read, a link to anywhere else is not.
        self.source_roots: Callable[[], list[Path]] = list
        self._batched: dict[str, list[IndexedTurn]] = {}
        # Inside a batch, units' records wait here and go to the ledger (one fsync) and the
        # index (one transaction) together; ``_next`` numbers the units planned meanwhile.
        self._pending: list[tuple[SourceConfig, _Plan, list[tuple[str, str, ReadState | None, str]]]] = []
        self._next: dict[str, tuple[int, int]] = {}

    # ---- Recovery

    def replay_ledgers(self, level: int = logging.WARNING) -> int:
        """Apply ledger records the index has not seen; returns how many.

        Args:
            level: log level of the note (a live index behind its ledger means a crash was
                repaired: a warning; a rebuild replays everything by design: info).
        """
        applied = 0
        with self._lock:
            for user_id in self.ledger.users():
                applied += self.replay_user(user_id, level)
        return applied

    def replay_user(self, user_id: str, level: int = logging.WARNING) -> int:
        """Replay one user's ledger records the index has not seen; returns how many were applied.

        A record the index refuses (written before records were checked, or damaged on disk)
        is set aside into ``turns.rejected.jsonl`` and the ledger is kept without it, so it
        never blocks a start again; ``ledger_warnings`` says so.
        """
        with self._lock:
            done = self.index.ledger_seq(user_id)
            if self.ledger.last_seq(user_id) <= done:
                return 0  # the usual case: nothing to replay, and no need to read it all
            pending = list(self.ledger.read(user_id, done))
            if not pending:
                return 0
            log.log(level, "index is behind the turn ledger of %s by %d records; replaying", user_id, len(pending))
            refused = self.index.apply_records(user_id, pending)
            if refused:
                aside = self.ledger.set_aside(user_id, refused)
                message = (
                    f"{len(refused)} turn-ledger records of {user_id} could not be indexed "
                    f"({refused[0][1]}); set aside in {aside.name}, everything else kept"
                )
                log.warning(message)
                self.ledger_warnings.append(message)
            return len(pending) - len(refused)

    # ---- Sources

    def is_excluded(self, path: Path) -> bool:
        """True for paths inside the vault (never read as a source)."""
        try:
            resolved = Path(path).resolve()
        except OSError:
            return False
        return any(resolved == ex or resolved.is_relative_to(ex) for ex in self.exclude)

    def availability(self, source: SourceConfig, *, thorough: bool = False) -> Availability:
        """Whether a source's folder is there to read.

        Args:
            source: the source.
            thorough: also list its units: an existing folder that holds none of them while
                turns were read from it before (an empty mount point) is unavailable too.
        """
        root = source_root(source)
        if not root.exists():
            return Availability(False, f"{root} does not exist (unplugged, unmounted or renamed?)")
        if root.is_dir():
            try:
                next(root.iterdir(), None)
            except OSError as exc:
                return Availability(False, f"{root} cannot be listed ({exc.strerror or exc})")
        if thorough and not self.list_units(source):
            known = self.index.source_files(source.id)
            if known:
                return Availability(
                    False,
                    f"{root} holds no {source.adapter} files but {len(known)} were read from it "
                    "before; treated as unavailable, not as deleted",
                )
        return Availability(True)

    def list_units(self, source: SourceConfig) -> list[Path]:
        """The source's units now, without any inside the vault or reached through a link out of it."""
        adapter = get_adapter(source.adapter)
        roots = self._resolved_roots(source)
        out = []
        for unit in adapter.list_units(source_root(source)):
            # One resolve per unit (links followed) for both checks: a folder of 20,000
            # files was resolving each of them six times.
            try:
                real = Path(unit).resolve()
            except OSError:
                continue
            if any(real == ex or real.is_relative_to(ex) for ex in self.exclude):
                continue
            if any(real == base or real.is_relative_to(base) for base in roots):
                out.append(unit)
            else:
                log.info("source %s: %s leads outside the source (to %s); not read", source.id, unit, real)
        return out

    def _resolved_roots(self, source: SourceConfig) -> list[Path]:
        roots = []
        for root in [source_root(source), *self.source_roots()]:
            try:
                roots.append(root.resolve())
            except OSError:
                continue
        return roots

    def within_sources(self, source: SourceConfig, unit: Path) -> bool:
        """Whether ``unit`` (links resolved) lies in its source, or in another configured source.

        A link inside a chat folder that points elsewhere (``~/.ssh``, another app's data)
        is not followed: only what the person added as a source is read.
        """
        try:
            real = Path(unit).resolve()
        except OSError:
            return False
        roots = [source_root(source), *self.source_roots()]
        for root in roots:
            try:
                base = root.resolve()
            except OSError:
                continue
            if real == base or real.is_relative_to(base):
                return True
        log.info("source %s: %s leads outside the source (to %s); not read", source.id, unit, real)
        return False

    def scan_source(self, source: SourceConfig, *, read: bool = True) -> tuple[IngestReport, list[Path], Availability]:
        """Compare a source with the index: removed units are marked, changed units found.

        Args:
            source: the source to scan.
            read: read the changed units now (False: only return them, e.g. for the watcher
                to read once they are stable).

        Returns:
            (report, changed units, availability). An unavailable source changes nothing.
        """
        report = IngestReport()
        with self._lock:
            available = self.availability(source, thorough=True)
            if not available.available:
                return report, [], available
            adapter = get_adapter(source.adapter)
            root = source_root(source)
            units = self.list_units(source)
            known = set(self.index.source_files(source.id))
            present = {relative_name(root, u) for u in units}
            for missing in sorted(known - present):
                report.merge(self._mark_unit_missing(source, root, missing))
            for stale in set(self.index.read_units(source.id)) - present - known:
                self.index.apply_records(source.user_id, [], [(source.id, stale, None, "")])
            changed = []
            for unit in units:
                state = self.index.read_state(source.id, relative_name(root, unit))
                if state is None or state.fingerprint != adapter.fingerprint(unit):
                    changed.append(unit)
                else:
                    report.units_unchanged += 1
        if read:
            total = len(changed)
            with self.batch():
                for done, unit in enumerate(changed, start=1):
                    report.merge(self.ingest_unit(source, unit))
                    # What a person watching a large import waits for: files and turns so far.
                    self.bus.emit("source.progress", source_id=source.id, user_id=source.user_id,
                                  files_done=done, files_total=total, turns_added=len(report.added))
        return report, changed, available

    def _mark_unit_missing(self, source: SourceConfig, root: Path, rel: str) -> IngestReport:
        # Confirm with the file system; an event alone never removes anything.
        if (root / rel).exists() or (root.is_file() and root.name == rel and root.exists()):
            return IngestReport()
        plan = self._new_plan(source.user_id)
        for turn in self.index.file_turns(source.id, rel):
            plan.status(turn.number, "removed", f"{rel} is no longer in the source")
        log.info("source %s: %s is gone; %d turns marked removed (kept)", source.id, rel, len(plan.removed))
        return self._commit(source, plan, [(source.id, rel, None, "")], [])

    # ---- Units

    def ingest_unit(self, source: SourceConfig, unit: Path, *, force: bool = False) -> IngestReport:
        """Read one unit of a source and record what changed.

        Args:
            source: the source the unit belongs to.
            unit: a file or turn folder inside the source.
            force: read it even when its fingerprint says it is unchanged.

        Returns:
            What was added, edited, removed; problems found (the unit's bad parts are skipped).
        """
        adapter = get_adapter(source.adapter)
        root = source_root(source)
        rel = relative_name(root, unit)
        report = IngestReport()
        if self.is_excluded(unit):
            log.debug("%s is inside the vault; never read as a source", unit)
            return report
        if not self.within_sources(source, unit):
            return report
        with self._lock:
            if not unit.exists():
                return report  # a deletion is confirmed by the next scan, never by an event
            if any(s[0] == source.id and s[1] == rel for _, _, states in self._pending for s in states):
                self._flush()  # read it against what was already read of it, not the index of before
            state = self.index.read_state(source.id, rel)
            fingerprint = adapter.fingerprint(unit)
            if not force and state is not None and state.fingerprint == fingerprint:
                report.units_unchanged += 1
                return report
            if not adapter.is_complete(unit):
                report.units_waiting += 1
                return report
            try:
                result = adapter.read(root, unit, source.id, None if force else state)
            except OSError as exc:
                report.problems.append(f"{source.id}/{rel}: cannot be read ({exc.strerror or exc}); will retry")
                log.warning(report.problems[-1])
                return report
            except Exception as exc:  # an adapter bug must not stop the other units
                log.exception("adapter %s failed on %s", adapter.name, unit)
                report.problems.append(f"{source.id}/{rel}: adapter error ({type(exc).__name__}: {exc}); skipped")
                return report
            if result.ready:
                result.turns, checks = self._validated(source, rel, result)
                result.problems += checks
            for problem in result.problems:
                log.warning("source %s: %s", source.id, problem)
                self.bus.emit("source.problem", source_id=source.id, unit=rel, message=problem)
            report.problems += [f"{source.id}: {p}" for p in result.problems]
            # Skipped lines and time-unknown turns are counted in the unit's health too.
            problem_text = "; ".join(result.problems + result.notes())[:1000]
            if not result.ready:
                if result.problems:
                    # Skipped until its bytes change; remembering the fingerprint stops retries.
                    skipped = ReadState(fingerprint=fingerprint)
                    self.index.apply_records(source.user_id, [], [(source.id, rel, skipped, problem_text)])
                else:
                    report.units_waiting += 1
                return report
            plan = self._new_plan(source.user_id)
            if result.full:
                old = self.index.file_turns(source.id, rel)
                # A unit never read before has no earlier version of any message to restore.
                fresh = not old and not self.index.file_known(source.id, rel)
                self._reconcile(plan, old, result.turns, fresh=fresh)
            else:
                self._append(plan, result.turns)
            report.units_read += 1
            return report.merge(self._commit(source, plan, [(source.id, rel, result.state, problem_text)], result))

    def _validated(self, source: SourceConfig, rel: str, result: ReadResult) -> tuple[list[Turn], list[str]]:
        # The one gate between adapters and the ledger: what fails here is skipped with its
        # reason and the rest of the unit goes on; a repeated id becomes a message of its own.
        turns, problems = checked_turns(result.turns)
        taken: dict[tuple[str, str], int] = {}
        if not result.full:
            # A tail read can meet lines already indexed (a crash between the ledger and the
            # read-state update): the same line, position and text is that message, not a new one.
            turns = [
                t
                for t in turns
                if not self.index.has_line(
                    t.source_id, t.file, t.conversation, t.position, t.sha256
                )
            ]
            for slot in {(t.conversation, t.key) for t in turns if not t.key.startswith("pos:")}:
                count = self.index.key_uses(source.id, rel, slot[0], slot[1])
                if count:
                    taken[slot] = count
        turns, renamed = unique_keys(turns, taken)
        if renamed:
            problems.append(
                f"{rel}: {renamed} messages reuse an id already used in this file; each is kept as a message of its own"
            )
        return turns, problems

    def _new_plan(self, user_id: str) -> _Plan:
        if user_id in self._next:
            number, seq = self._next[user_id]
        else:
            number, seq = self.index.max_number(user_id) + 1, self.index.ledger_seq(user_id) + 1
        return _Plan(user_id, next_number=number, next_seq=seq, now=self.clock.now())

    def _commit(
        self,
        source: SourceConfig,
        plan: _Plan,
        read_states: list[tuple[str, str, ReadState | None, str]],
        result: ReadResult | list[Any],
    ) -> IngestReport:
        bad = [(r, p) for r in plan.records if (p := record_problem(r)) is not None]
        if bad:
            # Turns were checked before planning; a record failing here is a bug, and it must
            # not reach the append-only ledger, where it would be replayed at every start.
            raise ValueError(f"refusing to record an invalid ledger record ({bad[0][1]})")
        report = IngestReport(
            added=list(plan.added), edited=list(plan.edited), removed=list(plan.removed), restored=list(plan.restored)
        )
        self._pending.append((source, plan, read_states))
        self._next[plan.user_id] = (plan.next_number, plan.next_seq)
        if not self._batch_depth or len(self._pending) >= FLUSH_UNITS \
                or sum(len(p.records) for _, p, _ in self._pending) >= FLUSH_RECORDS:
            self._flush()
        return report

    def _flush(self) -> None:
        """Write the waiting units: the ledger first (one fsync per user), then the index
        in one transaction per user; a crash between the two is repaired by the replay."""
        with self._lock:
            pending, self._pending = self._pending, []
            self._next = {}
            users: dict[str, list[tuple[SourceConfig, _Plan, list[tuple[str, str, ReadState | None, str]]]]] = {}
            for entry in pending:
                users.setdefault(entry[1].user_id, []).append(entry)
            for user_id, entries in users.items():
                records = [r for _, plan, _ in entries for r in plan.records]
                self.ledger.append(user_id, records)
                fault_point("ingest.after_ledger")
                states = [s for _, _, unit_states in entries for s in unit_states]
                refused = self.index.apply_records(user_id, records, states, checked=True)
                if refused:
                    aside = self.ledger.set_aside(user_id, refused)
                    log.warning("%d records the index refused were set aside in %s", len(refused), aside)
                for source, plan, _ in entries:
                    self._announce(source, plan)

    def _announce(self, source: SourceConfig, plan: _Plan) -> None:
        """Events and the ``on_turns`` hook for one unit's committed changes."""
        if plan.added:
            log.info(
                "source %s: %d new turns (%d..%d)",
                source.id,
                len(plan.added),
                plan.added[0].number,
                plan.added[-1].number,
            )
            self.bus.emit("turns.added", user_id=plan.user_id, source_id=source.id, turns=list(plan.added))
        if plan.edited:
            log.info("source %s: %d messages edited in the source; old text kept", source.id, len(plan.edited))
            self.bus.emit("turns.edited", user_id=plan.user_id, source_id=source.id, changes=list(plan.edited))
        if plan.removed:
            self.bus.emit(
                "turns.removed", user_id=plan.user_id, source_id=source.id, numbers=[n for _, n in plan.removed]
            )
        if plan.added and self.on_turns is not None:
            if self._batch_depth:
                self._batched.setdefault(plan.user_id, []).extend(plan.added)
            else:
                self._call_on_turns(plan.user_id, list(plan.added))

    def _call_on_turns(self, user_id: str, turns: list[IndexedTurn]) -> None:
        if self.on_turns is None:
            return
        try:
            self.on_turns(user_id, turns)
        except Exception:
            log.exception("on_turns hook failed; the turns are indexed regardless")

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Hand the turns of many units to ``on_turns`` once, at the end (per user).

        A scan of 20,000 one-message files is one batch of changes: the triggers count its
        turns one by one, but evaluate and write their state once, not once per file.
        """
        with self._lock:
            self._batch_depth += 1
        try:
            yield
        finally:
            with self._lock:
                if self._batch_depth == 1:
                    self._flush()
                self._batch_depth -= 1
                pending = self._batched if self._batch_depth == 0 else {}
                if self._batch_depth == 0:
                    self._batched = {}
            for user_id, turns in pending.items():
                self._call_on_turns(user_id, turns)

    # ---- Deciding what changed

    def _restore_or_add(self, plan: _Plan, turn: Turn, supersedes: int | None = None, *, fresh: bool = False) -> None:
        if fresh:
            plan.add(turn, supersedes)
            return
        previous = self.index.find_identity(turn.source_id, turn.file, turn.conversation, turn.key, turn.sha256)
        if previous is not None and previous.status != "active":
            plan.status(previous.number, "active", "the same message is back in the source")
            if previous.position != turn.position:
                plan.move(previous.number, turn.key, turn.position)
            return
        plan.add(turn, supersedes)

    def _append(self, plan: _Plan, turns: list[Turn]) -> None:
        # New lines of an append-only file. A line that repeats a known message id with new
        # text is an edit (clients that log updates as new lines); an identical one is a dup.
        current: dict[tuple[str, str], tuple[int, str]] = {}
        for turn in turns:
            slot = (turn.conversation, turn.key)
            if slot not in current:
                held = self.index.find_key(turn.source_id, turn.file, turn.conversation, turn.key)
                if held is not None:
                    current[slot] = (held.number, held.sha256)
            if slot in current:
                number, sha = current[slot]
                if sha == turn.sha256:
                    continue
                plan.status(number, "edited", "a newer version of this message was written")
                new_number = plan.add(turn, supersedes=number)
                current[slot] = (new_number, turn.sha256)
                continue
            before = plan.next_number
            self._restore_or_add(plan, turn)
            if plan.next_number > before:
                current[slot] = (before, turn.sha256)

    def _reconcile(self, plan: _Plan, old: list[IndexedTurn], new: list[Turn], *, fresh: bool = False) -> None:
        # Compare a whole unit with what the index holds for it (``fresh``: nothing, ever).
        last_by_key: dict[tuple[str, str], Turn] = {}
        for turn in new:
            if not turn.key.startswith("pos:"):
                last_by_key[(turn.conversation, turn.key)] = turn  # the last version wins
        old_keyed = {(t.conversation, t.key): t for t in old if not t.key.startswith("pos:")}
        for slot, turn in last_by_key.items():
            before = old_keyed.get(slot)
            if before is None:
                self._restore_or_add(plan, turn, fresh=fresh)
            elif before.sha256 == turn.sha256:
                if before.position != turn.position:
                    plan.move(before.number, turn.key, turn.position)
            else:
                plan.status(before.number, "edited", "the message was changed in the source")
                self._restore_or_add(plan, turn, supersedes=before.number)
        for slot, before in old_keyed.items():
            if slot not in last_by_key:
                plan.status(before.number, "removed", "the message is no longer in the source")
        old_pos = [t for t in old if t.key.startswith("pos:")]
        new_pos = [t for t in new if t.key.startswith("pos:")]
        matcher = difflib.SequenceMatcher(
            None,
            [(t.conversation, t.role, t.sha256) for t in old_pos],
            [(t.conversation, t.role, t.sha256) for t in new_pos],
            autojunk=False,
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            olds, news = old_pos[i1:i2], new_pos[j1:j2]
            if tag == "equal":
                for before, turn in zip(olds, news, strict=True):
                    if before.key != turn.key or before.position != turn.position:
                        plan.move(before.number, turn.key, turn.position)
                continue
            paired = min(len(olds), len(news)) if tag == "replace" else 0
            for before, turn in zip(olds[:paired], news[:paired], strict=True):
                plan.status(before.number, "edited", "the message was changed in the source")
                self._restore_or_add(plan, turn, supersedes=before.number)
            for before in olds[paired:]:
                plan.status(before.number, "removed", "the message is no longer in the source")
            for turn in news[paired:]:
                self._restore_or_add(plan, turn, fresh=fresh)

    # ---- One-shot

    def import_path(self, source: SourceConfig) -> IngestReport:
        """Read everything of a source now (no stability wait): ``curator import``."""
        report, _, available = self.scan_source(source, read=True)
        if not available.available:
            report.problems.append(f"{source.id}: {available.reason}")
        return report


def adapter_for(source: SourceConfig) -> Adapter:
    """The adapter a source is read with."""
    return get_adapter(source.adapter)
