"""`sessions live` against processes the test starts, named like the agents."""

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.services.sessions.conftest import EXPECTED

pytestmark = pytest.mark.anyio

B = EXPECTED["sessions"][2]
X2 = EXPECTED["sessions"][4]


def _wait_for(condition, what: str, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


@pytest.fixture
def agent(tmp_path: Path) -> Iterator:
    """Start processes whose executable is named `claude` or `codex`; they are killed by pid afterwards."""
    started: list[subprocess.Popen] = []

    def start(name: str, program: str, *args: str) -> subprocess.Popen:
        folder = tmp_path / "bin" / str(len(started))
        folder.mkdir(parents=True)
        exe = folder / name
        shutil.copy(shutil.which(program), exe)
        proc = subprocess.Popen([str(exe), *args], cwd=tmp_path, stdin=subprocess.DEVNULL)
        started.append(proc)
        _wait_for(lambda: psutil.Process(proc.pid).name() == name, f"{name} to start")
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)


def _mine(out, pid: int):
    return next(s for s in out.sessions if s.pid == pid)


async def test_a_claude_process_is_matched_through_the_registry_and_is_blocked_on_its_open_call(call, agent, homes):
    proc = agent("claude", "sleep", "300")
    registry = homes["claude"] / "sessions" / f"{proc.pid}.json"
    registry.write_text(json.dumps({"pid": proc.pid, "sessionId": B["session_id"], "status": "busy"}))
    out = await call("live", claude_home=str(homes["claude"]), codex_home=str(homes["codex"]), running_only=True)
    mine = _mine(out, proc.pid)
    assert (mine.source, mine.session_id, mine.matched_by) == ("claude", B["session_id"], "registry")
    assert mine.lifecycle == "blocked"  # long silence alone is never stuck
    assert "line 21" in mine.why
    assert all(s.pid is not None for s in out.sessions)
    assert any("tmux" in e for e in out.exclusions) and out.coverage


async def test_a_stopped_process_with_a_silent_transcript_is_stuck(call, agent, homes):
    proc = agent("claude", "sleep", "300")
    (homes["claude"] / "sessions" / f"{proc.pid}.json").write_text(json.dumps({"sessionId": B["session_id"]}))
    os.kill(proc.pid, signal.SIGSTOP)
    _wait_for(lambda: psutil.Process(proc.pid).status() == psutil.STATUS_STOPPED, "the process to stop")
    out = await call("live", claude_home=str(homes["claude"]), codex_home=str(homes["codex"]), running_only=True)
    mine = _mine(out, proc.pid)
    assert mine.lifecycle == "stuck" and mine.process_status == "stopped"
    os.kill(proc.pid, signal.SIGCONT)


async def test_a_codex_process_is_matched_by_the_rollout_it_holds_open(call, agent, homes):
    rollout = homes["codex"] / X2["path"].split("/", 1)[1]
    proc = agent("codex", "bash", "-c", f'exec 3<"{rollout}"; sleep 300 & wait')
    _wait_for(lambda: any(f.path == str(rollout) for f in psutil.Process(proc.pid).open_files()), "the open file")
    out = await call(
        "live", claude_home=str(homes["claude"]), codex_home=str(homes["codex"]), running_only=True, details=True
    )
    mine = _mine(out, proc.pid)
    assert (mine.session_id, mine.matched_by) == (X2["session_id"], "open_file")
    assert mine.lifecycle == "waiting"  # the turn was aborted 25 minutes before `now`: waiting for the user
    assert mine.capsule["open_calls"][0]["line"] == 46 and mine.cmdline[0].endswith("codex")
    call.clock.advance(hours=2)
    later = _mine(
        await call("live", claude_home=str(homes["claude"]), codex_home=str(homes["codex"]), running_only=True),
        proc.pid,
    )
    assert later.lifecycle == "idle"


async def test_without_running_only_recent_sessions_without_a_process_are_finished(call, homes):
    out = await call("live", claude_home=str(homes["claude"]), codex_home=str(homes["codex"]))
    mine = {s.session_id: s for s in out.sessions if s.pid is None}
    assert set(mine) == {X2["session_id"]}  # the only one active in the 24 hours before `now`
    assert mine[X2["session_id"]].lifecycle == "finished"
    assert "ended mid-task" in mine[X2["session_id"]].why


async def test_a_registry_file_older_than_its_process_is_not_trusted(call, agent, homes):
    proc = agent("claude", "sleep", "300")
    stale = {"pid": proc.pid, "sessionId": B["session_id"], "startedAt": 1795104298771}  # 2026-11-19
    (homes["claude"] / "sessions" / f"{proc.pid}.json").write_text(json.dumps(stale))
    out = await call("live", claude_home=str(homes["claude"]), codex_home=str(homes["codex"]), running_only=True)
    mine = _mine(out, proc.pid)
    assert mine.session_id is None and mine.matched_by is None
    assert mine.lifecycle == "idle" and "no indexed session" in mine.why
