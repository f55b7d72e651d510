"""Limits of the HTTP transport that uvicorn and the SDK leave open.

uvicorn waits for a request's headers as long as a client cares to dribble them: 400 half-open
sockets were held before any request reached the bearer check. `HeaderTimeoutH11` closes a
connection whose request line and headers are not complete `HEADER_SECONDS` after it opened (or
after its previous response). Abandoned MCP sessions are reaped after `session_idle_seconds()`
without a request (the SDK's default is 30 minutes; `PALLIUM_MCP_SESSION_IDLE` sets it), and at
most `MAX_CONNECTIONS` connections are served at once (the rest get 503).
"""

from __future__ import annotations

import os
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEADER_SECONDS", "MAX_CONNECTIONS", "HeaderTimeoutH11", "session_idle_seconds"]

HEADER_SECONDS = 10.0
MAX_CONNECTIONS = 256
DEFAULT_SESSION_IDLE = 600.0


def session_idle_seconds() -> float:
    try:
        value = float(os.environ.get("PALLIUM_MCP_SESSION_IDLE", DEFAULT_SESSION_IDLE))
    except ValueError:
        return DEFAULT_SESSION_IDLE
    return value if 0 < value < 86_400 else DEFAULT_SESSION_IDLE


def header_seconds() -> float:
    try:
        value = float(os.environ.get("PALLIUM_MCP_HEADER_TIMEOUT", HEADER_SECONDS))
    except ValueError:
        return HEADER_SECONDS
    return value if 0 < value <= 300 else HEADER_SECONDS


class HeaderTimeoutH11(H11Protocol):
    """uvicorn's h11 protocol, closing a connection that does not finish its headers in time."""

    _header_timer: Any = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not None and not self.cycle.response_complete:
            self._disarm()  # a request is under way: its headers are in

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection gets the same time

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(header_seconds(), self._expired)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _expired(self) -> None:
        self._header_timer = None
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()
