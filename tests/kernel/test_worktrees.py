"""Snapshots, recorded worktrees, patch capture, staging, apply/revert and GC, on real repositories."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernel import git as kgit
from kernel.errors import PalliumError
from kernel.runstore import SCHEMA, RunStore
from kernel.store import open_global
from kernel.worktrees import tree
from kernel.worktrees.apply import apply_patches, repo_lock, revert_patches
from kernel.worktrees.snapshot import WatchedTree, snapshot, working_tree
from kernel.worktrees.staging import Staging
from tests.conftest import git, write


@pytest.fixture
def store():
    db = open_global([SCHEMA])
    yield RunStore(db)
    db.close()


def new_run(store: RunStore, repo: Path, run_id: str = "run-1") -> str:
    store.ensure_run(run_id, repo=str(repo), budget_usd=None, max_agents=1000)
    return run_id


def edit_in_worktree(store, repo, run_id, name, base, edits: dict[str, str]) -> bytes:
    path = tree.create(store, repo=repo, run_id=run_id, name=name, commit=base, purpose="edit", call_key=name)
    for rel, text in edits.items():
        write(path, rel, text)
    patch = tree.capture(path, base)
    tree.remove(store, path)
    return patch


def stage(store, staging, run_id, key, patch: bytes):
    patch_file = tree.run_dir(run_id) / "patches" / f"{key}.patch"
    patch_file.parent.mkdir(parents=True, exist_ok=True)
    patch_file.write_bytes(patch)
    result = staging.stage(key, patch_file)
    if result.ok and result.composed:
        store.put_patch(run_id=run_id, call_key=key, repo=str(staging.repo), path=str(result.composed), state="staged")
    return result


def test_snapshot_holds_uncommitted_and_untracked_work_without_touching_index_or_head(git_repo):
    write(git_repo, "src/app.py", "def main():\n    return 2\n")
    git(git_repo, "add", "src/app.py")
    write(git_repo, "src/app.py", "def main():\n    return 3\n")  # staged, then changed again
    write(git_repo, "notes/día uno.txt", "hola\n")
    write(git_repo, "debug.log", "ignored\n")
    status_before = git(git_repo, "status", "--porcelain")
    head_before = git(git_repo, "rev-parse", "HEAD")
    snap = snapshot(git_repo)
    assert git(git_repo, "status", "--porcelain") == status_before
    assert git(git_repo, "rev-parse", "HEAD") == head_before
    assert git(git_repo, "show", f"{snap.commit}:src/app.py") == "def main():\n    return 3\n"
    assert git(git_repo, "show", f"{snap.commit}:notes/día uno.txt") == "hola\n"
    files = git(git_repo, "-c", "core.quotepath=false", "ls-tree", "-r", "--name-only", snap.commit).splitlines()
    assert "debug.log" not in files
    assert snap.head == head_before.strip()


def test_snapshot_sees_a_same_size_rewrite_made_in_the_second_the_index_was_written(git_repo):
    """Git's racy-clean rule: a file as new as the index is re-read even when its size and mtime match the
    entry. A copy of the index stamped later hid such an edit (the cause of a flaky team test)."""
    git(git_repo, "config", "core.trustctime", "false")  # a rewrite's ctime cannot be set back; mtime decides
    app, index = git_repo / "src/app.py", git_repo / ".git" / "index"
    moment = (int(time.time()) - 5) * 10**9  # one whole second, as a git without nanoseconds sees it
    os.utime(app, ns=(moment, moment))
    git(git_repo, "add", "src/app.py")  # the entry records that mtime; the index is written later, so it trusts it
    app.write_text("def main():\n    return 9\n")  # the same size as the committed "return 1"
    os.utime(app, ns=(moment, moment))
    os.utime(index, ns=(moment, moment))  # as if the index was written in that same second: racily clean
    snap = snapshot(git_repo)
    assert git(git_repo, "show", f"{snap.commit}:src/app.py") == "def main():\n    return 9\n"
    assert working_tree(git_repo) == snap.tree


def test_snapshot_works_on_a_detached_head_and_in_an_empty_repository(git_repo, tmp_path):
    git(git_repo, "checkout", "-q", "--detach", "HEAD~1")
    assert snapshot(git_repo).head == git(git_repo, "rev-parse", "HEAD").strip()
    empty_repo = tmp_path / "empty"
    empty_repo.mkdir()
    git(empty_repo, "init", "-q")
    write(empty_repo, "first.txt", "x\n")
    snap = snapshot(empty_repo)
    assert snap.head is None and git(empty_repo, "show", f"{snap.commit}:first.txt") == "x\n"


def test_edit_worktree_is_recorded_detached_outside_the_repo_and_captured_as_a_patch(git_repo, store):
    run_id = new_run(store, git_repo)
    base = snapshot(git_repo).commit
    path = tree.create(store, repo=git_repo, run_id=run_id, name="c1", commit=base, purpose="edit")
    assert git_repo not in path.parents and store.worktree(str(path)).state == "active"
    write(path, "src/app.py", "def main():\n    return 5\n")
    write(path, "docs/new file.md", "new\n")
    (path / "README.md").unlink()
    patch = tree.capture(path, base)
    tree.remove(store, path)
    assert not path.exists() and store.worktree(str(path)).state == "removed"
    assert b"return 5" in patch and b"docs/new file.md" in patch and b"deleted file mode" in patch
    assert str(path) not in git(git_repo, "worktree", "list")


@pytest.mark.anyio
async def test_a_worktree_another_call_records_and_makes_during_the_outside_write_check_is_not_the_workers(
    git_repo, store
):
    """What an edit worker left beside its worktree is what no record explains; another call of the run may
    record and make a worktree there at any moment (staging, when the first patch of a team's round is
    staged). Made just after the check read the records, it was read as the worker's write and its
    patch blocked: the folder is listed first, the records read after, and only the worker's entry is left."""
    run_id = new_run(store, git_repo)
    base = snapshot(git_repo).commit
    mine = tree.create(store, repo=git_repo, run_id=run_id, name="pooled-1", commit=base, purpose="edit")
    beside = tree.entries(mine.parent)
    made: list[Path] = []

    def records() -> set[str]:
        names = {Path(row.path).name for row in store.worktrees(run_id=run_id)}
        if not made:  # the other call records and makes its worktree right after the names were read
            made.append(
                tree.create(
                    store, repo=git_repo, run_id=run_id, name="staging", commit=base, purpose="staging", files=False
                )
            )
        return names

    (mine.parent / "escaped.txt").write_text("written beside\n", encoding="utf-8")
    first = await tree.unexplained(mine.parent, beside, records)
    again = await tree.unexplained(mine.parent, beside, records)
    assert made and made[0].is_dir() and (mine.parent / "staging") == made[0]
    assert first == ["escaped.txt"] and again == ["escaped.txt"]


def test_two_edits_to_one_file_compose_in_staging_and_a_conflict_keeps_the_last_good_state(git_repo, store):
    write(git_repo, "lines.txt", "".join(f"line {i}\n" for i in range(20)))
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "lines")
    run_id = new_run(store, git_repo)
    base = snapshot(git_repo).commit
    original = (git_repo / "lines.txt").read_text()
    top = edit_in_worktree(store, git_repo, run_id, "top", base, {"lines.txt": original.replace("line 1\n", "TOP\n")})
    bottom = edit_in_worktree(
        store, git_repo, run_id, "bottom", base, {"lines.txt": original.replace("line 18\n", "BOTTOM\n")}
    )
    clash = edit_in_worktree(
        store, git_repo, run_id, "clash", base, {"lines.txt": original.replace("line 1\n", "OTHER\n")}
    )
    staging = Staging(store, repo=git_repo, run_id=run_id, base_commit=base)
    first_top = stage(store, staging, run_id, "top", top)
    assert first_top.ok
    assert stage(store, staging, run_id, "bottom", bottom).ok
    good = staging.head()
    conflict = stage(store, staging, run_id, "clash", clash)
    assert not conflict.ok and conflict.message and conflict.conflicts == ("lines.txt",)
    assert [p.name for p in staging.path.iterdir()] == [".git"], "staging composes in its index: no checkout"
    assert staging.head() == good
    assert git(staging.path, "diff", "--cached", "--name-only", "HEAD") == ""  # nothing of the clash is left
    assert git(staging.path, "ls-files", "-u") == ""
    staged = git(staging.path, "show", "HEAD:lines.txt")
    assert "TOP\n" in staged and "BOTTOM\n" in staged and "OTHER" not in staged
    assert stage(store, staging, run_id, "top", top).commit == first_top.commit, "staging a call again is a no-op"


def test_apply_then_apply_again_is_a_no_op_and_revert_restores_the_tree(git_repo, store):
    run_id = new_run(store, git_repo)
    base = snapshot(git_repo).commit
    staging = Staging(store, repo=git_repo, run_id=run_id, base_commit=base)
    stage(store, staging, run_id, "a", edit_in_worktree(store, git_repo, run_id, "a", base, {"src/app.py": "A\n"}))
    stage(store, staging, run_id, "b", edit_in_worktree(store, git_repo, run_id, "b", base, {"día nuevo.txt": "B\n"}))
    first = apply_patches(store, run_id, git_repo)
    assert first.applied == ["a", "b"]
    assert (git_repo / "src/app.py").read_text() == "A\n" and (git_repo / "día nuevo.txt").read_text() == "B\n"
    for row in store.patches(run_id):  # as if a crash lost the "applied" rows: the tree says they are in
        store.set_patch_state(run_id, row.call_key, "applying")
    again = apply_patches(store, run_id, git_repo)
    assert again.applied == [] and again.already == ["a", "b"]
    back = revert_patches(store, run_id, git_repo)
    assert back.applied == ["b", "a"]
    assert (git_repo / "src/app.py").read_text() == "def main():\n    return 1\n"
    assert not (git_repo / "día nuevo.txt").exists()
    assert git(git_repo, "status", "--porcelain") == ""
    assert revert_patches(store, run_id, git_repo).applied == []


def test_apply_refuses_a_patch_that_no_longer_fits_and_writes_nothing_of_it(git_repo, store):
    run_id = new_run(store, git_repo)
    base = snapshot(git_repo).commit
    staging = Staging(store, repo=git_repo, run_id=run_id, base_commit=base)
    stage(store, staging, run_id, "a", edit_in_worktree(store, git_repo, run_id, "a", base, {"src/app.py": "A\n"}))
    write(git_repo, "src/app.py", "the user rewrote it\n")
    with pytest.raises(PalliumError) as raised:
        apply_patches(store, run_id, git_repo)
    assert raised.value.code == "conflict"
    assert (git_repo / "src/app.py").read_text() == "the user rewrote it\n"


def test_a_repository_with_a_submodule_captures_only_the_workers_edit(git_repo, store, tmp_path):
    library = tmp_path / "library"
    library.mkdir()
    git(library, "init", "-q", "-b", "main")
    write(library, "lib.py", "x = 1\n")
    git(library, "add", "-A")
    git(library, "commit", "-qm", "lib")
    git(git_repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "vendor/lib")
    git(git_repo, "commit", "-qm", "add submodule")
    run_id = new_run(store, git_repo)
    base = snapshot(git_repo).commit
    patch = edit_in_worktree(store, git_repo, run_id, "c", base, {"src/app.py": "changed\n"})
    assert b"src/app.py" in patch and b"vendor/lib" not in patch


def test_gc_removes_worktrees_of_runs_that_no_longer_run_from_their_records(git_repo, store):
    run_id = new_run(store, git_repo)
    base = snapshot(git_repo).commit
    left = tree.create(store, repo=git_repo, run_id=run_id, name="left-behind", commit=base, purpose="edit")
    live = tree.create(store, repo=git_repo, run_id="run-live", name="busy", commit=base, purpose="edit")
    dry = tree.gc(store, is_run_live=lambda rid: rid == "run-live", dry_run=True)
    assert dry.removed == [str(left)] and left.exists()
    report = tree.gc(store, is_run_live=lambda rid: rid == "run-live")
    assert report.removed == [str(left)] and report.kept == [str(live)]
    assert not left.exists() and store.worktree(str(left)).state == "removed"
    listed = git(git_repo, "worktree", "list")
    assert str(left) not in listed and str(live) in listed


def test_a_repo_lock_left_by_a_dead_process_is_taken_over(git_repo):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from kernel.worktrees.apply import repo_lock\n"
            "with repo_lock(__import__('pathlib').Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(60)",
            str(git_repo),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(PalliumError) as raised, repo_lock(git_repo, wait_seconds=0):
        pass
    assert raised.value.code == "conflict"
    holder.kill()
    holder.wait()
    holder.stdout.close()
    with repo_lock(git_repo, wait_seconds=5):
        pass


def test_git_run_passes_extra_environment():
    assert kgit.run(
        ["var", "GIT_AUTHOR_IDENT"], Path.cwd(), env={"GIT_AUTHOR_NAME": "Zed", "GIT_AUTHOR_EMAIL": "z@z"}
    ).startswith(b"Zed <z@z>")


def test_a_worktree_folder_deleted_by_hand_is_recreated_at_the_same_path(git_repo, store):
    import shutil

    run_id = new_run(store, git_repo)
    base = snapshot(git_repo).commit
    path = tree.create(store, repo=git_repo, run_id=run_id, name="again", commit=base, purpose="edit")
    shutil.rmtree(path)
    again = tree.create(store, repo=git_repo, run_id=run_id, name="again", commit=base, purpose="edit")
    assert again == path and (path / "README.md").exists() and store.worktree(str(path)).state == "active"


def test_lock_files_a_killed_process_left_in_staging_do_not_stop_the_next_attempt(git_repo, store):
    run_id = new_run(store, git_repo)
    base = snapshot(git_repo).commit
    first = edit_in_worktree(store, git_repo, run_id, "first", base, {"src/app.py": "def main():\n    return 7\n"})
    staging = Staging(store, repo=git_repo, run_id=run_id, base_commit=base)
    assert stage(store, staging, run_id, "first", first).ok
    admin = Path((staging.path / ".git").read_text().removeprefix("gitdir: ").strip())
    for name in ("HEAD.lock", "index.lock"):  # as a `kill -9` mid-write leaves them
        (admin / name).write_text("", encoding="utf-8")
    again = Staging(store, repo=git_repo, run_id=run_id, base_commit=base)
    assert again.restart(set()) == ["first"]
    assert again.head() == base
    staged = stage(store, again, run_id, "first", first)
    assert staged.ok and git(again.path, "show", f"{staged.commit}:src/app.py") == "def main():\n    return 7\n"
    assert again.head() == staged.commit


def test_a_watched_reading_of_the_users_tree_is_kept_only_while_nothing_is_written_there(git_repo, monkeypatch):
    """The user's tree is read again (git) after any write in it, a folder made since the last reading and
    the git folder's exclude file included; while nothing was written the kept reading needs no git."""
    readings = WatchedTree(git_repo)
    seen = [readings.read()]
    steps = [
        lambda: write(git_repo, "src/app.py", "def main():\n    return 9\n"),
        lambda: write(git_repo, "docs/new/deep.md", "one\n"),
        lambda: write(git_repo, "docs/new/deep.md", "two\n"),  # in the folder made after the watch was
        lambda: write(git_repo, ".git/info/exclude", "docs/new/\n"),
        lambda: (git_repo / "README.md").unlink(),
    ]
    for step in steps:
        step()
        seen.append(readings.read())
        assert seen[-1] == working_tree(git_repo) and seen[-1] != seen[-2]
    monkeypatch.setenv("PATH", str(git_repo / "no-git-here"))
    try:
        kept = readings.read()  # nothing written since: no git needed
        write(git_repo, "src/app.py", "def main():\n    return 10\n")
        with pytest.raises(PalliumError):
            readings.read()  # written: a real reading, and there is no git
    finally:
        readings.close()
    assert kept == seen[-1]


@pytest.mark.anyio
async def test_a_first_wave_makes_its_pooled_trees_a_core_at_a_time_each_caller_its_own(git_repo, store, monkeypatch):
    # Made all at once, a wave's trees share the cores and are all ready late; a core at a time, the
    # first calls start at once. Every caller still gets a tree of its own, checked out at the commit.
    import threading

    from kernel.threads import all_of
    from kernel.worktrees.pool import ReadOnlyPool

    making, most, guard = 0, 0, threading.Lock()
    real_make = tree._make

    def counted_make(*args, **kwargs):
        nonlocal making, most
        with guard:
            making += 1
            most = max(most, making)
        try:
            return real_make(*args, **kwargs)
        finally:
            with guard:
                making -= 1

    monkeypatch.setattr(tree, "_make", counted_make)
    base = kgit.run(["rev-parse", "HEAD"], git_repo).decode().strip()
    pool = ReadOnlyPool(store, repo=git_repo, run_id=new_run(store, git_repo))
    wave = 3 * (os.cpu_count() or 1) + 1
    lent = await all_of(*(pool.take_async(base) for _ in range(wave)))
    assert len({item.path for item in lent}) == wave
    assert all((item.path / "README.md").is_file() for item in lent)
    assert 1 <= most <= (os.cpu_count() or 1)
    for item in lent:
        await pool.give_back_async(item)
    await pool.close_async()
    assert not any(item.path.exists() for item in lent)
