"""Verification commands of the ecosystems beyond Python, Go, JavaScript, Rust and Java's Maven.

One function per ecosystem, each reading the project's own files (`manifests.Manifests`) and
adding to the fast, safe and full tiers the commands its developers run: CMake's `ctest` and
autotools' `make check`, `bundle exec rspec`/`ruby -Itest`/`rake`, `composer test` and
`vendor/bin/phpunit`, `swift test`, `sbt test`, `busted`, `bats`. Like `verification.py`,
every command runs verbatim from the repository root (`cd <project> && ...` where the tool has
no folder flag) and names only files that exist. Syntax checks that need no build (`php -l`,
`ruby -c`, `bash -n`) make the safe tier where nothing better is configured.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from pathlib import Path

from services.repo.manifests import Manifests

__all__ = ["ECOSYSTEMS", "ecosystem_of"]

_MOST = 5
Tiers = tuple[list[str], list[str], list[str]]

_EXTENSIONS = {
    **dict.fromkeys((".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"), "c"),
    **dict.fromkeys((".rb", ".rake", ".gemspec", ".ru"), "ruby"),
    **dict.fromkeys((".php", ".phpt"), "php"),
    ".swift": "swift",
    **dict.fromkeys((".scala", ".sc"), "scala"),
    ".lua": "lua",
    **dict.fromkeys((".sh", ".bash", ".bats"), "shell"),
}
_RUBY_NAMES = frozenset({"Gemfile", "Rakefile", "config.ru", "Guardfile"})


def ecosystem_of(path: str, root: Path | None = None) -> str | None:
    """The ecosystem of this module that verifies `path`, or None (Kotlin goes with Java's builds).

    With `root`, a script without an extension (`libexec/pyenv`, `bin/setup`) goes by its shebang."""
    name = posixpath.basename(path)
    if name in _RUBY_NAMES:
        return "ruby"
    ext = posixpath.splitext(name)[1].lower()
    if ext or root is None:
        return _EXTENSIONS.get(ext)
    return _SCRIPT_ECOSYSTEMS.get(_shebang_language(root / path) or "")


# A script's language (by its shebang) -> the ecosystem that verifies it.
_SCRIPT_ECOSYSTEMS = {"bash": "shell", "ruby": "ruby", "php": "php", "lua": "lua"}


def _shebang_language(path: Path) -> str | None:
    from services.repo.languages import shebang_language

    try:
        if path.is_symlink() or not path.is_file():
            return None
        with path.open("rb") as handle:
            return shebang_language(handle.read(200))
    except OSError:
        return None


def _q(paths) -> str:
    return " ".join(shlex.quote(p) for p in list(paths)[:_MOST])


def _in(folder: str, command: str) -> str:
    return f"cd {shlex.quote(folder)} && {command}" if folder else command


def _rel(path: str, folder: str) -> str:
    return posixpath.relpath(path, folder) if folder else path


def _by_project(found: Manifests, items: list[str], names: tuple[str, ...]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in items:
        project = found.nearest(item, names)
        if project is not None:
            out.setdefault(project, []).append(item)
    return out


def _stem(path: str) -> str:
    return posixpath.basename(path).split(".", 1)[0]


# C and C++ -----------------------------------------------------------------------------------------


def _c(found: Manifests, paths: list[str], tests: list[str], tiers: Tiers) -> None:
    """CMake with tests: configure, build and `ctest` (by the covering tests' names for the fast tier);
    automake with `TESTS`: `make check` (`TESTS=` naming the covering tests), configured first when
    the tree is not."""
    fast, _safe, full = tiers
    names = [_stem(t) for t in tests if ecosystem_of(t) == "c"][:_MOST]
    for project in dict.fromkeys(found.nearest(p, ("CMakeLists.txt",)) for p in paths):
        if project is None:
            continue
        top = _cmake_top(found, project)
        if top is None:
            continue
        build = posixpath.join(top, "build") if top else "build"
        prepare = f"cmake -S {shlex.quote(top or '.')} -B {shlex.quote(build)} && cmake --build {shlex.quote(build)}"
        if names:
            fast.append(f"{prepare} && ctest --test-dir {shlex.quote(build)} -R {shlex.quote('|'.join(names))}")
        full.append(f"{prepare} && ctest --test-dir {shlex.quote(build)} --output-on-failure")
    for project in dict.fromkeys(found.nearest(p, ("Makefile.am",)) for p in paths):
        if project is None:
            continue
        top = _automake_top(found, project)
        if top is None:
            continue
        configured = found.exists(posixpath.join(top, "Makefile"))
        make = f"make -C {shlex.quote(top)}" if top else "make"
        if configured:
            prepare = ""
        elif found.exists(posixpath.join(top, "configure")):
            prepare = _in(top, "./configure") + " && "
        else:
            prepare = _in(top, "autoreconf -fi && ./configure") + " && "
        listed = _automake_tests(found, top)
        own = [n for n in names if n in listed]
        if own:
            fast.append(f"{prepare}{make} check TESTS={shlex.quote(' '.join(own))}")
        full.append(f"{prepare}{make} check")


def _cmake_top(found: Manifests, folder: str) -> str | None:
    """The outermost CMake project at or above `folder` that declares tests (`enable_testing`,
    `add_test`, `include(CTest)`), else None."""
    best = None
    current: str | None = folder
    while current is not None:
        text = found.text(posixpath.join(current, "CMakeLists.txt"))
        if text is None:
            break
        if re.search(r"\b(enable_testing|add_test|include\s*\(\s*CTest|gtest_discover_tests)\b", text, re.I):
            best = current
        current = posixpath.dirname(current) if current else None
    return best


def _automake_top(found: Manifests, folder: str) -> str | None:
    """The folder of configure.ac (or configure.in) at or above `folder` whose tree lists tests."""
    top = found.nearest(folder, ("configure.ac", "configure.in"), is_folder=True)
    if top is None:
        return None
    return top if _automake_tests(found, top) else None


def _automake_tests(found: Manifests, top: str) -> set[str]:
    """The test programs and scripts the Makefile.am files of `top` and its direct subfolders list in
    `TESTS` or `check_PROGRAMS` (the names `make check TESTS=` takes)."""
    listed: set[str] = set()
    folders = [top] + [posixpath.join(top, d) for d in ("test", "tests", "t", "src")]
    for folder in folders:
        text = found.text(posixpath.join(folder, "Makefile.am")) or ""
        text = text.replace("\\\n", " ")
        for _var, words in re.findall(r"^\s*(TESTS|check_PROGRAMS|dist_check_SCRIPTS)\s*\+?=(.*)$", text, re.M):
            listed.update(w.rsplit("/", 1)[-1] for w in words.split() if not w.startswith("$"))
    return listed


# Ruby ----------------------------------------------------------------------------------------------


def _ruby(found: Manifests, paths: list[str], tests: list[str], tiers: Tiers) -> None:
    """Per gem or app (the nearest Gemfile, gemspec or Rakefile): its covering specs by `rspec`, its
    minitest files by `ruby -Itest`, `rake` (its default task runs the suite) for the full tier."""
    fast, safe, full = tiers
    markers = ("Gemfile", "Rakefile", ".rspec")
    ruby_tests = [t for t in tests if t.endswith(".rb")]
    projects = list(dict.fromkeys([*_by_project(found, ruby_tests, markers), *_by_project(found, paths, markers)]))
    grouped = _by_project(found, ruby_tests, markers)
    for project in projects:
        bundle = "bundle exec " if _has_gemfile(found, project) else ""
        group = grouped.get(project, [])
        specs = [_rel(t, project) for t in group if t.endswith("_spec.rb")]
        minitests = [_rel(t, project) for t in group if not t.endswith("_spec.rb")]
        if specs:
            fast.append(_in(project, f"{bundle}rspec {_q(specs)}"))
        for test in minitests[:_MOST]:  # `ruby` runs one file; minitest autoruns what it loads
            fast.append(_in(project, f"{bundle}ruby -Ilib -Itest {shlex.quote(test)}"))
        if found.exists(posixpath.join(project, ".rubocop.yml")):
            own = [_rel(p, project) for p in paths if ecosystem_of(p, found.root) == "ruby" and found.exists(p)]
            if own:
                safe.append(_in(project, f"{bundle}rubocop {_q(own)}"))
        if found.exists(posixpath.join(project, "Rakefile")):
            full.append(_in(project, f"{bundle}rake"))
        elif found.exists(posixpath.join(project, ".rspec")) or _is_folder(found, project, "spec"):
            full.append(_in(project, f"{bundle}rspec"))
    lintable = [p for p in paths if p.endswith(".rb") and found.exists(p)]
    if lintable and not any("rubocop " in c for c in safe):
        safe.append(_each("ruby -c", lintable))


def _has_gemfile(found: Manifests, project: str) -> bool:
    return found.nearest(posixpath.join(project, "x"), ("Gemfile",)) is not None


def _is_folder(found: Manifests, project: str, name: str) -> bool:
    return (found.root / project / name).is_dir()


# PHP -----------------------------------------------------------------------------------------------


def _php(found: Manifests, paths: list[str], tests: list[str], tiers: Tiers) -> None:
    """Per composer project: the covering test classes by PHPUnit (`phpunit.xml[.dist]`), PHPStan
    where configured, `composer test` when `scripts.test` exists, else the whole PHPUnit suite."""
    fast, safe, full = tiers
    markers = ("composer.json", "phpunit.xml", "phpunit.xml.dist")
    php_tests = [t for t in tests if t.endswith("Test.php")]
    grouped = _by_project(found, php_tests, markers)
    projects = list(dict.fromkeys([*grouped, *_by_project(found, paths, markers)]))
    for project in projects:
        phpunit = any(found.exists(posixpath.join(project, n)) for n in ("phpunit.xml", "phpunit.xml.dist"))
        group = [_rel(t, project) for t in grouped.get(project, [])]
        if phpunit and group:
            fast.extend(_in(project, f"vendor/bin/phpunit {shlex.quote(t)}") for t in group[:_MOST])
        if any(found.exists(posixpath.join(project, n)) for n in ("phpstan.neon", "phpstan.neon.dist")):
            own = [_rel(p, project) for p in paths if p.endswith(".php") and found.exists(p)]
            if own:
                safe.append(_in(project, f"vendor/bin/phpstan analyse {_q(own)}"))
        scripts = _composer_scripts(found, project)
        if "test" in scripts:
            full.append(_in(project, "composer test"))
        elif phpunit:
            full.append(_in(project, "vendor/bin/phpunit"))
    lintable = [p for p in paths if p.endswith(".php") and found.exists(p)]
    if lintable:
        safe.append(_each("php -l", lintable))


def _composer_scripts(found: Manifests, project: str) -> dict:
    try:
        data = json.loads(found.text(posixpath.join(project, "composer.json")) or "{}")
    except ValueError:
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return scripts if isinstance(scripts, dict) else {}


# Swift, Scala, Lua, shell ----------------------------------------------------------------------------


def _swift(found: Manifests, paths: list[str], tests: list[str], tiers: Tiers) -> None:
    """`swift test` of the nearest Package.swift, filtered to the covering XCTest classes."""
    fast, safe, full = tiers
    grouped = _by_project(found, [t for t in tests if t.endswith(".swift")], ("Package.swift",))
    for project in dict.fromkeys([*grouped, *_by_project(found, paths, ("Package.swift",))]):
        flag = f" --package-path {shlex.quote(project)}" if project else ""
        classes = [_stem(t) for t in grouped.get(project, [])][:_MOST]
        if classes:
            fast.append(f"swift test{flag} --filter {shlex.quote('|'.join(classes))}")
        safe.append(f"swift build{flag}")
        full.append(f"swift test{flag}")


def _scala(found: Manifests, paths: list[str], tests: list[str], tiers: Tiers) -> None:
    """sbt's `testOnly` of the covering suites, `sbt test` for the build (Gradle and Maven Scala
    builds go with Java's)."""
    fast, _safe, full = tiers
    grouped = _by_project(found, [t for t in tests if t.endswith(".scala")], ("build.sbt",))
    for project in dict.fromkeys([*grouped, *_by_project(found, paths, ("build.sbt",))]):
        suites = [_stem(t) for t in grouped.get(project, [])][:_MOST]
        if suites:
            fast.append(_in(project, "sbt " + shlex.quote("testOnly " + " ".join(f"*{s}" for s in suites))))
        full.append(_in(project, "sbt test"))


def _lua(found: Manifests, paths: list[str], tests: list[str], tiers: Tiers) -> None:
    """busted for `*_spec.lua` (per `.busted` project or the repository), `lua` for a plain test
    script, `luarocks test` where a rockspec declares how."""
    fast, _safe, full = tiers
    lua_tests = [t for t in tests if t.endswith(".lua")]
    markers = (".busted",)
    specs = [t for t in lua_tests if t.endswith("_spec.lua")]
    grouped = _by_project(found, specs, markers) or ({"": specs} if specs else {})
    for project, group in grouped.items():
        fast.append(_in(project, "busted " + _q(_rel(t, project) for t in group)))
    for test in [t for t in lua_tests if not t.endswith("_spec.lua")][:_MOST]:
        fast.append(f"lua {shlex.quote(test)}")
    projects = _by_project(found, paths, markers)
    for project in projects or ([""] if specs or _is_folder(found, "", "spec") else []):
        full.append(_in(project, "busted"))


def _shell(found: Manifests, paths: list[str], tests: list[str], tiers: Tiers) -> None:
    """bats files by `bats`, the folders holding them for the full tier; `bash -n` checks syntax."""
    fast, safe, full = tiers
    bats = [t for t in tests if t.endswith(".bats")]
    if bats:
        fast.append("bats " + _q(bats))
        full.append("bats " + _q(sorted({posixpath.dirname(t) or "." for t in bats})))
    scripts = [
        p for p in paths if (p.endswith((".sh", ".bash")) or ecosystem_of(p, found.root) == "shell") and found.exists(p)
    ]
    if scripts:
        safe.append(_each("bash -n", scripts))


def _each(check: str, paths: list[str]) -> str:
    """`check` once per file (`bash -n`, `ruby -c`, `php -l` read one file each; later ones are its arguments)."""
    return " && ".join(f"{check} {shlex.quote(p)}" for p in paths[:_MOST])


ECOSYSTEMS = {"c": _c, "ruby": _ruby, "php": _php, "swift": _swift, "scala": _scala, "lua": _lua, "shell": _shell}
