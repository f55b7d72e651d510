"""Runs in one process: journal replay, budgets and caps, unknown cost, gates and apply, with the fake provider."""

from __future__ import annotations

import pytest

from kernel.errors import PalliumError
from kernel.execution import AgentCall, Limits, Run
from tests.conftest import git

pytestmark = pytest.mark.anyio

DONE = {"type": "object", "properties": {"done": {"type": "boolean"}}, "required": ["done"]}


async def test_budget_refuses_the_spawn_that_would_pass_the_limit(fake, git_repo):
    fake.scenario({"match": "", "reply": "ok", "usage": {"cost_usd": 0.03}})
    run = await Run.open("budget-run", git_repo, Limits(budget_usd=0.05, estimate_usd=0.01))
    await run.agent(AgentCall("one", provider="fake"))
    await run.agent(AgentCall("two", provider="fake"))
    with pytest.raises(PalliumError) as raised:
        await run.agent(AgentCall("three", provider="fake"))
    await run.close("failed")
    assert raised.value.code == "budget_exhausted" and raised.value.details["cap"] == "budget"
    assert [c["prompt"] for c in fake.calls()] == ["one", "two"]
    assert run.budget.status()["spent_usd"] == 0.06


async def test_unknown_cost_is_counted_and_the_limit_says_it_cannot_be_enforced(fake, git_repo):
    fake.scenario({"match": "", "reply": "ok", "usage": {"input_tokens": 3, "output_tokens": 1, "cost_usd": 9}})
    run = await Run.open("unknown-run", git_repo, Limits(budget_usd=1.0))
    outcome = await run.agent(AgentCall("hello", provider="codex"))
    await run.close()
    status = run.budget.status()
    assert outcome.result.usage.cost_text == "unknown"
    assert status["unknown_cost_calls"] == 1 and status["spent"] == "$0.0000 + 1 unknown"
    assert status["enforceable"] is False and "no cost" in status["note"]


async def test_the_agent_cap_is_a_lifetime_cap_that_survives_resume(fake, git_repo):
    run = await Run.open("cap-run", git_repo, Limits(max_agents=2))
    await run.agent(AgentCall("a", provider="fake"))
    await run.agent(AgentCall("b", provider="fake"))
    await run.close("interrupted")
    resumed = await Run.open("cap-run", git_repo, Limits(max_agents=2))
    replayed = await resumed.agent(AgentCall("a", provider="fake"))
    with pytest.raises(PalliumError) as raised:
        await resumed.agent(AgentCall("c", provider="fake"))
    await resumed.close()
    assert replayed.cached and raised.value.details["cap"] == "max_agents"


async def test_identical_calls_are_two_calls_and_resume_replays_both_without_spawning(fake, git_repo):
    fake.scenario({"match": "", "reply": {"done": True}})
    run = await Run.open("twice-run", git_repo)
    first = [await run.agent(AgentCall("same", provider="fake", schema=DONE)) for _ in range(2)]
    await run.close()
    resumed = await Run.open("twice-run", git_repo)
    again = [await resumed.agent(AgentCall("same", provider="fake", schema=DONE)) for _ in range(2)]
    await resumed.close()
    assert [o.call_key[-2:] for o in first] == ["#0", "#1"]
    assert [o.call_key for o in again] == [o.call_key for o in first]
    assert all(o.cached for o in again) and again[0].result.output == {"done": True}
    assert len(fake.calls()) == 2


async def test_a_cached_answer_that_no_longer_fits_the_schema_is_run_again(fake, git_repo):
    fake.scenario({"match": "", "reply": {"done": True}})
    run = await Run.open("schema-run", git_repo)
    outcome = await run.agent(AgentCall("check", provider="fake", schema=DONE))
    stale = {"result": {**outcome.result.to_dict(), "output": {"done": "maybe"}}, "patch_state": None}
    run.store.record_completion(
        run.run_id,
        run.lease.epoch,
        call_key=outcome.call_key,
        status="completed",
        result=stale,
        cost_usd=None,
        spent=False,
    )
    await run.close()
    resumed = await Run.open("schema-run", git_repo)
    rerun = await resumed.agent(AgentCall("check", provider="fake", schema=DONE))
    await resumed.close()
    assert not rerun.cached and rerun.result.output == {"done": True} and len(fake.calls()) == 2


async def test_an_edit_that_adds_a_secret_is_blocked_and_never_applied(fake, git_repo):
    key = "AKIA" + "QWERTYUIOPASDFGH"
    fake.scenario(
        {"match": "leak", "write": {"config.py": f'KEY = "{key}"\n'}},
        {"match": "safe", "write": {"safe.txt": "fine\n"}},
    )
    run = await Run.open("secret-run", git_repo)
    leak = await run.agent(AgentCall("leak a key", mode="edit", provider="fake"))
    safe = await run.agent(AgentCall("safe edit", mode="edit", provider="fake"))
    report = run.apply()
    await run.close()
    assert leak.patch_state == "blocked" and leak.gate_violations[0]["kind"] == "secret"
    assert safe.patch_state == "staged" and report.applied == [safe.call_key] and report.skipped == [leak.call_key]
    assert not (git_repo / "config.py").exists() and (git_repo / "safe.txt").read_text() == "fine\n"


async def test_the_secret_override_lets_the_patch_through_and_is_logged(fake, git_repo):
    key = "AKIA" + "QWERTYUIOPASDFGH"
    fake.scenario({"match": "", "write": {"config.py": f'KEY = "{key}"\n'}})
    run = await Run.open("override-run", git_repo, Limits(allow_secrets=True))
    outcome = await run.agent(AgentCall("leak a key", mode="edit", provider="fake"))
    events = run.store.events(run.run_id, "gate_override")
    await run.close()
    assert outcome.patch_state == "staged"
    assert events[0]["call_key"] == outcome.call_key and events[0]["overridden"][0]["kind"] == "secret"


async def test_user_tree_is_untouched_until_apply_and_later_workers_see_staged_edits(fake, git_repo):
    fake.scenario(
        {"match": "first", "write": {"src/app.py": "def main():\n    return 2\n"}},
        {"match": "second", "append": {"src/app.py": "# seen\n"}},
    )
    run = await Run.open("seed-run", git_repo)
    await run.agent(AgentCall("first edit", mode="edit", provider="fake"))
    assert (git_repo / "src/app.py").read_text() == "def main():\n    return 1\n"
    await run.agent(AgentCall("second edit", mode="edit", provider="fake"))
    run.apply()
    await run.close()
    assert (git_repo / "src/app.py").read_text() == "def main():\n    return 2\n# seen\n"
    assert fake.calls()[0]["cwd"] != str(git_repo)


async def test_a_timed_out_worker_is_a_failed_call_that_reruns_on_resume(fake, git_repo):
    fake.scenario({"match": "", "hang": 30, "times": 1}, {"match": "", "reply": "ok"})
    run = await Run.open("timeout-run", git_repo)
    first = await run.agent(AgentCall("slow", provider="fake", timeout=1))
    await run.close()
    resumed = await Run.open("timeout-run", git_repo)
    second = await resumed.agent(AgentCall("slow", provider="fake", timeout=1))
    await resumed.close()
    assert first.result.failure.error_class == "timeout" and second.ok and not second.cached


async def test_bad_run_ids_and_isolations_are_refused(fake, git_repo):
    with pytest.raises(PalliumError) as bad_id:
        await Run.open("../escape", git_repo)
    run = await Run.open("iso-run", git_repo)
    with pytest.raises(PalliumError) as bad_iso:
        await run.agent(AgentCall("x", provider="fake", isolation="none"))
    await run.close()
    assert bad_id.value.details["field"] == "run_id" and bad_iso.value.details["field"] == "isolation"


async def test_garbage_collection_removes_what_a_dead_run_left_and_keeps_a_live_runs(fake, git_repo):
    from kernel.execution import collect_garbage
    from kernel.worktrees import tree

    run = await Run.open("gc-live", git_repo)
    live = tree.create(run.store, repo=git_repo, run_id="gc-live", name="busy", commit=run.base_commit, purpose="edit")
    orphan = tree.create(
        run.store, repo=git_repo, run_id="gc-gone", name="left", commit=run.base_commit, purpose="edit"
    )
    report = collect_garbage(run.store)
    assert report.removed == [str(orphan)] and str(live) in report.kept and not orphan.exists()
    tree.remove(run.store, live)
    await run.close()


async def test_a_change_to_the_users_tree_during_an_edit_is_recorded_but_does_not_fail_it(fake, git_repo):
    """The user editing meanwhile looks the same as a worker writing there: say so, keep the work.

    The tree the call started with is read beside the worker, not before it (so edit calls do not
    queue behind a walk of the whole repository): a write in the worker's first instant may be in
    that reading. The scripted worker writes after a second, as a user editing meanwhile would.
    """
    fake.scenario(
        {"match": "", "delay": 1.0, "write": {str(git_repo / "README.md"): "escaped\n", "inside.txt": "ok\n"}}
    )
    run = await Run.open("escape-run", git_repo)
    outcome = await run.agent(AgentCall("edit", mode="edit", provider="fake"))
    changed = run.store.events(run.run_id, "user_tree_changed")
    await run.close()
    assert outcome.ok and outcome.outside_writes == [] and outcome.patch_state == "staged"
    assert [e["paths"] for e in changed] == [["README.md"]] and changed[0]["call_key"] == outcome.call_key


async def test_an_edit_worker_that_writes_beside_its_worktree_fails_and_its_patch_is_blocked(fake, git_repo):
    fake.scenario({"match": "", "write": {"../beside.txt": "escaped\n", "inside.txt": "ok\n"}})
    run = await Run.open("beside-run", git_repo)
    outcome = await run.agent(AgentCall("edit", mode="edit", provider="fake"))
    report = run.apply()
    await run.close()
    assert outcome.result.failure.reason == "outside_write" and outcome.outside_writes == ["../beside.txt"]
    assert outcome.patch_state == "blocked" and report.applied == [] and not (git_repo / "inside.txt").exists()


async def test_a_heartbeat_extends_the_lease_and_a_fenced_run_refuses_new_calls(fake, git_repo):
    run = await Run.open("beat-run", git_repo)
    before = run.store.run(run.run_id).lease_expires_at
    assert run.lease.beat() and run.store.run(run.run_id).lease_expires_at >= before
    run.store.take_lease(
        run.run_id, {"pid": 1, "start": 1, "boot": "b", "host": "h"}, ttl=60, holder_alive=lambda _row: False
    )
    assert not run.lease.beat()
    with pytest.raises(PalliumError) as raised:
        await run.agent(AgentCall("x", provider="fake"))
    await run.lease.stop_heartbeat()
    run.store.db.close()
    assert raised.value.code == "stale" and fake.calls() == []


async def test_a_read_only_reply_that_fails_the_schema_gets_one_corrective_retry(fake, git_repo):
    fake.scenario(
        {"match": "", "times": 1, "reply": "not json", "usage": {"cost_usd": 0.01}},
        {"match": "CORRECTION REQUIRED", "reply": {"done": True}, "usage": {"cost_usd": 0.02}},
    )
    run = await Run.open("retry-run", git_repo)
    outcome = await run.agent(AgentCall("judge", provider="fake", schema=DONE))
    retries = run.store.events(run.run_id, "schema_retry")
    await run.close()
    assert outcome.ok and outcome.result.output == {"done": True}
    assert outcome.result.usage.cost_usd == pytest.approx(0.03) and len(retries) == 1
    assert len(fake.calls()) == 2


async def test_an_edit_reply_that_fails_the_schema_is_not_retried_but_its_patch_is_kept(fake, git_repo):
    fake.scenario({"match": "", "reply": "prose", "write": {"made.txt": "x\n"}})
    run = await Run.open("edit-schema-run", git_repo)
    outcome = await run.agent(AgentCall("edit", mode="edit", provider="fake", schema=DONE))
    await run.close()
    assert outcome.result.failure.error_class == "schema" and outcome.patch_state == "staged"
    assert len(fake.calls()) == 1


async def test_a_run_opened_in_a_subfolder_works_on_the_repository_root(fake, git_repo):
    run = await Run.open("subdir-run", git_repo / "src")
    await run.close()
    assert run.repo == git_repo.resolve()


async def test_the_heartbeat_keeps_extending_the_lease_while_the_run_is_open(fake, git_repo):
    import anyio

    run = await Run.open("heartbeat-run", git_repo, Limits(lease_ttl=0.3))
    first = run.store.run(run.run_id).heartbeat_at
    with anyio.fail_after(5):
        while run.store.run(run.run_id).heartbeat_at == first:
            await anyio.sleep(0.02)  # yield to the heartbeat task; the deadline above bounds the wait
    row = run.store.run(run.run_id)
    await run.close()
    assert row.lease_expires_at > row.heartbeat_at


async def test_a_replayed_edit_is_staged_again_so_later_calls_see_it(fake, git_repo):
    fake.scenario(
        {"match": "rewrite", "write": {"src/app.py": "def main():\n    return 2\n"}},
        {"match": "look", "reply": "looked"},
    )
    run = await Run.open("restage-run", git_repo)
    await run.agent(AgentCall("rewrite app", mode="edit", provider="fake"))
    await run.agent(AgentCall("look at app", provider="fake"))
    await run.close()  # removes the staging worktree, as a finished or garbage-collected run has none
    spawned = len(fake.calls())
    resumed = await Run.open("restage-run", git_repo)
    edit = await resumed.agent(AgentCall("rewrite app", mode="edit", provider="fake"))
    look = await resumed.agent(AgentCall("look at app", provider="fake"))
    staged = git(resumed.staging.path, "show", f"{resumed.staging.head()}:src/app.py")
    await resumed.close()
    assert edit.cached and look.cached and len(fake.calls()) == spawned
    assert staged == "def main():\n    return 2\n"


async def test_an_edit_worker_that_crashes_after_writing_leaves_no_patch_to_apply(fake, git_repo):
    fake.scenario({"match": "", "write": {"half.txt": "half done\n"}, "crash_after_write": True})
    run = await Run.open("crash-edit-run", git_repo)
    outcome = await run.agent(AgentCall("edit", mode="edit", provider="fake"))
    report = run.apply()
    patches = run.store.patches(run.run_id)
    live = run.store.worktrees(run_id=run.run_id, states=("creating", "active", "captured", "kept"))
    await run.close()
    assert outcome.result.failure.error_class == "crash" and outcome.patch_state == "discarded"
    assert patches == [] and report.applied == [] and not (git_repo / "half.txt").exists()
    assert live == []


async def test_an_edit_worker_that_times_out_after_writing_leaves_no_patch_to_apply(fake, git_repo, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER_HALFWAY_COMMAND", "echo half > half.txt; sleep 30")
    run = await Run.open("timeout-edit-run", git_repo)
    outcome = await run.agent(AgentCall("edit", mode="edit", provider="halfway", timeout=1))
    report = run.apply()
    patches = run.store.patches(run.run_id)
    await run.close()
    assert outcome.result.failure.error_class == "timeout" and outcome.patch_state == "discarded"
    assert patches == [] and report.applied == [] and not (git_repo / "half.txt").exists()


async def test_a_call_whose_attempt_never_completed_is_charged_its_estimate_on_resume(fake, git_repo):
    fake.scenario({"match": "", "reply": "ok", "usage": {"cost_usd": 0.01}})
    limits = Limits(budget_usd=0.025, estimate_usd=0.01)
    run = await Run.open("lost-run", git_repo, limits)
    # an orchestrator that died after spawning this worker left only its intent row
    request = run.request_of(AgentCall("lost", provider="fake"))
    key, seq = run.journal.key_for("agent", request)
    run.store.record_intent(
        run.run_id, run.lease.epoch, call_key=key, op="agent", request=request, seq=seq, counts_as_agent=True
    )
    await run.close("interrupted")
    resumed = await Run.open("lost-run", git_repo, limits)
    charged = resumed.budget.status()
    await resumed.agent(AgentCall("one", provider="fake"))
    with pytest.raises(PalliumError) as raised:
        await resumed.agent(AgentCall("two", provider="fake"))
    await resumed.close("failed")
    again = await Run.open("lost-run", git_repo, limits)  # charged once, not on every resume
    unknown = again.budget.unknown_cost_calls
    await again.close("failed")
    assert charged["unknown_cost_calls"] == 1 and charged["enforceable"] is False
    assert raised.value.code == "budget_exhausted" and [c["prompt"] for c in fake.calls()] == ["one"]
    assert unknown == 1


async def test_the_corrective_retry_counts_as_an_agent_and_is_skipped_past_the_cap(fake, git_repo):
    fake.scenario(
        {"match": "CORRECTION REQUIRED", "reply": {"done": True}},
        {"match": "", "reply": "not json"},
    )
    run = await Run.open("retry-cap-run", git_repo, Limits(max_agents=1))
    capped = await run.agent(AgentCall("judge", provider="fake", schema=DONE))
    await run.close()
    counted = await Run.open("retry-count-run", git_repo)
    retried = await counted.agent(AgentCall("judge", provider="fake", schema=DONE))
    started = counted.store.run(counted.run_id).agents_started
    await counted.close()
    assert capped.result.failure.error_class == "schema" and len(fake.calls()) == 3
    assert retried.ok and started == 2 and counted.budget.agents_started == 2


async def test_a_call_can_start_a_native_session_and_a_later_one_resume_it(fake, git_repo):
    session, other = "6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    fake.scenario({"match": "", "reply": "ok"})
    run = await Run.open("session-run", git_repo)
    first = await run.agent(AgentCall("start", provider="claude", new_session=session))
    later = await run.agent(AgentCall("go on", provider="claude", resume_session=session))
    await run.close()
    resumed = await Run.open("session-run", git_repo)
    replayed = await resumed.agent(AgentCall("start", provider="claude", new_session=session))
    elsewhere = await resumed.agent(AgentCall("go on", provider="claude", resume_session=other))
    await resumed.close()
    argv = [c["argv"] for c in fake.calls()]
    assert argv[0][argv[0].index("--session-id") + 1] == session and "--resume" not in argv[0]
    assert argv[1][argv[1].index("--resume") + 1] == session and "--session-id" not in argv[1]
    assert first.result.session_id == session and later.ok
    assert replayed.cached and not elsewhere.cached  # the session is part of what names a call
    assert argv[2][argv[2].index("--resume") + 1] == other and len(argv) == 3


async def test_a_recorded_answer_that_never_saw_an_edit_made_anew_before_it_runs_again(fake, git_repo):
    """The tree a call read is checked on replay, not put in its key: a later attempt that made an edit
    the recorded answer never saw runs the call again; the attempt after that replays both."""
    fake.scenario(
        {"match": "rewrite", "write": {"src/app.py": "def main():\n    return 2\n"}},
        {"match": "look", "reply": "looked"},
    )
    look = AgentCall("look at app", provider="fake")
    run = await Run.open("tree-key-run", git_repo)
    before = await run.agent(look)
    await run.close()
    second = await Run.open("tree-key-run", git_repo)
    await second.agent(AgentCall("rewrite app", mode="edit", provider="fake"))
    after = await second.agent(look)  # the same request, but it now reads the edited tree
    await second.close()
    spawned = len(fake.calls())
    third = await Run.open("tree-key-run", git_repo)
    edit = await third.agent(AgentCall("rewrite app", mode="edit", provider="fake"))
    again = await third.agent(look)
    await third.close()
    assert not before.cached and not after.cached and after.call_key == before.call_key
    assert fake.calls()[2]["cwd"] != str(git_repo)
    assert edit.cached and again.cached and again.call_key == after.call_key and len(fake.calls()) == spawned == 3


async def test_edits_made_together_replay_from_the_journal_even_when_resumed_one_after_the_other(fake, git_repo):
    import asyncio

    fake.scenario(
        {"match": "top", "write": {"top.txt": "top\n"}},
        {"match": "bottom", "write": {"bottom.txt": "bottom\n"}},
        {"match": "review", "reply": "fine"},
    )
    top, bottom = (
        AgentCall("edit top", mode="edit", provider="fake"),
        AgentCall("edit bottom", mode="edit", provider="fake"),
    )
    review = AgentCall("review", provider="fake")
    run = await Run.open("together-run", git_repo)
    await asyncio.gather(run.agent(top), run.agent(bottom))  # both read the base tree
    await run.agent(review)
    await run.close()
    spawned = len(fake.calls())
    resumed = await Run.open("together-run", git_repo)
    replayed = [await resumed.agent(top), await resumed.agent(bottom), await resumed.agent(review)]
    staged = git(resumed.staging.path, "ls-tree", "--name-only", resumed.staging.head())
    await resumed.close()
    assert all(o.cached for o in replayed) and len(fake.calls()) == spawned == 3
    assert "top.txt" in staged and "bottom.txt" in staged
