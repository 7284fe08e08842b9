"""One window per vault: a local socket named after the vault; a second start asks the first to show itself."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket


def server_name(vault: Path) -> str:
    """The socket name for ``vault`` (stable per resolved path and per OS user)."""
    key = str(Path(vault).expanduser().resolve())
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    user = os.environ.get("USER") or os.environ.get("USERNAME") or "user"
    return f"memory-curator-{user}-{digest}"


def ask_running_instance(vault: Path, timeout_ms: int = 500) -> bool:
    """True when another instance serves ``vault`` (it has been asked to come to the front)."""
    socket = QLocalSocket()
    socket.connectToServer(server_name(vault))
    if not socket.waitForConnected(timeout_ms):
        return False
    socket.write(b"activate\n")
    socket.waitForBytesWritten(timeout_ms)
    socket.disconnectFromServer()
    return True


class InstanceServer(QObject):
    """Listens for later starts on the same vault; emits ``activation_requested``.

    Threading contract: lives on the GUI thread; the signal is emitted there.
    """

    activation_requested = Signal()

    def __init__(self, vault: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._server = QLocalServer(self)
        self._server.newConnection.connect(self._on_server_new_connection)
        self.name = server_name(vault)

    def listen(self) -> bool:
        """Start listening (removing a stale socket left by a crash)."""
        if self._server.listen(self.name):
            return True
        QLocalServer.removeServer(self.name)
        return self._server.listen(self.name)

    def close(self) -> None:
        self._server.close()

    def _on_server_new_connection(self) -> None:
        while self._server.hasPendingConnections():
            connection = self._server.nextPendingConnection()
            connection.readyRead.connect(connection.readAll)
            connection.disconnected.connect(connection.deleteLater)
            self.activation_requested.emit()
