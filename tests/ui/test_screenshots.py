"""Screenshots of every pane on the demo, failing when a pane's content renders empty.

Each pane is built by the same preview code a person runs (``python -m ui.panes.<name>``),
grabbed as an image, and its content area must carry ink: text drawn on it. A table or
list that shows no rows, or a text view that stays blank, fails here even though no widget
raised an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QTableView, QWidget

from curator.engine import Engine
from ui.infra.interaction import ScriptedInteraction
from ui.infra.workers import OpRunner
from ui.panes.preview import build_pane, demo_engine

WAIT = 15_000
MIN_INK = 0.004  # share of pixels that differ clearly from the background


def ink(image: QImage) -> float:
    """Share of pixels much darker or lighter than the image's most common colour."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    width, height = image.width(), image.height()
    step = 2
    samples: dict[int, int] = {}
    values = []
    for y in range(0, height, step):
        for x in range(0, width, step):
            rgb = image.pixel(x, y) & 0xFFFFFF
            values.append(rgb)
            samples[rgb] = samples.get(rgb, 0) + 1
    if not values:
        return 0.0
    background = max(samples, key=lambda k: samples[k])

    def luma(rgb: int) -> float:
        return 0.299 * ((rgb >> 16) & 255) + 0.587 * ((rgb >> 8) & 255) + 0.114 * (rgb & 255)

    base = luma(background)
    return sum(1 for v in values if abs(luma(v) - base) > 60) / len(values)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = demo_engine(tmp_path_factory.mktemp("preview") / "vault")
    yield engine
    engine.close()


def _content(name: str, pane: QWidget) -> list[QWidget]:
    """The widgets that must not be blank in each pane."""
    views = {
        "review": lambda p: [p.tree.viewport(), p.evidence],
        "contradictions": lambda p: [p],
        "reflections": lambda p: [p.table.viewport(), p.editor.viewport()],
        "knowledge": lambda p: [p.table.viewport()],
        "status": lambda p: [p.sources_view.viewport(), p.triggers_text.viewport()],
    }
    return views[name](pane)


@pytest.mark.parametrize("name", ["review", "contradictions", "reflections", "knowledge", "status"])
def test_every_pane_renders_content(qtbot, runner: OpRunner, demo: Engine, name: str, tmp_path: Path) -> None:
    pane = build_pane(name, demo, runner, ScriptedInteraction())
    qtbot.addWidget(pane)
    pane.resize(1100, 700)
    pane.show()
    qtbot.waitExposed(pane)
    ready = {
        "review": lambda: pane.model.total() > 0 and "cited turn" in pane.evidence.header.text(),
        "contradictions": lambda: True,
        "reflections": lambda: pane.model.rowCount() > 0 and bool(pane.editor.toPlainText()),
        "knowledge": lambda: pane.results.rowCount() > 0,
        "status": lambda: pane.sources.rowCount() > 0,
    }[name]
    qtbot.waitUntil(ready, timeout=WAIT)
    pane.grab().save(str(tmp_path / f"{name}.png"), "PNG")
    for widget in _content(name, pane):
        share = ink(widget.grab().toImage())
        assert share > MIN_INK, f"{name}: {widget.objectName() or type(widget).__name__} renders empty ({share:.4f})"


def test_the_check_fails_on_an_empty_table(qtbot) -> None:
    table = QTableView()
    qtbot.addWidget(table)
    table.resize(600, 300)
    table.show()
    qtbot.waitExposed(table)
    assert ink(table.viewport().grab().toImage()) <= MIN_INK
