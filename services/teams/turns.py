"""One member's turn: lease it, build the bounded prompt, call its provider session, apply its decision.

The decision, the mail receipts and the member's new state are written in one transaction that
first closes the turn (`started` -> `completed`); a turn that reconcile already closed (its
orchestrator was presumed dead) cannot land its decision twice. A turn that fails leaves its mail
undelivered, so the next turn reads it again: nothing is lost, and nothing is receipted twice.
"""

from __future__ import annotations

import secrets
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kernel import paths
from kernel.calls import AgentCall
from kernel.clock import Clock, iso_utc
from kernel.crashpoints import crash_point
from kernel.errors import PalliumError
from kernel.runstore import RunStore
from services.teams import prompt as contract
from services.teams.board import (
    completion_patch,
    judge_completion,
    judge_new_tasks,
    land_completion_txn,
    land_new_tasks_txn,
    task_patches,
)
from services.teams.gates import ask_gate
from services.teams.roster import notify_lead, split_body
from services.teams.rows import MemberRow, TurnRow
from services.teams.store import TeamStore

if TYPE_CHECKING:
    from kernel.execution import Run

__all__ = ["FAILURE_LIMIT", "TurnReport", "Turns", "member_board"]

FAILURE_LIMIT = 3  # consecutive failed turns before a member waits for a nudge or restart
REPEAT_LIMIT = 3  # the same decision this many turns running is escalated to the lead


class _Fenced(Exception):
    """The turn was closed by someone else (reconcile, a restart) while it ran: drop its decision."""


@dataclass(frozen=True)
class TurnReport:
    member: str
    turn_id: str | None
    state: str  # completed | malformed | failed | interrupted | skipped
    detail: str = ""


class Turns:
    """Runs the turns of one team inside a held kernel `Run` (the team's lease, journal and staging)."""

    def __init__(self, store: TeamStore, team_id: str, run: Run, *, clock: Clock, owner: dict) -> None:
        self.store = store
        self.team_id = team_id
        self.run = run
        self.clock = clock
        self.owner = owner
        self.in_flight: set[str] = set()
        self.reserved: dict[str, float] = {}  # USD held for turns in flight, by member (see `_admit`)

    def now(self) -> str:
        return iso_utc(self.clock.now())

    async def take(self, name: str) -> TurnReport:
        team = self.store.team(self.team_id)
        member = self.store.member(self.team_id, name)
        assert team is not None and member is not None
        estimate = self._estimate(team)
        refused = self._admit(team, member, estimate)
        if refused is not None:
            return self._refused(member, refused)
        turn_id = f"turn-{secrets.token_hex(6)}"
        turn = self.store.begin_turn(
            turn_id=turn_id,
            team_id=team.id,
            member=name,
            owner=self.owner,
            heartbeat_at=time.time(),
            board_version=team.board_version,
            now=self.now(),
        )
        if turn is None:
            return TurnReport(name, None, "skipped", "a turn is already in flight")
        self.in_flight.add(turn_id)
        self.reserved[name] = estimate
        try:
            return await self._run_turn(turn, member)
        finally:
            self.in_flight.discard(turn_id)
            self.reserved.pop(name, None)

    # ------------------------------------------------------------ limits

    def _estimate(self, team) -> float:
        """What one turn is expected to cost: the dearest known turn of this team, else the kernel's default."""
        from kernel.budget import DEFAULT_ESTIMATE_USD

        known = self.store.dearest_recent_turn(team.id, limit=50)
        return DEFAULT_ESTIMATE_USD if known is None else known

    def _admit(self, team, member: MemberRow, cost: float) -> str | None:
        """Why this turn may not start, or None. Budgets bind before the call: the spend known so far, plus
        what the turns in flight hold, plus this one's estimate, must stay within the team's and the
        member's budgets; calls started (in flight included) within their caps. Checked and reserved
        with no await between, so the turns of one round cannot all pass on the same room (`cost` is
        this turn's estimate, `_estimate`)."""
        held = sum(self.reserved.values())
        if team.budget_usd is not None and team.spend_usd + held + cost > team.budget_usd + 1e-9:
            return (
                f"team budget: ${team.spend_usd:.4f} spent + ${held:.4f} held by turns in flight + this turn's "
                f"${cost:.4f} would pass ${team.budget_usd:.4f}"
            )
        mine = self.reserved.get(member.name, 0.0)
        if member.budget_usd is not None and member.spend_usd + mine + cost > member.budget_usd + 1e-9:
            return (
                f"member budget: ${member.spend_usd:.4f} spent + this turn's ${cost:.4f} would pass "
                f"${member.budget_usd:.4f}"
            )
        if team.max_calls is not None and team.calls >= team.max_calls:
            return f"team call cap: {team.calls} of {team.max_calls} calls started"
        if member.max_calls is not None and member.calls >= member.max_calls:
            return f"member call cap: {member.calls} of {member.max_calls} calls started"
        return None

    def _refused(self, member: MemberRow, why: str) -> TurnReport:
        """A turn a limit kept from starting: nothing spawned or spent; the member waits, the lead is told once."""
        now = self.now()
        if why.startswith("member") and member.status != "blocked":
            with self.store.db.transaction():
                self.store.update_member(self.team_id, member.name, status="blocked", status_reason=why[:500])
                notify_lead(
                    self.store,
                    self.team_id,
                    f"{member.name} is held at its limit ({why}); give it more with `pallium team budget "
                    f"{self.team_id} --member {member.name} --usd N --calls N`",
                    now=now,
                )
        return TurnReport(member.name, None, "skipped", f"budget_exhausted: {why}")

    async def _run_turn(self, turn: TurnRow, member: MemberRow) -> TurnReport:
        team = self.store.team(self.team_id)
        assert team is not None
        mail = self.store.undelivered(team.id, member.name, limit=contract.MAIL_PER_TURN)
        waiting = self.store.count_undelivered(team.id).get(member.name, 0)
        board = member_board(self.store, team.id, member)
        held = next((t.id for t in board.open_tasks if t.owner == member.name and t.status == "in_progress"), None)
        if held is not None:
            self.store.update_turn(turn.id, task_id=held)  # what an edit made this turn is for
        roster = self.store.members(team.id)
        handoff = None
        session_mode, new_session, resume = self._session_plan(member)
        for attempt in range(2):
            text = contract.build_prompt(
                turn_id=turn.id,
                team=team,
                member=member,
                roster=roster,
                mail=mail,
                waiting=waiting,
                board=board,
                handoff=handoff,
            )
            call = AgentCall(
                text,
                mode="edit" if member.mode == "edit" else "read-only",
                provider=member.provider,
                model=member.model,
                schema=contract.DECISION_SCHEMA,
                label=f"{team.id}/{member.name}",
                op="turn",
                new_session=new_session,
                resume_session=resume,
                session_file=self._session_file(member),
            )
            with self.store.db.transaction():
                # the call's journal key and a reserved spend go first: a `team run` killed while the worker
                # runs leaves reconcile what to settle (the kernel journal's cost, or one unknown-cost call)
                self.store.update_turn(
                    turn.id,
                    prompt_bytes=len(text.encode("utf-8")),
                    mail_ids=[m.id for m in mail],
                    provider=member.provider,
                    session_mode=session_mode,
                    session_id=new_session or resume,
                    call_key=self.run.journal.peek(call.op, self.run.request_of(call)),
                    spend_recorded=False,
                )
                self.store.reserve_spend(team.id, member.name)
                self.store.count_call(team.id, member.name)
            if member.mode == "edit" and member.snapshot_commit != self.run.base_commit:
                team = self.store.team(team.id) or team
                self.store.update_member(
                    team.id, member.name, snapshot_commit=self.run.base_commit, snapshot_at=team.base_at
                )
            crash_point("team_turn_started")
            try:
                outcome = await self.run.agent(call, on_session=self._session_seen(member.name, resume))
            except PalliumError as exc:
                with self.store.db.transaction():
                    self.store.settle_spend(team.id, member.name, None, ran=False)
                    self.store.uncount_call(team.id, member.name)  # it never started
                    self.store.update_turn(turn.id, spend_recorded=True)
                return self._failed(turn, member, f"{exc.code}: {exc.message}", cost=None, counted=False)
            result = outcome.result
            started = not (result.failure is not None and result.failure.error_class == "not_configured")
            with self.store.db.transaction():
                # a provider that could not be started (not installed, not configured) spent nothing
                self.store.settle_spend(team.id, member.name, result.usage.cost_usd if started else None, ran=started)
                if not started:
                    self.store.uncount_call(team.id, member.name)
                self.store.update_turn(turn.id, spend_recorded=True)
            failure = result.failure
            if attempt == 0 and failure is not None and failure.reason == "session_not_found":
                handoff = contract.handoff_text(self._past_summaries(member.name))
                lost = new_session or resume
                new_session = str(uuid.uuid4()) if member.provider == "claude" else None
                resume, session_mode = None, "fresh_handoff"
                note = f"session {lost} was gone at turn {turn.seq}; started a fresh session with a handoff summary"
                with self.store.db.transaction():
                    self.store.update_member(
                        team.id, member.name, session_id=new_session, session_established=False, session_note=note
                    )
                    self.store.log(
                        team.id, "session_lost", {"turn": turn.id, "session": lost}, member=member.name, now=self.now()
                    )
                continue
            if attempt == 0 and failure is not None and "already in use" in failure.message and new_session:
                resume, new_session, session_mode = new_session, None, "resume"  # an interrupted first turn made it
                continue
            break
        self._record_session(member, result.session_id or new_session or resume, failure)
        crash_point("team_before_decision")
        if failure is not None and failure.error_class != "schema":
            told = _told_member(member, failure, outcome.patch_state)
            return self._failed(
                turn,
                member,
                f"{failure.error_class}: {failure.message}",
                cost=result.usage.cost_usd,
                told=told,
                patch=(outcome.call_key, outcome.patch_state),
            )
        decision = contract.parse_decision(result.output) if failure is None else failure.message
        if isinstance(decision, str):
            return self._malformed(turn, member, decision, outcome.call_key, outcome.patch_state)
        return await self._apply(
            turn, member, decision, outcome, mail_ids=[m.id for m in mail], cost=result.usage.cost_usd
        )

    # ------------------------------------------------------------ sessions

    def _session_plan(self, member: MemberRow) -> tuple[str, str | None, str | None]:
        """How this turn reaches the member's native session: (mode, new session id, session to resume)."""
        if member.provider == "claude":
            if member.session_id is None:
                fresh = str(uuid.uuid4())
                self.store.update_member(self.team_id, member.name, session_id=fresh)
                return "new", fresh, None
            if member.session_established:
                return "resume", None, member.session_id
            return "new", member.session_id, None
        if member.session_id:
            return "resume", None, member.session_id
        left = self._wrapper_session(member)
        if left is not None:  # an earlier turn was killed after its wrapper made a session: continue that one
            self.store.update_member(self.team_id, member.name, session_id=left, session_established=True)
            return "resume", None, left
        return "new", None, None

    def _session_file(self, member: MemberRow) -> Path | None:
        """Where a wrapper member's session token is kept between turns (claude and codex report theirs)."""
        if member.provider in ("claude", "codex", "openai"):
            return None
        return paths.pallium_home() / "teams" / self.team_id / f"{member.name}.session"

    def _wrapper_session(self, member: MemberRow) -> str | None:
        path = self._session_file(member)
        try:
            token = path.read_text(encoding="utf-8").strip() if path is not None and path.is_file() else ""
        except OSError:
            return None
        return token or None

    def _session_seen(self, name: str, resumed: str | None):
        """Record a session id the moment the worker streams it (codex's thread id comes in its first event).

        Written at once, not after the turn: a `team run` killed mid-turn would otherwise lose the id
        of a thread that exists, and the member's next turn would start a new one instead of resuming.
        """

        def record(session: str) -> None:
            if session != resumed:
                with self.store.db.transaction():
                    self.store.update_member(self.team_id, name, session_id=session, session_established=True)
                    self.store.log(self.team_id, "session_started", {"session": session}, member=name, now=self.now())

        return record

    def _record_session(self, member: MemberRow, session: str | None, failure: object) -> None:
        reached = failure is None or getattr(failure, "error_class", None) in ("schema", "unknown", "timeout")
        if session and reached:
            self.store.update_member(self.team_id, member.name, session_id=session, session_established=True)

    def _past_summaries(self, name: str) -> list[tuple[int, str]]:
        turns = self.store.turns(self.team_id, member=name, states=("completed",), limit=10)
        return [(t.seq, t.summary or "") for t in reversed(turns)]

    # ------------------------------------------------------------ outcomes

    def _failed(
        self,
        turn: TurnRow,
        member: MemberRow,
        why: str,
        *,
        cost: float | None,
        counted: bool = True,
        told: str | None = None,
        patch: tuple[str, str | None] | None = None,
    ) -> TurnReport:
        now = self.now()
        key, state = patch or (None, None)
        with self.store.db.transaction():
            if not self.store.finish_turn(
                turn.id, state="failed", now=now, error=why[:4000], cost_usd=cost, call_key=key, patch_state=state
            ):
                return TurnReport(member.name, turn.id, "interrupted", "closed by reconcile while it ran")
            if told:
                for part in split_body(told):
                    self.store.send(
                        team_id=self.team_id, sender="pallium", recipient=member.name, body=part, kind="system", now=now
                    )
            failures = self._consecutive_failures(member.name)
            changes: dict = {
                "last_turn_status": "failed",
                "last_turn_error": why[:4000],
                "last_turn_at": now,
                "turn_count": member.turn_count + 1,
            }
            if failures >= FAILURE_LIMIT:
                changes.update(
                    status="error", status_reason=f"{failures} failed turns running; nudge or restart it", retry=False
                )
            self.store.update_member(self.team_id, member.name, **changes)
            notify_lead(self.store, self.team_id, f"turn failed: {member.name} ({turn.id}): {why[:1500]}", now=now)
            self.store.log(
                self.team_id,
                "turn_failed",
                {"turn": turn.id, "error": why[:500]},
                member=member.name,
                cost_usd=cost,
                now=now,
            )
        return TurnReport(member.name, turn.id, "failed", why)

    def _malformed(
        self, turn: TurnRow, member: MemberRow, why: str, call_key: str, patch_state: str | None
    ) -> TurnReport:
        now = self.now()
        with self.store.db.transaction():
            if not self.store.finish_turn(
                turn.id, state="malformed", now=now, error=why[:4000], call_key=call_key, patch_state=patch_state
            ):
                return TurnReport(member.name, turn.id, "interrupted", "closed by reconcile while it ran")
            failures = self._consecutive_failures(member.name)
            changes: dict = {
                "retry": failures < FAILURE_LIMIT,
                "last_turn_status": "malformed",
                "last_turn_error": why[:4000],
                "last_turn_at": now,
                "turn_count": member.turn_count + 1,
            }
            if failures >= FAILURE_LIMIT:
                changes.update(status="error", status_reason=f"{failures} unusable turns running; nudge or restart it")
            self.store.update_member(self.team_id, member.name, **changes)
            notify_lead(
                self.store,
                self.team_id,
                f"malformed decision from {member.name} ({turn.id}); it will be asked again: {why[:1500]}",
                now=now,
            )
        return TurnReport(member.name, turn.id, "malformed", why)

    def _patch_reason(self, outcome) -> str:
        """Why a patch did not land, in words for the member and the lead (never empty)."""
        if outcome.patch_state == "blocked":
            shown = "; ".join(f"{v.get('kind')} {v.get('path')}" for v in outcome.gate_violations[:5])
            return f"the patch gates blocked it: {shown or 'see the run events'}"
        row = RunStore(self.store.db).patch(self.team_id, outcome.call_key)
        if outcome.patch_state == "conflicted":
            detail = (row.detail if row is not None else None) or "it does not apply on the team's staged work"
            return f"it conflicts with the team's staged patches: {detail}"
        if outcome.patch_state == "discarded":
            return "the turn did not finish, so its edits were not kept"
        if outcome.patch_state == "capture_failed":
            return "its edits could not be captured from the worktree"
        return outcome.patch_state or "unknown"

    def _consecutive_failures(self, name: str) -> int:
        count = 0
        for t in self.store.turns(
            self.team_id, member=name, states=("completed", "failed", "malformed"), limit=FAILURE_LIMIT
        ):
            if t.state == "completed":
                break
            count += 1
        return count

    async def _apply(
        self,
        turn: TurnRow,
        member: MemberRow,
        decision: contract.Decision,
        outcome,
        *,
        mail_ids: list[int],
        cost: float | None,
    ) -> TurnReport:
        team = self.store.team(self.team_id)
        assert team is not None
        now = self.now()
        staged_patch = outcome.call_key if outcome.patch_state == "staged" else None
        status, reason = decision.status, decision.status_reason
        notes: list[str] = []
        judged, evidence = None, dict(decision.evidence)
        held = (self.store.turn(turn.id) or turn).task_id
        problem = None
        if decision.complete_task_id is not None:
            made = task_patches(self.store, team.id, decision.complete_task_id, member.name)
            if held == decision.complete_task_id and outcome.patch_state not in (None, "empty"):
                made.insert(0, (outcome.call_key, outcome.patch_state, self._patch_reason(outcome)))
            problem, patch_id = completion_patch(made, decision.complete_task_id, evidence.get("patch_id"))
            if problem:
                notes.append(f"task #{decision.complete_task_id} was not completed: {problem}")
            elif patch_id:
                evidence["patch_id"] = patch_id
        if decision.complete_task_id is not None and problem is None:
            # judged now (the gate is a model call), landed in the turn's own transaction below: a turn
            # that is fenced or killed before it closes completes nothing and mails no gate feedback
            judged = await judge_completion(
                self.store,
                team,
                decision.complete_task_id,
                member.name,
                result=decision.complete_result,
                evidence=evidence,
                now=now,
            )
        new_tasks, refused = await judge_new_tasks(self.store, team, decision.add_tasks, member.name, now=now)
        notes += refused
        if status == "idle":
            verdict = await ask_gate(
                self.store,
                team,
                "teammate_idle",
                f"{member.name} wants to go idle: {decision.status_reason}\n{decision.summary}",
                member=member.name,
                now=now,
            )
            if verdict.outcome == "rejected":
                status, reason = "active", f"the gate kept you working: {verdict.reason}"
                notes.append(f"the gate did not let you go idle: {verdict.reason}")
            elif verdict.outcome == "broken":
                status, reason = "active", "the idle gate could not check; kept working (fails closed)"
                notes.append(f"the idle gate could not check, so you stay active: {verdict.reason}")
        roster = self.store.member_names(team.id)
        try:
            with self.store.db.transaction():
                if not self.store.finish_turn(
                    turn.id,
                    state="completed",
                    now=now,
                    decision=_decision_record(decision),
                    summary=decision.summary,
                    cost_usd=cost,
                    call_key=outcome.call_key,
                    patch_state=outcome.patch_state,
                    patch_files=outcome.patch_files,
                ):
                    raise _Fenced
                if judged is not None:
                    done = land_completion_txn(
                        self.store,
                        team,
                        judged,
                        member.name,
                        result=decision.complete_result,
                        evidence=evidence,
                        now=now,
                    )
                    if done.state not in ("completed", "rejected", "requeued", "missing_evidence"):
                        notes.append(f"task #{decision.complete_task_id} was not completed: {done.message}")
                added = land_new_tasks_txn(self.store, team.id, new_tasks, member.name, now=now)
                if added:
                    self.store.log(
                        team.id, "tasks_added", {"turn": turn.id, "tasks": added}, member=member.name, now=now
                    )
                self._deliver_outgoing(team.id, member.name, decision, roster, notes, now)
                if decision.claim_task_id is not None and member.plan_required and member.plan_status != "approved":
                    notes.append(f"your claim of task #{decision.claim_task_id} failed: your plan is not approved yet")
                elif decision.claim_task_id is not None:
                    claimed = self.store._claim_txn(team.id, decision.claim_task_id, member.name, now)
                    if claimed not in ("claimed", "already_owned"):
                        notes.append(f"your claim of task #{decision.claim_task_id} failed: {claimed}")
                    elif held is None:
                        self.store.update_turn(turn.id, task_id=decision.claim_task_id)  # its edit is for it
                if member.plan_required and member.plan_status != "approved":
                    notify_lead(
                        self.store,
                        team.id,
                        f"plan from {member.name} (approve with `pallium team approve "
                        f"{team.id} {member.name}`, or reject with feedback):\n{decision.summary[:4000]}",
                        now=now,
                        sender=member.name,
                    )
                    status, reason = "blocked", "awaiting plan approval"
                # an idle member is not scheduled again without new mail or work, so only a member that keeps
                # asking for turns (active) or keeps saying it is blocked can loop on one decision
                same = decision.signature() == member.last_decision_hash and decision.status != "idle"
                repeat = member.repeat_count + 1 if same else 1
                if repeat >= REPEAT_LIMIT:
                    notify_lead(
                        self.store,
                        team.id,
                        f"{member.name} gave the same decision {repeat} turns running "
                        f"(status {decision.status}: {decision.status_reason}); it waits for you now",
                        now=now,
                    )
                    status, reason, repeat = "blocked", f"same decision {REPEAT_LIMIT} turns running; escalated", 0
                if staged_patch:
                    self.store.log(
                        team.id,
                        "patch_staged",
                        {"turn": turn.id, "patch_id": staged_patch, "files": outcome.patch_files[:50]},
                        member=member.name,
                        now=now,
                    )
                    notify_lead(
                        self.store,
                        team.id,
                        f"{member.name} staged a patch ({staged_patch}: "
                        f"{', '.join(outcome.patch_files[:10])}); land it with `pallium team apply {team.id}`",
                        now=now,
                    )
                elif outcome.patch_state in ("blocked", "conflicted", "discarded", "capture_failed"):
                    why = self._patch_reason(outcome)
                    task = f" for task #{held}" if held is not None else ""
                    self.store.log(
                        team.id,
                        "patch_not_staged",
                        {"turn": turn.id, "patch_id": outcome.call_key, "state": outcome.patch_state, "why": why},
                        member=member.name,
                        now=now,
                    )
                    notify_lead(
                        self.store,
                        team.id,
                        f"{member.name}'s patch{task} is {outcome.patch_state} and was not "
                        f"staged ({outcome.call_key}): {why}",
                        now=now,
                    )
                    notes.append(
                        f"your edits this turn{task} did not land: the patch ({outcome.call_key}) is "
                        f"{outcome.patch_state}: {why}. Nothing of it reached the board; make the edit again "
                        "on the current tree before you complete the task."
                    )
                for note in (part for n in notes for part in split_body(n)):
                    self.store.send(
                        team_id=team.id, sender="pallium", recipient=member.name, body=note, kind="system", now=now
                    )
                self.store.mark_delivered(team.id, member.name, mail_ids, turn.id, now=now)
                self.store.update_member(
                    team.id,
                    member.name,
                    status=status,
                    status_reason=reason or None,
                    last_seen_board=turn.board_version,
                    nudged=False,
                    retry=False,
                    turn_count=member.turn_count + 1,
                    last_turn_at=now,
                    last_turn_status="completed",
                    last_turn_error=None,
                    last_decision_hash=decision.signature(),
                    repeat_count=repeat,
                )
        except _Fenced:
            return TurnReport(member.name, turn.id, "interrupted", "closed by reconcile while it ran")
        return TurnReport(member.name, turn.id, "completed", decision.summary)

    def _deliver_outgoing(
        self, team_id: str, sender: str, decision: contract.Decision, roster: set[str], notes: list[str], now: str
    ) -> None:
        for to, body in decision.messages:
            if to in roster and to != sender and body.strip():
                for part in split_body(body):  # split, never cut: a long report arrives whole
                    self.store.send(team_id=team_id, sender=sender, recipient=to, body=part, kind="mail", now=now)
                continue
            why = "is yourself" if to == sender else ("was empty" if not body.strip() else "is not on the roster")
            notes.append(f"your message to {to!r} was not sent: the name {why}; roster: {', '.join(sorted(roster))}")
            if to not in roster:
                notify_lead(
                    self.store,
                    team_id,
                    f"{sender} wrote to {to!r}, who is not on the roster; kept here: {body[:2000]}",
                    now=now,
                )


def _told_member(member: MemberRow, failure, patch_state: str | None) -> str | None:
    """What a member must hear about its failed turn to do better in the next one (None: nothing to add)."""
    if failure.reason == "read_only_write":
        return (
            f"you are a read-only member of this team ({member.mode}), and your last turn changed files, so it "
            f"failed and the changes were discarded: {failure.message.partition(': ')[2] or failure.message}. "
            "Do not edit files: put what should change in `messages` to lead (or to an edit member)."
        )
    if failure.reason == "outside_write":
        return (
            f"your last turn wrote outside its worktree, so it failed and its edits were discarded: {failure.message}"
        )
    if patch_state in ("discarded", "capture_failed"):
        return (
            f"your last turn did not finish ({failure.error_class}: {failure.message[:300]}), so its edits were "
            "discarded; nothing of them reached the board. Make them again."
        )
    return None


def member_board(store: TeamStore, team_id: str, member: MemberRow) -> contract.Board:
    """The board as `member` sees it: its own claimed tasks, then those it may claim, then the rest, up to
    `OPEN_TASKS`; the prompt says how many open tasks it left out."""
    open_tasks = store.tasks(team_id, statuses=("in_progress", "pending", "blocked"))
    own = [t for t in open_tasks if t.owner == member.name and t.status == "in_progress"]
    may_claim = not member.plan_required or member.plan_status == "approved"
    claimable = store.claimable(team_id) if may_claim else []
    first = {t.id for t in own} | {t.id for t in claimable}
    shown = (own + claimable + [t for t in open_tasks if t.id not in first])[: contract.OPEN_TASKS]
    return contract.Board(
        open_tasks=shown,
        recent=store.recent_completions(team_id, limit=contract.RECENT_COMPLETIONS),
        counts=store.count_tasks(team_id),
    )


def _decision_record(decision: contract.Decision) -> dict:
    return {
        "status": decision.status,
        "status_reason": decision.status_reason,
        "messages": [{"to": to, "body": body} for to, body in decision.messages],
        "claim_task_id": decision.claim_task_id,
        "complete_task_id": decision.complete_task_id,
        "complete_result": decision.complete_result,
        "evidence": decision.evidence,
        "add_tasks": [{"title": t.title, "depends_on": t.depends_on} for t in decision.add_tasks],
        "summary": decision.summary,
    }
