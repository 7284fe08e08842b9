"""``curator init``, ``import`` and ``reindex``: make a vault, read a folder once, rebuild the index."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from curator.cli.common import writer
from curator.cli.main import CliError, emit


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Add this module's commands to the ``curator`` parser."""
    p = subparsers.add_parser("init", parents=[common], help="create a vault (layout and settings)")
    p.set_defaults(handler=cmd_init)

    p = subparsers.add_parser("reindex", parents=[common], help="rebuild the index from vault and sources")
    p.set_defaults(handler=cmd_reindex)

    p = subparsers.add_parser("import", parents=[common], help="read a folder or file once")
    p.add_argument("path")
    p.add_argument("--adapter", help="a format name (sillytavern, jan, lmstudio, textgen_webui, chatgpt, claude_ai, "
                   "claude_code, openclaw, koboldcpp, jsonl, turn_folder, episodes, auto); "
                   "default: detected per file")
    p.add_argument("--user", default="default")
    p.set_defaults(handler=cmd_import)


def cmd_init(args: argparse.Namespace) -> int:
    with writer(args, triggers=False) as engine:
        data = {"vault": str(engine.paths.root), "settings": str(engine.paths.settings_file)}
    emit(args, data, f"vault ready at {data['vault']}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from curator.cli.progress import ProgressPrinter
    from curator.engine import SourceError

    with writer(args) as engine:
        try:
            with ProgressPrinter(engine.bus):
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
    with writer(args, triggers=False) as engine:
        report = engine.reindex()
    data = report.to_dict()

    def text() -> str:
        verdict = "identical to the live index" if report.equal else "differed from the live index (replaced)"
        lines = [f"rebuilt: {report.turns} turns, {report.documents} documents; {verdict}"]
        lines += [f"  {d}" for d in report.differences]
        return "\n".join(lines)

    emit(args, data, text)
    return 0
