"""Keeping a home clean and knowing the script API: `workflow gc` and `workflow tools list`."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kernel.clock import iso_utc, parse_iso
from kernel.context import ToolContext
from kernel.runstore import RunStore
from kernel.tool import Annotations, Route, Tool
from services.workflows import render, report, runner
from services.workflows.api import HOST_API
from services.workflows.inspect_models import (
    GcInput,
    GcOutput,
    HostCallLine,
    RunDirLine,
    ToolsListInput,
    ToolsListOutput,
)

__all__ = ["TOOLS"]

# Statuses whose run folder gc may delete; all but `completed` can still be resumed, which needs the folder.
_ENDED = ("completed", "failed", "stopped", "interrupted", "paused")
_RESUMABLE = ("failed", "stopped", "interrupted", "paused")


# ---------------------------------------------------------------- gc


async def gc(inp: GcInput, ctx: ToolContext) -> GcOutput:
    from kernel import leases
    from kernel.execution import collect_garbage
    from kernel.worktrees import tree
    from kernel.worktrees.tree import run_dir

    act = inp.confirm and not inp.dry_run
    store = runner.open_store(ctx)
    kernel = RunStore(store.db)
    trees = collect_garbage(kernel, dry_run=not act)
    cutoff = ctx.clock.now() - timedelta(days=inp.older_than)
    root = run_dir("x").parent
    gone: list[RunDirLine] = []
    kept: list[str] = []
    freed = trees.bytes_freed
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        if not folder.is_dir():
            continue
        row, kernel_row = store.run(folder.name), kernel.run(folder.name)
        if kernel_row is not None and kernel_row.status == "running" and leases.is_owner_alive(kernel_row):
            kept.append(f"{folder.name}: running")
            continue
        status = report.shown_status(row, kernel_row) if row else (kernel_row.status if kernel_row else None)
        if status in _RESUMABLE and not inp.include_resumable:
            kept.append(f"{folder.name}: {status}, resumable (--include-resumable deletes it)")
            continue
        if status is not None and status not in _ENDED:
            kept.append(f"{folder.name}: {status}")
            continue
        if any(p.state in ("applying", "reverting") for p in kernel.patches(folder.name)):
            kept.append(f"{folder.name}: a patch is part-way applied or reverted; finish it first")
            continue
        ended = parse_iso(row.updated_at) if row else datetime.fromtimestamp(folder.stat().st_mtime, UTC)
        if ended > cutoff:
            continue
        size = _size(folder)
        gone.append(
            RunDirLine(run_id=folder.name, path=str(folder), status=status, updated_at=iso_utc(ended), bytes=size)
        )
        freed += size
        if act:
            for left in kernel.worktrees(run_id=folder.name, states=("creating", "active", "captured", "kept")):
                tree.remove(kernel, Path(left.path))  # unregistered from git too, not just deleted
            shutil.rmtree(folder, ignore_errors=True)
    return GcOutput(
        confirmed=act,
        worktrees=trees.removed[: inp.limit],
        worktrees_live=len(trees.kept),
        run_dirs=gone[: inp.limit],
        kept=kept[: inp.limit],
        worktrees_total=len(trees.removed),
        run_dirs_total=len(gone),
        bytes=freed,
    )


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


# ---------------------------------------------------------------- tools list


async def tools_list(inp: ToolsListInput, ctx: ToolContext) -> ToolsListOutput:
    from services.workflows.host import AVAILABLE_HELPERS

    calls = [
        HostCallLine(
            name=c.name,
            usage=c.usage,
            summary=c.summary,
            available=c.name.removeprefix("pallium.") in AVAILABLE_HELPERS if c.name.startswith("pallium.") else True,
            kind=c.kind,
        )
        for c in HOST_API
        if inp.kind is None or c.kind == inp.kind
    ]
    return ToolsListOutput(calls=[c for c in calls if c.available or not inp.available_only])


TOOLS = (
    Tool(
        cli="workflow gc",
        handler=gc,
        input=GcInput,
        output=GcOutput,
        summary="Remove worktrees of runs no longer live and run folders of runs that ended long ago.",
        description=(
            "Use when $PALLIUM_HOME/workflow-runs grows large. Not for undoing a run's edits "
            "(pallium_workflow_revert). Previews by default; with confirm (admin authority) it deletes the "
            "worktrees of runs whose process is gone and, for completed runs ended more than older_than days ago, "
            "their folder (patch files, logs): their patches can no longer be applied. Folders of runs that can "
            "still be resumed (failed, stopped, interrupted, paused) go only with include_resumable. A running "
            "run, or one awaiting approval, is never touched."
        ),
        authority="observe",
        escalation=("confirm", "admin"),
        toolset="workflows",
        route=Route(
            phrasings=(
                "clean up old worktrees",
                "garbage collect finished runs",
                "remove stale run folders",
                "free disk space used by workflow runs",
                "delete leftover worktrees",
            ),
            flags={"confirm": ("remove", "delete", "clean", "collect", "free", "gc", "purge")},
        ),
        annotations=Annotations(read_only=False, destructive=True, idempotent=True),
        render=render.gc,
    ),
    Tool(
        cli="workflow tools list",
        handler=tools_list,
        input=ToolsListInput,
        output=ToolsListOutput,
        summary="The host API a workflow script can call, with what each does and whether it is available.",
        description=(
            "Use before writing a workflow script. Not for Pallium's own MCP tools (list_tools) or for "
            "checking a script (pallium_workflow_validate). Static; about 2 KB."
        ),
        authority="observe",
        toolset="workflows",
        route=Route(
            phrasings=(
                "what host api can a workflow script call",
                "list the primitives available to workflow scripts",
                "workflow script api reference",
                "which functions can my script use",
            ),
        ),
        render=render.tools,
    ),
)
