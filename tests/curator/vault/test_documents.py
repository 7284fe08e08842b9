import pytest

from curator.vault.documents import Document, DocumentError


def test_new_document_has_all_core_and_provenance_fields():
    doc = Document.new(doc_id="abc123def456", kind="fact", title="Pixel", body="Maya has a dog.")
    for key in ("id", "primary_topic", "keywords", "user_purpose", "data_requirements",
                "content_types", "scope", "quality", "created_at", "expires_at",
                "source_turns", "source_file", "source_hash", "confidence"):
        assert key in doc.meta


def test_round_trip_keeps_unknown_keys_dates_and_body(tmp_path):
    text = (
        "---\n"
        "id: abc123def456\n"
        "title: Trip\n"
        "created_at: 2026-11-20T18:05:00Z\n"
        "custom_thing:\n  nested: [1, 2]\n"
        "when: 2024-01-01\n"
        "---\n"
        "# Heading\n\nBody line with --- inside.\n"
    )
    path = tmp_path / "doc.md"
    path.write_text(text)
    doc = Document.load(path)
    assert doc.meta["created_at"] == "2026-11-20T18:05:00Z"
    assert doc.meta["when"] == "2024-01-01"
    assert doc.meta["custom_thing"] == {"nested": [1, 2]}
    doc.save()
    again = Document.load(path)
    assert again.meta == doc.meta
    assert again.body == doc.body == "# Heading\n\nBody line with --- inside."


def test_injected_title_stays_a_scalar(tmp_path):
    doc = Document.new(doc_id="abc123def456", kind="fact", title="x\n---\ninjected: true", body="b")
    doc.save(tmp_path / "d.md")
    again = Document.load(tmp_path / "d.md")
    assert "injected" not in again.meta
    assert again.title == "x\n---\ninjected: true"


def test_bad_frontmatter_and_encoding_raise_clear_errors(tmp_path):
    bad = tmp_path / "bad.md"
    bad.write_text("---\nkey: [unclosed\n---\nbody\n")
    with pytest.raises(DocumentError, match="not valid YAML"):
        Document.load(bad)
    binary = tmp_path / "bin.md"
    binary.write_bytes(b"---\nid: x\n---\n\xff\xfe")
    with pytest.raises(DocumentError, match="UTF-8"):
        Document.load(binary)


def test_content_hash_changes_with_body():
    doc = Document.new(doc_id="abc123def456", kind="fact", title="t", body="one")
    before = doc.content_hash()
    doc.body = "two"
    assert doc.content_hash() != before
