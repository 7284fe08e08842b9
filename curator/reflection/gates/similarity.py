"""Text similarity on a 0..1 scale: BM25 over a small candidate set, normalised by self-score.

Raw BM25 scores have no fixed range (they grow with query length and shrink with corpus
size), so a threshold such as "> 0.8" needs a normalisation. Here:

- the corpus is the candidate texts plus the query text itself, tokenised into light stems
  of content words (``curator.index.text``);
- scoring is BM25+ with ``delta=0`` (``k1`` 1.5, ``b`` 0.75) - that is plain BM25 with the IDF
  ``log((N + 1) / df)``, which stays positive in a corpus of two or three documents
  (BM25Okapi's IDF goes negative there and breaks any ratio). It is the arithmetic of
  ``rank_bm25.BM25Plus``, in plain Python: the corpus is a handful of texts, and the search
  path (the CLI, the MCP server, the window) must not load numpy for it;
- the normalised score of a candidate is ``score(query, candidate) / score(query, query)``,
  clipped to ``[0, 1]``: 1.0 means the candidate holds the query's words at least as
  strongly as the query itself; 0.0 means no word in common.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from curator.index.text import content_words, stem

_NAME_RE = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)


def bm25_tokens(text: str) -> list[str]:
    """The tokens BM25 compares: stems of content words."""
    return [stem(w) for w in content_words(text)]


K1 = 1.5
B = 0.75


def bm25plus_scores(corpus: Sequence[Sequence[str]], query: Sequence[str]) -> list[float]:
    """BM25+ (delta 0) of ``query`` against each tokenised document of ``corpus``."""
    freqs = [Counter(doc) for doc in corpus]
    lengths = [len(doc) for doc in corpus]
    avgdl = sum(lengths) / len(corpus)
    df: Counter[str] = Counter(word for f in freqs for word in f)
    idf = {word: math.log((len(corpus) + 1) / n) for word, n in df.items()}
    scores = [0.0] * len(corpus)
    for term in query:
        weight = idf.get(term) or 0.0
        if not weight:
            continue
        for i, f in enumerate(freqs):
            tf = f.get(term, 0)
            scores[i] += weight * ((tf * (K1 + 1)) / (K1 * (1 - B + B * lengths[i] / avgdl) + tf))
    return scores


def normalised_scores(query: str, candidates: Sequence[str]) -> list[float]:
    """Normalised BM25 score (0..1) of each candidate for ``query``, in candidate order."""
    if not candidates:
        return []
    query_tokens = bm25_tokens(query)
    if not query_tokens:
        return [0.0 for _ in candidates]
    corpus = [bm25_tokens(c) or ["\x00empty"] for c in candidates] + [query_tokens]
    scores = bm25plus_scores(corpus, query_tokens)
    self_score = float(scores[-1])
    if self_score <= 0:
        return [0.0 for _ in candidates]
    return [max(0.0, min(1.0, float(s) / self_score)) for s in scores[:-1]]


def similarity(a: str, b: str) -> float:
    """Symmetric similarity of two texts: the smaller of the two directional scores."""
    ab = normalised_scores(a, [b])[0]
    ba = normalised_scores(b, [a])[0]
    return min(ab, ba)


def best_match(query: str, candidates: Sequence[str]) -> tuple[int, float]:
    """Index and normalised score of the best candidate (-1, 0.0 when there is none)."""
    scores = normalised_scores(query, candidates)
    if not scores:
        return -1, 0.0
    index = max(range(len(scores)), key=lambda i: scores[i])
    return index, scores[index]
