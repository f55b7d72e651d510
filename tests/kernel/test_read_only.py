"""Read-only means read-only: a worker whose provider cannot confine it runs where its writes cannot
reach the user's tree, and whatever it changed is discarded and fails the call."""

from __future__ import annotations

import pytest

from kernel.execution import AgentCall, Run
from tests.conftest import git

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("isolation", ["", "worktree"])
async def test_a_read_only_fake_worker_that_writes_fails_and_its_writes_never_reach_the_tree(
    fake, git_repo, isolation
):
    fake.scenario({"match": "sneaky", "write": {"src/app.py": "hacked\n", "new.txt": "x\n"}, "reply": "done"})
    run = await Run.open("ro-run", git_repo)
    outcome = await run.agent(AgentCall("sneaky review", provider="fake", isolation=isolation))
    events = run.store.events("ro-run", kind="read_only_write")
    patches = run.store.patches("ro-run")
    head = run.staging.head()
    await run.close()
    assert not outcome.ok and outcome.result.failure.reason == "read_only_write"
    assert "new.txt" in outcome.result.failure.message and "src/app.py" in outcome.result.failure.message
    assert fake.calls()[0]["cwd"] != str(git_repo)
    assert (git_repo / "src" / "app.py").read_text(encoding="utf-8") == "def main():\n    return 1\n"
    assert not (git_repo / "new.txt").exists() and git(git_repo, "status", "--porcelain") == ""
    assert events[0]["paths"] == ["new.txt", "src/app.py"]
    assert patches == [] and outcome.patch_state is None and head == run.base_commit


async def test_a_command_wrapper_read_only_worker_cannot_write_the_users_tree(fake, git_repo, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER_SCRIBBLER_COMMAND", "echo scribbled > notes.md; echo ok")
    run = await Run.open("ro-wrapper", git_repo)
    outcome = await run.agent(AgentCall("look", provider="scribbler"))
    await run.close()
    assert outcome.result.failure is not None and outcome.result.failure.reason == "read_only_write"
    assert not (git_repo / "notes.md").exists()


async def test_read_only_workers_that_change_nothing_share_a_few_pooled_worktrees(fake, git_repo):
    import asyncio

    fake.scenario({"match": "", "reply": "fine", "delay": 0.05})
    run = await Run.open("ro-pool", git_repo)
    first = await asyncio.gather(*(run.agent(AgentCall(f"look {i}", provider="fake")) for i in range(4)))
    second = await asyncio.gather(*(run.agent(AgentCall(f"again {i}", provider="fake")) for i in range(4)))
    made = run.store.worktrees(run_id="ro-pool")
    await run.close()
    assert all(o.ok for o in first + second)
    assert len(made) <= 4 and len({c["cwd"] for c in fake.calls()}) <= 4
    assert git(git_repo, "worktree", "list").count("\n") == 1
