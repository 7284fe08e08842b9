"""What every suite gets: settings of the run, the data, a work folder, shared vaults."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.bench.corpus import text_pool, write_corpus
from curator.bench.locomo import LocomoConversation


@dataclass(frozen=True)
class Sizes:
    """How much work a run does; ``quick`` and ``full`` presets below."""

    ingest_corpus: int  # turns of the generated corpus imported by the ingest suite
    ingest_files: int
    one_message_files: int  # files of one message each imported by the ingest suite
    search_sizes: tuple[int, ...]
    search_queries: int  # queries timed per size with the curator
    baseline_queries: dict[int, int]  # queries timed with rank-bm25, per size (it is slow)
    freshness_alone: int  # single appended lines timed
    freshness_bursts: int  # bursts of burst_lines lines
    burst_lines: int
    burst_probes: int  # timed lines in each burst
    locomo_repeats: int  # imports of the LoCoMo conversations timed
    reflection_repeats: int
    quality_conversations: int | None  # None: all
    quality_batches: int | None  # 10-turn batches reflected per conversation in quality (c); None: all
    quality_reflect_conversations: int | None  # conversations reflected in (c); None: all
    stall_seconds: float
    reflect_max_tokens: int | None = None  # None: the prompt file's own limit
    rq_conversations: int | None = None  # LoCoMo conversations in reflection-quality; None: all
    rq_sessions: int | None = None  # sessions reflected per conversation there; None: all


QUICK = Sizes(
    ingest_corpus=10_000, ingest_files=4, one_message_files=2_000, search_sizes=(1_000, 10_000), search_queries=100,
    baseline_queries={1_000: 60, 10_000: 25}, freshness_alone=10, freshness_bursts=1,
    burst_lines=1_000, burst_probes=10, locomo_repeats=2, reflection_repeats=1,
    quality_conversations=None, quality_batches=1, quality_reflect_conversations=1, stall_seconds=0.0,
    reflect_max_tokens=640, rq_conversations=1, rq_sessions=2,
)
FULL = Sizes(
    ingest_corpus=100_000, ingest_files=20, one_message_files=20_000, search_sizes=(1_000, 10_000, 100_000),
    search_queries=400,
    baseline_queries={1_000: 200, 10_000: 80, 100_000: 25}, freshness_alone=30, freshness_bursts=2,
    burst_lines=1_000, burst_probes=20, locomo_repeats=3, reflection_repeats=3,
    quality_conversations=None, quality_batches=None, quality_reflect_conversations=None, stall_seconds=0.0,
)


@dataclass
class ScaleVault:
    """A vault holding ``turns`` generated turns, and those turns' texts (for baselines)."""

    vault: Path
    turns: int
    texts: list[str]


@dataclass
class BenchContext:
    """Shared by the suites of one run."""

    quick: bool
    workdir: Path
    data_dir: Path | None
    conversations: list[LocomoConversation]
    model_path: Path | None = None
    sizes: Sizes = QUICK
    verbose: bool = True
    data_note: str = ""
    scale_vaults: dict[int, ScaleVault] = field(default_factory=dict)
    shared: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)

    def log(self, message: str) -> None:
        """Progress on stderr (stdout carries the table or the JSON)."""
        if self.verbose:
            print(f"[bench {time.monotonic() - self.started:6.1f}s] {message}", file=sys.stderr, flush=True)

    def pool(self) -> list[tuple[str, str]]:
        """Texts the generated corpora are made of."""
        if "pool" not in self.shared:
            self.shared["pool"] = text_pool(self.conversations)
        pool: list[tuple[str, str]] = self.shared["pool"]
        return pool

    def corpus_folder(self, turns: int, files: int) -> Path:
        """A folder with ``turns`` generated turns in JSONL files (written once per run)."""
        folder = self.workdir / f"corpus-{turns}"
        if not folder.is_dir():
            write_corpus(folder, self.pool(), turns, files, seed=turns)
        return folder


def installed_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a start-up measured as a person meets it: Python caches the
    project's compiled modules, as an installed app's are (a shell with
    PYTHONDONTWRITEBYTECODE set would make every start recompile the project, a cost no
    installation has and the bare peers never pay)."""
    env = dict(os.environ if base is None else base)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env
