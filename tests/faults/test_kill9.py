"""Item 8 of issue 11: a real kill -9 at every injected point, then restart and invariants.

Each case runs ``curator`` in a child process with ``CURATOR_FAULT`` naming the point; the
child sends itself SIGKILL there. The restart (a new Engine) runs the recovery, and the
checks of ``curator.bench.crashes`` must all hold: nothing lost, nothing duplicated, nothing
half done, the undo history usable, the index equal to a rebuild. ``curator bench --suite
faults`` runs the same cycle 1,000 times.
"""

from __future__ import annotations

import pytest

from curator.bench.crashes import CASES, CrashBench


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return CrashBench(tmp_path_factory.mktemp("crash"), seed=3)


@pytest.mark.parametrize(("op", "fault"), CASES, ids=[f"{op}@{fault or 'end'}" for op, fault in CASES])
def test_kill_at_every_point_keeps_every_invariant(bench, op, fault):
    result = bench.cycle(op, fault, check_index=True)
    assert result.ok, result
    if fault and "@" not in fault and fault.split(".")[0] in ("review", "ingest", "reindex") and op != "undo":
        assert result.killed, f"{fault} was never reached"  # store.* points depend on the item's kind
