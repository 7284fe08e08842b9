"""The main window: the composition root. It creates the panes, connects them, owns nothing else.

Before the engine is open the window is already usable (tabs, placeholders, settings);
``attach_engine`` hands each pane its engine adapter, relays engine events and starts the
periodic status snapshot.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QByteArray, QEvent, QSettings, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDesktopServices, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui.infra.bridge import EventRelay, MainThreadPoster, relay_data
from ui.infra.interaction import DialogInteraction, Interaction
from ui.infra.resources import STATUSBAR_STYLE, TABBAR_STYLE, TOOLBAR_STYLE, app_icon, icon
from ui.infra.workers import OpRunner
from ui.panes.notice import Notice
from ui.panes.review import ReviewPane
from ui.panes.work import WorkIndicator, WorkTracker, job_name
from ui.services.facade import (
    ClientSendService,
    KnowledgeService,
    ReviewService,
    SourcesService,
    StatusService,
    SummariesService,
    apply_settings,
    discover_models,
)
from ui.tray import TrayController

if TYPE_CHECKING:  # the engine is opened by ui.app; the window only shows it
    from curator.engine import Engine
    from curator.triggers.jobs import Job
    from ui.dialogs.settings_dialog import SettingsDialog
    from ui.panes.contradictions import ContradictionsPane
    from ui.panes.cycle import CyclePane
    from ui.panes.knowledge import KnowledgePane
    from ui.panes.reflections import ReflectionsPane
    from ui.panes.status import StatusPane

STATUS_INTERVAL_MS = 5000

QUEUE_EVENTS = ("staging.", "review.", "batch.", "reflection.", "micro.", "job.finished", "contradiction.")
SUMMARY_EVENTS = ("summary.", "summaries.", "reflection.", "job.finished")
# Tabs built after the window is first shown, one per event-loop turn (or at once when
# something asks for them): importing and building them was a fifth of the window's start.
LATER_PANES = ("contradictions", "reflections", "knowledge", "cycle", "status")


class MainWindow(QMainWindow):
    """Memory Curator's window. Signals: ``engine_attached()``, ``settings_saved()``. GUI thread only."""

    engine_attached = Signal()
    settings_saved = Signal()
    open_vault_requested = Signal(str)

    def __init__(
        self,
        poster: MainThreadPoster | None = None,
        interaction: Interaction | None = None,
        state_file: Path | None = None,
        with_tray: bool = True,
    ) -> None:
        super().__init__()
        self.setWindowTitle("Memory Curator")
        self.setWindowIcon(app_icon())
        self.setObjectName("main_window")
        self.poster = poster or MainThreadPoster(self)
        self.interaction: Interaction = interaction or DialogInteraction(self)
        self.runner = OpRunner(self.poster, self)
        self.relay = EventRelay(self.poster, self)
        self.engine: Engine | None = None
        self._state = QSettings(str(state_file), QSettings.Format.IniFormat) if state_file else None
        self._first_queue_load = True
        self.settings_dialog: SettingsDialog | None = None

        # ---- Panes
        self.review = ReviewPane(self.runner, self.interaction)
        self._built: dict[str, QWidget] = {}
        self._placeholders = {name: QWidget() for name in LATER_PANES}
        self._user_id = ""
        self.tabs = QTabWidget()
        self.tabs.tabBar().setStyleSheet(TABBAR_STYLE)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.review, icon("approve"), "Review")
        self.tabs.addTab(self._placeholders["contradictions"], icon("contradiction"), "Contradictions")
        self.tabs.addTab(self._placeholders["reflections"], icon("reflect"), "Reflections")
        self.tabs.addTab(self._placeholders["knowledge"], icon("search"), "Knowledge")
        self.tabs.addTab(self._placeholders["cycle"], icon("reflect"), "Cycle")
        self.tabs.addTab(self._placeholders["status"], icon("history"), "Status && activity")
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)
        self.notice = Notice()
        central = QWidget()
        central_layout = QVBoxLayout(central)
        central_layout.setContentsMargins(0, 0, 0, 0)
        central_layout.setSpacing(0)
        central_layout.addWidget(self.tabs, 1)
        central_layout.addWidget(self.notice)  # answers to actions, with Undo, under the panes
        self.setCentralWidget(central)

        # ---- Toolbar and status bar
        toolbar = QToolBar("Main")
        toolbar.setObjectName("main_toolbar")
        toolbar.setMovable(False)
        toolbar.setStyleSheet(TOOLBAR_STYLE)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.reflect_action = QAction(icon("reflect"), "Reflect now", self)
        self.undo_action = QAction(icon("undo"), "Undo", self)
        self.settings_action = QAction(icon("settings"), "Settings", self)
        self.settings_action.setShortcut(QKeySequence.StandardKey.Preferences)
        self.user_combo = QComboBox()
        self.user_combo.setToolTip("Whose memories are shown")
        self.user_combo.setMinimumWidth(120)
        self.reflect_action.setToolTip("Run a reflection now: choose which")
        toolbar.addAction(self.reflect_action)
        reflect_tool = toolbar.widgetForAction(self.reflect_action)
        if isinstance(reflect_tool, QToolButton):
            reflect_tool.setObjectName("toolbar_reflect")
            reflect_tool.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        toolbar.addAction(self.undo_action)
        toolbar.addSeparator()
        toolbar.addWidget(QLabel(" User: "))
        toolbar.addWidget(self.user_combo)
        spacer = QWidget()
        spacer.setSizePolicy(spacer.sizePolicy().horizontalPolicy().Expanding, spacer.sizePolicy().verticalPolicy())
        toolbar.addWidget(spacer)
        toolbar.addAction(self.settings_action)
        self.addToolBar(toolbar)
        self.vault_label = QLabel("Opening vault…")
        self.queue_label = QLabel("")
        self.model_label = QLabel("Model: —")
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(80)
        self.busy.setMaximumHeight(12)
        self.busy.hide()
        self.work = WorkTracker()
        self.work_indicator = WorkIndicator(self.work)
        # Left: what runs (the widest text); right: the vault (full path in its tooltip), the
        # review count and the model. Answers to actions show in a strip above (``notice``).
        self.vault_label.setMaximumWidth(320)
        self.statusBar().setStyleSheet(STATUSBAR_STYLE)
        self.statusBar().addWidget(self.work_indicator, 1)
        self.statusBar().addPermanentWidget(self.vault_label)
        self.statusBar().addPermanentWidget(self.queue_label)
        self.statusBar().addPermanentWidget(self.model_label)
        self.statusBar().addPermanentWidget(self.busy)
        self.tray = TrayController(self) if with_tray else None
        self._build_menus()

        # ---- Wiring
        self.reflect_action.triggered.connect(self._on_reflect_action_triggered)
        self.review.action_answered.connect(self._on_review_action_answered)
        self.notice.undo_requested.connect(self.review._on_undo_button_clicked)
        self.work_indicator.cancel_requested.connect(self._on_status_cancel_requested)
        self.undo_action.triggered.connect(self.review._on_undo_button_clicked)
        self.settings_action.triggered.connect(self._on_settings_action_triggered)
        self.user_combo.currentTextChanged.connect(self._on_user_combo_changed)
        self.runner.busy_changed.connect(self.busy.setVisible)
        self.runner.op_failed.connect(self._on_runner_op_failed)
        self.relay.event_received.connect(self._on_relay_event_received)
        self.relay.tokens_received.connect(self._on_relay_tokens_received)
        self.review.queue_changed.connect(self._on_review_queue_changed)
        if self.tray is not None:
            self.tray.show_requested.connect(self.bring_to_front)
        self._status_timer = QTimer(self)
        self._status_timer.setInterval(STATUS_INTERVAL_MS)
        self._status_timer.timeout.connect(self.refresh_status)
        self._set_engine_actions_enabled(False)
        self.resize(1200, 780)
        self.restore_geometry()

    # ---- Panes built after the first show

    @property
    def contradictions(self) -> ContradictionsPane:
        return cast("ContradictionsPane", self._pane("contradictions"))

    @property
    def reflections(self) -> ReflectionsPane:
        return cast("ReflectionsPane", self._pane("reflections"))

    @property
    def knowledge(self) -> KnowledgePane:
        return cast("KnowledgePane", self._pane("knowledge"))

    @property
    def cycle(self) -> CyclePane:
        return cast("CyclePane", self._pane("cycle"))

    @property
    def status(self) -> StatusPane:
        return cast("StatusPane", self._pane("status"))

    def _pane(self, name: str) -> QWidget:
        pane = self._built.get(name)
        return pane if pane is not None else self._build_pane(name)

    def _build_pane(self, name: str) -> QWidget:
        pane: QWidget
        if name == "contradictions":
            from ui.panes.contradictions import ContradictionsPane

            pane = ContradictionsPane(self.runner, self.interaction)
        elif name == "reflections":
            from ui.panes.reflections import ReflectionsPane

            pane = reflections = ReflectionsPane(self.runner, self.interaction)
            reflections.reflection_requested.connect(self._on_reflection_requested)
            # One menu for the tab's button and the toolbar's: the same choices wherever opened.
            self.reflect_action.setMenu(reflections.reflect_menu)
        elif name == "knowledge":
            from ui.panes.knowledge import KnowledgePane

            pane = knowledge = KnowledgePane(self.runner, self.interaction)
            knowledge.action_answered.connect(self._on_review_action_answered)
        elif name == "cycle":
            from ui.panes.cycle import CyclePane

            pane = cycle = CyclePane(self.runner, self.interaction)
            cycle.answered.connect(self._on_review_action_answered)
            cycle.count_changed.connect(self._on_cycle_count_changed)
        else:
            from ui.panes.status import StatusPane

            pane = status = StatusPane()
            self.relay.tokens_received.connect(status.on_tokens)
            status.cancel_requested.connect(self._on_status_cancel_requested)
            status.refresh_requested.connect(self.refresh_status)
        self._built[name] = pane
        self._swap_in(self._placeholders.pop(name), pane)
        if self.engine is not None and name != "status":
            self._attach_pane(name, self.engine, self._user_id)
        return pane

    def _swap_in(self, placeholder: QWidget, pane: QWidget) -> None:
        """Put ``pane`` in its placeholder's tab, keeping the tab that shows."""
        index = self.tabs.indexOf(placeholder)
        current = self.tabs.currentIndex()
        tab_icon, text = self.tabs.tabIcon(index), self.tabs.tabText(index)
        self.tabs.blockSignals(True)
        try:
            self.tabs.removeTab(index)
            self.tabs.insertTab(index, pane, tab_icon, text)
            self.tabs.setCurrentIndex(current)
        finally:
            self.tabs.blockSignals(False)
        placeholder.deleteLater()

    def _build_next_pane(self) -> None:
        waiting = [name for name in LATER_PANES if name not in self._built]
        if waiting:
            self._build_pane(waiting[0])
        if len(waiting) > 1:
            QTimer.singleShot(0, self._build_next_pane)

    def _on_tabs_current_changed(self, index: int) -> None:
        widget = self.tabs.widget(index)
        for name, placeholder in list(self._placeholders.items()):
            if widget is placeholder:
                self._build_pane(name)

    def _attach_pane(self, name: str, engine: Engine, user_id: str) -> None:
        if name == "contradictions":
            self.contradictions.attach(ReviewService(engine, user_id))
        elif name == "reflections":
            self.reflections.attach(SummariesService(engine, user_id))
        elif name == "knowledge":
            self.knowledge.attach(KnowledgeService(engine, user_id))
        elif name == "cycle":
            from ui.services.cycles import CycleService

            self.cycle.attach(CycleService(engine, user_id))

    # ---- Public API

    def attach_engine(self, engine: Engine, user_id: str = "") -> None:
        """Show ``engine``'s vault. Called on the GUI thread once the engine is open."""
        self.engine = engine
        self.relay.attach(engine.bus)
        users = self._users(engine) or ["default"]
        self.user_combo.blockSignals(True)
        self.user_combo.clear()
        self.user_combo.addItems(users)
        self.user_combo.setCurrentText(user_id if user_id in users else users[0])
        self.user_combo.blockSignals(False)
        self.vault_label.setText(f"Vault: {Path(engine.paths.root).name}")
        self.vault_label.setToolTip(str(engine.paths.root))
        self._attach_user(self.user_combo.currentText())
        self._set_engine_actions_enabled(True)
        self._status_timer.start()
        self.engine_attached.emit()

    def show_engine_error(self, message: str) -> None:
        self.vault_label.setText(f"Could not open the vault: {message}")
        from ui.panes.status import ActivityEntry

        self.status.add_activity([ActivityEntry(__import__("time").time(), "vault.error", message, "error")])

    def _after_settings_saved(self) -> None:
        self.settings_saved.emit()
        self.refresh_status()

    def refresh_status(self) -> None:
        if self.engine is None:
            return
        service = StatusService(self.engine, self.user_combo.currentText() or "default")
        self.runner.submit("status", service.snapshot, self._on_status_snapshot, latest_only="status")

    def bring_to_front(self) -> None:
        self.show()
        self.setWindowState((self.windowState() & ~Qt.WindowState.WindowMinimized) | Qt.WindowState.WindowActive)
        self.raise_()
        self.activateWindow()

    def restore_geometry(self) -> None:
        if self._state is None:
            return
        geometry = self._state.value("window/geometry")
        state = self._state.value("window/state")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        if isinstance(state, QByteArray):
            self.restoreState(state)

    def save_geometry(self) -> None:
        if self._state is None:
            return
        self._state.setValue("window/geometry", self.saveGeometry())
        self._state.setValue("window/state", self.saveState())
        self._state.sync()

    def shutdown(self, close_engine: bool = True) -> None:
        """Stop timers, relays and the worker; close the engine unless told not to (idempotent)."""
        self._status_timer.stop()
        self.relay.detach()
        self.runner.shutdown(wait=True)
        if self.tray is not None:
            self.tray.hide()
        engine, self.engine = self.engine, None
        if close_engine and engine is not None:
            engine.close()

    # ---- Qt overrides

    def showEvent(self, event: QShowEvent) -> None:
        """Override: build the other tabs once the window is on screen."""
        super().showEvent(event)
        if self._placeholders:
            QTimer.singleShot(0, self._build_next_pane)

    def changeEvent(self, event: QEvent) -> None:
        """Override: follow the system's light/dark palette in painted highlights."""
        if event.type() == QEvent.Type.PaletteChange:
            self.review.refresh_palette()
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Override: remember the geometry."""
        self.save_geometry()
        super().closeEvent(event)

    # ---- Controllers

    def _attach_user(self, user_id: str) -> None:
        engine = self.engine
        if engine is None:
            return
        self._user_id = user_id
        self.review.attach(ReviewService(engine, user_id))
        self._pane("reflections")  # its menu is the toolbar's "Reflect now", enabled below
        for name in list(self._built):
            self._attach_pane(name, engine, user_id)  # the others when they are built
        self.refresh_status()

    def _on_user_combo_changed(self, user_id: str) -> None:
        if self.engine is not None and user_id:
            self._first_queue_load = True
            self._attach_user(user_id)

    def _on_relay_event_received(self, kind: str, data: object) -> None:
        payload = relay_data(data)
        self.status.on_engine_event(kind, payload)
        if self.work.on_event(kind, payload):
            self._show_work()
        # A tab not built yet loads everything when it is: only built ones reload.
        built = self._built
        if kind.startswith(QUEUE_EVENTS):
            self.review.reload()
            if "contradictions" in built:
                self.contradictions.reload()
        if kind.startswith(SUMMARY_EVENTS) and "reflections" in built:
            self.reflections.reload()
        if kind.startswith(("reflection.cycle", "review.")) and "cycle" in built:
            self.cycle.reload()
        if kind.startswith("model."):
            self.model_label.setText(self.status.model_label.text())
        if kind in ("job.finished", "model.ready", "model.error"):
            self.refresh_status()
        if kind.startswith(("document.", "knowledge.", "review.")) and "knowledge" in built:
            self.knowledge.run_search()

    def _on_review_queue_changed(self, count: int) -> None:
        self.queue_label.setText(f"{count} to review")
        self.tabs.setTabText(0, f"Review ({count})" if count else "Review")
        self.setWindowTitle(f"Memory Curator — {count} waiting" if count else "Memory Curator")
        if self.tray is not None:
            self.tray.set_count(count, notify=not self._first_queue_load)
        self._first_queue_load = False

    def _on_relay_tokens_received(self, _job_id: str, text: str) -> None:
        self.work.on_tokens(text)
        self._show_work()

    def _show_work(self) -> None:
        self.work_indicator.refresh()
        self.status.show_work(self.work.now_text(), self.work.fraction())
        self.review.set_activity(self.work.summary())

    def _on_cycle_count_changed(self, count: int) -> None:
        index = self.tabs.indexOf(self.cycle)
        self.tabs.setTabText(index, f"Cycle ({count})" if count else "Cycle")

    def _on_review_action_answered(self, message: str, undoable: bool) -> None:
        self.notice.show_message(message, undoable)

    def _on_status_snapshot(self, snapshot: Any) -> None:
        self.status.show_snapshot(snapshot)
        if snapshot.model:
            self.model_label.setText(f"Model: {snapshot.model}")

    def _on_reflect_action_triggered(self) -> None:
        # From the keyboard or the menu bar: open the same menu the toolbar button opens.
        button = self.findChild(QToolButton, "toolbar_reflect")
        if button is not None and button.isVisible():
            button.showMenu()

    def _on_reflection_requested(self, job: Job) -> None:
        kind = job.kind
        self.notice.show_message(f"{job_name(kind).capitalize()} queued; the status bar shows it running")

    def _on_status_cancel_requested(self, job_id: str) -> None:
        if self.engine is None:
            return
        service = StatusService(self.engine)
        self.runner.submit("cancel", lambda: service.cancel(job_id))

    def _on_settings_action_triggered(self) -> None:
        if self.engine is None:
            return
        engine = self.engine
        # Imported on first use: model discovery and its imports stay out of start-up.
        from ui.dialogs.settings_dialog import SettingsDialog

        self.settings_dialog = SettingsDialog(engine.settings, self, runner=self.runner, interaction=self.interaction,
                                              sources=SourcesService(engine), discover=lambda: discover_models(engine),
                                              send=ClientSendService(engine))
        self.settings_dialog.accepted.connect(self._on_settings_dialog_accepted)
        self.settings_dialog.sources_changed.connect(self._on_settings_dialog_sources_changed)
        self.settings_dialog.open()

    def _on_settings_dialog_accepted(self) -> None:
        if self.settings_dialog is not None:
            self._apply_settings(self.settings_dialog.changed_values())

    def _on_settings_dialog_sources_changed(self, _sources: list[Any]) -> None:
        if self.engine is not None:
            for user_id in self._users(self.engine):
                if self.user_combo.findText(user_id) < 0:
                    self.user_combo.addItem(user_id)
        self.refresh_status()

    def _apply_settings(self, changes: dict[str, Any]) -> None:
        if not changes or self.engine is None:
            return
        engine = self.engine
        self.runner.submit("save settings", lambda: apply_settings(engine, changes),
                           lambda _r: self._after_settings_saved(),
                           lambda e: self.interaction.inform("Settings", f"Not saved: {e}"))

    def _on_runner_op_failed(self, label: str, message: str) -> None:
        self.statusBar().showMessage(f"{label} failed: {message}", 8000)

    # ---- Menus

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.open_vault_action = file_menu.addAction(icon("search"), "&Open vault…")
        self.open_vault_action.setShortcut(QKeySequence.StandardKey.Open)
        self.open_vault_action.triggered.connect(self._on_open_vault_action_triggered)
        file_menu.addAction(self.settings_action)
        file_menu.addSeparator()
        self.quit_action = file_menu.addAction("&Quit")
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.quit_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.quit_action.triggered.connect(self._on_quit_action_triggered)
        view_menu = bar.addMenu("&View")
        for index in range(self.tabs.count()):
            action = view_menu.addAction(self.tabs.tabText(index).replace("&&", "&"))
            action.setShortcut(QKeySequence(f"Alt+{index + 1}"))
            action.triggered.connect(lambda _checked=False, i=index: self.tabs.setCurrentIndex(i))
        view_menu.addSeparator()
        view_menu.addAction(self.reflect_action)
        view_menu.addAction(self.undo_action)
        self.view_menu = view_menu
        help_menu = bar.addMenu("&Help")
        self.connect_client_action = help_menu.addAction("&Connect a chat client…",
                                                         self._on_connect_client_action_triggered)
        help_menu.addAction("&Open the README", self._on_readme_action_triggered)
        help_menu.addAction("&About Memory Curator", self._on_about_action_triggered)
        self.help_menu = help_menu

    def _on_quit_action_triggered(self) -> None:
        from PySide6.QtWidgets import QApplication

        self.close()
        QApplication.quit()

    def _on_open_vault_action_triggered(self) -> None:
        folder = self.interaction.choose_folder("Open a vault", str(self.engine.paths.root) if self.engine else "")
        if folder:
            self.open_vault_requested.emit(folder)

    def _on_connect_client_action_triggered(self) -> None:
        from curator.vault.paths import default_vault
        from ui.dialogs.connect_client import ConnectClientDialog

        vault = self.engine.paths.root if self.engine is not None else default_vault()
        ConnectClientDialog(vault, self.interaction, parent=self).exec()

    def _on_readme_action_triggered(self) -> None:
        from curator.datafiles import readme_path

        path = readme_path()
        if path is None:
            self.interaction.inform("README", "The README is not installed with this copy.")
            return
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))

    def _on_about_action_triggered(self) -> None:
        from curator import __version__

        QMessageBox.about(self, "About Memory Curator",
                          f"<b>Memory Curator</b> {__version__}<br>Watches your local chat client's"
                          " conversations, proposes memories with a local model, and keeps only"
                          " what you approve. Everything stays on this machine.")

    # ---- Helpers

    def _set_engine_actions_enabled(self, enabled: bool) -> None:
        for action in (self.reflect_action, self.undo_action, self.settings_action):
            action.setEnabled(enabled)

    @staticmethod
    def _users(engine: Engine) -> list[str]:
        users = list(engine.paths.user_ids())
        for source in engine.settings.sources:
            if source.user_id not in users:
                users.append(source.user_id)
        return users
