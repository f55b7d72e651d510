"""Verification commands inferred from the repository's own tooling: fast, safe and full tiers.

The nearest manifest at or above each file governs it (pyproject.toml, pytest.ini, setup.cfg,
tox.ini, go.mod, package.json, Cargo.toml, pom.xml, build.gradle, a Makefile with the target), so a
nested `web/package.json` or a sub-project's pyproject.toml brings its own runner, scripts and
folder. Every command runs verbatim from the repository root: tools that take the project's folder
or manifest get it by flag (`go -C`, `cargo --manifest-path`, `mvn -f`, `gradle -p`, `make -C`);
Python and Node run after `cd <folder> &&`, with paths relative to that folder. Reads files only;
never runs anything (services/repo/manifests.py).
"""

from __future__ import annotations

import posixpath
import shlex
from pathlib import Path

from services.repo.manifests import CARGO, GRADLE, MAVEN, Manifests
from services.repo.models import Verification
from services.repo.testnames import is_test_path, shared_folders, source_stem, subject_of
from services.repo.verify_ecosystems import ECOSYSTEMS, ecosystem_of

__all__ = ["verification_for"]

_EXEC = {"npm": "npx", "pnpm": "pnpm exec", "yarn": "yarn", "bun": "bunx"}  # runs a package's local bin
_MOST = 5  # files or packages one command names
_JVM_TESTS = (".kt", ".java", ".scala")


def verification_for(
    root: Path, paths: list[str], tests: list[str], manifests: Manifests | None = None
) -> Verification:
    """Commands to run before and after editing `paths`, given the tests that cover them.

    `manifests` shares its lookups between the calls of one answer (a base of a thousand modules
    asks for each module's checks; each walks up to the same few package.json files)."""
    found = manifests if manifests is not None else Manifests(root)
    # A suggested test must exist and be a test: deleted files, conftest.py and fixtures fail or run nothing.
    tests = [t for t in tests if is_test_path(t) and found.exists(t)]
    stems = {source_stem(p) for p in paths}

    # The file's own tests first, then, for a JVM build, those of its own module (the deepest folder
    # shared with it: `kotlin-result/src/...` before `kotlin-result-coroutines/...`), unit before integration
    # (Failsafe's `*IT`), then by path.
    def order(t: str) -> tuple:
        shared = max((shared_folders(t, p) for p in paths), default=0) if t.endswith(_JVM_TESTS) else 0
        return (subject_of(t) not in stems, -shared, posixpath.basename(t).split(".")[0].endswith("IT"), t)

    tests.sort(key=order)
    tiers: tuple[list[str], list[str], list[str]] = ([], [], [])
    families = {p: _family(p) for p in paths}
    for p in paths:  # Scala built by Gradle or Maven, not sbt, runs with Java's builds
        if p.endswith(".scala") and found.nearest(p, ("build.sbt",)) is None:
            families[p] = "java"
    if "python" in families.values():
        _python(found, [p for p, f in families.items() if f == "python"], tests, tiers)
    if "go" in families.values():
        _go(found, [p for p, f in families.items() if f == "go"], tiers)
    if "js" in families.values():
        _js(found, [p for p, f in families.items() if f == "js"], tests, tiers)
    if "rust" in families.values():
        _rust(found, [p for p, f in families.items() if f == "rust"], tiers)
    if "java" in families.values():
        _java(found, [p for p, f in families.items() if f == "java"], tests, tiers)
    for ecosystem, run in ECOSYSTEMS.items():
        own = [p for p in paths if ecosystem_of(p, found.root) == ecosystem]
        if ecosystem == "scala":  # sbt builds; a Gradle or Maven Scala build went with Java above
            own = [p for p in own if found.nearest(p, ("build.sbt",)) is not None]
        if own:
            run(found, own, tests, tiers)
    _make(found, paths, tiers)
    fast, safe, full = tiers
    return Verification(fast=_unique(fast), safe=_unique(safe), full=_unique(full))


def _python(found: Manifests, paths: list[str], tests: list[str], tiers: tuple[list[str], ...]) -> None:
    fast, safe, full = tiers
    by_project = _group([t for t in tests if t.endswith(".py")], found.python_project)
    for project, group in by_project.items():  # the project of the file's own test first
        fast.append(_in(project, "python -m pytest -q " + _quoted(_rel(t, project) for t in group)))
    folders: dict[str, list[str]] = {}
    for project, group in by_project.items():
        for test in group:
            folder = posixpath.dirname(_rel(test, project))
            if folder and folder not in folders.setdefault(project, []):
                folders[project].append(folder)
    projects = list(dict.fromkeys([found.python_project(p) for p in paths] + list(by_project)))
    for project in projects:
        if project not in folders:
            default = next((d for d in ("tests", "test") if (found.root / project / d).is_dir()), None)
            folders[project] = [default] if default else []
    for project, group in folders.items():
        if group:
            safe.append(_in(project, "python -m pytest -q " + _quoted(sorted(group))))
    # ruff finds the nearest configuration for each file itself, so one command from the root serves all;
    # it fails on a lockfile or a deleted path, so it gets existing Python files only.
    lintable = [p for p in paths if p.endswith((".py", ".pyi")) and found.exists(p) and found.uses_ruff(p)]
    if lintable:
        safe.append("ruff check " + _quoted(lintable))
    full.extend(_in(project, "python -m pytest -q") for project in projects)


def _go(found: Manifests, paths: list[str], tiers: tuple[list[str], ...]) -> None:
    """`go test` and `go vet` of the changed packages, grouped by the go.mod that holds them."""
    fast, safe, full = tiers
    modules: dict[str, set[str]] = {}
    for path in paths:
        folder = posixpath.dirname(path)
        module = found.nearest(path, ("go.mod",))
        if module is None or not _has_go_files(found.root / folder):  # a deleted package cannot be tested
            continue
        package = posixpath.relpath(folder or ".", module or ".")
        modules.setdefault(module, set()).add("." if package == "." else "./" + package)
    for module, packages in sorted(modules.items()):
        flag = f"-C {shlex.quote(module)} " if module else ""  # a nested module runs in its own folder
        named = " ".join(sorted(packages)[:_MOST])
        fast.append(f"go {flag}test {named}")
        safe.append(f"go {flag}vet {named}")
        full.append(f"go {flag}test ./...")


def _js(found: Manifests, paths: list[str], tests: list[str], tiers: tuple[list[str], ...]) -> None:
    fast, safe, full = tiers
    packages = {}
    for path in [*paths, *(t for t in tests if _family(t) == "js")]:
        package = found.node_package(path)
        if package is not None:
            packages.setdefault(package.folder, package)
    by_package = _group([t for t in tests if _family(t) == "js"], lambda t: found.nearest(t, ("package.json",)))
    order = list(dict.fromkeys([*(f for f in by_package if f is not None), *packages]))
    for folder in order:
        package = packages[folder]
        group = by_package.get(folder, [])
        files = _quoted(_rel(t, folder) for t in group)
        if group and package.runner == "vitest":
            fast.append(_in(folder, f"{_EXEC[package.manager]} vitest run {files}"))
        elif group and package.runner == "jest":
            fast.append(_in(folder, f"{_EXEC[package.manager]} jest {files}"))
        elif group and package.runner == "node":
            fast.append(_in(folder, f"node --test {files}"))
        for script in ("lint", "typecheck", "type-check", "test:unit"):
            if script in package.scripts:
                safe.append(_in(folder, f"{package.manager} run {script}"))
        if "test" in package.scripts:
            full.append(_in(folder, f"{package.manager} test"))


def _rust(found: Manifests, paths: list[str], tiers: tuple[list[str], ...]) -> None:
    """`cargo test` filtered by the changed module's name, per crate (`--manifest-path` when nested)."""
    fast, safe, full = tiers
    crates: dict[str, set[str]] = {}
    for path in paths:
        crate = found.nearest(path, CARGO)
        if crate is not None:
            stem = posixpath.basename(path)[:-3]
            names = crates.setdefault(crate, set())
            if stem not in ("lib", "main", "mod") and found.exists(path):
                names.add(stem)
    for crate, stems in sorted(crates.items()):
        flag = f"--manifest-path {shlex.quote(posixpath.join(crate, 'Cargo.toml'))} " if crate else ""
        fast.append(f"cargo test {flag}{min(stems) if stems else ''}")
        safe.append(f"cargo clippy {flag}--all-targets")
        full.append(f"cargo test {flag}--all")


def _java(found: Manifests, paths: list[str], tests: list[str], tiers: tuple[list[str], ...]) -> None:
    """Each covering test class (Java, Kotlin or Scala), run by the Maven or Gradle build nearest to it."""
    fast, _safe, full = tiers
    java_tests = [t for t in tests if t.endswith((".java", ".kt", ".scala"))]
    projects = list(dict.fromkeys(f for f in (found.nearest(p, MAVEN + GRADLE) for p in paths) if f is not None))
    by_project = _group(java_tests, lambda t: found.nearest(t, MAVEN + GRADLE))
    for project in dict.fromkeys([*projects, *(f for f in by_project if f is not None)]):
        classes = [posixpath.basename(t).split(".", 1)[0] for t in by_project.get(project, [])][:3]
        if any(found.exists(posixpath.join(project, m)) for m in MAVEN):
            flag = f"-f {shlex.quote(posixpath.join(project, 'pom.xml'))} " if project else ""
            fast.extend(f"mvn -q {flag}test -Dtest={c}" for c in classes)
            full.append(f"mvn -q {flag}test")
        else:
            runner = found.gradle_runner(project)
            flag = f"-p {shlex.quote(project)} " if project else ""
            fast.extend(f"{runner} {flag}test --tests {c}" for c in classes)
            full.append(f"{runner} {flag}test")


def _make(found: Manifests, paths: list[str], tiers: tuple[list[str], ...]) -> None:
    """`lint`, `test` and `check` of the nearest Makefile defining one (`make -C DIR` when nested)."""
    _fast, safe, full = tiers
    for path in paths:
        hit = found.make_targets(path, ("lint", "test", "check"))
        if hit is None:
            continue
        folder, targets = hit
        make = f"make -C {shlex.quote(folder)}" if folder else "make"
        if "lint" in targets:
            safe.append(f"{make} lint")
        full.extend(f"{make} {t}" for t in ("test", "check") if t in targets)


def _group(items: list[str], key) -> dict:
    """`items` grouped by `key`, groups in the order of their first item, at most `_MOST` each."""
    out: dict = {}
    for item in items:
        k = key(item)
        if k is None:
            continue
        group = out.setdefault(k, [])
        if len(group) < _MOST:
            group.append(item)
    return out


def _in(folder: str, command: str) -> str:
    return f"cd {shlex.quote(folder)} && {command}" if folder else command


def _rel(path: str, folder: str) -> str:
    return posixpath.relpath(path, folder) if folder else path


def _quoted(paths) -> str:
    return " ".join(shlex.quote(p) for p in list(paths)[:_MOST])


def _family(path: str) -> str | None:
    ext = posixpath.splitext(path)[1].lower()
    if ext in (".py", ".pyi"):
        return "python"
    if ext in (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts"):
        return "js"
    return {".go": "go", ".rs": "rust", ".java": "java", ".kt": "java", ".kts": "java"}.get(ext)


def _has_go_files(folder: Path) -> bool:
    try:
        return any(p.suffix == ".go" for p in folder.iterdir())
    except OSError:
        return False


def _unique(commands: list[str]) -> list[str]:
    return list(dict.fromkeys(c.strip() for c in commands if c.strip()))
