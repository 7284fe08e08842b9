"""Turns of an unnamed person, named for reflection.

A turn whose file stores only a role ("user", "human", "") is the person's; reflection gives
it the person's name (``curator.vault.person``) before anything reads it, so the statements,
the model's prompt, the retelling ("I work nights" -> "Alex works nights") and the grounding
gates all see one name. The index keeps the turn as the file wrote it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from curator.reflection.ports import TurnSource
from curator.reflection.rephrase import GENERIC_SPEAKERS
from curator.sources.turns import IndexedTurn


def named(turn: IndexedTurn, person: str) -> IndexedTurn:
    """``turn`` with ``person`` as its speaker when it is the person's and names no one."""
    if turn.role != "user" or " ".join((turn.speaker or "").split()).casefold() not in GENERIC_SPEAKERS:
        return turn
    return dataclasses.replace(turn, speaker=person)


def named_all(turns: Sequence[IndexedTurn], person: str) -> list[IndexedTurn]:
    return [named(t, person) for t in turns]


class NamedTurns:
    """A ``TurnSource`` whose unnamed person's turns carry ``person`` as speaker."""

    def __init__(self, source: TurnSource, person: str) -> None:
        self.source = source
        self.person = person

    def get(self, user_id: str, number: int) -> IndexedTurn | None:
        turn = self.source.get(user_id, number)
        return named(turn, self.person) if turn is not None else None

    def turns_since(self, user_id: str, after_number: int, limit: int) -> Sequence[IndexedTurn]:
        return named_all(self.source.turns_since(user_id, after_number, limit), self.person)
