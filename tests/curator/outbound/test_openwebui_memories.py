"""Open WebUI's memories kept in step over its HTTP API (issue 21 item 1).

Open WebUI itself cannot run here (it needs its embedding model, fetched at run time), so a
server on localhost answers the routes of ``backend/open_webui/routers/memories.py`` as that
router does: the person's memories by API key, add, delete, 401 for a wrong key and 404
while memories are turned off. The curator's records are checked as Open WebUI would put
them into a chat: every memory of the person, theirs and the curator's.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from curator.clock import ManualClock
from curator.engine import Engine
from curator.outbound.openwebui import PREFIX
from curator.outbound.sync import OutboundError
from curator.vault.documents import Document

API_KEY = "sk-test-123"


class OpenWebUIStandIn(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.memories: dict[str, dict[str, Any]] = {}
        self.enabled = True
        self.requests: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: OpenWebUIStandIn

    def log_message(self, *args: Any) -> None:
        pass

    def _answer(self, code: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _allowed(self) -> bool:
        self.server.requests.append(f"{self.command} {self.path}")
        if self.headers.get("Authorization") != f"Bearer {API_KEY}":
            self._answer(401, {"detail": "Not authenticated"})
            return False
        if not self.server.enabled:
            self._answer(404, {"detail": "We could not find what you're looking for :/"})
            return False
        return True

    def do_GET(self) -> None:
        if self._allowed() and self.path == "/api/v1/memories/":
            self._answer(200, list(self.server.memories.values()))

    def do_POST(self) -> None:
        if not self._allowed():
            return
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/api/v1/memories/add":
            record = {"id": str(uuid.uuid4()), "user_id": "u1", "content": body["content"], "updated_at": 1,
                      "created_at": 1}
            self.server.memories[record["id"]] = record
            self._answer(200, record)
        else:
            self._answer(404, {"detail": "not found"})

    def do_DELETE(self) -> None:
        if self._allowed():
            record_id = self.path.rsplit("/", 1)[-1]
            self._answer(200, self.server.memories.pop(record_id, None) is not None)


@pytest.fixture
def webui() -> Iterator[OpenWebUIStandIn]:
    server = OpenWebUIStandIn()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def engine(tmp_path: Path, webui: OpenWebUIStandIn) -> Iterator[Engine]:
    eng = Engine(tmp_path / "vault", clock=ManualClock(), triggers=False)
    eng.client_memory.env = {}  # no OPENWEBUI_API_KEY from the machine running the tests
    eng.paths.user("default").core_memory.write_text("# Core memory\n\n## Identity\n- Lives in Graz.\n", "utf-8")
    doc = Document.new(doc_id="kayak00001", kind="fact", title="Red kayak", quality=0.9,
                       body="The person paddles a red kayak on weekends.\n")
    eng.document_changed(eng.store.create(doc, "default", "knowledge", "Facts"))
    eng.update_settings({"send.openwebui_url": webui.url})
    yield eng
    eng.close()


def _contents(webui: OpenWebUIStandIn) -> list[str]:
    return sorted(m["content"] for m in webui.memories.values())


def test_without_a_key_it_says_so_and_sends_nothing(engine: Engine, webui: OpenWebUIStandIn) -> None:
    plan = engine.client_memory.plan("openwebui")
    assert "needs your API key" in plan.problem and not webui.requests


def test_memories_are_added_kept_in_step_undone_and_taken_back(engine: Engine, webui: OpenWebUIStandIn) -> None:
    webui.memories["mine"] = {"id": "mine", "user_id": "u1", "content": "I prefer metric units.",
                              "updated_at": 1, "created_at": 1}
    memory = engine.client_memory
    memory.set_api_key(API_KEY + "\n")
    assert (memory.api_key_file.stat().st_mode & 0o777) == 0o600
    plan = memory.plan("openwebui")
    assert f"+ {PREFIX}Lives in Graz." in plan.diff() and not plan.problem
    memory.apply(plan)
    assert _contents(webui) == ["I prefer metric units.", f"{PREFIX}Lives in Graz.",
                                f"{PREFIX}The person paddles a red kayak on weekends."]

    # An edit of the memory: its record is replaced; the person's own memory is never touched.
    path = next(engine.paths.user("default").knowledge.rglob("*.md"))
    doc = Document.load(path)
    doc.body = "The person paddles a blue kayak on weekends.\n"
    doc.save(path)
    engine.document_changed(path)
    memory.apply(memory.plan("openwebui"))
    assert _contents(webui) == ["I prefer metric units.", f"{PREFIX}Lives in Graz.",
                                f"{PREFIX}The person paddles a blue kayak on weekends."]
    assert memory.plan("openwebui").nothing_to_do

    memory.apply(memory.undo_last("openwebui"))
    assert f"{PREFIX}The person paddles a red kayak on weekends." in _contents(webui)

    memory.apply(memory.plan("openwebui", take_back=True))
    assert _contents(webui) == ["I prefer metric units."]


def test_a_wrong_key_memories_off_and_a_stopped_server_are_said(engine: Engine, webui: OpenWebUIStandIn) -> None:
    memory = engine.client_memory
    memory.set_api_key("sk-wrong")
    assert "refused the API key" in memory.plan("openwebui").problem
    memory.set_api_key(API_KEY)
    webui.enabled = False
    assert "Memory feature turned off" in memory.plan("openwebui").problem
    webui.enabled = True
    engine.update_settings({"send.openwebui_url": "http://127.0.0.1:9"})  # nothing listens there
    plan = memory.plan("openwebui")
    assert "not running" in plan.problem
    with pytest.raises(OutboundError):
        memory.apply(plan)


def test_refresh_sends_when_switched_on_and_reports_a_stopped_client_once(engine: Engine,
                                                                        webui: OpenWebUIStandIn) -> None:
    memory = engine.client_memory
    memory.set_api_key(API_KEY)
    messages: list[str] = []
    engine.bus.subscribe(lambda e: messages.append(f"{e.kind}: {e.data.get('message')}"), "client.")
    engine.update_settings({"send.openwebui": True})
    assert [p.key for p in memory.refresh()] == ["openwebui"]  # records written count as a write
    assert len(webui.memories) == 2 and messages[-1].startswith("client.sent: Open WebUI")
    engine.update_settings({"send.openwebui_url": "http://127.0.0.1:9"})
    memory.refresh()
    memory.refresh()
    failed = [m for m in messages if m.startswith("client.send.failed")]
    assert len(failed) == 1 and "not running" in failed[0]
    engine.update_settings({"send.openwebui_url": webui.url})
    memory.refresh()
    assert messages[-1].startswith("client.sent: Open WebUI")
