"""The model catalogue (``models/catalogue.yaml``): the default model and recommended GGUFs."""

from __future__ import annotations

import fnmatch
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from curator.datafiles import data_dir


class CatalogueError(Exception):
    """The catalogue file is missing or malformed."""


@dataclass(frozen=True)
class DefaultModelSpec:
    """Where the bundled default model comes from."""

    name: str
    package: str
    module: str
    relative_path: str
    file_name: str
    quantization: str = ""
    size_bytes: int = 0
    n_ctx: int = 4096


@dataclass(frozen=True)
class RecommendedModel:
    """A GGUF model known to suit reflection, with notes for a person."""

    name: str
    family: str
    pattern: str
    quantization: str = ""
    n_ctx: int = 4096
    context_length: int | None = None
    temperature: str = ""
    chat_template: str = ""
    notes: str = ""

    def matches(self, file_name: str) -> bool:
        """Whether a file name on disk looks like this model."""
        return fnmatch.fnmatch(file_name.lower(), self.pattern.lower())


@dataclass(frozen=True)
class Catalogue:
    """The parsed catalogue."""

    default: DefaultModelSpec
    recommended: tuple[RecommendedModel, ...] = field(default_factory=tuple)

    def match(self, file_name: str) -> RecommendedModel | None:
        """The recommended entry whose pattern matches ``file_name``, if any."""
        for entry in self.recommended:
            if entry.matches(file_name):
                return entry
        return None


def _require(mapping: dict[str, Any], key: str, where: str) -> Any:
    if key not in mapping or mapping[key] in (None, ""):
        raise CatalogueError(f"catalogue: {where} lacks {key!r}")
    return mapping[key]


def parse_catalogue(data: Any) -> Catalogue:
    """Build a :class:`Catalogue` from the YAML mapping, checking required keys."""
    if not isinstance(data, dict):
        raise CatalogueError("catalogue: top level is not a mapping")
    raw_default = data.get("default")
    if not isinstance(raw_default, dict):
        raise CatalogueError("catalogue: no 'default' section")
    default = DefaultModelSpec(
        name=str(_require(raw_default, "name", "default")),
        package=str(_require(raw_default, "package", "default")),
        module=str(_require(raw_default, "module", "default")),
        relative_path=str(_require(raw_default, "relative_path", "default")),
        file_name=str(raw_default.get("file_name") or Path(raw_default["relative_path"]).name),
        quantization=str(raw_default.get("quantization") or ""),
        size_bytes=int(raw_default.get("size_bytes") or 0),
        n_ctx=int(raw_default.get("n_ctx") or 4096),
    )
    recommended = []
    for index, entry in enumerate(data.get("recommended") or []):
        if not isinstance(entry, dict):
            raise CatalogueError(f"catalogue: recommended[{index}] is not a mapping")
        where = f"recommended[{index}]"
        recommended.append(
            RecommendedModel(
                name=str(_require(entry, "name", where)),
                family=str(entry.get("family") or ""),
                pattern=str(_require(entry, "pattern", where)),
                quantization=str(entry.get("quantization") or ""),
                n_ctx=int(entry.get("n_ctx") or 4096),
                context_length=int(entry["context_length"]) if entry.get("context_length") else None,
                temperature=str(entry.get("temperature") or ""),
                chat_template=str(entry.get("chat_template") or ""),
                notes=str(entry.get("notes") or "").strip(),
            )
        )
    return Catalogue(default=default, recommended=tuple(recommended))


def load_catalogue(path: Path | None = None) -> Catalogue:
    """Load the catalogue (the project's ``models/catalogue.yaml`` unless ``path`` is given).

    Raises:
        CatalogueError: The file is missing or malformed.
    """
    if path is None:
        return _load_bundled()
    return _load(path)


@functools.cache
def _load_bundled() -> Catalogue:
    try:
        folder = data_dir("models")
    except FileNotFoundError as exc:
        raise CatalogueError(str(exc)) from None
    return _load(folder / "catalogue.yaml")


def _load(path: Path) -> Catalogue:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogueError(f"catalogue {path}: cannot be read ({exc.strerror or exc})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CatalogueError(f"catalogue {path}: invalid YAML ({exc})") from None
    return parse_catalogue(data)
