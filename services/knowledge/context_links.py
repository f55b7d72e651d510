"""Tests tied to a file to read other than by its name or an import of it, and test-folder files that
are no tests: what a Gradle or Maven layout hides from name pairing.

- a class's interface or base class has a test of its own (`ValueSourceTest` drives `ValueSource`;
  `MapValueSource : ValueSource` is changed): that test checks the class through what it implements;
- a JVM test in the file's own package uses it without an import (`groups/OptionGroupsTest.kt` for
  `groups/MutuallyExclusiveOption.kt`), so no import edge ties them;
- a file's own-named test in another project (`test/` holding every test of `clikt/` and `mordant/`),
  which pairing by name inside one project never finds;
- a JVM file in a test folder named like a test (`TestCommand.kt`, `CompletionTestBase.kt`) that holds
  no test (no `@Test`, no test spec): support code beside the tests, never a test to run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = [
    "JVM",
    "base_tests",
    "is_support_class",
    "named_after_a_file",
    "own_named_tests",
    "package_of",
    "package_sizes",
    "same_package_tests",
]

JVM = {"java", "kotlin", "scala", "groovy"}
_INTERFACE_KINDS = {"interface", "trait"}  # a mixin or a base class shares code, not a contract to test
_GENERIC_STEMS = {"__init__", "index", "mod", "lib", "main", "utils", "util", "types", "common", "helpers"}
_SOURCE_SET = re.compile(r"(?:^|/)src/[A-Za-z]+/(?:java|kotlin|scala|groovy)/")
# JUnit 3-5, TestNG and kotlin.test mark tests with `@Test` and its kin (`@[Test JsName("x")]` in
# Kotlin's annotation list); Kotest and ScalaTest extend a spec.
_TEST_MARK = re.compile(
    r"@\[?\s*(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate|org\.junit\.\w+)\b"
    r"|\bextends\s+TestCase\b"
    r"|:\s*(?:Fun|String|Describe|Behavior|Should|Word|Free|Feature|Expect|Annotation)Spec\b"
    r"|\bextends\s+(?:Any|Async)?(?:Fun|Flat|Word|Free|Prop|Feature)Spec(?:Like)?\b"
)
# The declared supertypes of a class: `class A(...) : B, C {` (Kotlin, Swift, C#),
# `class A extends B implements C {` (Java, TypeScript), `class A extends B with C` (Scala), `class A(B):`.
_DECLARATION = re.compile(r"\b(?:class|object|struct|record)\s+([A-Za-z_]\w*)")
_MAX_READ = 200_000
_TEST_SUFFIX = re.compile(r"(?:Tests?|TestCase|IT|Spec|Suite)$")


def _stem_as_written(path: str) -> str:
    return path.rsplit("/", 1)[-1].split(".", 1)[0]


def _text(root: Path | None, path: str) -> str | None:
    if root is None:
        return None
    try:
        file = root / path
        if file.stat().st_size > _MAX_READ:
            return None
        return file.read_text(errors="replace")
    except OSError:
        return None


def is_support_class(root: Path | None, path: str, language: str | None) -> bool:
    """A JVM file in a test folder that is no test to run: an abstract base of tests (`CompletionTestBase`,
    its `@Test`s run in the classes extending it), or a file with no `@Test` nor test spec (read from the
    working tree) that is no concrete `*Test` class either, which may inherit its tests
    (`FishCompletionTest : CompletionTestBase()`)."""
    if language not in JVM:
        return False
    text = _text(root, path)
    if text is None:
        return False
    stem = _stem_as_written(path)
    if re.search(rf"\babstract\s+class\s+{re.escape(stem)}\b", text):
        return True
    return not _TEST_MARK.search(text) and not _TEST_SUFFIX.search(stem)


def _skip_balanced(text: str, i: int, open_: str, close: str) -> int:
    depth = 0
    while i < len(text):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def supertypes(text: str, language: str | None) -> list[str]:
    """The simple names of the types the file's classes declare they extend or implement."""
    out: list[str] = []
    for m in _DECLARATION.finditer(text):
        i = m.end()
        if text[i : i + 1] == "<":
            i = _skip_balanced(text, i, "<", ">")
        rest = text[i : i + 400]
        stripped = rest.lstrip()
        if language == "python" or (stripped.startswith("(") and language not in ("kotlin", "scala")):
            if stripped.startswith("("):
                end = _skip_balanced(stripped, 0, "(", ")")
                out += re.findall(r"([A-Za-z_]\w*)\s*(?:[,)\[])", stripped[1:end])
            continue
        if stripped.startswith("("):  # a Kotlin or Scala primary constructor
            start = len(rest) - len(stripped)
            rest = rest[start + _skip_balanced(stripped, 0, "(", ")") :]
        head = re.split(r"[{\n=]", rest, maxsplit=1)[0] if language != "java" else rest.split("{", 1)[0]
        head = re.sub(r"<[^<>]*>", "", head)
        clause = re.match(r"\s*(?::|extends\b|implements\b)(.*)", head, re.S)
        if not clause:
            continue
        for part in re.split(r",|\bimplements\b|\bextends\b|\bwith\b", clause.group(1)):
            name = re.match(r"\s*([A-Za-z_][\w.]*)", part)
            if name and name.group(1) not in ("where", "by"):
                out.append(name.group(1).rsplit(".", 1)[-1])
    return list(dict.fromkeys(out))


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].split(".", 1)[0].lower()


def _ext(path: str) -> str:
    return path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else ""


def base_tests(
    store, root: Path | None, sources: Sequence[str], languages: dict[str, str | None], test_stem
) -> dict[str, list[str]]:
    """For each file to read, the own test of each interface or trait its classes declare they implement,
    when the repository defines it in one file and one test is named after that file: the test checking
    the class through what it implements."""
    out: dict[str, list[str]] = {}
    tests = store.test_paths()
    for path in sources:
        text = _text(root, path)
        if not text:
            continue
        found: list[str] = []
        for base in supertypes(text, languages.get(path)):
            homes = {
                s.path for s in store.symbols_named([base], limit=8) if s.kind in _INTERFACE_KINDS and s.name == base
            }
            homes.discard(path)
            if len(homes) != 1:
                continue
            home = homes.pop()
            own = [t for t in tests if test_stem(t) == _stem(home) and _ext(t) == _ext(home)]
            if len(own) == 1:  # `router.test.ts` beside every router is no one interface's test
                found += own
        if found:
            out[path] = list(dict.fromkeys(found))
    return out


def own_named_tests(store, sources: Iterable[str], known: dict[str, Sequence[str]], test_stem) -> dict[str, list[str]]:
    """A file's test named after it (`PromptOptionsTest.kt` for `PromptOptions.kt`) in any project of the
    repository, when its paired tests hold none: at most two, those sharing the most folders first."""
    tests = store.test_paths()
    out: dict[str, list[str]] = {}
    for path in sources:
        stem = _stem(path).lstrip("_")
        if (
            _stem(path) in _GENERIC_STEMS
            or len(stem) < 4
            or any(test_stem(t).lstrip("_") == stem for t in known.get(path, ()))
        ):
            continue
        named = [t for t in tests if test_stem(t).lstrip("_") == stem and _ext(t) == _ext(path)]
        if 0 < len(named) <= 2:
            out[path] = named
    return out


def package_of(path: str) -> str | None:
    """The JVM package folder of a file under a source set (`org/lib/groups` for
    `lib/src/main/kotlin/org/lib/groups/A.kt`), else None."""
    found = list(_SOURCE_SET.finditer(path))
    if not found:
        return None
    rest = path[found[-1].end() :]
    return rest.rsplit("/", 1)[0] if "/" in rest else ""


def same_package_tests(store, sources: Iterable[str], languages: dict[str, str | None]) -> dict[str, list[str]]:
    """For each JVM file to read, the tests declared in its own package (in any source set): they use
    its classes and functions without an import."""
    wanted = {p: package_of(p) for p in sources if languages.get(p) in JVM}
    wanted = {p: pkg for p, pkg in wanted.items() if pkg}
    if not wanted:
        return {}
    by_package: dict[str, list[str]] = {}
    for test in store.test_paths():
        pkg = package_of(test)
        if pkg:
            by_package.setdefault(pkg, []).append(test)
    return {p: by_package[pkg] for p, pkg in wanted.items() if pkg in by_package}


def package_sizes(store, sources: Iterable[str]) -> dict[str, int]:
    """For each JVM package folder of the files to read, how many source files (not tests) it holds."""
    packages = {package_of(p) for p in sources}
    packages.discard(None)
    counts: dict[str, int] = {}
    tests = set(store.test_paths())
    for path in store.file_blobs():
        if path not in tests and _ext(path) in ("java", "kt", "scala", "groovy"):
            pkg = package_of(path)
            if pkg in packages:
                counts[pkg] = counts.get(pkg, 0) + 1
    return counts


def named_after_a_file(store, tests: Iterable[str], test_stem) -> set[str]:
    """The tests among `tests` named after a source file of the repository (its own test, not a package's)."""
    wanted = set(tests)
    if not wanted:
        return set()
    stems = {_stem(p) for p in store.file_blobs() if p not in wanted}
    return {t for t in wanted if test_stem(t) in stems}
