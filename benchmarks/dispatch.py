"""`python -m benchmarks dispatch`: fan-out, per-call overhead, edit worktrees and journal replay.

Every figure is printed beside a baseline measured in the same run: the ideal fan-out time, a bare
spawn of the fake provider, raw `git worktree add` plus `git diff`, and 1,000 primary-key reads.
Runs in a temporary PALLIUM_HOME and repository; the fake provider stands in for a model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import median_ms, row

GOALS = {"fan-out": 1.3, "replay_ms": 1000, "worktree": 1.5}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks dispatch")
    parser.add_argument("--calls", type=int, default=64, help="read-only calls in the fan-out (default 64)")
    parser.add_argument("--concurrency", type=int, default=16, help="workers at once (default 16)")
    parser.add_argument("--delay", type=float, default=0.2, help="seconds the fake takes per reply (default 0.2)")
    parser.add_argument("--replay", type=int, default=1000, help="journaled calls to replay (default 1000)")
    parser.add_argument("--files", type=int, default=400, help="files in the demo repository (default 400)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pallium-bench-") as scratch:
        root = Path(scratch)
        os.environ["PALLIUM_HOME"] = str(root / "home")
        os.environ["PALLIUM_FAKE_LOG"] = ""
        scenario = root / "scenario.json"
        scenario.write_text(
            json.dumps(
                {"rules": [{"match": "slow", "delay": args.delay, "reply": "ok"}, {"match": "", "reply": "ok"}]}
            ),
            encoding="utf-8",
        )
        os.environ["PALLIUM_FAKE_SCENARIO"] = str(scenario)
        repo = _demo_repo(root / "repo", args.files)
        print(
            f"dispatch (fake provider, {os.cpu_count()} cores; goals: fan-out <= {GOALS['fan-out']}x ideal, "
            f"replay <= {GOALS['replay_ms']} ms, worktree <= {GOALS['worktree']}x raw git)"
        )
        asyncio.run(_fan_out(repo, args))
        asyncio.run(_overhead(repo, root))
        _worktrees(repo)
        asyncio.run(_replay(repo, args.replay))
    return 0


async def _fan_out(repo: Path, args: argparse.Namespace) -> None:
    from kernel.execution import AgentCall, Limits, Run

    run = await Run.open("bench-fanout", repo, Limits(concurrency=args.concurrency))
    start = time.perf_counter()
    await asyncio.gather(*(run.agent(AgentCall(f"slow {i}", provider="fake")) for i in range(args.calls)))
    wall = time.perf_counter() - start
    await run.close()
    waves = -(-args.calls // args.concurrency)
    ideal = waves * args.delay
    raw = await _raw_fan_out(repo, args)
    print(
        row(
            f"{args.calls} read-only calls at concurrency {args.concurrency}",
            wall * 1000,
            f"ideal {waves} x {args.delay * 1000:.0f} ms",
            ideal * 1000,
        )
        + _goal(wall / ideal <= GOALS["fan-out"])
    )
    print(
        row(
            "  the same fake processes, bare asyncio",
            raw * 1000,
            f"ideal {waves} x {args.delay * 1000:.0f} ms",
            ideal * 1000,
        )
    )
    print(row("  kernel fan-out beside bare asyncio", wall * 1000, "bare asyncio", raw * 1000))
    os.environ["PALLIUM_WORKFLOW_PROVIDER_SLEEPER_COMMAND"] = f"sleep {args.delay}; echo ok"
    run = await Run.open("bench-fanout-sh", repo, Limits(concurrency=args.concurrency))
    start = time.perf_counter()
    await asyncio.gather(*(run.agent(AgentCall(f"sh {i}", provider="sleeper")) for i in range(args.calls)))
    light = time.perf_counter() - start
    await run.close()
    print(
        row(
            "  same, `sh` sleep wrapper (cheap start)",
            light * 1000,
            f"ideal {waves} x {args.delay * 1000:.0f} ms",
            ideal * 1000,
        )
    )


async def _raw_fan_out(repo: Path, args: argparse.Namespace) -> float:
    """The floor on this machine: the same fake processes started by plain asyncio, no kernel at all."""
    from kernel.providers.dialects import fake_command

    slots = asyncio.Semaphore(args.concurrency)
    prompt = repo.parent / "raw-prompt.txt"
    prompt.write_text("slow raw", encoding="utf-8")
    env = {**os.environ, "PALLIUM_WORKFLOW_PROMPT_FILE": str(prompt)}

    async def one() -> None:
        async with slots:
            proc = await asyncio.create_subprocess_exec(
                *fake_command(), env=env, cwd=repo, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE
            )
            await proc.communicate()

    start = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(args.calls)))
    return time.perf_counter() - start


async def _overhead(repo: Path, root: Path) -> None:
    from kernel.execution import AgentCall, Run
    from kernel.providers.contract import ProviderRequest
    from kernel.providers.dialects import fake_command
    from kernel.providers.dispatcher import dispatch

    runs = 15
    env = {
        **os.environ,
        "PALLIUM_WORKFLOW_PROMPT_FILE": str(root / "prompt.txt"),
        "PALLIUM_WORKFLOW_OUTPUT_FILE": str(root / "out.txt"),
    }
    (root / "prompt.txt").write_text("quick", encoding="utf-8")
    bare = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(fake_command(), env=env, cwd=repo, stdin=subprocess.DEVNULL, capture_output=True, check=True)
        bare.append(time.perf_counter() - start)
    dispatched = []
    for i in range(runs + 1):
        start = time.perf_counter()
        await dispatch(ProviderRequest(f"quick {i}", repo, provider="fake"))
        dispatched.append(time.perf_counter() - start)
    run = await Run.open("bench-overhead", repo)
    journaled = []
    for i in range(runs + 1):
        start = time.perf_counter()
        await run.agent(AgentCall(f"quick {i}", provider="fake"))
        journaled.append(time.perf_counter() - start)
    await run.close()
    base = median_ms(bare[1:])
    print(row("bare spawn of the fake provider", base))
    print(
        row("dispatch() of one call", median_ms(dispatched[1:]), "bare spawn", base)
        + f"  overhead {median_ms(dispatched[1:]) - base:.1f} ms"
    )
    print(
        row("Run.agent(): dispatch + journal + lease", median_ms(journaled[1:]), "bare spawn", base)
        + f"  overhead {median_ms(journaled[1:]) - base:.1f} ms"
    )


def _worktrees(repo: Path) -> None:
    from kernel import git
    from kernel.runstore import SCHEMA, RunStore
    from kernel.store import open_global
    from kernel.worktrees import tree
    from kernel.worktrees.snapshot import snapshot

    runs = 7
    raw, ours, snaps = [], [], []
    head = git.run(["rev-parse", "HEAD"], repo).decode().strip()
    db = open_global([SCHEMA])
    store = RunStore(db)
    store.ensure_run("bench-wt", repo=str(repo), budget_usd=None, max_agents=1000)
    try:
        for i in range(runs + 1):
            path = Path(tempfile.gettempdir()) / f"pallium-bench-raw-{os.getpid()}-{i}"
            start = time.perf_counter()
            git.run(["worktree", "add", "--detach", "--quiet", str(path), head], repo)
            (path / "src" / "f0.py").write_text("changed = True\n", encoding="utf-8")
            git.run(["diff", "--binary"], path)
            raw.append(time.perf_counter() - start)
            git.run(["worktree", "remove", "--force", str(path)], repo)

            start = time.perf_counter()
            path = tree.create(store, repo=repo, run_id="bench-wt", name=f"c{i}", commit=head, purpose="edit")
            (path / "src" / "f0.py").write_text("changed = True\n", encoding="utf-8")
            tree.capture(path, head)
            ours.append(time.perf_counter() - start)
            tree.remove(store, path)

            start = time.perf_counter()
            snapshot(repo)
            snaps.append(time.perf_counter() - start)
    finally:
        db.close()
    base = median_ms(raw[1:])
    value = median_ms(ours[1:])
    print(row("git worktree add + git diff (raw)", base))
    print(row("recorded worktree create + capture", value, "raw git", base) + _goal(value / base <= GOALS["worktree"]))
    print(row("snapshot of the user's tree (once per run)", median_ms(snaps[1:]), "raw git", base))


async def _replay(repo: Path, count: int) -> None:
    from kernel.execution import AgentCall, Run
    from kernel.providers.contract import ProviderResult

    run = await Run.open("bench-replay", repo)
    calls = [AgentCall(f"journaled call {i}", provider="fake") for i in range(count)]
    for call in calls:  # journal completed calls directly: spawning 1,000 fakes would measure the fake
        key, seq = run.journal.key_for(call.op, run.request_of(call))
        run.store.record_intent(
            run.run_id, run.lease.epoch, call_key=key, op=call.op, request={}, seq=seq, counts_as_agent=False
        )
        result = ProviderResult("fake", text="ok")
        run.store.record_completion(
            run.run_id,
            run.lease.epoch,
            call_key=key,
            status="completed",
            result={"result": result.to_dict(), "patch_state": None},
            cost_usd=None,
            spent=False,
        )
    await run.close("interrupted")
    start = time.perf_counter()
    resumed = await Run.open("bench-replay", repo)
    outcomes = [await resumed.agent(call) for call in calls]
    elapsed = time.perf_counter() - start
    await resumed.close()
    assert all(o.cached for o in outcomes) and resumed.stats["live"] == 0
    db = resumed.store.db
    from kernel.runstore import SCHEMA, RunStore
    from kernel.store import open_global

    del db
    db = open_global([SCHEMA])
    store = RunStore(db)
    keys = [o.call_key for o in outcomes]
    start = time.perf_counter()
    for key in keys:
        store.call("bench-replay", key)
    reads = time.perf_counter() - start
    db.close()
    print(
        row(f"resume replaying {count} journaled calls", elapsed * 1000, f"{count} row reads", reads * 1000)
        + _goal(elapsed * 1000 <= GOALS["replay_ms"])
    )


def _goal(met: bool) -> str:
    return "  goal met" if met else "  goal MISSED"


def _demo_repo(repo: Path, files: int) -> Path:
    (repo / "src").mkdir(parents=True)
    for i in range(files):
        (repo / "src" / f"f{i}.py").write_text(f"def f{i}():\n    return {i}\n" * 20, encoding="utf-8")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@b",
    }
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "demo"], cwd=repo, check=True, env=env)
    return repo


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
