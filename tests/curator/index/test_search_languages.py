"""Search in accented, Cyrillic, Chinese and Japanese text: a query finds its turn."""

import json

import pytest

from curator.clock import ManualClock
from curator.engine import Engine
from curator.index.search import SearchFilters
from curator.index.text import fts_text, readable_snippet


def msg(role, content):
    return json.dumps({"role": role, "content": content, "timestamp": "2026-11-20T18:00:00Z"},
                      ensure_ascii=False) + "\n"


TURNS = [
    "我是一名护士，在杭州工作，每天早上七点去健身房。",
    "私は看護師で、毎週土曜日にピアノを習っています。",
    "Я работаю медсестрой в ночную смену в Казани.",
    "Ich bin allergisch gegen Erdnüsse und wohne in München.",
    "Soy vegetariana desde hace cinco años y vivo en Málaga.",
    "My border collie Biscuit loves the beach.",
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("langs")
    source = root / "chats"
    source.mkdir()
    (source / "a.jsonl").write_text("".join(msg("user", t) for t in TURNS), encoding="utf-8")
    engine = Engine(root / "vault", clock=ManualClock(), triggers=False)
    engine.add_source(source)
    engine.scan_all()
    yield engine
    engine.close()


@pytest.mark.parametrize(("query", "number"), [
    ("护士", 1), ("健身房", 1), ("杭州 护士", 1), ("看護師", 2), ("ピアノ", 2),
    ("медсестрой", 3), ("Казани", 3), ("Erdnüsse", 4), ("erdnusse", 4), ("München", 4),
    ("Málaga", 5), ("vegetariana", 5), ("collie", 6),
])
def test_a_query_in_each_language_finds_its_turn(engine, query, number):
    hits = engine.search(query, SearchFilters(), limit=10)
    assert hits and hits[0].number == number, [(h.number, h.snippet) for h in hits]


def test_a_chinese_snippet_reads_without_the_index_spacing(engine):
    hit = engine.search("护士", SearchFilters(), limit=1)[0]
    assert "[护][士]" in hit.snippet or "[护士]" in hit.snippet
    assert "一名" in hit.snippet


def test_spacing_round_trips():
    text = "我是护士。Ich bin hier 2026."
    assert readable_snippet(fts_text(text)) == text
