"""Deciding what changed in a unit: new, edited, moved, removed or restored messages.

Each function adds the ledger records for the change to a ``UnitPlan``; nothing is written here.
"""

from __future__ import annotations

import difflib

from curator.index.database import Index
from curator.sources.turns import IndexedTurn, Turn
from curator.sources.unit_plan import UnitPlan


def restore_or_add(index: Index, plan: UnitPlan, turn: Turn, supersedes: int | None = None, *,
                   fresh: bool = False) -> None:
    """Plan a message the unit now holds: restore its earlier row when the same text is back, else add it."""
    if fresh:
        plan.add(turn, supersedes)
        return
    previous = index.find_identity(turn.source_id, turn.file, turn.conversation, turn.key, turn.sha256, turn.text)
    if previous is not None and previous.status != "active":
        plan.status(previous.number, "active", "the same message is back in the source")
        if previous.position != turn.position:
            plan.move(previous.number, turn.key, turn.position)
        return
    plan.add(turn, supersedes)


def plan_append(index: Index, plan: UnitPlan, turns: list[Turn]) -> None:
    # New lines of an append-only file. A line that repeats a known message id with new
    # text is an edit (clients that log updates as new lines); an identical one is a dup.
    current: dict[tuple[str, str], tuple[int, str]] = {}
    for turn in turns:
        slot = (turn.conversation, turn.key)
        if slot not in current:
            held = index.find_key(turn.source_id, turn.file, turn.conversation, turn.key)
            if held is not None:
                current[slot] = (held.number, held.sha256)
        if slot in current:
            number, sha = current[slot]
            if sha == turn.sha256:
                continue
            plan.status(number, "edited", "a newer version of this message was written")
            new_number = plan.add(turn, supersedes=number)
            current[slot] = (new_number, turn.sha256)
            continue
        before = plan.next_number
        restore_or_add(index, plan, turn)
        if plan.next_number > before:
            current[slot] = (before, turn.sha256)


def plan_reconcile(index: Index, plan: UnitPlan, old: list[IndexedTurn], new: list[Turn], *,
                   fresh: bool = False) -> None:
    # Compare a whole unit with what the index holds for it (``fresh``: nothing, ever).
    last_by_key: dict[tuple[str, str], Turn] = {}
    for turn in new:
        if not turn.key.startswith("pos:"):
            last_by_key[(turn.conversation, turn.key)] = turn  # the last version wins
    old_keyed = {(t.conversation, t.key): t for t in old if not t.key.startswith("pos:")}
    for slot, turn in last_by_key.items():
        before = old_keyed.get(slot)
        if before is None:
            restore_or_add(index, plan, turn, fresh=fresh)
        elif before.sha256 == turn.sha256:
            if before.position != turn.position:
                plan.move(before.number, turn.key, turn.position)
        else:
            plan.status(before.number, "edited", "the message was changed in the source")
            restore_or_add(index, plan, turn, supersedes=before.number)
    for slot, before in old_keyed.items():
        if slot not in last_by_key:
            plan.status(before.number, "removed", "the message is no longer in the source")
    old_pos = [t for t in old if t.key.startswith("pos:")]
    new_pos = [t for t in new if t.key.startswith("pos:")]
    matcher = difflib.SequenceMatcher(
        None,
        [(t.conversation, t.role, t.sha256) for t in old_pos],
        [(t.conversation, t.role, t.sha256) for t in new_pos],
        autojunk=False,
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        olds, news = old_pos[i1:i2], new_pos[j1:j2]
        if tag == "equal":
            for before, turn in zip(olds, news, strict=True):
                if before.key != turn.key or before.position != turn.position:
                    plan.move(before.number, turn.key, turn.position)
            continue
        paired = min(len(olds), len(news)) if tag == "replace" else 0
        for before, turn in zip(olds[:paired], news[:paired], strict=True):
            plan.status(before.number, "edited", "the message was changed in the source")
            restore_or_add(index, plan, turn, supersedes=before.number)
        for before in olds[paired:]:
            plan.status(before.number, "removed", "the message is no longer in the source")
        for turn in news[paired:]:
            restore_or_add(index, plan, turn, fresh=fresh)
