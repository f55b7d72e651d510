"""The knowledge base's tables and every SQL statement that reads or writes them.

Documents (one per module, plus incidents and decisions) with their claims, citations and the
blob each citation was checked against; dropped and refuted claims with the reason; replaced
documents in `knowledge_revisions`; per-file and per-symbol rows that let `context` point at
files; authored decisions, which no rebuild touches. Nothing outside this module names these tables.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from kernel.redaction import redact_text, redact_value
from kernel.store import Database, Schema
from services.knowledge.rows import (
    AttemptRow,
    CitationRow,
    ClaimRow,
    DecisionRow,
    DocFields,
    DocHit,
    DocRow,
    DroppedRow,
    FileEntry,
    FileHit,
    FileStat,
    NewClaim,
    Revision,
    SymbolEntry,
    UpkeepRow,
)

__all__ = ["FILES_STAMP", "GLOBAL_SCHEMA", "SCHEMA", "KnowledgeStore", "LedgerStore"]

_V1 = """
CREATE TABLE knowledge_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE knowledge_docs (
    slug TEXT PRIMARY KEY, kind TEXT NOT NULL, title TEXT NOT NULL, module_path TEXT,
    data TEXT NOT NULL, markdown TEXT NOT NULL, built_commit TEXT, built_at TEXT NOT NULL,
    verified INTEGER NOT NULL, unverified_reason TEXT
);
CREATE TABLE knowledge_claims (
    id INTEGER PRIMARY KEY AUTOINCREMENT, slug TEXT NOT NULL REFERENCES knowledge_docs(slug) ON DELETE CASCADE,
    section TEXT NOT NULL, text TEXT NOT NULL, audit TEXT NOT NULL, audit_reason TEXT, checked_at TEXT NOT NULL
);
CREATE INDEX knowledge_claims_slug ON knowledge_claims(slug);
CREATE TABLE knowledge_citations (
    claim_id INTEGER NOT NULL REFERENCES knowledge_claims(id) ON DELETE CASCADE,
    path TEXT NOT NULL, symbol TEXT, start_line INTEGER, end_line INTEGER, blob TEXT NOT NULL
);
CREATE INDEX knowledge_citations_claim ON knowledge_citations(claim_id);
CREATE TABLE knowledge_dropped (
    id INTEGER PRIMARY KEY AUTOINCREMENT, slug TEXT NOT NULL, text TEXT NOT NULL, outcome TEXT NOT NULL,
    reason TEXT NOT NULL, at TEXT NOT NULL
);
CREATE INDEX knowledge_dropped_slug ON knowledge_dropped(slug);
CREATE TABLE knowledge_revisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT, slug TEXT NOT NULL, markdown TEXT NOT NULL, data TEXT NOT NULL,
    built_commit TEXT, replaced_at TEXT NOT NULL
);
CREATE VIRTUAL TABLE knowledge_fts USING fts5(title, terms, body, slug UNINDEXED);
CREATE TABLE knowledge_files (
    path TEXT PRIMARY KEY, slug TEXT NOT NULL, blob TEXT, language TEXT, test INTEGER NOT NULL,
    tests TEXT NOT NULL
);
CREATE INDEX knowledge_files_slug ON knowledge_files(slug);
CREATE VIRTUAL TABLE knowledge_file_fts USING fts5(path_terms, names, doc, path UNINDEXED);
CREATE TABLE knowledge_symbols (
    name TEXT NOT NULL, lowered TEXT NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL, qualified TEXT NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, refs INTEGER NOT NULL
);
CREATE INDEX knowledge_symbols_lowered ON knowledge_symbols(lowered);
CREATE INDEX knowledge_symbols_path ON knowledge_symbols(path);
CREATE TABLE knowledge_decisions (
    slug TEXT PRIMARY KEY, title TEXT NOT NULL, text TEXT NOT NULL, file TEXT NOT NULL, source TEXT NOT NULL,
    supersedes TEXT, superseded_by TEXT, created_at TEXT NOT NULL
);
CREATE VIRTUAL TABLE knowledge_decision_fts USING fts5(title, text, source, slug UNINDEXED);
"""

# Version 2: each described file's own suggested checks (the repo service's fast tier for it alone),
# how many files import it, and how many files outside its module import that module (what
# `context` weighs a word match by: the code the repository leans on, not a fixture repeating words),
# and each file's time and size at the build, so a read hashes only the files whose stat moved.
_V2 = """
ALTER TABLE knowledge_files ADD COLUMN checks TEXT NOT NULL DEFAULT '[]';
ALTER TABLE knowledge_files ADD COLUMN importers INTEGER NOT NULL DEFAULT 0;
ALTER TABLE knowledge_files ADD COLUMN reach INTEGER NOT NULL DEFAULT 0;
ALTER TABLE knowledge_files ADD COLUMN mtime_ns INTEGER;
ALTER TABLE knowledge_files ADD COLUMN size INTEGER;
"""

# Version 3: a stamp in `knowledge_state` that any write to `knowledge_files` replaces with a random
# value, from any code and any process: a reader keeps what it read of the files under the stamp it
# saw, and one look at the stamp tells it whether that is still what the table holds.
FILES_STAMP = "files_stamp"
_V3 = """
INSERT INTO knowledge_state(key, value) VALUES ('files_stamp', lower(hex(randomblob(8))))
    ON CONFLICT(key) DO UPDATE SET value = excluded.value;
CREATE TRIGGER knowledge_files_stamp_insert AFTER INSERT ON knowledge_files BEGIN
    UPDATE knowledge_state SET value = lower(hex(randomblob(8))) WHERE key = 'files_stamp';
END;
CREATE TRIGGER knowledge_files_stamp_update AFTER UPDATE ON knowledge_files BEGIN
    UPDATE knowledge_state SET value = lower(hex(randomblob(8))) WHERE key = 'files_stamp';
END;
CREATE TRIGGER knowledge_files_stamp_delete AFTER DELETE ON knowledge_files BEGIN
    UPDATE knowledge_state SET value = lower(hex(randomblob(8))) WHERE key = 'files_stamp';
END;
"""

# Version 4: each document's words by field, so a query can weigh them apart: a plain word
# (`config`) means what the module is called and says of itself (title, file names, purpose),
# not a method of that name on its surface; a name (`resolveConfig`) means the surface. Porter
# stemming, so `plugin` finds `plugins/`. `standing` multiplies a document's score: how much the
# repository leans on the module, less for examples and fixtures. Filled from the stored documents
# until the next build.
_V4 = """
DROP TABLE knowledge_fts;
CREATE VIRTUAL TABLE knowledge_fts USING fts5(
    title, path, purpose, symbols, body, slug UNINDEXED, standing UNINDEXED, tokenize = 'porter unicode61'
);
INSERT INTO knowledge_fts(title, path, purpose, symbols, body, slug, standing)
    SELECT title, '', coalesce(json_extract(data, '$.purpose'), ''), '', markdown, slug, 1.0 FROM knowledge_docs;
"""

SCHEMA = Schema("knowledge", (_V1, _V2, _V3, _V4))
# bm25 weights of knowledge_fts' columns, in order: title, path, purpose, symbols, body.
_DOC_WEIGHTS = "10.0, 3.0, 3.0, 4.0, 1.0"

# In $PALLIUM_HOME/pallium.sqlite: one ledger of model attempts for every repository, and each
# repository's upkeep settings, so the limits hold across repositories and processes.
_GLOBAL_V1 = """
CREATE TABLE knowledge_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT, repo TEXT NOT NULL, purpose TEXT NOT NULL, started_at REAL NOT NULL,
    ended_at REAL, outcome TEXT, error_class TEXT, cost_usd REAL
);
CREATE INDEX knowledge_attempts_started ON knowledge_attempts(started_at);
CREATE TABLE knowledge_upkeep (
    repo TEXT PRIMARY KEY, enabled INTEGER NOT NULL, paused INTEGER NOT NULL, pause_reason TEXT,
    updated_at TEXT NOT NULL
);
"""
GLOBAL_SCHEMA = Schema("knowledge_global", (_GLOBAL_V1,))


class LedgerStore:
    """The global ledger of real model attempts, and per-repository upkeep state."""

    DATABASE = "global"
    SCHEMAS: tuple[Schema, ...] = (GLOBAL_SCHEMA,)

    def __init__(self, db: Database) -> None:
        self.db = db

    def reserve(
        self, *, repo: str, purpose: str, now: float, window: float, limit: int, active_limit: int, stale_after: float
    ) -> tuple[int | None, str | None]:
        """Record an attempt about to start, or say why not (`limit` or `busy`), in one locked transaction."""
        with self.db.transaction():
            used = (
                self.db.execute("SELECT count(*) FROM knowledge_attempts WHERE started_at > ?", (now - window,)).get
                or 0
            )
            if used >= limit:
                return None, "limit"
            active = (
                self.db.execute(
                    "SELECT count(*) FROM knowledge_attempts WHERE ended_at IS NULL AND started_at > ?",
                    (now - stale_after,),
                ).get
                or 0
            )
            if active >= active_limit:
                return None, "busy"
            self.db.execute(
                "INSERT INTO knowledge_attempts(repo, purpose, started_at) VALUES (?, ?, ?)", (repo, purpose, now)
            )
            return self.db.conn.last_insert_rowid(), None

    def finish(
        self, attempt_id: int, *, now: float, outcome: str, error_class: str | None, cost_usd: float | None
    ) -> None:
        self.db.execute(
            "UPDATE knowledge_attempts SET ended_at = ?, outcome = ?, error_class = ?, cost_usd = ? WHERE id = ?",
            (now, outcome, error_class, cost_usd, attempt_id),
        )

    def attempts_since(self, since: float) -> list[AttemptRow]:
        rows = self.db.execute(
            "SELECT id, repo, purpose, started_at, ended_at, outcome, error_class FROM knowledge_attempts "
            "WHERE started_at > ? ORDER BY started_at, id",
            (since,),
        )
        return [AttemptRow(*r) for r in rows]

    def upkeep(self, repo: str) -> UpkeepRow | None:
        r = self.db.execute(
            "SELECT repo, enabled, paused, pause_reason, updated_at FROM knowledge_upkeep WHERE repo = ?", (repo,)
        ).fetchone()
        return UpkeepRow(r[0], bool(r[1]), bool(r[2]), r[3], r[4]) if r else None

    def upkeeps(self) -> list[UpkeepRow]:
        rows = self.db.execute("SELECT repo, enabled, paused, pause_reason, updated_at FROM knowledge_upkeep")
        return [UpkeepRow(r[0], bool(r[1]), bool(r[2]), r[3], r[4]) for r in rows]

    def set_upkeep(self, repo: str, *, enabled: bool, paused: bool, reason: str | None, now: str) -> None:
        self.db.execute(
            "INSERT INTO knowledge_upkeep(repo, enabled, paused, pause_reason, updated_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(repo) DO UPDATE SET enabled = excluded.enabled, paused = excluded.paused, "
            "pause_reason = excluded.pause_reason, updated_at = excluded.updated_at",
            (repo, int(enabled), int(paused), reason, now),
        )


class KnowledgeStore:
    """Typed access to the knowledge tables over one open `Database`."""

    DATABASE = "repo"
    SCHEMAS: tuple[Schema, ...] = (SCHEMA,)

    def __init__(self, db: Database) -> None:
        self.db = db

    # state -------------------------------------------------------------------------------------------

    def state(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, value FROM knowledge_state"))

    def set_state(self, values: dict[str, str]) -> None:
        self.db.executemany(
            "INSERT INTO knowledge_state(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            list(values.items()),
        )

    # documents ---------------------------------------------------------------------------------------

    def doc(self, slug: str) -> DocRow | None:
        r = self.db.execute(
            "SELECT slug, kind, title, module_path, data, markdown, built_commit, built_at, verified, "
            "unverified_reason FROM knowledge_docs WHERE slug = ?",
            (slug,),
        ).fetchone()
        return _doc(r) if r else None

    def docs(self, *, kind: str | None = None) -> list[DocRow]:
        sql = (
            "SELECT slug, kind, title, module_path, data, markdown, built_commit, built_at, verified, "
            "unverified_reason FROM knowledge_docs"
        )
        rows = self.db.execute(sql + (" WHERE kind = ?" if kind else "") + " ORDER BY slug", (kind,) if kind else ())
        return [_doc(r) for r in rows]

    def slugs(self) -> list[str]:
        return [s for (s,) in self.db.execute("SELECT slug FROM knowledge_docs ORDER BY slug")]

    def put_doc(self, doc: DocRow, *, fields: DocFields, now: str) -> bool:
        """Store `doc`, keeping the one it replaces in `knowledge_revisions`; False when nothing changed.

        Its search row is written either way, so a change in how fields are drawn reaches every document.
        Likely secrets the repository commits are replaced before anything is stored.
        """
        doc = replace(doc, title=redact_text(doc.title), markdown=redact_text(doc.markdown), data=_redact(doc.data))
        fields = replace(fields, purpose=redact_text(fields.purpose), symbols=redact_text(fields.symbols))
        old = self.doc(doc.slug)
        self.db.execute("DELETE FROM knowledge_fts WHERE slug = ?", (doc.slug,))
        self.db.execute(
            "INSERT INTO knowledge_fts(title, path, purpose, symbols, body, slug, standing) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (fields.title, fields.path, fields.purpose, fields.symbols, doc.markdown, doc.slug, fields.standing),
        )
        if old is not None and old.markdown == doc.markdown and old.data == doc.data:
            return False
        if old is not None:
            self.db.execute(
                "INSERT INTO knowledge_revisions(slug, markdown, data, built_commit, replaced_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (old.slug, old.markdown, json.dumps(old.data, sort_keys=True), old.built_commit, now),
            )
        self.db.execute(
            "INSERT INTO knowledge_docs(slug, kind, title, module_path, data, markdown, built_commit, built_at, "
            "verified, unverified_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(slug) DO UPDATE SET "
            "kind=excluded.kind, title=excluded.title, module_path=excluded.module_path, data=excluded.data, "
            "markdown=excluded.markdown, built_commit=excluded.built_commit, built_at=excluded.built_at, "
            "verified=excluded.verified, unverified_reason=excluded.unverified_reason",
            (
                doc.slug,
                doc.kind,
                doc.title,
                doc.module_path,
                json.dumps(doc.data, sort_keys=True),
                doc.markdown,
                doc.built_commit,
                doc.built_at,
                int(doc.verified),
                doc.unverified_reason,
            ),
        )
        return True

    def delete_docs(self, slugs: Sequence[str], *, now: str) -> None:
        for slug in slugs:
            old = self.doc(slug)
            if old is None:
                continue
            self.db.execute(
                "INSERT INTO knowledge_revisions(slug, markdown, data, built_commit, replaced_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (old.slug, old.markdown, json.dumps(old.data, sort_keys=True), old.built_commit, now),
            )
            self.db.execute("DELETE FROM knowledge_docs WHERE slug = ?", (slug,))
            self.db.execute("DELETE FROM knowledge_fts WHERE slug = ?", (slug,))

    def revisions(self, slug: str) -> list[Revision]:
        """Each replaced version of `slug`, oldest first."""
        rows = self.db.execute(
            "SELECT replaced_at, built_commit FROM knowledge_revisions WHERE slug = ? ORDER BY id", (slug,)
        )
        return [Revision(*r) for r in rows]

    def search_docs(self, match: str, *, limit: int) -> list[DocHit]:
        """Documents matching `match`, best first: BM25 (lower is better in FTS5) times each one's standing."""
        rows = self.db.execute(
            f"SELECT slug, bm25(knowledge_fts, {_DOC_WEIGHTS}) * standing AS score FROM knowledge_fts "
            "WHERE knowledge_fts MATCH ? ORDER BY score, slug LIMIT ?",
            (match, limit),
        )
        return [DocHit(*r) for r in rows]

    def snippets(self, slugs: Sequence[str], match: str) -> dict[str, str]:
        """The body text around `match` in each of `slugs`, in one full-text query."""
        if not slugs:
            return {}
        rows = self.db.execute(
            "SELECT slug, snippet(knowledge_fts, 4, '', '', ' ... ', 24) FROM knowledge_fts "
            f"WHERE knowledge_fts MATCH ? AND slug IN ({','.join('?' * len(slugs))})",
            (match, *slugs),
        )
        return {slug: text for slug, text in rows if text}

    # claims ------------------------------------------------------------------------------------------

    def replace_claims(self, slug: str, claims: Sequence[NewClaim], *, now: str) -> None:
        self.db.execute("DELETE FROM knowledge_claims WHERE slug = ?", (slug,))
        for claim in claims:
            self.db.execute(
                "INSERT INTO knowledge_claims(slug, section, text, audit, checked_at) VALUES (?, ?, ?, 'unaudited', ?)",
                (slug, claim.section, redact_text(claim.text), now),
            )
            claim_id = self.db.conn.last_insert_rowid()
            self.db.executemany(
                "INSERT INTO knowledge_citations(claim_id, path, symbol, start_line, end_line, blob) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(claim_id, c.path, c.symbol, c.start_line, c.end_line, c.blob) for c in claim.citations],
            )

    def claims(self, slug: str | None = None) -> list[ClaimRow]:
        rows = self.db.execute(
            "SELECT id, slug, section, text, audit, audit_reason, checked_at FROM knowledge_claims"
            + (" WHERE slug = ?" if slug else "")
            + " ORDER BY slug, id",
            (slug,) if slug else (),
        ).fetchall()
        cites: dict[int, list[CitationRow]] = {}
        ids = [r[0] for r in rows]
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            for claim_id, *rest in self.db.execute(
                "SELECT claim_id, path, symbol, start_line, end_line, blob FROM knowledge_citations "
                f"WHERE claim_id IN ({','.join('?' * len(chunk))}) ORDER BY rowid",
                chunk,
            ):
                cites.setdefault(claim_id, []).append(CitationRow(*rest))
        return [ClaimRow(*r, citations=tuple(cites.get(r[0], ()))) for r in rows]

    def set_audit(self, claim_id: int, audit: str, reason: str | None) -> None:
        self.db.execute(
            "UPDATE knowledge_claims SET audit = ?, audit_reason = ? WHERE id = ?", (audit, reason, claim_id)
        )

    def remove_claim(self, claim_id: int) -> None:
        self.db.execute("DELETE FROM knowledge_claims WHERE id = ?", (claim_id,))

    def add_dropped(self, rows: Sequence[DroppedRow]) -> None:
        self.db.executemany(
            "INSERT INTO knowledge_dropped(slug, text, outcome, reason, at) VALUES (?, ?, ?, ?, ?)",
            [(r.slug, redact_text(r.text), r.outcome, r.reason, r.at) for r in rows],
        )

    def dropped(self, slug: str) -> list[DroppedRow]:
        rows = self.db.execute(
            "SELECT slug, text, outcome, reason, at FROM knowledge_dropped WHERE slug = ? ORDER BY id", (slug,)
        )
        return [DroppedRow(*r) for r in rows]

    def clear_dropped(self, slug: str, outcome: str) -> None:
        self.db.execute("DELETE FROM knowledge_dropped WHERE slug = ? AND outcome = ?", (slug, outcome))

    # files and symbols -------------------------------------------------------------------------------

    def replace_files(self, files: Sequence[FileEntry], symbols: Sequence[SymbolEntry]) -> None:
        self.db.execute("DELETE FROM knowledge_files")
        self.db.execute("DELETE FROM knowledge_file_fts")
        self.db.execute("DELETE FROM knowledge_symbols")
        self.db.executemany(
            "INSERT INTO knowledge_files(path, slug, blob, language, test, tests, checks, importers, reach, "
            "mtime_ns, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    f.path,
                    f.slug,
                    f.blob,
                    f.language,
                    int(f.test),
                    json.dumps(list(f.tests)),
                    json.dumps(list(f.checks)),
                    f.importers,
                    f.reach,
                    f.mtime_ns,
                    f.size,
                )
                for f in files
            ],
        )
        self.db.executemany(
            "INSERT INTO knowledge_file_fts(path_terms, names, doc, path) VALUES (?, ?, ?, ?)",
            [(f.path_terms, f.names, redact_text(f.doc), f.path) for f in files],
        )
        self.db.executemany(
            "INSERT INTO knowledge_symbols(name, lowered, path, kind, qualified, start_line, end_line, refs) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(s.name, s.name.lower(), s.path, s.kind, s.qualified, s.start_line, s.end_line, s.refs) for s in symbols],
        )

    def search_files(self, match: str, *, limit: int) -> list[FileHit]:
        rows = self.db.execute(
            "SELECT f.path, f.slug, x.score, f.test, f.tests, f.importers, f.reach FROM "
            "(SELECT path, bm25(knowledge_file_fts, 3.0, 2.0, 0.5) AS score FROM knowledge_file_fts "
            "WHERE knowledge_file_fts MATCH ? ORDER BY score LIMIT ?) x "
            "JOIN knowledge_files f ON f.path = x.path ORDER BY x.score, f.path",
            (match, limit),
        )
        return [FileHit(p, s, score, bool(t), tuple(json.loads(tests)), n, r) for p, s, score, t, tests, n, r in rows]

    def file_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM knowledge_files").get or 0

    def files_matching(self, match: str) -> int:
        """How many files an FTS query matches: a word in most files tells them apart poorly."""
        return (
            self.db.execute("SELECT count(*) FROM knowledge_file_fts WHERE knowledge_file_fts MATCH ?", (match,)).get
            or 0
        )

    def file_language(self, path: str) -> str | None:
        return self.db.execute("SELECT language FROM knowledge_files WHERE path = ?", (path,)).get

    def file(self, path: str) -> FileHit | None:
        r = self.db.execute("SELECT path, slug, test, tests FROM knowledge_files WHERE path = ?", (path,)).fetchone()
        return FileHit(r[0], r[1], 0.0, bool(r[2]), tuple(json.loads(r[3]))) if r else None

    def file_checks(self, paths: Sequence[str]) -> dict[str, list[str]]:
        """Each of `paths`' own suggested checks, as stored at the last build (paths without any left out)."""
        out: dict[str, list[str]] = {}
        for path in paths:
            raw = self.db.execute("SELECT checks FROM knowledge_files WHERE path = ?", (path,)).get
            if raw and raw != "[]":
                out[path] = json.loads(raw)
        return out

    def files_at(self, paths: Sequence[str]) -> dict[str, FileHit]:
        """The described files among `paths`, with their language, in one query per 500 paths."""
        out: dict[str, FileHit] = {}
        for start in range(0, len(paths), 500):
            chunk = paths[start : start + 500]
            rows = self.db.execute(
                "SELECT path, slug, test, tests, importers, reach, language FROM knowledge_files "
                f"WHERE path IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            for p, slug, t, tests, n, r, language in rows:
                out[p] = FileHit(p, slug, 0.0, bool(t), tuple(json.loads(tests)), n, r, language)
        return out

    def file_stats(self) -> dict[str, FileStat]:
        """Each described file's blob, and its time and size when the base was built (or settled since)."""
        rows = self.db.execute("SELECT path, blob, mtime_ns, size FROM knowledge_files")
        return {r[0]: FileStat(r[1], r[2], r[3]) for r in rows}

    def settle_file_stats(self, stats: dict[str, tuple[int, int]]) -> None:
        """Record the time and size of files whose content was found unchanged since the build."""
        with self.db.transaction():
            self.db.executemany(
                "UPDATE knowledge_files SET mtime_ns = ?, size = ? WHERE path = ? AND mtime_ns IS NULL",
                [(mtime, size, path) for path, (mtime, size) in stats.items()],
            )

    def file_blobs(self) -> dict[str, str | None]:
        return dict(self.db.execute("SELECT path, blob FROM knowledge_files"))

    def files_under(self, prefix: str, *, limit: int) -> list[FileHit]:
        rows = self.db.execute(
            "SELECT path, slug, test, tests FROM knowledge_files WHERE path = ? OR path GLOB ? ORDER BY path LIMIT ?",
            (prefix, _glob_escape(prefix.rstrip("/")) + "/*", limit),
        )
        return [FileHit(p, s, 0.0, bool(t), tuple(json.loads(tests))) for p, s, t, tests in rows]

    def files_under_named(self, folder: str, *, limit: int) -> list[FileHit]:
        """Files directly inside any folder called `folder` (`http1` finds `net/http/http1/read.py`)."""
        rows = self.db.execute(
            "SELECT path, slug, test, tests FROM knowledge_files WHERE (path GLOB ? OR path GLOB ?) "
            "AND test = 0 ORDER BY path LIMIT ?",
            (f"{_glob_escape(folder)}/*", f"*/{_glob_escape(folder)}/*", limit),
        )
        return [FileHit(p, s, 0.0, bool(t), tuple(json.loads(tests))) for p, s, t, tests in rows]

    def files_named(self, name: str, *, limit: int) -> list[FileHit]:
        """Files whose path is `name` or ends with `/name` (a file name, or the tail of a path)."""
        rows = self.db.execute(
            "SELECT path, slug, test, tests FROM knowledge_files WHERE path = ? OR path GLOB ? ORDER BY path LIMIT ?",
            (name, "*/" + _glob_escape(name), limit),
        )
        return [FileHit(p, s, 0.0, bool(t), tuple(json.loads(tests))) for p, s, t, tests in rows]

    def symbols_named(self, names: Sequence[str], *, limit: int = 20) -> list[SymbolEntry]:
        out: list[SymbolEntry] = []
        for name in names:
            out += [
                SymbolEntry(*r)
                for r in self.db.execute(
                    "SELECT name, path, kind, qualified, start_line, end_line, refs FROM knowledge_symbols "
                    "WHERE lowered = ? ORDER BY refs DESC, path LIMIT ?",
                    (name.lower(), limit),
                )
            ]
        return out

    def modules_defining(self, names: Sequence[str]) -> dict[str, set[str]]:
        """For each of `names` (lowered), the modules whose files define a symbol of that name."""
        out: dict[str, set[str]] = {}
        if not names:
            return out
        rows = self.db.execute(
            "SELECT DISTINCT s.lowered, f.slug FROM knowledge_symbols s JOIN knowledge_files f ON f.path = s.path "
            f"WHERE s.lowered IN ({','.join('?' * len(names))}) LIMIT 2000",
            list(names),
        )
        for name, slug in rows:
            out.setdefault(name, set()).add(slug)
        return out

    def symbol_spelled(self, name: str) -> bool:
        """Whether some described file defines a symbol spelled exactly `name` (case included)."""
        return bool(
            self.db.execute(
                "SELECT 1 FROM knowledge_symbols WHERE lowered = ? AND name = ? LIMIT 1", (name.lower(), name)
            ).get
        )

    def test_paths(self) -> list[str]:
        return [p for (p,) in self.db.execute("SELECT path FROM knowledge_files WHERE test = 1 ORDER BY path")]

    def symbols_in(self, path: str) -> list[SymbolEntry]:
        rows = self.db.execute(
            "SELECT name, path, kind, qualified, start_line, end_line, refs FROM knowledge_symbols WHERE path = ? "
            "ORDER BY start_line",
            (path,),
        )
        return [SymbolEntry(*r) for r in rows]

    # decisions ---------------------------------------------------------------------------------------

    def add_decision(self, row: DecisionRow) -> None:
        row = replace(row, title=redact_text(row.title), text=redact_text(row.text))
        self.db.execute(
            "INSERT INTO knowledge_decisions(slug, title, text, file, source, supersedes, superseded_by, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
            (row.slug, row.title, row.text, row.file, row.source, row.supersedes, row.created_at),
        )
        self.db.execute(
            "INSERT INTO knowledge_decision_fts(title, text, source, slug) VALUES (?, ?, ?, ?)",
            (row.title, row.text, row.source, row.slug),
        )
        if row.supersedes:
            self.db.execute(
                "UPDATE knowledge_decisions SET superseded_by = ? WHERE slug = ?", (row.slug, row.supersedes)
            )

    def decision(self, slug: str) -> DecisionRow | None:
        r = self.db.execute(
            "SELECT slug, title, text, file, source, supersedes, superseded_by, created_at FROM knowledge_decisions "
            "WHERE slug = ?",
            (slug,),
        ).fetchone()
        return DecisionRow(*r) if r else None

    def decisions(self) -> list[DecisionRow]:
        rows = self.db.execute(
            "SELECT slug, title, text, file, source, supersedes, superseded_by, created_at FROM knowledge_decisions "
            "ORDER BY created_at, slug"
        )
        return [DecisionRow(*r) for r in rows]

    def search_decisions(self, match: str, *, limit: int) -> list[tuple[DecisionRow, float]]:
        hits = self.db.execute(
            "SELECT slug, bm25(knowledge_decision_fts, 4.0, 1.0, 1.0) AS score FROM knowledge_decision_fts "
            "WHERE knowledge_decision_fts MATCH ? ORDER BY score LIMIT ?",
            (match, limit),
        ).fetchall()
        out = []
        for slug, score in hits:
            row = self.decision(slug)
            if row is not None:
                out.append((row, score))
        return out


def _doc(r: Sequence[Any]) -> DocRow:
    return DocRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6], r[7], bool(r[8]), r[9])


def _glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def _redact(data: dict[str, Any]) -> dict[str, Any]:
    """A document's data with every text in it redacted (a module's summary quotes its files)."""
    cleaned, _ = redact_value(data)
    return cleaned  # type: ignore[no-any-return]
