"""`python -m benchmarks loops`: what a loop adds to the workflow run each tick makes.

Baseline: `pallium_workflow_run` of the same script through the dispatcher, in the same process. The
figures: a tick (lease, cycle records, the child run), a tick whose signature Pallium builds from
failing tests and the working-tree hash (one `git add -A` and `git write-tree` in a scratch index),
and a refused tick (a stagnated loop: no run). Runs in a temporary PALLIUM_HOME and repository.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.harness import median_ms, row

SCRIPT = 'export const meta = {kind: "loop", loop: {stagnationThreshold: 1000}};\nreturn %s;\n'


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks loops")
    parser.add_argument("--runs", type=int, default=15, help="measured repetitions of each (default 15)")
    parser.add_argument("--files", type=int, default=2000, help="files in the demo repository (default 2000)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pallium-bench-") as scratch:
        root = Path(scratch)
        os.environ["PALLIUM_HOME"] = str(root / "home")
        repo = _demo_repo(root / "repo", args.files)
        print(f"loops ({os.cpu_count()} cores, {args.runs} runs each, {args.files}-file repository)")
        asyncio.run(_measure(repo, args.runs))
    return 0


async def _measure(repo: Path, runs: int) -> None:
    from kernel import dispatch
    from kernel.context import ToolContext

    plain = SCRIPT % '{state: "no_op", signature: "s" + args.n}'
    failing = SCRIPT % '{state: "no_op", failing: ["tests/test_a.py::test_" + args.n]}'
    (repo / "plain.loop.js").write_text(plain, encoding="utf-8")
    (repo / "failing.loop.js").write_text(failing, encoding="utf-8")

    async def call(name: str, arguments: dict) -> object:
        ctx = ToolContext(cwd=repo)
        try:
            return await dispatch.call(name, arguments, ctx)
        finally:
            ctx.close()

    counter = iter(range(1_000_000))

    async def workflow_run() -> None:
        n = next(counter)
        await call("pallium_workflow_run", {"task": "bench", "source": plain, "args": f'{{"n": {n}}}'})

    for name, script in (("plain", "plain.loop.js"), ("failing", "failing.loop.js")):
        await call("pallium_loop_start", {"name": name, "script": script, "args": '{"n": 1}'})
    await call("pallium_loop_start", {"name": "stuck", "script": "plain.loop.js", "args": '{"n": 1}'})
    for _ in range(2):
        await call("pallium_loop_tick", {"name": "stuck"})
    await call("pallium_loop_reset", {"name": "stuck"})
    # Interleaved, so drift in the machine's load falls on all three alike.
    fns = {
        "run": workflow_run,
        "tick": lambda: call("pallium_loop_tick", {"name": "plain"}),
        "signed": lambda: call("pallium_loop_tick", {"name": "failing"}),
    }
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for fn in fns.values():  # warm-up
        await fn()
    for _ in range(runs):
        for name, fn in fns.items():
            start = time.perf_counter()
            await fn()
            samples[name].append(time.perf_counter() - start)
    baseline, tick, signed = (median_ms(samples[n]) for n in ("run", "tick", "signed"))
    print(row("workflow run of the same script (baseline)", baseline))
    print(row("loop tick: lease, records, child run", tick, "workflow run", baseline))
    print(row("loop tick with Pallium-built signature", signed, "workflow run", baseline))
    print(row("  of which: the signature's tree hash", signed - tick, "loop tick", tick))


def _demo_repo(repo: Path, files: int) -> Path:
    for i in range(files):
        path = repo / f"pkg{i % 40}" / f"mod{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def f{i}():\n    return {i}\n" * 5, encoding="utf-8")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@example.com",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@example.com",
    }
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "demo"]):
        subprocess.run(["git", *command], cwd=repo, env=env, check=True, capture_output=True)
    return repo
