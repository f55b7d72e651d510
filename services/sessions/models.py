"""Input and output models of the session-memory tools."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kernel.models import ToolInput, ToolOutput

Source = Literal["claude", "codex"]
Completion = Literal["finished", "not_finished", "unknown"]

_REPO = "only sessions in this repository or folder (or inside it); default: all"
_NOW = "ages count from $PALLIUM_NOW when set"
_WHEN = "ISO time (2026-11-20T09:00Z) or age (30m, 3h, 7d)"


class HomesInput(ToolInput):
    claude_home: str | None = Field(
        None, description="Claude Code config home; default $CLAUDE_CONFIG_DIR, then ~/.claude"
    )
    codex_home: str | None = Field(None, description="Codex home; default $CODEX_HOME, then ~/.codex")


class FilterInput(ToolInput):
    repo: str | None = Field(None, description=_REPO)
    cwd: str | None = Field(None, description="only sessions whose working folder is exactly this path")
    source: Source | None = Field(None, description="only sessions of this agent: claude or codex; default both")
    file: str | None = Field(None, description="only sessions that touched a file whose path contains this text")
    since: str | None = Field(None, description="only sessions active at or after this time; " + _WHEN)
    before: str | None = Field(None, description="only sessions started before this time (written as since is)")


# ---------------------------------------------------------------- sync


class SyncInput(HomesInput):
    source: Literal["claude", "codex", "all"] = Field("all", description="which transcripts to index (default all)")
    raw_events: bool = Field(False, description="also keep raw records (redacted); rereads indexed files lacking them")
    wait_seconds: float = Field(
        30.0, ge=0, le=600, description="how long to wait for another running sync, in seconds (0-600, default 30)"
    )


class HomeReport(ToolOutput):
    source: Source
    path: str
    exists: bool
    files: int


class EmbeddingReport(ToolOutput):
    configured: bool
    embedded: int = 0
    space: str | None = Field(None, description="provider/model/dimension of the vectors written")
    error: str | None = Field(None, description="why embedding stopped; lexical search is unaffected")


class SyncOutput(ToolOutput):
    homes: list[HomeReport]
    files_seen: int
    files_unchanged: int
    files_new: int
    files_appended: int = Field(description="files that only grew and were read from the last offset")
    files_reparsed: int = Field(description="files rewritten since the last sync, indexed again from the start")
    files_skipped_forgotten: int
    files_unreadable: list[dict[str, str]]
    sessions_updated: int
    session_ids: list[str] = Field(description="the first 20 sessions updated")
    sessions_marked_missing: list[str] = Field(description="sessions whose transcript file was deleted")
    messages_added: int
    bytes_read: int
    malformed_lines: int = Field(description="lines that were not JSON objects: skipped, the rest indexed")
    oversized_lines: int = Field(description="lines over 16 MB: skipped")
    partial_lines_left: int = Field(description="last lines still being written, left for the next sync")
    redactions: int = Field(description="likely secrets replaced before storing")
    embedding: EmbeddingReport
    duration_ms: int


# ---------------------------------------------------------------- shared shapes


class SessionSummary(ToolOutput):
    id: str
    source: Source
    title: str | None
    repo: str | None
    cwd: str | None
    git_branch: str | None
    created_at: str | None
    updated_at: str | None
    completion: Completion
    evidence: str | None = Field(None, description="the transcript record completion was decided from")
    parent_id: str | None = Field(None, description="for subagents and forks: the session that started them")
    source_missing: bool = Field(description="the transcript was deleted by its tool; the index still holds it")


class Citation(ToolOutput):
    line: int = Field(description="1-based physical line of the transcript file")
    role: str
    kind: str
    text: str
    why: str | None = Field(
        None, description="match, result (of a matched tool call), open_call, stopped_here or compaction"
    )


class Freshness(ToolOutput):
    last_sync_at: str | None
    sessions: int


# ---------------------------------------------------------------- recall and search


class RecallInput(FilterInput):
    query: str = Field(min_length=1, max_length=2000, description="the question, in words")
    limit: int = Field(5, ge=1, le=50, description="most sessions to return (1-50, default 5)")
    full: bool = Field(False, description="return untrimmed citations and skip the 8 KB budget")


class RecallResult(SessionSummary):
    score: float
    capsule: dict[str, Any] = Field(description="the session's continuity capsule (bounded, about 2 KB)")
    citations: list[Citation]


class SemanticStatus(ToolOutput):
    used: bool
    reason: str | None = Field(None, description="why semantic search was not used, when it was not")


class RecallOutput(ToolOutput):
    query: str
    results: list[RecallResult]
    semantic: SemanticStatus
    truncated: bool
    freshness: Freshness


class SearchInput(FilterInput):
    query: str = Field(
        min_length=1,
        max_length=2000,
        description='words a message must all hold, exactly (not their stems); "quoted words" as a phrase',
    )
    any: bool = Field(False, description="match messages holding any of the words instead of all of them")
    hybrid: bool = Field(False, description="also rank by embedding similarity when embeddings are configured")
    limit: int = Field(20, ge=1, le=200, description="most hits to return (1-200, default 20; fewer to stay in 8 KB)")
    cursor: str | None = Field(None, description="next_cursor of a previous call, to page on")
    full: bool = Field(False, description="return whole snippets and skip the 8 KB budget (limit still applies)")


class SearchHit(ToolOutput):
    session_id: str
    source: Source
    title: str | None
    line: int
    role: str
    kind: str
    ts: str | None
    snippet: str


class SearchOutput(ToolOutput):
    query: str
    hits: list[SearchHit]
    semantic: SemanticStatus
    truncated: bool = Field(description="more hits follow: pass next_cursor to page on")
    next_cursor: str | None = None
    freshness: Freshness


# ---------------------------------------------------------------- show and read


class ShowInput(ToolInput):
    id: str = Field(min_length=1, description="a session id, or a unique prefix of one")


class ShowOutput(SessionSummary):
    native_id: str
    agent_id: str | None
    agent_type: str | None
    model: str | None
    cli_version: str | None
    message_count: int
    capsule: dict[str, Any]
    subagents: list[SessionSummary]


class ReadInput(ToolInput):
    id: str = Field(min_length=1, description="a session id, or a unique prefix of one")
    from_line: int = Field(1, ge=1, description="first transcript line to show (1-based, default 1)")
    limit: int = Field(50, ge=1, le=1000, description="most messages to show (1-1000, default 50)")
    full: bool = Field(False, description="show whole texts instead of cutting each at 600 characters")


class ReadMessage(ToolOutput):
    line: int
    ts: str | None
    role: str
    kind: str
    tool: str | None
    text: str
    is_error: bool


class ReadOutput(ToolOutput):
    session_id: str
    source_missing: bool
    messages: list[ReadMessage]
    next_from_line: int | None = Field(description="pass as from_line to read on; null at the end")


# ---------------------------------------------------------------- find


class FindInput(ToolInput):
    question: str | None = Field(None, max_length=500, description="a question about sessions, in words")
    repo: str | None = Field(None, description=_REPO + "; 'this repo' in the question means the current one")
    source: Source | None = Field(None, description="only sessions of this agent: claude or codex")
    completion: Completion | None = Field(None, description="only sessions with this completion")
    inactive_for: str | None = Field(
        None, description="only sessions with no activity for at least this long (3h); " + _NOW
    )
    finished_within: str | None = Field(
        None, description="only sessions that finished within this long ago (10m); " + _NOW
    )
    sort: Literal["updated", "created"] | None = Field(None, description="order, newest first (default updated)")
    limit: int = Field(10, ge=1, le=100, description="most sessions to return (1-100, default 10)")
    details: bool = Field(False, description="add each session's capsule")


class FindOutput(ToolOutput):
    interpretation: str = Field(description="how the question was read, in words")
    filters: dict[str, Any] = Field(description="the filters applied, as explicit arguments would give them")
    sessions: list[SessionSummary]
    capsules: dict[str, Any] | None = Field(None, description="with details: each listed session's capsule, by id")
    truncated: bool
    freshness: Freshness


# ---------------------------------------------------------------- live


class LiveInput(HomesInput):
    running_only: bool = Field(False, description="list only sessions with a running agent process")
    details: bool = Field(False, description="add each session's capsule and the process command line")
    stuck_after: float = Field(
        600, ge=1, description="seconds of silence that, with a stopped process, count as stuck (default 600)"
    )


class LiveSession(ToolOutput):
    source: Source
    pid: int | None
    process_status: str | None = Field(description="psutil status: running, sleeping, stopped, disk-sleep...")
    cwd: str | None
    session_id: str | None
    matched_by: str | None = Field(description="registry, open_file, cwd, or null when no session matched")
    title: str | None
    lifecycle: Literal["active", "waiting", "blocked", "finished", "idle", "stuck"]
    why: str
    silent_seconds: int | None
    last_activity_at: str | None
    completion: Completion | None
    capsule: dict[str, Any] | None = None
    cmdline: list[str] | None = None


class LiveOutput(ToolOutput):
    generated_at: str
    sessions: list[LiveSession]
    coverage: list[str] = Field(description="what was looked at")
    exclusions: list[str] = Field(description="what this does not inventory")


# ---------------------------------------------------------------- upkeep


class DoctorInput(ToolInput):
    repair: bool = Field(False, description="rebuild the search index and remove orphaned rows")
    prune_raw_events: bool = Field(False, description="delete every stored raw event")
    vacuum: bool = Field(False, description="compact the database file")
    confirm: bool = Field(False, description="do the chosen actions; without it, only report and preview")


class DoctorOutput(ToolOutput):
    healthy: bool
    problems: list[str]
    counts: dict[str, int]
    database_bytes: int
    planned: list[str] = Field(description="actions a confirmed call would take")
    done: list[str]
    confirmed: bool


class ForgetInput(ToolInput):
    id: str = Field(min_length=1, description="a session id, or a unique prefix of one")
    confirm: bool = Field(False, description="really delete; without it, only preview")


_PURGED = (
    "the deleted text is gone from the database file and its WAL; false while another process holds a read "
    "open (the purge is then pending and the next sync finishes it)"
)


class ForgetOutput(ToolOutput):
    sessions: list[str] = Field(description="the session and its subagents")
    messages: int
    confirmed: bool
    purged: bool = Field(False, description=_PURGED)


class PruneInput(ToolInput):
    older_than: str = Field(description="age of the last activity, like 180d, 12w or 6h; " + _NOW)
    confirm: bool = Field(False, description="really delete; without it, only preview")


class PruneOutput(ToolOutput):
    cutoff: str
    sessions: list[SessionSummary]
    count: int
    messages: int
    confirmed: bool
    truncated: bool
    purged: bool = Field(False, description=_PURGED)


# ---------------------------------------------------------------- embedding


class EmbeddingStatusInput(ToolInput):
    pass


class EmbeddingConfigureInput(ToolInput):
    provider: Literal["openai"] = Field("openai", description="embedding API family; openai covers compatible ones")
    model: str = Field(min_length=1, description="embedding model name, e.g. text-embedding-3-small")
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint; default the provider's own")
    credential_store: Literal["env", "keyring", "keychain"] = Field(
        "env",
        description="env (PALLIUM_EMBED_API_KEY) or keyring/keychain (OS keyring, service app.pallium.embedding)",
    )
    dimensions: int | None = Field(None, ge=1, le=8192, description="ask the model for this many dimensions")
    timeout_seconds: float = Field(10.0, gt=0, le=120, description="per-request timeout in seconds (default 10)")


class EmbeddingCheckInput(ToolInput):
    pass


class EmbeddingOutput(ToolOutput):
    configured: bool
    config_path: str
    provider: str | None
    model: str | None
    base_url: str | None
    credential_store: str | None
    key_found: bool
    key_source: str | None = Field(description="env:NAME or keyring:SERVICE; never the key itself")
    spaces: list[dict[str, Any]]
    sessions_without_vector: int | None
    check: dict[str, Any] | None = Field(None, description="result of the probe request, for check")
    message: str
