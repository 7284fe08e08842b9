"""The window shows before the engine loads (issue 22 item 1): importing ``ui.app`` loads
Qt and the panes, but none of the engine's modules, which load on the worker thread when
the vault opens; and no application-wide style sheet (it slowed every widget's creation)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

ENGINE_ONLY = ("curator.engine", "curator.review.actions", "curator.reflection", "curator.triggers",
               "curator.sources.adapters", "curator.llm.runtime", "curator.outbound", "yaml", "frontmatter",
               "numpy", "llama_cpp")


def test_importing_the_window_loads_none_of_the_engine() -> None:
    run = subprocess.run([sys.executable, "-X", "importtime", "-c", "import ui.app"], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert run.returncode == 0, run.stderr[-2000:]
    names = {m.group(1).strip() for m in re.finditer(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", run.stderr, re.M)}
    assert "ui.main_window" in names and "ui.panes.review" in names  # the listing is real
    loaded = sorted(n for n in names if any(n == m or n.startswith(m + ".") for m in ENGINE_ONLY))
    assert loaded == [], f"ui.app imported {loaded[:6]}"


def test_importing_the_window_leaves_the_later_tabs_for_later() -> None:
    """The later tabs and the single-instance socket load after the window shows, not with ``ui.app``."""
    run = subprocess.run([sys.executable, "-c", "import sys, ui.app; print(sorted(sys.modules))"],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert run.returncode == 0, run.stderr[-2000:]
    assert "'ui.panes.review'" in run.stdout
    for later in ("ui.panes.reflections", "ui.panes.knowledge", "ui.panes.cycle", "ui.panes.status",
                  "ui.services.cycles", "PySide6.QtNetwork", "_hashlib"):
        assert f"'{later}'" not in run.stdout, later


def test_pyside_asks_the_quick_question_about_each_import() -> None:
    """PySide6's check of every module imported after it reads the file's bytes (the same
    answer as its own source reading, a tenth of the time)."""
    code = ("import sys, ui, json\n"
            "feature = sys.modules.get('PySide6.support.feature') or sys.modules['shibokensupport.feature']\n"
            "import ui.main_window, curator.index.text\n"
            "check = feature._mod_uses_pyside\n"
            "print(json.dumps([getattr(check, 'quick', False), check(sys.modules['ui.main_window']),\n"
            "                  check(sys.modules['curator.index.text']), check(sys.modules['sys'])]))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "[true, true, false, false]"
