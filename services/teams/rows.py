"""The rows the teams store returns, and how each maps to its columns (JSON text, SQLite's 0/1).

Split from `store.py`, which keeps the tables and every statement; the rest of the service reads
these rows, so it names their types without importing the queries.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, fields
from typing import Any

__all__ = [
    "EventRow",
    "MemberRow",
    "MessageRow",
    "RequestRow",
    "TaskRow",
    "TeamRow",
    "TurnRow",
    "build_row",
    "column_of",
    "columns_of",
]


@dataclass(frozen=True)
class TeamRow:
    id: str
    goal: str
    cwd: str
    status: str
    template: str | None
    budget_usd: float | None
    spend_usd: float
    unknown_cost_calls: int
    gate_prompt: str | None
    gate_hooks: list[str]
    gate_provider: str | None
    auto_apply: bool
    board_version: int
    created_at: str
    updated_at: str
    base_commit: str | None  # the snapshot of the user's tree the team's worktrees are made on
    base_at: str | None  # when it was taken
    ceiling: str | None = None  # the authority the team was started under: no later spawn or run goes above it
    max_calls: int | None = None  # a cap on provider calls (binds where cost is unknown)
    calls: int = 0  # provider calls that started


@dataclass(frozen=True)
class MemberRow:
    team_id: str
    name: str
    provider: str
    model: str | None
    role: str
    mode: str
    requested_mode: str
    external: bool
    status: str
    status_reason: str | None
    session_id: str | None
    session_established: bool
    session_note: str | None
    plan_required: bool
    plan_status: str | None
    stop_requested: bool
    nudged: bool
    retry: bool
    last_seen_board: int
    turn_count: int
    last_turn_at: str | None
    last_turn_status: str | None
    last_turn_error: str | None
    last_decision_hash: str | None
    repeat_count: int
    budget_usd: float | None
    spend_usd: float
    unknown_cost_calls: int
    read_cursor: int
    heartbeat_at: float | None
    created_at: str
    snapshot_commit: str | None  # the commit an edit member's last worktree was made from
    snapshot_at: str | None  # when the user's tree under that commit was taken
    max_calls: int | None = None
    calls: int = 0


@dataclass(frozen=True)
class TaskRow:
    team_id: str
    id: int
    title: str
    description: str
    status: str
    owner: str | None
    depends_on: list[int]
    requires: list[str]
    result: str | None
    evidence: dict[str, Any]
    created_by: str
    created_at: str
    updated_at: str
    claimed_at: str | None
    completed_at: str | None


@dataclass(frozen=True)
class MessageRow:
    id: int
    team_id: str
    sender: str
    recipient: str
    body: str
    kind: str
    created_at: str
    delivered_turn: str | None
    delivered_at: str | None


@dataclass(frozen=True)
class TurnRow:
    id: str
    team_id: str
    member: str
    seq: int
    state: str
    owner: dict[str, Any]
    heartbeat_at: float
    started_at: str
    finished_at: str | None
    board_version: int
    prompt_bytes: int
    mail_ids: list[int]
    provider: str | None
    session_mode: str | None
    session_id: str | None
    cost_usd: float | None
    error: str | None
    decision: dict[str, Any] | None
    summary: str | None
    call_key: str | None
    patch_state: str | None
    patch_files: list[str]
    spend_recorded: bool
    task_id: int | None = None  # the task the member held when the turn began: what its patch is for


@dataclass(frozen=True)
class RequestRow:
    """A request that carried a `request_id`: what it made or changed (`ref`), so a retry answers it again."""

    team_id: str
    request_id: str
    tool: str
    ref: str
    at: str


@dataclass(frozen=True)
class EventRow:
    id: int
    team_id: str
    member: str | None
    kind: str
    detail: dict[str, Any]
    cost_usd: float | None
    at: str


# fields stored as JSON text, in a column named `<field>_json`
_JSON_FIELDS: dict[type, frozenset[str]] = {
    TeamRow: frozenset({"gate_hooks"}),
    TaskRow: frozenset({"depends_on", "requires", "evidence"}),
    TurnRow: frozenset({"owner", "mail_ids", "decision", "patch_files"}),
    EventRow: frozenset({"detail"}),
}


def column_of(row_type: type, name: str) -> str:
    return name + "_json" if name in _JSON_FIELDS.get(row_type, ()) else name


@functools.cache
def columns_of(row_type: type) -> str:
    return ", ".join(column_of(row_type, f.name) for f in fields(row_type))


def build_row(row_type: type, values: tuple[Any, ...]) -> Any:
    """A row of `row_type` from its columns in `columns_of` order: JSON decoded, SQLite's 0/1 as bools."""
    data = {}
    for (name, kind), value in zip(_decoders(row_type), values, strict=True):
        if kind == "json":
            value = json.loads(value) if value is not None else None
        elif kind == "bool":
            value = bool(value)
        data[name] = value
    return row_type(**data)


@functools.cache
def _decoders(row_type: type) -> tuple[tuple[str, str], ...]:
    json_fields = _JSON_FIELDS.get(row_type, frozenset())
    return tuple(
        (f.name, "json" if f.name in json_fields else "bool" if f.type == "bool" else "") for f in fields(row_type)
    )
