"""`explain` and `handoff`: the context an agent wants before editing a file or passing work on.

Both are assembled from the other lookups (symbols, neighbours, risk, tests, verification) in
full; the dispatcher cuts the finished answer to the tool's byte budget (services/repo/trim.py).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from kernel import clock, git
from kernel.errors import PalliumError
from kernel.paths import path_text
from services.repo import history, queries, risk
from services.repo.models import (
    CoChange,
    ExplainOutput,
    FileHistory,
    Freshness,
    HandoffFile,
    HandoffOutput,
    RecentCommit,
    RiskOutput,
    StructuralLink,
    Verification,
)
from services.repo.rows import CommitRow, FileRow
from services.repo.store import RepoStore
from services.repo.verification import verification_for

__all__ = ["explain", "explain_gone", "handoff", "risk_output"]

_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's id of the empty tree: a root commit's base


def risk_output(
    store: RepoStore,
    relative: str,
    row: FileRow | None,
    *,
    now: datetime,
    freshness: Freshness,
    pairs: list[CoChange] | None = None,
) -> RiskOutput:
    """The file's risk answer; `pairs`, its co-change partners if the caller holds them (read once)."""
    info = store.content_info(row.hash) if row is not None and row.hash else None
    language, lines = (row.language if row else None), (info.lines if info else None)
    result = risk.score_risk(store, relative, now=now, language=language, lines=lines, pairs=pairs)
    return RiskOutput(
        path=relative,
        score=result.score,
        level=result.level,
        inferred=result.inferred,
        reasons=result.reasons,
        freshness=freshness,
    )


def explain(
    store: RepoStore,
    root: Path,
    relative: str,
    row: FileRow,
    *,
    now: datetime,
    freshness: Freshness,
    recent_limit: int = 10,
) -> ExplainOutput:
    info = store.content_info(row.hash) if row.hash else None
    symbols = [queries.to_symbol(s) for s in store.symbols_in(relative)]
    # One shared commit says little (an initial import touches everything); pallium_neighbors lists all.
    _revisions, cochange = risk.cochange(store, relative, min_shared=2)
    tests = risk.tests_for(store, relative)
    risk_out = risk_output(store, relative, row, now=now, freshness=freshness, pairs=cochange)
    recent = [_commit(c) for c in store.recent_commits(relative, limit=recent_limit)]
    decisions = [_commit(c) for c in store.decisions_touching(relative, limit=5)]
    evidence = ["repo-structure"]
    if recent:
        evidence.insert(0, "git-history")
    if tests:
        evidence.append("test-inference")
    evidence.append("repo-config")
    kinds: dict[str, int] = {}
    for s in symbols:
        kinds[s.kind] = kinds.get(s.kind, 0) + 1
    declared = ", ".join(
        f"{n} {k}{'es' if k.endswith('s') and n != 1 else 's' if n != 1 else ''}" for k, n in kinds.items()
    )
    summary = (
        f"{relative}: {row.language or 'unknown language'}, {info.lines if info else '?'} lines"
        + (f"; declares {declared}" if declared else "")
        + f"; risk {risk_out.level} ({risk_out.score:g})"
        + (f"; {len(tests)} test file(s)" if tests else "; no paired tests")
    )
    earlier = history.earlier_file(store, relative)
    if earlier is not None:  # its history is not this file's: say so, or the old commits look missing
        left = f"renamed to {earlier.new}" if earlier.new else "deleted"
        summary += f"; earlier file of this name {left} in {earlier.commit.sha[:12]}"
    out = ExplainOutput(
        path=relative,
        language=row.language,
        status=queries.file_status(store, row),
        lines=info.lines if info else None,
        summary=summary,
        symbols=symbols,
        imports=[raw for raw, _line in store.raw_imports_of(relative)],
        structural=risk.structural_links(store, relative),
        cochange=cochange[:20],
        tests=tests,
        recent_commits=recent,
        history=history.file_history(store, relative, present=True),
        decisions=decisions,
        risk=risk_out,
        verification=verification_for(root, [relative], tests),
        evidence=evidence,
        truncated=len(cochange) > 20,
        freshness=freshness,
    )
    return out  # the dispatcher cuts it to the tool's budget (services/repo/trim.py) unless `full`


def explain_gone(
    store: RepoStore,
    root: Path,
    relative: str,
    *,
    freshness: Freshness,
    now: datetime | None = None,
    recent_limit: int = 10,
) -> ExplainOutput | None:
    """The answer for a path no longer in the tree that history knows: its commits, the commit that
    deleted or renamed it and its new name, and the files still importing it. None when no commit
    ever touched it."""
    if not store.touches_of(relative):
        return None
    gone: FileHistory = history.file_history(store, relative, present=False)
    recent = [_commit(c) for c in store.recent_commits(relative, limit=recent_limit)]
    where = f"renamed to {gone.renamed_to}" if gone.state == "renamed" else "deleted"
    when = f" in {gone.removed_in.sha[:12]} ({gone.removed_in.subject})" if gone.removed_in else ""
    importers = history.old_path_importers(store, root, relative)
    summary = f"{relative}: no longer in the tree, {where}{when}; {gone.commits} commit(s) touched it" + (
        f"; {len(importers)} file(s) still import it" if importers else ""
    )
    # Its history still says how risky the path was (churn, authors, co-change) for whoever brings it back.
    risk_out = (
        risk_output(store, relative, None, now=now, freshness=freshness)
        if now is not None
        else RiskOutput(path=relative, score=0, level="low", inferred=True, reasons=[], freshness=freshness)
    )
    return ExplainOutput(
        path=relative,
        language=None,
        status=gone.state,
        lines=None,
        summary=summary,
        symbols=[],
        imports=[],
        structural=[StructuralLink(path=p, kind="imported-by") for p in importers],
        cochange=[],
        tests=[],
        recent_commits=recent,
        history=gone,
        decisions=[_commit(c) for c in store.decisions_touching(relative, limit=5)],
        risk=risk_out,
        verification=Verification(fast=[], safe=[], full=[]),
        evidence=["git-history"],
        truncated=False,
        freshness=freshness,
    )


def handoff(
    store: RepoStore, root: Path, base: str | None, *, now: datetime, limit: int, freshness: Freshness
) -> HandoffOutput:
    head = freshness.current_commit
    base_commit = _base(root, base, head)
    committed: set[str] = set()
    commits: list[RecentCommit] = []
    on_disk: dict[str, str] = {}  # shown path -> filesystem name; they differ for non-UTF-8 names
    if head:
        out = git.run(["diff", "--name-only", "--no-renames", "-z", base_commit or _EMPTY_TREE, head], root)
        on_disk.update((path_text(p), p.decode("utf-8", "surrogateescape")) for p in out.split(b"\0") if p)
        committed = set(on_disk)
        span = f"{base_commit}..{head}" if base_commit else head
        log = git.run(["log", "--no-merges", "-n", "30", "--format=%H%x1f%ct%x1f%aN%x1f%s", span], root)
        for line in log.decode("utf-8", "replace").splitlines():
            sha, when, author, subject = line.split("\x1f", 3)
            commits.append(RecentCommit(sha=sha, committed_at=_iso(int(when)), author=author, subject=subject))
    status = git.status(root).entries
    on_disk.update((path_text(e.path), e.path) for e in status)
    working = {path_text(e.path) for e in status}
    renamed_from = {path_text(e.path): path_text(e.orig_path) for e in status if e.orig_path}
    if head:  # renames committed since the base
        moved = git.run(["diff", "--name-status", "-M", "-z", base_commit or _EMPTY_TREE, head], root, check=False)
        tokens = [t for t in moved.split(b"\0") if t]
        i = 0
        while i < len(tokens):
            letter = tokens[i][:1]
            if letter in (b"R", b"C") and i + 2 < len(tokens):
                renamed_from.setdefault(path_text(tokens[i + 2]), path_text(tokens[i + 1]))
                i += 3
            else:
                i += 2
    olds = set(renamed_from.values())
    changed = sorted((committed | working) - olds)

    def exists(path: str) -> bool:
        return (root / on_disk.get(path, path)).exists()

    files: list[HandoffFile] = []
    tests: set[str] = set()
    questions: list[str] = []
    for path in changed:
        scored = history.scored_path(store, path, renamed_from.get(path))  # a rename: its old history
        row = store.file(scored)
        _revs, pairs = risk.cochange(store, scored, min_shared=2)
        level = (
            risk_output(store, scored, row, now=now, freshness=freshness, pairs=pairs).level if exists(path) else None
        )
        usual = [p.path for p in pairs if p.confidence >= 0.5 and (root / p.path).exists()]
        missing = [p for p in usual if p not in changed][:5]
        if missing:
            questions.append(f"{path} changed without {', '.join(missing)}, which usually change with it")
        tests.update(risk.tests_for(store, path))
        if risk.is_test_path(path) and exists(path):
            tests.add(path)
        source = (
            "both" if path in committed and path in working else "committed" if path in committed else "working-tree"
        )
        old = renamed_from.get(path)
        gone = old if old is not None else (path if not exists(path) else None)
        olds = [gone, *history.former_names(store, scored if old else gone)] if gone else []
        stale = [p for p in history.old_path_importers(store, root, olds) if p not in changed] if olds else []
        if stale:
            what = f"renamed from {old}" if old else "deleted"
            questions.append(f"{path} was {what}, but {', '.join(stale[:5])} still import(s) the old path")
        files.append(
            HandoffFile(
                path=path,
                source=source,
                risk_level=level,
                missing_neighbors=missing,
                renamed_from=old,
                old_path_importers=stale[:20],
            )
        )
    files.sort(key=lambda f: ({"high": 0, "medium": 1, "low": 2, None: 3}[f.risk_level], f.path))
    high = sum(f.risk_level == "high" for f in files)
    summary = (
        f"{len(changed)} changed file(s) since {base_commit[:12] if base_commit else 'the first commit'}"
        f" ({len(commits)} commit(s), {len(working)} in the working tree)"
        + (f"; {high} high-risk" if high else "")
        + (f"; {len(questions)} open question(s)" if questions else "")
    )
    return HandoffOutput(
        base=base_commit,
        head=head,
        summary=summary,
        commits=commits[:10],
        files=files[:limit],
        tests_to_run=sorted(tests),
        verification=verification_for(root, changed, sorted(tests)),
        open_questions=questions[:20],
        truncated=len(files) > limit or len(commits) > 10,
        freshness=freshness,
    )


def _base(root: Path, base: str | None, head: str | None) -> str | None:
    if head is None:
        return None
    if base:
        try:
            return git.run(["rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"], root).decode().strip()
        except PalliumError as exc:
            raise PalliumError(
                "not_found",
                f"base {base!r} names no commit",
                hint="pass `base` as a commit or ref (CLI positional BASE); list them with `git log --oneline`",
                details={"field": "base", "base": base},
            ) from exc
    # With an upstream, what is already pushed is not handed off: the merge base even when it is
    # HEAD itself (a fresh clone: an empty range, plus the working tree).
    upstream = git.run(["merge-base", "HEAD", "@{upstream}"], root, check=False).decode().strip()
    if upstream:
        return upstream
    parent = git.run(["rev-parse", "--verify", "--quiet", "HEAD~1^{commit}"], root, check=False).decode().strip()
    return parent or None


def _commit(c: CommitRow) -> RecentCommit:
    return RecentCommit(sha=c.sha, committed_at=_iso(c.committed_at), author=c.author, subject=c.subject)


def _iso(epoch: int) -> str:
    return clock.iso_utc(datetime.fromtimestamp(epoch, UTC))
