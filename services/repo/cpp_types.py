"""C++ types the per-file receivers do not give: a member's declared class and a method's return class.

- `cache_->Lookup()` in `void Version::Run()`, with `Cache* cache_;` declared in `class Version` (in a
  header, usually): the receiver is the class the field is declared as (`field_class`);
- `Cache plain;`, `Cache sized(8);`, `new Cache(4)`: a construction, a reference of the class's
  constructor as clangd counts it (`constructions`), written as a call of `Cache` on `Cache`;
- `Get()->Lookup()`, `db.versions()->current()->Ref()`, `cache_->Find(k)->value()`: the receiver is
  what the call before returns, written `()self.Get` / `()?db.versions.current` as for PHP
  (`call_chain`, in the parser), which the resolver reads through each method's declared return type
  (`return_class`).

Owning and borrowing wrappers (`std::unique_ptr<Cache>`, `std::shared_ptr<T>`, `T*`, `const T&`) name
the class they hold; a built-in type, a template parameter list the class is not one of, or a name that
is not one class names none.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

__all__ = ["call_chain", "class_of", "constructions", "field_class", "return_class", "self_field"]

# Wrappers whose members are their argument's: `p->f()` on a `std::unique_ptr<T>` calls `T::f`.
_WRAPPERS = frozenset({"unique_ptr", "shared_ptr", "weak_ptr", "scoped_ptr", "optional", "reference_wrapper"})
_SPECIFIERS = frozenset(
    {"const", "static", "mutable", "volatile", "virtual", "inline", "explicit", "constexpr", "extern", "friend"}
    | {"struct", "class", "typename", "enum", "union", "register", "thread_local", "override", "final"}
)
_BUILTINS = frozenset(
    {"void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "auto", "size_t"}
    | {"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "wchar_t"}
    | {"string", "vector", "map", "set", "pair", "tuple", "function", "string_view", "unordered_map", "array"}
)
_NAME = re.compile(r"[A-Za-z_]\w*")
_THIS_FIELD = re.compile(r"^this\s*->\s*([A-Za-z_]\w*)$")
_CHAINS = frozenset({"call_expression"})


def class_of(written: str) -> str | None:
    """The class a C++ type names: `Cache*`, `const Cache&`, `db::Cache`, `std::unique_ptr<Cache>`
    give `Cache`; `int`, `std::vector<Cache>`, `T<A, B>` give None."""
    text = written.strip()
    while True:
        wrapped = re.fullmatch(r"(?:const\s+)?(?:[\w:]*::)?(\w+)\s*<(.*)>\s*[*&]*\s*(?:const)?", text, re.S)
        if wrapped is None:
            break
        if wrapped.group(1) not in _WRAPPERS or "," in wrapped.group(2):
            return None
        text = wrapped.group(2).strip()
    if "<" in text or "(" in text or "[" in text:
        return None
    words = [w for w in re.split(r"[\s*&]+", text) if w and w not in _SPECIFIERS]
    if len(words) != 1:
        return None
    last = words[0].rsplit("::", 1)[-1]
    if not _NAME.fullmatch(last) or last in _BUILTINS or last.startswith("std"):
        return None
    return last


def field_type(signature: str, name: str) -> str | None:
    """The class a field's declaration gives it: `Cache* cache_;`, `std::unique_ptr<Table> table_ = nullptr;`."""
    head = re.split(r"\b" + re.escape(name) + r"\b", signature, maxsplit=1)[0]
    return class_of(head) if head.strip() else None


def return_class(signature: str, name: str, owner: str) -> str | None:
    """The class a method's or function's declaration says it returns: `Cache* Get()`, `virtual
    Iterator* NewIterator(const ReadOptions&) = 0;`, `const Comparator& cmp() const`, `Version*
    VersionSet::current()`; a constructor or a built-in return gives None, `auto` too."""
    found = re.search(r"(?<![\w~])" + re.escape(name) + r"\s*\(", signature)
    if found is None:
        return None
    head = signature[: found.start()]  # a constructor's (`Cache(int n);`) is empty
    head = re.sub(r"(?:[A-Za-z_]\w*(?:<[^<>]*>)?::)+$", "", head.strip())  # `Version* VersionSet::`
    head = re.sub(r"^\s*template\s*<[^>]*>\s*", "", head)
    cls = class_of(head) if head.strip() else None
    return cls if cls != name else None


def self_field(text: str) -> str | None:
    """The field `this->cache_` names, or None."""
    found = _THIS_FIELD.match(text)
    return found.group(1) if found else None


def call_chain(node: Any, receiver: Callable[[Any], str]) -> str | None:
    """The receiver a call's result is, as `()START.m1.m2` for the resolver: START is `self` for a
    bare call (`Get()->x()`, a method of the enclosing class), else the receiver of the first call's
    object (`receiver`, the parser's own); None when that is unknown or a call has no plain name."""
    methods: list[str] = []
    current = node
    while current is not None and current.type in _CHAINS:
        function = current.child_by_field_name("function")
        if function is None:
            return None
        if function.type == "identifier":
            methods.append(function.text.decode("utf-8", "replace"))
            start = "self"
            break
        if function.type == "qualified_identifier":  # `Version::current()->x()`: a static member
            scope, name = function.child_by_field_name("scope"), function.child_by_field_name("name")
            while name is not None and name.type == "qualified_identifier":  # `leveldb::Env::Default()`
                scope, name = name.child_by_field_name("scope"), name.child_by_field_name("name")
            if scope is None or name is None or name.type != "identifier":
                return None
            methods.append(name.text.decode("utf-8", "replace"))
            start = scope.text.decode("utf-8", "replace").rsplit("::", 1)[-1]
            if not _NAME.fullmatch(start):
                return None
            break
        if function.type != "field_expression":
            return None
        field = function.child_by_field_name("field")
        value = function.child_by_field_name("argument")
        if field is None or value is None or field.type != "field_identifier":
            return None
        methods.append(field.text.decode("utf-8", "replace"))
        if value.type in _CHAINS:
            current = value
            continue
        start = receiver(value)
        break
    else:
        return None
    if start in ("", "?") or "." in start:
        return None
    return "()" + ".".join([start, *reversed(methods)])


def field_class(definitions: Callable[[str], list[Any]], enclosing: str | None, name: str) -> str | None:
    """The class a bare `name` is declared as when it is a field of the class a method belongs to
    (`cache_` in `db.Version.Run`, its class `db.Version` or a class holding it), from the field's
    own declaration; None when no such field or not one class."""
    if not enclosing:
        return None
    classes = enclosing.split(".")[:-1]
    fields = [d for d in definitions(name) if d.kind == "field" and d.language in ("cpp", "c")]
    for depth in range(len(classes), 0, -1):
        owner = ".".join(classes[:depth])
        own = {field_type(d.signature, name) for d in fields if d.parent == owner}
        if own:
            return own.pop() if len(own) == 1 else None
    return None


_CLASS = "[(type_identifier) @class (qualified_identifier name: (type_identifier) @class)]"
_CONSTRUCTIONS = f"""
(new_expression type: {_CLASS})
(new_expression type: (qualified_identifier name: (template_type name: (type_identifier) @class)))
(new_expression type: (template_type name: (type_identifier) @class))
(declaration type: {_CLASS}
  declarator: [(identifier) @at
    (init_declarator declarator: (identifier) @at value: [(argument_list) (initializer_list)])])
"""


@functools.cache
def _constructions_query() -> Any:
    from tree_sitter import Query

    from services.repo import tree_queries

    return Query(tree_queries.grammar("cpp"), _CONSTRUCTIONS)


def constructions(root: Any) -> list[tuple[str, int]]:
    """`(class, line)` for each place a function body constructs an object of a named class: `new
    Cache(4)`, `db::Cache plain;`, `Cache sized(8);`, `Cache braced{8};` (a declaration with no
    initializer runs the default constructor). The line is the variable's, as clangd reports it."""
    from tree_sitter import QueryCursor

    out = []
    for _pattern, captures in QueryCursor(_constructions_query()).matches(root):
        cls = captures["class"][0]
        name = cls.text.decode("utf-8", "replace")
        if name in _BUILTINS or name.startswith("std"):
            continue
        at = captures["at"][0] if "at" in captures else cls
        out.append((name, at.start_point[0] + 1))
    return out
