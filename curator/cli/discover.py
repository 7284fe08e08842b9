"""``curator source discover [--add]``: chat clients installed here, and adding them in one go.

Registered after the module that creates the ``source`` command group, as one more action
of it; it looks at the clients' default places (see ``curator.sources.discovery``).
"""

from __future__ import annotations

import argparse
from typing import Any

from curator.cli.main import CliError, emit, vault_of


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Add ``discover`` to the ``curator source`` group."""
    source = subparsers.choices.get("source")
    actions = [a for a in getattr(source, "_actions", []) if isinstance(a, argparse._SubParsersAction)]
    if not actions:
        raise RuntimeError("curator.cli.discover must be registered after the `source` command group")
    a = actions[0].add_parser("discover", parents=[common],
                              help="list chat clients installed here (with conversation counts); --add adds them")
    a.add_argument("--add", action="store_true", help="add every readable client not yet a source")
    a.add_argument("--user", default="default", help="user id the added sources belong to")
    a.set_defaults(handler=cmd_source_discover)


def cmd_source_discover(args: argparse.Namespace) -> int:
    from curator.engine import Engine, SourceError

    vault = vault_of(args)
    if not args.add and not vault.is_dir():
        raise CliError(f"no vault at {vault} (run `curator init --vault {vault}` first)")
    with Engine(vault, writer=bool(args.add), triggers=False) as engine:
        clients = engine.discover_clients()
        added = []
        if args.add:
            try:
                added = engine.add_discovered(clients, args.user)
            except SourceError as exc:
                raise CliError(str(exc)) from None
    data = {"clients": [c.to_dict() for c in clients], "added": [s.to_dict() for s in added]}

    def text() -> str:
        if not clients:
            return "no chat clients found at their default places"
        lines = []
        for c in clients:
            if not c.supported:
                state = f"not readable: {c.detail}"
            elif c.source_id:
                state = f"source {c.source_id}"
            else:
                state = "not added"
            version = f" {c.version}" if c.version else ""
            count = f"{c.conversations} conversations" if c.supported else ""
            lines.append(f"{c.client}{version}  {c.path}  {count}  [{state}]".replace("    ", "  "))
        lines += [f"added source {s.id}: {s.path} ({s.adapter})" for s in added]
        if not args.add and any(c.supported and not c.source_id for c in clients):
            lines.append("add them with `curator source discover --add`")
        return "\n".join(lines)

    emit(args, data, text)
    return 0
