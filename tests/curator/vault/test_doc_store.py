import os

import pytest

from curator.vault.documents import Document
from curator.vault.paths import UnsafePathError, VaultPaths, safe_child, slugify
from curator.vault.store import DocumentStore


@pytest.fixture()
def store(tmp_path):
    paths = VaultPaths(tmp_path / "vault")
    paths.user("default").ensure()
    return DocumentStore(paths)


def _doc(doc_id="abc123def456", title="Pixel the dog"):
    return Document.new(doc_id=doc_id, kind="fact", title=title, body="Maya has a border collie.")


def test_create_find_update_keeps_history(store):
    doc = _doc()
    path = store.create(doc, "default", "knowledge", "Facts")
    assert path.name == "pixel-the-dog--abc123def456.md"
    found = store.find("abc123def456")
    assert found is not None and found.body == "Maya has a border collie."
    found.body = "Maya has a border collie called Pixel."
    store.update(found)
    history = store.history("abc123def456", "default")
    assert len(history) == 1
    assert "Maya has a border collie." in history[0].path.read_text()


def test_trash_and_restore_are_byte_identical(store):
    doc = _doc()
    path = store.create(doc, "default", "knowledge", "Facts")
    original = path.read_bytes()
    entry = store.trash(doc, reason="wrong")
    assert not path.exists()
    assert store.list_trash("default")[0].reason == "wrong"
    restored = store.restore(entry)
    assert restored == path and path.read_bytes() == original
    assert store.list_trash("default") == []


def test_move_staging_to_knowledge(store):
    doc = _doc()
    store.create(doc, "default", "staging", "Facts")
    target = store.move(doc, "default", "knowledge", "Facts", action="approve")
    assert target.parent.name == "Facts" and target.parent.parent.name == "Knowledge"
    assert store.find("abc123def456", areas=("staging",)) is None


def test_model_output_cannot_choose_paths(store, tmp_path):
    with pytest.raises(UnsafePathError):
        store.new_path("default", "knowledge", "../../etc", "t", "abc123def456")
    with pytest.raises(UnsafePathError):
        safe_child(tmp_path, "../outside")
    with pytest.raises(UnsafePathError):
        safe_child(tmp_path, "/etc/passwd")
    with pytest.raises(UnsafePathError):
        store.paths.user("../x")
    os.symlink("/tmp", tmp_path / "link")
    with pytest.raises(UnsafePathError):
        safe_child(tmp_path, "link", "f.md")


@pytest.mark.parametrize("title", ["CON", "", "..", "🙂🙂", "x" * 300, "Été à Paris", "a/b\\c"])
def test_slugs_are_portable(title):
    slug = slugify(title)
    assert slug and len(slug.encode()) <= 60
    assert set(slug) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    assert slug.lower() not in {"con", "nul"}
