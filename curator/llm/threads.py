"""How many CPU threads llama.cpp gets: chosen by measuring, per phase, while it works.

Neither "every core" nor "every core but one" is right on every machine. Measured on a
2-core machine with the default model: idle, two threads evaluated a prompt at 158-166
tokens/s against 89-98 for one, and generated at 58-61 against 40-45; busy (load ~13, the
person's chat client running its own model), two threads fell to under a third of one
thread's speed, because llama.cpp's workers spin while they wait for each other and one
descheduled worker stalls the rest.

So with ``model.threads`` at 0 both counts stay candidates. Prompt evaluation runs in
chunks and generation token by token anyway; each chunk or window of tokens is timed. The
work starts on every core (llama.cpp's own default for prompts), and the other count is
tried when our threads get less CPU than they ask for or the measured speed drops (another
program took a core) and, in any case, once every ``REPROBE_EVERY`` pieces of work, so the
choice follows the machine's load as it changes. On an idle machine the retries cost about
3 % of prompt time (one chunk in 16 at ~0.6x speed). A count the person sets is used as is.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

PROMPT = "prompt"
GENERATION = "generation"
# Every REPROBE_EVERY-th pick of a phase measures the other count again, so a machine that
# got idle since the last try is noticed within ~10 s of work.
REPROBE_EVERY = 16
# A measurement this much below the count's running speed means the machine changed (a
# busy machine slows every count, but slows "every core" most): try the other count next.
DROP = 0.7
# Our threads got less CPU than this share of their wall time: another program holds a
# core. Measured on 2 cores: idle, 2 threads used 1.98-1.99 CPU seconds per second at
# 151-205 tokens/s; with a busy neighbour 1.00-1.06 at 20-28 tokens/s (1 thread: ~100).
CONTENDED = 0.75
# New measurements weigh this much against the running rate: enough to follow a change in
# load within two tries, little enough that one noisy chunk does not flip the choice.
WEIGHT = 0.5


def candidate_counts(requested: int, cpu_count: int | None = None) -> tuple[int, ...]:
    """Thread counts worth trying: the person's own, else every core and every core but one."""
    cores = max(1, cpu_count if cpu_count is not None else (os.cpu_count() or 1))
    if requested > 0:
        return (min(requested, cores),)
    return tuple(sorted({cores, max(1, cores - 1)}, reverse=True))


@dataclass
class ThreadChooser:
    """Keeps a measured speed per (phase, thread count) and picks the faster count."""

    options: tuple[int, ...]
    reprobe_every: int = REPROBE_EVERY
    rates: dict[tuple[str, int], float] = field(default_factory=dict)
    picks: dict[str, int] = field(default_factory=dict)
    explore: dict[str, int] = field(default_factory=dict)

    @classmethod
    def for_machine(cls, requested: int, cpu_count: int | None = None,
                    reprobe_every: int = REPROBE_EVERY) -> ThreadChooser:
        return cls(candidate_counts(requested, cpu_count), reprobe_every)

    @property
    def most(self) -> int:
        return max(self.options)

    def best(self, phase: str) -> int:
        """The fastest count measured so far (untried counts rank last; ties: fewer threads)."""
        return max(self.options, key=lambda n: (self.rates.get((phase, n), -1.0), -n))

    def pick(self, phase: str) -> int:
        """The count to use for the next piece of work in ``phase``."""
        count = self.picks.get(phase, 0) + 1
        self.picks[phase] = count
        if not any((phase, n) in self.rates for n in self.options):
            return self.most
        retry = self.explore.pop(phase, None)
        if retry is not None:
            return retry
        best = self.best(phase)
        if len(self.options) > 1 and count % self.reprobe_every == 0:
            return self._other_than(phase, best)
        return best

    def _other_than(self, phase: str, threads: int) -> int:
        """An untried count first, else the fastest of the rest."""
        others = [n for n in self.options if n != threads]
        return max(others, key=lambda n: ((phase, n) not in self.rates, self.rates.get((phase, n), 0.0)))

    def record(self, phase: str, threads: int, tokens: int, seconds: float,
               cpu_seconds: float | None = None) -> None:
        """Note that ``threads`` handled ``tokens`` in ``seconds`` (using ``cpu_seconds`` of CPU)."""
        if tokens <= 0 or seconds <= 0:
            return
        rate = tokens / seconds
        old = self.rates.get((phase, threads))
        starved = cpu_seconds is not None and threads > 1 and cpu_seconds < CONTENDED * threads * seconds
        dropped = old is not None and rate < DROP * old
        if (starved or dropped) and len(self.options) > 1:
            self.explore[phase] = self._other_than(phase, threads)
        self.rates[(phase, threads)] = rate if old is None else (1 - WEIGHT) * old + WEIGHT * rate

    def describe(self) -> str:
        """One line for logs: the measured speed of each count."""
        parts = []
        for phase in (PROMPT, GENERATION):
            known = [f"{n}: {self.rates[(phase, n)]:.0f}" for n in self.options if (phase, n) in self.rates]
            if known:
                parts.append(f"{phase} tokens/s by threads {{{', '.join(known)}}}")
        return "; ".join(parts) or "no measurement yet"


ApplyThreads = Callable[[str, int], None]


class PhaseTimer:
    """Runs one phase's work with the count the chooser picks, and reports its speed.

    The work is timed over at least ``window`` tokens before it counts as a measurement: a
    single generated token (~20 ms) or a short tail of a prompt is dominated by fixed costs
    and the scheduler's noise. Without a chooser the work just runs.
    """

    def __init__(self, chooser: ThreadChooser | None, apply: ApplyThreads | None, phase: str,
                 window: int) -> None:
        self.chooser = chooser if apply is not None else None
        self.apply = apply
        self.phase = phase
        self.window = window
        self._count = 0
        self._tokens = 0
        self._seconds = 0.0
        self._cpu = 0.0

    def run(self, work: Callable[[], object], tokens: int) -> None:
        chooser, apply = self.chooser, self.apply
        if chooser is None or apply is None:
            work()
            return
        if not self._count:
            self._count = chooser.pick(self.phase)
            apply(self.phase, self._count)
        began, cpu = time.perf_counter(), time.process_time()
        work()
        self._seconds += time.perf_counter() - began
        # The whole process's CPU time: llama.cpp's workers are threads of this process.
        self._cpu += time.process_time() - cpu
        self._tokens += tokens
        if self._tokens >= self.window:
            chooser.record(self.phase, self._count, self._tokens, self._seconds, self._cpu)
            self._count, self._tokens, self._seconds, self._cpu = 0, 0, 0.0, 0.0


__all__ = ["GENERATION", "PROMPT", "ApplyThreads", "PhaseTimer", "ThreadChooser", "candidate_counts"]
