"""A resumed run applies what the attempt it finished with made, once, and all or nothing."""

from collections import Counter
from pathlib import Path

import pytest

from kernel.context import ToolContext
from kernel.errors import PalliumError
from services.workflows.models import ResumeInput, RunInput, RunRefInput
from services.workflows.tools import apply, resume, run, status
from tests.conftest import git, write

pytestmark = pytest.mark.anyio

FAN_OUT = """
const found = await parallel(["e0", "r1", "e1", "r2"], (name) =>
  agent(`${name} work`, {label: name, mode: name.startsWith("e") ? "edit" : "read-only"}));
await agent("flaky finish");
return found;
"""


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


def ctx_for(repo: Path) -> ToolContext:
    return ToolContext(ceiling="edit", cwd=repo)


async def call(tool, inp, repo):
    ctx = ctx_for(repo)
    try:
        return await tool(inp, ctx)
    finally:
        ctx.close()


@pytest.fixture
def lines_repo(git_repo: Path) -> Path:
    write(git_repo, "lines.txt", "".join(f"line {i}\n" for i in range(10)))
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "lines")
    return git_repo


async def test_a_resumed_fan_out_of_edits_and_reads_replays_every_call_and_applies_each_edit_once(lines_repo, fake):
    fake.scenario(
        {"match": "e0 work", "replace": {"lines.txt": ["line 1\n", "E0\n"]}, "reply": "e0"},
        {"match": "e1 work", "replace": {"lines.txt": ["line 8\n", "E1\n"]}, "reply": "e1", "delay": 0.3},
        {"match": "r1 work", "reply": "r1"},
        {"match": "r2 work", "reply": "r2", "delay": 0.2},
        {"match": "flaky", "exit": 1, "stderr": "boom", "times": 1},
        {"match": "flaky", "reply": "done"},
    )
    first = await call(run, RunInput(task="t", source=FAN_OUT, id="fan"), lines_repo)
    assert first.status == "failed"
    resumed = await call(resume, ResumeInput(run_id="fan"), lines_repo)
    assert resumed.status == "completed", resumed.error
    runs = Counter(c["prompt"] for c in fake.calls())
    assert runs == {"e0 work": 1, "e1 work": 1, "r1 work": 1, "r2 work": 1, "flaky finish": 2}
    assert resumed.replayed_calls == 4
    applied = await call(apply, RunRefInput(run_id="fan"), lines_repo)
    assert len(applied.applied) == 2
    text = (lines_repo / "lines.txt").read_text(encoding="utf-8")
    assert text == "".join(f"line {i}\n" for i in range(10)).replace("line 1\n", "E0\n").replace("line 8\n", "E1\n")


async def test_an_edit_rerun_under_a_new_key_supersedes_its_first_patch_and_apply_writes_only_the_new_one(
    lines_repo, fake
):
    fake.scenario(
        {"match": "edit one", "replace": {"lines.txt": ["line 3\n", "OLD\n"]}, "reply": "old"},
        {"match": "edit two", "replace": {"lines.txt": ["line 3\n", "NEW\n"]}, "reply": "new"},
        {"match": "", "reply": "ok"},
    )
    source_1 = 'await agent("edit one", {mode: "edit"}); throw new Error("stop");'
    source_2 = 'return await agent("edit two", {mode: "edit"});'
    await call(run, RunInput(task="t", source=source_1, id="sup"), lines_repo)
    script = write(lines_repo, ".pallium-flows/two.js", source_2)
    resumed = await call(resume, ResumeInput(run_id="sup", script=str(script)), lines_repo)
    assert resumed.status == "completed", resumed.error
    states = sorted(p.state for p in resumed.patches)
    assert states == ["staged", "superseded"]
    applied = await call(apply, RunRefInput(run_id="sup"), lines_repo)
    assert len(applied.applied) == 1
    assert "NEW\n" in (lines_repo / "lines.txt").read_text(encoding="utf-8")
    assert "OLD\n" not in (lines_repo / "lines.txt").read_text(encoding="utf-8")
    shown = await call(status, RunRefInput(run_id="sup"), lines_repo)
    assert sorted(p.state for p in shown.patches) == ["applied", "superseded"]


async def test_apply_writes_nothing_when_any_patch_of_the_run_no_longer_applies(lines_repo, fake):
    fake.scenario(
        {"match": "top", "replace": {"lines.txt": ["line 1\n", "TOP\n"]}, "reply": "t"},
        {"match": "bottom", "replace": {"lines.txt": ["line 8\n", "BOTTOM\n"]}, "reply": "b"},
    )
    source = 'await agent("top", {mode: "edit"}); return await agent("bottom", {mode: "edit"});'
    out = await call(run, RunInput(task="t", source=source, id="atomic"), lines_repo)
    assert [p.state for p in out.patches] == ["staged", "staged"]
    before = (lines_repo / "lines.txt").read_text(encoding="utf-8").replace("line 8\n", "mine\n")
    (lines_repo / "lines.txt").write_text(before, encoding="utf-8")
    with pytest.raises(PalliumError) as refused:
        await call(apply, RunRefInput(run_id="atomic"), lines_repo)
    assert refused.value.code == "conflict"
    assert (lines_repo / "lines.txt").read_text(encoding="utf-8") == before
