"""Qt-side probes for ``curator bench``'s footprint suite, run as ``python -m ui.bench_probes``.

They live in ``ui/`` because they import Qt, which the engine (``curator/``) never does.
Each probe prints one JSON line on stdout for the bench to read.

- ``gui_app VAULT T_SPAWNED``: the real start-up path (``ui.app.main``) with an event
  filter that notes the main window's first Show and the first event-loop turn after it.
- ``gui_bare _ T_SPAWNED``: the baseline, a bare QApplication and QMainWindow.
- ``stall VAULT reflect|idle SECONDS``: a 10 ms timer on the GUI thread while a batch
  reflection runs on a worker thread (or nothing runs); reports the longest gap.
"""
# ruff: noqa
import sys

PROBES = {
    "gui_app": "\nimport json, sys, time\nt_spawned = float(sys.argv[2])\nfrom PySide6.QtCore import QObject, QEvent, QTimer\nfrom PySide6.QtWidgets import QApplication, QMainWindow\napp = QApplication.instance() or QApplication(['memory-curator'])\nmarks = {}\nclass Probe(QObject):\n    def eventFilter(self, obj, event):\n        if event.type() == QEvent.Type.Show and isinstance(obj, QMainWindow) and 'shown' not in marks:\n            marks['shown'] = time.time()\n            def usable():\n                marks['usable'] = time.time()\n                print(json.dumps({'shown_s': marks['shown'] - t_spawned, 'usable_s': marks['usable'] - t_spawned}), flush=True)\n                app.quit()\n            QTimer.singleShot(0, usable)\n        return False\nprobe = Probe()\napp.installEventFilter(probe)\nimport ui.app\ncode = ui.app.main(['--vault', sys.argv[1], '--no-watch', '--quit-after', '30'])\n",
    "gui_bare": "\nimport json, sys, time\nt_spawned = float(sys.argv[2])\nfrom PySide6.QtCore import QTimer\nfrom PySide6.QtWidgets import QApplication, QMainWindow\napp = QApplication(['bare'])\nwindow = QMainWindow()\nwindow.resize(1100, 720)\nwindow.show()\ndef usable():\n    print(json.dumps({'shown_s': time.time() - t_spawned, 'usable_s': time.time() - t_spawned}), flush=True)\n    app.quit()\nQTimer.singleShot(0, usable)\napp.exec()\n",
    "stall": "\nimport json, sys, threading, time\nfrom pathlib import Path\nfrom PySide6.QtCore import QTimer\nfrom PySide6.QtWidgets import QApplication\nvault, mode, seconds = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])\napp = QApplication(['stall'])\ngaps, last = [], [time.perf_counter()]\ndef tick():\n    now = time.perf_counter()\n    gaps.append(now - last[0])\n    last[0] = now\n    if done.is_set():  # quit from the GUI thread: a timer posted from the worker would never fire\n        app.quit()\ntimer = QTimer()\ntimer.setInterval(10)\ntimer.timeout.connect(tick)\ndone = threading.Event()\nresult = {}\ndef work():\n    try:\n        if mode == 'reflect':\n            from curator.engine import Engine\n            from curator.bench import reflect_glue\n            engine = Engine(vault)\n            try:\n                service = reflect_glue.open_service(engine, None)\n                service.runtime.preload().result()\n                last[0] = time.perf_counter(); gaps.clear()\n                started = time.perf_counter()\n                batch = reflect_glue.run_batch(service, 'default', 0, 10)\n                result['batch_status'] = batch.status\n                result['batch_seconds'] = time.perf_counter() - started\n                service.close()\n            finally:\n                engine.close()\n        else:\n            time.sleep(seconds)\n    except Exception as exc:\n        result['error'] = f'{type(exc).__name__}: {exc}'\n    finally:\n        done.set()\ntimer.start()\nthreading.Thread(target=work, daemon=True).start()\napp.exec()\nstalls = [max(0.0, g - 0.010) * 1000 for g in gaps]\nresult.update({'max_stall_ms': max(stalls) if stalls else None, 'ticks': len(gaps),\n               'p99_stall_ms': sorted(stalls)[int(0.99 * (len(stalls) - 1))] if stalls else None})\nprint(json.dumps(result), flush=True)\n",
}


def main() -> None:
    name = sys.argv[1]
    sys.argv = [sys.argv[0], *sys.argv[2:]]
    exec(compile(PROBES[name], f"<probe {name}>", "exec"), {"__name__": "__probe__"})


if __name__ == "__main__":
    main()
