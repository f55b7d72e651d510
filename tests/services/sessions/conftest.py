"""Fixtures for the session-memory tests: private copies of the transcript homes, and a tool caller."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kernel import dispatch
from kernel.clock import FixedClock
from kernel.context import ToolContext
from tests.conftest import FIXTURES

TRANSCRIPTS = FIXTURES / "transcripts"
EXPECTED = json.loads((TRANSCRIPTS / "expected.json").read_text(encoding="utf-8"))
NOW = datetime(2026, 11, 21, 15, 30, tzinfo=UTC)


@pytest.fixture
def homes(tmp_path: Path) -> dict[str, Path]:
    """Writable copies of the fixture homes (tests append to and delete transcripts)."""
    copies = {}
    for source in ("claude", "codex"):
        copies[source] = tmp_path / f"{source}-home"
        shutil.copytree(TRANSCRIPTS / source, copies[source])
        for path in copies[source].rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
    return copies


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
