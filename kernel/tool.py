"""How a capability is declared: one `Tool` per handler, read by the MCP adapter, the CLI and the manifest.

Kept free of pydantic and of any service so that the CLI can describe every tool from the
generated manifest without importing a handler.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from kernel.authority import LEVELS, Authority

if TYPE_CHECKING:
    from pydantic import BaseModel

    from kernel.context import ToolContext

__all__ = [
    "ARGUMENT_SOURCES",
    "CONTEXT_BUDGET",
    "NEEDS",
    "SEARCH_BUDGET",
    "SIGNALS",
    "Annotations",
    "Route",
    "Tool",
    "mcp_name",
]

# Bytes of an answer's JSON. Search-like tools (a page of hits) stay within the first, context-like
# tools (a file's or a change's whole picture) within the second; the dispatcher enforces them.
SEARCH_BUDGET = 8 * 1024
CONTEXT_BUDGET = 12 * 1024


@dataclass(frozen=True)
class Annotations:
    """MCP tool annotations, in Pallium's words. Defaults describe a read-only, repeatable lookup.

    `read_only` means the tool changes nothing of the user's environment: writing only Pallium's
    own caches and indexes (the repository index, the sessions index) still counts as read-only,
    so clients that run read-only tools in parallel run these too.
    """

    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False


# How `pallium route` finds an input field's value in a task (see docs/conventions.md, "Route metadata").
ArgumentSource = Literal[
    "task",  # the whole task, as written
    "text",  # quoted text if any, else the task's content words
    "quoted",  # only text in quotes or backticks
    "path",  # the first path that exists in the repository
    "paths",  # every such path (a list field)
    "symbol",  # an identifier (`parse_config`, `Store.open`), checked against the index
    "run_id",  # a workflow run id, or "the last run", checked against the store
    "loop_name",  # an existing loop's name
    "name",  # a name: quoted, or the word after "called", "named", "gate", "template"
    "gate",  # a gate's name as for "name", else the one gate the chosen run waits on
    "session_id",  # a session id, checked against session memory
    "team",  # an agent team's id (`team-...`), checked against the teams store
    "age",  # "3h", "2 days", "a few minutes" as a duration like `3h`
    "test_command",  # a command in backticks, or a known test runner's line (`pytest -q`)
    "ref",  # a git ref or commit (`origin/main`, a sha)
    "script",  # a `.js` workflow script path
    "source",  # `claude` or `codex`
]
ARGUMENT_SOURCES: tuple[str, ...] = ArgumentSource.__args__  # type: ignore[attr-defined]  # Literal keeps its members
# Repository state a capability needs before it can answer well; each becomes a precondition.
Need = Literal["git", "index", "sessions", "run", "loop", "team"]
NEEDS: tuple[str, ...] = Need.__args__  # type: ignore[attr-defined]
# Repository states under which a capability is the likelier reading of a task.
Signal = Literal[
    "dirty",  # the working tree has changes
    "index_missing",
    "index_stale",
    "runs_awaiting_approval",  # a workflow run waits on a human gate
    "runs_interrupted",  # a run was interrupted or failed and can be resumed
    "runs_active",  # a run is queued, running or paused
    "runs_finished",  # a run completed (it may have patches to review or apply)
    "loops",  # at least one loop exists
    "sessions_running",  # a claude or codex session is running now
]
SIGNALS: tuple[str, ...] = Signal.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True, eq=False)
class Route:
    """What `pallium route` needs to recommend a tool for a task written in plain words.

    `phrasings` are tasks this tool answers, written the way a person or an agent would ask
    (five or more, varied). `capability` is the product command route names (default: the tool's
    `cli`). `arguments` maps an input field to where its value is found in a task (one of
    `ARGUMENT_SOURCES`); `flags` maps a boolean input field to words that set it ("delete" sets
    `confirm`), so a tool's `escalation` decides the level that call needs. `levels` maps a level
    to words that make the task need it even though the tool's base level is lower (a `start`
    that must edit needs `edit`). `needs` lists the state the tool must find (`NEEDS`), `signals`
    the states that make it the likelier choice (`SIGNALS`), and `prepare` a read-only capability
    route may offer, labelled as preparation, when this one is blocked. `routable=False` keeps a
    tool out of recommendations (route's own tools).
    """

    phrasings: tuple[str, ...]
    capability: str = ""
    arguments: Mapping[str, ArgumentSource] = field(default_factory=dict)
    flags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    levels: Mapping[Authority, tuple[str, ...]] = field(default_factory=dict)
    needs: tuple[Need, ...] = ()
    signals: tuple[Signal, ...] = ()
    prepare: str | None = None
    routable: bool = True

    def check(self, cli: str) -> None:
        """Raise `ValueError` naming the first thing wrong with this declaration."""
        if self.routable and len(self.phrasings) < 3:
            raise ValueError(f"{cli}: route metadata needs at least three phrasings")
        for name, source in self.arguments.items():
            if source not in ARGUMENT_SOURCES:
                raise ValueError(f"{cli}: route argument {name!r} has unknown source {source!r}")
        for level in self.levels:
            if level not in LEVELS:
                raise ValueError(f"{cli}: route level {level!r} is not an authority level")
        for need in self.needs:
            if need not in NEEDS:
                raise ValueError(f"{cli}: route need {need!r} is not one of {NEEDS}")
        for signal in self.signals:
            if signal not in SIGNALS:
                raise ValueError(f"{cli}: route signal {signal!r} is not one of {SIGNALS}")

    def to_dict(self, cli: str) -> dict[str, Any]:
        """The manifest's form, which route reads without importing the tool's module."""
        return {
            "capability": self.capability or cli,
            "phrasings": list(self.phrasings),
            "arguments": dict(self.arguments),
            "flags": {k: list(v) for k, v in self.flags.items()},
            "levels": {k: list(v) for k, v in self.levels.items()},
            "needs": list(self.needs),
            "signals": list(self.signals),
            "prepare": self.prepare,
            "routable": self.routable,
        }


@dataclass(frozen=True)
class Tool:
    """One capability: a plain `async def handler(inp, ctx)` and everything said about it.

    `cli` is the product's own command (`changed-now`, `sessions recall`); the MCP name is the
    same words joined by `_` behind `pallium_`. `positional` names the input fields the CLI takes
    as positional arguments; `route` is what `pallium route` needs to recommend it. `escalation`
    is `(field, level)` for tools that preview by default and act when a boolean field is set:
    `("confirm", "admin")` means `authority` suffices for the preview and `level` is needed to
    act. `render` gives the short human form; `exit_code` lets a tool whose answer is a verdict
    (doctor) fail the CLI process without raising.

    `usage_exit` is the CLI's exit status for bad input: 2 as everywhere, except where the tool's own
    statuses already use 2 (`loop tick`'s no_op), so a misspelt command line never reads as a state.

    `budget` is the most bytes the answer's JSON may take (None: unbounded, which the description
    must say); the dispatcher enforces it on the finished answer, freshness included, by calling
    `trim(out, inp, budget)`, the tool's own way of cutting its answer (a page ends earlier and its
    cursor says so), then the kernel's generic cut of the longest lists and texts. `unbounded_by`
    names a boolean input field (`full`) that lifts the budget for one call.

    `redact` (the default) passes every text of the answer through the kernel's secret detector
    before it leaves (answers quote committed files, commit messages and transcripts, which may hold
    keys), counting the replacements in the output's `redactions` field when it has one. A tool
    opts out only by setting `redact=False` with the reason in `redact_exempt`.
    """

    cli: str
    handler: Callable[[Any, ToolContext], Awaitable[Any]]
    input: type[BaseModel]
    output: type[BaseModel]
    summary: str
    description: str
    authority: Authority
    toolset: str
    annotations: Annotations = Annotations()
    positional: tuple[str, ...] = ()
    escalation: tuple[str, Authority] | None = None
    render: Callable[[Any], str] | None = None
    exit_code: Callable[[Any], int] | None = None
    route: Route | None = None
    usage_exit: int = 2
    budget: int | None = SEARCH_BUDGET
    trim: Callable[[Any, Any, int], Any] | None = None
    unbounded_by: str | None = None
    redact: bool = True
    redact_exempt: str = ""

    def __post_init__(self) -> None:
        if self.authority not in LEVELS:
            raise ValueError(f"{self.cli}: unknown authority {self.authority!r}")
        if not self.summary or not self.description:
            raise ValueError(f"{self.cli}: a tool needs a summary and a description")
        if self.route is not None:
            self.route.check(self.cli)
        if self.budget is not None and self.budget < 1024:
            raise ValueError(f"{self.cli}: a budget under 1 KB leaves no room for an answer")
        if not self.redact and not self.redact_exempt.strip():
            raise ValueError(f"{self.cli}: a tool that does not redact its answers must say why, in `redact_exempt`")

    @property
    def name(self) -> str:
        return mcp_name(self.cli)

    def budget_for(self, inp: Any) -> int | None:
        """The byte budget of this particular call: None when unbounded or lifted by `unbounded_by`."""
        if self.unbounded_by is not None and getattr(inp, self.unbounded_by, False) is True:
            return None
        return self.budget

    def needed_authority(self, inp: Any) -> Authority:
        """The level this particular call needs, given its validated input."""
        if self.escalation is not None and getattr(inp, self.escalation[0], False):
            return self.escalation[1]
        return self.authority


def mcp_name(cli: str) -> str:
    """`sessions recall` -> `pallium_sessions_recall`; `changed-now` -> `pallium_changed_now`."""
    return "pallium_" + "_".join(cli.replace("-", "_").split())
