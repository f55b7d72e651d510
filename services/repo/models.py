"""Input and output models of the repository tools."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kernel.models import ToolInput, ToolOutput

ChangeKind = Literal["added", "modified", "deleted", "renamed", "copied", "type_changed", "untracked", "conflicted"]


class ChangedNowInput(ToolInput):
    repo: str | None = Field(None, description="repository path; default: the one holding the current folder")
    limit: int = Field(100, ge=1, le=5000, description="most files to list (1-5000, default 100); counts cover all")


class ChangedFile(ToolOutput):
    path: str = Field(description="repository-relative path (the new path of a rename)")
    orig_path: str | None = Field(None, description="the old path of a rename or copy")
    kind: ChangeKind
    staged: bool = Field(description="the index differs from HEAD for this path")
    unstaged: bool = Field(description="the working tree differs from the index for this path")
    git_status: str = Field(description="git's two status letters, index then working tree ('.' = unchanged)")
    risk_level: Literal["low", "medium", "high"] | None = Field(None, description="from the index; null without one")
    blast_radius: int | None = Field(None, description="files that usually change with this one; null without an index")


class ChangeCounts(ToolOutput):
    total: int
    staged: int
    unstaged: int
    untracked: int
    renamed: int
    deleted: int
    conflicted: int


class ChangedNowOutput(ToolOutput):
    repo: str
    branch: str | None = Field(description="current branch; null on a detached HEAD")
    head: str | None = Field(description="commit at HEAD; null before the first commit")
    detached: bool
    upstream: str | None
    ahead: int | None
    behind: int | None
    summary: str
    counts: ChangeCounts
    files: list[ChangedFile]
    truncated: bool = Field(description="true when more files changed than `limit` listed")
    index_status: Literal["missing", "indexed", "stale"] = Field(description="state of Pallium's repository index")
    recommended_next_command: str | None
