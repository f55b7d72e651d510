"""The repository tools' handlers and declarations."""

from __future__ import annotations

from kernel.context import ToolContext
from kernel.tool import Tool
from services.repo.changes import changed_now as _changed_now
from services.repo.models import ChangedNowInput, ChangedNowOutput


async def changed_now(inp: ChangedNowInput, ctx: ToolContext) -> ChangedNowOutput:
    return _changed_now(ctx.repo_root(inp.repo), limit=inp.limit)


def _render_changed_now(out: ChangedNowOutput) -> str:
    lines = [out.summary]
    for f in out.files:
        moved = f" (from {f.orig_path})" if f.orig_path else ""
        lines.append(f"  {f.git_status}  {f.kind:<12} {f.path}{moved}")
    if out.truncated:
        lines.append(f"  ... {out.counts.total - len(out.files)} more (raise --limit)")
    return "\n".join(lines)


TOOLS = (
    Tool(
        cli="changed-now",
        handler=changed_now,
        input=ChangedNowInput,
        output=ChangedNowOutput,
        summary="The working tree's changes right now: staged, unstaged, untracked, renamed, deleted, conflicted.",
        description=(
            "Use at the start or end of a turn to see what is modified before editing, reviewing or "
            "handing off. Not for history (commits) or file contents. Runs one `git status`; ignored "
            "files are left out; no writes. Lists up to `limit` files (default 100) with counts for "
            "all; conflicts and staged files first."
        ),
        authority="observe",
        toolset="repo",
        render=_render_changed_now,
    ),
)
