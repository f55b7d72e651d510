"""Names an import binds under another name: `from m import X as Y`, `import a.b as m`, and kin.

The parser records each use of such a name under the original name too, with the import it came
through as its receiver (`=` and the import as written), so `callers X` finds `class A(Y)` and the
resolver ties it to the file that import reaches, never to a same-named class in the file itself.
Read from the import's text, which is small and the same shape across the languages that alias:

- Python `from m import X as Y` (a name) and `import a.b as m` (a module; `import a.b` too, which
  code names as `a.b.X`);
- JavaScript and TypeScript `import { X as Y }` and `import * as m`, and CommonJS
  `const m = require('./m')` and `const { X: Y } = require('./m')`; a default import
  (`import Y from './m'`, `import { default as Y }`, and a bare use of `m` after that `require`)
  is the name `default` of that import, which the imported file's exports tie to a definition;
- Kotlin `import a.b.X as Y`, PHP `use A\\B\\X as Y`, Rust `use a::b::X as Y` (also in a group),
  Scala `import a.b.{X => Y}`, C# `using Y = A.B.X`.

`exports` reads the other side: what a file hands its importers under a name that is not the
definition's own (`export default X`, `export { A as B } from`, `from .x import A as B`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from services.repo import assigned

__all__ = ["DEFAULT", "Alias", "Bound", "of", "qualifier", "qualifier_receiver"]

DEFAULT = "default"  # the name a default export goes by: `export default X`, `module.exports = X`

_AS = re.compile(r"(\*|[\w$.\\:]+)\s+as\s+([A-Za-z_$][\w$]*)")
_ARROW = re.compile(r"(\w+)\s*=>\s*(\w+)")
_USING = re.compile(r"^\s*using\s+(?:static\s+)?([A-Za-z_]\w*)\s*=\s*([\w.:]+)")
_AS_LANGUAGES = frozenset({"python", "javascript", "typescript", "tsx", "kotlin", "php", "rust"})
_JS = frozenset({"javascript", "typescript", "tsx"})
_DEFAULT_IMPORT = re.compile(r"^\s*import\s+(?:type\s+)?([A-Za-z_$][\w$]*)\s*(?:,|from\b)")
_BRACES = re.compile(r"\{([^}]*)\}")


@dataclass(frozen=True)
class Alias:
    """`local` names `original` (a module when `original` is empty) brought in by the import `raw`."""

    local: str
    original: str
    raw: str
    # how a use of `local` is recorded under `original`, when not `=raw` (a name bound by
    # assignment to one of the file's own definitions, `Base = Widget`: `""`, or to `mod.Widget`)
    receiver: str | None = None


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
        default = _DEFAULT_IMPORT.match(text) if language in _JS else None
        if default is not None and default.group(1) != "type":  # `import Base from './widget'`
            out.append(Alias(default.group(1), DEFAULT, rows[0][0]))
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
    if whole:  # the module, whose members are its exports, and, used bare, what `module.exports` is
        return [Alias(whole.group(1), "", raw), Alias(whole.group(1), DEFAULT, raw)]
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
        self.plain: dict[str, str] = {}  # a name imported under its own name (JS `import { X }`) -> its import
        self.whole: dict[str, str] = {}  # a module imported under its own name (Python `import widget`)

    def __bool__(self) -> bool:
        return bool(self.names or self.modules)

    def add(self, language: str, node_type: str, text: str, rows: list[tuple[str, str, int]]) -> None:
        for alias in of(language, node_type, text, rows):
            if alias.original:
                self.names[alias.local] = alias
            else:
                self.modules[alias.local] = alias.raw
        if language in _JS and node_type == "import_statement" and rows:
            for braces in _BRACES.findall(text):
                for spec in braces.split(","):
                    spec = spec.strip().removeprefix("type ").strip()
                    if spec.isidentifier() or (spec and spec.replace("$", "_").isidentifier()):
                        self.plain[spec] = rows[0][0]
        elif language == "python" and node_type == "import_statement":
            renamed = {left for left, _local in _AS.findall(text)}
            self.whole.update((raw, raw) for raw, _names, _line in rows if raw not in renamed)
        elif language == "python" and node_type == "import_from_statement" and rows:
            renamed = {left.rsplit(".", 1)[-1] for left, _local in _AS.findall(text)}
            for name in rows[0][1].split():
                if name != "*" and name not in renamed:  # `from .widget import Widget`
                    self.plain[name] = rows[0][0]
        elif node_type == "call_expression" and rows:  # `const { Widget } = require('./widget')`
            fields = re.match(r"\s*\{([^}]*)\}\s*=", text)
            for spec in fields.group(1).split(",") if fields else ():
                if re.fullmatch(r"\s*[\w$]+\s*", spec):
                    self.plain[spec.strip()] = rows[0][0]

    def taken(self) -> set[str]:
        """The names the file's imports bind at its top level."""
        return set(self.names) | set(self.plain) | {m for m in self.modules if "." not in m}

    def assign(self, found: list[assigned.Assignment]) -> list[Export]:
        """Take in the file's aliases by assignment (`Base = Widget`, after its imports are added), in
        the order they are written so that a chain (`A = Widget; B = A`) follows; the exports they make."""
        out: list[Export] = []
        for a in found:
            target = self._target(a.target)
            if target is None:
                continue
            original, raw, receiver = target
            if a.local:
                self.names[a.local] = Alias(a.local, original, raw, receiver)
            out.append((a.exported, original, raw, a.line))
        return out

    def _target(self, written: str) -> tuple[str, str, str] | None:
        """`(original name, import it comes through or "", receiver of a use)` for a name as written."""
        if "." not in written:
            alias = self.names.get(written)
            if alias is not None:  # `Base = W` after `import { Widget as W }`, or `A = Widget; B = A`
                receiver = alias.receiver if alias.receiver is not None else "=" + alias.raw
                return alias.original, alias.raw, receiver
            if written in self.modules:  # a module under another name is no definition
                return None
            raw = self.plain.get(written)
            return (written, raw, "=" + raw) if raw else (written, "", "")
        prefix, _, last = written.rpartition(".")
        raw = self.modules.get(prefix)
        if raw is not None:  # `Base = m.Widget` after `import pkg.widget as m`
            return last, raw, "=" + raw
        receiver = self.receiver(qualifier_receiver(prefix), prefix)  # `widgets.Widget`, `Outer.Inner`
        if receiver.startswith("="):
            return last, receiver[1:], receiver
        return last, self.whole.get(prefix) or self.plain.get(prefix, ""), receiver

    def type_name(self, name: str) -> str:
        """The class a constructor or an annotation names (`S()` after `import Store as S` is a Store)."""
        alias = self.names.get(name)
        return alias.original if alias is not None and alias.original != DEFAULT else name

    def receiver(self, receiver: str, written: str) -> str:
        """A receiver as the parser found it (`?m` a plain name, `?` anything else) with its text:
        through a module alias it is `=` and that import; a name alias gives the original name, and
        a default import (whose class only the imported file names) that import."""
        raw = self.modules.get(written)
        if raw is not None:
            return "=" + raw
        alias = self.names.get(receiver[1:]) if receiver.startswith("?") else None
        if alias is None:
            return receiver
        return "=" + alias.raw if alias.original == DEFAULT else "?" + alias.original

    def original(self, name: str, kind: str, receiver: str) -> tuple[str, str, str] | None:
        """`(original name, its receiver, the local name's receiver)` for a bare use of an alias, None
        for any other reference. The local name gets `=` and the import (`=` alone, the file's own
        binding, for a name bound by assignment): it is no definition of that name elsewhere."""
        if receiver or kind == "import":
            return None
        alias = self.names.get(name)
        if alias is None:
            return None
        if alias.receiver is not None:  # bound by assignment: the local name is the file's own binding
            return alias.original, alias.receiver, "="
        return alias.original, "=" + alias.raw, "=" + alias.raw

    def origin(self, local: str) -> tuple[str, str] | None:
        """`(name, import)` a file-level name stands for: an import's (`import { X as local }`), or
        its own definition (`""`); None for a module alias, which no class is."""
        alias = self.names.get(local)
        if alias is not None:
            return alias.original, alias.raw
        if local in self.modules and local not in self.names:
            return None
        return local, self.plain.get(local, "")


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


# exports ----------------------------------------------------------------------------------------

Export = tuple[str, str, str, int]  # (name importers use, original name, import it came through or "", line)


def exports(language: str, root: Any, bound: Bound, *, package: bool) -> list[Export]:
    """What a file hands its importers under a name that is not the definition's own, from its top level.

    JavaScript/TypeScript: `export default X` (a declaration, a name, a class expression),
    `export { X as default }`, `export { X as Y }` and `export { X }` of an imported X,
    `export { X as Y } from`, `export * from`, `export = X`, `module.exports = X`. Python:
    `from m import X as Y` (any module binds Y for its importers), and in a package's
    `__init__` (`package`) `from m import X` and `from m import *` too. The rest keeps its name.
    """
    out: list[Export] = []
    if language == "python":
        for node in root.named_children:
            if node.type == "import_from_statement":
                _python_exports(node, package, out)
        return out
    if language not in _JS:
        return out
    for node in root.named_children:
        line = node.start_point[0] + 1
        if node.type == "export_statement":
            _js_export(node, bound, line, out)
        elif node.type == "expression_statement" and node.named_child_count:
            assignment = node.named_child(0)
            left = assignment.child_by_field_name("left") if assignment.type == "assignment_expression" else None
            if left is not None and _text(left).replace(" ", "") == "module.exports":
                _default_value(assignment.child_by_field_name("right"), bound, line, out)
    return out


def _python_exports(node: Any, package: bool, out: list[Export]) -> None:
    module = node.child_by_field_name("module_name")
    raw = _text(module) if module is not None else "."
    line = node.start_point[0] + 1
    for child in node.children_by_field_name("name"):
        if child.type == "aliased_import":
            name, alias = child.child_by_field_name("name"), child.child_by_field_name("alias")
            if name is not None and alias is not None:
                out.append((_text(alias), _text(name).rsplit(".", 1)[-1], raw, line))
        elif package:
            out.append((_text(child), _text(child), raw, line))
    if package and any(c.type == "wildcard_import" for c in node.named_children):
        out.append(("*", "*", raw, line))


def _js_export(node: Any, bound: Bound, line: int, out: list[Export]) -> None:
    source = node.child_by_field_name("source")
    raw = _text(source).strip("\"'`") if source is not None else None
    kinds = {c.type for c in node.children}
    if raw is not None and "*" in kinds:  # `export * from './m'` (not `export * as ns from`)
        out.append(("*", "*", raw, line))
    if "default" in kinds:
        declaration = node.child_by_field_name("declaration")
        if declaration is not None:
            name = declaration.child_by_field_name("name")
            if name is not None:  # `export default class Widget {}`
                out.append((DEFAULT, _text(name), "", line))
            return
        _default_value(node.child_by_field_name("value"), bound, line, out)
        return
    if "=" in kinds:  # TypeScript `export = Widget`
        value = next((c for c in node.named_children if c.type == "identifier"), None)
        _default_value(value, bound, line, out)
        return
    for clause in node.named_children:
        if clause.type != "export_clause":
            continue
        for spec in clause.named_children:
            name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
            if name is None:
                continue
            local = _text(name)
            exported = _text(alias) if alias is not None else local
            if raw is not None:  # `export { X as Y } from './m'`, `export { X } from './m'`
                out.append((exported, local, raw, line))
                continue
            origin = bound.origin(local)
            if origin is not None and (origin[0] != exported or origin[1]):  # renamed, or imported
                out.append((exported, *origin, line))


def _default_value(value: Any, bound: Bound, line: int, out: list[Export]) -> None:
    """`export default X` / `module.exports = X`: a name, a named class or function, or a `require`."""
    if value is None:
        return
    if value.type == "identifier":
        origin = bound.origin(_text(value))
        if origin is not None:
            out.append((DEFAULT, *origin, line))
    elif value.type in ("class", "function_expression", "function", "class_declaration"):
        name = value.child_by_field_name("name")
        if name is not None:  # `module.exports = class Inline {}`
            out.append((DEFAULT, _text(name), "", line))
    elif value.type == "call_expression":  # `module.exports = require('./m')`: that module's default
        function, arguments = value.child_by_field_name("function"), value.child_by_field_name("arguments")
        if function is not None and _text(function) == "require" and arguments is not None:
            first = arguments.named_child(0) if arguments.named_child_count else None
            if first is not None and first.type == "string":
                out.append((DEFAULT, DEFAULT, _text(first).strip("\"'`"), line))


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")
