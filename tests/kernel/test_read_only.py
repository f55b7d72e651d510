"""Read-only means read-only: a worker whose provider cannot confine it runs where its writes cannot
reach the user's tree, and whatever it changed is discarded and fails the call."""

from __future__ import annotations

import pytest

from kernel.execution import AgentCall, Run
from tests.conftest import git

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("isolation", ["", "worktree"])
async def test_a_read_only_fake_worker_that_writes_fails_and_its_writes_never_reach_the_tree(fake, git_repo, isolation):
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


# Writes a worker can make in its lent tree, each at once (the tree's files were just written, in the
# same tick of a coarse clock) and in a tree lent before: the stat comparison that replaced `git status`
# must see each of them, and `git status` then says what changed.
WRITES = {
    "same_size_rewrite": "printf 'def main():\\n    return 2\\n' > src/app.py",
    "same_size_time_put_back": "t=$(stat -c %y src/app.py); printf 'def main():\\n    return 3\\n' > src/app.py; "
    'touch -d "$t" src/app.py',
    "new_ignored_file": "printf 'build/\\n' > .git/../.gitignore.tmp; mkdir -p .cache && echo x > .cache/x; "
    "rm .gitignore.tmp",
    "deleted_file": "rm README.md",
    "mode_change": "chmod +x src/app.py",
    "staged_edit": "printf 'def main():\\n    return 4\\n' > src/app.py && git add src/app.py && "
    "git checkout -q -- src/app.py",
    "new_file_in_a_new_folder": "mkdir -p docs/notes && echo x > docs/notes/new.md",
    "hard_link_of_a_tracked_file": "ln src/app.py src/copy.py",
    "head_moved_by_git": "git checkout -q --detach HEAD~1",
    "file_in_a_folder_made_before_it_was_lent_written": "echo more >> tests/test_app.py",
}


@pytest.mark.parametrize("write", sorted(WRITES))
async def test_every_kind_of_write_in_a_lent_tree_is_seen(fake, git_repo, monkeypatch, write):
    import asyncio

    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER_LOOKER_COMMAND", "sleep 0.05; echo ok")
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER_WRITER_COMMAND", WRITES[write] + "; echo ok")
    run = await Run.open(f"ro-{write.replace('_', '-')}", git_repo)
    fresh = await run.agent(AgentCall("write at once", provider="writer"))  # a tree made this instant
    looks = await asyncio.gather(*(run.agent(AgentCall(f"look {i}", provider="looker")) for i in range(3)))
    again = await run.agent(AgentCall("write again", provider="writer"))  # a tree lent clean before
    after = await run.agent(AgentCall("look after", provider="looker"))
    await run.close()
    for outcome in (fresh, again):
        assert outcome.result.failure is not None and outcome.result.failure.reason == "read_only_write", outcome
    assert all(o.ok for o in [*looks, after])
    assert git(git_repo, "status", "--porcelain") == ""


def test_a_watch_on_a_tree_sees_writes_anywhere_in_it_and_not_reads(tmp_path):
    """The kernel's watch that lets an untouched lent tree go back without `git status`: every write in any
    folder (and in the tree's git folder) queues an event; reading makes none."""
    from kernel.worktrees.watch import open_watch

    tree, admin = tmp_path / "tree", tmp_path / "admin"
    (tree / "a" / "b").mkdir(parents=True)
    admin.mkdir()
    (tree / "a" / "b" / "deep.txt").write_text("x\n", encoding="utf-8")
    (admin / "HEAD").write_text("0" * 40 + "\n", encoding="utf-8")
    watch = open_watch(tree, admin)
    if watch is None:
        pytest.skip("no inotify here: the pool walks the tree instead")
    seen = []
    for act in (
        lambda: (tree / "a" / "b" / "deep.txt").read_text(encoding="utf-8"),
        lambda: (tree / "a" / "b" / "deep.txt").write_text("y\n", encoding="utf-8"),
        lambda: (tree / "a" / "b" / "deep.txt").chmod(0o755),
        lambda: (tree / "new").mkdir(),
        lambda: (tree / "a" / "b" / "deep.txt").rename(tree / "a" / "moved.txt"),
        lambda: (admin / "HEAD").write_text("1" * 40 + "\n", encoding="utf-8"),
        lambda: (tree / "a" / "moved.txt").unlink(),
        lambda: sorted(p.name for p in tree.rglob("*")),
    ):
        act()
        seen.append(watch.written())
    watch.close()
    assert seen == [False, True, True, True, True, True, True, False]
