"""The plain-Python BM25+ of the similarity gates scores exactly as rank_bm25's BM25Plus(delta=0)."""

from __future__ import annotations

import random

from rank_bm25 import BM25Plus

from curator.reflection.gates.similarity import bm25plus_scores


def test_same_scores_as_rank_bm25_on_random_corpora() -> None:
    rng = random.Random(7)
    words = [f"w{i}" for i in range(25)]
    for _ in range(200):
        corpus = [[rng.choice(words) for _ in range(rng.randint(1, 12))] for _ in range(rng.randint(1, 8))]
        query = [rng.choice(words) for _ in range(rng.randint(1, 6))]
        expected = [float(s) for s in BM25Plus([*corpus, query], delta=0.0).get_scores(query)]
        assert bm25plus_scores([*corpus, query], query) == expected
