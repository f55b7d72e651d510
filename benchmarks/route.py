"""`python -m benchmarks route`: route's answer time in process, beside a no-op tool call, and the catalog size.

Both are dispatched through `kernel.dispatch.call` in one process (so imports and the catalog are
warm after the first call), in a small git repository with no index and a temporary PALLIUM_HOME.
The baseline is a registered tool that returns at once: the dispatcher's own cost per call.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.harness import median_ms, percentile_ms

GOALS = {"p50_ms": 10.0, "capabilities_bytes": 4096}  # issue #24: p50 under 10 ms in process
TASKS = (
    "find all running agent sessions",
    "fix the checkout race and verify it",
    "who calls main",
    "explain src/app.py before I edit it",
    "what changed in the working tree",
    "prune sessions older than 90 days",
    "apply the patches from the last run",
    "what's the weather in Paris",
    "shw me runnign agnets",
    "why did we choose sqlite",
    "explain src/app.py, then fix the bug in it",
    "keep checking and fixing the code until it is clean",
    "remove session history older than 6 months",
    "status of run wf-20240101-000000-000000",
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks route")
    parser.add_argument("--rounds", type=int, default=20, help="passes over the task list (default 20)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pallium-bench-") as scratch:
        root = Path(scratch)
        os.environ["PALLIUM_HOME"] = str(root / "home")
        repo = _repo(root / "repo")
        route_s, noop_s, size = asyncio.run(_measure(repo, args.rounds))
    p50, noop = median_ms(route_s), median_ms(noop_s)
    print(
        f"route (in process, {len(TASKS)} tasks x {args.rounds}; goals: p50 <= {GOALS['p50_ms']:.0f} ms, "
        f"capabilities <= {GOALS['capabilities_bytes']} bytes)"
    )
    print(f"  {'no-op tool call p50':<28} {noop:8.2f} ms   (baseline)")
    print(f"  {'route p50':<28} {p50:8.2f} ms   ({p50 / noop:.0f}x the no-op call)")
    print(f"  {'route p90':<28} {percentile_ms(route_s, 90):8.2f} ms")
    print(f"  {'route capabilities':<28} {size:8d} B    ({size / GOALS['capabilities_bytes']:.0%} of 4 KB)")
    return 0 if p50 <= GOALS["p50_ms"] and size <= GOALS["capabilities_bytes"] else 1


async def _measure(repo: Path, rounds: int) -> tuple[list[float], list[float], int]:
    from pydantic import BaseModel

    from kernel import dispatch
    from kernel.context import ToolContext
    from kernel.models import ToolInput
    from kernel.tool import Route, Tool

    class Empty(ToolInput):
        pass

    class Done(BaseModel):
        ok: bool = True

    async def noop(inp: Empty, ctx: ToolContext) -> Done:
        return Done()

    dispatch.register(
        [
            Tool(
                cli="bench noop",
                handler=noop,
                input=Empty,
                output=Done,
                summary="Nothing.",
                description="Use for benchmarks. Not for work.",
                authority="observe",
                toolset="bench",
                route=Route(phrasings=("a", "b", "c"), routable=False),
            )
        ]
    )
    ctx = ToolContext(ceiling="edit", cwd=repo)
    try:
        await dispatch.call("pallium_route", {"task": "warm up"}, ctx)
        await dispatch.call("pallium_bench_noop", {}, ctx)
        route_s, noop_s = [], []
        for _ in range(rounds):
            for task in TASKS:
                start = time.perf_counter()
                await dispatch.call("pallium_route", {"task": task}, ctx)
                route_s.append(time.perf_counter() - start)
                start = time.perf_counter()
                await dispatch.call("pallium_bench_noop", {}, ctx)
                noop_s.append(time.perf_counter() - start)
        listed = await dispatch.call("pallium_route_capabilities", {}, ctx)
        size = len(json.dumps(listed.model_dump(mode="json"), separators=(",", ":")))
    finally:
        ctx.close()
    return route_s, noop_s, size


def _repo(path: Path) -> Path:
    (path / "src").mkdir(parents=True)
    (path / "src" / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@b",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@b",
    }
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "start"]):
        subprocess.run(["git", *argv], cwd=path, env=env, check=True, capture_output=True)
    return path
