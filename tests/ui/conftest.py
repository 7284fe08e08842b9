"""Fixtures for the GUI tests: offscreen Qt, a poster, an op runner, scripted interaction."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import StagedSet, open_demo_engine, stage_items

from curator.engine import Engine
from ui.infra.bridge import MainThreadPoster
from ui.infra.interaction import ScriptedInteraction
from ui.infra.workers import OpRunner


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "qtbot" in getattr(item, "fixturenames", ()) or "qapp" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.gui)


@pytest.fixture
def poster(qapp: object) -> MainThreadPoster:
    return MainThreadPoster()


@pytest.fixture
def runner(poster: MainThreadPoster) -> Iterator[OpRunner]:
    op_runner = OpRunner(poster)
    yield op_runner
    op_runner.shutdown(wait=True)


@pytest.fixture
def interaction() -> ScriptedInteraction:
    return ScriptedInteraction()


# A demo vault and a set of staged items; test files with other needs define their own.
@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    eng = open_demo_engine(tmp_path / "vault")
    yield eng
    eng.close()


@pytest.fixture
def staged(engine: Engine) -> StagedSet:
    return stage_items(engine)
