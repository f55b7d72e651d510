"""A run's caps and answers: concurrency and timeouts enforced, exit codes, and run ids that name nothing."""

import json
from pathlib import Path

import pytest

from kernel.context import ToolContext
from kernel.errors import PalliumError
from pallium_mcp.cli import main
from services.workflows.models import RunInput, RunRefInput
from services.workflows.tools import run, status

FOUR = 'return await parallel(["a", "b", "c", "d"], (f) => agent("work on " + f, {label: f}));'


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


def _cli(repo: Path, monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(repo)
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _most_at_once(log: list[dict]) -> int:
    """The most agents alive together: the fake logs a line when one starts, and each appends `{"end": 1}`."""
    alive = most = 0
    for entry in log:
        alive += -1 if "end" in entry else 1
        most = max(most, alive)
    return most


def test_max_concurrent_agents_bounds_how_many_agents_run_at_once(git_repo: Path, fake, monkeypatch, capsys):
    log = fake.root / "calls.jsonl"
    fake.scenario({"match": "work on", "delay": 1, "append": {str(log): '{"end": 1}\n'}, "reply": "done"})
    code, out, _ = _cli(git_repo, monkeypatch, capsys, "workflow", "run", "t", "--source", FOUR, "--json")
    assert code == 0 and _most_at_once(fake.calls()) == 4  # unbounded (default 16): all four together
    log.unlink()
    args = ("workflow", "run", "t", "--source", FOUR, "--max-concurrent-agents", "2", "--json")
    code, out, _ = _cli(git_repo, monkeypatch, capsys, *args)
    assert code == 0 and json.loads(out)["agents"]["succeeded"] == 4
    assert _most_at_once(fake.calls()) == 2


def test_agent_timeout_and_timeout_seconds_kill_an_agent_that_runs_too_long(git_repo: Path, fake, monkeypatch, capsys):
    fake.scenario({"match": "slow", "hang": 120}, {"match": "", "reply": "ok"})
    source = 'return await parallel(["slow one"], (p) => agent(p));'
    code, out, _ = _cli(
        git_repo, monkeypatch, capsys, "workflow", "run", "t", "--source", source, "--agent-timeout", "1", "--json"
    )
    failed = json.loads(out)
    assert code == 1 and failed["agents"] == {"total": 1, "succeeded": 0, "failed": 1, "replayed": 0}
    assert "(timeout)" in failed["failures"][0]["error"]
    per_call = 'return await parallel(["slow two"], (p) => agent(p, {timeout_seconds: 1}));'
    code, out, _ = _cli(git_repo, monkeypatch, capsys, "workflow", "run", "t", "--source", per_call, "--json")
    assert code == 1 and "(timeout)" in json.loads(out)["failures"][0]["error"]


def test_a_run_where_the_provider_fails_for_every_agent_exits_non_zero(git_repo: Path, fake, monkeypatch, capsys):
    fake.scenario({"match": "", "exit": 1, "stderr": "provider down"})
    code, out, _ = _cli(git_repo, monkeypatch, capsys, "workflow", "run", "t", "--source", FOUR)
    assert code == 1
    assert out.splitlines()[0].startswith("VERDICT: NOT FINISHED (completed) — 0/4 agents complete; 4 agents failed")


@pytest.mark.anyio
async def test_an_unknown_run_id_is_not_found_and_an_ambiguous_prefix_is_refused_with_the_matches(git_repo, fake):
    fake.scenario({"match": "", "reply": "ok"})
    ctx = ToolContext(cwd=git_repo)
    try:
        for run_id in ("wf-same-1", "wf-same-2"):
            await run(RunInput(task="t", source="return 1;", id=run_id), ctx)
        with pytest.raises(PalliumError) as unknown:
            await status(RunRefInput(run_id="no-such-run"), ctx)
        with pytest.raises(PalliumError) as ambiguous:
            await status(RunRefInput(run_id="wf-same"), ctx)
        unique = await status(RunRefInput(run_id="wf-same-2"), ctx)
    finally:
        ctx.close()
    assert unknown.value.code == "not_found"
    assert ambiguous.value.code == "invalid_input"
    assert ambiguous.value.details["matches"] == ["wf-same-1", "wf-same-2"]
    assert unique.id == "wf-same-2"


def test_the_cli_exits_non_zero_for_an_unknown_run_id(git_repo: Path, monkeypatch, capsys):
    code, _, err = _cli(git_repo, monkeypatch, capsys, "workflow", "report", "nothing-like-this", "--json")
    assert code != 0 and json.loads(err)["error"]["code"] == "not_found"
