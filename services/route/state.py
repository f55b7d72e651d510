"""What route learns about the repository and Pallium's stores, asked through other tools' front doors.

Each probe is one tool call through the dispatcher (never another service's modules), made only
when a candidate needs it, and a probe that fails is recorded as unknown rather than failing route.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from kernel.errors import PalliumError

if TYPE_CHECKING:
    from kernel.context import ToolContext

__all__ = ["State"]

_AWAITING = {"awaiting_approval"}
_INTERRUPTED = {"interrupted", "failed"}
_ACTIVE = {"queued", "running", "paused"}
_FINISHED = {"completed"}


@dataclass
class State:
    """Lazily gathered facts; `None` means not asked yet, and `unknown` names the probes that failed."""

    ctx: ToolContext
    repo: str | None
    git: bool | None = None
    dirty: bool | None = None
    index_status: str | None = None  # missing | indexed | stale
    runs: list[dict[str, Any]] | None = None
    loops: list[str] | None = None
    sessions_indexed: int | None = None
    sessions_running: int | None = None
    root: Path | Literal[False] | None = None  # the repository's root once looked up; False: there is none
    unknown: list[str] = field(default_factory=list)

    async def probe_repo(self) -> None:
        if self.git is not None:
            return
        try:
            out = await self.ctx.call("pallium_changed_now", {"repo": self.repo, "limit": 1})
        except PalliumError as exc:
            self.git, self.dirty, self.index_status = False, False, None
            if exc.code not in ("not_found", "unavailable", "invalid_input"):
                self.unknown.append("repository")
            return
        self.git = True
        self.dirty = out.counts.total > 0
        self.index_status = out.index_status

    async def index_state(self, root: Path | None) -> str | None:
        """The index's state (missing, indexed, stale). A repository with no Pallium database yet has no
        index, which a file's absence says without asking the repository tool (no process is started)."""
        if self.index_status is None and self.git is None:
            from kernel import paths

            if root is not None and not paths.repo_db_path(root).exists():
                self.index_status = "missing"
                return self.index_status
            await self.probe_repo()
        return self.index_status

    async def workflow_runs(self) -> list[dict[str, Any]]:
        if self.runs is None:
            try:
                out = await self.ctx.call("pallium_workflow_list", {"limit": 50})
                self.runs = [{"id": r.id, "status": r.status, "task": r.task} for r in out.runs]
            except PalliumError:
                self.runs = []
                self.unknown.append("workflow runs")
        return self.runs

    async def loop_names(self) -> list[str]:
        if self.loops is None:
            try:
                out = await self.ctx.call("pallium_loop_list", {"limit": 200})
                self.loops = [loop.name for loop in out.loops]
            except PalliumError:
                self.loops = []
                self.unknown.append("loops")
        return self.loops

    async def session_count(self) -> int:
        if self.sessions_indexed is None:
            try:
                out = await self.ctx.call("pallium_sessions_find", {"limit": 1})
                self.sessions_indexed = out.freshness.sessions
            except PalliumError:
                self.sessions_indexed = 0
                self.unknown.append("session memory")
        return self.sessions_indexed

    async def running_sessions(self) -> int:
        if self.sessions_running is None:
            try:
                out = await self.ctx.call("pallium_sessions_live", {"running_only": True})
                self.sessions_running = sum(1 for s in out.sessions if s.lifecycle != "finished")
            except PalliumError:
                self.sessions_running = 0
                self.unknown.append("live sessions")
        return self.sessions_running

    async def signal(self, name: str) -> bool:
        """Whether state signal `name` (one of kernel.tool.SIGNALS) holds now."""
        if name in ("dirty", "index_missing", "index_stale"):
            await self.probe_repo()
            if name == "dirty":
                return bool(self.dirty)
            return self.index_status == name.removeprefix("index_")
        if name.startswith("runs_"):
            wanted = {
                "runs_awaiting_approval": _AWAITING,
                "runs_interrupted": _INTERRUPTED,
                "runs_active": _ACTIVE,
                "runs_finished": _FINISHED,
            }[name]
            return any(r["status"] in wanted for r in await self.workflow_runs())
        if name == "loops":
            return bool(await self.loop_names())
        if name == "sessions_running":
            return await self.running_sessions() > 0
        return False

    def observed(self) -> dict[str, Any]:
        """What was learnt, for the answer: only the probes that ran."""
        out: dict[str, Any] = {}
        if self.git is not None:
            out["git"] = self.git
            if self.git:
                out["dirty"] = self.dirty
                out["index"] = self.index_status
        elif self.index_status is not None:
            out["index"] = self.index_status
        if self.runs is not None:
            statuses: dict[str, int] = {}
            for run in self.runs:
                statuses[run["status"]] = statuses.get(run["status"], 0) + 1
            out["runs"] = statuses
        if self.loops is not None:
            out["loops"] = len(self.loops)
        if self.sessions_indexed is not None:
            out["sessions_indexed"] = self.sessions_indexed
        if self.sessions_running is not None:
            out["sessions_running"] = self.sessions_running
        if self.unknown:
            out["unknown"] = list(self.unknown)
        return out
