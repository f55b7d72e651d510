"""Input and output models of the tools that look into a workflow run after the fact (report, inspect,
show, read), clean up after runs (gc), and list the host API (tools list)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kernel.models import ToolInput, ToolOutput
from services.workflows.decisions import DecisionEntry
from services.workflows.models import FailureEntry, PatchEntry


class ReportInput(ToolInput):
    run_id: str = Field(description="the run: its id or a unique prefix of it")
    full: bool = Field(False, description="everything, with no 12 KB cap")
    database: str | None = Field(None, description="Postgres URL of a shared run")


class AgentLine(ToolOutput):
    label: str
    phase: str | None
    mode: str | None
    ok: bool
    cached: bool = Field(description="answered from the journal in this attempt")
    cost_usd: float | None = Field(description="what the call cost; null when the provider reported no cost")
    error_class: str | None = Field(description="why it failed (timeout, schema, provider_error, ...), or null")
    patch_state: str | None
    excerpt: str | None = Field(
        None,
        description="the head of its answer (or of why it failed) on one line, 160 characters unless full "
        "(500); the whole answer: pallium_workflow_read with call_key; null for runs recorded before excerpts",
    )
    call_key: str | None = Field(None, description="its journal key, for pallium_workflow_read")


class CostLine(ToolOutput):
    spent_usd: float = Field(description="known spend in USD; calls of unknown cost are not in it")
    unknown_cost_calls: int = Field(description="calls whose provider reported no cost")
    limit_usd: float | None
    text: str = Field(description="the spend in words; never $0 when some cost is unknown")


class ReportOutput(ToolOutput):
    verdict: str = Field(description="VERDICT: FINISHED|NOT FINISHED (<status>) — a/b agents complete")
    ok: bool = Field(
        False, description="the run finished and its result does not say it failed; the same as the exit status 0"
    )
    outcome: str | None = Field(None, description="the result's `verdict`: how the script says its work went")
    id: str
    task: str
    status: str
    error: str | None
    summary: Any = Field(description="the result's `summary` field, or the result itself when it is a string")
    findings: list[Any] = Field(description="the result's `findings` (or `confirmed`) list")
    risks: list[Any] = Field(description="the result's `risks` list")
    next_steps: list[Any] = Field(description="the result's `next_steps` (or `nextSteps`) list")
    failing: list[Any] = Field(
        default_factory=list, description="the result's `failing` list: what its own check still found failing"
    )
    patches: list[PatchEntry]
    agents: list[AgentLine] = Field(description="one line per agent call of the latest attempt, in order")
    agents_total: int
    cost: CostLine
    failures: list[FailureEntry]
    decisions: list[DecisionEntry] = Field(
        default_factory=list,
        description="what the script recorded with pallium.decisions.record, in order (20 at most)",
    )
    truncated: bool = Field(description="lists or items were cut to keep the answer within 12 KB; rerun with full")


class InspectInput(ToolInput):
    run_id: str = Field(description="the run: its id or a unique prefix of it")
    full: bool = Field(False, description="the run's args uncut and every worktree (default: 4 KB of args, 50 trees)")


class KernelRunRecord(ToolOutput):
    status: str = Field(description="the kernel's view: pending | running | completed | failed | interrupted | ...")
    lease_epoch: int = Field(description="how many times a process took the run's lease")
    owner_pid: int | None
    owner_host: str | None
    owner_alive: bool = Field(description="a live process holds the lease right now")
    heartbeat_at: str | None
    lease_expires_at: str | None
    base_commit: str | None = Field(description="the commit the run reads from, pinned at its first attempt")
    base_tree: str | None
    agents_started: int
    spent_usd: float
    unknown_cost_calls: int
    budget_usd: float | None
    calls: dict[str, int] = Field(description="journal calls by status (completed, failed, started, interrupted)")


class WorktreeLine(ToolOutput):
    path: str
    purpose: str = Field(description="edit | staging | seeded | loop")
    state: str = Field(description="creating | active | captured | kept | removed")
    call_key: str | None
    exists: bool = Field(description="the folder is on disk")


class InspectOutput(ToolOutput):
    id: str
    task: str
    status: str
    repo: str
    error: str | None
    script_path: str | None
    script_hash: str
    script_bytes: int
    script_changed: bool = Field(description="the script was edited between attempts")
    args: Any = Field(description="the run's args (a string ending in a cut marker when over 4 KB and not full)")
    limits: dict[str, Any] = Field(description="budget_usd, max_agents, concurrency, agent_timeout, allow_commands")
    attempts: int
    created_at: str
    updated_at: str
    run_dir: str = Field(description="$PALLIUM_HOME/workflow-runs/<id>: patch files, logs, worktrees")
    run_dir_exists: bool
    kernel: KernelRunRecord | None = Field(description="the kernel's run record (lease, owner, base commit)")
    worktrees: list[WorktreeLine] = Field(description="the run's worktrees, oldest first (50 unless full)")
    worktrees_total: int


class ShowInput(ToolInput):
    run_id: str = Field(description="the run: its id or a unique prefix of it")
    kind: str | None = Field(
        None, description="only events of this kind: agent, failure, log, check, workflow or decision"
    )
    limit: int = Field(50, ge=1, le=500, description="events per page, oldest first (default 50)")
    cursor: str | None = Field(None, description="`next_cursor` from the previous page")


class EventLine(ToolOutput):
    index: int = Field(description="position among the run's events (all attempts), from 0")
    attempt: int
    at: str
    phase: str | None
    kind: str
    label: str | None
    ok: bool | None = Field(description="for agents and checks: whether it succeeded; null otherwise")
    text: str = Field(description="a short line: log message, failure error, check summary, workflow name")


class ShowOutput(ToolOutput):
    run_id: str
    events: list[EventLine]
    total: int = Field(description="events matching the filter, all pages")
    truncated: bool
    next_cursor: str | None


class ReadInput(ToolInput):
    run_id: str = Field(description="the run: its id or a unique prefix of it")
    call: str | None = Field(
        None, description="the call's journal key (or a unique prefix); with neither this nor `label`: the run's result"
    )
    label: str | None = Field(None, description="the agent's label as the script gave it; give this or `call`")
    full: bool = Field(False, description="the output uncut (default: cut at 8000 characters with a marker)")


class ReadOutput(ToolOutput):
    run_id: str
    call_key: str | None = Field(description="the call read; null when the run itself was read (no call or label)")
    label: str | None
    op: str | None
    status: str = Field(description="the call's: started | completed | failed | interrupted; or the run's status")
    mode: str | None
    provider: str | None
    model: str | None
    attempts: int = Field(description="how many times the call was started (resumes included); the run's attempts")
    prompt: str | None = Field(description="the call's full prompt; null for the run")
    output: Any = Field(description="the parsed JSON answer, or the text; null when the call has no result")
    output_truncated: bool = Field(description="output (or result) was cut; rerun with full")
    error: dict[str, Any] | None = Field(description="error_class, message and reason when the call failed")
    cost_usd: float | None
    patch_state: str | None
    patch_files: list[str]
    result: Any = Field(None, description="reading the run: what the script returned (null until it completes)")
    run_error: str | None = Field(None, description="reading the run: why it failed, when it did")
    failures: list[FailureEntry] = Field(
        default_factory=list, description="reading the run: parallel/pipeline items that failed and became null"
    )


class GcInput(ToolInput):
    older_than: float = Field(
        30, ge=0, description="days since a run ended before its run folder goes (default 30; 0: every ended run)"
    )
    confirm: bool = Field(False, description="actually delete (needs admin); without it, only say what would go")
    dry_run: bool = Field(False, description="only say what would go, even with confirm")
    include_resumable: bool = Field(
        False,
        description="also delete the folders of failed, stopped, interrupted and paused runs (they can no longer "
        "be resumed); by default only completed runs' folders go",
    )
    limit: int = Field(50, ge=1, le=5000, description="paths listed per kind in the answer (default 50); all go")


class RunDirLine(ToolOutput):
    run_id: str
    path: str
    status: str | None = Field(description="the run's status, or null for a folder no run record names")
    updated_at: str | None
    bytes: int


class GcOutput(ToolOutput):
    confirmed: bool = Field(description="false in a preview: nothing was deleted")
    worktrees: list[str] = Field(description="worktrees of runs no longer live: removed, or that would be")
    worktrees_live: int = Field(description="worktrees kept because their run's process is alive")
    run_dirs: list[RunDirLine] = Field(description="run folders of ended runs older than older_than days")
    kept: list[str] = Field(description="run folders kept, with why (running, awaiting approval, patch mid-apply)")
    worktrees_total: int = Field(description="worktrees removed (or that would be), listed or not")
    run_dirs_total: int = Field(description="run folders removed (or that would be), listed or not")
    bytes: int = Field(description="bytes freed, or that would be")


class ToolsListInput(ToolInput):
    available_only: bool = Field(False, description="only what a script can call in this version (default false)")
    kind: Literal["control", "agent", "verification", "pallium"] | None = Field(
        None, description="only calls of this kind (the original's groups); default: all"
    )


class HostCallLine(ToolOutput):
    name: str
    usage: str
    summary: str
    kind: str = Field(description="control, agent, verification or pallium")
    available: bool = Field(description="false when a call exists in the API but this version refuses it")


class ToolsListOutput(ToolOutput):
    calls: list[HostCallLine]
