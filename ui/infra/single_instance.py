"""One window per vault: a local socket named after the vault; a second start asks the first to show itself.

QtNetwork is imported only when a socket is used: a start with no other window open on the
vault (nearly every start) sees no socket file and does not load it before its window shows.
"""

from __future__ import annotations

import os
import sys
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QDir, QObject, Signal

if TYPE_CHECKING:
    from PySide6.QtNetwork import QLocalServer


def server_name(vault: Path) -> str:
    """The socket name for ``vault`` (stable per resolved path and per OS user)."""
    key = str(Path(vault).expanduser().resolve())
    # Two 32-bit checksums, not sha256: hashlib loads OpenSSL, 3 ms of the window's start.
    data = key.encode("utf-8")
    digest = f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"
    user = os.environ.get("USER") or os.environ.get("USERNAME") or "user"
    return f"memory-curator-{user}-{digest}"


def may_be_running(vault: Path) -> bool:
    """False only when no instance can be serving ``vault``: on Unix, QLocalServer's socket
    file for the name (in Qt's temporary folder) does not exist. Windows pipes cannot be
    looked up so cheaply: True there."""
    if sys.platform == "win32":
        return True
    return os.path.exists(os.path.join(QDir.tempPath(), server_name(vault)))


def ask_running_instance(vault: Path, timeout_ms: int = 500) -> bool:
    """True when another instance serves ``vault`` (it has been asked to come to the front)."""
    from PySide6.QtNetwork import QLocalSocket

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
        from PySide6.QtNetwork import QLocalServer

        super().__init__(parent)
        self._server: QLocalServer = QLocalServer(self)
        self._server.newConnection.connect(self._on_server_new_connection)
        self.name = server_name(vault)

    def listen(self) -> bool:
        """Start listening (removing a stale socket left by a crash)."""
        if self._server.listen(self.name):
            return True
        self._server.removeServer(self.name)
        return self._server.listen(self.name)

    def close(self) -> None:
        self._server.close()

    def _on_server_new_connection(self) -> None:
        while self._server.hasPendingConnections():
            connection = self._server.nextPendingConnection()
            connection.readyRead.connect(connection.readAll)
            connection.disconnected.connect(connection.deleteLater)
            self.activation_requested.emit()
