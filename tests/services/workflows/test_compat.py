"""Scripts and commands written for the original Pallium work unchanged on ours."""

import json
from pathlib import Path

import anyio
import pytest

from kernel.context import ToolContext
from pallium_mcp.cli import main
from services.workflows.models import RunInput
from services.workflows.tools import run
from tests.conftest import git, trusted, write

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


async def _cli(args: list[str], repo: Path, capsys, monkeypatch) -> tuple[int, str]:
    """The CLI in-process, in a thread: it runs its own event loop."""
    monkeypatch.chdir(repo)
    code = await anyio.to_thread.run_sync(main, args)
    return code, capsys.readouterr().out


# In the original's style: preflight's files_to_inspect, `phase` given as an agent option, args?.task.
ORIGINAL_STYLE_REVIEW = """export const meta = {name: "skeptic-review", phases: ["scope", "find", "verify"]};
const task = args?.task ?? "Review this change";
phase("scope");
const preflight = await pallium.preflight(task);
const files = (preflight.files_to_inspect ?? []).slice(0, 20);
const results = await pipeline(
  files,
  (file) => agent(`Find issues in ${file}. Task: ${task}`, {label: "find-" + file, phase: "find", mode: "read-only"}),
  (found, file) => agent(`Refute: ${JSON.stringify(found)}`, {label: "skeptic-" + file, phase: "verify"}),
);
return {files, results};
"""


async def test_an_original_style_script_with_phase_options_and_files_to_inspect_runs(git_repo, fake):
    write(git_repo, "src/app.py", "def main():\n    return 3\n")
    fake.scenario({"match": "^Find issues", "reply": {"findings": ["3?"]}}, {"match": "^Refute", "reply": "holds"})
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    out = await run(RunInput(task="t", source=ORIGINAL_STYLE_REVIEW, args='{"task": "review it"}', id="orig-1"), ctx)
    ctx.close()
    assert out.status == "completed", out.error
    assert out.result == {"files": ["src/app.py"], "results": ["holds"]}
    ctx = ToolContext(ceiling="observe", cwd=git_repo)
    from services.workflows import runner

    phases = [e.phase for e in runner.open_store(ctx).events("orig-1", kind="agent")]
    ctx.close()
    assert phases == ["find", "verify"]


async def test_the_preflight_names_its_files_to_inspect_as_the_original_did(git_repo, capsys, monkeypatch):
    write(git_repo, "src/app.py", "def main():\n    return 3\n")
    code, out = await _cli(["workflow", "preflight", "make main return 3", "--json"], git_repo, capsys, monkeypatch)
    answer = json.loads(out)
    assert code == 0 and answer["files_to_inspect"] == [f["path"] for f in answer["files"]] == ["src/app.py"]


async def test_workflow_run_takes_a_slash_name_and_needs_no_task_with_a_workflow(git_repo, capsys, monkeypatch):
    trusted(write(git_repo, ".pallium/workflows/echo.js", "return args.task;").parents[2])
    code, out = await _cli(["workflow", "run", "/echo fix the parser", "--json"], git_repo, capsys, monkeypatch)
    assert code == 0 and json.loads(out)["result"] == "fix the parser"
    code, out = await _cli(["workflow", "run", "--workflow", "echo", "--json"], git_repo, capsys, monkeypatch)
    assert code == 0 and json.loads(out)["task"] == json.loads(out)["result"] == "Run saved workflow echo"
    write(git_repo, "flows/one.js", "return 1;")
    code, out = await _cli(["workflow", "run", "--script", "flows/one.js", "--json"], git_repo, capsys, monkeypatch)
    assert code == 0 and json.loads(out)["task"] == "Run workflow script flows/one.js"
    path_like = ["workflow", "run", "/usr/bin is slow", "--source", "return 2;", "--json"]
    code, out = await _cli(path_like, git_repo, capsys, monkeypatch)
    assert code == 0 and json.loads(out)["task"] == "/usr/bin is slow"  # it only looks like a name


async def test_a_run_or_start_with_nothing_to_do_is_refused_naming_the_task(git_repo, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    assert await anyio.to_thread.run_sync(main, ["workflow", "run", "--json"]) == 2
    assert json.loads(capsys.readouterr().err)["error"]["details"]["field"] == "task"
    assert await anyio.to_thread.run_sync(main, ["start", "--dry-run", "--json"]) == 2
    assert json.loads(capsys.readouterr().err)["error"]["details"]["field"] == "task"


async def test_start_with_only_a_workflow_runs_it(git_repo, capsys, monkeypatch):
    trusted(write(git_repo, ".pallium/workflows/echo.js", "return args.task;").parents[2])
    code, out = await _cli(["start", "--workflow", "echo", "--json"], git_repo, capsys, monkeypatch)
    answer = json.loads(out)
    assert code == 0 and answer["chosen"] == "repo:echo" and answer["run"]["result"] == "Run saved workflow echo"


# In the shape of the original's generated test-fix and review scripts.
ORIGINAL_GENERATED = """export const meta = {name: "pallium-fix-until-green", phases: ["scope", "finalize"]};
const task = "make main return 2";
phase("scope");
const started = await pallium.task.start(task, "src");
const shown = await pallium.task.show();
phase("finalize");
const drift = await pallium.review();
const handoff = await pallium.handoff("HEAD~1");
const safe = await pallium.safe("src/app.py");
const plan = await pallium.plan("src/app.py");
await pallium.task.clear();
return {started: started.goal, scopes: shown.scope_paths, after: await pallium.task.show(),
        drift: drift.files.some((f) => f.path === "src/app.py"), handoff: handoff.base, safe: safe.path,
        plan: plan.path};
"""


async def test_an_original_generated_script_using_task_review_safe_and_plan_runs(git_repo):
    write(git_repo, "src/app.py", "def main():\n    return 2\n")
    ctx = ToolContext(ceiling="observe", cwd=git_repo)
    out = await run(RunInput(task="t", source=ORIGINAL_GENERATED, id="orig-gen"), ctx)
    ctx.close()
    assert out.status == "completed", out.error
    assert out.result == {
        "started": "make main return 2",
        "scopes": ["src"],
        "after": None,
        "drift": True,
        "handoff": git(git_repo, "rev-parse", "HEAD~1").strip(),
        "safe": "src/app.py",
        "plan": "src/app.py",
    }


async def test_gate_criteria_given_as_one_string_reach_the_verifier_whole(git_repo, fake):
    fake.scenario({"match": "", "reply": {"approved": True, "reason": "ok", "evidence": []}})
    source = 'return await gate("patch-safety", "Verify the patches", {criteria: "tests pass, no secrets"});'
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    out = await run(RunInput(task="t", source=source, id="crit"), ctx)
    ctx.close()
    assert out.result["approved"] is True
    assert "Approve only if all of these hold:\n- tests pass, no secrets\n\n" in fake.calls()[0]["prompt"]


async def test_a_task_of_several_unquoted_words_is_one_task(git_repo, capsys, monkeypatch):
    argv = ["workflow", "run", "count", "the", "files", "--source", "return 1;", "--json"]
    code, out = await _cli(argv, git_repo, capsys, monkeypatch)
    assert code == 0 and json.loads(out)["task"] == "count the files"
    code, out = await _cli(["workflow", "preflight", "make", "main", "faster", "--json"], git_repo, capsys, monkeypatch)
    assert code == 0 and json.loads(out)["task"] == "make main faster"


async def test_cwd_names_the_repository_as_the_original_flag_did(git_repo, tmp_path, capsys, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    argv = ["workflow", "run", "t", "--cwd", str(git_repo), "--source", "return 1;", "--json"]
    code, out = await _cli(argv, elsewhere, capsys, monkeypatch)
    assert code == 0 and json.loads(out)["repo"] == str(git_repo.resolve())


# The original's fix-until-green recipe, in outline: scope, untilGreen with a label, a gate whose
# criteria are one string, then return.
ORIGINAL_FIX_UNTIL_GREEN = """export const meta = {name: "fix-until-green", phases: ["scope", "verify", "gate"]};
const task = args?.task ?? "Fix the reported defect";
const testCommand = args?.test_command;
phase("scope");
const preflight = await pallium.preflight(task);
log("scoped files:", (preflight.files_to_inspect ?? []).length);
phase("verify");
const green = await verify.untilGreen(testCommand, { maxRounds: 3, label: "tests" });
if (!green.ok) throw new Error("verification did not converge: " + JSON.stringify(green));
phase("gate");
await gate("patch-safety", "Verify the produced patches before they apply", {
  criteria: "tests pass, no secrets introduced, change scope matches the task",
});
return { green: green.ok, rounds: green.rounds.length };
"""


async def test_the_original_fix_until_green_recipe_fixes_a_really_failing_test(git_repo, fake):
    import sys

    write(git_repo, "calc.py", "def add(a, b):\n    return a - b\n")
    write(git_repo, "test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "calc with a bug")
    fake.scenario(
        {"match": "fails", "write": {"calc.py": "def add(a, b):\n    return a + b\n"}, "reply": "fixed"},
        {"match": "^Verify the produced patches", "reply": {"approved": True, "reason": "green", "evidence": []}},
    )
    command = f"{sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"
    args = json.dumps({"task": "fix the adder", "test_command": command})
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    out = await run(
        RunInput(task="fix", source=ORIGINAL_FIX_UNTIL_GREEN, args=args, allow_command=[command], id="orig-fix"), ctx
    )
    ctx.close()
    assert out.status == "completed", out.error
    assert out.result == {"green": True, "rounds": 2}
    assert [p.state for p in out.patches] == ["staged"]
