"""The turn ledger: an append-only record, per user, of every change to the turn table.

Sources can be edited or emptied, so the history of what was read (turn numbers, the old
text of an edited message, removals) cannot be re-derived from the sources alone. The
ledger keeps it in the vault, as the files-are-the-truth rule asks, and the SQLite index
replays it: at start-up (recovering from a crash between ledger and index) and on reindex.

Records are JSON objects with a per-user ``seq`` and an ``op``:

- ``add``: a new turn row (every IndexedTurn field, plus ``supersedes`` and ``ingested_at``);
  its ``sha256`` is left out when it is the hash of its text, and put back on reading
- ``status``: ``number`` becomes ``status`` (active / edited / removed) with a ``reason``
- ``move``: ``number`` now sits at ``key``/``position`` (a positional source shifted)

New records are appended to ``turns.jsonl``. Once it holds ``SEAL_BYTES``, its records are
sealed into a gzip segment named for the first and last ``seq`` it holds
(``turns.000000000001-000000052340.jsonl.gz``, a fourth of the size) and the plain file
starts again empty. The segment is written whole (fsynced, renamed) before the plain file
is emptied; a crash in between leaves the records in both, and a reader takes each ``seq``
once.
"""

from __future__ import annotations

import gzip
import json
import logging
import re
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from curator.sources.turns import text_hash
from curator.vault.atomic import append_lines, atomic_write_bytes
from curator.vault.paths import VaultPaths

log = logging.getLogger(__name__)

# One encoder for every record: ``json.dumps`` with options builds a new one per call. Keys
# stay in the order the record was built (sorting them was a third of encoding an import's
# ledger), without spaces after separators; a record is a tree of plain values, so the
# circular-reference check has nothing to find.
_RECORD = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)

LEDGER_NAME = "turns.jsonl"
REJECTED_NAME = "turns.rejected.jsonl"
# Plain records past this size are sealed into a compressed segment. Level 4, measured on the
# 55 MB of records of 100,000 turns: 9.6 MB in 0.68 s, against 10.7 MB in 0.46 s at level 1
# and 9.2 MB in 1.3 s at level 6.
SEAL_BYTES = 4 * 1024 * 1024
SEAL_LEVEL = 4
_SEGMENT = re.compile(r"^turns\.(\d{12})-(\d{12})\.jsonl\.gz$")


# Records are written with ``seq`` first; this reads it without parsing the record.
_LEADING_SEQ = re.compile(rb'^\{"seq":(\d+)[,}]')


def _line(record: dict[str, Any]) -> str:
    """One record as the ledger holds it.

    An added turn's SHA-256 is the hash of its text: 64 random hex characters that no
    compression shrinks, a fifth of a sealed segment. It is left out and computed again on
    reading (a digest that is not its text's hash is kept as it is).
    """
    line = _RECORD.encode(record) + "\n"
    turn = record.get("turn")
    if record.get("op") == "add" and isinstance(turn, dict):
        sha = turn.get("sha256")
        if isinstance(sha, str) and isinstance(turn.get("text"), str) and sha == text_hash(turn["text"]):
            line = line.replace(f',"sha256":"{sha}"', "", 1)
    return line


def _with_hash(record: Any) -> Any:
    """A record read back, an added turn's SHA-256 put back where it was left out."""
    turn = record.get("turn") if isinstance(record, dict) else None
    if isinstance(turn, dict) and "sha256" not in turn and isinstance(turn.get("text"), str):
        turn["sha256"] = text_hash(turn["text"])
    return record


def _write_segment(plain: Path, first: int, last: int, data: bytes) -> Path:
    """Write ``data`` whole (compressed, fsynced, renamed) as the segment of seqs ``first``-``last``."""
    target = plain.with_name(f"turns.{first:012d}-{last:012d}.jsonl.gz")
    atomic_write_bytes(target, gzip.compress(data, compresslevel=SEAL_LEVEL, mtime=0))
    return target


def _seq_of(raw: bytes) -> int | None:
    match = _LEADING_SEQ.match(raw)
    if match:
        return int(match.group(1))
    try:
        return int(json.loads(raw.decode("utf-8"))["seq"])
    except (UnicodeDecodeError, ValueError, KeyError, TypeError):
        return None


class TurnLedger:
    """Per-user append-only turn ledgers under ``Users/<id>/Logs/``."""

    def __init__(self, paths: VaultPaths) -> None:
        self.paths = paths

    def path(self, user_id: str) -> Path:
        """Where one user's newest (plain) records are appended."""
        return self.paths.user(user_id).root / "Logs" / LEDGER_NAME

    def segments(self, user_id: str) -> list[tuple[int, int, Path]]:
        """(first seq, last seq, path) of each sealed segment, oldest first."""
        folder = self.path(user_id).parent
        if not folder.is_dir():
            return []
        found = []
        for path in folder.iterdir():
            match = _SEGMENT.match(path.name)
            if match:
                found.append((int(match.group(1)), int(match.group(2)), path))
        return sorted(found)

    def files(self, user_id: str) -> list[Path]:
        """Every file holding the user's records, in order."""
        plain = self.path(user_id)
        return [p for _, _, p in self.segments(user_id)] + ([plain] if plain.exists() else [])

    def users(self) -> list[str]:
        """Users that have a ledger."""
        return [uid for uid in self.paths.user_ids() if self.files(uid)]

    def append(self, user_id: str, records: list[dict[str, Any]]) -> None:
        """Durably append ``records`` (each already carrying its ``seq``)."""
        if not records:
            return
        path = self.path(user_id)
        lines = [_line(r) for r in records]
        # An append of a quarter of the limit or more (an import's batch) becomes a segment at
        # once: written plain, an import's last batch stayed four times its sealed size.
        if sum(map(len, lines)) < SEAL_BYTES // 4:
            append_lines(path, lines)
            if path.stat().st_size >= SEAL_BYTES:
                self.seal(user_id)
            return
        # An import's batch: sealed as it is, never written plain and read back. What the plain
        # file holds is older, so it is sealed first.
        if path.exists() and path.stat().st_size:
            self.seal(user_id)
        seqs = [int(r["seq"]) for r in records]
        _write_segment(path, min(seqs), max(seqs), "".join(lines).encode("utf-8"))

    def seal(self, user_id: str) -> Path | None:
        """Move the plain file's records into a new compressed segment; its path (None: nothing to seal)."""
        path = self.path(user_id)
        segments = self.segments(user_id)
        sealed = segments[-1][1] if segments else 0
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        kept: list[bytes] = []
        seqs: list[int] = []
        for line in raw.splitlines(keepends=True):
            if not line.strip():
                continue
            seq = _seq_of(line)
            if seq is not None:
                if seq <= sealed:
                    continue  # sealed already: a crash came between a segment and emptying this file
                seqs.append(seq)
            # An unreadable line is kept as it is: readers skip it, nobody deletes it.
            kept.append(line if line.endswith(b"\n") else line + b"\n")
        target = _write_segment(path, min(seqs), max(seqs), b"".join(kept)) if seqs else None
        atomic_write_bytes(path, b"")
        return target

    def last_seq(self, user_id: str) -> int:
        """The ``seq`` of the last complete record (0 for none), reading only the plain file's tail."""
        segments = self.segments(user_id)
        return self._plain_last_seq(self.path(user_id)) or (segments[-1][1] if segments else 0)

    @staticmethod
    def _plain_last_seq(path: Path) -> int:
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return 0
        window = 65536
        while True:
            with open(path, "rb") as handle:
                handle.seek(max(0, size - window))
                tail = handle.read()
            lines = tail.split(b"\n")[:-1]  # the piece after the last newline is incomplete
            if window < size:
                lines = lines[1:]  # the first piece may start mid-line
            for raw in reversed(lines):
                seq = _seq_of(raw)
                if seq is not None:
                    return seq
            if window >= size:
                return 0
            window *= 4

    def read(self, user_id: str, after_seq: int = 0) -> Iterator[dict[str, Any]]:
        """Records with ``seq > after_seq`` in order; unreadable lines are logged and skipped."""
        seen = after_seq
        for _, last, segment in self.segments(user_id):
            if last <= seen:
                continue  # every record in it was applied already: not even opened
            try:
                with gzip.open(segment, "rb") as handle:
                    for record in self._records(handle, segment, seen):
                        seen = max(seen, int(record["seq"]))
                        yield record
            except (OSError, EOFError, zlib.error) as exc:
                log.warning("%s: the segment cannot be read to its end (%s); the records after that are "
                            "missing from this replay", segment, exc)
        path = self.path(user_id)
        if not path.exists():
            return
        with open(path, "rb") as handle:
            yield from self._records(handle, path, seen)

    @staticmethod
    def _records(handle: Iterable[bytes], path: Path, after_seq: int) -> Iterator[dict[str, Any]]:
        for line_no, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                log.warning("%s line %d: incomplete last line (interrupted write); ignored", path, line_no)
                continue
            if not raw.strip():
                continue
            try:
                record = _with_hash(json.loads(raw.decode("utf-8")))
                seq = int(record["seq"])
            except (UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
                log.warning("%s line %d: unreadable record (%s); ignored", path, line_no, exc)
                continue
            if seq > after_seq:
                yield record

    def set_aside(self, user_id: str, refused: list[tuple[Any, str]]) -> Path:
        """Move refused records out of the ledger into ``turns.rejected.jsonl``, with their reasons.

        The rejected file is written (fsynced) before the ledger is rewritten without them,
        so a crash in between leaves a record in both places, never in neither.
        """
        path = self.path(user_id)
        aside = path.with_name(REJECTED_NAME)
        seqs = set()
        lines = []
        for record, reason in refused:
            seq = record.get("seq") if isinstance(record, dict) else None
            seqs.add(seq)
            lines.append(json.dumps({"reason": reason, "record": record}, ensure_ascii=False, sort_keys=True))
        append_lines(aside, lines)
        numbers = [s for s in seqs if isinstance(s, int)]
        for first, last, segment in self.segments(user_id):
            if any(first <= s <= last for s in numbers):
                with gzip.open(segment, "rb") as handle:
                    kept = self._without(handle, seqs)
                _write_segment(path, first, last, b"".join(kept))
        if path.exists():
            with open(path, "rb") as handle:
                kept = self._without(handle, seqs)
            atomic_write_bytes(path, b"".join(kept))
        return aside

    @staticmethod
    def _without(lines: Iterable[bytes], seqs: set[Any]) -> list[bytes]:
        kept: list[bytes] = []
        for raw in lines:
            try:
                seq = json.loads(raw.decode("utf-8")).get("seq")
            except (UnicodeDecodeError, ValueError, AttributeError):
                seq = None
            if seq is not None and seq in seqs:
                continue
            kept.append(raw if raw.endswith(b"\n") else raw + b"\n")
        return kept
