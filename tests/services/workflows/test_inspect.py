"""Looking into runs after the fact: report, inspect, show, read; gc; and the host API list."""

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client

from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.runstore import RunStore
from kernel.worktrees import tree
from pallium_mcp.cli import main
from pallium_mcp.server import build_server
from services.workflows import runner
from services.workflows.inspect_models import GcInput, InspectInput, ReadInput, ReportInput, ShowInput
from services.workflows.inspect_tools import inspect_run, read_call, report_run, show_run
from services.workflows.models import ResumeInput, RunInput
from services.workflows.script import API_GLOBALS, PALLIUM_HELPERS
from services.workflows.tools import resume, run
from services.workflows.upkeep_tools import gc
from tests.conftest import git

pytestmark = pytest.mark.anyio

REVIEW = """export const meta = {name: "review", phases: ["look", "judge"]};
phase("look");
const seen = await parallel(["a.py", "bad.py"], (f) => agent(`review ${f}`, {label: `review:${f}`}));
phase("judge");
const verdict = await agent("judge the reviews", {label: "judge", provider: "codex"});
log("judged");
return {summary: "two files reviewed", findings: ["a.py leaks a handle"], risks: ["bad.py unreviewed"],
        next_steps: ["rerun bad.py"], verdict};
"""


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    fake.scenario(
        {"match": "bad", "exit": 1, "stderr": "boom"},
        {"match": "judge", "reply": "fine"},
        {"match": "review", "reply": {"issues": 1}, "usage": {"cost_usd": 0.02}},
    )
    return fake


async def _call(handler, inp, repo: Path, ceiling: str = "edit"):
    ctx = ToolContext(ceiling=ceiling, cwd=repo)
    try:
        return await handler(inp, ctx)
    finally:
        ctx.close()


async def _review(repo: Path, run_id: str = "rev-1", source: str = REVIEW):
    return await _call(run, RunInput(task="review two files", source=source, id=run_id), repo)


async def _cli(args: list[str], repo: Path, capsys, monkeypatch) -> tuple[int, str, str]:
    """The CLI in-process, in a thread: it runs its own event loop."""
    monkeypatch.chdir(repo)
    code = await anyio.to_thread.run_sync(main, args)
    out, err = capsys.readouterr()
    return code, out, err


async def test_report_leads_with_the_verdict_and_reads_the_results_fields(git_repo):
    await _review(git_repo)
    out = await _call(report_run, ReportInput(run_id="rev"), git_repo)
    assert out.verdict.startswith("VERDICT: NOT FINISHED (completed) — 2/3 agents complete; 1 agent failed")
    assert out.ok is False  # one failed agent and no ok claim: not a success (docs/workflows.md)
    assert out.summary == "two files reviewed"
    assert (out.findings, out.risks, out.next_steps) == (
        ["a.py leaks a handle"],
        ["bad.py unreviewed"],
        ["rerun bad.py"],
    )
    lines = [(a.label, a.phase, a.ok, a.cached, a.cost_usd, a.error_class) for a in out.agents]
    assert sorted(lines, key=str) == sorted(
        [
            ("review:a.py", "look", True, False, 0.02, None),
            ("review:bad.py", "look", False, False, None, "unknown"),
            ("judge", "judge", True, False, None, None),
        ],
        key=str,
    )
    assert [(f.primitive, f.index, f.phase) for f in out.failures] == [("parallel", 1, "look")]
    assert out.cost.unknown_cost_calls == 2 and out.cost.spent_usd == pytest.approx(0.02)  # bad.py and judge
    assert out.cost.text.startswith("at least $0.0200") and "2 call(s) of unknown cost" in out.cost.text


async def test_report_never_says_zero_dollars_when_every_cost_is_unknown(git_repo):
    await _review(git_repo, "unknown-1", 'return await agent("judge alone", {provider: "codex"});')
    out = await _call(report_run, ReportInput(run_id="unknown-1"), git_repo)
    assert out.cost.text == "unknown: 1 call(s) reported no cost"
    assert out.findings == [] and out.summary == "fine"  # a string result is the summary


async def test_report_stays_within_12_kb_unless_full(git_repo):
    source = (
        'await agent("judge it"); return {findings: Array.from({length: 200}, (_, i) => `f${i} ` + "x".repeat(900))};'
    )
    await _review(git_repo, "big-1", source)
    cut = await _call(report_run, ReportInput(run_id="big-1"), git_repo)
    assert len(cut.model_dump_json().encode()) <= 12_000
    assert cut.truncated and 0 < len(cut.findings) < 200
    full = await _call(report_run, ReportInput(run_id="big-1", full=True), git_repo)
    assert len(full.findings) == 200 and not full.truncated


async def test_report_from_the_cli_prints_the_verdict_first_and_fails_an_unfinished_run(git_repo, capsys, monkeypatch):
    await _review(git_repo, "broken-1", 'await agent("judge"); throw new Error("gave up");')
    code, out, _ = await _cli(["workflow", "report", "broken"], git_repo, capsys, monkeypatch)
    lines = out.splitlines()
    assert code == 1
    assert lines[0] == "VERDICT: NOT FINISHED (failed) — 1/1 agents complete"
    assert any("gave up" in line for line in lines) and "cost: unknown: 1 call(s) reported no cost" in out


async def test_inspect_shows_the_record_behind_a_resumed_run(git_repo, fake, tmp_path):
    fake.scenario({"match": "second", "exit": 1, "times": 1}, {"match": "", "reply": "ok"})
    await _review(git_repo, "insp-1", 'await agent("first"); return await agent("second");')
    await _call(resume, ResumeInput(run_id="insp-1"), git_repo)
    out = await _call(inspect_run, InspectInput(run_id="insp-1"), git_repo)
    assert out.status == "completed" and out.attempts == 2 and out.script_changed is False
    assert out.script_path is None and out.script_hash and out.script_bytes > 0
    assert out.limits["max_agents"] == 1000 and out.limits["allow_commands"] == []
    assert out.kernel is not None and len(out.kernel.base_commit or "") == 40 and out.kernel.base_tree
    assert out.kernel.lease_epoch == 2 and out.kernel.owner_alive is False
    assert out.kernel.calls == {"completed": 2} and out.kernel.agents_started == 3
    assert out.run_dir.endswith("workflow-runs/insp-1")
    # the fake cannot confine a read-only worker, so it ran in a pooled throwaway worktree, now removed
    assert [(w.purpose, w.state, w.exists) for w in out.worktrees] == [("seeded", "removed", False)]


async def test_inspect_lists_an_edit_agents_worktree_and_prints_from_the_cli(git_repo, fake, capsys, monkeypatch):
    fake.scenario({"match": "fix", "write": {"src/app.py": "def main():\n    return 2\n"}, "reply": "fixed"})
    await _review(git_repo, "insp-edit", 'return await agent("fix main", {mode: "edit", label: "fixer"});')
    code, out, _ = await _cli(["workflow", "inspect", "insp-edit", "--json"], git_repo, capsys, monkeypatch)
    data = json.loads(out)
    assert code == 0
    assert {(w["purpose"], w["state"], w["exists"]) for w in data["worktrees"]} == {
        ("edit", "removed", False),
        ("staging", "removed", False),
    }
    code, out, _ = await _cli(["workflow", "inspect", "insp-edit"], git_repo, capsys, monkeypatch)
    assert "base commit:" in out and "lease epoch 1" in out


async def test_show_pages_the_events_in_order_and_filters_by_kind(git_repo, capsys, monkeypatch):
    await _review(git_repo)
    everything = await _call(show_run, ShowInput(run_id="rev-1"), git_repo)
    kinds = [e.kind for e in everything.events]
    assert everything.total == len(kinds) == 5 and kinds[-2:] == ["agent", "log"]
    assert sorted(kinds[:3]) == ["agent", "agent", "failure"]
    first = await _call(show_run, ShowInput(run_id="rev-1", limit=2), git_repo)
    second = await _call(show_run, ShowInput(run_id="rev-1", limit=2, cursor=first.next_cursor), git_repo)
    rest = await _call(show_run, ShowInput(run_id="rev-1", limit=2, cursor=second.next_cursor), git_repo)
    assert [e.index for e in first.events + second.events + rest.events] == [0, 1, 2, 3, 4]
    assert first.truncated and rest.next_cursor is None
    agents = await _call(show_run, ShowInput(run_id="rev-1", kind="agent"), git_repo)
    assert [(e.label, e.ok) for e in agents.events][-1] == ("judge", True) and agents.total == 3
    code, out, _ = await _cli(["workflow", "show", "rev-1", "--kind", "log"], git_repo, capsys, monkeypatch)
    assert code == 0 and out.split()[-2:] == ["log", "judged"]


async def test_read_gives_one_calls_prompt_and_output_cut_unless_full(git_repo, fake):
    fake.scenario({"match": "", "reply": "y" * 20_000, "usage": {"cost_usd": 0.5}})
    await _review(git_repo, "read-1", 'return await agent("summarise everything", {label: "long"});')
    out = await _call(read_call, ReadInput(run_id="read-1", label="long"), git_repo)
    assert out.prompt == "summarise everything" and out.status == "completed" and out.cost_usd == 0.5
    assert out.output_truncated and out.output.startswith("y" * 8000) and "--full" in out.output
    assert len(out.output) < 8200
    full = await _call(read_call, ReadInput(run_id="read-1", call=out.call_key[:6], full=True), git_repo)
    assert full.output == "y" * 20_000 and not full.output_truncated and full.call_key == out.call_key


async def test_read_says_which_labels_exist_and_refuses_an_ambiguous_or_missing_choice(git_repo):
    await _review(git_repo, "read-2", 'await agent("one", {label: "twin"}); await agent("two", {label: "twin"});')
    with pytest.raises(PalliumError) as missing:
        await _call(read_call, ReadInput(run_id="read-2", label="nobody"), git_repo)
    assert missing.value.code == "not_found" and "twin" in missing.value.hint
    with pytest.raises(PalliumError) as twins:
        await _call(read_call, ReadInput(run_id="read-2", label="twin"), git_repo)
    assert twins.value.code == "invalid_input" and len(twins.value.details["matches"]) == 2
    with pytest.raises(PalliumError) as both:
        await _call(read_call, ReadInput(run_id="read-2", label="twin", call="x"), git_repo)
    assert both.value.details["field"] == "call"


async def test_read_without_a_call_gives_the_runs_result_error_and_failures(git_repo, capsys, monkeypatch):
    await _review(git_repo)
    out = await _call(read_call, ReadInput(run_id="rev"), git_repo)
    assert (out.call_key, out.status, out.run_error) == (None, "completed", None)
    assert out.result["summary"] == "two files reviewed"
    assert [(f.primitive, f.index) for f in out.failures] == [("parallel", 1)]
    await _review(git_repo, "read-3", 'throw new Error("gave up");')
    code, text, _ = await _cli(["workflow", "read", "read-3"], git_repo, capsys, monkeypatch)
    lines = text.splitlines()
    assert code == 0 and lines[0] == "run read-3: failed" and lines[2] == "no result recorded"
    assert lines[1].startswith("error: ") and "gave up" in lines[1]


async def test_read_over_mcp_and_from_the_cli(git_repo, capsys, monkeypatch):
    await _review(git_repo)
    async with Client(build_server(toolsets="all", cwd=git_repo)) as client:
        answer = await client.call_tool("pallium_workflow_read", {"run_id": "rev-1", "label": "review:bad.py"})
    assert answer.is_error is False
    data = answer.structured_content
    assert data["prompt"] == "review bad.py" and data["status"] == "failed"
    assert data["error"]["error_class"] == "unknown" and "boom" in data["error"]["message"]
    code, out, _ = await _cli(["workflow", "read", "rev-1", "--label", "judge"], git_repo, capsys, monkeypatch)
    assert code == 0 and out.splitlines()[1:] == ["--- prompt", "judge the reviews", "--- output", "fine"]


async def test_gc_previews_then_removes_dead_worktrees_and_ended_run_folders_never_a_waiting_run(
    git_repo, fake, capsys, monkeypatch
):
    await _review(git_repo, "old-1")
    fake.scenario({"match": "fix", "write": {"src/app.py": "x = 1\n"}, "reply": "fixed"}, {"match": "", "reply": "ok"})
    waiting = 'await agent("fix it", {mode: "edit"}); await gate("ship", "ok?", {human: true}); return 1;'
    assert (await _review(git_repo, "wait-1", waiting)).status == "awaiting_approval"
    ctx = ToolContext(cwd=git_repo)
    kernel = RunStore(runner.open_store(ctx).db)
    head = git(git_repo, "rev-parse", "HEAD").strip()
    left = tree.create(kernel, repo=git_repo, run_id="old-1", name="left-over", commit=head, purpose="edit")
    kept = tree.create(kernel, repo=git_repo, run_id="old-1", name="kept", commit=head, purpose="edit")
    tree.remove(kernel, kept, keep=True)  # kept for debugging: only its run folder's removal takes it
    ctx.close()
    folder = tree.run_dir("old-1")
    assert left.is_dir() and folder.is_dir()

    recent = await _call(gc, GcInput(), git_repo)
    assert recent.worktrees == [str(left)] and recent.run_dirs == [] and not recent.confirmed
    preview = await _call(gc, GcInput(older_than=0), git_repo)
    assert [d.run_id for d in preview.run_dirs] == ["old-1"] and "wait-1: awaiting_approval" in preview.kept
    assert (preview.worktrees_total, preview.run_dirs_total) == (1, 1)
    assert left.is_dir() and folder.is_dir()  # a preview deletes nothing

    code, _, err = await _cli(["workflow", "gc", "--older-than", "0", "--confirm"], git_repo, capsys, monkeypatch)
    assert code != 0 and "admin" in err and folder.is_dir()
    args = ["workflow", "gc", "--older-than", "0", "--confirm", "--authority", "admin"]
    code, out, _ = await _cli(args, git_repo, capsys, monkeypatch)
    assert code == 0 and out.startswith("removed 1 worktree(s) and 1 run folder(s)")
    assert not left.exists() and not folder.exists() and tree.run_dir("wait-1").is_dir()
    assert str(kept) not in git(git_repo, "worktree", "list")  # unregistered from git, not just deleted
    again = await _call(gc, GcInput(older_than=0, confirm=True), git_repo, ceiling="admin")
    assert again.worktrees == [] and again.run_dirs == []


async def test_tools_list_comes_from_the_table_the_validator_uses(git_repo, capsys, monkeypatch):
    code, out, _ = await _cli(["workflow", "tools", "list", "--json"], git_repo, capsys, monkeypatch)
    calls = {c["name"]: c for c in json.loads(out)["calls"]}
    assert code == 0
    assert {name.split(".")[0] for name in calls} == API_GLOBALS
    assert {name.removeprefix("pallium.") for name in calls if name.startswith("pallium.")} == PALLIUM_HELPERS
    assert calls["verify.untilGreen"]["available"] and calls["pallium.changedNow"]["available"]
    assert calls["pallium.preflight"]["available"]
    assert all(c["available"] for c in calls.values())  # every listed call has a host behind it
    code, out, _ = await _cli(["workflow", "tools", "list", "--available-only"], git_repo, capsys, monkeypatch)
    assert "pallium.decisions.record" in out and out.startswith("agent")
    code, out, _ = await _cli(
        ["workflow", "tools", "list", "--kind", "verification", "--json"], git_repo, capsys, monkeypatch
    )
    assert code == 0 and [c["name"] for c in json.loads(out)["calls"]] == ["check", "verify.untilGreen", "gate"]
