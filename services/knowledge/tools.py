"""The knowledge tools' handlers and declarations: map, build, search, get, context."""

from __future__ import annotations

import asyncio

from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.tool import CONTEXT_BUDGET, Annotations, Route, Tool
from services.knowledge import build as _build
from services.knowledge import context as _context
from services.knowledge import reading, render
from services.knowledge.models import (
    AuditInput,
    AuditOutput,
    BuildInput,
    BuildOutput,
    ContextInput,
    ContextOutput,
    GetInput,
    GetOutput,
    MapInput,
    MapModule,
    MapOutput,
    SearchInput,
    SearchOutput,
    ServeInput,
    ServeOutput,
)
from services.knowledge.store import KnowledgeStore

_WRITES_CACHE = Annotations(read_only=False, destructive=False, idempotent=True, open_world=False)
# Reads that only fill Pallium's caches: read-only by the annotation rule (docs/tools.md).
_CACHE_ONLY = Annotations(read_only=True, idempotent=True)
# A build that `model` lets call a provider: open-world by the same rule.
_BUILDS = Annotations(read_only=False, idempotent=True, open_world=True)
_READS = Annotations(read_only=True, destructive=False, idempotent=True, open_world=False)
_TWO_WAYS = (
    "Answers report `freshness` (is the base current) apart from `evidence` (are its claims' citations checked "
    "and audited); `verified` means both, never proof."
)


async def map_tool(inp: MapInput, ctx: ToolContext) -> MapOutput:
    facts = await _build.read_facts(ctx, inp.repo)
    modules = facts.modules
    listed = [
        MapModule(
            slug=m.slug,
            path=m.path or ".",
            files=len(m.files),
            languages=m.languages,
            surface=[s["name"] for s in m.surface[:8]],
            depends_on=[d["module"] for d in m.depends_on[:8]],
            used_by=[d["module"] for d in m.used_by[:8]],
            external=m.external[:8],
            tests=len(m.tests),
        )
        for m in modules
    ]
    limit = len(listed) if inp.full else inp.limit
    return MapOutput(
        repo=str(facts.root),
        module_count=len(modules),
        file_count=sum(len(m.files) for m in modules),
        modules=listed[:limit],
        truncated=len(listed) > limit,
        incidents=len(facts.incidents),
        full=[m.as_dict() for m in modules] if inp.full else None,
    )


async def build_tool(inp: BuildInput, ctx: ToolContext) -> BuildOutput:
    if inp.modules and not inp.model:
        raise PalliumError(
            "invalid_input",
            "`modules` chooses which modules get model prose, and this build has no model",
            hint="drop `--modules`, or drop `--no-model` to give those modules model prose",
            details={"field": "modules"},
        )
    built = await _build.build_base(ctx, inp.repo)
    if inp.modules:
        known = {m.slug for m in built.facts.modules} | {m.path for m in built.facts.modules if m.path}
        unknown = [s for s in _split_slugs(inp.modules) if s not in known]
        if unknown:
            raise PalliumError(
                "invalid_input",
                f"no module {', '.join(repr(s) for s in unknown)} in this repository",
                hint="pass slugs or paths from `pallium knowledge map` (MCP pallium_knowledge_map), comma-separated",
                details={"field": "modules", "unknown": unknown},
            )
        by_path = {m.path: m.slug for m in built.facts.modules if m.path}
        inp = inp.model_copy(update={"modules": [by_path.get(s, s) for s in _split_slugs(inp.modules)]})
    out = BuildOutput(
        repo=str(built.facts.root),
        built_commit=built.built_commit,
        built_at=built.built_at,
        modules=len(built.facts.modules),
        documents=built.documents,
        changed=built.changed,
        removed=built.removed,
        written=built.written.written,
        unchanged=len(built.written.unchanged),
        authored_kept=built.written.authored,
        collisions=built.written.collisions,
    )
    if inp.model:
        from services.knowledge import prose

        await prose.add_prose(ctx, built, inp, out)
    return out


def _split_slugs(values: list[str]) -> list[str]:
    """`["a,b", "c"]` -> `["a", "b", "c"]`: the CLI passes `--modules a,b` as one value."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


async def audit_tool(inp: AuditInput, ctx: ToolContext) -> AuditOutput:
    from services.knowledge import audit

    return await audit.audit(inp, ctx)


async def search_tool(inp: SearchInput, ctx: ToolContext) -> SearchOutput:
    root = ctx.repo_root(inp.repo)
    store = ctx.store(KnowledgeStore, root)
    return await asyncio.to_thread(reading.search, store, root, inp.query, limit=inp.limit, full=inp.full)


async def get_tool(inp: GetInput, ctx: ToolContext) -> GetOutput:
    root = ctx.repo_root(inp.repo)
    store = ctx.store(KnowledgeStore, root)
    return await asyncio.to_thread(reading.get, store, root, inp.slug, section=inp.section, full=inp.full)


async def context_tool(inp: ContextInput, ctx: ToolContext) -> ContextOutput:
    root = ctx.repo_root(inp.repo)
    store = ctx.store(KnowledgeStore, root)
    if "built_at" not in store.state():
        await _build.build_base(ctx, inp.repo)  # a first question builds the base, without a model
    references = await _resolved_references(ctx, root, _context.explicit_names(inp.task))
    return await asyncio.to_thread(_context.context, store, root, inp.task, full=inp.full, references=references)


async def _resolved_references(ctx: ToolContext, root, names: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Who uses the task's first named symbol, by the repo service's resolved references (one
    `pallium_callers` call, about 0.1-0.3 s on a 1,300-file repository under load, so only for a name
    the base knows as defined in at most three files): files whose reference was tied to a
    definition by import, receiver or same file, the definitions' own files left out."""

    async def one(name: str) -> list[tuple[str, str]] | None:
        try:
            found = await ctx.call("pallium_callers", {"repo": str(root), "name": name, "limit": 100})
        except PalliumError:
            return None
        defining = {d.path for d in found.definitions}
        return [
            (r.path, r.enclosing or "")
            for r in found.references
            if r.resolution in ("import", "receiver", "same-file", "unique") and r.target and r.path not in defining
        ]

    store = ctx.store(KnowledgeStore, root)
    known = [n for n in names if 0 < len({s.path for s in store.symbols_named([n.rsplit(".", 1)[-1]])}) <= 3]
    names = known[:1]
    answers = await asyncio.gather(*(one(n) for n in names))
    return {name: uses for name, uses in zip(names, answers, strict=True) if uses is not None}


async def serve_tool(inp: ServeInput, ctx: ToolContext) -> ServeOutput:
    import os

    import uvicorn

    from services.knowledge import serve, serve_background

    token = inp.token or os.environ.get("PALLIUM_MCP_TOKEN") or None
    serve.check_bind(inp.host, token)
    serve_background.check_reach(inp.host, ctx)
    root = ctx.repo_root(inp.repo)
    if ctx.origin == "mcp":  # a call must return: the site goes on in the background, bounded
        return serve_background.serve_for_call(root, inp.host, inp.port, token)
    app = serve.build_app(root, token=token)
    sock = serve_background.bind(inp.host, inp.port)  # a port in use is this call's error, not SystemExit
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    url = f"http://{inp.host}:{sock.getsockname()[1]}/"
    if ctx.origin == "cli":  # the URL alone on stdout, piped or not, and nothing opened
        print(url, flush=True)
    else:
        await ctx.progress.update(0, None, f"serving {url} (Ctrl-C stops)")
    await server.serve(sockets=[sock])
    return ServeOutput(url=url)


TOOLS = (
    Tool(
        cli="knowledge map",
        handler=map_tool,
        input=MapInput,
        output=MapOutput,
        summary="The repository's modules: files, languages, most referenced names, dependencies both ways, tests.",
        description=(
            "Use to get the lay of an unfamiliar repository: which modules exist, what each exposes, what depends on "
            "what. Not for one file (use pallium_explain) or a task's files (pallium_knowledge_context). No model "
            "calls: clustered from the repository index (updated first, incrementally), folders merged by size and "
            "import cohesion, `.pallium/modules.json` boundaries/exclude/include_untracked honoured. Compact (60 "
            "modules) unless `full`."
        ),
        authority="observe",
        toolset="knowledge",
        route=Route(
            phrasings=(
                "map the repository's modules and their dependencies",
                "what modules does this codebase have",
                "show the architecture: modules, languages and dependencies",
                "which parts of the repo depend on which",
                "give me a module overview of the project",
            ),
            needs=("git", "index"),
        ),
        annotations=_CACHE_ONLY,
        render=render.map_text,
        budget=CONTEXT_BUDGET,
        unbounded_by="full",
    ),
    Tool(
        cli="knowledge build",
        handler=build_tool,
        input=BuildInput,
        output=BuildOutput,
        summary="Build the knowledge base: a document per module, incidents and decisions, in SQLite and Markdown.",
        description=(
            "Use once per repository, and after large changes, before knowledge search/get/context. `--no-model` "
            "(model: false) builds from the index alone at observe, in seconds; with a model (consult) each module "
            "also gets purpose claims whose every citation is checked, at most `max_modules` model calls. Writes "
            "<repo>/.pallium/pallium.sqlite and generated files in .pallium/knowledge/ (authored files there are "
            "never overwritten; a name collision is reported). Not for reading: use pallium_knowledge_search. "
            "Unbounded answer: it names every file written (one line per module)."
        ),
        authority="observe",
        toolset="knowledge",
        route=Route(
            phrasings=(
                "build the knowledge base",
                "write docs explaining what each module is for",
                "generate the knowledge base without a model",
                "refresh the module documentation",
                "build knowledge docs with prose and checked citations",
                "fill in the knowledge docs for the modules",
                "write the knowledge docs for each module",
            ),
            flags={"model": ("prose", "model", "explain why", "llm")},
            needs=("git", "index"),
        ),
        annotations=_BUILDS,
        escalation=("model", "consult"),
        render=render.build_text,
        exit_code=lambda out: 1 if out.collisions else 0,
        budget=None,
    ),
    Tool(
        cli="knowledge audit",
        handler=audit_tool,
        input=AuditInput,
        output=AuditOutput,
        summary="A skeptic re-reads each claim beside its cited source: supported, refuted (removed) or unclear.",
        description=(
            "Use after `knowledge build` with a model, or when claims went stale, to test stored claims against "
            "the source they cite. Not a proof of truth: it judges what the cited source shows. One model call per "
            "claim (at most `limit`, stale claims first), counted in the daily ledger of 40 attempts; refuted claims "
            "are removed from the document and its Markdown with the reason kept; unclear ones stay, uncertain."
        ),
        authority="consult",
        toolset="knowledge",
        route=Route(
            phrasings=(
                "audit the knowledge base claims against the source",
                "have a skeptic check the module docs",
                "verify the knowledge documents are still true",
                "re-check the claims in the knowledge base",
            ),
            arguments={"slug": "name"},
            needs=("git",),
        ),
        annotations=Annotations(read_only=False, destructive=False, idempotent=False, open_world=True),
        render=render.audit_text,
    ),
    Tool(
        cli="knowledge search",
        handler=search_tool,
        input=SearchInput,
        output=SearchOutput,
        summary="BM25 search over the knowledge documents: at most five compact results within 8 KB.",
        description=(
            "Use to find which module handles something ('session recall', 'worktree cleanup') before reading "
            "code. Not for symbol lookup (use pallium_search) or a task's files (pallium_knowledge_context). Reads "
            "the local knowledge base only (build it with pallium_knowledge_build); compact `version: 2` answers "
            "unless `full`. " + _TWO_WAYS
        ),
        authority="observe",
        toolset="knowledge",
        route=Route(
            phrasings=(
                "search the knowledge base for sessions",
                "what does the knowledge base say about authentication",
                "find the module doc that covers caching",
                "look up the documentation for the payment module",
                "which module is responsible for sending email",
            ),
            arguments={"query": "text"},
        ),
        annotations=_READS,
        positional=("query",),
        render=render.search_text,
        unbounded_by="full",
    ),
    Tool(
        cli="knowledge get",
        handler=get_tool,
        input=GetInput,
        output=GetOutput,
        summary="One knowledge document by slug, or one of its sections, with claims, citations and dropped claims.",
        description=(
            "Use after map or search to read a module's Purpose, Surface, Dependencies, Tests or History; "
            "`section` drills into one. Not for finding the document (pallium_knowledge_search). Reads the local "
            "base only; within 8 KB unless `full`. " + _TWO_WAYS
        ),
        authority="observe",
        toolset="knowledge",
        route=Route(
            phrasings=(
                "open the knowledge document for internal/workflow",
                "show the surface section of a module doc",
                "read one knowledge document",
                "get the knowledge doc by slug",
            ),
            arguments={"slug": "name"},
        ),
        annotations=_READS,
        positional=("slug",),
        render=render.get_text,
        unbounded_by="full",
    ),
    Tool(
        cli="knowledge context",
        handler=context_tool,
        input=ContextInput,
        output=ContextOutput,
        summary="For a task: the modules it concerns, files to read, related tests, checks and decisions (12 KB).",
        description=(
            "Use at the start of a task in an unfamiliar repository, with the task in words: one call says which "
            "modules, files and tests to look at, the checks to run and the decisions that apply. Not for one file "
            "(pallium_explain). Reads the local base (built without a model on first use); within 12 KB unless "
            "`full`. " + _TWO_WAYS
        ),
        authority="observe",
        toolset="knowledge",
        route=Route(
            phrasings=(
                "give me the context for changing the login flow",
                "which files, tests and checks matter for this task",
                "knowledge context for adding rate limiting",
                "what should I read before working on the scheduler",
                "the modules, files and decisions a task touches",
            ),
            arguments={"task": "task"},
        ),
        annotations=_CACHE_ONLY,
        positional=("task",),
        render=render.context_text,
        budget=CONTEXT_BUDGET,
        unbounded_by="full",
    ),
    Tool(
        cli="knowledge serve",
        handler=serve_tool,
        input=ServeInput,
        output=ServeOutput,
        summary="Serve the knowledge base as a read-only site on loopback (module pages, citations, search).",
        description=(
            "Use for a person to browse the base: module list, each module's claims with citations linked to the "
            "cited source lines, freshness and evidence badges, search. Not for agents (use pallium_knowledge_get "
            "or pallium_knowledge_context). On the CLI runs until interrupted; over MCP starts the site in the "
            "background for at most an hour and returns its URL (asking again returns the same one). Binds "
            "127.0.0.1:8766 by default; any other address needs a bearer token and admin, and is refused over "
            "MCP; reads the local base only."
        ),
        authority="observe",
        toolset="knowledge-serve",
        route=Route(
            phrasings=(
                "serve the knowledge base as a website",
                "browse the module docs in a browser",
                "open the knowledge site on localhost",
            ),
            # Beyond loopback the site serves the source to the network: the handler asks admin for it.
            levels={
                "admin": (
                    "on 0.0.0.0",
                    "to 0.0.0.0",
                    "all interfaces",
                    "every interface",
                    "the network",
                    "the lan",
                    "teammate",
                    "colleague",
                    "other machines",
                    "remotely",
                    "publicly",
                )
            },
        ),
        annotations=_READS,
    ),
)
