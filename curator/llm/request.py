"""What a model job asks for and what it gets back (plain data, no llama_cpp)."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any

from curator.llm.schema import validate


class Priority(enum.IntEnum):
    """Queue order: lower runs first. A person waiting beats a trigger beats housekeeping."""

    MANUAL = 0
    INTERACTIVE = 10
    TRIGGERED = 20
    BACKGROUND = 30


class JobStatus(enum.StrEnum):
    """How a job ended."""

    OK = "ok"
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"
    ERROR = "error"
    INVALID = "invalid"


@dataclass
class Segment:
    """A piece of the user message: fixed text, or a list of items that may be trimmed.

    Attributes:
        text: Fixed text (never cut).
        items: Trimmable items (turns, facts...), in chronological order.
        placeholder: The prompt placeholder the items fill, used to report what was kept.
        drop: Which end goes first when the prompt is too long: ``oldest`` (the start of
            ``items``) or ``newest`` (the end).
        rank: Trim order among trimmable segments; lower is trimmed first.
        joiner: Between items.
        empty: Shown when no item is left.
    """

    text: str = ""
    items: list[str] | None = None
    placeholder: str = ""
    drop: str = "oldest"
    rank: int = 0
    joiner: str = "\n"
    empty: str = "(none)"

    @property
    def trimmable(self) -> bool:
        """Whether this segment holds items."""
        return self.items is not None


@dataclass
class ModelRequest:
    """One model call.

    Build it from a prompt file with ``PromptTemplate.request(...)``; the fixed parts come
    first so llama.cpp can reuse the evaluated prefix of the previous call.

    Attributes:
        kind: The job's name (``batch_reflector``), for events and logs.
        system: The system message (fixed).
        user: The user message as segments (fixed text and trimmable item lists).
        temperature: Sampling temperature.
        max_tokens: Most tokens to generate.
        schema: JSON schema the output must satisfy (generated under its grammar and
            validated again); None for free text.
        timeout_seconds: Wall-clock limit for this job; the runtime's default when None.
        seed: Sampling seed, for repeatable runs.
        repeat_penalty: Penalty on repeated tokens; small models loop without it.
        min_output_tokens: The least room for output the budget may leave when the fixed
            part is long; below this the job fails instead of running.
    """

    kind: str
    system: str
    user: list[Segment]
    temperature: float = 0.2
    max_tokens: int = 512
    schema: dict[str, Any] | None = None
    timeout_seconds: float | None = None
    seed: int | None = None
    repeat_penalty: float = 1.0
    min_output_tokens: int = 64

    @classmethod
    def simple(cls, kind: str, system: str, user: str, **kwargs: Any) -> ModelRequest:
        """A request whose user message is one fixed text."""
        return cls(kind=kind, system=system, user=[Segment(text=user)], **kwargs)

    def user_text(self, kept: dict[int, list[int]] | None = None, cut: dict[int, str] | None = None) -> str:
        """Join the user segments, keeping only the item indices in ``kept`` (all if None).

        Args:
            kept: Segment index -> indices of its items to keep.
            cut: (segment index) -> replacement text for the one item that was shortened.
        """
        parts: list[str] = []
        for index, segment in enumerate(self.user):
            if not segment.trimmable:
                parts.append(segment.text)
                continue
            items = list(segment.items or [])
            chosen = kept.get(index, list(range(len(items)))) if kept is not None else range(len(items))
            texts = [items[i] for i in chosen]
            if cut and index in cut and texts:
                # The shortened item is always the one nearest the kept end.
                if segment.drop == "oldest":
                    texts[0] = cut[index]
                else:
                    texts[-1] = cut[index]
            parts.append(segment.joiner.join(texts) if texts else segment.empty)
        return "".join(parts)

    def messages(self, user_text: str | None = None) -> list[dict[str, str]]:
        """Chat messages for ``create_chat_completion``: system first, then user."""
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user_text() if user_text is None else user_text},
        ]


@dataclass
class ModelResult:
    """What a job produced.

    ``data`` is set only for a structured job whose output parsed and validated. A
    cancelled or timed-out job carries no output at all: nothing of it may be staged.

    Attributes:
        status: How the job ended.
        kind: The request's kind.
        job_id: The runtime's job number.
        text: The raw output (kept for logs even when invalid; empty when cancelled).
        data: The parsed, validated JSON for structured jobs.
        error: One line saying what went wrong.
        problems: Validation problems of invalid output.
        finish_reason: ``stop`` or ``length`` from llama.cpp.
        prompt_tokens: Tokens of the prompt as budgeted.
        completion_tokens: Tokens generated.
        max_tokens: The generation limit actually used.
        kept: Placeholder -> indices of the items that fit in the prompt.
        dropped: Placeholder -> number of items left out.
        cut: Placeholders whose one remaining item was shortened to fit.
        queued_seconds: Time spent waiting in the queue.
        prompt_seconds: Time to the first generated token (prompt evaluation).
        generation_seconds: Time generating after the first token.
        model: The model file's name.
    """

    status: JobStatus
    kind: str = ""
    job_id: int = 0
    text: str = ""
    data: Any = None
    error: str = ""
    problems: list[str] = field(default_factory=list)
    finish_reason: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    max_tokens: int = 0
    kept: dict[str, list[int]] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    cut: list[str] = field(default_factory=list)
    queued_seconds: float = 0.0
    prompt_seconds: float = 0.0
    generation_seconds: float = 0.0
    model: str = ""

    @property
    def ok(self) -> bool:
        """Whether the job completed with usable output."""
        return self.status is JobStatus.OK

    @property
    def tokens_per_second(self) -> float:
        """Generation speed after the first token."""
        if self.generation_seconds <= 0 or self.completion_tokens <= 1:
            return 0.0
        return (self.completion_tokens - 1) / self.generation_seconds

    def to_dict(self) -> dict[str, Any]:
        """A plain dict for logs (batch logs keep the raw output)."""
        return {
            "status": str(self.status),
            "kind": self.kind,
            "job_id": self.job_id,
            "text": self.text,
            "data": self.data,
            "error": self.error,
            "problems": list(self.problems),
            "finish_reason": self.finish_reason,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "max_tokens": self.max_tokens,
            "kept": {k: list(v) for k, v in self.kept.items()},
            "dropped": dict(self.dropped),
            "cut": list(self.cut),
            "prompt_seconds": round(self.prompt_seconds, 3),
            "generation_seconds": round(self.generation_seconds, 3),
            "model": self.model,
        }


def check_output(text: str, finish_reason: str, schema: dict[str, Any] | None) -> tuple[Any, list[str]]:
    """Parse and validate a structured answer.

    Returns:
        (data, problems): data is None and problems non-empty when the output is unusable.
    """
    if schema is None:
        return None, []
    if finish_reason == "length":
        return None, ["output was cut off at the token limit (unterminated JSON)"]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [f"output is not valid JSON ({exc.msg} at position {exc.pos})"]
    problems = validate(data, schema)
    return (None, problems) if problems else (data, [])
