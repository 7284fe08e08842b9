"""Keeping each client's memory place in step with what the person approved.

``plan`` computes, for one client, the new text of each file it owns and the diff against
what is there now; nothing is written. ``apply`` writes a plan only if every file is still
what the plan was computed from, atomically, and records the texts before and after, so
``undo_last`` can put back what was there. ``refresh`` does this for every client whose
switch is on, when what would be sent has changed (an approve, edit, discard, undo or a
cycle's MEMORY.md), and reports a client it could not write; nothing in the vault is lost
when a client's folder is missing or refuses a write.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.clock import Clock, SystemClock, iso_utc
from curator.outbound import openwebui
from curator.outbound.digest import Digest, build_digest
from curator.outbound.locations import locate
from curator.outbound.openwebui import OpenWebUIMemories, RecordOp, RemoteRefused
from curator.outbound.places import NOT_WRITTEN, PLACES, Place, PlaceRefused
from curator.vault.atomic import append_lines, atomic_write_text
from curator.vault.paths import VaultPaths
from curator.vault.settings import OPTIONS, Settings

log = logging.getLogger(__name__)
HISTORY_KEEP = 200  # writes remembered for undo, over all clients
API_KEY_ENV = "OPENWEBUI_API_KEY"
NAMES: dict[str, str] = {**{key: cls.name for key, cls in PLACES.items()}, openwebui.KEY: openwebui.NAME}


def setting_key(place_key: str) -> str:
    """The switch of a client in ``curator.yaml`` (``send.claude_code`` for ``claude-code``)."""
    return "send." + place_key.replace("-", "_")


class OutboundError(Exception):
    """A write to a client that was refused (the message says why; nothing was changed)."""


@dataclass(frozen=True)
class Change:
    """One file of a client: its text now and after (None: no file)."""

    path: Path
    before: str | None
    after: str | None

    def diff(self) -> str:
        """A unified diff, as a person reads it before anything is written."""
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        label = str(self.path)
        return "".join(difflib.unified_diff(old, new, label + (" (now)" if self.before is not None else " (new)"),
                                            label + (" (after)" if self.after is not None else " (removed)")))


@dataclass
class Plan:
    """What writing a client now would change."""

    key: str
    name: str
    changes: list[Change] = field(default_factory=list)
    ops: list[RecordOp] = field(default_factory=list)  # records of a client kept over its API
    problem: str = ""  # why the client cannot be written (not found, not the curator's file ...)
    memories: int = 0
    left_out: int = 0

    @property
    def nothing_to_do(self) -> bool:
        return not self.changes and not self.ops

    def diff(self) -> str:
        parts = [change.diff() for change in self.changes]
        if self.ops:
            parts.append(f"{self.name} memories:\n" + "\n".join(op.line() for op in self.ops) + "\n")
        return "\n".join(parts)


class ClientMemory:
    """The clients' memory places of one vault user."""

    def __init__(self, paths: VaultPaths, settings: Callable[[], Settings], approved: Callable[[str], list[str]],
                 fingerprint: Callable[[str], str], *, user_id: str = "default", clock: Clock | None = None,
                 home: Path | None = None, env: dict[str, str] | None = None,
                 emit: Callable[..., None] | None = None) -> None:
        self.paths = paths
        self.settings = settings
        self.approved = approved  # vault-relative paths of approved memories, best first (the index)
        self.fingerprint = fingerprint
        self.user_id = user_id
        self.clock = clock or SystemClock()
        self.home = home
        self.env = env
        self.emit = emit or (lambda kind, **data: None)
        self._lock = threading.Lock()
        self._sent: dict[str, str] = {}  # client -> what it was last brought in step with
        self.problems: dict[str, str] = {}  # client -> why its last refresh failed

    @property
    def history_file(self) -> Path:
        return self.paths.user(self.user_id).meta / "client-memory-history.jsonl"

    # ---- where and what

    def place(self, key: str) -> Place | None:
        """The client's place on this machine, or None when its folder is not found."""
        settings = self.settings()
        sources = [Path(s.path) for s in settings.sources if s.adapter == key]
        folder = locate(key, typed=str(settings[setting_key(key) + "_folder"]), source_paths=sources,
                        home=self.home, env=self.env)
        return PLACES[key](folder) if folder is not None else None

    @property
    def api_key_file(self) -> Path:
        return self.paths.root / ".secrets" / "openwebui-api-key"

    def set_api_key(self, key: str) -> None:
        """Keep Open WebUI's API key in the vault, readable by this account only (never in curator.yaml)."""
        self.api_key_file.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.api_key_file, key.strip() + "\n")  # written private (0600)

    def remote(self) -> OpenWebUIMemories | None:
        """Open WebUI's memories, or None without an API key."""
        key = (self.env or os.environ).get(API_KEY_ENV, "")
        if not key:
            try:
                key = self.api_key_file.read_text("utf-8").strip()
            except OSError:
                key = ""
        if not key:
            return None
        return OpenWebUIMemories(str(self.settings()["send.openwebui_url"]), key,
                                 self.paths.user(self.user_id).meta / "openwebui-records.json")

    def digest(self) -> Digest:
        root = self.paths.root
        candidates = [root / rel for rel in self.approved(self.user_id)]
        return build_digest(self.paths, self.user_id, candidates, int(self.settings()["send.max_chars"]))

    def overview(self) -> list[dict[str, Any]]:
        """Every client: its switch, its folder on this machine (None: not found), what is written
        there, the last problem; then the clients the curator does not write, and why."""
        settings = self.settings()
        rows: list[dict[str, Any]] = []
        for key, cls in PLACES.items():
            place = self.place(key)
            rows.append({"client": key, "name": cls.name, "on": bool(settings[setting_key(key)]),
                         "folder": str(place.root) if place else None, "what": cls.summary,
                         "problem": self.problems.get(key, ""), "writable": True})
        remote = self.remote()
        rows.append({"client": openwebui.KEY, "name": openwebui.NAME, "on": bool(settings["send.openwebui"]),
                     "folder": str(settings["send.openwebui_url"]) if remote else None,
                     "what": openwebui.SUMMARY + ("" if remote else " No API key yet."),
                     "problem": self.problems.get(openwebui.KEY, ""), "writable": True, "needs_key": remote is None})
        rows += [{"client": key, "name": name, "on": False, "folder": None, "what": "Not written: " + why,
                  "problem": "", "writable": False} for key, (name, why) in NOT_WRITTEN.items()]
        return rows

    def enabled(self) -> list[str]:
        settings = self.settings()
        return [key for key in NAMES if settings[setting_key(key)]]

    # ---- plan, apply, undo

    def plan(self, key: str, *, take_back: bool = False, digest: Digest | None = None) -> Plan:
        """What bringing ``key`` in step would change now (``take_back``: removing what the curator wrote)."""
        if key == openwebui.KEY:
            return self._remote_plan(take_back, digest)
        cls = PLACES[key]
        plan = Plan(key, cls.name)
        place = self.place(key)
        if place is None:
            plan.problem = (f"{cls.name} was not found on this machine; set its folder in Settings > Sources "
                            "if it is somewhere else")
            return plan
        digest = None if take_back else (digest or self.digest())
        if digest is not None:
            plan.memories, plan.left_out = len(digest.lines()), digest.left_out
        try:
            current = {path: _read(path) for path in place.files()}
            wanted = place.render(digest, current)
        except (PlaceRefused, OutboundError) as exc:
            plan.problem = str(exc)
            return plan
        plan.changes = [Change(path, current[path], text) for path, text in wanted.items() if text != current[path]]
        return plan

    def _remote_plan(self, take_back: bool, digest: Digest | None) -> Plan:
        plan = Plan(openwebui.KEY, openwebui.NAME)
        remote = self.remote()
        if remote is None:
            plan.problem = (f"{openwebui.NAME} needs your API key (Settings > Account > API keys in Open WebUI); "
                            f"give it in Settings > Sources, or set {API_KEY_ENV}")
            return plan
        digest = None if take_back else (digest or self.digest())
        if digest is not None:
            plan.memories, plan.left_out = len(digest.lines()), digest.left_out
        try:
            plan.ops = remote.plan(digest)
        except RemoteRefused as exc:
            plan.problem = str(exc)
        return plan

    def apply(self, plan: Plan) -> None:
        """Write a plan, if every file is still what it was computed from.

        Raises:
            OutboundError: a file changed since the plan, or could not be written.
        """
        if plan.problem:
            raise OutboundError(plan.problem)
        if plan.ops:
            self._apply_remote(plan)
            return
        with self._lock:
            for change in plan.changes:
                if _read(change.path) != change.before:
                    raise OutboundError(f"{change.path} changed since the diff was shown; nothing was written")
            done: list[Change] = []
            try:
                for change in plan.changes:
                    _write(change.path, change.after)
                    done.append(change)
            except OSError as exc:
                for change in reversed(done):  # leave the client as it was
                    try:
                        _write(change.path, change.before)
                    except OSError:
                        log.exception("could not put back %s", change.path)
                raise OutboundError(f"{plan.name}: {exc}") from None
            self._remember(plan)

    def _apply_remote(self, plan: Plan) -> None:
        remote = self.remote()
        if remote is None:
            raise OutboundError(f"{plan.name}: no API key")
        with self._lock:
            done: list[RecordOp] = []
            try:
                done = remote.apply(plan.ops)
            except RemoteRefused as exc:
                raise OutboundError(str(exc)) from None
            finally:
                if done:
                    self._record({"client": plan.key, "records": [
                        {"op": op.op, "id": op.record_id, "content": op.content} for op in done]})

    def undo_last(self, key: str) -> Plan:
        """A plan putting back the files of ``key``'s last write (apply it to undo)."""
        last = next((entry for entry in reversed(self.history()) if entry.get("client") == key), None)
        plan = Plan(key, NAMES[key])
        if last is None:
            plan.problem = f"nothing was written to {plan.name} yet"
            return plan
        if "records" in last:
            plan.ops = openwebui.inverse(last["records"])
            return plan
        for item in last.get("files", []):
            path = Path(item["path"])
            try:
                now = _read(path)
            except OutboundError as exc:
                plan.problem = str(exc)
                return plan
            if now != item.get("after"):
                plan.problem = f"{path} changed since the curator wrote it; it was left as it is"
                return plan
            plan.changes.append(Change(path, now, item.get("before")))
        return plan

    def writes(self, key: str, limit: int = 20) -> list[tuple[str, str]]:
        """The latest writes to ``key``, newest first: (when, the diff as it was written)."""
        out: list[tuple[str, str]] = []
        for entry in reversed(self.history()):
            if entry.get("client") != key:
                continue
            plan = Plan(key, NAMES[key])
            plan.changes = [Change(Path(f["path"]), f.get("before"), f.get("after")) for f in entry.get("files", [])]
            plan.ops = [RecordOp(r.get("op", ""), str(r.get("content", "")), str(r.get("id", "")))
                        for r in entry.get("records", [])]
            out.append((str(entry.get("at", "")), plan.diff()))
            if len(out) >= limit:
                break
        return out

    def history(self) -> list[dict[str, Any]]:
        try:
            lines = self.history_file.read_text("utf-8").splitlines()
        except OSError:
            return []
        entries = []
        for line in lines:
            try:
                entries.append(json.loads(line))
            except ValueError:
                continue  # a torn last line after a crash
        return entries

    def _remember(self, plan: Plan) -> None:
        self._record({"client": plan.key, "files": [{"path": str(c.path), "before": c.before, "after": c.after}
                                                    for c in plan.changes]})

    def _record(self, entry: dict[str, Any]) -> None:
        entry = {"at": iso_utc(self.clock.now()), **entry}
        self.history_file.parent.mkdir(parents=True, exist_ok=True)
        append_lines(self.history_file, [json.dumps(entry, ensure_ascii=False)])
        entries = self.history()
        if len(entries) > 2 * HISTORY_KEEP:
            atomic_write_text(self.history_file, "".join(json.dumps(e, ensure_ascii=False) + "\n"
                                                         for e in entries[-HISTORY_KEEP:]))

    # ---- keeping in step

    def refresh(self) -> list[Plan]:
        """Bring every switched-on client in step if what it would get changed; the plans written or failed."""
        keys = self.enabled()
        if not keys:
            return []
        state = self._state()
        done: list[Plan] = []
        digest: Digest | None = None
        for key in keys:
            if self._sent.get(key) == state and key not in self.problems:
                continue
            digest = digest or self.digest()
            plan = self.plan(key, digest=digest)
            try:
                if not plan.nothing_to_do or plan.problem:
                    self.apply(plan)
            except OutboundError as exc:
                plan.problem = str(exc)
                if self.problems.get(key) != plan.problem:
                    self.emit("client.send.failed", message=f"{plan.name}: memory not sent: {plan.problem}")
                self.problems[key] = plan.problem
                done.append(plan)
                continue
            self._sent[key] = state
            # A plan of records (Open WebUI) has no file changes: "nothing to do" covers both kinds.
            if self.problems.pop(key, None) is not None or not plan.nothing_to_do:
                self.emit("client.sent", message=f"{plan.name}: memory sent ({plan.memories} lines)")
            if not plan.nothing_to_do:
                done.append(plan)
        return done

    def _state(self) -> str:
        core = self.paths.user(self.user_id).core_memory
        try:
            stat = core.stat()
            core_state = f"{stat.st_size}:{stat.st_mtime_ns}"
        except OSError:
            core_state = "-"
        settings = self.settings()
        switches = ",".join(f"{o.key}={settings[o.key]}" for o in OPTIONS if o.key.startswith("send."))
        return f"{core_state}|{self.fingerprint(self.user_id)}|{switches}"


def _read(path: Path) -> str | None:
    """A client file's text (None: no such file).

    Raises:
        OutboundError: a file that cannot be read, or is not UTF-8 text (written back, it would be damaged).
    """
    try:
        return path.read_text("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise OutboundError(f"{path} is not UTF-8 text; it was left as it is") from None
    except OSError as exc:
        raise OutboundError(f"{path} could not be read: {exc.strerror or exc}") from None


def _write(path: Path, text: str | None) -> None:
    if text is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    atomic_write_text(path, text)
    # An atomic write makes a private file; a client's file keeps the permissions it had.
    os.chmod(path, mode)


def _umask() -> int:
    """This process's umask, read without setting it (os.umask would change it for every thread)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


class Refresher:
    """Runs ``refresh`` on a thread of its own, shortly after it is poked; pokes in a burst make one run."""

    def __init__(self, client_memory: ClientMemory, settle_seconds: float = 0.5) -> None:
        self.client_memory = client_memory
        self.settle_seconds = settle_seconds
        self._poked = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None
        self._guard = threading.Lock()

    def poke(self) -> None:
        """Ask for a refresh soon (cheap; safe from any thread)."""
        if not self.client_memory.enabled():
            return
        with self._guard:
            if self._closing:
                return
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="client-memory", daemon=True)
                self._thread.start()
        self._poked.set()

    def _run(self) -> None:
        while True:
            self._poked.wait()
            if self._closing:
                return
            # Let a burst (approve all, a cycle's writes) settle into one write.
            while self._poked.is_set() and not self._closing:
                self._poked.clear()
                self._poked.wait(self.settle_seconds)
            self._refresh()
            if self._closing:
                return

    def _refresh(self) -> None:
        try:
            self.client_memory.refresh()
        except Exception:  # a bug here must not stop the next refresh
            log.exception("sending memory to clients failed")

    def close(self) -> None:
        """Stop the thread; a refresh that was asked for and not yet run is run now."""
        with self._guard:
            self._closing = True
            thread = self._thread
        pending = self._poked.is_set()
        self._poked.set()
        if thread is not None:
            thread.join(timeout=30)
        if pending:
            self._refresh()
