"""``curator send``: keep a chat client's own memory place in step with what you approved.

``curator send`` lists the clients, where each keeps its memory on this machine and whether
its switch is on. ``curator send CLIENT`` shows the diff of what would be written;
``--on`` writes it and keeps the client in step from then on (the app or ``curator watch``
does, within seconds of an approve, edit, discard or undo); ``--off`` takes back what the
curator wrote; ``--undo`` puts back the files as they were before the curator's last write.
Nothing is written without ``--yes`` when the diff has not been seen: without it, the diff
is printed and the command stops.
"""

from __future__ import annotations

import argparse
from typing import Any

from curator.cli.common import reader, writer
from curator.cli.main import CliError, emit


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser("send", parents=[common],
                              help="send approved memory into a chat client's own memory place (off by default)")
    p.add_argument("client", nargs="?", help="claude-code, sillytavern, lmstudio, jan or openwebui (none: list them)")
    p.add_argument("--api-key-from", metavar="FILE", default=None,
                   help="openwebui: read its API key from FILE ('-': standard input) and keep it in the vault")
    action = p.add_mutually_exclusive_group()
    action.add_argument("--on", action="store_true", help="turn the client's switch on and write (needs --yes)")
    action.add_argument("--off", action="store_true", help="turn it off and take back what was written (needs --yes)")
    action.add_argument("--undo", action="store_true", help="put back the files as before the last write (needs --yes)")
    p.add_argument("--yes", action="store_true", help="write without stopping at the diff")
    p.set_defaults(handler=cmd_send)


def cmd_send(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from curator.outbound.places import NOT_WRITTEN
    from curator.outbound.sync import NAMES, OutboundError, setting_key

    writing = bool(args.on or args.off or args.undo) and args.yes
    # Listing and showing a diff read only: they work beside the open app; a write takes the vault.
    with (writer(args, triggers=False) if writing or args.api_key_from else reader(args)) as engine:
        memory = engine.client_memory
        if not args.client:
            rows = memory.overview()
            emit(args, rows, lambda: "\n".join(
                f"{r['client']:<12} {'on ' if r['on'] else 'off'} "
                f"{r['folder'] or ('(no API key)' if r.get('needs_key') else '(not found)' if r['writable'] else '')}"
                f"\n    {r['what']}" for r in rows))
            return 0
        key = args.client.lower()
        if args.api_key_from:
            if key != "openwebui":
                raise CliError("--api-key-from is for openwebui")
            text = sys.stdin.read() if args.api_key_from == "-" else Path(args.api_key_from).read_text("utf-8")
            if not text.strip():
                raise CliError("no API key in what was given")
            memory.set_api_key(text)
            if not (args.on or args.off or args.undo):
                emit(args, {"client": key, "api_key": "kept"},
                     f"{NAMES[key]}'s API key is kept in the vault ({memory.api_key_file}, readable by you only).")
                return 0
        if key not in NAMES:
            if key in NOT_WRITTEN:
                raise CliError(NOT_WRITTEN[key][1] + ".")
            raise CliError(f"unknown client {args.client!r}; one of: {', '.join(NAMES)}")
        if args.undo:
            plan = memory.undo_last(key)
        else:
            plan = memory.plan(key, take_back=args.off)
        if plan.problem:
            raise CliError(plan.problem, code=1)
        data = {"client": key, "diff": plan.diff(), "files": [str(c.path) for c in plan.changes],
                "memories": plan.memories, "left_out": plan.left_out, "written": False}
        if writing:
            try:
                if plan.changes:
                    memory.apply(plan)
            except OutboundError as exc:
                raise CliError(str(exc), code=1) from None
            if args.on or args.off:
                engine.update_settings({setting_key(key): bool(args.on)})
            data["written"] = True
        text = plan.diff() or f"{plan.name} is already in step: nothing to write."
        if (args.on or args.off or args.undo) and not args.yes:
            text += "\n(nothing written: run again with --yes to write this)"
        elif data["written"]:
            text += f"\n{plan.name}: written." + (f" {plan.left_out} approved memories did not fit the size "
                                                   "(send.max_chars)." if plan.left_out else "")
        emit(args, data, text)
    return 0
