"""The build manifests that govern a path: the nearest one at or above it, read without running anything.

`verification.py` turns what this finds into commands. Every read stays inside the repository: a
manifest reached through a symlink pointing outside it counts as absent, since a repository may be
hostile and its commands must come from its own files.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Manifests", "NodePackage"]

PYTHON_MARKERS = ("pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini", "setup.py")
CARGO = ("Cargo.toml",)
MAVEN = ("pom.xml",)
GRADLE = ("build.gradle", "build.gradle.kts")
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")  # the order make itself looks them up in
_LOCKFILES = (
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
    ("package-lock.json", "npm"),
    ("npm-shrinkwrap.json", "npm"),
)
_RUNNERS = ("vitest", "jest")


@dataclass(frozen=True)
class NodePackage:
    """One package.json: its folder ("" for the root), scripts, manager and test runner."""

    folder: str
    scripts: dict[str, str]
    manager: str  # npm, pnpm, yarn or bun: from the nearest lockfile or `packageManager`
    runner: str | None  # vitest, jest or node (`node --test`); None when none is known


@dataclass
class Manifests:
    """Nearest-manifest lookups over one repository, cached for the length of one answer."""

    root: Path
    _found: dict[tuple[str, tuple[str, ...]], str | None] = field(default_factory=dict)
    _files: dict[str, bool] = field(default_factory=dict)
    _texts: dict[str, str | None] = field(default_factory=dict)
    _packages: dict[str, NodePackage] = field(default_factory=dict)

    def nearest(self, path: str, names: tuple[str, ...], *, is_folder: bool = False) -> str | None:
        """The nearest folder at or above `path` (its folder, for a file) holding one of `names`
        ("" for the root), or None."""
        folder = path.strip("/") if is_folder else posixpath.dirname(path)
        seen: list[str] = []
        found: str | None = None
        while True:
            key = (folder, names)
            if key in self._found:
                found = self._found[key]
                break
            seen.append(folder)
            if any(self.exists(posixpath.join(folder, n)) for n in names):
                found = folder
                break
            if not folder:
                break
            folder = posixpath.dirname(folder)
        for f in seen:  # every folder walked through has the same answer
            self._found[(f, names)] = found
        return found

    def exists(self, relative: str) -> bool:
        """Whether `relative` is a regular file inside the repository (not through an escaping symlink)."""
        if relative not in self._files:
            target = self.root / relative
            try:
                self._files[relative] = target.is_file() and target.resolve().is_relative_to(self.root.resolve())
            except (OSError, ValueError):
                self._files[relative] = False
        return self._files[relative]

    def text(self, relative: str) -> str | None:
        """A file's text when it is a regular file inside the repository, else None."""
        if relative not in self._texts:
            self._texts[relative] = self._read(relative)
        return self._texts[relative]

    def python_project(self, path: str) -> str:
        """The folder of the Python project governing `path`: the nearest pyproject.toml, pytest.ini,
        setup.cfg, tox.ini or setup.py, else the root."""
        return self.nearest(path, PYTHON_MARKERS) or ""

    def uses_ruff(self, path: str) -> bool:
        """Whether a ruff configuration applies to `path` (ruff reads the nearest one itself)."""
        folder = posixpath.dirname(path)
        while True:
            if self.exists(posixpath.join(folder, "ruff.toml")) or self.exists(posixpath.join(folder, ".ruff.toml")):
                return True
            if "[tool.ruff" in (self.text(posixpath.join(folder, "pyproject.toml")) or ""):
                return True
            if not folder:
                return False
            folder = posixpath.dirname(folder)

    def node_package(self, path: str) -> NodePackage | None:
        """The package.json nearest `path`, with the manager and test runner that apply to it."""
        folder = self.nearest(path, ("package.json",))
        if folder is None:
            return None
        if folder not in self._packages:
            self._packages[folder] = self._node_package(folder)
        return self._packages[folder]

    def _node_package(self, folder: str) -> NodePackage:
        data = self._json(posixpath.join(folder, "package.json"))
        listed = data.get("scripts") if isinstance(data.get("scripts"), dict) else {}
        scripts = {k: v for k, v in listed.items() if isinstance(v, str)}
        manager = self._manager(folder, data)
        return NodePackage(folder=folder, scripts=scripts, manager=manager, runner=self._runner(folder))

    def make_targets(self, path: str, wanted: tuple[str, ...]) -> tuple[str, set[str]] | None:
        """The nearest Makefile at or above `path` defining any of `wanted`, and its targets."""
        folder: str | None = posixpath.dirname(path)
        while folder is not None:
            folder = self.nearest(folder, MAKEFILES, is_folder=True)
            if folder is None:
                return None
            name = next(n for n in MAKEFILES if self.exists(posixpath.join(folder, n)))
            text = self.text(posixpath.join(folder, name)) or ""
            targets = set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", text, re.M))
            if targets & set(wanted):
                return folder, targets
            folder = posixpath.dirname(folder) if folder else None
        return None

    def gradle_runner(self, folder: str) -> str:
        """`./gradlew` (or `./sub/gradlew`) when a wrapper sits at or above `folder`, else `gradle`."""
        wrapper = self.nearest(folder, ("gradlew",), is_folder=True)
        if wrapper is None:
            return "gradle"
        return "./" + posixpath.join(wrapper, "gradlew")

    # helpers -------------------------------------------------------------------------------------

    def _read(self, relative: str) -> str | None:
        if not self.exists(relative):
            return None
        try:
            return (self.root / relative).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def _json(self, relative: str) -> dict:
        try:
            data = json.loads(self.text(relative) or "")
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def _manager(self, folder: str, data: dict) -> str:
        """The nearest lockfile at or above the package (a workspace keeps one at its root), else the
        `packageManager` field, else npm."""
        current: str | None = folder
        while current is not None:
            for lockfile, name in _LOCKFILES:
                if self.exists(posixpath.join(current, lockfile)):
                    return name
            declared = self._json(posixpath.join(current, "package.json")).get("packageManager")
            if isinstance(declared, str) and declared.split("@", 1)[0] in ("npm", "pnpm", "yarn", "bun"):
                return declared.split("@", 1)[0]
            current = posixpath.dirname(current) if current else None
        return "npm"

    def _runner(self, folder: str) -> str | None:
        """The package's test runner: what its `test` script calls, else its declared dependency or
        config file, else one a workspace above it declares (dependencies hoist to the root)."""
        current: str | None = folder
        while current is not None:
            data = self._json(posixpath.join(current, "package.json"))
            scripts = data.get("scripts") if isinstance(data.get("scripts"), dict) else {}
            test = scripts.get("test") if isinstance(scripts.get("test"), str) else ""
            if re.search(r"(^|[\s;&|])node\s+(\S+\s+)*--test\b", test):
                return "node"
            for runner in _RUNNERS:
                if re.search(rf"(^|[\s;&|/]){runner}(\s|$)", test):
                    return runner
            deps: set[str] = set()
            for key in ("dependencies", "devDependencies"):
                if isinstance(data.get(key), dict):
                    deps.update(data[key])
            for runner in _RUNNERS:
                configs = (f"{runner}.config.{ext}" for ext in ("js", "ts", "mjs", "cjs", "mts", "json"))
                if runner in deps or any(self.exists(posixpath.join(current, c)) for c in configs):
                    return runner
            if "jest" in data:  # jest's configuration may live in package.json itself
                return "jest"
            current = posixpath.dirname(current) if current else None
        return None
