"""The ledger of real model attempts: 40 per rolling 24 hours across repositories, two at once, failures count."""

from datetime import timedelta
from pathlib import Path

import pytest

from kernel.clock import FixedClock, parse_iso
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.providers.contract import Failure, ProviderResult
from services.knowledge.ledger import ATTEMPTS_PER_DAY, Ledger
from tests.services.knowledge.conftest import NOW, ask
from tests.services.knowledge.test_prose import GOOD

pytestmark = pytest.mark.anyio

_OK = ProviderResult("fake")
_FAILED = ProviderResult("fake", failure=Failure("crash", "died"))


def _ledger(repo: str, clock: FixedClock) -> tuple[Ledger, ToolContext]:
    ctx = ToolContext(clock=clock)
    return Ledger(ctx, repo), ctx


def test_forty_attempts_across_repositories_fill_the_rolling_day_and_failures_count():
    clock = FixedClock(parse_iso(NOW))
    first, ctx_a = _ledger("/repo/a", clock)
    second, ctx_b = _ledger("/repo/b", clock)
    for i in range(ATTEMPTS_PER_DAY):
        ledger = first if i % 2 else second
        ledger.finish(ledger.reserve("prose"), _FAILED if i % 3 == 0 else _OK)
        clock.advance(minutes=10)
    with pytest.raises(PalliumError) as caught:
        first.reserve("prose")
    assert caught.value.code == "budget_exhausted" and caught.value.details["limit"] == 40
    clock.current = parse_iso(NOW) + timedelta(hours=24, seconds=1)  # the first attempt left the window
    first.finish(first.reserve("prose"), _OK)
    with pytest.raises(PalliumError):
        second.reserve("prose")
    ctx_a.close()
    ctx_b.close()


def test_at_most_two_attempts_run_at_once_and_a_forgotten_one_stops_counting():
    clock = FixedClock(parse_iso(NOW))
    ledger, ctx = _ledger("/repo/a", clock)
    one, _two = ledger.reserve("prose"), ledger.reserve("prose")
    with pytest.raises(PalliumError) as caught:
        ledger.reserve("prose")
    assert caught.value.code == "conflict"
    ledger.finish(one, _OK)
    three = ledger.reserve("prose")
    clock.advance(minutes=5)  # past the three-minute timeout: the unfinished ones no longer hold a slot
    ledger.reserve("prose")
    ledger.finish(three, _OK)
    ctx.close()


async def test_an_auth_failure_pauses_the_repository_until_resumed(app_repo: Path, fake):
    fake.scenario({"match": "Module:", "error_class": "auth"})
    out = await ask(app_repo, "pallium_knowledge_build", provider="claude", max_modules=3)
    assert out.model_attempts == 1 and out.rejected == ["app%2Fcore: auth"]
    again = await ask(app_repo, "pallium_knowledge_build", provider="claude", max_modules=3)
    assert again.model_attempts == 0 and "paused" in again.rejected[0]
    assert len(fake.calls()) == 1


async def test_a_transient_failure_gets_one_retry_and_both_tries_count(app_repo: Path, fake):
    fake.scenario(
        {"match": "Module: app/core", "error_class": "rate_limit", "times": 1},
        {"match": "Module: app/core", "reply": {"claims": [GOOD]}},
    )
    out = await ask(app_repo, "pallium_knowledge_build", provider="claude", max_modules=1)
    assert out.claims_kept == 1 and len(fake.calls()) == 2
    ctx = ToolContext(clock=FixedClock(parse_iso(NOW)))
    assert Ledger(ctx, str(app_repo)).used() == 2
    ctx.close()
