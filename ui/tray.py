"""Tray icon: the number of items waiting on the icon, a notification when new ones arrive."""

from __future__ import annotations

from PySide6.QtCore import QObject, QRect, Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from ui.infra.resources import app_icon


def badge_icon(base: QIcon, count: int, size: int = 64) -> QIcon:
    """``base`` with ``count`` painted in a badge (the plain icon when zero)."""
    if count <= 0:
        return base
    pixmap = base.pixmap(size, size) if not base.isNull() else QPixmap(size, size)
    if base.isNull():
        pixmap.fill(QColor("#3b6ea5"))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    radius = size // 2 - 4
    rect = QRect(size - radius - 2, 2, radius, radius)
    painter.setBrush(QColor("#c8453b"))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawEllipse(rect)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(int(radius * (0.62 if count < 10 else 0.5)))
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, str(count) if count < 100 else "99+")
    painter.end()
    return QIcon(pixmap)


class TrayController(QObject):
    """Owns the tray icon (when the desktop has a tray). GUI thread only.

    Signals: ``show_requested()`` (icon clicked or "Open" chosen), ``quit_requested()``.
    """

    show_requested = Signal()
    quit_requested = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.count = 0
        self.notifications: list[str] = []
        self._base = app_icon()
        self.available = QSystemTrayIcon.isSystemTrayAvailable()
        self.icon = QSystemTrayIcon(self._base, self)
        menu = QMenu()
        open_action = QAction("Open Memory Curator", menu)
        open_action.triggered.connect(self.show_requested)
        quit_action = QAction("Quit", menu)
        quit_action.triggered.connect(self.quit_requested)
        menu.addAction(open_action)
        menu.addSeparator()
        menu.addAction(quit_action)
        self._menu = menu
        self.icon.setContextMenu(menu)
        self.icon.activated.connect(self._on_icon_activated)
        self.icon.setToolTip("Memory Curator")
        if self.available:
            self.icon.show()

    def set_count(self, count: int, notify: bool = True) -> None:
        """Show ``count`` waiting items; notify when it grew (and ``notify`` is set)."""
        grew = notify and count > self.count
        added = count - self.count
        self.count = count
        self.icon.setIcon(badge_icon(self._base, count))
        self.icon.setToolTip(f"Memory Curator — {count} item{'s' if count != 1 else ''} waiting for review")
        if grew and added > 0:
            message = f"{added} new item{'s' if added != 1 else ''} to review ({count} waiting)"
            self.notifications.append(message)
            if self.available and QSystemTrayIcon.supportsMessages():
                self.icon.showMessage("Memory Curator", message, self._base, 5000)

    def hide(self) -> None:
        self.icon.hide()

    def _on_icon_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.show_requested.emit()
