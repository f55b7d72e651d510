"""The class a PHP or C++ call chain ends on, by each method's declared or docblock return type.

A chain is written by the parser as `()START.m1.m2` (`php_types.call_chain`, `cpp_types.call_chain`):
START is `self` (the enclosing class), a class, or `?field` (a C++ member whose declared class
`cpp_types.field_class` gives). A method the class does not define is looked for through its
bases (`static::make()` declared in `Base`); a method returning `static`, `self` or `$this`
returns the class it was called on. A step `[]` is an element of the array the chain holds so
far (`foreach ($this->items() as $item)` with `@return array<int, Item>` or `Item[]`).
"""

from __future__ import annotations

from services.repo import cpp_types, php_types
from services.repo.rows import ReferenceRow
from services.repo.store import RepoStore

__all__ = ["returned"]

_ELEMENT = "[]"


def returned(store: RepoStore, cache: dict[tuple[str, str], str | None], row: ReferenceRow, chain: str) -> str | None:
    """The class the chain ends on, or None where a step's return is unknown or not one class
    (`cache` keeps each `(class, method)` answer for the resolver's run)."""
    start, *methods = chain.split(".")
    cls: str | None = start
    if start == "self":
        classes = (row.enclosing or "").split(".")[:-1]
        cls = classes[-1] if classes else None
    elif start.startswith("?") and row.language == "cpp":  # `cache_->Find(k)->value()`: the field's class
        cls = cpp_types.field_class(store.definitions, row.enclosing, start[1:])
    for method in methods:
        if cls is None:
            return None
        if method == _ELEMENT:  # what the array the chain returned holds
            cls = cls[2:] if cls.startswith(_ELEMENT) else None
            continue
        if cls.startswith(_ELEMENT):  # a method called on an array
            return None
        key = (cls, method)
        if key not in cache:
            cache[key] = _returns(store, row, cls, method)
        cls = cache[key]
    return None if cls is None or cls.startswith(_ELEMENT) else cls


def _returns(store: RepoStore, row: ReferenceRow, cls: str, method: str) -> str | None:
    from services.repo.callers import _class_for, family
    from services.repo.inheritance import member_through_bases
    from services.repo.languages import CLASS_KINDS

    every = [d for d in store.definitions(method) if d.kind == "method" and family(d.language) == family(row.language)]
    owned = [d for d in every if d.parent and d.parent.rsplit(".", 1)[-1] == cls]
    if not owned:  # `static::make()` in `Cart`, declared in its base `Base`
        classes = [c for c in store.definitions(cls) if c.kind in CLASS_KINDS and c.language == row.language]
        if len(classes) == 1:
            found = member_through_bases(store, classes[0], method, every, lambda r, n: _class_for(store, r, n))
            owned = list(found.definitions) if found else []
    if row.language == "cpp":
        kinds = {cpp_types.return_class(d.signature, method, cls) for d in owned}
    else:
        kinds = {php_types.returned_type(d.signature, cls) for d in owned}
    return kinds.pop() if len(kinds) == 1 else None
