"""The route tools' input and output models."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kernel.models import ToolInput, ToolOutput

__all__ = [
    "Alternative",
    "CapabilitiesInput",
    "CapabilitiesOutput",
    "CapabilityDetail",
    "CapabilityRow",
    "Confidence",
    "Precondition",
    "Preparation",
    "RouteInput",
    "RouteOutput",
    "Step",
]

Level = Literal["observe", "consult", "edit", "admin"]
MAX_TASK = 4000


class RouteInput(ToolInput):
    task: str = Field(
        min_length=1,
        max_length=MAX_TASK,
        description="the task in the user's words (1-4000 characters)",
    )
    ceiling: Level | None = Field(
        None,
        description="a lower ceiling to route within (never raises the server's)",
    )
    execute: bool = Field(False, description="run the recommendation (preconditions first) and return its result")
    repo: str | None = Field(None, description="repository path; default: the current one")
    confirm: bool = Field(
        False,
        description="with execute: let a recommendation that deletes or reverts run; without it, such a call is "
        "never run, whatever the ceiling",
    )
    wait_seconds: float = Field(
        20, ge=0, le=3600, description="with execute over MCP: seconds to await a long run before returning its id"
    )


class Alternative(ToolOutput):
    capability: str
    tool: str
    score: float
    needed_authority: Level
    why_not: str


class Precondition(ToolOutput):
    kind: Literal["git", "index", "sessions", "run", "loop", "needs_input"]
    met: bool
    detail: str = Field(description="what was found, or what is missing")
    command: str | None = Field(description="the command that satisfies it (null when only the user can)")
    tool: str | None = Field(None, description="the tool that satisfies it, for --execute")
    arguments: dict[str, Any] = Field(default_factory=dict)
    needed_authority: Level | None = None
    field: str | None = Field(None, description="for needs_input: the argument to supply")


class Preparation(ToolOutput):
    """A read-only step offered beside a blocked recommendation; it does not do the task."""

    label: Literal["preparatory"] = "preparatory"
    capability: str
    tool: str
    arguments: dict[str, Any]
    argv: list[str]
    needed_authority: Level
    why: str


class Step(ToolOutput):
    """One request of a task of several, with the call that does it."""

    request: str = Field(description="the request's words")
    capability: str | None
    tool: str | None
    arguments: dict[str, Any]
    argv: list[str]
    needed_authority: Level | None
    blocked: bool
    why: str


class Confidence(ToolOutput):
    score: float = Field(description="0-1: how well the best capability's phrasings cover the task")
    margin: float = Field(description="score lead over the next candidate (0 when alone)")
    runner_up: str | None = Field(description="the next candidate's capability")


class RouteOutput(ToolOutput):
    task: str
    ceiling: Level
    capability: str | None = Field(description="the product command chosen (`sessions live`); null when nothing fits")
    tool: str | None = Field(description="its MCP tool (`pallium_sessions_live`)")
    arguments: dict[str, Any] = Field(description="structured arguments for the tool, grounded in the repository")
    argv: list[str] = Field(description="the same call as a command line, without a shell")
    why: str
    alternatives: list[Alternative] = Field(description="the next candidates, each with why it was not chosen")
    needed_authority: Level | None = Field(description="the level this call needs")
    blocked: bool = Field(description="true when the call needs more than the ceiling: nothing weaker is offered")
    blocked_reason: str | None
    preparation: Preparation | None = Field(None, description="a read-only step offered beside a block, if any")
    preconditions: list[Precondition] = Field(description="what must hold first, each with its command")
    confidence: Confidence
    state: dict[str, Any] = Field(description="repository and store state route observed")
    steps: list[Step] = Field(
        default_factory=list,
        description="for a task of several requests (`then`, `and also`, `;`): each request's call, in order; "
        "the answer is blocked when any step is",
    )
    executed: dict[str, Any] | None = Field(
        None, description="under execute: the result (tool, output or error, preconditions run)"
    )


class CapabilitiesInput(ToolInput):
    full: bool = Field(False, description="add phrasings, arguments and needs (over 4 KB)")


class CapabilityRow(ToolOutput):
    capability: str
    level: str = Field(description="authority it needs; `observe/admin` previews at observe and acts at admin")


class CapabilityDetail(CapabilityRow):
    tool: str
    summary: str
    phrasings: list[str]
    arguments: dict[str, str] = Field(description="input field -> where route finds it in a task")
    needs: list[str] = Field(description="state it needs first: git, index, sessions, run, loop, team")


class CapabilitiesOutput(ToolOutput):
    levels: list[str] = Field(description="authority levels, lowest first; each includes the ones before")
    by_level: dict[str, list[str]] = Field(description="capabilities by the level they need at the least")
    raised: dict[str, str] = Field(
        description="capabilities whose level rises with the call: `admin with confirm`, `edit for fix, ...`"
    )
    capabilities: list[CapabilityDetail] | None = Field(None, description="with full: every capability in detail")
    count: int
    full: bool
