"""The rows the repository index's queries return: named, frozen, and free of SQL.

Split from the `store` package, which keeps the tables and every statement; these are what the rest of the
service reads, so a caller can name a row's type without importing the queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

__all__ = [
    "BaseRow",
    "CommitRow",
    "ContentFacts",
    "ContentInfo",
    "DecisionHit",
    "DefinitionRow",
    "EdgeRow",
    "ExitRow",
    "ExportRow",
    "ExporterRow",
    "FileFactRow",
    "FileRow",
    "HotspotRow",
    "ImportRow",
    "IncomingRow",
    "LifeRow",
    "PairRow",
    "ReferenceRow",
    "SearchCandidate",
    "SymbolRow",
    "TouchRow",
]


@dataclass(frozen=True)
class FileRow:
    path: str
    hash: str | None
    language: str | None
    skip_reason: str | None
    tracked: bool
    # The blob id a skip after a look (binary, minified, generated, too large) was decided on:
    # the same id at the next run is the same content, skipped again without reading it.
    seen: str | None = None


@dataclass(frozen=True)
class ContentFacts:
    """One content's facts as `add_contents` stores them."""

    hash: str
    language: str
    status: str
    lines: int
    size: int
    symbols: Sequence[tuple[str, str, str, str | None, str, int, int, str | None, str]]
    imports: Sequence[tuple[str, str, int]]
    refs: str  # a JSON array of `[name, line, kind, receiver]`, sorted: `encode_refs`
    # `(name, original, raw, line)`: what the file hands importers under another name (`aliases.exports`)
    exports: Sequence[tuple[str, str, str, int]] = ()
    # `(name, type, line)`: a top-level name bound to a value of one known type (`parsing.typed_bindings`)
    typed: Sequence[tuple[str, str, int]] = ()


@dataclass(frozen=True)
class SymbolRow:
    id: int
    path: str
    name: str
    kind: str
    qualified: str
    parent: str | None
    signature: str
    start_line: int
    end_line: int
    doc: str | None
    decorators: str = ""  # one per line


@dataclass(frozen=True)
class DefinitionRow:
    """A symbol with the language of the file that declares it."""

    id: int
    path: str
    language: str | None
    name: str
    kind: str
    qualified: str
    parent: str | None
    signature: str
    start_line: int


@dataclass(frozen=True)
class ReferenceRow:
    path: str
    language: str | None
    line: int
    kind: str
    # "" none, "self" the enclosing class, "?" unknown, "?name" a plain name, "=raw" brought in by the
    # import `raw` (an alias's original name, or a module alias's member), else a class name
    receiver: str
    enclosing: str | None  # qualified name of the innermost enclosing definition


class DecisionHit(NamedTuple):
    """A commit note matching a decisions query, with its BM25 score (lower is better)."""

    sha: str
    committed_at: int
    subject: str
    body: str
    score: float


class ContentInfo(NamedTuple):
    language: str | None
    status: str
    lines: int
    bytes: int


class ImportRow(NamedTuple):
    """An import as written in an indexed file: `names` are the names it brings in, space-separated."""

    path: str
    language: str | None
    raw: str
    names: str


class IncomingRow(NamedTuple):
    """A resolved import into a file: the importing file, the import as written, the names it brings."""

    src: str
    raw: str
    names: str


class ExportRow(NamedTuple):
    """A name a file hands its importers (`default`, `B`, `*`), what it stands for, and through which of
    the file's imports (`raw`; empty: the file's own definition)."""

    name: str
    original: str
    raw: str


class NamedExportRow(NamedTuple):
    """A file handing its importers a name under which it binds `original` (through `raw`, or its own)."""

    path: str
    original: str
    raw: str


class ExporterRow(NamedTuple):
    """A file importing another through `raw` and handing on `original` from it as `name`."""

    src: str
    name: str
    original: str


class EdgeRow(NamedTuple):
    """A resolved import of a file: the file it reaches, the import as written, the names it brings."""

    dst: str
    raw: str
    names: str


class SearchCandidate(NamedTuple):
    symbol_id: int
    path: str
    score: float
    terms: str
    path_terms: str


class FileFactRow(NamedTuple):
    path: str
    hash: str | None
    language: str | None
    skip_reason: str | None
    tracked: bool
    lines: int


@dataclass(frozen=True)
class BaseRow:
    """A base class or implemented interface as written (`name`), with the reference that names it."""

    name: str
    reference: ReferenceRow


@dataclass(frozen=True)
class CommitRow:
    sha: str
    author: str
    committed_at: int
    subject: str


@dataclass(frozen=True)
class LifeRow:
    """One name a file had, over the commits in which it held it: from the commit at position `since`
    (the one that added it or renamed it to this name; None: from the start of the history read)
    until before the commit at `until` (the rename that took the name away; None: it holds it
    still). A position is a commit's place in the order the history was read (its rowid)."""

    name: str
    since: int | None
    until: int | None


@dataclass(frozen=True)
class ExitRow:
    """A commit that ended a file's life at a path: it deleted the file, or renamed it to `new`."""

    commit: CommitRow
    position: int
    new: str | None


@dataclass(frozen=True)
class TouchRow:
    commit: CommitRow
    change: str  # A added, M modified, D deleted, R renamed (to this path), T type changed


@dataclass(frozen=True)
class HotspotRow:
    path: str
    commits: int
    added: int
    deleted: int
    authors: int
    last_at: int
    fan_in: int


@dataclass(frozen=True)
class PairRow:
    path: str
    shared: int
    revisions: int
    last_at: int
