"""The team tools of the board and the mailbox: tasks added, listed, claimed and completed, mail sent and read.

Split from `tools.py` (the team, its roster, its run, gates and patches) along the board/mail seam;
both share that module's store opener, clock and tool template.
"""

from __future__ import annotations

import time

from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.fitting import size
from services.teams import models, views
from services.teams.board import add_task, complete_task
from services.teams.roster import LEAD, require_member, require_team, send_message
from services.teams.tool_kit import (
    _BOOKKEEPING,
    _SET,
    _WRITE,
    INBOX_BUDGET,
    _active,
    _now,
    _r_member,
    _r_send,
    _store,
    _tool,
)


async def tasks_add(inp: models.TaskAddInput, ctx: ToolContext) -> models.TaskOutput:
    store = _store(ctx)
    if (done := store.recall(inp.team, inp.request_id)) and (task := store.task(inp.team, int(done.ref))):
        return models.TaskOutput(task=views.to_task(task), outcome="created")
    team = _active(store, inp.team)
    task = await add_task(
        store,
        team,
        title=inp.title,
        description=inp.description,
        depends_on=inp.depends_on,
        requires=list(inp.requires),
        created_by=inp.as_,
        now=_now(ctx),
        request_id=inp.request_id,
    )
    return models.TaskOutput(task=views.to_task(task), outcome="created")


async def tasks_list(inp: models.TaskListInput, ctx: ToolContext) -> models.TaskList:
    store = _store(ctx)
    require_team(store, inp.team)
    rows = store.tasks(inp.team, statuses=(inp.status,) if inp.status else (), limit=inp.limit + 1, after=inp.cursor)
    page = rows[: inp.limit]
    more = len(rows) > inp.limit
    return models.TaskList(
        tasks=[views.to_task(t) for t in page], truncated=more, next_cursor=page[-1].id if more and page else None
    )


async def tasks_claim(inp: models.TaskClaimInput, ctx: ToolContext) -> models.TaskOutput:
    store = _store(ctx)
    if (done := store.recall(inp.team, inp.request_id)) and (task := store.task(inp.team, int(done.ref))):
        return models.TaskOutput(task=views.to_task(task), outcome="claimed")
    _active(store, inp.team)
    require_member(store, inp.team, inp.as_, field="as")
    now = _now(ctx)
    with store.db.transaction():
        state = store.claim(inp.team, inp.task_id, inp.as_, now=now)
        if state in ("claimed", "already_owned"):
            store.remember(inp.team, inp.request_id, tool="tasks_claim", ref=str(inp.task_id), now=now)
    task = store.task(inp.team, inp.task_id)
    if task is None:
        raise PalliumError(
            "not_found",
            f"task {inp.task_id} is not on team {inp.team}'s board",
            hint=f"list the board with `pallium team tasks list {inp.team}`",
            details={"field": "task"},
        )
    if state not in ("claimed", "already_owned"):
        raise PalliumError(
            "conflict",
            f"task {inp.task_id} cannot be claimed by {inp.as_}: {state.replace('_', ' ')}",
            hint="claim a pending task whose dependencies are completed (`pallium team tasks list`)",
            details={"field": "task", "reason": state, "owner": task.owner, "status": task.status},
        )
    return models.TaskOutput(task=views.to_task(task), outcome="claimed")


async def tasks_complete(inp: models.TaskCompleteInput, ctx: ToolContext) -> models.TaskOutput:
    store = _store(ctx)
    if (earlier := store.recall(inp.team, inp.request_id)) and (task := store.task(inp.team, inp.task_id)):
        return models.TaskOutput(task=views.to_task(task), outcome=earlier.ref.partition(":")[2])  # type: ignore[arg-type]  # written from the same states
    team = _active(store, inp.team)
    require_member(store, inp.team, inp.as_, field="as")
    evidence = {k: v for k, v in (("check_result_id", inp.check_result_id), ("patch_id", inp.patch_id)) if v}
    done = await complete_task(
        store,
        team,
        inp.task_id,
        inp.as_,
        result=inp.result,
        evidence=evidence,
        now=_now(ctx),
        request_id=inp.request_id,
    )
    if done.state == "refused" or done.task is None:
        raise PalliumError(
            "conflict",
            done.message,
            hint="only the owner completes an in-progress task; claim it first with `pallium team tasks claim`",
            details={"field": "task"},
        )
    if done.state == "missing_evidence":
        raise PalliumError(
            "invalid_input",
            done.message,
            hint="pass `check_result_id` or `patch_id` (CLI --check-result-id / --patch-id)",
            details={"field": "evidence"},
        )
    return models.TaskOutput(task=views.to_task(done.task), outcome=done.state, message=done.message)


# ---------------------------------------------------------------- mail


async def send(inp: models.SendInput, ctx: ToolContext) -> models.SendOutput:
    store = _store(ctx)
    if done := store.recall(inp.team, inp.request_id):
        return models.SendOutput(message=views.to_message(_message(store, inp.team, int(done.ref))))
    _active(store, inp.team)
    now = _now(ctx)
    with store.db.transaction():
        message_id = send_message(store, inp.team, sender=inp.from_, recipient=inp.to, body=inp.body, now=now)
        store.remember(inp.team, inp.request_id, tool="send", ref=str(message_id), now=now)
    sender = store.member(inp.team, inp.from_)
    if sender is not None and sender.external:  # an external member that writes is alive
        store.update_member(inp.team, sender.name, heartbeat_at=time.time())
    return models.SendOutput(message=views.to_message(_message(store, inp.team, message_id)))


def _message(store, team_id: str, message_id: int):
    return store.messages(team_id, recipient=None, after=message_id - 1, limit=1)[0]


async def inbox(inp: models.InboxInput, ctx: ToolContext) -> models.InboxOutput:
    store = _store(ctx)
    require_team(store, inp.team)
    if not inp.all and inp.for_ is None:
        raise PalliumError(
            "invalid_input",
            "say whose mailbox to read",
            hint="pass `for` (CLI --for NAME) or `all: true` (CLI --all)",
            details={"field": "for"},
        )
    reader = None if inp.all else require_member(store, inp.team, inp.for_ or "", field="for")
    rows = store.messages(inp.team, recipient=reader.name if reader else None, after=inp.cursor, limit=inp.limit + 1)
    page = rows[: inp.limit]
    more = len(rows) > inp.limit
    draft = models.InboxOutput(messages=[views.to_message(m) for m in page], truncated=more, next_cursor=None)
    if size(draft) > INBOX_BUDGET:  # fit whole messages first: an external reader is receipted only for what it sees
        shown = {m.id for m in _trim_inbox(draft, inp, INBOX_BUDGET).messages}
        more, page = True, [m for m in page if m.id in shown]
    if reader is not None and reader.external:
        now = _now(ctx)
        with store.db.transaction():
            store.mark_delivered(
                inp.team, reader.name, [m.id for m in page if m.delivered_turn is None], f"inbox:{now}", now=now
            )
            store.update_member(inp.team, reader.name, heartbeat_at=time.time())
        ids = {m.id for m in page}
        page = [
            m for m in store.messages(inp.team, recipient=reader.name, after=inp.cursor, limit=inp.limit) if m.id in ids
        ]
    return models.InboxOutput(
        messages=[views.to_message(m) for m in page], truncated=more, next_cursor=page[-1].id if more and page else None
    )


# ---------------------------------------------------------------- members


async def nudge(inp: models.MemberInput, ctx: ToolContext) -> models.MemberOutput:
    store = _store(ctx)
    _active(store, inp.team)
    member = require_member(store, inp.team, inp.member)
    store.update_member(
        inp.team,
        member.name,
        nudged=True,
        **({"status": "idle", "status_reason": None} if member.status in ("error", "blocked") else {}),
    )
    return models.MemberOutput(member=views.to_member(store, require_member(store, inp.team, inp.member)))


def _trim_tasks(out: models.TaskList, inp: models.TaskListInput, budget: int) -> models.TaskList:
    """End the page early; the cursor goes on at the first task left out, so none is skipped."""
    from kernel.fitting import drop_tail

    kept, dropped = drop_tail(out, budget, "tasks")
    if not dropped:
        return kept
    return kept.model_copy(update={"truncated": True, "next_cursor": kept.tasks[-1].id})


def _trim_inbox(out: models.InboxOutput, inp: models.InboxInput, budget: int) -> models.InboxOutput:
    from kernel.fitting import drop_tail

    kept, dropped = drop_tail(out, budget, "messages")
    if not dropped:
        return kept
    return kept.model_copy(update={"truncated": True, "next_cursor": kept.messages[-1].id})


async def tasks_release(inp: models.ReleaseInput, ctx: ToolContext) -> models.TaskOutput:
    store = _store(ctx)
    require_team(store, inp.team)
    task = store.task(inp.team, inp.task_id)
    if task is None:
        raise PalliumError(
            "not_found",
            f"task {inp.task_id} is not on team {inp.team}'s board",
            hint=f"list the board with `pallium team tasks list {inp.team}`",
            details={"field": "task_id"},
        )
    if task.status != "in_progress":
        raise PalliumError(
            "conflict",
            f"task {inp.task_id} is {task.status}, not in progress: there is nothing to release",
            hint=f"release only a claimed task (`pallium team tasks list {inp.team}` shows owners)",
            details={"field": "task_id", "status": task.status},
        )
    now = _now(ctx)
    with store.db.transaction():
        store.reopen(inp.team, task.id, keep_owner=False, now=now)
        if task.owner and task.owner != LEAD:
            store.send(
                team_id=inp.team, sender=LEAD, recipient=task.owner, kind="system", now=now,
                body=f"task #{task.id} was released by the lead: it is back on the board for anyone; do not "
                "work on it unless you claim it again",
            )  # fmt: skip
        store.log(inp.team, "task_released", {"task": task.id, "owner": task.owner}, now=now)
    released = store.task(inp.team, task.id)
    assert released is not None
    return models.TaskOutput(task=views.to_task(released), outcome="released", message=f"was held by {task.owner}")


def _r_task(out: models.TaskOutput) -> str:
    t = out.task
    return f"task #{t.id} {t.status} ({out.outcome}){' by ' + t.owner if t.owner else ''}: {t.title}" + (
        f"\n  {out.message}" if out.message else ""
    )


def _r_tasks(out: models.TaskList) -> str:
    if not out.tasks:
        return "no tasks"
    return "\n".join(f"#{t.id:<4} {t.status:<11} {t.owner or '-':<20} {t.title[:70]}" for t in out.tasks)


TOOLS = (
    _tool(
        "team tasks release",
        tasks_release,
        models.ReleaseInput,
        models.TaskOutput,
        "Give a claimed task back to the board: pending again, for anyone to claim; its former owner is told.",
        "Use when the member holding a task is in error, stopped or stuck, so its work is not stranded. Not for "
        "a finished task (it stays completed). Writes state only.",
        "consult",
        positional=("team", "task_id"),
        annotations=_WRITE,
        render=_r_task,
    ),
    _tool(
        "team tasks add",
        tasks_add,
        models.TaskAddInput,
        models.TaskOutput,
        "Put a task on a team's board, with dependencies and required evidence, through the task_created gate.",
        "Use to give the team work its members can claim. Not for messaging a member (pallium_team_send). With a "
        "gate on task_created, one gate model call decides (a rejected or broken gate creates nothing); "
        "otherwise writes state only.",
        "consult",
        positional=("team", "title"),
        annotations=_WRITE,
        render=_r_task,
    ),
    _tool(
        "team tasks list",
        tasks_list,
        models.TaskListInput,
        models.TaskList,
        "A team's task board: each task's status, owner, dependencies, result and evidence.",
        "Use to see what is open, claimed and done. Not for members and spend (pallium_team_status). Reads state only.",
        "observe",
        positional=("team",),
        render=_r_tasks,
        trim=_trim_tasks,
    ),
    _tool(
        "team tasks claim",
        tasks_claim,
        models.TaskClaimInput,
        models.TaskOutput,
        "Claim a pending task for a member: a compare-and-set that fails if someone else holds it or its "
        "dependencies are open.",
        "Use for an external member (or to assign work by hand). Not needed for scheduled members: their turn "
        "decisions claim. Refused with conflict when taken or blocked. Writes state only.",
        "consult",
        positional=("team", "task_id"),
        annotations=_WRITE,
        render=_r_task,
    ),
    _tool(
        "team tasks complete",
        tasks_complete,
        models.TaskCompleteInput,
        models.TaskOutput,
        "Complete a task its owner holds, with a result and any required evidence, through the task_completed gate.",
        "Use for an external member's task. Not for scheduled members (their decisions complete). A gate "
        "rejection reopens the task with feedback; a broken gate leaves it with its owner. One gate model call "
        "when the gate covers task_completed.",
        "consult",
        positional=("team", "task_id"),
        annotations=_WRITE,
        render=_r_task,
    ),
    _tool(
        "team send",
        send,
        models.SendInput,
        models.SendOutput,
        "Send a message to a team member's mailbox; a name not on the roster is refused with the roster.",
        "Use to tell a member something; it is delivered at its next turn with a receipt naming that turn. Not "
        "for directives that must come first (pallium_team_member_steer). Writes state only.",
        "consult",
        positional=("team", "body"),
        annotations=_WRITE,
        render=_r_send,
    ),
    _tool(
        "team inbox",
        inbox,
        models.InboxInput,
        models.InboxOutput,
        "Read a member's mailbox (or the whole team's mail) with each message's delivery receipt.",
        "Use to see what members told each other and what is still unread. Not for the board "
        "(pallium_team_tasks_list). Reading an external member's own inbox marks its mail delivered; otherwise "
        "reads state only. Paged with limit/cursor.",
        "observe",
        positional=("team",),
        annotations=_BOOKKEEPING,
        render=views.render_inbox,
        budget=INBOX_BUDGET,
        trim=_trim_inbox,
    ),
    _tool(
        "team nudge",
        nudge,
        models.MemberInput,
        models.MemberOutput,
        "Ask a member to take a turn at the next round even without new mail or work.",
        "Use to wake an idle, blocked or failed member. Not for telling it something (pallium_team_send). "
        "Writes state only.",
        "consult",
        positional=("team", "member"),
        annotations=_SET,
        render=_r_member,
    ),
)
