"""Preflight: scope a task before agents run, through the repository service's front door.

Which files to inspect (the caller's scope, else the working tree's changes, else the best search
hits for the task's words), how risky each is, and the verification commands (fast, safe, full)
unioned over them. Every answer comes from `pallium_changed_now`, `pallium_search` and
`pallium_explain` through the dispatcher, never from the repository service's modules.
"""

from __future__ import annotations

import re
from pathlib import Path

from kernel import git, paths
from kernel.context import ToolContext
from kernel.errors import PalliumError
from services.workflows import generated
from services.workflows.models import PreflightFile, PreflightOutput, PreflightVerification

__all__ = ["MAX_BYTES", "inferred_commands", "preflight"]

MAX_BYTES = 12_000
_RISK_ORDER = {"high": 0, "medium": 1, "low": 2, None: 3}
# Words that describe the work or the code in general, never an area of this repository.
_GENERIC = frozenset(
    [
        "audit",
        "review",
        "check",
        "module",
        "modules",
        "package",
        "code",
        "file",
        "files",
        "folder",
        "function",
        "functions",
        "class",
        "method",
        "bug",
        "bugs",
        "issue",
        "issues",
        "test",
        "tests",
        "change",
        "changes",
        "diff",
        "repo",
        "repository",
        "project",
        "refactor",
        "clean",
        "improve",
        "update",
        "implement",
        "write",
        "read",
        "look",
        "find",
        "explain",
        "security",
        "performance",
    ]
)
_STOPWORDS = re.compile(
    r"(?i)(the|and|for|with|that|this|from|into|make|does|what|when|where|which|why|how|all|any|are|"
    r"was|its|our|your|add|fix|use|get|set|not|but|can|should|would|could|have|has|had|about)"
)


async def preflight(ctx: ToolContext, repo: Path, task: str, *, scopes: list[str], limit: int = 8) -> PreflightOutput:
    """Files to inspect for `task` with their risk, the changed files and the verification commands."""
    notes: list[str] = []
    changed = await ctx.call("pallium_changed_now", {"repo": str(repo), "limit": 50})
    own = generated.untouched(ctx, repo)  # scripts `workflow generate` wrote: not the user's change
    changed_files = [f.path for f in changed.files if f.kind != "deleted" and f.path not in own]
    named = [] if scopes else await named_area(ctx, repo, task, notes)
    if scopes:
        source, candidates = "scope", _scoped(ctx, repo, scopes)
    elif named:
        # the area the task names comes first; its own changed files lead within it
        source = "named"
        candidates = [f for f in changed_files if f in named] + [f for f in named if f not in changed_files]
    elif changed_files:
        source, candidates = "changed", changed_files
    else:
        source, candidates = "search", await _search(ctx, repo, task, limit, notes)
    if not candidates:
        source = "none"
    truncated = len(candidates) > limit
    files: list[PreflightFile] = []
    fast: list[str] = []
    safe: list[str] = []
    full: list[str] = []
    unexplained: list[str] = []
    for number, path in enumerate(candidates[:limit]):
        try:
            # The first call brings the index up to date (incrementally); the others read it as it is.
            arguments = {"repo": str(repo), "path": path, "refresh": number == 0}
            explained = await ctx.call("pallium_explain", arguments)
        except PalliumError as exc:
            files.append(PreflightFile(path=path, risk_level=None, risk_score=None, why=[], tests=[], note=exc.message))
            unexplained.append(path)
            continue
        risk = explained.risk
        files.append(
            PreflightFile(
                path=explained.path,
                risk_level=risk.level,
                risk_score=risk.score,
                why=[f"{r.factor}: {r.detail}" for r in risk.reasons[:3]],
                tests=explained.tests[:5],
            )
        )
        fast += explained.verification.fast
        safe += explained.verification.safe
        full += explained.verification.full
    # A new (untracked) file is not in the index: its folder's and the repository's commands still apply.
    explained_paths = {f.path for f in files if f.risk_level is not None}
    for path, sibling in _siblings(repo, unexplained, explained_paths)[:3]:
        try:
            borrowed = await ctx.call("pallium_explain", {"repo": str(repo), "path": sibling})
        except PalliumError:
            continue
        safe += borrowed.verification.safe
        full += borrowed.verification.full
        notes.append(f"{path} is not indexed yet; its safe and full commands come from {sibling}")
    files.sort(key=lambda f: (_RISK_ORDER.get(f.risk_level, 3), -(f.risk_score or 0), f.path))
    out = PreflightOutput(
        task=task,
        repo=str(repo),
        source=source,
        files=files,
        changed_files=changed_files,
        changed_count=changed.counts.total,
        verification=PreflightVerification(fast=_unique(fast), safe=_unique(safe), full=_unique(full)),
        notes=notes,
        truncated=truncated,
    )
    return _compact(out)


async def named_area(ctx: ToolContext, repo: Path, task: str, notes: list[str]) -> list[str]:
    """The tracked files of the area the task names: paths it mentions, then folders or files named like
    its words (`the auth module` -> `src/auth/...`), then files defining a symbol named like one of them
    (asked of `pallium_search`). Empty when the task names nothing the repository has."""
    tracked = [p for p in git.run(["ls-files", "-z"], repo).decode("utf-8", "replace").split("\0") if p]
    found: list[str] = []
    said: list[str] = []
    for token in re.findall(r"[\w./-]+", task):
        token = token.strip("./")
        if "/" in token or re.search(r"\.[A-Za-z0-9]{1,8}$", token):
            inside = [p for p in tracked if p == token or p.startswith(token + "/")]
            if inside:
                found += inside
                said.append(token)
    words = [w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", task) if _is_naming_word(w)]
    for word in words:
        if any(word.lower() in part.lower() for part in said):
            continue
        inside = [p for p in tracked if _names(p, word)]
        if inside:
            found += inside
            said.append(word)
            continue
        if not _looks_like_code(task, word):
            continue  # a plain word names a folder or file, not a symbol: `main` alone is too common
        try:
            hits = await ctx.call("pallium_search", {"repo": str(repo), "query": word, "limit": 20})
        except PalliumError:
            continue
        defining = [h.path for h in hits.results if h.qualified.rsplit(".", 1)[-1].lower() == word.lower()]
        if defining:
            found += defining
            said.append(word)
    if said:
        notes.append(f"scoped to what the task names: {', '.join(dict.fromkeys(said))}")
    return list(dict.fromkeys(found))


async def inferred_commands(ctx: ToolContext, repo: Path, task: str) -> list[str]:
    """Every verification command the repository service names for the task's files, fast tiers first."""
    plan = (await preflight(ctx, repo, task, scopes=[])).verification
    return _unique(plan.fast + plan.safe + plan.full)


def _looks_like_code(task: str, word: str) -> bool:
    """Whether the task writes `word` as code: snake_case, camelCase, `quoted`, or called `word()`."""
    if "_" in word.strip("_") or re.search(r"[a-z][A-Z]", word):
        return True
    return re.search(rf"`{re.escape(word)}`|\b{re.escape(word)}\(\)", task) is not None


def _is_naming_word(word: str) -> bool:
    return not _STOPWORDS.fullmatch(word) and word.lower() not in _GENERIC


def _names(path: str, word: str) -> bool:
    """Whether a folder on the path, or the file's own name without its suffix, is `word` (any case,
    `_`/`-` ignored, and a plain plural: `tests` names `test`)."""

    def norm(text: str) -> str:
        return re.sub(r"[_-]", "", text.lower())

    wanted = norm(word)
    parts = path.split("/")
    stems = [*parts[:-1], parts[-1].split(".", 1)[0]]
    return any(norm(part) in (wanted, wanted + "s") or norm(part) + "s" == wanted for part in stems)


def _scoped(ctx: ToolContext, repo: Path, scopes: list[str]) -> list[str]:
    """Repository-relative files for the given scopes: a file itself, a folder's tracked files."""
    found: list[str] = []
    for scope in scopes:
        target = paths.confine(repo, scope, base=ctx.cwd)
        relative = target.relative_to(repo).as_posix() if target != repo else "."
        if target.is_dir():
            listed = git.run(["ls-files", "-z", "--", relative], repo).decode("utf-8", "replace")
            found += [p for p in listed.split("\0") if p]
        elif target.exists():
            found.append(relative)
        else:
            raise PalliumError(
                "not_found",
                f"no file or folder {scope!r} in the repository",
                details={"field": "scope"},
                hint="pass `scope` (CLI `--scope`) as a path in the repository; list them with `git ls-files`",
            )
    return list(dict.fromkeys(found))


def _siblings(repo: Path, unexplained: list[str], explained: set[str]) -> list[tuple[str, str]]:
    """For each file the index does not know, a tracked file of the same kind in its folder (or above)."""
    pairs: list[tuple[str, str]] = []
    for path in unexplained:
        folder, suffix = Path(path).parent, Path(path).suffix
        while True:
            listed = git.run(["ls-files", "-z", "--", folder.as_posix()], repo).decode("utf-8", "replace")
            same = [p for p in listed.split("\0") if p and p.endswith(suffix) and p != path]
            if same:
                pairs.append((path, next((p for p in same if p in explained), same[0])))
                break
            if folder == folder.parent:
                break
            folder = folder.parent
    return pairs


async def _search(ctx: ToolContext, repo: Path, task: str, limit: int, notes: list[str]) -> list[str]:
    words = [w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", task) if not _STOPWORDS.fullmatch(w)]
    if not words:
        notes.append("nothing changed and the task has no word to search for")
        return []
    try:
        hits = await ctx.call("pallium_search", {"repo": str(repo), "query": " ".join(words), "limit": limit * 2})
    except PalliumError as exc:
        notes.append(f"search failed: {exc.message}")
        return []
    if not hits.results:
        notes.append(f"nothing changed and no code matches {' '.join(words)!r}")
    return list(dict.fromkeys(hit.path for hit in hits.results))


def _compact(out: PreflightOutput) -> PreflightOutput:
    """Drop the least risky files (saying so) until the answer fits in MAX_BYTES."""
    out.files_to_inspect = [f.path for f in out.files]
    while len(out.model_dump_json()) > MAX_BYTES and len(out.files) > 1:
        out.files.pop()
        out.files_to_inspect.pop()
        out.truncated = True
    if len(out.model_dump_json()) > MAX_BYTES:
        out.changed_files = out.changed_files[:10]
        out.truncated = True
    return out


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
