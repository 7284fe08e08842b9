"""``curator review list|show|approve|edit|discard|undo|resolve`` (all take ``--json``).

Registered by ``curator/cli.py`` through :func:`register`. Uses ``args.vault`` (the vault
path) and ``args.json``. Exit codes: 0 done, 1 refused (changed on disk, flagged, nothing
to undo...), 2 bad arguments.

``approve``/``edit``/``resolve`` take ``--hash`` (the sha256, or a prefix of at least 8
hex digits, of the bytes that were shown by ``review show``). Without ``--hash`` the command
approves the bytes on disk now and prints exactly what it approved.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from curator.index.text import elide
from curator.review.actions import ChangedOnDiskError, FlaggedItemError, ReviewEngine, ReviewError
from curator.text_safety import visible
from curator.vault.paths import VaultPaths


def _vault(args: argparse.Namespace) -> Path:
    if getattr(args, "vault", None):
        return Path(args.vault).expanduser()
    from curator.vault.paths import default_vault

    return default_vault()


@contextlib.contextmanager
def _review(args: argparse.Namespace) -> Iterator[ReviewEngine]:
    """Review actions over the vault's engine, so search and evidence see the index.

    When a running ``curator watch`` holds the vault, the actions work on the files alone and
    that process brings its index up to date on its next rescan.
    """
    paths = VaultPaths(_vault(args))
    if not paths.root.is_dir():
        raise ReviewError(f"no vault at {paths.root}")
    from curator.engine import Engine
    from curator.vault.lock import VaultLockedError

    try:
        engine = Engine(paths.root, triggers=False)
    except VaultLockedError:  # a reader's review changes files only (see Engine.documents)
        engine = Engine(paths.root, writer=False, triggers=False)
    try:
        yield engine.review
    finally:
        engine.close()


def register(subparsers: Any, common: argparse.ArgumentParser | None = None) -> None:
    """Add the ``review`` command and its subcommands (``common`` carries --vault/--json)."""
    parents = [common] if common is not None else []
    review = subparsers.add_parser("review", parents=parents,
                                   help="review staged memories: list, show, approve, edit, discard, undo, resolve")
    sub = review.add_subparsers(dest="review_command", metavar="ACTION")
    review.set_defaults(handler=lambda args: (review.print_help(), 2)[1], func=None)

    def command(name: str, help_: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=parents, help=help_)
        p.add_argument("--user", default="default", help="user id (default: default)")
        if common is None:
            p.add_argument("--json", action="store_true", default=False, help="print JSON")
        p.set_defaults(handler=run, func=run)
        return p

    p = command("list", "staged items, ranked, flagged ones in their own lane")
    p.add_argument("--kind", choices=["fact", "correction", "connection", "open_question", "contradiction"])
    p = command("show", "one item with evidence, flags, gates and diff")
    p.add_argument("item")
    p = command("approve", "approve into Knowledge/")
    p.add_argument("item")
    p.add_argument("--hash", default="", help="hash of the bytes shown (from `review show`)")
    p.add_argument("--text", default=None, help="approve this edited text instead")
    p.add_argument("--accept-flags", action="store_true", help="approve even though the item is flagged")
    p = command("edit", "replace a staged item's text")
    p.add_argument("item")
    p.add_argument("--text", required=True)
    p.add_argument("--hash", default="")
    p = command("discard", "move to trash and remember the rejection")
    p.add_argument("item")
    p.add_argument("--reason", default="")
    p = command("undo", "undo the last review actions")
    p.add_argument("--count", type=int, default=1)
    p = command("cycle", "consolidation cycles: list, show, approve (all, partial, with changes), reject")
    p.add_argument("action", choices=["list", "show", "approve", "reject"])
    p.add_argument("cycle", nargs="?", default="", help="cycle id (from `review cycle list`)")
    p.add_argument("--ops", default=None, help="partial approval: comma-separated operation ids (op-1,op-3)")
    p.add_argument("--no-memory", action="store_true", help="leave MEMORY.md as it is")
    p.add_argument("--memory-file", default=None, help="approve with this edited MEMORY.md instead")
    p.add_argument("--edit", action="append", default=[], metavar="OP=TEXT", help="approve OP with TEXT")
    p.add_argument("--reason", default="", help="why the cycle is rejected")
    p.add_argument("--accept-flags", action="store_true")
    p = command("resolve", "resolve a contradiction")
    p.add_argument("item")
    p.add_argument("choice", choices=["keep_a", "keep_b", "keep_both", "keep_neither"])
    p.add_argument("--note", default="")
    p.add_argument("--hash", default="")
    p.add_argument("--accept-flags", action="store_true")


def _out(args: argparse.Namespace, data: Any, text: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    else:
        print(text)


def _current_hash(engine: ReviewEngine, args: argparse.Namespace) -> str:
    if args.hash:
        return str(args.hash)
    detail = engine.show(args.user, args.item)
    if not getattr(args, "json", False):
        print(f"(no --hash given: acting on the bytes on disk now, sha256 {detail.item.content_hash[:16]})")
    return detail.item.content_hash


def run(args: argparse.Namespace) -> int:
    """Run one ``review`` subcommand; returns the exit code."""
    try:
        with _review(args) as engine:
            return _run(args, engine)
    except ReviewError as exc:
        _out(args, {"error": str(exc)}, f"refused: {exc}")
        return 1


def _run(args: argparse.Namespace, engine: ReviewEngine) -> int:
    command = args.review_command
    try:
        if command == "list":
            _list(args, engine)
        elif command == "show":
            _show(args, engine)
        elif command == "approve":
            result = engine.approve(args.user, args.item, _current_hash(engine, args), text=args.text,
                                    accept_flags=args.accept_flags)
            _out(args, result.to_dict(), result.message)
        elif command == "edit":
            result = engine.edit(args.user, args.item, _current_hash(engine, args), args.text)
            _out(args, result.to_dict(), f"{result.message}; new sha256 {result.content_hash}")
        elif command == "discard":
            result = engine.discard(args.user, args.item, args.reason)
            _out(args, result.to_dict(), result.message)
        elif command == "cycle":
            return review_cycle(args, engine)
        elif command == "undo":
            cycles = _cycles(engine)
            results = [r for _ in range(max(1, args.count)) for r in cycles.undo(args.user)]
            _out(args, [r.to_dict() for r in results], "\n".join(r.message for r in results))
        elif command == "resolve":
            result = engine.resolve(args.user, args.item, args.choice, _current_hash(engine, args), note=args.note,
                                    accept_flags=args.accept_flags)
            _out(args, result.to_dict(), result.message)
        else:  # pragma: no cover - argparse restricts the choices
            return 2
    except ChangedOnDiskError as exc:
        _out(args, {"error": str(exc), "diff": exc.diff}, f"refused: {exc}\n{exc.diff}")
        return 1
    except FlaggedItemError as exc:
        _out(args, {"error": str(exc), "flagged": True}, f"refused: {exc}")
        return 1
    except ReviewError as exc:
        _out(args, {"error": str(exc)}, f"refused: {exc}")
        return 1
    return 0


def _list(args: argparse.Namespace, engine: ReviewEngine) -> None:
    listing = engine.list_items(args.user, args.kind)
    lines = []
    for lane in ("review", "flagged", "summaries"):
        items = listing.lane(lane)
        if items:
            lines.append(f"== {lane} ({len(items)})")
        for i in items:
            mark = "*" if i.recurring else " "
            lines.append(f"{mark} {i.doc_id}  {i.kind:<13} {i.confidence:.2f}  {elide(i.title, 60)}")
    for prob in listing.problems:
        lines.append(f"! unreadable staging file {prob.path}: {prob.reason}")
    _out(args, {"items": [i.to_dict() for i in listing.items],
                "problems": [{"path": str(p.path), "reason": p.reason} for p in listing.problems]},
         "\n".join(lines) or "nothing staged")


def _show(args: argparse.Namespace, engine: ReviewEngine) -> None:
    from curator.reflection.dated import described

    detail = engine.show(args.user, args.item)
    item = detail.item
    text = [f"{item.doc_id}  {item.kind}  confidence {item.confidence:.2f}  sha256 {item.content_hash}",
            f"title: {visible(item.title)}", f"gates: {', '.join(item.gates)}"]
    for flag in item.flags:
        text.append(f"FLAG {flag['flag']}: {visible(flag['reason'])}")
    dated = described(item.fields.get("dated"), engine.clock.now())
    if dated:
        text.append(f"dated: {dated}")
    text.append("")
    text.append(detail.revealed_text)
    if detail.old_text:
        text += ["", "--- before", visible(detail.old_text), "+++ after", visible(detail.new_text)]
    for ev in detail.evidence:
        text.append(
            f"[turn {ev.number}] {visible(ev.speaker or ev.role)}: {visible(ev.text)}"
            if ev.exists
            else f"[turn {ev.number}] (not found)"
        )
    _out(args, detail.to_dict(), "\n".join(text))


def _cycles(engine: ReviewEngine) -> Any:
    from curator.reflection.cycle.budget import approx_tokens
    from curator.review.cycles import CycleReview
    from curator.vault.settings import load_settings

    settings, _warnings = load_settings(engine.paths.settings_file)
    return CycleReview(engine.paths, engine, approx_tokens, clock=engine.clock,
                       git_commit=bool(settings["cycle.git_commit"]))


def review_cycle(args: argparse.Namespace, engine: ReviewEngine) -> int:
    """``review cycle list|show|approve|reject``."""
    from curator.reflection.cycle.summary import render

    cycles = _cycles(engine)
    if args.action == "list":
        rows = cycles.records(args.user)
        lines = [f"{r.cycle_id}  #{r.number:<3} {r.status:<8} {len(r.operations)} operation(s)  {r.trigger}"
                 for r in rows]
        _out(args, [{"cycle_id": r.cycle_id, "number": r.number, "status": r.status,
                     "operations": len(r.operations), "trigger": r.trigger} for r in rows],
             "\n".join(lines) or "no cycles")
        return 0
    if not args.cycle:
        raise ReviewError(f"review cycle {args.action} needs a cycle id")
    if args.action == "show":
        record = cycles.show(args.user, args.cycle)
        ops = "\n".join(f"{o.op_id} [{', '.join(o.evidence) or 'meta-reflection'}]\n{o.render()}"
                        for o in record.operations)
        _out(args, json.loads(record.to_json()), f"status: {record.status}\n\n{render(record)}\n{ops}")
        return 0
    if args.action == "reject":
        answer = cycles.reject(args.user, args.cycle, args.reason)
    else:
        edits = {}
        for item in args.edit:
            op, sep, text = item.partition("=")
            if not sep:
                raise ReviewError(f"--edit needs OP=TEXT, got {item!r}")
            edits[op.strip()] = text
        memory_text = Path(args.memory_file).read_text("utf-8") if args.memory_file else None
        chosen = [o.strip() for o in args.ops.split(",") if o.strip()] if args.ops is not None else None
        answer = cycles.approve(args.user, args.cycle, ops=chosen, memory=not args.no_memory, memory_text=memory_text,
                                edits=edits or None, accept_flags=args.accept_flags)
    _out(args, answer.to_dict(), answer.message + (f"; commit {answer.commit[:12]}" if answer.commit else ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry (``python -m curator.cli.review``) until ``curator`` wires it."""
    parser = argparse.ArgumentParser(prog="curator")
    parser.add_argument("--vault", default=None)
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
