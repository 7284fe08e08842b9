"""The ``curator`` command: global options, the subcommand registry, error handling.

Subcommands live in their own modules, each with ``register(subparsers, common)``;
``REGISTRY`` lists them, so another part of the product adds commands by adding a module
name here. ``common`` is a parent parser carrying ``--vault`` and ``--json`` so those
options work before or after the subcommand name. A handler is ``fn(args) -> int`` and
reports a user error by raising ``CliError``: the user sees one clear line, never a
traceback, and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from curator import __version__

# One module per command group; each has register(subparsers, common).
REGISTRY: list[str] = [
    "curator.cli.vault", "curator.cli.sources", "curator.cli.watch", "curator.cli.status",
    "curator.cli.search", "curator.cli.review", "curator.cli.reflect", "curator.cli.models",
    "curator.cli.bench", "curator.cli.mcp", "curator.cli.lifecycle",
    "curator.cli.turns", "curator.cli.memory", "curator.cli.send",
    "curator.cli.discover",  # discover adds to the `source` group: after it
]

# Which modules a command needs: a command imports only its own (the search path must not
# pay for review, reflection or the model). ``--help`` and an unknown command build them all.
COMMANDS: dict[str, tuple[str, ...]] = {
    "init": ("curator.cli.vault",), "reindex": ("curator.cli.vault",), "import": ("curator.cli.vault",),
    "source": ("curator.cli.sources", "curator.cli.discover"), "watch": ("curator.cli.watch",),
    "status": ("curator.cli.status",), "search": ("curator.cli.search",), "show": ("curator.cli.search",),
    "review": ("curator.cli.review",), "reflect": ("curator.cli.reflect",), "models": ("curator.cli.models",),
    "bench": ("curator.cli.bench",), "mcp": ("curator.cli.mcp",), "lifecycle": ("curator.cli.lifecycle",),
    "archive": ("curator.cli.lifecycle",), "turns": ("curator.cli.turns",), "send": ("curator.cli.send",),
    **{name: ("curator.cli.memory",) for name in ("remember", "add", "pin", "unpin", "retire", "merge",
                                                  "approve-all", "discard-all")},
}
_GLOBAL_WITH_VALUE = ("--vault",)

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_LOCKED = 3
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """A problem with what the user asked for; printed as one line."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def vault_of(args: argparse.Namespace) -> Path:
    """The vault a command works on."""
    if getattr(args, "vault", None):
        return Path(args.vault).expanduser()
    from curator.vault.paths import default_vault

    return default_vault()


def emit(args: argparse.Namespace, data: Any, text: Callable[[], str] | str) -> None:
    """Print ``data`` as JSON with --json, else the human text."""
    if getattr(args, "json", False):
        print(json.dumps(data, ensure_ascii=False, indent=2, default=str), flush=True)
    else:
        rendered = text() if callable(text) else text
        if rendered:
            print(rendered, flush=True)


def command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is no option or option value)."""
    skip = False
    for token in argv:
        if skip:
            skip = False
        elif token in _GLOBAL_WITH_VALUE:
            skip = True
        elif not token.startswith("-"):
            return token
    return None


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` finds it, without importing shutil."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 80
    except (AttributeError, ValueError, OSError):
        return 80


class _Formatter(argparse.HelpFormatter):
    # argparse makes a formatter for every option it adds, and the default one imports shutil
    # (with zlib, bz2 and lzma) for the width: a twentieth of `curator search`'s start.
    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or max(_columns() - 2, 11))


class _Parser(argparse.ArgumentParser):
    """An argument parser with the shutil-free formatter; subcommands inherit the class."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: with ``command``, only that command's modules; else every one."""
    common = _Parser(add_help=False)
    common.add_argument("--vault", metavar="PATH", default=argparse.SUPPRESS,
                        help="vault folder (default: $CURATOR_VAULT or the user data folder)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="machine-readable output")
    common.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                        help="log more (-v: decisions, -vv: debug)")
    parser = _Parser(
        prog="curator",
        description="Memory Curator: watch local LLM chat folders into a searchable, reviewed memory vault.",
    )
    # The same options again, with real defaults: argparse shares action objects between a
    # parent and its children, so the SUPPRESS defaults of ``common`` must stay untouched.
    parser.add_argument("--vault", metavar="PATH", default=None,
                        help="vault folder (default: $CURATOR_VAULT or the user data folder)")
    parser.add_argument("--json", action="store_true", default=False, help="machine-readable output")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (-v, -vv)")
    parser.set_defaults(handler=None)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = COMMANDS.get(command or "", ()) or tuple(REGISTRY)
    for module_name in modules:
        importlib.import_module(module_name).register(subparsers, common)
    return parser


def _configure_logging(verbosity: int) -> None:
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``curator`` command line; returns the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(command_of(arguments))
    args = parser.parse_args(arguments)
    _configure_logging(int(args.verbose or 0))
    if args.handler is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.handler(args) or 0)
    except CliError as exc:
        print(f"curator: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:
        code = _exit_code_of(exc)
        if code is None:
            raise
        print(f"curator: {exc}", file=sys.stderr)
        return code


def _exit_code_of(exc: Exception) -> int | None:
    """The exit code of an error the person can act on (its message is the one line they see),
    or None for a bug. The error classes are imported here, when one happened: importing them
    up front cost every command's start-up (``curator mcp``'s handshake waits for it)."""
    from curator.sources.adapters import UnknownAdapterError
    from curator.vault.documents import DocumentError
    from curator.vault.lock import VaultLockedError
    from curator.vault.paths import UnsafePathError

    if isinstance(exc, VaultLockedError):
        return EXIT_LOCKED
    if isinstance(exc, UnknownAdapterError | UnsafePathError | DocumentError | FileNotFoundError | ValueError):
        return EXIT_USAGE
    if isinstance(exc, OSError):
        return EXIT_FAILURE
    return None


if __name__ == "__main__":
    # Run through the imported module so ``python -m curator.cli.main`` and the console script
    # share one set of classes (CliError raised by subcommand modules must be caught here).
    from curator.cli.main import main as _main

    sys.exit(_main())
