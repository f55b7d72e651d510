"""A queue worker: takes agent calls from the shared queue and runs each with a provider of this machine.

Each call runs in a worktree of the worker's cache (`checkout.Checkouts`) at exactly the tree the
orchestrator holds; the reply, usage, native session id and the patch of what the agent changed go
back into the queue row, fenced by the claim's token. A heartbeat extends the claim's lease; when
the heartbeat finds the claim lost (the lease expired while this worker was cut off, and another
took the call), the agent is stopped and its result is never written. The worker holds no
authority of its own: it applies nothing anywhere, and writes only inside its cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import socket
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernel.errors import PalliumError
from kernel.providers.contract import Failure, ProviderRequest, ProviderResult
from kernel.providers.dispatcher import dispatch, provider_problem
from kernel.scaleout.checkout import Checkouts
from kernel.scaleout.store import WAKE_QUEUE, Claim, QueueStore, connect
from kernel.threads import in_pool

__all__ = ["WorkerConfig", "WorkerReport", "serve"]

COLLECT_EVERY = 3600.0  # seconds between collections of the repo cache while the worker runs


@dataclass(frozen=True)
class WorkerConfig:
    url: str
    providers: tuple[str, ...]
    cache: Path
    concurrency: int = 8
    lease_ttl: float = 30.0
    max_calls: int | None = None  # stop after this many calls (tests, draining a machine)
    idle_exit: float | None = None  # stop after this many seconds with nothing to do
    cache_days: float = 14.0  # a clone of a remote no call used for this long is removed
    worker_id: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}")


@dataclass
class WorkerReport:
    worker_id: str
    providers: list[str]
    calls_run: int = 0
    results_refused: int = 0
    stopped_because: str = ""


async def serve(config: WorkerConfig) -> WorkerReport:
    """Take and run calls until `max_calls`, `idle_exit`, or cancellation (SIGINT, SIGTERM)."""
    missing = {p: why for p in config.providers if (why := provider_problem(p))}
    if missing:
        raise PalliumError(
            "unavailable",
            "providers this worker was asked to serve are not usable here: "
            + "; ".join(f"{p}: {why}" for p, why in missing.items()),
            details={"providers": sorted(missing)},
            hint="install or configure them, or leave them out of --providers",
        )
    checkouts = Checkouts(config.cache)
    checkouts.lock()  # one worker per cache: what it finds there, no other process uses
    try:
        await in_pool(checkouts.collect, config.cache_days)
        store = await asyncio.to_thread(connect, config.url)
    except BaseException:
        checkouts.close()
        raise
    worker = _Worker(config, store, checkouts)
    try:
        await asyncio.to_thread(store.forget_dead_workers)
        return await worker.run()
    finally:
        await worker.stop()
        with contextlib.suppress(Exception):
            await asyncio.to_thread(store.unregister, config.worker_id)
        store.close()
        checkouts.close()


class _Worker:
    def __init__(self, config: WorkerConfig, store: QueueStore, checkouts: Checkouts) -> None:
        self.config = config
        self.store = store
        self.checkouts = checkouts
        self.report = WorkerReport(config.worker_id, list(config.providers))
        self.running: set[asyncio.Task[None]] = set()
        self.taken = 0

    async def run(self) -> WorkerReport:
        config = self.config
        idle_since = time.monotonic()
        waiter: asyncio.Future[bool] | None = None
        alive = asyncio.create_task(self._alive())
        self.running.add(alive)  # watched with the calls: if it fails, the worker stops loudly
        while True:
            budget = config.concurrency - len(self.running) + 1  # the liveness task holds no slot
            if config.max_calls is not None:
                budget = min(budget, config.max_calls - self.taken)
            if budget > 0:
                claims = await asyncio.to_thread(
                    self.store.claim, config.worker_id, config.providers, budget, config.lease_ttl
                )
                for claim in claims:
                    self.taken += 1
                    self.running.add(asyncio.create_task(self._run(claim)))
                if claims:
                    idle_since = time.monotonic()
                    continue
            calls = self.running - {alive}
            if config.max_calls is not None and self.taken >= config.max_calls and not calls:
                self.report.stopped_because = "max_calls"
                return self.report
            if calls:
                idle_since = time.monotonic()
            elif config.idle_exit is not None and time.monotonic() - idle_since > config.idle_exit:
                self.report.stopped_because = "idle"
                return self.report
            if waiter is None or waiter.done():
                # woken by a new call, else re-read at least twice a second (expired leases send no notice)
                waiter = asyncio.ensure_future(asyncio.to_thread(self.store.wait, [WAKE_QUEUE], 0.5))
            watched: set[asyncio.Future[Any]] = {waiter, *self.running}
            await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
            for task in [t for t in self.running if t.done()]:
                self.running.discard(task)
                task.result()  # a bug in a call's handling stops the worker loudly

    async def _alive(self) -> None:
        """Keep this worker's row in the queue's list of live workers, as often as its leases are renewed."""
        config = self.config
        collected = time.monotonic()  # serve collected the cache as it started
        while True:
            await asyncio.to_thread(self.store.register, config.worker_id, config.providers, config.concurrency,
                                    config.lease_ttl)  # fmt: skip
            if time.monotonic() - collected > COLLECT_EVERY:
                await in_pool(self.checkouts.collect, config.cache_days)
                collected = time.monotonic()
            await asyncio.sleep(config.lease_ttl / 3)

    async def stop(self) -> None:
        for task in self.running:
            task.cancel()
        for task in self.running:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _run(self, claim: Claim) -> None:
        lost = asyncio.Event()
        agent: asyncio.Future[ProviderResult] | None = None
        path: Path | None = None

        async def beat() -> None:
            while True:
                await asyncio.sleep(self.config.lease_ttl / 3)
                if not await asyncio.to_thread(self.store.heartbeat, claim, self.config.lease_ttl):
                    lost.set()
                    if agent is not None:
                        agent.cancel()  # cancelling the dispatch kills the agent's process group
                    return

        heart = asyncio.create_task(beat())
        began = time.monotonic()
        timing: dict[str, float] = {}  # seconds of each step, kept with the result (benchmarks read it)
        try:
            try:
                name = re.sub(r"[^A-Za-z0-9._-]", "_", f"{claim.run_id}-{claim.call_key}-{claim.token}")[:120]
                path = await in_pool(self.checkouts.prepare, claim.remote, claim.commit, claim.overlay, name)
                timing["prepare"] = time.monotonic() - began
                agent = asyncio.ensure_future(dispatch(_request(claim, path)))
                result = await agent
                timing["agent"] = time.monotonic() - began - timing["prepare"]
                patch = await in_pool(self.checkouts.capture, path)
                timing["capture"] = time.monotonic() - began - timing["prepare"] - timing["agent"]
            except asyncio.CancelledError:
                if not lost.is_set():  # this worker is stopping: another may take the call now
                    with contextlib.suppress(Exception):
                        await asyncio.shield(asyncio.to_thread(self.store.release, claim))
                    raise
                return  # the call belongs to another worker now: its result is theirs to give
            except PalliumError as exc:
                failure = Failure("not_configured", exc.message)
                result = ProviderResult(str(claim.request.get("provider")), failure=failure)
                patch = b""
            if lost.is_set():
                return
            timing = {k: round(v, 4) for k, v in timing.items()}
            record = {"result": result.to_dict(), "worker": self.config.worker_id, "attempts": claim.attempts,
                      "timing": timing}  # fmt: skip
            accepted = await asyncio.to_thread(
                self.store.complete, claim, self.config.worker_id, record, patch, ok=result.ok
            )
            self.report.calls_run += 1
            if not accepted:
                self.report.results_refused += 1
        finally:
            heart.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heart
            if path is not None:
                self.checkouts.release(path)


def _request(claim: Claim, cwd: Path) -> ProviderRequest:
    fields: dict[str, Any] = claim.request
    return ProviderRequest(
        prompt=fields["prompt"],
        cwd=cwd,
        mode=fields.get("mode", "read-only"),
        provider=fields["provider"],
        model=fields.get("model"),
        schema=fields.get("schema"),
        timeout=fields.get("timeout"),
        network=bool(fields.get("network")),
        resume_session=fields.get("resume_session"),
        new_session=fields.get("new_session"),
        run_id=claim.run_id,
        agent_id=claim.call_key,
        label=fields.get("label", ""),
    )
