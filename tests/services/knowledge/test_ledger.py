"""The ledger of real model attempts: 40 per rolling 24 hours across repositories, two at once, failures count."""

from datetime import timedelta
from pathlib import Path

import pytest

from kernel.clock import FixedClock, parse_iso
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.progress import Progress
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


def _fill_the_day(clock=None) -> None:
    ctx = ToolContext(clock=clock) if clock else ToolContext()
    ledger = Ledger(ctx, "/repo/elsewhere")
    for _ in range(ATTEMPTS_PER_DAY - ledger.used()):
        ledger.finish(ledger.reserve("prose"), _OK)
    ctx.close()


def _used(clock=None) -> int:
    ctx = ToolContext(clock=clock) if clock else ToolContext()
    try:
        return Ledger(ctx, "/repo/elsewhere").used()
    finally:
        ctx.close()


async def test_a_rehearsal_with_the_fake_provider_never_touches_the_real_budget(app_repo: Path, fake):
    fake.scenario({"match": "Module:", "reply": {"claims": [GOOD]}})
    clock = FixedClock(parse_iso(NOW))
    for _ in range(2):  # two default rehearsals once filled the day
        out = await ask(app_repo, "pallium_knowledge_build", provider="fake")
        assert out.model_attempts >= 1 and not out.rejected
    assert _used(clock) == 0
    real = await ask(app_repo, "pallium_knowledge_build", provider="claude", max_modules=1)
    assert real.model_attempts == 1 and not real.rejected and _used(clock) == 1
    _fill_the_day(clock)  # and with the real day used up, a rehearsal still runs
    again = await ask(app_repo, "pallium_knowledge_build", provider="fake", max_modules=1)
    assert again.model_attempts == 1 and not again.rejected
    refused = await ask(app_repo, "pallium_knowledge_build", provider="claude", max_modules=1)
    assert refused.model_attempts == 0 and "40 knowledge model attempts" in refused.rejected[0]


def test_every_refusal_is_printed_in_the_text_output(app_repo: Path, fake, capsys, monkeypatch):
    from pallium_mcp.cli import main

    _fill_the_day()  # the CLI runs on the system clock
    monkeypatch.chdir(app_repo)
    main(["knowledge", "build", "--provider", "claude", "--max-modules", "1"])
    out = capsys.readouterr().out
    assert "REFUSED:" in out and "40 knowledge model attempts were made" in out
    assert fake.calls() == []


def test_modules_names_an_unknown_slug_as_an_error(app_repo: Path, fake, capsys, monkeypatch):
    from pallium_mcp.cli import main

    monkeypatch.chdir(app_repo)
    code = main(["knowledge", "build", "--provider", "fake", "--modules", "app/core,nowhere"])
    err = capsys.readouterr().err
    assert code == 2 or code == 1
    assert "'nowhere'" in err and "app/core" not in err.split("no module", 1)[1].split("in this", 1)[0]
    assert fake.calls() == []


async def test_modules_takes_slugs_and_paths_comma_separated(app_repo: Path, fake):
    fake.scenario({"match": "Module:", "reply": {"claims": [GOOD]}})
    out = await ask(app_repo, "pallium_knowledge_build", provider="fake", modules=["app/core,app%2Fweb"])
    assert out.model_modules == 2
    prompts = [c["prompt"] for c in fake.calls()]
    assert sum("Module: app/core" in p for p in prompts) == 1 and sum("Module: app/web" in p for p in prompts) == 1


def test_no_model_help_says_what_it_does_and_names_no_missing_flag(capsys):
    from pallium_mcp.cli import main

    with pytest.raises(SystemExit):
        main(["knowledge", "build", "--help"])
    text = capsys.readouterr().out
    assert "--no-model" in text and "builds from the index alone" in text
    assert "with --model" not in text and "consult without --no-model" in text


class _Recorded(Progress):
    def __init__(self) -> None:
        self.messages: list[tuple[float, float | None, str | None]] = []

    async def update(self, done: float, total: float | None = None, message: str | None = None) -> None:
        self.messages.append((done, total, message))


async def test_progress_is_reported_before_each_modules_model_prose(app_repo: Path, fake):
    from kernel.dispatch import call

    fake.scenario({"match": "Module:", "reply": {"claims": [GOOD]}})
    progress = _Recorded()
    ctx = ToolContext(cwd=app_repo, clock=FixedClock(parse_iso(NOW)), progress=progress)
    try:
        out = await call("pallium_knowledge_build", {"provider": "fake", "max_modules": 2}, ctx)
    finally:
        ctx.close()
    prose = [m for m in progress.messages if m[2] and m[2].startswith("model prose for")]
    assert out.model_modules == 2 and [(d, t) for d, t, _ in prose] == [(0, 2), (1, 2)]
