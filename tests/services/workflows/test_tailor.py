"""Tailoring a template with a provider, and falling back to the template when that goes wrong."""

import json
from pathlib import Path

import pytest
from mcp import Client

from kernel.context import ToolContext
from pallium_mcp.cli import main
from pallium_mcp.server import build_server
from services.workflows.library import template_source
from services.workflows.library_tools import generate, start
from services.workflows.models import GenerateInput, StartInput
from tests.conftest import write

pytestmark = pytest.mark.anyio

TAILORED = (
    'export const meta = {name: "router-review", description: "Review the router", phases: ["look"]};\n'
    'phase("look");\n'
    "return await agent(`Look at the router for: ${args.task}`);\n"
)
ASKED = "^Adapt this Pallium workflow template"


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


async def _generate(repo: Path, **extra):
    ctx = ToolContext(ceiling="consult", cwd=repo)
    try:
        return await generate(GenerateInput(task="review the router", style="review", tailor=True, **extra), ctx)
    finally:
        ctx.close()


async def test_a_valid_tailored_script_replaces_the_template(git_repo: Path, fake):
    fake.scenario({"match": ASKED, "reply": {"script": TAILORED, "summary": "focused on the router"}})
    out = await _generate(git_repo)
    assert out.source == TAILORED
    assert out.tailoring.tailored is True and out.tailoring.provider == "fake"
    assert out.tailoring.reason == "tailored to the task: focused on the router"
    [call] = fake.calls()
    assert call["mode"] == "read-only" and "review the router" in call["prompt"]
    assert template_source("review") in call["prompt"]


async def test_an_invalid_script_falls_back_to_the_template_saying_why(git_repo: Path, fake):
    fake.scenario({"match": ASKED, "reply": {"script": "const t = Date.now();\nreturn t;"}})
    out = await _generate(git_repo)
    assert out.source == template_source("review") and out.tailoring.tailored is False
    assert out.tailoring.reason.startswith("kept the template: the provider's script is not valid:")
    assert "Date.now" in out.tailoring.reason


async def test_a_failing_or_silent_provider_falls_back_to_the_template(git_repo: Path, fake):
    fake.scenario({"match": ASKED, "exit": 1, "stderr": "model exploded"})
    failed = await _generate(git_repo)
    assert failed.source == template_source("review") and failed.tailoring.tailored is False
    assert failed.tailoring.reason.startswith("kept the template: the provider failed")
    fake.scenario({"match": ASKED, "hang": 30})
    silent = await _generate(git_repo, timeout_seconds=0.5)
    assert silent.source == template_source("review")
    assert silent.tailoring.reason == "kept the template: the provider gave no answer within 0.5s"
    fake.scenario({"match": ASKED, "reply": "Sure! Here is a better plan."})
    prose = await _generate(git_repo)
    assert prose.source == template_source("review")
    assert "not the JSON asked for" in prose.tailoring.reason


async def test_start_tailors_the_template_it_chooses_and_runs_the_result(git_repo: Path, fake):
    write(git_repo, "src/app.py", "def main():\n    return 3\n")
    fake.scenario(
        {"match": ASKED, "reply": {"script": TAILORED}},
        {"match": "^Look at the router", "reply": {"fine": True}},
    )
    ctx = ToolContext(ceiling="consult", cwd=git_repo)
    dry = await start(StartInput(task="review the router", tailor=True, dry_run=True), ctx)
    ran = await start(StartInput(task="review the router", tailor=True), ctx)
    ctx.close()
    assert dry.chosen == "template:review" and dry.script == TAILORED and dry.tailoring.tailored is True
    assert ran.run.status == "completed", ran.run.error
    assert ran.run.result == {"fine": True}


async def test_tailoring_over_mcp_needs_consult(git_repo: Path, fake):
    fake.scenario({"match": ASKED, "reply": {"script": TAILORED}})
    async with Client(build_server(toolsets="all", ceiling="observe", cwd=git_repo)) as client:
        refused = await client.call_tool("pallium_workflow_generate", {"task": "x", "tailor": True})
        plain = await client.call_tool("pallium_workflow_generate", {"task": "x"})
    assert json.loads(refused.content[0].text)["error"]["details"]["needed"] == "consult"
    assert plain.is_error is False and plain.structured_content["tailoring"] is None
    async with Client(build_server(toolsets="all", ceiling="consult", cwd=git_repo)) as client:
        done = await client.call_tool("pallium_workflow_generate", {"task": "x", "tailor": True})
    assert done.structured_content["source"] == TAILORED


def test_cli_generate_tailor_writes_the_tailored_script(git_repo: Path, fake, capsys, monkeypatch):
    fake.scenario({"match": ASKED, "reply": {"script": TAILORED, "summary": "router"}})
    monkeypatch.chdir(git_repo)
    assert (
        main(["workflow", "generate", "review the router", "--style", "review", "--tailor", "--authority", "observe"])
        == 1
    )
    assert "needs authority 'consult'" in capsys.readouterr().err
    code = main(
        ["workflow", "generate", "review the router", "--tailor", "--output", "flows/r.js", "--authority", "edit"]
    )
    assert code == 0
    assert "tailoring: tailored to the task: router" in capsys.readouterr().out
    assert (git_repo / "flows" / "r.js").read_text(encoding="utf-8") == TAILORED
