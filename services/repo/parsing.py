"""Per-file facts from tree-sitter: symbols, imports and referenced identifiers, for six languages.

The grammars and their `tags.scm` definition queries come from the per-language wheels, which work
with no network. Everything here depends on one file's bytes only, so results are cached under
the file's content hash and never recomputed for content already seen.
"""

from __future__ import annotations

import bisect
import functools
import importlib
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from services.repo import aliases, assigned, doc_text, grammars, languages, macros, receivers, repairs, ruby_calls

__all__ = ["CODE_LANGUAGES", "FACTS_VERSION", "Facts", "extract", "language_of"]

# Raised whenever the same bytes give different facts (2: import aliases and base qualifiers; 3:
# exports under another name, default imports; 4: enum members, Python class attributes, `E::A`
# receivers; 5: fields of classes and structs; 6: names bound by assignment, `Base = Widget`, and
# Rust `impl Trait for Type` blocks; 7: Python/JS/TS receivers by `receivers`, decorator receivers,
# `registration` references; 8: declarations of the pack languages ctags finds, C globals, Ruby
# accessors and aliases, Swift initialisers, Kotlin packages and top-level properties, C++ headers
# and methods, scripts known by their shebang; 9: C/C++ specifier and statement macros read around
# (`services.repo.repairs`), deep qualified members, reference fields, specialisations; 10: the
# types of top-level bindings, `const ky = createInstance()`, `app = Flask()`, and JS/TS variables
# bound to a call; 11: C comments before a `#define`'s continuation, return-type macros above a
# definition, the calls in a macro's body; 12: PHP docblock types and fields assigned from typed
# parameters; 13: PHP call chains' receivers and docblock return types in signatures; 14: C++ export
# macros before a class name whose brace is on the next line; 15: C++ locals declared as pointers or
# references; 16: Bash tests whose operator comes from their arguments, `[ "$(f)" "$@" ]`, C++
# call chains' and `this->field`'s receivers, conditionals in lists, defaulted members, `.inl`;
# Kotlin constructors on the next line; PHP `foreach` over docblock-typed arrays; 17: JS/TS call
# chains `()start.m1.m2`, generic and type-parameter annotations, variables bound to a member call,
# members of an object literal bound by `const x = {...}`): an index whose
# facts an older parser wrote parses its contents again at the next run.
FACTS_VERSION = "17"

# extension -> language; code languages are parsed with tree-sitter, the rest indexed as text.
_BY_EXTENSION = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "text",
    ".txt": "text",
    ".sql": "sql",
    ".zsh": "shell",
    ".toml": "config",
    ".yaml": "config",
    ".yml": "config",
    ".json": "config",
    ".ini": "config",
    ".cfg": "config",
    ".env": "config",
}
_BY_NAME = {
    "makefile": "shell",
    "dockerfile": "shell",
    "justfile": "shell",
    ".bashrc": "shell",
    ".bash_profile": "shell",
    ".profile": "shell",
    ".zshrc": "shell",
    ".zprofile": "shell",
    ".envrc": "shell",
}
_BY_EXTENSION.update(languages.EXTENSIONS)
_BY_NAME.update(languages.NAMES)
CODE_LANGUAGES = (
    frozenset({"python", "javascript", "typescript", "tsx", "go", "rust", "java"}) | languages.PACK_LANGUAGES
)
TEXT_LANGUAGES = frozenset({"markdown", "text", "sql", "shell", "config"})

_IDENTIFIERS = {
    "python": ("identifier",),
    "javascript": ("identifier", "property_identifier", "shorthand_property_identifier"),
    "typescript": ("identifier", "property_identifier", "type_identifier", "shorthand_property_identifier"),
    "tsx": ("identifier", "property_identifier", "type_identifier", "shorthand_property_identifier"),
    "go": ("identifier", "field_identifier", "type_identifier", "package_identifier"),
    "rust": ("identifier", "field_identifier", "type_identifier"),
    "java": ("identifier", "type_identifier"),
    **languages.IDENTIFIERS,
}
_IGNORED_NAMES = frozenset({"self", "cls", "this", "super", "_", "None", "True", "False", "nil", "null"})
_WRAPPERS = doc_text.WRAPPERS
_PHP_CALLS = frozenset({"member_call_expression", "scoped_call_expression", "nullsafe_member_call_expression"})
# Definitions worth finding in text-indexed files: SQL objects, shell functions, make targets.
_TEXT_DEFINITIONS = {
    "sql": re.compile(
        rb"^\s*create\s+(?:or\s+replace\s+)?(?:temp(?:orary)?\s+|virtual\s+|unique\s+)?"
        rb"(table|view|index|function|procedure|trigger|type)\s+(?:if\s+not\s+exists\s+)?[\"`\[]?([\w.]+)",
        re.I | re.M,
    ),
    "shell": re.compile(
        rb"^(?:function\s+([A-Za-z_][\w-]*)|([A-Za-z_][\w-]*)\s*\(\)\s*\{?|([A-Za-z][\w.-]*)\s*:(?!=))", re.M
    ),
}
_TEMPLATE_ARGUMENTS = re.compile(r"<[^<>]*(?:<[^<>]*>[^<>]*)*>")
_CAPTURE = re.compile(r"@([\w.]+)")
# A field of the enclosing object as a receiver: `$this->collector`, `this.collector`, `self.collector`.
_SELF_FIELD = re.compile(r"^(?:\$this->|this\.|self\.)([A-Za-z_]\w*)$")
_HEADING = re.compile(rb"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.M)


@dataclass
class Facts:
    """One file's facts: symbols `(name, kind, qualified, parent, signature, start, end, doc)`."""

    language: str
    status: str  # parsed | text | unparsed
    lines: int
    size: int = 0
    # (name, kind, qualified, parent, signature, start, end, doc, decorators joined by newlines)
    symbols: list[tuple[str, str, str, str | None, str, int, int, str | None, str]] = field(default_factory=list)
    imports: list[tuple[str, str, int]] = field(default_factory=list)
    refs: set[tuple[str, int, str, str]] = field(default_factory=set)  # (name, line, kind, receiver)
    # (name importers use, original name, import it came through or "", line): `aliases.exports`
    exports: list[tuple[str, str, str, int]] = field(default_factory=list)
    # (name, type word, line): a top-level name bound once to a value of known type (`typed_bindings`)
    typed: list[tuple[str, str, int]] = field(default_factory=list)


def language_of(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1].lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name.startswith("."):  # dotfiles: `.env`, `.env.local`, `.gitignore`, `.editorconfig`
        rest = name[1:]
        if rest == "env" or rest.startswith("env.") or (rest and "." not in rest):
            return "config"
    dot = name.rfind(".")
    return _BY_EXTENSION.get(name[dot:]) if dot > 0 else None


def extract(path: str, data: bytes) -> Facts:
    """The facts of `data`, the content of `path`. Never raises for odd content: it degrades to `unparsed`."""
    language = language_of(path) or languages.shebang_language(data) or "other"
    if language == "c" and path.endswith(".h"):  # a C++ header shares C's extension
        language = languages.header_language(data)
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    if language in CODE_LANGUAGES:
        try:
            parser = _parser(language)
        except (ImportError, OSError, ValueError):
            return Facts(language, "unparsed", lines)
        facts = Facts(language, "parsed", lines)
        data = repairs.without_export_macros(language, data)
        tree = parser.parse(data)
        if tree.root_node.has_error and (repaired := repairs.repaired_source(language, data)) is not None:
            again = parser.parse(repaired)  # an X-macro body parses once its directives are blanked
            if _errors(again.root_node) < _errors(tree.root_node):
                tree, data = again, repaired
        stem = path.rsplit("/", 1)[-1]
        _extract_code(language, tree.root_node, data, facts, package=stem in ("__init__.py", "__init__.pyi"))
        if language == "python":
            _module_docstring(path, tree.root_node, facts)
        return facts
    facts = Facts(language, "text" if language in TEXT_LANGUAGES else "unparsed", lines)
    if language == "markdown":
        _markdown_headings(data, facts)
    elif language in _TEXT_DEFINITIONS:
        _text_definitions(_TEXT_DEFINITIONS[language], data, facts)
    return facts


# code ------------------------------------------------------------------------------------------


def _errors(root: Any) -> int:
    """How many parse errors a tree holds (its ERROR and missing nodes)."""
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            count += 1
        if node.has_error:
            stack.extend(node.children)
    return count


def _extract_code(language: str, root: Any, data: bytes, facts: Facts, *, package: bool = False) -> None:
    """Symbols, imports and references of one tree, from a single pass of one combined query.

    One `matches` walk over the tree serves definitions, imports, identifiers and the context
    that gives each reference its kind: walking it once per query cost about twice as much
    (measured on the synthetic benchmark repository).
    """
    from tree_sitter import QueryCursor

    query, roles = _query(language)
    identifiers = _identifier_query(language)
    seen: dict[tuple[int, int, int], int] = {}
    name_starts: set[int] = set()
    found: list[tuple[Any, Any, str]] = []
    refs: list[Any] = []
    contexts: list[tuple[int, int, str]] = []  # (start, end, kind): every identifier inside has that kind
    direct: dict[int, tuple[str, Any, int]] = {}  # identifier start -> (call | attribute, receiver node, rank)
    bind_nodes: list[tuple[Any, str]] = []  # (variable node, class name)
    bound = aliases.Bound()  # names the imports bind under another name
    impls: list[Any] = []  # Rust `impl Trait for Type` blocks
    for pattern, captures in QueryCursor(query).matches(root):
        role = roles[pattern]
        if role == "ref":
            refs.append(captures["ref"][0])
            continue
        if role == "import":
            rows = _import_rows(language, captures)
            facts.imports.extend(rows)
            if rows:
                node = captures["import"][0]
                contexts.append((node.start_byte, node.end_byte, "import"))
                # a `require` call binds what its declarator names: `const m = require('./m')`
                required = node.type == "call_expression" and node.parent is not None
                bound.add(language, node.type, _text(node.parent if required else node), rows)
                declared = node.parent.child_by_field_name("name") if required else None
                if declared is not None and declared.type == "identifier":  # the binding is no use of it
                    name_starts.add(declared.start_byte)
            continue
        if role.startswith("ctx."):
            node = captures[role][0]
            contexts.append((node.start_byte, node.end_byte, role[4:]))
            continue
        if role == "call" or role == "attr":
            node = captures[role][0]
            receiver = captures["recv"][0] if "recv" in captures else None
            rank = (2 if role == "call" else 0) + (receiver is not None)
            previous = direct.get(node.start_byte)
            if previous is None or rank > previous[2]:  # a call beats a member read; a known receiver, none
                direct[node.start_byte] = ("call" if role == "call" else "attribute", receiver, rank)
            continue
        if role == "bind":
            var, type_ = captures["bind.var"][0], captures["bind.type"][0]
            bind_nodes.append((var, _text(type_).rsplit(".", 1)[-1]))
            continue
        if role == "definition.impl":  # Rust `impl Trait for Type`: a symbol of its own, below
            impls.append(captures[role][0])
            continue
        if "name" not in captures:
            continue
        kind = role.split(".", 1)[1]
        node = captures[role][0]
        name_node = captures["name"][0]
        key = (node.start_byte, node.end_byte, name_node.start_byte)  # `attr_reader :a, :b` names two
        if key in seen:  # one node matched by two patterns: keep the more specific kind
            # (a Rust method is also a function; a Kotlin interface is also a class declaration)
            earlier = found[seen[key]][2]
            if kind == "method" or (earlier in ("class", "function") and kind not in ("class", "function")):
                found[seen[key]] = (node, name_node, kind)
            continue
        seen[key] = len(found)
        found.append((node, name_node, kind))
        name_starts.add(name_node.start_byte)
    by_node = {(n.start_byte, n.end_byte, n.type): (_names(n, nm)[0], k) for n, nm, k in found}
    for node, name_node, kind, name in (
        (n, nm, k, name)
        for n, nm, k in sorted(found, key=lambda f: (f[0].start_byte, -f[0].end_byte))
        for name in _names(n, nm)
    ):
        scope = _scope(node, by_node)
        owner = name_node.parent
        if owner is not None and owner.type in languages.NAME_OWNERS:  # `Store::save`, `function M.add`
            owners = [owner]
            while owners[-1].type == "qualified_identifier" and owners[-1].parent.type == "qualified_identifier":
                owners.append(owners[-1].parent)  # `ns::sink<M>::flush`: each `::` nests one more
            for each in reversed(owners):
                target = each.child_by_field_name(languages.NAME_OWNERS[each.type])
                if target is not None:  # `sink<Mutex>::flush` belongs to `sink`, whatever its arguments
                    scope = [*scope, (_TEMPLATE_ARGUMENTS.sub("", _text(target)).replace("::", "."), "class")]
        if kind == "function" and scope and _is_class_like(scope[-1][1]):
            kind = "function" if owner is not None and owner.type == "dot_index_expression" else "method"
        elif kind == "method" and not scope:  # a Ruby `def` at the top level
            kind = "function"
        parent = ".".join(n for n, _ in scope) or None
        qualified = f"{parent}.{name}" if parent else name
        facts.symbols.append(
            (
                name,
                kind,
                qualified,
                parent,
                doc_text.signature(node, data, language),
                node.start_point[0] + 1,
                node.end_point[0] + 1,
                doc_text.doc(language, node),
                "\n".join(doc_text.decorators(node)),
            )
        )
    for node in impls:
        _trait_impl(node, data, by_node, facts)
    if language in macros.LANGUAGES:  # `#define FREE(p) (yaml_free(p), p = 0)`: the body's calls, as text
        for node, _nm, kind in found:
            if kind == "macro":
                facts.refs.update((name, line, "call", "") for name, line in macros.body_calls(node))
    # `Base = Widget` at the top level: after the imports, which say where `Widget` comes from
    top = {s[0] for s in facts.symbols if s[3] is None and s[1] != "constant"} | bound.taken()
    bound_by_assignment = assigned.of(language, root, top)
    assigned_exports = bound.assign(bound_by_assignment)
    name_starts.update(a.start for a in bound_by_assignment if a.local)
    scopes = _ScopeSpans((n.start_byte, n.end_byte) for n, _nm, k in found if k in _SCOPE_KINDS)
    members = receivers.MemberTypes(language, root, _language(language)) if language in receivers.LANGUAGES else None
    if members is not None:  # TS `y: Builder<T>`; a type parameter stands for its constraint
        bind_nodes.extend(members.annotated)
        if language != "python":
            bind_nodes = [(var, receivers.constraint_of(var, type_)) for var, type_ in bind_nodes]
    bindings: dict[str, list[tuple[int, tuple[int, int] | None, str]]] = {}
    for var, type_ in bind_nodes:
        type_ = bound.type_name(type_) if bound else type_
        bindings.setdefault(_text(var), []).append((var.start_byte, _scope_span(var, scopes), type_))
    if language == "php":  # docblock types, and `$this->writer = $writer` from a typed parameter
        _php_bindings(root, scopes, bindings)
    if members is not None:
        facts.typed = typed_bindings([(v, t) for v, t in bind_nodes if t != "?"], bound)
        for var, value in members.values:  # `const s = db.selectFrom("t")`: that chain's value, in source order
            chain = _receiver(value, scopes, bindings, var, members)
            if chain not in ("", "?"):
                bindings.setdefault(_text(var), []).append((var.start_byte, _scope_span(var, scopes), chain))
        for each in bindings.values():
            each.sort(key=lambda b: b[0])
    # Identifiers, the bulk of the nodes, come from a query of their own through `captures`, which
    # builds no match object per node (a third of the walk's cost on a large file).
    refs.extend(QueryCursor(identifiers).captures(root).get("ref", ()))
    starts = [n.start_byte for n in refs]
    kinds = _context_kinds(starts, contexts)
    if language == "ruby":  # `helper`, `request.path`: a bare name no assignment makes local is a call
        for start in ruby_calls.bare_calls(root):
            direct.setdefault(start, ("call", None, 2))
    add = facts.refs.add
    type_nodes = grammars.TYPE_NODES
    has_bound = bool(bound)  # the loop only reads `bound`
    # The names whose bare use an alias changes (`Bound.original`): any other bare name is added as
    # written, without a call per identifier (this loop runs once for every identifier of the file).
    renamed = bound.names if has_bound else {}
    for node, start, kind in zip(refs, starts, kinds, strict=True):
        if kind == "skip" or start in name_starts:
            continue
        text = data[start : node.end_byte].decode("utf-8", "replace")  # `node.text`, without its lookup
        if text in _IGNORED_NAMES:
            continue
        if kind is None:
            hit = direct.get(start)
            if hit is not None:
                receiver = _receiver(hit[1], scopes, bindings, node, members, language)
                if members is not None and hit[0] == "call":
                    _add_registrations(add, language, node)
                if has_bound:
                    _add_aliased(add, bound, text, node.start_point[0] + 1, hit[0], receiver, hit[1])
                    continue
                add((text, node.start_point[0] + 1, hit[0], receiver))
                continue
            kind = "type" if node.type in type_nodes else "other"
        elif kind == "decorator" and members is not None:  # `@cli.command()` is `cli`'s, `@click.command()` click's
            hit = direct.get(start)
            if hit is not None and hit[0] == "call":
                _add_registrations(add, language, node)
            if hit is not None and hit[1] is not None:
                receiver = _receiver(hit[1], scopes, bindings, node, members)
                _add_aliased(add, bound, text, node.start_point[0] + 1, kind, receiver, hit[1])
                continue
        elif kind == "inherits":  # `class A(m.Base)`, `extends ns.Base`: the qualifier says where it is from
            hit = direct.get(start)
            if hit is not None and hit[1] is not None:
                receiver = _receiver(hit[1], scopes, bindings, node)
                _add_aliased(add, bound, text, node.start_point[0] + 1, kind, receiver, hit[1])
                continue
            written = aliases.qualifier(node)
            if written is not None:
                receiver = aliases.qualifier_receiver(written)
                _add_aliased(add, bound, text, node.start_point[0] + 1, kind, receiver, written)
                continue
        if text in renamed:
            _add_aliased(add, bound, text, node.start_point[0] + 1, kind, "", None)
            continue
        add((text, node.start_point[0] + 1, kind, ""))
    facts.exports = aliases.exports(language, root, bound, package=package) + assigned_exports


def _names(node: Any, name_node: Any) -> tuple[str, ...]:
    return languages.definition_names(node, name_node.text.decode("utf-8", "replace"))


def _trait_impl(node: Any, data: bytes, by_node: dict[tuple[int, int, str], tuple[str, str]], facts: Facts) -> None:
    """A Rust `impl Shape for Circle` block as a symbol named so: its header's `inherits` references are
    Circle's bases (the trait's default methods are Circle's), wherever the block is."""
    trait, type_ = node.child_by_field_name("trait"), node.child_by_field_name("type")
    base = re.search(r"([A-Za-z_]\w*)\s*(?:<.*)?$", _text(type_), re.S) if type_ is not None else None
    if trait is None or base is None:
        return
    name = f"impl {' '.join(_text(trait).split())} for {base.group(1)}"
    parent = ".".join(n for n, _ in _scope(node, by_node)) or None
    qualified = f"{parent}.{name}" if parent else name
    line, end = node.start_point[0] + 1, node.end_point[0] + 1
    facts.symbols.append(
        (
            name,
            "impl",
            qualified,
            parent,
            doc_text.signature(node, data, "rust"),
            line,
            end,
            doc_text.doc("rust", node),
            "",
        )
    )


def _add_aliased(add: Any, bound: aliases.Bound, text: str, line: int, kind: str, receiver: str, written: Any) -> None:
    """Add a reference, seen through the file's import aliases: `Y` after `import X as Y` is also X,
    from that import; `m.X` after `import pkg as m` is X from that import."""
    if bound:
        if written is not None and receiver:
            receiver = bound.receiver(receiver, written if isinstance(written, str) else _text(written))
        elif (original := bound.original(text, kind, receiver)) is not None:
            if original[0] == text:  # `join = os.path.join`: one name, read through `os.path`
                add((text, line, kind, original[1]))
                return
            add((original[0], line, kind, original[1]))
            receiver = original[2]  # the local name as written is no definition of that name elsewhere
    add((text, line, kind, receiver))


_SCOPE_KINDS = frozenset({"function", "method"})
_KIND_ORDER = {"skip": -1, "import": 0, "decorator": 1, "inherits": 2, "type": 3}


def _context_kinds(starts: list[int], contexts: list[tuple[int, int, str]]) -> list[str | None]:
    """For each identifier start (in any order), the strongest context kind enclosing it, or None.

    Each context marks the identifiers inside its span (found by bisection on the sorted starts),
    so the cost follows the identifiers that lie in a context, not every identifier of the file.
    Between equally strong contexts the first in span order wins.
    """
    out: list[str | None] = [None] * len(starts)
    if not contexts:
        return out
    order = sorted(range(len(starts)), key=starts.__getitem__)
    ordered = [starts[i] for i in order]
    ranks = [99] * len(starts)
    for start, end, kind in sorted(contexts):
        rank = _KIND_ORDER.get(kind, 9)
        for j in range(bisect.bisect_left(ordered, start), bisect.bisect_left(ordered, end)):
            i = order[j]
            if rank < ranks[i]:
                ranks[i] = rank
                out[i] = kind
    return out


def _add_registrations(add: Any, language: str, name: Any) -> None:
    """`registration` references for the string a call registers (`receivers.registration_keys`)."""
    call = name.parent
    if call is not None and call.type in ("attribute", "member_expression"):
        call = call.parent
    if call is None or call.type not in ("call", "call_expression"):
        return
    for key, line in receivers.registration_keys(language, call):
        add((key, line, "registration", ""))


def _receiver(
    node: Any,
    scopes: set[tuple[int, int]],
    bindings: dict[str, list[tuple[int, tuple[int, int] | None, str]]],
    at: Any,
    members: receivers.MemberTypes | None = None,
    language: str = "",
) -> str:
    """What a call's or member's receiver is known to be.

    `""` no receiver (a bare name); `"self"` the enclosing class (`self`, `cls`, `this`); a class
    name when the receiver is a variable built by its constructor or annotated as it in the same
    scope; `"?name"` for any other plain name (a class, a module or package, or a variable of
    unknown type: the resolver decides with the file's imports); `"?"` for anything else.
    """
    if node is None:
        return ""
    if members is not None and (known := receivers.receiver_of(node, members)) is not None:
        return known
    if members is not None and node.type in receivers.CHAINS:  # `db.selectFrom("t").where()`: the chain
        chain = receivers.call_chain(node, lambda base: _receiver(base, scopes, bindings, at, members))
        if chain is not None:
            return chain
    if node.type in _PHP_CALLS:  # `Dotenv::create()->load()`: what `create` returns
        from services.repo import php_types

        return php_types.call_chain(node, lambda base: _receiver(base, scopes, bindings, at, members)) or "?"
    if language == "cpp":  # `Get()->Lookup()`, `this->cache_->Find()`: `services.repo.cpp_types`
        from services.repo import cpp_types

        if node.type == "call_expression":
            again = functools.partial(_receiver, scopes=scopes, bindings=bindings, at=at, language=language)
            return cpp_types.call_chain(node, again) or "?"
        if (field_name := cpp_types.self_field(_text(node))) is not None:
            return "?" + field_name
    text = _text(node)
    if text in grammars.RECEIVER_SELF:
        return "self"
    field = _SELF_FIELD.match(text)
    if field is not None:  # `$this->collector->basePath()`: the class the field is declared as
        bound = bindings.get(field.group(1), [])
        # declared in the class body, else promoted from a constructor's parameter (PHP 8)
        declared = {t for _w, scope, t in bound if scope is None} or {t for _w, _s, t in bound}
        if len(declared) == 1:
            return declared.pop()
    if "::" in text or "\\" in text:  # `Shop::Store.open`, `App\\Store::make()`: the last segment names it
        last = re.split(r"::|\\", text)[-1]
        return "?" + last if last[:1].isupper() else "?"
    if not text.replace("_", "a").replace("$", "a").isalnum():
        return "?"
    candidates = bindings.get(text)
    if candidates:
        scope = _scope_span(at, scopes)
        position = at.start_byte
        best = None
        for where, bound_scope, type_ in candidates:  # the latest binding before the use, in its scope
            if where < position and bound_scope == scope:
                best = type_
        if best is not None:
            return best
        if members is not None and members.lexical and scope is not None:
            # JS/TS closures see the enclosing functions' typed parameters and constants (`read: (k) =>
            # inner.read(k)` in `wrap(inner: Storage)`), unless a function between declares the name again
            outer = [
                (b[1][0] if b[1] else -1, b[2])
                for b in candidates
                if b[0] < position and (b[1] is None or b[1][0] <= scope[0] < b[1][1])
            ]
            if outer:
                start, type_ = max(outer, key=lambda o: o[0])
                if not receivers.redeclared(at, text, start):
                    return type_
    return "?" + text


# What lies between a top-level binding's name and the module: `export const x = ...`, `x = ...`.
_TOP_LEVEL_PATH = frozenset(
    {
        "variable_declarator",
        "lexical_declaration",
        "variable_declaration",
        "export_statement",
        "assignment",
        "expression_statement",
    }
)


def typed_bindings(bind_nodes: list[tuple[Any, str]], bound: aliases.Bound) -> list[tuple[str, str, int]]:
    """`(name, type, line)` for each name the module's top level binds to a value of one known type
    (`const ky = createInstance()`, `app = Flask(__name__)`, `export const api: Api = ...`), which
    an importer's `ky.create()` reads as a member of that type. A name bound to two types is none."""
    seen: dict[str, tuple[set[str], int]] = {}
    for var, type_ in bind_nodes:
        current = var.parent
        while current is not None and current.type in _TOP_LEVEL_PATH:
            current = current.parent
        if current is None or current.type not in ("module", "program"):
            continue
        type_ = bound.type_name(type_) if bound else type_
        seen.setdefault(_text(var), (set(), var.start_point[0] + 1))[0].add(type_)
    return sorted((name, next(iter(types)), line) for name, (types, line) in seen.items() if len(types) == 1)


def _php_bindings(root: Any, scopes: Any, bindings: dict[str, list[tuple[int, tuple[int, int] | None, str]]]) -> None:
    from services.repo import php_types

    for var, node, type_ in php_types.docblock_bindings(root):
        bindings.setdefault(var, []).append((node.start_byte, _scope_span(node, scopes), type_))

    def type_of(var: str, at: Any) -> str | None:
        scope = _scope_span(at, scopes)
        types = {t for _w, s, t in bindings.get(var, ()) if s == scope}
        return types.pop() if len(types) == 1 else None

    for field_name, node, type_ in list(php_types.assigned_fields(root, _language("php"), type_of)):
        bindings.setdefault(field_name, []).append((node.start_byte, _scope_span(node, scopes), type_))
    for var, node, iterated in php_types.foreach_values(root, _language("php")):  # `foreach ($this->readers as $r)`
        held = _receiver(iterated, scopes, bindings, iterated)
        if held.startswith("[]"):
            bindings.setdefault(var, []).append((node.start_byte, _scope_span(node, scopes), held[2:]))
    for var, node, call in php_types.assigned_calls(root, _language("php")):  # `$d = Dotenv::create()`
        chain = _receiver(call, scopes, bindings, call)
        if chain.startswith("()"):
            bindings.setdefault(var, []).append((node.start_byte, _scope_span(node, scopes), chain))


def _scope_span(node: Any, scopes: set[tuple[int, int]]) -> tuple[int, int] | None:
    """The span of the innermost function or method holding `node` (None at module level)."""
    if isinstance(scopes, _ScopeSpans):
        return scopes.innermost(node.start_byte, node.end_byte)
    current = node.parent
    while current is not None:
        span = (current.start_byte, current.end_byte)
        if span in scopes:
            return span
        current = current.parent
    return None


class _ScopeSpans(frozenset):
    """The spans of a file's functions and methods, which nest as the tree does, with that nesting
    kept so the innermost one holding a node is found by bisection. Walking up `node.parent` finds
    the same span, but tree-sitter finds each parent by descending from the root again: that walk
    was a tenth of the content half's time on a C repository."""

    def __init__(self, spans: Any = ()) -> None:
        ordered = sorted(self, key=lambda s: (s[0], -s[1]))  # outer before inner at one start
        self._ordered = ordered
        self._starts = [s[0] for s in ordered]
        self._outer: list[int] = []  # index of the nearest span holding each one, or -1
        stack: list[int] = []
        for i, (_start, end) in enumerate(ordered):
            while stack and ordered[stack[-1]][1] < end:
                stack.pop()
            self._outer.append(stack[-1] if stack else -1)
            stack.append(i)

    def innermost(self, start: int, end: int) -> tuple[int, int] | None:
        # The last span starting at or before `start` holds it, or one of the spans holding that one does.
        i = bisect.bisect_right(self._starts, start) - 1
        while i >= 0 and self._ordered[i][1] < end:
            i = self._outer[i]
        return self._ordered[i] if i >= 0 else None


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


def _scope(node: Any, by_node: dict[tuple[int, int, str], tuple[str, str]]) -> list[tuple[str, str]]:
    """The names (and kinds) of the definitions enclosing `node`, outermost first; Rust impls count."""
    chain = []
    current = node.parent
    while current is not None:
        hit = by_node.get((current.start_byte, current.end_byte, current.type))
        same_span = current.start_byte == node.start_byte and current.end_byte == node.end_byte
        if hit is not None and not same_span and current.type not in _WRAPPERS:
            chain.append(hit)
        elif current.type == "impl_item":
            target = current.child_by_field_name("type")
            if target is not None:
                chain.append((target.text.decode("utf-8", "replace"), "class"))
        elif current.type == "object" and current.parent is not None and current.parent.type == "variable_declarator":
            bound = current.parent.child_by_field_name("name")  # `const core = { toFetch() {} }`: core's member
            if bound is not None and bound.type == "identifier":
                chain.append((bound.text.decode("utf-8", "replace"), "object"))
        current = current.parent
    if node.type == "method_declaration" and node.child_by_field_name("receiver") is not None:  # Go
        receiver = node.child_by_field_name("receiver").text.decode("utf-8", "replace")
        match = re.search(r"\*?\s*([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)$", receiver)
        if match:
            chain.append((match.group(1), "class"))
    return list(reversed(chain))


def _is_class_like(kind: str) -> bool:
    return kind in languages.CLASS_KINDS


def _import_rows(language: str, captures: dict[str, list[Any]]) -> list[tuple[str, str, int]]:
    def text(n: Any) -> str:
        return n.text.decode("utf-8", "replace")

    if "import" not in captures:
        return []
    if language in languages.PACK_LANGUAGES:
        return languages.import_rows(language, captures)
    node = captures["import"][0]
    line = node.start_point[0] + 1
    if language == "python":
        if node.type == "import_statement":
            rows = []
            for child in node.named_children:
                target = child.child_by_field_name("name") if child.type == "aliased_import" else child
                rows.append((text(target), "", line))
            return rows
        module = node.child_by_field_name("module_name")
        names = []
        for child in node.children_by_field_name("name"):
            target = child.child_by_field_name("name") if child.type == "aliased_import" else child
            names.append(text(target))
        if any(c.type == "wildcard_import" for c in node.named_children):
            names.append("*")
        return [(text(module) if module is not None else ".", " ".join(names), line)]
    if language in ("javascript", "typescript", "tsx"):
        source = captures.get("source")
        if not source:
            return []
        if "fn" in captures and text(captures["fn"][0]) != "require":
            return []
        names = [
            text(n)
            for n in _descendants(node, {"import_specifier", "export_specifier", "identifier"})
            if n.parent is not None
            and n.parent.type in ("import_clause", "import_specifier", "export_specifier")
            and (n.parent.type == "import_clause" or n == n.parent.child_by_field_name("name"))
        ]
        if node.type == "call_expression":  # `const { Widget, Gadget: G } = require('./m')` names Widget, Gadget
            names = _required_names(node)
        return [(text(source[0]).strip("\"'`"), " ".join(names), line)]
    if language == "go":
        path = node.child_by_field_name("path")
        alias = node.child_by_field_name("name")
        raw = text(path).strip('"`') if path is not None else ""
        return [(raw, text(alias) if alias is not None else raw.rsplit("/", 1)[-1], line)]
    if language == "rust":
        if node.type == "mod_item":
            if node.child_by_field_name("body") is not None:
                return []
            return [("mod " + text(node.child_by_field_name("name")), "", line)]
        argument = node.child_by_field_name("argument")
        raw = text(argument) if argument is not None else ""
        names = re.findall(r"[A-Za-z_]\w*", raw.rsplit("::", 1)[-1])
        return [(raw, " ".join(n for n in names if n not in ("self", "as")), line)]
    if language == "java":
        raw = text(node).removeprefix("import").strip().removeprefix("static").strip().rstrip(";").strip()
        return [(raw, raw.rsplit(".", 1)[-1], line)]
    return []


def _required_names(call: Any) -> list[str]:
    """The fields a `require` call's declarator takes apart (`const { A, B: C } = require(...)`: A, B)."""
    declarator = call.parent
    pattern = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
    if pattern is None or pattern.type != "object_pattern":
        return []
    out = []
    for field_ in pattern.named_children:
        key = field_.child_by_field_name("key") if field_.type == "pair_pattern" else field_
        if key is not None and key.type in ("shorthand_property_identifier_pattern", "property_identifier"):
            out.append(_text(key))
    return out


def _descendants(node: Any, types: set[str]) -> list[Any]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        if current.type in types:
            out.append(current)
        stack.extend(current.named_children)
    return out


_IMPORT_QUERIES = {
    "python": "(import_statement) @import (import_from_statement) @import",
    "javascript": (
        "(import_statement source: (string) @source) @import "
        "(export_statement source: (string) @source) @import "
        "(call_expression function: (identifier) @fn arguments: (arguments . (string) @source)) @import"
    ),
    "go": "(import_spec) @import",
    "rust": "(use_declaration) @import (mod_item) @import",
    "java": "(import_declaration) @import",
}


@functools.cache
def _query(language: str) -> tuple[Any, list[str]]:
    """One query for definitions, imports and identifiers, and each pattern's role.

    A role is the pattern's `definition.<kind>` capture, `import`, `ref`, or `skip`. The tags
    files' `reference.*` patterns are disabled: identifiers already cover references, and
    matching those patterns only cost time.
    """
    from tree_sitter import Query

    parts = (languages.QUERIES[language],) if language in languages.PACK_LANGUAGES else (_tags_source(language),)
    source = "\n".join(
        (
            *parts,
            grammars.EXTRA.get(language, ""),
            ""
            if language in languages.PACK_LANGUAGES
            else _IMPORT_QUERIES.get(language, _IMPORT_QUERIES["javascript"]),
            _identifier_source(language),  # disabled below: `_identifier_query` reads these
        )
    )
    query = Query(_language(language), source)
    roles = []
    data = source.encode()
    for pattern in range(query.pattern_count):
        # The pattern's own text names its captures (py-tree-sitter cannot report a zero quantifier).
        text = data[query.start_byte_for_pattern(pattern) : query.end_byte_for_pattern(pattern)].decode()
        used = _CAPTURE.findall(text)
        role = next((n for n in used if n.startswith(("definition.", "ctx."))), None)
        if role is None:
            role = next((r for r in ("import", "bind.var", "call", "attr", "ref") if r in used), "skip")
            role = "bind" if role == "bind.var" else role
        if role == "skip" or pattern == query.pattern_count - 1:
            query.disable_pattern(pattern)
        roles.append(role)
    return query, roles


def _identifier_source(language: str) -> str:
    return "[" + " ".join(f"({t})" for t in _IDENTIFIERS[language]) + "] @ref"


@functools.cache
def _identifier_query(language: str) -> Any:
    """Every identifier of the language, the last pattern of `_query` on its own."""
    from tree_sitter import Query

    return Query(_language(language), _identifier_source(language))


def _tags_source(language: str) -> str:
    if language in ("typescript", "tsx"):  # the TypeScript query only adds to the JavaScript one
        return _read_tags("tree_sitter_javascript") + "\n" + _read_tags("tree_sitter_typescript")
    return _read_tags(f"tree_sitter_{language}")


def _read_tags(package: str) -> str:
    text = resources.files(package).joinpath("queries", "tags.scm").read_text(encoding="utf-8")
    # py-tree-sitter does not apply these directives; dropping them keeps the patterns portable.
    return re.sub(r"\(#(?:strip|set-adjacent|select-adjacent)![^)]*\)", "", text)


@functools.cache
def _language(language: str) -> Any:
    from tree_sitter import Language

    if language in languages.PACK_LANGUAGES:  # compiled grammars bundled in the wheel, no download
        from tree_sitter_language_pack import get_language

        return get_language(language)  # type: ignore[arg-type]  # a name the pack lists
    if language in ("typescript", "tsx"):
        module = importlib.import_module("tree_sitter_typescript")
        return Language(module.language_typescript() if language == "typescript" else module.language_tsx())
    return Language(importlib.import_module(f"tree_sitter_{language}").language())


@functools.cache
def _parser(language: str) -> Any:
    from tree_sitter import Parser

    _query(language)  # compile once, up front, so a broken query fails here and not mid-file
    return Parser(_language(language))


def _module_docstring(path: str, root: Any, facts: Facts) -> None:
    """A Python module's docstring becomes a `module` symbol, so it is listed and searchable."""
    if not root.named_child_count:
        return
    first = root.named_child(0)
    if first.type == "expression_statement" and first.named_child_count:
        first = first.named_child(0)
    if first.type != "string":
        return
    doc = doc_text.first_line(doc_text.QUOTES.sub("", _text(first)))
    if not doc:
        return
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if stem == "__init__":
        folders = path.split("/")[:-1]
        stem = folders[-1] if folders else stem
    facts.symbols.insert(0, (stem, "module", stem, None, f"module {stem}", 1, first.end_point[0] + 1, doc, ""))


def _markdown_headings(data: bytes, facts: Facts) -> None:
    stack: list[tuple[int, str]] = []
    for match in _HEADING.finditer(data):
        level = len(match.group(1))
        title = match.group(2).decode("utf-8", "replace").strip()
        line = data.count(b"\n", 0, match.start()) + 1
        while stack and stack[-1][0] >= level:
            stack.pop()
        parent = stack[-1][1] if stack else None
        facts.symbols.append(
            (title, "heading", title, parent, match.group(0).decode("utf-8", "replace"), line, line, None, "")
        )
        stack.append((level, title))


def _text_definitions(pattern: re.Pattern[bytes], data: bytes, facts: Facts) -> None:
    for match in pattern.finditer(data):
        groups = [g for g in match.groups() if g]
        if not groups:
            continue
        if pattern is _TEXT_DEFINITIONS["sql"]:
            kind, name = groups[0].decode().lower(), groups[1].decode("utf-8", "replace")
        else:
            kind, name = ("target" if match.group(3) else "function"), groups[0].decode("utf-8", "replace")
        line = data.count(b"\n", 0, match.start()) + 1
        text = match.group(0).decode("utf-8", "replace").strip()
        facts.symbols.append((name, kind, name, None, text, line, line, None, ""))
