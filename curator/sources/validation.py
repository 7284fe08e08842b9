"""Checks a turn (or a turn-ledger record) must pass before it is committed anywhere.

The ledger is append-only and replayed into the index at every start, so a record the index
would refuse (a NaN timestamp, a number where text belongs) must never reach it: one such
record used to break every later import, watch and reindex. Adapters produce turns; these
checks are the single gate between them and the ledger, and the same checks let a replay
set aside a record written before the gate existed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import replace
from itertools import repeat
from operator import attrgetter
from typing import Any

from curator.sources.turns import ROLES, Turn

# 1970-01-01 .. 2200-01-01: a chat message outside that range is a broken clock or a broken
# file, and datetime cannot even print the far end of what a float can hold.
MIN_TIMESTAMP = 0.0
MAX_TIMESTAMP = 7258118400.0
MAX_TEXT_CHARS = 2_000_000
DUPLICATE_MARK = "#dup"
_STRING_FIELDS = ("source_id", "file", "conversation", "key", "speaker", "text", "context")
_RECORD_TEXT_FIELDS = (*_STRING_FIELDS, "role", "sha256", "user_id")
# Every turn of an import passes these checks: the usual case (every text field exactly a
# str) is one set test, and only a turn that fails it is walked field by field for the reason.
_TEXT_VALUES = attrgetter(*_STRING_FIELDS)
_ONLY_STR = {str}
LEDGER_OPS = ("add", "status", "move")
TURN_STATUSES = ("active", "edited", "removed")


def timestamp_problem(value: Any) -> str | None:
    """Why ``value`` is not a usable message time (None when it is)."""
    if type(value) is float and MIN_TIMESTAMP <= value <= MAX_TIMESTAMP:
        return None  # the usual case, decided at once (NaN and infinities fail the range)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"timestamp is {type(value).__name__}, not a number"
    if not math.isfinite(value):
        return f"timestamp {value!r} is not a finite number"
    if not MIN_TIMESTAMP <= float(value) <= MAX_TIMESTAMP:
        return f"timestamp {value!r} is outside 1970..2200"
    return None


def extra_problem(extra: Any) -> str | None:
    """Why ``extra`` cannot be stored as JSON in the ledger and the index (None when it can)."""
    if not isinstance(extra, dict):
        return "extra is not a mapping"
    # Nearly every turn's extra is a few text or number fields: checked directly, which is
    # much cheaper than serialising it only to throw the text away.
    for key, value in extra.items():
        if type(key) is not str:
            break
        kind = type(value)
        if kind is str or kind is bool or kind is int or value is None:
            continue
        if kind is float and math.isfinite(value):
            continue
        break
    else:
        return None
    try:
        json.dumps(extra, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return f"extra cannot be stored ({exc})"
    return None


def turn_problem(turn: Turn) -> str | None:
    """Why ``turn`` cannot be committed (None when it can)."""
    if set(map(type, _TEXT_VALUES(turn))) != _ONLY_STR:
        for name in _STRING_FIELDS:
            if not isinstance(getattr(turn, name), str):
                return f"{name} is {type(getattr(turn, name)).__name__}, not text"
    if not turn.text.strip():
        return "the message has no text"
    if len(turn.text) > MAX_TEXT_CHARS:
        return f"the message is longer than {MAX_TEXT_CHARS} characters"
    if "\x00" in turn.text:
        return "the message contains NUL characters"
    if turn.role not in ROLES:
        return f"unknown role {str(turn.role)[:40]!r}"
    if isinstance(turn.position, bool) or not isinstance(turn.position, int) or turn.position < 0:
        return f"position {turn.position!r} is not a count"
    problem = timestamp_problem(turn.timestamp)
    if problem:
        return problem
    return extra_problem(turn.extra)


def checked_turns(turns: Iterable[Turn]) -> tuple[list[Turn], list[str]]:
    """The turns that pass ``turn_problem``, and one reason per turn that does not."""
    good: list[Turn] = []
    problems: list[str] = []
    for turn in turns:
        problem = turn_problem(turn)
        if problem is None:
            good.append(turn)
        else:
            where = f"{turn.file} message {turn.position + 1 if isinstance(turn.position, int) else '?'}"
            problems.append(f"{where}: {problem}; skipped")
    return good, problems


def base_key(key: str) -> str:
    """A message key without the suffix ``unique_keys`` gave a repeated id."""
    return key.split(DUPLICATE_MARK, 1)[0]


def unique_keys(turns: list[Turn], taken: dict[tuple[str, str], int] | None = None) -> tuple[list[Turn], int]:
    """Give every repeated message id in one unit a key of its own.

    Two messages sharing an id inside one file are two messages (clients do reuse ids), so
    the second becomes ``<id>#dup2``, the third ``<id>#dup3``; the suffix depends only on
    the order in the file, so re-reading it gives the same keys.

    Args:
        turns: the turns of one read, in file order.
        taken: how many times each (conversation, id) already occurs in the earlier part of
            the file (for a read that only saw appended lines).

    Returns:
        (turns with unique keys, how many were renamed).
    """
    seen: dict[tuple[str, str], int] = dict(taken or {})
    out: list[Turn] = []
    renamed = 0
    for turn in turns:
        if turn.key.startswith("pos:"):
            out.append(turn)
            continue
        slot = (turn.conversation, turn.key)
        count = seen.get(slot, 0) + 1
        seen[slot] = count
        if count > 1:
            turn = replace(turn, key=f"{turn.key}{DUPLICATE_MARK}{count}")
            renamed += 1
        out.append(turn)
    return out, renamed


def record_problem(record: Any) -> str | None:
    """Why a turn-ledger record cannot be applied to the index (None when it can)."""
    if not isinstance(record, dict):
        return "not an object"
    seq = record.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        return f"seq {seq!r} is not a positive integer"
    op = record.get("op")
    if op not in LEDGER_OPS:
        return f"unknown op {op!r}"
    at = record.get("at", 0.0)
    if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at):
        return f"at {at!r} is not a finite number"
    if op == "add":
        return _add_problem(record)
    number = record.get("number")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        return f"number {number!r} is not a turn number"
    if op == "status" and record.get("status") not in TURN_STATUSES:
        return f"unknown status {record.get('status')!r}"
    if op == "move":
        position = record.get("position")
        if not isinstance(record.get("key"), str) or isinstance(position, bool) or not isinstance(position, int):
            return "move without a text key and an integer position"
    return None


def _add_problem(record: dict[str, Any]) -> str | None:
    turn = record.get("turn")
    if not isinstance(turn, dict):
        return "add without a turn"
    number = turn.get("number")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        return f"turn number {number!r} is not a positive integer"
    if set(map(type, map(turn.get, _RECORD_TEXT_FIELDS, repeat("")))) != _ONLY_STR:
        for name in _RECORD_TEXT_FIELDS:
            if not isinstance(turn.get(name, ""), str):
                return f"turn {name} is {type(turn.get(name)).__name__}, not text"
    if turn.get("role") not in ROLES:
        return f"unknown role {str(turn.get('role'))[:40]!r}"
    position = turn.get("position")
    if isinstance(position, bool) or not isinstance(position, int):
        return f"position {position!r} is not an integer"
    problem = timestamp_problem(turn.get("timestamp"))
    if problem:
        return problem
    if turn.get("status", "active") not in TURN_STATUSES:
        return f"unknown status {turn.get('status')!r}"
    supersedes = record.get("supersedes")
    if supersedes is not None and (isinstance(supersedes, bool) or not isinstance(supersedes, int)):
        return f"supersedes {supersedes!r} is not a turn number"
    return extra_problem(turn.get("extra", {}))
