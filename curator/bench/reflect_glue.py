"""The one place the bench touches the reflection glue (``curator.reflection.service``).

Everything else in the bench depends on these few functions, so a change in the glue's
API is a change here only. The bench walks a conversation the way it would arrive: batch
``k`` sees the turns up to ``10 k`` only (``UpToTurnSource``), so each 10-turn batch
reviews exactly its own window, as if the batch trigger had fired after every 10 turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.sources.turns import IndexedTurn

if TYPE_CHECKING:
    from curator.engine import Engine
    from curator.llm.runtime import ModelRuntime
    from curator.reflection.service import ReflectionService


def glue_available() -> str:
    """Empty when the reflection glue can be imported, else why not."""
    try:
        import curator.reflection.service  # noqa: F401
    except Exception as exc:  # ImportError, or a half-written module
        return f"the reflection glue (curator.reflection.service) is not importable: {type(exc).__name__}: {exc}"
    return ""


class UpToTurnSource:
    """A TurnSource that hides turns numbered above ``upper`` (the conversation so far)."""

    def __init__(self, inner: Any, upper: int) -> None:
        self.inner = inner
        self.upper = upper

    def get(self, user_id: str, number: int) -> IndexedTurn | None:
        return self.inner.get(user_id, number) if number <= self.upper else None

    def turns_since(self, user_id: str, after_number: int, limit: int) -> Sequence[IndexedTurn]:
        turns = [t for t in self.inner.turns_since(user_id, after_number, 0) if t.number <= self.upper]
        return turns[-limit:] if limit else turns


@dataclass
class ReflectionRun:
    """What reflecting over one vault produced."""

    batches: list[Any] = field(default_factory=list)  # BatchResult
    proposed: int = 0
    passed: int = 0
    staged_texts: list[str] = field(default_factory=list)
    approved: int = 0
    approve_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


def open_service(engine: Engine, model_path: Path | None,
                 runtime: ModelRuntime | None = None) -> ReflectionService:
    """The glue's reflection service on ``engine`` (a runtime may be shared between vaults)."""
    from curator.reflection.service import ReflectionService

    if runtime is not None:
        return ReflectionService(engine.reflection_parts(), runtime, sleep=lambda _s: None)
    return ReflectionService(engine.reflection_parts(), model_path=model_path, sleep=lambda _s: None)


def batch_reflector(service: Any, upper: int) -> Any:
    """A batch reflector wired like the service's own, seeing turns up to ``upper`` only."""
    from curator.reflection.batch import BatchReflector

    parts = service.parts
    return BatchReflector(parts.paths, parts.store, UpToTurnSource(service.turns, upper), service.knowledge,
                          service.model, parts.settings, clock=parts.clock, sleep=lambda _s: None,
                          events=parts.bus, rejected=service.rejected, writer=service.writer())


def run_batch(service: Any, user_id: str, after: int, upper: int) -> Any:
    """One batch over the turns ``after+1 .. upper``; returns the BatchResult."""
    return batch_reflector(service, upper).run(user_id, after, trigger="manual")


def approve_all(service: Any, user_id: str) -> tuple[int, list[str]]:
    """Approve every staged item (flags accepted; contradictions kept both); (approved, errors)."""
    review = service.review
    approved, errors = 0, []
    for item in review.list_items(user_id).items:
        try:
            if item.kind == "contradiction":
                review.resolve(user_id, item.doc_id, "keep_both", item.content_hash, note="bench", accept_flags=True)
            else:
                review.approve(user_id, item.doc_id, item.content_hash, accept_flags=True)
            approved += 1
        except Exception as exc:  # one refused item must not stop the others
            errors.append(f"{item.doc_id}: {type(exc).__name__}: {exc}")
    return approved, errors


def run_micro(service: Any, user_id: str, conversation: str, numbers: list[int]) -> dict[str, Any]:
    """A session-end micro-reflection over one conversation's turns ``numbers``."""
    from curator.reflection.micro import entries_from_turns

    turns = [t for n in numbers if (t := service.turns.get(user_id, n)) is not None and t.conversation == conversation]
    result = service._micro().run(user_id, entries_from_turns(turns), trigger="session_end")
    return {"status": str(getattr(result, "status", "")), "error": str(getattr(result, "error", "") or "")}


def staged_items(service: Any, user_id: str) -> list[dict[str, Any]]:
    """Every staged proposal (context summaries aside) as plain data."""
    return [{"doc_id": i.doc_id, "kind": i.kind, "title": i.title, "text": i.text, "lane": i.lane,
             "flagged": i.flagged, "confidence": i.confidence, "source_turns": list(i.source_turns)}
            for i in service.review.list_items(user_id).items if i.kind != "summary"]


def staged_texts(service: Any, user_id: str) -> list[str]:
    """Title and text of every staged item (before approval)."""
    return [f"{i.title}. {i.text}" for i in service.review.list_items(user_id).items]


def reflect_vault(service: Any, user_id: str, last_turn: int, batch_turns: int = 10,
                  max_batches: int | None = None) -> ReflectionRun:
    """Batch reflections over turns 1..last_turn in windows of ``batch_turns``."""
    import time

    run = ReflectionRun()
    start = time.perf_counter()
    after = 0
    while after < last_turn and (max_batches is None or len(run.batches) < max_batches):
        upper = min(after + batch_turns, last_turn)
        result = run_batch(service, user_id, after, upper)
        run.batches.append(result)
        run.proposed += int(result.items_proposed)
        run.passed += int(result.items_passed)
        after = upper
    run.staged_texts = staged_texts(service, user_id)
    run.approved, run.approve_errors = approve_all(service, user_id)
    run.seconds = time.perf_counter() - start
    return run


def limit_output_tokens(vault: Path, max_tokens: int | None, names: Sequence[str] = ("batch_reflector",)) -> None:
    """Give the vault prompt overrides that only lower ``max_tokens`` (the quick mode's budget).

    A vault prompt override is a product feature (``<vault>/prompts/<name>.md``); the text,
    placeholders and schema stay the bundled ones, only the generation limit changes.
    """
    if not max_tokens:
        return
    import re

    from curator.reflection.prompts import bundled_prompt_dir

    folder = Path(vault) / "prompts"
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        text = (bundled_prompt_dir() / f"{name}.md").read_text(encoding="utf-8")
        text, count = re.subn(r"(?m)^max_tokens:\s*\d+\s*$", f"max_tokens: {int(max_tokens)}", text, count=1)
        if count:
            (folder / f"{name}.md").write_text(text, encoding="utf-8")
