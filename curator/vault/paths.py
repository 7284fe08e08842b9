"""The vault's layout (DESIGN.md §3), safe path joining, and file names for documents.

Nothing outside this module builds a path inside the vault from strings: callers ask for
a folder by meaning (``user.knowledge``) or join a validated name with ``safe_child``.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

USER_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DOC_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{5,63}$")
CATEGORY_RE = re.compile(r"^[A-Z][A-Za-z]{1,31}$")
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(10)} | {
    f"lpt{i}" for i in range(10)
}


class UnsafePathError(ValueError):
    """A name that would escape its folder or is not a valid name there."""


def safe_child(base: Path, *parts: str) -> Path:
    """Join ``parts`` under ``base``, refusing anything that could leave ``base``.

    Rejects absolute parts, drive letters, backslashes, NUL, colons, ``.``/``..`` components
    and any existing symbolic link on the way.
    """
    base_resolved = Path(base).resolve()
    current = base_resolved
    for part in parts:
        for piece in part.split("/"):
            if (
                not piece
                or piece in {".", ".."}
                or "\\" in piece
                or "\x00" in piece
                or ":" in piece
            ):
                raise UnsafePathError(f"unsafe path component {piece!r} in {part!r}")
            current = current / piece
            if current.is_symlink():
                raise UnsafePathError(f"path goes through a symbolic link: {current}")
    if not current.resolve().is_relative_to(base_resolved):
        raise UnsafePathError(f"{current} is outside {base_resolved}")
    return current


def validate_user_id(user_id: str) -> str:
    """Return ``user_id`` if it is a safe folder name, else raise ``UnsafePathError``."""
    if not USER_ID_RE.match(user_id) or user_id in {".", ".."}:
        raise UnsafePathError(f"invalid user id {user_id!r}: letters, digits, _ . - only")
    return user_id


def new_id() -> str:
    """A fresh, random, lower-case document id (12 hex digits, at least one a letter)."""
    # Imported here: secrets (random, hmac, base64) was a tenth of `curator search`'s start.
    import secrets

    # A bare number names a turn where either may be asked for (memory_retrieve "42"): about
    # one id in 280 was digits only, and retrieving that memory by its id gave a turn.
    while (found := secrets.token_hex(6)).isdigit():
        pass
    return found


def slugify(title: str, max_bytes: int = 60) -> str:
    """A conservative, portable file-name slug of ``title`` ([a-z0-9-], byte-bounded)."""
    text = unicodedata.normalize("NFKD", title)
    text = text.encode("ascii", "ignore").decode("ascii").lower()
    text = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    text = text[:max_bytes].strip("-")
    if not text or text in _WINDOWS_RESERVED:
        text = "untitled" if not text else f"{text}-doc"
    return text


def document_filename(title: str, doc_id: str) -> str:
    """File name of a document: slug of its title plus its stable id."""
    return f"{slugify(title)}--{doc_id}.md"


@dataclass(frozen=True)
class UserPaths:
    """Every folder and file of one user's part of the vault."""

    root: Path

    @property
    def knowledge(self) -> Path:
        return self.root / "Knowledge"

    @property
    def staging(self) -> Path:
        return self.root / "Knowledge_staging"

    @property
    def reflections(self) -> Path:
        return self.root / "Reflections"

    @property
    def core_memory(self) -> Path:
        return self.root / "MEMORY.md"

    @property
    def meta(self) -> Path:
        return self.root / "memory" / "meta"

    @property
    def graph(self) -> Path:
        return self.root / "memory" / "graph"

    @property
    def procedures(self) -> Path:
        return self.root / "memory" / "procedures"

    @property
    def pending_reflection(self) -> Path:
        return self.root / "pending-reflection.md"

    @property
    def reflector_logs(self) -> Path:
        return self.root / "Logs" / "reflector"

    @property
    def signal_state(self) -> Path:
        return self.reflector_logs / "signal_state.json"

    @property
    def trigger_state(self) -> Path:
        return self.reflector_logs / "trigger_state.json"

    @property
    def trash(self) -> Path:
        return self.root / ".trash"

    @property
    def history(self) -> Path:
        return self.root / ".history"

    def ensure(self) -> None:
        """Create every folder of the layout."""
        for folder in (
            self.knowledge,
            self.staging,
            self.reflections,
            self.meta,
            self.graph / "entities",
            self.procedures,
            self.reflector_logs,
            self.trash,
            self.history,
        ):
            folder.mkdir(parents=True, exist_ok=True)


@dataclass(frozen=True)
class VaultPaths:
    """The top of a vault and the users inside it."""

    root: Path

    @property
    def settings_file(self) -> Path:
        return self.root / "curator.yaml"

    @property
    def index_file(self) -> Path:
        return self.root / "index.sqlite"

    @property
    def users_dir(self) -> Path:
        return self.root / "Users"

    @property
    def logs_dir(self) -> Path:
        return self.root / "Logs"

    @property
    def lock_file(self) -> Path:
        return self.root / ".curator.lock"

    def user(self, user_id: str) -> UserPaths:
        return UserPaths(self.users_dir / validate_user_id(user_id))

    def user_ids(self) -> list[str]:
        if not self.users_dir.is_dir():
            return []
        return sorted(
            p.name for p in self.users_dir.iterdir() if p.is_dir() and USER_ID_RE.match(p.name)
        )


def default_vault() -> Path:
    """``$CURATOR_VAULT`` or the platform's user data folder for memory-curator.

    The one definition: the CLI and the window open the same vault by default.
    """
    env = os.environ.get("CURATOR_VAULT")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("memory-curator"))
