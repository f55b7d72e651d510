"""Agent calls on many machines through a shared queue: the queue itself on both backends, and runs
across worker processes with their own homes and caches, talking only through a throwaway Postgres
cluster and a git remote, through each fault the design must survive.

One cluster serves the module (a database per test); the tests that start it share one xdist worker.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.pgcluster import Cluster, available
from benchmarks.scaleout_rig import Machine, make_remote, wait_for
from kernel.errors import PalliumError
from kernel.scaleout.store import QueueStore, check_url, connect

WHY_NOT = available()
needs_postgres = pytest.mark.skipif(WHY_NOT is not None, reason=f"no throwaway Postgres here: {WHY_NOT}")
pytestmark = pytest.mark.xdist_group("postgres")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    if WHY_NOT is not None:
        pytest.skip(f"no throwaway Postgres here: {WHY_NOT}")
    with Cluster() as started:
        yield started


@pytest.fixture
def url(cluster: Cluster) -> str:
    return cluster.create_database(f"t_{uuid.uuid4().hex[:10]}")


@pytest.fixture
def queue() -> Iterator[Callable[[str], QueueStore]]:
    """Open a queue store on a URL; every one opened is closed when the test ends."""
    opened: list[QueueStore] = []

    def open_queue(url: str) -> QueueStore:
        opened.append(connect(url))
        return opened[-1]

    yield open_queue
    for store in opened:
        store.close()


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return make_remote(tmp_path / "git")


def _parallel(n: int, nap: float, prefix: str = "task") -> str:
    return (
        f"const outs = await parallel(Array.from({{length: {n}}}, (_, i) => () => "
        f'agent(`{prefix} ${{i}} nap {nap}`, {{provider: "sh"}})));\nreturn outs;'
    )


def _finish(proc: subprocess.Popen[bytes], timeout: float = 120) -> None:
    _, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err.decode()[-2000:] if err else proc.returncode


def _stop(*procs: subprocess.Popen[bytes]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def _done(store: QueueStore, run_id: str) -> list[dict[str, object]]:
    return [c for c in store.calls(run_id) if c["state"] == "done"]


# ---------------------------------------------------------------- the queue on both backends


def _exercise_queue(store: QueueStore, other: QueueStore) -> None:
    assert store.take_run("r1", "home-a", 30) == 1
    assert other.take_run("r1", "home-b", 30) is None, "a live orchestrator's run was taken"
    assert store.enqueue("r1", "k1", provider="sh", request={"prompt": "x"}, remote="/r", commit="c", overlay=b"")
    assert not store.enqueue("r1", "k1", provider="sh", request={"prompt": "x"}, remote="/r", commit="c", overlay=b"")
    store.enqueue("r1", "k2", provider="claude", request={}, remote="/r", commit="c", overlay=b"diff")
    assert other.claim("w1", ["codex"], 4, 5) == []
    first = other.claim("w1", ["sh"], 4, 2.0)  # long enough for the next line on a loaded host
    assert [c.call_key for c in first] == ["k1"] and first[0].token == 1
    assert store.claim("w2", ["sh"], 4, 5) == [], "a call under a live lease was claimed twice"
    time.sleep(2.2)
    second = store.claim("w2", ["sh"], 4, 10)
    assert [(c.call_key, c.token, c.attempts) for c in second] == [("k1", 2, 2)]
    assert not other.heartbeat(first[0], 5)
    assert not other.complete(first[0], "w1", {"from": "w1"}, b"")
    assert store.complete(second[0], "w2", {"from": "w2"}, b"patch")
    done = store.results("r1", ["k1", "k2"])
    assert [(d.call_key, d.result, d.patch, d.token) for d in done] == [("k1", {"from": "w2"}, b"patch", 2)]
    assert [(e["kind"], e["token"]) for e in store.events("r1")] == [("heartbeat_refused", 1), ("result_refused", 1)]
    # a resumed run replays what succeeded, and queues again what failed or was cancelled
    assert not store.enqueue("r1", "k1", provider="sh", request={}, remote="/r", commit="c", overlay=b"")
    store.enqueue("r1", "k3", provider="sh", request={}, remote="/r", commit="c", overlay=b"")
    (failing,) = other.claim("w1", ["sh"], 4, 10)
    assert other.complete(failing, "w1", {"failed": True}, b"", ok=False)
    assert store.enqueue("r1", "k3", provider="sh", request={}, remote="/r", commit="c", overlay=b"")
    store.cancel("r1", "k2")
    assert other.claim("w1", ["claude"], 4, 10) == []
    assert store.enqueue("r1", "k2", provider="claude", request={}, remote="/r", commit="c", overlay=b"")
    states = {c["call_key"]: (c["state"], c["token"]) for c in store.calls("r1")}
    assert states == {"k1": ("done", 2), "k2": ("queued", 0), "k3": ("queued", 1)}
    (stopping,) = other.claim("w1", ["claude"], 4, 600)
    other.release(stopping)  # a worker that stops hands its calls back at once, not at its lease's end
    assert [c.call_key for c in store.claim("w2", ["claude"], 4, 10)] == ["k2"]


def test_queue_claims_leases_and_fences_on_sqlite(tmp_path: Path, queue: Callable[[str], QueueStore]):
    url = f"sqlite:///{tmp_path / 'queue.sqlite'}"
    _exercise_queue(queue(url), queue(url))


@needs_postgres
def test_queue_claims_leases_and_fences_on_postgres(url: str, queue: Callable[[str], QueueStore]):
    _exercise_queue(queue(url), queue(url))


@needs_postgres
def test_a_notified_waiter_wakes_before_its_timeout(url: str, queue: Callable[[str], QueueStore]):
    waiter, writer = queue(url), queue(url)
    assert not waiter.wait(["pallium_done"], 0.1)
    sent = threading.Event()
    timer = threading.Timer(0.3, lambda: (sent.set(), writer.wake("pallium_done", "r1")))
    timer.start()
    began = time.monotonic()
    try:
        # a wake-up before the notice is allowed (a lost connection counts as one: re-read), so wait on
        while not sent.is_set() and time.monotonic() - began < 15:
            woken = waiter.wait(["pallium_done"], 20)
        if not sent.is_set() or not woken:
            woken = waiter.wait(["pallium_done"], 0.5)  # the notice sent after the last wake-up: already here
    finally:
        timer.join()
    assert woken and time.monotonic() - began < 15, "the notice did not wake the waiter before its 20 s timeout"


def test_a_password_in_the_url_or_a_readable_password_file_is_refused(tmp_path: Path):
    with pytest.raises(PalliumError) as caught:
        check_url("postgresql://me:secret@db.example/pallium")
    assert caught.value.code == "invalid_input" and "secret" not in caught.value.message
    loose = tmp_path / "pgpass"
    loose.write_text("db.example:5432:pallium:me:secret\n")
    loose.chmod(0o644)
    with pytest.raises(PalliumError, match="read by others"):
        check_url(f"postgresql://me@db.example/pallium?passfile={loose}&sslmode=verify-full")
    loose.chmod(0o600)
    check_url(f"postgresql://me@db.example/pallium?passfile={loose}&sslmode=verify-full")


WORKER_GRANTS = """
CREATE ROLE pallium_worker LOGIN;
GRANT SELECT, UPDATE ON pallium_call_queue TO pallium_worker;
GRANT SELECT, INSERT ON pallium_queue_event TO pallium_worker;
GRANT SELECT ON pallium_queue_schema, pallium_run_lease TO pallium_worker;
GRANT SELECT, INSERT, UPDATE, DELETE ON pallium_worker TO pallium_worker;
"""


@needs_postgres
def test_a_worker_role_with_the_documented_grants_serves_calls_and_can_do_nothing_else(
    url: str, queue: Callable[[str], QueueStore]
):
    import psycopg

    docs = (Path(__file__).parents[2] / "docs" / "scale-out.md").read_text(encoding="utf-8")
    for statement in WORKER_GRANTS.strip().splitlines():
        assert statement in docs, f"docs/scale-out.md does not give {statement!r}"
    owner = queue(url)
    with psycopg.connect(url, autocommit=True) as conn:
        for statement in WORKER_GRANTS.strip().splitlines():
            conn.execute(statement.rstrip(";"))
    owner.enqueue("r", "k", provider="sh", request={"prompt": "x"}, remote="/r", commit="c", overlay=b"")
    worker = queue(url.replace("//pallium@", "//pallium_worker@"))
    worker.register("w", ["sh"], 1, 30)
    assert worker.live_providers() == {"sh": 1}
    (claim,) = worker.claim("w", ["sh"], 1, 30)
    assert worker.heartbeat(claim, 30) and worker.complete(claim, "w", {"ok": True}, b"")
    worker.forget_dead_workers()
    worker.unregister("w")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        worker.enqueue("r", "k2", provider="sh", request={}, remote="/r", commit="c", overlay=b"")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        worker.take_run("r", "w", 30)


@pytest.mark.anyio
async def test_the_worker_tool_serves_a_queued_call_over_mcp_and_stops_when_idle(
    tmp_path: Path, queue: Callable[[str], QueueStore], monkeypatch: pytest.MonkeyPatch
):
    from mcp import Client

    from pallium_mcp.server import build_server

    remote = make_remote(tmp_path / "git")
    commit = subprocess.run(["git", "rev-parse", "main"], cwd=remote, capture_output=True, text=True).stdout.strip()
    url = f"sqlite:///{tmp_path / 'queue.sqlite'}"
    store = queue(url)
    store.enqueue("r", "k", provider="sh", request={"prompt": "hello", "provider": "sh"}, remote=str(remote),
                  commit=commit, overlay=b"")  # fmt: skip
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER_SH_COMMAND", 'printf "seen %s" "$(cat file0.txt)"')
    async with Client(build_server(toolsets="workflows", cwd=tmp_path, ceiling="consult")) as client:
        answer = await client.call_tool(
            "pallium_worker",
            {"database": url, "providers": "sh", "idle_exit_seconds": 0.5, "repo_cache": str(tmp_path / "cache")},
        )
    assert not answer.is_error, answer.content[0].text
    assert answer.structured_content["calls_run"] == 1 and answer.structured_content["stopped_because"] == "idle"
    (done,) = store.results("r", ["k"])
    assert done.result["result"]["text"] == "seen line 0" and done.patch == b""
    assert {p.name for p in (tmp_path / "cache").iterdir()} == {"repos", "worktrees", "worker.lock"}


def test_the_worker_command_without_a_database_is_a_usage_error(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k != "PALLIUM_DATABASE_URL"}
    done = subprocess.run([*_cli(), "worker", "--providers", "sh"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2 and "needs the shared database" in done.stderr


# ---------------------------------------------------------------- runs across worker processes


@needs_postgres
def test_a_run_across_two_workers_gives_the_one_machine_answer_and_its_patch(
    url: str, remote: Path, tmp_path: Path, queue: Callable[[str], QueueStore]
):
    script = _parallel(6, 0.1) + "\n"
    script = script.replace(
        "return outs;", 'const e = await agent("edit the notes nap 0", {provider: "sh", mode: "edit"});\nreturn outs;'
    )
    alone = Machine(tmp_path, "alone")
    local = alone.workflow(alone.clone(remote), script, url=None, run_id="same")
    _finish(local)
    user, w1, w2 = Machine(tmp_path, "user"), Machine(tmp_path, "w1"), Machine(tmp_path, "w2")
    repo = user.clone(remote)
    workers = [w1.worker(url, concurrency=3), w2.worker(url, concurrency=3)]
    try:
        run = user.workflow(repo, script, url=url, run_id="same")
        _finish(run)
    finally:
        _stop(*workers)
    spread, one = user.answer("same"), alone.answer("same")
    assert spread["status"] == "completed" and spread["failures"] == [] and spread["result"] == one["result"]
    assert [p["state"] for p in spread["patches"]] == ["staged"]
    assert user.executions() == [] and w1.executions() and w2.executions(), "both workers, not the user's machine"
    assert len(w1.executions()) + len(w2.executions()) == 7
    assert "edit the notes" not in (repo / "notes.txt").read_text(), "a worker's edit reached the user's tree"
    applied = subprocess.run(
        [*_cli(), "workflow", "apply", "same", "--authority", "edit", "--json"],
        cwd=repo, env=user.env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert applied.returncode == 0, applied.stderr
    assert "edit the notes" in (repo / "notes.txt").read_text()


@needs_postgres
def test_a_three_stage_pipeline_across_workers_matches_one_machine(
    url: str, remote: Path, tmp_path: Path, queue: Callable[[str], QueueStore]
):
    script = """
const out = await pipeline(Array.from({length: 5}, (_, i) => i),
  (i) => agent(`stage one ${i} nap 0.1`, {provider: "sh"}),
  (prev, i) => agent(`stage two ${i} after ${prev} nap 0.1`, {provider: "sh"}),
  (prev, i) => agent(`stage three ${i} after ${prev} nap 0`, {provider: "sh"}));
return out;
"""
    alone, user, w1, w2 = (Machine(tmp_path, n) for n in ("alone", "user", "w1", "w2"))
    _finish(alone.workflow(alone.clone(remote), script, url=None, run_id="stages"))
    workers = [w1.worker(url, concurrency=2), w2.worker(url, concurrency=2)]
    try:
        _finish(user.workflow(user.clone(remote), script, url=url, run_id="stages"))
    finally:
        _stop(*workers)
    spread, one = user.answer("stages"), alone.answer("stages")
    assert spread["failures"] == [] and len(spread["result"]) == 5 and spread["result"] == one["result"]
    assert len(w1.executions()) + len(w2.executions()) == 15 and user.executions() == []
    assert len(queue(url).calls("stages")) == 15


def _team_of_eight(machine: Machine, repo: Path, url: str | None) -> list[tuple[str, str, str]]:
    def cli(*args: str) -> dict[str, Any]:
        done = subprocess.run(
            [*_cli(), *args, "--json", "--authority", "consult"],
            cwd=repo, env=machine.env(), capture_output=True, text=True, timeout=180,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        return dict(json.loads(done.stdout))

    cli("team", "start", "look at the files", "--id", "team-eight")
    for n in range(8):
        cli("team", "spawn", "team-eight", f"m{n}", "--provider", "sh", "--role", f"reader {n}")
    ran = cli("team", "run", "team-eight", "--max-rounds", "3", *(["--database", url] if url else []))
    return sorted((t["member"], t["state"], t["detail"]) for t in ran["turns"])


@needs_postgres
def test_a_team_of_eight_across_workers_matches_one_machine(
    url: str, remote: Path, tmp_path: Path, queue: Callable[[str], QueueStore]
):
    alone, user, w1, w2 = (Machine(tmp_path, n) for n in ("alone", "user", "w1", "w2"))
    one = _team_of_eight(alone, alone.clone(remote), None)
    workers = [w1.worker(url, concurrency=4), w2.worker(url, concurrency=4)]
    try:
        spread = _team_of_eight(user, user.clone(remote), url)
    finally:
        _stop(*workers)
    assert len(one) == 8 and {state for _, state, _ in one} == {"completed"}
    assert spread == one
    assert user.executions() == [] and len(w1.executions()) + len(w2.executions()) == 8
    assert {c["state"] for c in queue(url).calls("team-eight")} == {"done"}


def _cli() -> list[str]:
    from benchmarks.scaleout_rig import pallium

    return pallium()


@needs_postgres
def test_a_worker_killed_mid_call_hands_it_to_another_within_the_lease(
    url: str, remote: Path, tmp_path: Path, queue: Callable[[str], QueueStore]
):
    user, doomed, spare = Machine(tmp_path, "user"), Machine(tmp_path, "doomed"), Machine(tmp_path, "spare")
    store = queue(url)
    first = doomed.worker(url, concurrency=2, lease=2)
    run = user.workflow(user.clone(remote), _parallel(2, 3), url=url, run_id="kill-worker")
    started = [first, run]
    try:
        wait_for(lambda: len(doomed.executions()) == 2, 60, "the first worker to start both calls")
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        second = spare.worker(url, concurrency=2, lease=2)
        started.append(second)
        _finish(run)
    finally:
        _stop(*started)
    rows = store.calls("kill-worker")
    assert [r["token"] for r in rows] == [2, 2] and {r["attempts"] for r in rows} == {2}
    assert {str(r["worker"]).split(":")[1] for r in rows} == {str(second.pid)}
    answer = user.answer("kill-worker")
    assert len(spare.executions()) == 2 and answer["status"] == "completed" and answer["failures"] == []


@needs_postgres
def test_a_killed_orchestrator_resumes_from_another_home_repeating_no_finished_call(
    url: str, remote: Path, tmp_path: Path, queue: Callable[[str], QueueStore]
):
    first_home, second_home, worker_host = Machine(tmp_path, "a"), Machine(tmp_path, "b"), Machine(tmp_path, "w")
    store = queue(url)
    script = _parallel(10, 0.4)
    worker = worker_host.worker(url, concurrency=2, lease=5)
    try:
        run = first_home.workflow(first_home.clone(remote), script, url=url, run_id="moved", lease=2)
        wait_for(lambda: len(_done(store, "moved")) >= 3, 90, "three calls done")
        os.kill(run.pid, signal.SIGKILL)
        run.communicate()
        finished_before = {str(c["call_key"]) for c in _done(store, "moved")}
        repo_b = second_home.clone(remote)
        # the dead orchestrator's lease in the database lapses within its 2 s: the new one waits for that
        resumed = second_home.workflow(repo_b, script, url=url, run_id="moved", lease=2)
        _, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, err.decode()[-2000:]
    finally:
        _stop(worker)
    answer = second_home.answer("moved")
    assert answer["status"] == "completed" and answer["failures"] == [] and len(answer["result"]) == 10
    ran = worker_host.executions()
    assert len(ran) == len(set(ran)) == 10, "a call ran twice"
    assert finished_before <= set(ran) and all(r["attempts"] == 1 for r in store.calls("moved"))


@needs_postgres
def test_a_postgres_restart_mid_run_loses_nothing(
    cluster: Cluster, url: str, remote: Path, tmp_path: Path, queue: Callable[[str], QueueStore]
):
    user, w1, w2 = Machine(tmp_path, "user"), Machine(tmp_path, "w1"), Machine(tmp_path, "w2")
    store = queue(url)
    workers = [w1.worker(url, concurrency=2, lease=20), w2.worker(url, concurrency=2, lease=20)]
    try:
        run = user.workflow(user.clone(remote), _parallel(12, 0.5), url=url, run_id="restart", lease=20)
        wait_for(lambda: len(_done(store, "restart")) >= 3, 90, "three calls done")
        cluster.restart()
        _finish(run, timeout=180)
    finally:
        _stop(*workers)
    answer = user.answer("restart")
    assert answer["status"] == "completed" and answer["failures"] == [] and len(answer["result"]) == 12
    ran = w1.executions() + w2.executions()
    assert sorted(ran) == sorted(set(ran)) and len(ran) == 12, "a call was lost or ran twice across the restart"
    assert len(_done(store, "restart")) == 12


@needs_postgres
def test_a_worker_without_the_provider_never_takes_the_call(
    url: str, remote: Path, tmp_path: Path, queue: Callable[[str], QueueStore]
):
    user, fake_only, sh_host = Machine(tmp_path, "user"), Machine(tmp_path, "fake"), Machine(tmp_path, "sh")
    store = queue(url)
    store.enqueue("other", "k", provider="claude", request={"prompt": "x"}, remote=str(remote), commit="0", overlay=b"")
    idle = fake_only.worker(url, providers="fake", concurrency=4)
    time.sleep(1.0)  # the fake-only worker is up and polling before any sh call exists
    busy = sh_host.worker(url, providers="sh", concurrency=4)
    try:
        run = user.workflow(user.clone(remote), _parallel(6, 0.2), url=url, run_id="providers")
        _finish(run)
    finally:
        _stop(idle, busy)
    rows = store.calls("providers")
    assert len(rows) == 6 and {str(r["worker"]).split(":")[1] for r in rows} == {str(busy.pid)}
    answer = user.answer("providers")
    assert answer["failures"] == [] and fake_only.executions() == [] and len(sh_host.executions()) == 6
    assert [c["state"] for c in store.calls("other")] == ["queued"], "a worker took a provider it lacks"


class _Partition:
    """A TCP relay between one worker and Postgres that can stop passing bytes (a network partition)."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.cut = threading.Event()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                while self.cut.is_set():
                    time.sleep(0.02)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for end in (src, dst):
                with contextlib.suppress(OSError):
                    end.close()


@needs_postgres
def test_a_partitioned_workers_late_result_is_refused(
    cluster: Cluster, url: str, remote: Path, tmp_path: Path, queue: Callable[[str], QueueStore]
):
    user, cut_off, spare = Machine(tmp_path, "user"), Machine(tmp_path, "cut"), Machine(tmp_path, "spare")
    store = queue(url)
    relay = _Partition(cluster.port)
    relayed = url.replace(f":{cluster.port}/", f":{relay.port}/")
    partitioned = cut_off.worker(relayed, concurrency=1, lease=2)
    run = user.workflow(user.clone(remote), _parallel(1, 3), url=url, run_id="partition")
    other = None
    try:
        wait_for(lambda: len(cut_off.executions()) == 1, 60, "the call to start on the partitioned worker")
        relay.cut.set()
        other = spare.worker(url, concurrency=1, lease=2)
        _finish(run)
        assert [r["token"] for r in store.calls("partition")] == [2]
        relay.cut.clear()
        wait_for(lambda: any(e["token"] == 1 for e in store.events("partition")), 60, "the late result to arrive")
    finally:
        relay.cut.clear()
        _stop(partitioned, run, *([other] if other else []))
    refused = [e for e in store.events("partition") if e["token"] == 1]
    assert refused and {e["kind"] for e in refused} <= {"heartbeat_refused", "result_refused"}
    (row,) = store.calls("partition")
    assert row["token"] == 2 and str(row["worker"]).split(":")[1] == str(other.pid)
    (done,) = store.results("partition", [str(row["call_key"])])
    assert user.answer("partition")["result"] == [done.result["result"]["text"]]


# ---------------------------------------------------------------- credentials, stranded calls, the cache


def test_the_database_url_comes_from_the_flag_the_environment_or_the_homes_0600_config(
    tmp_path: Path, pallium_home: Path, monkeypatch: pytest.MonkeyPatch
):
    from kernel.scaleout.credentials import database_url

    monkeypatch.delenv("PALLIUM_DATABASE_URL", raising=False)
    assert database_url(None) is None, "a one-machine install names no database"
    config = pallium_home / "config.toml"
    config.write_text('[other]\nkey = "value"\n')
    config.chmod(0o644)
    assert database_url(None) is None, "a file that names no database changes nothing"
    config.write_text('[database]\nurl = "postgresql://pallium@db.example/from-config"\n')
    config.chmod(0o600)
    assert database_url(None) == "postgresql://pallium@db.example/from-config"
    monkeypatch.setenv("PALLIUM_DATABASE_URL", "postgresql://pallium@db.example/from-env")
    assert database_url(None) == "postgresql://pallium@db.example/from-env"
    assert database_url("postgresql://pallium@db.example/given") == "postgresql://pallium@db.example/given"
    monkeypatch.delenv("PALLIUM_DATABASE_URL")
    config.chmod(0o644)
    with pytest.raises(PalliumError, match="read or written by others") as caught:
        database_url(None)
    assert caught.value.hint == f"chmod 600 {config}"
    config.chmod(0o600)
    # the worker program finds it there too (a queue file on this machine, so no Postgres is needed)
    config.write_text(f'[database]\nurl = "sqlite:///{tmp_path / "queue.sqlite"}"\n')
    env = {k: v for k, v in os.environ.items() if k != "PALLIUM_DATABASE_URL"}
    env["PALLIUM_WORKFLOW_PROVIDER_SH_COMMAND"] = "echo ok"
    done = subprocess.run(
        [*_cli(), "worker", "--providers", "sh", "--idle-exit-seconds", "0.3", "--repo-cache", str(tmp_path / "c"),
         "--json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["stopped_because"] == "idle" and (tmp_path / "queue.sqlite").exists()


@needs_postgres
def test_a_password_comes_from_the_keyring_or_a_0600_file_never_the_command_line(
    cluster: Cluster, url: str, tmp_path: Path, queue: Callable[[str], QueueStore], memory_keyring: Any
):
    import psycopg

    from kernel.scaleout.credentials import KEYRING_SERVICE, keyring_user

    secret = f"pw-{uuid.uuid4().hex}"
    queue(url)  # the owner makes the tables
    hba = cluster.data / "pg_hba.conf"
    hba.write_text(f"host all locked 127.0.0.1/32 scram-sha-256\n{hba.read_text()}")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE locked LOGIN PASSWORD '{secret}'")
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO locked")
        conn.execute("SELECT pg_reload_conf()")
    locked = url.replace("//pallium@", "//locked@")
    time.sleep(0.3)  # the postmaster rereads pg_hba.conf on its signal
    with pytest.raises(PalliumError) as caught:
        connect(locked)
    assert caught.value.code == "unavailable" and "password" in caught.value.message
    memory_keyring.set_password(KEYRING_SERVICE, keyring_user(locked), secret)
    assert keyring_user(locked) == f"locked@127.0.0.1:{cluster.port}/{url.rsplit('/', 1)[1]}"
    connect(locked).close()
    # a password file named in the URL wins over the keyring; one others can read is refused
    memory_keyring.set_password(KEYRING_SERVICE, keyring_user(locked), "wrong")
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"127.0.0.1:{cluster.port}:*:locked:{secret}\n")
    passfile.chmod(0o600)
    connect(f"{locked}?passfile={passfile}").close()
    passfile.chmod(0o640)
    with pytest.raises(PalliumError, match="read by others"):
        connect(f"{locked}?passfile={passfile}")


@needs_postgres
def test_a_call_no_live_worker_can_take_fails_with_a_clear_error_instead_of_waiting(
    url: str, remote: Path, tmp_path: Path, queue: Callable[[str], QueueStore]
):
    user, fake_only, sh_host = Machine(tmp_path, "user"), Machine(tmp_path, "fake"), Machine(tmp_path, "sh")
    store = queue(url)
    grace = {"PALLIUM_SCALEOUT_NO_WORKER_SECONDS": "1.5"}
    idle = fake_only.worker(url, providers="fake", concurrency=2)
    busy = None
    try:
        # only a worker without the provider is alive: the call fails, saying why, and is withdrawn
        run = user.workflow(user.clone(remote), _parallel(2, 0.1), url=url, run_id="stranded", env=grace)
        run.communicate(timeout=90)  # a run whose agents failed exits non-zero
        failures = user.answer("stranded")["failures"]
        assert len(failures) == 2 and all("no live worker serves provider 'sh'" in json.dumps(f) for f in failures)
        assert {c["state"] for c in store.calls("stranded")} == {"cancelled"} and fake_only.executions() == []
        # a live worker that has the provider but is busy is waited for, however long its queue
        busy = sh_host.worker(url, providers="sh", concurrency=1, lease=2)
        run = user.workflow(user.repo, _parallel(3, 1.0, "slow"), url=url, run_id="waited", env=grace)
        _finish(run, timeout=90)
        assert user.answer("waited")["failures"] == [] and len(sh_host.executions()) == 3
        # the only worker with the provider dies mid-call: once its lease and registration lapse, the
        # call fails instead of waiting for a worker that will never come
        run = user.workflow(user.repo, _parallel(1, 30, "doomed"), url=url, run_id="orphaned", env=grace)
        wait_for(lambda: len(sh_host.executions()) == 4, 60, "the call to start on the sh worker")
        os.kill(busy.pid, signal.SIGKILL)
        busy.wait()
        run.communicate(timeout=60)
        (failure,) = user.answer("orphaned")["failures"]
        assert "no live worker serves provider 'sh'" in json.dumps(failure)
    finally:
        _stop(idle, *([busy] if busy else []))


def test_a_workers_cache_is_its_own_and_collects_what_no_call_uses(tmp_path: Path, remote: Path):
    from kernel.scaleout.checkout import Checkouts

    commit = subprocess.run(["git", "rev-parse", "main"], cwd=remote, capture_output=True, text=True).stdout.strip()
    cache = tmp_path / "cache"
    first = Checkouts(cache)
    first.lock()
    with pytest.raises(PalliumError, match="another worker") as caught:
        Checkouts(cache).lock()
    assert caught.value.code == "conflict"
    kept = first.prepare(str(remote), commit, b"", "a")
    left = first.prepare(str(remote), commit, b"", "b")  # held by a call when its worker died
    first.release(kept)
    assert kept != left
    (left / "scratch.txt").write_text("a dead call's file\n")
    first.close()
    # a second remote, last used long ago
    other = make_remote(tmp_path / "git2")
    second = Checkouts(cache)
    second.lock()
    old = second.prepare(str(other), commit_of(other), b"", "c")
    second.release(old)
    second.close()
    stale_bare = next(p for p in (cache / "repos").iterdir() if p.name.startswith(old.name[:16]))
    long_ago = time.time() - 40 * 86400
    os.utime(stale_bare / "pallium-used", (long_ago, long_ago))
    third = Checkouts(cache)
    third.lock()
    removed = third.collect(keep_days=14)
    assert not left.exists() and not kept.exists() and not old.exists() and not stale_bare.exists()
    assert removed == {"worktrees": 3, "repos": 1}
    assert len(list((cache / "repos").iterdir())) == 1, "the remote used recently keeps its clone"
    again = third.prepare(str(remote), commit, b"", "d")  # the kept clone serves the next call
    assert (again / "file0.txt").read_text() == "line 0\n"
    third.close()


def commit_of(repo: Path) -> str:
    return subprocess.run(["git", "rev-parse", "main"], cwd=repo, capture_output=True, text=True).stdout.strip()


def test_a_one_machine_run_never_imports_the_postgres_driver(tmp_path: Path, remote: Path):
    """SQLite stays the default: no --database, no variable, no config entry, and psycopg is not loaded."""
    alone = Machine(tmp_path, "alone")
    repo = alone.clone(remote)
    probe = (
        "import sys\nfrom pallium_mcp.cli import main\n"
        f"code = main(['workflow', 'run', 'rig', '--source', {_parallel(2, 0)!r}, '--json', '--id', 'solo'])\n"
        "print('psycopg loaded' if 'psycopg' in sys.modules else 'psycopg absent', code, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=repo, env=alone.env(), capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.strip().endswith("psycopg absent 0"), done.stderr[-2000:]
    assert json.loads(done.stdout)["status"] == "completed" and len(alone.executions()) == 2
