"""The statements an index run writes with: every INSERT, UPDATE and DELETE over the repository
index's tables, and the bulk-load helpers that keep a cold index's inserts cheap."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from kernel.store import Database
from services.repo.rows import (
    ContentFacts,
    FileRow,
)
from services.repo.store.schema import CHUNK, REF_INDEXES


class IndexWrites:
    """What an index run writes: state, the git half's rows, content facts, import edges, search rows."""

    db: Database

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
        self.db.execute(REF_INDEXES)

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

    def update_edges(self, edges: Iterable[tuple[str, str, str, str]]) -> None:
        """Make the import edges exactly `edges`, touching only the rows that differ."""
        self._sync_edges(set(self.db.execute("SELECT src, dst, raw, names FROM repo_edges")), set(edges))

    def replace_edges_from(self, sources: Iterable[str], edges: Iterable[tuple[str, str, str, str]]) -> None:
        """Make the import edges out of `sources` exactly `edges` (all of which leave `sources`)."""
        listed = sorted(sources)
        stored: set[tuple[str, str, str, str]] = set()
        for i in range(0, len(listed), CHUNK):
            chunk = listed[i : i + CHUNK]
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
            for start in range(0, len(dropped), CHUNK):  # chunks, not three statements per path
                chunk = dropped[start : start + CHUNK]
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
            for start in range(0, len(changed_paths), CHUNK):
                chunk = changed_paths[start : start + CHUNK]
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
