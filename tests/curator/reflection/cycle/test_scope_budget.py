"""What a cycle may read, how much, and chunking that never drops anything."""

from __future__ import annotations

import pytest

from curator.reflection.cycle.budget import OutputBudget, allot, chunk
from curator.reflection.cycle.scope import last_entries, readable


@pytest.mark.parametrize("rel,allowed", [
    ("MEMORY.md", True),
    ("memory/meta/evolution.md", True),
    ("memory/meta/decay-scores.json", True),
    ("memory/graph/entities/maya.md", True),
    ("Knowledge/Facts/x--abc123.md", True),
    ("memory/meta/other.json", False),
    ("memory/tools/run.py", False),
    ("memory/SOUL.md", False),
    ("IDENTITY.md", False),
    ("USER.md", False),
    ("curator.yaml", False),
    ("Logs/reflector/batch_001.json", False),
    ("Reflections/summary.md", False),
    ("../other/MEMORY.md", False),
    ("/etc/passwd", False),
])
def test_never_read_list(rel: str, allowed: bool) -> None:
    assert readable(rel) is allowed


def words(text: str) -> int:
    return len(text.split())


def test_chunks_hold_every_item_in_order_within_room() -> None:
    items = [f"item {i} " + "w " * (i % 7) for i in range(50)]
    parts = chunk(items, words, 20)
    assert [x for part in parts for x in part] == items
    assert all(sum(words(x) + 1 for x in part) <= 20 for part in parts)


def test_a_long_item_is_split_into_marked_parts_not_cut() -> None:
    long = " ".join(f"w{i}" for i in range(100))
    parts = chunk([long], words, 30)
    pieces = [x for part in parts for x in part]
    assert len(pieces) > 1 and pieces[0].startswith("(part 1/")
    assert " ".join(p.split(") ", 1)[1] for p in pieces) == long


def test_allocation_keeps_oldest_first_and_counts_the_rest() -> None:
    got = allot("episodes", ["a b", "c d", "e f"], words, allocation=4)
    assert got.items == ["a b", "c d"] and got.left_out == 1 and got.tokens == 4


def test_output_budget_grants_what_is_left() -> None:
    budget = OutputBudget(limit=1000)
    budget.spend("cycle_survey", 900)
    assert budget.grant(300) == 100
    budget.spend("cycle_meta", 100)
    assert budget.grant(300) == 0


def test_last_five_full_log_entries() -> None:
    log = '# Reflection Log\n\n## Summary Lines\n## Reflection #1 — d | approved | Insight: "x"\n\n## Full Entries\n\n'
    log += "".join(f"## Reflection #{n} — d | approved | Insight: \"i\"\n\n- body {n}\n\n" for n in range(2, 10))
    got = last_entries(log)
    assert [e.splitlines()[0][:16] for e in got] == [f"## Reflection #{n}" for n in range(5, 10)]
