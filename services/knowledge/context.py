"""`knowledge context`: what a task concerns, from the words, paths and names it uses.

Each file collects points: a path the task names (exactly, by file name, or a folder), a symbol
it names (`parse_config`, `RunStore.open`, `parseConfig`), BM25 over each file's path words,
symbol names and docs, and the module documents the words match. The best source files are the
ones to read; tests come from those files' pairs (by name or import) and from tests the words hit.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from pathlib import Path

from services.knowledge import documents
from services.knowledge.documents import is_peripheral
from services.knowledge.freshness import current, is_stale
from services.knowledge.models import ContextDecision, ContextFile, ContextModule, ContextOutput
from services.knowledge.reading import STOPWORDS, doc_query, evidence_of, fts_query
from services.knowledge.rows import ClaimRow
from services.knowledge.store import KnowledgeStore

__all__ = ["context"]

CONTEXT_BUDGET = 12 * 1024
_BOILERPLATE = ("LICENSE", "LICENCE", "COPYING", "CHANGELOG", "CHANGES", "NOTICE", "AUTHORS")
_FIXTURE_FOLDERS = {"__fixtures__", "testdata", "__snapshots__", "snapshots", "__mocks__"}
READ = 10
PER_MODULE = 3
TESTS = 10
MODULES = 4
_PATHLIKE = re.compile(r"[\w.@%+-]*[/.][\w./@%+-]*\w")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_CODE = re.compile(r"`([^`]+)`")
# Images, icons, marker files and configuration: read only when the task names them.
_WORD_ONLY_SKIP = {"other", None, "config"}
# A plain word naming a heading, a make target or a key is no lead to code.
_NOT_CODE = {"other", "text", "config", "markdown", None}
_TEXT_KINDS = {"heading", "section", "target", "key"}
_TYPE_KINDS = {"class", "interface", "type", "struct", "enum", "trait"}
_LITERALS = {"true", "false", "none", "null", "nil", "undefined"}
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
    words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9_-]{2,}", task)} - STOPWORDS
    if match and file_match:
        hits = store.search_files(file_match, limit=200)
        best = hits[0].score if hits and hits[0].score < 0 else -1.0
        folders = {h.path: _folder_named(h.path, words) for h in hits}
        spread: dict[str, set[str]] = defaultdict(set)  # folder name -> the folders of that name hit
        for folder in filter(None, folders.values()):
            spread[folder.rsplit("/", 1)[-1].lower()].add(folder)
        for hit in hits:
            # Code the repository leans on (imported by many files, in a module others import) is
            # what the words more likely mean than a small fixture repeating them.
            prior = min(3.0, 1.0 + 0.25 * math.log2(1 + hit.importers) + 0.3 * math.log2(1 + hit.reach))
            folder = folders[hit.path]
            if folder and (len(spread[folder.rsplit("/", 1)[-1].lower()]) > 2 or is_peripheral(folder)):
                folder = None  # a name many folders share (`modules`), or a folder of examples
            if folder:  # `MySQL` in the task, `dialects/mysql/` in the path
                prior *= 1.6
            if is_peripheral(hit.path):
                prior *= 0.4  # examples, playgrounds, fixtures and docs: read when named, not for words
            add(
                hit.path,
                5.0 * prior * (hit.score / best if best else 0.0),
                f"in {folder}/, a folder the task mentions" if folder else "matches the task's words",
            )
        docs_q = doc_query(store, task)
        for slug, s in store.search_docs(docs_q.match if docs_q else match, limit=8):
            if not slug.startswith("@"):
                module_rank[slug] = s
    files = store.files_at(list(score))  # one query for every scored path, not one each
    if module_rank:
        best_m = min(module_rank.values()) or -1.0
        boost = {slug: s / best_m for slug, s in module_rank.items()}
        for path in list(score):
            hit = files.get(path)
            if hit is not None and hit.slug in boost:
                score[path] += 1.5 * boost[hit.slug]
    named = {
        p for p, reasons in why.items() if any("named" in r or "name is" in r or "path ends" in r for r in reasons)
    }
    ranked = sorted(
        (p for p in score if p in files and (p in named or not _word_only_skip(p, files[p].language))),
        key=lambda p: (-score[p], p),
    )
    sources = _diverse([p for p in ranked if not files[p].test], files, named)
    direct_tests = [p for p in ranked if files[p].test]
    tests = _tests(sources, direct_tests, files, score, store, _task_stems(task, named_symbols), words)
    modules = _modules(store, sources, files, score, module_rank, why, claims_all, here.now)
    own_checks = store.file_checks(sources)
    test_checks = store.file_checks(tests[:3])
    checks: list[str] = []
    # The best tests' own commands, then the files' own checks, best file first, then the modules'.
    for command in [c for t in tests[:3] for c in test_checks.get(t, [])[:1]] + [
        c for p in sources for c in own_checks.get(p, [])
    ]:
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


def _word_only_skip(path: str, language: str | None) -> bool:
    """Assets, configuration and the licence or changelog: read when the task names them, not for its words."""
    return language in _WORD_ONLY_SKIP or path.rsplit("/", 1)[-1].upper().startswith(_BOILERPLATE)


def _folder_named(path: str, words: set[str]) -> str | None:
    """The folder on `path` whose name is a word of the task, if any (`lib/sqlalchemy/dialects/mysql`)."""
    parts = path.split("/")[:-1]
    for i in range(len(parts) - 1, -1, -1):
        if parts[i].lower() in words:
            return "/".join(parts[: i + 1])
    return None


def _diverse(ranked: list[str], files: dict, named: set[str]) -> list[str]:
    """The best files to read, at most three from one module unless the task names them, so one
    folder of fixtures repeating the task's words cannot fill the list."""
    out: list[str] = []
    per: dict[str, int] = defaultdict(int)
    for path in ranked:
        slug = files[path].slug
        if path in named or per[slug] < PER_MODULE:
            out.append(path)
            per[slug] += 1
        if len(out) >= READ:
            break
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
        if last.lower() in _LITERALS and ident not in code_words:
            continue  # `native_enum=False`: a value, not the `false()` some library defines
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
        found = store.symbols_named([last], limit=400 if "." in ident else 20)
        if "." in ident:
            found = _narrowed(found, ident.split("."))
        if not explicit and task.startswith(ident) and last[:1].isupper() and len(last) > 3:
            # A capitalised first word is a name when it names a class or type (`Enum type with ...`).
            classes = [s for s in found if s.kind in _TYPE_KINDS]
            if classes:
                found, explicit = classes, True
        if not explicit:
            found = [s for s in found if s.kind not in _TEXT_KINDS and store.file_language(s.path) not in _NOT_CODE]
            if found and store.files_matching(f'{{path_terms}} : "{last.lower()}"'):
                # A plain word some folder or file is named for (`build`): its namesakes count only in
                # such files (`build()` in build.ts), not a method of that name elsewhere.
                found = [s for s in found if last.lower() in s.path.lower()]
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


def _narrowed(found: list, parts: list[str]) -> list:
    """`Session.merge` means the `merge` of `Session`, not every `merge`: the longest tail of the
    dotted name that some definition's qualified name ends with (`pkg.mod.Class.method` too)."""
    for k in range(len(parts), 1, -1):
        tail = ".".join(parts[-k:])
        hits = [s for s in found if s.qualified == tail or s.qualified.endswith("." + tail)]
        if hits:
            return hits
    return found[:20]


def _is_class_name(last: str, ident: str, task: str) -> bool:
    """`Router` mid-sentence is a name; `Router` opening the task may just be a capitalised word."""
    return last[:1].isupper() and any(c.islower() for c in last[1:]) and len(last) > 3 and not task.startswith(ident)


def _task_stems(task: str, named: dict[str, list[str]]) -> list[str]:
    """Words a test file could be named after: the names the task gives, then its other long words."""
    out: list[str] = []
    for labels in named.values():
        for label in labels:
            for part in label.split(":", 1)[0].split("."):
                if len(part) > 3 and part.lower() not in out:
                    out.append(part.lower())
    for word in re.findall(r"[A-Za-z][A-Za-z0-9_]{2,}", task):
        if word.lower() not in STOPWORDS and word.lower() not in out:
            out.append(word.lower())
    return out[:12]


def _tests(sources, direct_tests, files, score, store, stems: list[str], words: set[str]) -> list[str]:
    """Tests paired with the files to read (closest first), tests the words hit, and tests named after
    what the task names (`test_merge.py` for a task about `Session.merge`)."""
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
    best = max(points.values(), default=5.0)
    by_stem: dict[str, list[str]] = defaultdict(list)
    if stems:
        for test in store.test_paths():
            by_stem[_test_stem(test)].append(test)
    for stem in stems:
        named = sorted(by_stem.get(stem, []), key=lambda t: (len(t), t))[:4]
        for test in named:
            points[test] += 0.8 * best / len(named)
    for test in points:
        if _folder_named(test, words):  # `test/dialect/mysql/` for a task about MySQL
            points[test] *= 1.5
    ranked = [t for t, _ in sorted(points.items(), key=lambda kv: (-kv[1], kv[0])) if not _is_fixture(t)]
    return ranked[:TESTS]


def _is_fixture(path: str) -> bool:
    """A file under a test folder that only supports tests (`__tests__/fixtures/a.ts`): nothing to run."""
    return any(part.startswith("fixture") or part in _FIXTURE_FOLDERS for part in path.lower().split("/")[:-1])


def _test_stem(test: str) -> str:
    """`test/orm/test_merge.py`, `merge_test.go`, `merge.spec.ts`, `MergeTest.java` -> `merge`."""
    name = test.rsplit("/", 1)[-1].split(".", 1)[0].lower()
    if name.startswith("test_"):
        return name[5:]
    for suffix in ("_test", "_spec", "test"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)].rstrip("_")
    return name


def _modules(store, sources, files, score, module_rank, why, claims_all, now) -> list[ContextModule]:
    weight: dict[str, float] = defaultdict(float)
    reasons: dict[str, list[str]] = defaultdict(list)
    for path in sources:
        hit = files.get(path)
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
