"""The shared shape of agent transcript formats (Claude Code, OpenClaw): append-only JSONL
tailed like the generic log, where most lines are not conversation.

A subclass claims its files by their first lines and decides, line by line, whether the
line is a turn, a counted skip or a problem (``_take_object``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from curator.sources.adapters.base import ReadResult, head_lines, read_head
from curator.sources.adapters.jsonl import JsonlAdapter
from curator.sources.turns import Turn


class AgentJsonlAdapter(JsonlAdapter):
    """A JSONL transcript format recognised by its first lines."""

    def claim_lines(self, lines: list[Any]) -> float:
        """How strongly the first parsed lines of a file look like this format."""
        return 0.0

    def claim(self, path: Path, head: bytes) -> float:
        if path.suffix != ".jsonl":
            return 0.0
        return self.claim_lines([o for o in head_lines(head, 4) if isinstance(o, dict)])

    def detect(self, root: Path) -> float:
        return 0.9 if self.list_units(root) else 0.0

    def list_units(self, root: Path) -> list[Path]:
        return [u for u in super().list_units(root) if self.claim(u, read_head(u)) > 0]

    @staticmethod
    def emit(
        result: ReadResult,
        *,
        source_id: str,
        file_name: str,
        line_no: int,
        role: str,
        speaker: str,
        text: str,
        when: float | None,
        fallback: float,
        message_id: str,
        fmt: str,
        extra: dict[str, Any] | None = None,
        title: str = "",
    ) -> None:
        conversation = file_name.removesuffix(".jsonl")
        key = f"id:{message_id}" if message_id else f"pos:{line_no}"
        turn = Turn(source_id, file_name, conversation, key, line_no, role, speaker, text, 0.0, "", dict(extra or {}))
        result.add(turn, when=when, fallback=fallback, message_id=message_id, fmt=fmt, title=title)
