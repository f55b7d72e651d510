"""Names a definition goes by in other files: default exports and re-exports under another name.

`import Base from './widget'` names what `widget.ts` exports as default, and `from pkg import Motor`
what `pkg/__init__.py` binds as Motor (`from .core import Engine as Motor`): the file using the
name cannot say which definition it is, so the exporting file's facts do (`aliases.exports`, stored
per content beside its other facts). Both directions are walked at query time, a few hops at most, each
hop one indexed statement per file, and a file reached twice ends the walk there (a cycle of
re-exports ends):

- forward (`callers Engine`): from the definition's file to the files that hand it on, and the
  name each hands it on under; the references to those names in their importers are Engine's;
- backward (a base named `Motor` or `default`): from the import to the file that defines it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from services.repo.languages import CLASS_KINDS
from services.repo.rows import DefinitionRow, EdgeRow, ExporterRow, ExportRow, ReferenceRow
from services.repo.store import RepoStore

__all__ = ["BINDING_KINDS", "LANGUAGES", "Exports", "module_path"]

LANGUAGES = frozenset({"python", "javascript", "typescript", "tsx"})  # the languages whose exports are read
_HOPS = 4  # files a name is handed through, at most: no real package re-exports deeper
_MAX_STARTS = 20  # definitions of one name followed forward (`callers X` of a name defined everywhere)
_DEFAULT = "default"
BINDING_KINDS = frozenset({"constant", "variable", "module"})  # what a name bound to another one is not


class Exports:
    """The walks over one store, with each file's facts and edges read once."""

    def __init__(self, store: RepoStore) -> None:
        self.store = store
        self._exports: dict[str, list[ExportRow]] = {}
        self._exporters: dict[str, list[ExporterRow]] = {}
        self._edges: dict[str, list[EdgeRow]] = {}
        self._into: dict[str, list[tuple[str, str, str]]] = {}

    # forward ---------------------------------------------------------------------------------

    def names(self, d: DefinitionRow) -> list[tuple[str, str]]:
        """`(file, name)` under which importers of that file reach `d`, nearest first (`d`'s own first)."""
        start = (d.path, d.name)
        order, seen, frontier = [start], {start}, [start]
        for _hop in range(_HOPS):
            found = []
            for path, name in frontier:
                nxt = [(path, x.name) for x in self.exports_of(path) if not x.raw and x.original == name]
                for x in self.exporters_of(path):
                    if x.original == name or x.original == "*":
                        nxt.append((x.src, name if x.original == "*" else x.name))
                for pair in nxt:
                    if pair not in seen:
                        seen.add(pair)
                        found.append(pair)
            order += found
            frontier = found
        return order

    def references(self, defs: list[DefinitionRow], kind: str | None) -> list[tuple[ReferenceRow, DefinitionRow]]:
        """References to `defs` made under a name other than their own, through a file that hands them on."""
        out: dict[tuple[str, int, str], tuple[ReferenceRow, DefinitionRow]] = {}
        starts = [d for d in defs if d.parent is None and d.language in LANGUAGES][:_MAX_STARTS]
        for d in starts:
            for path, name in self.names(d):
                if name == d.name:  # found by name already
                    continue
                importers = [i for i in self.edges_into(path) if i[0] != path]
                by_src: dict[str, list[tuple[str, str]]] = {}
                for src, raw, names in importers:
                    by_src.setdefault(src, []).append((raw, names))
                for row in self.store.references_in(name, list(by_src), kind=kind):
                    if _reaches(row, name, path, by_src[row.path]):
                        out.setdefault((row.path, row.line, row.kind), (row, d))
        return [out[key] for key in sorted(out)]

    # backward --------------------------------------------------------------------------------

    def sources(self, starts: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """`(file, name)` pairs the names `starts` are handed on from, nearest first (`starts` first)."""
        order, seen, frontier = list(dict.fromkeys(starts)), set(starts), list(dict.fromkeys(starts))
        for _hop in range(_HOPS):
            found = []
            for path, name in frontier:
                facts = self.exports_of(path)
                edges = self.edges_of(path)
                named = [x for x in facts if x.name == name]
                nxt = []
                for x in named:
                    if not x.raw:
                        nxt.append((path, x.original))
                    else:
                        nxt += [(e.dst, x.original) for e in edges if e.raw == x.raw]
                if not named:  # `export * from`, or a plain import of the name (any Python module re-exports it)
                    stars = {x.raw for x in facts if x.name == "*"}
                    nxt += [
                        (e.dst, name)
                        for e in edges
                        if e.raw in stars or (name != _DEFAULT and {name, "*"} & set(e.names.split()))
                    ]
                for pair in nxt:
                    if pair not in seen:
                        seen.add(pair)
                        found.append(pair)
            order += found
            frontier = found
        return order

    def base_class(self, ref: ReferenceRow, name: str) -> DefinitionRow | None:
        """The class a base named `name` in `ref` is, followed through the files that hand it on, or None."""
        classes: dict[str, list[DefinitionRow]] = {}

        def pick(path: str, original: str) -> DefinitionRow | None:
            if original not in classes:
                classes[original] = [
                    d
                    for d in self.store.definitions(original)
                    if d.kind in CLASS_KINDS and _family(d.language) == _family(ref.language)
                ]
            here = [d for d in classes[original] if d.path == path]
            return min(here, key=lambda d: d.parent is not None) if here else None  # a top-level class first

        return self._first(ref, name, pick)

    def definition(self, ref: ReferenceRow, defs: list[DefinitionRow]) -> DefinitionRow | None:
        """Which of `defs` (one name's definitions) `ref` reaches through the files that hand it on, or None."""
        if not defs:
            return None
        name = defs[0].name
        return self._first(
            ref,
            name,
            lambda path, original: next((d for d in defs if d.path == path), None) if original == name else None,
        )

    def _first(
        self, ref: ReferenceRow, name: str, pick: Callable[[str, str], DefinitionRow | None]
    ) -> DefinitionRow | None:
        receiver = ref.receiver
        if receiver == "?" or (receiver and receiver[0] not in "=?") or (not receiver and name == _DEFAULT):
            return None  # an unknown receiver, a variable's class, or a bare `default`: nothing to follow
        edges = self.edges_of(ref.path)
        if receiver.startswith("="):
            starts = [(e.dst, name) for e in edges if e.raw == receiver[1:]]
        elif receiver.startswith("?") and len(receiver) > 1:
            starts = [(e.dst, name) for e in edges if _module_named(e, receiver[1:])]
        elif not receiver and name != _DEFAULT:
            starts = [(e.dst, name) for e in edges if name in e.names.split()]
        else:
            return None
        if not starts:
            return None
        for path, original in self.sources(starts):
            found = pick(path, original)
            if found is not None:
                return found
        return None

    def alias_of(self, name: str, module: str = "") -> DefinitionRow | None:
        """The one definition `name` is another name for, where files bind it only as that
        (`from .core import Engine as Motor`, `Base = Widget`, `exports.Base = Widget`): followed
        back from each file that binds it (in `module` when given, a dotted module path); None
        when they name nothing defined, or two different things."""
        if name in (_DEFAULT, "*"):
            return None
        binders = sorted({row.path for row in self.store.exports_named(name, limit=_MAX_STARTS * 5)})
        if module:
            binders = [p for p in binders if module_path(p) == module or module_path(p).endswith("." + module)]
        found: dict[int, DefinitionRow] = {}
        for path in binders[:_MAX_STARTS]:
            for file, original in self.sources([(path, name)])[1:]:
                if _is_module(file, original, self.edges_of(path)):
                    break  # `from pkg import mod as m`: the module itself, not a definition of that name in it
                here = [
                    d
                    for d in self.store.definitions(original)
                    if d.path == file and d.kind not in BINDING_KINDS and d.parent is None
                ]
                if here:
                    found[here[0].id] = here[0]
                    break
        return next(iter(found.values())) if len(found) == 1 else None

    # reads -----------------------------------------------------------------------------------

    def exports_of(self, path: str) -> list[ExportRow]:
        if path not in self._exports:
            self._exports[path] = self.store.exports_of(path)
        return self._exports[path]

    def exporters_of(self, path: str) -> list[ExporterRow]:
        if path not in self._exporters:
            self._exporters[path] = self.store.exporters_of(path)
        return self._exporters[path]

    def edges_of(self, path: str) -> list[EdgeRow]:
        if path not in self._edges:
            self._edges[path] = self.store.edges_of(path)
        return self._edges[path]

    def edges_into(self, path: str) -> list[tuple[str, str, str]]:
        if path not in self._into:
            self._into[path] = [(e.src, e.raw, e.names) for e in self.store.edges_into(path)]
        return self._into[path]


def _is_module(file: str, name: str, edges: list[EdgeRow]) -> bool:
    """Whether `name` reached in the Python `file` is that module (`from pkg import mod`), not a name
    defined in it: the file is named so, and no import names the file itself (`from pkg.mod import mod`)."""
    stem = posixpath.basename(file).rsplit(".", 1)[0]
    if not file.endswith((".py", ".pyi")) or stem != name:
        return False
    return not any(e.dst == file and re.split(r"[./]", e.raw)[-1] == name for e in edges)


def module_path(path: str) -> str:
    """The dotted module a file is (`pkg/io.py` -> `pkg.io`, `src/a/index.ts` -> `a`)."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    stem = stem.removeprefix("src/")
    for tail in ("/__init__", "/index", "/mod", "/lib"):
        stem = stem.removesuffix(tail)
    return stem.replace("/", ".")


def _family(language: str | None) -> str:
    return "js" if language in ("javascript", "typescript", "tsx") else language or ""


def _module_named(edge: EdgeRow, word: str) -> bool:
    """Whether the import `edge` binds its file under the name `word` (`import pkg`, `from app import io`)."""
    tail = re.split(r"[./:]", edge.raw.rstrip("/"))[-1] if edge.raw else ""
    stem = posixpath.basename(edge.dst).rsplit(".", 1)[0]
    if stem in ("__init__", "index"):
        stem = posixpath.basename(posixpath.dirname(edge.dst))
    return word in edge.names.split() or tail == word or stem == word


def _reaches(row: ReferenceRow, name: str, path: str, imports: list[tuple[str, str]]) -> bool:
    """Whether `row`, a reference to `name` in a file importing `path` through `imports`, names `path`'s `name`."""
    receiver = row.receiver
    if receiver.startswith("="):  # `import Base from`, `import { Motor as M }`, `m.Motor` after `import * as m`
        return any(raw == receiver[1:] for raw, _names in imports)
    if not receiver:  # `from pkg import Motor`, `import { Round } from`
        return name != _DEFAULT and any(name in names.split() for _raw, names in imports)
    if receiver.startswith("?") and len(receiver) > 1:  # `pkg.Motor` after `import pkg`
        word = receiver[1:]
        return any(_module_named(EdgeRow(path, raw, names), word) for raw, names in imports)
    return False
