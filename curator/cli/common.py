"""What the engine's command modules share: opening the vault, and reading times."""

from __future__ import annotations

import argparse
import re
import sys
from typing import TYPE_CHECKING

from curator.cli.main import CliError, vault_of
from curator.clock import parse_iso

if TYPE_CHECKING:  # the engine loads when a command runs, not for --help
    from curator.engine import Engine

_RELATIVE_RE = re.compile(r"^(\d+(?:\.\d+)?)([smhdw])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def missing_action(parser: argparse.ArgumentParser) -> int:
    """A command group called without its action: print its help, exit 2."""
    parser.print_help(sys.stderr)
    return 2


def writer(args: argparse.Namespace, triggers: bool = True) -> Engine:
    """The vault's writer engine (takes the single-writer lock)."""
    from curator.engine import Engine

    return Engine(vault_of(args), triggers=triggers)


def reader(args: argparse.Namespace, triggers: bool = False) -> Engine:
    """A reader engine beside a running watcher; the vault must exist."""
    vault = vault_of(args)
    if not vault.is_dir():
        raise CliError(f"no vault at {vault} (run `curator init --vault {vault}` first)")
    from curator.engine import Engine

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
