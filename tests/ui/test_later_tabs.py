"""The tabs built after the window first shows (issue 22 item 1): each takes its place in
the tab bar, keeps the tab that shows, and gets the engine whenever it arrives."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from curator.engine import Engine
from ui.infra.interaction import ScriptedInteraction
from ui.main_window import LATER_PANES, MainWindow

WAIT = 10_000
TITLES = ["Review", "Contradictions", "Reflections", "Knowledge", "Cycle", "Status && activity"]


@pytest.fixture
def window(qtbot, interaction: ScriptedInteraction, tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(interaction=interaction, state_file=tmp_path / "state.ini", with_tray=False)
    qtbot.addWidget(win)
    yield win
    win.runner.shutdown(wait=True)
    win.relay.detach()


def test_the_later_tabs_are_built_after_the_first_show_in_place(qtbot, window: MainWindow) -> None:
    assert window._built == {}  # nothing but the review tab before the window shows
    window.tabs.setCurrentIndex(2)
    window.show()
    qtbot.waitUntil(lambda: len(window._built) == len(LATER_PANES), timeout=WAIT)
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == TITLES
    assert window.tabs.currentIndex() == 2  # swapping a placeholder never moved the person's tab
    assert window.tabs.widget(1) is window.contradictions and window.tabs.widget(3) is window.knowledge
    assert window.tabs.widget(4) is window.cycle and window.tabs.widget(5) is window.status
    assert not window._placeholders


def test_choosing_a_tab_not_built_yet_builds_it_at_once(window: MainWindow) -> None:
    window.tabs.setCurrentIndex(4)  # Cycle, before the window has shown
    assert "cycle" in window._built
    assert window.tabs.currentWidget() is window.cycle
    assert window.tabs.currentIndex() == 4


def test_a_tab_built_after_the_engine_arrived_is_attached_to_it(qtbot, window: MainWindow,
                                                               engine: Engine) -> None:
    with qtbot.waitSignal(window.review.queue_changed, timeout=WAIT):
        window.attach_engine(engine)
    assert "knowledge" not in window._built
    with qtbot.waitSignal(window.knowledge.results_shown, timeout=WAIT):  # built now, then attached
        pass
    assert window.cycle._service is not None
