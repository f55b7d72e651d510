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
import signal
import statistics
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


def _timed(machine: Machine, repo: Path, script: str, *, url: str | None, run_id: str, concurrency: int) -> float:
    began = time.perf_counter()
    run = machine.workflow(repo, script, url=url, run_id=run_id, concurrency=concurrency)
    _, err = run.communicate(timeout=1800)
    wall = time.perf_counter() - began
    answer = machine.answer(run_id)
    if run.returncode != 0 or answer.get("failures"):
        raise SystemExit(f"run {run_id} failed: {err.decode()[-2000:]} {json.dumps(answer)[:2000]}")
    return wall


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
    args = parser.parse_args(argv)
    lean = f'echo "$PALLIUM_WORKFLOW_AGENT_ID" >> "$PALLIUM_RIG_LOG"; sleep {args.nap}; echo ok'
    agent = lean if args.lean else SH_AGENT
    why = available()
    if why:
        print(f"scale-out: skipped, no throwaway Postgres here: {why}")
        return 1
    slots = args.workers * args.concurrency
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
        try:
            _timed(user, repo, _script(slots, args.nap, "warm"), url=url, run_id="warm", concurrency=slots)
            _timed(alone, alone_repo, _script(slots, args.nap, "warm"), url=None, run_id="warm", concurrency=slots)
            # alternate the two, so both see the host's load as it comes and goes
            for n in range(args.repeat):
                for name, machine, where, db in (("spread", user, repo, url), ("one", alone, alone_repo, None)):
                    script = _script(args.calls, args.nap, f"task{n}")
                    walls[name].append(_timed(machine, where, script, url=db, run_id=f"{name}{n}", concurrency=slots))
                    floor = _timed(machine, where, _script(0, 0, "none"), url=db, run_id=f"{name}-floor{n}",
                                   concurrency=slots)  # fmt: skip
                    walls[f"{name}_floor"].append(floor)
        finally:
            for proc in workers:
                proc.send_signal(signal.SIGTERM)
            for proc in workers:
                proc.wait(timeout=60)
        per_worker = [len(h.executions()) for h in hosts]
    load = os.getloadavg()[0]
    kind = "lean sh agent (sleep; echo)" if args.lean else "sh agent (sed, grep, head, printf)"
    print(f"scale-out: {args.calls} calls x {args.nap * 1000:.0f} ms, {kind}; {os.cpu_count()} cores, load {load:.1f}")
    print(f"median (best) of {args.repeat}; wall: the whole `workflow run`; calls: minus the same command with no call")
    print("| where | workers x concurrency | ideal s | wall s | no-call run s | calls s | calls x ideal |")
    print("|---|---|---|---|---|---|---|")
    for where, shape, name in (
        ("Postgres queue, worker processes", f"{args.workers} x {args.concurrency}", "spread"),
        ("one machine, no database", f"1 x {slots}", "one"),
    ):
        calls = [w - f for w, f in zip(walls[name], walls[f"{name}_floor"], strict=True)]
        wall, floor, net = (statistics.median(v) for v in (walls[name], walls[f"{name}_floor"], calls))
        print(f"| {where} | {shape} | {ideal:.2f} | {wall:.2f} ({min(walls[name]):.2f}) | {floor:.2f} | "
              f"{net:.2f} ({min(calls):.2f}) | {net / ideal:.2f} ({min(calls) / ideal:.2f}) |")  # fmt: skip
    print(f"calls per worker (warm-up included): {per_worker}; goal <= {GOAL}x ideal")
    return 0
