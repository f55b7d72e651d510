"""The workflows service's tables: runs as the user asked for them, their events, gate verdicts and
the decisions their scripts recorded.

The kernel keeps what every run needs (lease, journal, patches, budget) in its own tables; this
store keeps what only a workflow has: the task, the script and its hash, args, the result.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kernel.runstore import SCHEMA as RUNS_SCHEMA
from kernel.store import Database, Schema

__all__ = ["SCHEMA", "DecisionRow", "EventRow", "GateRow", "RunRow", "WorkflowStore"]

SCHEMA = Schema(
    "workflows",
    (
        """
        CREATE TABLE workflows_run (
            id TEXT PRIMARY KEY,
            task TEXT NOT NULL,
            repo TEXT NOT NULL,
            script_path TEXT,
            script TEXT NOT NULL,
            script_hash TEXT NOT NULL,
            args_json TEXT NOT NULL,
            limits_json TEXT NOT NULL,
            status TEXT NOT NULL,
            result_json TEXT,
            error TEXT,
            script_changed INTEGER NOT NULL DEFAULT 0,
            attempts INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX workflows_run_by_update ON workflows_run(updated_at);
        CREATE TABLE workflows_event (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES workflows_run(id) ON DELETE CASCADE,
            attempt INTEGER NOT NULL,
            kind TEXT NOT NULL,
            phase TEXT,
            detail_json TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX workflows_event_by_run ON workflows_event(run_id, id);
        CREATE TABLE workflows_gate (
            run_id TEXT NOT NULL REFERENCES workflows_run(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            approved INTEGER NOT NULL,
            reason TEXT,
            evidence_json TEXT NOT NULL,
            at TEXT NOT NULL,
            PRIMARY KEY (run_id, name)
        );
        """,
        # Human gates: a gate waits (`pending`) until a person decides; `by` says who decided.
        """
        ALTER TABLE workflows_gate ADD COLUMN state TEXT NOT NULL DEFAULT 'decided';
        ALTER TABLE workflows_gate ADD COLUMN prompt TEXT;
        ALTER TABLE workflows_gate ADD COLUMN decided_by TEXT NOT NULL DEFAULT 'verifier';
        """,
        # Decisions a script records with pallium.decisions.record. The id is a hash of (run, title,
        # body, tags), so the same call replayed by a resume finds its row instead of adding one.
        """
        CREATE TABLE workflows_decision (
            id TEXT PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES workflows_run(id) ON DELETE CASCADE,
            title TEXT NOT NULL,
            body TEXT NOT NULL,
            tags_json TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX workflows_decision_by_run ON workflows_decision(run_id, created_at);
        """,
        # Scripts `workflow generate --output` wrote into a repository: Pallium's own files, which a
        # review of the user's changes leaves out while they still hold what was written.
        """
        CREATE TABLE workflows_generated (
            repo TEXT NOT NULL,
            path TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            at TEXT NOT NULL,
            PRIMARY KEY (repo, path)
        );
        """,
    ),
)

_RUN_COLUMNS = (
    "id, task, repo, script_path, script, script_hash, args_json, limits_json, status, result_json, error, "
    "script_changed, attempts, created_at, updated_at"
)


@dataclass(frozen=True)
class RunRow:
    id: str
    task: str
    repo: str
    script_path: str | None
    script: str
    script_hash: str
    args: Any
    limits: dict[str, Any]
    status: str
    result: Any
    error: str | None
    script_changed: bool
    attempts: int
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class EventRow:
    attempt: int
    kind: str
    phase: str | None
    detail: dict[str, Any]
    at: str


@dataclass(frozen=True)
class GateRow:
    name: str
    approved: bool
    reason: str | None
    evidence: list[Any]
    state: str = "decided"  # decided | pending
    prompt: str | None = None
    decided_by: str = "verifier"  # verifier | person


@dataclass(frozen=True)
class DecisionRow:
    id: str
    run_id: str
    title: str
    body: str
    tags: list[str]
    created_at: str


class WorkflowStore:
    DATABASE = "global"
    SCHEMAS: tuple[Schema, ...] = (RUNS_SCHEMA, SCHEMA)

    def __init__(self, db: Database) -> None:
        self.db = db
        # told (run id, what: status | gate | event | decision) after each change: a run on a shared
        # database publishes its record to other machines from here (services/workflows/shared.py)
        self.on_change: Callable[[str, str], None] | None = None

    def _changed(self, run_id: str, what: str) -> None:
        if self.on_change is not None:
            self.on_change(run_id, what)

    # ------------------------------------------------------------ a run's record for other machines

    def export_run(self, run_id: str) -> dict[str, list[dict[str, Any]]]:
        """The run's rows as another machine needs them: the run, its gates and decisions, and the events
        of its latest attempt (the newest 2,000), which is what status and report read."""
        from kernel.store import export_rows

        runs = export_rows(self.db, "workflows_run", "id = ?", (run_id,))
        attempt = runs[0]["attempts"] if runs else 0
        return {
            "run": runs,
            "events": [
                {k: v for k, v in e.items() if k != "id"}
                for e in export_rows(
                    self.db, "workflows_event", "run_id = ? AND attempt = ?", (run_id, attempt), tail=2000
                )
            ],
            "gates": export_rows(self.db, "workflows_gate", "run_id = ?", (run_id,)),
            "decisions": export_rows(self.db, "workflows_decision", "run_id = ?", (run_id,)),
        }

    def import_run(self, dump: dict[str, list[dict[str, Any]]], *, repo: str | None = None) -> None:
        """Make this database's copy of a run what `dump` (another machine's `export_run`) says.

        `repo` replaces the run's repository path: another machine's path means nothing here.
        """
        from kernel.store import import_rows

        runs = [dict(r, repo=repo) if repo else r for r in dump.get("run", [])]
        if not runs:
            return
        run_id = runs[0]["id"]
        with self.db.transaction():
            attempt = runs[0]["attempts"]
            self.db.execute("DELETE FROM workflows_event WHERE run_id = ? AND attempt = ?", (run_id, attempt))
            self.db.execute("DELETE FROM workflows_gate WHERE run_id = ?", (run_id,))
            import_rows(self.db, "workflows_run", runs, key=("id",))
            import_rows(self.db, "workflows_event", dump.get("events", []))
            import_rows(self.db, "workflows_gate", dump.get("gates", []), key=("run_id", "name"))
            import_rows(self.db, "workflows_decision", dump.get("decisions", []), key=("id",))

    def create_run(
        self,
        *,
        run_id: str,
        task: str,
        repo: str,
        script_path: str | None,
        script: str,
        script_hash: str,
        args: Any,
        limits: dict[str, Any],
        now: str,
    ) -> RunRow:
        """A new run, `queued` with no attempt yet; `begin_attempt` starts each attempt."""
        self.db.execute(
            f"INSERT INTO workflows_run ({_RUN_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', NULL, NULL, 0, 0, ?, ?)",
            (run_id, task, repo, script_path, script, script_hash, json.dumps(args), json.dumps(limits), now, now),
        )
        row = self.run(run_id)
        assert row is not None
        return row

    def begin_attempt(self, run_id: str, *, script: str, script_hash: str, script_changed: bool, now: str) -> int:
        with self.db.transaction():
            self.db.execute(
                "UPDATE workflows_run SET status = 'running', script = ?, script_hash = ?, error = NULL, "
                "script_changed = script_changed OR ?, attempts = attempts + 1, updated_at = ? WHERE id = ?",
                (script, script_hash, int(script_changed), now, run_id),
            )
            attempt: int = self.db.execute("SELECT attempts FROM workflows_run WHERE id = ?", (run_id,)).get
        self._changed(run_id, "status")
        return attempt

    def finish(self, run_id: str, *, status: str, result: Any, error: str | None, now: str) -> None:
        self.db.execute(
            "UPDATE workflows_run SET status = ?, result_json = ?, error = ?, updated_at = ? WHERE id = ?",
            (status, json.dumps(result) if result is not None else None, error, now, run_id),
        )
        self._changed(run_id, "status")

    def remember_generated(self, repo: str, path: str, content_hash: str, *, now: str) -> None:
        self.db.execute(
            "INSERT INTO workflows_generated (repo, path, content_hash, at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (repo, path) DO UPDATE SET content_hash = excluded.content_hash, at = excluded.at",
            (repo, path, content_hash, now),
        )

    def generated(self, repo: str) -> dict[str, str]:
        """Repository-relative path -> hash of what `workflow generate` wrote there."""
        rows = self.db.execute("SELECT path, content_hash FROM workflows_generated WHERE repo = ?", (repo,))
        return {path: content_hash for path, content_hash in rows}

    def set_status(self, run_id: str, status: str, *, now: str) -> None:
        self.db.execute("UPDATE workflows_run SET status = ?, updated_at = ? WHERE id = ?", (status, now, run_id))
        self._changed(run_id, "status")

    def run(self, run_id: str) -> RunRow | None:
        row = self.db.execute(f"SELECT {_RUN_COLUMNS} FROM workflows_run WHERE id = ?", (run_id,)).fetchone()
        return _run_row(row) if row else None

    def ids_starting_with(self, prefix: str, limit: int = 2) -> list[str]:
        # substr, not LIKE: a 50,000-character prefix is "a LIKE pattern too complex" for SQLite
        rows = self.db.execute(
            "SELECT id FROM workflows_run WHERE substr(id, 1, length(?1)) = ?1 ORDER BY id LIMIT ?2", (prefix, limit)
        )
        return [r[0] for r in rows]

    def runs(self, *, limit: int, before: str | None = None) -> list[RunRow]:
        """Newest first; `before` is the `updated_at|id` of the last row of the previous page."""
        if before is None:
            rows = self.db.execute(
                f"SELECT {_RUN_COLUMNS} FROM workflows_run ORDER BY updated_at DESC, id DESC LIMIT ?", (limit,)
            )
        else:
            at, _, run_id = before.partition("|")
            rows = self.db.execute(
                f"SELECT {_RUN_COLUMNS} FROM workflows_run WHERE (updated_at, id) < (?, ?) "
                "ORDER BY updated_at DESC, id DESC LIMIT ?",
                (at, run_id, limit),
            )
        return [_run_row(r) for r in rows]

    def add_event(
        self, run_id: str, *, attempt: int, kind: str, phase: str | None, detail: dict[str, Any], now: str
    ) -> None:
        self.db.execute(
            "INSERT INTO workflows_event (run_id, attempt, kind, phase, detail_json, at) VALUES (?, ?, ?, ?, ?, ?)",
            (run_id, attempt, kind, phase, json.dumps(detail, default=str), now),
        )
        self._changed(run_id, "event")

    def events(self, run_id: str, *, kind: str | None = None, attempt: int | None = None) -> list[EventRow]:
        sql = "SELECT attempt, kind, phase, detail_json, at FROM workflows_event WHERE run_id = ?"
        params: list[Any] = [run_id]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        if attempt is not None:
            sql += " AND attempt = ?"
            params.append(attempt)
        rows = self.db.execute(sql + " ORDER BY id", params)
        return [EventRow(a, k, p, json.loads(d), at) for a, k, p, d, at in rows]

    def gate(self, run_id: str, name: str) -> GateRow | None:
        row = self.db.execute(
            f"SELECT {_GATE_COLUMNS} FROM workflows_gate WHERE run_id = ? AND name = ?", (run_id, name)
        ).fetchone()
        return _gate_row(row) if row else None

    def gates(self, run_id: str) -> list[GateRow]:
        rows = self.db.execute(f"SELECT {_GATE_COLUMNS} FROM workflows_gate WHERE run_id = ? ORDER BY at", (run_id,))
        return [_gate_row(r) for r in rows]

    def record_gate(
        self,
        run_id: str,
        *,
        name: str,
        approved: bool,
        reason: str | None,
        evidence: list[Any],
        now: str,
        state: str = "decided",
        prompt: str | None = None,
        decided_by: str = "verifier",
    ) -> None:
        self.db.execute(
            "INSERT INTO workflows_gate (run_id, name, approved, reason, evidence_json, at, state, prompt, decided_by) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id, name) DO UPDATE SET approved = excluded.approved, "
            "reason = excluded.reason, evidence_json = excluded.evidence_json, at = excluded.at, "
            "state = excluded.state, prompt = COALESCE(excluded.prompt, prompt), decided_by = excluded.decided_by",
            (run_id, name, int(approved), reason, json.dumps(evidence), now, state, prompt, decided_by),
        )
        self._changed(run_id, "gate")

    def record_decision(
        self, decision_id: str, *, run_id: str, title: str, body: str, tags: list[str], now: str
    ) -> DecisionRow:
        """Insert a decision unless its id (the hash of its content) is there already; return the stored row."""
        self.db.execute(
            "INSERT INTO workflows_decision (id, run_id, title, body, tags_json, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING",
            (decision_id, run_id, title, body, json.dumps(tags, ensure_ascii=False), now),
        )
        row = self.db.execute(
            f"SELECT {_DECISION_COLUMNS} FROM workflows_decision WHERE id = ?", (decision_id,)
        ).fetchone()
        self._changed(run_id, "decision")
        return _decision_row(row)

    def decisions(
        self, *, query: str = "", run_id: str | None = None, repo: str | None = None, limit: int
    ) -> list[DecisionRow]:
        """Newest first; `query` is a case-insensitive substring of the title, body or tags."""
        sql = (
            f"SELECT {', '.join('d.' + c.strip() for c in _DECISION_COLUMNS.split(','))} "
            "FROM workflows_decision d JOIN workflows_run r ON r.id = d.run_id WHERE 1 = 1"
        )
        params: list[Any] = []
        if query.strip():
            # instr, not LIKE: no pattern to be "too complex" however long the query
            needle = query.strip().lower()
            sql += (
                " AND (instr(lower(d.title), ?) > 0 OR instr(lower(d.body), ?) > 0 OR instr(lower(d.tags_json), ?) > 0)"
            )
            params += [needle, needle, needle]
        if run_id is not None:
            sql += " AND d.run_id = ?"
            params.append(run_id)
        if repo is not None:
            sql += " AND r.repo = ?"
            params.append(repo)
        rows = self.db.execute(sql + " ORDER BY d.created_at DESC, d.rowid DESC LIMIT ?", [*params, limit])
        return [_decision_row(r) for r in rows]


_GATE_COLUMNS = "name, approved, reason, evidence_json, state, prompt, decided_by"
_DECISION_COLUMNS = "id, run_id, title, body, tags_json, created_at"


def _decision_row(row: tuple[Any, ...]) -> DecisionRow:
    decision_id, run_id, title, body, tags_json, created_at = row
    return DecisionRow(decision_id, run_id, title, body, json.loads(tags_json), created_at)


def _gate_row(row: tuple[Any, ...]) -> GateRow:
    name, approved, reason, evidence_json, state, prompt, decided_by = row
    return GateRow(name, bool(approved), reason, json.loads(evidence_json), state, prompt, decided_by)


def _run_row(row: tuple[Any, ...]) -> RunRow:
    (
        run_id,
        task,
        repo,
        script_path,
        script,
        script_hash,
        args_json,
        limits_json,
        status,
        result_json,
        error,
        script_changed,
        attempts,
        created_at,
        updated_at,
    ) = row
    return RunRow(
        id=run_id,
        task=task,
        repo=repo,
        script_path=script_path,
        script=script,
        script_hash=script_hash,
        args=json.loads(args_json),
        limits=json.loads(limits_json),
        status=status,
        result=json.loads(result_json) if result_json is not None else None,
        error=error,
        script_changed=bool(script_changed),
        attempts=attempts,
        created_at=created_at,
        updated_at=updated_at,
    )
