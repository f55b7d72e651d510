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

__all__ = ["Annotations", "Tool", "mcp_name"]


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

    def __post_init__(self) -> None:
        if self.authority not in LEVELS:
            raise ValueError(f"{self.cli}: unknown authority {self.authority!r}")
        if not self.summary or not self.description:
            raise ValueError(f"{self.cli}: a tool needs a summary and a description")

    @property
    def name(self) -> str:
        return mcp_name(self.cli)

    def needed_authority(self, inp: Any) -> Authority:
        """The level this particular call needs, given its validated input."""
        if self.escalation is not None and getattr(inp, self.escalation[0], False):
            return self.escalation[1]
        return self.authority


def mcp_name(cli: str) -> str:
    """`sessions recall` -> `pallium_sessions_recall`; `changed-now` -> `pallium_changed_now`."""
    return "pallium_" + "_".join(cli.replace("-", "_").split())
