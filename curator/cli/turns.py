"""``curator turns``: the normalised turns of a source, to check what was read (or export it).

Turns come from the index (what the curator read, with their numbers). A source that was
added but never read yet is parsed on the spot, read-only, and said so (numbers are then
null). A turn whose client gave no readable time shows ``timestamp: null``, never a
stand-in.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from curator.cli.main import CliError, emit, vault_of
from curator.clock import iso_utc

if TYPE_CHECKING:
    from curator.engine import Engine

TIME_UNKNOWN = "time_unknown"


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Add ``turns`` to the ``curator`` parser."""
    p = subparsers.add_parser("turns", parents=[common], help="list the turns read from a source")
    p.add_argument("--source", help="source id or path (default: every source)")
    p.add_argument("--conversation", help="only this conversation id")
    p.add_argument("--all", action="store_true", dest="all_versions",
                   help="also edited and removed versions (default: the active turns)")
    p.set_defaults(handler=cmd_turns)


@dataclass(frozen=True)
class TurnRow:
    """One listed turn."""

    number: int | None
    source: str
    conversation: str
    title: str
    key: str
    role: str
    speaker: str
    timestamp: float | None
    text: str
    status: str = "active"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.number,
            "source": self.source,
            "conversation": self.conversation,
            "title": self.title,
            "message": self.key,
            "role": self.role,
            "speaker": self.speaker,
            "timestamp": iso_utc(self.timestamp) if self.timestamp is not None else None,
            "text": self.text,
            "status": self.status,
        }


@dataclass(frozen=True)
class _Imported:
    """Turns indexed by `curator import` from a folder that is not a source."""

    id: str


def _row(turn: Any, number: int | None, status: str) -> TurnRow:
    known = not turn.extra.get(TIME_UNKNOWN)
    return TurnRow(number, turn.source_id, turn.conversation, str(turn.extra.get("title") or ""), turn.key,
                   turn.role, turn.speaker, turn.timestamp if known else None, turn.text, status)


def collect(engine: Engine, source_ref: str | None, conversation: str | None,
            statuses: tuple[str, ...]) -> tuple[list[TurnRow], list[str]]:
    """The turns of one source (or all), in conversation order; and notes for the reader."""
    from curator.engine import SourceError
    from curator.sources.adapters import get_adapter
    from curator.sources.ingest import source_root

    # A folder read once with `curator import` is no source, but its turns are in the index
    # under an ``import-`` id: they are listed too, and can be named by that id.
    configured = {s.id for s in engine.settings.sources}
    imported = [_Imported(i) for i in sorted(engine.index.source_turn_counts()) if i not in configured]
    try:
        if source_ref and any(i.id == source_ref for i in imported):
            sources: list[Any] = [i for i in imported if i.id == source_ref]
        else:
            sources = [engine.find_source(source_ref)] if source_ref else [*engine.settings.sources, *imported]
    except SourceError as exc:
        raise CliError(str(exc)) from None
    rows: list[TurnRow] = []
    notes: list[str] = []
    for source in sources:
        files = engine.index.source_files(source.id)
        found: list[TurnRow] = []
        if files or engine.index.read_units(source.id):
            for file in files:
                found += [_row(t, t.number, t.status) for t in engine.index.file_turns(source.id, file, statuses)]
        else:
            # Never read: parse now, without writing anything, so a new source can be checked.
            adapter, root = get_adapter(source.adapter), source_root(source)
            for unit in adapter.list_units(root):
                result = adapter.read(root, unit, source.id, None)
                found += [_row(t, None, "unread") for t in result.turns]
                notes += [f"{source.id}: {p}" for p in result.problems]
            notes.append(f"{source.id}: not imported yet; parsed now (run `curator import` to index it)")
        if conversation is not None:
            found = [r for r in found if r.conversation == conversation]
        first_seen: dict[str, float] = {}
        for r in found:
            stamp = r.timestamp if r.timestamp is not None else float("inf")
            first_seen[r.conversation] = min(first_seen.get(r.conversation, stamp), stamp)
        positions = {id(r): i for i, r in enumerate(found)}
        found.sort(key=lambda r: (first_seen[r.conversation], r.conversation, positions[id(r)]))
        rows += found
    return rows, notes


def cmd_turns(args: argparse.Namespace) -> int:
    from curator.engine import Engine

    vault = vault_of(args)
    if not vault.is_dir():
        raise CliError(f"no vault at {vault} (run `curator init --vault {vault}` first)")
    statuses = ("active", "edited", "removed") if args.all_versions else ("active",)
    with Engine(vault, writer=False, triggers=False) as engine:
        rows, notes = collect(engine, args.source, args.conversation, statuses)
    data = [r.to_dict() for r in rows]

    def text() -> str:
        lines: list[str] = []
        current = None
        for r in rows:
            if (r.source, r.conversation) != current:
                current = (r.source, r.conversation)
                title = f" “{r.title}”" if r.title else ""
                lines.append(f"== {r.source} / {r.conversation}{title}")
            when = iso_utc(r.timestamp) if r.timestamp is not None else "time unknown"
            number = f"#{r.number}" if r.number is not None else "#-"
            status = "" if r.status in ("active", "unread") else f" [{r.status}]"
            lines.append(f"{number} {when} {r.role} ({r.speaker}){status}:")
            lines += [f"    {line}" for line in r.text.splitlines() or [""]]
        lines += [f"note: {n}" for n in notes]
        return "\n".join(lines) if lines else "no turns"

    if args.json:
        for note in notes:  # stdout stays one JSON document
            print(f"note: {note}", file=sys.stderr)
    emit(args, data, text)
    return 0
