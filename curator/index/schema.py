"""The index's SQL schema and the column lists every turn read shares."""

from __future__ import annotations

# 2: the full-text index keeps no copy of the text (external content: ``items_src``).
SCHEMA_VERSION = 2
# bm25 column weights: title, body, previous turn (context of a pair), context.md
BM25_WEIGHTS = (2.0, 1.0, 0.4, 0.2)

# An archived turn's text and context live in ``turn_archive`` (curator.index.archive); every
# read of a turn takes them from there, so callers never see the difference.
_OF = "(SELECT a.{0} FROM turn_archive a WHERE a.user_id = {1}.user_id AND a.number = {1}.number)"
ARCHIVED = _OF.replace("{1}", "turns")

# The full-text index holds no text of its own (FTS5 external content): ``items_src`` gives
# each item's columns as they were indexed, a turn's from ``turns`` (its ``prev`` from the
# turn ``prev_id`` names; an archived turn has no entry) and any other item's from
# ``item_text``. ``fts_text`` is the Python function every connection registers. A row's
# values there may only change after its index entry is deleted, since the delete reads
# them to find the tokens to remove.
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
    prev_id INTEGER,
    UNIQUE(user_id, number)
);
-- One index serves every question by file (its turns, an identity, a key's uses); the
-- hash and the status are checked on the few rows a file's key finds.
CREATE INDEX IF NOT EXISTS turns_identity ON turns(source_id, file, conversation, key);
CREATE INDEX IF NOT EXISTS turns_conversation ON turns(source_id, conversation, position);
CREATE INDEX IF NOT EXISTS turns_item ON turns(item_id);
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
CREATE TABLE IF NOT EXISTS item_text(
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    context TEXT NOT NULL
);
CREATE VIEW IF NOT EXISTS items_src(id, title, body, prev, context) AS
    SELECT t.item_id, '', fts_text(t.text),
        COALESCE((SELECT fts_text(COALESCE({prev_archived}, p.text)) FROM turns p WHERE p.id = t.prev_id), ''),
        fts_text(t.context)
    FROM turns t WHERE t.item_id IS NOT NULL AND {archived_number} IS NULL
    UNION ALL
    SELECT id, title, body, '', context FROM item_text;
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(
    title, body, prev, context, content = 'items_src', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
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
SCHEMA = (SCHEMA.replace("{archived_number}", _OF.format("number", "t"))
          .replace("{prev_archived}", _OF.format("text", "p")))

TURN_COLUMNS = (
    "number, user_id, source_id, file, conversation, key, position, role, speaker, "
    f"COALESCE({ARCHIVED.format('text')}, turns.text) AS text, "
    f"timestamp, sha256, status, COALESCE({ARCHIVED.format('context')}, turns.context) AS context, extra"
)

EXPECTED_TURN_COLUMNS = {
    "id", "user_id", "number", "source_id", "file", "conversation", "key", "position", "role", "speaker",
    "text", "timestamp", "sha256", "status", "status_reason", "supersedes", "context", "extra", "ingested_at",
    "item_id", "prev_id",
}
