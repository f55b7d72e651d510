"""Fixtures for route tests: calling route in process through the dispatcher, as the front doors do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from kernel import dispatch
from kernel.context import ToolContext
from tests.conftest import write
from tests.kernel.conftest import fake  # noqa: F401  (the fake provider fixture, shared with the kernel's tests)


async def call(tool: str, arguments: dict[str, Any], cwd: Path, ceiling: str = "admin", origin: str = "cli") -> Any:
    ctx = ToolContext(ceiling=ceiling, cwd=cwd, origin=origin)  # type: ignore[arg-type]
    try:
        return await dispatch.call(tool, arguments, ctx)
    finally:
        ctx.close()


async def route(task: str, cwd: Path, ceiling: str = "admin", **extra: Any) -> Any:
    return await call("pallium_route", {"task": task, **extra}, cwd, ceiling)


@pytest.fixture
def workflow_env(fake, monkeypatch):  # noqa: F811  (the fixture imported above)
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


@pytest.fixture
def populated(git_repo: Path, workflow_env) -> Path:
    """`git_repo` with one completed run (`done-1`) and one loop (`nightly`)."""
    done = anyio.run(
        lambda: call(
            "pallium_workflow_run", {"task": "notes", "source": "return {ok: true};", "id": "done-1"}, git_repo, "edit"
        )
    )
    assert done.status == "completed"
    write(git_repo, "work.loop.js", 'export const meta = {kind: "loop"};\nreturn {state: "success"};\n')
    anyio.run(lambda: call("pallium_loop_start", {"name": "nightly", "script": "work.loop.js"}, git_repo, "consult"))
    return git_repo
