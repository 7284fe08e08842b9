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
