"""Modules from the repository's facts: directories first, merged or split by import cohesion.

A module is a unit someone would name. A folder with too few files of its own joins its parent,
and so does a small one that only its parent uses (a private part of it); a folder with many
files of its own is split into the groups its imports draw (`cohesion.py`), its most imported
files staying under the folder's own name. Folders listed as `boundaries` in
`.pallium/modules.json` are modules whatever their size, and are never split or merged. Then
each module gets its facts: files, languages, the symbol surface ranked by how many files
reference each name, dependency edges both ways with counts, external packages, tests and
recent history.
"""

from __future__ import annotations

import json
import posixpath
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from kernel.errors import PalliumError
from kernel.generated import generated_by_name
from services.knowledge import cohesion

__all__ = ["Config", "Module", "build_modules", "load_config", "slug_of"]

MIN_FILES = 2  # a folder with fewer files of its own joins its parent
COHESIVE_MAX = 12  # a folder up to this size joins its parent when only the parent uses it
SURFACE = 25
ROOT = ""
_TEXT_SURFACE_KINDS = {"heading", "section"}
_TEST_FOLDERS = {"test", "tests", "__tests__", "testdata", "fixtures", "spec", "e2e"}  # never split
_NOT_CODE = {None, "text", "config", "other", "markdown", "sql", "shell", "bash"}  # never split by imports
_INCIDENT = re.compile(r"\b(revert(s|ed|ing)?|roll(ed|s|ing)?[ -]?back|rollback|hot-?fix(es|ed)?|outage)\b", re.I)
INCIDENT_WORDS = ("revert", "rollback", "roll back", "rolled back", "hotfix", "hot-fix", "outage")


@dataclass(frozen=True)
class Config:
    """`.pallium/modules.json`: folders that are modules, paths left out, untracked files let in."""

    boundaries: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    include_untracked: tuple[str, ...] = ()


@dataclass
class Module:
    path: str  # the folder, or `folder@group` for a group split out of a large folder
    files: list[str]
    group: str | None = None
    languages: dict[str, int] = field(default_factory=dict)
    lines: int = 0
    surface: list[dict[str, Any]] = field(default_factory=list)
    depends_on: list[dict[str, Any]] = field(default_factory=list)
    used_by: list[dict[str, Any]] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    commit_count: int = 0
    is_tests: bool = False
    readme: str | None = None

    @property
    def folder(self) -> str:
        return self.path[: -len(self.group) - 1] if self.group else self.path

    @property
    def slug(self) -> str:
        return slug_of(self.folder, self.group)

    def as_dict(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "path": self.path or ".",
            "folder": self.folder or ".",
            "group": self.group,
            "files": self.files,
            "languages": self.languages,
            "lines": self.lines,
            "surface": self.surface,
            "depends_on": self.depends_on,
            "used_by": self.used_by,
            "external": self.external,
            "tests": self.tests,
            "history": self.history,
            "commit_count": self.commit_count,
            "is_tests": self.is_tests,
        }


def slug_of(module_path: str, group: str | None = None) -> str:
    """The URL-escaped path (`internal/workflow` -> `internal%2Fworkflow`); the root folder is `@root`,
    a group split out of a folder `lib%2Form@loading` (`@` is always escaped in a path's slug, so
    no folder can take these names)."""
    base = quote(module_path, safe="") if module_path else "@root"
    return f"{base}@{quote(group, safe='')}" if group else base


def load_config(root: Path) -> Config:
    path = root / ".pallium" / "modules.json"
    if not path.is_file():
        return Config()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PalliumError(
            "invalid_input",
            f".pallium/modules.json is not valid JSON: {exc}",
            hint="fix or delete .pallium/modules.json; it takes `boundaries`, `exclude` and `include_untracked` lists",
            details={"path": ".pallium/modules.json"},
        ) from exc
    if not isinstance(data, dict) or set(data) - {"boundaries", "exclude", "include_untracked"}:
        raise PalliumError(
            "invalid_input",
            ".pallium/modules.json takes only `boundaries`, `exclude` and `include_untracked`",
            hint="remove the other keys from .pallium/modules.json",
            details={"path": ".pallium/modules.json", "keys": sorted(data) if isinstance(data, dict) else []},
        )
    out = {}
    for key in ("boundaries", "exclude", "include_untracked"):
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise PalliumError(
                "invalid_input",
                f".pallium/modules.json: `{key}` must be a list of repository paths",
                hint=f'write `{key}` as a list of strings such as ["src/core"]',
                details={"path": ".pallium/modules.json", "field": key},
            )
        out[key] = tuple(_clean(v) for v in value if _clean(v) is not None)
    return Config(**out)


def included(facts: dict[str, Any], config: Config) -> list[dict[str, Any]]:
    """The files the base describes: tracked (or named in `include_untracked`), parsed, not excluded."""
    from kernel import generated

    untracked = set(config.include_untracked)
    out = []
    for f in facts["files"]:
        path = f["path"]
        if f["skip_reason"] or generated.skip_reason(path) or generated.is_lockfile(path):
            continue
        if not f["tracked"] and path not in untracked:
            continue
        if any(path == e or path.startswith(e + "/") for e in config.exclude):
            continue
        out.append(f)
    return out


def build_modules(facts: dict[str, Any], config: Config) -> list[Module]:
    files = included(facts, config)
    paths = [f["path"] for f in files]
    known = set(paths)
    edges = [(e["src"], e["dst"]) for e in facts["edges"] if e["src"] in known and e["dst"] in known]
    code = {f["path"] for f in files if not f["test"] and f["language"] not in _NOT_CODE}
    owner, groups = _cluster(paths, edges, config.boundaries, code)
    modules: dict[str, Module] = {}
    for path in paths:
        key = owner[path]
        modules.setdefault(key, Module(path=key, files=[], group=groups.get(key))).files.append(path)
    by_path = {f["path"]: f for f in files}
    for m in modules.values():
        m.files.sort()
        m.languages = dict(Counter(by_path[p]["language"] or "unknown" for p in m.files).most_common())
        m.lines = sum(by_path[p]["lines"] for p in m.files)
        m.is_tests = all(by_path[p]["test"] for p in m.files)
    _surface(modules, owner, facts)
    _dependencies(modules, owner, edges)
    _external(modules, owner, facts)
    _tests(modules, owner, by_path, facts)
    _history(modules, owner, facts)
    return sorted(modules.values(), key=lambda m: m.path)


def incidents(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """Commits whose subject announces a revert, rollback, hotfix or outage: candidates, unconfirmed."""
    return [
        {"sha": c["sha"], "committed_at": c["committed_at"], "subject": c["subject"], "files": c["files"]}
        for c in facts["commits"]
        if _INCIDENT.search(c["subject"])
    ]


def _clean(value: str) -> str | None:
    text = value.strip().replace("\\", "/").strip("/")
    while text.startswith("./"):
        text = text[2:]
    if not text or text == "." or text.startswith("../") or "/../" in f"/{text}/":
        return None
    return text


def _cluster(
    paths: list[str], edges: list[tuple[str, str]], boundaries: tuple[str, ...], code: set[str]
) -> tuple[dict[str, str], dict[str, str]]:
    """`{file: module key}` and `{key: group}` for the keys that are groups of a split folder.

    Only source files (`code`: not tests, not prose, styles or configuration) are grouped; the
    others stay with the folder's core, as do files of the small folders merged into it.
    """
    owner: dict[str, str] = {}
    for path in paths:
        folder = posixpath.dirname(path)
        fixed = [b for b in boundaries if path.startswith(b + "/")]
        owner[path] = max(fixed, key=len) if fixed else folder
    fixed_folders = set(boundaries)
    members: dict[str, set[str]] = defaultdict(set)
    for path, folder in owner.items():
        members[folder].add(path)
    # Deepest folders first, so a chain of thin folders folds up one level at a time.
    for folder in sorted(list(members), key=lambda f: (-f.count("/"), f)):
        if folder == ROOT or folder in fixed_folders or folder not in members:
            continue
        own = members[folder]
        parent = posixpath.dirname(folder)
        if len(own) < MIN_FILES or (len(own) <= COHESIVE_MAX and _private_to(own, members.get(parent, set()), edges)):
            members[parent] |= own
            for path in own:
                owner[path] = parent
            del members[folder]
    groups: dict[str, str] = {}
    for folder in sorted(members):
        if folder in fixed_folders or _TEST_FOLDERS & set(folder.split("/")):
            continue
        direct = sorted(p for p in members[folder] if posixpath.dirname(p) == folder and p in code)
        if len(direct) < cohesion.SPLIT_MIN:
            continue
        for path, group in cohesion.split_folder(direct, edges).items():
            key = f"{folder}@{group}" if folder else f"@{group}"
            owner[path] = key
            groups[key] = group
    return owner, groups


def _private_to(own: set[str], parent: set[str], edges: list[tuple[str, str]]) -> bool:
    """The folder is a private part of its parent: the parent's files use it and nothing else does.

    Importing the parent is not enough: a folder of plugins all importing the package's `exc`
    and `util` is a unit of its own (`ext/`, `optimizer/`), one another folder uses too.
    """
    if len(parent) < 3:
        return False
    from_parent = from_elsewhere = 0
    for src, dst in edges:
        if dst in own and src not in own:
            if src in parent:
                from_parent += 1
            else:
                from_elsewhere += 1
    return from_parent >= 1 and from_elsewhere == 0


# Languages whose imports the index resolves to files, and where a name is reached only by import.
_IMPORT_RESOLVED = frozenset({"python", "javascript", "typescript", "tsx", "jsx"})


def _surface(modules: dict[str, Module], owner: dict[str, str], facts: dict[str, Any]) -> None:
    """Each module's top-level names, most referenced first.

    A name is ranked by the files referencing it, resolved where the index can resolve it: in
    Python, JavaScript and TypeScript (where a top-level name is reached only by importing its
    file) the files whose references the index resolves to it through an import
    (`resolved_referencing`); for any other name defined in several files (`run`, `search`), at
    most the files that import its own file, which is what could really reach it.
    """
    refs = facts["referencing_files"]
    definers: Counter[str] = Counter()
    for s in facts["symbols"]:
        if s["parent"] is None:
            definers[s["name"]] += 1
    importers: Counter[str] = Counter(e["dst"] for e in facts["edges"])
    per: dict[str, list[dict[str, Any]]] = defaultdict(list)
    tables = set(facts.get("data_tables", ()))
    for s in facts["symbols"]:
        module = owner.get(s["path"])
        # A generator's output (`_options_gen.ts`, `api_pb2.py`) or a data table (`EMOJI` in `_emoji_codes.py`)
        # is no part of what a module offers or is for.
        if module is not None and s["parent"] is None and not generated_by_name(s["path"]) and s["path"] not in tables:
            per[module].append(s)

    language = {f["path"]: f["language"] for f in facts["files"]}

    resolved = facts.get("resolved_referencing") or {}

    def reach(s: dict[str, Any]) -> int:
        if resolved and language.get(s["path"]) in _IMPORT_RESOLVED:
            # The index's resolved references: files importing the definer (or a package passing the
            # name on) and naming it as that import brings it; not every file spelling the name.
            return resolved.get(f"{s['path']}#{s['name']}", 0)
        count = refs.get(s["name"], 0)
        if definers[s["name"]] > 1 or language.get(s["path"]) in _IMPORT_RESOLVED:
            # Resolved through the import graph: a file can use a top-level name of a Python or
            # JavaScript/TypeScript file only by importing that file, so `dns`, named in 45 files,
            # counts the 2 that import its definer.
            return min(count, importers[s["path"]])
        return count

    for module, symbols in per.items():
        m = modules[module]
        code = [s for s in symbols if s["kind"] not in _TEXT_SURFACE_KINDS]
        pool = code or symbols
        ranked = sorted(pool, key=lambda s: (s["name"].startswith("_"), -reach(s), s["path"], s["start_line"]))
        seen: set[str] = set()
        for s in ranked:
            if s["name"] in seen:
                continue
            seen.add(s["name"])
            m.surface.append(
                {
                    "name": s["name"],
                    "kind": s["kind"],
                    "path": s["path"],
                    "line": s["start_line"],
                    "end_line": s["end_line"],
                    "signature": s["signature"][:160],
                    "doc": (s["doc"] or "")[:160] or None,
                    "referencing_files": reach(s),
                }
            )
            if len(m.surface) >= SURFACE:
                break


def _dependencies(modules: dict[str, Module], owner: dict[str, str], edges: list[tuple[str, str]]) -> None:
    counts: Counter[tuple[str, str]] = Counter()
    for src, dst in edges:
        a, b = owner[src], owner[dst]
        if a != b:
            counts[(a, b)] += 1
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    into: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (a, b), n in counts.most_common():
        out[a].append({"module": modules[b].slug, "path": b or ".", "imports": n})
        into[b].append({"module": modules[a].slug, "path": a or ".", "imports": n})
    for path, m in modules.items():
        m.depends_on = out.get(path, [])
        m.used_by = into.get(path, [])


def _external(modules: dict[str, Module], owner: dict[str, str], facts: dict[str, Any]) -> None:
    languages = {f["path"]: f["language"] for f in facts["files"]}
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for imp in facts["external"]:
        module = owner.get(imp["path"])
        if module is None:
            continue
        package = package_of(languages.get(imp["path"]) or "", imp["raw"])
        if package:
            found[module][package] += 1
    for path, counter in found.items():
        modules[path].external = [name for name, _ in counter.most_common(30)]


def package_of(language: str, raw: str) -> str | None:
    """The package an unresolved import names, or None for relative paths and standard libraries."""
    raw = raw.strip()
    if not raw or raw.startswith((".", "/")):
        return None
    if language == "python":
        top = raw.split(".", 1)[0]
        return None if top in sys.stdlib_module_names or top == "__future__" else top
    if language in ("javascript", "typescript", "tsx"):
        if raw.startswith(("node:", "bun:", "deno:")):
            return None
        parts = raw.split("/")
        return "/".join(parts[:2]) if raw.startswith("@") else parts[0]
    if language == "go":
        parts = raw.split("/")
        return None if "." not in parts[0] else "/".join(parts[:3])
    if language == "rust":
        top = raw.split("::", 1)[0]
        return None if top in ("std", "core", "alloc", "crate", "self", "super") else top
    if language == "java":
        return None if raw.startswith(("java.", "javax.")) else ".".join(raw.split(".")[:2])
    return raw.split("/")[0]


def _tests(modules: dict[str, Module], owner: dict[str, str], by_path: dict[str, Any], facts: dict[str, Any]) -> None:
    paired = facts["tests"]
    for m in modules.values():
        found: set[str] = set()
        for path in m.files:
            if by_path[path]["test"]:
                found.add(path)
            found.update(t for t in paired.get(path, ()) if t in owner)
        m.tests = sorted(found, key=lambda t: (_distance(t, m.path), t))


def _distance(test: str, module_path: str) -> int:
    """How far a test sits from the module: shared folder names count, so `tests/repo/` ranks near `repo/`
    (and `tests/orm/test_loading.py` near `orm@loading`)."""
    stem = posixpath.basename(test).split(".", 1)[0].removeprefix("test_").removesuffix("_test")
    test_parts = set(posixpath.dirname(test).split("/")) | {stem}
    module_parts = set(module_path.replace("@", "/").split("/")) if module_path else set()
    return -len(test_parts & module_parts)


def _history(modules: dict[str, Module], owner: dict[str, str], facts: dict[str, Any]) -> None:
    for c in facts["commits"]:
        touched = {owner[p] for p in c["files"] if p in owner}
        for path in touched:
            m = modules[path]
            m.commit_count += 1
            if len(m.history) < 8:
                m.history.append({"sha": c["sha"], "committed_at": c["committed_at"], "subject": c["subject"][:160]})
