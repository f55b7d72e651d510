"""Fixtures for loop tests: the fake provider as the workflow provider, and a repository holding a loop script."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kernel.context import ToolContext
from services.loops.models import StartInput, TickInput
from services.loops.tools import start, tick
from tests.conftest import write
from tests.kernel.conftest import fake  # noqa: F401  (the fake provider fixture, shared with the kernel's tests)

# One agent call per cycle; the scenario's reply is what the cycle returns.
SCRIPT = """export const meta = {kind: "loop", loop: %s};
const opts = (args && args.provider) ? {provider: args.provider} : {};
return await agent("cycle", opts);
"""


@pytest.fixture
def loop_env(fake, monkeypatch):  # noqa: F811  (the fixture imported above)
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


def replies(provider, *results: Any, cost: float | None = None) -> None:
    """Answer the next cycles' agent calls with `results`, in order, each costing `cost` when given."""
    rules = []
    for result in results:
        rule: dict[str, Any] = {"match": "cycle", "times": 1, "reply": result}
        if cost is not None:
            rule["usage"] = {"cost_usd": cost}
        rules.append(rule)
    provider.scenario(*rules)


def loop_script(repo: Path, settings: dict[str, Any] | None = None, name: str = "loops/work.loop.js") -> Path:
    return write(repo, name, SCRIPT % json.dumps(settings or {}))


async def start_loop(repo: Path, name: str = "work", settings: dict[str, Any] | None = None, **extra: Any):
    path = loop_script(repo, settings)
    ctx = ToolContext(cwd=repo)
    try:
        return await start(StartInput(name=name, script=str(path), **extra), ctx)
    finally:
        ctx.close()


async def tick_loop(repo: Path, name: str = "work", clock: Any = None):
    ctx = ToolContext(cwd=repo, clock=clock) if clock is not None else ToolContext(cwd=repo)
    try:
        return await tick(TickInput(name=name), ctx)
    finally:
        ctx.close()
