"""Evidence recall, and the rank-bm25 baseline both the quality and the search suites use."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

_RAW_TOKEN = re.compile(r"\w+", re.UNICODE)


def raw_tokens(text: str) -> list[str]:
    """Lower-cased word tokens: no stemming, no stop words (the plainest BM25 input)."""
    return _RAW_TOKEN.findall(text.lower())


def recall_at(evidence: Sequence[str], retrieved: Sequence[Iterable[str]], k: int) -> float:
    """Share of ``evidence`` ids found among the ids of the first ``k`` results.

    Each result is the set of turn ids it stands for: one for a turn, the cited turns for a
    knowledge document (so a document can bring several pieces of evidence in one slot).
    """
    wanted = set(evidence)
    if not wanted:
        raise ValueError("a question without evidence has no recall")
    found: set[str] = set()
    for ids in retrieved[:k]:
        found.update(ids)
    return len(wanted & found) / len(wanted)


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean (NaN for no values)."""
    return sum(values) / len(values) if values else float("nan")


class Bm25Baseline:
    """rank_bm25.BM25Okapi over a list of texts, ``get_scores`` then top-k.

    This is the baseline of the issue: the library the product card names, used the plain
    way (score every document, sort), in the same process as what it is compared with.
    """

    def __init__(self, texts: Sequence[str], tokenizer: Any = raw_tokens) -> None:
        from rank_bm25 import (
            BM25Okapi,  # a product dependency; imported late to keep CLI start fast
        )

        self.tokenizer = tokenizer
        # rank_bm25 divides by the corpus size and average length: guard empty documents.
        self.bm25 = BM25Okapi([tokenizer(t) or ["\u2205"] for t in texts])
        self.size = len(texts)

    def top(self, query: str, k: int) -> list[int]:
        """Indices of the ``k`` best documents, best first (ties: earlier document first)."""
        import numpy as np

        scores = self.bm25.get_scores(self.tokenizer(query))
        if k >= len(scores):
            order = np.argsort(-scores, kind="stable")
        else:
            part = np.argpartition(-scores, k)[:k]
            order = part[np.lexsort((part, -scores[part]))]
        return [int(i) for i in order[:k]]


class Bm25sBaseline:
    """bm25s (precomputed BM25 scores in a sparse matrix, numpy only) over a list of texts: the
    fast in-process peer issue 22 names. Its own tokenizer, English stop words, no stemming: the
    library used the plain way, query tokenising included in the time.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s  # the bench extra (pip install -e '.[bench]'); not a product dependency

        self._bm25s = bm25s
        self.retriever = bm25s.BM25()
        self.retriever.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False), show_progress=False)

    def top(self, query: str, k: int) -> list[int]:
        """Indices of the ``k`` best documents, best first."""
        tokens = self._bm25s.tokenize([query], stopwords="en", show_progress=False)
        try:
            docs, _scores = self.retriever.retrieve(tokens, k=k, show_progress=False)
        except ValueError:  # a query of stop words only, or k above the corpus size
            return []
        return [int(i) for i in docs[0]]


def bm25s_available() -> bool:
    """Whether the bm25s peer can be measured (the bench extra is installed)."""
    import importlib.util

    return importlib.util.find_spec("bm25s") is not None


class TurnPairBaseline:
    """The strongest plain retrieval: BM25 over turn pairs, Porter-stemmed, stop words out.

    Each turn is indexed as "speaker: text" together with the turn before it (the turn-pair
    context that lifts recall on conversations), in an in-memory SQLite FTS5 table with the
    Porter tokenizer, and ranked by FTS5's own bm25(). Nothing of the curator is used, so it
    shows what the curator's search adds over a careful plain setup.
    """

    def __init__(self, speakers: Sequence[str], texts: Sequence[str]) -> None:
        import sqlite3

        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE pairs USING fts5(body, tokenize='porter unicode61')")
        rows = []
        for i, (speaker, text) in enumerate(zip(speakers, texts, strict=True)):
            before = f"{speakers[i - 1]}: {texts[i - 1]}\n" if i else ""
            rows.append((i + 1, f"{before}{speaker}: {text}"))
        self.db.executemany("INSERT INTO pairs(rowid, body) VALUES (?, ?)", rows)

    def top(self, query: str, k: int) -> list[int]:
        """Indices of the ``k`` best turns, best first."""
        from curator.index.text import STOP_WORDS

        words = [w for w in raw_tokens(query) if w not in STOP_WORDS]
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))
        rows = self.db.execute("SELECT rowid FROM pairs WHERE pairs MATCH ? ORDER BY bm25(pairs), rowid LIMIT ?",
                               (match, k)).fetchall()
        return [int(r[0]) - 1 for r in rows]
