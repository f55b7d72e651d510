"""`pallium facts`: the whole content index in one answer, for services that build on all of it.

The knowledge base clusters modules from these facts; it reads them through the dispatcher like
any other caller, so the repo service's tables stay its own. Test pairing follows `risk.tests_for`
(the rules of `testnames`, importers that are tests), computed for every file at once.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import Field

from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.models import ToolInput, ToolOutput
from kernel.tool import Annotations, Route, Tool
from services.repo import freshness, testnames
from services.repo.manifests import Manifests
from services.repo.models import Freshness, Verification
from services.repo.risk import closest, is_test_path
from services.repo.store import RepoStore
from services.repo.verification import verification_for

__all__ = ["TOOLS", "FactsInput", "FactsOutput"]

Section = Literal["files", "symbols", "edges", "external", "references", "resolved", "tests", "commits", "checks"]
_ALL: tuple[Section, ...] = ("files", "symbols", "edges", "external", "references", "tests", "commits")


class FactsInput(ToolInput):
    repo: str | None = Field(None, description="repository path; default: the one holding the current folder")
    sections: list[Section] = Field(
        list(_ALL),
        description="which parts to return (default all but `checks` and `resolved`): files, symbols, edges, "
        "external, references, resolved, tests, commits, checks",
    )
    commit_limit: int = Field(200, ge=0, le=5000, description="newest commits to list with their files (default 200)")
    commit_words: list[str] = Field(
        [], description="also list commits whose subject holds any of these words (case-insensitive), any age"
    )
    checks: list[list[str]] = Field(
        [], description="groups of paths; `checks` answers each group's fast/safe/full verification commands"
    )


class FactFile(ToolOutput):
    path: str
    blob: str | None = Field(description="git blob id of the indexed content; null for skipped files")
    language: str | None
    lines: int
    tracked: bool
    skip_reason: str | None = Field(description="why the index did not parse it (generated, vendored, lockfile...)")
    test: bool = Field(description="the path is a test by name or folder")


class FactSymbol(ToolOutput):
    path: str
    name: str
    kind: str
    qualified: str
    parent: str | None
    signature: str
    start_line: int
    end_line: int
    doc: str | None


class FactEdge(ToolOutput):
    src: str = Field(description="the importing file")
    dst: str = Field(description="the imported file")


class FactImport(ToolOutput):
    path: str
    raw: str = Field(description="the import as written, resolving to no file of the repository")


class FactCommit(ToolOutput):
    sha: str
    author: str
    committed_at: str
    subject: str
    files: list[str]


class FactsOutput(ToolOutput):
    repo: str
    indexed_commit: str | None
    files: list[FactFile]
    symbols: list[FactSymbol]
    edges: list[FactEdge]
    external: list[FactImport]
    referencing_files: dict[str, int] = Field(description="defined name -> distinct files referencing it")
    resolved_referencing: dict[str, int] = Field(
        {}, description="`path#name` of a top-level definition -> other files reaching it through a resolved import"
    )
    tests: dict[str, list[str]] = Field(description="source path -> test files paired by name or by importing it")
    commits: list[FactCommit]
    checks: list[Verification] = Field(description="one per group of `checks`, in order")
    freshness: Freshness


async def facts(inp: FactsInput, ctx: ToolContext) -> FactsOutput:
    root = ctx.repo_root(inp.repo)
    store = ctx.store(RepoStore, root)
    fresh = await asyncio.to_thread(freshness.check, store, root, repo_arg=inp.repo)
    if fresh.status == "missing":
        await ctx.call("pallium_index", {"repo": str(root)})
        fresh = await asyncio.to_thread(freshness.check, store, root, repo_arg=inp.repo)
    out = await asyncio.to_thread(_collect, store, root, inp)
    out.freshness = fresh
    out.indexed_commit = fresh.indexed_commit
    return out


def _collect(store: RepoStore, root: Path, inp: FactsInput) -> FactsOutput:
    wanted = set(inp.sections)
    rows = store.file_facts()
    files = [
        FactFile(
            path=r.path,
            blob=r.hash,
            language=r.language,
            lines=r.lines,
            tracked=r.tracked,
            skip_reason=r.skip_reason,
            test=is_test_path(r.path),
        )
        for r in rows
    ]
    edges = store.all_edges() if wanted & {"edges", "tests"} else []
    out = FactsOutput(
        repo=str(root),
        indexed_commit=None,
        files=files if "files" in wanted else [],
        symbols=[
            FactSymbol(
                path=s.path,
                name=s.name,
                kind=s.kind,
                qualified=s.qualified,
                parent=s.parent,
                signature=s.signature,
                start_line=s.start_line,
                end_line=s.end_line,
                doc=s.doc,
            )
            for s in (store.all_symbols() if "symbols" in wanted else [])
        ],
        edges=[FactEdge(src=a, dst=b) for a, b in edges] if "edges" in wanted else [],
        external=_external(store) if "external" in wanted else [],
        referencing_files=store.referencing_file_counts() if "references" in wanted else {},
        resolved_referencing=_resolved(store) if "resolved" in wanted else {},
        tests=_tests(files, edges) if "tests" in wanted else {},
        commits=[
            FactCommit(
                sha=c.sha, author=c.author, committed_at=iso_utc_epoch(c.committed_at), subject=c.subject, files=f
            )
            for c, f in store.commits_with_files(limit=inp.commit_limit, subject_words=inp.commit_words)
        ]
        if "commits" in wanted
        else [],
        checks=[],
        freshness=freshness.PENDING,
    )
    if "checks" in wanted:
        tests = out.tests or _tests(files, edges or store.all_edges())
        shared = Manifests(root)
        out.checks = [verification_for(root, group, _covering(group, tests), shared) for group in inp.checks]
    return out


def _resolved(store: RepoStore) -> dict[str, int]:
    from services.repo.surface_counts import resolved_referencing

    return resolved_referencing(store)


def _covering(group: list[str], tests: dict[str, list[str]]) -> list[str]:
    """The tests of a group of paths, those pairing with the most of them first; a test in the group covers itself."""
    counts: dict[str, int] = defaultdict(int)
    for path in group:
        if is_test_path(path):
            counts[path] += len(group)
        for test in tests.get(path, []):
            counts[test] += 1
    return sorted(counts, key=lambda t: (-counts[t], t))


def iso_utc_epoch(seconds: int) -> str:
    return iso_utc(datetime.fromtimestamp(seconds, UTC))


def _external(store: RepoStore) -> list[FactImport]:
    """Imports that resolve to no file of the repository: packages, the standard library, or broken."""
    resolved = store.resolved_imports()
    return [
        FactImport(path=path, raw=raw)
        for path, _language, raw, _names in store.all_imports()
        if (path, raw) not in resolved
    ]


def _tests(files: list[FactFile], edges: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Source path -> its tests: test files named after it by its runner's rules (`test_x.py`,
    `x_spec.rb`, `XTest.php`), in its language and project, or importing it."""
    by_subject: dict[str, list[str]] = defaultdict(list)
    for f in files:
        if f.test and (subject := testnames.subject_of(f.path)):
            by_subject[subject].append(f.path)
    roots = testnames.project_roots(f.path for f in files)
    importers: dict[str, set[str]] = defaultdict(set)
    test_paths = {f.path for f in files if f.test}
    for src, dst in edges:
        if src in test_paths:
            importers[dst].add(src)
    out: dict[str, list[str]] = {}
    for f in files:
        if f.test or f.skip_reason:
            continue
        named = {t for t in by_subject.get(testnames.source_stem(f.path), ()) if testnames.pairs_by_name(t, f.path)}
        if named:
            home = testnames.project_of(f.path, roots)
            named = closest({t for t in named if testnames.project_of(t, roots) == home}, f.path)
        found = named | importers.get(f.path, set())
        if found:
            out[f.path] = sorted(found)
    return out


TOOLS = (
    Tool(
        cli="facts",
        handler=facts,
        input=FactsInput,
        output=FactsOutput,
        summary="The whole content index in one answer: files, symbols, import edges, packages, tests, history.",
        description=(
            "Use only when building on the entire index (the knowledge base clusters modules from it). Not for "
            "questions about one file or name: use pallium_explain, pallium_symbols, pallium_callers or "
            "pallium_search, which stay within 8 KB. Unbounded: on a large repository the answer runs to megabytes; "
            "pick `sections` to cut it. Reads the local index (built first when missing); no model calls."
        ),
        authority="observe",
        toolset="facts",
        route=Route(
            phrasings=(
                "give me the whole content index in one answer",
                "dump every file, symbol and import edge of the repo",
                "all the repository facts for an offline analysis",
                "export the index: files, symbols, packages, tests and history",
                "machine-readable facts about the codebase",
            ),
            needs=("git", "index"),
        ),
        annotations=Annotations(read_only=True, destructive=False, idempotent=True, open_world=False),  # index only
        budget=None,
    ),
)
