"""Resolution by receiver for Python and JavaScript/TypeScript: `x.member` means a member of what `x` can be.

An attribute reference is never resolved like a bare name. Its receiver decides (`receivers` wrote it):

- a module (the repository's, through an import): that module's definition;
- a module from outside the repository (`urllib.parse.urlsplit`, `click.command`): `unresolved`,
  never a repository name that happens to match;
- a class of the repository (named, annotated, constructed, returned by an annotated function):
  that class's member or one it inherits; `unresolved` when neither it nor its bases define it;
- `super()`: the enclosing class's bases, never the class itself;
- a JS/TS call chain: a member of what its last method is declared to return (`chains`);
- anything of unknown type (`event.reply.meta`, `foo().bar`, an unannotated parameter): `ambiguous`
  among the repository's members of that name, kept in `Class.member` answers and ranked after the
  resolved ones; `unresolved` when no class of the repository has such a member.
"""

from __future__ import annotations

import builtins
import re
from typing import TYPE_CHECKING

from services.repo.exports import module_path
from services.repo.languages import CLASS_KINDS
from services.repo.receivers import LANGUAGES, plain_type
from services.repo.rows import DefinitionRow, ReferenceRow

if TYPE_CHECKING:
    from services.repo.callers import _Resolver

__all__ = ["LANGUAGES", "is_member", "resolve", "unknown"]

Answer = tuple[str, DefinitionRow | None]
_MEMBERS = frozenset({"method", "field", "property", "enum_member"})
_SELF_WORDS = frozenset({"self", "cls", "this"})
_JS = frozenset({"javascript", "typescript", "tsx"})
_RETURNS = (re.compile(r"->\s*(.+)$", re.S), re.compile(r"\)\s*:\s*([^=>{]+?)\s*(?:=>)?$", re.S))


def is_member(d: DefinitionRow) -> bool:
    """A definition an attribute reference can reach: a class's method, field or property, or a JS/TS
    function written as an object's property (`{ delay: () => 0 }`, `api.create = () => ...`)."""
    return (bool(d.parent) and d.kind in _MEMBERS) or is_property_function(d)


# `delay: () => 0`, `async fetch: ...` (an object literal's property), `api.create = () =>` (an assignment)
_PROPERTY_SIGNATURE = re.compile(r"\s*(?:async\s+)?(?:[\w$]+\s*:|(?:[\w$]+\s*\.\s*)+[\w$]+\s*=[^=>])")


def is_property_function(d: DefinitionRow) -> bool:
    """A JS/TS function that is an object's property, not a binding: a bare name never reaches it.
    `const f: Handler = () => ...` is a binding with a type, not a property (`=` before any `=>`)."""
    if d.kind != "function" or d.language not in _JS:
        return False
    match = _PROPERTY_SIGNATURE.match(d.signature)
    if match is None:
        return False
    return not match.group(0).rstrip().endswith(":") or not _typed_binding(d.signature[match.end() :])


def _typed_binding(rest: str) -> bool:
    """True when `rest` (after `name:`) is `Type = value`: an `=` outside brackets that is no arrow or
    comparison (`(...paths: string[]) => string = (...) =>` is a typed binding, `() => 0` a value)."""
    depth = 0
    for i, ch in enumerate(rest):
        before, after = rest[i - 1 : i] if i else "", rest[i + 1 : i + 2]
        if ch in "([{<":
            depth += 1
        elif ch in ")]}" or (ch == ">" and before != "="):
            depth = max(0, depth - 1)
        elif ch == "=" and depth == 0 and after not in (">", "=") and before not in ("=", "!", "<", ">"):
            return True
    return False


def unknown(defs: list[DefinitionRow]) -> Answer:
    """A member read off a value of unknown type: any of the repository's members of that name, or none."""
    return ("ambiguous", None) if any(is_member(d) for d in defs) else ("unresolved", None)


def resolve(r: _Resolver, row: ReferenceRow, defs: list[DefinitionRow]) -> Answer | None:
    """The answer for a Python or JS/TS reference with a receiver; None leaves it to the general rules
    (a bare name, `self`, a name brought in through an import)."""
    answer = _resolve(r, row, defs)
    if answer is not None and answer[0] == "receiver" and row.language in _JS and r.wanted is not None:
        found = answer[1]
        if found is not None and found.id not in r.wanted and (written := _implementation(r, defs, found)):
            return "receiver", written
    return answer


def _implementation(r: _Resolver, defs: list[DefinitionRow], member: DefinitionRow) -> DefinitionRow | None:
    """The asked-for property of an object literal that implements the type member `member`: one
    returned by a function declared to return that type (`function wrap(): StorageAdapter { return
    { read: ... } }`) or bound to a value declared so. One symbol to a type checker: the one asked
    for answers."""
    from services.repo.chains import return_types

    owner = (member.parent or "").rsplit(".", 1)[-1]
    for d in defs:
        if d.id not in r.wanted or d.id == member.id or not d.parent or d.kind not in ("function", "method"):
            continue
        enclosing = d.parent.rsplit(".", 1)[-1]
        if r.store.bound_type(d.path, d.parent) == owner:
            return d
        for f in r.store.definitions(enclosing):
            same = f.path == d.path and f.qualified == d.parent and f.kind in ("function", "method")
            if same and owner in (return_types(f.signature) or ()):
                return d
    return None


def _resolve(r: _Resolver, row: ReferenceRow, defs: list[DefinitionRow]) -> Answer | None:
    receiver = row.receiver
    if receiver.startswith("=") and len(receiver) > 1 and row.language in _JS:
        # `z.string()` after `import * as z from "./external"`: what that module exports as `string`
        modules = {e.dst for e in r._edges_with_raw(row.path) if e.raw == receiver[1:]}
        found = _exported_member(r, defs, modules)
        if found is None:  # `ky.create()` after `import ky from "./index"`, where `const ky = createInstance()`
            found = _bound_value(
                r,
                row,
                defs,
                {
                    (m, x.original)
                    for m in modules
                    for x in r.exports.exports_of(m)
                    if x.name == "default" and not x.raw
                },
            )
        return found
    if receiver == "self" and row.language in _JS:  # `this.headers()` in `const core: Wretch = {...}`
        owner = (row.enclosing or "").split(".")[:-1]
        if owner and r.store.bound_type(row.path, owner[0]) and not _classes_here(r, row, owner[0]):
            return _named(r, row, defs, owner[0])
    if not receiver or receiver == "self" or receiver.startswith("="):
        return None
    if receiver.startswith("()") and row.language in _JS:  # `db.selectFrom("t").where()`: what each returns
        from services.repo import chains

        return chains.resolve(r, row, defs, receiver[2:])
    if receiver == "super":
        return _super(r, row, defs)
    if receiver == "?":
        return unknown(defs)
    if receiver.startswith("?"):
        word = receiver[1:]
        return _dotted(r, row, defs, word) if "." in word else _named(r, row, defs, word)
    return _typed(r, row, defs, receiver, hops=2)


_HOPS = 4


def _exported_member(r: _Resolver, defs: list[DefinitionRow], modules: set[str]) -> Answer | None:
    """The definition `modules` (namespaces) export under the member's name: their own top-level
    definition, else what they re-export by that name or through `export *`, nearest first; None
    when the walk finds none (a value's member, `ky.create()` on a default export, is not a
    namespace's and is left to the general rules)."""
    top = [d for d in defs if not d.parent and d.kind != "module" and not is_property_function(d)]
    frontier = sorted((m, r.member) for m in modules)
    seen = set(frontier)
    for _hop in range(_HOPS):
        hit = [d for d in top if any(d.path == path and d.name == name for path, name in frontier)]
        if hit:
            if len({(d.path, d.qualified) for d in hit}) == 1:
                return "import", hit[0]
            return "ambiguous", None
        found = []
        for path, name in frontier:
            edges = r.exports.edges_of(path)
            for x in r.exports.exports_of(path):
                if x.name == name:
                    nxt = [(path, x.original)] if not x.raw else [(e.dst, x.original) for e in edges if e.raw == x.raw]
                elif x.name == "*" and x.original == "*" and x.raw:
                    nxt = [(e.dst, name) for e in edges if e.raw == x.raw]
                else:
                    continue
                for pair in nxt:
                    if pair not in seen:
                        seen.add(pair)
                        found.append(pair)
        if not found:
            return None
        frontier = sorted(found)
    return None


def _handed_namespaces(r: _Resolver, path: str, word: str) -> set[str]:
    """The modules another file binds `word` to as a namespace (`import * as z from "./external"`) and
    `path` imports `word` from by name (`import { z } from "./index"`)."""
    out: set[str] = set()
    for edge in r._edges_with_raw(path):
        if word not in edge.names.split():
            continue
        bound = {row.line for row in r.store.references_in(word, [edge.dst], kind="import")}
        raws = {raw for raw, line in r.store.whole_module_imports(edge.dst) if line in bound}
        out |= {e.dst for e in r._edges_with_raw(edge.dst) if e.raw in raws}
    return out


def _super(r: _Resolver, row: ReferenceRow, defs: list[DefinitionRow]) -> Answer:
    classes = (row.enclosing or "").split(".")[:-1]
    here = (
        [c for c in r.store.definitions(classes[-1]) if c.path == row.path and c.kind in CLASS_KINDS] if classes else []
    )
    if len(here) == 1:
        inherited = r._through_bases(here[0])
        if inherited is not None:
            return "receiver", inherited
        if _outside_ancestry(r, here[0], set()):  # `class LRI(dict)`: `super().popitem()` is dict's
            return "unresolved", None
    return unknown([d for d in defs if not here or d.parent != here[0].qualified or d.path != row.path])


# Classes every module sees without an import, whose members are never the repository's.
_BUILTIN_CLASSES = {
    "python": frozenset(n for n in dir(builtins) if isinstance(getattr(builtins, n), type) and not n.startswith("_")),
    "js": frozenset(
        {
            "Object",
            "Array",
            "Error",
            "TypeError",
            "RangeError",
            "Map",
            "Set",
            "WeakMap",
            "WeakSet",
            "Promise",
            "EventTarget",
            "Event",
            "HTMLElement",
            "Function",
            "Date",
            "RegExp",
            "Response",
            "Request",
            "Headers",
        }
    ),
}


def _outside_ancestry(r: _Resolver, cls: DefinitionRow, seen: set[int]) -> bool:
    """True when every class `cls` inherits from, through the repository's classes, is one from
    outside it (a builtin such as `dict`, or an outside import such as `MutableSet`): whatever
    `super().member` reaches then is none of the repository's definitions."""
    from services.repo.callers import _class_for

    seen.add(cls.id)
    builtin = _BUILTIN_CLASSES["python" if cls.language == "python" else "js"]
    for base in r.store.bases_of(cls.path, cls.qualified):
        name = base.name.replace("::", ".").rsplit(".", 1)[-1]
        found = _class_for(r.store, base.reference, name)
        if found is not None:
            if found.id in seen or not _outside_ancestry(r, found, seen):
                return False
            continue
        head = base.reference.receiver.lstrip("?").split(".", 1)[0] or base.name.split(".", 1)[0]
        if name in builtin and not base.reference.receiver:
            continue
        if not _from_outside(r, cls.path, head):
            return False
    return True


def _named(r: _Resolver, row: ReferenceRow, defs: list[DefinitionRow], word: str) -> Answer:
    """`word.member` with `word` a plain name: a class, a module, an outside import, or a variable."""
    declared = _declared_value(r, row, word)
    if declared is not None:  # `export const Node: NodeFactory = freeze({...})`: the type's member
        where, type_ = declared
        found = _typed(r, row, defs, type_, hops=2)
        if found[0] == "receiver":
            # the object the file writes for that value implements the member (`cloneWith(node) {...}`
            # in the literal): one symbol to a type checker, so the one asked for answers. Only a
            # method whose parameters the type gives (written untyped): one that types its own
            # (`lit<V>(value: V)` in `Object.assign(fn, {...})`) is no contextually typed literal's.
            written = [
                d
                for d in defs
                if d.path == where
                and (
                    (d.parent in (None, "", word) and d.kind == "function") or (d.parent == word and d.kind == "method")
                )
                and not _types_its_parameters(d.signature)
            ]
            asked = [d for d in written if r.wanted is not None and d.id in r.wanted]
            return ("receiver", asked[0]) if len(asked) == 1 else found
    typed = [d for d in defs if d.parent and d.parent.rsplit(".", 1)[-1] == word]
    if typed:  # `Store.create()`: that class's member, its static one where it has both
        return r._by_place(row, _statics(typed, static=True), members_only=True)
    if row.language in _JS and (handed := _handed_namespaces(r, row.path, word)):
        # `import { z } from "./index"` where index.ts binds `z` to a namespace: `import * as z from ...; export { z }`
        found = _exported_member(r, defs, handed)
        if found is not None:
            return found
    # the modules an import binds to the name, else the files an import names it from (a namespace
    # re-export, `export * as util`): only their module-level names count
    through = _bound_modules(r, row.path, word) or r._modules_named(row.path, word)
    if through:  # `helpers.parse()` after `from pkg import helpers`: the module's own names, not members
        hit = r._in_or_through([d for d in defs if not d.parent], through)
        if len({(d.path, d.qualified) for d in hit}) == 1:
            return "import", hit[0]
        if hit:
            return "ambiguous", None
    if through:  # `app.route()` after `from pkg import app`, where `app = Flask(__name__)`
        found = _bound_value(r, row, defs, {(m, word) for m in through})
        if found is not None:
            return found
    if _from_outside(r, row.path, word):
        return "unresolved", None
    # a class only when this file can see one by that name: its own, or one it imports by name (a
    # variable `c` is no class `c` another file declares)
    classes = [c for c in _classes(r, row, word) if c.path == row.path or _imports_name(r, row.path, word)]
    if classes:
        return _member_of(r, defs, classes)
    return unknown(defs)


def _dotted(r: _Resolver, row: ReferenceRow, defs: list[DefinitionRow], word: str) -> Answer:
    """`a.b.member`: an attribute of `self`, a module path, a nested class, or an object's attribute."""
    parts = word.split(".")
    if parts[0] in _SELF_WORDS:
        return unknown(defs)
    if _from_outside(r, row.path, parts[0]):
        return "unresolved", None
    nested = [d for d in defs if d.parent and (d.parent == word or d.parent.endswith("." + word))]
    if nested:  # `Outer.Inner.method()`
        return r._by_place(row, nested, members_only=True)
    in_module = [d for d in defs if not d.parent and module_path(d.path).endswith(word)]
    if len({d.path for d in in_module}) > 1:  # `mod.py` beside its stub `mod.pyi` is one module: the code
        in_module = [d for d in in_module if not d.path.endswith(".pyi")] or in_module
    if len({d.path for d in in_module}) == 1 and r._modules_named(row.path, parts[0]):
        return "import", in_module[0]  # `pkg.mod.func()` after `import pkg`
    return unknown(defs)


def _types_its_parameters(signature: str) -> bool:
    """True when a signature's parameter list (between its first `(` and the matching `)`) annotates a type."""
    start = signature.find("(")
    if start < 0:
        return False
    depth = 0
    for i in range(start, len(signature)):
        depth += {"(": 1, ")": -1}.get(signature[i], 0)
        if depth == 0:
            return ":" in signature[start:i]
    return ":" in signature[start:]


def _declared_value(r: _Resolver, row: ReferenceRow, word: str) -> tuple[str, str] | None:
    """`(file, type)` when `word` is a value a file's top level binds to one known type: this file's
    (in Python for a use at its own top level, where no local can shadow it; a JS/TS top-level
    binding is read in its functions too), or the file an import by name brings `word` from."""
    here = row.enclosing is None or row.language in _JS
    if here and (type_ := r.store.bound_type(row.path, word)):
        return row.path, type_
    found = {
        (e.dst, t)
        for e in r._edges_with_raw(row.path)
        if word in e.names.split() and (t := r.store.bound_type(e.dst, word))
    }
    return found.pop() if len(found) == 1 else None


def _bound_value(
    r: _Resolver, row: ReferenceRow, defs: list[DefinitionRow], names: set[tuple[str, str]]
) -> Answer | None:
    """A member of the value that modules bind at their top level (`(module, name)` in `names`) to
    one known type (`const ky = createInstance()`); None when no such binding is known."""
    types = {t for module, name in names if (t := r.store.bound_type(module, name))}
    if len(types) != 1:
        return None
    return _typed(r, row, defs, types.pop(), hops=2)


def _typed(r: _Resolver, row: ReferenceRow, defs: list[DefinitionRow], type_: str, *, hops: int) -> Answer:
    """A variable or attribute whose type is known by name (constructed, annotated, returned)."""
    if _from_outside(r, row.path, type_) or (row.language in _JS and _reexported_from_outside(r, row.path, type_)):
        return "unresolved", None  # `q: SelectQueryBuilder` imported from a build (`../dist`), a package
    named = r.store.definitions(type_)
    functions = [d for d in named if d.kind in ("function", "method") and d.language in LANGUAGES]
    if functions and hops > 0 and not any(d.kind in CLASS_KINDS for d in named):
        # `ky = createInstance()`: what the function says it returns, not what is nested in it
        returned = {t for d in functions if (t := _returned(d.signature))}
        if len(returned) == 1:
            # the factory's own `ky.create = ...` is that member too (the service counts both as one):
            # the one asked for answers
            made = [d for d in defs for f in functions if d.parent == f.qualified and d.path == f.path]
            asked = [d for d in made if r.wanted is not None and d.id in r.wanted and is_property_function(d)]
            if len(asked) == 1:
                return "receiver", asked[0]
            return _typed(r, row, defs, returned.pop(), hops=hops - 1)
    typed = _statics([d for d in defs if d.parent and d.parent.rsplit(".", 1)[-1] == type_], static=False)
    if typed:
        local = [d for d in typed if d.path == row.path]
        if len(local) == 1 or len({d.path for d in typed}) == 1:
            return "receiver", (local or typed)[0]
        return r._by_place(row, typed, members_only=True)
    classes = _classes(r, row, type_)
    if classes:
        return _member_of(r, defs, classes)
    if functions:  # `m = make_model()`: what the function says it returns
        returned = {t for d in functions if (t := _returned(d.signature))}
        if len(returned) == 1 and hops > 0:
            return _typed(r, row, defs, returned.pop(), hops=hops - 1)
        return unknown(defs)
    return "unresolved", None  # a class from outside the repository (`list`, `Flask`)


def _member_of(r: _Resolver, defs: list[DefinitionRow], classes: list[DefinitionRow]) -> Answer:
    """The member the repository classes `classes` have, themselves or through their bases."""
    own = [d for d in defs if any(d.path == c.path and d.parent == c.qualified for c in classes)]
    if len({(d.path, d.qualified) for d in own}) == 1:
        return "receiver", own[0]
    found = {d.id: d for c in classes if (d := r._through_bases(c)) is not None}
    if len(found) == 1:
        return "receiver", next(iter(found.values()))
    return ("ambiguous", None) if own or found else ("unresolved", None)


def _classes(r: _Resolver, row: ReferenceRow, name: str) -> list[DefinitionRow]:
    """The repository classes `name` can be in `row`'s file: the one its imports or aliases reach
    (`Motor` after `from core import Engine as Motor`), else every class of that name."""
    from services.repo.callers import _class_for, family

    reached = _class_for(r.store, row, name)
    if reached is not None:
        return [reached]
    named = [
        d for d in r.store.definitions(name) if d.kind in CLASS_KINDS and family(d.language) == family(row.language)
    ]
    if named:
        return named
    aliased = r.exports.alias_of(name)  # `Motor` that `from .impl import Engine as Motor` binds
    return [aliased] if aliased is not None and aliased.kind in CLASS_KINDS else []


def _returned(signature: str) -> str | None:
    for pattern in _RETURNS:
        match = pattern.search(signature)
        if match:
            return plain_type(match.group(1))
    from services.repo.chains import return_types

    found = return_types(signature)  # TS `): Builder<T>`, which the patterns above leave out
    return found[0] if found and len(found) == 1 and found[0] != "this" else None


def _bound_modules(r: _Resolver, path: str, word: str) -> set[str]:
    """Files of the repository that an import of `path` binds to the name `word` (`import word`,
    `from pkg import word`, `import word from './word'`); never a module merely named so, which
    `from pkg.word import X` does not bind."""
    out = set()
    for dst, raw, names in r._edges_with_raw(path):
        parts = dst.rsplit(".", 1)[0].split("/")
        stem = parts[-2] if len(parts) > 1 and parts[-1] in ("__init__", "index") else parts[-1]
        if raw == word or (word in names.split() and stem == word):
            out.add(dst)
    return out


def _imports_name(r: _Resolver, path: str, word: str) -> bool:
    return any(word in i.names.split() for i in r.store.imports_of_paths([path]))


def _from_outside(r: _Resolver, path: str, word: str) -> bool:
    """True when `word` is bound in `path` by an import that reaches no file of the repository."""
    key = (path, word)
    cache = r.outside_words
    if key not in cache:
        reached = {e.raw for e in r._edges_with_raw(path)}
        found = False
        for i in r.store.imports_of_paths([path]):
            if i.raw in reached:
                continue
            names = i.names.split()
            if word in names or (not names and (i.raw == word or i.raw.split(".", 1)[0] == word)):
                found = True
                break
        cache[key] = found
    return cache[key]


def _statics(members: list[DefinitionRow], *, static: bool) -> list[DefinitionRow]:
    """A class's `static` members of the name (`Keyboard.text()`), or its instance ones (a value's
    `kb.text()`), where the class declares both; all of them otherwise."""
    if not members or members[0].language not in _JS:
        return members
    chosen = [d for d in members if d.signature.lstrip().startswith("static ") == static]
    return chosen or members


def _classes_here(r: _Resolver, row: ReferenceRow, name: str) -> list[DefinitionRow]:
    return [c for c in r.store.definitions(name) if c.path == row.path and c.kind in CLASS_KINDS]


def _reexported_from_outside(r: _Resolver, path: str, word: str) -> bool:
    """True when `path` imports `word` by name only from files of the repository that neither define
    nor name it but `export *` from outside it (a typings shim, `export * from "../../dist/index.js"`)."""
    sources = [e.dst for e in r._edges_with_raw(path) if word in e.names.split()]
    if not sources:
        return False
    for dst in sources:
        if any(d.path == dst for d in r.store.definitions(word)):
            return False
        reached = {e.raw for e in r.exports.edges_of(dst)}
        stars = [x for x in r.exports.exports_of(dst) if x.name == "*" and x.raw]
        if any(x.name == word for x in r.exports.exports_of(dst)) or not stars or any(x.raw in reached for x in stars):
            return False
    return True
