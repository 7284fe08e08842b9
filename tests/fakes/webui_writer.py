"""A stand-in Open WebUI process: keeps writing chats to a WAL ``webui.db`` and counts lock errors.

Run as ``python webui_writer.py DB COUNT``. Each step streams a reply the way the app does
(``done: false`` with partial text, then ``done: true``) in its own ``BEGIN IMMEDIATE``
transaction, with no busy timeout: if a reader ever blocked a write, the write would fail
with "database is locked" at once, and is counted. Prints one JSON line at the end.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path

from chatdbs import webui_message, webui_put_chat


def main() -> int:
    db, count = Path(sys.argv[1]), int(sys.argv[2])
    conn = sqlite3.connect(db, isolation_level=None, timeout=0)
    conn.execute("PRAGMA journal_mode=WAL")
    locked = 0
    errors: list[str] = []
    written = 0
    base = 1767225600
    for i in range(count):
        user = webui_message(f"u{i}", None, "user", f"question livewebui{i}", base + i)
        partial = webui_message(f"a{i}", f"u{i}", "assistant", "thinking", base + i, done=False)
        final = webui_message(f"a{i}", f"u{i}", "assistant", f"answer livereply{i}", base + i)
        for messages in ([user, partial], [user, final]):
            try:
                webui_put_chat(conn, f"live{i}", "u-ana", f"Live {i}", messages, f"a{i}", base + i)
                written += 1
            except sqlite3.OperationalError as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if "locked" in str(exc) or "busy" in str(exc):
                    locked += 1
                else:
                    errors.append(str(exc))
            time.sleep(0.01)
    conn.close()
    print(json.dumps({"written": written, "locked": locked, "errors": errors}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
