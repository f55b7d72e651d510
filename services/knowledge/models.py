"""Input and output models of the knowledge tools."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kernel.models import ToolInput, ToolOutput

_REPO = "repository path; default: the one holding the current folder"
_FULL = "return the whole response (every field, no byte budget) instead of the compact one"


class KnowledgeFreshness(ToolOutput):
    """How current the base is: separate from how well its claims are supported (`evidence`)."""

    status: Literal["fresh", "stale", "missing"] = Field(
        description="fresh: no described file changed since the build; missing: never built"
    )
    built_commit: str | None = Field(description="HEAD when the base was built")
    built_at: str | None
    current_commit: str | None
    changed_files: list[str] = Field(description="described files whose content changed since the build (at most 20)")
    changed_count: int
    stale_claims: int = Field(description="claims citing a file whose blob changed since the citation was checked")
    refresh_command: str | None = Field(description="the command that brings the base up to date")


class Evidence(ToolOutput):
    """How the claims behind an answer were checked. `verified` is never a guarantee of truth."""

    claims: int = Field(description="claims stored: each citation was checked against the index")
    citations_checked: int
    audit_supported: int = Field(description="claims a skeptic found supported by the cited source")
    audit_uncertain: int = Field(description="claims the skeptic could neither support nor refute")
    unaudited: int
    removed: int = Field(description="claims dropped (unresolved citation) or removed (refuted), with reasons kept")
    verified: bool = Field(
        description="current and audit-supported: every claim supported and none stale; not a proof of truth"
    )


class MapInput(ToolInput):
    repo: str | None = Field(None, description=_REPO)
    full: bool = Field(False, description=_FULL + " (every module's files, surface, edges and history)")
    limit: int = Field(60, ge=1, le=2000, description="most modules listed in the compact answer (default 60)")


class MapModule(ToolOutput):
    slug: str = Field(description="the URL-escaped module path (`internal%2Fworkflow`), for `knowledge get`")
    path: str
    files: int
    languages: dict[str, int]
    surface: list[str] = Field(description="most referenced names, most first")
    depends_on: list[str] = Field(description="slugs of modules this one imports (most imported first)")
    used_by: list[str]
    external: list[str] = Field(description="packages imported from outside the repository")
    tests: int


class MapOutput(ToolOutput):
    version: int = 2
    repo: str
    module_count: int
    file_count: int
    modules: list[MapModule]
    truncated: bool
    incidents: int = Field(description="incident candidates mined from commit subjects (unconfirmed)")
    full: list[dict[str, Any]] | None = Field(None, description="with `full`: every module's complete facts")


class BuildInput(ToolInput):
    repo: str | None = Field(None, description=_REPO)
    model: bool = Field(
        True,
        description="CLI `--no-model` (MCP `model: false`) builds from the index alone, at observe, with no "
        "model call; by default a read-only model also writes each module's purpose claims (needs consult)",
    )
    max_modules: int = Field(20, ge=0, le=500, description="most modules given model prose in one build (default 20)")
    provider: str | None = Field(None, description="provider for model prose (`claude`, `codex`, `openai`, `fake`)")
    modules: list[str] = Field(
        [], description="give model prose only to these module slugs (default: the most depended-on ones)"
    )


class BuildOutput(ToolOutput):
    repo: str
    built_commit: str | None
    built_at: str
    modules: int
    documents: int
    changed: int = Field(description="documents whose content changed (the old ones kept as revisions)")
    removed: int = Field(description="documents of modules that no longer exist")
    written: list[str] = Field(description="Markdown files replaced under .pallium/knowledge/")
    unchanged: int
    authored_kept: list[str] = Field(description="files without the generated marker: authored, never overwritten")
    collisions: list[str] = Field(description="documents not written because an authored file holds the name")
    model_modules: int = Field(0, description="modules given model prose in this build")
    claims_kept: int = 0
    claims_dropped: int = 0
    rejected: list[str] = Field([], description="modules whose candidate was rejected (the tree changed meanwhile)")
    model_attempts: int = 0


class SearchInput(ToolInput):
    query: str = Field(min_length=1, max_length=500, description="words to look for in the knowledge documents")
    repo: str | None = Field(None, description=_REPO)
    limit: int = Field(5, ge=1, le=5, description="most results (1-5, default 5)")
    full: bool = Field(False, description=_FULL)


class SearchHit(ToolOutput):
    slug: str
    title: str
    kind: str
    score: float = Field(description="BM25 rank; lower is better")
    snippet: str | None
    purpose: str | None
    surface: list[str]
    evidence: Evidence


class SearchOutput(ToolOutput):
    version: int = 2
    query: str
    results: list[SearchHit]
    truncated: bool
    freshness: KnowledgeFreshness
    documents: list[dict[str, Any]] | None = Field(None, description="with `full`: each result's whole document")


class GetInput(ToolInput):
    slug: str = Field(min_length=1, max_length=1000, description="a document's slug from map or search (`src%2Fapp`)")
    repo: str | None = Field(None, description=_REPO)
    section: str | None = Field(
        None, description="one section only: Purpose, Surface, Dependencies, Tests, History or Files"
    )
    full: bool = Field(False, description=_FULL)


class ClaimOut(ToolOutput):
    text: str
    section: str
    audit: str = Field(description="unaudited, supported or uncertain (refuted claims are removed)")
    audit_reason: str | None
    stale: bool = Field(description="a cited file's blob changed since the citation was checked")
    citations: list[dict[str, Any]]


class GetOutput(ToolOutput):
    version: int = 2
    slug: str
    title: str
    kind: str
    sections: dict[str, str] = Field(description="Markdown of each section (or of the asked one)")
    claims: list[ClaimOut]
    dropped_claims: list[dict[str, str]] = Field(description="claims removed, with outcome and reason")
    unverified_reason: str | None
    truncated: bool
    evidence: Evidence
    freshness: KnowledgeFreshness
    data: dict[str, Any] | None = Field(None, description="with `full`: the document's stored facts")


class ContextInput(ToolInput):
    task: str = Field(min_length=1, max_length=4000, description="the task in words; name files or symbols if known")
    repo: str | None = Field(None, description=_REPO)
    full: bool = Field(False, description=_FULL)


class ContextModule(ToolOutput):
    slug: str
    path: str
    why: list[str] = Field(description="what tied the module to the task: search, a named path, a named symbol")
    purpose: str | None
    claims: list[str] = Field(description="checked purpose claims (stale ones marked)")


class ContextFile(ToolOutput):
    path: str
    why: list[str]
    symbols: list[str] = Field(description="names in the file the task matched, with their lines (`name:12`)")
    checks: list[str] = Field(
        default_factory=list, description="the repo service's fast checks for this file: its own tests, to run"
    )


class ContextDecision(ToolOutput):
    slug: str
    title: str
    status: str
    source: str
    kind: str = Field(description="authored (knowledge decisions link)")


class ContextOutput(ToolOutput):
    version: int = 2
    task: str
    modules: list[ContextModule]
    read: list[ContextFile] = Field(description="source files to read first, most relevant first")
    tests: list[str] = Field(description="tests related to those files, closest first")
    checks: list[str] = Field(
        description="commands worth running after the change: the files' own tests first, then the modules' checks"
    )
    decisions: list[ContextDecision]
    truncated: bool
    evidence: Evidence
    freshness: KnowledgeFreshness


class AuditInput(ToolInput):
    repo: str | None = Field(None, description=_REPO)
    slug: str | None = Field(None, description="audit only this document's claims (default: all, stale ones first)")
    limit: int = Field(20, ge=1, le=200, description="most claims audited, one model call each (default 20)")
    provider: str | None = Field(None, description="provider for the skeptic (`claude`, `codex`, `openai`, `fake`)")


class AuditOutput(ToolOutput):
    repo: str
    audited: int
    supported: int
    refuted: int = Field(description="claims removed from their documents, with the reason recorded")
    unclear: int = Field(description="claims kept, marked uncertain")
    attempts: int = Field(description="model attempts made (each counts against the daily ledger)")
    removed: list[dict[str, str]]
    stopped: str | None = Field(None, description="why the audit stopped early (budget, pause, failure)")


class LinkInput(ToolInput):
    title: str = Field(min_length=1, max_length=200, description="the decision's title ('Why SQLite')")
    file: str = Field(description="the file holding the decision's text (an ADR, a note), inside the repository")
    source: str = Field(min_length=1, max_length=200, description="where it was decided ('ADR-12', a ticket, a URL)")
    supersedes: str | None = Field(None, description="slug of an earlier decision this one retires")
    repo: str | None = Field(None, description=_REPO)


class AuthoredDecision(ToolOutput):
    slug: str
    title: str
    status: Literal["active", "superseded", "conflicting"] = Field(
        description="conflicting: another active decision has the same title and neither supersedes the other"
    )
    source: str
    file: str
    supersedes: str | None
    superseded_by: str | None
    created_at: str
    text: str = Field(description="the decision's text, cut at 600 characters")
    score: float | None = Field(None, description="BM25 rank in a search (lower is better)")


class LinkOutput(ToolOutput):
    decision: AuthoredDecision
    conflicts: list[str] = Field(description="slugs of other active decisions with the same title")


class DecisionSearchInput(ToolInput):
    query: str = Field(min_length=1, max_length=500, description="words to find in authored decisions")
    repo: str | None = Field(None, description=_REPO)
    limit: int = Field(5, ge=1, le=50, description="most decisions (default 5)")
    superseded: bool = Field(False, description="include decisions a later one superseded")


class DecisionSearchOutput(ToolOutput):
    query: str
    decisions: list[AuthoredDecision]


class MaintainInput(ToolInput):
    repo: str | None = Field(None, description=_REPO)


class MaintainRunInput(ToolInput):
    repo: str | None = Field(None, description=_REPO + "; `run` without it supervises every enabled repository")
    once: bool = Field(
        False, description="take one supervision step and return (schedulers and tests; always so over MCP)"
    )
    poll_seconds: float = Field(2.0, ge=0.1, le=600, description="seconds between steps when running (default 2)")
    max_modules: int = Field(2, ge=0, le=50, description="most modules given new prose per generation (default 2)")
    provider: str | None = Field(None, description="provider for model work (`claude`, `codex`, `openai`, `fake`)")


class MaintainInstallInput(ToolInput):
    platform: Literal["auto", "linux", "macos"] = Field(
        "auto", description="which scheduler file to write: a systemd user unit (linux) or a launch agent (macos)"
    )
    activate: bool = Field(
        False, description="also run `systemctl --user enable --now` or `launchctl load` when that program exists"
    )


class MaintainStatus(ToolOutput):
    repo: str
    enabled: bool
    paused: bool
    pause_reason: str | None
    attempts_24h: int = Field(description="real model attempts in the last 24 hours, all repositories")
    attempt_limit: int
    active_attempts: int
    failed_24h: int = Field(description="attempts in the window that failed (they count)")
    next_free_at: str | None = Field(description="when the oldest attempt leaves the window, when the limit is reached")
    changed_at: str | None = Field(description="when the supervisor last saw the tree change")
    structure_at: str | None = Field(description="when structure was last refreshed")
    generation_at: str | None = Field(description="when generation and audits last ran")
    stale_claims: int


class MaintainStep(ToolOutput):
    repo: str
    actions: list[str] = Field(description="what this step did: structure, generation, audit, or nothing")
    quiet_seconds: float = Field(description="seconds since the tree last changed")
    waiting: str | None = Field(description="what the next action waits for")
    notes: list[str]


class MaintainRunOutput(ToolOutput):
    steps: list[MaintainStep]


class MaintainInstallOutput(ToolOutput):
    platform: str
    path: str = Field(description="the unit or launch agent file written")
    command: list[str] = Field(description="what the scheduler runs")
    activated: bool
    note: str | None


class ServeInput(ToolInput):
    repo: str | None = Field(None, description=_REPO)
    host: str = Field("127.0.0.1", description="bind address (default 127.0.0.1; any other needs `token`)")
    port: int = Field(8766, ge=0, le=65535, description="TCP port (default 8766; 0 picks a free one)")
    token: str | None = Field(
        None, description="bearer token every request must carry (header, or a `pallium_token` cookie)"
    )


class ServeOutput(ToolOutput):
    url: str = Field(description="where the site is served (over MCP, running) or was served (CLI, stopped)")
    background: bool = Field(False, description="true over MCP: the site goes on in the background")
    stops_in_seconds: int | None = Field(None, description="over MCP: when the background site stops by itself")
