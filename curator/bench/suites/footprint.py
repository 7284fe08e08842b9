"""Footprint: resident memory, GUI start-up and event-loop stalls, each in a child process.

Every measurement runs in a fresh interpreter so one does not inherit another's memory,
and so that Qt is never imported into ``curator`` (house rule): the Qt parts are scripts
run with ``python -c`` under the offscreen platform.

Baselines: a bare interpreter that imports the engine module (for the idle engine), a
bare ``llama_cpp.Llama`` load (for the model), a bare QApplication + QMainWindow (for the
window), and the same timer with nothing running (for the stall).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from curator.bench.context import BenchContext, installed_env
from curator.bench.report import SuiteOutcome, figure_from

NAME = "footprint"
PROJECT = Path(__file__).resolve().parents[3]

_RSS = """
def rss_mb():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024.0
    return float('nan')
"""

ENGINE_IDLE = _RSS + """
import json, sys, time
from pathlib import Path
from curator.engine import Engine
engine = Engine(Path(sys.argv[1]))
engine.search('weekend hiking trip with friends', None, 10)
time.sleep(1.0)
print(json.dumps({'rss_mb': rss_mb()}))
engine.close()
"""

ENGINE_BASE = _RSS + """
import json
import curator.engine
print(json.dumps({'rss_mb': rss_mb()}))
"""

MODEL_RUNTIME = _RSS + """
import json, sys
from pathlib import Path
from curator.llm.runtime import ModelRuntime
from curator.vault.settings import Settings
runtime = ModelRuntime.from_settings(Settings(), model_path=Path(sys.argv[1]))
runtime.preload().result()
print(json.dumps({'rss_mb': rss_mb()}))
runtime.shutdown()
"""

MODEL_BARE = _RSS + """
import json, sys
import llama_cpp
llm = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=4096, n_threads=2, verbose=False)
print(json.dumps({'rss_mb': rss_mb()}))
"""

# The real start-up path (ui.app.main) with an application-wide event filter that notes
# the first Show of the main window, then the first turn of the event loop after it
# (the window can take input), and quits.
GUI_APP = "gui_app"

GUI_BARE = "gui_bare"

# A 10 ms Qt timer on the GUI thread while a batch reflection runs on a worker thread
# (or, for the baseline, while nothing runs); the stall is the longest gap beyond 10 ms.
STALL = "stall"
QT_PROBES = (GUI_APP, GUI_BARE, STALL)


def child(script: str, *args: str, timeout: float = 600, qt: bool = False) -> dict[str, Any]:
    """Run ``script`` in a fresh interpreter; its last stdout line is JSON."""
    env = installed_env()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT), env.get("PYTHONPATH", "")) if p)
    if qt:
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
    # A session of its own and no stdin: a GUI child must never touch the terminal or the
    # signals of the process group that runs the bench.
    # Qt probes are modules of ui/ (the engine never imports Qt); the rest are inline scripts.
    command = ["-m", "ui.bench_probes", script] if script in QT_PROBES else ["-c", script]
    proc = subprocess.run([sys.executable, *command, *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=str(PROJECT), stdin=subprocess.DEVNULL,
                          start_new_session=True)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"child process failed (exit {proc.returncode}): {' | '.join(tail)}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _qt_available() -> str:
    try:
        import importlib.util

        if importlib.util.find_spec("PySide6") is None or importlib.util.find_spec("ui") is None:
            return "PySide6 or the ui package is not installed"
    except (ImportError, ValueError) as exc:
        return str(exc)
    return ""


def run(ctx: BenchContext) -> SuiteOutcome:
    outcome = SuiteOutcome(NAME)
    for part in (_memory, _gui):
        # Each part in its own guard: a GUI that cannot start must not hide the memory figures.
        try:
            part(ctx, outcome)
        except Exception as exc:
            outcome.error = (
                outcome.error + "; " if outcome.error else ""
            ) + f"{part.__name__[1:]}: {type(exc).__name__}: {exc}"
            ctx.log(f"footprint: {part.__name__[1:]} failed: {exc}")
    return outcome


def _memory(ctx: BenchContext, outcome: SuiteOutcome) -> None:
    from curator.bench.suites.reflection import model_path_for
    from curator.bench.vaults import scale_vault

    repeats = 1 if ctx.quick else 3
    big = max(ctx.scale_vaults) if ctx.scale_vaults else ctx.sizes.ingest_corpus
    built, _ = scale_vault(ctx, big)
    idle = [child(ENGINE_IDLE, str(built.vault))["rss_mb"] for _ in range(repeats)]
    base = [child(ENGINE_BASE)["rss_mb"] for _ in range(repeats)]
    outcome.figures.append(figure_from(NAME, f"RSS, engine idle over {built.turns:,} turns", "MB", idle, p95=False,
                                       baseline_samples=base, baseline_name="interpreter + curator.engine imported"))
    model = model_path_for(ctx)
    loaded = [child(MODEL_RUNTIME, str(model))["rss_mb"] for _ in range(repeats)]
    bare = [child(MODEL_BARE, str(model))["rss_mb"] for _ in range(repeats)]
    outcome.figures.append(figure_from(NAME, f"RSS, model runtime with {model.name} loaded", "MB", loaded, p95=False,
                                       baseline_samples=bare, baseline_name="bare llama_cpp.Llama"))
    ctx.log(f"footprint: engine {idle[0]:.0f} MB, model {loaded[0]:.0f} MB")


def _gui(ctx: BenchContext, outcome: SuiteOutcome) -> None:
    repeats = 1 if ctx.quick else 3
    reason = _qt_available()
    if reason:
        outcome.details["gui"] = f"not measured: {reason}"
        return
    gui_vault = ctx.workdir / "gui-vault"
    from curator.engine import Engine

    Engine(gui_vault).close()  # a set-up vault, so the first-run assistant does not open
    shown, usable, bare_usable = [], [], []
    for _ in range(repeats if ctx.quick else repeats + 2):
        got = child(GUI_APP, str(gui_vault), repr(time.time()), qt=True, timeout=120)
        shown.append(got["shown_s"] * 1000)
        usable.append(got["usable_s"] * 1000)
        bare_usable.append(child(GUI_BARE, "", repr(time.time()), qt=True, timeout=120)["usable_s"] * 1000)
    outcome.figures.append(figure_from(NAME, "GUI: process start -> main window usable (offscreen)", "ms", usable,
                                       p95=False, baseline_samples=bare_usable,
                                       baseline_name="bare QApplication+QMainWindow",
                                       note=f"window shown at {sorted(shown)[len(shown) // 2]:.0f} ms; ui.app.main run "
                                            "in a child process with an event filter"))
    if ctx.conversations or ctx.shared.get("pool"):
        stall_vault = _stall_vault(ctx)
        reflect = child(STALL, str(stall_vault), "reflect", "0", qt=True, timeout=600)
        if "error" in reflect:
            raise RuntimeError(f"stall measurement: {reflect['error']}")
        seconds = float(reflect.get("batch_seconds") or 10.0)
        idle_run = child(STALL, str(stall_vault), "idle", f"{min(seconds, 20.0):.1f}", qt=True, timeout=120)
        outcome.figures.append(figure_from(
            NAME, "GUI event loop: largest stall while a batch reflection runs", "ms", [reflect["max_stall_ms"]],
            p95=False, baseline_samples=[idle_run["max_stall_ms"]], baseline_name="same timer, nothing running",
            note=f"10 ms QTimer; p99 stall {reflect['p99_stall_ms']:.1f} ms over {reflect['ticks']} ticks; "
                 f"batch {reflect.get('batch_status')} in {seconds:.1f} s",
        ))


def _stall_vault(ctx: BenchContext) -> Path:
    from curator.bench import reflect_glue
    from curator.bench.suites.reflection import _source
    from curator.engine import Engine

    work = ctx.workdir / "stall"
    _source(ctx, work / "source")
    with Engine(work / "vault") as engine:
        engine.import_path(work / "source", adapter="jsonl")
        reflect_glue.limit_output_tokens(engine.paths.root, ctx.sizes.reflect_max_tokens)
    return work / "vault"
