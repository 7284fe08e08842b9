"""Screenshots of every pane on a real vault: ``python tests/ui/make_screenshots.py OUT_DIR [--model]``.

Not a test (no ``test_`` prefix): a manual QA and documentation aid (house style §4.20).
The vault is real: the demo conversation is ingested by the engine and items are staged
through ``StagingArea``; with ``--model`` a real context summary runs on the default GGUF
model and the status pane is captured while its tokens stream. Run it under Xvfb
(``xvfb-run -a``) for real rendering, or offscreen.
"""

from __future__ import annotations

import concurrent.futures
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from helpers import open_demo_engine, stage_items
from PySide6.QtCore import QEventLoop, QItemSelectionModel, Qt, QTimer, QUrl
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from ui.infra.interaction import ScriptedInteraction
from ui.infra.resources import dark_palette
from ui.main_window import MainWindow


def settle(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def until(predicate, timeout_ms: int = 120_000) -> None:  # type: ignore[no-untyped-def]
    waited = 0
    while not predicate() and waited < timeout_ms:
        settle(100)
        waited += 100


def shot(widget: QWidget, out: Path, name: str) -> None:
    widget.grab().save(str(out / name))
    print(out / name)


def select(window: MainWindow, item_id: str) -> None:
    window.review.tree.setFocus()
    window.review.tree.selectionModel().setCurrentIndex(
        window.review.model.index_of(item_id),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
    settle(700)


def main(out: Path, with_model: bool) -> None:
    app = QApplication.instance() or QApplication([])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_demo_engine(Path(tmp) / "vault")
        staged = stage_items(engine)
        from curator.reflection.summaries import SummaryStore

        summaries = SummaryStore(engine.store, engine.clock)
        summaries.create("default", "Write a concise summary of the current context.",
                         "Maya, a night-shift nurse, is getting organised before winter: walks for Pixel, "
                         "Portuguese lessons and a Lisbon trip.", (1, 22))
        window = MainWindow(interaction=ScriptedInteraction(), with_tray=False)
        window.resize(1280, 800)
        window.show()
        window.attach_engine(engine)
        settle(1500)

        select(window, staged.flagged)
        shot(window, out, "01-review-flagged.png")
        select(window, staged.correction)
        shot(window, out, "02-review-correction-diff.png")
        select(window, staged.fact)
        window.review.evidence._on_browser_anchor_clicked(QUrl("context:3"))
        settle(700)
        shot(window, out, "03-review-evidence-conversation.png")
        QTest.keyClick(window.review.tree, Qt.Key.Key_A)  # approve with the keyboard
        settle(900)
        shot(window, out, "04-review-after-approve.png")

        window.tabs.setCurrentWidget(window.contradictions)
        settle(700)
        window.contradictions.view.note.setText("Ana moved from Porto to Braga in November 2026")
        shot(window, out, "05-contradictions.png")
        window.tabs.setCurrentWidget(window.reflections)
        settle(700)
        shot(window, out, "06-reflections.png")
        window.tabs.setCurrentWidget(window.knowledge)
        window.knowledge.query.setText("sister Porto")
        settle(900)
        window.knowledge.open_document(staged.existing_fact)
        settle(700)
        shot(window, out, "07-knowledge-search-and-document.png")

        window.tabs.setCurrentWidget(window.status)
        if with_model:
            from test_llm_reflection import RuntimeModelClient  # the same adapter the llm test uses

            from curator.llm.runtime import ModelRuntime
            from curator.reflection.summaries import SummaryWriter

            engine.runtime = ModelRuntime.from_settings(engine.settings, bus=engine.bus)  # type: ignore[attr-defined]
            writer = SummaryWriter(SummaryStore(engine.store, engine.clock, events=engine.bus),
                                   RuntimeModelClient(engine.runtime), engine.settings)
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
            future = pool.submit(writer.generate, "default", engine.index.turns("default")[:12],
                                 "Summarise Maya's plans in two sentences.", "manual")
            until(lambda: len(window.status.stream.toPlainText()) > 60 or future.done())
            shot(window, out, "08-status-streaming-reflection.png")
            until(future.done)
            settle(800)
            engine.runtime.shutdown()
            pool.shutdown()
        window.refresh_status()
        settle(900)
        shot(window, out, "09-status-and-activity.png")

        window.settings_action.trigger()
        settle(500)
        assert window.settings_dialog is not None
        shot(window.settings_dialog, out, "10-settings.png")
        window.settings_dialog.reject()

        from ui.dialogs.first_run import FirstRunWizard

        wizard = FirstRunWizard(window.runner, Path(tmp) / "new-vault", window)
        wizard.show()
        wizard.next()
        wizard.add_source(str(Path(__file__).resolve().parents[2] / "resources" / "demo"), "maya")
        wizard.next()
        settle(1200)
        shot(wizard, out, "11-first-run-model.png")
        wizard.reject()

        window.close()
        window.shutdown(close_engine=False)

        app.setPalette(dark_palette())  # as a dark desktop would hand it to the app at start-up
        dark = MainWindow(interaction=ScriptedInteraction(), with_tray=False)
        dark.resize(1280, 800)
        dark.show()
        dark.attach_engine(engine)
        settle(1500)
        select(dark, staged.correction)
        shot(dark, out, "12-review-dark.png")
        dark.close()
        dark.shutdown()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(Path(args[0] if args else "/tmp/curator-screens"), "--model" in sys.argv)
