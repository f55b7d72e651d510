"""The one budget for real knowledge model attempts: 40 per rolling 24 hours, two at once, three minutes each.

Every attempt is recorded in `$PALLIUM_HOME` before it starts and closed when it ends, failed or not,
so the limits hold across repositories and processes. Time is the kernel clock's, so tests move it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernel.errors import PalliumError
from services.knowledge.store import LedgerStore

if TYPE_CHECKING:
    from kernel.context import ToolContext
    from kernel.providers.contract import ProviderRequest, ProviderResult

__all__ = [
    "ATTEMPTS_PER_DAY",
    "CONCURRENT",
    "TIMEOUT_SECONDS",
    "Ledger",
    "is_pausing",
    "is_rehearsal",
    "is_transient",
]

ATTEMPTS_PER_DAY = 40
WINDOW_SECONDS = 24 * 3600.0
CONCURRENT = 2
TIMEOUT_SECONDS = 180.0
_PAUSING = {"auth", "quota", "not_configured"}
_TRANSIENT = {"rate_limit", "timeout", "crash", "unknown"}


def is_pausing(error_class: str | None) -> bool:
    """Failures that will not clear by retrying: the repository's upkeep pauses until someone resumes it."""
    return error_class in _PAUSING


def is_rehearsal(provider: str | None) -> bool:
    """A call that resolves to the built-in scripted `fake` provider spends nothing: it rehearses a
    build or an audit and never counts against (or is refused by) the real budget. A `fake` mapped
    to a command of its own through the wrapper variable may spend, and counts."""
    import os

    from kernel.providers.dispatcher import resolve_provider, wrapper_variable

    resolved = resolve_provider(provider)
    return resolved == "fake" and not os.environ.get(wrapper_variable(resolved))


def is_transient(error_class: str | None) -> bool:
    return error_class in _TRANSIENT


@dataclass
class Ledger:
    ctx: ToolContext
    repo: str

    @property
    def store(self) -> LedgerStore:
        return self.ctx.store(LedgerStore)

    def now(self) -> float:
        return self.ctx.clock.now().timestamp()

    def used(self) -> int:
        return len(self.store.attempts_since(self.now() - WINDOW_SECONDS))

    def check_not_paused(self) -> None:
        row = self.store.upkeep(self.repo)
        if row is not None and row.paused:
            raise PalliumError(
                "unavailable",
                f"knowledge model work for {self.repo} is paused: {row.pause_reason or 'paused by hand'}",
                hint="fix the cause, then run `pallium knowledge maintain resume` (MCP pallium_knowledge_maintain, "
                "action: resume); `--no-model` builds still work",
                details={"repo": self.repo, "reason": row.pause_reason},
            )

    def reserve(self, purpose: str) -> int:
        """Start an attempt, or raise `budget_exhausted` (the daily limit) or `conflict` (two already running)."""
        attempt, refused = self.store.reserve(
            repo=self.repo,
            purpose=purpose,
            now=self.now(),
            window=WINDOW_SECONDS,
            limit=ATTEMPTS_PER_DAY,
            active_limit=CONCURRENT,
            stale_after=TIMEOUT_SECONDS + 60,
        )
        if refused == "limit":
            raise PalliumError(
                "budget_exhausted",
                f"{ATTEMPTS_PER_DAY} knowledge model attempts were made in the last 24 hours (all repositories)",
                hint="wait for the rolling window to free attempts (`pallium knowledge maintain status` shows it), "
                "or build with `--no-model`",
                details={"limit": ATTEMPTS_PER_DAY, "window_hours": 24},
            )
        if refused == "busy" or attempt is None:
            raise PalliumError(
                "conflict",
                f"{CONCURRENT} knowledge model attempts are already running",
                hint="wait for them to finish, then try again",
                details={"limit": CONCURRENT},
            )
        return attempt

    def finish(self, attempt: int, result: ProviderResult) -> None:
        failure = result.failure
        self.store.finish(
            attempt,
            now=self.now(),
            outcome="ok" if failure is None else "failed",
            error_class=failure.error_class if failure else None,
            cost_usd=result.usage.cost_usd,
        )
        if failure is not None and is_pausing(failure.error_class):
            row = self.store.upkeep(self.repo)
            self.store.set_upkeep(
                self.repo,
                enabled=row.enabled if row else False,
                paused=True,
                reason=f"{failure.error_class}: {failure.message[:200]}",
                now=self.ctx.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ"),
            )


async def attempt(ledger: Ledger, request_factory: Callable[[], ProviderRequest], purpose: str) -> ProviderResult:
    """One model call under the ledger, retried once on a transient failure (each try is an attempt)."""
    from kernel.providers.dispatcher import dispatch

    result = None
    if is_rehearsal(request_factory().provider):
        return await dispatch(request_factory())  # a rehearsal: no attempt recorded, no limit applies
    for _try in range(2):
        ledger.check_not_paused()
        attempt_id = ledger.reserve(purpose)
        try:
            result = await dispatch(request_factory())
        except BaseException:
            from kernel.providers.contract import Failure, ProviderResult

            ledger.finish(attempt_id, ProviderResult("unknown", failure=Failure("crash", "the call was interrupted")))
            raise
        ledger.finish(attempt_id, result)
        if result.ok or not is_transient(result.failure.error_class if result.failure else None):
            return result
    assert result is not None
    return result
