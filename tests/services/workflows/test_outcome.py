"""One result convention: a script says how it went with `ok` (and `verdict`, the words) in what it
returns, and the verdict line, the exit code, `workflow report` and the MCP answer all honour it."""

import json
import sys
from pathlib import Path

import anyio
import pytest

from kernel.context import ToolContext
from pallium_mcp.cli import main
from services.workflows.inspect_models import ReportInput
from services.workflows.inspect_tools import report_run as report
from services.workflows.library_tools import start
from services.workflows.models import RunInput, StartInput
from services.workflows.report import script_outcome
from services.workflows.tools import run
from tests.conftest import git, write

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


def _red_test(repo: Path) -> str:
    write(repo, "calc.py", "def add(a, b):\n    return a - b\n")
    write(repo, "test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "calc with a bug")
    return f"{sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        ({"ok": False}, False),
        ({"ok": True, "verdict": "all green"}, True),
        ({"verdict": "NOT FINISHED: tests red"}, False),
        ({"verdict": "failed"}, False),
        ({"verdict": "passed"}, True),
        ({"answer": 1}, None),
        ("done", None),
        (None, None),
        ({"ok": "yes"}, None),  # not a boolean: no claim, never a guess
    ],
)
def test_the_outcome_a_result_claims(result, expected):
    assert script_outcome(result)[0] is expected


def test_a_script_that_says_it_failed_is_not_finished_in_every_channel(git_repo, monkeypatch):
    source = 'await agent("work"); return {ok: false, verdict: "the check still fails", failing: ["t::a"]};'

    async def both():
        ctx = ToolContext(ceiling="edit", cwd=git_repo)
        try:
            return await run(RunInput(task="t", source=source, id="says-no"), ctx), await report(
                ReportInput(run_id="says-no"), ctx
            )
        finally:
            ctx.close()

    out, shown = anyio.run(both)
    assert out.status == "completed" and out.ok is False
    assert out.verdict.startswith("VERDICT: NOT FINISHED") and "the check still fails" in out.verdict
    assert shown.ok is False and shown.verdict == out.verdict
    assert shown.outcome == "the check still fails" and shown.failing == ["t::a"]
    monkeypatch.chdir(git_repo)
    assert main(["workflow", "report", "says-no"]) == 1
    assert main(["workflow", "status", "says-no"]) == 1


async def test_a_script_that_says_it_succeeded_finishes(git_repo):
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    try:
        out = await run(RunInput(task="t", source='await agent("w"); return {ok: true, verdict: "done"};'), ctx)
    finally:
        ctx.close()
    assert out.ok is True and out.verdict.startswith("VERDICT: FINISHED")


def test_start_with_a_test_that_stays_red_is_not_finished_and_exits_1(git_repo, fake, monkeypatch, capsys):
    command = _red_test(git_repo)
    fake.scenario({"match": "", "reply": "I looked but changed nothing"})
    monkeypatch.chdir(git_repo)
    code = main(["start", "fix the failing test in calc", "--test-command", command, "--json"])
    answer = json.loads(capsys.readouterr().out)
    assert answer["chosen"] == "template:test-fix"
    assert answer["run"]["result"]["ok"] is False and answer["run"]["result"]["failing"]
    assert answer["run"]["ok"] is False and answer["run"]["verdict"].startswith("VERDICT: NOT FINISHED")
    assert code == 1
    assert main(["workflow", "report", answer["run"]["id"], "--json"]) == 1
    shown = json.loads(capsys.readouterr().out)
    assert shown["ok"] is False and shown["failing"] == answer["run"]["result"]["failing"]


async def test_plan_and_verify_with_red_tests_and_a_denied_review_is_not_a_success(git_repo, fake):
    command = _red_test(git_repo)
    fake.scenario(
        {"match": "^Plan this task", "reply": {"steps": ["look"], "risks": []}},
        {"match": "Is it complete and correct", "reply": {"approved": False, "reason": "not done", "evidence": []}},
        {"match": "", "reply": "no change"},
    )
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    try:
        out = await start(StartInput(task="tidy calc", style="plan", test_command=command), ctx)
    finally:
        ctx.close()
    assert out.chosen == "template:plan-and-verify"
    assert out.run.status == "completed", out.run.error
    assert out.run.result["tests_green"] is False and out.run.result["ok"] is False
    assert out.run.ok is False and out.run.verdict.startswith("VERDICT: NOT FINISHED")


async def test_plan_and_verify_with_an_approved_review_and_no_test_command_finishes(git_repo, fake):
    fake.scenario(
        {"match": "^Plan this task", "reply": {"steps": ["look"], "risks": []}},
        {"match": "Is it complete and correct", "reply": {"approved": True, "reason": "fine", "evidence": []}},
        {"match": "", "reply": "done"},
    )
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    try:
        out = await start(StartInput(task="tidy calc", style="plan"), ctx)
    finally:
        ctx.close()
    assert out.run.result["ok"] is True, out.run.result
    assert out.run.ok is True and out.run.verdict.startswith("VERDICT: FINISHED")


async def test_the_mcp_answer_carries_the_same_outcome(git_repo):
    from mcp import Client

    from pallium_mcp.server import build_server

    source = 'await agent("work"); return {ok: false, verdict: "red", failing: ["t::a"]};'
    async with Client(build_server(toolsets="all", ceiling="edit", cwd=git_repo)) as client:
        ran = await client.call_tool("pallium_workflow_run", {"task": "t", "source": source, "id": "mcp-no"})
        shown = await client.call_tool("pallium_workflow_report", {"run_id": "mcp-no"})
    assert not ran.is_error and not shown.is_error
    assert ran.structured_content["ok"] is False
    assert ran.structured_content["verdict"].startswith("VERDICT: NOT FINISHED")
    assert shown.structured_content["ok"] is False and shown.structured_content["failing"] == ["t::a"]


# A fan-out where most agents failed and the script makes no `ok` claim: parallel() turned each
# failure into a null, the script returned the array, and said nothing of whether that is success.
FANOUT = 'return await parallel(["a", "bad-1", "bad-2", "bad-3"], (x) => agent(`look at ${x}`, {label: x}));'
HANDLED = (
    'const got = await parallel(["a", "bad-1", "bad-2", "bad-3"], (x) => agent(`look at ${x}`, {label: x}));\n'
    "const heard = got.filter((g) => g !== null);\n"
    "return {ok: heard.length > 0, verdict: `heard ${heard.length} of ${got.length}`};"
)


def _some_fail(fake) -> None:
    fake.scenario({"match": "bad", "exit": 1, "stderr": "boom"}, {"match": "", "reply": "seen"})


def test_a_partial_failure_without_an_ok_claim_exits_1_from_the_cli(git_repo, fake, monkeypatch, capsys):
    _some_fail(fake)
    write(git_repo, "fanout.workflow.js", FANOUT)
    monkeypatch.chdir(git_repo)
    code = main(["workflow", "run", "--script", "fanout.workflow.js", "--id", "partial", "--json"])
    answer = json.loads(capsys.readouterr().out)
    assert answer["status"] == "completed" and answer["agents"]["failed"] == 3 and answer["agents"]["succeeded"] == 1
    assert answer["ok"] is False and answer["verdict"].startswith("VERDICT: NOT FINISHED (completed) — 1/4")
    assert "3 agents failed" in answer["verdict"] and "no ok claim" in answer["verdict"]
    assert code == 1
    assert main(["workflow", "status", "partial"]) == 1
    capsys.readouterr()


def test_the_report_text_of_a_partial_failure_says_not_finished(git_repo, fake, monkeypatch, capsys):
    _some_fail(fake)
    write(git_repo, "fanout.workflow.js", FANOUT)
    monkeypatch.chdir(git_repo)
    main(["workflow", "run", "--script", "fanout.workflow.js", "--id", "partial-text", "--json"])
    capsys.readouterr()
    assert main(["workflow", "report", "partial-text"]) == 1
    text = capsys.readouterr().out
    assert "VERDICT: NOT FINISHED (completed)" in text and "3 agents failed" in text
    assert "VERDICT: FINISHED" not in text


async def test_the_mcp_answer_of_a_partial_failure_is_not_ok(git_repo, fake):
    from mcp import Client

    from pallium_mcp.server import build_server

    _some_fail(fake)
    async with Client(build_server(toolsets="all", ceiling="edit", cwd=git_repo)) as client:
        ran = await client.call_tool("pallium_workflow_run", {"task": "t", "source": FANOUT, "id": "mcp-partial"})
        shown = await client.call_tool("pallium_workflow_report", {"run_id": "mcp-partial"})
    assert not ran.is_error and not shown.is_error
    for answer in (ran.structured_content, shown.structured_content):
        assert answer["ok"] is False and answer["verdict"].startswith("VERDICT: NOT FINISHED (completed)")


def test_a_script_that_handled_the_failures_keeps_its_claim(git_repo, fake, monkeypatch, capsys):
    _some_fail(fake)
    write(git_repo, "handled.workflow.js", HANDLED)
    monkeypatch.chdir(git_repo)
    code = main(["workflow", "run", "--script", "handled.workflow.js", "--id", "handled", "--json"])
    answer = json.loads(capsys.readouterr().out)
    assert answer["agents"]["failed"] == 3
    assert answer["ok"] is True and answer["verdict"].startswith("VERDICT: FINISHED (completed) — 1/4")
    assert code == 0
