"""`team run`: rounds of concurrent turns until no member is eligible, the team stops, or the budget is spent.

The run holds the team's kernel lease (`kernel.execution.Run` with the team id as run id), so two
`team run`s of one team cannot both schedule; a `kill -9` leaves a dead owner that the next `team
run` or `attach` reconciles: the kernel kills the workers it left, the teams store closes its turns
as `interrupted`, and those members take a turn again on their own sessions. Each turn is also a
compare-and-set (one `started` turn per member), so nothing is spawned twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from kernel.clock import Clock, iso_utc
from kernel.store import Database
from services.teams.roster import notify_lead, reconcile, this_owner
from services.teams.rows import MemberRow, TeamRow
from services.teams.store import TeamStore
from services.teams.turns import TurnReport, Turns

__all__ = ["RunOptions", "RunResult", "eligible_members", "run_team"]

HEARTBEAT_SECONDS = 10.0


@dataclass(frozen=True)
class RunOptions:
    agent_timeout: float = 600.0
    stale_after_minutes: float = 15.0
    max_concurrent: int = 16
    max_rounds: int = 50
    database: str | None = None  # a shared database whose workers on other machines run the turns
    git_remote: str | None = None


@dataclass
class RunResult:
    rounds: int = 0
    turns: list[TurnReport] = field(default_factory=list)
    reconciled_interrupted: list[str] = field(default_factory=list)
    stopped: bool = False
    parked: bool = False
    reason: str = ""


def eligible_members(store: TeamStore, team: TeamRow) -> list[MemberRow]:
    """Members that should take a turn now: a first turn, mail, a nudge, a retry owed, said `active`, or new
    claimable work."""
    waiting = store.count_undelivered(team.id)
    busy = {t.member for t in store.turns(team.id, states=("started",))}
    claimable = bool(store.claimable(team.id))
    chosen = []
    for m in store.members(team.id):
        if m.external or m.status in ("stopped", "error") or m.stop_requested or m.name in busy:
            continue
        if m.budget_usd is not None and m.spend_usd >= m.budget_usd:
            continue
        if m.max_calls is not None and m.calls >= m.max_calls:
            continue
        # a member that never took a turn is owed its first: the goal and its role are its work (see `prompt`)
        first = m.turn_count == 0 and m.last_turn_status is None
        owed = waiting.get(m.name) or m.nudged or m.retry or m.status == "active" or first
        new_work = claimable and m.last_seen_board != team.board_version and m.status != "blocked"
        if owed or new_work:
            chosen.append(m)
    return chosen


async def run_team(db: Database, team_id: str, options: RunOptions, *, clock: Clock) -> RunResult:
    from kernel.calls import Limits
    from kernel.execution import Run

    store = TeamStore(db)
    now = iso_utc(clock.now())
    result = RunResult()
    team = store.team(team_id)
    assert team is not None
    limits = Limits(
        budget_usd=None,
        max_agents=10**9,
        concurrency=options.max_concurrent,
        agent_timeout=options.agent_timeout,
        reuse_worktrees=True,  # a team runs many times: its members' worktrees are made once, not every run
        database=options.database,
        git_remote=options.git_remote,
    )
    run = await Run.open(team_id, Path(team.cwd), limits, db=db)  # reconciles the kernel's runs, kills leftovers
    publisher = None
    if options.database and run.remote is not None:  # other machines read the team from its record
        from services.teams.shared import TeamPublisher

        publisher = TeamPublisher(options.database, store, team_id)
        publisher.start(run.remote.epoch)
        with contextlib.suppress(Exception):  # board edits other machines posted since the last run count in this one
            await publisher.take_in()
    try:
        result.reconciled_interrupted = reconcile(
            store, team_id, now=now, stale_after_minutes=options.stale_after_minutes
        )
        turns = Turns(store, team_id, run, clock=clock, owner=this_owner())
        if any(m.mode == "edit" for m in store.members(team_id)) or run.store.patches(team_id):
            await refresh(store, turns, restage=True)  # staging starts bare in a new attempt: compose the staged again
        beat = asyncio.get_running_loop().create_task(_heartbeat(store, turns))
        try:
            await _rounds(store, team_id, turns, options, result)
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat
        team = store.team(team_id)
        assert team is not None
        if team.auto_apply and any(t.state == "completed" for t in result.turns):
            run.apply()
    finally:
        await run.close("completed")
        if publisher is not None:
            await publisher.close()
    return result


async def _rounds(store: TeamStore, team_id: str, turns: Turns, options: RunOptions, result: RunResult) -> None:
    slots = asyncio.Semaphore(options.max_concurrent)

    async def one(name: str) -> TurnReport:
        async with slots:
            return await turns.take(name)

    while True:
        now = turns.now()
        team = store.team(team_id)
        assert team is not None
        for m in store.members(team_id):
            if m.stop_requested:
                store.update_member(
                    team_id, m.name, status="stopped", stop_requested=False, status_reason="stopped by the lead"
                )
        if team.status == "parked":
            result.parked, result.reason = True, "the team is parked: its budget is spent"
            return
        if team.status != "active":
            result.stopped, result.reason = True, f"the team is {team.status}"
            return
        over = _team_limit(team, result)
        if over:
            store.set_team_status(team_id, "parked", now=now)
            notify_lead(
                store,
                team_id,
                f"team parked: {over}; give it more with `pallium team budget {team_id} --usd N --calls N`",
                now=now,
            )
            store.log(
                team_id, "parked", {"spend_usd": team.spend_usd, "budget_usd": team.budget_usd, "why": over}, now=now
            )
            result.parked, result.reason = True, f"the budget is spent ({over})"
            return
        if result.rounds >= options.max_rounds:
            result.reason = f"reached --max-rounds {options.max_rounds}"
            return
        chosen = eligible_members(store, team)
        if not chosen:
            result.reason = "no member is eligible (no mail, nudge or claimable work)"
            return
        if any(m.mode == "edit" for m in chosen) and await _tree_moved(turns):
            await refresh(store, turns)
        result.rounds += 1
        result.turns += await asyncio.gather(*(one(m.name) for m in chosen))


async def _tree_moved(turns: Turns) -> bool:
    """Whether the user's tree differs from the one the team works on (read off the event loop, and shared with
    the round's edit turns as the tree they start from)."""
    return await turns.run.user_tree() != turns.run.base_tree


def _team_limit(team: TeamRow, result: RunResult) -> str:
    """The team limit that stops the rounds ("" for none): its spend, its call cap, or a turn of the last
    round refused because it would have crossed the team's budget."""
    if team.budget_usd is not None and team.spend_usd >= team.budget_usd:
        return f"spend ${team.spend_usd:.4f} reached the budget ${team.budget_usd:.4f}"
    if team.max_calls is not None and team.calls >= team.max_calls:
        return f"{team.calls} calls reached the cap of {team.max_calls}"
    last = result.turns[-20:]
    refused = [t.detail for t in last if t.state == "skipped" and t.detail.startswith("budget_exhausted: team")]
    return refused[0].removeprefix("budget_exhausted: ") if refused else ""


async def refresh(store: TeamStore, turns: Turns, *, restage: bool = False) -> None:
    """Move the team's worktrees onto your tree as it is now (applied patches and your edits in it), between turns.

    The team's staged, unapplied patches are composed again on top, so a member keeps seeing its own
    and its teammates' pending edits. When one of them no longer composes on your new tree, the team
    stays on its snapshot (nothing is dropped) and the lead is told once which patches are in the way.
    """
    now = turns.now()
    done = await turns.run.rebase(restage=restage)
    team = store.team(turns.team_id)
    assert team is not None
    if team.base_commit != done.base_commit:
        store.set_base(turns.team_id, commit=done.base_commit, at=now)
    if done.moved:
        store.log(turns.team_id, "rebased", {"base": done.base_commit, "restaged": done.restaged}, now=now)
    if done.blocked and done.blocked != _last_blocked(store, turns.team_id):
        store.log(turns.team_id, "rebase_blocked", {"patches": done.blocked}, now=now)
        notify_lead(
            store,
            turns.team_id,
            f"your tree changed where the team's staged patches edit ({', '.join(done.blocked)}): members keep "
            f"working on the snapshot of {team.base_at or 'the first run'}; `pallium team apply "
            f"{turns.team_id}` them, or revert your change, and the team moves to your tree at its next turn",
            now=now,
        )


def _last_blocked(store: TeamStore, team_id: str) -> list[str]:
    """The patches the lead was last told are in the way, unless the team has moved since (told once per set)."""
    blocked = store.events(team_id, kind="rebase_blocked", limit=1)
    moved = store.events(team_id, kind="rebased", limit=1)
    if not blocked or (moved and moved[0].id > blocked[0].id):
        return []
    return list(blocked[0].detail.get("patches", []))


async def _heartbeat(store: TeamStore, turns: Turns) -> None:
    while True:
        await asyncio.sleep(HEARTBEAT_SECONDS)
        store.heartbeat_turns(sorted(turns.in_flight), time.time())
