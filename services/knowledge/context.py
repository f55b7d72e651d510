"""`knowledge context`: what a task concerns, from the words, paths and names it uses.

Each file collects points: a path the task names (exactly, by file name, or a folder), a symbol
it names (`parse_config`, `RunStore.open`, `parseConfig`), BM25 over each file's path words,
symbol names and docs, and the module documents the words match. The best source files are the
ones to read; tests come from those files' pairs (by name or import) and from tests the words hit.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from services.knowledge import documents
from services.knowledge.models import ContextDecision, ContextFile, ContextModule, ContextOutput
from services.knowledge.reading import STOPWORDS, current, evidence_of, fts_query, is_stale
from services.knowledge.store import ClaimRow, KnowledgeStore

__all__ = ["context"]

CONTEXT_BUDGET = 12 * 1024
READ = 10
TESTS = 10
MODULES = 4
_PATHLIKE = re.compile(r"[\w.@%+-]*[/.][\w./@%+-]*\w")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_CODE = re.compile(r"`([^`]+)`")
_ASSETS = {"other", None}  # images, icons, marker files: read only when the task names them
_COMMON = 0.4  # a word in more than this share of the files (the project's own name) does not rank them


def context(store: KnowledgeStore, root: Path, task: str, *, full: bool) -> ContextOutput:
    claims_all = store.claims()
    here = current(store, root, claims_all)
    score: dict[str, float] = defaultdict(float)
    why: dict[str, list[str]] = defaultdict(list)
    named_symbols: dict[str, list[str]] = defaultdict(list)

    def add(path: str, points: float, reason: str) -> None:
        score[path] += points
        if reason not in why[path]:
            why[path].append(reason)

    _named_paths(store, task, add)
    _named_symbols(store, task, add, named_symbols)
    match = fts_query(task)
    file_match = _distinctive(store, match)
    module_rank: dict[str, float] = {}
    if match and file_match:
        hits = store.search_files(file_match, limit=60)
        best = hits[0].score if hits and hits[0].score < 0 else -1.0
        for hit in hits:
            add(hit.path, 5.0 * (hit.score / best if best else 0.0), "matches the task's words")
        for slug, s in store.search_docs(match, limit=8):
            if not slug.startswith("@"):
                module_rank[slug] = s
    if module_rank:
        best_m = min(module_rank.values()) or -1.0
        boost = {slug: s / best_m for slug, s in module_rank.items()}
        for path in list(score):
            hit = store.file(path)
            if hit is not None and hit.slug in boost:
                score[path] += 1.5 * boost[hit.slug]
    files = {p: store.file(p) for p in score}
    named = {
        p for p, reasons in why.items() if any("named" in r or "name is" in r or "path ends" in r for r in reasons)
    }
    ranked = sorted(
        (p for p in score if files[p] is not None and (p in named or store.file_language(p) not in _ASSETS)),
        key=lambda p: (-score[p], p),
    )
    sources = [p for p in ranked if not files[p].test][:READ]  # type: ignore[union-attr]  # filtered above
    direct_tests = [p for p in ranked if files[p].test]  # type: ignore[union-attr]
    tests = _tests(sources, direct_tests, files, score, store)
    modules = _modules(store, sources, score, module_rank, why, claims_all, here.now)
    own_checks = store.file_checks(sources)
    checks: list[str] = []
    for path in sources:  # the checks of the files the task concerns first, best file first
        for command in own_checks.get(path, []):
            if command not in checks:
                checks.append(command)
    for m in modules:
        doc = store.doc(m.slug)
        for command in doc.data.get("checks", []) if doc else []:
            if command not in checks:
                checks.append(command)
    decisions = _decisions(store, match)
    claims = [c for c in claims_all if c.slug in {m.slug for m in modules}]
    dropped = sum(len(store.dropped(m.slug)) for m in modules)
    out = ContextOutput(
        task=task,
        modules=modules,
        read=[
            ContextFile(path=p, why=why[p][:3], symbols=named_symbols.get(p, [])[:6], checks=own_checks.get(p, []))
            for p in sources
        ],
        tests=tests,
        checks=checks[:8],
        decisions=decisions,
        truncated=False,
        evidence=evidence_of(None, claims, dropped, here.now),
        freshness=here.freshness,
    )
    if not full:
        _fit(out)
    return out


def _distinctive(store: KnowledgeStore, match: str | None) -> str | None:
    """The query without the words most files share, unless nothing else is left."""
    if not match:
        return None
    words = match.split(" OR ")
    total = store.file_count()
    if len(words) < 2 or total < 20:
        return match
    kept = [w for w in words if store.files_matching(w) <= _COMMON * total]
    return " OR ".join(kept) if kept else match


def _named_paths(store: KnowledgeStore, task: str, add) -> None:
    tokens = set(_PATHLIKE.findall(task)) | {t.strip() for t in _CODE.findall(task)}
    for raw in tokens:
        token = raw.strip("`'\"()[]{}<>,;:").removeprefix("./").rstrip("/")
        if len(token) < 3 or (token.startswith(".") and "/" not in token):
            continue
        exact = store.file(token)
        if exact is not None:
            add(token, 12.0, "named in the task")
            continue
        if "/" not in token and "." in token:
            for hit in store.files_named(token, limit=5):
                add(hit.path, 8.0, "its name is in the task")
            continue
        under = store.files_under(token, limit=40)
        for hit in under:
            add(hit.path, 3.0, f"in {token}/, named in the task")
        if not under and "/" in token:
            for hit in store.files_named(token, limit=5):
                add(hit.path, 8.0, "its path ends as the task says")


def _named_symbols(store: KnowledgeStore, task: str, add, named: dict[str, list[str]]) -> None:
    seen: set[str] = set()
    code_words = {w for chunk in _CODE.findall(task) for w in _IDENT.findall(chunk)}
    for ident in [*code_words, *_IDENT.findall(task)]:
        if ident in seen:
            continue
        seen.add(ident)
        last = ident.rsplit(".", 1)[-1]
        explicit = (
            ident in code_words
            or "_" in last.strip("_")
            or "." in ident
            or bool(re.search(r"[a-z][A-Z]", last))
            or (
                last[:1].isupper()
                and any(c.islower() for c in last[1:])
                and len(last) > 3
                and not task.startswith(ident)
            )
        )
        if not explicit and (len(last) < 4 or last.lower() in STOPWORDS):
            continue
        found = store.symbols_named([last])
        if "." in ident:
            qualified = ident.split(".", 1)[-1] if ident.count(".") else ident
            narrowed = [s for s in found if s.qualified.endswith(qualified) or s.qualified == last]
            found = narrowed or found
        if not found:
            continue
        paths = {s.path for s in found}
        if not explicit and len(paths) > 3:
            continue  # a common word that happens to name things all over the repository
        weight = (7.0 if explicit else 2.5) / len(paths)
        for s in found:
            add(s.path, weight, f"defines {s.qualified}")
            label = f"{s.qualified}:{s.start_line}"
            if label not in named[s.path]:
                named[s.path].append(label)


def _is_class_name(last: str, ident: str, task: str) -> bool:
    """`Router` mid-sentence is a name; `Router` opening the task may just be a capitalised word."""
    return last[:1].isupper() and any(c.islower() for c in last[1:]) and len(last) > 3 and not task.startswith(ident)


def _tests(sources, direct_tests, files, score, store) -> list[str]:
    points: dict[str, float] = defaultdict(float)
    for rank, path in enumerate(sources):
        hit = files[path]
        weight = score[path] / (1 + rank * 0.3)
        source_parts = set(path.split("/"))
        stem = path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
        for test in hit.tests:
            closeness = len(source_parts & set(test.split("/"))) + (2 if stem and stem in test.lower() else 0)
            points[test] += weight * (1 + 0.5 * closeness)
    for test in direct_tests:
        points[test] += score[test]
    return [t for t, _ in sorted(points.items(), key=lambda kv: (-kv[1], kv[0]))][:TESTS]


def _modules(store, sources, score, module_rank, why, claims_all, now) -> list[ContextModule]:
    weight: dict[str, float] = defaultdict(float)
    reasons: dict[str, list[str]] = defaultdict(list)
    for path in sources:
        hit = store.file(path)
        if hit is None:
            continue
        weight[hit.slug] += score[path]
        for reason in why[path]:
            label = (
                "a named path"
                if "named" in reason or "name is" in reason or "path ends" in reason
                else ("a named symbol" if reason.startswith("defines") else "search")
            )
            if label not in reasons[hit.slug]:
                reasons[hit.slug].append(label)
    for slug in module_rank:
        weight[slug] += 1.0
        if "search" not in reasons[slug]:
            reasons[slug].append("search")
    by_slug: dict[str, list[ClaimRow]] = defaultdict(list)
    for c in claims_all:
        by_slug[c.slug].append(c)
    out = []
    for slug in sorted(weight, key=lambda s: (-weight[s], s))[:MODULES]:
        doc = store.doc(slug)
        if doc is None or doc.kind != "module":
            continue
        claims = [
            c.text + (" (stale)" if is_stale(c, now) else "") + (" (uncertain)" if c.audit == "uncertain" else "")
            for c in by_slug.get(slug, [])
            if c.section == "Purpose"
        ]
        out.append(
            ContextModule(
                slug=slug,
                path=doc.module_path or ".",
                why=reasons[slug],
                purpose=(doc.data.get("purpose") or "")[:400] or None,
                claims=claims[:4],
            )
        )
    return out


def _decisions(store: KnowledgeStore, match: str | None) -> list[ContextDecision]:
    if not match:
        return []
    rows = store.decisions()
    active: dict[str, int] = {}
    for row in rows:
        if row.superseded_by is None:
            active[row.title.lower()] = active.get(row.title.lower(), 0) + 1
    out = []
    for row, _score in store.search_decisions(match, limit=5):
        status = documents.decision_status(row, active)
        if status == "superseded":
            continue
        out.append(ContextDecision(slug=row.slug, title=row.title, status=status, source=row.source, kind="authored"))
    return out[:3]


def _fit(out: ContextOutput) -> None:
    """Cut the least relevant entries, longest lists first, until the answer is within 12 KB."""
    while len(out.model_dump_json()) > CONTEXT_BUDGET:
        out.truncated = True
        for m in out.modules:
            if m.purpose and len(m.purpose) > 120:
                m.purpose = m.purpose[:120]
                break
        else:
            longest = max((out.read, out.tests, out.checks, out.modules, out.decisions), key=lambda items: len(items))
            if not longest:
                return
            longest.pop()
