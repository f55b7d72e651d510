"""Names an import binds under another name: `from m import X as Y`, `import a.b as m`, and kin.

The parser records each use of such a name under the original name too, with the import it came
through as its receiver (`=` and the import as written), so `callers X` finds `class A(Y)` and the
resolver ties it to the file that import reaches, never to a same-named class in the file itself.
Read from the import's text, which is small and the same shape across the languages that alias:

- Python `from m import X as Y` (a name) and `import a.b as m` (a module; `import a.b` too, which
  code names as `a.b.X`);
- JavaScript and TypeScript `import { X as Y }` and `import * as m`, and CommonJS
  `const m = require('./m')` and `const { X: Y } = require('./m')`;
- Kotlin `import a.b.X as Y`, PHP `use A\\B\\X as Y`, Rust `use a::b::X as Y` (also in a group),
  Scala `import a.b.{X => Y}`, C# `using Y = A.B.X`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Alias", "Bound", "of", "qualifier", "qualifier_receiver"]

_AS = re.compile(r"(\*|[\w$.\\:]+)\s+as\s+([A-Za-z_$][\w$]*)")
_ARROW = re.compile(r"(\w+)\s*=>\s*(\w+)")
_USING = re.compile(r"^\s*using\s+(?:static\s+)?([A-Za-z_]\w*)\s*=\s*([\w.:]+)")
_AS_LANGUAGES = frozenset({"python", "javascript", "typescript", "tsx", "kotlin", "php", "rust"})


@dataclass(frozen=True)
class Alias:
    """`local` names `original` (a module when `original` is empty) brought in by the import `raw`."""

    local: str
    original: str
    raw: str


def of(language: str, node_type: str, text: str, rows: list[tuple[str, str, int]]) -> list[Alias]:
    """The aliases one import statement binds; `rows` are its `(raw, names, line)` import rows."""
    if not rows or node_type == "export_statement":  # `export { X as Y } from`: passed on, not bound here
        return []
    if language == "python" and node_type == "import_statement":
        out = []  # `import a.b as m, c`: each module under its alias, and a dotted one under its own path
        for left, local in _AS.findall(text):
            out.append(Alias(local, "", left))
        aliased = {a.raw for a in out}
        out += [Alias(raw, "", raw) for raw, _names, _line in rows if "." in raw and raw not in aliased]
        return out
    if node_type == "call_expression":  # `const m = require('./m')`, `const { X: Y } = require('./m')`
        return _required(text, rows[0][0])
    if language in _AS_LANGUAGES:
        out = []
        for left, local in _AS.findall(text):
            if left == "*":  # `import * as m from './m'`
                out.append(Alias(local, "", rows[0][0]))
                continue
            original = re.split(r"\.|\\|::", left)[-1]
            if original and original != local:
                out.append(Alias(local, original, _row_for(rows, left, original)))
        return out
    if language == "scala":
        return [
            Alias(local, original, _row_for(rows, original, original))
            for original, local in _ARROW.findall(text)
            if local != "_" and original != local
        ]
    if language == "csharp":
        match = _USING.match(text)
        if match:
            local, target = match.groups()
            return [Alias(local, re.split(r"\.|::", target)[-1], rows[0][0])]
    return []


def _required(declarator: str, raw: str) -> list[Alias]:
    """The names a CommonJS `require` binds, from its declarator's text (`m = require(...)`)."""
    whole = re.match(r"\s*([A-Za-z_$][\w$]*)\s*=", declarator)
    if whole:
        return [Alias(whole.group(1), "", raw)]
    fields = re.match(r"\s*\{([^}]*)\}\s*=", declarator)
    if not fields:
        return []
    pairs = (re.fullmatch(r"\s*([\w$]+)\s*:\s*([\w$]+)\s*", f) for f in fields.group(1).split(","))
    return [Alias(m.group(2), m.group(1), raw) for m in pairs if m is not None and m.group(1) != m.group(2)]


def _row_for(rows: list[tuple[str, str, int]], left: str, original: str) -> str:
    """The raw of the import row `left` came from: one row names each module or each name."""
    for raw, _names, _line in rows:
        if raw == left or raw.endswith(("." + original, "\\" + original, "::" + original)):
            return raw
    return rows[0][0]


# Qualified-name nodes whose last segment is the name and the rest says where it comes from.
_QUALIFIED = frozenset(
    {"nested_type_identifier", "scoped_type_identifier", "qualified_name", "user_type", "scope_resolution"}
)


class Bound:
    """The aliases one file's imports bind, and what they change about the file's references."""

    def __init__(self) -> None:
        self.names: dict[str, Alias] = {}
        self.modules: dict[str, str] = {}  # local name (or dotted path) of a module -> its import as written

    def __bool__(self) -> bool:
        return bool(self.names or self.modules)

    def add(self, language: str, node_type: str, text: str, rows: list[tuple[str, str, int]]) -> None:
        for alias in of(language, node_type, text, rows):
            if alias.original:
                self.names[alias.local] = alias
            else:
                self.modules[alias.local] = alias.raw

    def type_name(self, name: str) -> str:
        """The class a constructor or an annotation names (`S()` after `import Store as S` is a Store)."""
        alias = self.names.get(name)
        return alias.original if alias is not None else name

    def receiver(self, receiver: str, written: str) -> str:
        """A receiver as the parser found it (`?m` a plain name, `?` anything else) with its text:
        through a module alias it is `=` and that import; a name alias gives the original name."""
        raw = self.modules.get(written)
        if raw is not None:
            return "=" + raw
        alias = self.names.get(receiver[1:]) if receiver.startswith("?") else None
        return "?" + alias.original if alias is not None else receiver

    def original(self, name: str, kind: str, receiver: str) -> tuple[str, str] | None:
        """`(original name, receiver)` for a bare use of an alias, None for any other reference."""
        if receiver or kind == "import":
            return None
        alias = self.names.get(name)
        return (alias.original, "=" + alias.raw) if alias is not None else None


def qualifier(node: Any) -> str | None:
    """`ns` for the `Drawable` of a qualified type name `ns.Drawable` (`A::B`, `\\A\\B`, `a.b.C`), else None."""
    parent = node.parent
    if parent is None or parent.type not in _QUALIFIED:
        return None
    if node.start_byte == parent.start_byte or node.end_byte != parent.end_byte:
        return None
    prefix = parent.text[: node.start_byte - parent.start_byte].decode("utf-8", "replace").rstrip(".:\\ ")
    return prefix or None


def qualifier_receiver(written: str) -> str:
    """The receiver a qualifier makes: `?` and its last part when that is a plain name."""
    last = re.split(r"\.|::|\\", written)[-1]
    return "?" + last if last.isidentifier() else "?"
