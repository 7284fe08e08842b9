"""The multilingual reflection set: each chat is read back through its client's adapter,
role only, every turn in order; and the scoring counts quoted gold, made-up names and misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator.bench.client_shapes import WRITERS
from curator.bench.observations import SourceMessage
from curator.bench.suites.multilingual import Chat, load_chats, score_items
from curator.engine import Engine

CHATS = load_chats()


def test_the_set_covers_ten_chats_six_languages_and_every_shape() -> None:
    assert len(CHATS) >= 10
    assert len({c.language for c in CHATS}) >= 6
    assert {c.shape for c in CHATS} == set(WRITERS)
    assert all(c.gold and c.planted for c in CHATS)


@pytest.mark.parametrize("chat", CHATS, ids=[c.ident for c in CHATS])
def test_each_chat_is_read_back_through_its_clients_adapter(chat: Chat, tmp_path: Path) -> None:
    WRITERS[chat.shape](tmp_path / "source", chat.ident, chat.turns)
    engine = Engine(tmp_path / "vault", triggers=False)
    try:
        engine.import_path(tmp_path / "source")
        turns = engine.index.turns("default")
    finally:
        engine.close()
    assert [(t.role, t.text) for t in turns] == chat.turns
    assert {t.speaker.casefold() for t in turns if t.role == "user"} == {"user"}  # no name stored


def test_scoring_counts_quoted_gold_and_made_up_names() -> None:
    chat = Chat("x", "de", "jsonl", [("user", "Ich arbeite als Busfahrer in Bremen.")],
                {0: ["Busfahrer in Bremen"]}, set())
    messages = {"1": SourceMessage("1", "the user", chat.turns[0][1], "c")}
    good = score_items(chat, [('The user said: "Ich arbeite als Busfahrer in Bremen."', (1,))], {1: 0}, messages)
    assert (good.observations_matched, good.items_matched, good.items_made_up) == (1, 1, 0)
    bad = score_items(chat, [("The user drives buses in Hamburg.", (1,))], {1: 0}, messages)
    assert (bad.observations_matched, bad.items_matched, bad.items_made_up) == (0, 0, 1)
