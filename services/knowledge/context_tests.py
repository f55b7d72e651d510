"""Which tests a change request should run: the tests paired with the files to read, the tests its
words hit, and tests named after what it names (`test_merge.py` for `Session.merge`, `test_options.py`
for "an option"); runnable code only, never a helper, a fixture or test data.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Callable, Sequence

from services.knowledge import context_links as _links
from services.knowledge.documents import is_peripheral
from services.knowledge.reading import STOPWORDS

__all__ = [
    "TESTS",
    "TEST_NAME",
    "choose_tests",
    "in_tests",
    "is_fixture",
    "runnable_test",
    "stem_of",
    "task_stems",
    "test_stem",
]

TESTS = 10
_TEST_TAIL = 0.2  # a test scoring under this share of the best is for another change
_FIXTURE_FOLDERS = {"__fixtures__", "testdata", "__snapshots__", "snapshots", "__mocks__"}
TEST_NAME = re.compile(r"(?:^test_|_test$|^test$|tests?$|specs?$|\.(?:test|spec)$|_spec$)", re.I)
_TEST_CODE = {
    "python",
    "javascript",
    "typescript",
    "tsx",
    "go",
    "rust",
    "java",
    "kotlin",
    "ruby",
    "c",
    "cpp",
    "csharp",
    "php",
    "swift",
    "scala",
    "shell",
    "lua",
    "elixir",
    "dart",
}


def runnable_test(path: str, language: str | None) -> bool:
    """A test file one can run: code, named as a test or living in a test folder, not a helper or data
    (`_tflow.ts`, `conftest.py`, a certificate, a `.har` dump)."""
    if language not in _TEST_CODE:
        return False
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    if stem.startswith("_") or stem in ("conftest", "__init__", "setup", "helpers", "utils", "common"):
        return False
    return bool(TEST_NAME.search(path.rsplit("/", 1)[-1].rsplit(".", 1)[0])) or any(
        part in ("tests", "test", "__tests__", "spec") for part in path.split("/")[:-1]
    )


def stem_of(path: str) -> str:
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0]


def in_tests(path: str) -> bool:
    return any(part in ("tests", "test", "__tests__", "spec") for part in path.split("/")[:-1])


def task_stems(task: str, named: dict[str, list[str]]) -> list[str]:
    """Words a test file could be named after: the names the task gives, then its other long words."""
    out: list[str] = []
    for labels in named.values():
        for label in labels:
            for part in label.split(":", 1)[0].split("."):
                if len(part) > 3 and part.lower() not in out:
                    out.append(part.lower())
    # `--timeout` is a flag's spelling, the option's own name, not a subject a test file is named for
    flags = {w.lower() for w in re.findall(r"(?<![\w-])--?([A-Za-z][\w-]*)", task)}
    plain = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9_]{2,}", task) if w.lower() not in flags]
    for a, b in itertools.pairwise(plain):  # `event hook` names `test_event_hooks.py`
        if a not in STOPWORDS and b not in STOPWORDS:
            out += [f"{a}_{b}", f"{a}_{b}s"]
    for word in plain:
        if word not in STOPWORDS and word not in out:
            out.append(word)
    # `option` names `test_options.py`, `prompt` `test_prompts.py`: a test file is often the plural
    out += [w + "s" for w in plain if w not in STOPWORDS and not w.endswith("s") and len(w) > 3]
    return list(dict.fromkeys(out))[:24]


def choose_tests(
    sources,
    direct_tests,
    files,
    score,
    store,
    stems: list[str],
    folder_named: Callable[[str], str | None],
    defined: Sequence[str] = (),
    members: dict[str, list[str]] | None = None,
    words: frozenset[str] = frozenset(),
    root=None,
) -> list[str]:
    """Tests paired with the files to read (closest first), tests the words hit, tests named after what
    the task names (`test_merge.py` for a task about `Session.merge`), and the test files holding a test
    class named after a definition the task names (`TestEvolve` in `test_funcs.py` for
    `evolve`, defined in `_make.py`), and the test named after a member the task names in the test folder
    named after its module (`__tests__/context/cookies.test.js` for `cookies` in `lib/context.js`)."""
    points: dict[str, float] = defaultdict(float)
    barrels = _barrel_tests([p for p in sources if not files[p].tests], store)
    named_after = _tests_named_after([p for p in sources if not files[p].tests and p not in barrels], store)
    packages = _go_packages(sources, store)
    languages = {p: files[p].language for p in sources}
    own_named = _links.own_named_tests(store, sources, {p: files[p].tests for p in sources}, test_stem)
    same_package = _links.same_package_tests(store, sources, languages)
    jvm_sizes = _links.package_sizes(store, [p for p in sources if languages[p] in _links.JVM])
    through_bases = _links.base_tests(store, root, sources[:3], languages, test_stem)
    named_elsewhere = _links.named_after_a_file(store, [t for ts in same_package.values() for t in ts], test_stem)
    for rank, path in enumerate(sources):
        hit = files[path]
        weight = score[path] / (1 + rank * 0.3)
        source_parts = set(path.split("/"))
        stem = path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
        jvm_package = _links.package_of(path) if languages[path] in _links.JVM else None
        linked = hit.tests or barrels.get(path, ()) or named_after.get(path, ())
        linked = list(dict.fromkeys([*own_named.get(path, ()), *linked, *same_package.get(path, ())]))
        untold = any(test_stem(t).lstrip("_") == stem.lstrip("_") for t in linked)  # it has a test of its own
        for test in linked:
            closeness = len(source_parts & set(test.split("/"))) + (2 if stem and stem in test.lower() else 0)
            # test_block.py for block.py; test_model_signature.py, named after it, for _signature.py
            own = 2.0 if test_stem(test).lstrip("_") == stem.lstrip("_") or test in named_after.get(path, ()) else 1.0
            if own == 1.0 and stem not in test.lower() and jvm_package is not None and not (
                test in same_package.get(path, ()) and not untold and test not in named_elsewhere
            ):
                # a JVM test importing the package by a star, or sitting in it, uses the whole package:
                # its points are shared among the package's files, the tie of one file's own test is not;
                # a file without a test of its own is tested by its package's tests named after no file
                own = 1.0 / max(1, jvm_sizes.get(jvm_package, 1))
            elif own == 1.0 and stem not in test.lower() and _folder(test) != _folder(path) and path.endswith(".go"):
                # `middleware/strip_test.go` imports the root package for its router: it tests the
                # middleware, and the package it imports only through its API, shared among its files
                own = 1.0 / max(1, packages.get(_folder(path), 1))
            elif own == 1.0 and stem not in test.lower() and _folder(test) in packages:
                # `package middleware_test` imports the package, so it is tied to every file of it: it
                # tests the package, its points shared among the package's files, not one file's test
                own = 1.0 / packages[_folder(test)]
            points[test] += weight * own * (1 + 0.5 * closeness)
        for test in through_bases.get(path, ()):  # `ValueSourceTest` for `MapValueSource : ValueSource`
            points[test] += weight * 1.5 * (1 + 0.5 * len(source_parts & set(test.split("/"))))
    for test in direct_tests:
        points[test] += score[test]
    best = max(points.values(), default=5.0)
    for rank, test in enumerate(_member_tests(store, sources, members or {})):
        points[test] += 1.5 * best / (1 + rank * 0.3)  # the member's own test, for the member's change
    by_stem: dict[str, list[str]] = defaultdict(list)
    if stems:
        for test in store.test_paths():
            by_stem[test_stem(test)].append(test)
    unread = _unread_namesakes(store, stems, sources) if stems else set()
    for stem in stems:
        if stem in unread:
            continue  # `element` names `Element.java`, not read: `ElementTest.java` is its test, not this change's
        named = sorted(by_stem.get(stem, []), key=lambda t: (len(t), t))[:4]
        for test in named:
            points[test] += 0.8 * best / len(named)
    for holders in _tests_defining(store, defined).values():
        for test in holders:  # `class TestEvolve`: what the test file says it tests
            points[test] += best / len(holders)
    for test in points:
        if folder_named(test):  # `test/dialect/mysql/` for a task about MySQL
            points[test] *= 1.5
    kinds = store.files_at(list(points))
    ranked = [
        t
        for t, _ in sorted(points.items(), key=lambda kv: (-kv[1], kv[0]))
        if not is_fixture(t)
        and t in kinds
        and runnable_test(t, kinds[t].language)
        and not _links.is_support_class(root, t, kinds[t].language)  # `TestCommand.kt`: no `@Test` in it
    ]
    if ranked:  # tests far below the best are someone else's: an agent would run them for nothing
        floor = _TEST_TAIL * points[ranked[0]]
        own = {
            t for p in sources[:3] for t in files[p].tests if test_stem(t).lstrip("_") == stem_of(p).lower().lstrip("_")
        }
        ranked = [t for t in ranked if points[t] >= floor or t in own]  # each of the best files' own test stays
    return _without_variants(ranked, words)[:TESTS]


def _unread_namesakes(store, stems: Sequence[str], sources: Sequence[str]) -> set[str]:
    """The task's words that are the stem of a source file not among the files to read: a test named
    after such a word tests that file, which the ranking left out."""
    read = {stem_of(p).lower() for p in sources}
    kinds = {p.rsplit(".", 1)[-1] for p in sources if "." in p.rsplit("/", 1)[-1]}
    wanted = set(stems) - read
    return {
        stem_of(p).lower()
        for p in store.file_blobs()
        if stem_of(p).lower() in wanted
        and p.rsplit(".", 1)[-1] in kinds  # code like the files to read, not `docs/options.md`
        and not is_peripheral(p)
        and "benches" not in p.split("/")[:-1]  # nor `benches/buf.rs`
        and not TEST_NAME.search(stem_of(p))
        and not in_tests(p)
    }


def _without_variants(ranked: list[str], words: frozenset[str]) -> list[str]:
    """A test named as a variant of one ranked above it (`test_bytes_odd_alloc.rs` after `test_bytes.rs`:
    the same tests under another allocator) is for a task that says the variant's words (`alloc`), not
    for every change its base test checks."""
    if not words:
        return ranked
    kept: list[str] = []
    for test in ranked:
        stem = test_stem(test)
        base = next((test_stem(k) for k in kept if stem.startswith(test_stem(k) + "_")), None)
        if base is not None and _folder(test) in {_folder(k) for k in kept}:
            extra = [w for w in stem[len(base) + 1 :].split("_") if w]
            if not all(w in words or w.rstrip("s") in words for w in extra):
                continue
        kept.append(test)
    return kept


def _member_tests(store, sources: Sequence[str], members: dict[str, list[str]]) -> list[str]:
    """Each test file named after a member a source defines and the task names, in a
    test folder named after that source (`__tests__/application/use.test.js` for `Application.use` in
    `lib/application.js`), best source first: a tree of one test file per property pairs that way."""
    wanted = {
        (stem_of(path).lower(), name.lower()): path
        for path in sources
        for name in members.get(path, [])
        if len(name) >= 3 and stem_of(path).lower() not in ("index", "__init__", "mod", "lib")
    }
    if not wanted:
        return []
    found = []
    for test in store.test_paths():
        if not in_tests(test) or is_fixture(test) or "/" not in test:
            continue
        source = wanted.get((_folder(test).rsplit("/", 1)[-1].lower(), test_stem(test)))
        if source is not None:
            found.append((test, source))
    order = {p: i for i, p in enumerate(sources)}
    return [test for test, _ in sorted(found, key=lambda ts: (order[ts[1]], ts[0]))]


def _tests_defining(store, defined: Sequence[str]) -> dict[str, list[str]]:
    """For each name (of four letters or more), the test files defining a test class `Test<Name>`, when at
    most three do; a function `test_content` is one case of many, a class groups the tests of one thing."""
    out: dict[str, list[str]] = {}
    for name in dict.fromkeys(n for n in defined if len(n) >= 4):
        found = store.symbols_named([f"test{name}"], limit=20)
        holders = sorted(
            {s.path for s in found if s.kind == "class" and (in_tests(s.path) or TEST_NAME.search(stem_of(s.path)))}
        )
        if 0 < len(holders) <= 3:
            out[name] = holders
    return out


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _go_packages(sources: list[str], store) -> dict[str, int]:
    """For each folder of a Go file to read, how many Go source files (not tests) that package has."""
    folders = {_folder(p) for p in sources if p.endswith(".go")}
    if not folders:
        return {}
    counts: dict[str, int] = defaultdict(int)
    for path in store.file_blobs():
        if path.endswith(".go") and not path.endswith("_test.go") and _folder(path) in folders:
            counts[_folder(path)] += 1
    return dict(counts)


def _tests_named_after(untested: list[str], store) -> dict[str, list[str]]:
    """The tests named after a private module no test imports (`tests/test_model_signature.py` for
    `_internal/_signature.py`, reached through the public `BaseModel`): they are the module's tests."""
    stems = {p: p.rsplit("/", 1)[-1].split(".", 1)[0].lower().strip("_") for p in untested}
    stems = {p: s for p, s in stems.items() if len(s) >= 5 and s not in ("index", "__init__", "utils", "types")}
    if not stems:
        return {}
    all_tests = [t for t in store.test_paths() if not is_fixture(t)]
    out: dict[str, list[str]] = {}
    for path, stem in stems.items():
        found = sorted(
            (t for t in all_tests if f"_{stem}_" in f"_{test_stem(t).strip('_')}_"), key=lambda t: (len(t), t)
        )
        if 0 < len(found) <= 4:  # a stem many tests share names no one module's tests
            out[path] = found
        elif not found:
            found = _tests_of_the_kind(path, all_tests)
            if found:
                out[path] = found
    return out


def _tests_of_the_kind(path: str, tests: list[str]) -> list[str]:
    """`helper/RegexTest.java` for `helper/Re2jRegex.java`, which has no test of its own: the test in the
    same package named after the kind its name ends in (a `Regex`), the one it specialises."""
    parts = re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", path.rsplit("/", 1)[-1].split(".", 1)[0])
    tails = {"".join(parts[i:]).lower() for i in range(1, len(parts))}
    tails = {t for t in tails if len(t) >= 5}
    package = _folder(path).rsplit("/", 1)[-1]
    return sorted(t for t in tests if test_stem(t) in tails and _folder(t).rsplit("/", 1)[-1] == package)[:2]


_BARRELS = ("index.ts", "index.tsx", "index.js", "index.mjs", "__init__.py", "mod.ts", "mod.rs")


def _barrel_tests(untested: list[str], store) -> dict[str, tuple[str, ...]]:
    """The tests of the package index beside a file no test imports (`request-id/index.test.ts` imports
    `.`, the `index.ts` passing `request-id.ts` on): they are the file's tests too."""
    wanted = {
        path: [f"{path.rsplit('/', 1)[0]}/{b}" for b in _BARRELS if f"{path.rsplit('/', 1)[0]}/{b}" != path]
        for path in untested
        if "/" in path
    }
    hits = store.files_at(sorted({b for found in wanted.values() for b in found}))
    out: dict[str, tuple[str, ...]] = {}
    for path, found in wanted.items():
        tests = [t for b in found if b in hits for t in hits[b].tests]
        if tests:
            out[path] = tuple(dict.fromkeys(tests))
    return out


def is_fixture(path: str) -> bool:
    """A file under a test folder that only supports tests (`__tests__/fixtures/a.ts`): nothing to run."""
    return any(part.startswith("fixture") or part in _FIXTURE_FOLDERS for part in path.lower().split("/")[:-1])


def test_stem(test: str) -> str:
    """`test/orm/test_merge.py`, `merge_test.go`, `merge.spec.ts`, `MergeTest.java` -> `merge`."""
    name = test.rsplit("/", 1)[-1].split(".", 1)[0].lower()
    if name.startswith("test_"):
        return name[5:]
    for suffix in ("_test", "_spec", "test"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)].rstrip("_")
    return name
