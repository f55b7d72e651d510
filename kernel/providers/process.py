"""The one place that starts provider processes: own process group, stdin closed, timeout kills the group.

A worker may start its own children (a CLI that shells out, a test runner); killing only the direct
child would orphan them and they would keep spending. Every worker therefore leads a new session,
and both a timeout and a normal exit end with the whole group being killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Completed", "Invocation", "kill_group", "probe", "process_start_ticks", "run_worker", "wait_group_gone"]

TERM_GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class Invocation:
    """A command to run: argv, extra environment, and bytes for stdin (then closed); None means /dev/null."""

    argv: list[str]
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)
    stdin: bytes | None = None


@dataclass(frozen=True)
class Completed:
    stdout: bytes
    stderr: bytes
    exit_code: int | None  # negative: killed by that signal; None: never started
    duration_ms: int
    timed_out: bool = False
    missing: bool = False  # the program was not found or not executable


async def run_worker(
    inv: Invocation,
    *,
    timeout: float | None,
    on_spawn: Callable[[int, int | None], None] | None = None,
    on_line: Callable[[bytes], None] | None = None,
) -> Completed:
    """Run `inv` in a new process group; `on_spawn(pgid, start_ticks)` lets a journal record it first.

    `on_line` sees each line of standard output as it arrives (a CLI that streams events says who it
    is before it finishes: codex's thread id comes first), so a caller can record it durably before
    the worker, or this process, dies.

    Without `on_line` the worker's standard streams are files in memory (stdin filled before it starts)
    and its end is heard on a pidfd: asyncio's pipes and child watcher cost a thread started per
    worker and a transport per stream, all on the event loop that every call of a fan-out waits on.
    """
    if on_line is None and _PIDFD:
        return await _run_with_files(inv, timeout=timeout, on_spawn=on_spawn)
    return await _run_with_pipes(inv, timeout=timeout, on_spawn=on_spawn, on_line=on_line)


async def _run_with_files(
    inv: Invocation, *, timeout: float | None, on_spawn: Callable[[int, int | None], None] | None
) -> Completed:
    started = time.monotonic()
    out, err = _memory_file("stdout"), _memory_file("stderr")
    given = None
    try:
        if inv.stdin is not None:
            given = _memory_file("stdin")
            _write_all(given, inv.stdin)
            os.lseek(given, 0, os.SEEK_SET)
        try:
            proc = subprocess.Popen(
                inv.argv,
                cwd=inv.cwd,
                env={**os.environ, **inv.env},
                stdin=given if given is not None else subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
            return Completed(b"", str(exc).encode(), None, _ms(started), missing=True)
        finally:
            if given is not None:
                os.close(given)  # the worker holds its own copy
        ended = _ended(proc)
        timed_out = False
        try:
            if on_spawn is not None:  # inside: a journal that refuses the write (a takeover) ends the worker
                on_spawn(proc.pid, process_start_ticks(proc.pid))
            try:
                await asyncio.wait_for(asyncio.shield(ended), timeout=timeout or None)
            except TimeoutError:
                timed_out = True
                _kill(proc.pid, signal.SIGTERM)
                try:
                    await asyncio.wait_for(asyncio.shield(ended), timeout=TERM_GRACE_SECONDS)
                except TimeoutError:
                    _kill(proc.pid, signal.SIGKILL)
                    await asyncio.shield(ended)
        except BaseException:  # cancelled by the caller: never leave the group running (reaped when it ends)
            _kill(proc.pid, signal.SIGKILL)
            raise
        finally:
            if _kill(proc.pid, signal.SIGKILL):  # grandchildren the worker left behind
                await asyncio.to_thread(wait_group_gone, proc.pid)
        return Completed(_read_all(out), _read_all(err), proc.returncode, _ms(started), timed_out=timed_out)
    finally:
        os.close(out)
        os.close(err)


def _ended(proc: subprocess.Popen) -> asyncio.Future[int]:
    """A future of `proc`'s exit status, set (and the process reaped) when its pidfd becomes readable."""
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[int] = loop.create_future()
    pidfd = os.pidfd_open(proc.pid)

    def reap() -> None:
        loop.remove_reader(pidfd)
        os.close(pidfd)
        code = proc.wait()  # it has exited: no wait
        if not ended.done():
            ended.set_result(code)

    loop.add_reader(pidfd, reap)
    return ended


def _memory_file(name: str) -> int:
    """A file descriptor of an anonymous file (in memory where the system has them), closed on exec."""
    if hasattr(os, "memfd_create"):
        try:
            return os.memfd_create(f"pallium-worker-{name}", os.MFD_CLOEXEC)
        except OSError:
            pass
    import tempfile

    with tempfile.TemporaryFile() as handle:
        fd = os.dup(handle.fileno())  # the file lives while this copy is open
    os.set_inheritable(fd, False)
    return fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_all(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    chunks, offset = [], 0
    while offset < size:
        chunk = os.pread(fd, size - offset, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _pidfd_works() -> bool:
    """Whether this system gives pidfds (Linux 5.3 and later), asked of this very process."""
    if not hasattr(os, "pidfd_open"):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:
        return False
    return True


_PIDFD = _pidfd_works()


async def _run_with_pipes(
    inv: Invocation,
    *,
    timeout: float | None,
    on_spawn: Callable[[int, int | None], None] | None,
    on_line: Callable[[bytes], None] | None,
) -> Completed:
    started = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            *inv.argv,
            cwd=inv.cwd,
            env={**os.environ, **inv.env},
            stdin=subprocess.PIPE if inv.stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
        return Completed(b"", str(exc).encode(), None, _ms(started), missing=True)
    if on_spawn is not None:
        on_spawn(proc.pid, process_start_ticks(proc.pid))
    assert proc.stdout is not None and proc.stderr is not None  # both are pipes
    out = proc.stdout.read() if on_line is None else _read_lines(proc.stdout, on_line)
    readers = [asyncio.ensure_future(out), asyncio.ensure_future(proc.stderr.read())]
    timed_out = False
    try:
        if inv.stdin is not None:
            await _feed(proc, inv.stdin)
        try:
            await asyncio.wait_for(proc.wait(), timeout=timeout or None)
        except TimeoutError:
            timed_out = True
            await _terminate(proc)
    except BaseException:  # cancelled by the caller: never leave the group running
        _kill(proc.pid, signal.SIGKILL)
        for reader in readers:
            reader.cancel()
        raise
    finally:
        if _kill(proc.pid, signal.SIGKILL):  # grandchildren the worker left behind
            await asyncio.to_thread(wait_group_gone, proc.pid)
    stdout, stderr = await asyncio.gather(*readers)
    return Completed(stdout, stderr, proc.returncode, _ms(started), timed_out=timed_out)


def kill_group(pgid: int, start_ticks: int | None) -> bool:
    """Kill a recorded worker group if its leader is still the process we started; True when signalled."""
    if start_ticks is not None and process_start_ticks(pgid) not in (None, start_ticks):
        return False  # the pid was reused by an unrelated process
    killed = _kill(pgid, signal.SIGKILL)
    if killed:
        wait_group_gone(pgid)
    return killed


def wait_group_gone(pgid: int, timeout: float = 5.0) -> bool:
    """Wait until no running process is left in group `pgid` (zombies awaiting a reaper do not count)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _running_members(pgid):
            return True
        time.sleep(0.005)
    return False


def process_start_ticks(pid: int) -> int | None:
    """When `pid` started, in clock ticks since boot (`/proc/<pid>/stat` field 22); None if it is gone
    or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read()
    except OSError:
        return _psutil_start(pid)
    fields = stat[stat.rfind(")") + 2 :].split()
    if fields[0] == "Z":  # exited, waiting for its parent to reap it: gone for every purpose here
        return None
    return int(fields[19])  # field 22 counted from 1, minus pid, comm and state


def probe(argv: list[str], *, timeout: float = 15) -> tuple[int | None, str]:
    """Run a short informational command (`claude --help`) and return its exit code and output."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, start_new_session=True
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, str(exc)
    return done.returncode, done.stdout + done.stderr


async def _feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
    assert proc.stdin is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.write(data)
        await proc.stdin.drain()
    proc.stdin.close()


async def _terminate(proc: asyncio.subprocess.Process) -> None:
    _kill(proc.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), timeout=TERM_GRACE_SECONDS)
    except TimeoutError:
        _kill(proc.pid, signal.SIGKILL)
        await proc.wait()


async def _read_lines(stream: asyncio.StreamReader, on_line: Callable[[bytes], None]) -> bytes:
    """All of `stream`, handing each complete line to `on_line` as it arrives (a long line whole, too)."""
    chunks: list[bytes] = []
    pending = b""
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            break
        chunks.append(chunk)
        pending += chunk
        if b"\n" not in chunk:
            continue
        *lines, pending = pending.split(b"\n")
        for line in lines:
            on_line(line)
    if pending:
        on_line(pending)
    return b"".join(chunks)


def _kill(pgid: int, sig: int) -> bool:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _running_members(pgid: int) -> bool:
    """Whether any non-zombie process is in group `pgid`; read from /proc where there is one."""
    proc = "/proc"
    if not os.path.isdir(proc):
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for name in os.listdir(proc):
        if not name.isdigit():
            continue
        try:
            with open(f"{proc}/{name}/stat", encoding="ascii", errors="replace") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            return True
    return False


def _psutil_start(pid: int) -> int | None:
    try:
        import psutil

        return int(psutil.Process(pid).create_time() * 100)
    except Exception:  # no such process, or no psutil on this platform
        return None


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
