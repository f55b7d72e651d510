"""The callers of a name: its definitions and the references that reach them.

Callers are resolved per referencing file: a definition in the same file wins, then one the file
imports (through the resolved import edges; among several, the one an import names), then the
only definition there is; otherwise the reference is `ambiguous` and says so rather than guessing.
A name that is only another name for a definition (`Motor` re-exporting Engine) answers as it.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Callable

from kernel.errors import PalliumError
from services.repo import by_receiver, chain_returns, cpp_types, macros
from services.repo.exports import BINDING_KINDS, Exports, module_path
from services.repo.exports import LANGUAGES as EXPORTING
from services.repo.inheritance import member_through_bases, members_above
from services.repo.languages import CLASS_KINDS
from services.repo.models import CallersOutput, Definition, Freshness, Reference
from services.repo.queries import decode_cursor, encode_cursor
from services.repo.rows import DefinitionRow, EdgeRow, ReferenceRow
from services.repo.store import RepoStore

__all__ = ["CALLERS_BUDGET", "callers", "family", "full_names"]

CALLERS_BUDGET = 8 * 1024
_ENVELOPE = 1024  # room kept for the name, counts, cursor and freshness around the lists
_MAX_DEFINITIONS = 50
_REEXPORT_HOPS = 3


_FAMILIES = {
    "javascript": "js",
    "typescript": "js",
    "tsx": "js",
    "java": "jvm",
    "kotlin": "jvm",
    "scala": "jvm",
    "c": "c",
    "cpp": "c",
    "objc": "c",
}


_MEMBER_KINDS = frozenset({"method", "field", "property", "enum_member"})
# Languages where a bare call inside a class calls the class's own method.
_IMPLICIT_SELF = frozenset({"java", "csharp", "cpp", "kotlin", "scala", "swift", "ruby"})


def family(language: str | None) -> str:
    """Languages whose code can name each other's definitions share a family."""
    return _FAMILIES.get(language or "", language or "")


def full_names(d: DefinitionRow) -> tuple[str, str]:
    return d.qualified, f"{module_path(d.path)}.{d.qualified}"


def callers(
    store: RepoStore,
    name: str,
    *,
    kind: str | None = None,
    limit: int,
    cursor: str | None,
    freshness: Freshness,
    reserve: int = 0,
) -> CallersOutput:
    """Definitions of `name` and the references to them; `reserve` bytes of the budget are kept back."""
    # Each language's own spelling of a qualified name: `A::B.c`, `Store#save`, `\Pkg\Routing\Collector::basePath`.
    name = name.strip().lstrip("\\").replace("::", ".").replace("#", ".").replace("\\", ".")
    if not name or name.startswith(".") or name.endswith("."):
        raise PalliumError(
            "invalid_input",
            f"name {name!r} is not an identifier or a dotted name",
            hint="pass `name` (the CLI's positional NAME), e.g. `parse` or `Store.load`",
            details={"field": "name"},
        )
    owner, _, member = name.rpartition(".")
    every = store.definitions(member)
    target = _aliased(store, owner, member, every)
    if target is not None:  # `callers Motor` of `from .core import Engine as Motor`: Engine's answer, saying so
        asked, definition = target
        item = _definition(definition)
        out = callers(
            store,
            asked,
            kind=kind,
            limit=limit,
            cursor=cursor,
            freshness=freshness,
            reserve=reserve + len(item.model_dump_json()) + 16,
        )
        return out.model_copy(update={"name": name, "alias_of": item})
    inherited = None
    if owner:
        defs = [d for d in every if any(f == name or f.endswith("." + name) for f in full_names(d))]
        if not defs:  # `com.example.internal.helper`, `Pkg.Routing.Collector.basePath`: by package or namespace
            spaces: dict[str, list[str]] = {}
            defs = [d for d in every if name in _namespaced(store, d, spaces)]
        if not defs and (found := _inherited(store, owner, member, every)) is not None:
            defs, inherited = found
        if not defs:
            _nothing_named(store, name, member, every)
    else:
        defs = every
    above = _implemented(store, member, defs, every) if owner else []
    kinds = store.reference_kinds(member)
    if not defs and not kinds:  # a name the index has never seen: likely misspelt, and never "unused"
        _nothing_named(store, name, member, every)
    resolver = _Resolver(store, member, every, defs + above if owner else None)
    offset = decode_cursor(cursor)
    handed = _handed_on(store, member, defs, kind)  # made under another name: `import Base from`, re-exports
    for ref in handed:
        kinds[ref.kind] = kinds.get(ref.kind, 0) + 1
    named = sum(kinds.values()) - len(handed) if kind is None else kinds.get(kind, 0) - len(handed)
    resolutions: dict[str, int] | None = None
    if owner or named <= _RESOLVE_ALL:
        # Every reference resolved: narrowed to what can reach the definitions asked for, the resolved
        # ones first (an agent reads page 1 first), and counted as listed.
        refs = [r for r in (resolver.reference(row) for row in store.references(member, kind=kind)) if r is not None]
        if any(r.enclosing and r.path.endswith(_C_FILES) for r in refs):  # calls made in a macro's body
            expanded = macros.expand(refs, *_macro_lookups(store))
            if len(expanded) != len(refs) or expanded != refs:
                refs, kinds = expanded, _kinds_of(expanded) if kind is None else {kind: len(expanded)}
        refs = sorted(refs + handed, key=lambda r: (_RANK[r.resolution], r.path, r.line, r.kind))
        total, page = len(refs), refs[offset : offset + limit]
        resolutions = _resolution_counts(refs)
        if owner:
            kinds = {}
            for ref in refs:
                kinds[ref.kind] = kinds.get(ref.kind, 0) + 1
    else:  # only the page is read and resolved, so a name used 100,000 times stays cheap; those made
        # under another name (a few) come after the rest
        total = named + len(handed)
        rows = store.references(member, kind=kind, limit=limit, offset=offset) if offset < named else []
        page = [r for r in (resolver.reference(row) for row in rows) if r is not None]
        page += handed[max(0, offset - named) : max(0, offset + limit - named)][: limit - len(rows)]
    kinds = dict(sorted(kinds.items()))
    implements = [_definition(d) for d in above[:_MAX_DEFINITIONS]]
    reserve += sum(len(item.model_dump_json()) + 1 for item in implements)
    definitions, page = _fit_callers(defs, page, reserve)
    more = offset + len(page) < total
    return CallersOutput(
        name=name,
        definitions=definitions,
        definition_count=len(defs),
        inherited=inherited,
        implements=implements,
        kinds=kinds,
        resolutions=resolutions,
        references=page,
        total=total,
        truncated=more,
        next_cursor=encode_cursor(offset + len(page)) if more else None,
        freshness=freshness,
    )


# A bare name used this often or less is resolved whole, so its answer is ranked and counted.
_RESOLVE_ALL = 3000
_RANK = {"receiver": 0, "same-file": 0, "import": 0, "unique": 1, "ambiguous": 2, "unresolved": 3}


_C_FILES = (".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".inl", ".ipp")


def _macro_lookups(store: RepoStore) -> tuple[Callable[[str, str], bool], Callable[[str, str], list[Reference]]]:
    """For `macros.expand`: whether a name is a macro of a file, and the references that reach it."""
    macros_of: dict[str, set[str]] = {}

    def is_macro(path: str, name: str) -> bool:
        if name not in macros_of:
            macros_of[name] = {d.path for d in store.definitions(name) if d.kind == "macro"}
        return path in macros_of[name]

    def uses_of(path: str, name: str) -> list[Reference]:
        resolver = _Resolver(store, name, store.definitions(name), None)
        return [
            r
            for r in (resolver.reference(row) for row in store.references(name))
            if r is not None and r.target == path and r.resolution in ("import", "same-file", "unique", "receiver")
        ]

    return is_macro, uses_of


def _kinds_of(refs: list[Reference]) -> dict[str, int]:
    kinds: dict[str, int] = {}
    for ref in refs:
        kinds[ref.kind] = kinds.get(ref.kind, 0) + 1
    return kinds


def _resolution_counts(refs: list[Reference]) -> dict[str, int]:
    counts = {"resolved": 0, "ambiguous": 0, "unresolved": 0}
    for ref in refs:
        key = ref.resolution if ref.resolution in ("ambiguous", "unresolved") else "resolved"
        counts[key] += 1
    return counts


def _namespaced(store: RepoStore, d: DefinitionRow, spaces: dict[str, list[str]]) -> set[str]:
    """`d`'s names under the package or namespace its file declares (Kotlin `package a.b`, PHP
    `namespace A\\B;`, C# `namespace A.B;`), dotted: `a.b.helper`, `A.B.Collector.basePath`."""
    if d.path not in spaces:
        found = [s.qualified.replace("\\", ".") for s in store.symbols_in(d.path) if s.kind == "namespace"]
        spaces[d.path] = found
    return {f"{space}.{d.qualified}" for space in spaces[d.path] if not d.qualified.startswith(space + ".")}


def _aliased(store: RepoStore, owner: str, member: str, every: list[DefinitionRow]) -> tuple[str, DefinitionRow] | None:
    """`(name to answer for, definition)` when the name asked is only another name for a definition.

    `Motor` (or `pkg.Motor`) that files bind to Engine and nothing defines is Engine; `Motor.start`,
    where no class is named Motor, is Engine's `start`.
    """
    if not any(d.kind not in BINDING_KINDS for d in every):
        found = Exports(store).alias_of(member, owner)
        if found is not None:
            return f"{module_path(found.path)}.{found.qualified}", found
    name = f"{owner}.{member}"
    if not owner or any(f == name or f.endswith("." + name) for d in every for f in full_names(d)):
        return None
    module, _, cls = owner.rpartition(".")
    if any(d.kind in CLASS_KINDS for d in store.definitions(cls)):
        return None
    found = Exports(store).alias_of(cls, module)
    if found is None or found.kind not in CLASS_KINDS:
        return None
    return f"{module_path(found.path)}.{found.qualified}.{member}", found


def _handed_on(store: RepoStore, member: str, defs: list[DefinitionRow], kind: str | None) -> list[Reference]:
    """References to `defs` under a name another file hands them on under, never one also made by name."""
    if not any(d.parent is None and d.language in EXPORTING for d in defs):
        return []
    found = Exports(store).references(defs, kind)
    if not found:
        return []
    # `import Widget from './widget'` stores the use twice, as `Widget` and as `default`, both through
    # that import: the one by name is listed already
    paths = [row.path for row, _d in found]
    by_name = {
        (r.path, r.line, r.kind, r.receiver)
        for r in store.references_in(member, paths, kind=kind)
        if r.receiver.startswith("=")
    }
    return [
        Reference(
            path=row.path,
            line=row.line,
            kind=row.kind,  # type: ignore[arg-type]  # stored from the parser's kinds
            enclosing=row.enclosing,
            resolution="import",
            target=d.path,
            target_qualified=d.qualified,
            target_line=d.start_line,
        )
        for row, d in found
        if (row.path, row.line, row.kind, row.receiver) not in by_name
    ]


# Languages whose calls through an interface's or base's method count as references of the
# methods implementing or overriding it, as their language servers list them (intelephense; clangd
# for a C++ virtual called on a base pointer).
_THROUGH_INTERFACES = frozenset({"php", "cpp"})


def _implemented(
    store: RepoStore, member: str, defs: list[DefinitionRow], every: list[DefinitionRow]
) -> list[DefinitionRow]:
    """The interface and base methods the methods `defs` implement or override (PHP, C++), nearest first."""
    found: dict[int, DefinitionRow] = {}
    for d in defs:
        if d.language not in _THROUGH_INTERFACES or not d.parent or d.kind != "method":
            continue
        owner = d.parent.rsplit(".", 1)[-1]
        named = [c for c in store.definitions(owner) if c.qualified == d.parent and c.kind in CLASS_KINDS]
        # C++ defines a member out of line (`void XMLComment::Accept()` in the .cpp, the class in the .h)
        here = [c for c in named if c.path == d.path]
        classes = here or [c for c in named if family(c.language) == family(d.language)]
        for cls in classes:
            resolve = lambda ref, name: _class_for(store, ref, name)  # noqa: E731
            for above in members_above(store, cls, member, every, resolve):
                # a base's property of its name (`protected $prompt` beside `prompt()`) is no method it overrides
                if above.id not in found and above not in defs and above.kind == "method":
                    found[above.id] = above
    return list(found.values())


def _inherited(
    store: RepoStore, owner: str, member: str, every: list[DefinitionRow]
) -> tuple[list[DefinitionRow], str] | None:
    """`member` as the classes matching `owner` inherit it: its definitions, and each class's way there."""
    classes = [
        d
        for d in store.definitions(owner.rsplit(".", 1)[-1])
        if d.kind in CLASS_KINDS and any(f == owner or f.endswith("." + owner) for f in full_names(d))
    ]
    found = [
        hit
        for cls in classes  # several classes of that name (`Blueprint` twice): each one's ancestors count
        if (hit := member_through_bases(store, cls, member, every, lambda ref, name: _class_for(store, ref, name)))
    ]
    if not found:
        return None
    definitions = list({d.id: d for hit in found for d in hit.definitions}.values())
    return definitions, "; ".join(dict.fromkeys(" -> ".join(hit.chain) for hit in found))


def _class_for(store: RepoStore, ref: ReferenceRow, name: str) -> DefinitionRow | None:
    """The class definition a base named `name` in `ref` reaches, in the reference's language family.

    A base named through an import (`=` receiver: an alias, a module alias) is the class that
    import reaches; one qualified by a plain name (`mod.Base`, `Outer.Inner`) is a class nested in
    that one or defined in the module the file imports under that name; else same file first.
    """
    candidates = [
        d for d in store.definitions(name) if d.kind in CLASS_KINDS and family(d.language) == family(ref.language)
    ]
    receiver = ref.receiver
    word = receiver[1:] if receiver.startswith("?") else ""
    nested = [d for d in candidates if word and d.parent and d.parent.rsplit(".", 1)[-1] == word]
    local = any(d.path == ref.path for d in candidates) and not receiver
    if ref.language in EXPORTING and not nested and not local:
        # through the files that hand it on: `import Base from './widget'`, `from pkg import Motor`
        handed = Exports(store).base_class(ref, name)
        if handed is not None:
            return handed
    if not candidates:
        return None
    resolver = _Resolver(store, name, candidates, None)
    if receiver.startswith("="):
        return resolver._through_import(ref, candidates, receiver[1:])[1]
    if word:
        if nested:
            return resolver._by_place(ref, nested, members_only=False)[1]
        through = resolver._modules_named(ref.path, word)
        hit = resolver._in_or_through(candidates, through) if through else []
        if len({(d.path, d.qualified) for d in hit}) == 1:
            return hit[0]
    return resolver._by_place(ref, candidates, members_only=False)[1]


def _nothing_named(store: RepoStore, name: str, member: str, every: list[DefinitionRow]) -> None:
    """Raise `not_found` for a name that matches no definition (or, bare, nothing at all), naming the closest ones."""
    import difflib

    candidates = sorted({f for d in every for f in full_names(d)})
    if not candidates:  # names holding the name's start, then its first two letters (`lod` -> `load`)
        candidates = store.names_like(member[: max(3, len(member) // 2)], limit=200)
        candidates += [n for n in store.names_like(member[:2], limit=500) if n not in candidates]
    closest = difflib.get_close_matches(name, candidates, n=5, cutoff=0.3) or candidates[:5]
    what = (
        f"no definition of {member!r} matches {name!r}"
        if every
        else f"nothing named {member!r} is defined or used in the index"
    )
    raise PalliumError(
        "not_found",
        what + (f"; closest: {', '.join(closest)}" if closest else ""),
        hint="pass one of the closest names as `name` (CLI: the NAME argument), or find the definition with "
        "pallium_search (CLI `pallium search WORDS`) and list a file's names with pallium_symbols",
        details={"field": "name", "name": name, "closest": closest},
    )


class _Resolver:
    """Ties each reference to the definition it can reach, in its own language family.

    With `wanted` (a qualified name was asked for), a reference is kept only when it may reach
    one of those definitions: its receiver's class is theirs, or it stays ambiguous between them
    and others; a reference whose receiver is another class that defines the name is dropped.
    """

    def __init__(
        self, store: RepoStore, member: str, every: list[DefinitionRow], wanted: list[DefinitionRow] | None
    ) -> None:
        self.store = store
        self.member = member
        self.by_family: dict[str, list[DefinitionRow]] = {}
        for d in every:
            self.by_family.setdefault(family(d.language), []).append(d)
        self.wanted = {d.id for d in wanted} if wanted is not None else None
        self.edges: dict[str, list[tuple[str, str]]] = {}
        self.raw_edges: dict[str, list[EdgeRow]] = {}
        self.every = every
        self.inherited: dict[int, DefinitionRow | None] = {}
        self.exports = Exports(store)
        self.outside: dict[str, set[str]] = {}
        self.local_imports: dict[str, set[str]] = {}  # per file: the functions that import the name
        self.outside_words: dict[tuple[str, str], bool] = {}
        self.returns: dict[tuple[str, str], str | None] = {}  # (class, method) -> the class it returns

    def reference(self, row: ReferenceRow) -> Reference | None:
        reachable = self.by_family.get(family(row.language), [])
        if row.language == "php" and row.kind in ("attribute", "call"):
            # `$this->values` reads a property, never `values()`; `$this->values()` calls a method, never
            # the property (a closure held in one is called as `($this->values)()`)
            wrong = ("method", "function") if row.kind == "attribute" else ("field", "property")
            reachable = [d for d in reachable if d.kind not in wrong]
        resolution, target = self._resolve(row, reachable)
        if self.wanted is not None:
            if target is not None and target.id not in self.wanted:
                return None
            if target is None and not (resolution == "ambiguous" and any(d.id in self.wanted for d in reachable)):
                return None
            if target is None and not self._may_be_member(row, reachable):
                return None
        return Reference(
            path=row.path,
            line=row.line,
            kind=row.kind,  # type: ignore[arg-type]  # stored from the parser's kinds
            enclosing=row.enclosing,
            resolution=resolution,  # type: ignore[arg-type]
            target=target.path if target else None,
            target_qualified=target.qualified if target else None,
            target_line=target.start_line if target else None,
        )

    def _may_be_member(self, row: ReferenceRow, reachable: list[DefinitionRow]) -> bool:
        """An ambiguous `x.member` (Python, JS/TS) can be only a member: not when only functions are asked for."""
        if row.language not in by_receiver.LANGUAGES or not row.receiver or row.receiver.startswith("="):
            return True
        if self.wanted is None:
            return True
        return any(d.id in self.wanted and by_receiver.is_member(d) for d in reachable)

    def _resolve(self, row: ReferenceRow, defs: list[DefinitionRow]) -> tuple[str, DefinitionRow | None]:
        if not defs:
            return "unresolved", None
        if row.language in by_receiver.LANGUAGES and (answer := by_receiver.resolve(self, row, defs)) is not None:
            return answer
        receiver = row.receiver
        if row.language in ("c", "cpp") and row.kind == "other" and not receiver:
            # `bool set(bool value)`, `char first = *p;`: a parameter or local, never the member `value()`
            defs = [d for d in defs if d.kind != "method"]
            if not defs:
                return "unresolved", None
        if receiver == "=":  # a name the file binds to another (`Base = Widget`): only its own binding
            local = [d for d in defs if d.path == row.path and d.kind in BINDING_KINDS]
            return ("same-file", local[0]) if local else ("unresolved", None)
        if receiver.startswith("="):  # named through an import: an alias, or a module alias's member
            return self._through_import(row, defs, receiver[1:])
        if receiver.startswith("()"):  # PHP `Dotenv::create()->load()`: what the chain's methods return
            cls = self._returned(row, receiver[2:])
            if cls is None:
                return ("unique", defs[0]) if len(defs) == 1 else ("ambiguous", None)
            return self._resolve(dataclasses.replace(row, receiver=cls), defs)
        if receiver == "super":  # PHP `parent::total()`: what the enclosing class inherits, never its own
            classes = (row.enclosing or "").split(".")[:-1]
            here = [c for c in self.store.definitions(classes[-1]) if c.path == row.path] if classes else []
            inherited = self._through_bases(here[0]) if len(here) == 1 else None
            return ("receiver", inherited) if inherited is not None else ("unresolved", None)
        if receiver == "self":
            classes = (row.enclosing or "").split(".")[:-1]  # `Store.save` -> the class `Store`
            for depth in range(len(classes), 0, -1):
                owner = ".".join(classes[:depth])
                own = [d for d in defs if d.path == row.path and d.parent == owner]
                if own:
                    return "receiver", own[0]
            classes_here = [c for c in self.store.definitions(classes[-1]) if c.path == row.path] if classes else []
            inherited = self._through_bases(classes_here[0]) if len(classes_here) == 1 else None
            if inherited is not None:  # `self.route()` in a subclass of the class that defines route
                return "receiver", inherited
            if row.language in by_receiver.LANGUAGES:  # a mixin's, or an outside base's: no other class's
                return by_receiver.unknown(defs)
            return self._by_place(row, defs, members_only=True)
        if receiver.startswith("?") and len(receiver) > 1:  # a plain name: a class, a module, or unknown
            word = receiver[1:]
            if row.language == "cpp" and (held := cpp_types.field_class(self.store.definitions, row.enclosing, word)):
                return self._resolve(dataclasses.replace(row, receiver=held), defs)  # `cache_->Lookup()`
            typed = [d for d in defs if d.parent and d.parent.rsplit(".", 1)[-1] == word]
            if typed:  # `Store.create()`, `Store::new()`: that class's member
                return self._by_place(row, typed, members_only=True)
            through = self._modules_named(row.path, word)
            if through:  # `store.Open()` in Go, `io.read()` after `from app import io`
                hit = self._in_or_through(defs, through)
                if len({d.qualified for d in hit}) == 1:
                    return "import", hit[0]
            return ("unique", defs[0]) if len(defs) == 1 else ("ambiguous", None)
        if receiver and receiver != "?":  # a variable built or annotated as this class
            typed = [d for d in defs if d.parent and d.parent.rsplit(".", 1)[-1] == receiver]
            if typed:
                local = [d for d in typed if d.path == row.path]
                if len(local) == 1 or len({d.path for d in typed}) == 1:
                    return "receiver", (local or typed)[0]
                return self._by_place(row, typed, members_only=True)
            cls = _class_for(self.store, row, receiver)
            inherited = self._through_bases(cls) if cls is not None else None
            if inherited is not None:  # `app = Web(); app.route()` where Web inherits route
                return "receiver", inherited
            return ("unique", defs[0]) if len(defs) == 1 else ("ambiguous", None)
        if row.kind == "call" and row.language in _IMPLICIT_SELF:  # `save()` inside a class is `this.save()`
            classes = (row.enclosing or "").split(".")[:-1]
            for depth in range(len(classes), 0, -1):
                owner = ".".join(classes[:depth])
                own = [d for d in defs if d.path == row.path and d.parent == owner]
                if not own and row.language == "cpp":  # a member declared in the class's header, called in the .cpp
                    own = [d for d in defs if d.parent == owner and family(d.language) == family(row.language)]
                if own:
                    return "receiver", own[0]
            if row.language == "cpp" and classes:  # `Value()` in XMLText's method: the member XMLNode gives it
                owner = ".".join(classes)
                named = [
                    c for c in self.store.definitions(classes[-1]) if c.qualified == owner and c.kind in CLASS_KINDS
                ]
                inherited = self._through_bases(named[0]) if len(named) == 1 else None
                if inherited is not None:
                    return "receiver", inherited
            if row.language == "ruby" and classes:
                return self._ruby_bare_call(row, defs, classes)
        return self._by_place(row, defs, members_only=False)

    def _returned(self, row: ReferenceRow, chain: str) -> str | None:
        return chain_returns.returned(self.store, self.returns, row, chain)

    def _ruby_bare_call(
        self, row: ReferenceRow, defs: list[DefinitionRow], classes: list[str]
    ) -> tuple[str, DefinitionRow | None]:
        """A bare call in a Ruby class goes to self: that class (reopened in any file), what it
        inherits or mixes in, else Kernel and the top level; never another class's method (`warn`
        in a class that defines none is `Kernel#warn`)."""
        for depth in range(len(classes), 0, -1):
            owner = ".".join(classes[:depth])
            own = [d for d in defs if d.parent == owner]
            if len({d.path for d in own}) == 1:
                return "receiver", own[0]
            if own:
                return "ambiguous", None
        here = [c for c in self.store.definitions(classes[-1]) if c.path == row.path and c.kind in ("class", "module")]
        inherited = self._through_bases(here[0]) if len(here) == 1 else None
        if inherited is not None:
            return "receiver", inherited
        top = [d for d in defs if not d.parent]
        return self._by_place(row, top, members_only=False) if top else ("unresolved", None)

    def _through_bases(self, cls: DefinitionRow) -> DefinitionRow | None:
        """The one definition of the member that class `cls` inherits, or None (none, or several)."""
        if cls.id not in self.inherited:
            found = member_through_bases(
                self.store, cls, self.member, self.every, lambda ref, name: _class_for(self.store, ref, name)
            )
            self.inherited[cls.id] = found.definitions[0] if found and len(found.definitions) == 1 else None
        return self.inherited[cls.id]

    def _through_import(
        self, row: ReferenceRow, defs: list[DefinitionRow], raw: str
    ) -> tuple[str, DefinitionRow | None]:
        """The definition the import `raw` of the reference's file brings in (directly or re-exported)."""
        targets = {e.dst for e in self._edges_with_raw(row.path) if e.raw == raw}
        if not targets:  # imported from outside the repository
            return "unresolved", None
        defs = [d for d in defs if d.kind not in _MEMBER_KINDS] or defs
        hit = self._in_or_through(defs, targets)
        if len({(d.path, d.qualified) for d in hit}) == 1:
            return "import", hit[0]
        return "ambiguous", None

    def _in_or_through(self, defs: list[DefinitionRow], files: set[str]) -> list[DefinitionRow]:
        """The definitions in `files`, else those `files` re-export (`flask.Blueprint` from flask/__init__.py)."""
        hit = [d for d in defs if d.path in files]
        if not hit:
            reexported = _reexports(self.store, files, self.member, self.edges)
            hit = [d for d in defs if d.path in reexported]
        return hit

    def _modules_named(self, path: str, word: str) -> set[str]:
        """Files `path` imports under the name `word` (a Go package, a Python module or alias)."""
        out = set()
        for dst, raw, names in self._edges_with_raw(path):
            tail = re.split(r"[./:]", raw.rstrip("/"))[-1] if raw else ""
            stem = posixpath.basename(dst).rsplit(".", 1)[0]
            if word in names.split() or tail == word or stem == word:
                out.add(dst)
        return out

    def _imports_by_name(self, path: str) -> bool:
        """True when some import of `path` names the member (or takes a whole module, `import * as`)."""
        return any(self.member in i.names.split() or not i.names.strip() for i in self.store.imports_of_paths([path]))

    def _imported_from_outside(self, path: str) -> bool:
        """True when `path` imports the name by name from a module that is no file of the repository."""
        if path not in self.outside:
            reached = {e.raw for e in self._edges_with_raw(path)}
            imports = self.store.imports_of_paths([path])
            self.outside[path] = {w for i in imports if i.raw not in reached for w in i.names.split()}
        return self.member in self.outside[path]

    def _bound_by_outside_import(self, row: ReferenceRow) -> bool:
        """Python: the name is bound where it is used by a function's own import from outside the repository.

        `from sqlalchemy.testing.engines import testing_engine` inside `def testing_engine()`: that
        import, and every use of the name in that function, are the outside module's.
        """
        if row.language != "python" or not self._imported_from_outside(row.path):
            return False
        if row.kind == "import":  # the import itself, unless the file also imports the name from inside
            return self.member not in self._imported_from_inside(row.path)
        if not row.enclosing:
            return False
        if row.path not in self.local_imports:
            found = self.store.references_in(self.member, [row.path], kind="import")
            self.local_imports[row.path] = {r.enclosing for r in found if r.enclosing}
        scope = row.enclosing
        return any(scope == owner or scope.startswith(owner + ".") for owner in self.local_imports[row.path])

    def _imported_from_inside(self, path: str) -> set[str]:
        """The names `path` imports by name from files of the repository."""
        reached = {e.raw for e in self._edges_with_raw(path)}
        return {w for i in self.store.imports_of_paths([path]) if i.raw in reached for w in i.names.split()}

    def _edges_with_raw(self, path: str) -> list[EdgeRow]:
        if path not in self.raw_edges:
            self.raw_edges[path] = self.store.edges_of(path)
        return self.raw_edges[path]

    def _by_place(
        self, row: ReferenceRow, defs: list[DefinitionRow], *, members_only: bool
    ) -> tuple[str, DefinitionRow | None]:
        """Same file, then an import, then the only one; several candidates in one file stay ambiguous."""
        if members_only:
            defs = [d for d in defs if d.parent] or defs
        else:  # a bare name reaches a function, not another class's method (Swift `open()` beside `Cache.open`)
            defs = [
                d for d in defs if d.kind not in _MEMBER_KINDS and not by_receiver.is_property_function(d)
            ] or _bare_members(defs, row)
            if row.language == "lua":  # a bare `encode()` is the local or global, never the field `M.encode`
                defs = [d for d in defs if not d.parent]
            # and only what is in sight: not a function nested in another one from outside it (vue's
            # tests define `ref: vm => ...` inside `render()` and call the imported `ref` everywhere),
            # and never a Python function nested in another file's function
            defs = [
                d for d in defs if (_in_sight(d, row) if d.path == row.path else not _nested_in_function(self.store, d))
            ]
            if not defs or self._bound_by_outside_import(row):
                return "unresolved", None
        if row.language == "ruby" and not members_only and self.member[:1].isupper():
            scoped = _ruby_constant(defs, row)
            if scoped is not None:  # `class X < Base` in `module A; module B`: `A::B::Base` before `::Base`
                return ("same-file" if scoped.path == row.path else "unique"), scoped
        local = [d for d in defs if d.path == row.path]
        if local:
            if len(local) == 1 or len({d.qualified for d in local}) == 1:
                # one name bound several times (`const encode = ...` in each test): the nearest before the use
                before = [d for d in local if d.start_line <= row.line]
                return "same-file", (max(before, key=lambda d: d.start_line) if before else local[0])
            if not members_only:  # the innermost scope that holds one wins, as the language looks names up
                deepest = max(len(d.parent or "") for d in local)
                inner = {d.qualified: d for d in local if len(d.parent or "") == deepest and d.parent}
                if len(inner) == 1:
                    return "same-file", next(iter(inner.values()))
            return "ambiguous", None
        paths = sorted({d.path for d in defs})
        hit = _resolve_path(self.store, row.path, self.member, paths, self.edges)
        if hit is None and row.language in ("c", "cpp") and (body := _one_c_function(defs)) is not None:
            # no include reaches it, yet `int f(void);` in a header and its body in a .c file are one function
            return "unique", body
        if (hit is None or hit[0] == "unique") and row.language in EXPORTING:
            handed = self.exports.definition(row, defs)  # `import { Widget } from './index'`, which renames it
            if handed is not None:
                return "import", handed
        if hit is None:  # several candidates, none reached: unless the file imports the name from outside
            return ("unresolved" if self._imported_from_outside(row.path) else "ambiguous"), None
        if hit[0] == "unique" and self._imported_from_outside(row.path):  # `use Vendor\Pkg\Factory;`: not ours
            return "unresolved", None
        how, path = hit
        if how == "unique" and family(row.language) == "js" and not self._imports_by_name(row.path):
            return "unresolved", None  # a module sees another file's name only through an import
        chosen = [d for d in defs if d.path == path]
        if len({d.qualified for d in chosen}) > 1:
            return "ambiguous", None
        return how, chosen[0]


def _ruby_constant(defs: list[DefinitionRow], row: ReferenceRow) -> DefinitionRow | None:
    """The class, module or constant a Ruby constant names by lexical scope: the innermost module
    nesting around the reference that defines it (in any file: modules reopen), then the top level;
    None when that nesting defines it twice or not at all."""
    constants = [d for d in defs if d.kind in ("class", "module", "constant")]
    chain = (row.enclosing or "").split(".") if row.enclosing else []
    for depth in range(len(chain), -1, -1):
        scope = ".".join(chain[:depth])
        hits = [d for d in constants if (d.parent or "") == scope]
        if hits:
            return hits[0] if len({d.qualified for d in hits}) == 1 and len({d.path for d in hits}) == 1 else None
    return None


_C_HEADERS = (".h", ".hh", ".hpp", ".hxx")


def _one_c_function(defs: list[DefinitionRow]) -> DefinitionRow | None:
    """The one C/C++ definition outside headers when every other candidate is its declaration in a
    header (same qualified name, a function), else None."""
    if len({d.qualified for d in defs}) != 1 or any(d.kind not in ("function", "method") for d in defs):
        return None
    bodies = [d for d in defs if not d.path.endswith(_C_HEADERS)]
    return bodies[0] if len(bodies) == 1 and len(defs) > 1 else None


def _bare_members(members: list[DefinitionRow], row: ReferenceRow) -> list[DefinitionRow]:
    """The members a name written bare can mean: in a language that calls its own class's members
    bare, any; elsewhere only enum members (C's are unscoped, Kotlin's imported). A bare Python
    `title` is never `Config.title` (read in the class body itself, it is not followed)."""
    if row.language in _IMPLICIT_SELF:
        return members
    return [d for d in members if d.kind == "enum_member"]


def _nested_in_function(store: RepoStore, d: DefinitionRow) -> bool:
    """A Python function or class inside a function (a method's kind is `method`): no import reaches it."""
    if d.language != "python" or not d.parent:
        return False
    if d.kind == "function":
        return True
    owner = d.parent.rsplit(".", 1)[-1]
    return d.kind in CLASS_KINDS and any(
        o.path == d.path and o.qualified == d.parent and o.kind in ("function", "method")
        for o in store.definitions(owner)
    )


def _in_sight(definition: DefinitionRow, row: ReferenceRow) -> bool:
    """False for a function or class nested in a function, seen from outside that function."""
    if not definition.parent or definition.kind in _MEMBER_KINDS:
        return True
    scope = row.enclosing or ""
    return scope == definition.parent or scope.startswith(definition.parent + ".")


def _fit_callers(
    defs: list[DefinitionRow], page: list[Reference], reserve: int = 0
) -> tuple[list[Definition], list[Reference]]:
    """Cut definitions to half the byte budget and the page to the rest, keeping at least one of each.

    The page then ends early and the cursor continues after its last reference, so nothing is lost.
    """
    budget = CALLERS_BUDGET - _ENVELOPE - reserve
    definitions: list[Definition] = []
    size = 0
    for d in defs[:_MAX_DEFINITIONS]:
        item = _definition(d)
        cost = len(item.model_dump_json()) + 1
        if definitions and size + cost > budget // 2:
            break
        definitions.append(item)
        size += cost
    kept: list[Reference] = []
    for ref in page:
        cost = len(ref.model_dump_json()) + 1
        if kept and size + cost > budget:
            break
        kept.append(ref)
        size += cost
    return definitions, kept


def _resolve_path(
    store: RepoStore, path: str, name: str, defining: list[str], cache: dict[str, list[tuple[str, str]]]
) -> tuple[str, str] | None:
    """`("import" | "unique", path)` of the file a reference in another file reaches, or None."""
    edges = _edges(store, path, cache)
    direct = {dst for dst, _names in edges}
    imported = [d for d in defining if d in direct]
    if len(imported) > 1:  # Rust `mod a; mod b; use crate::a::run;`: the import that names it decides
        named = {dst for dst, names in edges if name in names.split()}
        imported = [d for d in imported if d in named] or imported
    if not imported:  # `from pkg import run` where pkg/__init__.py re-exports run from pkg/impl.py
        reexported = _reexports(store, direct, name, cache)
        imported = [d for d in defining if d in reexported]
    if len(imported) == 1:
        return "import", imported[0]
    if len(defining) == 1:
        return "unique", defining[0]
    return None


def _edges(store: RepoStore, path: str, cache: dict[str, list[tuple[str, str]]]) -> list[tuple[str, str]]:
    if path not in cache:
        cache[path] = store.import_names_of(path)
    return cache[path]


def _reexports(store: RepoStore, start: set[str], name: str, cache: dict[str, list[tuple[str, str]]]) -> set[str]:
    """Files reachable from `start` through imports that pass `name` on (by name, `*`, or whole module)."""
    seen, frontier = set(start), list(start)
    for _hop in range(_REEXPORT_HOPS):
        found = []
        for current in frontier:
            for dst, names in _edges(store, current, cache):
                words = names.split()
                if dst not in seen and (not words or name in words or "*" in words):
                    seen.add(dst)
                    found.append(dst)
        frontier = found
    return seen - start


def _definition(row: DefinitionRow) -> Definition:
    """A definition as the answer shows it."""
    return Definition(
        path=row.path, line=row.start_line, kind=row.kind, qualified=row.qualified, signature=row.signature
    )
