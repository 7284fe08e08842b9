"""Ranking the GGUF models found on the machine for reflection."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from curator.llm.fitness import best_fit, parameters_of, rank, seconds_per_batch

GB = 2**30


@dataclass
class Found:
    name: str
    size: int
    quantization: str = "Q4_K_M"
    context_length: int | None = 32768
    chat_template: bool = True
    model_name: str = ""
    recommended: str = ""
    error: str = ""

    @property
    def path(self) -> Path:
        return Path(f"/models/{self.name}.gguf")


SMOL = Found("SmolLM2-135M-Instruct.Q4_1", 98_000_000, "Q4_1", 8192, recommended="SmolLM2-135M-Instruct")
QWEN = Found("qwen2.5-coder-1.5b-instruct-q4_k_m", 1_100_000_000)
BASE = Found("llama-3.2-3b-base-q4_k_m", 2_000_000_000, chat_template=False)
BIG = Found("Qwen2.5-14B-Instruct-Q4_K_M", 9_000_000_000)
BROKEN = Found("broken", 10, error="not a GGUF file")


def test_parameters_from_the_name_or_the_size() -> None:
    assert parameters_of(SMOL) == 0.135
    assert parameters_of(QWEN) == 1.5
    assert round(parameters_of(Found("mystery", 1_000_000_000, "Q8_0")) or 0, 2) == 0.94


def test_expected_time_is_scaled_from_the_measured_batch() -> None:
    assert seconds_per_batch(1.5, 4.85, 2) == 34.0
    assert round(seconds_per_batch(0.135, 5.0, 2) or 0, 1) == 10.4  # a fixed cost does not shrink


def test_instruct_models_that_fit_rank_first_and_the_best_is_preselected() -> None:
    ranked = rank([SMOL, BASE, BIG, QWEN, BROKEN], free_bytes=4 * GB, cores=2)
    names = [f.model.name for f in ranked]
    assert names[:2] == [QWEN.name, SMOL.name]
    assert names[-1] == BROKEN.name
    big = next(f for f in ranked if f.model is BIG)
    assert not big.fits and any("more than the 4.0 GB free" in r for r in big.reasons)
    base = next(f for f in ranked if f.model is BASE)
    assert not base.instruct and "not an instruct" in base.summary()
    best = best_fit(ranked)
    assert best is not None and best.model is QWEN
    assert "1.5B parameters" in best.summary() and "~34 s per batch (estimate)" in best.summary()


def test_with_little_memory_the_bundled_default_is_the_best_fit() -> None:
    best = best_fit(rank([SMOL, QWEN], free_bytes=int(0.8 * GB), cores=2))
    assert best is not None and best.model is SMOL
