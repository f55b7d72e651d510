"""A run seen from an MCP client: progress while the call is open, and a background run polled to its end."""

from pathlib import Path

import anyio
import pytest
from mcp import Client

from pallium_mcp.server import build_server

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


async def test_progress_notifications_flow_while_the_run_call_is_open(git_repo: Path, fake):
    # each agent takes a second, so the call stays open across several progress polls
    fake.scenario({"match": "", "delay": 1, "reply": "ok"})
    source = 'const out = []; for (const n of ["one", "two", "three"]) out.push(await agent(n)); return out;'
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    server = build_server(toolsets="all", cwd=git_repo)
    async with Client(server) as client:
        result = await client.call_tool(
            "pallium_workflow_run",
            {"task": "t", "source": source, "id": "progress-1", "wait_seconds": 120},
            progress_callback=on_progress,
        )
    assert result.structured_content["status"] == "completed"
    values = [p for p, _, _ in seen]
    assert len(values) >= 2 and values[0] == 0 and values == sorted(set(values))  # increasing
    assert all(message.endswith("agent(s) finished") for _, _, message in seen)


async def test_a_background_run_over_mcp_is_polled_to_completion_with_status_and_report(git_repo: Path, fake):
    fake.scenario({"match": "review", "delay": 1, "reply": "looks fine"})
    source = (
        'const r = await parallel(["a", "b"], (f) => agent("review " + f, {label: f}));'
        'return {summary: "reviewed two", findings: r};'
    )
    server = build_server(toolsets="all", cwd=git_repo)
    async with Client(server) as client:
        started = await client.call_tool(
            "pallium_workflow_run", {"task": "poll me", "source": source, "id": "polled", "wait_seconds": 0}
        )
        assert started.structured_content["status"] in ("queued", "running")
        with anyio.fail_after(60):
            while True:
                polled = await client.call_tool("pallium_workflow_status", {"run_id": "polled"})
                assert polled.is_error is False
                if polled.structured_content["status"] not in ("queued", "running"):
                    break
                await anyio.sleep(0.2)
        report = await client.call_tool("pallium_workflow_report", {"run_id": "polled"})
    assert polled.structured_content["status"] == "completed"
    assert polled.structured_content["verdict"] == "VERDICT: FINISHED (completed) — 2/2 agents complete"
    content = report.structured_content
    assert content["summary"] == "reviewed two" and content["findings"] == ["looks fine", "looks fine"]
    assert sorted(a["label"] for a in content["agents"]) == ["a", "b"]
