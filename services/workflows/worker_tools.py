"""`pallium worker`: serve a shared queue's agent calls from this machine (see docs/scale-out.md)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.models import ToolInput, ToolOutput
from kernel.tool import Annotations, Route, Tool
from services.workflows import render

__all__ = ["TOOLS", "WorkerInput", "WorkerOutput"]


class WorkerInput(ToolInput):
    database: str | None = Field(
        None,
        description="the shared database (postgresql://user@host/db, password in a 0600 file; sqlite:///path "
        "for one machine); default: PALLIUM_DATABASE_URL",
    )
    concurrency: int = Field(8, ge=1, le=256, description="agent calls this worker runs at once (default 8)")
    providers: str = Field(
        "claude,codex",
        description="comma-separated providers this machine has (claude, codex, fake, or NAME with "
        "PALLIUM_WORKFLOW_PROVIDER_<NAME>_COMMAND set); only their calls are taken",
    )
    repo_cache: str | None = Field(
        None,
        description="folder for the bare clones and worktrees (one worker each); default: $PALLIUM_HOME/worker-cache",
    )
    cache_days: float = Field(
        14, gt=0, description="remove the clone of a remote no call used for this many days (default 14)"
    )
    lease_seconds: float = Field(
        30, ge=1, le=3600, description="a call's lease: heartbeats renew it; another worker takes over when it lapses"
    )
    max_calls: int | None = Field(None, ge=1, description="stop after this many calls; default: run until stopped")
    idle_exit_seconds: float | None = Field(
        None, gt=0, description="stop after this long with nothing to do; default: run until stopped"
    )


class WorkerOutput(ToolOutput):
    worker_id: str = Field(description="host:pid:nonce, as the queue records who holds a call")
    providers: list[str]
    calls_run: int = Field(description="calls this worker ran to an end (results refused included)")
    results_refused: int = Field(description="results the queue refused: the call's lease had passed to another")
    stopped_because: str = Field(description="max_calls or idle")


async def worker(inp: WorkerInput, ctx: ToolContext) -> WorkerOutput:
    from kernel import paths, writes
    from kernel.scaleout.credentials import database_url
    from kernel.scaleout.worker import WorkerConfig, serve

    url = database_url(inp.database)
    if url is None:
        raise PalliumError(
            "invalid_input",
            "a worker needs the shared database to take calls from",
            details={"field": "database"},
            hint="pass --database postgresql://user@host/db, set PALLIUM_DATABASE_URL, or put url under [database] "
            "in $PALLIUM_HOME/config.toml",
        )
    providers = tuple(p.strip() for p in inp.providers.split(",") if p.strip())
    if not providers:
        raise PalliumError(
            "invalid_input",
            "name at least one provider",
            details={"field": "providers"},
            hint="pass --providers claude,codex (or fake, or a NAME with a wrapper command)",
        )
    cache = Path(inp.repo_cache).expanduser().resolve() if inp.repo_cache else paths.ensure_home() / "worker-cache"
    existing = next(p for p in (cache, *cache.parents) if p.exists())
    writes.ensure_dir(cache, root=existing)  # the user's own setting, as PALLIUM_HOME is: made if missing
    config = WorkerConfig(
        url=url,
        providers=providers,
        cache=cache,
        concurrency=inp.concurrency,
        lease_ttl=inp.lease_seconds,
        max_calls=inp.max_calls,
        idle_exit=inp.idle_exit_seconds,
        cache_days=inp.cache_days,
    )
    report = await serve(config)
    return WorkerOutput(
        worker_id=report.worker_id,
        providers=report.providers,
        calls_run=report.calls_run,
        results_refused=report.results_refused,
        stopped_because=report.stopped_because,
    )


TOOLS = (
    Tool(
        cli="worker",
        handler=worker,
        input=WorkerInput,
        output=WorkerOutput,
        summary="Run agent calls of workflow runs on other machines, taken from a shared Postgres queue.",
        description=(
            "Use on a machine that should lend its agents to runs started elsewhere with --database: it takes "
            "calls for the providers it names, prepares a worktree of each call's tree from the run's git remote "
            "in its cache, runs the agent there and hands back reply, usage, session id and patch. It applies "
            "nothing and writes only inside its cache. Not for running a workflow (pallium_workflow_run). Runs "
            "until stopped (SIGTERM), max_calls or idle_exit_seconds; over MCP set one of those."
        ),
        authority="consult",
        toolset="workflows",
        annotations=Annotations(read_only=False, destructive=False, idempotent=False, open_world=True),
        route=Route(
            phrasings=(
                "start a worker for the shared queue",
                "lend this machine's agents to runs on postgres",
                "run agent calls from the database queue here",
                "serve workflow agents on this runner machine",
                "join this machine to the pallium worker pool",
            ),
        ),
        render=render.worker,
    ),
)
