"""`knowledge context`: what a task concerns, from the words, paths and names it uses.

Each file collects points: a path the task names (exactly, by file name, or a folder), a symbol
it names (`parse_config`, `RunStore.open`, `parseConfig`), BM25 over each file's path words,
symbol names and docs, and the module documents the words match; then what owns the change
weighs in: the definitions of names the task spells as code lead files sharing only its words,
co-change from the index's history ties files and tests to those, a look-alike of the file holding
the task's phrase steps back. The best source files are the ones to read; `context_tests` picks
the tests to run from them.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from kernel.generated import generated_by_name
from services.knowledge import cochange as _cochange
from services.knowledge import context_follow as _follow
from services.knowledge import context_names as _names
from services.knowledge import context_stubs as _stubs
from services.knowledge import copies as _copies
from services.knowledge import documents
from services.knowledge import uses as _uses
from services.knowledge.context_names import CODE, IDENT, PATHLIKE
from services.knowledge.context_tests import (
    TEST_NAME,
    choose_tests,
    in_tests,
    is_fixture,
    runnable_test,
    stem_of,
    task_stems,
)
from services.knowledge.documents import is_peripheral
from services.knowledge.freshness import current, is_stale
from services.knowledge.models import ContextDecision, ContextFile, ContextModule, ContextOutput
from services.knowledge.reading import STOPWORDS, doc_query, evidence_of, fts_query
from services.knowledge.rows import ClaimRow
from services.knowledge.store import KnowledgeStore
from services.knowledge.task_words import (
    carrying_words,
    compound_parts,
    compound_phrases,
    file_stem,
    prefixes,
    stems,
)

__all__ = ["context"]

CONTEXT_BUDGET = 12 * 1024
_BOILERPLATE = ("LICENSE", "LICENCE", "COPYING", "CHANGELOG", "CHANGES", "NOTICE", "AUTHORS")
READ = 10
PER_MODULE = 3
MODULES = 4
# Images, icons, marker files and configuration: read only when the task names them.
_WORD_ONLY_SKIP = {"other", None, "config"}
_COMMON = 0.4  # a word in more than this share of the files (the project's own name) does not rank them
_FOLDER_COMMON = 0.15  # a folder named by a word this common (`proxy` in mitmproxy) is no lead
# Files that change together with the ones the task resolves to: `{anchor: [(path, shared, confidence)]}`.
CoChangeReader = Callable[[list[str]], dict[str, list[tuple[str, int, float]]]]
ANCHORS = 2  # the files co-change is read for
_CO_SHARED = 3  # fewer shared commits (the first one, say) are no pattern yet
_CO_CONFIDENCE = 0.2  # P(other changes | anchor changes) below this is what every commit touches
_TAIL = 0.4  # a file scoring under this share of the best is not worth reading unless named
_WORDS_ONLY_SHARE = 0.55  # a words-only file's points when the task spells code the index defines
_COMPOUND_SPELLED = "a compound of the task's words spells its name"  # `Content-Type`: `content_type.go`
_WORD_REASONS = {"matches the task's words", "the task's phrase is in it", _COMPOUND_SPELLED}
_LOOK_ALIKE = 0.5  # a sibling of a phrase's file, named alike but without the phrase
_TEST_SUPPORT = {"testing", "test_utils", "testutils", "pytest_plugin", "testclient", "test_client"}
_TEST_SUPPORT_SHARE = 0.5
_WRAPPER_SHARE = 0.4  # a definer importing another definer of the same name wraps it
_COPY_SHARE = 0.2  # a file in a frozen copy of its package, for a task not naming the copy
_TESTING_TASK = re.compile(r"\b(?:tests?|testing|tested|pytest|fixtures?|mocks?|runner|harness)\b", re.I)
_ENTRY_STEMS = ("cli", "main", "__main__", "_main", "console")
_COMMAND_LINE = re.compile(r"\b(?:command[- ]line|cli|commandline)\b", re.I)


def context(
    store: KnowledgeStore,
    root: Path,
    task: str,
    *,
    full: bool,
    references: dict[str, list[tuple[str, str]]] | None = None,
    cochange: CoChangeReader | None = None,
) -> ContextOutput:
    claims_all = store.claims()
    here = current(store, root, claims_all)
    score: dict[str, float] = defaultdict(float)
    why: dict[str, list[str]] = defaultdict(list)
    named_symbols: dict[str, list[str]] = defaultdict(list)
    spelled: set[str] = set()  # files defining a name the task spells as code

    def add(path: str, points: float, reason: str) -> None:
        score[path] += points
        if reason not in why[path]:
            why[path].append(reason)

    repo_words = _repo_words(root)
    carrying = carrying_words(task, STOPWORDS, repo_words)
    unindexed = _named_paths(store, task, add, root)
    phrase_words = _found_phrase_words(store, task, carrying)
    spans: dict[str, list[tuple[str, int, int]]] = defaultdict(list)  # where each named definition is
    descriptive: set[str] = set()  # plain words naming only a sibling of a type the task names
    _names.named_symbols(store, task, add, named_symbols, phrase_words, spelled, spans, descriptive)
    _entry_points(store, task, add)
    words = _distinctive_words(store, carrying)
    compounds: dict[str, float] = defaultdict(float)  # points a quoted compound gave by spelling a file's name
    _named_by_stem(store, task, [w for w in carrying if w not in descriptive], words, add, compounds)
    _referencing(references or {}, set(carrying), add)
    match = _carrying_query(fts_query(task), carrying, task, descriptive)
    file_match = _distinctive(store, match)
    module_rank: dict[str, float] = {}
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
                5.0 * prior * (hit.score / best if best else 0.0) ** 2,  # squared: the best matches stand out
                f"in {folder}/, a folder the task mentions" if folder else "matches the task's words",
            )
        _phrases(store, task, carrying, add)
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
    spelled = {p for p in spelled if p in files and not files[p].test}
    state = store.state()
    tables = set(_json_list(state.get("data_tables")))
    imports = _uses.decode_imports(state.get("imports"))
    if spelled:
        # The task spells the code it is about (`Cookies.set`, `click.echo`) and the index knows where
        # it is defined: the files it names and uses lead; a file only sharing the task's words follows.
        used = {u for p in spelled for u in imports.get(p, [])}
        for path, reasons in why.items():
            if _COMPOUND_SPELLED in reasons and path in used:
                continue  # `Permissions-Policy`: the directives `secureHeaders` imports, part of the change
            if all(r in _WORD_REASONS for r in reasons):
                # a header the task quotes (`Content-Type`) names no file beside the code it spells
                score[path] = (score[path] - compounds.get(path, 0.0)) * _WORDS_ONLY_SHARE
    named |= spelled
    alike = _look_alikes(score, why, files)
    _test_support_steps_back(score, files, named, task)
    _wrappers_step_back(spans, imports, score, named)
    for path in _copies.in_copies(store, list(score), imports, task):
        score[path] *= _COPY_SHARE  # `pydantic/v1/networks.py` for a change to `pydantic/networks.py`
        named.discard(path)
        spelled.discard(path)
    if cochange is None:
        known = _cochange.decode(state.get("cochange"))
        cochange = lambda paths: {p: known.get(p, []) for p in paths}  # noqa: E731

    def written(path: str) -> bool:  # by a person: not a data table or a generator's output, unless named
        return path in named or not (path in tables or generated_by_name(path))

    anchors = _anchors(score, {p: f for p, f in files.items() if written(p)}, named, spelled)
    if anchors:
        _follow.used_by_definitions(store, root, anchors, spans, carrying, imports, files, score, add, written, task)
        before = {p: score[p] for p in alike}
        _co_changed(cochange(anchors), anchors, score, files, add, words_only_lead=not spelled, why=why)
        for path, points in before.items():  # a family changes together: no evidence for this change
            score[path] = points
        _follow.user_follows(store, root, references or {}, spans, anchors, imports, files, score, add, written)
        _follow.key_readers(store, root, spans, spelled, files, score, add, written)
        files.update(store.files_at([p for p in score if p not in files]))
    ranked = sorted(
        (p for p in score if p in files and written(p) and (p in named or not _word_only_skip(p, files[p].language))),
        key=lambda p: (-score[p], p),
    )
    sources = _diverse([p for p in ranked if not files[p].test], files, named)
    if sources:  # the long tail of one-word matches is noise an agent would read for nothing
        floor = _TAIL * score[sources[0]]
        sources = [p for p in sources if p in named or score[p] >= floor]
    declared = {p: {q.rsplit(".", 1)[-1] for q, _s, _e in spans.get(p, [])} for p in sources if p in spelled}
    sources = _stubs.stubs_follow(store, sources, files, why, declared, types_task=_stubs.is_types_task(task))[:READ]
    direct_tests = [p for p in ranked if files[p].test and runnable_test(p, files[p].language)]
    defined = [label.split(":", 1)[0].rsplit(".", 1)[-1] for p in sources for label in named_symbols.get(p, [])]
    tests = choose_tests(
        sources,
        direct_tests,
        files,
        score,
        store,
        [w for w in task_stems(task, named_symbols) if w.rstrip("s") not in descriptive],
        lambda t: _folder_named(t, words),
        defined,
        {p: [label.split(":", 1)[0].rsplit(".", 1)[-1] for label in named_symbols.get(p, [])] for p in sources},
        words=frozenset(w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", task.replace("_", " "))),
        root=root,
    )
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
    suite: list[str] = []
    for m in modules:
        doc = store.doc(m.slug)
        for command in doc.data.get("checks", []) if doc else []:
            if command not in checks:
                checks.append(command)
        # the whole-suite command the repository's own rules name (`uv run tox`), not a generic one
        suite += [
            c
            for c in (doc.data.get("full_checks", []) if doc else [])[:1]
            if c not in suite and not c.startswith("python -m pytest")
        ]
    checks = checks[: 8 - min(1, len(suite))] + [c for c in suite[:1] if c not in checks]
    decisions = _decisions(store, match)
    claims = [c for c in claims_all if c.slug in {m.slug for m in modules}]
    dropped = sum(len(store.dropped(m.slug)) for m in modules)
    out = ContextOutput(
        task=task,
        modules=modules,
        read=[
            ContextFile(
                path=p,
                why=["named in the task; not indexed (vendored, generated, minified or a lockfile)"],
                symbols=[],
                checks=[],
            )
            for p in unindexed
        ]
        + [
            ContextFile(path=p, why=why[p][:3], symbols=named_symbols.get(p, [])[:6], checks=own_checks.get(p, []))
            for p in sources
        ],
        tests=tests,
        checks=checks,
        decisions=decisions,
        truncated=False,
        evidence=evidence_of(None, claims, dropped, here.now),
        freshness=here.freshness,
    )
    if not full:
        _fit(out)
    return out


def _repo_words(root: Path) -> set[str]:
    """The repository's own name and its parts (`mitmproxy`; `my-app` gives `my`, `app`, `myapp`): a task
    says it without meaning any one file."""
    name = root.resolve().name.lower()
    parts = {p for p in re.split(r"[^a-z0-9]+", name) if len(p) > 2}
    return {name, name.replace("-", "").replace("_", ""), *parts}


def _carrying_query(
    match: str | None, carrying: list[str], task: str, descriptive: set[str] = frozenset()
) -> str | None:
    """The FTS query without verbs, the repository's name, words under three letters and words that only
    describe a named type's work by naming its sibling (`limit` beside `Take`); camelCase parts of a
    name stay (`DecodingError` keeps `decoding`); a compound (`Content-Type`) matches as its phrase,
    so a file naming `type` and `content` apart is no match."""
    if not match:
        return None
    keep = set(carrying)
    phrases, inside = compound_phrases(task)
    terms = []
    for t in match.split(" OR "):
        word = t.strip('"')
        if len(word) <= 2 or word in inside or word in descriptive or not _keep_term(word, keep):
            continue
        # A carrying word matches its stem as a prefix: `proxying` finds `get_environment_proxies`,
        # `gzip` the `gzipdecoder` a `GZipDecoder` is indexed as.
        forms = prefixes(word) if word in keep else [word]
        terms += [f'"{form}"*' if word in keep and len(form) >= 4 else t for form in forms]
    terms += [f'"{p}"' for p in dict.fromkeys(phrases)]
    return " OR ".join(dict.fromkeys(terms)) or None


def _keep_term(term: str, carrying: set[str]) -> bool:
    from services.knowledge.task_words import REQUEST_VERBS

    return term in carrying or (term not in REQUEST_VERBS and term not in STOPWORDS)


def _distinctive_words(store: KnowledgeStore, carrying: list[str]) -> set[str]:
    """The carrying words rare enough in this repository for a folder named by one to be a lead."""
    total = store.file_count()
    if total < 20:
        return set(carrying)
    return {w for w in carrying if store.files_matching(f'"{w}"') <= _FOLDER_COMMON * total}


def _named_by_stem(
    store: KnowledgeStore, task: str, carrying: list[str], rare: set[str], add, compounds: dict[str, float]
) -> None:
    """A file whose name the task spells as words: `export` for `export.py`, `Proxy authentication`
    for `proxyauth.py`, `map_local` for `maplocal.py`, `reading` for `read.py`. Two adjacent words
    naming one file are a strong lead; one word, a weaker one that weakens with each namesake."""
    by_stem: dict[str, list[str]] = defaultdict(list)
    for path in store.file_blobs():
        by_stem[file_stem(path)].append(path)
    folders: dict[str, list[str]] = defaultdict(list)
    for path in by_stem.get("init", []) + by_stem.get("index", []) + by_stem.get("mod", []):
        if "/" in path:
            folders[path.rsplit("/", 2)[-2].replace("_", "").lower()].append(path)
    lowered = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", task.replace("_", ""))]
    # A header or value the task quotes (`Content-Type`) is words that happen to spell a file's name:
    # as good as a word match, no better, beside code the task spells (`ContentCharset`).
    quoted = set(compound_phrases(task)[0])
    seen: set[str] = set()
    for i, word in enumerate(lowered[:-1]):
        if len(word) < 3 or word in STOPWORDS:
            continue
        following = lowered[i + 1]
        joined = word + following
        reason = _COMPOUND_SPELLED if f"{word} {following}" in quoted else "the task spells its name"
        for j in range(len(joined), len(word) + 3, -1):  # `proxyauthentication` -> `proxyauth`
            paths = [p for p in by_stem.get(joined[:j], []) if not generated_by_name(p)]
            if paths and joined[:j] not in seen:
                seen.add(joined[:j])
                for path in paths[:4]:
                    add(path, 9.0 / len(paths), reason)
                    if reason == _COMPOUND_SPELLED:
                        compounds[path] += 9.0 / len(paths)
                break
        # `content view` names the package `contentviews/`; `JSON view` the module `view_json`
        for package in (joined, joined + "s"):
            for path in folders.get(package, [])[:2]:
                add(path, 6.0, f"the package {path.rsplit('/', 1)[0]}/ is in the task's words")
        # `curl log formatter` names `curl_formatter.rb` around the word between (the formatter of curl logs)
        after = lowered[i + 2] if i + 2 < len(lowered) else ""
        skipped = word + after
        if len(after) > 3 and after not in STOPWORDS and skipped not in seen:
            paths = [p for p in by_stem.get(skipped, []) if not generated_by_name(p)]
            if paths:
                seen.add(skipped)
                for path in paths[:4]:
                    add(path, 6.0 / len(paths), "the task spells its name")
        swapped = following + word
        if len(following) > 2 and following not in STOPWORDS and swapped not in seen:
            paths = [p for p in by_stem.get(swapped, []) if not generated_by_name(p)]
            if paths:
                seen.add(swapped)
                for path in paths[:4]:
                    add(path, 6.0 / len(paths), "the task spells its name")
    prose = {w.lower() for w in compound_parts(task)}
    for word in carrying:
        if re.fullmatch(r"[a-z]+\d", word):  # `http1`: the folder of that name, its files by the other words
            for hit in store.files_under_named(word, limit=12):
                add(hit.path, 2.0, f"in a folder {word}/ the task names")
        if word in prose:
            continue  # `link-local` is no lead to `local.ts`
        for form in stems(word):
            if len(form) < 4 or form in seen:
                continue
            paths = [p for p in by_stem.get(form, []) if not generated_by_name(p)]
            if paths:
                seen.add(form)
                weight = 4.0 if word in rare else 1.5  # `content` names little where every file says it
                for path in paths[:4]:
                    add(path, weight / len(paths), "the task spells its name")
                break


def _phrases(store: KnowledgeStore, task: str, carrying: list[str], add) -> None:
    """Two carrying words side by side in the task (`server replay`) found side by side in a file's
    names or docs: the file is about that phrase, not about either word alone (`client replay`)."""
    keep = set(carrying)
    lowered = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", task)]
    pairs = [f'"{a} {b}"' for a, b in itertools.pairwise(lowered) if a in keep and b in keep]
    if not pairs:
        return
    hits = store.search_files(" OR ".join(dict.fromkeys(pairs)), limit=20)
    best = hits[0].score if hits and hits[0].score < 0 else -1.0
    for hit in hits:
        add(hit.path, 4.0 * (hit.score / best) ** 2, "the task's phrase is in it")


def _anchors(score: dict[str, float], files: dict, named: set[str], spelled: set[str]) -> list[str]:
    """The files the task's words resolve to: those defining what it spells or named by it, else the best
    scored; source files only, at most `ANCHORS`."""
    source = [p for p in sorted(score, key=lambda p: (-score[p], p)) if p in files and not files[p].test]
    if not source:
        return []
    best = score[source[0]]
    lead = [p for p in source if p in spelled or p in named]
    rest = [p for p in source if p not in lead and score[p] >= 0.6 * best]
    return (lead + rest)[:ANCHORS]


def _json_list(text: str | None) -> list[str]:
    import json

    try:
        found = json.loads(text or "[]")
    except ValueError:
        return []
    return [str(p) for p in found] if isinstance(found, list) else []


def _co_changed(
    found: dict[str, list[tuple[str, int, float]]],
    anchors: list[str],
    score,
    files,
    add,
    *,
    words_only_lead: bool,
    why: dict[str, list[str]],
) -> None:
    """What changes with the anchors, by the index's history: a file already found for the task's
    words gains by how surely it changes with them; a test that changes with them is a test to run.
    A source file found by co-change alone is left out: it changes with the anchor for many reasons;
    so is a file sharing only words when the task spells the code it is about (a hub such as
    `_client.py` changes with everything)."""
    for anchor in anchors:
        base = score.get(anchor, 0.0)
        for path, shared, confidence in found.get(anchor, []):
            if path == anchor or shared < _CO_SHARED or confidence < _CO_CONFIDENCE or generated_by_name(path):
                continue
            reason = f"changes with {anchor} (in {shared} recent commits, {confidence:.0%} of its changes)"
            if path in score and score[path] > 0:
                if words_only_lead or not all(r in _WORD_REASONS for r in why[path]):
                    add(path, 0.4 * base * confidence, reason)
            elif TEST_NAME.search(stem_of(path)) or in_tests(path):
                add(path, 0.6 * base * confidence, reason)


def _found_phrase_words(store: KnowledgeStore, task: str, carrying: list[str]) -> set[str]:
    """The words of the task's two-word phrases that some file holds as that phrase (`server replay`)."""
    keep = set(carrying)
    lowered = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", task)]
    found: set[str] = set()
    for a, b in itertools.pairwise(lowered):
        if a in keep and b in keep and store.files_matching(f'"{a} {b}"'):
            found |= {a, b}
    return found


def _entry_points(store: KnowledgeStore, task: str, add) -> None:
    """ "the command line client", "a CLI flag": the repository's command-line entry points (`cli.py`,
    `__main__.py`, `_main.py`, `tools/main.py`), which own its options and arguments."""
    if not _COMMAND_LINE.search(task):
        return
    paths = [
        p
        for p in store.file_blobs()
        if p.rsplit("/", 1)[-1].split(".", 1)[0].lower() in _ENTRY_STEMS
        and not is_fixture(p)
        and not is_peripheral(p)
        and not TEST_NAME.search(p.rsplit("/", 1)[-1].rsplit(".", 1)[0])
        and not any(part in ("tests", "test", "examples", "docs") for part in p.split("/")[:-1])
    ]
    for path in paths[:4]:
        add(path, 6.0 / len(paths[:4]), "a command-line entry point, and the task is about the command line")


def _look_alikes(score: dict[str, float], why: dict[str, list[str]], files: dict) -> set[str]:
    """`serverplayback.py` holds the task's phrase "server replay"; `clientplayback.py` beside it, named
    alike, holds only its words: the look-alike is someone else's (auth add-ons, playback modes). So is
    `apache_formatter.rb` beside `curl_formatter.rb`, whose name the task spells ("the curl log formatter")."""
    leads = ("the task's phrase is in it", "the task spells its name")
    phrased = [p for p, reasons in why.items() if any(r in reasons for r in leads) and p in files]
    alike: set[str] = set()
    for path in phrased:
        folder, stem = path.rsplit("/", 1) if "/" in path else ("", path)
        stem = file_stem(stem)
        for other, reasons in why.items():
            if other == path or other not in files or any(r in reasons for r in leads):
                continue
            o_folder, o_stem = other.rsplit("/", 1) if "/" in other else ("", other)
            if o_folder != folder or not all(r in _WORD_REASONS or r.startswith("changes with ") for r in reasons):
                continue
            o_stem = file_stem(o_stem)
            common = 0
            while common < min(len(stem), len(o_stem)) and stem[-1 - common] == o_stem[-1 - common]:
                common += 1
            if common >= 5 and common < len(stem):  # `...playback`, `...auth`: a family of alike names
                score[other] *= _LOOK_ALIKE
                alike.add(other)
    return alike


def _wrappers_step_back(
    spans: dict[str, list[tuple[str, int, int]]],
    imports: dict[str, list[str]],
    score: dict[str, float],
    named: set[str],
) -> None:
    """A name the task spells, defined in several files where some import another definer: those wrap
    the one they import (`serveStatic` of each runtime adapter calls the middleware's `serveStatic`), so
    the change belongs to the wrapped definition and the wrappers step back."""
    definers: dict[str, set[str]] = defaultdict(set)
    for path, found in spans.items():
        for qualified, _start, _end in found:
            definers[qualified.rsplit(".", 1)[-1]].add(path)
    wrappers: set[str] = set()
    for paths in definers.values():
        if len(paths) < 2:
            continue
        for path in paths:
            if path not in named and any(other in paths for other in imports.get(path, []) if other != path):
                wrappers.add(path)
    for path in wrappers:
        score[path] *= _WRAPPER_SHARE


def _test_support_steps_back(score: dict[str, float], files: dict, named: set[str], task: str) -> None:
    """A library's own test support (`click/testing.py`, `helper/testing/`, `pytest_plugin.py`) patches and
    imitates the code a task is about, so it shares the task's words; it is read for a task about testing
    or one naming it, not for a change to what it imitates."""
    if _TESTING_TASK.search(task):
        return
    for path in score:
        if path in named or path not in files or files[path].test:
            continue
        parts = path.lower().split("/")
        stem = parts[-1].split(".", 1)[0]
        if stem in _TEST_SUPPORT or (stem in ("__init__", "index", "mod") and parts[-2:-1] == ["testing"]):
            score[path] *= _TEST_SUPPORT_SHARE


def explicit_names(task: str) -> list[str]:
    """The names a task spells as code (`DecodingError`, `Cookies.set`, `iter_lines`, anything in
    backticks, `BytesMut::put`): the ones worth asking the index who uses."""
    qualified = _names.dotted(task)
    code_words = {w for chunk in CODE.findall(qualified) for w in IDENT.findall(chunk)}
    prose = compound_parts(task) - code_words
    out: list[str] = []
    for ident in [*code_words, *IDENT.findall(qualified)]:
        last = ident.rsplit(".", 1)[-1]
        if ident in prose or len(last) < 4 or last.isupper():
            continue
        spelled = ident in code_words or "_" in last.strip("_") or "." in ident or re.search(r"[a-z][A-Z]", last)
        if spelled and ident not in out:
            out.append(ident)
    return out[:3]


def _referencing(references: dict[str, list[tuple[str, str]]], carrying: set[str], add) -> None:
    """Files whose references the index resolved to a name the task spells (`raise DecodingError` in
    `_decoders.py`): after the definers, the code that uses what the task names, most when the
    definition holding the use is named by the task's other words (`GZipDecoder.decode` for "gzip")."""
    for name, uses in references.items():
        by_path: dict[str, str] = defaultdict(str)
        for path, enclosing in uses:
            if not generated_by_name(path):
                by_path[path] += " " + enclosing.lower()
        for path, enclosing in list(by_path.items())[:12]:
            named = any(len(w) >= 4 and w in enclosing for w in carrying if w != name.lower())
            points = 3.0 / math.sqrt(len(by_path)) + (4.0 if named else 0.0)
            add(path, points, f"uses {name} (a resolved reference)")


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


def _named_paths(store: KnowledgeStore, task: str, add, root: Path) -> list[str]:
    """Score the files the task names by path or name; answer the named ones the base leaves out
    (a vendored bundle, a lockfile, generated output: out of context unless the task names them)."""
    tokens = set(PATHLIKE.findall(task)) | {t.strip() for t in CODE.findall(task)}
    unindexed: list[str] = []
    for raw in sorted(tokens):
        token = raw.strip("`'\"()[]{}<>,;:").removeprefix("./").rstrip("/")
        if len(token) < 3 or (token.startswith(".") and "/" not in token):
            continue
        exact = store.file(token)
        if exact is not None:
            add(token, 12.0, "named in the task")
            continue
        if "/" in token and _is_repo_file(root, token):
            unindexed.append(token)
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
    return unindexed[:3]


def _is_repo_file(root: Path, relative: str) -> bool:
    """A regular file at `relative` inside the repository, reached through no link and no `..`."""
    import os
    import stat

    parts = relative.split("/")
    if relative.startswith("/") or ".." in parts or ".git" in parts or ".pallium" in parts:
        return False
    here = root
    for part in parts:
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except OSError:
            return False
        if stat.S_ISLNK(mode):
            return False
    return stat.S_ISREG(mode)


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
