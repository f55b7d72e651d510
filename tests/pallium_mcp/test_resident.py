"""The resident CLI server, through the real console script: what it serves, to whom, and when it goes.

Each test gets a Pallium home of its own (the sockets live in it) and stops its servers at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import git, script, write

PALLIUM = script("pallium")
pytestmark = [
    pytest.mark.skipif(os.name != "posix", reason="the resident server passes descriptors over a unix socket"),
    # one worker for every test that starts resident servers: retiring on a changed source file
    # (test_a_changed_source_file_retires_the_server) ends every server of the installation
    pytest.mark.xdist_group("resident"),
]


@pytest.fixture
def resident_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    # A short home: a socket's path may not exceed about 100 bytes, and a test's tmp_path can.
    home = tempfile.mkdtemp(prefix="ph-", dir="/tmp" if os.path.isdir("/tmp") else None)
    monkeypatch.setenv("PALLIUM_HOME", home)
    monkeypatch.setenv("PALLIUM_RESIDENT", "on")
    monkeypatch.setenv("PALLIUM_RESIDENT_IDLE", "60")
    env = dict(os.environ)
    yield env
    for server in _status(env)["servers"]:
        if server["running"]:
            _stop(server["pid"])
    shutil.rmtree(home, ignore_errors=True)


def _pallium(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PALLIUM, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _status(env: dict[str, str]) -> dict:
    done = subprocess.run(
        [PALLIUM, "resident", "status", "--json"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _mine(env: dict[str, str]) -> dict | None:
    """This environment's server once it answers (it starts in the background), or None after 30 s."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for server in _status(env)["servers"]:
            if server["this_environment"] and server["running"]:
                return server
        time.sleep(0.1)
    return None


def _gone(pid: int, within: float = 30.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        _reap(pid)
        if _zombie(pid):  # exited; whoever adopted it has not reaped it yet
            return True
        time.sleep(0.1)
    return False


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):  # not our child: whoever adopted it reaps it
        os.waitpid(pid, os.WNOHANG)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _stop(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    _gone(pid, 10)


@pytest.fixture
def indexed(git_repo: Path) -> Path:
    write(
        git_repo,
        "src/shapes.py",
        "class Circle:\n    def area(self):\n        return 3\n\n\ndef unit():\n    return Circle()\n",
    )
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "Add shapes")
    done = subprocess.run([PALLIUM, "index"], cwd=git_repo, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return git_repo


def test_the_second_query_is_answered_by_the_server_exactly_as_its_own_process_would(indexed, resident_env):
    alone = _pallium(["symbols", "shapes.py", "--json"], indexed / "src", {**resident_env, "PALLIUM_RESIDENT": "off"})
    first = _pallium(["symbols", "shapes.py", "--json"], indexed / "src", resident_env)
    server = _mine(resident_env)
    assert server is not None and server["served"] == 0  # the first call ran in its own process, then started it
    second = _pallium(["symbols", "shapes.py", "--json"], indexed / "src", resident_env)
    assert (second.returncode, second.stdout, second.stderr) == (first.returncode, first.stdout, first.stderr)
    assert alone.returncode == 0, alone.stderr
    assert json.loads(second.stdout) == json.loads(alone.stdout)
    assert {s["name"] for s in json.loads(second.stdout)["symbols"]} >= {"Circle", "unit"}
    assert _mine(resident_env)["served"] == 1


def test_errors_exit_statuses_and_help_are_the_same_as_in_their_own_process(indexed, resident_env):
    _pallium(["symbols", "src/shapes.py"], indexed, resident_env)
    server = _mine(resident_env)
    assert server is not None
    calls = (
        ["symbols", "src/missing.py", "--json"],  # a tool error, as JSON on stderr
        ["callers", "Circle"],  # rendered text
        ["symbols", "--limit", "zero", "src/shapes.py"],  # a usage error
        ["symbols", "--help"],  # argparse exits
    )
    for args in calls:
        served = _pallium(args, indexed, resident_env)
        alone = _pallium(args, indexed, {**resident_env, "PALLIUM_RESIDENT": "off"})
        assert (served.returncode, served.stdout, served.stderr) == (alone.returncode, alone.stdout, alone.stderr), args
    assert _mine(resident_env)["served"] == len(calls)


def test_another_environment_gets_a_server_of_its_own(indexed, resident_env):
    _pallium(["symbols", "src/shapes.py"], indexed, resident_env)
    assert _mine(resident_env) is not None
    later = {**resident_env, "PALLIUM_NOW": "2030-01-01T00:00:00Z"}
    _pallium(["symbols", "src/shapes.py"], indexed, later)
    assert _mine(later) is not None
    running = [s for s in _status(resident_env)["servers"] if s["running"]]
    assert len(running) == 2
    assert all(s["served"] == 0 for s in running)  # neither answered a call made in the other environment


def test_commands_that_act_or_hold_a_process_never_go_to_the_server(git_repo, resident_env):
    for args in (["workflow", "list", "--json"], ["doctor", "--json"], ["loop", "list"]):
        _pallium(args, git_repo, resident_env)
    assert _status(resident_env)["servers"] == []  # and none was started for them
    _pallium(["changed-now"], git_repo, resident_env)
    assert _mine(resident_env) is not None
    done = _pallium(["workflow", "list", "--json"], git_repo, resident_env)
    assert done.returncode == 0
    assert _mine(resident_env)["served"] == 0


def test_off_starts_nothing(git_repo, resident_env):
    done = _pallium(["changed-now"], git_repo, {**resident_env, "PALLIUM_RESIDENT": "off"})
    assert done.returncode == 0
    assert _status(resident_env)["servers"] == []


def test_a_socket_folder_others_can_enter_is_never_used(git_repo, resident_env):
    folder = Path(_status(resident_env)["folder"])
    folder.mkdir(mode=0o755, parents=True)
    folder.chmod(0o755)
    done = _pallium(["changed-now"], git_repo, resident_env)
    assert done.returncode == 0 and "main:" in done.stdout
    assert list(folder.iterdir()) == []


def test_a_socket_folder_that_is_a_link_is_never_used(git_repo, resident_env, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    folder = Path(_status(resident_env)["folder"])
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.symlink_to(elsewhere)
    for _ in range(2):
        done = _pallium(["changed-now"], git_repo, resident_env)
        assert done.returncode == 0 and "main:" in done.stdout
    assert list(elsewhere.iterdir()) == []


def test_a_changed_source_file_retires_the_server(indexed, resident_env):
    _pallium(["symbols", "src/shapes.py"], indexed, resident_env)
    old = _mine(resident_env)
    assert old is not None
    import tools_manifest

    manifest = Path(tools_manifest.MANIFEST_PATH)
    before = manifest.stat()
    try:
        os.utime(manifest, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        done = _pallium(["symbols", "src/shapes.py", "--json"], indexed, resident_env)
        assert done.returncode == 0 and json.loads(done.stdout)["symbols"]
        assert _gone(old["pid"])
        new = _mine(resident_env)
        assert new is not None and new["pid"] != old["pid"]
        again = _pallium(["symbols", "src/shapes.py", "--json"], indexed, resident_env)
        assert again.stdout == done.stdout
        assert _mine(resident_env)["served"] == 1
    finally:
        os.utime(manifest, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_stop_and_idle_end_the_server(indexed, resident_env):
    _pallium(["symbols", "src/shapes.py"], indexed, resident_env)
    server = _mine(resident_env)
    assert server is not None
    stopped = subprocess.run(
        [PALLIUM, "resident", "stop"], env=resident_env, capture_output=True, text=True, timeout=60
    )
    assert stopped.returncode == 0 and "1 resident server(s) stopped" in stopped.stdout
    assert _gone(server["pid"])
    brief = {**resident_env, "PALLIUM_RESIDENT_IDLE": "1"}
    _pallium(["symbols", "src/shapes.py"], indexed, brief)
    server = _mine(brief)
    assert server is not None
    assert _gone(server["pid"])  # a second without a call, then it exits by itself
    assert not [s for s in _status(brief)["servers"] if s["running"]]


@pytest.fixture
def held_git(tmp_path: Path, resident_env: dict[str, str]) -> tuple[dict[str, str], Path]:
    """A `git` first on PATH that, while the marker holds a pid, waits when that pid is its parent.

    So a served call can be held inside its git command for as long as a test needs, while the
    same command run in its own process goes straight through.
    """
    real = shutil.which("git")
    assert real is not None
    folder = tmp_path / "bin"
    folder.mkdir()
    marker = tmp_path / "hold"
    wrapper = folder / "git"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'while [ -f "{marker}" ] && [ "$(cat "{marker}")" = "$PPID" ]; do sleep 0.05; done\n'
        f'exec "{real}" "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    return {**resident_env, "PATH": f"{folder}{os.pathsep}{resident_env['PATH']}"}, marker


def _busy(env: dict[str, str]) -> bool:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if any(s.get("busy") for s in _status(env)["servers"] if s["this_environment"]):
            return True
        time.sleep(0.05)
    return False


def _held_call(repo: Path, env: dict[str, str], marker: Path, *flags: str) -> subprocess.Popen[str]:
    """`pallium changed-now` answered by the server, held inside its git command until `marker` goes."""
    _pallium(["changed-now"], repo, env)  # runs in its own process and starts the server
    server = _mine(env)
    assert server is not None
    marker.write_text(str(server["pid"]), encoding="utf-8")
    held = subprocess.Popen(
        [PALLIUM, "changed-now", *flags], cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert _busy(env)
    return held


def test_a_call_made_while_the_server_is_busy_runs_in_its_own_process(git_repo, held_git):
    env, marker = held_git
    held = _held_call(git_repo, env, marker)
    try:
        meanwhile = _pallium(["changed-now", "--json"], git_repo, env)
        assert meanwhile.returncode == 0 and json.loads(meanwhile.stdout)["branch"] == "main"
    finally:
        marker.unlink()
    out, _err = held.communicate(timeout=60)
    assert held.returncode == 0 and out.startswith("main:")
    assert _mine(env)["served"] == 1  # the held call only: the other ran in its own process


def test_ctrl_c_cancels_a_served_call_as_it_would_its_own(git_repo, held_git):
    env, marker = held_git
    held = _held_call(git_repo, env, marker)
    try:
        held.send_signal(signal.SIGINT)
        time.sleep(1.0)  # for the forwarded signal to reach the server (it waits for the git it interrupted)
    finally:
        marker.unlink()
    out, err = held.communicate(timeout=60)
    assert held.returncode == 130
    assert "interrupted by SIGINT" in err and out == ""
    after = _pallium(["changed-now"], git_repo, env)  # the server lives on and answers the next call
    assert after.returncode == 0 and after.stdout.startswith("main:")
    assert _mine(env)["served"] == 2


def test_a_server_lost_mid_call_is_a_clear_error_and_the_call_is_not_run_again(git_repo, held_git):
    env, marker = held_git
    held = _held_call(git_repo, env, marker, "--json")
    server = _mine(env)
    os.kill(server["pid"], signal.SIGKILL)
    marker.unlink()
    out, err = held.communicate(timeout=60)
    assert held.returncode == 1 and out == ""
    error = json.loads(err)["error"]
    assert error["code"] == "unavailable" and "PALLIUM_RESIDENT=off" in error["hint"]


def test_the_server_key_ignores_what_shells_change_alone_and_keeps_what_changes_an_answer():
    from pallium_mcp import launcher

    env = {"PATH": "/usr/bin", "PALLIUM_HOME": "/tmp/h"}
    # an activated virtual environment exports PS1, which `bash -c` then drops: one server for both
    shell_noise = {"PS1": "(.venv) ", "SHLVL": "3", "_": "/usr/bin/env", "PWD": "/x", "OLDPWD": "/y"}
    assert launcher.server_key({**env, **shell_noise}) == launcher.server_key(env)
    assert launcher.server_key({**env, "PALLIUM_AUTHORITY": "admin"}) != launcher.server_key(env)
