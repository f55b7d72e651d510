"""What Pallium tells an agent to do first, from one source: the MCP server's instructions and the
AGENTS.md block `pallium agents install` writes are both made here, from the tools a server serves.

A habit names one tool; a rendering keeps only the habits whose tool is served, so neither text
ever sends an agent to a tool its server does not have. `DEFAULT_TOOLS` is what a server serves
without `--toolsets`; the registry and the adoption service both read it from here.
"""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["DEFAULT_TOOLS", "HABITS", "agents_block_body", "habits", "server_instructions"]

# What an MCP client gets without --toolsets: what most agent turns call, not every tool, since a
# client sends every listed tool's description and schema to the model on every turn. pallium_route
# leads to the rest (route capabilities, sessions show and read are reached through it, `execute`, or
# `--toolsets route,sessions`), which keeps the listing within its 4,000-token goal
# (`python -m benchmarks mcp` measures it).
DEFAULT_TOOLS: frozenset[str] = frozenset(
    {
        "pallium_route",
        "pallium_changed_now",
        "pallium_explain",
        "pallium_search",
        "pallium_callers",
        "pallium_handoff",
        "pallium_start",
        "pallium_workflow_status",
        "pallium_workflow_report",
        "pallium_workflow_apply",
        "pallium_sessions_recall",
        "pallium_sessions_search",
        "pallium_knowledge_context",
        "pallium_knowledge_search",
        "pallium_knowledge_get",
    }
)

# (tool, when to call it), in the order an agent meets them. The first is the way in.
HABITS: tuple[tuple[str, str], ...] = (
    (
        "pallium_route",
        'first, when unsure which tool fits a task (CLI: `pallium route "<task>" --json`): it names the '
        "capability and its arguments, the authority it needs, and whether the ceiling blocks it; never "
        "raise the ceiling yourself",
    ),
    ("pallium_sessions_recall", "at the start of a session"),
    ("pallium_changed_now", "to see the working tree's changes"),
    ("pallium_explain", "before editing a file"),
    ("pallium_callers", "before renaming"),
    ("pallium_start", "for a whole task (`dry_run` shows the plan, the files and the provider first)"),
    ("pallium_workflow_status", "to follow a run (`ok` says whether it finished)"),
    ("pallium_workflow_report", "for a run's outcome, findings and failures"),
    ("pallium_workflow_apply", "to apply a run's staged edits"),
    ("pallium_handoff", "before passing work on"),
)


def habits(served: Collection[str]) -> list[tuple[str, str]]:
    """The habits whose tool is in `served`."""
    return [(tool, when) for tool, when in HABITS if tool in served]


def server_instructions(served: Collection[str]) -> str:
    """The MCP server's `instructions`: the same habits as the AGENTS.md block, for the tools served."""
    lines = [
        "Pallium answers questions about this repository and its agents' work from local state, and runs "
        "durable multi-agent workflows."
    ]
    lines += [f"Call {tool} {when}." for tool, when in habits(served)]
    lines.append("Errors come back as JSON with a code and a hint saying what to do next.")
    return " ".join(lines)


def agents_block_body(served: Collection[str] = DEFAULT_TOOLS) -> str:
    """The AGENTS.md block's text (without its markers), for an agent on a server serving `served`."""
    chosen = habits(served)
    lines = [
        "## Pallium",
        "",
        "This repository is set up for Pallium (MCP server `pallium`, CLI `pallium`), a local control plane",
        "for coding agents. Habits:",
    ]
    lines += [f"- `{tool}` {when}." for tool, when in chosen]
    lines.append("Full guide: `pallium agents guide` (scripts: `pallium agents guide --workflow`).")
    return "\n".join(lines)
