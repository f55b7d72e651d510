"""The names a task spells, resolved to their definitions in the index: what `knowledge context` reads first.

`parse_config`, `RunStore.open`, `parseConfig`, anything in backticks, a word the task calls a
function or class, a capitalised word naming a type: each is looked up among the index's symbols.
A plain word counts only as a public top-level definition found in few files; a method name the
task uses beside the type it names (`WrapResponseWriter ... WriteHeader`) is that type's method,
not every method of that name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kernel.generated import generated_by_name
from services.knowledge.context_tests import TEST_NAME, in_tests, stem_of
from services.knowledge.reading import STOPWORDS
from services.knowledge.rows import SymbolEntry
from services.knowledge.store import KnowledgeStore
from services.knowledge.task_words import compound_parts

__all__ = ["CODE", "IDENT", "PATHLIKE", "named_symbols"]

PATHLIKE = re.compile(r"[\w.@%+-]*[/.][\w./@%+-]*\w")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
CODE = re.compile(r"`([^`]+)`")
# A plain word naming a heading, a make target or a key is no lead to code.
_NOT_CODE = {"other", "text", "config", "markdown", None}
_TEXT_KINDS = {"heading", "section", "target", "key"}
TYPE_KINDS = {"class", "interface", "type", "struct", "enum", "trait"}
_LITERALS = {"true", "false", "none", "null", "nil", "undefined"}
_CALLED_NAME = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]{3,}) (?:function|method|class|decorator)\b")


@dataclass
class _Name:
    ident: str
    explicit: bool
    as_code: bool
    found: list[SymbolEntry]


def named_symbols(
    store: KnowledgeStore,
    task: str,
    add,
    named: dict[str, list[str]],
    phrase_words: set[str] = frozenset(),
    spelled: set[str] | None = None,
    spans: dict[str, list[tuple[str, int, int]]] | None = None,
) -> None:
    """Score the files defining what the task names: `add(path, points, why)` per definition, its line in
    `named`, its span in `spans`; the definers of names spelled as code go to `spelled`."""
    seen: set[str] = set()
    names: list[_Name] = []
    code_words = {w for chunk in CODE.findall(task) for w in IDENT.findall(chunk)}
    prose = compound_parts(task) - code_words  # `Content-Type`: words of a phrase, not names
    prose |= {  # `application/yaml`: a media type, not a path here
        w
        for token in PATHLIKE.findall(task)
        if "/" in token and store.file(token) is None
        for w in IDENT.findall(token)
    }
    # "the prompt function", "the Retry class": a word the task calls a function, method or class is a name
    called = {m.group(1) for m in _CALLED_NAME.finditer(task)}
    for ident in [*code_words, *IDENT.findall(task)]:
        if ident in seen:
            continue
        seen.add(ident)
        last = ident.rsplit(".", 1)[-1]
        if last.lower() in _LITERALS and ident not in code_words:
            continue  # `native_enum=False`: a value, not the `false()` some library defines
        explicit = ident not in prose and (
            ident in code_words
            or ident in called
            or "_" in last.strip("_")
            or "." in ident
            or bool(re.search(r"[a-z][A-Z]", last))
            or (
                last[:1].isupper()
                and any(c.islower() for c in last[1:])
                and len(last) > 3
                and not task.startswith(ident)
            )
        )
        if not explicit and (len(last) < 4 or last.lower() in STOPWORDS or ident in prose):
            continue
        found = store.symbols_named([last], limit=400 if "." in ident else 20)
        if "." in ident:
            found = narrowed(found, ident.split("."))
        if (
            not explicit
            and task.startswith(ident)
            and last[:1].isupper()
            and len(last) > 3
            and last.lower() not in phrase_words  # "Server replay:" is a phrase some file holds, not `Server`
        ):
            # A capitalised first word is a name when it names a class or type (`Enum type with ...`).
            classes = [s for s in found if s.kind in TYPE_KINDS]
            if classes:
                found, explicit = classes, True
        found = [s for s in found if not generated_by_name(s.path) or ident in code_words]
        if explicit and any(not TEST_NAME.search(stem_of(s.path)) and not in_tests(s.path) for s in found):
            # `click.echo` is the library's `echo`, not a helper a test defines under that name
            found = [s for s in found if not TEST_NAME.search(stem_of(s.path)) and not in_tests(s.path)]
        if not explicit:
            # A plain word names a top-level definition or nothing: `Frame.type` is no lead for "type".
            found = [
                s
                for s in found
                if s.kind not in _TEXT_KINDS
                and "." not in s.qualified
                and store.file_language(s.path) not in _NOT_CODE
                and not private(s.name, store.file_language(s.path))
            ]
            if found and store.files_matching(f'{{path_terms}} : "{last.lower()}"'):
                # A plain word some folder or file is named for (`build`): its namesakes count only in
                # such files (`build()` in build.ts), not a method of that name elsewhere.
                found = [s for s in found if last.lower() in s.path.lower()]
        if not found:
            continue
        as_code = (ident in code_words or ident in called or "_" in last.strip("_") or "." in ident) or bool(
            re.search(r"[a-z][A-Z]", last)
        )
        names.append(_Name(ident, explicit, as_code, found))
    _owned_methods(names)
    for entry in names:
        ident, explicit, as_code, found = entry.ident, entry.explicit, entry.as_code, entry.found
        paths = {s.path for s in found}
        if not explicit and len(paths) > 3:
            continue  # a common word that happens to name things all over the repository
        weight = (7.0 if explicit else 2.5) / len(paths)
        if spelled is not None and explicit and as_code and len(paths) <= 3:
            spelled.update(paths)  # `Cookies.set`, `iter_lines`, `click.echo`: code, defined here
        for s in found:
            if spans is not None:
                spans[s.path].append((s.qualified, s.start_line, s.end_line))
            add(s.path, weight, f"defines {s.qualified}")
            label = f"{s.qualified}:{s.start_line}"
            if label not in named[s.path]:
                named[s.path].append(label)


def private(name: str, language: str | None) -> bool:
    """A name its language keeps inside its package (Go's lower-case `split`, Python's `_split`): a task's
    plain word ("should split") is a coincidence there, not a name of the code it is about."""
    return name.startswith("_") or (language == "go" and name[:1].islower())


def narrowed(found: list, parts: list[str]) -> list:
    """`Session.merge` means the `merge` of `Session`, not every `merge`: the longest tail of the
    dotted name that some definition's qualified name ends with (`pkg.mod.Class.method` too)."""
    for k in range(len(parts), 1, -1):
        tail = ".".join(parts[-k:])
        hits = [s for s in found if s.qualified == tail or s.qualified.endswith("." + tail)]
        if hits:
            return hits
    # `click.echo`, `httpx.get`: a package's name before a name its modules define
    packaged = [s for s in found if parts[-2] in s.path.split("/")[:-1]]
    if packaged:
        return packaged
    owned = _short_qualifier(found, parts[-2])
    if owned:
        return owned
    # `app.get`: a qualifier the index does not know, so the name as spelled; `io.Writer` is the
    # standard library's, not a `writer` method here
    return [s for s in found if s.name == parts[-1]][:20]


# The short names code conventionally gives an object of a class or module (`app` for an `Application`).
_SHORT_NAMES = {
    "app": "application",
    "ctx": "context",
    "req": "request",
    "res": "response",
    "resp": "response",
    "cfg": "config",
    "conf": "config",
    "db": "database",
    "env": "environment",
    "srv": "server",
    "msg": "message",
    "err": "error",
    "opts": "options",
    "repo": "repository",
    "doc": "document",
    "pkg": "package",
    "mgr": "manager",
    "conn": "connection",
    "sess": "session",
    "tx": "transaction",
}


def _short_qualifier(found: list, qualifier: str) -> list:
    """`app.toJSON`, `ctx.throw`: a qualifier the index does not know that is the conventional short name
    of, or a prefix of, exactly one class or file stem among the definitions found (`Application`,
    `context.js`): the definitions there, not every `toJSON` of the repository."""
    short = qualifier.lower()
    full = _SHORT_NAMES.get(short)

    def owners(s) -> set[str]:
        names = {stem_of(s.path).lower()}
        if "." in s.qualified:
            names.add(s.qualified.rsplit(".", 2)[-2].lower())
        return names

    exact = [s for s in found if {short, full or short} & owners(s)]
    if len({s.path for s in exact}) == 1:
        return exact
    if len(short) < 3:
        return []
    prefixed = [s for s in found if any(o.startswith(short) or (full and o.startswith(full)) for o in owners(s))]
    if len({s.path for s in prefixed}) == 1:
        return prefixed
    return []


def _owned_methods(names: list[_Name]) -> None:
    """A method name the task uses beside a type it names (`WrapResponseWriter` ... `WriteHeader`): the
    methods of that name in the files defining the named type, not those of every other type
    implementing the same interface (`compressResponseWriter.WriteHeader`)."""
    typed = {s.path for n in names if n.explicit for s in n.found if s.kind in TYPE_KINDS}
    if not typed:
        return
    for n in names:
        if "." in n.ident or not all("." in s.qualified for s in n.found):
            continue
        owned = [s for s in n.found if s.path in typed]
        if owned and len(owned) < len(n.found):
            n.found = owned
