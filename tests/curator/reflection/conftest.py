"""Fixtures for the reflection tests (fakes live in ``refl_fakes``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from refl_fakes import USER, FakeTurns

from curator.clock import ManualClock
from curator.doc_store import DocumentStore
from curator.reflection.knowledge import VaultKnowledgeIndex
from curator.settings import Settings
from curator.vault_paths import VaultPaths


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def vault(tmp_path: Path) -> VaultPaths:
    paths = VaultPaths(tmp_path / "vault")
    paths.user(USER).ensure()
    return paths


@pytest.fixture
def store(vault: VaultPaths, clock: ManualClock) -> DocumentStore:
    return DocumentStore(vault, clock)


@pytest.fixture
def knowledge(store: DocumentStore) -> VaultKnowledgeIndex:
    return VaultKnowledgeIndex(store)


@pytest.fixture
def settings() -> Settings:
    return Settings()


@pytest.fixture
def turns() -> FakeTurns:
    return FakeTurns()
