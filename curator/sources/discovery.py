"""Finding the chat clients installed on this machine, at their default places.

Each client keeps its history in a known place per operating system (the research notes
name them). ``discover_clients`` looks there, honouring ``HOME``/``USERPROFILE``,
``XDG_CONFIG_HOME``/``XDG_DATA_HOME``, ``APPDATA``/``LOCALAPPDATA`` and the clients' own
variables (Open WebUI's ``DATA_DIR``, AnythingLLM's ``STORAGE_DIR``), so a test can point
it at a temporary home. It only reads: databases are opened read-only, folders listed.

A found client is reported with the adapter that reads it (or why none does), its
version where the client records one, and how many conversations it holds.
"""

from __future__ import annotations

import glob
import itertools
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.sources.adapters import ADAPTERS, MIXED, UnknownAdapterError, detect_adapter
from curator.sources.adapters.jan import find_data_folder
from curator.sources.adapters.mixed import walk_files
from curator.sources.adapters.sqlite_base import SqliteAdapter


@dataclass
class DiscoveredClient:
    """A chat client's history found on this machine.

    Attributes:
        client: the client's name ("Open WebUI").
        path: what to add as a source (a database file or a folder).
        adapter: the adapter that reads it, '' when none does.
        version: the client's format or schema version, when it records one.
        supported: whether the curator can read it.
        conversations: how many conversations it holds (0 when unknown or unsupported).
        detail: why it is not supported, or a note.
        source_id: the id of the source that already reads it ('' when not added).
    """

    client: str
    path: str
    adapter: str = ""
    version: str = ""
    supported: bool = True
    conversations: int = 0
    detail: str = ""
    source_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "path": self.path,
            "adapter": self.adapter,
            "version": self.version,
            "supported": self.supported,
            "conversations": self.conversations,
            "detail": self.detail,
            "source_id": self.source_id,
        }


@dataclass(frozen=True)
class _Place:
    client: str
    path: Path
    adapter: str = ""  # '' = detect from the contents
    unsupported: str = ""  # a reason the curator cannot read this client at all


class ClientFolders:
    """The folders a platform's clients use, from the environment (with the usual defaults)."""

    def __init__(self, env: Mapping[str, str], home: Path | None, platform: str) -> None:
        self.env = env
        self.platform = platform
        default_home = env.get("USERPROFILE" if platform == "win32" else "HOME") or env.get("HOME") or "~"
        self.home = Path(home) if home is not None else Path(default_home).expanduser()

    def get(self, name: str, default: Path) -> Path:
        value = self.env.get(name)
        return Path(value) if value else default

    @property
    def config(self) -> Path:
        return self.get("XDG_CONFIG_HOME", self.home / ".config")

    @property
    def data(self) -> Path:
        return self.get("XDG_DATA_HOME", self.home / ".local" / "share")

    @property
    def appdata(self) -> Path:
        return self.get("APPDATA", self.home / "AppData" / "Roaming")

    @property
    def localappdata(self) -> Path:
        return self.get("LOCALAPPDATA", self.home / "AppData" / "Local")

    @property
    def app_support(self) -> Path:
        return self.home / "Library" / "Application Support"

    def user_app_dir(self) -> Path:
        """Where Electron/Tauri apps keep their data: per platform."""
        if self.platform == "win32":
            return self.appdata
        if self.platform == "darwin":
            return self.app_support
        return self.config


def _places(e: ClientFolders, system_paths: bool) -> list[_Place]:
    home, plat = e.home, e.platform
    places: list[_Place] = []
    # ---- SQLite clients
    if e.env.get("DATA_DIR"):
        places.append(_Place("Open WebUI", Path(e.env["DATA_DIR"]) / "webui.db", "openwebui"))
    site_globs = [
        str(home / ".local/lib/python3*/site-packages/open_webui/data/webui.db"),
        str(e.data / "pipx/venvs/open-webui/lib/python3*/site-packages/open_webui/data/webui.db"),
        str(home / ".local/pipx/venvs/open-webui/lib/python3*/site-packages/open_webui/data/webui.db"),
        str(home / "Library/Python/3*/lib/python/site-packages/open_webui/data/webui.db"),
        str(e.appdata / "Python/Python3*/site-packages/open_webui/data/webui.db"),
    ]
    for pattern in site_globs:
        places += [_Place("Open WebUI", Path(p), "openwebui") for p in sorted(glob.glob(pattern))]
    if system_paths and plat == "linux":
        places.append(_Place("Open WebUI", Path("/var/lib/docker/volumes/open-webui/_data/webui.db"), "openwebui"))
    storage = e.env.get("STORAGE_DIR")
    if storage:
        places.append(_Place("AnythingLLM", Path(storage) / "anythingllm.db", "anythingllm"))
    places.append(_Place("AnythingLLM", e.user_app_dir() / "anythingllm-desktop/storage/anythingllm.db", "anythingllm"))
    if plat == "win32":
        ollama = e.localappdata / "Ollama/db.sqlite"
    elif plat == "darwin":
        ollama = e.app_support / "Ollama/db.sqlite"
    else:
        ollama = home / ".ollama/db.sqlite"
    places.append(_Place("Ollama app", ollama, "ollama"))
    # ---- File clients (read by the adapter their contents are detected as)
    # Jan's data folder can be moved; its settings.json (in the app folder) says where.
    jan_apps = [e.user_app_dir() / "Jan"]
    if plat == "linux":
        jan_apps.append(e.data / "Jan")
    for app in jan_apps:
        places.append(_Place("Jan", find_data_folder(app) if app.is_dir() else app / "data"))
    places.append(_Place("Jan", home / "jan"))
    places += [_Place("LM Studio", home / ".lmstudio/conversations"),
               _Place("LM Studio", home / ".cache/lm-studio/conversations")]
    places.append(_Place("Claude Code", home / ".claude/projects"))
    places += [_Place("OpenClaw", home / ".openclaw/agents"), _Place("OpenClaw", home / ".openclaw/workspace")]
    places.append(_Place("Codex CLI", home / ".codex/sessions"))
    gpt4all = {"win32": e.localappdata, "darwin": e.app_support}.get(plat, e.data) / "nomic.ai/GPT4All"
    places.append(_Place("GPT4All", gpt4all, unsupported="GPT4All keeps chats in a binary Qt format "
                         "(gpt4all-*.chat) that is not read; export the chats instead"))
    return places


def discover_clients(
    *,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
    system_paths: bool = True,
) -> list[DiscoveredClient]:
    """The chat clients whose history is at its default place on this machine.

    Args:
        home: the home folder (default: ``HOME``, or ``USERPROFILE`` on Windows).
        env: environment variables (default: ``os.environ``).
        platform: ``linux``, ``darwin`` or ``win32`` (default: this machine's).
        system_paths: also look outside the home (Docker's volume folder).
    """
    e = ClientFolders(os.environ if env is None else env, home, _platform(platform or sys.platform))
    found: list[DiscoveredClient] = []
    seen: set[Path] = set()
    for place in _places(e, system_paths):
        try:
            exists = place.path.exists()
            key = place.path.resolve()
        except OSError:
            continue
        if not exists or key in seen:
            continue
        seen.add(key)
        found.append(_describe(place))
    return found


# How far below a folder a client's data is looked for, and how many folders are looked at,
# so that adding a home folder answers in a moment.
NESTED_DEPTH = 4
NESTED_FOLDERS = 3000
HIDDEN_SAMPLE = 300
_NEVER_ENTER = frozenset({"node_modules", "__pycache__", ".git", ".venv", "venv", "site-packages", "backups",
                          ".Trash", "Trash", "proc", "sys", "dev"})


def find_nested(root: Path, platform: str | None = None) -> list[DiscoveredClient]:
    """Clients whose chats lie below ``root`` (a home folder, an app's install folder).

    ``root`` is first read as a home: each client's default place under it (``.lmstudio``,
    ``.ollama``, ``.config/Jan`` ...). Then its folders are walked, hidden ones included, at
    most ``NESTED_DEPTH`` deep and ``NESTED_FOLDERS`` in all, for a database a client keeps
    (Open WebUI's ``data/webui.db``) or a hidden folder holding chat files. Only supported
    clients are returned, shallowest first, none inside another.
    """
    root = Path(root)
    found = [c for c in discover_clients(home=root, env={}, platform=platform, system_paths=False)
             if c.supported and c.adapter]
    seen = {Path(c.path).resolve() for c in found}
    queue: list[tuple[Path, int]] = [(root, 0)]
    looked = 0
    while queue and looked < NESTED_FOLDERS:
        folder, depth = queue.pop(0)
        try:
            children = sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
        except OSError:
            continue
        for child in children:
            looked += 1
            if looked > NESTED_FOLDERS or child.name in _NEVER_ENTER:
                continue
            resolved = child.resolve()
            if any(resolved.is_relative_to(p) or p.is_relative_to(resolved) for p in seen):
                continue  # a client already found at its own place, here or below
            claimed = _claim_folder(child)
            if claimed is not None:
                found.append(claimed)
                seen.add(resolved)
                continue
            if depth + 1 < NESTED_DEPTH:
                queue.append((child, depth + 1))
    return found


def _claim_folder(folder: Path) -> DiscoveredClient | None:
    """The client whose data ``folder`` is: a client database in it, or (a hidden folder) chat files."""
    for adapter in ADAPTERS.values():
        if isinstance(adapter, SqliteAdapter):
            units = adapter.list_units(folder) if folder.is_dir() else []
            if units:
                info = adapter.describe(units[0])
                return DiscoveredClient(str(getattr(adapter, "client", "") or adapter.name), str(folder),
                                        adapter.name, info.version, info.supported, info.conversations, info.detail)
    if folder.name.startswith("."):  # visible folders were walked when the parent was detected
        # A sample of its files first: a hidden cache folder of many thousand files must not be
        # read whole to learn that it holds no chat.
        sample = itertools.islice(walk_files(folder), HIDDEN_SAMPLE)
        if not any(MIXED.owner(folder, path) is not None for path in sample):
            return None
        try:
            name, _ = detect_adapter(folder)
        except (UnknownAdapterError, OSError):
            return None
        return DiscoveredClient(str(getattr(ADAPTERS[name], "client", "") or name), str(folder), name,
                                conversations=len(ADAPTERS[name].list_units(folder)))
    return None


def _platform(name: str) -> str:
    if name.startswith("win"):
        return "win32"
    return "darwin" if name == "darwin" else "linux"


def _describe(place: _Place) -> DiscoveredClient:
    client = DiscoveredClient(place.client, str(place.path))
    if place.unsupported:
        client.supported, client.detail = False, place.unsupported
        return client
    if place.adapter:
        adapter = ADAPTERS[place.adapter]
        assert isinstance(adapter, SqliteAdapter)
        info = adapter.describe(place.path)
        client.adapter, client.version = place.adapter, info.version
        client.supported, client.conversations = info.supported, info.conversations
        client.detail = info.detail
        return client
    try:
        name, _ = detect_adapter(place.path)
    except (UnknownAdapterError, OSError):
        client.supported, client.detail = False, "no adapter recognises what is there"
        return client
    client.adapter = name
    try:
        client.conversations = len(ADAPTERS[name].list_units(place.path))
    except OSError as exc:
        client.detail = f"cannot be listed: {exc}"
    return client


@dataclass
class SourceDetails:
    """What the Sources settings show for one source: its client, version and health."""

    source_id: str
    client: str
    version: str = ""
    health: str = ""
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"source_id": self.source_id, "client": self.client, "version": self.version,
                "health": self.health, "detail": self.detail}


def describe_source(source_id: str, path: Path, adapter_name: str) -> SourceDetails:
    """Client and version of a source from its adapter; health "unsupported version" when so.

    The health of a readable source is left '' for the caller (the watcher knows it).
    """
    adapter = ADAPTERS.get(adapter_name)
    if adapter is None:
        return SourceDetails(source_id, adapter_name, health="unknown adapter",
                             detail=f"no adapter called {adapter_name!r}")
    details = SourceDetails(source_id, str(getattr(adapter, "client", "") or adapter.name))
    if isinstance(adapter, SqliteAdapter):
        units = adapter.list_units(path)
        if units:
            info = adapter.describe(units[0])
            details.version = info.version
            if not info.supported:
                details.health, details.detail = "unsupported version", info.detail
    return details
