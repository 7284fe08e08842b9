"""The Model Context Protocol over stdio, spoken directly: newline-delimited JSON-RPC 2.0.

A client starts ``curator mcp`` and waits for its answer to ``initialize`` before anything
else. Importing an SDK and opening the vault takes about a second on a small machine, so the
server answers ``initialize``, ``tools/list``, ``resources/list`` and ``prompts/list`` from
data (``curator.mcp.tool_specs``) at once, while a background thread opens the vault; the
first call that reads memory waits for it. The protocol surface is small (three tools, one
resource, one prompt), and a real MCP client checks it in the tests.

stdout carries the protocol and nothing else: while serving, ``sys.stdout`` points at stderr,
so a stray print cannot break a client's stream.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Callable
from typing import IO, Any, Protocol

from curator import __version__
from curator.mcp.arguments import ArgumentError, checked_arguments
from curator.mcp.tool_specs import (
    CORE_PREAMBLE,
    CORE_PROMPT,
    CORE_PROMPT_DESCRIPTION,
    CORE_URI,
    INSTRUCTIONS,
    PROMPTS,
    RESOURCES,
    SERVER_NAME,
    TOOL_SCHEMAS,
    TOOLS,
)

log = logging.getLogger(__name__)

# Revisions answered through the initialize handshake, oldest first; a client asking for
# another one gets the newest (and may then disconnect, as the protocol says).
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002


class ToolRefusal(Exception):
    """A tool call refused with a one-line reason the agent reads (a tool error, not a crash)."""


class Memory(Protocol):
    """What the server serves: the three tools and the core memory text."""

    def call(self, tool: str, arguments: dict[str, Any]) -> str: ...

    def core_memory(self) -> str: ...


class Opening:
    """The memory, opened on a background thread as soon as the server starts."""

    def __init__(self, open_memory: Callable[[], Memory]) -> None:
        self._open = open_memory
        self._memory: Memory | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="mcp-open", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._memory = self._open()
        except BaseException as exc:  # reported on first use, in words, to the agent
            self._error = exc

    def settle(self) -> None:
        """Wait until the opening has finished (so what it opened can be closed)."""
        self._thread.join()

    def get(self) -> Memory:
        """The memory, once open.

        Raises:
            ToolRefusal: the vault could not be opened (the reason is said).
        """
        self._thread.join()
        if self._memory is None:
            raise ToolRefusal(f"the vault could not be opened: {self._error}")
        return self._memory


class StdioServer:
    """One connection: requests read from ``reader``, answers written to ``writer``."""

    def __init__(self, opening: Opening, reader: IO[bytes], writer: IO[bytes]) -> None:
        self.opening = opening
        self.reader = reader
        self.writer = writer
        self.methods: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "initialize": self._initialize,
            "ping": lambda params: {},
            "tools/list": lambda params: {"tools": list(TOOLS)},
            "tools/call": self._call_tool,
            "resources/list": lambda params: {"resources": list(RESOURCES)},
            "resources/templates/list": lambda params: {"resourceTemplates": []},
            "resources/read": self._read_resource,
            "prompts/list": lambda params: {"prompts": list(PROMPTS)},
            "prompts/get": self._get_prompt,
        }

    def run(self) -> None:
        """Answer requests until the client closes stdin."""
        for raw in iter(self.reader.readline, b""):
            if raw.strip():
                reply = self.handle(raw)
                if reply is not None:
                    self._send(reply)

    def handle(self, raw: bytes) -> dict[str, Any] | None:
        """The answer to one line from the client (None for a notification or a response)."""
        try:
            message = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            return _error(None, PARSE_ERROR, f"not JSON: {exc}")
        if not isinstance(message, dict):
            return _error(None, INVALID_REQUEST, "one JSON-RPC object per line (batches are not supported)")
        method = message.get("method")
        if "id" not in message:
            return None  # a notification (initialized, cancelled, ...): nothing to answer
        request_id = message["id"]
        if not isinstance(method, str):
            return None if "result" in message or "error" in message else _error(
                request_id, INVALID_REQUEST, "a request needs a method")
        handler = self.methods.get(method)
        if handler is None:
            return _error(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")
        params = message.get("params") or {}
        if not isinstance(params, dict):
            return _error(request_id, INVALID_PARAMS, "params must be an object")
        try:
            return {"jsonrpc": "2.0", "id": request_id, "result": handler(params)}
        except _ProtocolError as exc:
            return _error(request_id, exc.code, str(exc))
        except Exception as exc:  # a bug must not end the connection; the agent gets the reason
            log.exception("MCP %s failed", method)
            return _error(request_id, INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")

    def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str)
        self.writer.write(data.encode("utf-8") + b"\n")
        self.writer.flush()

    # ---- methods

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1]
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False},
                             "resources": {"subscribe": False, "listChanged": False},
                             "prompts": {"listChanged": False}},
            "serverInfo": {"name": SERVER_NAME, "title": "Memory Curator", "version": __version__},
            "instructions": INSTRUCTIONS,
        }

    def _call_tool(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        schema = TOOL_SCHEMAS.get(name) if isinstance(name, str) else None
        if schema is None:
            raise _ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}")
        try:
            arguments = checked_arguments(schema, params.get("arguments"))
            text = self.opening.get().call(str(name), arguments)
        except (ArgumentError, ToolRefusal) as exc:
            return {"content": [{"type": "text", "text": str(exc)}], "isError": True}
        return {"content": [{"type": "text", "text": text}], "isError": False}

    def _read_resource(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("uri") != CORE_URI:
            raise _ProtocolError(RESOURCE_NOT_FOUND, f"Resource not found: {params.get('uri')}")
        text = self._core_text()
        return {"contents": [{"uri": CORE_URI, "mimeType": "text/markdown", "text": text}]}

    def _get_prompt(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("name") != CORE_PROMPT:
            raise _ProtocolError(INVALID_PARAMS, f"Unknown prompt: {params.get('name')}")
        text = self._core_text().strip() or "(No core memory yet.)"
        return {"description": CORE_PROMPT_DESCRIPTION,
                "messages": [{"role": "user", "content": {"type": "text", "text": CORE_PREAMBLE + text}}]}

    def _core_text(self) -> str:
        try:
            return self.opening.get().core_memory()
        except ToolRefusal as exc:
            raise _ProtocolError(INTERNAL_ERROR, str(exc)) from None


class _ProtocolError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def serve_stdio(open_memory: Callable[[], Memory]) -> None:
    """Serve on this process's stdin and stdout until the client closes the connection."""
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # from here on a print cannot reach the client's stream
    opening = Opening(open_memory)
    try:
        StdioServer(opening, sys.stdin.buffer, protocol_out).run()
    finally:
        opening.settle()
