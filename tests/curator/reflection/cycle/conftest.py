"""A demo vault with two approved facts and a scripted model that answers each cycle phase."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fakes.cycle import phase_answers
from fakes.scripted import ScriptedModel

from curator.clock import ManualClock
from curator.engine import Engine
from curator.reflection.service import ReflectionService
from curator.vault.documents import Document

DEMO = Path(__file__).resolve().parents[4] / "resources" / "demo"
NOW = datetime(2026, 11, 22, 3, 0, tzinfo=UTC).timestamp()


def add_fact(engine: Engine, title: str, body: str, **meta: Any) -> Document:
    doc = Document.new(doc_id=meta.pop("doc_id", None) or f"fact{abs(hash(title)) % 10**8:08d}", kind="fact",
                       title=title, body=body + "\n", confidence=0.8, approved_at="2026-11-21T10:00:00Z",
                       status="approved", **meta)
    path = engine.store.create(doc, "default", "knowledge", "Facts")
    engine.document_changed(path)
    return doc


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW)


@pytest.fixture
def engine(tmp_path: Path, clock: ManualClock) -> Iterator[Engine]:
    engine = Engine(tmp_path / "vault", clock=clock)
    engine.add_source(DEMO, adapter="jsonl", user_id="default")
    engine.scan_all()
    add_fact(engine, "Maya is allergic to peanuts", "Maya is allergic to peanuts.", pinned=True, doc_id="peanut0001")
    add_fact(engine, "Maya is vegetarian", "Maya is vegetarian.", doc_id="veggie0001")
    yield engine
    engine.close()


@pytest.fixture
def scripted() -> ScriptedModel:
    return ScriptedModel([phase_answers()] * 400, n_ctx=4096)


@pytest.fixture
def service(engine: Engine, scripted: ScriptedModel) -> Iterator[ReflectionService]:
    service = ReflectionService(engine.reflection_parts(), runtime=scripted, sleep=lambda _s: None)
    yield service
    service.close()
