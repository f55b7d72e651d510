"""What the team tools answer: store rows turned into output models, the status, and short renderings."""

from __future__ import annotations

import time
from pathlib import Path

from kernel.runstore import RunStore
from services.teams import models
from services.teams.roster import member_state
from services.teams.rows import MemberRow, MessageRow, TaskRow, TeamRow
from services.teams.store import TeamStore

__all__ = [
    "describe",
    "diff_stats",
    "next_step",
    "patch_views",
    "read_text",
    "spent",
    "to_member",
    "to_message",
    "to_task",
    "to_team",
    "watch_view",
]


def to_team(row: TeamRow) -> models.Team:
    return models.Team(
        id=row.id,
        goal=row.goal,
        cwd=row.cwd,
        status=row.status,
        template=row.template,  # type: ignore[arg-type]
        budget_usd=row.budget_usd,
        spend_usd=round(row.spend_usd, 6),
        unknown_cost_calls=row.unknown_cost_calls,
        gate_hooks=row.gate_hooks,
        gate_prompt=row.gate_prompt,
        auto_apply=row.auto_apply,
        board_version=row.board_version,
        created_at=row.created_at,
        updated_at=row.updated_at,
        base_commit=row.base_commit,
        base_at=row.base_at,
        ceiling=row.ceiling,
        max_calls=row.max_calls,
        calls=row.calls,
    )


def to_member(
    store: TeamStore,
    row: MemberRow,
    *,
    stale_after_minutes: float = 15.0,
    waiting: int | None = None,
    tree_moved: bool = False,
) -> models.Member:
    turns = store.turns(row.team_id, member=row.name, states=("started",), limit=1)
    turn = turns[0] if turns else None
    if waiting is None:
        waiting = store.count_undelivered(row.team_id).get(row.name, 0)
    current = None
    if row.snapshot_commit is not None:
        team = store.team(row.team_id)
        current = team is not None and team.base_commit == row.snapshot_commit and not tree_moved
    return models.Member(
        name=row.name,
        provider=row.provider,
        model=row.model,
        role=row.role,
        mode=row.mode,
        external=row.external,
        status=row.status,
        status_reason=row.status_reason,
        state=member_state(row, turn, waiting, stale_after_minutes=stale_after_minutes, at=time.time()),
        session_id=row.session_id,
        session_established=row.session_established,
        session_note=row.session_note,
        plan_required=row.plan_required,
        plan_status=row.plan_status,
        stop_requested=row.stop_requested,
        nudged=row.nudged,
        waiting_messages=waiting,
        turn_count=row.turn_count,
        last_turn_at=row.last_turn_at,
        last_turn_status=row.last_turn_status,
        last_turn_error=row.last_turn_error,
        current_turn=turn.id if turn else None,
        budget_usd=row.budget_usd,
        spend_usd=round(row.spend_usd, 6),
        unknown_cost_calls=row.unknown_cost_calls,
        max_calls=row.max_calls,
        calls=row.calls,
        snapshot_commit=row.snapshot_commit,
        snapshot_at=row.snapshot_at,
        snapshot_current=current,
    )


def to_task(row: TaskRow) -> models.Task:
    return models.Task(
        id=row.id,
        title=row.title,
        description=row.description,
        status=row.status,
        owner=row.owner,
        depends_on=row.depends_on,
        requires=row.requires,
        result=row.result,
        evidence=row.evidence,
        created_by=row.created_by,
        created_at=row.created_at,
        claimed_at=row.claimed_at,
        completed_at=row.completed_at,
    )


def to_message(row: MessageRow) -> models.Message:
    return models.Message(
        id=row.id,
        sender=row.sender,
        recipient=row.recipient,
        body=row.body,
        kind=row.kind,
        created_at=row.created_at,
        delivered_turn=row.delivered_turn,
        delivered_at=row.delivered_at,
    )


def describe(
    store: TeamStore, team: TeamRow, *, stale_after_minutes: float, limit: int, reconciled: list[str] | None = None
) -> models.StatusOutput:
    waiting = store.count_undelivered(team.id)
    rows = store.members(team.id)
    moved = any(m.snapshot_commit for m in rows) and _tree_moved(store, team)
    members = [
        to_member(store, m, stale_after_minutes=stale_after_minutes, waiting=waiting.get(m.name, 0), tree_moved=moved)
        for m in rows
    ]
    open_tasks = store.tasks(team.id, statuses=("in_progress", "pending", "blocked"), limit=limit + 1)
    shown = open_tasks[:limit]
    if len(shown) < limit:
        shown += store.recent_completions(team.id, limit=limit - len(shown))
    counts = store.count_tasks(team.id)
    untracked = sorted({m.provider for m in members if m.unknown_cost_calls})
    if team.unknown_cost_calls > sum(m.unknown_cost_calls for m in members):
        untracked = sorted(set(untracked) | {"gate"})
    patches = patch_views(store, team.id)
    return models.StatusOutput(
        team=to_team(team),
        members=members,
        tasks=[to_task(t) for t in shown],
        tasks_truncated=len(open_tasks) > limit or sum(counts.values()) > len(shown),
        task_counts=counts,
        patches=patches,
        untracked_cost_providers=untracked,
        spend=spend_text(team),
        reconciled_interrupted=reconciled or [],
        next_step=next_step(store, team),
    )


def patch_views(store: TeamStore, team_id: str) -> list[models.Patch]:
    """The team's patches in staging order, each with the member and task it was made for, its files and
    line counts (read from the diff kept for it)."""
    made_by = {t.call_key: t for t in store.turns(team_id, limit=100_000) if t.call_key}
    out = []
    for row in RunStore(store.db).patches(team_id):
        turn = made_by.get(row.call_key)
        files, added, removed = diff_stats(read_text(row.path))
        out.append(
            models.Patch(
                patch_id=row.call_key,
                state=row.state,
                detail=row.detail,
                member=turn.member if turn else None,
                task_id=turn.task_id if turn else None,
                files=files or (turn.patch_files if turn else []),
                added=added,
                removed=removed,
            )
        )
    return out


def diff_stats(diff: str) -> tuple[list[str], int, int]:
    """The files a unified diff touches and its added and removed line counts."""
    files: list[str] = []
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            files.append(line.split(" b/", 1)[-1] if " b/" in line else line[11:])
        elif line.startswith("+") and not line.startswith("+++ "):
            added += 1
        elif line.startswith("-") and not line.startswith("--- "):
            removed += 1
    return files, added, removed


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(2_000_000)
    except OSError:
        return ""


def _tree_moved(store: TeamStore, team: TeamRow) -> bool:
    """Whether your working tree changed since the snapshot the team's edit members work on."""
    from kernel.errors import PalliumError
    from kernel.worktrees.snapshot import working_tree

    run = RunStore(store.db).run(team.id)
    if run is None or not run.base_tree:
        return False
    try:
        return working_tree(Path(team.cwd)) != run.base_tree
    except (PalliumError, OSError):
        return False


def next_step(store: TeamStore, team: TeamRow) -> str:
    """The command that moves this team on from where it is, as a person would type it."""
    from services.teams.scheduler import eligible_members

    t = team.id
    if team.status == "stopped":
        return f"pallium team resume {t}"
    if team.status == "parked" or spent(team):
        return f"pallium team budget {t} --usd N --calls N, then pallium team run {t}"
    members = [m for m in store.members(t) if not m.external]
    if not members:
        return f'pallium team spawn {t} NAME --role "what it does"'
    if eligible_members(store, team):
        return f"pallium team run {t}"
    errored = [m for m in members if m.status == "error"]
    if errored:
        return f"pallium team member restart {t} {errored[0].name}"
    planned = [m for m in members if m.plan_required and m.plan_status != "approved" and m.turn_count > 0]
    if planned:
        return f"pallium team approve {t} {planned[0].name} (read its plan: pallium team inbox {t} --for lead)"
    if any(p.state == "staged" for p in RunStore(store.db).patches(t)):
        return f"pallium team diff {t}, then pallium team apply {t}"
    if store.count_undelivered(t).get("lead"):
        return f"pallium team inbox {t} --for lead"
    return f'pallium team tasks add {t} "what to do next", or pallium team send {t} --to {members[0].name} "..."'


def spent(team: TeamRow) -> bool:
    """Whether the team's known spend or its calls reached their limits."""
    over_usd = team.budget_usd is not None and team.spend_usd >= team.budget_usd
    return over_usd or (team.max_calls is not None and team.calls >= team.max_calls)


def spend_text(team: TeamRow) -> str:
    known = f"${team.spend_usd:.4f}"
    budget = f" of ${team.budget_usd:.2f}" if team.budget_usd is not None else ""
    if not team.unknown_cost_calls:
        return known + budget
    if team.spend_usd == 0:
        return f"unknown ({team.unknown_cost_calls} call(s) reported no cost){budget}"
    return f"{known} + {team.unknown_cost_calls} call(s) of unknown cost{budget}"


# ---------------------------------------------------------------- renderings


def render_status(out: models.StatusOutput) -> str:
    t = out.team
    lines = [f"team {t.id}: {t.status}, spend {out.spend}", f"  goal: {t.goal[:200]}"]
    if out.untracked_cost_providers:
        lines.append(f"  cost unknown for: {', '.join(out.untracked_cost_providers)}")
    for m in out.members:
        extra = f" ({m.status_reason})" if m.status_reason else ""
        lines.append(
            f"  {m.name:<22} {m.state:<8} {m.status:<8} {m.provider:<8} {m.mode:<9} turns {m.turn_count:<4}"
            f" mail {m.waiting_messages}{extra}"
        )
        if m.session_note:
            lines.append(f"    session: {m.session_note}")
        if m.snapshot_commit:
            when = "current" if m.snapshot_current else "older: your tree changed since; its next turn works on it"
            lines.append(f"    works on: your tree at {m.snapshot_at} ({m.snapshot_commit[:10]}, {when})")
    for task in out.tasks:
        lines.append(f"  #{task.id:<4} {task.status:<11} {task.owner or '-':<20} {task.title[:60]}")
    for p in out.patches:
        who = f" by {p.member}" if p.member else ""
        task = f" for #{p.task_id}" if p.task_id is not None else ""
        files = ", ".join(p.files[:5]) + (f" and {len(p.files) - 5} more" if len(p.files) > 5 else "")
        lines.append(f"  patch {p.patch_id} {p.state}{who}{task}: {files or '-'} (+{p.added} -{p.removed})")
        if p.detail and p.state != "staged":
            lines.append(f"    {p.detail[:200]}")
    if out.reconciled_interrupted:
        lines.append(f"  reconciled interrupted turns of: {', '.join(out.reconciled_interrupted)}")
    if out.next_step:
        lines.append(f"  next: {out.next_step}")
    return "\n".join(lines)


def watch_view(store: TeamStore, team: TeamRow) -> str:
    """What `team watch` shows: one line per member (state, turns, its current task, last word), the
    board's counts and the tasks in progress, the patches, spend, and the latest events."""
    waiting = store.count_undelivered(team.id)
    lines = [
        f"team {team.id} [{team.status}] spend {spend_text(team)}, {team.calls} call(s)",
        f"goal: {team.goal[:100]}",
    ]
    tasks = store.tasks(team.id, statuses=("in_progress",), limit=200)
    holding = {t.owner: t for t in tasks}
    for m in store.members(team.id):
        if m.external:
            continue
        turn = store.turns(team.id, member=m.name, limit=1)
        last = turn[0] if turn else None
        doing = "running" if last is not None and last.state == "started" else m.status
        task = f" #{holding[m.name].id}" if m.name in holding else ""
        said = (last.summary or last.error or "") if last is not None and last.state != "started" else ""
        lines.append(
            f"  {m.name:<16} {doing:<8} {m.mode:<9} turns {m.turn_count:<3} mail {waiting.get(m.name, 0):<3}"
            f"{task:<6} {said[:60]}"
        )
    counts = store.count_tasks(team.id)
    lines.append("board: " + (", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "empty"))
    lines += [f"  #{t.id} {t.owner}: {t.title[:70]}" for t in tasks[:10]]
    patches = patch_views(store, team.id)
    if patches:
        by_state: dict[str, int] = {}
        for p in patches:
            by_state[p.state] = by_state.get(p.state, 0) + 1
        lines.append("patches: " + ", ".join(f"{n} {s}" for s, n in sorted(by_state.items())))
    for event in reversed(store.events(team.id, limit=5)):
        lines.append(f"  {event.at} {event.member or '-'} {event.kind}")
    return "\n".join(lines)


def render_run(out: models.RunOutput) -> str:
    lines = [f"team {out.team.id}: {out.rounds} round(s), {out.turns_taken} turn(s); {out.reason}"]
    if out.reconciled_interrupted:
        lines.append(f"  resumed interrupted: {', '.join(out.reconciled_interrupted)}")
    for turn in out.turns[-20:]:
        lines.append(f"  {turn.member:<22} {turn.state:<11} {turn.detail[:80]}")
    if out.failed_turns and out.failed_turns == out.turns_taken:
        lines.append(f"  every turn failed ({out.failed_turns}); see `pallium team status {out.team.id}`")
    if out.next_step:
        lines.append(f"  next: {out.next_step}")
    return "\n".join(lines)


def render_inbox(out: models.InboxOutput) -> str:
    if not out.messages:
        return "no messages"
    lines = [
        f"#{m.id} {m.sender} -> {m.recipient} [{m.kind}] "
        f"{'read by ' + m.delivered_turn if m.delivered_turn else 'unread'}"
        f"\n  {m.body[:500]}"
        for m in out.messages
    ]
    if out.next_cursor:
        lines.append(f"more: --cursor {out.next_cursor}")
    return "\n".join(lines)
