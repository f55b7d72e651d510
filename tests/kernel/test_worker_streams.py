"""`process.run_worker`'s streams: stdin, stdout and stderr whole whatever their size (far past a pipe's
buffer), with files and a pidfd where the system has them and with pipes when output is streamed; a
cancelled worker's group is killed and the worker reaped; no thread is left per worker."""

import asyncio
import os
import sys
import threading

import pytest

from kernel.providers import process
from kernel.providers.process import Invocation, run_worker

pytestmark = pytest.mark.anyio

BIG = bytes(range(256)) * 4096  # 1 MiB: sixteen times a Linux pipe's buffer

ECHO = (
    "import sys; data = sys.stdin.buffer.read(); sys.stdout.buffer.write(data[::-1]); "
    "sys.stderr.buffer.write(str(len(data)).encode()); sys.exit(3)"
)


@pytest.mark.parametrize("streamed", [False, True], ids=["files", "pipes"])
async def test_stdin_stdout_and_stderr_come_back_whole_with_the_exit_code(tmp_path, streamed):
    lines: list[bytes] = []
    done = await run_worker(
        Invocation([sys.executable, "-c", ECHO], cwd=tmp_path, stdin=BIG),
        timeout=60,
        on_line=lines.append if streamed else None,
    )
    assert done.stdout == BIG[::-1]
    assert done.stderr == str(len(BIG)).encode()
    assert done.exit_code == 3 and not done.timed_out and not done.missing
    assert (b"\n".join(lines) == BIG[::-1]) if streamed else lines == []


async def test_without_stdin_the_worker_reads_end_of_file_at_once(tmp_path):
    code = "import sys; print(repr(sys.stdin.buffer.read()))"
    done = await run_worker(Invocation([sys.executable, "-c", code], cwd=tmp_path), timeout=60)
    assert done.stdout.strip() == b"b''" and done.exit_code == 0


async def test_a_missing_program_is_missing_and_leaves_no_descriptor_open(tmp_path):
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    done = await run_worker(Invocation([str(tmp_path / "no-such-program")], cwd=tmp_path, stdin=b"x"), timeout=5)
    assert done.missing and done.exit_code is None
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) == before


async def test_a_cancelled_worker_has_its_group_killed_and_is_reaped(tmp_path):
    spawned: list[int] = []
    code = "import subprocess, time; subprocess.Popen(['sleep', '60']); print('up', flush=True); time.sleep(60)"
    task = asyncio.ensure_future(
        run_worker(
            Invocation([sys.executable, "-c", code], cwd=tmp_path),
            timeout=60,
            on_spawn=lambda pid, _: spawned.append(pid),
        )
    )
    for _ in range(500):
        if spawned and process._running_members(spawned[0]):
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.3)  # the grandchild is started
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert process.wait_group_gone(spawned[0], timeout=10)
    for _ in range(200):  # the leader is reaped by the loop when its pidfd says it ended
        if process.process_start_ticks(spawned[0]) is None:
            break
        await asyncio.sleep(0.01)
    assert process.process_start_ticks(spawned[0]) is None  # neither running nor a zombie


@pytest.mark.skipif(not process._PIDFD, reason="no pidfd on this system: asyncio's child watcher is used")
async def test_workers_side_by_side_start_no_thread_each(tmp_path):
    seen: set[int] = set()

    def watch(pid: int, _start: int | None) -> None:
        seen.update(t.ident for t in threading.enumerate() if t.ident is not None)

    before = {t.ident for t in threading.enumerate()}
    results = await asyncio.gather(
        *(
            run_worker(Invocation(["sh", "-c", "sleep 0.2; echo ok"], cwd=tmp_path), timeout=30, on_spawn=watch)
            for _ in range(8)
        )
    )
    assert [r.stdout for r in results] == [b"ok\n"] * 8
    assert seen <= before  # no waiter thread was started for any of the eight
