"""``curator`` subcommands of the engine: init, source, watch, status, search, show, reindex, import."""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from curator.cli import CliError, emit, vault_of
from curator.clock import iso_utc, parse_iso
from curator.events import Event
from curator.search import SearchFilters

_RELATIVE_RE = re.compile(r"^(\d+(?:\.\d+)?)([smhdw])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Add the engine's subcommands to the ``curator`` parser."""
    p = subparsers.add_parser("init", parents=[common], help="create a vault (layout and settings)")
    p.set_defaults(handler=cmd_init)

    p = subparsers.add_parser("source", parents=[common], help="add, list or remove watched sources")
    sources = p.add_subparsers(dest="source_command", metavar="ACTION")
    p.set_defaults(handler=lambda args: _missing_action(p))
    a = sources.add_parser("add", parents=[common], help="watch a folder (or a file)")
    a.add_argument("path")
    a.add_argument("--adapter", help="jsonl, turn_folder or episodes (default: detected)")
    a.add_argument("--user", default="default", help="user id the source belongs to")
    a.set_defaults(handler=cmd_source_add)
    a = sources.add_parser("list", parents=[common], help="list sources")
    a.set_defaults(handler=cmd_source_list)
    a = sources.add_parser("remove", parents=[common], help="stop watching a source (its turns are kept)")
    a.add_argument("source", help="source id or path")
    a.set_defaults(handler=cmd_source_remove)

    p = subparsers.add_parser("watch", parents=[common], help="watch the sources until stopped")
    p.add_argument("--reflect", action="store_true",
                   help="also run the reflections the triggers queue, on the configured model")
    p.set_defaults(handler=cmd_watch)

    p = subparsers.add_parser("status", parents=[common], help="sources, health, counts, triggers")
    p.set_defaults(handler=cmd_status)

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

    p = subparsers.add_parser("reindex", parents=[common], help="rebuild the index from vault and sources")
    p.set_defaults(handler=cmd_reindex)

    p = subparsers.add_parser("import", parents=[common], help="read a folder or file once")
    p.add_argument("path")
    p.add_argument("--adapter", help="jsonl, turn_folder or episodes (default: detected)")
    p.add_argument("--user", default="default")
    p.set_defaults(handler=cmd_import)


def _missing_action(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _writer(args: argparse.Namespace, triggers: bool = True) -> Any:
    from curator.engine import Engine

    return Engine(vault_of(args), triggers=triggers)


def _reader(args: argparse.Namespace, triggers: bool = False) -> Any:
    from curator.engine import Engine

    vault = vault_of(args)
    if not vault.is_dir():
        raise CliError(f"no vault at {vault} (run `curator init --vault {vault}` first)")
    return Engine(vault, writer=False, triggers=triggers)


def parse_when(value: str | None, now: float) -> float | None:
    """An ISO date/time, or an age such as ``7d``/``12h`` counted back from ``now``."""
    if value is None:
        return None
    match = _RELATIVE_RE.match(value.strip())
    if match:
        return now - float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    parsed = parse_iso(value)
    if parsed is None:
        raise CliError(f"cannot read the time {value!r}: use ISO (2026-11-20, 2026-11-20T18:00Z) or 7d / 12h")
    return parsed


# ---- Commands


def cmd_init(args: argparse.Namespace) -> int:
    with _writer(args, triggers=False) as engine:
        data = {"vault": str(engine.paths.root), "settings": str(engine.paths.settings_file)}
    emit(args, data, f"vault ready at {data['vault']}")
    return 0


def cmd_source_add(args: argparse.Namespace) -> int:
    from curator.engine import SourceError

    with _writer(args, triggers=False) as engine:
        try:
            source = engine.add_source(Path(args.path), args.adapter, args.user)
        except SourceError as exc:
            raise CliError(str(exc)) from None
    emit(args, source.to_dict(), f"added source {source.id}: {source.path} ({source.adapter}, user {source.user_id})")
    return 0


def cmd_source_list(args: argparse.Namespace) -> int:
    from curator.settings import load_settings

    vault = vault_of(args)
    settings, _ = load_settings(vault / "curator.yaml")
    data = [s.to_dict() for s in settings.sources]

    def text() -> str:
        if not data:
            return "no sources (add one with `curator source add PATH`)"
        return "\n".join(f"{s['id']}  {s['adapter']:<11} user={s['user_id']}  {s['path']}" for s in data)

    emit(args, data, text)
    return 0


def cmd_source_remove(args: argparse.Namespace) -> int:
    from curator.engine import SourceError

    with _writer(args, triggers=False) as engine:
        try:
            source = engine.remove_source(args.source)
        except SourceError as exc:
            raise CliError(str(exc)) from None
    emit(args, source.to_dict(), f"removed source {source.id} (its turns and memories are kept)")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from curator.engine import SourceError

    with _writer(args) as engine:
        try:
            report = engine.import_path(Path(args.path), args.adapter, args.user)
        except SourceError as exc:
            raise CliError(str(exc)) from None
    data = report.summary()

    def text() -> str:
        lines = [f"{data['added']} new turns, {data['edited']} edited, {data['removed']} removed "
                 f"({data['units_read']} files read, {data['units_unchanged']} unchanged)"]
        lines += [f"skipped: {p}" for p in data["problems"]]
        return "\n".join(lines)

    emit(args, data, text)
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    with _writer(args, triggers=False) as engine:
        report = engine.reindex()
    data = report.to_dict()

    def text() -> str:
        verdict = "identical to the live index" if report.equal else "differed from the live index (replaced)"
        lines = [f"rebuilt: {report.turns} turns, {report.documents} documents; {verdict}"]
        lines += [f"  {d}" for d in report.differences]
        return "\n".join(lines)

    emit(args, data, text)
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    with _reader(args, triggers=True) as engine:
        data = engine.status()

    def text() -> str:
        lines = [f"vault {data['vault']}"]
        writer = data.get("writer")
        lines.append(f"watcher: running (pid {writer.get('pid')})" if writer else "watcher: not running")
        if not data["sources"]:
            lines.append("no sources")
        for s in data["sources"]:
            lines.append(f"source {s['id']} [{s['status']}] {s['adapter']} user={s['user_id']} turns={s['turns']} {s['path']}")
            if s.get("detail"):
                lines.append(f"  {s['detail']}")
            for problem in s["problems"][:5]:
                lines.append(f"  problem: {problem}")
        for user, counts in sorted(data["turns"].items()):
            lines.append(f"user {user}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + " turns")
        if data["documents"]:
            lines.append("documents: " + ", ".join(f"{n} {k}" for k, n in sorted(data["documents"].items())))
        for user, trig in sorted((data.get("triggers") or {}).items()):
            for line in trig.get("lines", []) if isinstance(trig, dict) else []:
                lines.append(f"triggers {user}: {line}")
        lines += [f"warning: {w}" for w in data["warnings"]]
        return "\n".join(lines)

    emit(args, data, text)
    return 0


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
    with _reader(args) as engine:
        hits = engine.search(" ".join(args.query), filters, args.limit)
    data = [h.to_dict() for h in hits]

    def text() -> str:
        if not hits:
            return "no results"
        out = []
        for h in hits:
            label = f"turn {h.number}" if h.item_type == "turn" else f"{h.kind} {h.id}"
            where = f"{h.provenance['source_id']}/{h.provenance['file']}" if h.item_type == "turn" else h.path
            out.append(f"{h.score:6.2f}  {label}  {where}\n        {h.snippet}")
        return "\n".join(out)

    emit(args, data, text)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    ref = args.id.strip().lstrip("#")
    with _reader(args) as engine:
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
                f"turn {item['number']} ({item['role']}, {item['speaker']}) {iso_utc(item['timestamp'])} [{item['status']}]\n"
                f"from {p['source_id']}/{p['file']} conversation {p['conversation']} {p['key']}\n\n{item['text']}"
            )
        meta = "\n".join(f"{k}: {json.dumps(v, ensure_ascii=False, default=str)}" for k, v in item["meta"].items())
        return f"{item['path']} ({item['area']})\n{meta}\n\n{item['body']}"

    emit(args, item, text)
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    stop = threading.Event()
    as_json = bool(args.json)

    def out(kind: str, data: dict[str, Any], line: str) -> None:
        if as_json:
            print(json.dumps({"event": kind, **data}, ensure_ascii=False, default=str), flush=True)
        else:
            print(line, flush=True)

    def on_event(event: Event) -> None:
        d = event.data
        if event.kind == "turns.added":
            for t in d["turns"]:
                text = t.text.replace("\n", " ")
                out("turn", {"number": t.number, "user_id": t.user_id, "role": t.role, "source_id": t.source_id,
                             "text": t.text}, f"turn {t.number} [{t.user_id}] {t.role}: {text[:100]}")
        elif event.kind == "turns.edited":
            out("turns.edited", d, f"edited in source: " + ", ".join(f"{o}->{n}" for _, o, n in d["changes"]))
        elif event.kind == "turns.removed":
            out("turns.removed", d, f"removed from source (kept): turns {d['numbers']}")
        elif event.kind == "source.status":
            out("source.status", d, f"source {d['source_id']}: {d['status']} {d['detail']}".rstrip())
        elif event.kind == "source.problem":
            out("source.problem", d, f"skipped in {d['source_id']}: {d['message']}")
        elif event.kind == "trigger.decision":
            fired = "FIRED" if d.get("fired") else "waits"
            out("trigger.decision", d, f"trigger {d.get('trigger')} {fired} [{d.get('user_id')}]: {d.get('reason', '')}")
        elif event.kind == "reflection.finished":
            outcome = d.get("outcome") or {}
            staged = len(outcome.get("staged") or [])
            out("reflection", {"job_id": d.get("job_id"), "job_kind": d.get("job_kind"), "outcome": outcome},
                f"reflection {d.get('job_kind')} [{d.get('user_id')}]: {outcome.get('status')}"
                + (f", staged {staged}" if staged else "") + (f" ({outcome['error']})" if outcome.get("error") else ""))

    def handle_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, handle_signal)
    signal.signal(signal.SIGINT, handle_signal)
    with _writer(args) as engine:
        engine.bus.subscribe(on_event)
        if not engine.settings.sources:
            out("info", {"message": "no sources"}, "no sources configured (add one with `curator source add PATH`)")
        for source in engine.settings.sources:
            out("source", source.to_dict(), f"watching {source.id}: {source.path} ({source.adapter}, user {source.user_id})")
        for warning in engine.warnings:
            out("warning", {"message": warning}, f"warning: {warning}")
        engine.start_watching()
        if getattr(args, "reflect", False):
            engine.start_reflection()
        out("ready", {"vault": str(engine.paths.root)}, f"watching; vault {engine.paths.root}; Ctrl+C to stop")
        while not stop.wait(0.5):
            pass
        out("stopping", {}, "stopping")
    return 0
