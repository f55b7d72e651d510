"""The repository tools' handlers and declarations."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from kernel import paths
from kernel.context import ToolContext
from kernel.tool import CONTEXT_BUDGET, SEARCH_BUDGET, Annotations, Tool
from services.repo import explain as _explain
from services.repo import freshness, queries, render, risk, trim
from services.repo.changes import changed_now as _changed_now
from services.repo.indexing import run_index
from services.repo.models import (
    CallersInput,
    CallersOutput,
    ChangedNowInput,
    ChangedNowOutput,
    DecisionsInput,
    DecisionsOutput,
    ExplainInput,
    ExplainOutput,
    Freshness,
    HandoffInput,
    HandoffOutput,
    IndexInput,
    IndexOutput,
    NeighborsInput,
    NeighborsOutput,
    RiskInput,
    RiskOutput,
    SearchInput,
    SearchOutput,
    SymbolsInput,
    SymbolsOutput,
)
from services.repo.store import SCHEMA, RepoStore

Out = TypeVar("Out")
_WRITES_INDEX = Annotations(read_only=False, destructive=False, idempotent=True, open_world=False)
_FRESH = "Every answer carries `freshness` (indexed commit, HEAD, files changed since); `refresh` reindexes first."


async def _index(ctx: ToolContext, root: Path, *, full: bool = False, untracked: bool | None = None) -> IndexOutput:
    db = ctx.repo_db(root, [SCHEMA])
    if untracked is None:
        untracked = RepoStore(db).state().get("untracked") == "1"
    loop = asyncio.get_running_loop()

    def progress(done: int, total: int, message: str) -> None:
        loop.call_soon_threadsafe(lambda: loop.create_task(ctx.progress.update(done, total, message)))

    return await asyncio.to_thread(
        run_index, db, root, full=full, untracked=untracked, now=ctx.clock, progress=progress
    )


async def _ready(ctx: ToolContext, repo: str | None, refresh: bool) -> tuple[Path, RepoStore, Freshness]:
    """The repository, its index (built on first use) and how fresh it is; reindexed first on `refresh`."""
    root = ctx.repo_root(repo)
    store = RepoStore(ctx.repo_db(root, [SCHEMA]))
    fresh = await asyncio.to_thread(freshness.check, store, root, repo_arg=repo)
    if fresh.status == "missing" or (refresh and fresh.status == "stale"):
        await _index(ctx, root)
        fresh = await asyncio.to_thread(freshness.check, store, root, repo_arg=repo)
    return root, store, fresh


async def _answer(ctx: ToolContext, repo: str | None, refresh: bool, work: Callable[[Path, RepoStore], Out]) -> Out:
    """Run `work` on the index and stamp its answer with the index's freshness.

    On an index that exists and needs no refresh, the freshness check (mostly a `git status`)
    runs beside the query instead of before it: an answer costs the slower of the two, not both.
    """
    root = ctx.repo_root(repo)
    store = RepoStore(ctx.repo_db(root, [SCHEMA]))
    if refresh or "indexed_at" not in store.state():
        root, store, fresh = await _ready(ctx, repo, refresh)
        out = await asyncio.to_thread(work, root, store)
    else:
        fresh, out = await asyncio.gather(
            asyncio.to_thread(freshness.check, store, root, repo_arg=repo), asyncio.to_thread(work, root, store)
        )
    out.freshness = fresh
    if isinstance(getattr(out, "risk", None), RiskOutput):
        out.risk.freshness = fresh  # explain nests a risk answer
    return out


async def index(inp: IndexInput, ctx: ToolContext) -> IndexOutput:
    return await _index(ctx, ctx.repo_root(inp.repo), full=inp.full, untracked=inp.untracked)


async def symbols(inp: SymbolsInput, ctx: ToolContext) -> SymbolsOutput:
    def work(root: Path, store: RepoStore) -> SymbolsOutput:
        relative, row = queries.indexed_file(store, root, inp.path, ctx.cwd)
        return queries.symbols(store, relative, row, limit=inp.limit, freshness=freshness.PENDING)

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def callers(inp: CallersInput, ctx: ToolContext) -> CallersOutput:
    def work(_root: Path, store: RepoStore) -> CallersOutput:
        return queries.callers(store, inp.name, limit=inp.limit, cursor=inp.cursor, freshness=freshness.PENDING)

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def search(inp: SearchInput, ctx: ToolContext) -> SearchOutput:
    def work(_root: Path, store: RepoStore) -> SearchOutput:
        return queries.search(store, inp.query, limit=inp.limit, cursor=inp.cursor, freshness=freshness.PENDING)

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def decisions(inp: DecisionsInput, ctx: ToolContext) -> DecisionsOutput:
    def work(_root: Path, store: RepoStore) -> DecisionsOutput:
        return queries.decisions(store, inp.query, limit=inp.limit, cursor=inp.cursor, freshness=freshness.PENDING)

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def risk_tool(inp: RiskInput, ctx: ToolContext) -> RiskOutput:
    def work(root: Path, store: RepoStore) -> RiskOutput:
        relative, row = queries.indexed_file(store, root, inp.path, ctx.cwd)
        return _explain.risk_output(store, relative, row, now=ctx.clock.now(), freshness=freshness.PENDING)

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def neighbors(inp: NeighborsInput, ctx: ToolContext) -> NeighborsOutput:
    def work(root: Path, store: RepoStore) -> NeighborsOutput:
        relative, _row = queries.indexed_file(store, root, inp.path, ctx.cwd)
        revisions, pairs = risk.cochange(store, relative)
        return NeighborsOutput(
            path=relative,
            revisions=revisions,
            cochange=pairs[: inp.limit],
            structural=risk.structural_links(store, relative),
            truncated=len(pairs) > inp.limit,
            freshness=freshness.PENDING,
        )

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def explain(inp: ExplainInput, ctx: ToolContext) -> ExplainOutput:
    def work(root: Path, store: RepoStore) -> ExplainOutput:
        relative, row = queries.indexed_file(store, root, inp.path, ctx.cwd)
        now = ctx.clock.now()
        return _explain.explain(store, root, relative, row, now=now, freshness=freshness.PENDING)

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def handoff(inp: HandoffInput, ctx: ToolContext) -> HandoffOutput:
    root, store, fresh = await _ready(ctx, inp.repo, inp.refresh)
    return await asyncio.to_thread(
        _explain.handoff, store, root, inp.base, now=ctx.clock.now(), limit=inp.limit, freshness=fresh
    )


async def changed_now(inp: ChangedNowInput, ctx: ToolContext) -> ChangedNowOutput:
    root = ctx.repo_root(inp.repo)
    if inp.refresh:
        _root, store, fresh = await _ready(ctx, inp.repo, refresh=True)
    elif not paths.repo_db_path(root).exists():
        out, _on_disk = await asyncio.to_thread(_changed_now, root, limit=inp.limit)
        return out  # works before any index exists, and never creates one unless asked to refresh
    else:
        store = RepoStore(ctx.repo_db(root, [SCHEMA]))
        fresh = await asyncio.to_thread(freshness.check, store, root, repo_arg=inp.repo)
    out, on_disk = await asyncio.to_thread(_changed_now, root, limit=inp.limit)
    if fresh.status == "missing":
        return out
    return await asyncio.to_thread(_with_risk, out, on_disk, store, root, fresh, ctx.clock.now())


def _with_risk(
    out: ChangedNowOutput, on_disk: dict[str, str], store: RepoStore, root: Path, fresh: Freshness, now: datetime
) -> ChangedNowOutput:
    out.freshness = fresh
    out.index_status = "indexed" if fresh.status == "fresh" else "stale"
    riskiest: tuple[float, str] | None = None
    for f in out.files:
        if f.kind == "deleted" or not (root / on_disk.get(f.path, f.path)).exists():
            continue
        result = _explain.risk_output(store, f.path, store.file(f.path), now=now, freshness=fresh)
        f.risk_level = result.level
        f.blast_radius = risk.blast_radius(store, f.path)
        if riskiest is None or result.score > riskiest[0]:
            riskiest = (result.score, f.path)
    out.recommended_next_command = _next_command(out, fresh, riskiest)
    return out


def _next_command(out: ChangedNowOutput, fresh: Freshness, riskiest: tuple[float, str] | None) -> str | None:
    if not out.files:
        return None if fresh.status == "fresh" else fresh.refresh_command
    if riskiest is not None and riskiest[0] >= risk.MEDIUM:
        return f"pallium explain {riskiest[1]}"
    return "pallium handoff"


TOOLS = (
    Tool(
        cli="index",
        handler=index,
        input=IndexInput,
        output=IndexOutput,
        summary="Build or update the repository index: git history and every file's symbols, imports and references.",
        description=(
            "Use once before the first repo question, or after large changes (every read tool also builds a "
            "missing index and takes `refresh`). Not for reading results: use pallium_explain, pallium_symbols, "
            "pallium_search. Incremental: reads only new commits and reparses only files whose content changed; "
            "a first index of a few thousand files takes seconds. Writes only <repo>/.pallium/pallium.sqlite."
        ),
        authority="observe",
        toolset="repo",
        annotations=_WRITES_INDEX,
        render=render.index,
        budget=SEARCH_BUDGET,
    ),
    Tool(
        cli="explain",
        handler=explain,
        input=ExplainInput,
        output=ExplainOutput,
        summary="What a file declares, imports and is imported by, what changes with it, its risk, tests and checks.",
        description=(
            "Use before editing an unfamiliar file: one call gives its symbols, import links both ways, "
            "co-change neighbours, recent commits, decision notes, risk, covering tests and the fast/safe/full "
            "verification commands. Not for the working tree's changes (use pallium_changed_now) or a name's uses "
            "(pallium_callers). Reads the local index only; within 8 KB unless `full`. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        annotations=_WRITES_INDEX,
        positional=("path",),
        render=render.explain,
        budget=SEARCH_BUDGET,
        trim=trim.explain,
        unbounded_by="full",
    ),
    Tool(
        cli="symbols",
        handler=symbols,
        input=SymbolsInput,
        output=SymbolsOutput,
        summary="A file's symbols with kind, qualified name, signature, lines and the first doc line.",
        description=(
            "Use to see what a file declares without reading it. Not for finding a name across the repository "
            "(use pallium_search or pallium_callers). Reads the local index only; up to `limit` symbols within 8 KB "
            "(`truncated` says more exist) unless `full`. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        annotations=_WRITES_INDEX,
        positional=("path",),
        render=render.symbols,
        budget=SEARCH_BUDGET,
        trim=trim.context,
        unbounded_by="full",
    ),
    Tool(
        cli="callers",
        handler=callers,
        input=CallersInput,
        output=CallersOutput,
        summary="Every place that references a name, with file, line and enclosing symbol; definitions first.",
        description=(
            "Use before renaming or changing a function, class or method's contract. `Class.method` narrows; "
            "each reference says how it was resolved (same-file, import, unique, ambiguous). Not for text search "
            "in comments or strings (use grep) or fuzzy lookup (pallium_search). Reads the local index; within "
            "8 KB, paged with limit/cursor. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        annotations=_WRITES_INDEX,
        positional=("name",),
        render=render.callers,
        budget=SEARCH_BUDGET,
        trim=trim.callers,
    ),
    Tool(
        cli="search",
        handler=search,
        input=SearchInput,
        output=SearchOutput,
        summary="BM25 search over symbol names, signatures, doc comments and paths; best 5 by default.",
        description=(
            "Use to find where something is defined when you know roughly what it is called or does "
            "('verification plan', 'parseConfig'). Not for exact references (use pallium_callers) or commit "
            "history (pallium_decisions). Reads the local index; within 8 KB, paged with limit/cursor. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        annotations=_WRITES_INDEX,
        positional=("query",),
        render=render.search,
        budget=SEARCH_BUDGET,
        trim=trim.search,
    ),
    Tool(
        cli="risk",
        handler=risk_tool,
        input=RiskInput,
        output=RiskOutput,
        summary="A file's edit risk (low, medium, high) with the score's reasons: churn, coupling, tests, boundary.",
        description=(
            "Use to decide how carefully to edit or review a file. Not for the full context (use pallium_explain, "
            "which includes this). Reads the local index; a file with no history gets an inferred score. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        annotations=_WRITES_INDEX,
        positional=("path",),
        render=render.risk,
        budget=SEARCH_BUDGET,
        trim=trim.context,
    ),
    Tool(
        cli="neighbors",
        handler=neighbors,
        input=NeighborsInput,
        output=NeighborsOutput,
        summary="Files that change together with a file (shared commits, degree, confidence) and its import links.",
        description=(
            "Use to answer 'if I edit this, what else should I check?'. Not for who calls a function (use "
            "pallium_callers). Reads the local index; co-change ignores commits of more than 30 files and "
            "changelogs/lockfiles. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        annotations=_WRITES_INDEX,
        positional=("path",),
        render=render.neighbors,
        budget=SEARCH_BUDGET,
        trim=trim.context,
    ),
    Tool(
        cli="decisions",
        handler=decisions,
        input=DecisionsInput,
        output=DecisionsOutput,
        summary="Search decision notes (commit subjects and bodies), most relevant first.",
        description=(
            "Use to find why something is the way it is before changing it. Not for code search (use "
            "pallium_search). Reads the local index's FTS5 table; paged with limit/cursor. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        annotations=_WRITES_INDEX,
        positional=("query",),
        render=render.decisions,
        budget=SEARCH_BUDGET,
        trim=trim.decisions,
    ),
    Tool(
        cli="handoff",
        handler=handoff,
        input=HandoffInput,
        output=HandoffOutput,
        summary="Everything since a base commit plus the working tree: files with risk, tests, checks, open questions.",
        description=(
            "Use at the end of a task to brief the next agent or a reviewer. Not for the working tree alone (use "
            "pallium_changed_now). Runs a few git commands and reads the index; within 12 KB, files paged by "
            "`limit`. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        annotations=_WRITES_INDEX,
        positional=("base",),
        render=render.handoff,
        budget=CONTEXT_BUDGET,
        trim=trim.handoff,
    ),
    Tool(
        cli="changed-now",
        handler=changed_now,
        input=ChangedNowInput,
        output=ChangedNowOutput,
        summary="The working tree's changes right now: staged, unstaged, untracked, renamed, deleted, conflicted.",
        description=(
            "Use at the start or end of a turn to see what is modified before editing, reviewing or "
            "handing off. Not for history (commits) or file contents. Runs one `git status`; ignored "
            "files are left out; no writes unless `refresh`. Lists up to `limit` files (default 100) with counts for "
            "all; conflicts and staged files first. With an index, adds each file's risk and blast radius, "
            "the next command worth running, and the index's `freshness`; `refresh` updates (or builds) the "
            "index first, which costs an incremental index run."
        ),
        authority="observe",
        toolset="repo",
        annotations=_WRITES_INDEX,  # only with `refresh`
        render=render.changed_now,
        budget=CONTEXT_BUDGET,
        trim=trim.context,
    ),
)
