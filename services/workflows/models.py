"""Input and output models of the workflow tools."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kernel.models import ToolInput, ToolOutput


class ValidateInput(ToolInput):
    script: str | None = Field(
        None,
        description="path of a .js workflow script, inside the repository or "
        "$PALLIUM_HOME/workflows; give this or `source`",
    )
    source: str | None = Field(
        None, max_length=1_000_000, description="the script's text itself, instead of a path (at most 1 MB)"
    )


class ValidateOutput(ToolOutput):
    valid: bool = Field(description="false when any error was found; warnings alone keep it valid")
    errors: list[str] = Field(description="problems that stop the script from running, with line numbers")
    warnings: list[str] = Field(description="likely mistakes that would fail at run time")
    meta: dict[str, Any] | None = Field(description="the script's `export const meta` literal, when it has one")
    script: str | None = Field(description="the resolved path, or null for inline source")
    script_hash: str = Field(description="hash of the script text; a resume compares it to see edits")


class RunInput(ToolInput):
    task: str = Field(
        "",
        description="what the run is for, in words; recorded with the run. May be left out with a script or "
        "workflow; `/NAME rest of task` names the saved workflow NAME, as in the original",
    )
    script: str | None = Field(
        None,
        description="path of the workflow script (.js), inside the repository or $PALLIUM_HOME/workflows; or "
        "give `source` or `workflow`; with none of them the built-in plan-and-verify plan runs",
    )
    source: str | None = Field(None, max_length=1_000_000, description="the script's text itself, instead of a path")
    workflow: str | None = Field(
        None,
        description="name of a saved workflow (.pallium/workflows, $PALLIUM_HOME/workflows) or a built-in template",
    )
    args: str | None = Field(None, description="JSON value the script reads as `args` (default null)")
    id: str | None = Field(None, description="run id to use (letters, digits, . _ -); default: generated")
    repo: str | None = Field(None, description="repository the run works on; default: the current one")
    max_agents: int = Field(1000, ge=1, le=100_000, description="most agents over the run's life, resumes included")
    max_concurrent_agents: int = Field(16, ge=1, le=256, description="agents running at once (default 16)")
    max_budget_usd: float | None = Field(None, gt=0, description="spending limit in USD; default: none")
    agent_timeout: float = Field(600, ge=0, description="seconds each agent may run (default 600; 0: no limit)")
    background: bool = Field(
        False,
        description="return after wait_seconds while the run goes on in its own "
        "process (always so over MCP); poll it with workflow status",
    )
    wait_seconds: float = Field(
        30,
        ge=0,
        le=600,
        description="in the background: how long to wait for the end "
        "before returning the run's id and status (default 30)",
    )
    allow_command: list[str] = Field(
        default_factory=list,
        description="a command check() may run, repeatable; commands in .pallium/config.toml [workflows] "
        "allow_commands and the verification commands the repository service infers are allowed too "
        "once the repository is trusted (or with allow_repo_commands)",
    )
    allow_repo_commands: bool = Field(
        False,
        description="let this run's checks run the repository's own commands (inferred test commands such "
        "as make test or pytest, which run its Makefile or conftest.py) although it is not trusted",
    )
    allow_network: bool = Field(
        False,
        description="let agents that ask for it (network: true) use the network (default false: such agents "
        "run offline, and an event says so)",
    )
    database: str | None = Field(
        None, description="Postgres URL whose `pallium worker`s run the agents (default: PALLIUM_DATABASE_URL)"
    )
    git_remote: str | None = Field(None, description="with database: the remote workers fetch from (default: origin)")


class ResumeInput(ToolInput):
    run_id: str = Field(description="the run to resume: its id or a unique prefix of it")
    script: str | None = Field(None, description="a new version of the script to resume with; default: the run's own")
    background: bool = Field(False, description="go on in the background after wait_seconds (always so over MCP)")
    wait_seconds: float = Field(30, ge=0, le=600, description="in the background: how long to wait (default 30)")
    database: str | None = Field(
        None,
        description="Postgres URL of a shared run",
    )


class RunRefInput(ToolInput):
    run_id: str = Field(description="the run: its id or a unique prefix of it")


class SharedRunRefInput(RunRefInput):
    database: str | None = Field(None, description="Postgres URL of a shared run")


class ListInput(ToolInput):
    limit: int = Field(10, ge=1, le=200, description="runs per page, newest first (default 10)")
    cursor: str | None = Field(None, description="`next_cursor` from the previous page")


class AgentCounts(ToolOutput):
    total: int
    succeeded: int
    failed: int
    replayed: int = Field(description="answered from the journal without running again")


class FailureEntry(ToolOutput):
    primitive: str | None
    index: int | None
    stage: int | None
    phase: str | None
    error: str


class PatchEntry(ToolOutput):
    call_key: str
    state: str
    detail: str | None


class GateEntry(ToolOutput):
    name: str
    state: str = Field(description="pending (waits for a person) or decided")
    approved: bool
    reason: str | None
    decided_by: str = Field(description="verifier (an agent) or person")


class RunOutput(ToolOutput):
    id: str
    task: str
    status: str = Field(
        description="queued | running | completed | failed | stopped | paused | interrupted | awaiting_approval"
    )
    verdict: str = Field(description="one line: FINISHED or NOT FINISHED, with agent counts")
    ok: bool = Field(
        False,
        description="the run finished and its result does not say it failed (`ok: false` or a failing `verdict` "
        "in the result); the same as the verdict's FINISHED and the CLI's exit status 0",
    )
    repo: str
    result: Any = Field(description="what the script returned (null until it completes)")
    error: str | None
    agents: AgentCounts
    failures: list[FailureEntry] = Field(description="items of parallel/pipeline that failed and became null")
    cost: dict[str, Any] = Field(description="known spend, calls whose cost is unknown, and the limit")
    patches: list[PatchEntry] = Field(description="edit patches staged by this run and their state")
    gates: list[GateEntry] = Field(description="the run's gates; a pending one waits for a person")
    script_changed: bool = Field(description="the script was edited between attempts")
    attempts: int
    created_at: str
    updated_at: str
    live_calls: int | None = Field(None, description="agent calls that ran in this attempt (run/resume only)")
    replayed_calls: int | None = Field(None, description="calls answered from the journal in this attempt")
    source: str | None = Field(
        None,
        description="where the script came from: template:<name>, repo:<name>, user:<name>, script:<path> or inline",
    )
    ceiling: str | None = Field(None, description="the authority the run started with; no later call raises it")
    ignored: list[str] = Field(
        default_factory=list,
        description="files the repository ships (saved workflows, .pallium/config.toml with allow_commands) "
        "that this run did not honour because the repository is not trusted",
    )
    trust_hint: str | None = Field(None, description="the command that trusts the repository, when it ignored some")
    notes: list[str] = Field(default_factory=list, description="what this call did not do as asked, and why")


class RunSummary(ToolOutput):
    id: str
    task: str
    status: str
    updated_at: str


class ListOutput(ToolOutput):
    runs: list[RunSummary]
    truncated: bool
    next_cursor: str | None


class ApplyOutput(ToolOutput):
    run_id: str
    applied: list[str] = Field(description="patches brought into (or, for revert, taken out of) the tree now")
    already: list[str] = Field(description="patches that were already in that state")
    skipped: list[str] = Field(description="patches blocked by a gate or conflicted in staging: never applied")


class TemplateListInput(ToolInput):
    repo: str | None = Field(None, description="repository whose saved workflows to list; default: the current one")


class TemplateEntry(ToolOutput):
    name: str
    origin: str = Field(description="template (built in), repo (.pallium/workflows) or user ($PALLIUM_HOME)")
    description: str | None


class TemplateListOutput(ToolOutput):
    workflows: list[TemplateEntry]


class TemplateShowInput(ToolInput):
    name: str = Field(description="a template or saved workflow name")
    repo: str | None = Field(None, description="repository whose saved workflows to search; default: the current one")


class TemplateShowOutput(ToolOutput):
    name: str
    origin: str
    path: str
    source: str


class SaveInput(ToolInput):
    run_id: str = Field(description="the run whose script to save: its id or a unique prefix")
    name: str = Field(description="name to save it under (letters, digits, - and _)")
    scope: Literal["repo", "user"] = Field(
        "repo", description="repo: .pallium/workflows (can be committed); user: $PALLIUM_HOME/workflows"
    )


class SaveOutput(ToolOutput):
    name: str
    path: str


_TAILOR = "ask a provider (read-only; needs consult) to adapt the template; a bad answer falls back to it, saying why"
_TAILOR_PROVIDER = "provider that tailors (claude, codex, fake...); default: the usual resolution"
_TAILOR_TIMEOUT = "seconds tailoring may take before the template is used as it is (default 120)"


Style = Literal["auto", "review", "test-fix", "fix-until-green", "research", "plan"]
_STYLE = (
    "review, test-fix (alias fix-until-green), research or plan (plan-and-verify); auto picks test-fix "
    "with a test command, else "
)


class GenerateInput(ToolInput):
    task: str = Field(description="what the workflow should do")
    style: Style = Field("plan", description="which plan to start from: " + _STYLE + "review (default plan)")
    test_command: str | None = Field(
        None, description="the repository's test command, passed to the script as args.test_command"
    )
    max_rounds: int | None = Field(
        None, ge=1, le=20, description="fix rounds for test-fix, passed as args.max_rounds (default: the script's, 3)"
    )
    output: str | None = Field(
        None, description="write the script to this path inside the repository (needs edit authority)"
    )
    tailor: bool = Field(False, description=_TAILOR)
    provider: str | None = Field(None, description=_TAILOR_PROVIDER)
    model: str | None = Field(None, description="model for the tailoring provider; default: the provider's own")
    timeout_seconds: float = Field(120, gt=0, le=1800, description=_TAILOR_TIMEOUT)


class Tailoring(ToolOutput):
    tailored: bool = Field(description="true when the provider's script replaced the template")
    provider: str | None = Field(description="the provider asked, once resolved")
    reason: str = Field(description="what happened: tailored, or why the template was kept")
    cost_usd: float | None = Field(None, description="what the provider reported spending; null when unknown")


class GenerateOutput(ToolOutput):
    style: str = Field(description="the style used, `auto` resolved and aliases kept as given")
    template: str
    source: str
    args: dict[str, Any] = Field(description="the args the script expects for this task")
    reads_args: dict[str, str] = Field(
        default_factory=dict,
        description="each args field the script reads (its meta.args) and what it is; a plain `workflow run "
        "--script FILE TASK` gives it `task`, the rest come from --args",
    )
    path: str | None
    tailoring: Tailoring | None = Field(None, description="how tailoring went; null when it was not asked for")


class PreflightInput(ToolInput):
    task: str = Field(description="the task, in words; its words find files when no scope is given and nothing changed")
    scope: list[str] = Field(
        default_factory=list,
        description="files or folders to inspect, repeatable; default: the changed files, else search hits",
    )
    repo: str | None = Field(None, description="repository to scope; default: the current one")
    limit: int = Field(8, ge=1, le=30, description="most files to inspect (1-30, default 8)")


class PreflightFile(ToolOutput):
    path: str
    risk_level: str | None = Field(description="low, medium or high; null when the file could not be explained")
    risk_score: float | None
    why: list[str] = Field(description="the main risk factors (at most 3)")
    tests: list[str] = Field(description="test files that cover it (at most 5)")
    note: str | None = Field(None, description="why it could not be explained, when it could not")


class PreflightVerification(ToolOutput):
    fast: list[str] = Field(description="seconds: the tests that cover the files")
    safe: list[str] = Field(description="the packages' tests and linters")
    full: list[str] = Field(description="the whole suite")


class PreflightOutput(ToolOutput):
    task: str
    repo: str
    source: Literal["scope", "named", "changed", "search", "none"] = Field(
        description="where the files came from: the scope, the area the task names (paths, folders, files or "
        "symbols it mentions), the changed files, search hits for the task, or nothing"
    )
    files: list[PreflightFile] = Field(description="files to inspect, riskiest first")
    files_to_inspect: list[str] = Field(
        default_factory=list, description="the same files' paths, in order (the original's field, which scripts read)"
    )
    changed_files: list[str] = Field(description="the working tree's changed files (at most 50)")
    changed_count: int
    verification: PreflightVerification = Field(description="commands to run, unioned over the files")
    notes: list[str] = Field(description="what could not be answered, and why")
    truncated: bool = Field(description="more files matched than were inspected")


class StartInput(ToolInput):
    task: str = Field("", description="the task, in words; may be left out when workflow is given")
    workflow: str | None = Field(None, description="a saved workflow or template to use instead of choosing one")
    style: Style | None = Field(
        None,
        description="the kind of plan: review, test-fix (alias fix-until-green), research or plan; default "
        "(or auto): chosen from the task's words and whether a test command is given",
    )
    test_command: str | None = Field(None, description="the repository's test command; checks may run it")
    allow_repo_commands: bool = Field(
        False,
        description="let checks run the repository's own inferred commands (make test, pytest with its "
        "conftest.py) although the repository is not trusted",
    )
    scope: list[str] = Field(
        default_factory=list, description="paths to focus on, repeatable; default: the working tree's changed files"
    )
    tailor: bool = Field(False, description="when a template is chosen, " + _TAILOR)
    provider: str | None = Field(None, description=_TAILOR_PROVIDER)
    timeout_seconds: float = Field(120, gt=0, le=1800, description=_TAILOR_TIMEOUT)
    dry_run: bool = Field(False, description="show the task, the chosen plan and the script without running")
    repo: str | None = Field(None, description="repository to work on; default: the current one")
    max_budget_usd: float | None = Field(None, gt=0, description="spending limit in USD; default: none")
    background: bool = Field(False, description="return after wait_seconds while the run goes on (always over MCP)")
    wait_seconds: float = Field(30, ge=0, le=600, description="in the background: how long to wait (default 30)")
    database: str | None = Field(None, description="Postgres URL: agents run on its `pallium worker`s")


class StartOutput(ToolOutput):
    task: str
    chosen: str = Field(description="where the script came from: template:<name>, repo:<name> or user:<name>")
    reason: str = Field(description="why this plan was chosen")
    args: dict[str, Any]
    provider: str = Field(
        description="the provider the run's agents spend on, resolved as the run resolves it (an agent that names "
        "its own provider overrides it)"
    )
    provider_missing: str | None = Field(
        None,
        description="why the provider cannot run the plan's agents (not installed, not configured), checked as "
        "`pallium doctor` checks; a start that is not a dry run refuses with `unavailable` instead",
    )
    repo_commands: str | None = Field(
        None,
        description="set when the repository is not trusted: its verification commands are offered, not run, "
        "and how to allow them",
    )
    rehearsal: str | None = Field(
        None,
        description="set when the provider is the fake with no scenario: every agent gets the smallest reply its "
        "schema accepts, so the run shows the plan's shape, not real work",
    )
    changed_files: list[str] = Field(description="the working tree's changed files found by the preflight")
    preflight: PreflightOutput = Field(description="files to inspect, their risk and the verification commands")
    tailoring: Tailoring | None = Field(None, description="how tailoring went; null when it was not asked for")
    script: str | None = Field(description="the script's text (dry runs only)")
    run: RunOutput | None = Field(description="the run, unless this was a dry run")


class GateDecisionInput(ToolInput):
    run_id: str = Field(description="the run waiting at the gate: its id or a unique prefix")
    name: str = Field(description="the gate's name, as the script gave it")
    reason: str | None = Field(None, description="why, recorded with the decision and shown to the script")
    background: bool = Field(False, description="let the run continue in the background (always so over MCP)")
    wait_seconds: float = Field(30, ge=0, le=600, description="in the background: how long to wait (default 30)")
    database: str | None = Field(
        None,
        description="Postgres URL of a shared run",
    )


class GateListOutput(ToolOutput):
    run_id: str
    gates: list[GateEntry]
