"""The metadata signals of a turn: high confidence, knowledge boundary and contradiction.

Looked for in ``IndexedTurn.extra`` (nested a few levels, under the usual key names), then in
the turn's ``context`` text, then (contradiction) in its turn folder.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from curator.sources.turns import IndexedTurn

_APPROVE_RE = re.compile(r"\bAPPROVED?\b")
_CONTEXT_APPROVE_RE = re.compile(
    r"\b(?:validation|decision|verdict|result)\b[^\n]{0,20}?\bAPPROVED?\b", re.IGNORECASE
)
_CONTEXT_QUALITY_RE = re.compile(
    r"\bquality(?:[ _]score)?\**\s*[:=]\s*\**\s*([01](?:\.\d+)?)", re.I
)
_CONTEXT_ROUTE_RE = re.compile(r"\broute\b\**\s*[:=]?\s*\**\s*[`\"']?(refresh|clarify)\b", re.I)
_TURN_DIR_RE = re.compile(r"^turn_\d+$")

_VALIDATION_KEYS = ("validation_result", "validation", "validation_decision", "decision", "verdict")
_QUALITY_KEYS = ("quality", "quality_score", "validation_quality")
_ROUTE_KEYS = ("route", "planner_route", "routing")
# ``has_prior_findings`` is what the turn-folder adapter writes (a relative ``turn.file`` cannot
# be checked on disk from here, so the adapter's own look is what counts).
_CONTRADICTION_KEYS = ("prior_findings", "has_prior_findings", "contradiction", "contradiction_detected")
_TURN_DIR_KEYS = ("turn_dir", "turn_folder", "folder")
# Every key name a metadata signal looks for: a flat ``extra`` holding none of them (the
# provenance most adapters write) cannot carry one, and is not searched key by key.
_METADATA_KEYS = frozenset(
    k.lower() for k in (*_VALIDATION_KEYS, *_QUALITY_KEYS, *_ROUTE_KEYS, *_CONTRADICTION_KEYS,
                        *_TURN_DIR_KEYS, "files")
)


@lru_cache(maxsize=64)
def _wanted(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(n.lower() for n in names)


def _find_key(data: Any, names: Iterable[str], depth: int = 3) -> Any:
    """First non-empty value of any of ``names`` in nested mappings (breadth first)."""
    if not data:
        return None  # most turns carry no metadata: asked several times per turn
    wanted = _wanted(names if isinstance(names, tuple) else tuple(names))
    layer: list[Any] = [data]
    for _ in range(depth):
        nested: list[Any] = []
        for item in layer:
            if not isinstance(item, (dict, Mapping)):
                continue
            for key, value in item.items():
                if (key if isinstance(key, str) else str(key)).lower() in wanted \
                        and value not in (None, "", [], {}):
                    return value
                if isinstance(value, (dict, Mapping)):
                    nested.append(value)
        layer = nested
    return None


def plain_metadata(extra: Mapping[Any, Any]) -> bool:
    """True when ``extra`` is flat and names no metadata key: ``_find_key`` finds nothing in it."""
    for key, value in extra.items():
        if (key if isinstance(key, str) else str(key)).lower() in _METADATA_KEYS:
            return False
        if not (value is None or isinstance(value, (str, int, float))) and isinstance(value, Mapping):
            return False
    return True


def _as_float(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _approved(value: Any) -> bool:
    if isinstance(value, Mapping):
        inner = _find_key(value, ("decision", "result", "verdict", "status", "outcome"), depth=1)
        return _approved(inner) if inner is not None else False
    return isinstance(value, str) and bool(_APPROVE_RE.search(value.upper()))


def high_confidence(turn: IndexedTurn, min_quality: float, plain: bool = False) -> str | None:
    """Why the turn was validated APPROVE with quality >= ``min_quality``, or None."""
    extra = {} if plain else (turn.extra or {})
    validation = _find_key(extra, _VALIDATION_KEYS)
    approved = _approved(validation)
    quality = _as_float(_find_key(extra, _QUALITY_KEYS))
    if quality is None and isinstance(validation, Mapping):
        quality = _as_float(_find_key(validation, _QUALITY_KEYS))
    if not approved and turn.context:
        approved = bool(_CONTEXT_APPROVE_RE.search(turn.context))
    if quality is None and turn.context:
        match = _CONTEXT_QUALITY_RE.search(turn.context)
        quality = _as_float(match.group(1)) if match else None
    if approved and quality is not None and quality >= min_quality:
        return f"validation APPROVE, quality {quality:.2f} >= {min_quality:.2f}"
    return None


def knowledge_boundary(turn: IndexedTurn, plain: bool = False) -> str | None:
    """Why the planner routed the turn to refresh or clarify, or None."""
    route = None if plain else _find_key(turn.extra or {}, _ROUTE_KEYS)
    if isinstance(route, Mapping):
        route = _find_key(route, ("name", "route", "action", "type"), depth=1)
    if isinstance(route, str):
        words = set(re.findall(r"[a-z]+", route.lower()))
        for name in ("refresh", "clarify"):
            if name in words:
                return f"planner routed to {name}"
    if turn.context:
        match = _CONTEXT_ROUTE_RE.search(turn.context)
        if match:
            return f"planner routed to {match.group(1).lower()}"
    return None


def turn_dir(turn: IndexedTurn, plain: bool = False) -> Path | None:
    """The turn folder the turn was read from (named in its metadata or its file), or None."""
    named = None if plain else _find_key(turn.extra or {}, _TURN_DIR_KEYS, depth=1)
    if isinstance(named, str):
        return Path(named)
    if turn.file and "turn_" in turn.file:  # only a turn folder's files can name one
        path = Path(turn.file)
        for candidate in (path, path.parent):
            if _TURN_DIR_RE.match(candidate.name):
                return candidate
    return None


# "Not looked up yet", distinct from None ("the turn has no folder").
UNKNOWN_FOLDER = Path()


def contradiction(turn: IndexedTurn, folder: Path | None = UNKNOWN_FOLDER, plain: bool = False) -> str | None:
    """Why the turn carries prior findings (``folder``: its ``turn_dir`` when known), or None."""
    if not plain:
        extra = turn.extra or {}
        flagged = _find_key(extra, _CONTRADICTION_KEYS)
        if flagged not in (None, False, 0, "false", "False"):
            return "prior findings present in the turn's metadata"
        files = _find_key(extra, ("files",), depth=1)
        if isinstance(files, list) and any(str(f).endswith("prior_findings.md") for f in files):
            return "prior_findings.md listed in the turn folder"
    if folder is UNKNOWN_FOLDER:
        folder = turn_dir(turn, plain)
    if folder is not None and folder.is_absolute():
        try:
            if (folder / "prior_findings.md").is_file():
                return "prior_findings.md in the turn folder"
        except OSError:
            return None
    return None
