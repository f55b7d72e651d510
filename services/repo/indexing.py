"""`pallium index`: both halves under one cross-process lock, written together in one transaction.

The lock makes a second run wait (or say one is running). The run is one transaction: parsed
contents are stored as they come while `git log` runs in its own process, and the rest of both
halves and the watermarks are written once both are read, so a crash or a failure in either half
leaves the whole index as it was before the run: freshness can never call an index fresh whose
git half did not catch up.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from kernel import clock, git, locks, offload, paths
from kernel.store import Database
from services.repo import parsing
from services.repo.index_content import read_content
from services.repo.index_git import (
    Commit,
    GitHalfResult,
    HistoryPlan,
    Pairs,
    apply_history,
    clone_notes,
    plan_history,
    read_history,
)
from services.repo.models import IndexOutput
from services.repo.store import RepoStore

__all__ = ["run_index"]

LOCK_WAIT_SECONDS = 30.0
T = TypeVar("T")


def run_index(
    db: Database,
    root: Path,
    *,
    full: bool,
    untracked: bool,
    now: clock.Clock,
    progress: Callable[[int, int, str], None],
    wait_seconds: float = LOCK_WAIT_SECONDS,
) -> IndexOutput:
    started = time.perf_counter()
    store = RepoStore(db)
    lock = paths.repo_state_dir(root) / "index.lock"
    with locks.exclusive(lock, what="pallium index", wait_seconds=wait_seconds):
        plan = plan_history(store, root, full=full)
        # `git log` runs in its own process while files are parsed, and the parsed contents are stored
        # as they come, inside the run's one transaction: a failure anywhere rolls all of it back.
        with ThreadPoolExecutor(max_workers=1) as pool, db.transaction():
            reading = pool.submit(_timed, _read_history, root, plan)
            written: list[tuple[GitHalfResult, float]] = []

            def write_history() -> None:
                # The history is written as soon as it is read, between two chunks of parsed files,
                # rather than after the last: then it is not part of the run's tail, which this
                # process works through alone while the parsing children have stopped.
                if written:
                    return
                (commits, pairs, notes), read_seconds = reading.result()  # only a missing git or a timeout raise
                git_started = time.perf_counter()
                history = apply_history(store, plan, commits, pairs, notes)
                written.append((history, read_seconds + time.perf_counter() - git_started))

            def between_chunks() -> None:
                if reading.done():
                    write_history()

            # Facts an older parser wrote are parsed again: they are a function of the parser too.
            reparse = full or store.state().get("facts_version") != parsing.FACTS_VERSION
            half = read_content(
                store,
                root,
                untracked=untracked,
                full=reparse,
                progress=progress,
                write_facts=True,
                after_chunk=between_chunks,
            )
            write_history()
            progress(1, 1, "writing the index")
            content = half.write(store)
            history, git_seconds = written[0]
            store.set_state(
                {
                    "content_head": plan.head or "",
                    "indexed_at": clock.iso_utc(now.now()),
                    "untracked": "1" if untracked else "0",
                    "facts_version": parsing.FACTS_VERSION,
                }
            )
    return IndexOutput(
        repo=str(root),
        watermark=history.watermark,
        commits_read=history.commits_read,
        commits_total=store.commit_count(),
        history_rebuilt=history.rebuilt,
        shallow=history.shallow,
        files_parsed=content.files_parsed,
        files_reused=content.files_reused,
        files_read=content.files_read,
        files_skipped=dict(sorted(content.skipped.items())),
        files_changed=len(content.changed_paths),
        files_removed=len(content.removed_paths),
        git_seconds=round(git_seconds, 3),
        duration_seconds=round(time.perf_counter() - started, 3),
        notes=[*clone_notes(root, shallow=history.shallow), *history.notes],
    )


def _read_history(root: Path, plan: HistoryPlan) -> tuple[list[Commit], Pairs | None, list[str]]:
    """`read_history` and the co-change pairs, in a child process when the whole history is read.

    Splitting the log into commits and counting the pairs is Python work of about a second and a
    half on ten thousand commits; in this process it would hold the interpreter lock against the
    storing of parsed contents, which is what the cold index waits on. A short read after the
    watermark stays here, where it costs less than a child's start. A child that fails leaves the
    read to this process, so a `git` error surfaces as it would have.
    """
    if plan.rebuilt and plan.revision is not None and offload.worth_a_child() and _long_history(root, plan.revision):
        target = "services.repo.index_git:read_history_work"
        with contextlib.suppress(offload.OffloadFailed), offload.Offload(target, [(root, plan)], ahead=1) as child:
            for read in child:
                return read
    commits, notes = read_history(root, plan)
    return commits, None, notes  # `apply_history` counts the pairs


# Below this many commits the log is read here: a child's start (an interpreter and its imports,
# about a fifth of a second of CPU) costs more than the split and the pairs of a short history.
_CHILD_COMMITS = 400


def _long_history(root: Path, revision: str) -> bool:
    """True when `revision` has at least `_CHILD_COMMITS` commits (git stops counting there)."""
    counted = git.run(["rev-list", "--count", f"--max-count={_CHILD_COMMITS}", revision], root, check=False)
    return counted.strip().isdigit() and int(counted) >= _CHILD_COMMITS


def _timed(fn: Callable[..., T], *args: object) -> tuple[T, float]:
    started = time.perf_counter()
    return fn(*args), time.perf_counter() - started
