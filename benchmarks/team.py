"""`python -m benchmarks team`: a team's rounds beside their ideal, and prompt size as history grows.

The team: 8 members over 10 rounds whose agent is an `sh` wrapper that sleeps and answers `active`
(negligible CPU of its own), so what is measured is Pallium's scheduler, store and kernel per turn.
Ideal: 10 rounds x the agent's sleep (all 8 turns of a round run at once). Baseline: the same `sh`
processes started by bare asyncio, 8 at a time, 10 times. Then the prompt bytes of one turn as the
board and the mailbox grow from empty to 1,000 tasks and 1,000 waiting messages: the goal is a
bound, not growth with history. Runs in a temporary PALLIUM_HOME and repository.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.harness import row

MEMBERS = 8
ROUNDS = 10
# `$$` makes each answer differ, so no member is escalated for repeating itself
AGENT = 'sleep {sleep}; printf \'{{"status": "active", "status_reason": "turn %s", "summary": "working"}}\' "$$"'


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks team")
    parser.add_argument("--sleep", type=float, default=0.2, help="seconds each agent turn sleeps (default 0.2)")
    parser.add_argument("--runs", type=int, default=3, help="measured team runs (median; default 3)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pallium-bench-") as scratch:
        root = Path(scratch)
        os.environ["PALLIUM_HOME"] = str(root / "home")
        os.environ["PALLIUM_WORKFLOW_PROVIDER_SHAGENT_COMMAND"] = AGENT.format(sleep=args.sleep)
        repo = _repo(root / "repo")
        print(f"team ({os.cpu_count()} cores, {MEMBERS} members x {ROUNDS} rounds, agent sleeps {args.sleep}s)")
        asyncio.run(_measure(repo, args.sleep, args.runs))
    return 0


async def _measure(repo: Path, sleep: float, runs: int) -> None:
    ideal = ROUNDS * sleep * 1000
    bare = []
    for _ in range(runs):
        started = time.perf_counter()
        for _round in range(ROUNDS):
            procs = [
                await asyncio.create_subprocess_shell(
                    AGENT.format(sleep=sleep), stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL
                )
                for _ in range(MEMBERS)
            ]
            await asyncio.gather(*(p.wait() for p in procs))
        bare.append((time.perf_counter() - started) * 1000)
    team_ms, turns = [], 0
    for _ in range(runs):
        team = await _team(repo, MEMBERS)
        started = time.perf_counter()
        out = await _call(repo, "pallium_team_run", {"team": team, "max_rounds": ROUNDS})
        team_ms.append((time.perf_counter() - started) * 1000)
        turns = out.turns_taken  # type: ignore[attr-defined]
        assert out.rounds == ROUNDS, out  # type: ignore[attr-defined]
    median_team, median_bare = sorted(team_ms)[len(team_ms) // 2], sorted(bare)[len(bare) // 2]
    goal = "goal met" if median_team <= 1.3 * ideal else "goal MISSED"
    print(row(f"team run: {MEMBERS} x {ROUNDS} rounds ({turns} turns)", median_team, "ideal", ideal) + f"  {goal}")
    print(row("the same sh agents, bare asyncio", median_bare, "ideal", ideal))
    per_turn = (median_team - median_bare) / max(turns, 1)
    print(f"  Pallium's cost per turn beyond bare asyncio: {per_turn:.1f} ms (store, prompt, journal, lease)")
    print("prompt bytes of one turn as history grows (tasks on the board, messages waiting, turns taken):")
    await _prompt_growth(repo)


async def _prompt_growth(repo: Path) -> None:
    team = await _team(repo, 1)
    previous = 0
    for tasks, mail in ((0, 0), (10, 10), (100, 100), (1000, 1000)):
        for i in range(previous, tasks):
            await _call(repo, "pallium_team_tasks_add", {"team": team, "title": f"task {i}: check module {i}"})
            await _call(repo, "pallium_team_send", {"team": team, "to": "m0", "body": f"note {i}: look at file {i}"})
        previous = tasks
        await _call(repo, "pallium_team_run", {"team": team, "max_rounds": 1})
        status = await _call(repo, "pallium_team_status", {"team": team})
        turns = status.members[1].turn_count  # type: ignore[attr-defined]
        size = _last_prompt_bytes(team)
        print(f"  {tasks:>5} tasks, {mail:>5} messages, {turns:>3} turns   {size:>7,} bytes")


def _last_prompt_bytes(team: str) -> int:
    from kernel.context import ToolContext
    from kernel.runstore import SCHEMA as RUN_SCHEMA
    from services.teams.store import SCHEMA, TeamStore

    ctx = ToolContext()
    try:
        return TeamStore(ctx.global_db([SCHEMA, RUN_SCHEMA])).turns(team, limit=1)[0].prompt_bytes
    finally:
        ctx.close()


async def _team(repo: Path, members: int) -> str:
    team = (await _call(repo, "pallium_team_start", {"goal": "benchmark the scheduler"})).team.id  # type: ignore[attr-defined]
    for i in range(members):
        await _call(repo, "pallium_team_spawn", {"team": team, "name": f"m{i}", "provider": "shagent"})
        await _call(repo, "pallium_team_nudge", {"team": team, "member": f"m{i}"})
    return team


async def _call(repo: Path, name: str, arguments: dict) -> object:
    from kernel import dispatch
    from kernel.context import ToolContext

    ctx = ToolContext(cwd=repo)
    try:
        return await dispatch.call(name, arguments, ctx)
    finally:
        ctx.close()


def _repo(path: Path) -> Path:
    path.mkdir(parents=True)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@b",
    }
    (path / "README.md").write_text("# bench\n", encoding="utf-8")
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "start"]):
        subprocess.run(["git", *argv], cwd=path, env=env, check=True, capture_output=True)
    return path
