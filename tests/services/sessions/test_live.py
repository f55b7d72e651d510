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

from tests.services.sessions import build
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

    def start(name: str, program: str, *args: str, cwd: Path = tmp_path) -> subprocess.Popen:
        folder = tmp_path / "bin" / str(len(started))
        folder.mkdir(parents=True)
        exe = folder / name
        shutil.copy(shutil.which(program), exe)
        proc = subprocess.Popen([str(exe), *args], cwd=cwd, stdin=subprocess.DEVNULL)
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


def _folder(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    return Path(os.path.realpath(folder))  # as the kernel reports a process's cwd


def _script(tmp_path: Path, package_path: str) -> Path:
    """A file where an npm-installed CLI would be; run by a shell named node/bun, it just waits."""
    script = tmp_path / "lib" / "node_modules" / package_path
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text("sleep 300 &\nwait\n", encoding="utf-8")
    return script


def _claude_session(home: Path, session_id: str, cwd: Path) -> None:
    records = [
        build.claude_user(session_id, "tidy the fixtures", "u-1", "2026-11-21T15:20:00.000Z", cwd=str(cwd)),
        build.claude_assistant(
            session_id,
            [{"type": "text", "text": "Done."}],
            "u-2",
            "2026-11-21T15:20:05.000Z",
            message_id="msg_live_1",
            stop_reason="end_turn",
            cwd=str(cwd),
        ),
    ]
    build.write_jsonl(build.claude_path(home, session_id, "-tmp-live"), records)


def _codex_session(home: Path, thread_id: str, cwd: Path) -> None:
    records = [
        build.codex_meta(thread_id, cwd=str(cwd), timestamp="2026-11-21T15:24:00.000Z"),
        build.codex_event("task_started", "2026-11-21T15:24:01.000Z"),
        build.codex_user("rename the module", "2026-11-21T15:24:01.500Z"),
        build.codex_assistant("Renamed.", "2026-11-21T15:25:00.000Z"),
        build.codex_event("task_complete", "2026-11-21T15:25:01.000Z", last_agent_message="Renamed."),
    ]
    build.write_jsonl(build.codex_path(home, thread_id, "2026-11-21T15-24-00"), records)


async def test_a_process_without_registry_or_open_file_is_matched_by_its_working_folder(call, agent, homes, tmp_path):
    work = _folder(tmp_path, "work")
    session_id = "7c0e0000-1111-4222-8333-444455556666"
    _claude_session(homes["claude"], session_id, work)
    proc = agent("claude", "sleep", "300", cwd=work)
    out = await call("live", claude_home=str(homes["claude"]), codex_home=str(homes["codex"]), running_only=True)
    mine = _mine(out, proc.pid)
    assert (mine.source, mine.session_id, mine.matched_by, mine.cwd) == ("claude", session_id, "cwd", str(work))
    assert mine.lifecycle == "waiting"  # its turn ended ten minutes before `now`


async def test_node_and_bun_running_the_agent_clis_are_agents_and_other_scripts_are_not(call, agent, homes, tmp_path):
    work = _folder(tmp_path, "work")
    thread_id = "01a20000-4444-7555-8666-777788889999"
    _codex_session(homes["codex"], thread_id, work)
    codex = agent("node", "bash", str(_script(tmp_path, "@openai/codex/bin/codex.js")), cwd=work)
    claude = agent("bun", "bash", str(_script(tmp_path, "@anthropic-ai/claude-code/cli.js")))
    other = agent("node", "bash", str(_script(tmp_path, "vite/bin/vite.js")))
    out = await call("live", claude_home=str(homes["claude"]), codex_home=str(homes["codex"]), running_only=True)
    by_pid = {s.pid: s for s in out.sessions}
    assert (by_pid[codex.pid].source, by_pid[codex.pid].session_id, by_pid[codex.pid].matched_by) == (
        "codex",
        thread_id,
        "cwd",
    )
    assert by_pid[claude.pid].source == "claude" and by_pid[claude.pid].session_id is None
    assert other.pid not in by_pid


async def test_an_open_turn_silent_past_the_active_window_is_idle_not_active(call, agent, homes, tmp_path):
    work = _folder(tmp_path, "quiet")
    session_id = "7c0e0000-1111-4222-8333-444455557777"
    prompt = build.claude_user(session_id, "port the parser", "u-1", "2026-11-21T15:25:00.000Z", cwd=str(work))
    build.write_jsonl(build.claude_path(homes["claude"], session_id, "-tmp-quiet"), [prompt])
    proc = agent("claude", "sleep", "300", cwd=work)
    out = await call("live", claude_home=str(homes["claude"]), codex_home=str(homes["codex"]), running_only=True)
    mine = _mine(out, proc.pid)
    assert mine.session_id == session_id and mine.lifecycle == "idle" and "silence alone is idle" in mine.why
    call.clock.current = call.clock.current.replace(minute=25, second=30)  # 30 s after the prompt
    out = await call("live", claude_home=str(homes["claude"]), codex_home=str(homes["codex"]), running_only=True)
    assert _mine(out, proc.pid).lifecycle == "active"
