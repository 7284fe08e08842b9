"""Open WebUI's memories, kept in step through its own HTTP API, on this machine.

Open WebUI puts the person's memories into every chat when its Memory feature is on
(Settings > Personalization > Memory). Its router (``backend/open_webui/routers/memories.py``)
offers ``GET /api/v1/memories/``, ``POST /api/v1/memories/add`` and
``DELETE /api/v1/memories/{id}``, with the person's API key. The curator adds one memory per
line of its digest, each beginning with ``[Memory Curator]``, remembers the ids it created,
and only ever deletes those: the person's own memories are never touched. Writing goes
through the running app (it computes the embeddings), never into its database.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.outbound.digest import Digest
from curator.vault.atomic import atomic_write_text

PREFIX = "[Memory Curator] "
KEY = "openwebui"
NAME = "Open WebUI"
SUMMARY = ("Adds each line of your memory to Open WebUI's memories (marked [Memory Curator]) through its API, "
           "with your API key; your own memories there stay as they are. Turn on Memory under "
           "Settings > Personalization.")


class RemoteRefused(Exception):
    """Open WebUI could not be reached or refused (the message says which and what to do)."""


@dataclass(frozen=True)
class RecordOp:
    """One memory record added or deleted."""

    op: str  # "add" | "delete"
    content: str
    record_id: str = ""

    def line(self) -> str:
        return ("+ " if self.op == "add" else "- ") + self.content


class OpenWebUIMemories:
    """The curator's own memories in one Open WebUI."""

    def __init__(self, url: str, api_key: str, owned_file: Path, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.api_key = api_key
        self.owned_file = owned_file
        self.timeout = timeout

    # ---- the API

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        # urllib loads the email and http packages: only when Open WebUI is written to.
        import urllib.error
        import urllib.request

        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json",
            "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                raise RemoteRefused(f"{NAME} refused the API key (HTTP {exc.code}); make one under Settings > "
                                    "Account > API keys, or check that memories are allowed for you") from None
            if exc.code == 404:
                raise RemoteRefused(f"{NAME} has its Memory feature turned off (HTTP 404 at {self.url}{path}); an "
                                    "admin turns it on under Admin Settings > General") from None
            raise RemoteRefused(f"{NAME} answered HTTP {exc.code} to {method} {path}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise RemoteRefused(f"{NAME} is not running at {self.url} ({reason}); nothing was sent, it will be "
                                "when it runs") from None
        try:
            return json.loads(text) if text.strip() else None
        except ValueError:
            raise RemoteRefused(f"{NAME} answered something that is not JSON at {path}; is {self.url} "
                                "Open WebUI?") from None

    def records(self) -> list[dict[str, Any]]:
        """Every memory of the person in Open WebUI (theirs and the curator's)."""
        answer = self._call("GET", "/api/v1/memories/")
        if not isinstance(answer, list):
            raise RemoteRefused(f"{NAME} answered an unexpected list of memories")
        return [r for r in answer if isinstance(r, dict) and isinstance(r.get("id"), str)]

    # ---- what is the curator's

    def owned_ids(self) -> list[str]:
        try:
            data = json.loads(self.owned_file.read_text("utf-8"))
        except (OSError, ValueError):
            return []
        return [str(i) for i in data] if isinstance(data, list) else []

    def _save_owned(self, ids: list[str]) -> None:
        self.owned_file.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.owned_file, json.dumps(sorted(set(ids))))

    def ours(self, records: list[dict[str, Any]]) -> dict[str, str]:
        """The curator's records among ``records``: created by it (its ids) and still marked as its own."""
        owned = set(self.owned_ids())
        return {r["id"]: str(r.get("content", "")) for r in records
                if r["id"] in owned and str(r.get("content", "")).startswith(PREFIX)}

    # ---- plan and apply

    def plan(self, digest: Digest | None) -> list[RecordOp]:
        """The records to add and delete so that the curator's memories are the digest's lines."""
        ours = self.ours(self.records())
        wanted = [PREFIX + line for line in (digest.lines() if digest is not None else [])]
        have: dict[str, str] = {}
        ops: list[RecordOp] = []
        for record_id, content in ours.items():
            if content in wanted and content not in have:
                have[content] = record_id
            else:
                ops.append(RecordOp("delete", content, record_id))
        ops += [RecordOp("add", content) for content in dict.fromkeys(wanted) if content not in have]
        return ops

    def apply(self, ops: list[RecordOp]) -> list[RecordOp]:
        """Carry out ``ops``; the ops as done (an add with the id Open WebUI gave it).

        Raises:
            RemoteRefused: a record to delete changed or went since the plan, or Open WebUI refused.
        """
        ours = self.ours(self.records())
        for op in ops:
            if op.op == "delete" and ours.get(op.record_id) != op.content:
                raise RemoteRefused(f"a memory in {NAME} changed since the change was shown; nothing was sent")
        owned = self.owned_ids()
        done: list[RecordOp] = []
        try:
            for op in ops:
                if op.op == "delete":
                    self._call("DELETE", f"/api/v1/memories/{op.record_id}")
                    owned = [i for i in owned if i != op.record_id]
                    done.append(op)
                else:
                    record = self._call("POST", "/api/v1/memories/add", {"content": op.content})
                    record_id = str(record.get("id", "")) if isinstance(record, dict) else ""
                    if not record_id:
                        raise RemoteRefused(f"{NAME} did not say which memory it added")
                    owned.append(record_id)
                    done.append(RecordOp("add", op.content, record_id))
        finally:
            self._save_owned(owned)  # what was done is remembered even when a later step fails
        return done


def inverse(ops: list[dict[str, Any]]) -> list[RecordOp]:
    """The ops undoing recorded ops (an add is deleted, a delete added again), last first."""
    undo = []
    for item in reversed(ops):
        if item.get("op") == "add":
            undo.append(RecordOp("delete", str(item.get("content", "")), str(item.get("id", ""))))
        elif item.get("op") == "delete":
            undo.append(RecordOp("add", str(item.get("content", ""))))
    return undo
