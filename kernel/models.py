"""Base models for tool inputs and outputs: strict about unknown fields, snake_case, JSON-ready."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["ToolInput", "ToolOutput"]


class ToolInput(BaseModel):
    """A tool's arguments. Unknown fields are refused so a misspelt argument is never ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class ToolOutput(BaseModel):
    """A tool's answer, exactly what `--json` prints and MCP returns as structured content."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
