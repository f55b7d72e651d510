"""pallium.decisions.record and .search from scripts, the run's report, and `pallium workflow decisions`."""

import json
from pathlib import Path

import anyio
import pytest

from kernel.context import ToolContext
from kernel.errors import PalliumError
from pallium_mcp.cli import main
from services.workflows import runner
from services.workflows.inspect_models import ReportInput
from services.workflows.inspect_tools import report_run
from services.workflows.models import ResumeInput, RunInput
from services.workflows.tools import resume, run

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


async def _call(handler, inp, repo: Path, ceiling: str = "edit"):
    ctx = ToolContext(ceiling=ceiling, cwd=repo)
    try:
        return await handler(inp, ctx)
    finally:
        ctx.close()


RECORD_THEN_WORK = """
const decision = await pallium.decisions.record("Store runs in SQLite", "one file, no server", "storage", "db", "db");
const work = await agent("do the work");
const found = await pallium.decisions.search("sqlite");
return {decision, work, titles: found.map((d) => d.title), count: found.length, same: found.decisions.length};
"""


async def test_a_decision_recorded_before_a_resume_is_stored_once_found_and_reported(git_repo, fake):
    fake.scenario({"match": "do the work", "exit": 1, "times": 1}, {"match": "", "reply": "done"})
    failed = await _call(run, RunInput(task="t", source=RECORD_THEN_WORK, id="dec-1"), git_repo)
    assert failed.status == "failed"
    resumed = await _call(resume, ResumeInput(run_id="dec-1"), git_repo)
    assert resumed.status == "completed", resumed.error
    decision = resumed.result["decision"]
    assert {k: decision[k] for k in ("run_id", "title", "body", "tags", "source")} == {
        "run_id": "dec-1",
        "title": "Store runs in SQLite",
        "body": "one file, no server",
        "tags": ["storage", "db"],
        "source": "workflow",
    }
    assert resumed.result["titles"] == ["Store runs in SQLite"]
    assert resumed.result["count"] == resumed.result["same"] == 1
    ctx = ToolContext(ceiling="observe", cwd=git_repo)
    rows = runner.open_store(ctx).decisions(run_id="dec-1", limit=10)
    ctx.close()
    assert [r.id for r in rows] == [decision["id"]]
    report = await _call(report_run, ReportInput(run_id="dec-1"), git_repo, ceiling="observe")
    assert [(d.title, d.tags) for d in report.decisions] == [("Store runs in SQLite", ["storage", "db"])]


async def test_search_lists_recorded_decisions_before_the_repositorys_commit_notes(git_repo):
    source = """
await pallium.decisions.record("Keep the demo small", "a tiny app is easier to test");
const found = await pallium.decisions.search("demo", 5);
return {sources: found.map((d) => d.source), titles: found.map((d) => d.title), query: found.query,
        shas: found.filter((d) => d.source === "git").map((d) => typeof d.sha)};
"""
    out = await _call(run, RunInput(task="t", source=source, id="dec-2"), git_repo)
    assert out.status == "completed", out.error
    assert out.result == {
        "sources": ["workflow", "git"],
        "titles": ["Keep the demo small", "Start the demo"],
        "query": "demo",
        "shas": ["string"],
    }


async def test_recording_without_a_title_fails_the_call(git_repo):
    source = 'await pallium.decisions.record("  ", "x");'
    out = await _call(run, RunInput(task="t", source=source, id="dec-3"), git_repo)
    assert out.status == "failed" and "title" in out.error


async def test_cli_lists_recorded_decisions_of_the_current_repository(git_repo, capsys, monkeypatch):
    source = 'await pallium.decisions.record("Use WAL mode", "readers never block", "sqlite"); return 1;'
    await _call(run, RunInput(task="t", source=source, id="dec-4"), git_repo)
    code, out = await _cli(["workflow", "decisions", "wal", "--json"], git_repo, capsys, monkeypatch)
    listed = json.loads(out)
    assert code == 0
    assert [(d["run_id"], d["title"], d["tags"]) for d in listed["decisions"]] == [
        ("dec-4", "Use WAL mode", ["sqlite"])
    ]
    code, out = await _cli(["workflow", "decisions", "--run-id", "dec-4"], git_repo, capsys, monkeypatch)
    assert code == 0 and "Use WAL mode  [sqlite]" in out
    code, out = await _cli(["workflow", "decisions", "nothing like it"], git_repo, capsys, monkeypatch)
    assert code == 0 and out.startswith("no recorded decisions")


async def test_decisions_of_unknown_runs_are_not_found(git_repo):
    from services.workflows.decisions import DecisionsInput, list_decisions

    with pytest.raises(PalliumError) as missing:
        await _call(list_decisions, DecisionsInput(run_id="nope"), git_repo, ceiling="observe")
    assert missing.value.code == "not_found"


async def test_a_recorded_decision_is_an_event_of_the_run(git_repo):
    from services.workflows.inspect_models import ShowInput
    from services.workflows.inspect_tools import show_run

    source = 'phase("plan"); await pallium.decisions.record("Split the module", "it grew past 600 lines");'
    await _call(run, RunInput(task="t", source=source, id="dec-5"), git_repo)
    shown = await _call(show_run, ShowInput(run_id="dec-5", kind="decision"), git_repo, ceiling="observe")
    assert [(e.phase, e.text) for e in shown.events] == [("plan", "Split the module")]


async def test_a_long_body_is_cut_in_the_report_and_an_oversized_one_refused(git_repo):
    source = 'await pallium.decisions.record("Long", "x".repeat(5000)); return 1;'
    await _call(run, RunInput(task="t", source=source, id="dec-6"), git_repo)
    short = await _call(report_run, ReportInput(run_id="dec-6"), git_repo, ceiling="observe")
    full = await _call(report_run, ReportInput(run_id="dec-6", full=True), git_repo, ceiling="observe")
    assert len(short.decisions[0].body) < 700 and "--full" in short.decisions[0].body
    assert full.decisions[0].body == "x" * 5000
    huge = await _call(
        run, RunInput(task="t", source='await pallium.decisions.record("t", "x".repeat(30000));'), git_repo
    )
    assert huge.status == "failed" and "at most" in huge.error
