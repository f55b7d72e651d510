"""The teams service's tables: teams, their roster, task board, mailbox, turns and events.

Every change that must not be half-made is one transaction here: a claim is a compare-and-set on a
`pending` task whose dependencies are completed, taken under `BEGIN IMMEDIATE`; a turn's decision,
its mail receipts and the member's read cursor are written together, so a message is either
delivered by exactly one completed turn or still waiting.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

from kernel.runstore import SCHEMA as RUNS_SCHEMA
from kernel.store import Database, Schema
from services.teams.rows import (
    EventRow,
    MemberRow,
    MessageRow,
    RequestRow,
    TaskRow,
    TeamRow,
    TurnRow,
    build_row,
    column_of,
    columns_of,
)

__all__ = [
    "SCHEMA",
    "EventRow",
    "MemberRow",
    "MessageRow",
    "RequestRow",
    "TaskRow",
    "TeamRow",
    "TeamStore",
    "TurnRow",
]

SCHEMA = Schema(
    "teams",
    (
        """
        CREATE TABLE teams_team (
            id TEXT PRIMARY KEY,
            goal TEXT NOT NULL,
            cwd TEXT NOT NULL,
            status TEXT NOT NULL,
            template TEXT,
            budget_usd REAL,
            spend_usd REAL NOT NULL DEFAULT 0,
            unknown_cost_calls INTEGER NOT NULL DEFAULT 0,
            gate_prompt TEXT,
            gate_hooks_json TEXT NOT NULL DEFAULT '[]',
            gate_provider TEXT,
            auto_apply INTEGER NOT NULL DEFAULT 0,
            board_version INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE teams_member (
            team_id TEXT NOT NULL REFERENCES teams_team(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            provider TEXT NOT NULL,
            model TEXT,
            role TEXT NOT NULL DEFAULT '',
            mode TEXT NOT NULL,
            requested_mode TEXT NOT NULL,
            external INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL,
            status_reason TEXT,
            session_id TEXT,
            session_established INTEGER NOT NULL DEFAULT 0,
            session_note TEXT,
            plan_required INTEGER NOT NULL DEFAULT 0,
            plan_status TEXT,
            stop_requested INTEGER NOT NULL DEFAULT 0,
            nudged INTEGER NOT NULL DEFAULT 0,
            retry INTEGER NOT NULL DEFAULT 0,
            last_seen_board INTEGER NOT NULL DEFAULT -1,
            turn_count INTEGER NOT NULL DEFAULT 0,
            last_turn_at TEXT,
            last_turn_status TEXT,
            last_turn_error TEXT,
            last_decision_hash TEXT,
            repeat_count INTEGER NOT NULL DEFAULT 0,
            budget_usd REAL,
            spend_usd REAL NOT NULL DEFAULT 0,
            unknown_cost_calls INTEGER NOT NULL DEFAULT 0,
            read_cursor INTEGER NOT NULL DEFAULT 0,
            heartbeat_at REAL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (team_id, name)
        );
        CREATE TABLE teams_task (
            team_id TEXT NOT NULL REFERENCES teams_team(id) ON DELETE CASCADE,
            id INTEGER NOT NULL,
            title TEXT NOT NULL,
            description TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL,
            owner TEXT,
            depends_on_json TEXT NOT NULL DEFAULT '[]',
            requires_json TEXT NOT NULL DEFAULT '[]',
            result TEXT,
            evidence_json TEXT NOT NULL DEFAULT '{}',
            created_by TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            claimed_at TEXT,
            completed_at TEXT,
            PRIMARY KEY (team_id, id)
        );
        CREATE TABLE teams_message (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            team_id TEXT NOT NULL REFERENCES teams_team(id) ON DELETE CASCADE,
            sender TEXT NOT NULL,
            recipient TEXT NOT NULL,
            body TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'mail',
            created_at TEXT NOT NULL,
            delivered_turn TEXT,
            delivered_at TEXT
        );
        CREATE INDEX teams_message_inbox ON teams_message(team_id, recipient, delivered_turn, id);
        CREATE TABLE teams_turn (
            id TEXT PRIMARY KEY,
            team_id TEXT NOT NULL REFERENCES teams_team(id) ON DELETE CASCADE,
            member TEXT NOT NULL,
            seq INTEGER NOT NULL,
            state TEXT NOT NULL,
            owner_json TEXT NOT NULL,
            heartbeat_at REAL NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            board_version INTEGER NOT NULL,
            prompt_bytes INTEGER NOT NULL DEFAULT 0,
            mail_ids_json TEXT NOT NULL DEFAULT '[]',
            provider TEXT,
            session_mode TEXT,
            session_id TEXT,
            cost_usd REAL,
            error TEXT,
            decision_json TEXT,
            summary TEXT,
            call_key TEXT,
            patch_state TEXT,
            patch_files_json TEXT NOT NULL DEFAULT '[]'
        );
        CREATE INDEX teams_turn_member ON teams_turn(team_id, member, seq);
        CREATE UNIQUE INDEX teams_turn_one_in_flight ON teams_turn(team_id, member) WHERE state = 'started';
        CREATE TABLE teams_event (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            team_id TEXT NOT NULL REFERENCES teams_team(id) ON DELETE CASCADE,
            member TEXT,
            kind TEXT NOT NULL,
            detail_json TEXT NOT NULL DEFAULT '{}',
            cost_usd REAL,
            at TEXT NOT NULL
        );
        """,
        # 2: answers of retried requests, the snapshot each edit member works on, spend recorded once per turn
        """
        CREATE TABLE teams_request (
            team_id TEXT NOT NULL REFERENCES teams_team(id) ON DELETE CASCADE,
            request_id TEXT NOT NULL,
            tool TEXT NOT NULL,
            ref TEXT NOT NULL,
            at TEXT NOT NULL,
            PRIMARY KEY (team_id, request_id)
        );
        ALTER TABLE teams_member ADD COLUMN snapshot_commit TEXT;
        ALTER TABLE teams_member ADD COLUMN snapshot_at TEXT;
        ALTER TABLE teams_turn ADD COLUMN spend_recorded INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE teams_team ADD COLUMN base_commit TEXT;
        ALTER TABLE teams_team ADD COLUMN base_at TEXT;
        """,
        # 3: the team's authority ceiling, call caps (for providers that report no cost), each turn's task
        """
        ALTER TABLE teams_team ADD COLUMN ceiling TEXT;
        ALTER TABLE teams_team ADD COLUMN max_calls INTEGER;
        ALTER TABLE teams_team ADD COLUMN calls INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE teams_member ADD COLUMN max_calls INTEGER;
        ALTER TABLE teams_member ADD COLUMN calls INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE teams_turn ADD COLUMN task_id INTEGER;
        """,
    ),
)


class TeamStore:
    DATABASE = "global"
    SCHEMAS: tuple[Schema, ...] = (SCHEMA, RUNS_SCHEMA)

    def __init__(self, db: Database) -> None:
        self.db = db

    # ------------------------------------------------------------ a team's record for other machines

    def change_stamp(self, team_id: str) -> tuple[Any, ...]:
        """A value that moves whenever what `team status` shows moves (board, mail, turns, members, spend)."""
        row = self.db.execute(
            "SELECT t.updated_at, t.board_version, t.status, t.spend_usd, t.calls, "
            "(SELECT count(*) || ':' || coalesce(max(id), 0) || ':' || count(delivered_turn) FROM teams_message "
            " WHERE team_id = ?1), "
            "(SELECT count(*) || ':' || coalesce(sum(state <> 'started'), 0) FROM teams_turn WHERE team_id = ?1), "
            "(SELECT group_concat(name || status || coalesce(last_turn_at, ''), ',') FROM teams_member "
            " WHERE team_id = ?1), "
            "(SELECT count(*) || ':' || coalesce(max(updated_at), '') FROM teams_task WHERE team_id = ?1) "
            "FROM teams_team t WHERE t.id = ?1",
            (team_id,),
        ).fetchone()
        return tuple(row) if row else ()

    def export_team(self, team_id: str) -> dict[str, list[dict[str, Any]]]:
        """The team's rows as `team status` on another machine needs them: the team, its members and tasks,
        and its newest mail (1,000), turns (500) and events (200)."""
        from kernel.store import export_rows

        return {
            "team": export_rows(self.db, "teams_team", "id = ?", (team_id,)),
            "members": export_rows(self.db, "teams_member", "team_id = ?", (team_id,)),
            "tasks": export_rows(self.db, "teams_task", "team_id = ?", (team_id,)),
            "messages": export_rows(self.db, "teams_message", "team_id = ?", (team_id,), tail=1000),
            "turns": export_rows(self.db, "teams_turn", "team_id = ?", (team_id,), tail=500),
            "events": export_rows(self.db, "teams_event", "team_id = ?", (team_id,), tail=200),
        }

    def import_team(self, dump: dict[str, list[dict[str, Any]]]) -> None:
        """Load an `export_team` into this (a reader's throwaway) database."""
        from kernel.store import import_rows

        with self.db.transaction():
            import_rows(self.db, "teams_team", dump.get("team", []), key=("id",))
            import_rows(self.db, "teams_member", dump.get("members", []), key=("team_id", "name"))
            import_rows(self.db, "teams_task", dump.get("tasks", []), key=("team_id", "id"))
            import_rows(self.db, "teams_message", dump.get("messages", []), key=("id",))
            import_rows(self.db, "teams_turn", dump.get("turns", []), key=("id",))
            import_rows(self.db, "teams_event", dump.get("events", []), key=("id",))

    # ------------------------------------------------------------ teams

    def create_team(
        self, *, team_id: str, goal: str, cwd: str, budget_usd: float | None, template: str | None, now: str
    ) -> bool:
        self.db.execute(
            "INSERT INTO teams_team(id, goal, cwd, status, template, budget_usd, created_at, updated_at) "
            "VALUES (?, ?, ?, 'active', ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING",
            (team_id, goal, cwd, template, budget_usd, now, now),
        )
        return self.db.conn.changes() == 1

    def team(self, team_id: str) -> TeamRow | None:
        row = self.db.execute(f"SELECT {columns_of(TeamRow)} FROM teams_team WHERE id = ?", (team_id,)).fetchone()
        return build_row(TeamRow, row) if row else None

    def teams(self, *, limit: int) -> list[TeamRow]:
        rows = self.db.execute(
            f"SELECT {columns_of(TeamRow)} FROM teams_team ORDER BY created_at DESC, id LIMIT ?", (limit,)
        )
        return [build_row(TeamRow, r) for r in rows]

    def set_team_status(self, team_id: str, status: str, *, now: str) -> None:
        self.db.execute("UPDATE teams_team SET status = ?, updated_at = ? WHERE id = ?", (status, now, team_id))

    def set_limits(self, team_id: str, **changes: Any) -> None:
        """Set the team's `budget_usd`, `max_calls` or `ceiling` (names from this service, never input)."""
        unknown = set(changes) - {"budget_usd", "max_calls", "ceiling"}
        if unknown:
            raise ValueError(f"unknown team limits {sorted(unknown)}")
        for column, value in changes.items():
            self.db.execute(f"UPDATE teams_team SET {column} = ? WHERE id = ?", (value, team_id))

    def count_call(self, team_id: str, member: str | None) -> None:
        """One provider call started (what the call caps count); a call that never started is not counted."""
        self.db.execute("UPDATE teams_team SET calls = calls + 1 WHERE id = ?", (team_id,))
        if member is not None:
            self.db.execute(
                "UPDATE teams_member SET calls = calls + 1 WHERE team_id = ? AND name = ?", (team_id, member)
            )

    def uncount_call(self, team_id: str, member: str | None) -> None:
        self.db.execute("UPDATE teams_team SET calls = MAX(calls - 1, 0) WHERE id = ?", (team_id,))
        if member is not None:
            self.db.execute(
                "UPDATE teams_member SET calls = MAX(calls - 1, 0) WHERE team_id = ? AND name = ?", (team_id, member)
            )

    def set_base(self, team_id: str, *, commit: str, at: str) -> None:
        self.db.execute("UPDATE teams_team SET base_commit = ?, base_at = ? WHERE id = ?", (commit, at, team_id))

    def set_gate(
        self, team_id: str, *, prompt: str | None, hooks: list[str], provider: str | None, auto_apply: bool, now: str
    ) -> None:
        self.db.execute(
            "UPDATE teams_team SET gate_prompt = ?, gate_hooks_json = ?, gate_provider = ?, auto_apply = ?, "
            "updated_at = ? WHERE id = ?",
            (prompt, json.dumps(hooks), provider, int(auto_apply), now, team_id),
        )

    def reserve_spend(self, team_id: str, member: str | None) -> None:
        """Count a call about to run as one of unknown cost until it says what it cost (`settle_spend`).

        Written before the call, so a process killed while the worker spends leaves the call counted
        (as unknown), never forgotten; settling replaces the count with the known cost.
        """
        self.add_spend(team_id, member, None)

    def settle_spend(self, team_id: str, member: str | None, cost_usd: float | None, *, ran: bool = True) -> None:
        """Settle a `reserve_spend`: a known cost replaces the unknown count; a call that never ran drops it."""
        if ran and cost_usd is None:
            return
        self.add_spend(team_id, member, cost_usd if ran else 0.0)
        self.db.execute("UPDATE teams_team SET unknown_cost_calls = unknown_cost_calls - 1 WHERE id = ?", (team_id,))
        if member is not None:
            self.db.execute(
                "UPDATE teams_member SET unknown_cost_calls = unknown_cost_calls - 1 WHERE team_id = ? AND name = ?",
                (team_id, member),
            )

    def add_spend(self, team_id: str, member: str | None, cost_usd: float | None) -> None:
        """Known cost adds to spend; an unknown one is counted, never added as $0."""
        known, unknown = (cost_usd or 0.0, 0) if cost_usd is not None else (0.0, 1)
        self.db.execute(
            "UPDATE teams_team SET spend_usd = spend_usd + ?, unknown_cost_calls = unknown_cost_calls + ? WHERE id = ?",
            (known, unknown, team_id),
        )
        if member is not None:
            self.db.execute(
                "UPDATE teams_member SET spend_usd = spend_usd + ?, unknown_cost_calls = unknown_cost_calls + ? "
                "WHERE team_id = ? AND name = ?",
                (known, unknown, team_id, member),
            )

    # ------------------------------------------------------------ retried requests

    def recall(self, team_id: str, request_id: str | None) -> RequestRow | None:
        """The earlier request with this id, if one landed (None for no id)."""
        if not request_id:
            return None
        row = self.db.execute(
            f"SELECT {columns_of(RequestRow)} FROM teams_request WHERE team_id = ? AND request_id = ?",
            (team_id, request_id),
        ).fetchone()
        return build_row(RequestRow, row) if row else None

    def remember(self, team_id: str, request_id: str | None, *, tool: str, ref: str, now: str) -> None:
        """Record what a request did; call it inside the transaction of its effect, so both land or neither."""
        if request_id:
            self.db.execute(
                "INSERT INTO teams_request(team_id, request_id, tool, ref, at) VALUES (?, ?, ?, ?, ?)",
                (team_id, request_id, tool, ref, now),
            )

    def _bump_board_txn(self, team_id: str) -> None:
        self.db.execute("UPDATE teams_team SET board_version = board_version + 1 WHERE id = ?", (team_id,))

    # ------------------------------------------------------------ members

    def add_member(
        self,
        *,
        team_id: str,
        name: str,
        provider: str,
        model: str | None,
        role: str,
        mode: str,
        requested_mode: str,
        external: bool,
        session_id: str | None,
        plan_required: bool,
        budget_usd: float | None,
        heartbeat_at: float | None,
        now: str,
    ) -> bool:
        self.db.execute(
            "INSERT INTO teams_member(team_id, name, provider, model, role, mode, requested_mode, external, status, "
            "session_id, plan_required, plan_status, budget_usd, heartbeat_at, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'idle', ?, ?, ?, ?, ?, ?) ON CONFLICT(team_id, name) DO NOTHING",
            (
                team_id,
                name,
                provider,
                model,
                role,
                mode,
                requested_mode,
                int(external),
                session_id,
                int(plan_required),
                "pending" if plan_required else None,
                budget_usd,
                heartbeat_at,
                now,
            ),
        )
        return self.db.conn.changes() == 1

    def member(self, team_id: str, name: str) -> MemberRow | None:
        row = self.db.execute(
            f"SELECT {columns_of(MemberRow)} FROM teams_member WHERE team_id = ? AND name = ?", (team_id, name)
        ).fetchone()
        return build_row(MemberRow, row) if row else None

    def members(self, team_id: str) -> list[MemberRow]:
        rows = self.db.execute(
            f"SELECT {columns_of(MemberRow)} FROM teams_member WHERE team_id = ? ORDER BY rowid", (team_id,)
        )
        return [build_row(MemberRow, r) for r in rows]

    def member_names(self, team_id: str) -> set[str]:
        """The names on the roster (what a turn's messages are checked against), without reading whole rows."""
        return {name for (name,) in self.db.execute("SELECT name FROM teams_member WHERE team_id = ?", (team_id,))}

    def update_member(self, team_id: str, name: str, **changes: Any) -> None:
        """Set the named columns of one member (column names come from this module's callers, never input)."""
        allowed = {f.name for f in fields(MemberRow)} - {"team_id", "name"}
        unknown = set(changes) - allowed
        if unknown:
            raise ValueError(f"unknown member columns {sorted(unknown)}")
        assignments = ", ".join(f"{column} = ?" for column in changes)
        values = [int(v) if isinstance(v, bool) else v for v in changes.values()]
        self.db.execute(
            f"UPDATE teams_member SET {assignments} WHERE team_id = ? AND name = ?", (*values, team_id, name)
        )

    # ------------------------------------------------------------ tasks

    def add_task(
        self,
        *,
        team_id: str,
        title: str,
        description: str,
        depends_on: list[int],
        requires: list[str],
        created_by: str,
        now: str,
    ) -> int:
        with self.db.transaction():
            (last,) = self.db.execute(
                "SELECT COALESCE(MAX(id), 0) FROM teams_task WHERE team_id = ?", (team_id,)
            ).fetchone()
            task_id = int(last) + 1
            self.db.execute(
                "INSERT INTO teams_task(team_id, id, title, description, status, depends_on_json, requires_json, "
                "created_by, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)",
                (
                    team_id,
                    task_id,
                    title,
                    description,
                    json.dumps(depends_on),
                    json.dumps(requires),
                    created_by,
                    now,
                    now,
                ),
            )
            self._bump_board_txn(team_id)
        return task_id

    def last_task_id(self, team_id: str) -> int:
        (last,) = self.db.execute(
            "SELECT COALESCE(MAX(id), 0) FROM teams_task WHERE team_id = ?", (team_id,)
        ).fetchone()
        return int(last)

    def task(self, team_id: str, task_id: int) -> TaskRow | None:
        row = self.db.execute(
            f"SELECT {columns_of(TaskRow)} FROM teams_task WHERE team_id = ? AND id = ?", (team_id, task_id)
        ).fetchone()
        return build_row(TaskRow, row) if row else None

    def tasks(
        self, team_id: str, *, statuses: tuple[str, ...] = (), limit: int = 10_000, after: int = 0
    ) -> list[TaskRow]:
        where, args = "team_id = ? AND id > ?", [team_id, after]
        if statuses:
            where += f" AND status IN ({', '.join('?' for _ in statuses)})"
            args += list(statuses)
        rows = self.db.execute(
            f"SELECT {columns_of(TaskRow)} FROM teams_task WHERE {where} ORDER BY id LIMIT ?", (*args, limit)
        )
        return [build_row(TaskRow, r) for r in rows]

    def recent_completions(self, team_id: str, *, limit: int) -> list[TaskRow]:
        rows = self.db.execute(
            f"SELECT {columns_of(TaskRow)} FROM teams_task WHERE team_id = ? AND status = 'completed' "
            "ORDER BY completed_at DESC, id DESC LIMIT ?",
            (team_id, limit),
        )
        return [build_row(TaskRow, r) for r in rows]

    def count_tasks(self, team_id: str) -> dict[str, int]:
        rows = self.db.execute("SELECT status, COUNT(*) FROM teams_task WHERE team_id = ? GROUP BY status", (team_id,))
        return {status: n for status, n in rows}

    def claim(self, team_id: str, task_id: int, member: str, *, now: str) -> str:
        """Compare-and-set a `pending` task to `in_progress` for `member`; return `claimed` or why not."""
        with self.db.transaction():
            return self._claim_txn(team_id, task_id, member, now)

    def _claim_txn(self, team_id: str, task_id: int, member: str, now: str) -> str:
        task = self.task(team_id, task_id)
        if task is None:
            return "not_found"
        if task.status != "pending" or task.owner is not None:
            return "already_owned" if task.owner == member else "taken"
        for dep in task.depends_on:
            needed = self.task(team_id, dep)
            if needed is None or needed.status != "completed":
                return "blocked_by_dependency"
        self.db.execute(
            "UPDATE teams_task SET status = 'in_progress', owner = ?, claimed_at = ?, updated_at = ? "
            "WHERE team_id = ? AND id = ? AND status = 'pending' AND owner IS NULL",
            (member, now, now, team_id, task_id),
        )
        if self.db.conn.changes() != 1:
            return "taken"
        self._bump_board_txn(team_id)
        return "claimed"

    def complete(
        self, team_id: str, task_id: int, member: str, *, result: str | None, evidence: dict[str, Any], now: str
    ) -> str:
        """Complete an `in_progress` task its owner holds; return `completed` or why not."""
        with self.db.transaction():
            return self._complete_txn(team_id, task_id, member, result, evidence, now)

    def _complete_txn(
        self, team_id: str, task_id: int, member: str, result: str | None, evidence: dict[str, Any], now: str
    ) -> str:
        task = self.task(team_id, task_id)
        if task is None:
            return "not_found"
        if task.owner != member or task.status != "in_progress":
            return "not_owner" if task.owner != member else f"not_in_progress ({task.status})"
        self.db.execute(
            "UPDATE teams_task SET status = 'completed', result = ?, evidence_json = ?, completed_at = ?, "
            "updated_at = ? WHERE team_id = ? AND id = ?",
            (result, json.dumps(evidence), now, now, team_id, task_id),
        )
        self._bump_board_txn(team_id)
        return "completed"

    def reopen(self, team_id: str, task_id: int, *, keep_owner: bool, now: str) -> None:
        """Back to work: to its owner (`in_progress`) or to anyone (`pending`)."""
        if keep_owner:
            self.db.execute(
                "UPDATE teams_task SET status = 'in_progress', completed_at = NULL, updated_at = ? "
                "WHERE team_id = ? AND id = ?",
                (now, team_id, task_id),
            )
        else:
            self.db.execute(
                "UPDATE teams_task SET status = 'pending', owner = NULL, claimed_at = NULL, completed_at = NULL, "
                "updated_at = ? WHERE team_id = ? AND id = ?",
                (now, team_id, task_id),
            )
        self._bump_board_txn(team_id)

    def claimable(self, team_id: str) -> list[TaskRow]:
        done = {t.id for t in self.tasks(team_id, statuses=("completed",))}
        return [t for t in self.tasks(team_id, statuses=("pending",)) if set(t.depends_on) <= done]

    # ------------------------------------------------------------ mail

    def send(self, *, team_id: str, sender: str, recipient: str, body: str, kind: str, now: str) -> int:
        self.db.execute(
            "INSERT INTO teams_message(team_id, sender, recipient, body, kind, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (team_id, sender, recipient, body, kind, now),
        )
        return int(self.db.conn.last_insert_rowid())

    def undelivered(self, team_id: str, recipient: str, *, limit: int) -> list[MessageRow]:
        """Mail waiting for `recipient`: steering first, then oldest first."""
        rows = self.db.execute(
            f"SELECT {columns_of(MessageRow)} FROM teams_message WHERE team_id = ? AND recipient = ? "
            "AND delivered_turn IS NULL ORDER BY kind = 'steer' DESC, id LIMIT ?",
            (team_id, recipient, limit),
        )
        return [build_row(MessageRow, r) for r in rows]

    def count_undelivered(self, team_id: str) -> dict[str, int]:
        rows = self.db.execute(
            "SELECT recipient, COUNT(*) FROM teams_message WHERE team_id = ? AND delivered_turn IS NULL "
            "GROUP BY recipient",
            (team_id,),
        )
        return {name: n for name, n in rows}

    def messages(self, team_id: str, *, recipient: str | None, after: int, limit: int) -> list[MessageRow]:
        where, args = "team_id = ? AND id > ?", [team_id, after]
        if recipient is not None:
            where += " AND recipient = ?"
            args.append(recipient)
        rows = self.db.execute(
            f"SELECT {columns_of(MessageRow)} FROM teams_message WHERE {where} ORDER BY id LIMIT ?", (*args, limit)
        )
        return [build_row(MessageRow, r) for r in rows]

    def mark_delivered(self, team_id: str, recipient: str, ids: list[int], receipt: str, *, now: str) -> int:
        """Give each still-undelivered message of `ids` its receipt and move the reader's cursor; return how many."""
        marked = 0
        for message_id in ids:
            self.db.execute(
                "UPDATE teams_message SET delivered_turn = ?, delivered_at = ? "
                "WHERE id = ? AND team_id = ? AND recipient = ? AND delivered_turn IS NULL",
                (receipt, now, message_id, team_id, recipient),
            )
            marked += self.db.conn.changes()
        if ids:
            self.db.execute(
                "UPDATE teams_member SET read_cursor = MAX(read_cursor, ?) WHERE team_id = ? AND name = ?",
                (max(ids), team_id, recipient),
            )
        return marked

    # ------------------------------------------------------------ turns

    def begin_turn(
        self,
        *,
        turn_id: str,
        team_id: str,
        member: str,
        owner: dict[str, Any],
        heartbeat_at: float,
        board_version: int,
        now: str,
    ) -> TurnRow | None:
        """Start a turn unless the member already has one in flight (the compare-and-set behind no duplicates)."""
        with self.db.transaction():
            busy = self.db.execute(
                "SELECT 1 FROM teams_turn WHERE team_id = ? AND member = ? AND state = 'started'", (team_id, member)
            ).fetchone()
            if busy:
                return None
            (seq,) = self.db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM teams_turn WHERE team_id = ? AND member = ?", (team_id, member)
            ).fetchone()
            self.db.execute(
                "INSERT INTO teams_turn(id, team_id, member, seq, state, owner_json, heartbeat_at, started_at, "
                "board_version) VALUES (?, ?, ?, ?, 'started', ?, ?, ?, ?)",
                (turn_id, team_id, member, seq, json.dumps(owner), heartbeat_at, now, board_version),
            )
        return self.turn(turn_id)

    def turn(self, turn_id: str) -> TurnRow | None:
        row = self.db.execute(f"SELECT {columns_of(TurnRow)} FROM teams_turn WHERE id = ?", (turn_id,)).fetchone()
        return build_row(TurnRow, row) if row else None

    def turns(
        self,
        team_id: str,
        *,
        member: str | None = None,
        states: tuple[str, ...] = (),
        limit: int = 1000,
        task_id: int | None = None,
    ) -> list[TurnRow]:
        where, args = "team_id = ?", [team_id]
        if member is not None:
            where += " AND member = ?"
            args.append(member)
        if task_id is not None:
            where += " AND task_id = ?"
            args.append(task_id)
        if states:
            where += f" AND state IN ({', '.join('?' for _ in states)})"
            args += list(states)
        rows = self.db.execute(
            f"SELECT {columns_of(TurnRow)} FROM teams_turn WHERE {where} ORDER BY started_at DESC, seq DESC LIMIT ?",
            (*args, limit),
        )
        return [build_row(TurnRow, r) for r in rows]

    def dearest_recent_turn(self, team_id: str, *, limit: int = 50) -> float | None:
        """The highest known cost among the team's last `limit` completed turns (None when none is known)."""
        rows = self.db.execute(
            "SELECT MAX(NULLIF(cost_usd, 0)) FROM (SELECT cost_usd FROM teams_turn WHERE team_id = ? AND "
            "state = 'completed' ORDER BY started_at DESC, seq DESC LIMIT ?)",
            (team_id, limit),
        )
        return next(iter(rows), (None,))[0]

    def update_turn(self, turn_id: str, **changes: Any) -> None:
        allowed = {f.name for f in fields(TurnRow)} - {"id"}
        unknown = set(changes) - allowed
        if unknown:
            raise ValueError(f"unknown turn columns {sorted(unknown)}")
        names = [column_of(TurnRow, c) for c in changes]
        values = [json.dumps(v) if n.endswith("_json") else v for n, v in zip(names, changes.values(), strict=True)]
        self.db.execute(
            f"UPDATE teams_turn SET {', '.join(f'{n} = ?' for n in names)} WHERE id = ?", (*values, turn_id)
        )

    def heartbeat_turns(self, turn_ids: list[str], at: float) -> None:
        for turn_id in turn_ids:
            self.db.execute("UPDATE teams_turn SET heartbeat_at = ? WHERE id = ? AND state = 'started'", (at, turn_id))

    def finish_turn(self, turn_id: str, *, state: str, now: str, **changes: Any) -> bool:
        """Close a started turn (only once: a reconciled turn cannot be finished again by a zombie)."""
        self.db.execute(
            "UPDATE teams_turn SET state = ?, finished_at = ? WHERE id = ? AND state = 'started'", (state, now, turn_id)
        )
        closed = self.db.conn.changes() == 1
        if closed and changes:
            self.update_turn(turn_id, **changes)
        return closed

    # ------------------------------------------------------------ events

    def log(
        self,
        team_id: str,
        kind: str,
        detail: dict[str, Any],
        *,
        member: str | None = None,
        cost_usd: float | None = None,
        now: str,
    ) -> None:
        self.db.execute(
            "INSERT INTO teams_event(team_id, member, kind, detail_json, cost_usd, at) VALUES (?, ?, ?, ?, ?, ?)",
            (team_id, member, kind, json.dumps(detail), cost_usd, now),
        )

    def events(self, team_id: str, *, kind: str | None = None, limit: int = 1000) -> list[EventRow]:
        where, args = "team_id = ?", [team_id]
        if kind is not None:
            where += " AND kind = ?"
            args.append(kind)
        rows = self.db.execute(
            f"SELECT {columns_of(EventRow)} FROM teams_event WHERE {where} ORDER BY id DESC LIMIT ?", (*args, limit)
        )
        return [build_row(EventRow, r) for r in rows]
