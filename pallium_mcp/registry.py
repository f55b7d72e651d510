"""The registry: which modules declare tools, and which toolsets a server serves by default.

A module that declares tools exposes them as `TOOLS`. Adding a service's tools means adding its
module here and running `python -m tools_manifest`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from kernel.errors import PalliumError
from kernel.guidance import DEFAULT_TOOLS

if TYPE_CHECKING:
    from kernel.tool import Tool

__all__ = ["DEFAULT_TOOLS", "DEFAULT_TOOLSETS", "TOOL_MODULES", "all_tools", "module_of", "select_toolsets"]

TOOL_MODULES: tuple[str, ...] = (
    "pallium_mcp.system",
    "pallium_mcp.trust",
    "services.repo.tools",
    "services.repo.facts",
    "services.workflows.tools",
    "services.workflows.library_tools",
    "services.workflows.inspect_tools",
    "services.workflows.upkeep_tools",
    "services.workflows.worker_tools",
    "services.workflows.decisions",
    "services.sessions.tools",
    "services.loops.tools",
    "services.route.tools",
    "services.adoption.tools",
    "services.knowledge.tools",
    "services.knowledge.decisions",
    "services.knowledge.maintain_tools",
    "services.teams.tools",
    "services.teams.run_tools",
    "services.teams.member_tools",
    "services.teams.board_tools",
    "services.teams.patch_tools",
    "services.teams.list_tools",
)

# What a server serves without --toolsets: single tools (kernel.guidance keeps the list, beside the
# habits that name them), and whole toolsets named here.
DEFAULT_TOOLSETS: tuple[str, ...] = ()


def all_tools() -> list[Tool]:
    tools: list[Tool] = []
    for module_name in TOOL_MODULES:
        tools.extend(importlib.import_module(module_name).TOOLS)
    names = [t.name for t in tools]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise RuntimeError(f"tools declared twice: {duplicates}")
    return tools


def module_of(tools: list[Tool]) -> dict[str, str]:
    return {tool.name: tool.handler.__module__ for tool in tools}


def select_toolsets(tools: list[Tool], spec: str) -> list[Tool]:
    """Filter `tools` by `--toolsets`: `default`, `all`, or a comma-separated list of toolset names.

    `default` is the tools named in DEFAULT_TOOLS plus the toolsets in DEFAULT_TOOLSETS; it
    combines with toolset names (`default,workflows`).
    """
    wanted = {part.strip() for part in spec.split(",") if part.strip()}
    if not wanted:
        wanted = {"default"}
    if "all" in wanted:
        return list(tools)
    known = {t.toolset for t in tools}
    with_default = "default" in wanted
    wanted.discard("default")
    unknown = sorted(wanted - known - set(DEFAULT_TOOLSETS))
    if unknown:
        raise PalliumError(
            "invalid_input",
            f"unknown toolset(s): {', '.join(unknown)}",
            hint=f"pass --toolsets default, all, or a comma-separated list of: {', '.join(sorted(known))}",
            details={"field": "toolsets", "known": sorted(known)},
        )
    if with_default:
        wanted |= set(DEFAULT_TOOLSETS)
    return [t for t in tools if t.toolset in wanted or (with_default and t.name in DEFAULT_TOOLS)]
