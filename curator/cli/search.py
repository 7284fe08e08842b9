"""``curator search`` and ``curator show``: one BM25 search, one item by id."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from curator.cli.common import parse_when, reader
from curator.cli.main import CliError, emit, vault_of
from curator.clock import iso_utc
from curator.index.search import SearchFilters, SearchHit, search
from curator.text_safety import visible


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Add this module's commands to the ``curator`` parser."""
    p = subparsers.add_parser("search", parents=[common], help="search turns, summaries and knowledge")
    p.add_argument("query", nargs="+")
    p.add_argument("--user", help="only this user's items")
    p.add_argument("--kind", action="append", default=[], help="kind or content type (repeatable)")
    p.add_argument("--topic", help="topic, children included (pet matches pet.hamster)")
    p.add_argument("--scope", choices=("new", "user", "global"))
    p.add_argument("--min-quality", type=float, dest="min_quality")
    p.add_argument("--since", help="ISO date/time or age like 7d, 12h")
    p.add_argument("--until", help="ISO date/time or age like 1d")
    p.add_argument("--limit", type=int, default=10)
    p.set_defaults(handler=cmd_search)

    p = subparsers.add_parser("show", parents=[common], help="show a turn (by number) or a document (by id)")
    p.add_argument("id")
    p.add_argument("--user", default="default", help="user of a turn number")
    p.set_defaults(handler=cmd_show)


def cmd_search(args: argparse.Namespace) -> int:
    if args.limit <= 0:
        raise CliError("--limit must be positive")
    now = time.time()
    filters = SearchFilters(
        user_id=args.user,
        kinds=tuple(args.kind),
        topic=args.topic,
        scope=args.scope,
        min_quality=args.min_quality,
        since=parse_when(args.since, now),
        until=parse_when(args.until, now),
    )
    hits = _search(args, " ".join(args.query), filters)
    data = [h.to_dict() for h in hits]

    def text() -> str:
        if not hits:
            return "no results"
        out = []
        for h in hits:
            label = f"turn {h.number}" if h.item_type == "turn" else f"{h.kind} {h.id}"
            where = f"{h.provenance['source_id']}/{h.provenance['file']}" if h.item_type == "turn" else h.path
            out.append(f"{h.score:6.2f}  {label}  {visible(where or '')}\n        {visible(h.snippet)}")
        return "\n".join(out)

    emit(args, data, text)
    return 0


def _search(args: argparse.Namespace, query: str, filters: SearchFilters) -> list[SearchHit]:
    """Search the index file directly: a search reads nothing else, so it opens nothing else.

    A missing or damaged index goes through a reader engine, which says what to do or heals it.
    """
    from curator.index.database import Index, IndexDamagedError
    from curator.vault.paths import VaultPaths

    path = VaultPaths(vault_of(args)).index_file
    if path.is_file():
        try:
            index = Index(path)
        except IndexDamagedError:
            pass
        else:
            try:
                return search(index, query, filters, args.limit)
            finally:
                index.close()
    with reader(args) as engine:
        return engine.search(query, filters, args.limit)


def cmd_show(args: argparse.Namespace) -> int:
    ref = args.id.strip().lstrip("#")
    with reader(args) as engine:
        if ref.isdigit() or ref.startswith("turn:"):
            item = engine.memory.retrieve(ref if ref.startswith("turn:") else f"turn:{ref}", user_id=args.user)
        else:
            item = engine.memory.retrieve(ref, user_id=args.user, include_staged=True)
    if item is None:
        raise CliError(f"nothing with id {args.id!r}", code=4)

    def text() -> str:
        if item["type"] == "turn":
            p = item["provenance"]
            return (
                f"turn {item['number']} ({item['role']}, {visible(item['speaker'])}) "
                f"{iso_utc(item['timestamp'])} [{item['status']}]\n"
                f"from {p['source_id']}/{visible(p['file'])} conversation "
                f"{visible(p['conversation'])} {visible(p['key'])}\n\n"
                f"{visible(item['text'])}"
            )
        meta = "\n".join(f"{k}: {json.dumps(v, ensure_ascii=False, default=str)}" for k, v in item["meta"].items())
        return f"{item['path']} ({item['area']})\n{visible(meta)}\n\n{visible(item['body'])}"

    emit(args, item, text)
    return 0
