"""Find GGUF model files already on the machine, without loading any of them.

Local chat apps keep their models in known places: LM Studio and GPT4All in plain folders,
Jan in one folder per model, Ollama in a content-addressed blob store described by
manifests, the Hugging Face hub in ``models--org--name/snapshots/<rev>/``. Each root is
searched to a small depth with a cap on the entries visited, so discovery stays fast and
never walks a whole home folder. Each file's header is read (bounded, see ``gguf.py``)
for its quantization and context length; a broken file is listed with its error.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.llm.catalogue import Catalogue, CatalogueError, load_catalogue
from curator.llm.default_model import resolve_default_model
from curator.llm.gguf import GGUFError, read_gguf

log = logging.getLogger(__name__)

# Sources, as shown to a person.
SOURCE_DEFAULT = "bundled"
SOURCE_PROJECT = "project"
SOURCE_FOLDER = "folder"
SOURCE_FILE = "file"
SOURCE_LMSTUDIO = "LM Studio"
SOURCE_OLLAMA = "Ollama"
SOURCE_GPT4ALL = "GPT4All"
SOURCE_JAN = "Jan"
SOURCE_HF = "Hugging Face"
SOURCE_LLAMACPP = "llama.cpp"

MAX_ENTRIES_PER_ROOT = 5_000
MAX_MANIFEST_BYTES = 1_000_000
_DIGEST = re.compile(r"^sha256:([0-9a-f]{64})$")
_SPLIT_PART = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)
_GENERIC_STEMS = {"model", "ggml-model", "weights"}


@dataclass(frozen=True)
class SearchRoot:
    """A place to look for models.

    Attributes:
        path: The folder.
        source: Which app it belongs to (shown to the person).
        layout: ``tree`` (GGUF files in subfolders), ``ollama`` (a models folder with
            ``manifests/`` and ``blobs/``) or ``hf`` (a Hugging Face hub cache).
        max_depth: How many folder levels below ``path`` a ``tree`` search descends.
    """

    path: Path
    source: str
    layout: str = "tree"
    max_depth: int = 4


@dataclass
class DiscoveredModel:
    """A GGUF file found on the machine."""

    name: str
    path: Path
    size: int
    source: str
    quantization: str = ""
    context_length: int | None = None
    architecture: str = ""
    model_name: str = ""
    chat_template: bool = False
    recommended: str = ""
    notes: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def ok(self) -> bool:
        """Whether the header is valid (the file can be offered for loading)."""
        return not self.error

    def to_dict(self) -> dict[str, Any]:
        """A plain dict for ``--json`` output."""
        return {
            "name": self.name,
            "path": str(self.path),
            "size": self.size,
            "source": self.source,
            "quantization": self.quantization,
            "context_length": self.context_length,
            "architecture": self.architecture,
            "model_name": self.model_name,
            "chat_template": self.chat_template,
            "recommended": self.recommended,
            "notes": list(self.notes),
            "error": self.error,
        }


# (resolved path, size, mtime_ns) -> header summary or error; headers don't change in place.
_HEADER_CACHE: dict[tuple[str, int, int], tuple[dict[str, Any] | None, str]] = {}


def _header(path: Path) -> tuple[dict[str, Any] | None, str, int]:
    try:
        stat = path.stat()
    except OSError as exc:
        return None, f"{path.name}: cannot be read ({exc.strerror or exc})", 0
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    cached = _HEADER_CACHE.get(key)
    if cached is None:
        try:
            info = read_gguf(path)
        except GGUFError as exc:
            cached = (None, str(exc))
        else:
            summary = info.summary()
            summary["model_name"] = info.metadata.get("general.name") or ""
            cached = (summary, "")
        _HEADER_CACHE[key] = cached
    return cached[0], cached[1], stat.st_size


def describe_model(
    path: Path,
    source: str = SOURCE_FILE,
    name: str | None = None,
    catalogue: Catalogue | None = None,
) -> DiscoveredModel:
    """Read one file's header into a :class:`DiscoveredModel` (errors are recorded, not raised).

    Args:
        path: The GGUF file.
        source: Which app or folder it came from.
        name: Display name; derived from the file name when None.
        catalogue: For matching against recommended models; the bundled one when None.
    """
    path = Path(path)
    summary, error, size = _header(path)
    model = DiscoveredModel(
        name=name or _display_name(path),
        path=path,
        size=size,
        source=source,
        error=error,
    )
    if summary is not None:
        model.quantization = str(summary["quantization"])
        model.context_length = summary["context_length"]
        model.architecture = str(summary["architecture"])
        model.model_name = str(summary["model_name"])
        model.chat_template = bool(summary["chat_template"])
        if model.architecture == "clip":
            model.error = f"{path.name}: a vision projector (mmproj), not a chat model"
        elif not model.chat_template:
            model.notes.append("no chat template in the file; a generic one will be used")
    if catalogue is None:
        try:
            catalogue = load_catalogue()
        except CatalogueError:
            catalogue = None
    if catalogue is not None:
        match = catalogue.match(path.name)
        if match is not None:
            model.recommended = match.name
    return model


def _display_name(path: Path) -> str:
    stem = path.name[: -len(".gguf")] if path.name.lower().endswith(".gguf") else path.name
    if stem.lower() in _GENERIC_STEMS and path.parent.name:
        return path.parent.name
    return stem


def _is_listable_gguf(name: str) -> bool:
    if not name.lower().endswith(".gguf"):
        return False
    split = _SPLIT_PART.search(name)
    # llama.cpp loads a split model from its first part; the others are not models alone.
    return split is None or int(split.group(1)) == 1


def _walk_tree(root: Path, max_depth: int) -> Iterator[Path]:
    """GGUF files under ``root`` (linked folders followed, hidden ones skipped)."""
    return _walk(root, max_depth, _is_listable_gguf, follow_links=True)


def _walk(root: Path, max_depth: int, accept: Callable[[str], bool], *, follow_links: bool) -> Iterator[Path]:
    """Files under ``root`` whose name ``accept`` takes, breadth-first, bounded in depth and in
    entries visited. ``follow_links`` descends into linked folders (each real folder once)
    and skips hidden ones; without it, links to folders are never followed."""
    seen_dirs: set[str] = set()
    queue: list[tuple[Path, int]] = [(root, 0)]
    visited = 0
    while queue:
        folder, depth = queue.pop(0)
        if follow_links:
            try:
                real = os.path.realpath(folder)
            except OSError:
                continue
            if real in seen_dirs:
                continue
            seen_dirs.add(real)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            visited += 1
            if visited > MAX_ENTRIES_PER_ROOT:
                log.info("model search stopped early in %s (more than %d entries)", root, visited)
                return
            try:
                if entry.is_dir(follow_symlinks=follow_links):
                    if depth < max_depth and not (follow_links and entry.name.startswith(".")):
                        queue.append((Path(entry.path), depth + 1))
                elif accept(entry.name) and entry.is_file():
                    yield Path(entry.path)
            except OSError:
                continue


def _ollama_models(models_dir: Path) -> Iterator[tuple[str, Path]]:
    """(``model:tag``, blob path) for each Ollama manifest whose model layer exists."""
    manifests = models_dir / "manifests"
    blobs = models_dir / "blobs"
    if not manifests.is_dir():
        return
    # manifests/<registry>/<namespace>/<model>/<tag>
    for manifest in _walk(manifests, 4, lambda _name: True, follow_links=False):
        parts = manifest.relative_to(manifests).parts
        if len(parts) != 4:
            continue
        registry, namespace, model, tag = parts
        try:
            if manifest.stat().st_size > MAX_MANIFEST_BYTES:
                continue
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            log.info("unreadable Ollama manifest %s", manifest)
            continue
        layers = data.get("layers") if isinstance(data, dict) else None
        for layer in layers if isinstance(layers, list) else []:
            if not isinstance(layer, dict):
                continue
            if layer.get("mediaType") != "application/vnd.ollama.image.model":
                continue
            # The digest comes from a file on disk, so it is checked before naming a path.
            match = _DIGEST.match(str(layer.get("digest", "")))
            if match is None:
                continue
            blob = blobs / f"sha256-{match.group(1)}"
            if registry == "registry.ollama.ai" and namespace == "library":
                name = f"{model}:{tag}"
            elif registry == "registry.ollama.ai":
                name = f"{namespace}/{model}:{tag}"
            else:
                name = f"{registry}/{namespace}/{model}:{tag}"
            if blob.is_file():
                yield name, blob
            break


def _hf_models(hub: Path) -> Iterator[tuple[str, Path]]:
    """(``org/repo/file``, path) for GGUF files in a Hugging Face hub cache."""
    try:
        repos = sorted(p for p in hub.iterdir() if p.name.startswith("models--"))
    except OSError:
        return
    for repo in repos[:MAX_ENTRIES_PER_ROOT]:
        repo_id = repo.name[len("models--") :].replace("--", "/")
        snapshots = repo / "snapshots"
        if not snapshots.is_dir():
            continue
        for path in _walk_tree(snapshots, max_depth=3):
            relative = path.relative_to(snapshots).parts[1:]  # drop the revision folder
            yield f"{repo_id}/{'/'.join(relative)}", path


def _env_path(env: Mapping[str, str], key: str) -> Path | None:
    value = env.get(key, "").strip()
    return Path(value).expanduser() if value else None


def default_roots(
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> list[SearchRoot]:
    """The places local LLM apps keep GGUF files, for Linux, macOS and Windows.

    Args:
        home: The home folder; ``Path.home()`` when None. When given (tests), system-wide
            locations outside it are left out.
        env: Environment variables (``HF_HOME``, ``OLLAMA_MODELS``...); ``os.environ`` when None.
    """
    system_wide = home is None
    home = Path.home() if home is None else Path(home)
    env = os.environ if env is None else env
    roots: list[SearchRoot] = []

    def add(path: Path | None, source: str, layout: str = "tree", depth: int = 4) -> None:
        if path is not None and all(r.path != path for r in roots):
            roots.append(SearchRoot(path, source, layout, depth))

    # LM Studio: <root>/<publisher>/<model>/<file>.gguf
    add(home / ".lmstudio" / "models", SOURCE_LMSTUDIO, depth=3)
    add(home / ".cache" / "lm-studio" / "models", SOURCE_LMSTUDIO, depth=3)

    ollama = _env_path(env, "OLLAMA_MODELS")
    add(ollama, SOURCE_OLLAMA, "ollama")
    add(home / ".ollama" / "models", SOURCE_OLLAMA, "ollama")
    if system_wide and sys.platform.startswith("linux"):
        # The Linux service install keeps its store under the ollama user's home.
        add(Path("/usr/share/ollama/.ollama/models"), SOURCE_OLLAMA, "ollama")

    xdg_data = _env_path(env, "XDG_DATA_HOME") or home / ".local" / "share"
    app_support = home / "Library" / "Application Support"
    local_appdata = _env_path(env, "LOCALAPPDATA")
    appdata = _env_path(env, "APPDATA")

    add(xdg_data / "nomic.ai" / "GPT4All", SOURCE_GPT4ALL, depth=1)
    add(app_support / "nomic.ai" / "GPT4All", SOURCE_GPT4ALL, depth=1)
    if local_appdata is not None:
        add(local_appdata / "nomic.ai" / "GPT4All", SOURCE_GPT4ALL, depth=1)

    # Jan: older releases used ~/jan/models/<id>/; newer ones <data>/llamacpp/models/<id>/.
    add(home / "jan" / "models", SOURCE_JAN, depth=2)
    add(xdg_data / "Jan" / "data", SOURCE_JAN, depth=4)
    add(app_support / "Jan" / "data", SOURCE_JAN, depth=4)
    if appdata is not None:
        add(appdata / "Jan" / "data", SOURCE_JAN, depth=4)

    hub = _env_path(env, "HF_HUB_CACHE")
    hf_home = _env_path(env, "HF_HOME")
    xdg_cache = _env_path(env, "XDG_CACHE_HOME") or home / ".cache"
    if hub is None:
        hub = hf_home / "hub" if hf_home is not None else xdg_cache / "huggingface" / "hub"
    add(hub, SOURCE_HF, "hf")

    llama_cache = _env_path(env, "LLAMA_CACHE") or xdg_cache / "llama.cpp"
    add(llama_cache, SOURCE_LLAMACPP, depth=1)
    return roots


def folders_from_setting(value: str) -> list[Path]:
    """Split the ``model.search_folders`` setting (``os.pathsep``-separated) into folders."""
    return [Path(part).expanduser() for part in value.split(os.pathsep) if part.strip()]


def _project_models_dir() -> Path | None:
    try:
        from curator.datafiles import data_dir

        return data_dir("models")
    except FileNotFoundError:
        return None


def discover_models(
    roots: Sequence[SearchRoot] | None = None,
    *,
    extra_folders: Iterable[Path] = (),
    include_default: bool = True,
    include_project: bool = True,
    catalogue: Catalogue | None = None,
) -> list[DiscoveredModel]:
    """List the GGUF models on this machine.

    Args:
        roots: Where to look; :func:`default_roots` when None.
        extra_folders: Folders the person added (``model.search_folders``).
        include_default: List the bundled default model first.
        include_project: Search the project's ``models/`` folder.
        catalogue: For recommended-model notes; the bundled catalogue when None.

    Returns:
        One entry per distinct file (the same file reached twice is listed once), the
        default first, then the project's, the person's folders, and each app's. Files with
        an invalid header are included with ``error`` set.
    """
    if catalogue is None:
        catalogue = _bundled_catalogue()
    found: list[DiscoveredModel] = []
    seen: set[str] = set()

    def add(path: Path, source: str, name: str | None = None) -> None:
        try:
            key = str(path.resolve())
        except OSError:
            key = str(path)
        if key in seen:
            return
        seen.add(key)
        found.append(describe_model(path, source, name, catalogue))

    if include_default:
        default = resolve_default_model(catalogue.default if catalogue else None)
        if default.path is not None:
            add(default.path, SOURCE_DEFAULT, default.spec.name if default.spec else None)
    for root in _search_roots(roots, extra_folders, include_project):
        if root.path.is_dir():
            for path, name in _model_files(root):
                add(path, root.source, name)
    return found


def _bundled_catalogue() -> Catalogue | None:
    try:
        return load_catalogue()
    except CatalogueError:
        return None


def _search_roots(roots: Sequence[SearchRoot] | None, extra_folders: Iterable[Path],
                  include_project: bool) -> list[SearchRoot]:
    """The project's folder, then the person's folders, then each app's (or ``roots``)."""
    search: list[SearchRoot] = []
    if include_project:
        project = _project_models_dir()
        if project is not None:
            search.append(SearchRoot(project, SOURCE_PROJECT, "tree", 2))
    search.extend(SearchRoot(Path(f), SOURCE_FOLDER, "tree", 4) for f in extra_folders)
    search.extend(default_roots() if roots is None else roots)
    return search


def _model_files(root: SearchRoot) -> Iterator[tuple[Path, str | None]]:
    """GGUF files under one root with the name its layout gives them (None: none given)."""
    if root.layout == "ollama":
        yield from ((blob, name) for name, blob in _ollama_models(root.path))
    elif root.layout == "hf":
        yield from ((path, name) for name, path in _hf_models(root.path))
    else:
        yield from ((path, None) for path in _walk_tree(root.path, root.max_depth))


def discover_for_settings(
    settings: Any, *, roots: Sequence[SearchRoot] | None = None
) -> list[DiscoveredModel]:
    """:func:`discover_models` with the person's ``model.search_folders`` added."""
    return discover_models(roots, extra_folders=folders_from_setting(str(settings["model.search_folders"])))
