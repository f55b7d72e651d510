"""`python -m benchmarks index`: cold, no-op and one-file index runs and query latency, beside git log and ctags.

Builds a synthetic repository (default 1,000 files and 3,000 commits; `--synthetic 5000,20000`
for the issue's size) or takes `--repo PATH`. The cold index runs in a child process so its peak
memory is its own; reindexes and queries run in this process, through the tool dispatcher, so
every query pays its freshness check as an agent's would.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import percentile_ms, row

# The issues' goals: cold at most 2x (git log + ctags; issue 25 asks 3x on real repositories) and
# at most 1.5x its floor (`index_floor`); the rest in milliseconds.
GOALS = {"cold_ratio": 2.0, "floor_ratio": 1.5, "noop": 100.0, "one": 200.0, "query_p50": 30.0, "cli_wall": 150.0}
_COMMENT = {".py": "#", ".rb": "#", ".sh": "#", ".lua": "--"}  # others: `//`
_CODE = (".py", ".ts", ".tsx", ".js", ".go", ".rs", ".java", ".c", ".cpp", ".cs", ".rb", ".php", ".kt", ".lua")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks index")
    parser.add_argument("--repo", help="index this repository instead of a synthetic one (it is not modified)")
    parser.add_argument("--synthetic", default="1000,3000", help="FILES,COMMITS of the synthetic repo")
    parser.add_argument("--queries", type=int, default=60, help="calls per query kind (default 60)")
    parser.add_argument("--child-cold", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_cold:
        return _child_cold(Path(args.child_cold))
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["PALLIUM_HOME"] = str(Path(scratch) / "home")
        if args.repo:
            repo = Path(scratch) / "copy"
            subprocess.run(["git", "clone", "-q", "--no-local", str(Path(args.repo).resolve()), str(repo)], check=False)
            if not (repo / ".git").is_dir():  # a source git cannot pack (objects missing): copy its objects
                subprocess.run(["git", "clone", "-q", str(Path(args.repo).resolve()), str(repo)], check=False)
            if not (repo / ".git").is_dir():
                raise SystemExit(f"could not clone {args.repo}")
            # A source missing some blobs (a mirror that left large files out) fails the checkout: check
            # out what there is, file by file, as the index will find it.
            subprocess.run(["git", "reset", "-q"], cwd=repo, capture_output=True, check=False)
            subprocess.run(["git", "checkout-index", "-a", "-f"], cwd=repo, capture_output=True, check=False)
        else:
            files, commits = (int(x) for x in args.synthetic.split(","))
            started = time.perf_counter()
            from benchmarks.synthetic_repo import build

            repo = build(Path(scratch) / "synthetic", files=files, commits=commits)
            took = time.perf_counter() - started
            print(f"built a synthetic repository of {files} files and {commits} commits in {took:.1f}s")
        _run(repo, args.queries)
    return 0


def _run(repo: Path, queries: int) -> None:
    tracked = len(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, check=True).stdout.splitlines())
    count = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo, capture_output=True, text=True).stdout
    print(f"repository: {tracked} tracked files, {count.strip()} commits; goals: {json.dumps(GOALS)}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    git_log = _time(["git", "log", "--name-only", "--format=%H"], repo)
    ctags = (
        _time(["ctags", "-R", "-f", os.devnull, "--exclude=.git", "--exclude=.pallium", "."], repo)
        if shutil.which("ctags")
        else None
    )
    baseline = git_log + (ctags or 0)
    print(row("baseline: git log --name-only", git_log))
    if ctags is not None:
        print(row("baseline: ctags -R", ctags))
    else:
        print("  baseline: ctags -R                          (ctags not installed)")
    from benchmarks.index_floor import children_cpu, measure

    floor = measure(repo, _tracked(repo))
    print(row("floor: bare git commands of the index", floor.git_ms))
    print(row(f"floor: bare parse+query, {os.cpu_count()} processes", floor.parse_ms) + f"  ({floor.files} files)")
    print(row("floor: both at once", floor.both_ms))
    cpu = children_cpu()
    cold = subprocess.run(
        [sys.executable, "-m", "benchmarks", "index", "--child-cold", str(repo)],
        capture_output=True,
        text=True,
        check=True,
    )
    cold_cpu = children_cpu() - cpu
    child = json.loads(cold.stdout.strip().splitlines()[-1])
    ratio = child["ms"] / baseline if baseline else float("inf")
    verdict = "met" if ratio <= GOALS["cold_ratio"] else "MISSED"
    print(row("cold full index", child["ms"], "git log + ctags", baseline) + f"  goal <= 2x: {verdict}")
    print(f"    {child['summary']}")
    to_floor = child["ms"] / floor.both_ms if floor.both_ms else float("inf")
    verdict = "met" if to_floor <= GOALS["floor_ratio"] else "MISSED"
    print(row("cold full index", child["ms"], "floor (both at once)", floor.both_ms) + f"  goal <= 1.5x: {verdict}")
    print(row("  its git half", child["git_ms"], "bare git commands", floor.git_ms))
    print(f"    cold / (git log + ctags) = {ratio:.2f}x: issue 25's goal <= 3x {'met' if ratio <= 3 else 'MISSED'}")
    # The same comparison in CPU seconds of every process each run started, which the others' load
    # on a shared machine moves much less than wall time.
    cpu_ratio = cold_cpu / floor.both_cpu if floor.both_cpu else float("inf")
    label = "CPU seconds: cold index / floor (both)"
    print(f"  {label:<44} {cold_cpu:8.2f} s / {floor.both_cpu:.2f} s = {cpu_ratio:.2f}x")
    print(f"  {'peak memory of the cold index process':<44} {child['max_rss_mb']:8.1f} MB")

    from kernel.clock import SystemClock
    from kernel.store import open_repo
    from services.repo.indexing import run_index
    from services.repo.store import SCHEMA

    with open_repo(repo, [SCHEMA]) as db:

        def index() -> float:
            start = time.perf_counter()
            run_index(db, repo, full=False, untracked=False, now=SystemClock(), progress=lambda *a: None)
            return (time.perf_counter() - start) * 1000

        status = _time(["git", "status", "--porcelain"], repo)
        noop = min(index() for _ in range(3))
        print(row("no-op reindex (best of 3)", noop, "git status", status) + _goal("noop", noop))
        target = next(p for p in _tracked(repo) if p.endswith(_CODE))
        with open(repo / target, "a", encoding="utf-8") as handle:
            handle.write(f"\n{_COMMENT.get(Path(target).suffix, '//')} changed for the benchmark\n")
        one = index()
        print(row("reindex after one file changed", one, "git status", status) + _goal("one", one))
    _queries(repo, queries, status)
    _cli(repo, target, status)


def _cli(repo: Path, target: str, status_ms: float) -> None:
    """`pallium symbols FILE --json` as an agent's shell runs it, on the warm index: wall time.

    Twice: answered by the resident server (what a second call gets by default), and in its own
    process (`PALLIUM_RESIDENT=off`, what the first call of an environment gets).
    """
    script = Path(sys.executable).with_name("pallium")
    pallium = str(script) if script.exists() else "pallium"
    argv = [pallium, "symbols", target, "--json"]
    # Warm means compiled too: an installed CLI starts from its bytecode, and with this variable set
    # (as some agent shells set it) every module edited since the last compile is compiled at each start.
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONDONTWRITEBYTECODE", "PALLIUM_RESIDENT"}}
    alone = {**env, "PALLIUM_RESIDENT": "off"}
    subprocess.run(argv, cwd=repo, capture_output=True, env=alone, check=False)  # warm the file cache
    own = _wall(argv, repo, alone)
    subprocess.run(argv, cwd=repo, capture_output=True, env=env, check=False)  # starts this environment's server
    served = _wall(argv, repo, env) if _resident_up(pallium, env) else None
    label = "CLI `pallium symbols FILE --json`: p50 wall"
    if served is not None:
        print(row(label, served, "git status", status_ms) + _goal("cli_wall", served) + "  (resident server)")
    else:
        print(f"  {label}: the resident server did not start")
    print(row("  the same in its own process", own, "git status", status_ms) + "  (PALLIUM_RESIDENT=off)")
    # What any CLI built on this stack pays before its first line runs: the interpreter, and the
    # imports every tool call needs (the event loop the handlers run on, SQLite, pydantic's models).
    floor = _wall([sys.executable, "-c", "import asyncio, apsw; from pydantic import BaseModel, Field"], repo, env)
    print(row("  import floor of its own process", floor, "in its own process", own))
    # The server exits by itself once this run's PALLIUM_HOME is deleted.


def _wall(argv: list[str], cwd: Path, env: dict[str, str], runs: int = 9) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, capture_output=True, env=env, check=False)
        samples.append(time.perf_counter() - start)
    return percentile_ms(samples, 50)


def _resident_up(pallium: str, env: dict[str, str]) -> bool:
    """Wait (up to 20 s) for the server the last call started to answer."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        done = subprocess.run([pallium, "resident", "status", "--json"], capture_output=True, text=True, env=env)
        if done.returncode == 0 and any(
            s["this_environment"] and s["running"] for s in json.loads(done.stdout)["servers"]
        ):
            return True
        time.sleep(0.2)
    return False


def _sample_names(repo: Path) -> tuple[list[str], list[str]]:
    """Names the repository defines most, and search words from them, so any repository has real queries."""
    from kernel.store import open_repo
    from services.repo.store import SCHEMA, RepoStore
    from services.repo.text import split_terms

    with open_repo(repo, [SCHEMA]) as db:
        names = RepoStore(db).common_names(limit=6) or ["main"]
    words = [" ".join(split_terms(n).split()[-2:]) for n in names]
    return names, words


def _queries(repo: Path, runs: int, status_ms: float) -> None:
    from kernel.clock import SystemClock
    from kernel.context import ToolContext
    from kernel.dispatch import call
    from kernel.errors import PalliumError

    rng = random.Random(3)
    code_files = [p for p in _tracked(repo) if p.endswith(_CODE)]
    names, words = _sample_names(repo)
    kinds = {
        "symbols": lambda: ("pallium_symbols", {"path": rng.choice(code_files)}),
        "callers": lambda: ("pallium_callers", {"name": rng.choice(names)}),
        "search": lambda: ("pallium_search", {"query": rng.choice(words)}),
        "explain": lambda: ("pallium_explain", {"path": rng.choice(code_files)}),
    }
    ctx = ToolContext(cwd=repo, clock=SystemClock())

    async def go() -> None:
        for label, make in kinds.items():
            samples = []
            for i in range(runs + 3):
                name, arguments = make()
                start = time.perf_counter()
                with contextlib.suppress(PalliumError):  # a skipped file answers not_found; still timed
                    await call(name, arguments, ctx)
                if i >= 3:  # the first calls warm caches and compile queries
                    samples.append(time.perf_counter() - start)
            p50, p95 = percentile_ms(samples, 50), percentile_ms(samples, 95)
            print(row(f"{label}: p50", p50, "git status", status_ms) + _goal("query_p50", p50))
            print(row(f"{label}: p95", p95, "git status", status_ms))

    try:
        asyncio.run(go())
    finally:
        ctx.close()


def _child_cold(repo: Path) -> int:
    import resource

    from kernel.clock import SystemClock
    from kernel.store import open_repo
    from services.repo.indexing import run_index
    from services.repo.store import SCHEMA

    shutil.rmtree(repo / ".pallium", ignore_errors=True)
    start = time.perf_counter()
    with open_repo(repo, [SCHEMA]) as db:
        out = run_index(db, repo, full=True, untracked=False, now=SystemClock(), progress=lambda *a: None)
    ms = (time.perf_counter() - start) * 1000
    summary = (
        f"{out.commits_read} commits read (git half {out.git_seconds:.2f}s), {out.files_parsed} files parsed, "
        f"skipped {out.files_skipped}"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"ms": ms, "summary": summary, "max_rss_mb": peak, "git_ms": out.git_seconds * 1000}))
    return 0


def _tracked(repo: Path) -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True, check=True).stdout.split()


def _time(argv: list[str], cwd: Path, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def _goal(kind: str, value: float) -> str:
    goal = GOALS[kind]
    return f"  goal {goal:g} ms: {'met' if value <= goal else 'MISSED'}"
