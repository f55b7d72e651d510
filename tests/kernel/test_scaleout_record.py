"""The run record in the shared database: any machine reads a run, decides its gates and resumes it.

Orchestrators and readers are separate processes with their own homes and clones, talking only
through a throwaway Postgres cluster and a git remote (benchmarks/scaleout_rig.py), as in
test_scaleout.py; concurrent edits of one record use two real connections.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.pgcluster import Cluster, available
from benchmarks.scaleout_rig import Machine, make_remote, pallium, wait_for
from kernel.errors import PalliumError
from kernel.scaleout.records import Record, RecordStore, open_records

WHY_NOT = available()
needs_postgres = pytest.mark.skipif(WHY_NOT is not None, reason=f"no throwaway Postgres here: {WHY_NOT}")
pytestmark = pytest.mark.xdist_group("postgres")

GATED = """
const first = await parallel([0, 1, 2].map((i) => () => agent(`before ${i} nap 0.3`, {provider: "sh"})));
const verdict = await gate("ship", "Go on?", {human: true, fail_on_deny: false});
if (!verdict.approved) return {went_on: false, why: verdict.reason, first: first.length};
const after = await agent("after nap 0.3", {provider: "sh"});
return {went_on: true, first: first.length, after: after};
"""


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    if WHY_NOT is not None:
        pytest.skip(f"no throwaway Postgres here: {WHY_NOT}")
    with Cluster() as started:
        yield started


@pytest.fixture
def url(cluster: Cluster) -> str:
    return cluster.create_database(f"r_{uuid.uuid4().hex[:10]}")


@pytest.fixture(params=["sqlite", "postgres"])
def any_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'queue.sqlite'}"
    if WHY_NOT is not None:
        pytest.skip(f"no throwaway Postgres here: {WHY_NOT}")
    cluster: Cluster = request.getfixturevalue("cluster")
    return cluster.create_database(f"r_{uuid.uuid4().hex[:10]}")


@pytest.fixture
def records() -> Iterator[Any]:
    opened: list[RecordStore] = []

    def open_one(url: str) -> RecordStore:
        opened.append(open_records(url))
        return opened[-1]

    yield open_one
    for one in opened:
        one.close()


def _cli(machine: Machine, cwd: Path, *args: str, lease: float = 30) -> tuple[int, Any, str]:
    done = subprocess.run(
        [*pallium(), *args, "--json"], cwd=cwd, capture_output=True, timeout=180,
        env=machine.env(PALLIUM_SCALEOUT_LEASE_TTL=str(lease)),
    )  # fmt: skip
    out = done.stdout.decode()
    return done.returncode, (json.loads(out) if out.strip() else None), done.stderr.decode()


def _append(tag: str):  # type: ignore[no-untyped-def]
    def change(current: Record | None) -> tuple[str, str | None, dict[str, Any]]:
        items = list(current.body["items"]) if current else []
        return "team", None, {"items": [*items, tag]}

    return change


# ---------------------------------------------------------------- the record itself


def test_edits_under_the_rows_lock_and_compare_and_set(any_url: str, records: Any):
    store: RecordStore = records(any_url)
    first = store.edit("run-1", _append("a"))
    assert first is not None and (first.version, first.body) == (1, {"items": ["a"]})
    second = store.put_if("run-1", 1, status="running", body={"items": ["a", "b"]})
    assert (second.version, second.status, second.body["items"]) == (2, "running", ["a", "b"])
    with pytest.raises(PalliumError) as stale:
        store.put_if("run-1", 1, status="running", body={"items": ["lost"]})
    assert stale.value.code == "conflict" and stale.value.details["version"] == 2
    assert store.get("run-1").body["items"] == ["a", "b"]  # type: ignore[union-attr]
    # a change that finds a conflict raises and writes nothing
    with pytest.raises(PalliumError):
        store.edit("run-1", lambda current: (_ for _ in ()).throw(PalliumError("conflict", "no")))
    assert store.get("run-1").version == 2  # type: ignore[union-attr]


def test_an_orchestrator_taken_over_cannot_write_over_its_successor(any_url: str, records: Any):
    store: RecordStore = records(any_url)
    assert store.edit("run-2", _append("epoch 3"), epoch=3) is not None
    assert store.edit("run-2", _append("epoch 2, stale"), epoch=2) is None
    kept = store.get("run-2")
    assert kept is not None and kept.body["items"] == ["epoch 3"] and kept.epoch == 3
    assert store.edit("run-2", _append("epoch 4"), epoch=4).epoch == 4  # type: ignore[union-attr]


@needs_postgres
def test_two_machines_editing_one_record_at_once_lose_no_edit(url: str, records: Any):
    """Two connections (two machines) each append 40 items at once: every one of the 80 is kept."""
    one, other = records(url), records(url)
    one.edit("board", lambda current: ("team", None, {"items": []}))
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def editor(store: RecordStore, name: str) -> None:
        try:
            barrier.wait()
            for n in range(40):
                store.edit("board", _append(f"{name}-{n}"))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=editor, args=(s, n)) for s, n in ((one, "one"), (other, "other"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    final = one.get("board")
    assert final is not None and final.version == 81
    assert sorted(final.body["items"]) == sorted([f"one-{n}" for n in range(40)] + [f"other-{n}" for n in range(40)])
    # each machine's own edits stay in its order
    assert [i for i in final.body["items"] if i.startswith("one-")] == [f"one-{n}" for n in range(40)]


@needs_postgres
def test_two_machines_setting_one_version_at_once_one_wins(url: str, records: Any):
    one, other = records(url), records(url)
    base = one.edit("gate", lambda current: ("workflow", "awaiting_approval", {"decided": None}))
    assert base is not None
    barrier = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def decide(store: RecordStore, who: str) -> None:
        barrier.wait()
        try:
            store.put_if("gate", base.version, status="running", body={"decided": who})
            outcomes[who] = "won"
        except PalliumError as exc:
            outcomes[who] = exc.code

    threads = [threading.Thread(target=decide, args=(s, w)) for s, w in ((one, "one"), (other, "other"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes.values()) == ["conflict", "won"]
    winner = next(w for w, o in outcomes.items() if o == "won")
    assert one.get("gate").body == {"decided": winner}  # type: ignore[union-attr]


# ---------------------------------------------------------------- workflows across homes


@needs_postgres
def test_a_run_at_a_human_gate_is_read_decided_and_finished_from_another_home(url: str, tmp_path: Path):
    remote = make_remote(tmp_path / "git")
    first, second, host = Machine(tmp_path, "first"), Machine(tmp_path, "second"), Machine(tmp_path, "w")
    worker = host.worker(url, concurrency=3)
    try:
        run = first.workflow(first.clone(remote), GATED, url=url, run_id="gated")
        _, err = run.communicate(timeout=120)
        assert (first.folder / "gated.out").read_text(), err.decode()[-3000:]
        assert first.answer("gated")["status"] == "awaiting_approval"
        repo_b = second.clone(remote)
        # the second home has never seen the run: without the database it does not know it
        code, _, err = _cli(second, repo_b, "workflow", "status", "gated")
        assert code != 0 and "not_found" in err
        code, seen, err = _cli(second, repo_b, "workflow", "status", "gat", "--database", url)
        assert seen is not None, err  # (its exit code says the run has not finished)
        assert seen["id"] == "gated" and seen["status"] == "awaiting_approval" and seen["attempts"] == 1
        assert seen["agents"]["succeeded"] == 3
        assert [(g["name"], g["state"]) for g in seen["gates"]] == [("ship", "pending")]
        assert any("from the shared database" in n and "no orchestrator holds it" in n for n in seen["notes"])
        code, gates, err = _cli(second, repo_b, "workflow", "gate", "list", "gated", "--database", url)
        assert code == 0 and gates["gates"][0]["state"] == "pending", err
        code, told, err = _cli(second, repo_b, "workflow", "report", "gated", "--database", url)
        assert told is not None and told["status"] == "awaiting_approval" and told["agents_total"] == 3, err

        code, done, err = _cli(
            second, repo_b, "workflow", "gate", "approve", "gated", "ship", "--reason", "looks right",
            "--database", url, "--authority", "admin",
        )  # fmt: skip
        assert code == 0, err
        assert done["status"] == "completed" and done["result"]["went_on"] is True and done["attempts"] == 2
        assert done["result"]["after"].startswith("reply to")
        # the first home, told by the record, sees where the run went; a second decision is refused
        code, there, err = _cli(first, first.repo, "workflow", "status", "gated", "--database", url)
        assert code == 0 and there["status"] == "completed" and there["attempts"] == 2, err
        assert there["gates"][0]["decided_by"] == "person" and there["gates"][0]["reason"] == "looks right"
        code, _, err = _cli(
            first, first.repo, "workflow", "gate", "reject", "gated", "ship", "--database", url, "--authority", "admin"
        )
        assert code != 0 and "decided" in err
    finally:
        worker.terminate()
        worker.communicate(timeout=30)
    ran = host.executions()
    assert len(ran) == len(set(ran)) == 4, "a finished call ran again after the gate"


@needs_postgres
def test_a_live_runs_record_follows_it_and_a_killed_one_resumes_in_another_home(url: str, tmp_path: Path):
    remote = make_remote(tmp_path / "git")
    first, second, host = Machine(tmp_path, "first"), Machine(tmp_path, "second"), Machine(tmp_path, "w")
    script = (
        "const outs = await parallel(Array.from({length: 8}, (_, i) => () => "
        'agent(`slow ${i} nap 2.0`, {provider: "sh"})));\nreturn outs.length;'
    )
    worker = host.worker(url, concurrency=2, lease=5)
    repo_b = second.clone(remote)
    records = open_records(url)
    try:
        run = first.workflow(first.clone(remote), script, url=url, run_id="live", lease=2)

        def partway() -> bool:  # read in-process: a CLI start on a loaded host may outlast the run
            record = records.get("live")
            if record is None or record.status != "running":
                return False
            done = [e for e in record.body["workflow"]["events"] if e["kind"] == "agent"]
            return 2 <= len(done) < 8

        wait_for(partway, 90, "the record to show the run part-way")
        assert records.queue.run_holder("live") is not None
        os.kill(run.pid, signal.SIGKILL)
        run.communicate()
        wait_for(lambda: records.queue.run_holder("live") is None, 30, "the killed orchestrator's lease to lapse")
        _, seen, err = _cli(second, repo_b, "workflow", "status", "live", "--database", url)
        assert seen is not None, err
        assert seen["status"] == "interrupted" and 2 <= seen["agents"]["succeeded"] < 8
        assert any("no orchestrator holds it" in n for n in seen["notes"])
        code, resumed, err = _cli(second, repo_b, "workflow", "resume", "live", "--database", url, lease=2)
        assert code == 0, err
    finally:
        records.close()
        worker.terminate()
        worker.communicate(timeout=30)
    assert resumed["status"] == "completed" and resumed["result"] == 8 and resumed["attempts"] == 2
    ran = host.executions()
    assert len(ran) == len(set(ran)) == 8, "a finished call ran again"
    code, after, err = _cli(first, first.repo, "workflow", "status", "live", "--database", url)
    assert code == 0 and after["status"] == "completed" and after["agents"]["succeeded"] == 8, err


# ---------------------------------------------------------------- teams across homes


@needs_postgres
def test_team_status_from_another_home_reads_the_teams_record(url: str, tmp_path: Path):
    remote = make_remote(tmp_path / "git")
    lead, other, host = Machine(tmp_path, "lead"), Machine(tmp_path, "other"), Machine(tmp_path, "w")
    repo = lead.clone(remote)
    repo_b = other.clone(remote)

    def cli(machine: Machine, cwd: Path, *args: str) -> Any:
        code, out, err = _cli(machine, cwd, *args, "--authority", "consult")
        assert code == 0, err
        return out

    cli(lead, repo, "team", "start", "look at the files", "--id", "team-far")
    for n in range(3):
        cli(lead, repo, "team", "spawn", "team-far", f"m{n}", "--provider", "sh", "--role", f"reader {n}")
    cli(lead, repo, "team", "tasks", "add", "team-far", "read file0.txt")
    worker = host.worker(url, concurrency=3)
    try:
        cli(lead, repo, "team", "run", "team-far", "--max-rounds", "2", "--database", url)
    finally:
        worker.terminate()
        worker.communicate(timeout=30)
    here = cli(lead, repo, "team", "status", "team-far")
    code, _, err = _cli(other, repo_b, "team", "status", "team-far")
    assert code != 0 and "not_found" in err  # the other home has no such team of its own
    there = cli(other, repo_b, "team", "status", "team-f", "--database", url)

    def shown(status: dict[str, Any]) -> Any:
        members = sorted((m["name"], m["status"], m["turn_count"]) for m in status["members"])
        return members, status["task_counts"], [t["title"] for t in status["tasks"]], status["team"]["status"]

    assert shown(there) == shown(here)
    assert {m["name"]: m["turn_count"] for m in there["members"] if m["name"] != "lead"} == {"m0": 1, "m1": 1, "m2": 1}
    assert any("from the shared database" in n and "no `team run` holds it" in n for n in there["notes"])
    assert here["notes"] == []


@needs_postgres
def test_board_edits_posted_from_two_machines_at_once_all_land_once(url: str, tmp_path: Path):
    from services.teams.shared import post_edit

    remote = make_remote(tmp_path / "git")
    lead, other, host = Machine(tmp_path, "lead"), Machine(tmp_path, "other"), Machine(tmp_path, "w")
    repo = lead.clone(remote)

    def cli(machine: Machine, cwd: Path, *args: str) -> Any:
        code, out, err = _cli(machine, cwd, *args, "--authority", "consult")
        assert code == 0, err
        return out

    cli(lead, repo, "team", "start", "look at the files", "--id", "team-board")
    cli(lead, repo, "team", "spawn", "team-board", "m0", "--provider", "sh", "--role", "reader")
    worker = host.worker(url, concurrency=2)
    try:
        cli(lead, repo, "team", "run", "team-board", "--max-rounds", "1", "--database", url)
        with pytest.raises(PalliumError) as unknown:
            post_edit(url, "no-such-team", "task", {"title": "x"}, now="2026-01-01T00:00:00Z")
        assert unknown.value.code == "not_found"
        barrier = threading.Barrier(2)
        errors: list[BaseException] = []

        def machine(name: str) -> None:  # each thread its own connection (post_edit opens one), as two hosts
            try:
                barrier.wait()
                for n in range(10):
                    post_edit(url, "team-board", "task", {"title": f"{name} task {n}"}, now="2026-01-01T00:00:00Z")
                post_edit(
                    url, "team-board", "message", {"to": "m0", "body": f"hello from {name}"}, now="2026-01-01T00:00:00Z"
                )
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=machine, args=(n,)) for n in ("east", "west")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert errors == []
        waiting = open_records(url)
        try:
            assert len(waiting.get("team-board").body["inbox"]) == 22  # type: ignore[union-attr]
        finally:
            waiting.close()
        cli(lead, repo, "team", "run", "team-board", "--max-rounds", "1", "--database", url)
        cli(lead, repo, "team", "run", "team-board", "--max-rounds", "1", "--database", url)  # takes in none again
    finally:
        worker.terminate()
        worker.communicate(timeout=30)
    wanted = sorted(f"{name} task {n}" for name in ("east", "west") for n in range(10))
    here = cli(lead, repo, "team", "tasks", "list", "team-board", "--limit", "100")
    assert sorted(t["title"] for t in here["tasks"]) == wanted
    there = cli(other, other.clone(remote), "team", "status", "team-board", "--database", url, "--limit", "100")
    assert sorted(t["title"] for t in there["tasks"]) == wanted
    done = open_records(url)
    try:
        assert done.get("team-board").body["inbox"] == []  # type: ignore[union-attr]
    finally:
        done.close()
    mail = cli(lead, repo, "team", "inbox", "team-board", "--all")
    bodies = sorted(m["body"] for m in mail["messages"])
    assert bodies.count("hello from east") == 1 and bodies.count("hello from west") == 1
