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

__all__ = ["CODE", "IDENT", "PATHLIKE", "SYMBOL_KEY", "dotted", "named_symbols"]

PATHLIKE = re.compile(r"[\w.@%+-]*[/.][\w./@%+-]*\w")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
CODE = re.compile(r"`([^`]+)`")
SYMBOL_KEY = re.compile(r"(?<![\w:]):([a-z_][a-z0-9_]*)\b")
# A plain word naming a heading, a make target or a key is no lead to code.
_NOT_CODE = {"other", "text", "config", "markdown", None}
_TEXT_KINDS = {"heading", "section", "target", "key"}
TYPE_KINDS = {"class", "interface", "type", "struct", "enum", "trait"}
_LITERALS = {"true", "false", "none", "null", "nil", "undefined"}
# `BytesMut::put` (Rust, C++, Ruby, PHP), `Element#select` (Javadoc, YARD): a member of a type, as
# `Type.method` is; not `C#` nor `issue #12`.
_MEMBER_SEPARATOR = re.compile(r"(?<=[A-Za-z0-9_])(?:::|#)(?=[A-Za-z_])")
_CALLED_NAME = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]{3,}) (?:function|method|class|decorator)\b")


@dataclass
class _Name:
    ident: str
    explicit: bool
    as_code: bool
    found: list[SymbolEntry]


def dotted(task: str) -> str:
    """The task with each `Type::method` and `Type#method` written `Type.method`, the one way names are
    qualified here, so a method the task places on a type is looked up as that type's."""
    return _MEMBER_SEPARATOR.sub(".", task)


def named_symbols(
    store: KnowledgeStore,
    task: str,
    add,
    named: dict[str, list[str]],
    phrase_words: set[str] = frozenset(),
    spelled: set[str] | None = None,
    spans: dict[str, list[tuple[str, int, int]]] | None = None,
    descriptive: set[str] | None = None,
) -> None:
    """Score the files defining what the task names: `add(path, points, why)` per definition, its line in
    `named`, its span in `spans`; the definers of names spelled as code go to `spelled`; the plain
    words naming only a sibling of a type the task names go to `descriptive`."""
    seen: set[str] = set()
    resolved_tails: set[str] = set()
    names: list[_Name] = []
    qualified = dotted(task)
    code_words = {w for chunk in CODE.findall(qualified) for w in IDENT.findall(chunk)}
    code_words |= set(SYMBOL_KEY.findall(task))  # `the :pem option`: a Ruby symbol is the option's own name
    prose = compound_parts(task) - code_words  # `Content-Type`: words of a phrase, not names
    prose |= {  # `application/yaml`: a media type, not a path here
        w
        for token in PATHLIKE.findall(task)
        if "/" in token and store.file(token) is None
        for w in IDENT.findall(token)
    }
    # "the prompt function", "the Retry class": a word the task calls a function, method or class is a name
    called = {m.group(1) for m in _CALLED_NAME.finditer(task)}
    # The types the task qualifies a member by or spells in their case (`Attribute` of `Attribute.key`)
    spelled_owners = {
        i.split(".", 1)[0].lower()
        for i in IDENT.findall(qualified)
        if i[:1].isupper() and ("." in i or i in code_words)
    }
    # `BytesMut::put` is the name `BytesMut.put` and its two parts, as spelled
    for ident in [*code_words, *IDENT.findall(qualified), *IDENT.findall(task)]:
        if ident in seen:
            continue
        seen.add(ident)
        last = ident.rsplit(".", 1)[-1]
        if ident in resolved_tails:
            continue  # `chunks_vectored` of `Buf::chunks_vectored`, found as the type's already
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
        if last[:1].isupper():
            # `DocumentType` is the class, not `Document.documentType` returning one; `Pattern` (the
            # standard library's) is no `pattern` field: a capitalised name matches in its own case
            exact = [s for s in found if s.name == last]
            found = exact or [s for s in found if "." not in s.qualified]
        if ident.islower() and "." not in ident and _names_a_spelled_type(ident, spelled_owners):
            if descriptive is not None:  # "boolean attributes" of `Attribute.isBooleanAttribute`
                descriptive.add(ident)
            continue
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
        if "." in ident:
            resolved_tails.add(last)
        as_code = (ident in code_words or ident in called or "_" in last.strip("_") or "." in ident) or bool(
            re.search(r"[a-z][A-Z]", last)
        )
        names.append(_Name(ident, explicit, as_code, found))
    _owned_methods(names, task)
    for entry in _siblings_described(names):
        names.remove(entry)
        if descriptive is not None:
            descriptive.add(entry.ident.lower())
    for entry in names:
        ident, explicit, as_code, found = entry.ident, entry.explicit, entry.as_code, entry.found
        paths = {s.path for s in found}
        if not paths or (not explicit and len(paths) > 3):
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


def _names_a_spelled_type(word: str, owners: set[str]) -> bool:
    """A plain word that is the plural or singular of a type the task spells, not that type itself
    ("boolean attributes" beside `Attribute.isBooleanAttribute`): it says what the named type is about,
    and names its look-alike sibling (`Attributes`) only by coincidence."""
    return word not in owners and any(word in (o + "s", o + "es") or o in (word + "s", word + "es") for o in owners)


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
    if parts[-2][:1].isupper():
        return []  # `OpenSSL::PKey.read`: a type the index does not know is another library's, its `read` too
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


def _owned_methods(names: list[_Name], task: str) -> None:
    """A method name the task uses beside a type it names (`WrapResponseWriter` ... `WriteHeader`): the
    methods of that name in the files defining the named type, not those of every other type
    implementing the same interface (`compressResponseWriter.WriteHeader`). A trait method the task
    places on a type (`Buf::chunks_vectored for VecDeque<u8>`) is that type's and the trait's, not
    `Chain`'s; a method the task names beside the types it is about, defined only on types it does not
    name (`copy_from_slice` of the standard slice, in a task about `BufMut::put_slice`), is none here."""
    typed = {s.path for n in names if n.explicit for s in n.found if s.kind in TYPE_KINDS}
    typed |= {s.path for n in names if "." in n.ident for s in n.found if "." in s.qualified}  # `BufMut::put_slice`
    methods = [n for n in names if "." not in n.ident and n.found and all("." in s.qualified for s in n.found)]
    owned_of = {id(n): [s for s in n.found if s.path in typed or _owner_named(s.qualified, task)] for n in methods}
    placed = typed or any(owned_of.values())
    if not placed:
        return
    for n in methods:
        owned = owned_of[id(n)]
        if owned and len(owned) < len(n.found):
            n.found = owned
        elif not owned and n.explicit and _owner_named_any(names, task):
            n.found = []


def _siblings_described(names: list[_Name]) -> list[_Name]:
    """A plain word naming only a type defined in a file of its own beside the file of its own of a type
    the task names (`Take ... each cut to the limit`: `Limit` in `limit.rs` beside `Take` in `take.rs`)
    describes the named type's work; the sibling is another member of the family, not a second file of
    the change. A type in a file named otherwise (`Response` in `_models.py`) is no such sibling."""

    def own_file(s: SymbolEntry) -> bool:
        return s.kind in TYPE_KINDS and stem_of(s.path).strip("_").replace("_", "") == s.name.lower().replace("_", "")

    def folder(path: str) -> str:
        return path.rsplit("/", 1)[0] if "/" in path else ""

    typed = {s.path for n in names if n.explicit for s in n.found if own_file(s)}
    folders = {folder(p) for p in typed}
    out = []
    for n in names:
        code = [s for s in n.found if not TEST_NAME.search(stem_of(s.path)) and not in_tests(s.path)]
        if n.explicit or n.ident != n.ident.lower() or not code:
            continue
        if all(own_file(s) and s.path not in typed and folder(s.path) in folders for s in code):
            out.append(n)
    return out


def _owner(qualified: str) -> str:
    """`Chain<T, U>.chunks_vectored` -> `Chain<T, U>`."""
    return qualified.rsplit(".", 1)[0]


def _owner_named(qualified: str, task: str) -> bool:
    """Whether the task spells the type a method is defined on: `VecDeque` for `VecDeque<u8>`, or the
    receiver as written (`&mut [u8]`)."""
    owner = _owner(qualified)
    if owner and re.search(rf"(?<![\w]){re.escape(owner)}(?![\w])", task):
        return True
    bare = re.sub(r"<.*", "", owner).rsplit(".", 1)[-1].rsplit("::", 1)[-1].strip()
    return len(bare) > 1 and bool(re.search(rf"(?<![\w]){re.escape(bare)}(?![\w])", task))


def _owner_named_any(names: list[_Name], task: str) -> bool:
    """The task places some method it names on a type it spells (`BufMut::put_slice`)."""
    return bool(re.search(r"\b[A-Z][A-Za-z0-9_]*(?:<[^>]*>)?(?:::|\.)[a-z_][A-Za-z0-9_]*", task))
