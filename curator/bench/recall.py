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
        from rank_bm25 import BM25Okapi  # a product dependency; imported late to keep CLI start fast

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
