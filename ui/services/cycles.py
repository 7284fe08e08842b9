"""The window's access to consolidation cycles: list, answer, undo (over ``CycleReview``).

Every call blocks on files only (no model): the pane runs them through ``OpRunner``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # loaded with the engine (see ``CycleService.__init__``), not at window start
    from curator.engine import Engine
    from curator.reflection.cycle.record import CycleRecord
    from curator.review.cycles import CycleAnswer


class CycleService:
    """Pending cycles of one user."""

    def __init__(self, engine: Engine, user_id: str = "default") -> None:
        from curator.reflection.cycle.budget import approx_tokens
        from curator.review.cycles import CycleReview

        self.engine = engine
        self.user_id = user_id
        review = engine.review
        try:
            git = bool(engine.settings["cycle.git_commit"])
        except KeyError:
            git = False
        self.cycles = CycleReview(engine.paths, review, approx_tokens, clock=engine.clock, git_commit=git)

    def pending(self) -> list[CycleRecord]:
        return self.cycles.records(self.user_id, status="pending")

    def approve(self, cycle_id: str, ops: Sequence[str] | None, memory: bool, memory_text: str | None,
                edits: Mapping[str, str] | None, accept_flags: bool = False) -> CycleAnswer:
        return self.cycles.approve(self.user_id, cycle_id, ops=ops, memory=memory, memory_text=memory_text,
                                   edits=edits, accept_flags=accept_flags)

    def reject(self, cycle_id: str, reason: str) -> CycleAnswer:
        return self.cycles.reject(self.user_id, cycle_id, reason)

    def undo(self) -> list[Any]:
        return self.cycles.undo(self.user_id)
