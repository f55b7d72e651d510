"""`python -m benchmarks team`: a team's rounds beside their ideal, and prompt size as history grows.

The team: 8 members over 10 rounds whose agent is an `sh` wrapper that sleeps and answers `active`
(negligible CPU of its own), so what is measured is Pallium's scheduler, store and kernel per turn.
With `--edit` the members are edit members and each turn also writes a file of its own, so every
turn is a worktree, a capture, the gates and staging; `--repo PATH` runs on a clone of a real
repository (it is cloned into a temporary folder: PATH itself is never touched).
Ideal: rounds x the agent's sleep (all turns of a round run at once). Baseline: the same `sh`
processes started by bare asyncio, as many at a time, as many times. Then (without `--edit`) the
prompt bytes of one turn as the board and the mailbox grow from empty to 1,000 tasks and 1,000
waiting messages: the goal is a bound, not growth with history. Runs in a temporary PALLIUM_HOME.
Beside the wall times it prints CPU per turn (user + system of this process, its threads and the
children it waited for: git, the agents) of the team's runs and of bare asyncio's: on a machine other
work loads, the CPU is the figure that says what Pallium costs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.harness import row

MEMBERS = 8
ROUNDS = 10
GOALS = {"read-only": 1.3, "edit": 1.5}
# `$$` makes each answer differ, so no member is escalated for repeating itself
ANSWER = 'printf \'{{"status": "active", "status_reason": "turn %s", "summary": "working"}}\' "$$"'
AGENT = "sleep {sleep}; " + ANSWER
# an edit member's turn: a line appended to a file of its own (named after its label), then the answer
EDITOR = (
    'sleep {sleep}; f="pallium-bench-$(printf %s "$PALLIUM_WORKFLOW_LABEL" | tr -c "A-Za-z0-9" _).txt"; '
    'echo "turn $$" >> "$f"; ' + ANSWER
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks team")
    parser.add_argument("--sleep", type=float, default=0.2, help="seconds each agent turn sleeps (default 0.2)")
    parser.add_argument("--runs", type=int, default=3, help="measured team runs (median; default 3)")
    parser.add_argument("--members", type=int, default=MEMBERS, help=f"members (default {MEMBERS})")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"rounds (default {ROUNDS})")
    parser.add_argument("--edit", action="store_true", help="edit members: each turn writes a file of its own")
    parser.add_argument("--repo", type=Path, help="run on a clone of this git repository (default: a tiny one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pallium-bench-") as scratch:
        root = Path(scratch)
        os.environ["PALLIUM_HOME"] = str(root / "home")
        agent = (EDITOR if args.edit else AGENT).format(sleep=args.sleep)
        os.environ["PALLIUM_WORKFLOW_PROVIDER_SHAGENT_COMMAND"] = agent
        repo = _clone(args.repo, root / "repo") if args.repo else _repo(root / "repo")
        files = len(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.splitlines())
        kind = "edit" if args.edit else "read-only"
        print(
            f"team ({os.cpu_count()} cores, load {_load()}; {args.members} {kind} members x {args.rounds} rounds, "
            f"agent sleeps {args.sleep}s; repository of {files:,} files)"
        )
        asyncio.run(_measure(repo, agent, args, kind))
        if not args.edit:
            print("prompt bytes of one turn as history grows (tasks on the board, messages waiting, turns taken):")
            asyncio.run(_prompt_growth(repo))
        print(f"load after: {_load()}")
    return 0


def _cpu_ms() -> float:
    """CPU time (user + system) of this process, its threads and the children it has waited for, in ms."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime) * 1000


def _load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


async def _measure(repo: Path, agent: str, args: argparse.Namespace, kind: str) -> None:
    members, rounds = args.members, args.rounds
    ideal = rounds * args.sleep * 1000
    bare, bare_cpu = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="pallium-bench-bare-") as folder:
            started, cpu = time.perf_counter(), _cpu_ms()
            for _round in range(rounds):
                procs = [
                    await asyncio.create_subprocess_shell(
                        agent,
                        stdout=subprocess.DEVNULL,
                        stdin=subprocess.DEVNULL,
                        cwd=folder,
                        env={**os.environ, "PALLIUM_WORKFLOW_LABEL": f"bare/m{i}"},
                    )
                    for i in range(members)
                ]
                await asyncio.gather(*(p.wait() for p in procs))
            bare.append((time.perf_counter() - started) * 1000)
            bare_cpu.append(_cpu_ms() - cpu)
    team_ms, team_cpu, cold_ms, turns = [], [], [], 0
    for _ in range(args.runs):
        team = await _team(repo, members, edit=args.edit)
        # the team's first `team run` makes its members' worktrees (kept for its later runs): timed apart
        started = time.perf_counter()
        await _call(repo, "pallium_team_run", {"team": team, "max_rounds": 1})
        cold_ms.append((time.perf_counter() - started) * 1000)
        started, cpu = time.perf_counter(), _cpu_ms()
        out = await _call(repo, "pallium_team_run", {"team": team, "max_rounds": rounds})
        team_ms.append((time.perf_counter() - started) * 1000)
        team_cpu.append(_cpu_ms() - cpu)
        turns = out.turns_taken  # type: ignore[attr-defined]
        assert out.rounds == rounds, out  # type: ignore[attr-defined]
        assert all(t.state == "completed" for t in out.turns), out  # type: ignore[attr-defined]
        if args.edit:
            states = _patch_states(team)
            assert set(states) == {"staged"} and len(states) == turns + members, states
    median_team, median_bare = sorted(team_ms)[len(team_ms) // 2], sorted(bare)[len(bare) // 2]
    goal = GOALS[kind]
    met = "goal met" if median_team <= goal * ideal else "goal MISSED"
    label = f"team run: {members} {kind} x {rounds} rounds ({turns} turns)"
    print(row(label, median_team, "ideal", ideal) + f"  {met} (<= {goal}x)")
    print(row("the same sh agents, bare asyncio", median_bare, "ideal", ideal))
    per_turn = (median_team - median_bare) / max(turns, 1)
    what = "worktree, capture, gates, staging, " if args.edit else ""
    print(f"  Pallium's cost per turn beyond bare asyncio: {per_turn:.1f} ms ({what}store, prompt, journal, lease)")
    print(f"  every run: {', '.join(f'{t:.0f}' for t in team_ms)} ms; bare: {', '.join(f'{b:.0f}' for b in bare)} ms")
    cpu_team, cpu_bare = sorted(team_cpu)[len(team_cpu) // 2], sorted(bare_cpu)[len(bare_cpu) // 2]
    print(
        f"  CPU per turn (this process, its threads and every child it waited for): {cpu_team / max(turns, 1):.1f} ms; "
        f"bare asyncio's sh agents {cpu_bare / max(turns, 1):.1f} ms; "
        f"Pallium's beyond them {(cpu_team - cpu_bare) / max(turns, 1):.1f} ms (load {_load()})"
    )
    cold = sorted(cold_ms)[len(cold_ms) // 2]
    print(row("  a team's first run, 1 round (makes its worktrees)", cold, "ideal", args.sleep * 1000))


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


def _patch_states(team: str) -> list[str]:
    """The patch state of every turn of the team (the status tool pages them; the store has them all)."""
    from kernel.context import ToolContext
    from kernel.runstore import SCHEMA as RUN_SCHEMA
    from services.teams.store import SCHEMA, TeamStore

    ctx = ToolContext()
    try:
        return [t.patch_state or "none" for t in TeamStore(ctx.global_db([SCHEMA, RUN_SCHEMA])).turns(team)]
    finally:
        ctx.close()


def _last_prompt_bytes(team: str) -> int:
    from kernel.context import ToolContext
    from kernel.runstore import SCHEMA as RUN_SCHEMA
    from services.teams.store import SCHEMA, TeamStore

    ctx = ToolContext()
    try:
        return TeamStore(ctx.global_db([SCHEMA, RUN_SCHEMA])).turns(team, limit=1)[0].prompt_bytes
    finally:
        ctx.close()


async def _team(repo: Path, members: int, *, edit: bool = False) -> str:
    team = (await _call(repo, "pallium_team_start", {"goal": "benchmark the scheduler"})).team.id  # type: ignore[attr-defined]
    mode = "edit" if edit else "read-only"
    for i in range(members):
        spawn = {"team": team, "name": f"m{i}", "provider": "shagent", "mode": mode, "max_calls": 10_000}
        await _call(repo, "pallium_team_spawn", spawn)
    return team


async def _call(repo: Path, name: str, arguments: dict) -> object:
    from kernel import dispatch
    from kernel.context import ToolContext

    ctx = ToolContext(cwd=repo)
    try:
        return await dispatch.call(name, arguments, ctx)
    finally:
        ctx.close()


def _clone(source: Path, path: Path) -> Path:
    """A clone of `source` to measure on (checked out, its own object store): the source is never touched."""
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(source), str(path)], check=True, capture_output=True)
    return path


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
