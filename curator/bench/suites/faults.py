"""Faults: the kill -9 soak. N cycles (default 1,000) of import, approve, discard, edit, undo
and reindex, each killed by SIGKILL at an injected point (or run to the end), followed by a
restart and the invariant check of ``curator.bench.crashes``. It prints what was lost,
duplicated or left half done (each must be 0) and how often the index equalled a rebuild.
"""

from __future__ import annotations

import time
from collections import Counter

from curator.bench.context import BenchContext
from curator.bench.crashes import CASES, soak
from curator.bench.report import Figure, SuiteOutcome

NAME = "faults"
DEFAULT_CYCLES = 1000
QUICK_CYCLES = 100


def run(ctx: BenchContext) -> SuiteOutcome:
    outcome = SuiteOutcome(NAME)
    cycles = int(ctx.shared.get("fault_cycles") or (QUICK_CYCLES if ctx.quick else DEFAULT_CYCLES))
    folder = ctx.workdir / "faults"
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    results = soak(folder, cycles, log=ctx.log)
    seconds = time.perf_counter() - started
    killed = sum(1 for r in results if r.killed)
    lost = sum(len(r.lost) for r in results)
    duplicated = sum(len(r.duplicated) for r in results)
    half = sum(len(r.half_done) for r in results)
    undo_broken = sum(1 for r in results if r.undo_broken)
    errors = sum(1 for r in results if r.error)
    compared = [r for r in results if r.index_equal is not None]
    unequal = sum(1 for r in compared if r.index_equal is False)
    note = f"{cycles} cycles over {len(CASES)} (operation, kill point) cases, {killed} killed by SIGKILL"
    for name, value in (("items or messages lost", lost), ("items or messages duplicated", duplicated),
                        ("actions left half done", half), ("undo histories broken", undo_broken),
                        ("restarts or commands that failed", errors),
                        (f"index differed from a rebuild (of {len(compared)} compared)", unequal)):
        outcome.figures.append(Figure(NAME, name, "count", float(value), n=cycles, note=note))
    outcome.figures.append(Figure(NAME, "one cycle (child run, restart, checks)", "s", seconds / max(1, cycles),
                                  n=cycles, note=f"{seconds:.0f} s in all"))
    outcome.details = {
        "cycles": cycles,
        "killed": killed,
        "by_operation": dict(Counter(r.op for r in results)),
        "failures": [str(r) for r in results if not r.ok][:50],
    }
    ctx.log(f"faults: {cycles} cycles, {killed} killed: lost {lost}, duplicated {duplicated}, half done {half}, "
            f"undo broken {undo_broken}, failed {errors}, index unequal {unequal}/{len(compared)}")
    if lost or duplicated or half or undo_broken or errors or unequal:
        outcome.error = "invariants broken: see details.failures"
    return outcome
