"""Runs that go on in their own process: over MCP by default, with --background on the CLI, and stop."""

import json
import os
from pathlib import Path

import anyio
import pytest
from mcp import Client

from kernel.context import ToolContext
from kernel.progress import Progress
from pallium_mcp.cli import main
from pallium_mcp.server import build_server
from services.workflows import runner

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


async def _wait_until_ended(run_id: str, repo: Path):
    ctx = ToolContext(cwd=repo)
    try:
        return await runner.wait_for_end(runner.open_store(ctx), run_id, seconds=60, progress=Progress())
    finally:
        ctx.close()


async def test_over_mcp_a_run_goes_on_in_a_worker_and_answers_within_wait_seconds(git_repo: Path, fake):
    fake.scenario({"match": "", "reply": {"ok": True}})
    server = build_server(toolsets="all", cwd=git_repo)
    async with Client(server) as client:
        quick = await client.call_tool(
            "pallium_workflow_run", {"task": "quick", "source": "return await agent('hello');", "id": "mcp-quick"}
        )
        slow = await client.call_tool(
            "pallium_workflow_run",
            {"task": "slow", "source": "return await agent('take your time');", "id": "mcp-slow", "wait_seconds": 0},
        )
    assert quick.structured_content["status"] == "completed"
    assert quick.structured_content["result"] == {"ok": True}
    assert slow.structured_content["status"] in ("queued", "running")
    ended = await _wait_until_ended("mcp-slow", git_repo)
    assert ended.status == "completed" and ended.result == {"ok": True}
    log = Path(os.environ["PALLIUM_HOME"]) / "workflow-runs" / "mcp-quick" / "worker.log"
    assert "workflow run mcp-quick: completed" in log.read_text(encoding="utf-8")


def test_cli_background_returns_at_once_and_status_follows_the_run(git_repo: Path, fake, capsys, monkeypatch):
    fake.scenario({"match": "", "reply": "done"})
    monkeypatch.chdir(git_repo)
    code = main(
        [
            "workflow",
            "run",
            "bg",
            "--source",
            "return await agent('x');",
            "--id",
            "bg-1",
            "--background",
            "--wait-seconds",
            "0",
            "--json",
        ]
    )
    started = json.loads(capsys.readouterr().out)
    assert code == 1 and started["status"] in ("queued", "running")  # not finished yet: exit 1
    ended = anyio.run(_wait_until_ended, "bg-1", git_repo)
    assert ended.status == "completed"
    assert main(["workflow", "status", "bg-1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == "done"


async def test_stop_kills_a_hanging_run_and_records_it_as_stopped(git_repo: Path, fake):
    fake.scenario({"match": "", "hang": 60})
    server = build_server(toolsets="all", cwd=git_repo)
    async with Client(server) as client:
        started = await client.call_tool(
            "pallium_workflow_run",
            {"task": "hangs", "source": "return await agent('wait forever');", "id": "stop-me", "wait_seconds": 0},
        )
        assert started.is_error is False
        with anyio.fail_after(30):
            while not fake.calls():  # the worker has spawned its agent
                await anyio.sleep(0.1)
        stopped = await client.call_tool("pallium_workflow_stop", {"run_id": "stop-me"})
        again = await client.call_tool("pallium_workflow_stop", {"run_id": "stop-me"})
    assert stopped.structured_content["status"] == "stopped"
    assert json.loads(again.content[0].text)["error"]["code"] == "conflict"
    agent_pid = fake.calls()[0]["pid"]
    with anyio.fail_after(10):  # the agent's whole process group was killed, not left spending
        while _alive(agent_pid):
            await anyio.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
