"""Templates, saved workflows, generated scripts, nested workflow() and `pallium start`."""

import json
from pathlib import Path

import pytest

from kernel.context import ToolContext
from kernel.errors import PalliumError
from pallium_mcp.cli import main
from services.workflows.library import template_source
from services.workflows.library_tools import generate, save, start, template_list, template_show
from services.workflows.models import (
    GenerateInput,
    RunInput,
    SaveInput,
    StartInput,
    TemplateListInput,
    TemplateShowInput,
)
from services.workflows.start import choose_style
from services.workflows.tools import run
from tests.conftest import trusted, write

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


@pytest.mark.parametrize(
    ("task", "test_command", "expected"),
    [
        ("fix the failing tests in calc", "pytest", "test-fix"),
        ("fix the failing tests in calc", None, "plan-and-verify"),
        ("review my change to the router", None, "review"),
        ("How does the cache get invalidated?", None, "research"),
        ("add a --verbose flag", None, "plan-and-verify"),
    ],
)
def test_start_chooses_a_plan_from_the_task_words(task, test_command, expected):
    assert choose_style(task, test_command=test_command)[0] == expected


async def test_start_dry_run_shows_the_plan_and_runs_nothing(git_repo: Path, fake):
    write(git_repo, "src/app.py", "def main():\n    return 3\n")
    out = await start(StartInput(task="review my change", dry_run=True), ToolContext(cwd=git_repo))
    assert out.chosen == "template:review" and out.run is None
    assert out.args == {"task": "review my change", "files": ["src/app.py"]}
    assert out.script.startswith("// Review:")
    assert fake.calls() == []


async def test_start_runs_the_review_template_on_the_changed_files(git_repo: Path, fake):
    write(git_repo, "src/app.py", "def main():\n    return 3\n")
    fake.scenario(
        {
            "match": "^review my change\\nReview these files for correctness only: src/app.py",
            "reply": {"findings": [{"file": "src/app.py", "problem": "3?", "severity": "medium"}]},
        },
        {"match": "Review these files", "reply": {"findings": []}},
        {"match": "prove this correctness finding wrong", "reply": {"holds": True, "why": "magic number"}},
    )
    ctx = ToolContext(cwd=git_repo)
    out = await start(StartInput(task="review my change"), ctx)
    ctx.close()
    assert out.run.status == "completed", out.run.error
    found = {"file": "src/app.py", "problem": "3?", "severity": "medium", "dimension": "correctness"}
    assert out.run.result == {
        "ok": True,
        "verdict": "1 finding(s) survived review in 2 of 2 dimension(s)",
        "findings": [{"rank": 1, **found, "why": "magic number", "confidence": 0.5}],
        "dimensions": ["correctness", "security"],
        "files": 1,
        "refuted": 0,
    }


async def test_a_template_name_is_reserved_and_a_trusted_saved_workflow_nests_once(git_repo: Path, fake):
    fake.scenario({"match": "", "reply": "ok"})
    write(git_repo, ".pallium/workflows/review.js", 'return "our own review of " + args.task;')
    write(git_repo, ".pallium/workflows/ours.js", 'return "our own review of " + args.task;')
    write(git_repo, ".pallium/workflows/outer.js", 'return await workflow("ours", {task: "inner"});')
    write(git_repo, ".pallium/workflows/deep.js", 'return await workflow("outer", {});')
    trusted(git_repo)
    ctx = ToolContext(cwd=git_repo)
    outer = await run(RunInput(task="t", workflow="outer", id="outer-run"), ctx)
    deep = await run(RunInput(task="t", workflow="deep", id="deep-run"), ctx)
    shown = await template_show(TemplateShowInput(name="review"), ctx)
    listed = await template_list(TemplateListInput(), ctx)
    ctx.close()
    assert outer.result == "our own review of inner"
    assert deep.status == "failed" and "nests one level at most" in deep.error
    assert (shown.origin, shown.source) == ("template", template_source("review"))
    origins = {(e.name, e.origin) for e in listed.workflows}
    assert {("ours", "repo"), ("review", "template"), ("plan-and-verify", "template")} <= origins


async def test_a_bare_run_uses_the_plan_and_verify_default(git_repo: Path, fake):
    fake.scenario(
        {"match": "^Plan this task", "reply": {"steps": ["edit main"]}},
        {"match": "^Do this task", "write": {"src/app.py": "def main():\n    return 2\n"}, "reply": "done"},
        {"match": "^Review the change", "reply": {"approved": True, "reason": "good", "evidence": []}},
    )
    ctx = ToolContext(cwd=git_repo)
    out = await run(RunInput(task="make main return 2", id="bare"), ctx)
    ctx.close()
    assert out.status == "completed", out.error
    assert out.result["plan"] == ["edit main"] and out.result["review"]["approved"] is True
    assert [p.state for p in out.patches] == ["staged"]


async def test_save_and_generate_write_only_where_asked(git_repo: Path, fake, pallium_home: Path):
    ctx = ToolContext(cwd=git_repo)
    await run(RunInput(task="t", source="return 42;", id="to-save"), ctx)
    saved = await save(SaveInput(run_id="to-save", name="answer"), ctx)
    mine = await save(SaveInput(run_id="to-save", name="answer", scope="user"), ctx)
    generated = await generate(GenerateInput(task="why is it slow?", style="research"), ctx)
    written = await generate(GenerateInput(task="x", style="review", output="flows/review.js"), ctx)
    with pytest.raises(PalliumError) as exists:
        await generate(GenerateInput(task="x", style="review", output="flows/review.js"), ctx)
    ctx.close()
    assert Path(saved.path) == git_repo / ".pallium" / "workflows" / "answer.js"
    assert Path(mine.path) == pallium_home / "workflows" / "answer.js"
    assert Path(saved.path).read_text(encoding="utf-8") == "return 42;"
    assert generated.template == "research" and generated.path is None
    assert Path(written.path) == git_repo / "flows" / "review.js"
    assert Path(written.path).read_text(encoding="utf-8") == template_source("review")
    assert exists.value.code == "conflict"


def test_cli_start_dry_run_and_generate_need_edit_to_write(git_repo: Path, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    assert main(["start", "How are requests routed?", "--dry-run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["chosen"] == "template:research"
    assert main(["workflow", "generate", "x", "--output", "a.js", "--authority", "observe"]) == 1
    assert "needs authority 'edit'" in capsys.readouterr().err


def test_cli_accepts_the_original_style_names(git_repo: Path, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    generate_cmd = ["workflow", "generate", "fix the parser", "--json"]
    assert main([*generate_cmd, "--style", "fix-until-green", "--test-command", "pytest", "--max-rounds", "5"]) == 0
    aliased = json.loads(capsys.readouterr().out)
    assert (aliased["template"], aliased["args"]) == (
        "test-fix",
        {"task": "fix the parser", "test_command": "pytest", "max_rounds": 5},
    )
    assert main([*generate_cmd, "--style", "auto", "--test-command", "pytest"]) == 0
    assert json.loads(capsys.readouterr().out)["template"] == "test-fix"
    assert main([*generate_cmd, "--style", "auto"]) == 0
    assert json.loads(capsys.readouterr().out)["template"] == "review"
    start_cmd = ["start", "fix the failing test", "--dry-run", "--json", "--test-command", "pytest"]
    assert main([*start_cmd, "--style", "auto"]) == 0
    assert json.loads(capsys.readouterr().out)["chosen"] == "template:test-fix"
    assert main([*start_cmd, "--style", "fix-until-green"]) == 0
    assert json.loads(capsys.readouterr().out)["chosen"] == "template:test-fix"


async def test_workflow_finds_scripts_saved_under_dot_claude_as_the_original_did(git_repo: Path, fake):
    write(git_repo, ".claude/workflows/triage.js", 'return "triaged " + args.task;')
    write(git_repo, ".claude/workflows/mine.js", 'return "shadowed";')
    write(git_repo, ".pallium/workflows/mine.js", 'return "pallium first";')
    trusted(git_repo)
    ctx = ToolContext(cwd=git_repo)
    named = await run(RunInput(task="t", workflow="triage", id="claude-1"), ctx)
    nested = await run(RunInput(task="t", source='return await workflow("mine");', id="claude-2"), ctx)
    ctx.close()
    assert named.result == "triaged t"
    assert nested.result == "pallium first"


def test_template_show_and_run_take_the_original_alias_of_a_template(git_repo: Path, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    assert main(["workflow", "template", "show", "fix-until-green", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["name"], shown["origin"]) == ("test-fix", "template")
    assert shown["source"] == template_source("test-fix")
