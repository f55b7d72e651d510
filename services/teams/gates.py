"""Team gates: a model asked to approve a task being created, a task being completed, a member going idle.

A verdict is `approved`, `rejected` (with a reason) or `broken` (the gate's provider failed or its
answer was not a verdict). What each means is the caller's: `task_created` fails closed (no task),
`task_completed` requeues a broken check to the owner, `teammate_idle` keeps the member working.
Every gate call's cost is added to the team's spend (an unknown cost is counted as unknown).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kernel.providers.contract import ProviderRequest
from kernel.providers.dispatcher import dispatch
from services.teams.rows import TeamRow
from services.teams.store import TeamStore

__all__ = ["GATE_SCHEMA", "HOOKS", "Verdict", "ask_gate"]

HOOKS = ("task_created", "task_completed", "teammate_idle")
GATE_SCHEMA = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approved", "reason"],
}
GATE_TIMEOUT_SECONDS = 300.0


@dataclass(frozen=True)
class Verdict:
    outcome: str  # approved | rejected | broken | skipped (no gate on this hook)
    reason: str
    cost_usd: float | None = None

    @property
    def approved(self) -> bool:
        return self.outcome in ("approved", "skipped")


async def ask_gate(
    store: TeamStore, team: TeamRow, hook: str, subject: str, *, member: str | None, now: str
) -> Verdict:
    """Ask the team's gate about `subject` for `hook`; `skipped` when the gate does not cover the hook."""
    if hook not in team.gate_hooks or not team.gate_prompt:
        return Verdict("skipped", "")
    prompt = (
        f"Acting as the gate of agent team {team.id} (goal: {team.goal[:1000]}), judge one event.\n"
        f"Hook: {hook}.\nThe team's rule:\n{team.gate_prompt}\n\nWhat to judge:\n{subject}\n\n"
        'Answer with a bare JSON object {"approved": true|false, "reason": "..."}.'
    )
    request = ProviderRequest(
        prompt=prompt,
        cwd=Path(team.cwd),
        mode="read-only",
        provider=team.gate_provider,
        schema=GATE_SCHEMA,
        timeout=GATE_TIMEOUT_SECONDS,
        run_id=team.id,
        label=f"{team.id}/gate/{hook}",
    )
    store.reserve_spend(team.id, None)  # a kill while the gate's model spends leaves it counted
    try:
        result = await dispatch(request)
    except BaseException:
        store.settle_spend(team.id, None, None, ran=False)
        raise
    cost = result.usage.cost_usd
    with store.db.transaction():
        store.settle_spend(team.id, None, cost)
        if result.ok and isinstance(result.output, dict):
            verdict = Verdict(
                "approved" if result.output.get("approved") else "rejected", str(result.output.get("reason", "")), cost
            )
        else:
            why = result.failure.message if result.failure else "the gate's answer was not a verdict"
            verdict = Verdict("broken", why, cost)
        store.log(
            team.id,
            "gate",
            {"hook": hook, "outcome": verdict.outcome, "reason": verdict.reason[:500]},
            member=member,
            cost_usd=cost,
            now=now,
        )
    return verdict
