"""How a capability is declared: one `Tool` per handler, read by the MCP adapter, the CLI and the manifest.

Kept free of pydantic and of any service so that the CLI can describe every tool from the
generated manifest without importing a handler.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kernel.authority import LEVELS, Authority

if TYPE_CHECKING:
    from pydantic import BaseModel

    from kernel.context import ToolContext

__all__ = ["CONTEXT_BUDGET", "SEARCH_BUDGET", "Annotations", "Tool", "mcp_name"]

# Bytes of an answer's JSON. Search-like tools (a page of hits) stay within the first, context-like
# tools (a file's or a change's whole picture) within the second; the dispatcher enforces them.
SEARCH_BUDGET = 8 * 1024
CONTEXT_BUDGET = 12 * 1024


@dataclass(frozen=True)
class Annotations:
    """MCP tool annotations, in Pallium's words. Defaults describe a read-only, repeatable lookup."""

    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False


@dataclass(frozen=True)
class Tool:
    """One capability: a plain `async def handler(inp, ctx)` and everything said about it.

    `cli` is the product's own command (`changed-now`, `sessions recall`); the MCP name is the
    same words joined by `_` behind `pallium_`. `positional` names the input fields the CLI takes
    as positional arguments. `escalation` is `(field, level)` for tools that preview by default
    and act when a boolean field is set: `("confirm", "admin")` means `authority` suffices for the
    preview and `level` is needed to act. `render` gives the short human form; `exit_code` lets a tool whose
    answer is a verdict (doctor) fail the CLI process without raising.

    `budget` is the most bytes the answer's JSON may take (None: unbounded, which the description
    must say); the dispatcher enforces it on the finished answer, freshness included, by calling
    `trim(out, inp, budget)`, the tool's own way of cutting its answer (a page ends earlier and its
    cursor says so), then the kernel's generic cut of the longest lists and texts. `unbounded_by`
    names a boolean input field (`full`) that lifts the budget for one call.
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
    budget: int | None = SEARCH_BUDGET
    trim: Callable[[Any, Any, int], Any] | None = None
    unbounded_by: str | None = None

    def __post_init__(self) -> None:
        if self.authority not in LEVELS:
            raise ValueError(f"{self.cli}: unknown authority {self.authority!r}")
        if not self.summary or not self.description:
            raise ValueError(f"{self.cli}: a tool needs a summary and a description")
        if self.budget is not None and self.budget < 1024:
            raise ValueError(f"{self.cli}: a budget under 1 KB leaves no room for an answer")

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
