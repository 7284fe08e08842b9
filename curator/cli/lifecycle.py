"""``curator lifecycle`` and ``curator archive``: the trust lifecycle and turn archival (seed 004 §10-§12)."""

from __future__ import annotations

import argparse
import time
from typing import Any

from curator.cli.main import CliError, emit, vault_of


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser("lifecycle", parents=[common],
                              help="propose promotions and 'still true?' rechecks now, and archive old turns")
    p.set_defaults(handler=cmd_lifecycle)
    p = subparsers.add_parser("archive", parents=[common],
                              help="archive turns older than N days, or search archived turns (--search)")
    p.add_argument("--older-than", type=float, dest="older_than", metavar="DAYS",
                   help="archive turns older than DAYS (default: the archive.after_days setting)")
    p.add_argument("--search", metavar="QUERY", help="search the archived turns' full text instead")
    p.add_argument("--user", help="only this user's turns (with --search)")
    p.add_argument("--limit", type=int, default=10)
    p.set_defaults(handler=cmd_archive)


def cmd_lifecycle(args: argparse.Namespace) -> int:
    from curator.engine import Engine

    with Engine(vault_of(args), triggers=False) as engine:
        data = engine.run_lifecycle()

    def text() -> str:
        lines = []
        for user, report in sorted((k, v) for k, v in data.items() if isinstance(v, dict)):
            lines.append(f"user {user}: {len(report['promotions'])} promotions, "
                         f"{len(report['rechecks'])} 'still true?' proposed for review")
        lines.append(f"{data.get('archived', 0)} turns archived")
        return "\n".join(lines)

    emit(args, data, text)
    return 0


def cmd_archive(args: argparse.Namespace) -> int:
    from curator.engine import Engine
    from curator.index.archive import Archiver, search_archived
    from curator.index.search import SearchFilters

    vault = vault_of(args)
    if args.search is not None:
        if not vault.is_dir():
            raise CliError(f"no vault at {vault}")
        with Engine(vault, writer=False, triggers=False) as engine:
            hits = search_archived(engine.index, args.search, SearchFilters(user_id=args.user), max(1, args.limit))
        emit(
            args,
            [h.to_dict() for h in hits],
            lambda: (
                "\n".join(f"{h.score:6.2f}  turn {h.number} (archived)  {h.snippet}" for h in hits)
                or "no archived turns match"
            ),
        )
        return 0
    if args.older_than is not None and args.older_than < 0:
        raise CliError("--older-than must not be negative")
    with Engine(vault, triggers=False) as engine:
        days = args.older_than if args.older_than is not None else float(engine.settings["archive.after_days"])
        before = engine.clock.now() - days * 86400.0
        archiver = Archiver(engine.index, engine.paths)
        count = archiver.archive(before)
        boundary = archiver.boundary()
    data = {"archived": count, "archived_before": boundary}
    emit(args, data, f"{count} turns archived (turns before "
                     f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime(boundary or 0))} UTC are in cold storage)")
    return 0
