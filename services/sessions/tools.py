"""The session-memory tools' handlers and declarations: thin, over the logic modules."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from kernel import authority, fitting, locks, threads
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.tool import CONTEXT_BUDGET, Annotations, Route, Tool
from services.sessions import embedding, live, recall, render, upkeep, views
from services.sessions import find as finder
from services.sessions import search as searcher
from services.sessions import sync as syncer
from services.sessions.models import (
    DoctorInput,
    DoctorOutput,
    EmbeddingCheckInput,
    EmbeddingConfigureInput,
    EmbeddingOutput,
    EmbeddingStatusInput,
    FindInput,
    FindOutput,
    ForgetInput,
    ForgetOutput,
    HomeReport,
    LiveInput,
    LiveOutput,
    PruneInput,
    PruneOutput,
    ReadInput,
    ReadMessage,
    ReadOutput,
    RecallInput,
    RecallOutput,
    SearchInput,
    SearchOutput,
    ShowInput,
    ShowOutput,
    SyncInput,
    SyncOutput,
)
from services.sessions.store import SessionsStore

_READ_CHARS = 600


def _store(ctx: ToolContext) -> SessionsStore:
    return ctx.store(SessionsStore)


def _repo_filter(ctx: ToolContext, repo: str | None) -> str | None:
    """A --repo value as stored: the git root when the path is in a repository, else the absolute path."""
    if repo is None:
        return None
    try:
        return str(ctx.repo_root(repo))
    except PalliumError:
        target = Path(repo).expanduser()
        return str((target if target.is_absolute() else ctx.cwd / target).resolve())


async def sync(inp: SyncInput, ctx: ToolContext) -> SyncOutput:
    homes = syncer.default_homes(inp.claude_home, inp.codex_home)
    selected = {source: home for source, home in homes.items() if inp.source in ("all", source)}
    store = _store(ctx)
    loop = asyncio.get_running_loop()
    shown = [-1]

    def progress(done: int, total: int, name: str) -> None:
        percent = done * 100 // max(total, 1)
        if percent != shown[0]:
            shown[0] = percent
            asyncio.run_coroutine_threadsafe(ctx.progress.update(done, total, name), loop)

    def work() -> tuple[syncer.SyncReport, Any]:
        with locks.exclusive(syncer.lock_path(), what="pallium sessions sync", wait_seconds=inp.wait_seconds):
            report = syncer.sync(
                store, selected, now=iso_utc(ctx.clock.now()), raw_events=inp.raw_events, on_progress=progress
            )
            embedded = embedding.embed_pending(store, now=iso_utc(ctx.clock.now()), allowed=_may_spend(ctx))
        return report, embedded

    started = time.perf_counter()
    report, embedded = await threads.in_thread(work)
    return SyncOutput(
        homes=[HomeReport(**h) for h in report.homes],
        files_seen=report.files_seen,
        files_unchanged=report.files_unchanged,
        files_new=report.files_new,
        files_appended=report.files_appended,
        files_reparsed=report.files_reparsed,
        files_skipped_forgotten=report.files_skipped_forgotten,
        files_unreadable=report.files_unreadable,
        sessions_updated=len(report.sessions_updated),
        session_ids=report.sessions_updated[:20],
        sessions_marked_missing=report.sessions_marked_missing,
        messages_added=report.messages_added,
        bytes_read=report.bytes_read,
        malformed_lines=report.malformed_lines,
        oversized_lines=report.oversized_lines,
        partial_lines_left=report.partial_lines_left,
        redactions=report.redactions,
        embedding=embedded,
        duration_ms=int((time.perf_counter() - started) * 1000),
    )


async def recall_(inp: RecallInput, ctx: ToolContext) -> RecallOutput:
    store = _store(ctx)
    filters = views.filters_of(inp, ctx.clock.now(), _repo_filter(ctx, inp.repo))
    ranker, reason = embedding.ranker(store, allowed=_may_spend(ctx), now=iso_utc(ctx.clock.now()))
    return await threads.in_thread(
        recall.recall,
        store,
        inp.query,
        filters,
        limit=inp.limit,
        full=inp.full,
        semantic=ranker,
        semantic_reason=reason,
        freshness=views.freshness(store),
    )


async def search(inp: SearchInput, ctx: ToolContext) -> SearchOutput:
    store = _store(ctx)
    filters = views.filters_of(inp, ctx.clock.now(), _repo_filter(ctx, inp.repo))
    offset = _cursor(inp.cursor)
    ranker, reason = (
        embedding.ranker(store, allowed=_may_spend(ctx), now=iso_utc(ctx.clock.now()))
        if inp.hybrid
        else (None, "not asked for")
    )
    return await threads.in_thread(
        searcher.search,
        store,
        inp.query,
        filters,
        limit=inp.limit,
        offset=offset,
        any_word=inp.any,
        full=inp.full,
        semantic=ranker,
        semantic_reason=reason,
        freshness=views.freshness(store),
    )


async def show(inp: ShowInput, ctx: ToolContext) -> ShowOutput:
    store = _store(ctx)
    row = views.resolve_id(store, inp.id)
    return ShowOutput(
        **views.summary(row).model_dump(),
        native_id=row.native_id,
        agent_id=row.agent_id,
        agent_type=row.agent_type,
        model=row.model,
        cli_version=row.cli_version,
        message_count=row.message_count,
        capsule=row.capsule,
        subagents=[views.summary(child) for child in store.children(row.id)],
    )


async def read(inp: ReadInput, ctx: ToolContext) -> ReadOutput:
    store = _store(ctx)
    row = views.resolve_id(store, inp.id)
    rows = store.messages(row.id, from_line=inp.from_line, limit=inp.limit + 1)
    shown = rows[: inp.limit]
    return ReadOutput(
        session_id=row.id,
        source_missing=row.source_missing,
        messages=[
            ReadMessage(
                line=m.line,
                ts=m.ts,
                role=m.role,
                kind=m.kind,
                tool=m.tool_name,
                text=m.text if inp.full else render.cut(m.text, _READ_CHARS),
                is_error=m.is_error,
            )
            for m in shown
        ],
        next_from_line=rows[inp.limit].line if len(rows) > inp.limit else None,
    )


async def find(inp: FindInput, ctx: ToolContext) -> FindOutput:
    store = _store(ctx)
    wants_repo = inp.repo is not None or (inp.question is not None and finder.interpret(inp.question).get("repo"))
    repo = _repo_filter(ctx, inp.repo or ".") if wants_repo else None
    return finder.find(store, inp, ctx.clock.now(), repo)


async def live_(inp: LiveInput, ctx: ToolContext) -> LiveOutput:
    homes = syncer.default_homes(inp.claude_home, inp.codex_home)
    store = _store(ctx)

    def work() -> LiveOutput:
        try:  # freshen the index first; a sync already running is fine, its answer is fresh enough
            with locks.exclusive(syncer.lock_path(), what="pallium sessions sync", wait_seconds=0):
                syncer.sync(store, homes, now=iso_utc(ctx.clock.now()))
        except PalliumError as exc:
            if exc.code != "conflict":
                raise
        return live.snapshot(
            store,
            homes,
            now=ctx.clock.now(),
            running_only=inp.running_only,
            details=inp.details,
            stuck_after=inp.stuck_after,
        )

    return await threads.in_thread(work)


async def doctor(inp: DoctorInput, ctx: ToolContext) -> DoctorOutput:
    store = _store(ctx)
    return await threads.in_thread(upkeep.doctor, store, inp)


async def forget(inp: ForgetInput, ctx: ToolContext) -> ForgetOutput:
    store = _store(ctx)
    row = views.resolve_id(store, inp.id)
    return upkeep.forget(store, row, confirm=inp.confirm)


async def prune(inp: PruneInput, ctx: ToolContext) -> PruneOutput:
    store = _store(ctx)
    return upkeep.prune(store, inp, now=ctx.clock.now())


async def embedding_status(inp: EmbeddingStatusInput, ctx: ToolContext) -> EmbeddingOutput:
    return embedding.status(_store(ctx))


async def embedding_configure(inp: EmbeddingConfigureInput, ctx: ToolContext) -> EmbeddingOutput:
    return embedding.configure(_store(ctx), inp)


async def embedding_check(inp: EmbeddingCheckInput, ctx: ToolContext) -> EmbeddingOutput:
    store = _store(ctx)
    return await threads.in_thread(embedding.check, store, iso_utc(ctx.clock.now()))


def _may_spend(ctx: ToolContext) -> bool:
    """Embedding requests are provider calls: made only when the ceiling allows `consult`."""
    return authority.allows(ctx.ceiling, "consult")


def _cursor(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit():
        raise PalliumError(
            "invalid_input",
            f"cursor {cursor!r} is not one this tool gave",
            hint="pass next_cursor from the previous answer",
            details={"field": "cursor"},
        )
    return int(cursor)


_READS = Annotations(read_only=True, idempotent=True)
_INDEXES = Annotations(read_only=True, idempotent=True)  # writes only Pallium's sessions index
_DELETES = Annotations(read_only=False, destructive=True, idempotent=True)


def _trim_read(out: ReadOutput, _inp: ReadInput, budget: int) -> ReadOutput:
    """Over budget, the page ends early and `next_from_line` continues at the first message left out."""
    out, dropped = fitting.drop_tail(out, budget, "messages")
    return out.model_copy(update={"next_from_line": dropped[0].line}) if dropped else out


TOOLS = (
    Tool(
        cli="sessions sync",
        handler=sync,
        input=SyncInput,
        output=SyncOutput,
        summary="Index new and changed Claude Code and Codex transcripts into Pallium's session memory.",
        description=(
            "Use before recall/search when sessions may have run since the last sync, or on a schedule. "
            "Not needed before live (it syncs itself). Reads ~/.claude and ~/.codex (or the given homes); "
            "an unchanged file costs a stat, a grown file is read from where the last sync stopped. Writes only "
            "Pallium's index (secrets redacted); embeds new capsules when an embedding provider is configured."
        ),
        authority="observe",
        toolset="sessions",
        route=Route(
            phrasings=(
                "sync my sessions",
                "index new claude and codex transcripts",
                "update session memory",
                "import recent agent conversations",
                "refresh the session index",
                "bring the newest transcripts into session memory",
            ),
            arguments={"source": "source"},
        ),
        annotations=_INDEXES,
        render=render.sync,
    ),
    Tool(
        cli="sessions recall",
        handler=recall_,
        input=RecallInput,
        output=RecallOutput,
        summary="Where earlier agent sessions stood on a question, with the transcript lines that show it.",
        description=(
            "Use at the start of a task, or when asked where work stopped, what was decided or why something "
            "failed: answers from Claude Code and Codex transcripts, citing session and line; name distinctive "
            "words (a file, an error, a test). Not for code (the repo tools) or listing sessions by state "
            "(pallium_sessions_find). Reads Pallium's index (pallium_sessions_sync fills it); within 8 KB."
        ),
        authority="observe",
        toolset="sessions",
        route=Route(
            phrasings=(
                "where did the checkout migration stop",
                "what was I working on last time",
                "pick up where the last session left off",
                "what did the previous agent conclude about the flaky test",
                "recall earlier work on auth",
                "remind me where we were with the refactor",
                "what's still open from yesterday's session",
                "what did we decide in an earlier session about the api",
                "what did my last agent session conclude",
            ),
            arguments={"query": "task", "source": "source"},
            needs=("sessions",),
        ),
        annotations=_READS,
        positional=("query",),
        render=render.recall,
        unbounded_by="full",
    ),
    Tool(
        cli="sessions search",
        handler=search,
        input=SearchInput,
        output=SearchOutput,
        summary="Exact search over every indexed transcript message: all the words, best match first.",
        description=(
            "Use to find every place a word, error, command or file name came up in past sessions: a message "
            'matches when it holds all the words exactly (any=true: one of them; "quoted words": a phrase). '
            "Not for 'where did we stop' questions (pallium_sessions_recall ranks whole sessions). Reads "
            "Pallium's index; pages within 8 KB; hybrid adds one embedding request."
        ),
        authority="observe",
        toolset="sessions",
        route=Route(
            phrasings=(
                "search my past sessions for production smoke test",
                "find the conversation where we discussed caching",
                "grep agent transcripts for an error message",
                "which session mentioned the migration script",
                "look through agent chat history for a phrase",
            ),
            arguments={"query": "text", "source": "source"},
            flags={"hybrid": ("semantic", "hybrid", "meaning")},
            needs=("sessions",),
        ),
        annotations=_READS,
        positional=("query",),
        render=render.search,
        unbounded_by="full",
    ),
    Tool(
        cli="sessions show",
        handler=show,
        input=ShowInput,
        output=ShowOutput,
        summary="One session's metadata and continuity capsule: asked, stopped, files, commands, completion.",
        description=(
            "Use after recall/find to see one session whole: what was asked, where it stopped, files and "
            "commands, open tool calls, token usage, subagents. Not for the transcript itself (use "
            "pallium_sessions_read). Reads Pallium's index only; a unique id prefix works."
        ),
        authority="observe",
        toolset="sessions",
        route=Route(
            phrasings=(
                "show session 3f2a9c1e",
                "details of a session",
                "what did that session ask and where did it stop",
                "the continuity capsule of a session",
                "metadata of one agent session",
            ),
            arguments={"id": "session_id"},
            needs=("sessions",),
        ),
        annotations=_READS,
        positional=("id",),
        render=render.show,
        budget=CONTEXT_BUDGET,
    ),
    Tool(
        cli="sessions read",
        handler=read,
        input=ReadInput,
        output=ReadOutput,
        summary="A session's transcript lines in a compact rendering, from a given line.",
        description=(
            "Use to read around a line that recall or search cited. Not for finding sessions (use "
            "pallium_sessions_recall or pallium_sessions_search). Reads Pallium's index, so it works after the "
            "tool deleted the transcript; texts cut at 600 characters unless full."
        ),
        authority="observe",
        toolset="sessions",
        route=Route(
            phrasings=(
                "read the transcript of a session from line 120",
                "show the messages of a session",
                "read that conversation",
                "print the transcript lines of a session",
                "open a session's transcript",
            ),
            arguments={"id": "session_id"},
            needs=("sessions",),
        ),
        annotations=_READS,
        positional=("id",),
        render=render.read,
        budget=CONTEXT_BUDGET,
        trim=_trim_read,
    ),
    Tool(
        cli="sessions find",
        handler=find,
        input=FindInput,
        output=FindOutput,
        summary="Sessions by metadata: finished recently, unfinished in this repo, updated most recently.",
        description=(
            "Use for questions about sessions themselves ('which sessions finished a few minutes ago?', "
            "'what is unfinished in this repo?'); the answer echoes the filters it read, which can be passed "
            "explicitly. Not for questions about content (use pallium_sessions_recall). Reads Pallium's index only."
        ),
        authority="observe",
        toolset="sessions",
        route=Route(
            phrasings=(
                "which sessions finished a few minutes ago",
                "which sessions were updated most recently",
                "unfinished sessions in this repo",
                "which agent sessions have been inactive for 3 hours",
                "list sessions that did not finish",
                "show the most recent agent sessions",
                "sessions completed today",
            ),
            arguments={"question": "task", "source": "source"},
            needs=("sessions",),
        ),
        annotations=_READS,
        positional=("question",),
        render=render.find,
    ),
    Tool(
        cli="sessions live",
        handler=live_,
        input=LiveInput,
        output=LiveOutput,
        summary="Running claude and codex processes, matched to their sessions, with each one's lifecycle.",
        description=(
            "Use to see which agents are working, waiting for a prompt, blocked on a tool call or stuck right "
            "now. Not for past sessions (use pallium_sessions_find). Lists processes (psutil), reads Claude's "
            "session registry and syncs the index first; does not inventory shells, tmux, SSH or other agents."
        ),
        authority="observe",
        toolset="sessions",
        route=Route(
            phrasings=(
                "find all running agent sessions",
                "what are my agents doing right now",
                "is any claude session stuck",
                "which codex sessions are active",
                "list live agent processes",
                "are any agents waiting for input",
                "which agents are working at the moment",
                "is the agent frozen or blocked waiting on a tool call",
            ),
            flags={"running_only": ("running", "active"), "details": ("details", "detail", "detailed")},
            signals=("sessions_running",),
        ),
        annotations=_INDEXES,
        render=render.live,
        budget=CONTEXT_BUDGET,
    ),
    Tool(
        cli="sessions doctor",
        handler=doctor,
        input=DoctorInput,
        output=DoctorOutput,
        summary="Check the session index and, with confirm, repair it, drop raw events or vacuum.",
        description=(
            "Use when recall or search misbehave, or to reclaim space. Not for re-reading transcripts (use "
            "pallium_sessions_sync). Previews by default; with confirm it rebuilds the search index, deletes "
            "orphans or raw events, or vacuums, and needs admin."
        ),
        authority="observe",
        toolset="sessions",
        route=Route(
            phrasings=(
                "check the session index health",
                "repair the session database",
                "vacuum session memory",
                "is my session index consistent",
                "drop stored raw events from session memory",
            ),
            flags={
                "repair": ("repair", "fix"),
                "vacuum": ("vacuum", "compact", "shrink"),
                "prune_raw_events": ("raw",),
                "confirm": ("repair", "fix", "vacuum", "compact", "shrink", "drop"),
            },
        ),
        annotations=_DELETES,
        escalation=("confirm", "admin"),
        render=render.doctor,
        exit_code=lambda out: 0 if out.healthy or out.confirmed else 1,
    ),
    Tool(
        cli="sessions forget",
        handler=forget,
        input=ForgetInput,
        output=ForgetOutput,
        summary="Remove one session (and its subagents) from the index for good.",
        description=(
            "Use when a session should not be recalled (private or misleading content). Not for old sessions "
            "in bulk (use pallium_sessions_prune). Previews by default; with confirm it deletes the indexed "
            "messages and vectors, keeps a tombstone so sync never re-indexes it, and needs admin."
        ),
        authority="observe",
        toolset="sessions",
        route=Route(
            phrasings=(
                "forget session 3f2a9c1e",
                "remove a session from memory for good",
                "delete that private conversation from the index",
                "never recall that session again",
                "erase one session's transcript from pallium",
                "scrub a session out of memory",
            ),
            arguments={"id": "session_id"},
            flags={"confirm": ("forget", "remove", "delete", "erase", "purge", "drop")},
            needs=("sessions",),
        ),
        annotations=_DELETES,
        positional=("id",),
        escalation=("confirm", "admin"),
        render=render.forget,
    ),
    Tool(
        cli="sessions prune",
        handler=prune,
        input=PruneInput,
        output=PruneOutput,
        summary="Remove sessions whose last activity is older than a given age from the index.",
        description=(
            "Use to bound the index's size or age. Not for one session (use pallium_sessions_forget). Previews "
            "by default; with confirm it deletes those sessions' messages and vectors, keeps tombstones so sync "
            "does not bring them back, and needs admin."
        ),
        authority="observe",
        toolset="sessions",
        route=Route(
            phrasings=(
                "prune sessions older than 180 days",
                "delete old sessions from the index",
                "clean up sessions not touched in months",
                "remove sessions older than 90d",
                "drop stale session history",
            ),
            arguments={"older_than": "age"},
            flags={"confirm": ("prune", "delete", "remove", "clean", "drop", "purge")},
            needs=("sessions",),
        ),
        annotations=_DELETES,
        escalation=("confirm", "admin"),
        render=render.prune,
    ),
    Tool(
        cli="sessions embedding status",
        handler=embedding_status,
        input=EmbeddingStatusInput,
        output=EmbeddingOutput,
        summary="The embedding configuration, whether a key is found, and the vector spaces in the index.",
        description=(
            "Use to see whether recall can use semantic search and how many sessions have vectors. Not for "
            "changing it (use pallium_sessions_embedding_configure). Reads the config file and the index; no "
            "network; never shows the key."
        ),
        authority="observe",
        toolset="sessions",
        route=Route(
            phrasings=(
                "is semantic search configured",
                "embedding configuration status",
                "which embedding model does recall use",
                "do I have an embedding key set",
                "show the vector spaces in the session index",
            ),
        ),
        annotations=_READS,
        render=render.embedding,
    ),
    Tool(
        cli="sessions embedding configure",
        handler=embedding_configure,
        input=EmbeddingConfigureInput,
        output=EmbeddingOutput,
        summary="Choose the embedding provider and model for session recall (config file mode 0600).",
        description=(
            "Use once to turn on semantic recall. Not for testing the endpoint (use "
            "pallium_sessions_embedding_check). Writes $PALLIUM_HOME/embedding.json; the key is never taken as "
            "an argument: it comes from PALLIUM_EMBED_API_KEY or the OS keyring. Changes configuration: admin."
        ),
        authority="admin",
        toolset="sessions",
        route=Route(
            phrasings=(
                "configure embeddings with openai text-embedding-3-small",
                "set up the embedding provider",
                "change the embedding model for recall",
                "use a local embedding endpoint",
                "store the embedding key in the keychain",
            ),
        ),
        annotations=Annotations(read_only=False, idempotent=True),
        render=render.embedding,
    ),
    Tool(
        cli="sessions embedding check",
        handler=embedding_check,
        input=EmbeddingCheckInput,
        output=EmbeddingOutput,
        summary="Verify the configured embedding endpoint with one small request and record its vector space.",
        description=(
            "Use after configuring, or before a large embed, to confirm the key, model and dimension. Not for "
            "embedding sessions (pallium_sessions_sync does that). Sends one short text to the provider."
        ),
        authority="consult",
        toolset="sessions",
        route=Route(
            phrasings=(
                "verify the embedding endpoint works",
                "test the embedding configuration",
                "check embeddings before a large embed",
                "does the embedding provider answer",
            ),
        ),
        annotations=Annotations(read_only=False, idempotent=True, open_world=True),
        render=render.embedding,
        exit_code=lambda out: 0 if (out.check or {}).get("ok") else 1,
    ),
)
