"""Input and output models of the repository tools."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kernel.models import ToolInput, ToolOutput

ChangeKind = Literal["added", "modified", "deleted", "renamed", "copied", "type_changed", "untracked", "conflicted"]


class ChangedNowInput(ToolInput):
    repo: str | None = Field(None, description="repository path; default: the current one")
    limit: int = Field(100, ge=1, le=5000, description="most files to list (1-5000, default 100); counts cover all")
    refresh: bool = Field(
        False,
        description="update the index incrementally first when it is stale, or build it when there is none "
        "(without it, changed-now never writes)",
    )


class ChangedFile(ToolOutput):
    path: str = Field(description="repository-relative path (the new path of a rename)")
    orig_path: str | None = Field(None, description="the old path of a rename or copy")
    kind: ChangeKind
    staged: bool = Field(description="the index differs from HEAD for this path")
    unstaged: bool = Field(description="the working tree differs from the index for this path")
    git_status: str = Field(description="git's two status letters, index then working tree ('.' = unchanged)")
    risk_level: Literal["low", "medium", "high"] | None = Field(None, description="from the index; null without one")
    blast_radius: int | None = Field(None, description="files that usually change with this one; null without an index")
    old_path_importers: list[str] = Field(
        default_factory=list,
        description="for a rename or deletion: files whose imports still name the old path (needs an index)",
    )


class ChangeCounts(ToolOutput):
    total: int
    staged: int
    unstaged: int
    untracked: int
    renamed: int
    deleted: int
    conflicted: int


class ChangedNowOutput(ToolOutput):
    repo: str
    branch: str | None = Field(description="current branch; null on a detached HEAD")
    head: str | None = Field(description="commit at HEAD; null before the first commit")
    detached: bool
    upstream: str | None
    ahead: int | None
    behind: int | None
    summary: str
    counts: ChangeCounts
    files: list[ChangedFile]
    truncated: bool = Field(description="true when more files changed than `limit` listed")
    index_status: Literal["missing", "indexed", "stale"] = Field(description="state of Pallium's repository index")
    recommended_next_command: str | None
    freshness: Freshness | None = Field(
        None, description="how fresh the index behind risk_level and blast_radius is; null when no index exists"
    )


# index ------------------------------------------------------------------------------------------

_REPO = "repository path; default: the current one"


class IndexInput(ToolInput):
    repo: str | None = Field(None, description=_REPO)
    full: bool = Field(False, description="rebuild both halves from scratch instead of reading only what changed")
    untracked: bool = Field(
        False, description="also index untracked files that are not ignored (default: tracked only)"
    )


class IndexOutput(ToolOutput):
    repo: str
    watermark: str | None = Field(description="the last commit the git half has read; null in an empty repository")
    commits_read: int = Field(description="commits read by this run (only the new ones on a reindex)")
    commits_total: int
    history_rebuilt: bool = Field(description="the git half was rebuilt: first run, --full, or rewritten history")
    shallow: bool = Field(description="the clone is shallow, so history stops at its boundary")
    files_parsed: int
    files_reused: int = Field(description="files whose content was already indexed, not reparsed")
    files_read: int = Field(
        description="files whose bytes this run read or looked at (new or changed content, and skipped files "
        "whose content changed); 0 on a reindex with nothing changed"
    )
    files_skipped: dict[str, int] = Field(description="skipped files by reason")
    files_changed: int = Field(description="paths whose content differs from the previous run (new ones included)")
    files_removed: int
    git_seconds: float = Field(description="seconds reading and writing history (the read overlaps file parsing)")
    duration_seconds: float
    notes: list[str] = Field(
        [],
        description="what this index lacks and why: a shallow or partial clone, objects git could not read "
        "(rename detection skipped, commits kept without their files), each quoting the git command that failed; "
        "`pallium doctor` repeats them",
    )


# freshness --------------------------------------------------------------------------------------


class Freshness(ToolOutput):
    status: Literal["fresh", "stale", "missing"]
    indexed_commit: str | None = Field(description="HEAD when the index was built")
    indexed_at: str | None
    current_commit: str | None
    head_moved: bool
    history_behind: bool = Field(
        False, description="the git half has not read up to the indexed commit (a run failed midway); reindex"
    )
    working_tree_changed: bool = Field(description="files differ from what the index holds")
    changed_files: list[str] = Field(description="paths that differ from the index (at most 20)")
    changed_count: int
    refresh_command: str | None = Field(description="the command that brings the index up to date")


class _ReadInput(ToolInput):
    repo: str | None = Field(None, description=_REPO)
    refresh: bool = Field(False, description="reindex first if the index is stale")


class _PathInput(_ReadInput):
    path: str = Field(description="file path, relative to the current folder or the repository root")


# symbols ----------------------------------------------------------------------------------------


class SymbolsInput(_PathInput):
    limit: int = Field(200, ge=1, le=5000, description="most symbols to list (1-5000, default 200)")
    full: bool = Field(False, description="list up to `limit` symbols past the 8 KB budget")
    cursor: str | None = Field(None, description="next_cursor of the previous page")


class Symbol(ToolOutput):
    name: str
    kind: str = Field(description="class, function, method, interface, type, enum, enum_member, field, constant...")
    qualified: str = Field(description="name with its enclosing definitions, e.g. `Class.method`")
    signature: str
    start_line: int
    end_line: int
    doc: str | None = Field(description="first paragraph of its docstring or doc comment")
    parent: str | None
    decorators: list[str] = Field(
        default_factory=list, description="decorators and annotations as written: `@property`, `@dataclass(...)`"
    )
    overload: bool = Field(False, description="an `@overload` declaration, not the implementation")


class SymbolsOutput(ToolOutput):
    redactions: int = Field(0, description="likely secrets replaced by [REDACTED:<kind>] before the answer left")
    path: str
    language: str | None
    status: str = Field(description="parsed, text, unparsed, or skipped:<reason>")
    symbols: list[Symbol]
    truncated: bool
    next_cursor: str | None = Field(None, description="pass as `cursor` for the symbols after these")
    freshness: Freshness


# callers ----------------------------------------------------------------------------------------


RefKind = Literal["call", "import", "inherits", "type", "decorator", "attribute", "registration", "other"]


class CallersInput(_ReadInput):
    name: str = Field(
        description="identifier to look up; a qualified name narrows it, in the language's own spelling: "
        "`Class.method`, `module.func`, `pkg.module.Class.method`, `Class::method`, `Class#method`, "
        "`Pkg\\Routing\\Collector::basePath` (PHP namespace), `com.example.pkg.helper` (Kotlin package)"
    )
    kind: RefKind | None = Field(
        None,
        description="only references of this kind: call, import, inherits (base classes and implemented "
        "interfaces), type (annotations), decorator, attribute (a member read), other; default: all",
    )
    limit: int = Field(50, ge=1, le=1000, description="most references per page (1-1000, default 50)")
    cursor: str | None = Field(None, description="next_cursor of the previous page")


class Definition(ToolOutput):
    path: str
    line: int
    kind: str
    qualified: str
    signature: str


class Reference(ToolOutput):
    path: str
    line: int
    kind: RefKind = Field(description="how the name is used here: call, import, inherits, type, decorator...")
    enclosing: str | None = Field(description="qualified name of the definition the reference sits in")
    resolution: Literal["receiver", "same-file", "import", "unique", "ambiguous", "unresolved"] = Field(
        description="how the reference was tied to a definition: its receiver's class (self, a constructed or "
        "annotated variable), the same file, an import, the only one, or not"
    )
    target: str | None = Field(description="path of the definition it resolves to, when one was chosen")
    target_qualified: str | None = Field(None, description="qualified name of that definition, when known")
    target_line: int | None = Field(
        None, description="line of that definition: tells apart one name bound several times in a file"
    )
    via: str | None = Field(
        None,
        description="C/C++: the macro written here that makes the call (its body calls the name, itself or "
        "through the macros it uses); the line is the macro's use, as the preprocessor expands it",
    )


class CallersOutput(ToolOutput):
    redactions: int = Field(0, description="likely secrets replaced by [REDACTED:<kind>] before the answer left")
    name: str
    definitions: list[Definition] = Field(
        description="where the name is defined: at most 50, fewer when they would fill half of 8 KB "
        "(definition_count counts all)"
    )
    definition_count: int
    alias_of: Definition | None = Field(
        None,
        description="when the name asked is only another name for a definition (`Motor` after `from .core "
        "import Engine as Motor`, `Base = Widget`, `export { Engine as Motor }`): that definition; "
        "`definitions` and `references` are then its, including the uses under the other name",
    )
    inherited: str | None = Field(
        None,
        description="when the class named does not define the member itself: the classes it was found "
        "through, nearest last (`Web -> App -> Scaffold`; `; ` between several classes of that name)",
    )
    implements: list[Definition] = Field(
        default_factory=list,
        description="PHP and C++, for `Class.method`: the interface and base methods it implements or overrides; the "
        "calls through them are listed too (with those as `target`), since they may run this one",
    )
    kinds: dict[str, int] = Field(
        description="references by kind, of the set listed across all pages (a qualified name counts only the "
        "references that can reach it), before any `kind` filter"
    )
    resolutions: dict[str, int] | None = Field(
        None,
        description="of the references listed across all pages: how many are `resolved` (receiver, same-file, "
        "import, unique), `ambiguous` (could be this definition or another) and `unresolved`; null for a bare "
        "name used more than 3,000 times, whose pages are resolved as they are read",
    )
    references: list[Reference] = Field(
        description="resolved references first, then ambiguous, then unresolved (each by path and line), except "
        "for a bare name used more than 3,000 times (by path and line)"
    )
    total: int = Field(description="references in all pages")
    truncated: bool = Field(description="more references follow: the page ends at `limit` or at 8 KB")
    next_cursor: str | None
    freshness: Freshness


# search -----------------------------------------------------------------------------------------


class SearchInput(_ReadInput):
    query: str = Field(
        description="words to find in symbol names (split at camelCase/snake_case), signatures, docs, paths"
    )
    limit: int = Field(5, ge=1, le=100, description="most results (1-100, default 5)")
    cursor: str | None = Field(None, description="next_cursor of the previous page")


class SearchHit(ToolOutput):
    path: str
    line: int
    kind: str
    qualified: str
    signature: str
    doc: str | None
    matched: str = Field(description="why it matched: the fields with the matching words in [brackets]")
    score: float = Field(description="BM25 relevance; higher is better")


class SearchOutput(ToolOutput):
    redactions: int = Field(0, description="likely secrets replaced by [REDACTED:<kind>] before the answer left")
    query: str
    results: list[SearchHit]
    truncated: bool
    next_cursor: str | None
    freshness: Freshness


# risk, neighbours -------------------------------------------------------------------------------

Level = Literal["low", "medium", "high"]


class RiskInput(_PathInput):
    pass


class RiskFactor(ToolOutput):
    factor: str
    points: float
    detail: str


class RiskOutput(ToolOutput):
    redactions: int = Field(0, description="likely secrets replaced by [REDACTED:<kind>] before the answer left")
    path: str
    score: float
    level: Level
    inferred: bool = Field(description="true when the file has no history and the score rests on structure only")
    reasons: list[RiskFactor]
    freshness: Freshness


class NeighborsInput(_PathInput):
    limit: int = Field(10, ge=1, le=200, description="most co-change neighbours (1-200, default 10)")


class CoChange(ToolOutput):
    path: str
    shared: int = Field(description="commits that changed both files")
    degree: float = Field(description="shared / mean(revisions of both), 0-1, symmetric")
    confidence: float = Field(description="shared / revisions of the asked file: P(this changes | asked file changes)")
    last_shared_at: str
    strength: Literal["strong", "weak"] = Field(description="strong: shared>=5, mean revisions>=5, degree>=0.3")


class StructuralLink(ToolOutput):
    path: str
    kind: Literal["imports", "imported-by", "test-pair"]


class NeighborsOutput(ToolOutput):
    redactions: int = Field(0, description="likely secrets replaced by [REDACTED:<kind>] before the answer left")
    path: str
    revisions: int
    cochange: list[CoChange]
    structural: list[StructuralLink]
    truncated: bool
    freshness: Freshness


# decisions --------------------------------------------------------------------------------------


class DecisionsInput(_ReadInput):
    query: str = Field(description="words to find in commit subjects and bodies")
    limit: int = Field(5, ge=1, le=100, description="most notes (1-100, default 5)")
    cursor: str | None = Field(None, description="next_cursor of the previous page")


class Decision(ToolOutput):
    sha: str
    committed_at: str
    subject: str
    body: str = Field(description="the commit body, cut at 600 characters")


class RankedDecision(ToolOutput):
    kind: Literal["commit", "workflow", "authored"] = Field(
        description="commit: a commit note; workflow: recorded by a workflow run; authored: knowledge decisions link"
    )
    ref: str = Field(description="the commit sha, the workflow decision id, or the authored decision's slug")
    title: str
    text: str = Field(description="the body, cut at 300 characters")
    when: str
    status: str | None = Field(None, description="authored only: active, conflicting or superseded")


class DecisionsOutput(ToolOutput):
    redactions: int = Field(0, description="likely secrets replaced by [REDACTED:<kind>] before the answer left")
    query: str
    decisions: list[Decision]
    truncated: bool
    next_cursor: str | None
    freshness: Freshness
    ranked: list[RankedDecision] = Field(
        [], description="commit notes, workflow decisions and authored decisions in one ranking, labelled by kind"
    )


# explain ----------------------------------------------------------------------------------------


class ExplainInput(_PathInput):
    full: bool = Field(False, description="return every list in full instead of within 8 KB")


class Verification(ToolOutput):
    fast: list[str] = Field(description="seconds: the tests that cover this file")
    safe: list[str] = Field(description="the package or folder's tests and linters")
    full: list[str] = Field(description="the whole suite")


class RecentCommit(ToolOutput):
    sha: str
    committed_at: str
    author: str
    subject: str


class FileHistory(ToolOutput):
    state: Literal["present", "deleted", "renamed"] = Field(
        description="present in the index, deleted from the tree, or renamed away (see renamed_to)"
    )
    added_in: RecentCommit | None = Field(description="the commit that added the file (under any earlier name)")
    removed_in: RecentCommit | None = Field(None, description="the commit that deleted or renamed it away")
    renamed_in: RecentCommit | None = Field(
        None, description="for a file in the tree, the commit that gave it its current name, when a rename did"
    )
    renamed_to: str | None = Field(None, description="its new path, when a commit renamed it")
    former_names: list[str] = Field(default_factory=list, description="paths it had before renames, newest first")
    commits: int = Field(description="commits that touched it, under every name it had")
    earlier_file_removed_in: RecentCommit | None = Field(
        None,
        description="an earlier, unrelated file had this path and left it (deleted or renamed away) in this commit "
        "before this file was added; its commits are not counted here",
    )


class ExplainOutput(ToolOutput):
    redactions: int = Field(0, description="likely secrets replaced by [REDACTED:<kind>] before the answer left")
    path: str
    language: str | None
    status: str
    lines: int | None
    summary: str
    symbols: list[Symbol]
    imports: list[str] = Field(description="raw imports; resolved ones are in `structural`")
    structural: list[StructuralLink]
    cochange: list[CoChange] = Field(
        description="co-change neighbours sharing at least 2 commits (all: pallium_neighbors)"
    )
    tests: list[str] = Field(description="test files that cover this file, by name or by importing it")
    recent_commits: list[RecentCommit]
    history: FileHistory
    decisions: list[RecentCommit] = Field(description="commits touching this file whose message explains a choice")
    risk: RiskOutput
    verification: Verification
    evidence: list[str] = Field(description="sources behind the answer: git-history, repo-structure, test-inference...")
    truncated: bool
    freshness: Freshness


# handoff ----------------------------------------------------------------------------------------


class HandoffInput(_ReadInput):
    base: str | None = Field(None, description="base commit or ref; default: merge base with upstream, else HEAD~1")
    limit: int = Field(50, ge=1, le=1000, description="most changed files to list (1-1000, default 50)")


class HandoffFile(ToolOutput):
    path: str
    source: Literal["committed", "working-tree", "both"]
    risk_level: Level | None
    missing_neighbors: list[str] = Field(description="files that usually change with this one but did not")
    renamed_from: str | None = Field(None, description="its old path, when this change renamed it")
    old_path_importers: list[str] = Field(
        default_factory=list, description="files whose imports still name the old path of a rename or a deleted file"
    )


class HandoffOutput(ToolOutput):
    redactions: int = Field(0, description="likely secrets replaced by [REDACTED:<kind>] before the answer left")
    base: str | None
    head: str | None
    summary: str
    commits: list[RecentCommit]
    files: list[HandoffFile]
    tests_to_run: list[str]
    verification: Verification
    open_questions: list[str]
    truncated: bool
    freshness: Freshness


# hotspots ---------------------------------------------------------------------------------------


class HotspotsInput(_ReadInput):
    since: str = Field(
        "365d",
        description="how far back to count: a number of days (`90d`), weeks (`12w`), or a date (`2026-01-01`); "
        "default 365d",
    )
    limit: int = Field(20, ge=1, le=500, description="most files to list (1-500, default 20)")
    cursor: str | None = Field(None, description="next_cursor of the previous page")


class Hotspot(ToolOutput):
    path: str
    score: float = Field(description="commits x (1 + log2(1 + fan_in)): how often it changes, weighted by reach")
    commits: int = Field(description="commits that touched it in the window (mass edits of 30+ files excluded)")
    lines_added: int
    lines_deleted: int
    authors: int
    fan_in: int = Field(description="files that import it")
    lines: int | None = Field(description="its current size in lines")
    last_changed_at: str
    former_names: list[str] = Field(
        default_factory=list, description="earlier paths of the file, newest first, whose commits count here too"
    )


class HotspotsOutput(ToolOutput):
    since: str = Field(description="the start of the window, UTC")
    metric: str = Field(description="how files are ranked")
    files: list[Hotspot]
    total: int = Field(
        description="files changed in the window, without changelogs, lockfiles and version files (they change "
        "with everything and say nothing about risk)"
    )
    truncated: bool
    next_cursor: str | None = None
    freshness: Freshness
