"""Input and output models of the loop tools."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kernel.models import ToolInput, ToolOutput

TickState = Literal["success", "no_op", "blocked", "exhausted", "stagnated", "error", "already_running"]

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


class StartInput(ToolInput):
    name: str = Field(
        pattern=NAME_PATTERN,
        description="the loop's name: 1-64 letters, digits, . _ - (starts with a letter or digit); must be new",
    )
    script: str = Field(
        description="path of the loop script (.js), inside the repository or $PALLIUM_HOME/workflows; it must "
        "declare `export const meta = {kind: 'loop', loop: {...}}`"
    )
    task: str | None = Field(
        None,
        description='what the loop works toward, in words (`pallium loop start NAME --script F "<task>"`); each '
        "tick's run takes it as its task, and a script whose meta.args lists task reads it as args.task",
    )
    args: str | None = Field(
        None,
        description="JSON value (object, array, string or number) every tick's script reads as `args`, exactly as "
        "given; nothing is added to it (default null)",
    )
    cwd: str | None = Field(
        None, description="folder inside the repository the loop works on; default: the current folder"
    )


class TickInput(ToolInput):
    name: str = Field(description="the loop to tick")
    agent_timeout: float = Field(600, ge=0, description="seconds each agent of the tick may run (default 600; 0: none)")


class NameInput(ToolInput):
    name: str = Field(description="the loop's name")


class StatusInput(ToolInput):
    name: str = Field(description="the loop's name")
    limit: int = Field(10, ge=1, le=100, description="recent cycles to show, newest first (1-100, default 10)")


class ListInput(ToolInput):
    limit: int = Field(50, ge=1, le=500, description="loops per page, by name (1-500, default 50)")
    cursor: str | None = Field(None, description="`next_cursor` from the previous page")


class Loop(ToolOutput):
    name: str
    script_path: str
    cwd: str
    task: str | None = Field(None, description="what the loop works toward, as given to `loop start`")
    args: str | None = Field(description="the JSON text each tick passes as `args`")
    status: Literal["active", "stopped"]
    cycle: int = Field(description="cycles begun so far, interrupted ones included; reset keeps it")
    last_state: str | None
    last_signature: str | None
    stagnation_count: int = Field(description="consecutive cycles that reported the last signature")
    stagnation_threshold: int
    cycle_budget_usd: float | None
    lifetime_budget_usd: float | None
    lifetime_spend_usd: float = Field(description="known spend over the loop's life")
    unknown_cost_calls: int = Field(description="agent calls whose provider reported no cost: spend above is a floor")
    budget_enforceable: bool = Field(
        description="false when a budget is set but some calls reported no cost, so the limit cannot be trusted"
    )
    stale_after_minutes: float
    max_cycles: int | None = Field(description="most cycles the loop may begin (meta.loop.maxCycles); null: no cap")
    started_version: str = Field(description="Pallium's version when the loop started")
    started_script_hash: str = Field(description="hash of the script text when the loop started")
    tick_in_flight: bool = Field(description="a tick holds the lease now (or died holding it)")
    tick_started_at: str | None
    created_at: str
    updated_at: str


class Cycle(ToolOutput):
    cycle: int
    state: str = Field(description="the tick's terminal state, or `running` while a tick is in flight")
    run_id: str | None = Field(description="the child workflow run of this cycle")
    signature: str | None
    stagnation_count: int
    cost_usd: float
    unknown_cost_calls: int
    reason: str | None = Field(description="why the state is what it is, when the script's own word was overruled")
    summary: str | None = Field(description="the script's summary of the cycle")
    warnings: list[str]
    started_at: str
    finished_at: str | None


class TickOutput(ToolOutput):
    loop: str
    state: TickState = Field(
        description="success 0, error 1, no_op 2, blocked 3, exhausted 4, stagnated 5, already_running 6 "
        "(the CLI's exit code)"
    )
    ran: bool = Field(description="false when the tick ran no workflow (already running, stagnated, exhausted)")
    cycle: int | None = Field(description="the cycle this tick recorded; null when it recorded none")
    run_id: str | None
    signature: str | None
    stagnation_count: int
    cost_usd: float | None = Field(description="known spend of this cycle; null when the tick ran nothing")
    unknown_cost_calls: int
    lifetime_spend_usd: float
    reason: str | None
    summary: str | None
    warnings: list[str] = Field(description="the script or Pallium changed since start; a budget is unenforceable")
    reconciled: Cycle | None = Field(None, description="a cycle whose tick had died, closed by this tick")


class StatusOutput(ToolOutput):
    verdict: str = Field(description="one line: where the loop stands and what the next tick would do")
    loop: Loop
    cycles: list[Cycle] = Field(description="recent cycles, newest first")
    budget: str = Field(description="spend against the budgets in words; says plainly when cost is unknown")
    warnings: list[str]


class ListOutput(ToolOutput):
    loops: list[Loop]
    truncated: bool
    next_cursor: str | None


class ChangeOutput(ToolOutput):
    loop: Loop
    changed: bool = Field(description="false when the loop already was in the state asked for")
