"""Fixtures for team tests: the fake provider as `claude` and `codex`, a repository, and tool calls by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernel import dispatch
from kernel.context import ToolContext
from tests.kernel.conftest import fake  # noqa: F401  (the fake provider fixture, shared with the kernel's tests)


class Caller:
    """Calls team tools through the dispatcher, the door MCP and the CLI use, from inside the repository."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo

    async def __call__(self, tool: str, ceiling: str = "edit", **arguments: Any) -> Any:
        ctx = ToolContext(cwd=self.repo, ceiling=ceiling)  # type: ignore[arg-type]
        try:
            return await dispatch.call(f"pallium_team_{tool}", arguments, ctx)
        finally:
            ctx.close()


@pytest.fixture
def team_env(fake, git_repo: Path, monkeypatch: pytest.MonkeyPatch):  # noqa: F811  (the fixture imported above)
    """The fake provider answering as claude and codex, with a session registry so lost sessions fail as the CLIs do."""
    monkeypatch.setenv("PALLIUM_FAKE_SESSIONS", str(fake.root / "sessions.txt"))
    (fake.root / "sessions.txt").write_text("", encoding="utf-8")
    return fake


@pytest.fixture
def call(git_repo: Path) -> Caller:
    return Caller(git_repo)


def decision(status: str = "idle", **fields: Any) -> dict[str, Any]:
    return {"status": status, "status_reason": fields.pop("status_reason", ""), **fields}


def turn_of(member: str, *needles: str) -> str:
    """A fake-provider `match` regex: a turn prompt of `member` that contains every needle, in order."""
    import re

    return "You are " + re.escape(member) + ",[\\s\\S]*" + "[\\s\\S]*".join(re.escape(n) for n in needles)
