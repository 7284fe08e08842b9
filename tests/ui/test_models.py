"""Every item model passes pytest-qt's model tester, empty and filled, before and after resets."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt

from curator.reflection.summaries import SummaryRecord
from curator.review.actions import ReviewItem
from ui.models.queue_model import (
    FLAGGED_LANE,
    IdRole,
    ItemRole,
    LaneRole,
    QueueEntry,
    QueueModel,
    entry_from_item,
)
from ui.models.records import Column, RecordTableModel
from ui.panes.reflections import timeline_columns
from ui.panes.status import ActivityEntry


def _item(item_id: str, kind: str) -> ReviewItem:
    return ReviewItem(doc_id=item_id, kind=kind, title=f"title {item_id}", text=f"text {item_id}", category="",
                      confidence=0.7, promotion_count=1, recurring=False, flagged=False, flags=[], gates=[],
                      source_turns=[], staged_at="", origin="", path="", content_hash="", lane="review")


def _entry(item_id: str, kind: str = "fact", flags: tuple[str, ...] = (), recurring: int = 1) -> QueueEntry:
    return QueueEntry(item_id, kind, f"title {item_id}", f"text {item_id}", 0.7, flags, ("keyword",), recurring,
                      _item(item_id, kind))


def test_queue_model_passes_model_tester(qtmodeltester) -> None:
    model = QueueModel()
    qtmodeltester.check(model)
    model.set_entries([
        _entry("a1", "fact", recurring=2), _entry("b2", "correction"), _entry("c3", "fact"),
        _entry("d4", "fact", flags=("instruction: reads like an order",)), _entry("e5", "contradiction"),
        _entry("f6", "brand_new_kind"),
    ])
    qtmodeltester.check(model)
    model.set_entries([_entry("z9")])
    qtmodeltester.check(model)


def test_queue_model_lanes_and_counts(qapp) -> None:
    model = QueueModel()
    model.set_entries([_entry("a1"), _entry("b2", "correction"), _entry("c3"), _entry("d4", flags=("x",)),
                       _entry("e5", "contradiction")])
    lanes = [model.index(r, 0).data(LaneRole) for r in range(model.rowCount())]
    assert lanes == [FLAGGED_LANE, "contradiction", "correction", "fact"]
    titles = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert titles[-1] == "New facts (2)"
    assert titles[0].startswith("Flagged") and titles[0].endswith("(1)")
    facts = model.index(3, 0)
    assert [model.index(r, 0, facts).data(IdRole) for r in range(model.rowCount(facts))] == ["a1", "c3"]
    assert not (model.flags(facts) & Qt.ItemFlag.ItemIsSelectable)
    assert model.flags(model.index(0, 0, facts)) & Qt.ItemFlag.ItemIsSelectable
    assert model.index_of("c3").data(ItemRole).item_id == "c3"
    assert not model.index_of("nope").isValid()
    assert model.total() == 5
    assert model.first_item_index().data(IdRole) == "d4"
    assert model.parent(model.index_of("a1")) == facts
    assert model.parent(facts) == QModelIndex()


def test_entry_from_a_staged_item(qapp) -> None:
    item = ReviewItem(
        doc_id="abc123def456", kind="fact", title="Maya is vegetarian", text="Maya is vegetarian.\n",
        category="", confidence=0.6, promotion_count=2, recurring=True, flagged=True,
        flags=[{"flag": "instruction", "reason": "reads like an order to an assistant"}],
        gates=["caps", "dedup", "keyword_support"], source_turns=[3, 5], staged_at="", origin="",
        path="Staging/abc.md", content_hash="sha-shown", lane="flagged")
    entry = entry_from_item(item)
    assert entry.item_id == "abc123def456"
    assert entry.title == "Maya is vegetarian"
    assert entry.text == "Maya is vegetarian."
    assert entry.flags == ("instruction: reads like an order to an assistant",)
    assert entry.gates == ("caps", "dedup", "keyword_support")
    assert entry.recurring == 2 and entry.confidence == 0.6
    assert entry.shown_hash == "sha-shown"  # bulk approve sends what the row showed


def test_record_table_model_passes_model_tester(qtmodeltester) -> None:
    columns: list[Column[dict[str, Any]]] = [
        Column("Name", lambda r: r["name"], tooltip=lambda r: r["name"].upper(), sort_key=lambda r: len(r["name"])),
        Column("Size", lambda r: r["size"]),
    ]
    model: RecordTableModel[dict[str, Any]] = RecordTableModel(columns, max_rows=3)
    qtmodeltester.check(model)
    model.set_records([{"name": "a", "size": 1}, {"name": "bb", "size": None}])
    qtmodeltester.check(model)
    for i in range(4):
        model.append({"name": f"n{i}", "size": i})
    assert model.rowCount() == 3
    assert model.index(0, 0).data() == "n1"
    assert model.headerData(1, Qt.Orientation.Horizontal) == "Size"
    model.update_record(0, {"name": "changed", "size": 0})
    assert model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole) == "CHANGED"
    qtmodeltester.check(model)


def test_timeline_and_activity_columns_pass_model_tester(qtmodeltester) -> None:
    summaries = [
        SummaryRecord("s1", "Summarise", "Maya talked about work.", "2026-11-20T18:30:00Z", deleted=False),
        SummaryRecord("s2", "", "Trip planning.", "2026-11-21T09:00:00Z", deleted=True),
    ]
    timeline: RecordTableModel[SummaryRecord] = RecordTableModel(timeline_columns())
    timeline.set_records(summaries)
    qtmodeltester.check(timeline)
    assert timeline.index(1, 1).data().startswith("[deleted]")
    activity: RecordTableModel[ActivityEntry] = RecordTableModel(
        [Column("Event", lambda e: e.kind), Column("Details", lambda e: e.message)])
    activity.append(ActivityEntry(0.0, "batch.finished", "3 staged"))
    qtmodeltester.check(activity)
