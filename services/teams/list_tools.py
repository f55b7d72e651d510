"""`pallium team list`: the teams there are, so the morning after starts from ids, not from memory."""

from __future__ import annotations

from pathlib import Path

from kernel import paths
from kernel.context import ToolContext
from services.teams import models
from services.teams.tool_kit import _store, _tool
from services.teams.views import spend_text

_OPEN = ("pending", "in_progress", "blocked")


async def list_teams(inp: models.ListInput, ctx: ToolContext) -> models.ListOutput:
    store = _store(ctx)
    cwd = None
    if inp.repo is not None:
        given = Path(inp.repo).expanduser()
        cwd = str(paths.find_repo_root(given if given.is_absolute() else ctx.cwd / given))
    rows = [
        t
        for t in store.teams(limit=10_000)  # a home holds tens of teams, not millions: filter here
        if (inp.status is None or t.status == inp.status) and (cwd is None or _within(t.cwd, cwd))
    ]
    summaries = []
    for team in rows[: inp.limit]:
        counts = store.count_tasks(team.id)
        summaries.append(
            models.TeamSummary(
                id=team.id,
                goal=team.goal[:200],
                status=team.status,  # type: ignore[arg-type]  # the store's CHECK keeps it to the three
                cwd=team.cwd,
                template=team.template,
                members=len(store.members(team.id)),
                open_tasks=sum(counts.get(s, 0) for s in _OPEN),
                completed_tasks=counts.get("completed", 0),
                waiting_messages=sum(store.count_undelivered(team.id).values()),
                spend=spend_text(team),
                created_at=team.created_at,
                updated_at=team.updated_at,
            )
        )
    return models.ListOutput(teams=summaries, truncated=len(rows) > inp.limit)


def _within(folder: str, root: str) -> bool:
    return folder == root or folder.startswith(root.rstrip("/") + "/")


def _render(out: models.ListOutput) -> str:
    if not out.teams:
        return 'no teams; start one with `pallium team start "<goal>"`'
    lines = [
        f"{t.id}  {t.status:<7}  {t.members} members  {t.open_tasks} open / {t.completed_tasks} done tasks  "
        f"mail {t.waiting_messages}  spend {t.spend}\n    {t.goal[:100]}"
        for t in out.teams
    ]
    if out.truncated:
        lines.append("more teams: raise --limit")
    return "\n".join(lines)


TOOLS = (
    _tool(
        "team list",
        list_teams,
        models.ListInput,
        models.ListOutput,
        "The agent teams there are, newest first: status, roster size, open tasks, waiting mail and spend.",
        "Use to find a team's id (after a restart, the morning after) before pallium_team_status or "
        "pallium_team_run. Not for one team's members and board (pallium_team_status). Reads only.",
        "observe",
        render=_render,
    ),
)
