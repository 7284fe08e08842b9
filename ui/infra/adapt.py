"""Reading engine records for display: tolerant attribute access, no decisions.

Engine objects are dataclasses or ``Document``s; panes read the same few fields from them
(an id, a kind, a text, a timestamp). These helpers read a field from an object, a dict or
a document's frontmatter, so a view never breaks on which of these it got.
"""

from __future__ import annotations

from typing import Any

from curator.vault.documents import Document


def field(record: Any, *names: str, default: Any = None) -> Any:
    """The first present, non-None value among ``names`` on ``record``."""
    for name in names:
        value: Any = None
        if isinstance(record, dict):
            value = record.get(name)
        elif isinstance(record, Document):
            value = record.meta.get(name)
            if value is None and name == "body":
                value = record.body
        else:
            value = getattr(record, name, None)
            if value is None:
                doc = getattr(record, "doc", None) or getattr(record, "document", None)
                if isinstance(doc, Document):
                    value = doc.body if name in {"body", "text"} else doc.meta.get(name)
        if value is not None:
            return value
    return default


def text_of(record: Any) -> str:
    """The human-readable text of a record (content, text or body)."""
    value = field(record, "content", "text", "body", "summary", default="")
    return str(value).strip()


def str_list(value: Any) -> list[str]:
    """``value`` as a list of strings (None → [], a string → [it], a dict → 'k: v' items)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, dict):
        return [f"{k}: {v}" for k, v in value.items()]
    if isinstance(value, (list, tuple, set)):
        out: list[str] = []
        for v in value:
            if isinstance(v, dict):
                reason = v.get("reason") or v.get("detail") or ""
                name = v.get("flag") or v.get("name") or v.get("gate") or v.get("kind") or ""
                out.append(f"{name}: {reason}".strip(": ") if reason else str(name or v))
            else:
                out.append(str(v))
        return out
    return [str(value)]


def as_float(value: Any, default: float = 0.0) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def as_int_list(value: Any) -> list[int]:
    out: list[int] = []
    for v in value or []:
        try:
            out.append(int(v))
        except (TypeError, ValueError):
            continue
    return out


def short_time(value: Any) -> str:
    """An ISO-8601 UTC string or a Unix time as local ``YYYY-MM-DD HH:MM`` (as given when unparsable)."""
    from datetime import UTC, datetime

    from curator.clock import parse_iso

    if isinstance(value, (int, float)):
        stamp: float | None = float(value) if value > 0 else None
    else:
        stamp = parse_iso(str(value or ""))
    if stamp is None:
        return str(value or "")
    return datetime.fromtimestamp(stamp, UTC).astimezone().strftime("%Y-%m-%d %H:%M")
