"""Measure the index at scale: ``python -m curator.bench_index [--turns 100000] [--dir D]``.

Builds a throw-away vault with N synthetic turns (Zipf-distributed vocabulary, two-speaker
conversations), then reports search latency (p50/p95 over varied 1-4 word queries, with
and without filters) and freshness: the time from a parsed turn to it being found by
search (ledger append + index transaction + query). Not a test: numbers depend on the
machine; the product's targets are p50 < 20 ms and freshness < 20 ms at 100k turns.
"""

from __future__ import annotations

import argparse
import json
import itertools
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from curator.index import Index
from curator.ingest import Ingestor
from curator.search import SearchFilters, search
from curator.settings import SourceConfig
from curator.turn_ledger import TurnLedger
from curator.turns import Turn
from curator.vault_paths import VaultPaths


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 9))))
    return sorted(words)


def _sentence(rng: random.Random, vocab: list[str], cum_weights: list[float]) -> str:
    return " ".join(rng.choices(vocab, cum_weights=cum_weights, k=rng.randint(8, 40))) + "."


def build(vault: Path, turns: int, seed: int = 7) -> tuple[Index, Ingestor, list[str], list[float]]:
    """A vault with ``turns`` synthetic turns for user ``bench``; returns cumulative word weights."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng, 20_000)
    weights = list(itertools.accumulate(1.0 / (rank + 1) ** 1.05 for rank in range(len(vocab))))
    paths = VaultPaths(vault)
    index = Index(paths.index_file)
    ledger = TurnLedger(paths)
    ingestor = Ingestor(index, ledger)
    batch: list[dict] = []
    seq = 0
    for number in range(1, turns + 1):
        seq += 1
        conversation = f"conv-{number // 200}"
        text = _sentence(rng, vocab, weights)
        turn = Turn("bench", f"{conversation}.jsonl", conversation, f"pos:{number}", number,
                    "user" if number % 2 else "assistant", "x", text, 1.7e9 + number * 30)
        batch.append({
            "seq": seq, "op": "add", "at": 1.7e9, "supersedes": None,
            "turn": {"number": number, "user_id": "bench", "source_id": "bench", "file": turn.file,
                     "conversation": conversation, "key": turn.key, "position": number, "role": turn.role,
                     "speaker": "x", "text": text, "timestamp": turn.timestamp, "sha256": turn.sha256,
                     "status": "active", "context": "", "extra": {}},
        })
        if len(batch) == 5000:
            ledger.append("bench", batch)
            index.apply_records("bench", batch)
            batch = []
    if batch:
        ledger.append("bench", batch)
        index.apply_records("bench", batch)
    return index, ingestor, vocab, weights


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--dir", type=Path, default=None, help="where to build (default: a temp folder)")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="curator-bench-"))
    vault = folder / "vault"
    shutil.rmtree(vault, ignore_errors=True)
    started = time.perf_counter()
    index, ingestor, vocab, weights = build(vault, args.turns)
    print(f"built {args.turns} turns in {time.perf_counter() - started:.1f} s "
          f"({(vault / 'index.sqlite').stat().st_size / 1e6:.0f} MB index)")
    rng = random.Random(11)
    plain, filtered = [], []
    for i in range(args.queries):
        # Mix of frequent and rare words, as people type them.
        words = rng.choices(vocab[:2000], k=rng.randint(1, 2)) + rng.choices(vocab, cum_weights=weights, k=rng.randint(0, 2))
        query = " ".join(words)
        t0 = time.perf_counter()
        search(index, query, limit=10)
        plain.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        search(index, query, SearchFilters(user_id="bench", kinds=("turn",), since=1.7e9 + i * 1000), limit=10)
        filtered.append((time.perf_counter() - t0) * 1000)
    print(f"search ({args.queries} queries): p50 {percentile(plain, 0.5):.1f} ms, p95 {percentile(plain, 0.95):.1f} ms, "
          f"max {max(plain):.1f} ms")
    print(f"search with filters: p50 {percentile(filtered, 0.5):.1f} ms, p95 {percentile(filtered, 0.95):.1f} ms")
    fresh = []
    for i in range(30):
        marker = f"zzfresh{i}marker"
        number = index.max_number("bench") + 1
        seq = index.ledger_seq("bench") + 1
        text = f"{marker} " + _sentence(rng, vocab, weights)
        record = {
            "seq": seq, "op": "add", "at": 1.7e9, "supersedes": None,
            "turn": {"number": number, "user_id": "bench", "source_id": "bench", "file": "fresh.jsonl",
                     "conversation": "fresh", "key": f"pos:{i}", "position": i, "role": "user", "speaker": "x",
                     "text": text, "timestamp": 1.8e9, "sha256": Turn("", "", "", "", 0, "", "", text, 0).sha256,
                     "status": "active", "context": "", "extra": {}},
        }
        t0 = time.perf_counter()
        ingestor.ledger.append("bench", [record])
        index.apply_records("bench", [record])
        hits = search(index, marker, limit=1)
        fresh.append((time.perf_counter() - t0) * 1000)
        assert hits and hits[0].number == number
    print(f"freshness (ledger fsync + index commit + search finds it): p50 {statistics.median(fresh):.1f} ms, "
          f"p95 {percentile(fresh, 0.95):.1f} ms")
    # The whole path of a live append: read the new line, dedup, number, ledger, index, search.
    chats = folder / "chats"
    chats.mkdir(exist_ok=True)
    log_file = chats / "live.jsonl"
    log_file.write_text("")
    source = SourceConfig(path=str(chats), adapter="jsonl", user_id="bench", id="live")
    ingestor.ingest_unit(source, log_file)
    live = []
    for i in range(30):
        marker = f"zzlive{i}marker"
        with open(log_file, "a") as handle:
            handle.write(json.dumps({"role": "user", "content": f"{marker} {_sentence(rng, vocab, weights)}"}) + "\n")
        t0 = time.perf_counter()
        ingestor.ingest_unit(source, log_file)
        hits = search(index, marker, limit=1)
        live.append((time.perf_counter() - t0) * 1000)
        assert hits and marker in hits[0].snippet
    print(f"live append (read + ingest + ledger + index + search): p50 {statistics.median(live):.1f} ms, "
          f"p95 {percentile(live, 0.95):.1f} ms")
    index.close()
    if args.dir is None:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
