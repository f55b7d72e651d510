"""The `knowledge maintain` tools: status (observe), and enable, disable, pause, resume, retry, run, install (admin)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

from kernel import writes
from kernel.context import ToolContext
from kernel.tool import Annotations, Route, Tool
from services.knowledge import maintain
from services.knowledge.models import (
    MaintainInput,
    MaintainInstallInput,
    MaintainInstallOutput,
    MaintainRunInput,
    MaintainRunOutput,
    MaintainStatus,
)
from services.knowledge.store import LedgerStore

__all__ = ["TOOLS"]

UNIT_NAME = "pallium-knowledge.service"
AGENT_LABEL = "app.pallium.knowledge"
_ADMIN = Annotations(read_only=False, destructive=False, idempotent=True, open_world=False)


async def status_tool(inp: MaintainInput, ctx: ToolContext) -> MaintainStatus:
    return await asyncio.to_thread(maintain.status, ctx, ctx.repo_root(inp.repo))


async def enable(inp: MaintainInput, ctx: ToolContext) -> MaintainStatus:
    return maintain.set_state(ctx, ctx.repo_root(inp.repo), enabled=True)


async def disable(inp: MaintainInput, ctx: ToolContext) -> MaintainStatus:
    return maintain.set_state(ctx, ctx.repo_root(inp.repo), enabled=False)


async def pause(inp: MaintainInput, ctx: ToolContext) -> MaintainStatus:
    return maintain.set_state(ctx, ctx.repo_root(inp.repo), paused=True, reason="paused by hand")


async def resume(inp: MaintainInput, ctx: ToolContext) -> MaintainStatus:
    return maintain.set_state(ctx, ctx.repo_root(inp.repo), paused=False)


async def retry(inp: MaintainRunInput, ctx: ToolContext) -> MaintainRunOutput:
    """Clear a pause and run one generation now, without waiting for the quiet period."""
    from services.knowledge.store import KnowledgeStore

    root = ctx.repo_root(inp.repo)
    maintain.set_state(ctx, root, paused=False)
    store = ctx.store(KnowledgeStore, root)
    store.set_state({"maintain.changed_at": "0", "maintain.generated_for": ""})
    step = await maintain.step(ctx, root, max_modules=inp.max_modules, provider=inp.provider)
    return MaintainRunOutput(steps=[step])


async def run(inp: MaintainRunInput, ctx: ToolContext) -> MaintainRunOutput:
    """The foreground supervisor a scheduler keeps alive; `once` takes one step over the repositories.

    Over MCP it is always one step: a call must return, and a supervisor is the scheduler's, not an agent's.
    """
    once = inp.once or ctx.origin == "mcp"
    while True:
        if inp.repo is not None:
            roots = [ctx.repo_root(inp.repo)]
        else:
            rows = ctx.store(LedgerStore).upkeeps()
            roots = [Path(r.repo) for r in rows if r.enabled and Path(r.repo).is_dir()]
        steps = [await maintain.step(ctx, root, max_modules=inp.max_modules, provider=inp.provider) for root in roots]
        if once:
            return MaintainRunOutput(steps=steps)
        await asyncio.sleep(inp.poll_seconds)


async def install(inp: MaintainInstallInput, ctx: ToolContext) -> MaintainInstallOutput:
    kind = inp.platform
    if kind == "auto":
        kind = "macos" if sys.platform == "darwin" else "linux"
    home = Path(os.environ.get("HOME") or Path.home())
    pallium = shutil.which("pallium") or str(Path(sys.executable).with_name("pallium"))
    command = [pallium, "knowledge", "maintain", "run", "--authority", "admin"]
    env_home = os.environ.get("PALLIUM_HOME")
    if kind == "linux":
        path = home / ".config" / "systemd" / "user" / UNIT_NAME
        env_line = f"Environment=PALLIUM_HOME={env_home}\n" if env_home else ""
        text = (
            "[Unit]\nDescription=Pallium knowledge upkeep (refresh structure, queue generation under the budget)\n\n"
            f"[Service]\nExecStart={' '.join(command)}\n{env_line}Restart=on-failure\nRestartSec=30\n\n"
            "[Install]\nWantedBy=default.target\n"
        )
        activate = ["systemctl", "--user", "enable", "--now", UNIT_NAME]
    else:
        path = home / "Library" / "LaunchAgents" / f"{AGENT_LABEL}.plist"
        args = "".join(f"    <string>{part}</string>\n" for part in command)
        env = (
            f"  <key>EnvironmentVariables</key>\n  <dict><key>PALLIUM_HOME</key><string>{env_home}</string></dict>\n"
            if env_home
            else ""
        )
        text = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
            '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n<dict>\n'
            f"  <key>Label</key><string>{AGENT_LABEL}</string>\n  <key>ProgramArguments</key>\n  <array>\n{args}"
            f"  </array>\n{env}  <key>RunAtLoad</key><true/>\n  <key>KeepAlive</key><true/>\n</dict>\n</plist>\n"
        )
        activate = ["launchctl", "load", "-w", str(path)]
    # The user's own home is the anchor; a link below it (a planted unit folder) is refused.
    if not home.exists():
        writes.ensure_dir(home, root=home.parent, mode=0o755)
    writes.write_text(path, text, mode=0o644, root=home, atomic=True)
    activated, note = False, None
    if inp.activate:
        if shutil.which(activate[0]) is None:
            note = f"{activate[0]} is not installed here; the file is written, load it on the machine that runs it"
        else:
            activated, note = _activate(activate)
    elif kind == "linux":
        note = f"start it with `systemctl --user enable --now {UNIT_NAME}` {_OR_ACTIVATE}"
    else:
        note = f"load it with `launchctl load -w {path}` {_OR_ACTIVATE}"
    return MaintainInstallOutput(platform=kind, path=str(path), command=command, activated=activated, note=note)


# The same words for both channels: the CLI's flag and the MCP argument.
_OR_ACTIVATE = "(or run this again with `--activate`; MCP: `activate: true`)"


def _activate(argv: list[str]) -> tuple[bool, str | None]:
    """Run the scheduler's own command (`systemctl --user ...` or `launchctl load ...`), only when asked."""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    if done.returncode == 0:
        return True, None
    return False, f"{' '.join(argv)} failed: {done.stderr.strip()[:300]}"


def _status_text(out: MaintainStatus) -> str:
    state = "paused" if out.paused else ("enabled" if out.enabled else "disabled")
    lines = [f"knowledge upkeep for {out.repo}: {state}" + (f" ({out.pause_reason})" if out.pause_reason else "")]
    lines.append(
        f"model attempts in 24 h (all repositories): {out.attempts_24h}/{out.attempt_limit}, {out.failed_24h} failed, "
        f"{out.active_attempts} running" + (f"; next free at {out.next_free_at}" if out.next_free_at else "")
    )
    lines.append(f"structure refreshed: {out.structure_at or 'never'}; generation: {out.generation_at or 'never'}")
    lines.append(f"stale claims waiting: {out.stale_claims}")
    return "\n".join(lines)


def _run_text(out: MaintainRunOutput) -> str:
    if not out.steps:
        return "no repository has knowledge upkeep enabled (`pallium knowledge maintain enable`)"
    return "\n".join(
        f"{s.repo}: {', '.join(s.actions) or 'nothing to do'}"
        + (f"; waiting for {s.waiting}" if s.waiting else "")
        + "".join(f"\n  {n}" for n in s.notes)
        for s in out.steps
    )


def _admin(
    cli: str,
    handler,
    summary: str,
    when: str,
    input_model=MaintainInput,
    output=MaintainStatus,
    render=_status_text,
    *,
    phrasings: tuple[str, ...],
) -> Tool:
    return Tool(
        cli=cli,
        handler=handler,
        input=input_model,
        output=output,
        summary=summary,
        description=when,
        authority="admin",
        toolset="knowledge-upkeep",
        annotations=_ADMIN,
        render=render,
        route=Route(phrasings=phrasings, needs=("git",)),
    )


_COST = "Changes upkeep settings in $PALLIUM_HOME only; no model calls."
TOOLS = (
    Tool(
        cli="knowledge maintain status",
        handler=status_tool,
        input=MaintainInput,
        output=MaintainStatus,
        summary="Knowledge upkeep for this repository: enabled, paused, the ledger's use, stale claims waiting.",
        description=(
            "Use to see whether background upkeep runs here and how much of the daily model budget (40 attempts "
            "per rolling 24 hours, all repositories) is left. Not for the documents themselves (use "
            "pallium_knowledge_get). Reads $PALLIUM_HOME and the local base; one `git status`; no model calls."
        ),
        authority="observe",
        toolset="knowledge-upkeep",
        route=Route(
            phrasings=(
                "is knowledge upkeep running here",
                "how much of the knowledge model budget is left",
                "status of the knowledge base maintenance",
            ),
        ),
        annotations=Annotations(read_only=True, destructive=False, idempotent=True, open_world=False),
        render=_status_text,
    ),
    _admin(
        "knowledge maintain enable",
        enable,
        "Register this repository for background knowledge upkeep.",
        "Use once per repository whose knowledge base should stay fresh, with model work under the global "
        "ledger. Not needed for `--no-model` builds. " + _COST,
        phrasings=(
            "keep the knowledge base fresh in the background",
            "enable knowledge upkeep for this repository",
            "turn on knowledge base maintenance",
            "register the repository for background upkeep of its knowledge",
        ),
    ),
    _admin(
        "knowledge maintain disable",
        disable,
        "Stop background knowledge upkeep for this repository.",
        "Use to stop upkeep here; the base stays readable. Not for a temporary stop (use maintain pause). " + _COST,
        phrasings=(
            "stop knowledge upkeep for this repository",
            "disable knowledge base maintenance",
            "turn off background knowledge upkeep",
        ),
    ),
    _admin(
        "knowledge maintain pause",
        pause,
        "Pause model work for this repository until resumed.",
        "Use to stop spending on this repository for a while; structure refresh continues. Not for stopping "
        "upkeep altogether (maintain disable). " + _COST,
        phrasings=(
            "pause knowledge upkeep model spending",
            "pause the knowledge base maintenance for a while",
            "stop spending on knowledge docs for now",
        ),
    ),
    _admin(
        "knowledge maintain resume",
        resume,
        "Resume model work after a pause (by hand, or after auth/quota).",
        "Use after fixing the cause of an authentication or quota pause, or ending a manual one. Not for "
        "running a step now (maintain retry). " + _COST,
        phrasings=(
            "resume knowledge upkeep after the pause",
            "resume knowledge base maintenance",
            "the quota is fixed, resume knowledge upkeep",
        ),
    ),
    _admin(
        "knowledge maintain retry",
        retry,
        "Clear a pause and run one generation step now, skipping the quiet wait.",
        "Use after a failure was fixed to refresh the base right away. Not for the long-running supervisor "
        "(maintain run). Makes model calls within the ledger (at most `max_modules` modules plus 10 audits).",
        input_model=MaintainRunInput,
        output=MaintainRunOutput,
        render=_run_text,
        phrasings=(
            "retry the knowledge upkeep now",
            "refresh the knowledge base right away after the failure",
            "run one knowledge generation step now",
        ),
    ),
    _admin(
        "knowledge maintain run",
        run,
        "The foreground supervisor: refresh after 10 s quiet, generate after 60 s.",
        "Use under a scheduler (see maintain install), or with `once` for one step. Not for a one-off build "
        "(pallium_knowledge_build). Watches enabled repositories with one `git status` per step; model calls "
        "only within the global ledger, stale claims first.",
        input_model=MaintainRunInput,
        output=MaintainRunOutput,
        render=_run_text,
        phrasings=(
            "run the knowledge upkeep supervisor",
            "keep refreshing the knowledge base in the foreground",
            "start the knowledge maintenance loop",
        ),
    ),
    _admin(
        "knowledge maintain install",
        install,
        "Write a systemd user unit (Linux) or launch agent (macOS) for run.",
        "Use once per machine so upkeep persists after the editor exits. Not needed where another supervisor "
        "runs `pallium knowledge maintain run`. Writes one file under the user's home; calls systemctl or "
        "launchctl only with `activate`.",
        input_model=MaintainInstallInput,
        output=MaintainInstallOutput,
        render=lambda out: f"wrote {out.path}" + (f"\n{out.note}" if out.note else ""),
        phrasings=(
            "install a systemd unit for knowledge upkeep",
            "install the launch agent for knowledge maintenance",
            "make knowledge upkeep persist after reboot",
        ),
    ),
)
