"""Budget arithmetic: reservations, settlement, spending exactly up to the limit, unknown cost."""

import pytest

from kernel.budget import Budget
from kernel.errors import PalliumError


def test_spending_exactly_up_to_the_limit_is_allowed_and_one_more_estimate_is_not():
    budget = Budget(limit_usd=0.03, max_agents=10, estimate_usd=0.01)
    reservations = [budget.reserve() for _ in range(3)]
    with pytest.raises(PalliumError) as raised:
        budget.reserve()
    assert raised.value.code == "budget_exhausted"
    for r in reservations:
        budget.settle(r, 0.001)
    assert budget.reserve() and budget.status()["remaining_usd"] == pytest.approx(0.017)


def test_a_released_reservation_gives_back_its_money_and_its_agent_slot():
    budget = Budget(limit_usd=None, max_agents=1)
    budget.release(budget.reserve())
    budget.reserve()
    with pytest.raises(PalliumError) as raised:
        budget.reserve()
    assert raised.value.details["cap"] == "max_agents"


def test_unknown_cost_is_charged_the_estimate_and_never_shown_as_zero():
    budget = Budget(limit_usd=1.0, max_agents=10, estimate_usd=0.25)
    budget.settle(budget.reserve(), None)
    status = budget.status()
    assert status["spent"] == "$0.0000 + 1 unknown" and status["remaining_usd"] == 0.75
    assert status["enforceable"] is False
    assert Budget(limit_usd=None, max_agents=1).status()["enforceable"] is True
