"""Icons, the house style and palette-aware accent colours, read from ``resources/``.

The one place that knows where resources live (``curator.datafiles.data_dir``), so the same
code works from a checkout and from an installed wheel.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QWidget

from curator.datafiles import data_dir

APP_ICON = "io.github.memorycurator.MemoryCurator"


@cache
def _resources_dir() -> str:
    return str(data_dir("resources"))


def icon(name: str) -> QIcon:
    """The icon ``resources/icons/<name>.svg`` (an empty icon when missing)."""
    return QIcon(f"{_resources_dir()}/icons/{name}.svg")


def app_icon() -> QIcon:
    return icon(APP_ICON)


# The house style, as style sheets scoped to the widgets they concern. An application-wide
# style sheet makes Qt polish every widget through its style-sheet engine: it cost 110-150 ms
# of the window's start-up (the whole window built in 40 ms without it). Colours come from
# palette() roles only, so the window follows the system's light or dark palette.
ROLE_STYLES: dict[str, str] = {
    "heading": "font-weight: bold; font-size: 11pt; padding: 2px 0;",
    "meta": "color: palette(placeholder-text);",
    "badge": "border: 1px solid palette(mid); border-radius: 8px; padding: 1px 7px; "
             "background: palette(alternate-base);",
    "flag": "border-radius: 8px; padding: 1px 7px; color: white; background: #c86a1a;",
    "card": "border: 1px solid palette(mid); border-radius: 6px; background: palette(base);",
    "primary": "font-weight: bold;",
}
TOOLBAR_STYLE = "QToolBar { spacing: 4px; padding: 2px; border: none; } QToolButton { padding: 3px 6px; }"
TABBAR_STYLE = "QTabBar::tab { padding: 5px 12px; }"
TREE_STYLE = "QTreeView::item { padding: 3px 2px; }"
STATUSBAR_STYLE = "QLabel { padding: 0 6px; }"
NOTICE_STYLE = ("QWidget#notice { background: palette(highlight); } QWidget#notice QLabel, "
                "QWidget#notice QPushButton { color: palette(highlighted-text); font-weight: bold; }")


def set_role(widget: QWidget, role: str) -> None:
    """Give ``widget`` a role of the house style (heading, meta, badge, flag, card, primary, error).

    The rule matches the widget itself only (its children keep their own look).
    """
    widget.setProperty("role", role)
    css = ROLE_STYLES.get(role, "")
    widget.setStyleSheet(f'*[role="{role}"] {{ {css} }}' if css else "")


def is_dark(palette: QPalette | None = None) -> bool:
    """Whether the current palette is a dark one (window darker than its text)."""
    pal = palette or QGuiApplication.palette()
    return pal.color(QPalette.ColorRole.Window).lightness() < pal.color(QPalette.ColorRole.WindowText).lightness()


@dataclass(frozen=True)
class Accents:
    """Background colours for highlights, chosen for the current palette."""

    inserted: QColor
    deleted: QColor
    changed: QColor
    evidence: QColor
    quote: QColor
    flagged: QColor


def accents(palette: QPalette | None = None) -> Accents:
    """Highlight colours readable on the current palette."""
    if is_dark(palette):
        return Accents(
            inserted=QColor("#1f5a33"), deleted=QColor("#6b2525"), changed=QColor("#5a4a1a"),
            evidence=QColor("#6a5a10"), quote=QColor("#2b4a6e"), flagged=QColor("#a0521a"),
        )
    return Accents(
        inserted=QColor("#c9f2d2"), deleted=QColor("#f8cccc"), changed=QColor("#fbe7b0"),
        evidence=QColor("#fff1a8"), quote=QColor("#d6e6fb"), flagged=QColor("#f3c089"),
    )


def dark_palette() -> QPalette:
    """A dark palette (for previews and tests; the app itself uses the system's palette)."""
    pal = QPalette()
    roles = QPalette.ColorRole
    for role, colour in (
        (roles.Window, "#2b2b2b"), (roles.WindowText, "#e6e6e6"), (roles.Base, "#1f1f1f"),
        (roles.AlternateBase, "#2a2a2a"), (roles.Text, "#e6e6e6"), (roles.Button, "#353535"),
        (roles.ButtonText, "#e6e6e6"), (roles.Highlight, "#3b6ea5"), (roles.HighlightedText, "#ffffff"),
        (roles.ToolTipBase, "#353535"), (roles.ToolTipText, "#e6e6e6"), (roles.PlaceholderText, "#8a8a8a"),
        (roles.Mid, "#4a4a4a"), (roles.Link, "#7fb2ee"),
    ):
        pal.setColor(role, QColor(colour))
    return pal
