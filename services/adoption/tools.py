"""The adoption tools: the agent guides and block, AGENTS.md/CLAUDE.md install, MCP registration, update."""

from __future__ import annotations

import asyncio
from pathlib import Path

from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.tool import Annotations, Route, Tool
from services.adoption.models import (
    BlockInput,
    BlockOutput,
    FileResult,
    GuideInput,
    GuideOutput,
    InstallInput,
    InstallOutput,
    McpInstallInput,
    McpInstallOutput,
    UpdateInput,
    UpdateOutput,
)

_WRITES = Annotations(read_only=False, destructive=False, idempotent=True, open_world=False)


async def guide(inp: GuideInput, ctx: ToolContext) -> GuideOutput:
    from services.adoption.guide import read_guide

    return GuideOutput(name="PALLIUM_WORKFLOW.md" if inp.workflow else "PALLIUM.md", guide=read_guide(inp.workflow))


async def block(inp: BlockInput, ctx: ToolContext) -> BlockOutput:
    from services.adoption.agents_files import BLOCK

    return BlockOutput(block=BLOCK)


async def install(inp: InstallInput, ctx: ToolContext) -> InstallOutput:
    from services.adoption.agents_files import upsert

    folder = _folder(ctx, inp.dir)
    actions = upsert(folder, dry_run=inp.dry_run)
    return InstallOutput(
        dir=str(folder),
        files=[FileResult(path=str(a.path), action=a.action) for a in actions],  # type: ignore[arg-type]
        dry_run=inp.dry_run,
    )


async def mcp_install(inp: McpInstallInput, ctx: ToolContext) -> McpInstallOutput:
    from services.adoption import mcp_install as logic

    scope = inp.scope or ("project" if inp.client == "claude" else "user")
    if inp.client == "codex" and scope == "project":
        raise PalliumError(
            "invalid_input",
            "Codex reads MCP servers from its user configuration ($CODEX_HOME/config.toml) only",
            hint="drop `scope` (CLI --scope) or pass `scope: user` (CLI --scope user)",
            details={"field": "scope"},
        )
    if inp.client == "claude":
        done = await asyncio.to_thread(logic.install_claude, _folder(ctx, inp.dir), scope, dry_run=inp.dry_run)
    else:
        done = await asyncio.to_thread(logic.install_codex, dry_run=inp.dry_run)
    return McpInstallOutput(
        client=inp.client,
        scope=scope,
        server_command=logic.server_command(),
        path=done.path,
        action=done.action,  # type: ignore[arg-type]
        command=done.command,
        backup=done.backup,
        before=done.before if inp.dry_run else None,
        after=done.after if inp.dry_run else None,
        dry_run=inp.dry_run,
    )


async def update(inp: UpdateInput, ctx: ToolContext) -> UpdateOutput:
    from importlib.metadata import version

    from services.adoption import update as logic

    install_ = logic.detect()
    before = version("pallium")
    base = {"install_kind": install_.kind, "prefix": str(install_.prefix), "command": install_.command}
    if install_.kind == "editable":
        where = install_.source or "the checkout"
        return UpdateOutput(
            **base,
            ran=False,
            version_before=before,
            version_after=None,
            message=f"an editable checkout at {where}: pull it (`git -C {where} pull`) and reinstall "
            f"(`pip install -e {where}`) instead",
        )
    if install_.command is None:  # installed by name from an index: upgrading by name would take PyPI's
        return UpdateOutput(  # `pallium`, which is another project
            **base,
            ran=False,
            version_before=before,
            version_after=None,
            message="installed by name from a package index, and the name `pallium` on PyPI is another project's: "
            "upgrade from where you got Pallium (`pip install --upgrade <its checkout or git URL>`)",
        )
    if inp.dry_run:
        return UpdateOutput(
            **base,
            ran=False,
            version_before=before,
            version_after=None,
            message=f"would run: {' '.join(install_.command or [])}",
        )
    await asyncio.to_thread(logic.upgrade, install_)
    after = await asyncio.to_thread(logic.installed_version, install_)
    changed = after is not None and after != before
    return UpdateOutput(
        **base,
        ran=True,
        version_before=before,
        version_after=after,
        message=f"updated {before} -> {after}" if changed else f"already the newest release ({before})",
    )


def _folder(ctx: ToolContext, given: str | None) -> Path:
    folder = Path(given).expanduser() if given else ctx.cwd
    folder = folder if folder.is_absolute() else ctx.cwd / folder
    if not folder.is_dir():
        raise PalliumError(
            "not_found",
            f"no folder {folder}",
            hint="pass an existing folder as `dir` (CLI `--dir`); `ls` lists them",
            details={"field": "dir", "path": str(folder)},
        )
    folder = folder.resolve()
    if given and folder != ctx.cwd.resolve():
        # A folder named from afar must be a project (a git work tree): an agent holding `admin`
        # cannot drop instruction files or MCP registrations into any folder it can name.
        from kernel.paths import find_repo_root

        find_repo_root(folder, field="dir")
    return folder


def _render_guide(out: GuideOutput) -> str:
    return out.guide.rstrip("\n")


def _render_block(out: BlockOutput) -> str:
    return out.block.rstrip("\n")


def _render_install(out: InstallOutput) -> str:
    prefix = "would be " if out.dry_run else ""
    return "\n".join(f"{f.path}: {prefix}{f.action}" for f in out.files)


def _render_mcp(out: McpInstallOutput) -> str:
    if out.action == "printed":
        return "claude is not installed here; run:\n  " + " ".join(out.command or [])
    where = out.path or " ".join(out.command or [])
    lines = [f"{out.client} ({out.scope}): {where}: {'would be ' if out.dry_run else ''}{out.action}"]
    if out.backup:
        lines.append(f"backup: {out.backup}")
    if out.dry_run and out.after is not None and out.action != "unchanged":
        lines.append(out.after.rstrip("\n"))
    return "\n".join(lines)


def _render_update(out: UpdateOutput) -> str:
    return f"{out.install_kind}: {out.message}"


TOOLS = (
    Tool(
        cli="agents guide",
        handler=guide,
        input=GuideInput,
        output=GuideOutput,
        summary="The agent-facing manual: route first, the capabilities and levels, freshness, paging, errors.",
        description=(
            "Use when you (an agent) start working with Pallium and need to know how to drive it; `workflow` "
            "gives the script-authoring guide instead. Not for one tool's arguments (its own description has "
            "them). Reads a packaged file; the whole guide, unbounded (about 18 KB)."
        ),
        authority="observe",
        toolset="adoption",
        budget=None,
        route=Route(
            phrasings=(
                "show the pallium agent guide",
                "how do I use pallium as an agent",
                "read the pallium manual",
                "how do I author workflow scripts",
                "print PALLIUM.md",
                "the guide to writing workflow scripts",
            ),
            flags={"workflow": ("workflow", "script", "scripts", "author", "authoring")},
        ),
        render=_render_guide,
    ),
    Tool(
        cli="agents block",
        handler=block,
        input=BlockInput,
        output=BlockOutput,
        summary="The short adoption block for AGENTS.md or CLAUDE.md, between its markers.",
        description=(
            "Use to see or paste by hand the block that tells agents to use Pallium. Not for writing it into "
            "files (pallium_agents_install does that, at admin). No reads or writes."
        ),
        authority="observe",
        toolset="adoption",
        route=Route(
            phrasings=(
                "print the pallium adoption block",
                "what should I paste into AGENTS.md for pallium",
                "show the agents block",
                "the snippet that tells agents to use pallium",
            ),
        ),
        render=_render_block,
    ),
    Tool(
        cli="agents install",
        handler=install,
        input=InstallInput,
        output=InstallOutput,
        summary="Add or refresh the Pallium block in AGENTS.md and CLAUDE.md (AGENTS.md is created if neither exists).",
        description=(
            "Use once per repository so every agent working in it learns to call pallium_route first. Not for "
            "reading the block (pallium_agents_block). Upserts between the pallium:agents markers, idempotent "
            "(created, appended, updated or unchanged per file); a file with an unclosed marker is refused and "
            "no file changes. Writes those files only; admin."
        ),
        authority="admin",
        toolset="adoption",
        annotations=_WRITES,
        route=Route(
            phrasings=(
                "install the pallium block into AGENTS.md",
                "add pallium instructions to CLAUDE.md",
                "set up this repo so agents use pallium",
                "update the pallium section of AGENTS.md",
                "write the adoption block into the agents files",
                "add the pallium instructions to AGENTS.md",
                "write the agents block into the instruction files",
            ),
            flags={"dry_run": ("dry", "preview")},
            levels={"admin": ("add", "write", "put", "insert", "install")},
        ),
        render=_render_install,
    ),
    Tool(
        cli="mcp install",
        handler=mcp_install,
        input=McpInstallInput,
        output=McpInstallOutput,
        summary="Register Pallium's MCP server with Claude Code (.mcp.json or user scope) or Codex (config.toml).",
        description=(
            "Use to give Claude Code or Codex Pallium's tools, with the absolute path of this pallium-mcp. Not "
            "for running the server (pallium mcp serve). Claude project scope merges .mcp.json keeping other "
            "servers; user scope runs `claude mcp add --scope user` (no shell) or prints it when claude is "
            "missing; Codex merges [mcp_servers.pallium] into $CODEX_HOME/config.toml keeping comments, after "
            "a backup. Invalid JSON/TOML is refused untouched; dry_run shows the change. Admin."
        ),
        authority="admin",
        toolset="adoption",
        annotations=_WRITES,
        positional=("client",),
        route=Route(
            phrasings=(
                "register the pallium mcp server with claude code",
                "add pallium to codex as an mcp server",
                "install pallium's mcp server for claude",
                "connect pallium to codex",
                "set up the mcp config so claude can use pallium",
            ),
            flags={"dry_run": ("dry", "preview")},
            levels={"admin": ("register", "add", "install", "connect")},
        ),
        render=_render_mcp,
    ),
    Tool(
        cli="update",
        handler=update,
        input=UpdateInput,
        output=UpdateOutput,
        summary="Upgrade Pallium the way it was installed (pipx, uv tool, pip in a virtualenv); report versions.",
        description=(
            "Use when the user asks to update Pallium. Not for updating the repository index (pallium_index) or "
            "session memory (pallium_sessions_sync). Detects the install kind from the environment and runs its "
            "upgrade without a shell (network); an editable checkout gets the pull-and-reinstall steps instead; "
            "offline it fails with `unavailable`. dry_run only says what it would run. Admin."
        ),
        authority="admin",
        toolset="adoption",
        annotations=Annotations(read_only=False, destructive=False, idempotent=True, open_world=True),
        route=Route(
            phrasings=(
                "update pallium to the latest release",
                "upgrade pallium",
                "install the newest pallium version",
                "is there a newer pallium, update it",
            ),
            flags={"dry_run": ("dry", "preview")},
            levels={"admin": ("update", "upgrade")},
        ),
        render=_render_update,
    ),
)
