"""The gates' stemmer agrees with the index's: SQLite's own FTS5 porter tokenizer is the judge."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from curator.index.database import Index
from curator.index.text import FTS_TOKENIZER, overlap, stem

# Porter's own examples for every step, conversation words, and words unicode61 folds.
_WORDS = """
caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled
sized hopping tanned falling hissing fizzed failing filing happy sky relational conditional
rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli
vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti
sensitiviti sensibiliti triplicate formative formalize electriciti electrical hopeful goodness
revival allowance inference airliner gyroscopic adjustable defensible irritant replacement
adjustment dependent adoption homologou communism activate angulariti homologous effective
bowdlerize probate rate cease controll roll generalizations oscillators archaeology biology
running nurses shifts hospital sister trip lisbon learning portuguese meditation studies
studying studied happily quickly connection connected connecting arguing argued argues
argument agreement dying lying skies flies news analysis bus gas this yes was has is as
night nights shift worked works working worker workers travelled traveling plans planning
planned dog dogs collie puppy puppies owned owner ownership sadness kindness hopeless
nationality national nationalities recommend recommended recommendation prefer preferred
preference preferences sensible sensibly organise organised organization organizational
a an to of ab abc ox oxen eyes eye eyed trying tried tries try boy boys toy toyed
café cafés naïvely résumés zürich élégantes façades brûlée ångström москва straße
"""
VOCABULARY = _WORDS.split()


def _sqlite_terms(words: list[str]) -> dict[int, list[str]]:
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(w, tokenize = '{FTS_TOKENIZER}')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    db.executemany("INSERT INTO t(rowid, w) VALUES (?, ?)", list(enumerate(words, start=1)))
    terms: dict[int, list[str]] = {}
    for term, doc in db.execute("SELECT term, doc FROM v ORDER BY doc, offset"):
        terms.setdefault(int(doc), []).append(str(term))
    db.close()
    return terms


def test_stem_gives_the_stems_fts5_porter_gives() -> None:
    terms = _sqlite_terms(VOCABULARY)
    disagree = {w: (stem(w), terms.get(i)) for i, w in enumerate(VOCABULARY, start=1)
                if terms.get(i) != [stem(w)]}
    assert disagree == {}


def test_a_possessive_stems_as_the_index_stems_the_name() -> None:
    # unicode61 splits "Maya's" into "maya" and "s"; the gates keep the word whole.
    assert _sqlite_terms(["Maya's"])[1][0] == stem("Maya's") == "maya"
    assert stem("Sister’s") == stem("sister")


def test_the_index_tokenizes_with_the_shared_tokenizer(tmp_path: Path) -> None:
    index = Index(tmp_path / "index.sqlite")
    try:
        rows = index.reader().execute("SELECT sql FROM sqlite_master WHERE sql LIKE '%fts5%'").fetchall()
    finally:
        index.close()
    assert rows and all(FTS_TOKENIZER in str(row[0]) for row in rows)


def test_overlap_matches_inflected_words() -> None:
    assert overlap("nurses working nights", "she worked as a nurse on night shifts") == 1.0
