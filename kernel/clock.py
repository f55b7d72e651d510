"""Time for Pallium: one clock that tests can set, and the one way times are written (UTC, `Z`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

__all__ = ["Clock", "FixedClock", "SystemClock", "default_clock", "iso_utc", "parse_iso"]


class Clock:
    """Read the current time in UTC."""

    def now(self) -> datetime:
        raise NotImplementedError


class SystemClock(Clock):
    def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass
class FixedClock(Clock):
    """A clock that stands still until a test moves it."""

    current: datetime = field(default_factory=lambda: datetime(2026, 1, 1, tzinfo=UTC))

    def now(self) -> datetime:
        return self.current

    def advance(self, **delta: float) -> None:
        self.current += timedelta(**delta)


def default_clock() -> Clock:
    """The system clock, or a fixed one when `PALLIUM_NOW` holds an ISO time (for subprocess tests)."""
    fixed = os.environ.get("PALLIUM_NOW")
    return FixedClock(parse_iso(fixed)) if fixed else SystemClock()


def iso_utc(moment: datetime) -> str:
    """Write `moment` as UTC ISO-8601 with a trailing `Z`, to the second."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
