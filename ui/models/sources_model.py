"""The watched sources (``SourceConfig``) as a table: path, adapter, user, enabled, and the
client, version and health the engine reports for each (``set_details``).

Used by the settings dialog's Sources tab and the first-run assistant. ``ItemRole`` returns
the ``SourceConfig``; GUI thread only (feed it with ``set_records``/``set_details`` from
posted callbacks).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from curator.sources.discovery import SourceDetails
from curator.vault.settings import SourceConfig
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
        self._details: dict[str, SourceDetails] = {}
        details: list[Column[SourceConfig]] = [
            Column("Client", lambda s: self._detail(s).client if self._detail(s) else ""),
            Column("Version", lambda s: self._detail(s).version if self._detail(s) else ""),
            Column("Health", lambda s: self._detail(s).health if self._detail(s) else "",
                   tooltip=lambda s: self._detail(s).detail if self._detail(s) else ""),
        ]
        super().__init__([*SOURCE_COLUMNS, *details], parent)

    def _detail(self, source: SourceConfig) -> Any:
        return self._details.get(source.id or source.path)

    def set_details(self, details: Mapping[str, SourceDetails]) -> None:
        """Client, version and health by source id (or path, for sources not added yet)."""
        self._details = dict(details)
        if self.rowCount():
            self.dataChanged.emit(self.index(0, len(SOURCE_COLUMNS)),
                                  self.index(self.rowCount() - 1, self.columnCount() - 1))
