"""A served call behaves like a call in its own process: it runs once, it dies with its client, a
signal reaches it and no other call, and SIGTERM stops the whole server cleanly.

Executions are counted where they happen: a `git` first on PATH logs each `git status` with the
folder it ran in, and every client asks about a repository of its own (`changed-now --repo R_i`),
so each call's executions are counted apart, whether the server or the client's own process ran it.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import git, write
from tests.pallium_mcp.test_resident import PALLIUM, _gone, _mine, _pallium, _status, resident_env  # noqa: F401

pytestmark = [
    pytest.mark.skipif(os.name != "posix", reason="the resident server passes descriptors over a unix socket"),
    # one worker for every test that starts resident servers: retiring on a changed source file
    # (test_a_changed_source_file_retires_the_server) ends every server of the installation
    pytest.mark.xdist_group("resident"),
]


@pytest.fixture
def counted(tmp_path: Path, resident_env: dict[str, str]) -> tuple[dict[str, str], Path, Path]:  # noqa: F811
    """An environment whose `git` logs its folder per `git status`, held while `hold` names its parent's pid."""
    real = shutil.which("git")
    assert real is not None
    folder = tmp_path / "bin"
    folder.mkdir()
    log, hold = tmp_path / "git.log", tmp_path / "hold"
    wrapper = folder / "git"
    wrapper.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" status "*)\n'
        f'  echo "$PWD" >> "{log}"\n'
        f'  while [ -f "{hold}" ] && [ "$(cat "{hold}")" = "$PPID" ]; do sleep 0.05; done;;\n'
        "esac\n"
        f'exec "{real}" "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    return {**resident_env, "PATH": f"{folder}{os.pathsep}{resident_env['PATH']}"}, log, hold


def repositories(tmp_path: Path, count: int) -> list[Path]:
    made = []
    for i in range(count):
        repo = tmp_path / f"r{i:02d}"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        write(repo, "a.py", f"x = {i}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "one")
        made.append(repo)
    return made


def executions(log: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    if log.exists():
        for line in log.read_text().splitlines():
            counts[line] = counts.get(line, 0) + 1
    return counts


def started_server(repo: Path, env: dict[str, str]) -> dict:
    _pallium(["changed-now", "--repo", str(repo)], repo, env)  # its own process; starts the server
    server = _mine(env)
    assert server is not None
    return server


def wait_busy(env: dict[str, str], busy: bool, within: float = 20.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if any(bool(s.get("busy")) == busy for s in _status(env)["servers"] if s["this_environment"] and s["running"]):
            return True
        time.sleep(0.05)
    return False


def test_a_killed_client_cancels_its_served_call(tmp_path: Path, counted):
    env, log, hold = counted
    first, second = repositories(tmp_path, 2)
    server = started_server(first, env)
    hold.write_text(str(server["pid"]))
    client = subprocess.Popen(
        [PALLIUM, "changed-now", "--repo", str(second)],
        cwd=second,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert wait_busy(env, True)
    client.kill()
    client.wait(timeout=10)
    assert wait_busy(env, False, within=10), "the served call went on after its client died"
    hold.unlink()
    after = _pallium(["changed-now", "--repo", str(first), "--json"], first, env)
    assert after.returncode == 0 and json.loads(after.stdout)["branch"] == "main"
    assert executions(log)[str(second)] == 1  # begun once, never rerun


def test_a_signal_reaches_its_own_call_and_no_other(tmp_path: Path, counted):
    env, _log, hold = counted
    mine, other = repositories(tmp_path, 2)
    server = started_server(mine, env)
    hold.write_text(str(server["pid"]))
    held = subprocess.Popen(
        [PALLIUM, "changed-now", "--repo", str(other), "--json"],
        cwd=other,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert wait_busy(env, True)
    finished = _pallium(["changed-now", "--repo", str(mine), "--json"], mine, env)  # busy: its own process
    assert finished.returncode == 0
    os.kill(server["pid"], signal.SIGHUP)  # what a closed terminal sends: the server ignores it
    time.sleep(0.5)
    hold.unlink()
    out, err = held.communicate(timeout=60)
    assert held.returncode == 0, err
    assert json.loads(out)["branch"] == "main"
    assert _mine(env)["pid"] == server["pid"]


def test_sigterm_stops_the_whole_server_and_its_call_answers(tmp_path: Path, counted):
    env, log, hold = counted
    [repo] = repositories(tmp_path, 1)
    server = started_server(repo, env)
    hold.write_text(str(server["pid"]))
    held = subprocess.Popen(
        [PALLIUM, "changed-now", "--repo", str(repo), "--json"],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert wait_busy(env, True)
    os.kill(server["pid"], signal.SIGTERM)
    time.sleep(0.5)
    hold.unlink()
    out, err = held.communicate(timeout=60)
    assert held.returncode in (130, 143) and out == "", (held.returncode, out, err)
    assert _gone(server["pid"], 15)
    assert _status(env)["servers"] == []  # stopped as itself: its socket removed
    assert executions(log)[str(repo)] == 2  # the first call, and the cancelled one: never a rerun


def big_module(repo: Path, env: dict[str, str]) -> list[str]:
    """A committed, indexed module whose symbols answer is far larger than a pipe holds (64 KB)."""
    body = "".join(f"def function_number_{i}(argument_{i}):\n    return argument_{i}\n\n\n" for i in range(3000))
    write(repo, "big.py", body)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "big")
    assert _pallium(["index"], repo, env).returncode == 0
    words = ["symbols", "big.py", "--json", "--full", "--limit", "5000"]
    done = _pallium(words, repo, {**env, "PALLIUM_RESIDENT": "off"})
    assert done.returncode == 0 and len(done.stdout) > 200_000, done.stderr
    return words


def test_sigterm_during_a_write_nobody_reads_stops_the_server(tmp_path: Path, counted):
    env, _log, _hold = counted
    [repo] = repositories(tmp_path, 1)
    words = big_module(repo, env)
    server = started_server(repo, env)
    reader, writer = os.pipe()
    try:
        stuck = subprocess.Popen([PALLIUM, *words], cwd=repo, env=env, stdout=writer, stderr=subprocess.DEVNULL)
        assert wait_busy(env, True)
        time.sleep(1.0)  # the answer fills the pipe and the write blocks
        os.kill(server["pid"], signal.SIGTERM)
        assert _gone(server["pid"], 15), "SIGTERM did not stop a server blocked in a write"
        assert _status(env)["servers"] == []  # it stopped as itself: its socket is gone, not left behind
        stuck.kill()
        stuck.wait(timeout=10)
    finally:
        os.close(reader)
        os.close(writer)


def test_a_closed_pipe_exits_as_in_its_own_process(tmp_path: Path, counted):
    env, _log, _hold = counted
    [repo] = repositories(tmp_path, 1)
    words = " ".join(big_module(repo, env))
    started_server(repo, env)
    statuses = []
    for resident in ("off", "on", "on"):
        pipeline = f"{PALLIUM} {words} | head -c 10 >/dev/null; echo ${{PIPESTATUS[0]}}"
        done = subprocess.run(
            ["bash", "-c", pipeline],
            cwd=repo,
            env={**env, "PALLIUM_RESIDENT": resident},
            capture_output=True,
            text=True,
            timeout=120,
        )
        statuses.append(int(done.stdout.strip()))
        assert "Traceback" not in done.stderr
    assert statuses == [141, 141, 141]
    assert _mine(env)["served"] >= 2


CLIENTS = int(os.environ.get("PALLIUM_RESIDENT_LOAD", "24"))


def test_under_load_kills_and_signals_every_call_runs_at_most_once(tmp_path: Path, counted):
    env, log, _hold = counted
    repos = repositories(tmp_path, CLIENTS)
    started_server(repos[0], env)
    log.unlink()
    rng = random.Random(32)
    fates = [rng.choice(["finish", "finish", "kill", "interrupt"]) for _ in repos]
    clients = [
        subprocess.Popen(
            [PALLIUM, "changed-now", "--repo", str(repo), "--json"],
            cwd=repo,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for repo in repos
    ]
    for client, fate in zip(clients, fates, strict=True):
        if fate != "finish":
            time.sleep(rng.uniform(0.0, 0.05))
            client.send_signal(signal.SIGKILL if fate == "kill" else signal.SIGINT)
    results = [c.communicate(timeout=120) for c in clients]
    time.sleep(1.0)  # a cancelled served call's git has ended
    counts = executions(log)
    twice = [str(r) for r in repos if counts.get(str(r), 0) > 1]
    documents = []
    for repo, client, fate, (out, _err) in zip(repos, clients, fates, results, strict=True):
        docs = [line for line in out.splitlines() if line.startswith("{")]
        documents.append(len(docs))
        if fate == "finish":
            assert client.returncode == 0 and len(docs) == 1, (repo, client.returncode, out, _err)
            assert counts.get(str(repo)) == 1
        assert len(docs) <= 1
    served = _mine(env)["served"]
    ran = sum(counts.values())
    print(
        f"\nresident load: {CLIENTS} calls ({fates.count('finish')} finished, {fates.count('kill')} killed, "
        f"{fates.count('interrupt')} interrupted), {ran} executions, {len(twice)} twice, "
        f"{served - 1} served by the server, {sum(documents)} JSON documents"
    )
    assert twice == []
