"""Input and output models of the team tools."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from kernel.models import ToolInput, ToolOutput

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$"
TEAM = Field(description="the team's id (`team-...`, from `pallium team start`)")
REQUEST_ID = Field(
    None,
    min_length=1,
    max_length=200,
    description="an id of your choosing for this request: a retry with the same id (a resumed script, a "
    "client that lost the answer) answers what the first one did instead of doing it again (default: none)",
)


# ---------------------------------------------------------------- inputs


def _comma_list(value: Any) -> Any:
    """`"a,b"` or `["a,b", "c"]` (a CLI flag given once or repeated) as `["a", "b", "c"]`."""
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list):
        out: list[Any] = []
        for item in value:
            out += [p.strip() for p in item.split(",") if p.strip()] if isinstance(item, str) else [item]
        return out
    return value


class StartInput(ToolInput):
    goal: str = Field(min_length=1, max_length=8000, description="what the team is for, in a sentence or a page")
    budget_usd: float | None = Field(
        None, gt=0, description="team budget in USD; the team parks once known spend reaches it (default: none)"
    )
    template: Literal["parallel-review", "adversarial-debate"] | None = Field(
        None, description="start with this roster (see `pallium team template list`); default: only the lead"
    )
    provider: str | None = Field(
        None,
        description="provider for the template's members (claude, codex, a wrapper "
        "name); default: resolved as for workflows",
    )
    cwd: str | None = Field(None, description="folder inside the git repository the team works on; default: here")
    max_calls: int | None = Field(
        None,
        gt=0,
        description="cap on provider calls (binds where a provider reports no cost: codex, wrappers without a "
        "usage file); default: none for the team, 20 for a member whose provider reports no cost",
    )
    id: str | None = Field(
        None,
        pattern=r"^team-[A-Za-z0-9][A-Za-z0-9._-]{0,100}$",
        description="the team's id (`team-...`); starting an id that exists answers that team (scripts use it "
        "to stay idempotent across resume); default: a new random id",
    )


class TemplateShowInput(ToolInput):
    name: str = Field(description="the template's name, from `pallium team template list`")


class EmptyInput(ToolInput):
    pass


class TeamInput(ToolInput):
    team: str = TEAM


class BudgetInput(ToolInput):
    team: str = TEAM
    usd: float | None = Field(None, gt=0, description="the new budget in USD (team, or `member`'s)")
    calls: int | None = Field(None, gt=0, description="the new cap on provider calls (team, or `member`'s)")
    member: str | None = Field(None, description="change this member's budget instead of the team's")


class ReleaseInput(ToolInput):
    team: str = TEAM
    task_id: int = Field(description="the in-progress task to give back to the board, from `team tasks list`")


class DiffInput(ToolInput):
    team: str = TEAM
    member: str | None = Field(None, description="only this member's patches")
    patch: str | None = Field(None, description="only this patch (its id, from `team status`)")


class WatchInput(ToolInput):
    team: str = TEAM
    interval: float = Field(2.0, ge=0.2, le=600, description="seconds between refreshes (default 2)")
    frames: int = Field(
        0,
        ge=0,
        le=100_000,
        description="refreshes before it returns (default: on a terminal until Ctrl-C or the team has nothing "
        "left to do; otherwise 1)",
    )


class WatchOutput(ToolOutput):
    team: str
    frames: int
    view: str = Field(description="the last view: members, turns, board, patches and spend")
    next_step: str = ""


class ApplyInput(ToolInput):
    team: str = TEAM
    patch: list[str] = Field(
        default_factory=list,
        description="apply only these staged patches (ids from `team status`; repeat or comma-separate); "
        "default: all staged",
    )

    _split = field_validator("patch", mode="before")(_comma_list)


class SpawnInput(ToolInput):
    team: str = TEAM
    name: str = Field(
        pattern=NAME_PATTERN, description="the member's name, unique on the team: 1-48 letters, digits, . _ -"
    )
    provider: str | None = Field(
        None,
        description="claude, codex, fake or a wrapper name; default: resolved as for "
        "workflows (PALLIUM_WORKFLOW_PROVIDER, then the agent you run in, then codex)",
    )
    model: str | None = Field(None, description="model name passed to the provider (default: its own)")
    role: str = Field("", max_length=4000, description="what this member does, shown to it and to its teammates")
    mode: Literal["read-only", "edit"] = Field(
        "read-only",
        description="read-only (default) or edit: an edit member works in its own worktree and its patches are staged",
    )
    plan_required: bool = Field(
        False,
        description="the member must have its plan approved (`team approve`) "
        "before it may edit; it runs read-only until then",
    )
    budget_usd: float | None = Field(
        None, gt=0, description="this member's own budget in USD, at most the team's (default: none)"
    )
    max_calls: int | None = Field(
        None,
        gt=0,
        description="cap on provider calls (binds where a provider reports no cost: codex, wrappers without a "
        "usage file); default: none for the team, 20 for a member whose provider reports no cost",
    )


class JoinInput(ToolInput):
    team: str = TEAM
    as_: str = Field(
        alias="as",
        pattern=NAME_PATTERN,
        description="your name on the roster (an external member "
        "is never scheduled; joining again refreshes its heartbeat)",
    )
    role: str = Field("", max_length=4000, description="your role, shown to teammates")


class TaskAddInput(ToolInput):
    team: str = TEAM
    title: str = Field(min_length=1, max_length=500, description="the task's title")
    description: str = Field("", max_length=8000, description="what done looks like (default empty)")
    depends_on: list[int] = Field(
        default_factory=list, description="ids of tasks that must be completed first (CLI: --depends-on 1,2)"
    )
    requires: list[Literal["check", "patch"]] = Field(
        default_factory=list, description="evidence the completion must carry: a check's result id, a staged patch id"
    )
    as_: str = Field("lead", alias="as", description="who adds it (default lead)")
    request_id: str | None = REQUEST_ID

    _lists = field_validator("depends_on", "requires", mode="before")(_comma_list)


class TaskListInput(ToolInput):
    team: str = TEAM
    status: Literal["pending", "in_progress", "completed", "blocked"] | None = Field(
        None, description="only tasks in this status (default: all)"
    )
    limit: int = Field(100, ge=1, le=1000, description="tasks to list, by id (1-1000, default 100)")
    cursor: int = Field(0, ge=0, description="`next_cursor` from the previous page (default 0: from the first task)")


class TaskClaimInput(ToolInput):
    team: str = TEAM
    task_id: int = Field(description="the task id, from `team tasks list`")
    as_: str = Field(alias="as", description="the member claiming it")
    request_id: str | None = REQUEST_ID


class TaskCompleteInput(ToolInput):
    team: str = TEAM
    task_id: int = Field(description="the task id, from `team tasks list`")
    as_: str = Field(alias="as", description="the member completing it (must own it)")
    result: str | None = Field(None, max_length=20000, description="what came of it")
    check_result_id: str | None = Field(None, description="evidence: a check's result id")
    patch_id: str | None = Field(None, description="evidence: a staged patch id (from `team status`)")
    request_id: str | None = REQUEST_ID


class SendInput(ToolInput):
    team: str = TEAM
    to: str = Field(description="recipient, a name on the roster; an unknown name is refused with the roster")
    body: str = Field(description="the message text")
    from_: str = Field("lead", alias="from", description="sender, a name on the roster (default lead)")
    request_id: str | None = REQUEST_ID


class InboxInput(ToolInput):
    team: str = TEAM
    for_: str | None = Field(
        None, alias="for", description="whose mailbox; an external member reading its own marks the mail delivered"
    )
    all: bool = Field(False, description="every message of the team instead of one mailbox")
    limit: int = Field(50, ge=1, le=500, description="messages per page, oldest first (1-500, default 50)")
    cursor: int = Field(0, ge=0, description="`next_cursor` from the previous page (default 0: from the start)")


class MemberInput(ToolInput):
    team: str = TEAM
    member: str = Field(description="the member's name")


class ApproveInput(MemberInput):
    request_id: str | None = REQUEST_ID


class RejectInput(ToolInput):
    team: str = TEAM
    member: str = Field(description="the member whose plan is rejected")
    feedback: str = Field(min_length=1, description="what to change; mailed to the member")
    request_id: str | None = REQUEST_ID


class SteerInput(ToolInput):
    team: str = TEAM
    member: str = Field(description="the member to steer")
    directive: str = Field(min_length=1, description="the directive; delivered first at its next turn")
    request_id: str | None = REQUEST_ID


class RestartInput(ToolInput):
    team: str = TEAM
    member: str = Field(description="the member to restart")
    stale_after_minutes: float = Field(
        15,
        gt=0,
        description="a turn whose heartbeat is older than this is taken "
        "back and the member takes a new turn (default 15)",
    )


class StatusInput(ToolInput):
    team: str = TEAM
    stale_after_minutes: float = Field(
        15, gt=0, description="a turn without heartbeat this long shows as stale (default 15)"
    )
    limit: int = Field(50, ge=1, le=500, description="tasks shown, open ones first (1-500, default 50)")


class SharedStatusInput(StatusInput):
    database: str | None = Field(
        None,
        description="Postgres URL of a team run elsewhere; default: PALLIUM_DATABASE_URL",
    )


class RunInput(ToolInput):
    team: str = TEAM
    agent_timeout: float = Field(600, ge=0, description="seconds a turn may run (default 600; 0: none)")
    stale_after_minutes: float = Field(
        15,
        gt=0,
        description="a turn of a process that cannot be checked is taken "
        "back after this long without heartbeat (default 15)",
    )
    max_concurrent: int = Field(16, ge=1, le=64, description="turns running at once (1-64, default 16)")
    max_rounds: int = Field(50, ge=1, le=1000, description="rounds before returning (1-1000, default 50)")
    database: str | None = Field(
        None,
        description="a shared database (postgresql://user@host/db, password in a 0600 file) whose `pallium "
        "worker`s on other machines run the turns; default: PALLIUM_DATABASE_URL, else this machine",
    )
    git_remote: str | None = Field(
        None, description="with database: the git remote workers fetch the team's base commit from (default: origin)"
    )


class GateSetInput(ToolInput):
    team: str = TEAM
    hooks: list[Literal["task_created", "task_completed", "teammate_idle"]] = Field(
        description="the hooks the gate judges (CLI: --hooks task_created,task_completed); empty clears the gate"
    )
    prompt: str | None = Field(None, max_length=8000, description="the rule the gate's model applies")
    provider: str | None = Field(None, description="the gate's provider (default: resolved as for workflows)")
    auto_apply: bool = Field(False, description="apply staged patches to your tree at the end of each `team run`")

    _lists = field_validator("hooks", mode="before")(_comma_list)


# ---------------------------------------------------------------- outputs


class Team(ToolOutput):
    id: str
    goal: str
    cwd: str
    status: Literal["active", "parked", "stopped"]
    template: str | None
    budget_usd: float | None
    spend_usd: float = Field(description="known spend (turns and gate calls); calls of unknown cost are not in it")
    unknown_cost_calls: int = Field(description="calls whose provider reported no cost: spend is a floor")
    gate_hooks: list[str]
    gate_prompt: str | None
    auto_apply: bool
    board_version: int
    created_at: str
    updated_at: str
    base_commit: str | None = Field(
        None, description="the snapshot of your tree edit members work on (refreshed between turns)"
    )
    base_at: str | None = Field(None, description="when that snapshot was taken")
    ceiling: str | None = Field(None, description="the authority the team was started under; spawns obey it")
    max_calls: int | None = Field(None, description="cap on provider calls")
    calls: int = Field(0, description="provider calls started")


class Member(ToolOutput):
    name: str
    provider: str
    model: str | None
    role: str
    mode: str
    external: bool
    status: str = Field(description="what it last said: active | idle | blocked, or stopped | error")
    status_reason: str | None
    state: str = Field(description="by evidence: idle | waiting | running | stale | dead | stopped")
    session_id: str | None
    session_established: bool
    session_note: str | None = Field(description="set when a session was lost and restarted with a handoff")
    plan_required: bool
    plan_status: str | None
    stop_requested: bool
    nudged: bool
    waiting_messages: int
    turn_count: int
    last_turn_at: str | None
    last_turn_status: str | None
    last_turn_error: str | None
    current_turn: str | None
    budget_usd: float | None
    spend_usd: float
    unknown_cost_calls: int
    max_calls: int | None = None
    calls: int = 0
    snapshot_commit: str | None = Field(
        None,
        description="edit members: the snapshot of your tree its last worktree was made on (the team's staged, "
        "unapplied patches on top)",
    )
    snapshot_at: str | None = Field(None, description="when that snapshot of your tree was taken")
    snapshot_current: bool | None = Field(
        None,
        description="edit members: whether that is the team's current snapshot; false: its next turn works on the "
        "newer tree",
    )


class Task(ToolOutput):
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
    claimed_at: str | None
    completed_at: str | None


class Message(ToolOutput):
    id: int
    sender: str
    recipient: str
    body: str
    kind: str = Field(description="mail (from an agent or the lead), steer (a lead's directive), system (Pallium)")
    created_at: str
    delivered_turn: str | None = Field(description="receipt: the turn that read it (or `inbox:<time>`)")
    delivered_at: str | None


class Patch(ToolOutput):
    patch_id: str
    state: str
    detail: str | None
    member: str | None = None
    task_id: int | None = Field(None, description="the task the member held when it made the patch")
    files: list[str] = Field(default_factory=list)
    added: int = Field(0, description="lines added")
    removed: int = Field(0, description="lines removed")


class DiffOutput(ToolOutput):
    team: str
    patches: list[Patch]
    diff: str = Field(description="the patches' diffs, in staging order, each after a header line")
    truncated: bool


class TemplateMember(ToolOutput):
    name: str
    role: str
    mode: str


class Template(ToolOutput):
    name: str
    description: str
    members: list[TemplateMember]


class TemplateList(ToolOutput):
    templates: list[Template]


class StartOutput(ToolOutput):
    team: Team
    members: list[Member]
    existed: bool = Field(False, description="the id named a team that already existed: it is answered unchanged")
    warnings: list[str] = Field(default_factory=list)
    next_step: str = ""


class MemberOutput(ToolOutput):
    member: Member
    warnings: list[str] = Field(default_factory=list)
    next_step: str = ""


class TeamOutput(ToolOutput):
    team: Team


class TaskOutput(ToolOutput):
    task: Task
    outcome: str = Field(
        description="created | claimed | completed | rejected | requeued | missing_evidence | released"
    )
    message: str = ""


class TaskList(ToolOutput):
    tasks: list[Task]
    truncated: bool
    next_cursor: int | None = Field(None, description="pass as `cursor` for the next page")


class SendOutput(ToolOutput):
    message: Message


class InboxOutput(ToolOutput):
    messages: list[Message]
    truncated: bool
    next_cursor: int | None


class StatusOutput(ToolOutput):
    team: Team
    members: list[Member]
    tasks: list[Task]
    tasks_truncated: bool
    task_counts: dict[str, int]
    patches: list[Patch]
    untracked_cost_providers: list[str] = Field(description="providers whose calls reported no cost: spend omits them")
    spend: str = Field(description="spend in words, unknown cost said as unknown, never $0")
    reconciled_interrupted: list[str] = Field(
        default_factory=list, description="members whose turns were closed as interrupted by this call"
    )
    next_step: str = Field("", description="the next useful command for this team, as you would type it")
    notes: list[str] = Field(
        default_factory=list,
        description="read from a shared database: how old its record is and whether a `team run` holds the team",
    )


class TurnSummary(ToolOutput):
    member: str
    turn_id: str | None
    state: str
    detail: str


class RunOutput(ToolOutput):
    team: Team
    rounds: int
    turns_taken: int
    turns: list[TurnSummary]
    reconciled_interrupted: list[str]
    stopped: bool
    parked: bool
    reason: str
    failed_turns: int = Field(0, description="turns that failed (the CLI exits 1 when every turn failed)")
    next_step: str = Field("", description="the next useful command for this team, as you would type it")


class ApplyOutput(ToolOutput):
    team: str
    applied: list[str]
    already: list[str]
    skipped: list[str]


class ListInput(ToolInput):
    status: Literal["active", "parked", "stopped"] | None = Field(
        None, description="only teams in this state (default: all)"
    )
    repo: str | None = Field(None, description="only teams working in this repository (default: all)")
    limit: int = Field(20, ge=1, le=200, description="most teams, newest first (1-200, default 20)")


class TeamSummary(ToolOutput):
    id: str
    goal: str = Field(description="the goal, cut at 200 characters")
    status: Literal["active", "parked", "stopped"]
    cwd: str
    template: str | None
    members: int = Field(description="members on the roster, the lead included")
    open_tasks: int = Field(description="tasks pending, in progress or blocked")
    completed_tasks: int
    waiting_messages: int = Field(description="mail no member has read yet")
    spend: str = Field(description="spend in words, unknown cost said as unknown, never $0")
    created_at: str
    updated_at: str


class ListOutput(ToolOutput):
    teams: list[TeamSummary]
    truncated: bool = Field(description="more teams match: raise `limit` (CLI --limit)")
