"""Fixtures for the reflection tests (fakes live in ``fakes.reflection``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.reflection import USER, FakeTurns

from curator.clock import ManualClock
from curator.reflection.knowledge import VaultKnowledgeIndex
from curator.vault.paths import VaultPaths
from curator.vault.settings import Settings
from curator.vault.store import DocumentStore


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
