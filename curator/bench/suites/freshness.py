"""Freshness: a line appended to a watched JSONL file until search returns that turn.

Uses the real watcher (``Engine.start_watching``). Three clocks per timed line:
appended (the writer's ``flush``), parse start (the watcher calls ``ingest_unit`` for the
unit holding it, recorded by wrapping that method on this engine instance), and found
(the first ``Engine.search`` that returns it). The watcher's debounce is a product setting
(``watch.debounce_ms``), so end-to-end figures are given at the default and at 0 ms.
The baseline is bare watchdog: append until its observer reports the change.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.bench.context import BenchContext
from curator.bench.report import SuiteOutcome, figure_from
from curator.bench.stats import ms
from curator.bench.vaults import locomo_source
from curator.engine import Engine

NAME = "freshness"
FIND_TIMEOUT = 15.0
PAUSE = 0.05  # between single lines, so each one is its own event


@dataclass
class Probe:
    """One timed line."""

    token: str
    key: str
    appended: float = 0.0
    parse_start: float | None = None
    found: float | None = None


def _line(token: str, key: str, n: int) -> str:
    return json.dumps({"id": key, "conversation": "freshness", "role": "user" if n % 2 == 0 else "assistant",
                       "content": f"Note number {n} mentions the code word {token} today.",
                       "timestamp": "2024-06-01T12:00:00Z"}) + "\n"


def _append(handle: Any, text: str) -> float:
    handle.write(text)
    handle.flush()
    return time.perf_counter()


class _ParseClock:
    """Wraps ``ingest_unit`` of one ingestor instance to note when each turn's parse began."""

    def __init__(self, engine: Engine) -> None:
        self.started: dict[str, float] = {}
        original: Callable[..., Any] = engine.ingestor.ingest_unit

        def timed(*args: Any, **kwargs: Any) -> Any:
            begin = time.perf_counter()
            report = original(*args, **kwargs)
            for turn in report.added:
                self.started.setdefault(turn.key, begin)
            return report

        engine.ingestor.ingest_unit = timed  # type: ignore[method-assign]


def _wait_found(engine: Engine, probe: Probe) -> None:
    deadline = time.perf_counter() + FIND_TIMEOUT
    while time.perf_counter() < deadline:
        if engine.search(probe.token, None, 1):
            probe.found = time.perf_counter()
            return
        time.sleep(0.0005)


def watchdog_baseline(folder: Path, count: int) -> list[float]:
    """Milliseconds from an append until a bare watchdog observer reports the file modified."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    seen = threading.Event()
    target = folder / "baseline.jsonl"
    target.write_text("", encoding="utf-8")

    class Handler(FileSystemEventHandler):
        def on_modified(self, event: Any) -> None:
            if Path(os.fsdecode(event.src_path)) == target:
                seen.set()

    observer = Observer()
    observer.schedule(Handler(), str(folder), recursive=True)
    observer.start()
    samples = []
    try:
        with target.open("a", encoding="utf-8") as handle:
            for n in range(count):
                time.sleep(PAUSE)
                seen.clear()
                appended = _append(handle, _line(uuid.uuid4().hex[:10], f"b{n}", n))
                if seen.wait(5.0):
                    samples.append(ms(time.perf_counter() - appended))
    finally:
        observer.stop()
        observer.join(5)
    return samples


def _singles(engine: Engine, handle: Any, clock: _ParseClock, count: int, tag: str) -> list[Probe]:
    probes = []
    for n in range(count):
        time.sleep(PAUSE)
        token = f"fresh{tag}{uuid.uuid4().hex[:10]}"
        probe = Probe(token, f"{tag}-{n}")
        probe.appended = _append(handle, _line(token, probe.key, n))
        _wait_found(engine, probe)
        probes.append(probe)
    return probes


def _burst(engine: Engine, handle: Any, clock: _ParseClock, lines: int, probes_wanted: int, tag: str) -> list[Probe]:
    """Write ``lines`` lines as fast as the writer can; every n-th one is timed."""
    step = max(1, lines // probes_wanted)
    probes: list[Probe] = []
    ready = threading.Event()

    def writer() -> None:
        for n in range(lines):
            key = f"{tag}-{n}"
            if n % step == step - 1:
                token = f"burst{tag}{uuid.uuid4().hex[:10]}"
                probe = Probe(token, key)
                probe.appended = _append(handle, _line(token, key, n))
                probes.append(probe)
                ready.set()
            else:
                _append(handle, _line("", key, n))

    thread = threading.Thread(target=writer, name="bench-burst-writer")
    thread.start()
    checked = 0
    while thread.is_alive() or checked < len(probes):
        if checked < len(probes):
            _wait_found(engine, probes[checked])
            checked += 1
        else:
            ready.wait(0.01)
            ready.clear()
    thread.join()
    return probes


def _figures(outcome: SuiteOutcome, probes: list[Probe], label: str, debounce_ms: int,
             baseline: list[float] | None, clock: _ParseClock) -> None:
    # Parse starts are known once ingest_unit has returned, which can be after search
    # already finds the turn (the trigger hook runs last): look them up afterwards.
    for probe in probes:
        probe.parse_start = clock.started.get(f"id:{probe.key}")
    missing = sum(1 for p in probes if p.found is None)
    if missing:
        outcome.details.setdefault("not_found", {})[label] = missing
    end_to_end = [ms(p.found - p.appended) for p in probes if p.found is not None]
    after_parse = [ms(p.found - p.parse_start) for p in probes if p.found is not None and p.parse_start is not None]
    outcome.figures.append(figure_from(
        NAME, f"append -> found by search, {label}, debounce {debounce_ms} ms", "ms", end_to_end,
        baseline_samples=baseline, baseline_name="bare watchdog event" if baseline else "",
        note=f"{missing} of {len(probes)} not found within {FIND_TIMEOUT:g} s" if missing else "",
    ))
    outcome.figures.append(figure_from(
        NAME, f"parse start -> found by search, {label}, debounce {debounce_ms} ms", "ms", after_parse,
        note="product promise: under 20 ms after parse",
    ))


def run(ctx: BenchContext) -> SuiteOutcome:
    outcome = SuiteOutcome(NAME)
    root = ctx.workdir / "freshness"
    source = root / "source"
    source.mkdir(parents=True, exist_ok=True)
    if ctx.conversations:
        # A realistic index under the live file: the LoCoMo conversations are watched too.
        for path in locomo_source(ctx, ctx.conversations).glob("*.jsonl"):
            (source / path.name).write_bytes(path.read_bytes())
    live = source / "live.jsonl"
    live.write_text("", encoding="utf-8")
    baseline = watchdog_baseline(root, ctx.sizes.freshness_alone)
    engine = Engine(root / "vault")
    try:
        engine.add_source(source, adapter="jsonl")
        default_debounce = int(engine.settings["watch.debounce_ms"])
        clock = _ParseClock(engine)
        watcher = engine.start_watching()
        if not watcher.wait_idle(120):
            raise RuntimeError("the watcher did not finish its start-up scan in 120 s")
        outcome.details["indexed_turns_before"] = sum(v for u in engine.index.turn_counts().values() for v in u.values()
                                                      if isinstance(v, int))
        with live.open("a", encoding="utf-8") as handle:
            for debounce in (default_debounce, 0):
                engine.settings.set("watch.debounce_ms", debounce)
                tag = f"d{debounce}"
                singles = _singles(engine, handle, clock, ctx.sizes.freshness_alone, tag + "s")
                watcher.wait_idle(30)
                _figures(outcome, singles, "single line", debounce, baseline, clock)
                burst: list[Probe] = []
                for b in range(ctx.sizes.freshness_bursts):
                    watcher.wait_idle(30)
                    burst += _burst(engine, handle, clock, ctx.sizes.burst_lines, ctx.sizes.burst_probes, f"{tag}b{b}")
                watcher.wait_idle(30)
                _figures(outcome, burst, f"during a burst of {ctx.sizes.burst_lines:,} lines", debounce, None, clock)
                ctx.log(f"freshness: debounce {debounce} ms done")
    finally:
        engine.close()
    return outcome
