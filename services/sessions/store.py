"""The sessions tables in the global database: sessions, transcript files, messages (FTS5), raw events,
embedding spaces and vectors. The only module that names them in SQL.

A session row carries its parser state (JSON) so an appended transcript is parsed from where the last
sync stopped, and its capsule (JSON) so recall never re-reads a transcript. Vectors are float32 blobs
compared with sqlite-vec's `vec_distance_cosine`; each (provider, model, dimension) is its own space.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import apsw

from kernel.store import Database, Schema
from services.sessions.rows import (
    EmbedCandidate,
    FileRow,
    Filters,
    MatchScore,
    MessageMatch,
    MessageRow,
    NearSession,
    SessionRow,
    SpaceRow,
)

__all__ = [
    "SCHEMA",
    "EmbedCandidate",
    "FileRow",
    "MatchScore",
    "MessageMatch",
    "MessageRow",
    "NearSession",
    "SessionRow",
    "SessionsStore",
    "SpaceRow",
]

SCHEMA = Schema(
    "sessions",
    (
        """
        CREATE TABLE sessions_session (
            id TEXT PRIMARY KEY,
            source TEXT NOT NULL,
            native_id TEXT NOT NULL,
            agent_id TEXT,
            parent_id TEXT,
            parent_tool_use_id TEXT,
            agent_type TEXT,
            cwd TEXT,
            repo TEXT,
            git_branch TEXT,
            title TEXT,
            model TEXT,
            cli_version TEXT,
            created_at TEXT,
            updated_at TEXT,
            finished_at TEXT,
            message_count INTEGER NOT NULL DEFAULT 0,
            completion TEXT NOT NULL DEFAULT 'unknown',
            capsule TEXT NOT NULL DEFAULT '{}',
            state TEXT NOT NULL DEFAULT '{}',
            source_missing INTEGER NOT NULL DEFAULT 0,
            forgotten INTEGER NOT NULL DEFAULT 0,
            indexed_at TEXT NOT NULL
        )
        """,
        "CREATE INDEX sessions_session_updated ON sessions_session(updated_at)",
        "CREATE INDEX sessions_session_repo ON sessions_session(repo)",
        """
        CREATE TABLE sessions_file (
            path TEXT PRIMARY KEY,
            session_id TEXT NOT NULL,
            source TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            offset INTEGER NOT NULL,
            lines INTEGER NOT NULL,
            head_hash TEXT NOT NULL,
            malformed INTEGER NOT NULL DEFAULT 0,
            missing INTEGER NOT NULL DEFAULT 0,
            synced_at TEXT NOT NULL
        )
        """,
        "CREATE INDEX sessions_file_session ON sessions_file(session_id)",
        """
        CREATE TABLE sessions_message (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            line INTEGER NOT NULL,
            ts TEXT,
            role TEXT NOT NULL,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            tool_name TEXT,
            call_id TEXT,
            is_error INTEGER NOT NULL DEFAULT 0
        )
        """,
        "CREATE INDEX sessions_message_session_line ON sessions_message(session_id, line)",
        """
        CREATE VIRTUAL TABLE sessions_message_fts USING fts5(
            text, content='sessions_message', content_rowid='id', tokenize='porter unicode61'
        )
        """,
        """
        CREATE TRIGGER sessions_message_ai AFTER INSERT ON sessions_message BEGIN
            INSERT INTO sessions_message_fts(rowid, text) VALUES (new.id, new.text);
        END
        """,
        """
        CREATE TRIGGER sessions_message_ad AFTER DELETE ON sessions_message BEGIN
            INSERT INTO sessions_message_fts(sessions_message_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END
        """,
        """
        CREATE TABLE sessions_raw_event (
            session_id TEXT NOT NULL,
            line INTEGER NOT NULL,
            json TEXT NOT NULL,
            PRIMARY KEY (session_id, line)
        )
        """,
        """
        CREATE TABLE sessions_space (
            id INTEGER PRIMARY KEY,
            provider TEXT NOT NULL,
            model TEXT NOT NULL,
            dim INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            checked_at TEXT,
            UNIQUE (provider, model, dim)
        )
        """,
        """
        CREATE TABLE sessions_vector (
            space_id INTEGER NOT NULL REFERENCES sessions_space(id) ON DELETE CASCADE,
            session_id TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            embedding BLOB NOT NULL,
            PRIMARY KEY (space_id, session_id)
        )
        """,
        "CREATE VIRTUAL TABLE sessions_message_vocab USING fts5vocab(sessions_message_fts, 'row')",
        # The order spaces were made active in: the last one checked or started wins, even within one second.
        "ALTER TABLE sessions_space ADD COLUMN active_seq INTEGER NOT NULL DEFAULT 0",
        # Messages are added to the full-text index in bulk by `add_messages`/`index_messages_after`, not
        # row by row: FTS5 flushes its pending terms at the end of every statement that writes it, so a
        # per-row trigger wrote one tiny segment per message and then merged them (about 4x the cost).
        "DROP TRIGGER sessions_message_ai",
        # A filtered recall maps every matched message id to its session: from this small index, not from
        # the message rows themselves, which are large and scattered (half the time of a filtered recall).
        "CREATE INDEX sessions_message_id_session ON sessions_message(id, session_id)",
        # One row per sync run, so "last sync" is when a sync last ran, not when a file last changed.
        "CREATE TABLE sessions_run (id INTEGER PRIMARY KEY, finished_at TEXT NOT NULL, files_seen INTEGER NOT NULL, "
        "files_read INTEGER NOT NULL)",
        # A forget or prune whose checkpoint another process's read held back: the next write finishes it.
        "CREATE TABLE sessions_purge_pending (id INTEGER PRIMARY KEY CHECK (id = 1), since TEXT NOT NULL)",
    ),
    needs_vec=True,
)

# Matched messages joined to their sessions for a filter, the session of each read from the covering index.
_FILTERED_MATCHES = (
    "FROM sessions_message_fts JOIN sessions_message m INDEXED BY sessions_message_id_session "
    "ON m.id = sessions_message_fts.rowid JOIN sessions_session s ON s.id = m.session_id "
    "WHERE sessions_message_fts MATCH ?"
)

_SESSION_COLUMNS = (
    "id, source, native_id, agent_id, parent_id, parent_tool_use_id, agent_type, cwd, repo, git_branch, title, "
    "model, cli_version, created_at, updated_at, finished_at, message_count, completion, capsule, source_missing"
)


class SessionsStore:
    """Typed reads and writes over the sessions tables of one open database."""

    DATABASE = "global"
    SCHEMAS: tuple[Schema, ...] = (SCHEMA,)

    def __init__(self, db: Database) -> None:
        self.db = db
        self._tokenizer: apsw.FTS5Tokenizer | None = None
        self._ranker_registered = False

    # ------------------------------------------------------------ files

    def files(self, source: str) -> dict[str, FileRow]:
        rows = self.db.execute(
            "SELECT path, session_id, source, size, mtime_ns, inode, offset, lines, head_hash, malformed, missing "
            "FROM sessions_file WHERE source = ?",
            (source,),
        )
        return {r[0]: FileRow(*r[:10], bool(r[10])) for r in rows}

    def put_file(self, row: FileRow, synced_at: str) -> None:
        self.db.execute(
            "INSERT INTO sessions_file(path, session_id, source, size, mtime_ns, inode, offset, lines, head_hash, "
            "malformed, missing, synced_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(path) DO UPDATE SET "
            "session_id=excluded.session_id, size=excluded.size, mtime_ns=excluded.mtime_ns, inode=excluded.inode, "
            "offset=excluded.offset, lines=excluded.lines, head_hash=excluded.head_hash, "
            "malformed=excluded.malformed, missing=excluded.missing, synced_at=excluded.synced_at",
            (
                row.path,
                row.session_id,
                row.source,
                row.size,
                row.mtime_ns,
                row.inode,
                row.offset,
                row.lines,
                row.head_hash,
                row.malformed,
                int(row.missing),
                synced_at,
            ),
        )

    def mark_files_missing(self, paths: Sequence[str]) -> list[str]:
        """Flag vanished transcript files and their sessions; return the session ids newly marked."""
        marked: list[str] = []
        for path in paths:
            row = self.db.execute("SELECT session_id FROM sessions_file WHERE path = ? AND missing = 0", (path,)).get
            if row is None:
                continue
            self.db.execute("UPDATE sessions_file SET missing = 1 WHERE path = ?", (path,))
            self.db.execute("UPDATE sessions_session SET source_missing = 1 WHERE id = ?", (row,))
            marked.append(row)
        return marked

    def session_ids(self) -> set[str]:
        """Every session with a row, forgotten ones included: only these can hold messages."""
        return {r[0] for r in self.db.execute("SELECT id FROM sessions_session")}

    def forgotten_ids(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT id FROM sessions_session WHERE forgotten = 1")}

    # ------------------------------------------------------------ sessions

    def session_state(self, session_id: str) -> dict[str, Any] | None:
        text = self.db.execute("SELECT state FROM sessions_session WHERE id = ?", (session_id,)).get
        return json.loads(text) if text is not None else None

    def put_session(self, fields: dict[str, Any], state: dict[str, Any], capsule: dict[str, Any]) -> None:
        cols = [*fields, "state", "capsule"]
        values = [*fields.values(), json.dumps(state, separators=(",", ":")), json.dumps(capsule)]
        updates = ", ".join(f"{c}=excluded.{c}" for c in cols if c != "id")
        self.db.execute(
            f"INSERT INTO sessions_session({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) "
            f"ON CONFLICT(id) DO UPDATE SET {updates}",
            values,
        )

    def get(self, session_id: str) -> SessionRow | None:
        row = self.db.execute(
            f"SELECT {_SESSION_COLUMNS} FROM sessions_session WHERE id = ? AND forgotten = 0", (session_id,)
        ).fetchone()
        return _session(row) if row else None

    def resolve_prefix(self, prefix: str, limit: int = 5) -> list[str]:
        # substr, not LIKE: a 50,000-character prefix is "a LIKE pattern too complex" for SQLite
        rows = self.db.execute(
            "SELECT id FROM sessions_session WHERE forgotten = 0 AND substr(id, 1, length(?1)) = ?1 "
            "ORDER BY id LIMIT ?2",
            (prefix, limit),
        )
        return [r[0] for r in rows]

    def children(self, session_id: str) -> list[SessionRow]:
        rows = self.db.execute(
            f"SELECT {_SESSION_COLUMNS} FROM sessions_session WHERE parent_id = ? AND forgotten = 0 ORDER BY id",
            (session_id,),
        )
        return [_session(r) for r in rows]

    def list_sessions(
        self, filters: Filters, *, sort: str = "updated", limit: int = 50, offset: int = 0
    ) -> list[SessionRow]:
        where, args = _where(filters)
        order = "created_at" if sort == "created" else "updated_at"
        rows = self.db.execute(
            f"SELECT {_SESSION_COLUMNS} FROM sessions_session s WHERE {where} "
            f"ORDER BY {order} DESC, id LIMIT ? OFFSET ?",
            (*args, limit, offset),
        )
        return [_session(r) for r in rows]

    def repo_recorded_for(self, cwd: str) -> str | None:
        """The repository an earlier sync resolved for a session in `cwd` (while the folder existed)."""
        rows = self.db.execute(
            "SELECT repo FROM sessions_session WHERE cwd = ? AND repo IS NOT NULL AND repo != cwd AND forgotten = 0 "
            "ORDER BY updated_at DESC LIMIT 1",
            (cwd,),
        ).fetchall()
        return rows[0][0] if rows else None

    def repositories(self) -> list[str]:
        """Every repository the indexed top-level sessions belong to, most recently active first."""
        rows = self.db.execute(
            "SELECT repo FROM sessions_session WHERE repo IS NOT NULL AND forgotten = 0 AND parent_id IS NULL "
            "GROUP BY repo ORDER BY max(coalesce(updated_at, '')) DESC"
        )
        return [r[0] for r in rows]

    def sessions_by_ids(self, ids: Iterable[str]) -> dict[str, SessionRow]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        rows = self.db.execute(
            f"SELECT {_SESSION_COLUMNS} FROM sessions_session WHERE id IN ({', '.join('?' * len(wanted))})", wanted
        )
        return {r[0]: _session(r) for r in rows}

    def counts(self) -> dict[str, int]:
        one = self.db.execute
        return {
            "sessions": one("SELECT count(*) FROM sessions_session WHERE forgotten = 0").get,
            "forgotten": one("SELECT count(*) FROM sessions_session WHERE forgotten = 1").get,
            "source_missing": one(
                "SELECT count(*) FROM sessions_session WHERE source_missing = 1 AND forgotten = 0"
            ).get,
            "files": one("SELECT count(*) FROM sessions_file").get,
            "messages": one("SELECT count(*) FROM sessions_message").get,
            "raw_events": one("SELECT count(*) FROM sessions_raw_event").get,
            "vectors": one("SELECT count(*) FROM sessions_vector").get,
        }

    def session_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM sessions_session WHERE forgotten = 0").get

    def last_sync_at(self) -> str | None:
        """When a sync last ran (a run that changed nothing counts), else when a file was last indexed."""
        ran = self.db.execute("SELECT max(finished_at) FROM sessions_run").get
        return ran or self.db.execute("SELECT max(synced_at) FROM sessions_file").get

    def record_run(self, finished_at: str, files_seen: int, files_read: int) -> None:
        with self.db.transaction():
            self.db.execute(
                "INSERT INTO sessions_run (finished_at, files_seen, files_read) VALUES (?, ?, ?)",
                (finished_at, files_seen, files_read),
            )
            self.db.execute("DELETE FROM sessions_run WHERE id <= (SELECT max(id) FROM sessions_run) - 100")

    def sessions_older_than(self, cutoff: str) -> list[SessionRow]:
        rows = self.db.execute(
            f"SELECT {_SESSION_COLUMNS} FROM sessions_session WHERE forgotten = 0 AND coalesce(updated_at, '') < ? "
            "ORDER BY updated_at",
            (cutoff,),
        )
        return [_session(r) for r in rows]

    def forget(self, session_id: str) -> int:
        """Drop a session's messages, raw events and vectors; keep a tombstone so sync does not bring it back."""
        removed = self.db.execute("SELECT count(*) FROM sessions_message WHERE session_id = ?", (session_id,)).get
        self.db.execute("DELETE FROM sessions_message WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM sessions_raw_event WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM sessions_vector WHERE session_id = ?", (session_id,))
        self.db.execute(  # a tombstone keeps no text: no title, folder, repository, branch, model or version
            "UPDATE sessions_session SET forgotten = 1, capsule = '{}', state = '{}', title = NULL, cwd = NULL, "
            "repo = NULL, git_branch = NULL, model = NULL, cli_version = NULL, agent_type = NULL, "
            "parent_tool_use_id = NULL, message_count = 0 WHERE id = ?",
            (session_id,),
        )
        return removed

    # ------------------------------------------------------------ messages

    def clear_messages(self, session_id: str) -> None:
        self.db.execute("DELETE FROM sessions_message WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM sessions_raw_event WHERE session_id = ?", (session_id,))

    def add_messages(self, rows: Sequence[MessageRow], *, index: bool = True) -> None:
        """Insert messages and (unless the caller indexes them later with `index_messages_after`) add them
        to the full-text index in one statement."""
        before = self.message_id_span() if index else 0
        self.db.executemany(
            "INSERT INTO sessions_message(session_id, line, ts, role, kind, text, tool_name, call_id, is_error) "
            "VALUES (?,?,?,?,?,?,?,?,?)",
            [
                (m.session_id, m.line, m.ts, m.role, m.kind, m.text, m.tool_name, m.call_id, int(m.is_error))
                for m in rows
            ],
        )
        if index and rows:
            self.index_messages_after(before)

    def index_messages_after(self, after_id: int) -> None:
        """Add every message with an id above `after_id` to the full-text index (they must not be in it yet)."""
        self.db.execute(
            "INSERT INTO sessions_message_fts(rowid, text) SELECT id, text FROM sessions_message WHERE id > ?",
            (after_id,),
        )

    def has_messages(self, session_id: str) -> bool:
        return (
            self.db.execute("SELECT 1 FROM sessions_message WHERE session_id = ? LIMIT 1", (session_id,)).get
            is not None
        )

    def has_raw_events(self, session_id: str) -> bool:
        found = self.db.execute("SELECT 1 FROM sessions_raw_event WHERE session_id = ? LIMIT 1", (session_id,)).get
        return found is not None

    def add_raw_events(self, session_id: str, events: Sequence[tuple[int, str]]) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO sessions_raw_event(session_id, line, json) VALUES (?,?,?)",
            [(session_id, line, text) for line, text in events],
        )

    def messages(self, session_id: str, *, from_line: int, limit: int) -> list[MessageRow]:
        rows = self.db.execute(
            "SELECT session_id, line, ts, role, kind, text, tool_name, call_id, is_error FROM sessions_message "
            "WHERE session_id = ? AND line >= ? ORDER BY line, id LIMIT ?",
            (session_id, from_line, limit),
        )
        return [MessageRow(*r[:8], bool(r[8])) for r in rows]

    def search(
        self, match: str, filters: Filters, *, limit: int, offset: int = 0, snippets: bool = True
    ) -> list[MessageMatch]:
        """Messages matching an FTS5 expression, best BM25 first, with a short highlighted snippet if asked."""
        where, args = _where(filters)
        snippet = "snippet(sessions_message_fts, 0, '[', ']', ' … ', 24)" if snippets else "''"
        columns = "m.session_id, m.line, m.ts, m.role, m.kind, m.text, m.tool_name, m.call_id, m.is_error"
        if filters == Filters():
            # No filter: let FTS5 rank and cut to the page itself (ORDER BY rank), then join only the page.
            rows = self.db.execute(
                f"SELECT {columns}, f.score, f.snip FROM (SELECT rowid, rank AS score, {snippet} AS snip "
                "FROM sessions_message_fts WHERE sessions_message_fts MATCH ? ORDER BY rank LIMIT ? OFFSET ?) f "
                "JOIN sessions_message m ON m.id = f.rowid ORDER BY f.score",
                (match, limit, offset),
            )
        else:
            rows = self.db.execute(
                f"SELECT {columns}, bm25(sessions_message_fts) AS score, {snippet} "
                "FROM sessions_message_fts JOIN sessions_message m ON m.id = sessions_message_fts.rowid "
                f"JOIN sessions_session s ON s.id = m.session_id WHERE sessions_message_fts MATCH ? AND {where} "
                "ORDER BY score LIMIT ? OFFSET ?",
                (match, *args, limit, offset),
            )
        return [MessageMatch(MessageRow(*r[:8], bool(r[8])), r[9], r[10]) for r in rows]

    def best_in_sessions(self, match: str, session_ids: Sequence[str], *, scan: int = 400) -> dict[str, MessageRow]:
        """For each of `session_ids`, its best message (BM25) matching an FTS5 expression, if any."""
        if not session_ids:
            return {}
        marks = ", ".join("?" for _ in session_ids)
        rows = self.db.execute(
            "SELECT m.session_id, m.line, m.ts, m.role, m.kind, m.text, m.tool_name, m.call_id, m.is_error "
            "FROM sessions_message_fts JOIN sessions_message m ON m.id = sessions_message_fts.rowid "
            f"WHERE sessions_message_fts MATCH ? AND m.session_id IN ({marks}) "
            "ORDER BY bm25(sessions_message_fts) LIMIT ?",
            (match, *session_ids, scan),
        )
        best: dict[str, MessageRow] = {}
        for r in rows:
            best.setdefault(r[0], MessageRow(*r[:8], bool(r[8])))
        return best

    def message_id_span(self) -> int:
        """The highest message id: about the number of messages, read without counting them."""
        return self.db.execute("SELECT coalesce(max(id), 0) FROM sessions_message").get

    def word_doc_counts(self, words: Sequence[str]) -> dict[str, int]:
        """How many messages hold each word as the index stores it (stemmed); a word the tokenizer splits
        into several tokens (`test_checkout`) counts the messages holding them as a phrase."""
        if self._tokenizer is None:
            self._tokenizer = self.db.conn.fts5_tokenizer("porter", ["unicode61"])
        found: dict[str, int] = {}
        for word in words:
            tokens = self._tokenizer(word.encode("utf-8"), apsw.FTS5_TOKENIZE_QUERY, None)
            if len(tokens) == 1:
                count = self.db.execute("SELECT doc FROM sessions_message_vocab WHERE term = ?", (tokens[0][2],)).get
            elif tokens:
                count = self.count_matches('"' + word.replace('"', '""') + '"', Filters())
            else:
                count = 0
            found[word] = count or 0
        return found

    def count_matches(self, match: str, filters: Filters, *, cap: int | None = None) -> int:
        """How many messages match an FTS5 expression, counting no further than `cap`."""
        where, args = _where(filters)
        if filters == Filters():
            inner, bindings = "SELECT rowid FROM sessions_message_fts WHERE sessions_message_fts MATCH ?", [match]
        else:
            inner = f"SELECT m.id {_FILTERED_MATCHES} AND {where}"
            bindings = [match, *args]
        if cap is not None:
            inner += " LIMIT ?"
            bindings.append(cap)
        return self.db.execute(f"SELECT count(*) FROM ({inner})", bindings).get

    def rank_matches(self, match: str, filters: Filters, *, limit: int, plan: str | None = None) -> list[MatchScore]:
        """The ids of the best `limit` messages matching an FTS5 expression with their scores, lowest first:
        scored by `recall_rank` with `plan` when given (see lexical.py), else by FTS5's bm25()."""
        if plan is not None:
            self._register_ranker()
            score, score_args = "recall_rank(sessions_message_fts, ?)", [plan]
        else:
            score, score_args = "bm25(sessions_message_fts)", []
        if filters == Filters():
            order = "rank" if plan is None else "score"  # rank: FTS5 sorts by bm25() itself, no sort step
            rows = self.db.execute(
                f"SELECT rowid, {score} AS score FROM sessions_message_fts WHERE sessions_message_fts MATCH ? "
                f"ORDER BY {order} LIMIT ?",
                (*score_args, match, limit),
            )
            return [MatchScore(message_id, value) for message_id, value in rows]
        where, args = _where(filters)
        rows = self.db.execute(
            f"SELECT m.id, {score} AS score {_FILTERED_MATCHES} AND {where} ORDER BY score LIMIT ?",
            (*score_args, match, *args, limit),
        )
        return [MatchScore(message_id, value) for message_id, value in rows]

    def messages_by_ids(self, ids: Sequence[int]) -> dict[int, MessageRow]:
        rows = self.db.execute(
            "SELECT id, session_id, line, ts, role, kind, text, tool_name, call_id, is_error FROM sessions_message "
            "WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(ids)),),
        )
        return {r[0]: MessageRow(*r[1:9], bool(r[9])) for r in rows}

    def _register_ranker(self) -> None:
        if not self._ranker_registered:
            from services.sessions.lexical import recall_rank

            self.db.conn.register_fts5_function("recall_rank", recall_rank)
            self._ranker_registered = True

    def message_at(self, session_id: str, line: int) -> MessageRow | None:
        r = self.db.execute(
            "SELECT session_id, line, ts, role, kind, text, tool_name, call_id, is_error FROM sessions_message "
            "WHERE session_id = ? AND line = ? ORDER BY id LIMIT 1",
            (session_id, line),
        ).fetchone()
        return MessageRow(*r[:8], bool(r[8])) if r else None

    def result_of(self, session_id: str, call_id: str) -> MessageRow | None:
        """The tool result answering `call_id`, when it was indexed."""
        r = self.db.execute(
            "SELECT session_id, line, ts, role, kind, text, tool_name, call_id, is_error FROM sessions_message "
            "WHERE session_id = ? AND call_id = ? AND kind = 'tool_result' ORDER BY line LIMIT 1",
            (session_id, call_id),
        ).fetchone()
        return MessageRow(*r[:8], bool(r[8])) if r else None

    # ------------------------------------------------------------ upkeep

    def fts_integrity_ok(self) -> bool:
        try:
            self.db.execute(
                "INSERT INTO sessions_message_fts(sessions_message_fts, rank) VALUES ('integrity-check', 1)"
            )
        except Exception:  # apsw raises CorruptError-like errors for a damaged index; the answer is "not ok"
            return False
        return True

    def rebuild_fts(self) -> None:
        self.db.execute("INSERT INTO sessions_message_fts(sessions_message_fts) VALUES ('rebuild')")

    def orphans(self) -> dict[str, int]:
        one = self.db.execute
        return {
            "messages_without_session": one(
                "SELECT count(*) FROM sessions_message WHERE session_id NOT IN (SELECT id FROM sessions_session)"
            ).get,
            "files_without_session": one(
                "SELECT count(*) FROM sessions_file WHERE session_id NOT IN (SELECT id FROM sessions_session)"
            ).get,
        }

    def delete_orphans(self) -> None:
        self.db.execute("DELETE FROM sessions_message WHERE session_id NOT IN (SELECT id FROM sessions_session)")
        self.db.execute("DELETE FROM sessions_file WHERE session_id NOT IN (SELECT id FROM sessions_session)")

    def prune_raw_events(self) -> int:
        n = self.db.execute("SELECT count(*) FROM sessions_raw_event").get
        self.db.execute("DELETE FROM sessions_raw_event")
        return n

    def vacuum(self) -> None:
        self.db.execute("VACUUM")

    @contextmanager
    def erasing(self, wait_s: float = 2.0) -> Iterator[dict[str, bool]]:
        """Delete for good inside this block: SQLite zeroes what it frees (`secure_delete`), then the
        full-text index is merged (FTS5 keeps deleted words in old segments until then) and the WAL is
        checkpointed and truncated, so no forgotten text stays in the file's free pages or the WAL.

        Another process reading the database holds the checkpoint back (its snapshot still needs the old
        pages): the checkpoint is retried for `wait_s` seconds; past that the yielded dict says
        `purged: False`, a pending row is kept, and the next write (`finish_purge`, run by every sync)
        completes it."""
        result = {"purged": False}
        self.db.execute("PRAGMA secure_delete = ON").fetchall()
        try:
            yield result
            with self.db.transaction():
                self.db.execute("INSERT INTO sessions_message_fts(sessions_message_fts) VALUES ('optimize')")
            result["purged"] = self._checkpoint(wait_s)
            if not result["purged"]:
                self.db.execute(
                    "INSERT OR IGNORE INTO sessions_purge_pending(id, since) VALUES (1, strftime('%Y-%m-%dT%H:%M:%SZ'))"
                )
        finally:
            self.db.execute("PRAGMA secure_delete = OFF").fetchall()

    def purge_pending(self) -> bool:
        return self.db.execute("SELECT count(*) FROM sessions_purge_pending").get > 0

    def finish_purge(self, wait_s: float = 0.5) -> bool:
        """Complete a purge an earlier forget or prune left pending; True when none is left."""
        if not self.purge_pending():
            return True
        self.db.execute("PRAGMA secure_delete = ON").fetchall()
        try:
            self.db.execute("DELETE FROM sessions_purge_pending")  # in the WAL too, so the checkpoint clears it
            if self._checkpoint(wait_s):
                return True
            self.db.execute(
                "INSERT OR IGNORE INTO sessions_purge_pending(id, since) VALUES (1, strftime('%Y-%m-%dT%H:%M:%SZ'))"
            )
            return False
        finally:
            self.db.execute("PRAGMA secure_delete = OFF").fetchall()

    def _checkpoint(self, wait_s: float) -> bool:
        """A TRUNCATE checkpoint that copied every frame, retried with a short busy wait for `wait_s`."""
        import time

        from kernel.store import BUSY_TIMEOUT_MS

        deadline = time.monotonic() + wait_s
        self.db.conn.set_busy_timeout(100)
        try:
            while True:
                busy, log, copied = self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()[0]
                if not busy and log == copied:  # TRUNCATE that got through leaves an empty WAL (0, 0)
                    return True
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.05)
        finally:
            self.db.conn.set_busy_timeout(BUSY_TIMEOUT_MS)

    # ------------------------------------------------------------ vectors

    def space(self, provider: str, model: str, dim: int, now: str) -> int:
        self.db.execute(
            "INSERT OR IGNORE INTO sessions_space(provider, model, dim, created_at) VALUES (?,?,?,?)",
            (provider, model, dim, now),
        )
        return self.db.execute(
            "SELECT id FROM sessions_space WHERE provider = ? AND model = ? AND dim = ?", (provider, model, dim)
        ).get

    def find_space(self, provider: str, model: str, dim: int | None = None) -> SpaceRow | None:
        """The space last made active for a provider and model (and size, when given)."""
        row = self.db.execute(
            "SELECT id, dim FROM sessions_space WHERE provider = ? AND model = ? AND (? IS NULL OR dim = ?) "
            "ORDER BY active_seq DESC, coalesce(checked_at, created_at) DESC, id DESC LIMIT 1",
            (provider, model, dim, dim),
        ).fetchone()
        return SpaceRow(row[0], row[1]) if row else None

    def space_has_vectors(self, space_id: int) -> bool:
        return self.db.execute("SELECT 1 FROM sessions_vector WHERE space_id = ? LIMIT 1", (space_id,)).get is not None

    def mark_space_checked(self, space_id: int, now: str) -> None:
        self.db.execute(
            "UPDATE sessions_space SET checked_at = ?, active_seq = (SELECT max(active_seq) + 1 FROM sessions_space) "
            "WHERE id = ?",
            (now, space_id),
        )

    def spaces(self) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT sp.id, sp.provider, sp.model, sp.dim, sp.checked_at, "
            "(SELECT count(*) FROM sessions_vector v WHERE v.space_id = sp.id) FROM sessions_space sp ORDER BY sp.id"
        )
        keys = ("id", "provider", "model", "dim", "checked_at", "vectors")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def embed_candidates(self, space_id: int, limit: int) -> list[EmbedCandidate]:
        """The most recent sessions with what their vector in `space_id` was computed from."""
        rows = self.db.execute(
            "SELECT s.id, s.capsule, s.title, s.repo, s.cwd, s.git_branch, coalesce(v.text_hash, '') "
            "FROM sessions_session s LEFT JOIN sessions_vector v ON v.session_id = s.id AND v.space_id = ? "
            "WHERE s.forgotten = 0 ORDER BY s.updated_at DESC LIMIT ?",
            (space_id, limit),
        )
        return [
            EmbedCandidate(
                r[0], json.loads(r[1] or "{}"), {"title": r[2], "repo": r[3], "cwd": r[4], "git_branch": r[5]}, r[6]
            )
            for r in rows
        ]

    def put_vector(self, space_id: int, session_id: str, text_hash: str, blob: bytes) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO sessions_vector(space_id, session_id, text_hash, embedding) VALUES (?,?,?,?)",
            (space_id, session_id, text_hash, blob),
        )

    def nearest(self, space_id: int, query: bytes, filters: Filters, limit: int) -> list[NearSession]:
        where, args = _where(filters)
        rows = self.db.execute(
            "SELECT v.session_id, vec_distance_cosine(v.embedding, ?) AS d FROM sessions_vector v "
            f"JOIN sessions_session s ON s.id = v.session_id WHERE v.space_id = ? AND {where} ORDER BY d LIMIT ?",
            (query, space_id, *args, limit),
        )
        return [NearSession(session_id, distance) for session_id, distance in rows]


def _session(row: Sequence[Any]) -> SessionRow:
    values = list(row)
    values[18] = json.loads(values[18] or "{}")
    values[19] = bool(values[19])
    return SessionRow(*values)


def _where(f: Filters) -> tuple[str, list[Any]]:
    clauses, args = ["s.forgotten = 0"], []
    if f.repo:
        clauses.append("(s.repo = ? OR s.cwd = ? OR substr(s.cwd, 1, length(?)) = ?)")
        folder = f.repo.rstrip("/") + "/"
        args += [f.repo, f.repo, folder, folder]
    if f.cwd:
        clauses.append("s.cwd = ?")
        args.append(f.cwd)
    if f.source:
        clauses.append("s.source = ?")
        args.append(f.source)
    if f.file:
        clauses.append("instr(lower(s.capsule), ?) > 0")
        args.append(f.file.lower())
    if f.since:
        clauses.append("s.updated_at >= ?")
        args.append(f.since)
    if f.before:
        clauses.append("s.created_at < ?")
        args.append(f.before)
    if f.completion:
        clauses.append("s.completion = ?")
        args.append(f.completion)
    if f.updated_before:
        clauses.append("s.updated_at < ?")
        args.append(f.updated_before)
    if f.finished_after:
        clauses.append("s.finished_at >= ?")
        args.append(f.finished_after)
    if f.top_level:
        clauses.append("s.parent_id IS NULL")
    return " AND ".join(clauses), args
