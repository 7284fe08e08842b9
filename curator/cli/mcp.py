"""``curator mcp``: serve the vault's memory to a chat client over stdio, or print its configuration."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from curator.cli.main import CliError, emit, vault_of


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser("mcp", parents=[common],
                              help="serve memory_search / memory_retrieve / memory_save to a chat client (stdio MCP)")
    p.add_argument("--user", default="default", help="the user whose memory is served")
    p.add_argument("--print-config", metavar="CLIENT", dest="print_config",
                   help="print the configuration for lmstudio, jan, claude-desktop, claude-code, cursor, "
                        "vscode or openwebui")
    p.set_defaults(handler=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from curator.mcp.clients import CLIENTS, config_for, found_config, server_command

    vault = vault_of(args)
    if args.print_config:
        client = args.print_config.lower().replace("_", "-").replace(" ", "")
        client = {"lm-studio": "lmstudio", "open-webui": "openwebui", "claude": "claude-desktop"}.get(client, client)
        if client not in CLIENTS:
            raise CliError(f"unknown client {args.print_config!r}; one of: {', '.join(CLIENTS)}")
        text = config_for(client, vault, args.user)
        found = found_config(client)
        data = {"client": client, "name": CLIENTS[client].name, "where": CLIENTS[client].how,
                "config": text, "command": server_command(vault, args.user),
                "config_file": str(found) if found else None}
        emit(args, data, text.rstrip("\n"))
        return 0
    if not vault.is_dir():
        raise CliError(f"no vault at {vault} (run `curator init --vault {vault}` first)")
    return serve(vault, args.user)


def serve(vault: Any, user_id: str) -> int:
    """Run the stdio server until the client closes the connection.

    The server answers the client's handshake at once; the vault is opened meanwhile on a
    background thread (``curator.mcp.stdio``), and closed when the client goes.
    """
    from curator.mcp.stdio import serve_stdio
    from curator.vault.paths import validate_user_id

    validate_user_id(user_id)
    # stdout carries the protocol: every log line goes to stderr.
    logging.getLogger().handlers[:] = [logging.StreamHandler(sys.stderr)]
    with contextlib.ExitStack() as stack:

        def open_memory() -> Any:
            from curator.mcp.agent import AgentMemory
            from curator.mcp.server import ServedMemory
            from curator.mcp.usage import UsageLog
            from curator.vault.paths import VaultPaths
            from curator.vault.store import DocumentStore

            index = stack.enter_context(_reader(Path(vault)))
            paths = VaultPaths(Path(vault).expanduser().resolve())
            usage = UsageLog(paths.root / "usage.sqlite")
            stack.callback(usage.close)
            return ServedMemory(AgentMemory(paths, index, DocumentStore(paths), usage, user_id=user_id,
                                            client="mcp"))

        serve_stdio(open_memory)
    return 0


@contextlib.contextmanager
def _reader(vault: Path) -> Iterator[Any]:
    """The vault's index for reading. The server reads nothing else, so it opens the index file
    alone (start-up is what a client waits for); a missing or damaged one goes through a reader
    engine, which heals it or says why it cannot."""
    from curator.index.database import Index, IndexDamagedError
    from curator.vault.paths import VaultPaths

    path = VaultPaths(vault.expanduser().resolve()).index_file
    if path.is_file():
        try:
            index = Index(path)
        except IndexDamagedError:
            pass
        else:
            try:
                yield index
            finally:
                index.close()
            return
    from curator.engine import Engine

    with Engine(vault, writer=False, triggers=False) as engine:
        yield engine.index
