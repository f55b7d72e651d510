"""`python -m benchmarks scale-out`: agent calls across worker processes through Postgres, beside ideal and one machine.

N calls of an `sh` agent that sleeps `--nap` seconds, through `--workers` workers of `--concurrency`
each (separate homes and caches, a throwaway Postgres cluster and a git remote between them), timed
as the orchestrator's whole `workflow run`; then the same run on one machine (no database, its own
agents, as many at once as all the workers together). Ideal is calls × nap ÷ (workers × concurrency).
The workers are warmed first with a small run (a resident worker has its clone and worktrees).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.pgcluster import Cluster, available
from benchmarks.scaleout_rig import SH_AGENT, Machine, make_remote

GOAL = 1.5  # x ideal


def _script(calls: int, nap: float, tag: str) -> str:
    return (
        f"const outs = await parallel(Array.from({{length: {calls}}}, (_, i) => () => "
        f'agent(`{tag} ${{i}} nap {nap}`, {{provider: "sh"}})));\nreturn outs.filter(Boolean).length;'
    )


STARTED: dict[str, tuple[float, float]] = {}  # run id -> (began, ended), this host's clock
TICK = os.sysconf("SC_CLK_TCK")


def _cpu_of(pid: int, *, children: bool = True) -> float:
    """CPU seconds a live process used, with those of the children it reaped (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    used = int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if children else 0)
    return used / TICK


def _postgres_cpu(cluster: Cluster) -> float:
    """The cluster's CPU seconds: the postmaster with the backends it reaped, and those still running."""
    try:
        postmaster = int((cluster.data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    total = _cpu_of(postmaster)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == postmaster:
                total += _cpu_of(int(entry.name), children=False)
    return total


class Meter:
    """CPU seconds of everything a run used: the orchestrator (a child of this process, reaped), the
    workers' processes and the agents they reaped, and the Postgres cluster."""

    def __init__(self, cluster: Cluster, workers: list[subprocess.Popen[bytes]]) -> None:
        self.cluster, self.workers = cluster, workers

    def read(self) -> tuple[float, float, float]:
        """(the orchestrator, the workers with their agents, Postgres) in CPU seconds so far."""
        mine = resource.getrusage(resource.RUSAGE_CHILDREN)
        return mine.ru_utime + mine.ru_stime, sum(_cpu_of(w.pid) for w in self.workers), _postgres_cpu(self.cluster)


def _timed(machine: Machine, repo: Path, script: str, *, url: str | None, run_id: str, concurrency: int) -> float:
    began, clock = time.perf_counter(), time.time()
    run = machine.workflow(repo, script, url=url, run_id=run_id, concurrency=concurrency)
    _, err = run.communicate(timeout=1800)
    wall = time.perf_counter() - began
    STARTED[run_id] = (clock, time.time())
    answer = machine.answer(run_id)
    if run.returncode != 0 or answer.get("failures"):
        raise SystemExit(f"run {run_id} failed: {err.decode()[-2000:]} {json.dumps(answer)[:2000]}")
    return wall


def _profile(url: str, run_ids: list[str], started: dict[str, tuple[float, float]]) -> list[str]:
    """Where a distributed run's time went, from the queue's own timestamps (the database's clock, this host's)."""
    from kernel.scaleout.store import connect

    steps: dict[str, list[float]] = {"queued to claimed": [], "prepare worktree": [], "agent": [], "capture": [],
                                     "result write": [], "claimed to done": []}  # fmt: skip
    lines = []
    store = connect(url)
    try:
        for run_id in run_ids:
            rows = store.timings(run_id)
            if not rows:
                continue
            begin, end = started[run_id]
            first_q, last_d = min(r[0] for r in rows), max(r[2] for r in rows)
            for enq, claimed, done, result in rows:
                timing = result.get("timing", {})
                steps["queued to claimed"].append(claimed - enq)
                steps["claimed to done"].append(done - claimed)
                for name, key in (("prepare worktree", "prepare"), ("agent", "agent"), ("capture", "capture")):
                    steps[name].append(timing.get(key, 0.0))
                rest = (done - claimed) - sum(timing.get(k, 0.0) for k in ("prepare", "agent", "capture"))
                steps["result write"].append(rest)
            lines.append(f"{run_id}: start to first queued {first_q - begin:.2f} s, first queued to last done "
                         f"{last_d - first_q:.2f} s, last done to exit {end - last_d:.2f} s")  # fmt: skip
    finally:
        store.close()
    lines.append("| step (per call) | median ms | p90 ms | max ms |")
    lines.append("|---|---|---|---|")
    for name, values in steps.items():
        values.sort()
        if values:
            p90 = values[int(len(values) * 0.9)]
            median = statistics.median(values)
            lines.append(f"| {name} | {median * 1000:.0f} | {p90 * 1000:.0f} | {values[-1] * 1000:.0f} |")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks scale-out")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--nap", type=float, default=0.2, help="seconds each agent sleeps (default 0.2)")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=8, help="calls each worker runs at once (default 8)")
    parser.add_argument("--repeat", type=int, default=3, help="measured runs of each (default 3)")
    parser.add_argument(
        "--lean", action="store_true", help="an agent that only sleeps (no tools it starts): Pallium's own share"
    )
    parser.add_argument(
        "--queue-ahead", type=float, default=2.0,
        help="the distributed run may have this many times the workers' slots queued or running (default 2: "
        "a worker that finishes a call finds the next one queued); the one-machine run runs as many as the slots",
    )  # fmt: skip
    args = parser.parse_args(argv)
    lean = f'echo "$PALLIUM_WORKFLOW_AGENT_ID" >> "$PALLIUM_RIG_LOG"; sleep {args.nap}; echo ok'
    agent = lean if args.lean else SH_AGENT
    why = available()
    if why:
        print(f"scale-out: skipped, no throwaway Postgres here: {why}")
        return 1
    slots = args.workers * args.concurrency
    ahead = max(slots, round(slots * args.queue_ahead))
    ideal = args.calls * args.nap / slots
    with tempfile.TemporaryDirectory(prefix="pallium-bench-scale-") as scratch, Cluster() as cluster:
        root = Path(scratch)
        remote = make_remote(root / "git")
        url = cluster.create_database("bench")
        user = Machine(root, "user", agent)
        repo = user.clone(remote)
        hosts = [Machine(root, f"worker{n}", agent) for n in range(args.workers)]
        workers = [h.worker(url, concurrency=args.concurrency) for h in hosts]
        alone = Machine(root, "alone", agent)
        alone_repo = alone.clone(remote)
        walls: dict[str, list[float]] = {"spread": [], "spread_floor": [], "one": [], "one_floor": []}
        cpu: dict[str, list[tuple[float, ...]]] = {key: [] for key in walls}
        meter = Meter(cluster, workers)
        try:
            _timed(user, repo, _script(slots, args.nap, "warm"), url=url, run_id="warm", concurrency=ahead)
            _timed(alone, alone_repo, _script(slots, args.nap, "warm"), url=None, run_id="warm", concurrency=slots)
            # alternate the two, so both see the host's load as it comes and goes
            for n in range(args.repeat):
                for name, machine, where, db, cap in (
                    ("spread", user, repo, url, ahead),
                    ("one", alone, alone_repo, None, slots),
                ):
                    for key, script, run_id in (
                        (name, _script(args.calls, args.nap, f"task{n}"), f"{name}{n}"),
                        (f"{name}_floor", _script(0, 0, "none"), f"{name}-floor{n}"),
                    ):
                        before = meter.read()
                        walls[key].append(_timed(machine, where, script, url=db, run_id=run_id, concurrency=cap))
                        cpu[key].append(tuple(b - a for a, b in zip(before, meter.read(), strict=True)))
        finally:
            for proc in workers:
                proc.send_signal(signal.SIGTERM)
            for proc in workers:
                proc.wait(timeout=60)
        per_worker = [len(h.executions()) for h in hosts]
        profile = _profile(url, [f"spread{n}" for n in range(args.repeat)], STARTED)
    load = os.getloadavg()[0]
    kind = "lean sh agent (sleep; echo)" if args.lean else "sh agent (sed, grep, head, printf)"
    print(f"scale-out: {args.calls} calls x {args.nap * 1000:.0f} ms, {kind}; {os.cpu_count()} cores, load {load:.1f}")
    print(f"median (best) of {args.repeat}; wall: the whole `workflow run`; calls: minus the same command with no call")
    print(f"distributed run: --max-concurrent-agents {ahead} (queued or running; the workers run {slots} at once)")
    print("cpu ms/call: the CPU the calls used (orchestrator, workers, agents, Postgres), minus the no-call run's")
    print("| where | workers x conc. | ideal s | wall s | no-call run s | calls s | calls x ideal | cpu ms/call |")
    print("|---|---|---|---|---|---|---|---|")
    shares: dict[str, str] = {}
    for where, shape, name in (
        ("Postgres queue, worker processes", f"{args.workers} x {args.concurrency}", "spread"),
        ("one machine, no database", f"1 x {slots}", "one"),
    ):
        calls = [w - f for w, f in zip(walls[name], walls[f"{name}_floor"], strict=True)]
        wall, floor, net = (statistics.median(v) for v in (walls[name], walls[f"{name}_floor"], calls))
        parts = [statistics.median(c[i] - f[i] for c, f in zip(cpu[name], cpu[f"{name}_floor"], strict=True))
                 for i in range(3)]  # fmt: skip
        spent = sum(parts)
        who = ("orchestrator", "workers and agents", "Postgres")
        shares[where] = ", ".join(f"{w} {v / args.calls * 1000:.1f}" for w, v in zip(who, parts, strict=True))
        print(f"| {where} | {shape} | {ideal:.2f} | {wall:.2f} ({min(walls[name]):.2f}) | {floor:.2f} | "
              f"{net:.2f} ({min(calls):.2f}) | {net / ideal:.2f} ({min(calls) / ideal:.2f}) | "
              f"{spent / args.calls * 1000:.1f} |")  # fmt: skip
    for where, share in shares.items():
        print(f"cpu ms/call, {where}: {share}")
    print(f"calls per worker (warm-up included): {per_worker}; goal <= {GOAL}x ideal")
    print("where a distributed run's time went (the queue's timestamps, every measured run):")
    print("\n".join(profile))
    return 0
