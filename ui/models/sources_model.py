"""The watched sources (``SourceConfig``) as a table: path, adapter, user, enabled.

Used by the settings dialog's Sources tab and the first-run assistant. ``ItemRole`` returns
the ``SourceConfig``; GUI thread only (feed it with ``set_records`` from posted callbacks).
"""

from __future__ import annotations

from typing import Any

from curator.settings import SourceConfig
from ui.models.records import Column, RecordTableModel


def _path_tooltip(source: SourceConfig) -> str:
    return f"{source.path}\nid: {source.id}" if source.id else source.path


SOURCE_COLUMNS: list[Column[SourceConfig]] = [
    Column("Path", lambda s: s.path, tooltip=_path_tooltip),
    Column("Adapter", lambda s: s.adapter),
    Column("User", lambda s: s.user_id),
    Column("Enabled", lambda s: "yes" if s.enabled else "no"),
]


class SourcesModel(RecordTableModel[SourceConfig]):
    """One row per configured source, in the engine's order."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(SOURCE_COLUMNS, parent)
