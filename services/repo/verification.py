"""Verification commands inferred from the repository's own tooling: fast, safe and full tiers.

Reads only configuration files at the repository root (pyproject, pytest.ini, go.mod, package.json,
Cargo.toml, pom.xml/build.gradle, Makefile); never runs anything.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from pathlib import Path

from services.repo.models import Verification

__all__ = ["verification_for"]


def verification_for(root: Path, paths: list[str], tests: list[str]) -> Verification:
    """Commands to run before and after editing `paths`, given the tests that cover them."""
    fast: list[str] = []
    safe: list[str] = []
    full: list[str] = []
    languages = {_family(p) for p in paths} - {None}
    make_targets = _make_targets(root)
    if "python" in languages:
        stems = {posixpath.basename(p).rsplit(".", 1)[0] for p in paths}
        py_tests = sorted(  # the file's own test (test_x.py, x_test.py) first, then the importing ones
            (t for t in tests if t.endswith(".py") and (root / t).exists()),
            key=lambda t: (_own_test_stem(t) not in stems, t),
        )
        if py_tests:
            fast.append("python -m pytest -q " + " ".join(shlex.quote(t) for t in py_tests[:5]))
        folders = [f for f in sorted({posixpath.dirname(t) for t in py_tests} or {_python_test_dir(root)}) if f]
        if folders:
            safe.append("python -m pytest -q " + " ".join(shlex.quote(f) for f in folders[:5]))
        lintable = [p for p in paths if p.endswith((".py", ".pyi")) and (root / p).is_file()]
        if lintable and _uses_ruff(root):  # only existing Python files: ruff fails on a lockfile or a deleted path
            safe.append("ruff check " + " ".join(shlex.quote(p) for p in lintable[:5]))
        full.append("python -m pytest -q")
    if "go" in languages:
        for module, packages in sorted(_go_packages(root, paths).items()):
            flag = f"-C {shlex.quote(module)} " if module else ""  # a nested module runs in its own folder
            fast.append(f"go {flag}test " + " ".join(packages[:5]))
            safe.append(f"go {flag}vet " + " ".join(packages[:5]))
            full.append(f"go {flag}test ./...")
    if "js" in languages and (root / "package.json").exists():
        manager, scripts, deps = _node(root)
        js_tests = [t for t in tests if _family(t) == "js"]
        if js_tests and "vitest" in deps:
            fast.append("npx vitest run " + " ".join(shlex.quote(t) for t in js_tests[:5]))
        elif js_tests and "jest" in deps:
            fast.append("npx jest " + " ".join(shlex.quote(t) for t in js_tests[:5]))
        for script in ("lint", "typecheck", "type-check"):
            if script in scripts:
                safe.append(f"{manager} run {script}")
        for script in ("test:unit", "test"):
            if script in scripts:
                (safe if script == "test:unit" else full).append(f"{manager} {'run ' if ':' in script else ''}{script}")
    if "rust" in languages and (root / "Cargo.toml").exists():
        stems = sorted({posixpath.basename(p)[:-3] for p in paths if p.endswith(".rs")} - {"lib", "main", "mod"})
        fast.append("cargo test " + stems[0] if stems else "cargo test")
        safe.append("cargo clippy --all-targets")
        full.append("cargo test --all")
    if "java" in languages:
        classes = [posixpath.basename(t)[:-5] for t in tests if t.endswith(".java")]
        if (root / "pom.xml").exists():
            fast.extend(f"mvn -q test -Dtest={c}" for c in classes[:3])
            full.append("mvn -q test")
        elif (root / "build.gradle").exists() or (root / "build.gradle.kts").exists():
            runner = "./gradlew" if (root / "gradlew").exists() else "gradle"
            fast.extend(f"{runner} test --tests {c}" for c in classes[:3])
            full.append(f"{runner} test")
    if "lint" in make_targets:
        safe.append("make lint")
    if "test" in make_targets:
        full.append("make test")
    if "check" in make_targets:
        full.append("make check")
    return Verification(fast=_unique(fast), safe=_unique(safe), full=_unique(full))


def _own_test_stem(test: str) -> str:
    """`tests/test_io.py` and `io_test.py` -> `io`."""
    stem = posixpath.basename(test).rsplit(".", 1)[0]
    return stem.removeprefix("test_").removesuffix("_test")


def _family(path: str) -> str | None:
    ext = posixpath.splitext(path)[1].lower()
    if ext in (".py", ".pyi"):
        return "python"
    if ext in (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts"):
        return "js"
    return {".go": "go", ".rs": "rust", ".java": "java"}.get(ext)


def _go_packages(root: Path, paths: list[str]) -> dict[str, list[str]]:
    """The changed Go packages (`./pkg`) grouped by the folder of the go.mod that holds them."""
    out: dict[str, set[str]] = {}
    for path in paths:
        if not path.endswith(".go"):
            continue
        folder = posixpath.dirname(path)
        module = _module_folder(root, folder)
        if module is not None:
            package = posixpath.relpath(folder or ".", module or ".")
            out.setdefault(module, set()).add("." if package == "." else "./" + package)
    return {m: sorted(p) for m, p in out.items()}


def _module_folder(root: Path, folder: str) -> str | None:
    """The nearest folder at or above `folder` holding a go.mod ("" for the root), or None."""
    while not (root / folder / "go.mod").exists():
        if not folder:
            return None
        folder = posixpath.dirname(folder)
    return folder


def _python_test_dir(root: Path) -> str:
    for candidate in ("tests", "test"):
        if (root / candidate).is_dir():
            return candidate
    return ""


def _uses_ruff(root: Path) -> bool:
    if (root / "ruff.toml").exists() or (root / ".ruff.toml").exists():
        return True
    try:
        return "[tool.ruff" in (root / "pyproject.toml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _node(root: Path) -> tuple[str, dict[str, str], set[str]]:
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        data = {}
    scripts = data.get("scripts") if isinstance(data.get("scripts"), dict) else {}
    deps: set[str] = set()
    for key in ("dependencies", "devDependencies"):
        if isinstance(data.get(key), dict):
            deps.update(data[key])
    manager = "npm"
    for lockfile, name in (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun")):
        if (root / lockfile).exists():
            manager = name
    return manager, scripts, deps


def _make_targets(root: Path) -> set[str]:
    try:
        text = (root / "Makefile").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    return set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", text, re.M))


def _unique(commands: list[str]) -> list[str]:
    return list(dict.fromkeys(c.strip() for c in commands if c.strip()))
