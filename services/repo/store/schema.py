"""The repository index's tables: the ordered migrations that create them, and the limits every
statement over them shares."""

from __future__ import annotations

from pathlib import Path

from kernel.store import Schema

_V1 = """
CREATE TABLE repo_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE repo_commits (
    sha TEXT PRIMARY KEY, author TEXT NOT NULL, committed_at INTEGER NOT NULL,
    subject TEXT NOT NULL, body TEXT NOT NULL, file_count INTEGER NOT NULL
);
CREATE INDEX repo_commits_time ON repo_commits(committed_at);
CREATE TABLE repo_touches (sha TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (path, sha)) WITHOUT ROWID;
CREATE INDEX repo_touches_sha ON repo_touches(sha);
CREATE TABLE repo_cochange (
    a TEXT NOT NULL, b TEXT NOT NULL, shared INTEGER NOT NULL, last_at INTEGER NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE repo_decisions USING fts5(subject, body, sha UNINDEXED, committed_at UNINDEXED);
CREATE TABLE repo_content (
    hash TEXT PRIMARY KEY, language TEXT NOT NULL, status TEXT NOT NULL,
    lines INTEGER NOT NULL, bytes INTEGER NOT NULL
);
CREATE TABLE repo_files (
    path TEXT PRIMARY KEY, hash TEXT, language TEXT, skip_reason TEXT, tracked INTEGER NOT NULL
);
CREATE INDEX repo_files_hash ON repo_files(hash);
CREATE TABLE repo_symbols (
    id INTEGER PRIMARY KEY AUTOINCREMENT, hash TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
    qualified TEXT NOT NULL, parent TEXT, signature TEXT NOT NULL, start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL, doc TEXT
);
CREATE INDEX repo_symbols_hash ON repo_symbols(hash, start_line);
CREATE INDEX repo_symbols_name ON repo_symbols(name);
CREATE TABLE repo_imports (
    hash TEXT NOT NULL, raw TEXT NOT NULL, names TEXT NOT NULL, line INTEGER NOT NULL
);
CREATE INDEX repo_imports_hash ON repo_imports(hash);
CREATE TABLE repo_refs (
    name TEXT NOT NULL, hash TEXT NOT NULL, line INTEGER NOT NULL, PRIMARY KEY (name, hash, line)
) WITHOUT ROWID;
CREATE INDEX repo_refs_hash ON repo_refs(hash);
CREATE TABLE repo_edges (
    src TEXT NOT NULL, dst TEXT NOT NULL, raw TEXT NOT NULL, names TEXT NOT NULL,
    PRIMARY KEY (src, dst, raw)
) WITHOUT ROWID;
CREATE INDEX repo_edges_dst ON repo_edges(dst);
CREATE VIRTUAL TABLE repo_symbol_fts USING fts5(
    terms, signature, doc, path_terms, path UNINDEXED, symbol_id UNINDEXED
);
CREATE TABLE repo_symbol_fts_rows (path TEXT NOT NULL, row INTEGER NOT NULL, PRIMARY KEY (path, row)) WITHOUT ROWID;
"""

# Version 2: references carry their kind and receiver, symbols their decorators, touches the
# kind of change, and renames and per-commit line counts have tables. Every fact is dropped, so
# the next run rebuilds both halves (an index is a cache of the repository, never the only copy).
_V2 = """
DROP TABLE repo_refs;
CREATE TABLE repo_refs (
    name TEXT NOT NULL, hash TEXT NOT NULL, line INTEGER NOT NULL, kind TEXT NOT NULL, receiver TEXT NOT NULL,
    PRIMARY KEY (name, hash, line, kind, receiver)
) WITHOUT ROWID;
CREATE INDEX repo_refs_hash ON repo_refs(hash);
ALTER TABLE repo_symbols ADD COLUMN decorators TEXT NOT NULL DEFAULT '';
ALTER TABLE repo_touches ADD COLUMN change TEXT NOT NULL DEFAULT 'M';
CREATE TABLE repo_renames (
    sha TEXT NOT NULL, old TEXT NOT NULL, new TEXT NOT NULL, PRIMARY KEY (old, sha)
) WITHOUT ROWID;
CREATE INDEX repo_renames_new ON repo_renames(new);
CREATE TABLE repo_churn (
    sha TEXT NOT NULL, path TEXT NOT NULL, added INTEGER NOT NULL, deleted INTEGER NOT NULL, PRIMARY KEY (path, sha)
) WITHOUT ROWID;
CREATE TABLE repo_churn_read (sha TEXT PRIMARY KEY) WITHOUT ROWID;
DELETE FROM repo_state;
DELETE FROM repo_commits;
DELETE FROM repo_touches;
DELETE FROM repo_cochange;
DELETE FROM repo_decisions;
DELETE FROM repo_content;
DELETE FROM repo_files;
DELETE FROM repo_symbols;
DELETE FROM repo_imports;
DELETE FROM repo_edges;
DELETE FROM repo_symbol_fts;
DELETE FROM repo_symbol_fts_rows;
"""

# Version 3: co-change answers count each partner's coupled commits (`partners`); with the
# commit's file count in an index beside its sha, each touch is one index probe instead of two
# (measured five times faster on a repository of 15,000 commits). No fact changes.
_V3 = """
CREATE INDEX repo_commits_coupled ON repo_commits(sha, file_count);
"""

REF_INDEXES = """
CREATE INDEX repo_refs_name ON repo_refs(name, kind, content, line, receiver);
CREATE INDEX repo_refs_content ON repo_refs(content);
"""

# Version 4: references point at their content by an integer id, not the 40-character blob id:
# the table and its indexes are a third of the size they were, and a cold index stores its
# references into a table without indexes, built once at the end (see `bulk_references`).
# The facts are carried over, so no index is rebuilt.
_V4 = (
    """
CREATE TABLE repo_content_new (
    id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, language TEXT NOT NULL, status TEXT NOT NULL,
    lines INTEGER NOT NULL, bytes INTEGER NOT NULL
);
INSERT INTO repo_content_new(id, hash, language, status, lines, bytes)
    SELECT rowid, hash, language, status, lines, bytes FROM repo_content ORDER BY rowid;
CREATE TABLE repo_refs_new (
    content INTEGER NOT NULL, name TEXT NOT NULL, line INTEGER NOT NULL, kind TEXT NOT NULL, receiver TEXT NOT NULL
);
INSERT INTO repo_refs_new(content, name, line, kind, receiver)
    SELECT c.id, r.name, r.line, r.kind, r.receiver FROM repo_refs r JOIN repo_content_new c ON c.hash = r.hash
    ORDER BY c.id, r.line, r.name, r.kind, r.receiver;
DROP TABLE repo_refs;
DROP TABLE repo_content;
ALTER TABLE repo_content_new RENAME TO repo_content;
ALTER TABLE repo_refs_new RENAME TO repo_refs;
"""
    + REF_INDEXES
)

# Version 5: a file skipped after a look records the blob id it was skipped at (`seen`), so a
# reindex that finds the same id skips it again without reading it. Old rows are read once more.
_V5 = """
ALTER TABLE repo_files ADD COLUMN seen TEXT;
"""

# Version 6: what each content hands its importers under another name (`export default X`,
# `export { A as B } from`, `from .x import A as B` in a package), keyed by content like the other
# facts. Filled as `parsing.FACTS_VERSION` 3 parses every content again.
_V6 = """
CREATE TABLE repo_exports (
    hash TEXT NOT NULL, name TEXT NOT NULL, original TEXT NOT NULL, raw TEXT NOT NULL, line INTEGER NOT NULL
);
CREATE INDEX repo_exports_hash ON repo_exports(hash, name);
"""

# Version 7: the type of each name a content's top level binds to a value of one known type
# (`const ky = createInstance()`: the function whose declared return type it is; `app = Flask()`),
# for an importer's `ky.create()`. Filled as `parsing.FACTS_VERSION` 10 parses every content again.
_V7 = """
CREATE TABLE repo_typed (hash TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, line INTEGER NOT NULL);
CREATE INDEX repo_typed_hash ON repo_typed(hash, name);
"""

SCHEMA = Schema("repo", (_V1, _V2, _V3, _V4, _V5, _V6, _V7))


def read_state(path: Path) -> dict[str, str]:
    """`repo_state` of the database file at `path`, read only and never created (for `doctor`);
    `{}` when there is no file or no index in it yet."""
    import apsw

    if not path.is_file():
        return {}
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_NOFOLLOW)
    try:
        conn.set_busy_timeout(5000)
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='repo_state'").get:
            return {}
        return dict(conn.execute("SELECT key, value FROM repo_state"))
    except apsw.Error:
        return {}  # a damaged file is the database check's to report
    finally:
        conn.close()


CHUNK = 500  # bound parameters per `IN (...)` query, well under SQLite's limit
REF_KINDS = ("attribute", "call", "decorator", "import", "inherits", "other", "type")
