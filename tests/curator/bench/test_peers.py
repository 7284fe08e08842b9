"""The peers the benchmarks measure against answer like the libraries they are."""

from __future__ import annotations

from curator.bench.recall import Bm25sBaseline


def test_bm25s_peer_ranks_the_document_holding_the_rare_words_first() -> None:
    texts = ["the weather is nice today", "my border collie needs two long walks", "walks in the park",
             "a collie is a herding dog"]
    peer = Bm25sBaseline(texts)
    assert peer.top("border collie walks", 2)[0] == 1
    assert isinstance(peer.top("the and of", 3), list)  # stop words only: an answer, not an error
