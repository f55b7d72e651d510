"""Stop and pause of a run held by a foreground `pallium workflow run` process, in the middle of a fan-out."""

import json
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from tests.conftest import script

FAN_OUT = 'return await parallel(["a", "b", "c"], (name) => agent("hold " + name, {label: name}));'


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


def _pallium(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([script("pallium"), *args], cwd=repo, capture_output=True, text=True, timeout=120)


def _start_fan_out(repo: Path, fake, run_id: str) -> tuple[subprocess.Popen, list[int]]:
    child = subprocess.Popen(
        [script("pallium"), "workflow", "run", "fan out", "--source", FAN_OUT, "--id", run_id],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while len(fake.calls()) < 3:  # every agent of the fan-out has started and hangs
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the agents did not start"
        time.sleep(0.05)
    return child, [call["pid"] for call in fake.calls()]


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _status(repo: Path, run_id: str) -> dict:
    return json.loads(_pallium(repo, "workflow", "status", run_id, "--json").stdout)


def test_stop_during_a_fan_out_kills_every_agent_and_records_the_run_as_stopped(git_repo: Path, fake):
    fake.scenario({"match": "hold", "hang": 120})
    child, agents = _start_fan_out(git_repo, fake, "fg-stop")
    stopped = _pallium(git_repo, "workflow", "stop", "fg-stop", "--json")
    child.communicate(timeout=60)
    assert stopped.returncode == 0, stopped.stderr
    assert json.loads(stopped.stdout)["status"] == "stopped"
    assert child.returncode == 128 + signal.SIGTERM  # it handled the signal, cleaned up, then said so
    assert [pid for pid in agents if _running(pid)] == []
    assert _status(git_repo, "fg-stop")["status"] == "stopped"
    inspected = json.loads(_pallium(git_repo, "workflow", "inspect", "fg-stop", "--json").stdout)
    assert inspected["kernel"]["calls"] == {"cancelled": 3}  # no journal row left saying started


def test_ctrl_c_on_a_foreground_run_kills_its_agents_and_records_it_as_stopped(git_repo: Path, fake):
    fake.scenario({"match": "hold", "hang": 120})
    child, agents = _start_fan_out(git_repo, fake, "fg-int")
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 128 + signal.SIGINT and "interrupted by SIGINT" in err
    assert [pid for pid in agents if _running(pid)] == []
    assert _status(git_repo, "fg-int")["status"] == "stopped"


def test_pause_during_a_fan_out_kills_the_agents_and_a_resume_completes_the_run(git_repo: Path, fake):
    fake.scenario({"match": "hold", "hang": 120})
    child, agents = _start_fan_out(git_repo, fake, "fg-pause")
    paused = _pallium(git_repo, "workflow", "pause", "fg-pause", "--json")
    child.communicate(timeout=60)
    assert json.loads(paused.stdout)["status"] == "paused" and paused.returncode == 0
    assert [pid for pid in agents if _running(pid)] == []
    fake.scenario({"match": "hold (.)", "reply": "done"})
    resumed = _pallium(git_repo, "workflow", "resume", "fg-pause", "--json")
    assert resumed.returncode == 0, resumed.stderr
    out = json.loads(resumed.stdout)
    assert out["status"] == "completed" and out["result"] == ["done", "done", "done"]
    assert out["agents"]["succeeded"] == 3


def test_stop_of_a_run_that_does_not_reach_stopped_exits_non_zero(git_repo: Path, fake):
    # A run that already ended cannot be stopped: the answer is an error, not a report saying "running".
    fake.scenario({"match": "", "reply": "ok"})
    assert _pallium(git_repo, "workflow", "run", "quick", "--source", "return 1;", "--id", "fg-done").returncode == 0
    refused = _pallium(git_repo, "workflow", "stop", "fg-done", "--json")
    assert refused.returncode != 0
    assert json.loads(refused.stderr)["error"]["code"] == "conflict"
