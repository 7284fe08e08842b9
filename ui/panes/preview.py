"""Each pane on its own, on the demo: ``python -m ui.panes.preview review`` (or status, ...).

Builds a throwaway vault from the bundled demo conversation, stages two sample proposals
and one context summary through the engine's own APIs (no model runs), and shows one pane
attached to it. ``--screenshot PATH`` saves the pane as a PNG and quits: manual QA, the
screenshot tests and CI use the same code. Every pane module also runs its preview from
``python -m ui.panes.<name>``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QWidget

if TYPE_CHECKING:
    from curator.engine import Engine
    from ui.infra.interaction import Interaction
    from ui.infra.workers import OpRunner
    from ui.panes.knowledge import KnowledgePane
    from ui.panes.status import StatusPane
    from ui.services.facade import KnowledgeService, StatusService

S = TypeVar("S", contravariant=True)

PANES = ("review", "contradictions", "reflections", "knowledge", "status")


def demo_engine(folder: Path) -> Engine:
    """A writer engine on ``folder`` with the demo read, two proposals and a summary staged."""
    from curator.datafiles import demo_dir
    from curator.engine import Engine
    from curator.reflection.summaries import SummaryStore
    from curator.review.staging import StagedDraft, StagingArea

    engine = Engine(folder)
    engine.add_source(demo_dir(), adapter="jsonl", user_id="default")
    engine.scan_all()
    staging = StagingArea(engine.store, engine.clock)
    gates = ["caps", "keyword_support", "dedup", "novelty"]
    staging.stage("default", StagedDraft(
        kind="fact", title="Maya works night shifts as a nurse at St. Clair Hospital",
        text="Maya works night shifts as a nurse at St. Clair Hospital.", category="Facts",
        source_turns=[3], confidence=0.6, batch_id=None, origin="preview", gates=gates))
    staging.stage("default", StagedDraft(
        kind="fact", title="Tom walks Pixel on Tuesdays and Thursdays",
        text="Maya's neighbour Tom walks her border collie Pixel on Tuesdays and Thursdays.",
        category="Facts", source_turns=[5, 7], confidence=0.75, batch_id=None, origin="preview", gates=gates))
    SummaryStore(engine.store, engine.clock).create(
        "default", "", "Maya is getting organised before winter: night shifts, Pixel's walks, and"
        " Portuguese before a trip to Lisbon with her sister Ana.", (1, 12))
    return engine


def build_pane(name: str, engine: Engine, runner: OpRunner, interaction: Interaction) -> QWidget:
    """The pane ``name`` attached to ``engine`` the way the main window attaches it."""
    from ui.panes.contradictions import ContradictionsPane
    from ui.panes.knowledge import KnowledgePane
    from ui.panes.reflections import ReflectionsPane
    from ui.panes.review import ReviewPane
    from ui.panes.status import StatusPane
    from ui.services.facade import KnowledgeService, ReviewService, StatusService, SummariesService

    builders: dict[str, Callable[[], QWidget]] = {
        "review": lambda: _attached(ReviewPane(runner, interaction), ReviewService(engine, "default")),
        "contradictions": lambda: _attached(ContradictionsPane(runner, interaction), ReviewService(engine, "default")),
        "reflections": lambda: _attached(ReflectionsPane(runner, interaction), SummariesService(engine, "default")),
        "knowledge": lambda: _knowledge(KnowledgePane(runner, interaction), KnowledgeService(engine, "default")),
        "status": lambda: _status(StatusPane(), StatusService(engine, "default")),
    }
    return builders[name]()


class _Attachable(Protocol[S]):
    def attach(self, service: S) -> None: ...


def _attached(pane: _Attachable[S], service: S) -> QWidget:
    pane.attach(service)
    assert isinstance(pane, QWidget)
    return pane


def _knowledge(pane: KnowledgePane, service: KnowledgeService) -> QWidget:
    pane.attach(service)
    pane.query.setText("Pixel")  # a search, so the results table has rows
    return pane


def _status(pane: StatusPane, service: StatusService) -> QWidget:
    pane.show_snapshot(service.snapshot())
    return pane


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui.panes.preview", description=__doc__)
    parser.add_argument("pane", choices=PANES)
    parser.add_argument("--screenshot", type=Path, help="save the pane as a PNG after it loaded, then quit")
    parser.add_argument("--wait-ms", type=int, default=1500, help="how long to let it load before the screenshot")
    args = parser.parse_args(list(argv) if argv is not None else None)
    from ui.infra.bridge import MainThreadPoster
    from ui.infra.interaction import DialogInteraction
    from ui.infra.workers import OpRunner

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    with tempfile.TemporaryDirectory(prefix="curator-preview-") as tmp:
        engine = demo_engine(Path(tmp) / "vault")
        runner = OpRunner(MainThreadPoster())
        pane = build_pane(args.pane, engine, runner, DialogInteraction())
        pane.setWindowTitle(f"Memory Curator — {args.pane} (preview on the demo)")
        pane.resize(1100, 700)
        pane.show()
        if args.screenshot is not None:
            path: Path = args.screenshot

            def save() -> None:
                pane.grab().save(str(path), "PNG")
                print(f"screenshot saved to {path}", flush=True)
                app.quit()

            QTimer.singleShot(args.wait_ms, save)
        code = app.exec()
        runner.shutdown(wait=True)
        engine.close()
    return int(code)


if __name__ == "__main__":
    raise SystemExit(main())
