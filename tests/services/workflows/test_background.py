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
    """Running, as opposed to gone or a zombie waiting for its parent (this test process) to reap it."""
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def test_a_run_killed_mid_flight_resumes_without_repeating_finished_agents(git_repo: Path, fake):
    import signal

    from kernel.runstore import RunStore
    from services.workflows.models import ResumeInput
    from services.workflows.tools import resume

    fake.scenario({"match": "one", "reply": "first"}, {"match": "two", "hang": 60})
    server = build_server(toolsets="all", cwd=git_repo)
    source = 'const a = await agent("one"); const b = await agent("two"); return [a, b];'
    async with Client(server) as client:
        await client.call_tool(
            "pallium_workflow_run", {"task": "t", "source": source, "id": "killed", "wait_seconds": 0}
        )
    with anyio.fail_after(30):
        while [c["prompt"] for c in fake.calls()] != ["one", "two"]:
            await anyio.sleep(0.1)
    ctx = ToolContext(cwd=git_repo)
    owner = RunStore(runner.open_store(ctx).db).run("killed").owner_pid
    os.kill(owner, signal.SIGKILL)  # the orchestrator dies without any chance to clean up
    with anyio.fail_after(30):
        while _alive(owner):
            await anyio.sleep(0.05)
    fake.scenario({"match": "one", "reply": "first"}, {"match": "two", "reply": "second"})
    resumed = await resume(ResumeInput(run_id="killed"), ctx)
    ctx.close()
    assert resumed.status == "completed" and resumed.result == ["first", "second"]
    assert resumed.replayed_calls == 1 and resumed.live_calls == 1
    assert [c["prompt"] for c in fake.calls()] == ["one", "two", "two"]
    hung_agent = fake.calls()[1]["pid"]
    assert not _alive(hung_agent)  # the dead orchestrator's worker was killed by the reconcile


async def test_pause_then_resume_finishes_the_run_without_repeating_done_work(git_repo: Path, fake):
    from services.workflows.models import ResumeInput
    from services.workflows.tools import resume

    fake.scenario({"match": "one", "reply": "first"}, {"match": "two", "hang": 60})
    server = build_server(toolsets="all", cwd=git_repo)
    source = 'const a = await agent("one"); const b = await agent("two"); return [a, b];'
    async with Client(server) as client:
        await client.call_tool(
            "pallium_workflow_run", {"task": "t", "source": source, "id": "paused-run", "wait_seconds": 0}
        )
        with anyio.fail_after(30):
            while len(fake.calls()) < 2:
                await anyio.sleep(0.1)
        paused = await client.call_tool("pallium_workflow_pause", {"run_id": "paused-run"})
    assert paused.structured_content["status"] == "paused"
    fake.scenario({"match": "one", "reply": "first"}, {"match": "two", "reply": "second"})
    ctx = ToolContext(cwd=git_repo)
    resumed = await resume(ResumeInput(run_id="paused-run"), ctx)
    ctx.close()
    assert resumed.result == ["first", "second"] and resumed.replayed_calls == 1
