"""One document model for everything in the vault (seed 004 §4), stored as Markdown + YAML.

A document is its frontmatter (an ordered mapping, unknown keys kept as they were) and its
body. Known fields have typed accessors; everything else rides along untouched, so a file
edited by a person or another tool survives a load/save round trip.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import frontmatter
import yaml

from curator.vault.atomic import atomic_write_text
from curator.vault.yamltext import dump as yaml_dump

# Fields every document carries (seed 004 §4) and their defaults, in the order written.
CORE_FIELDS: dict[str, Any] = {
    "id": "",
    "kind": "fact",
    "title": "",
    "primary_topic": "",
    "keywords": [],
    "user_purpose": "",
    "data_requirements": [],
    "content_types": [],
    "scope": "new",
    "quality": 0.5,
    "created_at": "",
    "expires_at": None,
}
# Provenance: where a document came from.
PROVENANCE_FIELDS: dict[str, Any] = {
    "user_id": "default",
    "source_turns": [],
    "source_file": "",
    "source_hash": "",
    "confidence": 0.0,
}


class DocumentError(ValueError):
    """A file that is not a readable document (bad frontmatter, bad encoding)."""


class _StringTimestampLoader(yaml.SafeLoader):
    """SafeLoader that leaves timestamps as the strings they were written as."""


_StringTimestampLoader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _Handler(frontmatter.YAMLHandler):
    def load(self, fm: str, **kwargs: Any) -> Any:
        return yaml.load(fm, Loader=_StringTimestampLoader)

    def export(self, metadata: dict[str, Any], **kwargs: Any) -> str:
        return yaml_dump(
            metadata, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1000
        ).strip()


_HANDLER = _Handler()


@dataclass
class Document:
    """A vault document: frontmatter ``meta`` plus Markdown ``body``."""

    meta: dict[str, Any]
    body: str
    path: Path | None = field(default=None, compare=False)

    # ---- Construction

    @classmethod
    def new(cls, *, doc_id: str, kind: str, title: str, body: str, **fields: Any) -> Document:
        """A new document with every core and provenance field present."""
        meta: dict[str, Any] = {**CORE_FIELDS, **PROVENANCE_FIELDS}
        meta.update({"id": doc_id, "kind": kind, "title": title})
        meta.update(fields)
        return cls(meta=meta, body=body)

    @classmethod
    def from_text(cls, text: str, path: Path | None = None) -> Document:
        """Parse Markdown with optional frontmatter; raises ``DocumentError`` when malformed."""
        if text.startswith("\ufeff"):
            text = text[1:]
        try:
            post = frontmatter.loads(text, handler=_HANDLER)
        except Exception as exc:  # yaml raises many types; all mean the same to a person
            raise DocumentError(f"{path or 'document'}: frontmatter is not valid YAML ({exc})") from exc
        meta = post.metadata
        if not isinstance(meta, dict):
            raise DocumentError(f"{path or 'document'}: frontmatter is not a mapping")
        return cls(meta=dict(meta), body=post.content, path=path)

    @classmethod
    def load(cls, path: Path) -> Document:
        """Read a document file."""
        try:
            text = Path(path).read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DocumentError(f"{path}: not UTF-8 text ({exc})") from exc
        return cls.from_text(text, Path(path))

    # ---- Serialisation

    def to_text(self) -> str:
        post = frontmatter.Post(self.body, handler=_HANDLER, **self.meta)
        return frontmatter.dumps(post, handler=_HANDLER) + "\n"

    def save(self, path: Path | None = None) -> Path:
        """Write atomically to ``path`` (or where it was loaded from)."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("document has no path to save to")
        atomic_write_text(target, self.to_text())
        self.path = target
        return target

    def content_hash(self) -> str:
        """sha256 of the serialised bytes: what a person was shown."""
        return hashlib.sha256(self.to_text().encode("utf-8")).hexdigest()

    # ---- Typed access to the common fields

    def get(self, key: str, default: Any = None) -> Any:
        return self.meta.get(key, default)

    @property
    def id(self) -> str:
        return str(self.meta.get("id") or "")

    @property
    def kind(self) -> str:
        return str(self.meta.get("kind") or "fact")

    @property
    def title(self) -> str:
        return str(self.meta.get("title") or "")

    @property
    def user_id(self) -> str:
        return str(self.meta.get("user_id") or "default")

    @property
    def scope(self) -> str:
        return str(self.meta.get("scope") or "new")

    @property
    def quality(self) -> float:
        return _as_float(self.meta.get("quality"), 0.5)

    @property
    def confidence(self) -> float:
        return _as_float(self.meta.get("confidence"), 0.0)

    @property
    def keywords(self) -> list[str]:
        return _as_str_list(self.meta.get("keywords"))

    @property
    def content_types(self) -> list[str]:
        return _as_str_list(self.meta.get("content_types"))

    @property
    def source_turns(self) -> list[int]:
        turns = self.meta.get("source_turns") or []
        if not isinstance(turns, list):
            return []
        out: list[int] = []
        for value in turns:
            try:
                out.append(int(value))
            except (TypeError, ValueError):
                continue
        return out

    @property
    def deleted(self) -> bool:
        return bool(self.meta.get("deleted", False))


def _as_float(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def _as_str_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list):
        return [str(v) for v in value if v is not None]
    return []
