"""Token budgets of a cycle (seed 001): input allocations per source, output across phases.

The seed's input budget is about 30,000 tokens split by source; its output budget is 8,000
tokens over all phases. A source over its allocation is read oldest-first up to it, and what
is left is *reported* and left for the next cycle (episodes are only marked processed up to
what was read). A phase whose input does not fit the model's window runs over chunks that do
(:func:`chunk`), and the chunks' answers are merged in code: nothing is cut off silently.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

INPUT_BUDGET = 30_000
OUTPUT_BUDGET = 8_000
ALLOCATIONS: dict[str, int] = {
    "core_memory": 3_000,
    "evolution": 2_000,
    "decay_scores": 500,
    "reflection_log": 2_000,
    "graph_index": 1_500,
    "entities": 5_000,
    "episodes": 9_000,
    "pending_memories": 1_000,  # sub-agents' proposals in memory/pending-memories.md
    "procedures": 3_000,
    "memories": 3_000,  # approved Knowledge documents: this app's long-term facts
}
RESERVE = 64  # chat-template tokens around the system and user messages


@dataclass
class Allotted:
    """What one source contributed: items kept within its allocation, and what was left."""

    source: str
    items: list[str]
    tokens: int
    left_out: int = 0


def allot(source: str, items: Sequence[str], count: Callable[[str], int],
          allocation: int | None = None) -> Allotted:
    """Keep ``items`` in order while they fit the source's allocation; count the rest."""
    limit = ALLOCATIONS.get(source, 1_000) if allocation is None else allocation
    kept: list[str] = []
    used = 0
    for item in items:
        cost = count(item)
        if used + cost > limit:
            break
        kept.append(item)
        used += cost
    return Allotted(source, kept, used, len(items) - len(kept))


def chunk(items: Sequence[str], count: Callable[[str], int], room: int) -> list[list[str]]:
    """Split ``items`` into consecutive chunks of at most ``room`` tokens each.

    An item longer than ``room`` on its own is split at word boundaries into parts that fit,
    each marked as a part, so even one long episode is read whole over several calls.
    """
    if room <= 0:
        raise ValueError("no room for input in the model's context")
    chunks: list[list[str]] = []
    current: list[str] = []
    used = 0
    for item in items:
        for piece in _fit(item, count, room):
            cost = count(piece) + 1
            if current and used + cost > room:
                chunks.append(current)
                current, used = [], 0
            current.append(piece)
            used += cost
    if current:
        chunks.append(current)
    return chunks


def _fit(item: str, count: Callable[[str], int], room: int) -> list[str]:
    if count(item) + 1 <= room:
        return [item]
    words = item.split(" ")
    parts: list[str] = []
    current: list[str] = []
    for word in words:
        trial = " ".join([*current, word])
        if current and count(trial) + 8 > room:
            parts.append(" ".join(current))
            current = [word]
        else:
            current.append(word)
    if current:
        parts.append(" ".join(current))
    total = len(parts)
    return [f"(part {i}/{total}) {p}" for i, p in enumerate(parts, 1)] if total > 1 else parts


def approx_tokens(text: str) -> int:
    """A model-free token count that errs high (about 3 bytes a token; BPE averages ~4).

    Used where no model is loaded (the review command, the window): a cap checked with it
    holds for the real tokenizer too.
    """
    return -(-len(text.encode("utf-8")) // 3)


@dataclass
class OutputBudget:
    """Generated tokens over all phases of one cycle, capped at ``limit``."""

    limit: int = OUTPUT_BUDGET
    used: int = 0
    calls: list[tuple[str, int]] = field(default_factory=list)

    @property
    def left(self) -> int:
        return max(0, self.limit - self.used)

    def grant(self, wanted: int) -> int:
        """How many tokens the next call may generate (0: the budget is spent)."""
        return min(wanted, self.left)

    def spend(self, phase: str, tokens: int) -> None:
        self.used += tokens
        self.calls.append((phase, tokens))
