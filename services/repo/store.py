"""The repository index's tables and every SQL statement that reads or writes them.

Two halves live here. The git half: commits, the files each touched, co-change pairs and the
decision notes (FTS5) drawn from commit messages. The content half: per-path entries pointing at
content facts keyed by git blob id (symbols, imports, references), so identical content is parsed
once; the resolved import edges and the symbol search table are per path. `repo_state` holds the
watermarks. Nothing outside this module names these tables.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from kernel.store import Database, Schema
from services.repo.rows import (
    BaseRow,
    CommitRow,
    ContentFacts,
    ContentInfo,
    DecisionHit,
    DefinitionRow,
    EdgeRow,
    ExitRow,
    ExporterRow,
    ExportRow,
    FileFactRow,
    FileRow,
    HotspotRow,
    ImportRow,
    IncomingRow,
    LifeRow,
    NamedExportRow,
    PairRow,
    ReferenceRow,
    SearchCandidate,
    SymbolRow,
    TouchRow,
)

__all__ = ["SCHEMA", "RepoStore"]

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

_REF_INDEXES = """
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
    + _REF_INDEXES
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


_CHUNK = 500  # bound parameters per `IN (...)` query, well under SQLite's limit
_REF_KINDS = ("attribute", "call", "decorator", "import", "inherits", "other", "type")


class RepoStore:
    """Typed access to the repo index over one open `Database`."""

    DATABASE = "repo"
    SCHEMAS: tuple[Schema, ...] = (SCHEMA,)

    def __init__(self, db: Database) -> None:
        self.db = db

    # state ---------------------------------------------------------------------------------------

    def state(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, value FROM repo_state"))

    def set_state(self, values: dict[str, str | None]) -> None:
        for key, value in values.items():
            if value is None:
                self.db.execute("DELETE FROM repo_state WHERE key = ?", (key,))
            else:
                self.db.execute(
                    "INSERT INTO repo_state(key, value) VALUES (?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )

    # git half ------------------------------------------------------------------------------------

    def clear_history(self) -> None:
        for table in (
            "repo_commits",
            "repo_touches",
            "repo_cochange",
            "repo_decisions",
            "repo_renames",
            "repo_churn",
            "repo_churn_read",
        ):
            self.db.execute(f"DELETE FROM {table}")

    def add_commits(self, commits: Sequence[tuple[str, str, int, str, str, list[str], list]]) -> None:
        """Insert commits `(sha, author, time, subject, body, paths, changes)`, their touches, renames
        and decision notes; `changes` holds `(letter, path, old path)` per path."""
        self.db.executemany(
            "INSERT OR IGNORE INTO repo_commits(sha, author, committed_at, subject, body, file_count) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(c[0], c[1], c[2], c[3], c[4], len(c[5])) for c in commits],
        )
        self.db.executemany(
            "INSERT OR IGNORE INTO repo_touches(sha, path, change) VALUES (?, ?, ?)",
            [(c[0], path, letter) for c in commits for letter, path, _old in c[6]],
        )
        self.db.executemany(
            "INSERT OR IGNORE INTO repo_renames(sha, old, new) VALUES (?, ?, ?)",
            [(c[0], old, path) for c in commits for letter, path, old in c[6] if letter == "R" and old],
        )
        self.db.executemany(
            "INSERT INTO repo_decisions(subject, body, sha, committed_at) VALUES (?, ?, ?, ?)",
            [(c[3], c[4], c[0], c[2]) for c in commits],
        )

    def add_pairs(self, pairs: str) -> None:
        """Add co-change counts, a JSON array of `[a, b, shared, last_at]` (both directions), to the stored ones."""
        self.db.execute(
            "INSERT INTO repo_cochange(a, b, shared, last_at) "
            "SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3 FROM json_each(?) j WHERE true "
            "ON CONFLICT(a, b) DO UPDATE SET shared = shared + excluded.shared, "
            "last_at = max(last_at, excluded.last_at)",
            (pairs,),
        )

    def commit_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM repo_commits").get or 0

    def lineage(self, path: str) -> list[LifeRow]:
        """The file at `path` under each name it had, newest first, each over the commits it held it.

        A life starts at the latest commit that added the file or renamed it to that name, so a file
        added where an earlier one was deleted (or renamed away) has none of that file's commits;
        an older name counts only until the rename that took it away. Commits are ordered as read
        (rowid), not by date, which commits made within one second share.
        """
        out: list[LifeRow] = []
        current, until = path, None
        # each hop reads strictly older commits, so a file renamed away and back (a -> b -> a) follows
        # all its names without looping; the cap bounds a pathological history
        for _hop in range(20):
            born = self.db.execute(
                "SELECT c.rowid, t.change, c.sha FROM repo_touches t JOIN repo_commits c ON c.sha = t.sha "
                "WHERE t.path = ? AND t.change IN ('A', 'R', 'C') AND (? IS NULL OR c.rowid < ?) "
                "ORDER BY c.rowid DESC LIMIT 1",
                (current, until, until),
            ).fetchone()
            out.append(LifeRow(current, born[0] if born else None, until))
            if born is None or born[1] != "R":
                break
            old = self.db.execute("SELECT old FROM repo_renames WHERE sha = ? AND new = ?", (born[2], current)).get
            if old is None:
                break
            current, until = old, born[0]
        return out

    @staticmethod
    def _lineage_clause(lineage: Sequence[LifeRow]) -> tuple[str, list[Any]]:
        parts: list[str] = []
        params: list[Any] = []
        for life in lineage:
            part = "(t.path = ?"
            params.append(life.name)
            if life.since is not None:
                part += " AND c.rowid >= ?"
                params.append(life.since)
            if life.until is not None:
                part += " AND c.rowid < ?"
                params.append(life.until)
            parts.append(part + ")")
        return "(" + " OR ".join(parts) + ")", params

    def exits_of(self, path: str) -> list[ExitRow]:
        """Every commit that deleted the file at `path` or renamed it away, in the order read."""
        return self.exits_of_paths([path])[path]

    def exits_of_paths(self, paths: Sequence[str]) -> dict[str, list[ExitRow]]:
        """`exits_of` for many paths in a few statements; every path asked for has an entry."""
        out: dict[str, list[ExitRow]] = {p: [] for p in paths}
        listed = sorted(out)
        for start in range(0, len(listed), _CHUNK):
            chunk = listed[start : start + _CHUNK]
            marks = ", ".join("?" * len(chunk))
            rows = self.db.execute(
                "SELECT t.path, c.sha, c.author, c.committed_at, c.subject, c.rowid, NULL FROM repo_touches t "
                f"JOIN repo_commits c ON c.sha = t.sha WHERE t.change = 'D' AND t.path IN ({marks}) "
                "UNION ALL SELECT r.old, c.sha, c.author, c.committed_at, c.subject, c.rowid, r.new "
                f"FROM repo_renames r JOIN repo_commits c ON c.sha = r.sha WHERE r.old IN ({marks}) ORDER BY 1, 6",
                chunk + chunk,
            )
            for r in rows:
                out[r[0]].append(ExitRow(CommitRow(*r[1:5]), r[5], r[6]))
        return out

    def reused_paths(self) -> set[str]:
        """Every path a file left (deleted, or renamed away): where a later file may hold another's history."""
        return {
            p
            for (p,) in self.db.execute(
                "SELECT DISTINCT path FROM repo_touches WHERE change = 'D' UNION SELECT DISTINCT old FROM repo_renames"
            )
        }

    def history_of(self, path: str, *, since: int, max_files: int) -> dict[str, Any]:
        """Revisions (all, and in commits of at most `max_files` files), recent touches, authors, first
        and last touch; the history before a rename counts."""
        clause, params = self._lineage_clause(self.lineage(path))
        row = self.db.execute(
            "SELECT count(DISTINCT c.sha), count(DISTINCT CASE WHEN c.file_count <= ? THEN c.sha END), "
            "count(DISTINCT CASE WHEN c.committed_at >= ? THEN c.sha END), count(DISTINCT c.author), "
            "max(c.committed_at), min(c.committed_at) "
            f"FROM repo_touches t JOIN repo_commits c ON c.sha = t.sha WHERE {clause}",
            (max_files, since, *params),
        ).fetchone()
        return {
            "revisions": row[0],
            "coupled_revisions": row[1] or 0,
            "recent": row[2] or 0,
            "authors": row[3],
            "last_at": row[4],
            "first_at": row[5],
        }

    def recent_commits(self, path: str, *, limit: int) -> list[CommitRow]:
        clause, params = self._lineage_clause(self.lineage(path))
        rows = self.db.execute(
            "SELECT DISTINCT c.sha, c.author, c.committed_at, c.subject, c.rowid FROM repo_touches t "
            f"JOIN repo_commits c ON c.sha = t.sha WHERE {clause} ORDER BY c.committed_at DESC, c.rowid DESC "
            "LIMIT ?",
            (*params, limit),
        )
        return [CommitRow(*r[:4]) for r in rows]

    def added_in(self, path: str) -> CommitRow | None:
        """The commit that added the file, under this name or an earlier one."""
        lineage = self.lineage(path)
        clause, params = self._lineage_clause(lineage[-1:])
        row = self.db.execute(
            "SELECT c.sha, c.author, c.committed_at, c.subject FROM repo_touches t JOIN repo_commits c "
            f"ON c.sha = t.sha WHERE {clause} ORDER BY t.change != 'A', c.committed_at, c.rowid LIMIT 1",
            params,
        ).fetchone()
        return CommitRow(*row) if row else None

    def touches_of(self, path: str) -> list[TouchRow]:
        """Every commit that touched exactly `path`, oldest first, with the kind of change."""
        rows = self.db.execute(
            "SELECT c.sha, c.author, c.committed_at, c.subject, t.change FROM repo_touches t "
            "JOIN repo_commits c ON c.sha = t.sha WHERE t.path = ? ORDER BY c.committed_at, c.rowid",
            (path,),
        )
        return [TouchRow(CommitRow(*r[:4]), r[4]) for r in rows]

    def renamed_to(self, path: str) -> tuple[CommitRow, str] | None:
        """The latest commit that renamed `path` away, and the new name."""
        row = self.db.execute(
            "SELECT c.sha, c.author, c.committed_at, c.subject, r.new FROM repo_renames r "
            "JOIN repo_commits c ON c.sha = r.sha WHERE r.old = ? ORDER BY c.committed_at DESC, c.rowid DESC LIMIT 1",
            (path,),
        ).fetchone()
        return (CommitRow(*row[:4]), row[4]) if row else None

    def rename_into(self, path: str) -> tuple[CommitRow, str] | None:
        """The latest commit that renamed a file to `path`, and the name it had before."""
        row = self.db.execute(
            "SELECT c.sha, c.author, c.committed_at, c.subject, r.old FROM repo_renames r "
            "JOIN repo_commits c ON c.sha = r.sha WHERE r.new = ? ORDER BY c.committed_at DESC, c.rowid DESC LIMIT 1",
            (path,),
        ).fetchone()
        return (CommitRow(*row[:4]), row[4]) if row else None

    def renamed_paths(self) -> set[str]:
        """Every path some commit renamed a file to: the files whose history spans several names."""
        return {new for (new,) in self.db.execute("SELECT DISTINCT new FROM repo_renames")}

    def hotspot_of(self, path: str, *, since: int, max_files: int) -> HotspotRow | None:
        """One file's counts since `since` under every name it had (see `lineage`), or None."""
        clause, params = self._lineage_clause(self.lineage(path))
        row = self.db.execute(
            "SELECT count(DISTINCT c.sha), coalesce(sum(h.added), 0), coalesce(sum(h.deleted), 0), "
            "count(DISTINCT c.author), max(c.committed_at) "
            "FROM repo_touches t JOIN repo_commits c ON c.sha = t.sha "
            "LEFT JOIN repo_churn h ON h.sha = t.sha AND h.path = t.path "
            f"WHERE c.committed_at >= ? AND c.file_count <= ? AND {clause}",
            (since, max_files, *params),
        ).fetchone()
        if not row or not row[0]:
            return None
        fan_in = self.db.execute("SELECT count(DISTINCT src) FROM repo_edges WHERE dst = ?", (path,)).get or 0
        return HotspotRow(path, row[0], row[1], row[2], row[3], row[4], fan_in)

    def churn_missing(self, since: int) -> list[str]:
        """Commits since `since` whose line counts are not read yet, oldest first."""
        return [
            sha
            for (sha,) in self.db.execute(
                "SELECT sha FROM repo_commits WHERE committed_at >= ? AND sha NOT IN (SELECT sha FROM repo_churn_read) "
                "ORDER BY committed_at, rowid",
                (since,),
            )
        ]

    def clear_churn(self) -> None:
        """Forget every stored line count, so the next `hotspots` reads them again."""
        self.db.execute("DELETE FROM repo_churn")
        self.db.execute("DELETE FROM repo_churn_read")

    def add_churn(self, read: Sequence[str], rows: Sequence[tuple[str, str, int, int]]) -> None:
        """Store `(sha, path, added, deleted)` line counts and mark `read` as read."""
        self.db.executemany("INSERT OR IGNORE INTO repo_churn_read(sha) VALUES (?)", [(s,) for s in read])
        self.db.executemany(
            "INSERT OR REPLACE INTO repo_churn(sha, path, added, deleted) VALUES (?, ?, ?, ?)", list(rows)
        )

    def hotspots(self, *, since: int, max_files: int) -> list[HotspotRow]:
        """Every indexed file touched since `since` (in commits of at most `max_files` files), with its counts."""
        rows = self.db.execute(
            "SELECT t.path, count(DISTINCT c.sha), coalesce(sum(h.added), 0), coalesce(sum(h.deleted), 0), "
            "count(DISTINCT c.author), max(c.committed_at), "
            "(SELECT count(DISTINCT e.src) FROM repo_edges e WHERE e.dst = t.path) "
            "FROM repo_touches t JOIN repo_commits c ON c.sha = t.sha "
            "JOIN repo_files f ON f.path = t.path AND f.skip_reason IS NULL "
            "LEFT JOIN repo_churn h ON h.sha = t.sha AND h.path = t.path "
            "WHERE c.committed_at >= ? AND c.file_count <= ? GROUP BY t.path ORDER BY t.path",
            (since, max_files),
        ).fetchall()
        return [HotspotRow(*r) for r in rows]

    def partners(self, path: str, *, max_files: int, min_shared: int = 1) -> list[PairRow]:
        """Every file that changed together with `path` in at least `min_shared` commits, with its own
        revision count (coupled commits). Counting those is most of the cost, and most partners share
        one commit only: a caller that drops those anyway asks for `min_shared=2`."""
        rows = self.db.execute(
            "SELECT p.b, p.shared, p.last_at, "
            "(SELECT count(*) FROM repo_touches t JOIN repo_commits c ON c.sha = t.sha "
            " WHERE t.path = p.b AND c.file_count <= ?) "
            "FROM repo_cochange p WHERE p.a = ? AND p.shared >= ? ORDER BY p.shared DESC, p.b",
            (max_files, path, min_shared),
        )
        return [PairRow(path=b, shared=s, last_at=last, revisions=revs) for b, s, last, revs in rows]

    def pair_counts(self, path: str) -> list[PairRow]:
        """Every file that changed together with `path` (pair table), its shared commits and the last;
        `revisions` is left 0: counting them costs most, so callers count it for the partners they keep."""
        rows = self.db.execute(
            "SELECT b, shared, last_at FROM repo_cochange WHERE a = ? ORDER BY shared DESC, b", (path,)
        )
        return [PairRow(path=b, shared=s, last_at=last, revisions=0) for b, s, last in rows]

    def partners_within(self, lineage: Sequence[LifeRow], *, max_files: int) -> list[PairRow]:
        """`pair_counts` from the commits of one file's life (`lineage`), not the pair table, which
        keys pairs by path and so mixes the lives of files that held one path in turn."""
        clause, params = self._lineage_clause(lineage)
        rows = self.db.execute(
            "SELECT o.path, count(DISTINCT c.sha), max(c.committed_at) "
            "FROM repo_touches t JOIN repo_commits c ON c.sha = t.sha JOIN repo_touches o ON o.sha = t.sha "
            f"WHERE {clause} AND c.file_count <= ? AND o.path != t.path GROUP BY o.path "
            "ORDER BY count(DISTINCT c.sha) DESC, o.path",
            (*params, max_files),
        )
        return [PairRow(path=b, shared=s, last_at=last, revisions=0) for b, s, last in rows]

    def shared_commits(self, lineage: Sequence[LifeRow], *, max_files: int) -> list[tuple[str, int, int]]:
        """`(other path, position, time)` for each commit (of at most `max_files` files) in which the
        file of `lineage` changed, and each other path that changed with it, in the order read."""
        clause, params = self._lineage_clause(lineage)
        return list(
            self.db.execute(
                "SELECT DISTINCT o.path, c.rowid, c.committed_at FROM repo_touches t "
                "JOIN repo_commits c ON c.sha = t.sha JOIN repo_touches o ON o.sha = t.sha "
                f"WHERE {clause} AND c.file_count <= ? AND o.path != t.path ORDER BY c.rowid, o.path",
                (*params, max_files),
            )
        )

    def coupled_counts(self, paths: Sequence[str], *, max_files: int) -> dict[str, int]:
        """For each of `paths` touched by any, how many commits of at most `max_files` files touched it."""
        out: dict[str, int] = {}
        for start in range(0, len(paths), _CHUNK):
            chunk = list(paths[start : start + _CHUNK])
            marks = ", ".join("?" * len(chunk))
            out.update(
                self.db.execute(
                    "SELECT t.path, count(*) FROM repo_touches t JOIN repo_commits c ON c.sha = t.sha "
                    f"WHERE t.path IN ({marks}) AND c.file_count <= ? GROUP BY t.path",
                    (*chunk, max_files),
                )
            )
        return out

    def coupled_positions(self, paths: Sequence[str], *, max_files: int) -> dict[str, list[int]]:
        """For each of `paths`, the positions (read order) of the commits of at most `max_files` files
        that touched it, ascending."""
        out: dict[str, list[int]] = {}
        for start in range(0, len(paths), _CHUNK):
            chunk = list(paths[start : start + _CHUNK])
            marks = ", ".join("?" * len(chunk))
            for path, position in self.db.execute(
                "SELECT t.path, c.rowid FROM repo_touches t JOIN repo_commits c ON c.sha = t.sha "
                f"WHERE t.path IN ({marks}) AND c.file_count <= ? ORDER BY t.path, c.rowid",
                (*chunk, max_files),
            ):
                out.setdefault(path, []).append(position)
        return out

    def indexed_among(self, paths: Sequence[str]) -> set[str]:
        """Those of `paths` an indexed file holds now."""
        out: set[str] = set()
        for start in range(0, len(paths), _CHUNK):
            chunk = list(paths[start : start + _CHUNK])
            marks = ", ".join("?" * len(chunk))
            out |= {p for (p,) in self.db.execute(f"SELECT path FROM repo_files WHERE path IN ({marks})", chunk)}
        return out

    def moved_among(self, paths: Sequence[str]) -> set[str]:
        """Those of `paths` that no indexed file holds now, or that a file left (deleted, renamed away)."""
        out = set(paths) - self.indexed_among(paths)
        for start in range(0, len(paths), _CHUNK):
            chunk = list(paths[start : start + _CHUNK])
            marks = ", ".join("?" * len(chunk))
            out |= {
                p
                for (p,) in self.db.execute(
                    f"SELECT path FROM repo_touches WHERE change = 'D' AND path IN ({marks}) "
                    f"UNION SELECT old FROM repo_renames WHERE old IN ({marks})",
                    chunk + chunk,
                )
            }
        return out

    def search_decisions(self, match: str, *, limit: int, offset: int) -> list[DecisionHit]:
        return [
            DecisionHit(*r)
            for r in self.db.execute(
                "SELECT sha, committed_at, subject, body, bm25(repo_decisions, 4.0, 1.0) AS score "
                "FROM repo_decisions WHERE repo_decisions MATCH ? ORDER BY score, committed_at DESC LIMIT ? OFFSET ?",
                (match, limit, offset),
            )
        ]

    def decisions_touching(self, path: str, *, limit: int) -> list[CommitRow]:
        """Commits with a reason (a body, "because", "decided") that touched the file, under each of its names."""
        clause, params = self._lineage_clause(self.lineage(path))
        rows = self.db.execute(
            "SELECT DISTINCT c.sha, c.author, c.committed_at, c.subject, c.rowid FROM repo_touches t "
            f"JOIN repo_commits c ON c.sha = t.sha WHERE {clause} AND (length(c.body) > 0 "
            "OR c.subject GLOB '*[Bb]ecause*' OR c.subject GLOB '*[Dd]ecid*') "
            "ORDER BY c.committed_at DESC, c.rowid DESC LIMIT ?",
            (*params, limit),
        )
        return [CommitRow(*r[:4]) for r in rows]

    # content half --------------------------------------------------------------------------------

    def files(self) -> dict[str, FileRow]:
        rows = self.db.execute("SELECT path, hash, language, skip_reason, tracked, seen FROM repo_files")
        return {r[0]: FileRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows}

    def file(self, path: str) -> FileRow | None:
        r = self.db.execute(
            "SELECT path, hash, language, skip_reason, tracked, seen FROM repo_files WHERE path = ?", (path,)
        ).fetchone()
        return FileRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) if r else None

    def known_hashes(self) -> set[str]:
        return {h for (h,) in self.db.execute("SELECT hash FROM repo_content")}

    def content_info(self, hash_: str) -> ContentInfo | None:
        row = self.db.execute("SELECT language, status, lines, bytes FROM repo_content WHERE hash = ?", (hash_,))
        found = row.fetchone()
        return ContentInfo(*found) if found else None

    def add_contents(self, contents: Sequence[ContentFacts]) -> None:
        """Store the facts of new contents, in as few statements as the rows allow.

        Each content's references arrive as one JSON array (encoded where the file was parsed), which
        SQLite unpacks itself: no Python object per reference is built in this process.
        """
        self.db.executemany(
            "INSERT INTO repo_content(hash, language, status, lines, bytes) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(hash) DO UPDATE SET language = excluded.language, status = excluded.status, "
            "lines = excluded.lines, bytes = excluded.bytes",
            [(c.hash, c.language, c.status, c.lines, c.size) for c in contents],
        )
        self.db.executemany(
            "INSERT INTO repo_symbols(hash, name, kind, qualified, parent, signature, start_line, end_line, doc, "
            "decorators) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(c.hash, *s) for c in contents for s in c.symbols],
        )
        self.db.executemany(
            "INSERT INTO repo_imports(hash, raw, names, line) VALUES (?, ?, ?, ?)",
            [(c.hash, *i) for c in contents for i in c.imports],
        )
        self.db.executemany(
            "INSERT INTO repo_exports(hash, name, original, raw, line) VALUES (?, ?, ?, ?, ?)",
            [(c.hash, *e) for c in contents for e in c.exports],
        )
        self.db.executemany(
            "INSERT INTO repo_typed(hash, name, type, line) VALUES (?, ?, ?, ?)",
            [(c.hash, *t) for c in contents for t in c.typed],
        )
        self.db.executemany(
            "INSERT INTO repo_refs(content, name, line, kind, receiver) "
            "SELECT c.id, j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3 "
            "FROM repo_content c, json_each(?2) j WHERE c.hash = ?1",
            [(c.hash, c.refs) for c in contents if c.refs != "[]"],
        )

    @contextlib.contextmanager
    def bulk_references(self, *, everything: bool) -> Iterator[None]:
        """Store many references without keeping their indexes current, then build the indexes once.

        Inserting into indexed tables costs a b-tree probe per row and index; building an index over
        the finished table is one sort. Used when the run stores every content (`everything`) or
        there are no references yet; otherwise the indexes stay, so a small run stays small. The
        caller holds the transaction, so a failure restores the indexes with everything else.
        """
        empty = self.db.execute("SELECT 1 FROM repo_refs LIMIT 1").fetchone() is None
        if not (everything or empty):
            yield
            return
        self.db.execute("DROP INDEX repo_refs_name; DROP INDEX repo_refs_content;")
        yield
        self.db.execute(_REF_INDEXES)

    def set_files(self, rows: Sequence[FileRow]) -> None:
        self.db.execute("DELETE FROM repo_files")
        self.db.executemany(
            "INSERT INTO repo_files(path, hash, language, skip_reason, tracked, seen) VALUES (?, ?, ?, ?, ?, ?)",
            [(r.path, r.hash, r.language, r.skip_reason, int(r.tracked), r.seen) for r in rows],
        )

    def update_files(self, *, upserts: Sequence[FileRow], deletes: Sequence[str]) -> None:
        self.db.executemany("DELETE FROM repo_files WHERE path = ?", [(p,) for p in deletes])
        self.db.executemany(
            "INSERT OR REPLACE INTO repo_files(path, hash, language, skip_reason, tracked, seen) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(r.path, r.hash, r.language, r.skip_reason, int(r.tracked), r.seen) for r in upserts],
        )

    def drop_orphan_content(self) -> int:
        """Delete content facts no path points at any more; returns how many contents went."""
        orphans = list(
            self.db.execute(
                "SELECT id, hash FROM repo_content "
                "WHERE hash NOT IN (SELECT hash FROM repo_files WHERE hash IS NOT NULL)"
            )
        )
        self.db.executemany("DELETE FROM repo_refs WHERE content = ?", [(i,) for i, _h in orphans])
        for table in ("repo_symbols", "repo_imports", "repo_exports", "repo_typed", "repo_content"):
            self.db.executemany(f"DELETE FROM {table} WHERE hash = ?", [(h,) for _i, h in orphans])
        return len(orphans)

    def all_imports(self) -> list[ImportRow]:
        """Every import of every indexed path."""
        return [
            ImportRow(*r)
            for r in self.db.execute(
                "SELECT f.path, f.language, i.raw, i.names FROM repo_files f JOIN repo_imports i ON i.hash = f.hash"
            )
        ]

    def namespace_files(self) -> dict[str, list[str]]:
        """C# namespaces and Kotlin packages, and the files that declare them (`using` and `import a.b.*`
        resolve through these); and each Kotlin top-level declaration, keyed `kotlin a.b.Name`, with
        the files declaring it (`import a.b.Name` names the file that declares Name in package a.b)."""
        out: dict[str, list[str]] = {}
        for path, name in self.db.execute(
            "SELECT f.path, s.qualified FROM repo_symbols s JOIN repo_files f ON f.hash = s.hash "
            "WHERE s.kind = 'namespace' AND f.language IN ('csharp', 'kotlin') ORDER BY s.qualified, f.path"
        ):
            out.setdefault(name, []).append(path)
        for path, name in self.db.execute(
            "SELECT f.path, 'kotlin ' || p.qualified || '.' || s.name FROM repo_files f "
            "JOIN repo_symbols p ON p.hash = f.hash AND p.kind = 'namespace' "
            "JOIN repo_symbols s ON s.hash = f.hash AND s.parent IS NULL AND s.kind != 'namespace' "
            "WHERE f.language = 'kotlin' ORDER BY 2, f.path"
        ):
            paths = out.setdefault(name, [])
            if path not in paths:
                paths.append(path)
        return out

    def update_edges(self, edges: Iterable[tuple[str, str, str, str]]) -> None:
        """Make the import edges exactly `edges`, touching only the rows that differ."""
        self._sync_edges(set(self.db.execute("SELECT src, dst, raw, names FROM repo_edges")), set(edges))

    def imports_of_paths(self, paths: Iterable[str]) -> list[ImportRow]:
        """Every import of the indexed `paths`."""
        wanted = sorted(paths)
        out: list[ImportRow] = []
        for i in range(0, len(wanted), _CHUNK):
            chunk = wanted[i : i + _CHUNK]
            out += [
                ImportRow(*r)
                for r in self.db.execute(
                    "SELECT f.path, f.language, i.raw, i.names FROM repo_files f "
                    f"JOIN repo_imports i ON i.hash = f.hash WHERE f.path IN ({', '.join('?' * len(chunk))})",
                    chunk,
                )
            ]
        return out

    def replace_edges_from(self, sources: Iterable[str], edges: Iterable[tuple[str, str, str, str]]) -> None:
        """Make the import edges out of `sources` exactly `edges` (all of which leave `sources`)."""
        listed = sorted(sources)
        stored: set[tuple[str, str, str, str]] = set()
        for i in range(0, len(listed), _CHUNK):
            chunk = listed[i : i + _CHUNK]
            stored.update(
                self.db.execute(
                    f"SELECT src, dst, raw, names FROM repo_edges WHERE src IN ({', '.join('?' * len(chunk))})", chunk
                )
            )
        self._sync_edges(stored, set(edges))

    def _sync_edges(self, stored: set[tuple[str, str, str, str]], wanted: set[tuple[str, str, str, str]]) -> None:
        self.db.executemany(
            "DELETE FROM repo_edges WHERE src = ? AND dst = ? AND raw = ?", [e[:3] for e in stored - wanted]
        )
        self.db.executemany(
            "INSERT OR REPLACE INTO repo_edges(src, dst, raw, names) VALUES (?, ?, ?, ?)", sorted(wanted - stored)
        )

    def imports_of(self, path: str) -> list[tuple[str, str]]:
        return list(self.db.execute("SELECT dst, raw FROM repo_edges WHERE src = ? ORDER BY dst, raw", (path,)))

    def import_names_of(self, path: str) -> list[tuple[str, str]]:
        """`(imported file, names brought in)` for each resolved import of `path`."""
        return list(self.db.execute("SELECT dst, names FROM repo_edges WHERE src = ? ORDER BY dst, raw", (path,)))

    def edges_of(self, path: str) -> list[EdgeRow]:
        """Each resolved import of `path`."""
        rows = self.db.execute("SELECT dst, raw, names FROM repo_edges WHERE src = ? ORDER BY dst, raw", (path,))
        return [EdgeRow(*r) for r in rows]

    def edges_into(self, path: str) -> list[IncomingRow]:
        """Each resolved import of `path` by another file."""
        rows = self.db.execute("SELECT src, raw, names FROM repo_edges WHERE dst = ? ORDER BY src, raw", (path,))
        return [IncomingRow(*r) for r in rows]

    def exports_of(self, path: str) -> list[ExportRow]:
        """What `path` hands its importers under another name (`aliases.exports`), by line."""
        rows = self.db.execute(
            "SELECT x.name, x.original, x.raw FROM repo_files f JOIN repo_exports x ON x.hash = f.hash "
            "WHERE f.path = ? ORDER BY x.line, x.name, x.original, x.raw",
            (path,),
        )
        return [ExportRow(*r) for r in rows]

    def bound_type(self, path: str, name: str) -> str | None:
        """The type word `path`'s top level binds `name` to (`parsing.typed_bindings`), if one."""
        rows = self.db.execute(
            "SELECT DISTINCT t.type FROM repo_files f JOIN repo_typed t ON t.hash = f.hash "
            "WHERE f.path = ? AND t.name = ?",
            (path, name),
        ).fetchall()
        return rows[0][0] if len(rows) == 1 else None

    def exports_named(self, name: str, *, limit: int) -> list[NamedExportRow]:
        """The files that hand their importers `name` bound to another name, by path and line."""
        rows = self.db.execute(
            "SELECT f.path, x.original, x.raw FROM repo_exports x JOIN repo_files f ON f.hash = x.hash "
            "WHERE x.name = ? AND x.original != x.name ORDER BY f.path, x.line, x.original, x.raw LIMIT ?",
            (name, limit),
        )
        return [NamedExportRow(*r) for r in rows]

    def exporters_of(self, path: str) -> list[ExporterRow]:
        """The files importing `path` that hand on something of it (under its name or another)."""
        rows = self.db.execute(
            "SELECT e.src, x.name, x.original FROM repo_edges e JOIN repo_files f ON f.path = e.src "
            "JOIN repo_exports x ON x.hash = f.hash AND x.raw = e.raw WHERE e.dst = ? "
            "ORDER BY e.src, x.line, x.name, x.original",
            (path,),
        )
        return [ExporterRow(*r) for r in rows]

    def references_in(self, name: str, paths: Sequence[str], *, kind: str | None = None) -> list[ReferenceRow]:
        """References to `name` (of `kind` when given) in the files `paths`, by path and line."""
        out: list[ReferenceRow] = []
        kinds = [kind] if kind is not None else list(_REF_KINDS)
        listed = sorted(set(paths))
        for i in range(0, len(listed), _CHUNK):
            chunk = listed[i : i + _CHUNK]
            # name, kind and content each fixed: the name index answers it with a probe per kind and file
            rows = self.db.execute(
                "SELECT f.path, f.language, r.line, r.kind, r.receiver, (SELECT s.qualified FROM repo_symbols s "
                " WHERE s.hash = c.hash AND s.start_line <= r.line AND s.end_line >= r.line AND s.kind != 'constant' "
                " ORDER BY s.start_line DESC, s.end_line, s.id LIMIT 1) "
                "FROM repo_files f JOIN repo_content c ON c.hash = f.hash JOIN repo_refs r ON r.content = c.id "
                f"WHERE f.path IN ({', '.join('?' * len(chunk))}) AND r.name = ? "
                f"AND r.kind IN ({', '.join('?' * len(kinds))}) ORDER BY f.path, r.line, r.kind, r.receiver",
                [*chunk, name, *kinds],
            )
            out += [ReferenceRow(*r) for r in rows]
        return out

    def raw_imports_of(self, path: str) -> list[tuple[str, int]]:
        return list(
            self.db.execute(
                "SELECT i.raw, i.line FROM repo_files f JOIN repo_imports i ON i.hash = f.hash "
                "WHERE f.path = ? ORDER BY i.line",
                (path,),
            )
        )

    def importers_of(self, path: str) -> list[str]:
        return [
            s for (s,) in self.db.execute("SELECT DISTINCT src FROM repo_edges WHERE dst = ? ORDER BY src", (path,))
        ]

    def reindex_symbol_search(
        self,
        changed_paths: Sequence[str],
        removed_paths: Iterable[str],
        split_terms: Callable[[str], str],
        *,
        everything: bool = False,
    ) -> None:
        """Rebuild the search rows of `changed_paths` and drop those of `removed_paths`.

        With `everything`, every search row is dropped and rebuilt for every indexed path, and the
        two lists are not read.
        """
        if everything:
            self.clear_symbol_search()
        else:
            dropped = [*changed_paths, *removed_paths]
            for start in range(0, len(dropped), _CHUNK):  # chunks, not three statements per path
                chunk = dropped[start : start + _CHUNK]
                marks = ", ".join("?" * len(chunk))
                rows = self.db.execute(f"SELECT row FROM repo_symbol_fts_rows WHERE path IN ({marks})", chunk)
                self.db.executemany("DELETE FROM repo_symbol_fts WHERE rowid = ?", [(r,) for (r,) in rows])
                self.db.execute(f"DELETE FROM repo_symbol_fts_rows WHERE path IN ({marks})", chunk)
        next_row = (self.db.execute("SELECT max(rowid) FROM repo_symbol_fts").get or 0) + 1
        select = (
            "SELECT f.path, s.id, s.name, s.qualified, s.signature, s.doc FROM repo_files f "
            "JOIN repo_symbols s ON s.hash = f.hash"
        )
        if everything:  # one query for the whole repository instead of one per path
            found: list[Sequence[Any]] = self.db.execute(select + " ORDER BY f.path, s.id").fetchall()
        else:  # a first index lists every path: ask in chunks, not one query per path
            found = []
            for start in range(0, len(changed_paths), _CHUNK):
                chunk = changed_paths[start : start + _CHUNK]
                marks = ", ".join("?" * len(chunk))
                found += self.db.execute(select + f" WHERE f.path IN ({marks}) ORDER BY f.path, s.id", chunk).fetchall()
        self._insert_search_rows(found, next_row, split_terms)

    def clear_symbol_search(self) -> None:
        self.db.execute("DELETE FROM repo_symbol_fts")
        self.db.execute("DELETE FROM repo_symbol_fts_rows")

    def append_symbol_search(self, located: Sequence[tuple[str, str]], split_terms: Callable[[str], str]) -> None:
        """Add the search rows of `located` (`(path, content hash)`, in path order, after every path
        already there): what `reindex_symbol_search(everything=True)` writes for them, row for row,
        when a first index hands its paths over in order as their contents are stored."""
        if not located:
            return
        next_row = (self.db.execute("SELECT max(rowid) FROM repo_symbol_fts").get or 0) + 1
        marks = ", ".join("(?, ?)" for _ in located)
        found = self.db.execute(
            f"WITH p(path, hash) AS (VALUES {marks}) SELECT p.path, s.id, s.name, s.qualified, s.signature, s.doc "
            "FROM p JOIN repo_symbols s ON s.hash = p.hash ORDER BY p.path, s.id",
            [value for pair in located for value in pair],
        ).fetchall()
        self._insert_search_rows(found, next_row, split_terms)

    def _insert_search_rows(
        self, found: Sequence[Sequence[Any]], next_row: int, split_terms: Callable[[str], str]
    ) -> None:
        rows, mapping = [], []
        path_terms = ""
        last_path = None
        for path, sid, name, qualified, signature, doc in found:
            if path != last_path:
                path_terms, last_path = split_terms(path), path
            terms = f"{name} {qualified} {split_terms(qualified)}"
            rows.append((next_row, terms, signature, doc or "", path_terms, path, sid))
            mapping.append((path, next_row))
            next_row += 1
        self.db.executemany(
            "INSERT INTO repo_symbol_fts(rowid, terms, signature, doc, path_terms, path, symbol_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        self.db.executemany("INSERT INTO repo_symbol_fts_rows(path, row) VALUES (?, ?)", mapping)

    def search_candidates(self, match: str, *, limit: int) -> list[SearchCandidate]:
        """The best `limit` symbol rows by BM25, with their name and path terms."""
        # Rank on rowid and score alone, then read the columns of the winners: selecting the text
        # columns in the ranking query makes SQLite carry them through the sort for every match
        # (a common word matches tens of thousands of symbols), which doubled the query's time.
        ranked = self.db.execute(
            "SELECT rowid, bm25(repo_symbol_fts, 6.0, 2.0, 1.0, 1.5) AS score FROM repo_symbol_fts "
            "WHERE repo_symbol_fts MATCH ? ORDER BY score, rowid LIMIT ?",
            (match, limit),
        ).fetchall()
        if not ranked:
            return []
        columns: dict[int, tuple[int, str, str, str]] = {}
        for start in range(0, len(ranked), 500):
            chunk = [row for row, _ in ranked[start : start + 500]]
            for row, sid, path, terms, path_terms in self.db.execute(
                "SELECT rowid, symbol_id, path, terms, path_terms FROM repo_symbol_fts "
                f"WHERE rowid IN ({','.join('?' * len(chunk))})",
                chunk,
            ):
                columns[row] = (int(sid), path, terms, path_terms)
        found = []
        for row, score in ranked:
            sid, path, terms, path_terms = columns[row]
            found.append(SearchCandidate(sid, path, score, terms, path_terms))
        found.sort(key=lambda c: (c.score, c.path))  # the order the single query gave: score, then path
        return found

    def whole_module_imports(self, path: str) -> list[tuple[str, int]]:
        """`(raw, line)` of the indexed file's imports of a whole module (`import * as z from "./x"`)."""
        rows = self.db.execute(
            "SELECT i.raw, i.line FROM repo_files f JOIN repo_imports i ON i.hash = f.hash "
            "WHERE f.path = ? AND i.names = '' ORDER BY i.line, i.raw",
            (path,),
        )
        return [(raw, line) for raw, line in rows]

    def registrations_like(self, fragment: str, *, limit: int) -> list[tuple[str, str, int]]:
        """`(key, path, line)` of the strings registration calls register (`add_option("max_conns")`)
        whose key holds `fragment` (any case), by path and line."""
        escaped = fragment.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.db.execute(
            "SELECT r.name, f.path, r.line FROM repo_refs r JOIN repo_content c ON c.id = r.content "
            "JOIN repo_files f ON f.hash = c.hash WHERE r.kind = 'registration' AND r.name LIKE ? ESCAPE '\\' "
            "ORDER BY f.path, r.line, r.name LIMIT ?",
            (f"%{escaped}%", limit),
        )
        return [(name, path, line) for name, path, line in rows]

    def symbol(self, symbol_id: int, path: str) -> SymbolRow | None:
        r = self.db.execute(
            "SELECT id, name, kind, qualified, parent, signature, start_line, end_line, doc, decorators "
            "FROM repo_symbols WHERE id = ?",
            (symbol_id,),
        ).fetchone()
        return SymbolRow(r[0], path, *r[1:]) if r else None

    def symbols_in(self, path: str) -> list[SymbolRow]:
        rows = self.db.execute(
            "SELECT s.id, f.path, s.name, s.kind, s.qualified, s.parent, s.signature, s.start_line, s.end_line, s.doc, "
            "s.decorators FROM repo_files f JOIN repo_symbols s ON s.hash = f.hash WHERE f.path = ? "
            "ORDER BY s.start_line, s.id",
            (path,),
        )
        return [SymbolRow(*r) for r in rows]

    def definitions(self, name: str) -> list[DefinitionRow]:
        rows = self.db.execute(
            "SELECT s.id, f.path, f.language, s.name, s.kind, s.qualified, s.parent, s.signature, s.start_line "
            "FROM repo_symbols s JOIN repo_files f ON f.hash = s.hash WHERE s.name = ? "
            "ORDER BY f.path, s.start_line, s.qualified, s.id",
            (name,),
        )
        return [DefinitionRow(*r) for r in rows]

    def names_like(self, fragment: str, *, limit: int) -> list[str]:
        """Distinct symbol names holding `fragment` (any case), shortest first."""
        # instr, not LIKE: no wildcard to escape and no pattern-length limit for a hostile fragment
        return [
            n
            for (n,) in self.db.execute(
                "SELECT DISTINCT name FROM repo_symbols WHERE instr(lower(name), lower(?)) > 0 "
                "ORDER BY length(name), name LIMIT ?",
                (fragment, limit),
            )
        ]

    def references(self, name: str, *, kind: str | None = None, limit: int = -1, offset: int = 0) -> list[ReferenceRow]:
        """References to `name` (of `kind` when given), by path and line; `limit` -1 = all."""
        rows = self.db.execute(
            "SELECT f.path, f.language, r.line, r.kind, r.receiver, (SELECT s.qualified FROM repo_symbols s "
            " WHERE s.hash = c.hash AND s.start_line <= r.line AND s.end_line >= r.line AND s.kind != 'constant' "
            " ORDER BY s.start_line DESC, s.end_line, s.id LIMIT 1) "
            "FROM repo_refs r JOIN repo_content c ON c.id = r.content JOIN repo_files f ON f.hash = c.hash "
            "WHERE r.name = ? AND (? IS NULL OR r.kind = ?) "
            "ORDER BY f.path, r.line, r.kind, r.receiver LIMIT ? OFFSET ?",
            (name, kind, kind, limit, offset),
        )
        return [ReferenceRow(*r) for r in rows]

    def bases_of(self, path: str, qualified: str) -> list[ReferenceRow]:
        """The `inherits` references of class `qualified` in `path` (its bases, by line), named."""
        rows = self.db.execute(
            "SELECT r.name, f.language, r.line, r.kind, r.receiver, (SELECT s.qualified FROM repo_symbols s "
            " WHERE s.hash = c.hash AND s.start_line <= r.line AND s.end_line >= r.line AND s.kind != 'constant' "
            " ORDER BY s.start_line DESC, s.end_line, s.id LIMIT 1) AS enclosing "
            "FROM repo_files f JOIN repo_content c ON c.hash = f.hash JOIN repo_refs r ON r.content = c.id "
            "WHERE f.path = ? AND r.kind = 'inherits' "
            "ORDER BY r.line, r.name",  # the order of bases within one line is not stored
            (path,),
        )
        return [BaseRow(r[0], ReferenceRow(path, *r[1:])) for r in rows if r[5] == qualified]

    def trait_impls_of(self, type_name: str, path: str | None) -> list[tuple[str, str]]:
        """`(path, qualified)` of the Rust `impl Trait for Type` blocks of `type_name`, in `path` (None: in
        any file), by path and line."""
        suffix = " for " + type_name
        rows = self.db.execute(
            "SELECT f.path, s.qualified FROM repo_symbols s JOIN repo_files f ON f.hash = s.hash "
            "WHERE s.kind = 'impl' AND f.language = 'rust' AND substr(s.name, -?) = ? AND (? IS NULL OR f.path = ?) "
            "ORDER BY f.path, s.start_line, s.id",
            (len(suffix), suffix, path, path),
        )
        return [(r[0], r[1]) for r in rows]

    def reference_kinds(self, name: str) -> dict[str, int]:
        """How many references to `name` there are of each kind."""
        rows = self.db.execute(
            "SELECT r.kind, count(*) FROM repo_refs r JOIN repo_content c ON c.id = r.content "
            "JOIN repo_files f ON f.hash = c.hash WHERE r.name = ? "
            "GROUP BY r.kind ORDER BY r.kind",
            (name,),
        )
        return dict(rows)

    def paths_with_names(self, stem_patterns: Sequence[str]) -> list[str]:
        out: list[str] = []
        for pattern in stem_patterns:
            out.extend(p for (p,) in self.db.execute("SELECT path FROM repo_files WHERE path GLOB ?", (pattern,)))
        return out

    # whole-index reads, for `pallium facts` ----------------------------------------------------------

    def file_facts(self) -> list[FileFactRow]:
        """Every indexed path, by path."""
        rows = self.db.execute(
            "SELECT f.path, f.hash, f.language, f.skip_reason, f.tracked, coalesce(c.lines, 0) FROM repo_files f "
            "LEFT JOIN repo_content c ON c.hash = f.hash ORDER BY f.path"
        )
        return [FileFactRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows]

    def all_symbols(self) -> list[SymbolRow]:
        rows = self.db.execute(
            "SELECT s.id, f.path, s.name, s.kind, s.qualified, s.parent, s.signature, s.start_line, s.end_line, s.doc "
            "FROM repo_files f JOIN repo_symbols s ON s.hash = f.hash WHERE s.kind != 'module' "
            "ORDER BY f.path, s.start_line, s.id"
        )
        return [SymbolRow(*r) for r in rows]

    def common_names(self, *, limit: int) -> list[str]:
        """The function, method and class names defined most often (for benchmarks' sample queries)."""
        return [
            n
            for (n,) in self.db.execute(
                "SELECT name FROM repo_symbols WHERE kind IN ('function', 'method', 'class') AND length(name) > 3 "
                "GROUP BY name ORDER BY count(*) DESC, name LIMIT ?",
                (limit,),
            )
        ]

    def all_edges(self) -> list[tuple[str, str]]:
        """`(importer, imported)` for every resolved import edge, once per pair."""
        return list(self.db.execute("SELECT DISTINCT src, dst FROM repo_edges ORDER BY src, dst"))

    def referencing_file_counts(self) -> dict[str, int]:
        """For each name defined somewhere in the index, how many distinct files reference it."""
        rows = self.db.execute(
            "SELECT r.name, count(DISTINCT f.path) FROM repo_refs r JOIN repo_content c ON c.id = r.content "
            "JOIN repo_files f ON f.hash = c.hash "
            "WHERE r.name IN (SELECT name FROM repo_symbols) GROUP BY r.name"
        )
        return dict(rows)

    def top_level_uses(self) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
        """`(path, name)` of every top-level definition of a parsed file, and `(path, name, receiver)`
        of every reference elsewhere to one of those names (for `surface_counts`)."""
        defs = list(
            self.db.execute(
                "SELECT DISTINCT f.path, s.name FROM repo_symbols s JOIN repo_files f ON f.hash = s.hash "
                "WHERE s.parent IS NULL AND s.kind != 'module' AND f.skip_reason IS NULL"
            )
        )
        uses = list(
            self.db.execute(
                "SELECT DISTINCT f.path, r.name, r.receiver FROM repo_refs r JOIN repo_content c ON c.id = r.content "
                "JOIN repo_files f ON f.hash = c.hash WHERE r.name IN "
                "(SELECT s.name FROM repo_symbols s WHERE s.parent IS NULL AND s.kind != 'module')"
            )
        )
        return defs, uses

    def edges_with_names(self) -> list[tuple[str, str, str, str]]:
        """`(importer, imported, import as written, names it brings)` for every resolved import edge."""
        return list(self.db.execute("SELECT src, dst, raw, names FROM repo_edges"))

    def commits_with_files(self, *, limit: int, subject_words: Sequence[str]) -> list[tuple[CommitRow, list[str]]]:
        """The newest `limit` commits, plus any whose subject holds one of `subject_words`, with their paths."""
        found: dict[str, CommitRow] = {}
        for r in self.db.execute(
            "SELECT sha, author, committed_at, subject FROM repo_commits ORDER BY committed_at DESC, rowid DESC "
            "LIMIT ?",
            (limit,),
        ):
            found[r[0]] = CommitRow(*r)
        for word in subject_words:
            for r in self.db.execute(
                # instr, not LIKE: `_` and `%` are letters here, and a long word is no "pattern too complex"
                "SELECT sha, author, committed_at, subject FROM repo_commits WHERE instr(lower(subject), lower(?)) > 0 "
                "ORDER BY committed_at DESC LIMIT 500",
                (word,),
            ):
                found.setdefault(r[0], CommitRow(*r))
        out = []
        for row in sorted(found.values(), key=lambda c: (-c.committed_at, c.sha)):
            paths = [
                p for (p,) in self.db.execute("SELECT path FROM repo_touches WHERE sha = ? ORDER BY path", (row.sha,))
            ]
            out.append((row, paths))
        return out

    def resolved_imports(self) -> set[tuple[str, str]]:
        """`(importer, import as written)` of every import that resolved to a file."""
        return set(self.db.execute("SELECT DISTINCT src, raw FROM repo_edges"))
