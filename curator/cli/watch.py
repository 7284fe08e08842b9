"""``curator watch``: watch the sources in the foreground, printing events (``--json``: one per line)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from curator.cli.common import writer
from curator.events import Event
from curator.text_safety import visible

if TYPE_CHECKING:
    from curator.engine import Engine


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Add this module's commands to the ``curator`` parser."""
    p = subparsers.add_parser("watch", parents=[common], help="watch the sources until stopped")
    p.add_argument("--reflect", action="store_true",
                   help="also run the reflections the triggers queue, on the configured model")
    p.set_defaults(handler=cmd_watch)


def cmd_watch(args: argparse.Namespace) -> int:
    stop = threading.Event()
    printer = _EventPrinter(bool(args.json))

    def handle_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, handle_signal)
    signal.signal(signal.SIGINT, handle_signal)
    with writer(args) as engine:
        engine.bus.subscribe(printer.on_event)
        _announce(engine, printer.out)
        engine.start_watching()
        if getattr(args, "reflect", False):
            engine.start_reflection()
        printer.out("ready", {"vault": str(engine.paths.root)},
                    f"watching; vault {engine.paths.root}; Ctrl+C to stop")
        while not stop.wait(0.5):
            pass
        printer.out("stopping", {}, "stopping")
    return 0


class _EventPrinter:
    """Prints the engine's events, one line each (a JSON object with ``--json``)."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        # Events arrive from the watcher thread and the reflection thread at once; one lock
        # around each whole line keeps two events from sharing a line of --json output.
        self.write_lock = threading.Lock()

    def out(self, kind: str, data: dict[str, Any], line: str) -> None:
        rendered = json.dumps({"event": kind, **data}, ensure_ascii=False, default=str) if self.as_json else line
        with self.write_lock:
            sys.stdout.write(rendered + "\n")
            sys.stdout.flush()

    def on_event(self, event: Event) -> None:
        out = self.out
        d = event.data
        if event.kind == "turns.added":
            for t in d["turns"]:
                text = visible(t.text.replace("\n", " "))
                out("turn", {"number": t.number, "user_id": t.user_id, "role": t.role, "source_id": t.source_id,
                             "text": t.text}, f"turn {t.number} [{t.user_id}] {t.role}: {text[:100]}")
        elif event.kind == "turns.edited":
            out("turns.edited", d, "edited in source: " + ", ".join(f"{o}->{n}" for _, o, n in d["changes"]))
        elif event.kind == "turns.removed":
            out("turns.removed", d, f"removed from source (kept): turns {d['numbers']}")
        elif event.kind == "source.status":
            out("source.status", d, f"source {d['source_id']}: {d['status']} {d['detail']}".rstrip())
        elif event.kind == "source.problem":
            out("source.problem", d, f"skipped in {d['source_id']}: {d['message']}")
        elif event.kind == "trigger.decision":
            fired = "FIRED" if d.get("fired") else "waits"
            out(
                "trigger.decision",
                d,
                f"trigger {d.get('trigger')} {fired} [{d.get('user_id')}]: {d.get('reason', '')}",
            )
        elif event.kind == "reflection.finished":
            outcome = d.get("outcome") or {}
            staged = len(outcome.get("staged") or [])
            out("reflection", {"job_id": d.get("job_id"), "job_kind": d.get("job_kind"), "outcome": outcome},
                f"reflection {d.get('job_kind')} [{d.get('user_id')}]: {outcome.get('status')}"
                + (f", staged {staged}" if staged else "") + (f" ({outcome['error']})" if outcome.get("error") else ""))


def _announce(engine: Engine, out: Callable[[str, dict[str, Any], str], None]) -> None:
    """What is watched, and the warnings the engine opened with."""
    if not engine.settings.sources:
        out("info", {"message": "no sources"}, "no sources configured (add one with `curator source add PATH`)")
    for source in engine.settings.sources:
        out(
            "source",
            source.to_dict(),
            f"watching {source.id}: {source.path} ({source.adapter}, user {source.user_id})",
        )
    for warning in engine.warnings:
        out("warning", {"message": warning}, f"warning: {warning}")
