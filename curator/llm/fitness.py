"""Which of the GGUF models found on this machine suits reflection best, and does it fit?

Discovery (``curator.llm.discovery``) says what is on disk; this module ranks it for a
person choosing: an instruct (chat) model first, then more parameters (fewer invented
facts), a sensible quantisation, a context of at least 4k, and a memory need within the
machine's free memory. It also gives an expected time per batch, scaled from one figure
measured here (issue 9): Qwen2.5-Coder-1.5B-Instruct Q4_K_M took ~34 s per batch on 2
cores and ~2 GB of RAM. These are estimates, labelled as such wherever they are shown.

The bundled SmolLM2-135M stays the out-of-the-box default: ranking only preselects in the
assistant and Settings; nothing changes until the person confirms.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The measured anchor: parameters (billions) x bits per weight -> seconds per batch on 2 cores.
ANCHOR_PARAMS_B = 1.5
ANCHOR_BITS = 4.85
ANCHOR_SECONDS = 34.0
ANCHOR_CORES = 2
# Per-batch cost that does not shrink with the model: grammar checks and sampling in Python
# for each generated token, prompt templating. A rough figure (a 135M model's batch took
# tens of seconds on a busy 2-core machine, not the ~3 s pure scaling would say).
FIXED_SECONDS = 8.0
MIN_CONTEXT = 4096
KV_BYTES_PER_TOKEN_PER_B = 60_000  # rough: a 1.5B model's 4k-token cache is ~0.35 GB
RUNTIME_OVERHEAD = 250 * 1024 * 1024
SLOW_SECONDS = 90.0  # beyond this per batch, a larger model is more wait than it is worth

# What a larger model buys, measured in issue 9 on the same ten planted facts.
LARGER_MODEL_NOTE = (
    "What a larger model buys, measured with code wording the memories and the model choosing"
    " (F1 on the demo's 15 planted facts / on the first two sessions of two LoCoMo"
    " conversations): the bundled SmolLM2-135M 0.97 / 0.47 in ~8 s a session;"
    " Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) 0.97 / 0.51 in ~45 s a session on 2 cores and"
    " ~2 GB of RAM. Nothing made up with either. A larger model chooses a little better; it is"
    " slower and needs more memory."
)

# Bits per weight of common llama.cpp quantisations (approximate, including scales).
_BITS = {
    "F32": 32.0, "F16": 16.0, "BF16": 16.0, "Q8_0": 8.5, "Q6_K": 6.6, "Q5_K_M": 5.7, "Q5_K_S": 5.5,
    "Q5_1": 6.0, "Q5_0": 5.5, "Q4_K_M": 4.85, "Q4_K_S": 4.6, "Q4_1": 5.0, "Q4_0": 4.5,
    "IQ4_XS": 4.3, "IQ4_NL": 4.5, "Q3_K_L": 4.3, "Q3_K_M": 3.9, "Q3_K_S": 3.5, "Q2_K": 3.0,
}
_GOOD_QUANTS = {"Q4_K_M", "Q4_K_S", "Q5_K_M", "Q5_K_S", "Q6_K", "Q8_0", "Q5_0", "Q5_1", "IQ4_XS", "IQ4_NL"}
_PARAMS = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*([bm])(?![a-z])", re.IGNORECASE)
_INSTRUCT = re.compile(r"instruct|chat|(?<![a-z])it(?![a-z])|assistant|hermes", re.IGNORECASE)


@dataclass(frozen=True)
class Fitness:
    """How well one model suits reflection here, with the reasons a person reads."""

    model: Any  # a curator.llm.discovery.DiscoveredModel
    score: float
    fits: bool
    instruct: bool
    parameters_b: float | None
    bits: float | None
    ram_bytes: int
    seconds_per_batch: float | None
    reasons: tuple[str, ...]

    @property
    def path(self) -> Path:
        return Path(self.model.path)

    def summary(self) -> str:
        """One line: size, RAM, expected time, and why it ranks where it does."""
        parts = []
        if self.parameters_b is not None:
            parts.append(_params_text(self.parameters_b) + " parameters")
        parts.append(f"~{self.ram_bytes / 2**30:.1f} GB RAM")
        if self.seconds_per_batch is not None:
            parts.append(f"~{self.seconds_per_batch:.0f} s per batch (estimate)")
        return ", ".join(parts) + (" — " + "; ".join(self.reasons) if self.reasons else "")


def _params_text(billions: float) -> str:
    return f"{billions * 1000:.0f}M" if billions < 1 else f"{billions:.1f}B"


def bits_per_weight(quantization: str) -> float | None:
    return _BITS.get(quantization.upper().strip()) if quantization else None


def parameters_of(model: Any) -> float | None:
    """Parameters in billions: from the name ("1.5B", "135M"), else from size and quantisation."""
    for text in (str(getattr(model, "name", "")), str(getattr(model, "model_name", "")), Path(model.path).name):
        for number, unit in _PARAMS.findall(text):
            value = float(number) / (1000.0 if unit.lower() == "m" else 1.0)
            if 0.01 <= value <= 1000:
                return value
    bits = bits_per_weight(str(getattr(model, "quantization", "")))
    size = int(getattr(model, "size", 0) or 0)
    if bits and size:
        return size * 8 / bits / 1e9
    return None


def is_instruct(model: Any) -> bool:
    """A chat-tuned model: it carries a chat template, or its name says instruct/chat."""
    names = f"{getattr(model, 'name', '')} {getattr(model, 'model_name', '')} {Path(model.path).name}"
    if _INSTRUCT.search(names):
        return True
    # A template alone is weak evidence (base models ship one too), unless nothing says base.
    return bool(getattr(model, "chat_template", False)) and "base" not in names.lower()


def ram_needed(model: Any, n_ctx: int = MIN_CONTEXT) -> int:
    """Bytes the loaded model needs: its weights, a KV cache for ``n_ctx``, the runtime."""
    size = int(getattr(model, "size", 0) or 0)
    params = parameters_of(model) or size / 1e9
    return int(size + KV_BYTES_PER_TOKEN_PER_B * params * n_ctx + RUNTIME_OVERHEAD)


def seconds_per_batch(params_b: float | None, bits: float | None, cores: int) -> float | None:
    """Expected seconds for one batch reflection, scaled from the measured anchor."""
    if params_b is None:
        return None
    work = params_b * (bits or ANCHOR_BITS)
    usable = max(1, cores - 1) if cores > 1 else 1  # the runtime leaves one core free
    anchor_usable = ANCHOR_CORES - 1
    scaled = (ANCHOR_SECONDS - FIXED_SECONDS) * work / (ANCHOR_PARAMS_B * ANCHOR_BITS)
    return (FIXED_SECONDS + scaled) * anchor_usable / usable


def free_memory() -> int:
    """Bytes of memory available now (``MemAvailable`` on Linux; total memory elsewhere)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0


def assess(model: Any, free_bytes: int, cores: int) -> Fitness:
    """Score one model; higher is better, and a model that does not fit sorts last."""
    reasons: list[str] = []
    if getattr(model, "error", ""):
        return Fitness(model, -1000.0, False, False, None, None, 0, None, (str(model.error),))
    instruct = is_instruct(model)
    params = parameters_of(model)
    quant = str(getattr(model, "quantization", "") or "").upper()
    bits = bits_per_weight(quant)
    ram = ram_needed(model)
    seconds = seconds_per_batch(params, bits, cores)
    fits = free_bytes <= 0 or ram <= free_bytes
    score = math.log2(max(params or 0.1, 0.05) / 0.05)  # more parameters, fewer invented facts
    if instruct:
        score += 3
    else:
        score -= 6
        reasons.append("not an instruct/chat model: it will not follow the reflection prompt")
    if quant in _GOOD_QUANTS:
        score += 1
    elif quant.startswith(("Q2", "Q3")):
        score -= 1.5
        reasons.append(f"{quant} loses much of the model's quality")
    elif quant in ("F16", "BF16", "F32"):
        score -= 2
        reasons.append(f"{quant} is unquantised: slow and large for what it adds")
    context = getattr(model, "context_length", None)
    if isinstance(context, int) and context < MIN_CONTEXT:
        score -= 3
        reasons.append(f"context of {context} tokens is short for a batch of turns")
    if seconds is not None and seconds > SLOW_SECONDS:
        score -= (seconds - SLOW_SECONDS) / 45
        reasons.append(f"slow here: ~{seconds:.0f} s per batch")
    if getattr(model, "recommended", ""):
        score += 0.5
    if not fits:
        score -= 1000
        reasons.append(f"needs ~{ram / 2**30:.1f} GB, more than the {free_bytes / 2**30:.1f} GB free now")
    return Fitness(model, round(score, 3), fits, instruct, params, bits, ram, seconds, tuple(reasons))


def rank(models: Sequence[Any], free_bytes: int | None = None, cores: int | None = None) -> list[Fitness]:
    """``models`` best first (stable for equal scores, so discovery's order breaks ties)."""
    free = free_memory() if free_bytes is None else free_bytes
    count = cores if cores is not None else (os.cpu_count() or 1)
    assessed = [assess(m, free, count) for m in models]
    return sorted(assessed, key=lambda f: -f.score)


def best_fit(ranked: Sequence[Fitness]) -> Fitness | None:
    """The first ranked model that fits and is an instruct model, if any."""
    for fitness in ranked:
        if fitness.fits and fitness.instruct and not getattr(fitness.model, "error", ""):
            return fitness
    return None
