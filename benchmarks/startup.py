"""`python -m benchmarks startup`: cold starts of the CLI and the MCP server, beside Python and git."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import median_ms, row, time_command

GOALS_MS = {"pallium --help": 150, "pallium changed-now --json": 250, "initialize + list": 1500}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks startup")
    parser.add_argument("--runs", type=int, default=15, help="cold starts per command (default 15)")
    args = parser.parse_args(argv)
    pallium = _script("pallium")
    with tempfile.TemporaryDirectory() as scratch:
        repo = _demo_repo(Path(scratch))
        # Cold starts are what this measures: every call in its own process. The resident
        # server's figure (what an environment's second query gets) is a row of its own below.
        env = {"PALLIUM_HOME": str(Path(scratch) / "home"), "PALLIUM_RESIDENT": "off"}
        python = median_ms(time_command([sys.executable, "-c", "pass"], cwd=repo, runs=args.runs))
        git = median_ms(time_command(["git", "status", "--porcelain"], cwd=repo, runs=args.runs))
        print(f"startup, median of {args.runs} cold starts (goals: {json.dumps(GOALS_MS)})")
        print(row("python3 -c pass", python))
        print(row("git status --porcelain", git))
        for label, argv_ in (
            ("pallium --help", [pallium, "--help"]),
            ("pallium version --json", [pallium, "version", "--json"]),
            ("pallium changed-now --json", [pallium, "changed-now", "--json"]),
        ):
            value = median_ms(time_command(argv_, cwd=repo, runs=args.runs, env=env))
            print(_beside_baselines(label, value, python, git) + _goal(label, value))
        resident = {**env, "PALLIUM_RESIDENT": "on"}
        # The unmeasured first call runs in its own process and starts the server; give it time to listen.
        first = [pallium, "changed-now", "--json"]
        subprocess.run(first, cwd=repo, env={**os.environ, **resident}, capture_output=True, check=True)
        time.sleep(2.0)
        value = median_ms(time_command([pallium, "changed-now", "--json"], cwd=repo, runs=args.runs, env=resident))
        print(_beside_baselines("pallium changed-now --json, resident server", value, python, git))
        init_ms, rss_mb = _mcp_initialize_and_list(repo, env, runs=max(1, args.runs // 3))
        label = "pallium-mcp: start, initialize + list"
        print(_beside_baselines(label, init_ms, python, git) + _goal("initialize + list", init_ms))
        print(f"  {'pallium-mcp: resident memory when idle':<44} {rss_mb:8.1f} MB   (goal 120 MB)")
    return 0


def _beside_baselines(label: str, value: float, python: float, git: float) -> str:
    """One row with its ratio to both baselines, so the figure survives a noisy machine."""
    return f"  {label:<44} {value:8.1f} ms   ({value / python:5.1f}x python3 -c pass, {value / git:6.1f}x git status)"


def _goal(label: str, value: float) -> str:
    goal = GOALS_MS.get(label)
    if goal is None:
        return ""
    return f"  goal {goal} ms: {'met' if value <= goal else 'MISSED'}"


def _script(name: str) -> str:
    found = shutil.which(name) or str(Path(sys.executable).with_name(name))
    if not Path(found).exists():
        raise SystemExit(f"{name} is not installed; run `pip install -e .` first")
    return found


def _demo_repo(scratch: Path) -> Path:
    repo = scratch / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    for i in range(50):
        (repo / f"mod{i}.py").write_text(f"x = {i}\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "init"], cwd=repo, check=True)
    (repo / "mod1.py").write_text("x = 'changed'\n", encoding="utf-8")
    (repo / "new.py").write_text("y = 1\n", encoding="utf-8")
    return repo


def _mcp_initialize_and_list(repo: Path, env: dict[str, str], runs: int) -> tuple[float, float]:
    """Median time for a stdio client to start pallium-mcp, initialize and list tools; idle RSS after."""
    import psutil

    samples, rss = [], 0.0
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(
            [_script("pallium-mcp")],
            cwd=repo,
            env={**os.environ, **env},
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        _send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"},
                },
            },
        )
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"}, wait=False)
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        samples.append(time.perf_counter() - start)
        time.sleep(0.5)
        rss = psutil.Process(proc.pid).memory_info().rss / 2**20
        proc.stdin.close()
        proc.wait(timeout=10)
        proc.stdout.close()
    return median_ms(samples), rss


def _send(proc: subprocess.Popen, message: dict, wait: bool = True) -> None:
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    while wait:
        reply = json.loads(proc.stdout.readline())
        if reply.get("id") == message["id"]:
            return
