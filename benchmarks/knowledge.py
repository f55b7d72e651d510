"""`python -m benchmarks knowledge --repo PATH`: map and build time beside the cold index, search and context p50.

With `--tasks FILE --repo PATH` it scores `knowledge context` instead, on change requests labelled
by hand (`benchmarks/knowledge_tasks/`, scored by `benchmarks/knowledge_eval.py`); pass `--tasks`
and `--repo` once per repository, in the same order, and `--work DIR` to keep the indexed clones.

The repository is cloned into a scratch folder (it is never modified). Everything runs in this
process through the tool dispatcher, as an agent's calls would: the cold index first (the
baseline), then `knowledge map`, `knowledge build --no-model`, then search and context calls on
words and names taken from the base itself, each paying its freshness check. The largest
answers of each read tool are printed in bytes beside their budgets.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.harness import percentile_ms, row

GOALS = {"search_p50": 20.0, "context_p50": 50.0}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks knowledge")
    parser.add_argument("--repo", action="append", help="a git repository (or bare git directory) to clone and measure")
    parser.add_argument("--queries", type=int, default=60, help="calls per read kind (default 60)")
    parser.add_argument("--tasks", action="append", help="labelled change requests to score context on")
    parser.add_argument("--work", help="keep the indexed clones here between runs (default: a temporary folder)")
    parser.add_argument("--show", action="store_true", help="print each task's answer beside its labels")
    parser.add_argument("--lines", action="store_true", help="a score line for every task, not only the misses")
    args = parser.parse_args(argv)
    if args.tasks:
        return _score_tasks(args)
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["PALLIUM_HOME"] = str(Path(scratch) / "home")
        if args.repo:
            repo = Path(scratch) / "copy"
            source = str(Path(args.repo[0]).resolve())
            subprocess.run(["git", "clone", "-q", "--no-local", source, str(repo)], check=True)
        else:
            from benchmarks.synthetic_repo import build

            repo = build(Path(scratch) / "synthetic", files=1000, commits=3000)
        asyncio.run(_run(repo, args.queries))
    return 0


def _score_tasks(args: argparse.Namespace) -> int:
    from benchmarks import knowledge_eval

    repos = args.repo or []
    if len(repos) != len(args.tasks):
        print("pass one --repo for each --tasks file, in the same order", flush=True)
        return 2
    print(f"load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(args.work or tmp)
        scratch.mkdir(parents=True, exist_ok=True)
        for source, tasks in zip(repos, args.tasks, strict=True):
            spec = json.loads(Path(tasks).read_text())
            name = Path(tasks).stem
            repo = knowledge_eval.prepare(source, scratch, name, spec.get("missing_blobs", []))
            scores = asyncio.run(knowledge_eval.evaluate(repo, Path(tasks), show=args.show))
            split = spec.get("split", "tuning")
            print(
                knowledge_eval.report(
                    spec["repository"], split, scores, has_check=bool(spec.get("check")), every=args.lines
                )
            )
    return 0


async def _run(repo: Path, runs: int) -> None:
    from kernel.clock import SystemClock
    from kernel.context import ToolContext
    from kernel.dispatch import call

    tracked = len(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, check=True).stdout.splitlines())
    print(f"repository: {tracked} tracked files; goals (ms): {GOALS}; load average {os.getloadavg()}")
    ctx = ToolContext(cwd=repo, clock=SystemClock())
    try:
        cold = await _timed(call("pallium_index", {}, ctx))
        print(row("baseline: cold index (pallium index)", cold[0]))
        mapped = await _timed(call("pallium_knowledge_map", {}, ctx))
        print(row("knowledge map (index already current)", mapped[0], "cold index", cold[0]))
        built = await _timed(call("pallium_knowledge_build", {"model": False}, ctx))
        out = built[1]
        print(row("knowledge build --no-model", built[0], "cold index", cold[0]))
        print(f"    {out.modules} modules, {out.documents} documents, {len(out.written)} files written")
        rebuilt = await _timed(call("pallium_knowledge_build", {"model": False}, ctx))
        print(row("knowledge build --no-model, nothing changed", rebuilt[0], "cold index", cold[0]))
        full_map = (await call("pallium_knowledge_map", {"full": True}, ctx)).full or []
        rng = random.Random(7)
        words = _words(full_map)
        largest: dict[str, int] = {"map": len(mapped[1].model_dump_json())}
        for label, tool, make in (
            ("search", "pallium_knowledge_search", lambda: {"query": " ".join(rng.sample(words, 2))}),
            ("context", "pallium_knowledge_context", lambda: {"task": _task(rng, full_map, words)}),
            ("get", "pallium_knowledge_get", lambda: {"slug": rng.choice(full_map)["slug"]}),
        ):
            samples = []
            for i in range(runs + 3):
                start = time.perf_counter()
                answer = await call(tool, make(), ctx)
                if i >= 3:
                    samples.append(time.perf_counter() - start)
                largest[label] = max(largest.get(label, 0), len(answer.model_dump_json()))
            p50, p95 = percentile_ms(samples, 50), percentile_ms(samples, 95)
            goal = GOALS.get(f"{label}_p50")
            note = f"   goal {goal:.0f} ms: {'met' if p50 <= goal else 'MISSED'}" if goal else ""
            print(row(f"{label}: p50", p50, "cold index", cold[0]) + note)
            print(row(f"{label}: p95", p95) + f"   (load average {os.getloadavg()[0]:.2f})")
        budgets = _budgets()
        for label, size in largest.items():
            print(f"  largest {label} answer: {size} bytes (budget {budgets[label]})")
    finally:
        ctx.close()


def _budgets() -> dict[str, int | None]:
    """Each read tool's declared byte budget, as the dispatcher enforces it."""
    from services.knowledge.tools import TOOLS

    return {t.cli.split(" ", 1)[1]: t.budget for t in TOOLS}


async def _timed(awaitable: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    out = await awaitable
    return (time.perf_counter() - start) * 1000, out


def _words(modules: list[dict[str, Any]]) -> list[str]:
    words = set()
    for m in modules:
        words.update(part for part in m["path"].replace("_", "/").split("/") if len(part) > 3)
        words.update(s["name"].lower() for s in m["surface"][:5] if len(s["name"]) > 3)
    return sorted(words) or ["main", "test"]


def _task(rng: random.Random, modules: list[dict[str, Any]], words: list[str]) -> str:
    module = rng.choice(modules)
    name = module["surface"][0]["name"] if module["surface"] else rng.choice(words)
    return f"change how {name} handles {rng.choice(words)} and update the tests"
