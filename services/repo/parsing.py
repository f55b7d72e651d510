"""Per-file facts from tree-sitter: symbols, imports and referenced identifiers, for every code language.

This module drives one walk of a tree and files what it finds; the compiled grammars and queries
are `tree_queries`, the import rows `import_rows`, and what a receiver is bound to
`receiver_bindings`. The grammars come from the per-language wheels, which work with no network.
Everything here depends on one file's bytes only, so results are cached under the file's content
hash and never recomputed for content already seen.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from services.repo import (
    aliases,
    assigned,
    doc_text,
    grammars,
    import_rows,
    languages,
    macros,
    receiver_bindings,
    receivers,
    repairs,
    ruby_calls,
    tree_queries,
)

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
# members of an object literal bound by `const x = {...}`; 18: C++ constructions as constructor
# references, smart-pointer and `auto` locals; PHP `parent::`, `instanceof` branches, the docblock
# element type of an `array` return): an index whose
# facts an older parser wrote parses its contents again at the next run.
FACTS_VERSION = "18"

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

_IGNORED_NAMES = frozenset({"self", "cls", "this", "super", "_", "None", "True", "False", "nil", "null"})
_WRAPPERS = doc_text.WRAPPERS
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
            parser = tree_queries.parser(language)
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

    query, roles = tree_queries.combined_query(language)
    identifiers = tree_queries.identifier_query(language)
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
            rows = import_rows.import_rows(language, captures)
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
    scopes = receiver_bindings.ScopeSpans((n.start_byte, n.end_byte) for n, _nm, k in found if k in _SCOPE_KINDS)
    members = (
        receivers.MemberTypes(language, root, tree_queries.grammar(language))
        if language in receivers.LANGUAGES
        else None
    )
    if members is not None:  # TS `y: Builder<T>`; a type parameter stands for its constraint
        bind_nodes.extend(members.annotated)
        if language != "python":
            bind_nodes = [(var, receivers.constraint_of(var, type_)) for var, type_ in bind_nodes]
    bindings: dict[str, list[tuple[int, tuple[int, int] | None, str]]] = {}
    for var, type_ in bind_nodes:
        type_ = bound.type_name(type_) if bound else type_
        bindings.setdefault(_text(var), []).append((var.start_byte, receiver_bindings.scope_span(var, scopes), type_))
    if language == "php":  # docblock types, and `$this->writer = $writer` from a typed parameter
        receiver_bindings.php_bindings(root, scopes, bindings)
    if members is not None:
        facts.typed = receiver_bindings.typed_bindings([(v, t) for v, t in bind_nodes if t != "?"], bound)
        for var, value in members.values:  # `const s = db.selectFrom("t")`: that chain's value, in source order
            chain = receiver_bindings.receiver(value, scopes, bindings, var, members)
            if chain not in ("", "?"):
                bindings.setdefault(_text(var), []).append(
                    (var.start_byte, receiver_bindings.scope_span(var, scopes), chain)
                )
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
                receiver = receiver_bindings.receiver(hit[1], scopes, bindings, node, members, language)
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
                receiver = receiver_bindings.receiver(hit[1], scopes, bindings, node, members)
                _add_aliased(add, bound, text, node.start_point[0] + 1, kind, receiver, hit[1])
                continue
        elif kind == "inherits":  # `class A(m.Base)`, `extends ns.Base`: the qualifier says where it is from
            hit = direct.get(start)
            if hit is not None and hit[1] is not None:
                receiver = receiver_bindings.receiver(hit[1], scopes, bindings, node)
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
    if language == "cpp":  # `Cache plain;`, `new Cache(4)`: a reference of the constructor, as clangd counts it
        from services.repo import cpp_types

        facts.refs.update((name, line, "call", name) for name, line in cpp_types.constructions(root))
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
