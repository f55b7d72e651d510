"""The rows the sessions store returns, and the filters its queries take: named, frozen, no SQL.

Split from `store.py`, which keeps the tables and every statement; the rest of the service reads
these, so it names their types without importing the queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "EmbedCandidate",
    "FileRow",
    "Filters",
    "MatchScore",
    "MessageMatch",
    "MessageRow",
    "NearSession",
    "SessionRow",
    "SpaceRow",
]


@dataclass(frozen=True)
class SessionRow:
    id: str
    source: str
    native_id: str
    agent_id: str | None
    parent_id: str | None
    parent_tool_use_id: str | None
    agent_type: str | None
    cwd: str | None
    repo: str | None
    git_branch: str | None
    title: str | None
    model: str | None
    cli_version: str | None
    created_at: str | None
    updated_at: str | None
    finished_at: str | None
    message_count: int
    completion: str
    capsule: dict[str, Any]
    source_missing: bool


@dataclass(frozen=True)
class FileRow:
    path: str
    session_id: str
    source: str
    size: int
    mtime_ns: int
    inode: int
    offset: int
    lines: int
    head_hash: str
    malformed: int
    missing: bool


@dataclass(frozen=True)
class MessageRow:
    session_id: str
    line: int
    ts: str | None
    role: str
    kind: str
    text: str
    tool_name: str | None = None
    call_id: str | None = None
    is_error: bool = False


@dataclass(frozen=True)
class MessageMatch:
    """A message a full-text search found: its BM25 score (lower is better) and a highlighted snippet."""

    message: MessageRow
    score: float
    snippet: str


@dataclass(frozen=True)
class NearSession:
    """A session an embedding search found, and its cosine distance from the query (lower is nearer)."""

    session_id: str
    distance: float


@dataclass(frozen=True)
class MatchScore:
    """The id of a message a ranking found, and its score (lower is better)."""

    message_id: int
    score: float


@dataclass(frozen=True)
class SpaceRow:
    """One vector space: an embedding model at one size."""

    id: int
    dim: int


@dataclass(frozen=True)
class EmbedCandidate:
    """A session to embed: its capsule and metadata, and the hash of the text its vector has ('' if none)."""

    session_id: str
    capsule: dict[str, Any]
    fields: dict[str, Any]
    text_hash: str


@dataclass(frozen=True)
class Filters:
    """Session filters shared by recall, search and find; None means no filter."""

    repo: str | None = None
    cwd: str | None = None
    source: str | None = None
    file: str | None = None
    since: str | None = None
    before: str | None = None
    completion: str | None = None
    updated_before: str | None = None
    finished_after: str | None = None
    top_level: bool = False
