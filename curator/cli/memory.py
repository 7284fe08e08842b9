"""``curator remember|add|pin|unpin|retire|merge|approve-all|discard-all``: the person's own hand.

Each is one undoable review action (``curator review undo`` reverses it) and is refused with
one clear line when it cannot be done (exit 1). ``remember TURN`` makes words of a turn a
memory (staged for review unless ``--approve``); ``add TEXT`` writes one by hand (approved);
``approve-all`` / ``discard-all`` take item ids, or every staged item of a ``--kind`` or a
``--conversation``.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from curator.cli.main import CliError, emit, vault_of

if TYPE_CHECKING:
    from curator.engine import Engine
    from curator.review.own_hand import OwnHand


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Add the person's memory commands to the ``curator`` parser."""
    def command(name: str, help_: str) -> argparse.ArgumentParser:
        p = subparsers.add_parser(name, parents=[common], help=help_)
        p.add_argument("--user", default="default", help="user id (default: default)")
        p.set_defaults(handler=run, memory_command=name)
        return p

    p = command("remember", "make words of a turn a memory (staged for review, or --approve)")
    p.add_argument("turn", type=int, help="turn number (from `curator search` or `curator turns`)")
    p.add_argument("--text", default=None, help="the words to keep (default: the whole turn)")
    p.add_argument("--approve", action="store_true", help="approve it at once")
    p = command("add", "write a memory by hand (approved, marked as yours)")
    p.add_argument("text")
    p.add_argument("--title", default="")
    p.add_argument("--turn", type=int, action="append", default=[], help="a turn that supports it (repeatable)")
    p = command("pin", "always keep a memory in MEMORY.md's critical facts")
    p.add_argument("id")
    p = command("unpin", "give a pinned memory back its normal lifecycle")
    p.add_argument("id")
    p = command("retire", "a memory that is no longer true: kept with its end date, out of search")
    p.add_argument("id")
    p.add_argument("--reason", required=True)
    p = command("merge", "merge proposals and/or memories into one approved memory")
    p.add_argument("ids", nargs="+")
    p.add_argument("--text", required=True, help="the merged memory's text")
    p.add_argument("--title", default="")
    for name, help_ in (("approve-all", "approve many staged items as one undoable step"),
                        ("discard-all", "discard many staged items as one undoable step")):
        p = command(name, help_)
        p.add_argument("ids", nargs="*", help="item ids (or choose by --kind / --conversation)")
        p.add_argument("--kind", default=None, help="every staged item of this kind")
        p.add_argument("--conversation", default=None, help="every staged item citing this conversation")
        if name == "approve-all":
            p.add_argument("--accept-flags", action="store_true", help="flagged items too")
        else:
            p.add_argument("--reason", default="")


def run(args: argparse.Namespace) -> int:
    from curator.engine import Engine
    from curator.review.own_hand import OwnHand
    from curator.review.records import ReviewError
    from curator.vault.lock import VaultLockedError
    from curator.vault.person import person_name

    vault = vault_of(args)
    if not vault.is_dir():
        raise CliError(f"no vault at {vault} (run `curator init --vault {vault}` first)")
    try:
        engine = Engine(vault, triggers=False)
    except VaultLockedError:  # beside a running app or watcher: files only, it re-indexes
        engine = Engine(vault, writer=False, triggers=False)
    try:
        own = OwnHand(engine.review, person=person_name(engine.settings))
        result = _dispatch(args, engine, own)
    except ReviewError as exc:
        emit(args, {"error": str(exc)}, f"refused: {exc}")
        return 1
    finally:
        engine.close()
    emit(args, result.to_dict(), result.message)
    return 0


def _dispatch(args: argparse.Namespace, engine: Engine, own: Any) -> Any:
    name, user = args.memory_command, args.user
    if name == "remember":
        return own.remember(user, args.turn, args.text, approve=args.approve)
    if name == "add":
        return own.add(user, args.text, title=args.title, turns=args.turn)
    if name in ("pin", "unpin"):
        return own.pin(user, args.id, pinned=name == "pin")
    if name == "retire":
        return own.retire(user, args.id, args.reason)
    if name == "merge":
        return own.merge(user, args.ids, args.text, title=args.title)
    ids = list(args.ids) or _chosen(own, user, args.kind, args.conversation)
    if name == "approve-all":
        return own.approve_all(user, ids, accept_flags=args.accept_flags)
    return own.discard_all(user, ids, args.reason)


def _chosen(own: OwnHand, user: str, kind: str | None, conversation: str | None) -> list[str]:
    """Staged items of one kind (a lane) or citing one conversation."""
    if kind is None and conversation is None:
        raise CliError("name the items, or choose them with --kind or --conversation")
    chosen = own.staged_ids(user, kind=kind, conversation=conversation)
    if not chosen:
        raise CliError("no staged item matches")
    return chosen
