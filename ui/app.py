"""``memory-curator [--vault PATH] [--demo]``: the window first, the engine right after.

Start-up order (a usable window within 2 s): parse arguments, create the application, ask
an already running instance for this vault to come forward (and exit if there is one),
show the main window with light imports only, and then open the engine on the worker
thread. Watching starts once the vault is open; the model loads in the background and its
progress shows in the status pane.
"""

from __future__ import annotations

import time

_STARTED = time.monotonic()  # before the Qt imports: start-up time is measured from here

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from curator.vault.paths import default_vault
from ui.infra.bridge import MainThreadPoster
from ui.infra.resources import app_icon
from ui.infra.single_instance import InstanceServer, ask_running_instance, may_be_running
from ui.main_window import MainWindow

if TYPE_CHECKING:
    from curator.engine import Engine

log = logging.getLogger("memory_curator")
APP_ID = "io.github.memorycurator.MemoryCurator"


def demo_vault() -> Path:
    """Where ``--demo`` keeps its vault: a user-data folder of its own, beside the real one."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("memory-curator-demo"))


def state_file() -> Path:
    """The file for window geometry only (QSettings pointed at our own folder)."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("memory-curator")) / "window-state.ini"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="memory-curator", description="Review the memories a local model proposes.")
    parser.add_argument("--vault", type=Path, help="vault folder (default: your user data folder)")
    parser.add_argument("--demo", action="store_true", help="open the bundled demo conversation")
    parser.add_argument("--first-run", action="store_true", help="show the first-run assistant even if set up")
    parser.add_argument("--no-watch", action="store_true", help="do not watch sources (read them once)")
    parser.add_argument("--screenshot", type=Path, help="save a PNG of the window once loaded, then quit")
    parser.add_argument(
        "--tab",
        default="",
        help="tab to show first (review, contradictions, reflections, knowledge, cycle, status)",
    )
    parser.add_argument("--quit-after", type=float, default=0.0, help="quit after this many seconds")
    return parser.parse_args(list(argv) if argv is not None else None)


def needs_first_run(vault: Path) -> bool:
    """A vault that has never been set up (no settings file yet)."""
    return not (vault / "curator.yaml").exists()


def open_engine(vault: Path, demo: bool, watch: bool) -> Any:
    """Open the engine for ``vault`` (runs on the worker thread: heavy imports happen here)."""
    from curator.datafiles import demo_dir
    from curator.engine import Engine

    engine = Engine(vault)
    try:
        if demo:
            demo_root = demo_dir().resolve()
            if not any(Path(s.path).resolve() == demo_root for s in engine.settings.sources):
                engine.add_source(demo_root, adapter="jsonl", user_id="default")
        if watch:
            engine.start_watching()
        else:
            engine.scan_all()
        engine.start_reflection()
        # The review pane reads the language tables when it first counts a card's support, on the
        # GUI thread: loaded here, on the worker, that costs the click nothing.
        from curator.reflection.languages import tables

        tables()

    except BaseException:
        engine.close()
        raise
    return engine


def apply_first_run(result: Any) -> None:
    """Write the assistant's answers as the vault's settings (runs on the worker thread)."""
    from curator.engine import Engine

    engine = Engine(result.vault)
    try:
        for source in result.sources:
            engine.add_source(Path(source.path), adapter=source.adapter, user_id=source.user_id)
        changed = {key: value for key, value in (("model.path", result.model_path),
                                                  ("person.name", result.person_name)) if value}
        if changed:
            from curator.vault.settings import save_settings

            for key, value in changed.items():
                engine.settings.set(key, value)
            save_settings(engine.paths.settings_file, engine.settings)
    finally:
        engine.close()


class Startup:
    """Drives the start-up sequence on the GUI thread (first run, engine, screenshot)."""

    def __init__(self, app: QApplication, window: MainWindow, args: argparse.Namespace, vault: Path) -> None:
        self.app = app
        self.window = window
        self.args = args
        self.vault = vault
        self.started_at = time.monotonic()
        self.wizard: Any = None

    def begin(self) -> None:
        if (self.args.first_run or needs_first_run(self.vault)) and not self.args.demo:
            from ui.dialogs.first_run import FirstRunWizard

            self.wizard = FirstRunWizard(self.window.runner, self.vault, self.window,
                                         interaction=self.window.interaction)
            self.wizard.finished_with.connect(self._on_wizard_finished)
            self.wizard.rejected.connect(self._open)
            self.wizard.open()
            return
        self._open()

    def _on_wizard_finished(self, result: Any) -> None:
        self.vault = result.vault
        self.window.runner.submit("save first-run answers", lambda: apply_first_run(result), lambda _r: self._open(),
                                  lambda e: self.window.show_engine_error(str(e)))

    def _open(self) -> None:
        vault, demo, watch = self.vault, self.args.demo, not self.args.no_watch
        self.window.vault_label.setText(f"Opening {vault}…")
        self.window.runner.submit("open vault", lambda: open_engine(vault, demo, watch), self._on_engine_open,
                                  lambda e: self.window.show_engine_error(str(e)))

    def _on_engine_open(self, engine: Engine) -> None:
        self.window.attach_engine(engine)
        runtime = engine.runtime
        if runtime is not None:
            runtime.preload()  # returns at once; the model worker loads it and reports model.* events
        print(f"vault open {time.monotonic() - _STARTED:.2f} s after start", flush=True)
        w = self.window
        tabs = {"review": w.review, "contradictions": w.contradictions, "reflections": w.reflections,
                "knowledge": w.knowledge, "cycle": w.cycle, "status": w.status}
        if self.args.tab in tabs:
            w.tabs.setCurrentWidget(tabs[self.args.tab])
        if self.args.screenshot:
            QTimer.singleShot(2500, self._save_screenshot)

    def _save_screenshot(self) -> None:
        path: Path = self.args.screenshot
        path.parent.mkdir(parents=True, exist_ok=True)
        self.window.grab().save(str(path), "PNG")
        print(f"screenshot saved to {path}", flush=True)
        self.app.quit()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the window; returns the process exit code."""
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    vault = (args.vault.expanduser() if args.vault else (demo_vault() if args.demo else default_vault())).resolve()
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "memory-curator"])
    assert isinstance(app, QApplication)
    app.setApplicationName("Memory Curator")
    app.setOrganizationName("memory-curator")
    app.setDesktopFileName(APP_ID)
    app.setWindowIcon(app_icon())
    app.setQuitOnLastWindowClosed(True)
    if may_be_running(vault) and ask_running_instance(vault):
        print(f"Memory Curator is already open on {vault}; brought it to the front.", flush=True)
        return 0
    window = MainWindow(MainThreadPoster(), state_file=state_file())
    servers: list[InstanceServer] = []
    window.show()
    # Listening loads QtNetwork: after the window is on screen, in the first event-loop turn.
    QTimer.singleShot(0, lambda: servers.append(_listen(vault, window)))
    QTimer.singleShot(0, lambda: print(f"window shown {time.monotonic() - _STARTED:.2f} s after start", flush=True))
    startup = Startup(app, window, args, vault)
    QTimer.singleShot(0, startup.begin)
    if args.quit_after > 0:
        QTimer.singleShot(int(args.quit_after * 1000), app.quit)
    _install_excepthook(window)
    try:
        code = app.exec()
    finally:
        window.save_geometry()
        window.shutdown()
        for server in servers:
            server.close()
    return int(code)


def _listen(vault: Path, window: MainWindow) -> InstanceServer:
    """Answer later starts on ``vault`` by bringing ``window`` to the front."""
    server = InstanceServer(vault)
    if not server.listen():
        log.warning("could not listen on %s; a second start will open a second window", server.name)
    server.activation_requested.connect(window.bring_to_front)
    return server


def _install_excepthook(window: MainWindow) -> None:
    previous: Callable[..., Any] = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
        log.error("unexpected error", exc_info=(kind, value, tb))
        window.statusBar().showMessage(f"Unexpected error: {value}", 10000)
        if previous is not sys.__excepthook__:
            previous(kind, value, tb)

    sys.excepthook = hook


if __name__ == "__main__":
    raise SystemExit(main())
