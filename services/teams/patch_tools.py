"""The team tools on its patches: review the diffs, apply them to your tree, take them back out.

Split from `tools` along what they act on: the staged patches in the kernel's run tables, where the
rest of the team tools act on the team's board, roster and turns.
"""

from __future__ import annotations

from pathlib import Path

from kernel import paths
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.runstore import RunStore
from kernel.threads import in_thread
from kernel.tool import CONTEXT_BUDGET, Annotations
from services.teams import models, views
from services.teams.roster import require_member, require_team
from services.teams.tool_kit import _now, _store, _tool

DIFF_CHARS = 10_000  # of patch text in one `team diff` answer (within its context budget)


async def apply(inp: models.ApplyInput, ctx: ToolContext) -> models.ApplyOutput:
    from kernel.worktrees.apply import apply_patches

    store = _store(ctx)
    team = require_team(store, inp.team)
    runs = RunStore(store.db)
    only = None
    if inp.patch:
        known = {p.call_key: p for p in runs.patches(team.id)}
        unknown = [p for p in inp.patch if p not in known]
        if unknown:
            raise PalliumError(
                "not_found",
                f"no patch {unknown[0]!r} on team {team.id}",
                hint=f"pass patch ids from `pallium team status {team.id}` (or `pallium team diff {team.id}`)",
                details={"field": "patch", "known": list(known)[:50]},
            )
        only = set(inp.patch)
    # its git (checks, the apply) in a thread: this call's own store goes with it, used by nothing else meanwhile
    done = await in_thread(apply_patches, runs, team.id, paths.find_repo_root(Path(team.cwd)), only=only)
    store.log(team.id, "applied", {"patches": done.applied}, now=_now(ctx))
    return models.ApplyOutput(team=team.id, applied=done.applied, already=done.already, skipped=done.skipped)


async def diff(inp: models.DiffInput, ctx: ToolContext) -> models.DiffOutput:
    store = _store(ctx)
    team = require_team(store, inp.team)
    if inp.member is not None:
        require_member(store, team.id, inp.member)
    patches = [
        p
        for p in views.patch_views(store, team.id)
        if (inp.member is None or p.member == inp.member) and (inp.patch is None or p.patch_id == inp.patch)
    ]
    if inp.patch is not None and not patches:
        raise PalliumError(
            "not_found",
            f"no patch {inp.patch!r} on team {team.id}" + (f" by {inp.member}" if inp.member else ""),
            hint=f"pass a patch id from `pallium team status {team.id}`",
            details={"field": "patch"},
        )
    paths_of = {row.call_key: row.path for row in RunStore(store.db).patches(team.id)}
    parts, size, truncated = [], 0, False
    for p in patches:
        who = f" by {p.member}" if p.member else ""
        task = f" for task #{p.task_id}" if p.task_id is not None else ""
        body = views.read_text(paths_of.get(p.patch_id, ""))
        chunk = f"# patch {p.patch_id} ({p.state}{who}{task}; +{p.added} -{p.removed})\n{body}"
        if size + len(chunk) > DIFF_CHARS:
            truncated = True
            chunk = chunk[: max(DIFF_CHARS - size, 0)]
        parts.append(chunk)
        size += len(chunk)
        if truncated:
            break
    return models.DiffOutput(team=team.id, patches=patches, diff="".join(parts), truncated=truncated)


async def revert(inp: models.TeamInput, ctx: ToolContext) -> models.ApplyOutput:
    from kernel.worktrees.apply import revert_patches

    store = _store(ctx)
    team = require_team(store, inp.team)
    done = await in_thread(revert_patches, RunStore(store.db), team.id, paths.find_repo_root(Path(team.cwd)))
    store.log(team.id, "reverted", {"patches": done.applied}, now=_now(ctx))
    return models.ApplyOutput(team=team.id, applied=done.applied, already=done.already, skipped=done.skipped)


def _r_diff(out: models.DiffOutput) -> str:
    if not out.patches:
        return f"team {out.team}: no patches"
    return out.diff + ("\n(truncated: pass --patch P for one patch)" if out.truncated else "")


def _r_apply(out: models.ApplyOutput) -> str:
    return (
        f"team {out.team}: {len(out.applied)} patch(es) done, {len(out.already)} already, "
        f"{len(out.skipped)} skipped (blocked or conflicted)"
    )


TOOLS = (
    _tool(
        "team apply",
        apply,
        models.ApplyInput,
        models.ApplyOutput,
        "Apply a team's staged, secret-scanned patches (all, or those named with --patch) to your working tree, "
        "once each, under the repository lock.",
        "Use after reviewing the patches (pallium_team_diff, pallium_team_status). Not for undoing "
        "(pallium_team_revert). Changes your tree; an already applied patch is skipped; blocked ones never apply; "
        "a named patch that builds on one left out may not fit, and then nothing is written.",
        "edit",
        positional=("team",),
        annotations=Annotations(read_only=False, idempotent=True),
        render=_r_apply,
    ),
    _tool(
        "team diff",
        diff,
        models.DiffInput,
        models.DiffOutput,
        "The diffs of a team's patches, each with its member, task, state and line counts (filter by member or patch).",
        "Use to review what members changed before pallium_team_apply. Not for the list alone "
        "(pallium_team_status shows member, files and counts). Reads the stored patches only.",
        "observe",
        positional=("team",),
        render=_r_diff,
        budget=CONTEXT_BUDGET,
    ),
    _tool(
        "team revert",
        revert,
        models.TeamInput,
        models.ApplyOutput,
        "Take a team's applied patches back out of your working tree, newest first.",
        "Use to undo pallium_team_apply. Not for discarding unapplied patches (they stay staged harmlessly). "
        "Changes your tree.",
        "admin",
        positional=("team",),
        annotations=Annotations(read_only=False, destructive=True, idempotent=True),
        render=_r_apply,
    ),
)
