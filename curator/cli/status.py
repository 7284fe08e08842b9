"""``curator status``: sources and their health, counts, what each trigger counts."""

from __future__ import annotations

import argparse
from typing import Any

from curator.cli.common import reader
from curator.cli.main import emit


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Add this module's commands to the ``curator`` parser."""
    p = subparsers.add_parser("status", parents=[common], help="sources, health, counts, triggers")
    p.set_defaults(handler=cmd_status)


def cmd_status(args: argparse.Namespace) -> int:
    with reader(args, triggers=True) as engine:
        data = engine.status()

    def text() -> str:
        lines = [f"vault {data['vault']}"]
        writer = data.get("writer")
        lines.append(f"watcher: running (pid {writer.get('pid')})" if writer else "watcher: not running")
        if not data["sources"]:
            lines.append("no sources")
        for s in data["sources"]:
            lines.append(
                f"source {s['id']} [{s['status']}] {s['adapter']} user={s['user_id']} turns={s['turns']} {s['path']}"
            )
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
