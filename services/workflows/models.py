"""Input and output models of the workflow tools."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from kernel.models import ToolInput, ToolOutput


class ValidateInput(ToolInput):
    script: str | None = Field(
        None,
        description="path of a .js workflow script, inside the repository or "
        "$PALLIUM_HOME/workflows; give this or `source`",
    )
    source: str | None = Field(
        None, max_length=1_000_000, description="the script's text itself, instead of a path (at most 1 MB)"
    )


class ValidateOutput(ToolOutput):
    valid: bool = Field(description="false when any error was found; warnings alone keep it valid")
    errors: list[str] = Field(description="problems that stop the script from running, with line numbers")
    warnings: list[str] = Field(description="likely mistakes that would fail at run time")
    meta: dict[str, Any] | None = Field(description="the script's `export const meta` literal, when it has one")
    script: str | None = Field(description="the resolved path, or null for inline source")
    script_hash: str = Field(description="hash of the script text; a resume compares it to see edits")
