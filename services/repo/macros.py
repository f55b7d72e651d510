"""C and C++ macros: the calls a `#define`'s body makes, and the places its expansions make them.

The grammar keeps a macro's body as text, so a function called only through macros
(`yaml_free` inside `STACK_DEL`, `QUEUE_DEL`...) would have no callers. The parser reads the body's
calls as references at the body's lines (`body_calls`); `callers` then lists such a call where
the macro is used, as the preprocessor and clangd see it (`expand`), naming the macro in `via`.
A call in a macro nobody uses stays at the body's line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the parser imports this module, and never needs pydantic
    from services.repo.models import Reference

__all__ = ["LANGUAGES", "body_calls", "expand"]

LANGUAGES = frozenset({"c", "cpp"})
_NOT_CODE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_CALL = re.compile(r"(?<![\w.>#])(?<!->)([A-Za-z_]\w*)\s*\(")
_NOT_CALLS = frozenset(
    {"if", "while", "for", "switch", "return", "sizeof", "alignof", "_Alignof", "typeof", "__typeof__", "defined"}
    | {"do", "case", "else", "decltype", "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"}
    | {"__attribute__", "__declspec", "_Generic", "__builtin_expect", "offsetof", "va_arg", "noexcept"}
)
_MAX_DEPTH = 4  # a macro used inside another's body, and so on


def body_calls(node: Any) -> Iterator[tuple[str, int]]:
    """`(name, line)` of each call in the body of the `#define` `node`, its own parameters left out
    (`#define FREE(p) (yaml_free(p), p = 0)` calls `yaml_free`, never `p`)."""
    value = node.child_by_field_name("value")
    if value is None:
        return
    parameters = node.child_by_field_name("parameters")
    own = set(re.findall(r"[A-Za-z_]\w*", parameters.text.decode("utf-8", "replace"))) if parameters else set()
    text = value.text.decode("utf-8", "replace")
    code = _NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    first = value.start_point[0] + 1
    for match in _CALL.finditer(code):
        name = match.group(1)
        if name not in own and name not in _NOT_CALLS:
            yield name, first + code.count("\n", 0, match.start())


def expand(
    refs: list[Reference],
    is_macro: Callable[[str, str], bool],
    uses_of: Callable[[str, str], list[Reference]],
) -> list[Reference]:
    """`refs` with each call inside a used macro's body replaced by the macro's uses.

    `is_macro(path, name)` says whether `name` is a macro defined in `path`; `uses_of(path, name)`
    gives the references that reach that macro, resolved. A use inside another macro's body is
    followed in turn, at most a few macros deep, never around a cycle.
    """
    out: list[Reference] = []
    for ref in refs:
        if not _in_macro(ref, is_macro):
            out.append(ref)
            continue
        sites = _sites(ref.path, ref.enclosing or "", is_macro, uses_of, set(), 0)
        if not sites:
            out.append(ref)
            continue
        seen: set[tuple[str, int]] = set()
        for site, via in sites:
            if (site.path, site.line) in seen:
                continue
            seen.add((site.path, site.line))
            moved = {"path": site.path, "line": site.line, "enclosing": site.enclosing, "via": via}
            out.append(ref.model_copy(update=moved))
    return out


def _in_macro(ref: Reference, is_macro: Callable[[str, str], bool]) -> bool:
    return bool(ref.enclosing) and "." not in (ref.enclosing or "") and is_macro(ref.path, ref.enclosing or "")


def _sites(
    path: str,
    macro: str,
    is_macro: Callable[[str, str], bool],
    uses_of: Callable[[str, str], list[Reference]],
    visiting: set[tuple[str, str]],
    depth: int,
) -> list[tuple[Reference, str]]:
    """Where the macro `macro` of `path` is used, through the macros that use it: `(use, macro used there)`."""
    if depth >= _MAX_DEPTH or (path, macro) in visiting:
        return []
    visiting = visiting | {(path, macro)}
    found: list[tuple[Reference, str]] = []
    for use in uses_of(path, macro):
        if _in_macro(use, is_macro):
            deeper = _sites(use.path, use.enclosing or "", is_macro, uses_of, visiting, depth + 1)
            found += deeper or [(use, macro)]
        else:
            found.append((use, macro))
    return found
