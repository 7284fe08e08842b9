"""``curator source add|list|remove``: the watched chat folders."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from curator.cli.common import missing_action, writer
from curator.cli.main import CliError, emit, vault_of


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Add this module's commands to the ``curator`` parser."""
    p = subparsers.add_parser("source", parents=[common], help="add, list or remove watched sources")
    sources = p.add_subparsers(dest="source_command", metavar="ACTION")
    p.set_defaults(handler=lambda args: missing_action(p))
    a = sources.add_parser("add", parents=[common], help="watch a folder (or a file)")
    a.add_argument("path")
    a.add_argument("--adapter", help="a format name (sillytavern, jan, lmstudio, textgen_webui, chatgpt, claude_ai, "
                   "claude_code, openclaw, koboldcpp, jsonl, turn_folder, episodes, auto); "
                   "default: detected per file")
    a.add_argument("--user", default="default", help="user id the source belongs to")
    a.set_defaults(handler=cmd_source_add)
    a = sources.add_parser("list", parents=[common], help="list sources")
    a.set_defaults(handler=cmd_source_list)
    a = sources.add_parser("remove", parents=[common], help="stop watching a source (its turns are kept)")
    a.add_argument("source", help="source id or path")
    a.set_defaults(handler=cmd_source_remove)


def cmd_source_add(args: argparse.Namespace) -> int:
    from curator.engine import SourceError

    with writer(args, triggers=False) as engine:
        try:
            source = engine.add_source(Path(args.path), args.adapter, args.user)
        except SourceError as exc:
            raise CliError(str(exc)) from None
    emit(args, source.to_dict(), f"added source {source.id}: {source.path} ({source.adapter}, user {source.user_id})")
    return 0


def cmd_source_list(args: argparse.Namespace) -> int:
    from curator.vault.settings import load_settings

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

    with writer(args, triggers=False) as engine:
        try:
            source = engine.remove_source(args.source)
        except SourceError as exc:
            raise CliError(str(exc)) from None
    emit(args, source.to_dict(), f"removed source {source.id} (its turns and memories are kept)")
    return 0
