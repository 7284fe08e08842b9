"""The real application on a virtual display (Xvfb): start-up time, screenshot, one instance per vault."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def display() -> Iterator[str]:
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip("Xvfb is not installed (the project's .dev/system-packages installs it on Debian)")
    for number in range(90, 130):
        if not Path(f"/tmp/.X11-unix/X{number}").exists() and not Path(f"/tmp/.X{number}-lock").exists():
            break
    proc = subprocess.Popen([xvfb, f":{number}", "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):  # up to 10 s of looks
        if Path(f"/tmp/.X11-unix/X{number}").exists():
            break
        if proc.poll() is not None:
            break
        time.sleep(0.05)  # waiting for an external process, not for Qt
    if not Path(f"/tmp/.X11-unix/X{number}").exists():
        proc.kill()
        pytest.skip("Xvfb did not start")
    yield f":{number}"
    proc.terminate()
    proc.wait(10)


def _env(tmp_path: Path, display: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.update({"DISPLAY": display, "QT_QPA_PLATFORM": "xcb", "XDG_DATA_HOME": str(tmp_path / "data"),
                "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_RUNTIME_DIR": str(tmp_path / "run"),
                "PYTHONPATH": str(ROOT)})
    (tmp_path / "run").mkdir(mode=0o700, exist_ok=True)
    return env


def _start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", "import sys; from ui.app import main; sys.exit(main())", *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _read_until(proc: subprocess.Popen[str], marker: str, timeout: float) -> tuple[str, list[str]]:
    assert proc.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip())
        if marker in line:
            return line, lines
    raise AssertionError(f"{marker!r} not seen; output:\n" + "\n".join(lines))


def test_demo_window_opens_and_takes_a_screenshot(display: str, tmp_path: Path) -> None:
    # How fast it opens is a figure of `curator bench --suite footprint`, not an assert here:
    # a loaded machine would make a time limit flaky.
    shot = tmp_path / "shots" / "demo.png"
    proc = _start(["--demo", "--screenshot", str(shot), "--quit-after", "60"], _env(tmp_path, display))
    try:
        shown, _ = _read_until(proc, "window shown", 30)
        assert float(shown.split()[2]) >= 0, shown
        _read_until(proc, "screenshot saved", 60)
        # Quitting waits for a model call in flight (llama.cpp cannot stop mid-prompt); on a
        # loaded machine that takes a while, so the bound is generous (a hang still fails).
        assert proc.wait(300) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    from PySide6.QtGui import QImage

    image = QImage(str(shot))
    assert image.width() > 600 and image.height() > 400
    colours = {image.pixel(x, y) for x in range(0, image.width(), 37) for y in range(0, image.height(), 29)}
    assert len(colours) > 4, "the screenshot is blank"
    print(f"screenshot: {shot}")


def test_second_start_on_the_same_vault_focuses_the_first(display: str, tmp_path: Path) -> None:
    env = _env(tmp_path, display)
    vault = tmp_path / "vault"
    first = _start(["--demo", "--vault", str(vault), "--quit-after", "60"], env)
    try:
        _read_until(first, "vault open", 60)
        second = _start(["--demo", "--vault", str(vault)], env)
        out, _ = second.communicate(timeout=30)
        assert second.returncode == 0
        assert "already open" in out
        other = _start(["--demo", "--vault", str(tmp_path / "other-vault"), "--quit-after", "0.1"], env)
        out, _ = other.communicate(timeout=30)
        assert "already open" not in out
    finally:
        first.terminate()
        try:
            first.wait(20)
        except subprocess.TimeoutExpired:
            first.kill()
