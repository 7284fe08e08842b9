"""Screenshots of every pane on a real vault with staged items: ``python tests/ui/make_screenshots.py OUT_DIR``.

Not a test (no ``test_`` prefix): a manual QA and documentation aid (house style §4.20).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from helpers import open_demo_engine, stage_items  # noqa: E402
from ui.interaction import ScriptedInteraction  # noqa: E402
from ui.main_window import MainWindow  # noqa: E402
from ui.resources import stylesheet  # noqa: E402


def settle(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def main(out: Path) -> None:
    app = QApplication.instance() or QApplication([])
    app.setStyleSheet(stylesheet())
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_demo_engine(Path(tmp) / "vault")
        stage_items(engine)
        from curator.reflection.summaries import SummaryStore

        summaries = SummaryStore(engine.store, engine.clock)
        summaries.create("default", "Write a concise summary of the current context.",
                         "Maya, a night-shift nurse, is getting organised before winter: walks for Pixel, "
                         "Portuguese lessons and a Lisbon trip.", (1, 22))
        window = MainWindow(interaction=ScriptedInteraction(), with_tray=False)
        window.resize(1280, 800)
        window.show()
        window.attach_engine(engine)
        settle(1200)
        for index, name in enumerate(["review", "contradictions", "reflections", "knowledge", "status"]):
            window.tabs.setCurrentIndex(index)
            if name == "knowledge":
                window.knowledge.query.setText("Lisbon trip")
            settle(900)
            window.grab().save(str(out / f"{index + 1}-{name}.png"))
        window.review.tree.setFocus()
        window.tabs.setCurrentIndex(0)
        window.review.tree.setCurrentIndex(window.review.model.index_of(window.review.model.entries()[1].item_id))
        settle(700)
        window.grab().save(str(out / "6-review-correction.png"))
        window.close()
        window.shutdown()
    print(f"screenshots in {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/curator-screens"))
