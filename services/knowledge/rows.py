"""The rows the knowledge store reads and writes: named, frozen, and free of SQL.

Split from `store.py`, which keeps the tables and every statement; these are what the rest of the
service passes around (documents, claims and their citations, files, symbols, decisions, ledger
attempts), so a caller can name a row's type without importing the queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = [
    "AttemptRow",
    "CitationRow",
    "ClaimRow",
    "DecisionRow",
    "DocFields",
    "DocHit",
    "DocRow",
    "DroppedRow",
    "FileEntry",
    "FileHit",
    "FileStat",
    "NewClaim",
    "Revision",
    "SymbolEntry",
    "UpkeepRow",
]


@dataclass(frozen=True)
class DocRow:
    slug: str
    kind: str
    title: str
    module_path: str | None
    data: dict[str, Any]
    markdown: str
    built_commit: str | None
    built_at: str
    verified: bool
    unverified_reason: str | None


@dataclass(frozen=True)
class DocFields:
    """A document's words by field for search (its body is its Markdown)."""

    title: str
    path: str  # the names of its files, split into words
    purpose: str  # what it says of itself: the purpose and claims, names left out
    symbols: str  # its surface's names, whole and split into words
    standing: float = 1.0  # what its score is multiplied by: more for a module many others import


@dataclass(frozen=True)
class CitationRow:
    path: str
    symbol: str | None
    start_line: int | None
    end_line: int | None
    blob: str


@dataclass(frozen=True)
class ClaimRow:
    id: int
    slug: str
    section: str
    text: str
    audit: str  # unaudited | supported | uncertain
    audit_reason: str | None
    checked_at: str
    citations: tuple[CitationRow, ...]


@dataclass(frozen=True)
class DroppedRow:
    slug: str
    text: str
    outcome: str  # unresolved | refuted | rejected
    reason: str
    at: str


@dataclass(frozen=True)
class DecisionRow:
    slug: str
    title: str
    text: str
    file: str
    source: str
    supersedes: str | None
    superseded_by: str | None
    created_at: str


@dataclass(frozen=True)
class FileHit:
    path: str
    slug: str
    score: float
    test: bool
    tests: tuple[str, ...]
    importers: int = 0
    reach: int = 0
    language: str | None = None


@dataclass(frozen=True)
class NewClaim:
    section: str
    text: str
    citations: Sequence[CitationRow]


@dataclass(frozen=True)
class FileEntry:
    path: str
    slug: str
    blob: str | None
    language: str | None
    test: bool
    tests: Sequence[str]
    path_terms: str
    names: str
    doc: str
    checks: Sequence[str] = ()
    importers: int = 0
    reach: int = 0
    mtime_ns: int | None = None  # None: changed too near the build to trust its time; always hashed
    size: int | None = None


class Revision(NamedTuple):
    replaced_at: str
    built_commit: str | None


class DocHit(NamedTuple):
    slug: str
    score: float


@dataclass(frozen=True, slots=True)
class FileStat:
    blob: str | None
    mtime_ns: int | None
    size: int | None


@dataclass(frozen=True)
class SymbolEntry:
    name: str
    path: str
    kind: str
    qualified: str
    start_line: int
    end_line: int
    refs: int


@dataclass(frozen=True)
class AttemptRow:
    id: int
    repo: str
    purpose: str
    started_at: float
    ended_at: float | None
    outcome: str | None
    error_class: str | None


@dataclass(frozen=True)
class UpkeepRow:
    repo: str
    enabled: bool
    paused: bool
    pause_reason: str | None
    updated_at: str
