"""Fixtures for the session-memory tests: private copies of the transcript homes, and a tool caller."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kernel import dispatch
from kernel.clock import FixedClock
from kernel.context import ToolContext
from tests.services.sessions.transcripts import EXPECTED, write_homes

__all__ = ["EXPECTED", "NOW", "Caller"]
NOW = datetime(2026, 11, 21, 15, 30, tzinfo=UTC)


@pytest.fixture
def homes(tmp_path: Path) -> dict[str, Path]:
    """The story's two transcript homes, written fresh for each test (tests append to and delete transcripts)."""
    return write_homes(tmp_path / "transcripts")


class Caller:
    """Calls tools through the dispatcher (the path MCP and the CLI share) with a fixed clock."""

    def __init__(self, homes: dict[str, Path], cwd: Path) -> None:
        self.homes = homes
        self.clock = FixedClock(NOW)
        self.cwd = cwd

    async def __call__(self, name: str, ceiling: str = "admin", **arguments: Any) -> Any:
        ctx = ToolContext(ceiling=ceiling, cwd=self.cwd, clock=self.clock)
        try:
            return await dispatch.call(f"pallium_sessions_{name}", arguments, ctx)
        finally:
            ctx.close()

    async def sync(self, **arguments: Any) -> Any:
        arguments.setdefault("claude_home", str(self.homes["claude"]))
        arguments.setdefault("codex_home", str(self.homes["codex"]))
        return await self("sync", **arguments)


@pytest.fixture
def call(homes: dict[str, Path], tmp_path: Path) -> Caller:
    return Caller(homes, tmp_path)
