"""Where each client's memory place is on this machine.

A folder the person typed in Settings wins. Otherwise the place is found the way the
curator finds chats: SillyTavern from a SillyTavern source already added (its user folder
holds both ``chats/`` and ``worlds/``), the others at their default folder. A client whose
folder is not there is "not found", which the switch in Settings says.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from curator.sources.adapters.jan import find_data_folder
from curator.sources.discovery import ClientFolders


def locate(key: str, *, typed: str = "", source_paths: Iterable[Path] = (), home: Path | None = None,
           env: Mapping[str, str] | None = None, platform: str | None = None) -> Path | None:
    """The folder of ``key``'s memory place, or None when it is not on this machine."""
    if typed.strip():
        folder = Path(typed.strip()).expanduser()
        return folder if folder.is_dir() else None
    folders = ClientFolders(os.environ if env is None else env, home, platform or sys.platform)
    for candidate in _candidates(key, folders, list(source_paths)):
        if candidate.is_dir():
            return candidate
    return None


def _candidates(key: str, e: ClientFolders, sources: list[Path]) -> list[Path]:
    if key == "claude-code":
        configured = e.env.get("CLAUDE_CONFIG_DIR")
        return [Path(configured).expanduser()] if configured else [e.home / ".claude"]
    if key == "sillytavern":
        found = [user for path in sources if (user := _tavern_user_folder(path)) is not None]
        return [*found, e.home / "SillyTavern" / "data" / "default-user"]
    if key == "lmstudio":
        return [e.home / ".lmstudio", e.home / ".cache" / "lm-studio"]
    if key == "jan":
        apps = [e.user_app_dir() / "Jan", e.data / "Jan"]
        return [find_data_folder(app) for app in apps if app.is_dir()] + [e.home / "jan"]
    return []


def _tavern_user_folder(path: Path) -> Path | None:
    """The SillyTavern user folder (``data/<user>``) at or above a source folder."""
    folder = Path(path)
    for candidate in (folder, *list(folder.parents)[:3]):
        if (candidate / "chats").is_dir() and ((candidate / "worlds").is_dir() or (candidate / "characters").is_dir()):
            return candidate
    return None
