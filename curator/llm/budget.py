"""The token budget: fit a request into the model's context before it is sent.

The prompt is measured with the model's own tokenizer; only its variable parts (the
trimmable item lists of ``ModelRequest.user``) are dropped or shortened, in their rank order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from curator.llm.request import ModelRequest

# Room for the chat template's role markers around the two messages, plus a little slack
# because items are measured one by one (token merges at the seams can differ slightly).
TEMPLATE_MARGIN = 48
# Don't bother keeping a shortened item smaller than this.
MIN_CUT_TOKENS = 24


@dataclass
class PromptPlan:
    """A request fitted into the context: the user text to send and what was kept or cut."""

    user_text: str
    prompt_tokens: int
    max_tokens: int
    kept: dict[str, list[int]]
    dropped: dict[str, int]
    cut: list[str]


class PromptTooLong(Exception):
    """The fixed part of a prompt leaves no room for output in the model's context."""


def plan_prompt(
    request: ModelRequest,
    tokenize: Callable[[str], list[int]],
    detokenize: Callable[[Sequence[int]], str],
    n_ctx: int,
) -> PromptPlan:
    """Fit a request into the context window, trimming only its variable parts.

    The system message and fixed user text are never cut. The output keeps its full
    ``max_tokens`` when everything fits; otherwise it gets the larger of what the full
    input leaves and half of the free room (never below ``min_output_tokens``), and the
    trimmable item lists lose items in their rank order, from the end each names. When a
    list would lose its last item, that item is shortened instead if a useful part fits.

    Raises:
        PromptTooLong: Even with every variable item dropped there is no room for output.
    """
    count = _counter(tokenize)
    fixed, item_tokens = _measure(request, count)
    variable = sum(sum(tokens) for tokens in item_tokens.values())
    free = n_ctx - fixed
    if free < request.min_output_tokens:
        raise PromptTooLong(
            f"{request.kind}: the fixed part of the prompt takes {fixed} of {n_ctx} tokens, "
            f"leaving no room for output; load the model with a larger context"
        )
    if variable + request.max_tokens <= free:
        max_tokens = request.max_tokens
    else:
        max_tokens = min(request.max_tokens, max(free - variable, free // 2, request.min_output_tokens))
    trimmer = _Trimmer(request, item_tokens, tokenize, detokenize)
    used = trimmer.fit(variable, free - max_tokens)
    if used > free - max_tokens:
        raise PromptTooLong(f"{request.kind}: the prompt does not fit in {n_ctx} tokens")
    kept, cut = trimmer.kept, trimmer.cut
    segments = request.user
    names = {i: segments[i].placeholder or f"segment{i}" for i in item_tokens}
    return PromptPlan(
        user_text=request.user_text(kept, cut),
        prompt_tokens=fixed - TEMPLATE_MARGIN + used,
        max_tokens=max_tokens,
        kept={names[i]: kept[i] for i in item_tokens},
        dropped={names[i]: len(item_tokens[i]) - len(kept[i]) for i in item_tokens},
        cut=[names[i] for i in cut],
    )


def _counter(tokenize: Callable[[str], list[int]]) -> Callable[[str], int]:
    def count(text: str) -> int:
        return len(tokenize(text)) if text else 0

    return count


def _measure(request: ModelRequest, count: Callable[[str], int]) -> tuple[int, dict[int, list[int]]]:
    """Tokens of the fixed part, and of each item of each trimmable segment (with its joiner)."""
    fixed = count(request.system) + TEMPLATE_MARGIN
    item_tokens: dict[int, list[int]] = {}
    for index, segment in enumerate(request.user):
        if segment.trimmable:
            joiner = count(segment.joiner) if segment.joiner.strip() else 1
            item_tokens[index] = [count(item) + joiner for item in segment.items or []]
            fixed += count(segment.empty)
        else:
            fixed += count(segment.text)
    return fixed, item_tokens


class _Trimmer:
    """Drops (or shortens the last of) trimmable items in rank order until the input fits."""

    def __init__(self, request: ModelRequest, item_tokens: dict[int, list[int]],
                 tokenize: Callable[[str], list[int]], detokenize: Callable[[Sequence[int]], str]) -> None:
        self.segments = request.user
        self.item_tokens = item_tokens
        self.tokenize = tokenize
        self.detokenize = detokenize
        self.kept: dict[int, list[int]] = {i: list(range(len(t))) for i, t in item_tokens.items()}
        self.cut: dict[int, str] = {}

    def fit(self, used: int, room: int) -> int:
        """Trim until ``used`` tokens fit in ``room``; returns the tokens used after trimming."""
        for index in sorted(self.item_tokens, key=lambda i: self.segments[i].rank):
            if used <= room:
                break
            used = self._trim_segment(index, used, room)
        return used

    def _trim_segment(self, index: int, used: int, room: int) -> int:
        segment = self.segments[index]
        tokens = self.item_tokens[index]
        kept = self.kept[index]
        while used > room and kept:
            victim = kept[0] if segment.drop == "oldest" else kept[-1]
            if len(kept) == 1:
                # Last item of this list: shorten it rather than lose it when enough fits.
                others = used - tokens[victim]
                budget = room - others - 4
                if budget >= MIN_CUT_TOKENS:
                    item = (segment.items or [])[victim]
                    self.cut[index] = self.detokenize(self.tokenize(item)[:budget]).rstrip() + " …"
                    return others + _counter(self.tokenize)(self.cut[index]) + 1
            kept.remove(victim)
            used -= tokens[victim]
        return used


__all__ = ["MIN_CUT_TOKENS", "TEMPLATE_MARGIN", "PromptPlan", "PromptTooLong", "plan_prompt"]
