"""Who is on a team, whether each is alive by evidence, and the mail between them.

A member's liveness comes from its turn's lease, not from what it last said: a turn in flight names
the orchestrating process (pid, start ticks, boot id) and carries a heartbeat. Same host and boot:
the process is alive exactly when its pid exists with the same start ticks. The states are `idle`
(nothing waiting), `waiting` (mail or a nudge waiting), `running` (a live turn), `stale` (a turn
whose heartbeat stopped while its process still exists, or cannot be checked) and `dead` (the
process that ran the turn is gone), plus `stopped`. `reconcile` closes dead turns as `interrupted`.
"""

from __future__ import annotations

import socket
import time
from typing import Any

from kernel.errors import PalliumError
from kernel.leases import Owner, boot_id
from kernel.providers.process import process_start_ticks
from kernel.runstore import RunStore
from services.teams.rows import MemberRow, TeamRow, TurnRow
from services.teams.store import TeamStore

__all__ = [
    "LEAD",
    "member_state",
    "notify_lead",
    "owner_alive",
    "reconcile",
    "require_member",
    "require_team",
    "send_message",
    "split_body",
    "this_owner",
]

LEAD = "lead"
EXTERNAL_STALE_MINUTES = 15.0
MAX_BODY = 2_000  # characters, so any message fits a page of the inbox; a member's longer one is split


def this_owner() -> dict[str, Any]:
    return Owner.current().to_dict()


def owner_alive(owner: dict[str, Any]) -> bool | None:
    """True/False when this host and boot can tell; None when the owner ran elsewhere (use the heartbeat)."""
    if owner.get("boot") is None or owner.get("boot") != boot_id() or owner.get("host") != socket.gethostname():
        return None
    started = process_start_ticks(int(owner["pid"]))
    return started is not None and started == owner.get("start")


def require_team(store: TeamStore, team_id: str) -> TeamRow:
    team = store.team(team_id)
    if team is None:
        known = [t.id for t in store.teams(limit=5)]
        raise PalliumError(
            "not_found",
            f"no team {team_id!r}",
            hint='start one with `pallium team start "<goal>"`'
            + (f"; recent teams: {', '.join(known)}" if known else ""),
            details={"field": "team", "team": team_id},
        )
    return team


def require_member(store: TeamStore, team_id: str, name: str, *, field: str = "member") -> MemberRow:
    member = store.member(team_id, name)
    if member is None:
        raise _not_on_roster(store, team_id, name, field)
    return member


def send_message(
    store: TeamStore, team_id: str, *, sender: str, recipient: str, body: str, now: str, kind: str = "mail"
) -> int:
    """Put one message in `recipient`'s mailbox; a name not on the roster is refused, never dropped."""
    if not body.strip():
        raise PalliumError(
            "invalid_input",
            "the message is empty",
            hint="pass the text as `body` (CLI: last argument)",
            details={"field": "body"},
        )
    if len(body) > MAX_BODY:
        raise PalliumError(
            "invalid_input",
            f"the message is {len(body)} characters; at most {MAX_BODY}",
            hint="split it into several `team send` calls, or put the long part in a file and send its path",
            details={"field": "body"},
        )
    require_member(store, team_id, recipient, field="to")
    require_member(store, team_id, sender, field="sender")
    return store.send(team_id=team_id, sender=sender, recipient=recipient, body=body, kind=kind, now=now)


def split_body(body: str) -> list[str]:
    """`body` in parts of at most `MAX_BODY` characters, each marked `[part n/m]`: split, never cut."""
    size = MAX_BODY - 16
    parts = [body[i : i + size] for i in range(0, len(body), size)] or [body]
    return parts if len(parts) == 1 else [f"[part {n}/{len(parts)}] {p}" for n, p in enumerate(parts, 1)]


def notify_lead(store: TeamStore, team_id: str, body: str, *, now: str, sender: str = "pallium") -> int:
    """A system message to the lead (always on the roster), for failures and things to decide."""
    ids = [
        store.send(team_id=team_id, sender=sender, recipient=LEAD, body=part, kind="system", now=now)
        for part in split_body(body)
    ]
    return ids[0]


def member_state(
    member: MemberRow, turn: TurnRow | None, waiting: int, *, stale_after_minutes: float, at: float | None = None
) -> str:
    """idle | waiting | running | stale | dead | stopped, from the evidence."""
    at = time.time() if at is None else at
    if member.status == "stopped":
        return "stopped"
    if member.external:
        fresh = member.heartbeat_at is not None and at - member.heartbeat_at < EXTERNAL_STALE_MINUTES * 60
        if not fresh:
            return "stale"
        return "waiting" if waiting else "idle"
    if turn is not None and turn.state == "started":
        alive = owner_alive(turn.owner)
        if alive is False:
            return "dead"
        if at - turn.heartbeat_at > stale_after_minutes * 60:
            return "stale"
        return "running"
    return "waiting" if waiting or member.nudged else "idle"


def reconcile(
    store: TeamStore, team_id: str, *, now: str, stale_after_minutes: float, force_member: str | None = None
) -> list[str]:
    """Close turns whose process is gone (or, elsewhere, whose heartbeat expired) as `interrupted`.

    The member keeps its session and its undelivered mail (receipts are written only by a completed
    turn), and is marked to take a turn again, so the next `team run` resumes it. `force_member`
    (member restart) also takes a stale turn of a live but stuck process; if that process finishes
    later, its result is refused (the turn is no longer `started`).
    """
    interrupted = []
    at = time.time()
    for turn in store.turns(team_id, states=("started",)):
        alive = owner_alive(turn.owner)
        stale = at - turn.heartbeat_at > stale_after_minutes * 60
        if alive is False or (alive is None and stale) or (turn.member == force_member and stale):
            with store.db.transaction():
                if not store.finish_turn(
                    turn.id,
                    state="interrupted",
                    now=now,
                    error="the process running this turn is gone" if alive is False else "the turn's heartbeat stopped",
                ):
                    continue
                store.update_member(
                    team_id,
                    turn.member,
                    retry=True,
                    last_turn_status="interrupted",
                    last_turn_error=f"turn {turn.id} was interrupted",
                )
                _settle_interrupted_txn(store, team_id, turn, now=now)
                store.log(
                    team_id,
                    "turn_interrupted",
                    {"turn": turn.id, "owner_pid": turn.owner.get("pid")},
                    member=turn.member,
                    now=now,
                )
            interrupted.append(turn.member)
    return interrupted


def _settle_interrupted_txn(store: TeamStore, team_id: str, turn: TurnRow, *, now: str) -> None:
    """Settle what an interrupted turn left half-written: its reserved spend, and a patch it staged.

    The turn reserved one unknown-cost call before its worker started. The kernel's journal says
    how far the call got: completed with a cost (that cost replaces the reservation), never started
    (no worker process recorded: the reservation and the call's count are dropped), or cut off (it
    stays one call of unknown cost: the worker may have
    spent). A patch the kernel staged before the kill stays staged (the member resumes the session
    that made it), and the lead is told, so it is not applied unseen.
    """
    if turn.call_key is None:
        return
    calls = RunStore(store.db)
    call = calls.call(team_id, turn.call_key)
    if not turn.spend_recorded:
        if call is None or (call.status not in ("completed", "failed") and call.pgid is None):
            # never started (no intent row, or no worker process was ever recorded): nothing was spent
            store.settle_spend(team_id, turn.member, None, ran=False)
            store.uncount_call(team_id, turn.member)
        elif call.status in ("completed", "failed"):
            store.settle_spend(team_id, turn.member, call.cost_usd)
        store.update_turn(turn.id, spend_recorded=True)
    patch = calls.patch(team_id, turn.call_key)
    if patch is not None and patch.state == "staged":
        notify_lead(
            store,
            team_id,
            f"{turn.member}'s turn {turn.id} was interrupted after its patch ({turn.call_key}) "
            f"was staged; it stays staged for `pallium team apply {team_id}` (see `pallium team status`)",
            now=now,
        )


def _not_on_roster(store: TeamStore, team_id: str, name: str, field: str) -> PalliumError:
    roster = [m.name for m in store.members(team_id)]
    import difflib

    close = difflib.get_close_matches(name, roster, n=1, cutoff=0.6)
    flag = {"to": "`--to`", "sender": "`--from`", "as": "`--as`", "for": "`--for`"}.get(field, f"`{field}`")
    return PalliumError(
        "not_found",
        f"{name!r} is not on team {team_id}'s roster; nothing was sent or changed",
        hint=(f"did you mean {close[0]!r}? " if close else "")
        + f"pass one of {', '.join(roster)} as `{field}` (CLI {flag}); add a member with `pallium team spawn`",
        details={"field": field, "name": name, "roster": roster, "suggestion": close[0] if close else None},
    )
