"""The index's SQL schema and the column lists every turn read shares."""

from __future__ import annotations

# 2: the full-text index keeps no copy of the text (external content: ``items_src``).
# 3: a turn names its file and conversation by number (``turn_rows``; ``turns`` is a view).
# 4: a turn's full-text entry and search row (``turn_items``) share the turn row's id; other
#    items number from ``ITEM_IDS_FROM``; the full-text columns start with the body.
SCHEMA_VERSION = 4
# bm25 column weights: body, previous turn (context of a pair), title, context.md. The body
# comes first: FTS5 marks every entry of any other column with its column number, and the
# body holds most entries (with the title first, the postings were a quarter larger).
BM25_WEIGHTS = (1.0, 0.4, 2.0, 0.2)

# An archived turn's text and context live in ``turn_archive`` (curator.index.archive); every
# read of a turn takes them from there, so callers never see the difference.
_OF = "(SELECT a.{0} FROM turn_archive a WHERE a.user_id = {1}.user_id AND a.number = {1}.number)"
ARCHIVED = _OF.replace("{1}", "turns")
ARCHIVED_ROW = _OF.replace("{1}", "turn_rows")

# The full-text index holds no text of its own (FTS5 external content): ``items_src`` gives
# each item's columns as they were indexed, a turn's from ``turns`` (its ``prev`` from the
# turn ``prev_id`` names; an archived turn has no entry) and any other item's from
# ``item_text``. ``fts_text`` is the Python function every connection registers. A row's
# values there may only change after its index entry is deleted, since the delete reads
# them to find the tokens to remove.
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- Where a turn came from, each named once: a turn row holds two small numbers where it
-- held the source id, the file path and the conversation id (most of its bytes beside the
-- text, and most of every index over it).
CREATE TABLE IF NOT EXISTS turn_files(
    id INTEGER PRIMARY KEY,
    source_id TEXT NOT NULL,
    file TEXT NOT NULL,
    UNIQUE(source_id, file)
);
CREATE TABLE IF NOT EXISTS conversations(
    id INTEGER PRIMARY KEY,
    source_id TEXT NOT NULL,
    conversation TEXT NOT NULL,
    UNIQUE(source_id, conversation)
);
-- A turn's SHA-256 is the hash of its text, computed when a turn is read (rows.turn_from_row);
-- ``sha256`` holds only a digest that is not, and is NULL otherwise.
CREATE TABLE IF NOT EXISTS turn_rows(
    id INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL,
    number INTEGER NOT NULL,
    file_id INTEGER NOT NULL,
    conversation_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    position INTEGER NOT NULL,
    role TEXT NOT NULL,
    speaker TEXT NOT NULL,
    text TEXT NOT NULL,
    timestamp REAL NOT NULL,
    sha256 TEXT,
    status TEXT NOT NULL DEFAULT 'active',
    status_reason TEXT NOT NULL DEFAULT '',
    supersedes INTEGER,
    context TEXT NOT NULL DEFAULT '',
    extra TEXT NOT NULL DEFAULT '{}',
    ingested_at REAL NOT NULL,
    prev_id INTEGER,
    UNIQUE(user_id, number)
);
-- One index serves every question by file (its turns, an identity, a key's uses); the
-- hash and the status are checked on the few rows a file's key finds.
CREATE INDEX IF NOT EXISTS turns_identity ON turn_rows(file_id, conversation_id, key);
CREATE INDEX IF NOT EXISTS turns_conversation ON turn_rows(conversation_id, position);
-- Every read of a turn goes through this view, which names its provenance again.
CREATE VIEW IF NOT EXISTS turns AS
    SELECT r.id, r.user_id, r.number, c.source_id, f.file, c.conversation, r.key, r.position, r.role,
        r.speaker, r.text, r.timestamp,
        r.sha256,
        r.status, r.status_reason, r.supersedes, r.context, r.extra, r.ingested_at, r.prev_id,
        r.file_id, r.conversation_id
    FROM turn_rows r JOIN turn_files f ON f.id = r.file_id JOIN conversations c ON c.id = r.conversation_id;
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
-- What a search narrows a turn by, kept beside the turn row under its id (also its full-text
-- rowid): a row a seventh the size of the turn's, so ranking thousands of matches reads few
-- pages. Its kind and content types follow from the role (``TURN_ITEMS``).
CREATE TABLE IF NOT EXISTS turn_items(
    id INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL,
    role TEXT NOT NULL,
    topic TEXT NOT NULL,
    quality REAL,
    ts REAL NOT NULL,
    searchable INTEGER NOT NULL
);
-- Every other item (a document, an archive day), numbered from ``ITEM_IDS_FROM`` so that no
-- id is ever a turn's; ``ref`` names it.
CREATE TABLE IF NOT EXISTS items(
    id INTEGER PRIMARY KEY,
    item_type TEXT NOT NULL,
    ref TEXT,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    content_types TEXT NOT NULL,
    topic TEXT NOT NULL,
    scope TEXT,
    quality REAL,
    ts REAL,
    searchable INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS items_ref ON items(ref) WHERE ref IS NOT NULL;
CREATE TABLE IF NOT EXISTS item_text(
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    context TEXT NOT NULL
);
CREATE VIEW IF NOT EXISTS items_src(id, title, body, prev, context) AS
    SELECT t.id, '', fts_text(t.text),
        COALESCE((SELECT fts_text(COALESCE({prev_archived}, p.text)) FROM turn_rows p WHERE p.id = t.prev_id), ''),
        fts_text(t.context)
    FROM turn_rows t WHERE {archived_number} IS NULL
    UNION ALL
    SELECT id, title, body, '', context FROM item_text;
-- Both kinds of item together, for reads that name a few ids (never joined in a search).
CREATE VIEW IF NOT EXISTS all_items AS
    SELECT {item_columns} FROM items UNION ALL {turn_items};
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(
    body, prev, title, context, content = 'items_src', content_rowid = 'id',
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

# The first id of an item that is not a turn: turn ids (SQLite rowids, counted from 1) never
# reach it, and a search ranks the two kinds in two arms split at it (curator.index.topk).
ITEM_IDS_FROM = 1 << 40
# The id of a new item that is not a turn (the value of an INSERT INTO items).
NEXT_ITEM_ID = f"(SELECT max(COALESCE(max(id) + 1, 0), {ITEM_IDS_FROM}) FROM items)"

# A turn as a search item, with the columns of ``items``: a subquery SQLite flattens into a
# join (a UNION ALL view of both kinds would be materialised whole in every search).
TURN_ITEMS = (
    "(SELECT id, 'turn' AS item_type, NULL AS ref, user_id, 'turn' AS kind, "
    "',context,' || role || ',' AS content_types, topic, NULL AS scope, quality, ts, searchable FROM turn_items)"
)
ITEM_COLUMNS = "id, item_type, ref, user_id, kind, content_types, topic, scope, quality, ts, searchable"

SCHEMA = (SCHEMA.replace("{archived_number}", _OF.format("number", "t"))
          .replace("{prev_archived}", _OF.format("text", "p"))
          .replace("{turn_items}", TURN_ITEMS[1:-1]).replace("{item_columns}", ITEM_COLUMNS))

TURN_COLUMNS = (
    "number, user_id, source_id, file, conversation, key, position, role, speaker, "
    f"COALESCE({ARCHIVED.format('text')}, turns.text) AS text, "
    f"timestamp, sha256, status, COALESCE({ARCHIVED.format('context')}, turns.context) AS context, extra"
)

EXPECTED_TURN_COLUMNS = {
    "id", "user_id", "number", "source_id", "file", "conversation", "key", "position", "role", "speaker",
    "text", "timestamp", "sha256", "status", "status_reason", "supersedes", "context", "extra", "ingested_at",
    "prev_id", "file_id", "conversation_id",
}

# A turn of the view holds the content whose hash and text are the two parameters: a row keeps
# a hash only when it is not its text's (schema.turn_rows), so the text is compared instead.
SAME_CONTENT = f"(turns.sha256 = ? OR (turns.sha256 IS NULL AND COALESCE({ARCHIVED.format('text')}, turns.text) = ?))"

# The numbers a turn row names its file and its conversation by (NULL when never seen).
FILE_ID = "(SELECT id FROM turn_files WHERE source_id = ? AND file = ?)"
CONVERSATION_ID = "(SELECT id FROM conversations WHERE source_id = ? AND conversation = ?)"
