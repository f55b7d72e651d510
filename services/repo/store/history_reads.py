"""The queries over the git half of the index (commits, the files each touched, renames, co-change
pairs, line counts, decision notes) that `explain`, `risk`, `hotspots` and `decisions` answer from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kernel.store import Database
from services.repo.rows import (
    CommitRow,
    DecisionHit,
    ExitRow,
    HotspotRow,
    LifeRow,
    PairRow,
    TouchRow,
)
from services.repo.store.schema import CHUNK


class HistoryReads:
    """Reads of the git half: commits, touches, renames, co-change pairs, churn, decisions."""

    db: Database

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
        for start in range(0, len(listed), CHUNK):
            chunk = listed[start : start + CHUNK]
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
        for start in range(0, len(paths), CHUNK):
            chunk = list(paths[start : start + CHUNK])
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
        for start in range(0, len(paths), CHUNK):
            chunk = list(paths[start : start + CHUNK])
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
        for start in range(0, len(paths), CHUNK):
            chunk = list(paths[start : start + CHUNK])
            marks = ", ".join("?" * len(chunk))
            out |= {p for (p,) in self.db.execute(f"SELECT path FROM repo_files WHERE path IN ({marks})", chunk)}
        return out

    def moved_among(self, paths: Sequence[str]) -> set[str]:
        """Those of `paths` that no indexed file holds now, or that a file left (deleted, renamed away)."""
        out = set(paths) - self.indexed_among(paths)
        for start in range(0, len(paths), CHUNK):
            chunk = list(paths[start : start + CHUNK])
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
