"""The execution kernel's tables: runs and their leases, the call journal, worktrees, patches, events.

This is the only module that names the `kernel_*` run tables in SQL (a layout test checks it). Every
journal write takes the lease epoch its writer holds and is refused with `stale` when the run has
since been taken over, so a zombie orchestrator cannot write after a takeover.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from kernel.errors import PalliumError
from kernel.store import Database, Schema

__all__ = ["SCHEMA", "CallRow", "PatchRow", "PinnedBase", "RunRow", "RunStore", "WorktreeRow"]

SCHEMA = Schema(
    "kernel_runs",
    (
        """
        CREATE TABLE kernel_run (
            id TEXT PRIMARY KEY,
            status TEXT NOT NULL,
            repo TEXT,
            lease_epoch INTEGER NOT NULL DEFAULT 0,
            owner_pid INTEGER,
            owner_start INTEGER,
            owner_boot TEXT,
            owner_host TEXT,
            lease_expires_at REAL,
            heartbeat_at REAL,
            budget_usd REAL,
            max_agents INTEGER NOT NULL,
            agents_started INTEGER NOT NULL DEFAULT 0,
            spent_usd REAL NOT NULL DEFAULT 0,
            unknown_cost_calls INTEGER NOT NULL DEFAULT 0,
            base_commit TEXT,
            base_tree TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE TABLE kernel_call (
            run_id TEXT NOT NULL REFERENCES kernel_run(id) ON DELETE CASCADE,
            call_key TEXT NOT NULL,
            op TEXT NOT NULL,
            request_json TEXT NOT NULL,
            seq INTEGER NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            result_json TEXT,
            cost_usd REAL,
            pgid INTEGER,
            pgid_start INTEGER,
            started_at REAL,
            completed_at REAL,
            PRIMARY KEY (run_id, call_key)
        );
        CREATE TABLE kernel_worktree (
            path TEXT PRIMARY KEY,
            repo TEXT NOT NULL,
            run_id TEXT NOT NULL,
            call_key TEXT,
            purpose TEXT NOT NULL,
            base_commit TEXT,
            state TEXT NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE TABLE kernel_patch (
            run_id TEXT NOT NULL REFERENCES kernel_run(id) ON DELETE CASCADE,
            call_key TEXT NOT NULL,
            ordinal INTEGER NOT NULL,
            repo TEXT NOT NULL,
            path TEXT NOT NULL,
            state TEXT NOT NULL,
            detail TEXT,
            updated_at REAL NOT NULL,
            PRIMARY KEY (run_id, call_key)
        );
        CREATE TABLE kernel_event (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            detail_json TEXT NOT NULL,
            at REAL NOT NULL
        );
        CREATE INDEX kernel_worktree_by_run ON kernel_worktree(run_id, state);
        CREATE INDEX kernel_event_by_run ON kernel_event(run_id, id);
        """,
    ),
)


@dataclass(frozen=True)
class RunRow:
    id: str
    status: str
    repo: str | None
    lease_epoch: int
    owner_pid: int | None
    owner_start: int | None
    owner_boot: str | None
    owner_host: str | None
    lease_expires_at: float | None
    heartbeat_at: float | None
    budget_usd: float | None
    max_agents: int
    agents_started: int
    spent_usd: float
    unknown_cost_calls: int
    base_commit: str | None
    base_tree: str | None


@dataclass(frozen=True)
class PinnedBase:
    """The commit and tree a run reads from, pinned by its first attempt."""

    commit: str
    tree: str


@dataclass(frozen=True)
class CallRow:
    run_id: str
    call_key: str
    op: str
    request: dict[str, Any]
    seq: int
    status: str  # started | completed | failed | interrupted
    attempts: int
    result: dict[str, Any] | None
    cost_usd: float | None
    pgid: int | None
    pgid_start: int | None


@dataclass(frozen=True)
class WorktreeRow:
    path: str
    repo: str
    run_id: str
    call_key: str | None
    purpose: str  # edit | staging | seeded | loop
    base_commit: str | None
    state: str  # creating | active | captured | kept | removed
    updated_at: float


@dataclass(frozen=True)
class PatchRow:
    run_id: str
    call_key: str
    ordinal: int
    repo: str
    path: str
    state: str  # staged | conflicted | blocked | applying | applied | reverting | reverted
    detail: str | None


_RUN_COLUMNS = ", ".join(RunRow.__dataclass_fields__)
_CALL_COLUMNS = "run_id, call_key, op, request_json, seq, status, attempts, result_json, cost_usd, pgid, pgid_start"
_WT_COLUMNS = ", ".join(WorktreeRow.__dataclass_fields__)
_PATCH_COLUMNS = ", ".join(PatchRow.__dataclass_fields__)


class RunStore:
    """Typed access to the run tables over one open `Database` (the global one)."""

    DATABASE = "global"
    SCHEMAS: tuple[Schema, ...] = (SCHEMA,)

    def __init__(self, db: Database) -> None:
        self.db = db

    # ------------------------------------------------------------ a run's record for other machines

    def export_run(self, run_id: str) -> dict[str, list[dict[str, Any]]]:
        """What a reader on another machine shows of the run: its row (status, spend) and its patches' states.

        Not its journal (the shared queue holds the calls) nor its worktrees (paths of this machine).
        """
        from kernel.store import export_rows

        return {
            "run": export_rows(self.db, "kernel_run", "id = ?", (run_id,)),
            "patches": export_rows(self.db, "kernel_patch", "run_id = ?", (run_id,)),
        }

    def import_run(self, dump: dict[str, list[dict[str, Any]]]) -> None:
        """Load an `export_run` into this (reader's throwaway) database."""
        from kernel.store import import_rows

        with self.db.transaction():
            import_rows(self.db, "kernel_run", dump.get("run", []), key=("id",))
            import_rows(self.db, "kernel_patch", dump.get("patches", []), key=("run_id", "call_key"))

    # ------------------------------------------------------------ runs and leases

    def ensure_run(self, run_id: str, *, repo: str | None, budget_usd: float | None, max_agents: int) -> RunRow:
        now = time.time()
        self.db.execute(
            "INSERT INTO kernel_run(id, status, repo, budget_usd, max_agents, created_at, updated_at) "
            "VALUES (?, 'pending', ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING",
            (run_id, repo, budget_usd, max_agents, now, now),
        )
        row = self.run(run_id)
        assert row is not None
        return row

    def pin_base(self, run_id: str, *, commit: str, tree: str) -> PinnedBase:
        """Record the snapshot a run reads from, once; a resumed run keeps the first one."""
        self.db.execute(
            "UPDATE kernel_run SET base_commit=?, base_tree=? WHERE id=? AND base_commit IS NULL",
            (commit, tree, run_id),
        )
        row = self.run(run_id)
        assert row is not None and row.base_commit and row.base_tree
        return PinnedBase(commit=row.base_commit, tree=row.base_tree)

    def repin_base(self, run_id: str, epoch: int, *, commit: str, tree: str) -> None:
        """Move a held run onto another snapshot (`Run.rebase`: a long-lived run following the user's tree)."""
        with self.fenced(run_id, epoch):
            self.db.execute("UPDATE kernel_run SET base_commit=?, base_tree=? WHERE id=?", (commit, tree, run_id))

    def run(self, run_id: str) -> RunRow | None:
        found = self.db.execute(f"SELECT {_RUN_COLUMNS} FROM kernel_run WHERE id = ?", (run_id,)).fetchone()
        return RunRow(*found) if found else None

    def runs_with_status(self, status: str) -> list[RunRow]:
        rows = self.db.execute(f"SELECT {_RUN_COLUMNS} FROM kernel_run WHERE status = ?", (status,))
        return [RunRow(*r) for r in rows]

    def take_lease(
        self, run_id: str, owner: dict[str, Any], *, ttl: float, holder_alive: Callable[[RunRow], bool]
    ) -> int:
        """Become the run's owner unless a live owner holds it; return the new epoch."""
        with self.db.transaction():
            row = self.run(run_id)
            if row is None:
                raise PalliumError(
                    "not_found",
                    f"run {run_id!r} does not exist",
                    details={"run_id": run_id},
                    hint="list the runs with `pallium workflow list` (MCP `pallium_workflow_list`)",
                )
            if row.status == "running" and row.owner_pid is not None and holder_alive(row):
                raise PalliumError(
                    "conflict",
                    f"run {run_id} is held by live process {row.owner_pid} on {row.owner_host}",
                    hint="wait for it to finish, or stop it first",
                    details={"run_id": run_id, "owner_pid": row.owner_pid},
                )
            now = time.time()
            self.db.execute(
                "UPDATE kernel_run SET status='running', lease_epoch=lease_epoch+1, owner_pid=?, owner_start=?, "
                "owner_boot=?, owner_host=?, lease_expires_at=?, heartbeat_at=?, updated_at=? WHERE id=?",
                (owner["pid"], owner["start"], owner["boot"], owner["host"], now + ttl, now, now, run_id),
            )
            return row.lease_epoch + 1

    def heartbeat(self, run_id: str, epoch: int, *, ttl: float) -> bool:
        now = time.time()
        self.db.execute(
            "UPDATE kernel_run SET lease_expires_at=?, heartbeat_at=? WHERE id=? AND lease_epoch=?",
            (now + ttl, now, run_id, epoch),
        )
        return self.db.conn.changes() == 1

    def finish_run(self, run_id: str, epoch: int, status: str) -> None:
        with self.fenced(run_id, epoch):
            self.db.execute(
                "UPDATE kernel_run SET status=?, owner_pid=NULL, lease_expires_at=NULL, updated_at=? WHERE id=?",
                (status, time.time(), run_id),
            )

    def mark_interrupted(self, run_id: str, seen_epoch: int) -> bool:
        """Mark a run whose owner is dead `interrupted`, unless someone took it over meanwhile."""
        with self.db.transaction():
            self.db.execute(
                "UPDATE kernel_run SET status='interrupted', owner_pid=NULL, updated_at=? "
                "WHERE id=? AND lease_epoch=? AND status='running'",
                (time.time(), run_id, seen_epoch),
            )
            if self.db.conn.changes() != 1:
                return False
            self._abandon_started_txn(run_id)
            return True

    def abandon_started_calls(self, run_id: str, epoch: int) -> int:
        """Close the calls an earlier attempt left with an intent and no completion; return how many."""
        with self.fenced(run_id, epoch):
            return self._abandon_started_txn(run_id)

    def _abandon_started_txn(self, run_id: str) -> int:
        # the worker may have spent before its orchestrator died: each such attempt counts as an
        # unknown-cost call, which the budget charges at the estimate (once: the status moves on).
        # `host.*` calls are a script host's own effects (a team's mail, its board): no worker, no spend.
        row = self.db.execute(
            "SELECT COUNT(*) FROM kernel_call WHERE run_id=? AND status='started' AND op NOT LIKE 'host.%'",
            (run_id,),
        ).fetchone()
        found = row[0] if row is not None else 0
        if found:
            self.db.execute("UPDATE kernel_run SET unknown_cost_calls=unknown_cost_calls+? WHERE id=?", (found, run_id))
            self.db.execute(
                "UPDATE kernel_call SET status='interrupted' WHERE run_id=? AND status='started'", (run_id,)
            )
        return int(found)

    @contextmanager
    def fenced(self, run_id: str, epoch: int) -> Iterator[None]:
        """A write transaction that first proves `epoch` still owns the run."""
        with self.db.transaction():
            current = self.db.execute("SELECT lease_epoch FROM kernel_run WHERE id=?", (run_id,)).fetchone()
            if current is None or current[0] != epoch:
                raise PalliumError(
                    "stale",
                    f"run {run_id} was taken over (lease epoch {current[0] if current else None}, ours {epoch})",
                    hint="another process owns this run now; this one must stop",
                    details={"run_id": run_id, "epoch": epoch},
                )
            yield

    # ------------------------------------------------------------ the journal

    def call(self, run_id: str, call_key: str) -> CallRow | None:
        found = self.db.execute(
            f"SELECT {_CALL_COLUMNS} FROM kernel_call WHERE run_id=? AND call_key=?", (run_id, call_key)
        ).fetchone()
        return _call_row(found) if found else None

    def calls(self, run_id: str, status: str | None = None) -> list[CallRow]:
        sql = f"SELECT {_CALL_COLUMNS} FROM kernel_call WHERE run_id=?"
        args: tuple[Any, ...] = (run_id,)
        if status is not None:
            sql, args = sql + " AND status=?", (run_id, status)
        return [_call_row(r) for r in self.db.execute(sql + " ORDER BY seq", args)]

    def record_intent(
        self,
        run_id: str,
        epoch: int,
        *,
        call_key: str,
        op: str,
        request: dict[str, Any],
        seq: int,
        counts_as_agent: bool,
    ) -> None:
        with self.fenced(run_id, epoch):
            self.db.execute(
                "INSERT INTO kernel_call(run_id, call_key, op, request_json, seq, status, attempts, started_at) "
                "VALUES (?, ?, ?, ?, ?, 'started', 1, ?) ON CONFLICT(run_id, call_key) DO UPDATE SET "
                "status='started', attempts=attempts+1, started_at=excluded.started_at, result_json=NULL, "
                "pgid=NULL, pgid_start=NULL",
                (run_id, call_key, op, json.dumps(request, sort_keys=True), seq, time.time()),
            )
            if counts_as_agent:
                self.db.execute("UPDATE kernel_run SET agents_started=agents_started+1 WHERE id=?", (run_id,))

    def record_spawn(self, run_id: str, epoch: int, *, call_key: str, pgid: int, start: int | None) -> None:
        with self.fenced(run_id, epoch):
            self.db.execute(
                "UPDATE kernel_call SET pgid=?, pgid_start=? WHERE run_id=? AND call_key=?",
                (pgid, start, run_id, call_key),
            )

    def record_completion(
        self,
        run_id: str,
        epoch: int,
        *,
        call_key: str,
        status: str,
        result: dict[str, Any],
        cost_usd: float | None,
        spent: bool,
        charges: Sequence[float | None] | None = None,
        also: Callable[[], None] | None = None,
    ) -> None:
        """Close a call; when `spent`, add its cost to the run (or count it as unknown).

        `charges` lists the cost of each try when a call took more than one (a corrective retry), so
        the run is charged per try exactly as the budget was; the call row keeps the total. `also`
        writes in the same transaction (the caller's own record of the call: both or neither).
        """
        with self.fenced(run_id, epoch):
            self.db.execute(
                "UPDATE kernel_call SET status=?, result_json=?, cost_usd=?, completed_at=?, pgid=NULL "
                "WHERE run_id=? AND call_key=?",
                (status, json.dumps(result, sort_keys=True), cost_usd, time.time(), run_id, call_key),
            )
            for charge in (charges if charges is not None else [cost_usd]) if spent else []:
                if charge is None:
                    self.db.execute(
                        "UPDATE kernel_run SET unknown_cost_calls=unknown_cost_calls+1 WHERE id=?", (run_id,)
                    )
                else:
                    self.db.execute("UPDATE kernel_run SET spent_usd=spent_usd+? WHERE id=?", (charge, run_id))
            if also is not None:
                also()

    def count_agent(self, run_id: str, epoch: int) -> None:
        """Count one more spawned agent against the run's lifetime cap (a retry within one call)."""
        with self.fenced(run_id, epoch):
            self.db.execute("UPDATE kernel_run SET agents_started=agents_started+1 WHERE id=?", (run_id,))

    def log_event(self, run_id: str, kind: str, detail: dict[str, Any], *, epoch: int | None = None) -> None:
        """Append to the run's event log; fenced when the writer holds a lease `epoch` (a run's owner always does)."""
        with self._maybe_fenced(run_id, epoch):
            self.db.execute(
                "INSERT INTO kernel_event(run_id, kind, detail_json, at) VALUES (?, ?, ?, ?)",
                (run_id, kind, json.dumps(detail, sort_keys=True, default=str), time.time()),
            )

    def events(self, run_id: str, kind: str | None = None) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT kind, detail_json FROM kernel_event WHERE run_id=? ORDER BY id", (run_id,)
        ).fetchall()
        return [{"kind": k, **json.loads(str(d))} for k, d in rows if kind is None or k == kind]

    # ------------------------------------------------------------ worktrees

    def add_worktree(
        self, *, path: str, repo: str, run_id: str, call_key: str | None, purpose: str, base_commit: str | None
    ) -> None:
        now = time.time()
        self.db.execute(
            "INSERT INTO kernel_worktree(path, repo, run_id, call_key, purpose, base_commit, state, created_at, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?, 'creating', ?, ?) ON CONFLICT(path) DO UPDATE SET "
            "state='creating', run_id=excluded.run_id, call_key=excluded.call_key, purpose=excluded.purpose, "
            "base_commit=excluded.base_commit, updated_at=excluded.updated_at",
            (path, repo, run_id, call_key, purpose, base_commit, now, now),
        )

    def set_worktree_state(self, path: str, state: str) -> None:
        self.db.execute("UPDATE kernel_worktree SET state=?, updated_at=? WHERE path=?", (state, time.time(), path))

    def worktree(self, path: str) -> WorktreeRow | None:
        found = self.db.execute(f"SELECT {_WT_COLUMNS} FROM kernel_worktree WHERE path=?", (path,)).fetchone()
        return WorktreeRow(*found) if found else None

    def worktrees(
        self, *, run_id: str | None = None, states: tuple[str, ...] = (), call_key: str | None = None
    ) -> list[WorktreeRow]:
        sql, args = f"SELECT {_WT_COLUMNS} FROM kernel_worktree WHERE 1=1", []
        if run_id is not None:
            sql += " AND run_id=?"
            args.append(run_id)
        if call_key is not None:
            sql += " AND call_key=?"
            args.append(call_key)
        if states:
            sql += f" AND state IN ({', '.join('?' * len(states))})"
            args += states
        return [WorktreeRow(*r) for r in self.db.execute(sql + " ORDER BY created_at", args)]

    # ------------------------------------------------------------ patches

    def put_patch(
        self,
        *,
        run_id: str,
        call_key: str,
        repo: str,
        path: str,
        state: str,
        detail: str | None = None,
        epoch: int | None = None,
    ) -> None:
        with self._maybe_fenced(run_id, epoch):
            self.db.execute(
                "INSERT INTO kernel_patch(run_id, call_key, ordinal, repo, path, state, detail, updated_at) "
                "VALUES (?, ?, (SELECT COUNT(*) FROM kernel_patch WHERE run_id=?), ?, ?, ?, ?, ?) "
                "ON CONFLICT(run_id, call_key) DO UPDATE SET path=excluded.path, state=excluded.state, "
                "detail=excluded.detail, updated_at=excluded.updated_at",
                (run_id, call_key, run_id, repo, path, state, detail, time.time()),
            )

    def set_patch_state(
        self, run_id: str, call_key: str, state: str, detail: str | None = None, *, epoch: int | None = None
    ) -> None:
        """Move a patch along (staged, applying, applied, ...); fenced when the writer holds a lease `epoch`."""
        with self._maybe_fenced(run_id, epoch):
            self.db.execute(
                "UPDATE kernel_patch SET state=?, detail=COALESCE(?, detail), updated_at=? "
                "WHERE run_id=? AND call_key=?",
                (state, detail, time.time(), run_id, call_key),
            )

    @contextmanager
    def _maybe_fenced(self, run_id: str, epoch: int | None) -> Iterator[None]:
        if epoch is None:  # a command acting on a finished run (apply, revert later): no lease to check
            yield
            return
        with self.fenced(run_id, epoch):
            yield

    def patch(self, run_id: str, call_key: str) -> PatchRow | None:
        found = self.db.execute(
            f"SELECT {_PATCH_COLUMNS} FROM kernel_patch WHERE run_id=? AND call_key=?", (run_id, call_key)
        ).fetchone()
        return PatchRow(*found) if found else None

    def patches(self, run_id: str) -> list[PatchRow]:
        rows = self.db.execute(f"SELECT {_PATCH_COLUMNS} FROM kernel_patch WHERE run_id=? ORDER BY ordinal", (run_id,))
        return [PatchRow(*r) for r in rows]


def _call_row(row: tuple[Any, ...]) -> CallRow:
    values = list(row)
    values[3] = json.loads(values[3])
    values[7] = json.loads(values[7]) if values[7] else None
    return CallRow(*values)
