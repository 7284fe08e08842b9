"""Choosing, running and reporting the suites of one ``curator bench`` run."""

from __future__ import annotations

import importlib
import shutil
import tempfile
import time
import traceback
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from curator.bench.context import FULL, QUICK, BenchContext, Sizes
from curator.bench.locomo import load_folder
from curator.bench.report import SuiteOutcome

# Run order matters: ingest builds the scale vaults that search and footprint reuse.
SUITES: tuple[str, ...] = ("ingest", "search", "startup", "freshness", "quality", "reflection", "footprint")
# Suites that take hours with a local model, and the faults soak (1,000 kill -9 cycles), run
# only when named.
ON_REQUEST: tuple[str, ...] = ("reflection-quality", "faults")
ALL_SUITES: tuple[str, ...] = SUITES + ON_REQUEST


def default_data_dir(project_root: Path | None = None) -> Path:
    """``../shared/data/locomo`` relative to the project folder."""
    root = project_root or Path(__file__).resolve().parents[2]
    return (root.parent / "shared" / "data" / "locomo").resolve()


def resolve_data(data: str | None) -> tuple[Path | None, str]:
    """The data folder to use and a note; an explicit folder that is missing is an error.

    Raises:
        FileNotFoundError: ``data`` was given and is not a folder.
    """
    if data:
        folder = Path(data).expanduser().resolve()
        if not folder.is_dir():
            raise FileNotFoundError(f"--data {folder}: no such folder")
        return folder, ""
    folder = default_data_dir()
    if folder.is_dir():
        return folder, ""
    return None, (f"no LoCoMo data (default {folder} is absent; pass --data DIR): the quality suite "
                  "is skipped and the speed suites use generated text")


def _sizes(quick: bool, sessions: int | None) -> Sizes:
    preset = QUICK if quick else FULL
    return replace(preset, rq_sessions=sessions) if sessions else preset


def run_bench(
    *,
    data: str | None = None,
    quick: bool = False,
    suites: list[str] | None = None,
    model: str | None = None,
    verbose: bool = True,
    workdir: Path | None = None,
    cycles: int | None = None,
    sessions: int | None = None,
    writer: str | None = None,
) -> tuple[list[SuiteOutcome], dict[str, Any]]:
    """Run the chosen suites; returns their outcomes and the run's metadata.

    ``cycles`` sets the number of kill -9 cycles of the faults suite (default 1,000; 100 quick);
    ``sessions`` the sessions reflected per conversation by reflection-quality (default all; 2 quick),
    ``writer`` who words its memories (the ``reflection.writer`` setting; default the vault's, auto).
    """
    chosen = list(suites or SUITES)
    unknown = [s for s in chosen if s not in ALL_SUITES]
    if unknown:
        raise ValueError(f"unknown suite(s): {', '.join(unknown)} (choose from {', '.join(ALL_SUITES)})")
    data_dir, note = resolve_data(data)
    conversations = load_folder(data_dir) if data_dir else []
    if data_dir is not None and not conversations:
        note = f"{data_dir} holds no LoCoMo-format conversations: the quality suite is skipped"
    own_tmp = workdir is None
    work = Path(tempfile.mkdtemp(prefix="curator-bench-")) if own_tmp else Path(workdir)  # type: ignore[arg-type]
    work.mkdir(parents=True, exist_ok=True)
    ctx = BenchContext(
        quick=quick, workdir=work, data_dir=data_dir, conversations=conversations,
        model_path=Path(model).expanduser().resolve() if model else None,
        sizes=_sizes(quick, sessions), verbose=verbose, data_note=note,
    )
    if cycles is not None:
        ctx.shared["fault_cycles"] = cycles
    if writer is not None:
        ctx.shared["writer"] = writer
    if note:
        ctx.log(note)
    started = time.monotonic()
    outcomes: list[SuiteOutcome] = []
    try:
        for name in [s for s in ALL_SUITES if s in chosen]:
            module = importlib.import_module(f"curator.bench.suites.{name.replace('-', '_')}")
            ctx.log(f"suite {name}")
            t0 = time.monotonic()
            try:
                outcome = module.run(ctx)
            except Exception as exc:  # one broken suite must not hide the others' figures
                outcome = SuiteOutcome(name, error=f"{type(exc).__name__}: {exc}")
                outcome.details["traceback"] = traceback.format_exc()
                ctx.log(f"suite {name} failed: {exc}")
            outcome.seconds = time.monotonic() - t0
            outcomes.append(outcome)
    finally:
        if own_tmp:
            shutil.rmtree(work, ignore_errors=True)
    meta = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "mode": "quick" if quick else "full",
        "data": str(data_dir) if data_dir else None,
        "data_note": note,
        "conversations": len(conversations),
        "turns": sum(len(c.turns) for c in conversations),
        "suites": [s for s in ALL_SUITES if s in chosen],
        "seconds": round(time.monotonic() - started, 1),
    }
    return outcomes, meta
