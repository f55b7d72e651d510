"""`pallium trust`: let a repository's own workflows and allowed commands count, or take that back.

The record and the hash live in the kernel (`kernel.trust`); this module is only the tool.
"""

from __future__ import annotations

from pydantic import Field

from kernel import trust
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.models import ToolInput, ToolOutput
from kernel.tool import Annotations, Route, Tool

__all__ = ["TOOLS"]


class TrustInput(ToolInput):
    repo: str | None = Field(None, description="repository to trust (a folder inside it); default: the current one")
    revoke: bool = Field(False, description="take trust back instead of giving it")


class TrustOutput(ToolOutput):
    repo: str = Field(description="the repository's root folder")
    trusted: bool = Field(
        description="its shipped workflows, config.toml, own test commands and git configuration now count"
    )
    files: list[str] = Field(description="the repository files the trust covers: config.toml and saved workflows")
    fingerprint: str = Field(description="sha256 over those files; any change makes the repository untrusted")
    trusted_at: str | None = Field(description="when trust was given (UTC), null when untrusted")


async def trust_repo(inp: TrustInput, ctx: ToolContext) -> TrustOutput:
    repo = ctx.repo_root(inp.repo)
    done = trust.revoke(repo) if inp.revoke else trust.record(repo, now=iso_utc(ctx.clock.now()))
    return TrustOutput(
        repo=done.repo,
        trusted=done.trusted,
        files=list(done.files),
        fingerprint=done.fingerprint,
        trusted_at=done.trusted_at if done.trusted else None,
    )


def _render(out: TrustOutput) -> str:
    if not out.trusted:
        return (
            f"{out.repo} is not trusted: its saved workflows, config.toml allow_commands and own test commands "
            "are not run, and git runs with its hooks, fsmonitor and drivers neutralised"
        )
    shown = ", ".join(out.files[:10]) + (f" and {len(out.files) - 10} more" if len(out.files) > 10 else "")
    return f"trusted {out.repo}" + (f": {shown}" if out.files else " (it ships no workflows or config.toml yet)")


TOOLS = (
    Tool(
        cli="trust",
        handler=trust_repo,
        input=TrustInput,
        output=TrustOutput,
        summary="Trust a repository's own saved workflows and allowed commands, or revoke that trust.",
        description=(
            "Use only when the user, having read them, wants a repository's .pallium/config.toml "
            "(allow_commands), its saved workflows (.pallium/workflows, .claude/workflows), its own test "
            "commands (make test, pytest with its conftest.py, npm test) and its git configuration (hooks, "
            "fsmonitor, filters) to be honoured: until then runs ignore them and say so, and git runs with "
            "them neutralised. Trust covers the files as they are now; any change needs trusting again. "
            "Not needed for built-in templates. Writes one record in PALLIUM_HOME; admin authority; a few "
            "hundred bytes."
        ),
        authority="admin",
        toolset="core",
        route=Route(
            phrasings=(
                "trust this repository's saved workflows",
                "allow the repo's allow_commands to run",
                "I have read .pallium/config.toml, trust it",
                "revoke trust in this repository",
                "honour the workflows this repository ships",
            ),
            flags={"revoke": ("revoke", "untrust", "distrust", "withdraw")},
        ),
        annotations=Annotations(read_only=False, destructive=False, idempotent=True),
        render=_render,
    ),
)
