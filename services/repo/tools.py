"""The repository tools' handlers and declarations."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from kernel import paths, threads
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.tool import CONTEXT_BUDGET, SEARCH_BUDGET, Annotations, Route, Tool
from services.repo import callers as who_calls
from services.repo import freshness, queries, render, trim
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
    HotspotsInput,
    HotspotsOutput,
    IndexInput,
    IndexOutput,
    NeighborsInput,
    NeighborsOutput,
    RankedDecision,
    RiskInput,
    RiskOutput,
    SearchInput,
    SearchOutput,
    SymbolsInput,
    SymbolsOutput,
)
from services.repo.store import RepoStore

Out = TypeVar("Out")
# They write only Pallium's own index (<repo>/.pallium), never the user's files: read-only to a
# client, so clients that run read-only tools in parallel run these too.
_WRITES_INDEX = Annotations(read_only=True, destructive=False, idempotent=True, open_world=False)
_FRESH = "The answer's `freshness` says if the index is stale; `refresh` reindexes first."


async def _index(ctx: ToolContext, root: Path, *, full: bool = False, untracked: bool | None = None) -> IndexOutput:
    from services.repo.indexing import run_index  # the parsers load only for a run that may parse

    db = ctx.store(RepoStore, root).db
    if untracked is None:
        untracked = RepoStore(db).state().get("untracked") == "1"
    loop = asyncio.get_running_loop()

    def progress(done: int, total: int, message: str) -> None:
        loop.call_soon_threadsafe(lambda: loop.create_task(ctx.progress.update(done, total, message)))

    return await threads.in_thread(
        run_index, db, root, full=full, untracked=untracked, now=ctx.clock, progress=progress
    )


async def _ready(ctx: ToolContext, repo: str | None, refresh: bool) -> tuple[Path, RepoStore, Freshness]:
    """The repository, its index (built on first use) and how fresh it is; reindexed first on `refresh`."""
    root = ctx.repo_root(repo)
    store = ctx.store(RepoStore, root)
    fresh = await threads.in_thread(freshness.check, store, root, repo_arg=repo)
    if fresh.status == "missing" or (refresh and fresh.status == "stale"):
        await _index(ctx, root)
        fresh = await threads.in_thread(freshness.check, store, root, repo_arg=repo)
    return root, store, fresh


async def _answer(ctx: ToolContext, repo: str | None, refresh: bool, work: Callable[[Path, RepoStore], Out]) -> Out:
    """Run `work` on the index and stamp its answer with the index's freshness.

    On an index that exists and needs no refresh, the freshness check (mostly a `git status`)
    runs beside the query instead of before it: an answer costs the slower of the two, not both.
    """
    root = ctx.repo_root(repo)
    store = ctx.store(RepoStore, root)
    if refresh or "indexed_at" not in store.state():
        root, store, fresh = await _ready(ctx, repo, refresh)
        out = await threads.in_thread(work, root, store)
    else:
        fresh, out = await threads.all_of(
            threads.in_thread(freshness.check, store, root, repo_arg=repo), threads.in_thread(work, root, store)
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
        return queries.symbols(store, relative, row, limit=inp.limit, freshness=freshness.PENDING, cursor=inp.cursor)

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def callers(inp: CallersInput, ctx: ToolContext) -> CallersOutput:
    def work(_root: Path, store: RepoStore) -> CallersOutput:
        return who_calls.callers(
            store, inp.name, kind=inp.kind, limit=inp.limit, cursor=inp.cursor, freshness=freshness.PENDING
        )

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def search(inp: SearchInput, ctx: ToolContext) -> SearchOutput:
    def work(root: Path, store: RepoStore) -> SearchOutput:
        return queries.search(
            store, inp.query, limit=inp.limit, cursor=inp.cursor, freshness=freshness.PENDING, root=root
        )

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def decisions(inp: DecisionsInput, ctx: ToolContext) -> DecisionsOutput:
    def work(_root: Path, store: RepoStore) -> DecisionsOutput:
        return queries.decisions(store, inp.query, limit=inp.limit, cursor=inp.cursor, freshness=freshness.PENDING)

    out = await _answer(ctx, inp.repo, inp.refresh, work)
    if inp.cursor is None:  # the other kinds are ranked in with the first page only
        out.ranked = await _ranked(ctx, inp, out)
    return out


async def _ranked(ctx: ToolContext, inp: DecisionsInput, out: DecisionsOutput) -> list[RankedDecision]:
    """Fuse the three kinds by rank (an authored decision first among equals: it is stated intent)."""
    from kernel.errors import PalliumError

    lists: list[tuple[float, list[RankedDecision]]] = [
        (
            1.0,
            [
                RankedDecision(kind="commit", ref=d.sha, title=d.subject, text=d.body[:300], when=d.committed_at)
                for d in out.decisions
            ],
        )
    ]
    for weight, tool, args in (
        (1.2, "pallium_knowledge_decisions_search", {"query": inp.query, "limit": inp.limit, "repo": inp.repo}),
        (1.1, "pallium_workflow_decisions", {"query": inp.query, "limit": inp.limit, "repo": inp.repo}),
    ):
        try:
            found = (await ctx.call(tool, args)).model_dump(mode="json")["decisions"]
        except PalliumError:
            continue  # that kind has nothing for this repository (no base, no runs): the others still answer
        lists.append((weight, [_as_ranked(tool, d) for d in found]))
    scored = [(weight / (3 + rank), entry) for weight, entries in lists for rank, entry in enumerate(entries)]
    scored.sort(key=lambda pair: (-pair[0], pair[1].kind, pair[1].ref))
    return [entry for _score, entry in scored[: inp.limit]]


def _as_ranked(tool: str, d: dict) -> RankedDecision:
    if tool == "pallium_knowledge_decisions_search":
        return RankedDecision(
            kind="authored",
            ref=d["slug"],
            title=d["title"],
            text=d["text"][:300],
            when=d["created_at"],
            status=d["status"],
        )
    return RankedDecision(kind="workflow", ref=d["id"], title=d["title"], text=d["body"][:300], when=d["created_at"])


async def risk_tool(inp: RiskInput, ctx: ToolContext) -> RiskOutput:
    from services.repo import explain as _explain

    def work(root: Path, store: RepoStore) -> RiskOutput:
        try:
            relative, row = queries.indexed_file(store, root, inp.path, ctx.cwd)
        except PalliumError as exc:  # a deleted or renamed path: scored from its history, as explain answers it
            gone = exc.details.get("path") if exc.code == "not_found" else None
            if not gone or not store.touches_of(gone):
                raise
            relative, row = gone, None
        return _explain.risk_output(store, relative, row, now=ctx.clock.now(), freshness=freshness.PENDING)

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def neighbors(inp: NeighborsInput, ctx: ToolContext) -> NeighborsOutput:
    from services.repo import risk

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
    from services.repo import explain as _explain

    def work(root: Path, store: RepoStore) -> ExplainOutput:
        try:
            relative, row = queries.indexed_file(store, root, inp.path, ctx.cwd)
        except PalliumError as exc:  # a deleted or renamed path: answer from its history
            gone = exc.details.get("path") if exc.code == "not_found" else None
            answer = (
                _explain.explain_gone(
                    store,
                    root,
                    gone,
                    freshness=freshness.PENDING,
                    now=ctx.clock.now(),
                    recent_limit=100 if inp.full else 10,
                )
                if gone
                else None
            )
            if answer is None:
                raise
            return answer
        now = ctx.clock.now()
        return _explain.explain(
            store, root, relative, row, now=now, freshness=freshness.PENDING, recent_limit=100 if inp.full else 10
        )

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def hotspots_tool(inp: HotspotsInput, ctx: ToolContext) -> HotspotsOutput:
    from services.repo import history

    def work(root: Path, store: RepoStore) -> HotspotsOutput:
        return history.hotspots(store, root, since=inp.since, limit=inp.limit, now=ctx.clock.now(), cursor=inp.cursor)

    return await _answer(ctx, inp.repo, inp.refresh, work)


async def handoff(inp: HandoffInput, ctx: ToolContext) -> HandoffOutput:
    from services.repo import explain as _explain

    root, store, fresh = await _ready(ctx, inp.repo, inp.refresh)
    return await threads.in_thread(
        _explain.handoff, store, root, inp.base, now=ctx.clock.now(), limit=inp.limit, freshness=fresh
    )


async def changed_now(inp: ChangedNowInput, ctx: ToolContext) -> ChangedNowOutput:
    from services.repo.changes import changed_now as _changed_now

    root = ctx.repo_root(inp.repo)
    if inp.refresh:
        _root, store, fresh = await _ready(ctx, inp.repo, refresh=True)
    elif not paths.repo_db_path(root).exists():
        out, _on_disk = await threads.in_thread(_changed_now, root, limit=inp.limit)
        return out  # works before any index exists, and never creates one unless asked to refresh
    else:
        store = ctx.store(RepoStore, root)
        fresh = await threads.in_thread(freshness.check, store, root, repo_arg=inp.repo)
    out, on_disk = await threads.in_thread(_changed_now, root, limit=inp.limit)
    if fresh.status == "missing":
        return out
    return await threads.in_thread(_with_risk, out, on_disk, store, root, fresh, ctx.clock.now())


def _with_risk(
    out: ChangedNowOutput, on_disk: dict[str, str], store: RepoStore, root: Path, fresh: Freshness, now: datetime
) -> ChangedNowOutput:
    from services.repo import explain as _explain
    from services.repo import history, risk

    out.freshness = fresh
    out.index_status = "indexed" if fresh.status == "fresh" else "stale"
    riskiest: tuple[float, str] | None = None
    for f in out.files:
        if f.kind == "deleted":
            f.old_path_importers = history.old_path_importers(store, root, f.path)
            continue
        if not (root / on_disk.get(f.path, f.path)).exists():
            continue
        # A file renamed in the working tree is scored on its old path's history and links.
        scored = history.scored_path(store, f.path, f.orig_path)
        result = _explain.risk_output(store, scored, store.file(scored), now=now, freshness=fresh)
        f.risk_level = result.level
        f.blast_radius = risk.blast_radius(store, scored)
        if f.orig_path:
            olds = [f.orig_path, *history.former_names(store, f.orig_path)]
            f.old_path_importers = [p for p in history.old_path_importers(store, root, olds) if p != f.path]
        if riskiest is None or result.score > riskiest[0]:
            riskiest = (result.score, f.path)
    out.recommended_next_command = _next_command(out, fresh, riskiest)
    return out


def _next_command(out: ChangedNowOutput, fresh: Freshness, riskiest: tuple[float, str] | None) -> str | None:
    if not out.files:
        return None if fresh.status == "fresh" else fresh.refresh_command
    from services.repo import risk

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
            "Use after large changes or to index untracked files; every read tool builds a missing index itself. "
            "Not for answers (pallium_explain, pallium_search). Incremental: new commits and changed files only, "
            "seconds for a few thousand files; writes only <repo>/.pallium."
        ),
        authority="observe",
        toolset="repo",
        route=Route(
            phrasings=(
                "index this repository",
                "build the repo index",
                "reindex after pulling new commits",
                "update pallium's index of the code",
                "the index is stale, refresh it",
                "scan the codebase so search and callers work",
                "rebuild the index from scratch",
            ),
            flags={"full": ("scratch", "full", "rebuild", "complete"), "untracked": ("untracked",)},
            needs=("git",),
            signals=("index_missing", "index_stale"),
        ),
        annotations=_WRITES_INDEX,
        render=render.index,
        budget=SEARCH_BUDGET,
    ),
    Tool(
        cli="explain",
        handler=explain,
        redact=True,
        input=ExplainInput,
        output=ExplainOutput,
        summary="What a file declares, imports and is imported by, what changes with it, its risk, tests and checks.",
        description=(
            "Use before editing an unfamiliar file: its symbols, imports both ways, co-change neighbours, "
            "commits, risk, tests and verification commands in one call. Not for a name's uses (pallium_callers). "
            "Reads the local index; within 8 KB unless `full`. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        route=Route(
            phrasings=(
                "explain what src/app.py does",
                "tell me about this file before I edit it",
                "what does kernel/store.py declare and import",
                "give me the full story of a file",
                "what should I know before changing config.py",
                "walk me through the module in lib/auth.py",
                "what imports this file and what does it import",
            ),
            arguments={"path": "path"},
            flags={"full": ("everything", "full", "complete")},
            needs=("git", "index"),
        ),
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
        redact=True,
        input=SymbolsInput,
        output=SymbolsOutput,
        summary="A file's symbols with kind, qualified name, signature, lines and the first doc line.",
        description=(
            "Use to see what a file declares without reading it. Not for finding a name across the repository "
            "(pallium_search). Reads the local index; within 8 KB unless `full`. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        route=Route(
            phrasings=(
                "list the functions and classes in a file",
                "what symbols does parser.go define",
                "show the outline of src/models.py",
                "which methods are declared in this file",
                "signatures of everything in store.py",
                "table of contents of a source file",
            ),
            arguments={"path": "path"},
            needs=("git", "index"),
        ),
        annotations=_WRITES_INDEX,
        positional=("path",),
        render=render.symbols,
        budget=SEARCH_BUDGET,
        trim=trim.symbols,
        unbounded_by="full",
    ),
    Tool(
        cli="callers",
        handler=callers,
        redact=True,
        input=CallersInput,
        output=CallersOutput,
        summary="Every place that references a name, with file, line and enclosing symbol; definitions first.",
        description=(
            "Use before renaming or changing a function's or class's contract (`Class.method` narrows); each "
            "reference says how it was resolved. Not for text in comments or strings (grep) or fuzzy lookup "
            "(pallium_search). Reads the local index; pages within 8 KB. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        route=Route(
            phrasings=(
                "who calls parse_config",
                "find every reference to a function before renaming it",
                "where is Store.open used",
                "what uses this class",
                "find usages of a method",
                "which code depends on the function load_settings",
                "who invokes ResolveProvider",
            ),
            arguments={"name": "symbol"},
            needs=("git", "index"),
        ),
        annotations=_WRITES_INDEX,
        positional=("name",),
        render=render.callers,
        budget=SEARCH_BUDGET,
        trim=trim.callers,
    ),
    Tool(
        cli="search",
        handler=search,
        redact=True,
        input=SearchInput,
        output=SearchOutput,
        summary="BM25 search over symbol names, signatures, doc comments and paths; best 5 by default.",
        description=(
            "Use to find where something is defined when you know roughly what it is called or does "
            "('verification plan', 'parseConfig'). Not for exact references (pallium_callers). Reads the local "
            "index; pages within 8 KB. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        route=Route(
            phrasings=(
                "search the code for the verification plan",
                "find where we handle retries",
                "which file implements authentication",
                "locate the code for rate limiting",
                "where is the configuration loaded",
                "look up a function by what it does",
                "find the code that parses the command line",
                "where in the code do we check permissions",
                "which code sends the emails",
            ),
            arguments={"query": "text"},
            needs=("git", "index"),
        ),
        annotations=_WRITES_INDEX,
        positional=("query",),
        render=render.search,
        budget=SEARCH_BUDGET,
        trim=trim.search,
    ),
    Tool(
        cli="risk",
        handler=risk_tool,
        redact=True,
        input=RiskInput,
        output=RiskOutput,
        summary="A file's edit risk (low, medium, high) with the score's reasons: churn, coupling, tests, boundary.",
        description=(
            "Use to decide how carefully to edit or review a file. Not for the full context (use pallium_explain, "
            "which includes this). Reads the local index; a file with no history gets an inferred score. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        route=Route(
            phrasings=(
                "how risky is it to change this file",
                "is src/db.py safe to touch",
                "what's the edit risk of a file",
                "risk score of kernel/store.py",
                "should I be careful editing this file",
                "how dangerous is modifying the scheduler file",
            ),
            arguments={"path": "path"},
            needs=("git", "index"),
        ),
        annotations=_WRITES_INDEX,
        positional=("path",),
        render=render.risk,
        budget=SEARCH_BUDGET,
        trim=trim.context,
    ),
    Tool(
        cli="neighbors",
        handler=neighbors,
        redact=True,
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
        route=Route(
            phrasings=(
                "what files usually change together with app.py",
                "which files are coupled to this one",
                "co-change neighbors of a file",
                "what else needs updating when I edit this file",
                "files related to cmd/app.go",
                "which files move together with the router",
            ),
            arguments={"path": "path"},
            needs=("git", "index"),
        ),
        annotations=_WRITES_INDEX,
        positional=("path",),
        render=render.neighbors,
        budget=SEARCH_BUDGET,
        trim=trim.context,
    ),
    Tool(
        cli="hotspots",
        handler=hotspots_tool,
        input=HotspotsInput,
        output=HotspotsOutput,
        summary="Files ranked by how often they changed in a window, weighted by how many files import them.",
        description=(
            "Use to find where a codebase churns before a refactor, a review or choosing what to test: each file "
            "shows its score, commits, lines added and deleted, authors and fan-in. Not for one file's history "
            "(use pallium_explain) or co-change (pallium_neighbors). Reads the local index; the first ask of a "
            "window runs one `git log --numstat` over its commits and stores the counts (later asks read only "
            "newer commits). " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        route=Route(
            phrasings=(
                "which files churn the most",
                "hotspots of this repository",
                "where does the code change most often",
                "the most frequently changed files in the last month",
                "rank files by churn and fan-in before a refactor",
            ),
            arguments={"since": "age"},
            needs=("git",),
            signals=("index_missing",),
        ),
        annotations=_WRITES_INDEX,
        render=render.hotspots,
        budget=SEARCH_BUDGET,
    ),
    Tool(
        cli="decisions",
        handler=decisions,
        redact=True,
        input=DecisionsInput,
        output=DecisionsOutput,
        summary="Search decision notes (commit subjects and bodies), most relevant first.",
        description=(
            "Use to find why something is the way it is before changing it. Not for code search "
            "(pallium_search). Reads the local index; pages within 8 KB. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        route=Route(
            phrasings=(
                "why did we choose worktrees",
                "find the decision behind using sqlite",
                "what was the reasoning for switching to apsw",
                "search decision notes in the commit history",
                "why was this designed this way",
                "what did we decide about caching and why",
            ),
            arguments={"query": "text"},
            needs=("git", "index"),
        ),
        annotations=_WRITES_INDEX,
        positional=("query",),
        render=render.decisions,
        budget=SEARCH_BUDGET,
        trim=trim.decisions,
    ),
    Tool(
        cli="handoff",
        handler=handoff,
        redact=True,
        input=HandoffInput,
        output=HandoffOutput,
        summary="Everything since a base commit plus the working tree: files with risk, tests, checks, open questions.",
        description=(
            "Use at the end of a task to brief the next agent or a reviewer. Not for the working tree alone "
            "(pallium_changed_now). Runs a few git commands and reads the index; within 12 KB. " + _FRESH
        ),
        authority="observe",
        toolset="repo",
        route=Route(
            phrasings=(
                "prepare a handoff since origin/main",
                "summarize everything since the base branch for a reviewer",
                "what changed on this branch compared to main",
                "write a handoff note for the next agent",
                "everything I did since main with risks and tests",
                "hand this work off to someone else",
            ),
            arguments={"base": "ref"},
            needs=("git",),
            signals=("dirty",),
        ),
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
            "Use at the start or end of a turn to see what is modified (staged, unstaged, untracked, conflicts "
            "first), with each file's risk and the next command worth running when an index exists. Not for "
            "history or file contents. One `git status`; within 12 KB; writes nothing unless `refresh`."
        ),
        authority="observe",
        toolset="repo",
        route=Route(
            phrasings=(
                "what changed in the working tree",
                "what did I modify",
                "show my uncommitted changes",
                "git status",
                "which files are staged, unstaged or untracked",
                "is the tree dirty",
                "list my local edits right now",
                "what have I changed since my last commit",
                "which files are conflicted",
                "do I have uncommitted work",
            ),
            needs=("git",),
            signals=("dirty",),
        ),
        annotations=_WRITES_INDEX,
        render=render.changed_now,
        budget=CONTEXT_BUDGET,
        trim=trim.context,
    ),
)
