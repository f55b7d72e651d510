"""Members a class inherits: `Web.route` is `Scaffold.route` when Web extends App extends Scaffold.

Bases come from the index's `inherits` references (the names a class header lists), each resolved
to a class definition the way any reference is (same file, then imports, then the only one). The
walk is depth-first in the order the bases are written, which is Python's and Ruby's lookup order
for single inheritance and a close one for multiple; it stops at the nearest class that defines
the member, never loops on a cycle of bases, and gives up past a depth no real hierarchy reaches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from services.repo.languages import CLASS_KINDS
from services.repo.rows import BaseRow, DefinitionRow, ReferenceRow
from services.repo.store import RepoStore

__all__ = ["Inherited", "member_through_bases", "members_above"]

_MAX_DEPTH = 25

# Resolves a base class named in `reference` (the name as written, last part) to its definition.
ResolveClass = Callable[[ReferenceRow, str], "DefinitionRow | None"]


@dataclass(frozen=True)
class Inherited:
    """The definitions of the member on the nearest ancestor, and the chain of classes that led there."""

    definitions: list[DefinitionRow]
    chain: list[str]  # qualified class names, from the class asked about to the one defining the member


def member_through_bases(
    store: RepoStore, cls: DefinitionRow, member: str, members: list[DefinitionRow], resolve: ResolveClass
) -> Inherited | None:
    """Where `cls` gets `member` from among its ancestors, given every definition of `member`."""
    by_owner: dict[tuple[str, str], list[DefinitionRow]] = {}
    for d in members:
        if d.parent:
            by_owner.setdefault((d.path, d.parent), []).append(d)
    seen = {cls.id}

    def walk(current: DefinitionRow, chain: list[str], depth: int) -> Inherited | None:
        if depth > _MAX_DEPTH:
            return None
        for base in _bases(store, current):
            found = resolve(base.reference, base.name.replace("::", ".").rsplit(".", 1)[-1])
            if found is None or found.id in seen:
                continue
            seen.add(found.id)
            here = by_owner.get((found.path, found.qualified))
            if here:
                return Inherited(here, [*chain, found.qualified])
            deeper = walk(found, [*chain, found.qualified], depth + 1)
            if deeper is not None:
                return deeper
        return None

    return walk(cls, [cls.qualified], 0)


def members_above(
    store: RepoStore, cls: DefinitionRow, member: str, members: list[DefinitionRow], resolve: ResolveClass
) -> list[DefinitionRow]:
    """Every definition of `member` on the ancestors of `cls` (interfaces and bases, all of them,
    not only the nearest): the methods a call can go through and still run `cls`'s own."""
    by_owner: dict[tuple[str, str], list[DefinitionRow]] = {}
    for d in members:
        if d.parent:
            by_owner.setdefault((d.path, d.parent), []).append(d)
    seen, found, stack = {cls.id}, [], [(cls, 0)]
    while stack:
        current, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        for base in _bases(store, current):
            above = resolve(base.reference, base.name.replace("::", ".").rsplit(".", 1)[-1])
            if above is None or above.id in seen:
                continue
            seen.add(above.id)
            found += by_owner.get((above.path, above.qualified), [])
            stack.append((above, depth + 1))
    return found


def _bases(store: RepoStore, cls: DefinitionRow) -> list[BaseRow]:
    """What a class's header names as its bases, and, for a Rust type, the traits `impl Trait for Type`
    blocks give it: in its own file, and in the crate's other files when no other type has its name."""
    bases = store.bases_of(cls.path, cls.qualified)
    if cls.language != "rust":
        return bases
    same_named = [d for d in store.definitions(cls.name) if d.language == "rust" and d.kind in CLASS_KINDS]
    for path, impl in store.trait_impls_of(cls.name, cls.path if len(same_named) > 1 else None):
        bases += store.bases_of(path, impl)
    return bases
