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

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from curator.clock import Clock, SystemClock
from curator.events import EventBus
from curator.faults import fault_point
from curator.index.database import Index
from curator.sources.adapters import Adapter, ReadState, get_adapter
from curator.sources.adapters.base import ReadResult, relative_name
from curator.sources.bulk_gc import fewer_collections
from curator.sources.ingest_report import Availability, IngestReport
from curator.sources.ledger import TurnLedger
from curator.sources.reconcile import plan_append, plan_reconcile
from curator.sources.turns import IndexedTurn, Turn
from curator.sources.unit_plan import UnitPlan
from curator.sources.validation import checked_turns, record_problem, unique_keys
from curator.vault.settings import SourceConfig

log = logging.getLogger(__name__)

OnTurns = Callable[[str, list[IndexedTurn]], None]
# Inside a batch, units are written together once this many wait (or this many records).
FLUSH_UNITS = 500
FLUSH_RECORDS = 20_000


def source_root(source: SourceConfig) -> Path:
    """The absolute folder (or file) a source reads."""
    return Path(source.path).expanduser()

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
        self._pending: list[tuple[SourceConfig, UnitPlan, list[tuple[str, str, ReadState | None, str]]]] = []
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
            result = self._read_unit(adapter, source, root, unit, rel, None if force else state, report)
            if result is None:
                return report
            problem_text = self._note_problems(source, rel, result, report)
            if not result.ready:
                if result.problems:
                    # Skipped until its bytes change; remembering the fingerprint stops retries.
                    skipped = ReadState(fingerprint=fingerprint)
                    self.index.apply_records(source.user_id, [], [(source.id, rel, skipped, problem_text)])
                else:
                    report.units_waiting += 1
                return report
            plan = self._plan_unit(source, rel, result)
            report.units_read += 1
            return report.merge(self._commit(source, plan, [(source.id, rel, result.state, problem_text)], result))

    def _read_unit(self, adapter: Adapter, source: SourceConfig, root: Path, unit: Path, rel: str,
                   state: ReadState | None, report: IngestReport) -> ReadResult | None:
        """The adapter's reading of a unit, its turns checked; None (the reason in ``report``)
        when it cannot be read."""
        try:
            result = adapter.read(root, unit, source.id, state)
        except OSError as exc:
            report.problems.append(f"{source.id}/{rel}: cannot be read ({exc.strerror or exc}); will retry")
            log.warning(report.problems[-1])
            return None
        except Exception as exc:  # an adapter bug must not stop the other units
            log.exception("adapter %s failed on %s", adapter.name, unit)
            report.problems.append(f"{source.id}/{rel}: adapter error ({type(exc).__name__}: {exc}); skipped")
            return None
        if result.ready:
            result.turns, checks = self._validated(source, rel, result)
            result.problems += checks
        return result

    def _note_problems(self, source: SourceConfig, rel: str, result: ReadResult, report: IngestReport) -> str:
        """Log and announce a read's problems; the text kept with the unit's read state."""
        for problem in result.problems:
            log.warning("source %s: %s", source.id, problem)
            self.bus.emit("source.problem", source_id=source.id, unit=rel, message=problem)
        report.problems += [f"{source.id}: {p}" for p in result.problems]
        # Skipped lines and time-unknown turns are counted in the unit's health too.
        return "; ".join(result.problems + result.notes())[:1000]

    def _plan_unit(self, source: SourceConfig, rel: str, result: ReadResult) -> UnitPlan:
        """The ledger records for what a read found changed in a unit."""
        plan = self._new_plan(source.user_id)
        if result.full:
            old = self.index.file_turns(source.id, rel)
            # A unit never read before has no earlier version of any message to restore.
            fresh = not old and not self.index.file_known(source.id, rel)
            plan_reconcile(self.index, plan, old, result.turns, fresh=fresh)
        else:
            plan_append(self.index, plan, result.turns)
        return plan

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
                    t.source_id, t.file, t.conversation, t.position, t.sha256, t.text
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

    def _new_plan(self, user_id: str) -> UnitPlan:
        if user_id in self._next:
            number, seq = self._next[user_id]
        else:
            number, seq = self.index.max_number(user_id) + 1, self.index.ledger_seq(user_id) + 1
        return UnitPlan(user_id, next_number=number, next_seq=seq, now=self.clock.now())

    def _commit(
        self,
        source: SourceConfig,
        plan: UnitPlan,
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
            users: dict[str, list[tuple[SourceConfig, UnitPlan, list[tuple[str, str, ReadState | None, str]]]]] = {}
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

    def _announce(self, source: SourceConfig, plan: UnitPlan) -> None:
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
        Garbage is collected less often meanwhile (see ``bulk_gc``).
        """
        with fewer_collections():
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
