"""Qt-side probes for ``curator bench``'s footprint suite: ``python -m ui.bench_probes NAME ...``.

They live in ``ui/`` because they import Qt, which the engine (``curator/``) never does.
Each probe prints one JSON line on stdout for the bench to read.

- ``gui_app VAULT T_SPAWNED``: the real start-up path (``ui.app.main``), noting when the main
  window is first shown and the first event-loop turn after it.
- ``gui_bare _ T_SPAWNED``: the baseline, a bare QApplication and QMainWindow.
- ``stall VAULT reflect|idle SECONDS``: a 10 ms timer on the GUI thread while a batch
  reflection runs on a worker thread (or nothing runs); reports the longest gap.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget


def _emit(data: dict[str, Any]) -> None:
    print(json.dumps(data), flush=True)


def gui_app(vault: str, spawned: str) -> None:
    """Time the real application's start until its window takes input: the first event-loop
    turn after the main window is shown (noted by wrapping ``show``; an application-wide
    event filter in Python would slow every event of the start it measures)."""
    app = QApplication.instance() or QApplication(["memory-curator"])
    started = float(spawned)
    import ui.app
    import ui.main_window

    shown_at: list[float] = []
    original_show = ui.main_window.MainWindow.show

    def usable() -> None:
        _emit({"shown_s": shown_at[0] - started, "usable_s": time.time() - started})
        app.quit()

    def show(window: QWidget) -> None:
        original_show(window)
        if not shown_at:
            shown_at.append(time.time())
            QTimer.singleShot(0, usable)

    ui.main_window.MainWindow.show = show  # type: ignore[method-assign]
    ui.app.main(["--vault", vault, "--no-watch", "--quit-after", "30"])


def gui_bare(_unused: str, spawned: str) -> None:
    """The same measurement for a bare window: the baseline."""
    app = QApplication(["bare"])
    window = QMainWindow()
    window.resize(1100, 720)
    started = float(spawned)

    def usable() -> None:
        _emit({"shown_s": time.time() - started, "usable_s": time.time() - started})
        app.quit()

    window.show()
    QTimer.singleShot(0, usable)
    app.exec()


def _reflect_once(vault: Path, result: dict[str, Any], reset: Callable[[], None]) -> None:
    from curator.bench import reflect_glue
    from curator.engine import Engine

    engine = Engine(vault)
    try:
        service = reflect_glue.open_service(engine, None)
        service.runtime.preload().result()
        reset()
        started = time.perf_counter()
        batch = reflect_glue.run_batch(service, "default", 0, 10)
        result["batch_status"] = batch.status
        result["batch_seconds"] = time.perf_counter() - started
        service.close()
    finally:
        engine.close()


def stall(vault: str, mode: str, seconds: str) -> None:
    """The longest gap of a 10 ms GUI timer while a batch reflection runs (or nothing runs)."""
    app = QApplication(["stall"])
    gaps: list[float] = []
    last = [time.perf_counter()]
    done = threading.Event()
    result: dict[str, Any] = {}

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now
        if done.is_set():  # quit from the GUI thread: a timer posted from the worker would never fire
            app.quit()

    def reset() -> None:
        last[0] = time.perf_counter()
        gaps.clear()

    def work() -> None:
        try:
            if mode == "reflect":
                _reflect_once(Path(vault), result, reset)
            else:
                time.sleep(float(seconds))
        except Exception as exc:
            result["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            done.set()

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    threading.Thread(target=work, daemon=True).start()
    app.exec()
    stalls = [max(0.0, g - 0.010) * 1000 for g in gaps]
    result.update({"max_stall_ms": max(stalls) if stalls else None, "ticks": len(gaps),
                   "p99_stall_ms": sorted(stalls)[int(0.99 * (len(stalls) - 1))] if stalls else None})
    _emit(result)


PROBES: dict[str, Callable[..., None]] = {"gui_app": gui_app, "gui_bare": gui_bare, "stall": stall}


def main(argv: list[str] | None = None) -> None:
    """Run the probe named by the first argument with the rest as its arguments."""
    args = list(sys.argv[1:] if argv is None else argv)
    PROBES[args[0]](*args[1:])


if __name__ == "__main__":
    main()
