"""Money and agent caps for one run: reserve an estimate before each spawn, settle it with the real cost.

A spawn that would pass the limit is refused with `budget_exhausted`, as is one past the run's
lifetime agent cap (which survives resume because it is read back from the run row). A provider
that reports no cost is counted as `unknown`, never as $0; for enforcement each such call is charged
the estimate, and `status()` says plainly that the limit could not be enforced exactly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from kernel.errors import PalliumError

__all__ = ["DEFAULT_ESTIMATE_USD", "Budget", "Reservation"]

DEFAULT_ESTIMATE_USD = float(os.environ.get("PALLIUM_WORKFLOW_AGENT_COST_USD") or 0.01)


@dataclass(frozen=True)
class Reservation:
    amount: float


@dataclass
class Budget:
    limit_usd: float | None
    max_agents: int
    estimate_usd: float = DEFAULT_ESTIMATE_USD
    spent_usd: float = 0.0
    unknown_cost_calls: int = 0
    agents_started: int = 0
    reserved_usd: float = 0.0

    @property
    def committed_usd(self) -> float:
        """What counts against the limit: known spend, the estimate per unknown-cost call, open reservations."""
        return self.spent_usd + self.unknown_cost_calls * self.estimate_usd + self.reserved_usd

    @property
    def overspent(self) -> bool:
        """Whether what the calls reported (unknown costs at the estimate) already passed the limit."""
        charged = self.spent_usd + self.unknown_cost_calls * self.estimate_usd
        return self.limit_usd is not None and charged > self.limit_usd + 1e-12

    def reserve(self, *, run_id: str = "") -> Reservation:
        if self.agents_started >= self.max_agents:
            raise PalliumError(
                "budget_exhausted",
                f"run {run_id} reached its cap of {self.max_agents} agents (counted across resumes)",
                hint="raise --max-agents to let it continue",
                details={"run_id": run_id, "cap": "max_agents", "max_agents": self.max_agents},
            )
        if self.limit_usd is not None and self.committed_usd + self.estimate_usd > self.limit_usd + 1e-12:
            raise PalliumError(
                "budget_exhausted",
                f"run {run_id} would pass its ${self.limit_usd:.2f} budget: ${self.committed_usd:.4f} committed "
                f"plus the ${self.estimate_usd:.4f} estimate for one more agent",
                hint="raise --max-budget-usd to let it continue",
                details={"run_id": run_id, "cap": "budget", **self.status()},
            )
        self.agents_started += 1
        self.reserved_usd += self.estimate_usd
        return Reservation(self.estimate_usd)

    def settle(self, reservation: Reservation, cost_usd: float | None) -> None:
        """Replace the reservation by what the provider reported (None: unknown)."""
        self.reserved_usd = max(0.0, self.reserved_usd - reservation.amount)
        if cost_usd is None:
            self.unknown_cost_calls += 1
        else:
            self.spent_usd += cost_usd

    def release(self, reservation: Reservation) -> None:
        """Give back a reservation whose worker never ran."""
        self.reserved_usd = max(0.0, self.reserved_usd - reservation.amount)
        self.agents_started -= 1

    def status(self) -> dict[str, Any]:
        enforceable = self.limit_usd is None or self.unknown_cost_calls == 0
        remaining = None if self.limit_usd is None else max(0.0, self.limit_usd - self.committed_usd)
        note = None
        if not enforceable:
            note = (
                f"{self.unknown_cost_calls} call(s) reported no cost; the limit is enforced against known cost "
                f"plus a ${self.estimate_usd:.4f} estimate for each, so the real spend may differ"
            )
        return {
            "limit_usd": self.limit_usd,
            "spent_usd": round(self.spent_usd, 6),
            "spent": f"${self.spent_usd:.4f}"
            + (f" + {self.unknown_cost_calls} unknown" if self.unknown_cost_calls else ""),
            "unknown_cost_calls": self.unknown_cost_calls,
            "reserved_usd": round(self.reserved_usd, 6),
            "remaining_usd": remaining,
            "agents_started": self.agents_started,
            "max_agents": self.max_agents,
            "enforceable": enforceable,
            "note": note,
        }
