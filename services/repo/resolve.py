"""Import resolution: from each file's raw imports to files of this repository.

Resolution reads only the cached per-file facts, the list of paths and the module configuration
(`ImportResolver.fingerprint`). An index run redoes it as a whole whenever the paths or that
configuration moved, and otherwise for the changed files alone, whose imports are the only ones
that can lead elsewhere: an edge never goes stale because an unchanged importer was not reparsed.
Python (relative imports, `src/` layouts), JavaScript/TypeScript (relative paths, index files,
tsconfig `paths`/`baseUrl`), Go (module paths from every go.mod, nested modules included), Rust
(`mod`, `use crate::`), Java.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from services.repo.resolve_pack import PackResolver

__all__ = ["ImportResolver", "resolve_imports"]

_JS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".json")
_JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
# Bumped when the edges the same inputs give change, so every index resolves its imports again once.
RESOLVER_VERSION = 4
_WHOLE = "\0"  # a whole-module import while edges are merged: no name can be it


def _edge_names(words: set[str]) -> str:
    """An edge's names: empty for whole-module imports alone, else the names, with `*` when open to all."""
    if words == {_WHOLE}:
        return ""
    if _WHOLE in words:
        words = (words - {_WHOLE}) | {"*"}
    return " ".join(sorted(words))


def resolve_imports(
    root: Path,
    paths: set[str],
    imports: Iterable[tuple[str, str | None, str, str]],  # `(path, language, raw, names)`: store.ImportRow
    namespaces: dict[str, list[str]] | None = None,
) -> list[tuple[str, str, str, str]]:
    """Edges `(importer, imported, raw, names)` for every import that names a file in `paths`, sorted."""
    return ImportResolver(root, paths, namespaces or {}).edges(imports)


class ImportResolver:
    """Resolves imports against one list of paths and the repository's module configuration."""

    def __init__(self, root: Path, paths: set[str], namespaces: dict[str, list[str]]) -> None:
        self.pack = PackResolver(root, paths, namespaces)
        self.root = root
        self.paths = paths
        self.python_roots = ["", *sorted({p.split("/", 1)[0] + "/" for p in paths if p.startswith("src/")})[:1]]
        self.go_modules = _go_modules(root, paths)
        self.go_dirs: dict[str, list[str]] = defaultdict(list)
        for p in sorted(paths):
            if p.endswith(".go") and not p.endswith("_test.go"):
                self.go_dirs[posixpath.dirname(p)].append(p)
        self.java_paths = sorted(p for p in paths if p.endswith(".java"))
        self.ts_base, self.ts_base_url, self.ts_paths = _tsconfig(root)
        self.workspace = _workspace_packages(root, paths)
        self.python_absolute: dict[tuple[str, str], list[str]] = {}

    @property
    def fingerprint(self) -> str:
        """Everything besides the path list that decides where an import leads (this code's version,
        module files, tsconfig, composer's map, declared namespaces): while it and the paths stay,
        only changed files' imports can resolve differently."""
        inputs = [
            RESOLVER_VERSION,
            self.python_roots,
            self.go_modules,
            [self.ts_base, self.ts_base_url, self.ts_paths],
            [(n, f, json.dumps(e), en) for n, (f, e, en) in sorted(self.workspace.items())],
            self.pack.psr4,
            sorted(self.pack.namespaces.items()),
            self.pack.include_dirs,
        ]
        encoded = json.dumps(inputs, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogateescape")
        return hashlib.sha1(encoded, usedforsecurity=False).hexdigest()

    def edges(self, imports: Iterable[tuple[str, str | None, str, str]]) -> list[tuple[str, str, str, str]]:
        """Edges `(importer, imported, raw, names)` for `imports` (`(path, language, raw, names)`), sorted.

        One edge per (importer, imported, raw): two imports of the same module (`from .io import A`,
        `from .io import B`) give one edge holding every name, in sorted order, so the result never
        depends on the order the imports were read in. A whole-module import (no names) opens the
        edge to every name: alone, its names are empty; beside imports by name, the edge keeps
        those names and `*` (`import { ref } from 'vue'` and `import * as vue from 'vue'`), so a
        bare `ref` there is still known to come from that module.
        """
        merged: dict[tuple[str, str, str], set[str]] = {}
        for src, language, raw, names in sorted(imports, key=lambda i: (i[0], i[1] or "", i[2], i[3])):
            for dst in self.resolve(src, language or "", raw, names):
                if dst != src:
                    merged.setdefault((src, dst, raw), set()).update(names.split() or (_WHOLE,))
        return [(*key, _edge_names(words)) for key, words in sorted(merged.items())]

    def resolve(self, src: str, language: str, raw: str, names: str) -> list[str]:
        if language == "python":
            return self._python(src, raw, names)
        if language in _JS_LANGUAGES:
            return self._javascript(src, raw)
        if language == "go":
            return self._go(raw)
        if language == "rust":
            return self._rust(src, raw)
        if language == "java":
            return self._java(raw)
        return self.pack.resolve(src, language, raw)

    # python --------------------------------------------------------------------------------------

    def _python(self, src: str, raw: str, names: str) -> list[str]:
        if not raw.startswith("."):  # an absolute import means the same from every file
            key = (raw, names)
            if key not in self.python_absolute:
                self.python_absolute[key] = self._python_uncached(src, raw, names)
            return self.python_absolute[key]
        return self._python_uncached(src, raw, names)

    def _python_uncached(self, src: str, raw: str, names: str) -> list[str]:
        if raw.startswith("."):
            dots = len(raw) - len(raw.lstrip("."))
            base = posixpath.dirname(src)
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            rest = raw[dots:].replace(".", "/")
            bases = [posixpath.join(base, rest) if rest else base]
        else:
            bases = [r + raw.replace(".", "/") for r in self.python_roots]
        for base in bases:
            base = base.strip("/")
            # `from pkg import mod` names a submodule when pkg/mod.py exists; any other name
            # (`from pkg import Model, mod`) comes from the package itself, which is then reached too.
            submodules, plain = [], False
            for name in names.split():
                hit = self._python_module(posixpath.join(base, name) if base else name)
                if hit:
                    submodules.append(hit)
                else:
                    plain = True
            package = self._python_module(base) if base else None
            if submodules:
                return submodules + ([package] if plain and package and package not in submodules else [])
            if package:
                return [package]
        return []

    def _python_module(self, base: str) -> str | None:
        for candidate in (base + ".py", base + ".pyi", base + "/__init__.py"):
            if candidate in self.paths:
                return candidate
        return None

    # javascript / typescript ---------------------------------------------------------------------

    def _javascript(self, src: str, raw: str) -> list[str]:
        if raw.startswith("."):
            return self._js_file(posixpath.normpath(posixpath.join(posixpath.dirname(src), raw)))
        for pattern, targets in self.ts_paths:
            prefix, star, suffix = pattern.partition("*")
            if star and raw.startswith(prefix) and raw.endswith(suffix):
                middle = raw[len(prefix) : len(raw) - len(suffix)] if suffix else raw[len(prefix) :]
                for target in targets:
                    hit = self._js_file(posixpath.normpath(posixpath.join(self.ts_base, target.replace("*", middle))))
                    if hit:
                        return hit
            elif not star and raw == pattern:
                for target in targets:
                    hit = self._js_file(posixpath.normpath(posixpath.join(self.ts_base, target)))
                    if hit:
                        return hit
        found = self._workspace_package(raw)
        if found:
            return found
        if self.ts_base_url is not None:  # only an explicit baseUrl makes bare paths files (`src/lib/b`)
            return self._js_file(posixpath.normpath(posixpath.join(self.ts_base_url, raw)))
        return []

    def _workspace_package(self, raw: str) -> list[str]:
        """A monorepo's own package imported by name (`@acme/core`, `zod/v4`): its workspace folder, as
        the package manager links it, through its `exports` (or `main`, `module`, `types`, `index`)."""
        if raw.startswith("@"):
            scope, _, rest = raw.partition("/")
            name, _, sub = rest.partition("/")
            name = f"{scope}/{name}"
        else:
            name, _, sub = raw.partition("/")
        package = self.workspace.get(name)
        if package is None:
            return []
        folder, exports, entries = package
        subpath = "./" + sub if sub else "."
        targets: list[str] = []
        if exports is not None:
            targets = _export_targets(exports, subpath)
        elif not sub:
            targets = entries
        else:
            targets = ["./" + sub]
        for target in targets:
            for candidate in _built_or_source(target):
                hit = self._js_file(posixpath.normpath(posixpath.join(folder, candidate)))
                if hit:
                    return hit
        return []

    def _js_file(self, base: str) -> list[str]:
        base = base.removeprefix("./")
        if base in self.paths:
            return [base]
        stem = re.sub(r"\.(js|jsx|mjs|cjs)$", "", base)  # TypeScript imports name the compiled `.js`
        for candidate in [stem + ext for ext in _JS_EXTENSIONS] + [f"{base}/index{ext}" for ext in _JS_EXTENSIONS]:
            if candidate in self.paths:
                return [candidate]
        return []

    # go, rust, java ------------------------------------------------------------------------------

    def _go(self, raw: str) -> list[str]:
        for module, folder in self.go_modules:  # longest module path first: a nested module wins
            if raw == module or raw.startswith(module + "/"):
                package = posixpath.join(folder, raw[len(module) :].strip("/")).strip("/")
                return sorted(self.go_dirs.get(posixpath.normpath(package) if package else "", []))
        return []

    def _rust(self, src: str, raw: str) -> list[str]:
        folder = posixpath.dirname(src)
        if raw.startswith("mod "):
            name = raw[4:]
            stem = posixpath.basename(src)[:-3]
            if stem not in ("main", "lib", "mod"):
                folder = posixpath.join(folder, stem)
            for candidate in (posixpath.join(folder, name + ".rs"), posixpath.join(folder, name, "mod.rs")):
                if candidate in self.paths:
                    return [candidate]
            return []
        parts = re.split(r"::", raw.split("{", 1)[0].strip(": "))
        if not parts or parts[0] not in ("crate", "self", "super"):
            return []
        base = _crate_src(src) if parts[0] == "crate" else folder
        if parts[0] == "super":
            base = posixpath.dirname(folder)
        segments = [p for p in parts[1:] if p and p not in ("self",)]
        for n in range(len(segments), 0, -1):  # `use crate::a::b::Item`: the longest prefix that is a file
            stem = posixpath.join(base, *segments[:n])
            for candidate in (stem + ".rs", stem + "/mod.rs"):
                if candidate in self.paths:
                    return [candidate]
        return []

    def _java(self, raw: str) -> list[str]:
        if raw.endswith(".*"):
            folder = raw[:-2].replace(".", "/")
            return sorted(p for p in self.java_paths if posixpath.dirname(p).endswith(folder))
        suffix = raw.replace(".", "/") + ".java"
        for p in self.java_paths:
            if p == suffix or p.endswith("/" + suffix):
                return [p]
        return []


_ENTRY_FIELDS = ("source", "module", "main", "types", "typings")
# Folders build tools write compiled output to; an entry there is read from the source beside it.
_BUILT = re.compile(r"^\./?(?:dist|lib|build|out|esm|cjs|mjs)(?:/(?:esm|cjs|mjs|types|src))?/")


def _workspace_packages(root: Path, paths: set[str]) -> dict[str, tuple[str, object, list[str]]]:
    """`name -> (folder, exports, entry points)` of every package.json the repository holds (outside
    node_modules), for imports of a monorepo's own packages by name; the root's too."""
    found: dict[str, tuple[str, object, list[str]]] = {}
    for path in sorted(paths):
        if posixpath.basename(path) != "package.json" or "node_modules/" in path:
            continue
        try:
            data = json.loads((root / path).read_text(encoding="utf-8", errors="replace"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"]:
            continue
        entries = [data[f] for f in _ENTRY_FIELDS if isinstance(data.get(f), str)] + ["./index", "./src/index"]
        found.setdefault(data["name"], (posixpath.dirname(path), data.get("exports"), entries))
    return found


def _export_targets(exports: object, subpath: str) -> list[str]:
    """The files an `exports` map gives `subpath` (`.`, `./util`, `./locale/fr`), in the order of its
    conditions; a wildcard key (`./locale/*`) fills in the matched part."""
    if isinstance(exports, (str, list)) or (
        isinstance(exports, dict) and exports and not any(str(k).startswith(".") for k in exports)
    ):
        exports = {".": exports}  # sugar: the map is the root subpath's conditions
    if not isinstance(exports, dict):
        return []
    if subpath in exports:
        return _condition_targets(exports[subpath], "")
    for key in sorted((k for k in exports if "*" in k), key=len, reverse=True):
        prefix, _, suffix = key.partition("*")
        if subpath.startswith(prefix) and subpath.endswith(suffix) and len(subpath) >= len(prefix) + len(suffix):
            return _condition_targets(exports[key], subpath[len(prefix) : len(subpath) - len(suffix)])
    return []


def _condition_targets(value: object, star: str, depth: int = 0) -> list[str]:
    if isinstance(value, str):
        return [value.replace("*", star)]
    if depth > 4:
        return []
    if isinstance(value, list):
        return [t for item in value for t in _condition_targets(item, star, depth + 1)]
    if isinstance(value, dict):  # every condition in order: the first that leads to a committed file wins
        return [t for item in value.values() for t in _condition_targets(item, star, depth + 1)]
    return []


def _built_or_source(target: str) -> list[str]:
    """The target, then (for built output not committed: `./dist/index.js`, `./dist/index.d.ts`) the
    source a compiler would have read: `./src/index`."""
    out = [target]
    stem = re.sub(r"\.d\.(?:ts|mts|cts)$|\.(?:js|mjs|cjs|jsx)$", "", target)
    if _BUILT.match(target):
        out.append(_BUILT.sub("./src/", stem))
    if stem != target:
        out.append(stem)
    return out


def _crate_src(src: str) -> str:
    parts = src.split("/")
    if "src" in parts:
        return "/".join([*parts[: len(parts) - 1 - parts[::-1].index("src")], "src"])
    return posixpath.dirname(src)


def _go_modules(root: Path, paths: set[str]) -> list[tuple[str, str]]:
    """`(module path, folder)` of every go.mod in the repository (nested modules too), longest path first."""
    modules = []
    for path in paths:
        if path != "go.mod" and not path.endswith("/go.mod"):
            continue
        try:
            text = (root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        match = re.search(r"^module\s+(\S+)", text, re.M)
        if match:
            modules.append((match.group(1).strip('"'), posixpath.dirname(path)))
    return sorted(modules, key=lambda m: (-len(m[0]), m[0]))


def _tsconfig(root: Path) -> tuple[str, str | None, list[tuple[str, list[str]]]]:
    """The root tsconfig.json or jsconfig.json (following `extends`): where `paths` targets start,
    `baseUrl` when set (both repo-relative), and `paths`.

    `paths` targets are relative to `baseUrl` when it is set, else to the config's own folder (the
    root); bare imports resolve against `baseUrl` only when it is set, `"."` included.
    """
    for name in ("tsconfig.json", "jsconfig.json"):
        options = _compiler_options(root, root / name, depth=0)
        if options is not None:
            base = options.get("baseUrl")
            paths = options.get("paths") or {}
            base_url = posixpath.normpath(base) if isinstance(base, str) else None
            mapped = [(k, [t for t in v if isinstance(t, str)]) for k, v in paths.items() if isinstance(v, list)]
            return base_url or ".", base_url, mapped
    return ".", None, []


def _compiler_options(root: Path, path: Path, *, depth: int) -> dict | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    text = re.sub(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', lambda m: m.group(1) or "", text, flags=re.S)
    text = re.sub(r",(\s*[}\]])", r"\1", text)  # tsconfig allows trailing commas
    try:
        data = json.loads(text)
    except ValueError:
        return None
    options = dict(data.get("compilerOptions") or {}) if isinstance(data, dict) else {}
    parent = data.get("extends") if isinstance(data, dict) else None
    if isinstance(parent, str) and parent.startswith(".") and depth < 5:
        target = (path.parent / parent).resolve()
        if target.is_relative_to(root.resolve()):  # a hostile `extends` never reads outside the repository
            inherited = _compiler_options(root, target, depth=depth + 1) or {}
            options = {**inherited, **options}
    return options
