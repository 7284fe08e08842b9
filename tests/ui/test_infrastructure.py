"""Bridge, op runner, resources, tray, single instance, settings dialog."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QSpinBox

from curator.events import EventBus
from curator.vault.settings import OPTIONS, Settings
from ui.dialogs.settings_dialog import GROUP_TITLES, SEND_GROUP, SOURCES_TITLE, SettingsDialog
from ui.dialogs.setup_widgets import ModelPicker
from ui.infra.bridge import EventRelay, MainThreadPoster
from ui.infra.resources import ROLE_STYLES, accents, app_icon, icon, set_role
from ui.infra.single_instance import (
    InstanceServer,
    ask_running_instance,
    may_be_running,
    server_name,
)
from ui.infra.workers import OpRunner
from ui.tray import TrayController, badge_icon


def test_poster_runs_callables_on_the_gui_thread(qtbot, poster: MainThreadPoster) -> None:
    seen: list[bool] = []
    done = threading.Event()

    def worker() -> None:
        poster.post(lambda: seen.append(threading.current_thread() is threading.main_thread()))
        done.set()

    threading.Thread(target=worker).start()
    qtbot.waitUntil(lambda: seen == [True])


def test_event_relay_hops_threads_and_coalesces_tokens(qtbot, poster: MainThreadPoster) -> None:
    bus = EventBus()
    relay = EventRelay(poster)
    relay.attach(bus)
    kinds: list[tuple[str, bool]] = []
    tokens: list[tuple[str, str]] = []
    relay.event_received.connect(lambda k, d: kinds.append((k, threading.current_thread() is threading.main_thread())))
    relay.tokens_received.connect(lambda job, text: tokens.append((job, text)))

    def worker() -> None:
        bus.emit("job.started", job_id=7, job_kind="summary")
        for piece in ("Hel", "lo", " world"):
            bus.emit("model.token", job_id=7, text=piece)

    thread = threading.Thread(target=worker)
    with qtbot.waitSignal(relay.tokens_received):
        thread.start()
        thread.join()
    qtbot.waitUntil(lambda: bool(kinds))
    assert kinds == [("job.started", True)]
    assert "".join(t for _, t in tokens) == "Hello world"
    assert {job for job, _ in tokens} == {"7"}
    relay.detach()
    bus.emit("job.started", job_id=8)
    with qtbot.assertNotEmitted(relay.event_received, wait=50):
        pass


def test_op_runner_delivers_results_and_errors(qtbot, runner: OpRunner) -> None:
    results: list[object] = []
    with qtbot.waitSignal(runner.op_finished):
        runner.submit("ok", lambda: threading.current_thread().name, results.append)
    assert results and str(results[0]).startswith("curator-ui-ops")
    errors: list[BaseException] = []
    with qtbot.waitSignal(runner.op_failed, check_params_cb=lambda label, msg: label == "bad" and "boom" in msg):
        runner.submit("bad", lambda: (_ for _ in ()).throw(ValueError("boom")), on_error=errors.append)
    assert isinstance(errors[0], ValueError)


def test_op_runner_latest_only_drops_stale_results(qtbot, runner: OpRunner) -> None:
    gate = threading.Event()
    got: list[int] = []
    runner.submit("slow", lambda: (gate.wait(5), 1)[1], got.append, latest_only="k")
    with qtbot.waitSignal(runner.busy_changed, check_params_cb=lambda busy: not busy):
        runner.submit("fast", lambda: 2, got.append, latest_only="k")
        gate.set()
    assert got == [2]


def test_resources_exist(qapp) -> None:
    assert not app_icon().isNull()
    for name in ("approve", "discard", "edit", "undo", "search", "reflect", "cancel", "settings", "flag",
                 "restore", "trash", "contradiction", "history"):
        assert not icon(name).isNull(), name
    assert all("palette(" in css or "#" in css or "font" in css for css in ROLE_STYLES.values())
    colours = accents()
    assert colours.inserted.isValid() and colours.deleted.isValid()


def test_tray_counts_and_notifies(qtbot) -> None:
    tray = TrayController()
    tray.set_count(3, notify=False)
    assert tray.notifications == []
    tray.set_count(5)
    assert tray.notifications == ["2 new items to review (5 waiting)"]
    tray.set_count(1)
    assert len(tray.notifications) == 1
    assert "1 item waiting" in tray.icon.toolTip()
    assert not badge_icon(app_icon(), 12).isNull()
    tray.hide()


def test_single_instance_activation(qtbot, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    assert server_name(vault) == server_name(tmp_path / "vault" / ".." / "vault")
    assert server_name(vault) != server_name(tmp_path / "other")
    assert not ask_running_instance(vault, timeout_ms=100)
    assert not may_be_running(vault)  # no socket: a start need not load QtNetwork to ask
    server = InstanceServer(vault)
    assert server.listen()
    assert may_be_running(vault)  # the quick look finds the socket QLocalServer made
    with qtbot.waitSignal(server.activation_requested):
        assert ask_running_instance(vault)
    server.close()
    assert not may_be_running(vault)


def test_settings_dialog_is_generated_from_options(qtbot) -> None:
    settings = Settings()
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    # The send switches act at once after their diff (Settings > Sources), not with OK.
    switches = {o.key for o in OPTIONS if o.group == SEND_GROUP and o.type is bool}
    assert switches and set(dialog.editors) == {o.key for o in OPTIONS} - switches
    groups = {o.group for o in OPTIONS} - {SEND_GROUP}
    titles = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
    assert titles == [SOURCES_TITLE] + [GROUP_TITLES.get(g, g.title()) for g in dict.fromkeys(o.group for o in OPTIONS)
                                        if g != SEND_GROUP]
    assert len(titles) == len(groups) + 1
    for option in (o for o in OPTIONS if o.key not in switches):
        editor = dialog.editors[option.key]
        assert option.help in editor.toolTip()
        if option.type is bool:
            assert isinstance(editor, QCheckBox)
        elif option.type is int:
            assert isinstance(editor, QSpinBox)
            if option.minimum is not None:
                assert editor.minimum() == option.minimum
        elif option.type is float:
            assert isinstance(editor, QDoubleSpinBox)
        elif option.key == "model.path":
            assert isinstance(editor, ModelPicker)
    assert dialog.changed_values() == {}
    turn_threshold = dialog.editors["batch.turn_threshold"]
    assert isinstance(turn_threshold, QSpinBox)
    turn_threshold.setValue(12)
    auto = dialog.editors["batch.auto_promote"]
    assert isinstance(auto, QCheckBox)
    auto.setChecked(True)
    assert dialog.changed_values() == {"batch.turn_threshold": 12, "batch.auto_promote": True}
    dialog._on_restore_clicked()
    assert dialog.changed_values() == {}


@pytest.mark.parametrize("key", ["summary.prompt", "prompts.folder"])
def test_settings_dialog_text_options(qtbot, key: str) -> None:
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    editor = dialog.editors[key]
    editor.setText("something else")  # type: ignore[attr-defined]
    assert dialog.changed_values() == {key: "something else"}


def test_a_role_styles_its_widget_only(qapp) -> None:
    """The house style is scoped: a card's rule matches the card, never the labels inside it
    (an application-wide style sheet cost the window 110-150 ms of its start-up)."""
    from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout

    card = QFrame()
    inner = QLabel("inside", card)
    QVBoxLayout(card).addWidget(inner)
    set_role(card, "card")
    assert card.property("role") == "card" and 'role="card"' in card.styleSheet()
    assert inner.styleSheet() == "" and inner.property("role") is None
    set_role(inner, "error")  # a role without a rule: the property only
    assert inner.property("role") == "error" and inner.styleSheet() == ""
    assert qapp.styleSheet() == ""
