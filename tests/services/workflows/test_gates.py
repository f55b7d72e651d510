"""Human gates: the run waits for a person, who answers from the CLI or an MCP client with admin."""

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client

from kernel.context import ToolContext
from pallium_mcp.cli import main
from pallium_mcp.server import build_server
from services.workflows.models import RunInput
from services.workflows.tools import run

pytestmark = pytest.mark.anyio

SHIP = """
const draft = await agent("draft the release notes");
const verdict = await gate("ship", "Publish these notes?", {human: true, fail_on_deny: false});
if (!verdict.approved) return {published: false, why: verdict.reason};
return {published: true, notes: await agent("publish " + draft)};
"""


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    fake.scenario({"match": "^draft", "reply": "v1 notes"}, {"match": "^publish", "reply": "published"})
    return fake


async def _waiting_run(repo: Path, run_id: str):
    ctx = ToolContext(cwd=repo)
    try:
        return await run(RunInput(task="release", source=SHIP, id=run_id), ctx)
    finally:
        ctx.close()


def test_a_human_gate_pauses_the_run_until_a_person_approves(git_repo: Path, fake, capsys, monkeypatch):
    waiting = anyio.run(_waiting_run, git_repo, "ship-1")
    assert waiting.status == "awaiting_approval"
    assert [(g.name, g.state) for g in waiting.gates] == [("ship", "pending")]
    monkeypatch.chdir(git_repo)
    assert main(["workflow", "gate", "approve", "ship-1", "ship"]) == 1  # edit is not enough
    assert "needs authority 'admin'" in capsys.readouterr().err
    assert (
        main(
            ["workflow", "gate", "approve", "ship-1", "ship", "--reason", "read them", "--authority", "admin", "--json"]
        )
        == 0
    )
    done = json.loads(capsys.readouterr().out)
    assert done["status"] == "completed"
    assert done["result"] == {"published": True, "notes": "published"}
    assert done["gates"] == [
        {"name": "ship", "state": "decided", "approved": True, "reason": "read them", "decided_by": "person"}
    ]
    assert [c["prompt"] for c in fake.calls()] == ["draft the release notes", "publish v1 notes"]


async def test_a_rejection_reaches_the_script_and_a_second_decision_is_refused(git_repo: Path):
    await _waiting_run(git_repo, "ship-2")
    server = build_server(toolsets="all", ceiling="admin", cwd=git_repo)
    async with Client(server) as client:
        listed = await client.call_tool("pallium_workflow_gate_list", {"run_id": "ship-2"})
        rejected = await client.call_tool(
            "pallium_workflow_gate_reject", {"run_id": "ship-2", "name": "ship", "reason": "typo in the title"}
        )
        again = await client.call_tool("pallium_workflow_gate_approve", {"run_id": "ship-2", "name": "ship"})
    assert listed.structured_content["gates"][0]["state"] == "pending"
    assert rejected.structured_content["status"] == "completed"
    assert rejected.structured_content["result"] == {"published": False, "why": "typo in the title"}
    assert json.loads(again.content[0].text)["error"]["code"] == "not_found"
