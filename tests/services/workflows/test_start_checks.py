"""What `start`, `generate` and `apply` check before they act: the provider is there, a generated
script is not reviewed as the user's change, and the apply users run passes the crash points."""

import json
import os
import subprocess
from pathlib import Path

import anyio
import pytest

from kernel.context import ToolContext
from kernel.crashpoints import CRASH_EXIT_CODE
from kernel.errors import PalliumError
from pallium_mcp.cli import main
from services.workflows.library_tools import generate, start
from services.workflows.models import GenerateInput, RunInput, StartInput
from services.workflows.tools import run
from tests.conftest import git, script, write

pytestmark = pytest.mark.anyio


@pytest.fixture
def codex_missing(fake, monkeypatch, tmp_path):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "codex")
    monkeypatch.setenv("PALLIUM_CODEX_BIN", str(tmp_path / "no-such-codex"))
    return fake


async def test_a_dry_run_says_the_provider_is_missing(git_repo, codex_missing):
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    try:
        dry = await start(StartInput(task="review my change", dry_run=True), ctx)
    finally:
        ctx.close()
    assert dry.provider == "codex" and "not installed" in dry.provider_missing


def test_start_refuses_before_the_run_when_its_provider_is_missing(git_repo, codex_missing, monkeypatch, capsys):
    monkeypatch.chdir(git_repo)
    assert main(["start", "review my change", "--dry-run"]) == 0
    assert "MISSING" in capsys.readouterr().out
    assert main(["start", "review my change"]) != 0
    err = capsys.readouterr().err
    assert "codex is not installed" in err and "doctor" in err
    assert main(["workflow", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == []  # nothing was recorded


async def test_a_script_that_calls_no_agent_starts_without_a_provider(git_repo, codex_missing):
    write(git_repo, ".pallium/workflows/count.js", "return (await pallium.changedNow()).files.length;\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "a saved workflow")
    from tests.conftest import trusted

    trusted(git_repo)
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    try:
        out = await start(StartInput(task="count", workflow="count"), ctx)
    finally:
        ctx.close()
    assert out.provider_missing is None and out.run.status == "completed", out.run.error


async def test_a_generated_script_is_not_reviewed_as_the_users_change(git_repo, fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    fake.scenario({"match": "", "reply": {"findings": []}})
    write(git_repo, "src/app.py", "def main():\n    return 2\n")
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    try:
        made = await generate(GenerateInput(task="review", style="review", output="review.workflow.js"), ctx)
        assert Path(made.path).is_file()
        out = await run(RunInput(task="review", script="review.workflow.js"), ctx)
    finally:
        ctx.close()
    assert out.status == "completed", out.error
    assert out.result["files"] == 1  # src/app.py only
    prompts = [c["prompt"] for c in fake.calls()]
    assert prompts and all("review.workflow.js" not in p for p in prompts)
    assert any("src/app.py" in p for p in prompts)


async def test_a_generated_script_the_user_edited_is_their_change_again(git_repo, fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    fake.scenario({"match": "", "reply": {"findings": []}})
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    try:
        made = await generate(GenerateInput(task="review", style="review", output="mine.js"), ctx)
        Path(made.path).write_text(Path(made.path).read_text() + "\n// mine now\n")
        out = await run(RunInput(task="review", script="mine.js"), ctx)
    finally:
        ctx.close()
    assert out.status == "completed", out.error
    assert out.result["files"] == 1
    assert any("mine.js" in c["prompt"] for c in fake.calls())


EDITS = """
await agent("edit the top", {mode: "edit", label: "top"});
await agent("edit the bottom", {mode: "edit", label: "bottom"});
return "staged";
"""


@pytest.mark.parametrize("crash", ["mid_apply:1", "between_applies:1"])
def test_the_apply_users_run_passes_the_crash_points_and_recovers(git_repo, fake, monkeypatch, crash):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    write(git_repo, "lines.txt", "".join(f"line {i}\n" for i in range(20)))
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "lines")
    fake.scenario(
        {"match": "edit the top", "replace": {"lines.txt": ["line 1\n", "TOP\n"]}, "reply": "top"},
        {"match": "edit the bottom", "replace": {"lines.txt": ["line 18\n", "BOTTOM\n"]}, "reply": "bottom"},
    )

    async def staged():
        ctx = ToolContext(ceiling="edit", cwd=git_repo)
        try:
            return await run(RunInput(task="t", source=EDITS, id="to-apply"), ctx)
        finally:
            ctx.close()

    out = anyio.run(staged)
    assert [p.state for p in out.patches] == ["staged", "staged"]
    env = {**os.environ, "PALLIUM_CRASHPOINT": crash}
    killed = subprocess.run(
        [script("pallium"), "workflow", "apply", "to-apply"], cwd=git_repo, env=env, capture_output=True, text=True
    )
    assert killed.returncode == CRASH_EXIT_CODE, killed.stderr
    again = subprocess.run(
        [script("pallium"), "workflow", "apply", "to-apply", "--json"], cwd=git_repo, capture_output=True, text=True
    )
    assert again.returncode == 0, again.stderr
    text = (git_repo / "lines.txt").read_text()
    assert text.count("TOP\n") == 1 and text.count("BOTTOM\n") == 1
    assert "line 1\n" not in text and "line 18\n" not in text


async def test_start_refusal_is_a_pallium_error_over_the_tool(git_repo, codex_missing):
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    try:
        with pytest.raises(PalliumError) as refused:
            await start(StartInput(task="review my change"), ctx)
    finally:
        ctx.close()
    assert refused.value.code == "unavailable" and refused.value.hint
