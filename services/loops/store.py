"""The loops service's tables: each loop's standing record and the cycles it has run.

A loop row holds what the next tick needs (counters, last signature, budgets, spend) and the tick
lease; a cycle row is written when a tick takes the lease (state `running`) and completed in the
same transaction that updates the loop, so neither is ever left half-written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kernel.store import Database, Schema

__all__ = ["SCHEMA", "CycleRow", "LoopRow", "LoopStore"]

SCHEMA = Schema(
    "loops",
    (
        """
        CREATE TABLE loops_loop (
            name TEXT PRIMARY KEY,
            script_path TEXT NOT NULL,
            cwd TEXT NOT NULL,
            args_json TEXT,
            status TEXT NOT NULL,
            cycle INTEGER NOT NULL DEFAULT 0,
            last_state TEXT,
            last_signature TEXT,
            stagnation_count INTEGER NOT NULL DEFAULT 0,
            stagnation_threshold INTEGER NOT NULL,
            signature_history_json TEXT NOT NULL DEFAULT '[]',
            cycle_budget_usd REAL,
            lifetime_budget_usd REAL,
            lifetime_spend_usd REAL NOT NULL DEFAULT 0,
            unknown_cost_calls INTEGER NOT NULL DEFAULT 0,
            stale_after_minutes REAL NOT NULL,
            max_cycles INTEGER,
            started_version TEXT NOT NULL,
            started_script_hash TEXT NOT NULL,
            lease_token TEXT,
            lease_owner_json TEXT,
            tick_started_at TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE loops_cycle (
            loop_name TEXT NOT NULL REFERENCES loops_loop(name) ON DELETE CASCADE,
            cycle INTEGER NOT NULL,
            state TEXT NOT NULL,
            run_id TEXT,
            signature TEXT,
            stagnation_count INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0,
            unknown_cost_calls INTEGER NOT NULL DEFAULT 0,
            reason TEXT,
            summary TEXT,
            warnings_json TEXT NOT NULL DEFAULT '[]',
            started_at TEXT NOT NULL,
            finished_at TEXT,
            PRIMARY KEY (loop_name, cycle)
        );
        """,
        # The authority the loop started with: a tick never runs above it, whoever ticks.
        "ALTER TABLE loops_loop ADD COLUMN ceiling TEXT",
        # the task the loop works toward, given positionally to `loop start`; each tick's run gets it
        "ALTER TABLE loops_loop ADD COLUMN task TEXT",
    ),
)

_LOOP_COLUMNS = (
    "name, script_path, cwd, args_json, status, cycle, last_state, last_signature, stagnation_count, "
    "stagnation_threshold, signature_history_json, cycle_budget_usd, lifetime_budget_usd, lifetime_spend_usd, "
    "unknown_cost_calls, stale_after_minutes, max_cycles, started_version, started_script_hash, lease_token, "
    "lease_owner_json, tick_started_at, created_at, updated_at, ceiling, task"
)
_CYCLE_COLUMNS = (
    "loop_name, cycle, state, run_id, signature, stagnation_count, cost_usd, unknown_cost_calls, reason, summary, "
    "warnings_json, started_at, finished_at"
)


@dataclass(frozen=True)
class LoopRow:
    name: str
    script_path: str
    cwd: str
    args_json: str | None
    status: str
    cycle: int
    last_state: str | None
    last_signature: str | None
    stagnation_count: int
    stagnation_threshold: int
    signature_history: list[str]
    cycle_budget_usd: float | None
    lifetime_budget_usd: float | None
    lifetime_spend_usd: float
    unknown_cost_calls: int
    stale_after_minutes: float
    max_cycles: int | None
    started_version: str
    started_script_hash: str
    lease_token: str | None
    lease_owner: dict[str, Any] | None
    tick_started_at: str | None
    created_at: str
    updated_at: str
    ceiling: str | None = None  # null for loops started before loops kept one
    task: str | None = None


@dataclass(frozen=True)
class CycleRow:
    loop_name: str
    cycle: int
    state: str
    run_id: str | None
    signature: str | None
    stagnation_count: int
    cost_usd: float
    unknown_cost_calls: int
    reason: str | None
    summary: str | None
    warnings: list[str]
    started_at: str
    finished_at: str | None


@dataclass(frozen=True)
class CycleEnd:
    """How a cycle ended, and the loop counters that follow from it."""

    state: str
    signature: str | None
    stagnation_count: int
    signature_history: list[str]
    cost_usd: float
    unknown_cost_calls: int
    reason: str | None
    summary: str | None
    warnings: list[str]
    touches_signature: bool


class LoopStore:
    DATABASE = "global"
    SCHEMAS: tuple[Schema, ...] = (SCHEMA,)

    def __init__(self, db: Database) -> None:
        self.db = db

    def create(
        self,
        *,
        name: str,
        script_path: str,
        cwd: str,
        args_json: str | None,
        threshold: int,
        cycle_budget_usd: float | None,
        lifetime_budget_usd: float | None,
        stale_after_minutes: float,
        max_cycles: int | None,
        version: str,
        script_hash: str,
        now: str,
        ceiling: str | None = None,
        task: str | None = None,
    ) -> bool:
        """Insert a new active loop; False when the name is taken."""
        with self.db.transaction():
            if self.db.execute("SELECT 1 FROM loops_loop WHERE name = ?", (name,)).get:
                return False
            self.db.execute(
                "INSERT INTO loops_loop(name, script_path, cwd, args_json, status, stagnation_threshold, "
                "cycle_budget_usd, lifetime_budget_usd, stale_after_minutes, max_cycles, started_version, "
                "started_script_hash, created_at, updated_at, ceiling, task) "
                "VALUES (?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    name,
                    script_path,
                    cwd,
                    args_json,
                    threshold,
                    cycle_budget_usd,
                    lifetime_budget_usd,
                    stale_after_minutes,
                    max_cycles,
                    version,
                    script_hash,
                    now,
                    now,
                    ceiling,
                    task,
                ),
            )
        return True

    def loop(self, name: str) -> LoopRow | None:
        row = self.db.execute(f"SELECT {_LOOP_COLUMNS} FROM loops_loop WHERE name = ?", (name,)).fetchone()
        return _loop(row) if row else None

    def loops(self, *, limit: int, after: str | None) -> list[LoopRow]:
        rows = self.db.execute(
            f"SELECT {_LOOP_COLUMNS} FROM loops_loop WHERE name > ? ORDER BY name LIMIT ?", (after or "", limit)
        )
        return [_loop(r) for r in rows]

    def cycles(self, name: str, *, limit: int) -> list[CycleRow]:
        rows = self.db.execute(
            f"SELECT {_CYCLE_COLUMNS} FROM loops_cycle WHERE loop_name = ? ORDER BY cycle DESC LIMIT ?", (name, limit)
        )
        return [_cycle(r) for r in rows]

    def cycle(self, name: str, cycle: int) -> CycleRow | None:
        row = self.db.execute(
            f"SELECT {_CYCLE_COLUMNS} FROM loops_cycle WHERE loop_name = ? AND cycle = ?", (name, cycle)
        ).fetchone()
        return _cycle(row) if row else None

    def take_lease(
        self,
        name: str,
        *,
        seen_token: str | None,
        seen_cycle: int,
        token: str,
        owner: dict[str, Any],
        run_id: str,
        now: str,
    ) -> LoopRow | None:
        """Begin cycle `seen_cycle + 1` under a new lease, if the loop is still as the caller saw it.

        The compare-and-set on `seen_token` (None: free) and `seen_cycle` inside `BEGIN IMMEDIATE`
        admits one taker, and one that judged the loop (stagnated? spent?) on what is still true.
        The cycle row is written `running` in the same transaction, so a tick that dies later leaves
        a visible, reconcilable trace. Returns the loop as it now stands, or None if someone else won.
        """
        with self.db.transaction():
            current = self.loop(name)
            if (
                current is None
                or current.status != "active"
                or current.lease_token != seen_token
                or current.cycle != seen_cycle
            ):
                return None
            cycle = current.cycle + 1
            self.db.execute(
                "UPDATE loops_loop SET lease_token = ?, lease_owner_json = ?, tick_started_at = ?, cycle = ?, "
                "updated_at = ? WHERE name = ?",
                (token, json.dumps(owner), now, cycle, now, name),
            )
            self.db.execute(
                "INSERT INTO loops_cycle(loop_name, cycle, state, run_id, started_at) VALUES (?, ?, 'running', ?, ?)",
                (name, cycle, run_id, now),
            )
        return self.loop(name)

    def finish(self, name: str, cycle: int, *, token: str, end: CycleEnd, now: str) -> bool:
        """Record the cycle's end, the loop's new counters and the freed lease at once.

        Fenced on `token`: False, and nothing written, when the lease is no longer the caller's. A
        dead tick's cycle is closed the same way, with the dead tick's token.
        """
        with self.db.transaction():
            current = self.loop(name)
            if current is None or current.lease_token != token:
                return False
            self.db.execute(
                "UPDATE loops_cycle SET state = ?, signature = ?, stagnation_count = ?, cost_usd = ?, "
                "unknown_cost_calls = ?, reason = ?, summary = ?, warnings_json = ?, finished_at = ? "
                "WHERE loop_name = ? AND cycle = ?",
                (
                    end.state,
                    end.signature,
                    end.stagnation_count,
                    end.cost_usd,
                    end.unknown_cost_calls,
                    end.reason,
                    end.summary,
                    json.dumps(end.warnings),
                    now,
                    name,
                    cycle,
                ),
            )
            counters = (
                (end.signature, end.stagnation_count, json.dumps(end.signature_history))
                if end.touches_signature
                else (current.last_signature, current.stagnation_count, json.dumps(current.signature_history))
            )
            self.db.execute(
                "UPDATE loops_loop SET lease_token = NULL, lease_owner_json = NULL, tick_started_at = NULL, "
                "last_state = ?, last_signature = ?, stagnation_count = ?, "
                "signature_history_json = ?, lifetime_spend_usd = lifetime_spend_usd + ?, "
                "unknown_cost_calls = unknown_cost_calls + ?, updated_at = ? WHERE name = ?",
                (end.state, *counters, end.cost_usd, end.unknown_cost_calls, now, name),
            )
        return True

    def set_status(self, name: str, status: str, *, now: str) -> None:
        with self.db.transaction():
            self.db.execute("UPDATE loops_loop SET status = ?, updated_at = ? WHERE name = ?", (status, now, name))

    def reset(self, name: str, *, seen_token: str | None, now: str) -> bool:
        """Forget the stagnation counter, last signature and signature history; keep cycles and spend.

        Fenced on `seen_token`, the lease as the caller saw it when it judged that no live tick holds
        it: False, and nothing written, when a tick took the lease since (its `finish` would write
        back the counters it read before the reset).
        """
        with self.db.transaction():
            current = self.loop(name)
            if current is None or current.lease_token != seen_token:
                return False
            self.db.execute(
                "UPDATE loops_loop SET stagnation_count = 0, last_signature = NULL, signature_history_json = '[]', "
                "updated_at = ? WHERE name = ?",
                (now, name),
            )
        return True


def _loop(row: Any) -> LoopRow:
    values = list(row)
    values[10] = json.loads(values[10] or "[]")
    values[20] = json.loads(values[20]) if values[20] else None
    return LoopRow(*values)


def _cycle(row: Any) -> CycleRow:
    values = list(row)
    values[10] = json.loads(values[10] or "[]")
    return CycleRow(*values)
