"""The task board: adding tasks through the `task_created` gate, claims, and completions with evidence.

The same functions serve the CLI/MCP tools and members' decisions, so a task reaches `completed`
by one path whoever asks: owner and `in_progress` checked, required evidence present, then the
`task_completed` gate (a rejection reopens the task for anyone, with the gate's feedback mailed to
the member; a broken gate leaves it with its owner and says so).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kernel.errors import PalliumError
from kernel.runstore import RunStore
from services.teams.gates import ask_gate
from services.teams.prompt import NewTask
from services.teams.roster import notify_lead, require_member
from services.teams.rows import TaskRow, TeamRow
from services.teams.store import TeamStore

__all__ = [
    "EVIDENCE_KINDS",
    "Completion",
    "Judged",
    "add_task",
    "check_new_task",
    "complete_task",
    "completion_patch",
    "evidence_problem",
    "judge_completion",
    "judge_new_tasks",
    "land_completion_txn",
    "land_new_tasks_txn",
    "task_patches",
]

EVIDENCE_KINDS = ("check", "patch")
_PATCH_LANDED = ("staged", "applied", "applying", "reverted")


@dataclass(frozen=True)
class Completion:
    state: str  # completed | rejected | requeued | missing_evidence | refused
    message: str
    task: TaskRow | None = None
    evidence: dict[str, Any] = field(default_factory=dict)


async def add_task(
    store: TeamStore,
    team: TeamRow,
    *,
    title: str,
    description: str,
    depends_on: list[int],
    requires: list[str],
    created_by: str,
    now: str,
    request_id: str | None = None,
) -> TaskRow:
    """Create a task once the `task_created` gate approves it; a rejected or broken gate creates nothing.

    With `request_id`, the task and the record of that request are written together, so a retry of
    the same request finds the task instead of adding a second (see `TeamStore.recall`).
    """
    check_new_task(store, team.id, title=title, depends_on=depends_on, requires=requires)
    require_member(store, team.id, created_by, field="as")
    verdict = await ask_gate(
        store,
        team,
        "task_created",
        f"New task proposed by {created_by}: {title}\n{description}",
        member=created_by,
        now=now,
    )
    if verdict.outcome == "rejected":
        raise PalliumError(
            "conflict",
            f"team {team.id}'s gate rejected the task: {verdict.reason}",
            hint="change the task to meet the gate's rule, or change the rule with `pallium team gate set`",
            details={"gate": "task_created", "outcome": "rejected", "reason": verdict.reason},
        )
    if verdict.outcome == "broken":
        raise PalliumError(
            "unavailable",
            f"team {team.id}'s gate could not judge the task: {verdict.reason}",
            hint="fix the gate's provider (see `pallium doctor`) and add the task again; nothing was created",
            details={"gate": "task_created", "outcome": "broken"},
        )
    with store.db.transaction():
        task_id = store.add_task(
            team_id=team.id,
            title=title,
            description=description,
            depends_on=depends_on,
            requires=requires,
            created_by=created_by,
            now=now,
        )
        store.remember(team.id, request_id, tool="tasks_add", ref=str(task_id), now=now)
    task = store.task(team.id, task_id)
    assert task is not None
    return task


def check_new_task(store: TeamStore, team_id: str, *, title: str, depends_on: list[int], requires: list[str]) -> None:
    """Raise `invalid_input` or `not_found` for a task that cannot go on the board as given."""
    if not title.strip():
        raise PalliumError(
            "invalid_input",
            "a task needs a title",
            hint="pass `title` (CLI: the argument after the team)",
            details={"field": "title"},
        )
    bad = [k for k in requires if k not in EVIDENCE_KINDS]
    if bad:
        raise PalliumError(
            "invalid_input",
            f"unknown evidence kind(s) {bad}",
            hint=f"pass `requires` from {', '.join(EVIDENCE_KINDS)} (CLI --requires)",
            details={"field": "requires"},
        )
    for dep in depends_on:
        if store.task(team_id, dep) is None:
            raise PalliumError(
                "not_found",
                f"task {dep} (in depends_on) is not on team {team_id}'s board",
                hint=f"list the board with `pallium team tasks list {team_id}`",
                details={"field": "depends_on", "task": dep},
            )


async def judge_new_tasks(
    store: TeamStore, team: TeamRow, proposals: list[NewTask], member: str, *, now: str
) -> tuple[list[tuple[NewTask, list[int]]], list[str]]:
    """The tasks a member's decision proposes that may go on the board (checked, then the `task_created`
    gate asked for each), and a note for the member on each one refused. Writes nothing but gate spend.

    A task may depend on one proposed before it in the same decision, named by the id it would get
    (the board's next ids, in order); those are kept as positions in the answer and become the ids the
    tasks really get when they land (another turn may add tasks meanwhile).
    """
    last = store.last_task_id(team.id)
    accepted: list[tuple[NewTask, list[int]]] = []
    position: dict[int, int] = {}  # the id a proposal would get -> its place in `accepted`
    notes = []
    for i, task in enumerate(proposals):
        local = [position[d] for d in task.depends_on if d in position]
        on_board = [d for d in task.depends_on if d not in position]
        try:
            check_new_task(store, team.id, title=task.title, depends_on=on_board, requires=task.requires)
        except PalliumError as exc:
            notes.append(f"your new task {task.title[:80]!r} was not added: {exc.message}")
            continue
        verdict = await ask_gate(
            store,
            team,
            "task_created",
            f"New task proposed by {member}: {task.title}\n{task.description}",
            member=member,
            now=now,
        )
        if not verdict.approved:
            notes.append(
                f"your new task {task.title[:80]!r} was not added: the gate {verdict.outcome} it: {verdict.reason}"
            )
            continue
        position[last + 1 + i] = len(accepted)
        accepted.append((replace(task, depends_on=on_board), local))
    return accepted, notes


def land_new_tasks_txn(
    store: TeamStore, team_id: str, tasks: list[tuple[NewTask, list[int]]], member: str, *, now: str
) -> list[int]:
    """Add the judged tasks inside the caller's transaction (a turn's); return their ids."""
    ids: list[int] = []
    for task, local in tasks:
        ids.append(
            store.add_task(
                team_id=team_id,
                title=task.title,
                description=task.description,
                depends_on=[*task.depends_on, *(ids[p] for p in local)],
                requires=task.requires,
                created_by=member,
                now=now,
            )
        )
    return ids


def task_patches(store: TeamStore, team_id: str, task_id: int, member: str) -> list[tuple[str, str, str | None]]:
    """The patches `member` made for task `task_id` (in turns that began with it holding the task, or that
    claimed it), newest first: (patch id, state as the kernel has it now, why it did not land)."""
    runs = RunStore(store.db)
    found = []
    for turn in store.turns(team_id, member=member, task_id=task_id, states=("completed", "failed", "malformed")):
        if not turn.call_key or turn.patch_state in (None, "empty"):
            continue
        row = runs.patch(team_id, turn.call_key)
        state = row.state if row is not None else turn.patch_state
        found.append((turn.call_key, state, (row.detail if row is not None else None) or turn.error))
    return found


def completion_patch(
    patches: list[tuple[str, str, str | None]], task_id: int, claimed: str | None
) -> tuple[str | None, str | None]:
    """The patch that is a completion's evidence, or why the task cannot complete: (problem, patch id).

    A task's evidence is the patch made for it. When the latest one did not land (conflicted,
    blocked, discarded), the task cannot complete, not with an earlier patch nor another task's:
    the edit has to be made again. A task no patch was made for completes without one (unless it
    requires one: `evidence_problem`).
    """
    landed = [key for key, state, _ in patches if state in _PATCH_LANDED]
    if patches and patches[0][1] not in _PATCH_LANDED:
        key, state, why = patches[0]
        return (
            f"your latest patch for task #{task_id} ({key}) is {state} and did not land"
            + (f": {why[:500]}" if why else "")
            + "; the task stays yours and open: make the edit again on the current tree, then complete it",
            None,
        )
    if claimed is not None and claimed not in landed:
        made = ", ".join(landed) or "none yet"
        return f"patch {claimed!r} was not made for task #{task_id} (its staged patches: {made})", None
    return None, claimed or (landed[0] if landed else None)


def evidence_problem(store: TeamStore, team_id: str, task: TaskRow, evidence: dict[str, Any]) -> str | None:
    """What required evidence is missing or unknown, or None when the task may complete."""
    if "check" in task.requires and not evidence.get("check_result_id"):
        return f"task {task.id} requires a check's result id as evidence (`evidence.check_result_id`)"
    if "patch" in task.requires:
        patch_id = evidence.get("patch_id")
        if not patch_id:
            return f"task {task.id} requires a patch id as evidence (`evidence.patch_id`: the turn's staged patch)"
        row = RunStore(store.db).patch(team_id, str(patch_id))
        if row is None or row.state not in _PATCH_LANDED:
            return f"patch {patch_id!r} is not a staged patch of team {team_id}"
    return None


@dataclass(frozen=True)
class Judged:
    """What checking a completion found before anything is written: refused, missing evidence, or the gate's word."""

    outcome: str  # refused | missing_evidence | approved | rejected | broken
    message: str
    task: TaskRow | None = None


async def judge_completion(
    store: TeamStore,
    team: TeamRow,
    task_id: int,
    member: str,
    *,
    result: str | None,
    evidence: dict[str, Any],
    now: str,
) -> Judged:
    """Check owner, state and evidence, then ask the `task_completed` gate; writes nothing but the gate's spend."""
    task = store.task(team.id, task_id)
    if task is None:
        return Judged("refused", f"task {task_id} is not on the board")
    if task.owner != member or task.status != "in_progress":
        who = f"owned by {task.owner}" if task.owner else "unclaimed"
        return Judged("refused", f"task {task_id} is {task.status} and {who}; only its owner completes it", task)
    missing = evidence_problem(store, team.id, task, evidence)
    if missing:
        return Judged("missing_evidence", missing, task)
    subject = f"Task #{task.id} {task.title}\n{task.description}\nCompleted by {member} with result:\n{result or ''}"
    if evidence:
        subject += f"\nEvidence: {evidence}"
    verdict = await ask_gate(store, team, "task_completed", subject, member=member, now=now)
    return Judged(verdict.outcome, verdict.reason, task)


def land_completion_txn(
    store: TeamStore,
    team: TeamRow,
    judged: Judged,
    member: str,
    *,
    result: str | None,
    evidence: dict[str, Any],
    now: str,
) -> Completion:
    """Write what `judge_completion` decided, inside the caller's transaction (a turn's, so a turn that
    never lands its decision lands none of this either). The task is checked again: it may have moved
    while the gate judged."""
    task = judged.task
    if judged.outcome == "refused" or task is None:
        return Completion("refused", judged.message, task)
    if judged.outcome == "missing_evidence":
        store.send(
            team_id=team.id, sender="pallium", recipient=member, body=f"not completed: {judged.message}",
            kind="system", now=now,
        )  # fmt: skip
        return Completion("missing_evidence", judged.message, task)
    if judged.outcome == "rejected":
        store.reopen(team.id, task.id, keep_owner=False, now=now)
        store.send(
            team_id=team.id,
            sender="gate",
            recipient=member,
            kind="system",
            now=now,
            body=f"the gate rejected your completion of task #{task.id}; it is open again. {judged.message}",
        )
        return Completion("rejected", judged.message, store.task(team.id, task.id))
    if judged.outcome == "broken":
        # fail closed: the task stays with its owner, in progress, and owner and lead are told
        store.send(
            team_id=team.id,
            sender="gate",
            recipient=member,
            kind="system",
            now=now,
            body=f"the gate could not check your completion of task #{task.id}; it is still yours: {judged.message}",
        )
        notify_lead(store, team.id, f"gate broke on task #{task.id} ({member}): {judged.message}", now=now)
        return Completion("requeued", judged.message, store.task(team.id, task.id))
    state = store._complete_txn(team.id, task.id, member, result, evidence, now)
    if state != "completed":
        return Completion("refused", f"task {task.id}: {state}", store.task(team.id, task.id))
    return Completion("completed", "", store.task(team.id, task.id), evidence)


async def complete_task(
    store: TeamStore,
    team: TeamRow,
    task_id: int,
    member: str,
    *,
    result: str | None,
    evidence: dict[str, Any],
    now: str,
    request_id: str | None = None,
) -> Completion:
    """Judge a completion and land it in one transaction (with `request_id`, remembered in the same one)."""
    judged = await judge_completion(store, team, task_id, member, result=result, evidence=evidence, now=now)
    with store.db.transaction():
        done = land_completion_txn(store, team, judged, member, result=result, evidence=evidence, now=now)
        if done.state in ("completed", "rejected", "requeued"):
            store.remember(team.id, request_id, tool="tasks_complete", ref=f"{task_id}:{done.state}", now=now)
    return done
