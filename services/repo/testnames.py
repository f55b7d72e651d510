"""Which files are tests, and which file each one tests: one table, one row per language's runner.

Every reader of test pairing (`risk.is_test_path`, `risk.tests_for`, `facts`, `verification`) asks
this table, so the rules cannot drift apart. A row says what its runner collects by name
(pytest's `test_*.py`, rspec's `*_spec.rb`, PHPUnit's `*Test.php`, bats' `*.bats`), which files
match that name yet are support code (`test_helper.rb`, PHPUnit mocks), and whether code merely
sitting in a tests folder is a test (JavaScript, C, shell). A test pairs by name only with a file of
its own language family and its own project (the nearest manifest): a `base_test.rb` in one gem
never pairs with another gem's `base.rb`, and `test_main.py` never with `main.yml`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "PROJECT_MANIFESTS",
    "family_of",
    "is_test_path",
    "name_patterns",
    "project_of",
    "project_roots",
    "shared_folders",
    "source_stem",
    "subject_of",
]


@dataclass(frozen=True)
class Runner:
    family: str
    extensions: tuple[str, ...]
    collects: re.Pattern[str]  # the file names the runner collects as tests
    marks: re.Pattern[str]  # the test marks to strip from a test's stem to name its subject
    by_folder: bool = False  # code under a tests folder is a test even when its name is not
    helpers: re.Pattern[str] | None = None  # names the runner would collect that are support code


_ANY = r"[^/]*"
RUNNERS = (
    Runner("python", (".py",), re.compile(r"^(test_.*|.*_test)\.py$"), re.compile(r"^test_|_test$")),
    Runner("go", (".go",), re.compile(r"^.*_test\.go$"), re.compile(r"_test$")),
    Runner(
        "jvm",
        (".java",),
        re.compile(r"^(Test.*|.*(Test|Tests|TestCase|IT))\.java$"),
        re.compile(r"^Test(?=[A-Z])|(Tests?|TestCase|IT)$"),
    ),
    Runner(
        "jvm",
        (".kt",),
        re.compile(r"^(Test.*|.*(Test|Tests|TestCase|Spec|IT))\.kt$"),
        re.compile(r"^Test(?=[A-Z])|(Tests?|TestCase|Spec|IT)$"),
    ),
    Runner("jvm", (".scala",), re.compile(r"^.*(Test|Tests|Spec|Suite)\.scala$"), re.compile(r"(Tests?|Spec|Suite)$")),
    Runner("csharp", (".cs",), re.compile(r"^.*Tests?\.cs$"), re.compile(r"Tests?$")),
    Runner(
        "ruby",
        (".rb",),
        re.compile(r"^(test_.*|.*_test|.*_spec)\.rb$"),
        re.compile(r"^test_|_(test|spec)$"),
        helpers=re.compile(r"^(test|spec|rails)_helpers?\.rb$|^test_(helper|support|case)s?\b"),
    ),
    # PHPUnit collects `*Test.php`; PHP's own run-tests.php collects `.phpt` files.
    Runner("php", (".php",), re.compile(r"^.*Test\.php$"), re.compile(r"Test$")),
    Runner("php", (".phpt",), re.compile(r"^.*\.phpt$"), re.compile(r"^$")),
    Runner("swift", (".swift",), re.compile(r"^.*Tests?\.swift$"), re.compile(r"Tests?$")),
    Runner("rust", (".rs",), re.compile(r"^.*_test\.rs$"), re.compile(r"_test$")),
    # busted collects `*_spec.lua`; plain Lua suites name files `test_*.lua`.
    Runner(
        "lua",
        (".lua",),
        re.compile(r"^(test_.*|.*_spec|.*_test)\.lua$"),
        re.compile(r"^test_|_(spec|test)$"),
        by_folder=True,
        helpers=re.compile(r"^(spec|test)_(helpers?|harness|utils?)\.lua$"),
    ),
    Runner(
        "c",
        (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx"),
        re.compile(r"^(test[_-].*|.*[_-](test|unittest|tests))\.\w+$|^.*Test\.(cc|cpp|cxx)$"),
        re.compile(r"^test[_-]|[_-](test|unittest|tests)$|Test$"),
        by_folder=True,
        helpers=re.compile(r"^test[_-]?(helpers?|common|main|framework|harness)\.\w+$|^testutils?\.\w+$"),
    ),
    # bats collects `*.bats`; shell suites are `test_*.sh`/`*_test.sh`, or extensionless scripts in a tests folder.
    Runner("shell", (".bats",), re.compile(r"^.*\.bats$"), re.compile(r"^test[_-]|[_-]test$")),
    Runner(
        "shell",
        (".sh", ".bash", ""),
        re.compile(r"^(test[_-].*|.*[_-]test)(\.(sh|bash))?$"),
        re.compile(r"^test[_-]|[_-]test$"),
        by_folder=True,
        helpers=re.compile(r"^(test[_-]?)?(lib|helpers?|common|setup|functions)(\.(sh|bash))?$"),
    ),
    Runner(
        "js",
        (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"),
        re.compile(r"^(test_.*|.*_test\.\w+|.*\.(test|spec)\.\w+)$"),
        re.compile(r"^test_|_test$"),
        by_folder=True,
    ),
)
_BY_EXTENSION = {ext: runner for runner in RUNNERS for ext in runner.extensions}
_FAMILIES = {**{ext: r.family for r in RUNNERS for ext in r.extensions if ext}, ".pyi": "python"}

_TEST_DIR = re.compile(r"(^|/)(tests?|__tests__|spec|t)/")
# Support code beside tests, never a test: fixtures, test data (`test/**/data/`), snapshots, mocks
# and stubs (PHPUnit's `Mocks/FooTest.php`), pytest's conftest.
_NOT_TESTS = re.compile(
    r"(^|/)(fixtures?|__fixtures__|testdata|test_data|__snapshots__|__mocks__|mocks?|stubs?|doubles|fakes?)/"
    r"|(^|/)(tests?|spec|t)/(.+/)?(data|files|assets|resources|support|helpers?)/"
    r"|(^|/)conftest\.py$",
    re.I,
)
_JVM_SOURCE_SET = re.compile(r"(^|/)src/(?:test|it|integrationTest)/(?:java|kotlin|scala|groovy)/")
# An extensionless file that may be a script (`run-tests`, `basic`), unlike `README` or `Makefile`.
_SCRIPT_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_NOT_SCRIPTS = frozenset({"makefile", "gnumakefile", "dockerfile", "justfile", "rakefile", "gemfile", "license"})
# Manifests that open a project: test pairing by name stays inside one.
PROJECT_MANIFESTS = (
    "pyproject.toml",
    "setup.py",
    "package.json",
    "go.mod",
    "Cargo.toml",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "build.sbt",
    "composer.json",
    "Gemfile",
    "Package.swift",
    "*.gemspec",
    "*.rockspec",
    "*.csproj",
)


def _runner(path: str) -> tuple[str, Runner | None]:
    name = posixpath.basename(path)
    if name.startswith("."):  # `.gitignore`, `.rspec`: configuration, never code under test
        return name, None
    ext = posixpath.splitext(name)[1].lower()
    if not ext and (not _SCRIPT_NAME.match(name) or name in _NOT_SCRIPTS):
        return name, None  # `README`, `Makefile`, `LICENSE`: no extension, yet no script
    return name, _BY_EXTENSION.get(ext)


def family_of(path: str) -> str | None:
    """The language family whose tests may cover `path` (`python`, `jvm`, `c`, `js`...), or None."""
    name = posixpath.basename(path)
    ext = posixpath.splitext(name)[1].lower()
    if ext:
        return _FAMILIES.get(ext)
    return "shell" if _SCRIPT_NAME.match(name) and name not in _NOT_SCRIPTS else None


def is_test_path(path: str) -> bool:
    """A test file as its language's runner sees it, never conftest.py, fixtures, mocks or test data.

    By name where the runner collects by name (`test_x.py`, `x_test.go`, `XTest.java`, `x_spec.rb`,
    `x.bats`); a Rust file directly in a `tests/` folder (an integration test, not
    `tests/common/mod.rs`); code of the languages whose tests are built or listed rather than named
    (JavaScript, C, Lua, shell) also when it sits under a tests folder. Data and docs never are.
    """
    # Below a JVM source set (`src/test/java/`) the folders are packages mirroring the main tree's, so
    # `org/jsoup/helper/CookieUtilTest.java` tests `helper/CookieUtil.java`: no support folder there
    if _NOT_TESTS.search(_JVM_SOURCE_SET.sub(r"\1src/jvm/", path)):
        return False
    name, runner = _runner(path)
    if runner is None:
        return False
    if runner.helpers is not None and runner.helpers.search(name):
        return False
    if runner.collects.match(name):
        return True
    if runner.family == "rust":
        return posixpath.basename(posixpath.dirname(path)) == "tests"
    return runner.by_folder and bool(_TEST_DIR.search(path))


def subject_of(test: str) -> str | None:
    """The lower-case stem of the file a test is named after: `test_io.py`, `io_spec.rb`,
    `IoTest.php`, `io.test.ts`, `io.bats` -> `io`; None when the name names no subject."""
    name, runner = _runner(test)
    if runner is None:
        return None
    dotted = re.match(r"^(.+?)\.(test|spec)\.\w+$", name)
    if dotted:
        return dotted.group(1).lower()
    stem = name.split(".", 1)[0] if not name.startswith(".") else name
    core = runner.marks.sub("", stem)
    if runner.extensions in ((".bats",), (".phpt",)):  # the extension is the mark: `io.bats` tests `io`
        return core.lower() or None
    return core.lower() if core and core != stem else None


def source_stem(path: str) -> str:
    """The stem a test would be named after: `_wire.py` -> `wire`, `Store.php` -> `store`."""
    name = posixpath.basename(path)
    return name.split(".", 1)[0].lstrip("_").lower()


def name_patterns(path: str) -> list[str]:
    """GLOB patterns of the test files that could be named after `path` (a superset; filter with
    `subject_of`)."""
    stem = re.sub(r"([][*?])", r"[\1]", posixpath.basename(path).split(".", 1)[0].lstrip("_"))
    if not stem:
        return []
    return [f"*{stem}*", f"*{stem[:1].upper()}{stem[1:]}*"] if stem[:1].islower() else [f"*{stem}*"]


def pairs_by_name(test: str, source: str) -> bool:
    """Whether `test` is named after `source` and of its language family (a header and its `.c` share one)."""
    subject = subject_of(test)
    if not subject or subject != source_stem(source):
        return False
    family = family_of(source)
    return family is not None and family == family_of(test)


def project_roots(paths: Iterable[str]) -> set[str]:
    """The folders ("" for the root) holding a project manifest, from a list of repository paths."""
    literal = {m for m in PROJECT_MANIFESTS if "*" not in m}
    suffixes = tuple(m[1:] for m in PROJECT_MANIFESTS if m.startswith("*"))
    roots = set()
    for path in paths:
        name = posixpath.basename(path)
        if name in literal or name.endswith(suffixes):
            roots.add(posixpath.dirname(path))
    return roots


def project_of(path: str, roots: set[str]) -> str:
    """The nearest folder at or above `path` in `roots`, else the repository root."""
    folder = posixpath.dirname(path)
    while folder:
        if folder in roots:
            return folder
        folder = posixpath.dirname(folder)
    return ""


def shared_folders(a: str, b: str) -> int:
    """How many leading folders two paths share (`web/src/a.ts`, `web/src/b.ts`: 2)."""
    depth = 0
    for x, y in zip(a.split("/")[:-1], b.split("/")[:-1], strict=False):
        if x != y:
            break
        depth += 1
    return depth
