"""The script API from a workflow, end to end: schema retries and bad schemas, authority, the
pallium.* helpers on a real repository, and `pallium start` with a saved workflow or a failing test."""

import json
import sys
from pathlib import Path

import anyio
import pytest

from kernel.context import ToolContext
from pallium_mcp.cli import main
from services.workflows.library_tools import start
from services.workflows.models import RunInput, StartInput
from services.workflows.tools import run
from tests.conftest import git, trusted, write

pytestmark = pytest.mark.anyio

COUNT_SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


async def _run(repo: Path, source: str, ceiling: str = "edit", **extra):
    ctx = ToolContext(ceiling=ceiling, cwd=repo)
    try:
        return await run(RunInput(task="t", source=source, **extra), ctx)
    finally:
        ctx.close()


async def test_a_read_only_agent_whose_json_fails_the_schema_is_asked_once_more(git_repo, fake):
    fake.scenario(
        {"match": "^count the files", "reply": {"count": "many"}, "times": 1},
        {"match": "^count the files", "reply": {"n": 3}},
    )
    source = f"return await agent('count the files', {{schema: {json.dumps(COUNT_SCHEMA)}}});"
    out = await _run(git_repo, source, id="retry-1")
    assert out.status == "completed", out.error
    assert out.result == {"n": 3}
    prompts = [c["prompt"] for c in fake.calls()]
    assert len(prompts) == 2 and "CORRECTION REQUIRED" in prompts[1]


async def test_a_read_only_agent_failing_the_schema_twice_fails_after_two_calls(git_repo, fake):
    fake.scenario({"match": "^count", "reply": "not json at all"})
    source = f"return await agent('count the files', {{schema: {json.dumps(COUNT_SCHEMA)}}});"
    out = await _run(git_repo, source, id="retry-2")
    assert out.status == "failed" and "schema" in out.error
    assert len(fake.calls()) == 2


async def test_a_schema_that_is_not_json_schema_fails_clearly_and_spawns_nothing(git_repo, fake):
    source = "return await agent('count', {schema: {type: 'objekt', required: 'n'}});"
    out = await _run(git_repo, source, id="bad-schema")
    assert out.status == "failed" and "schema" in out.error.lower()
    assert fake.calls() == []


async def test_cli_args_that_are_not_json_exit_2_naming_the_field(git_repo, capsys, monkeypatch, fake):
    monkeypatch.chdir(git_repo)
    argv = ["workflow", "run", "t", "--source", "return args;", "--args", "{not json", "--json"]
    assert await anyio.to_thread.run_sync(main, argv) == 2
    error = json.loads(capsys.readouterr().err)["error"]
    assert (error["code"], error["details"]["field"]) == ("invalid_input", "args")
    assert fake.calls() == []


async def test_check_is_refused_below_edit_authority(git_repo, fake):
    command = f"{sys.executable} -c pass"
    source = f"return await check({json.dumps(command)});"
    out = await _run(git_repo, source, ceiling="consult", id="check-consult", allow_command=[command])
    assert out.status == "failed" and "authority" in out.error and "edit" in out.error
    allowed = await _run(git_repo, source, id="check-edit", allow_command=[command])
    assert allowed.status == "completed" and allowed.result["ok"] is True


HELPERS = """
const explained = await pallium.explain("src/app.py");
const risk = await pallium.risk("src/app.py");
const neighbors = await pallium.neighbors("src/app.py");
const handoff = await pallium.handoff("HEAD~1");
await pallium.decisions.record("Return ints from main", "callers add to it", "api");
const decisions = await pallium.decisions.search("main");
return {
  explained: explained.path, risk: typeof risk.score, neighbors: neighbors.cochange.map((n) => n.path).sort(),
  handoff: handoff.files.map((f) => f.path), decisions: decisions.map((d) => [d.source, d.title]),
};
"""


async def test_the_repository_helpers_answer_from_a_script_on_a_real_repository(git_repo):
    write(git_repo, "src/app.py", "def main():\n    return 2\n")
    write(git_repo, "tests/test_app.py", "from src.app import main\n\ndef test_main():\n    assert main() == 2\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "Make main return 2")
    out = await _run(git_repo, HELPERS, ceiling="observe", id="helpers")
    assert out.status == "completed", out.error
    assert out.result == {
        "explained": "src/app.py",
        "risk": "number",
        "neighbors": ["README.md", "tests/test_app.py"],
        "handoff": ["src/app.py", "tests/test_app.py"],
        "decisions": [["workflow", "Return ints from main"], ["git", "Make main return 2"]],
    }


async def test_start_with_a_saved_workflow_runs_that_workflow(git_repo, fake):
    fake.scenario({"match": "^Summarise", "reply": {"summary": "fine"}})
    write(
        git_repo,
        ".pallium/workflows/summary.js",
        'export const meta = {name: "summary"};\n'
        "return await agent(`Summarise ${args.files.join(', ')} for: ${args.task}`, {label: 'sum'});\n",
    )
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "Save the summary workflow")
    trusted(git_repo)
    write(git_repo, "src/app.py", "def main():\n    return 5\n")
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    out = await start(StartInput(task="tell me about my change", workflow="summary"), ctx)
    ctx.close()
    assert (out.chosen, out.reason) == ("repo:summary", "named with --workflow")
    assert out.run.status == "completed", out.run.error
    assert out.run.result == {"summary": "fine"}
    assert [c["prompt"] for c in fake.calls()] == ["Summarise src/app.py for: tell me about my change"]


async def test_start_with_a_test_command_fixes_a_really_failing_test(git_repo, fake):
    write(git_repo, "calc.py", "def add(a, b):\n    return a - b\n")
    write(git_repo, "test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "calc with a bug")
    fake.scenario({"match": "fails", "write": {"calc.py": "def add(a, b):\n    return a + b\n"}, "reply": "fixed"})
    command = f"{sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    out = await start(StartInput(task="fix the failing test in calc", test_command=command), ctx)
    ctx.close()
    assert out.chosen == "template:test-fix"
    assert out.run.status == "completed", out.run.error
    assert out.run.result == {
        "ok": True,
        "verdict": "green after 2 round(s)",
        "stalled": False,
        "rounds": 2,
        "failing": [],
    }
    assert out.run.ok is True
    assert [p.state for p in out.run.patches] == ["staged"]
    assert len(fake.calls()) == 1
    assert (git_repo / "calc.py").read_text(encoding="utf-8").endswith("a - b\n")  # staged, not applied
