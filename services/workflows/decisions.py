"""Decisions a workflow script records (`pallium.decisions.record`), how a script searches them with
the repository's commit notes (`pallium.decisions.search`), and `pallium workflow decisions`.

A recorded decision belongs to its run; its id is the hash of (run, title, body, tags), so a resume
replaying the same call finds the row it wrote the first time instead of adding a second.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.hashing import stable_hash
from kernel.models import ToolInput, ToolOutput
from kernel.tool import Route, Tool
from services.workflows import render
from services.workflows.store import DecisionRow, WorkflowStore

__all__ = ["TOOLS", "DecisionEntry", "entries_of_run", "record", "search"]

SEARCH_LIMIT = 10  # the original's default for decisions.search
MAX_LIMIT = 100
REPORT_LIMIT = 20  # decisions a run's report carries
REPORT_BODY = 600  # characters of a body in the report, unless full
MAX_TITLE, MAX_BODY, MAX_TAGS = 500, 20_000, 20


class DecisionEntry(ToolOutput):
    id: str = Field(description="stable: the same run, title, body and tags always give the same id")
    run_id: str = Field(description="the workflow run that recorded it")
    title: str
    body: str
    tags: list[str]
    created_at: str = Field(description="when it was first recorded (a resume keeps the first time)")


class DecisionsInput(ToolInput):
    query: str = Field("", description="words to find in titles, bodies and tags (a substring); empty: all")
    run_id: str | None = Field(None, description="only this run's decisions: its id or a unique prefix")
    repo: str | None = Field(
        None, description="only runs on this repository; default: the current one, or every one outside a repository"
    )
    limit: int = Field(10, ge=1, le=MAX_LIMIT, description="most decisions, newest first (1-100, default 10)")


class DecisionsOutput(ToolOutput):
    query: str
    decisions: list[DecisionEntry] = Field(description="newest first")
    truncated: bool = Field(description="more decisions match than limit")


def record(store: WorkflowStore, run_id: str, given: list[Any], *, now: str) -> dict[str, Any]:
    """`pallium.decisions.record(title, body, ...tags)`: store it once per run and return it."""
    title = str(given[0]).strip() if given and given[0] is not None else ""
    if not title:
        raise PalliumError(
            "invalid_input",
            "pallium.decisions.record(title, body, ...tags) needs a non-empty title",
            hint='call pallium.decisions.record("a title", "why", ...tags) with a non-empty title',
        )
    body = "" if len(given) < 2 or given[1] is None else str(given[1]).strip()
    tags: list[str] = []
    for tag in given[2:]:
        for one in tag if isinstance(tag, list) else [tag]:  # tags may come spread or as one array
            text = str(one).strip()
            if text and text not in tags:
                tags.append(text)
    if len(title) > MAX_TITLE or len(body) > MAX_BODY or len(tags) > MAX_TAGS:
        raise PalliumError(
            "invalid_input",
            f"pallium.decisions.record(): at most {MAX_TITLE} characters of title, {MAX_BODY} of body and "
            f"{MAX_TAGS} tags; record the gist and keep the rest in the run's result",
            hint="shorten the title, body or tags passed to pallium.decisions.record()",
        )
    decision_id = "dec-" + stable_hash({"run": run_id, "title": title, "body": body, "tags": tags})[:20]
    row = store.record_decision(decision_id, run_id=run_id, title=title, body=body, tags=tags, now=now)
    return {**_entry(row).model_dump(), "source": "workflow"}


async def search(store: WorkflowStore, ctx: ToolContext, repo: str, given: list[Any]) -> dict[str, Any]:
    """`pallium.decisions.search(query, limit=10)`: recorded decisions first, then commit notes.

    One list of at most `limit` entries: decisions recorded by workflow runs on this repository
    (newest first, `source: "workflow"`), then the repository's commit-note decisions from
    `pallium_decisions` (`source: "git"`, with `sha`, `subject`, `committed_at` and `title` = subject).
    The prelude hands the script that list as an array that also carries the object fields below, so
    `found.length` and `found.decisions` both work.
    """
    query = "" if not given or given[0] is None else str(given[0])
    limit = given[1] if len(given) > 1 and given[1] is not None else SEARCH_LIMIT
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise PalliumError(
            "invalid_input",
            f"pallium.decisions.search(): limit must be 1-{MAX_LIMIT}, not {limit!r}",
            hint=f"call pallium.decisions.search(query, limit) with a limit from 1 to {MAX_LIMIT}",
        )
    rows = store.decisions(query=query, repo=repo, limit=limit + 1)
    entries: list[dict[str, Any]] = [{**_entry(r).model_dump(), "source": "workflow"} for r in rows[:limit]]
    out: dict[str, Any] = {
        "query": query,
        "recorded": len(entries),
        "decisions": entries,
        "truncated": len(rows) > limit,
        "next_cursor": None,
        "freshness": None,
    }
    room = limit - len(entries)
    if room > 0 and query.strip():  # the commit-note search needs words to look for
        notes = (await ctx.call("pallium_decisions", {"query": query, "limit": room, "repo": repo})).model_dump(
            mode="json"
        )
        entries += [{"source": "git", "title": n["subject"], **n} for n in notes["decisions"]]
        out.update(truncated=notes["truncated"], next_cursor=notes["next_cursor"], freshness=notes["freshness"])
    return out


def entries_of_run(store: WorkflowStore, run_id: str, *, full: bool = False) -> list[DecisionEntry]:
    """The run's decisions in the order it recorded them (at most REPORT_LIMIT), long bodies cut unless full."""
    entries = [_entry(r) for r in reversed(store.decisions(run_id=run_id, limit=REPORT_LIMIT))]
    if full:
        return entries
    return [
        e if len(e.body) <= REPORT_BODY else e.model_copy(update={"body": e.body[:REPORT_BODY] + "… [cut; --full]"})
        for e in entries
    ]


def _entry(row: DecisionRow) -> DecisionEntry:
    return DecisionEntry(
        id=row.id, run_id=row.run_id, title=row.title, body=row.body, tags=row.tags, created_at=row.created_at
    )


async def list_decisions(inp: DecisionsInput, ctx: ToolContext) -> DecisionsOutput:
    from services.workflows import runner

    store = runner.open_store(ctx)
    run_id = runner.resolve_run(store, inp.run_id).id if inp.run_id is not None else None
    repo = None
    if run_id is None:
        try:
            repo = str(ctx.repo_root(inp.repo))
        except PalliumError:
            if inp.repo is not None:
                raise
    rows = store.decisions(query=inp.query, run_id=run_id, repo=repo, limit=inp.limit + 1)
    return DecisionsOutput(
        query=inp.query, decisions=[_entry(r) for r in rows[: inp.limit]], truncated=len(rows) > inp.limit
    )


TOOLS = (
    Tool(
        cli="workflow decisions",
        handler=list_decisions,
        input=DecisionsInput,
        output=DecisionsOutput,
        summary="Decisions workflow scripts recorded with pallium.decisions.record, newest first.",
        description=(
            "Use to see what earlier workflow runs decided (and why) before planning similar work, or one "
            "run's decisions with run_id. Not for decisions in commit history (pallium_decisions) or a run's "
            "outcome (pallium_workflow_report). Reads Pallium's state only: no model calls, no writes."
        ),
        authority="observe",
        toolset="workflows",
        route=Route(
            phrasings=(
                "decisions recorded by workflow scripts",
                "what did the workflow decide",
                "show the decisions recorded during the run",
                "list decisions made by the last run",
            ),
            arguments={"run_id": "run_id"},
        ),
        positional=("query",),
        render=render.decisions,
    ),
)
