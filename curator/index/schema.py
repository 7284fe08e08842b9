"""The index's SQL schema and the column lists every turn read shares."""

from __future__ import annotations

SCHEMA_VERSION = 1
# bm25 column weights: title, body, previous turn (context of a pair), context.md
BM25_WEIGHTS = (2.0, 1.0, 0.4, 0.2)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS turns(
    id INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL,
    number INTEGER NOT NULL,
    source_id TEXT NOT NULL,
    file TEXT NOT NULL,
    conversation TEXT NOT NULL,
    key TEXT NOT NULL,
    position INTEGER NOT NULL,
    role TEXT NOT NULL,
    speaker TEXT NOT NULL,
    text TEXT NOT NULL,
    timestamp REAL NOT NULL,
    sha256 TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active',
    status_reason TEXT NOT NULL DEFAULT '',
    supersedes INTEGER,
    context TEXT NOT NULL DEFAULT '',
    extra TEXT NOT NULL DEFAULT '{}',
    ingested_at REAL NOT NULL,
    item_id INTEGER,
    UNIQUE(user_id, number)
);
CREATE INDEX IF NOT EXISTS turns_file ON turns(source_id, file, status);
CREATE INDEX IF NOT EXISTS turns_identity ON turns(source_id, file, conversation, key, sha256);
CREATE INDEX IF NOT EXISTS turns_conversation ON turns(source_id, conversation, position);
CREATE TABLE IF NOT EXISTS documents(
    path TEXT PRIMARY KEY,
    id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    area TEXT NOT NULL,
    title TEXT NOT NULL,
    topic TEXT NOT NULL,
    keywords TEXT NOT NULL,
    scope TEXT NOT NULL,
    quality REAL,
    content_types TEXT NOT NULL,
    created_at TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    source_turns TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    item_id INTEGER
);
CREATE INDEX IF NOT EXISTS documents_id ON documents(id);
CREATE TABLE IF NOT EXISTS items(
    id INTEGER PRIMARY KEY,
    item_type TEXT NOT NULL,
    ref TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    content_types TEXT NOT NULL,
    topic TEXT NOT NULL,
    scope TEXT,
    quality REAL,
    ts REAL,
    searchable INTEGER NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(
    title, body, prev, context, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS read_state(
    source_id TEXT NOT NULL,
    unit TEXT NOT NULL,
    state TEXT NOT NULL,
    problem TEXT NOT NULL DEFAULT '',
    PRIMARY KEY(source_id, unit)
);
CREATE TABLE IF NOT EXISTS turn_archive(
    user_id TEXT NOT NULL,
    number INTEGER NOT NULL,
    text TEXT NOT NULL,
    context TEXT NOT NULL,
    PRIMARY KEY(user_id, number)
);
CREATE VIRTUAL TABLE IF NOT EXISTS archive_fts USING fts5(
    text, user_id UNINDEXED, number UNINDEXED, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS source_health(
    source_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    detail TEXT NOT NULL,
    updated_at REAL NOT NULL
);
"""

# An archived turn's text and context live in ``turn_archive`` (curator.index.archive); every
# read of a turn takes them from there, so callers never see the difference.
ARCHIVED = "(SELECT a.{0} FROM turn_archive a WHERE a.user_id = turns.user_id AND a.number = turns.number)"
TURN_COLUMNS = (
    "number, user_id, source_id, file, conversation, key, position, role, speaker, "
    f"COALESCE({ARCHIVED.format('text')}, turns.text) AS text, "
    f"timestamp, sha256, status, COALESCE({ARCHIVED.format('context')}, turns.context) AS context, extra"
)

EXPECTED_TURN_COLUMNS = {
    "id", "user_id", "number", "source_id", "file", "conversation", "key", "position", "role", "speaker",
    "text", "timestamp", "sha256", "status", "status_reason", "supersedes", "context", "extra", "ingested_at",
    "item_id",
}
