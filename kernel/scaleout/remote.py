"""The orchestrator's side of the queue: a run's agent calls go to workers on other machines.

`Run._dispatch` hands a call here instead of starting a local process when the run has a
database. The call is queued under the run id and its journal key (content-keyed, so an
orchestrator resumed in another home with the same run id finds the calls already done and
runs none of them again); the answer comes back from the queue row. A worker's patch is applied
to the worktree the run lent the call, so capture, gates and staging go on exactly as for a local
worker, and the user's tree is touched only by `apply`, on this machine.

The run itself is held in the database too (its run lease): a second orchestrator of the
same run, on any machine, is refused until this one's lease expires.

A call that no live worker can take (none serves its provider, or the only ones that did died)
fails after `PALLIUM_SCALEOUT_NO_WORKER_SECONDS` (default 60) with an error that says so, and is
withdrawn from the queue, instead of waiting forever; a call whose workers are alive but busy waits
its turn however long that takes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from kernel import git
from kernel.errors import PalliumError
from kernel.providers.contract import Failure, ProviderRequest, ProviderResult
from kernel.scaleout.credentials import database_url
from kernel.scaleout.store import WAKE_DONE, Done, QueueStore, connect
from kernel.threads import in_pool

__all__ = ["DEFAULT_LEASE_TTL", "DEFAULT_NO_WORKER_WAIT", "RemoteCalls", "database_url"]

DEFAULT_LEASE_TTL = 30.0
DEFAULT_NO_WORKER_WAIT = 60.0
STRANDED_EVERY = 1.0  # seconds between looks at which providers the live workers serve


def lease_ttl() -> float:
    raw = os.environ.get("PALLIUM_SCALEOUT_LEASE_TTL")
    return float(raw) if raw else DEFAULT_LEASE_TTL


def no_worker_wait() -> float:
    raw = os.environ.get("PALLIUM_SCALEOUT_NO_WORKER_SECONDS")
    return float(raw) if raw else DEFAULT_NO_WORKER_WAIT


class RemoteCalls:
    """The queue as one run's dispatcher; open with `await RemoteCalls.open(...)`."""

    def __init__(self, store: QueueStore, waker: QueueStore, *, run_id: str, repo: Path, remote: str, epoch: int,
                 ttl: float, holder: str) -> None:  # fmt: skip
        self.store = store
        self.waker = waker
        self.run_id = run_id
        self.repo = repo
        self.remote = remote
        self.epoch = epoch
        self.ttl = ttl
        self.holder = holder
        self.fenced = False
        self.queued = 0  # calls this attempt put on the queue (the rest were found done or queued already)
        self._pending: dict[str, asyncio.Future[Done]] = {}
        self._provider_of: dict[str, str] = {}  # pending call key -> its provider
        self._unserved: dict[str, float] = {}  # provider -> since when no live worker serves it (monotonic)
        self.no_worker_wait = no_worker_wait()
        self._origin: str | None = None
        self._overlays: dict[str, bytes] = {}
        self._poller: asyncio.Task[None] | None = None
        self._woken: asyncio.Future[bool] | None = None  # the listener's wait in its thread

    @classmethod
    async def open(cls, url: str, *, run_id: str, repo: Path, remote: str | None) -> RemoteCalls:
        store = await asyncio.to_thread(connect, url)
        waker = await asyncio.to_thread(connect, url)
        ttl = lease_ttl()
        holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        try:
            chosen = remote if remote else str(await in_pool(_origin_url, repo))
            # an orchestrator that died a moment ago still holds the run until its lease lapses: wait that
            # long (a live one renews its lease and keeps the run)
            deadline = time.monotonic() + ttl * 1.5
            while (epoch := await asyncio.to_thread(store.take_run, run_id, holder, ttl)) is None:
                if time.monotonic() > deadline:
                    break
                await asyncio.sleep(min(0.25, ttl / 4))
            if epoch is None:
                raise PalliumError(
                    "conflict",
                    f"run {run_id} is held by another orchestrator in the shared database",
                    details={"run_id": run_id},
                    hint=f"wait for it to finish, or for its lease to expire (about {ttl:g}s after it stopped)",
                )
        except BaseException:
            store.close()
            waker.close()
            raise
        calls = cls(store, waker, run_id=run_id, repo=repo, remote=chosen, epoch=epoch, ttl=ttl, holder=holder)
        calls._poller = asyncio.create_task(calls._poll())
        return calls

    async def dispatch(
        self, request: ProviderRequest, *, base_commit: str, on_session: Callable[[str], None] | None = None
    ) -> ProviderResult:
        """Queue the call (unless already there), wait for a worker's answer, apply its patch in the call's worktree."""
        if self.fenced:
            raise self._stale()
        key = request.agent_id
        seed = base_commit
        if request.cwd != self.repo:  # a worktree the run lent the call: it may sit on staged edits
            seed = (await git.run_async(["rev-parse", "HEAD"], request.cwd)).decode().strip()
        origin, overlay = await self._tree_of(base_commit, seed)
        fields: dict[str, Any] = {
            "prompt": request.prompt,
            "mode": request.mode,
            "provider": request.provider,
            "model": request.model,
            "schema": request.schema,
            "timeout": request.timeout,
            "network": request.network,
            "resume_session": request.resume_session,
            "new_session": request.new_session,
            "label": request.label,
        }
        future: asyncio.Future[Done] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        self._provider_of[key] = str(request.provider)
        try:
            new = await asyncio.to_thread(
                self.store.enqueue, self.run_id, key, provider=str(request.provider), request=fields,
                remote=self.remote, commit=origin, overlay=overlay,
            )  # fmt: skip
            self.queued += int(new)
            done = await future
        except asyncio.CancelledError:
            # the run stopped waiting (stopped, taken over): no worker should spend on it any more
            with contextlib.suppress(Exception):
                await asyncio.shield(asyncio.to_thread(self.store.cancel, self.run_id, key))
            raise
        finally:
            self._pending.pop(key, None)
            self._provider_of.pop(key, None)
        result = ProviderResult.from_dict(done.result["result"])
        if on_session is not None and result.session_id:
            on_session(result.session_id)
        if done.patch and request.cwd != self.repo:
            await git.run_async(["apply", "--binary", "--whitespace=nowarn", "-"], request.cwd, input=done.patch)
        elif done.patch and request.mode == "read-only" and result.ok:
            # no worktree here to hand back and check: the worker's own says what a read-only agent wrote
            changed = sorted({line[6:] for line in done.patch.decode("utf-8", "replace").splitlines()
                              if line.startswith("+++ b/")})  # fmt: skip
            shown = ", ".join(changed[:10]) + (f" and {len(changed) - 10} more" if len(changed) > 10 else "")
            failure = Failure("unknown", f"a read-only worker changed files (discarded): {shown}", "read_only_write")
            result = replace(result, failure=failure)
        return result

    async def _tree_of(self, base_commit: str, seed: str) -> tuple[str, bytes]:
        """A commit the remote has (the user's HEAD under the run's snapshot) and the diff from it to `seed`."""
        if self._origin is None:
            parent = await in_pool(git.attempt, ["rev-parse", "--verify", "--quiet", f"{base_commit}^"], self.repo)
            if parent.returncode != 0:
                raise PalliumError(
                    "unavailable",
                    "the repository has no commit yet, so workers on other machines have nothing to fetch",
                    hint="commit and push the work first, or run without --database",
                )
            self._origin = parent.stdout.decode().strip()
        if seed not in self._overlays:
            self._overlays[seed] = await git.run_async(["diff", "--binary", self._origin, seed], self.repo)
        return self._origin, self._overlays[seed]

    async def _poll(self) -> None:
        """Resolve waiting calls as their rows are done (woken by NOTIFY, else re-read); keep the run's lease."""
        beat_at = time.monotonic() + self.ttl / 3
        stranded_at = time.monotonic() + STRANDED_EVERY
        while True:
            # short waits: a notice wakes it at once, and closing never waits long for the thread to return
            self._woken = asyncio.ensure_future(asyncio.to_thread(self.waker.wait, [WAKE_DONE], 0.25))
            with contextlib.suppress(Exception):
                await asyncio.shield(self._woken)
            if self._pending:
                for done in await asyncio.to_thread(self.store.results, self.run_id, list(self._pending)):
                    future = self._pending.get(done.call_key)
                    if future is not None and not future.done():
                        future.set_result(done)
            if time.monotonic() >= stranded_at:
                stranded_at = time.monotonic() + STRANDED_EVERY
                await self._fail_stranded()
            if time.monotonic() >= beat_at:
                beat_at = time.monotonic() + self.ttl / 3
                if not await asyncio.to_thread(self.store.beat_run, self.run_id, self.epoch, self.ttl):
                    self.fenced = True
                    for future in self._pending.values():
                        if not future.done():
                            future.set_exception(self._stale())
                    return

    async def _fail_stranded(self) -> None:
        """Fail the waiting calls of providers no live worker has served for `no_worker_wait` seconds."""
        wanted = set(self._provider_of.values())
        if not wanted:
            self._unserved.clear()
            return
        served = await asyncio.to_thread(self.store.live_providers)
        now = time.monotonic()
        for provider in list(self._unserved):
            if provider in served or provider not in wanted:
                del self._unserved[provider]
        for provider in wanted - set(served):
            self._unserved.setdefault(provider, now)
        for provider, since in list(self._unserved.items()):
            if now - since < self.no_worker_wait:
                continue
            keys = [k for k, p in self._provider_of.items() if p == provider]
            shown = ", ".join(f"{p} ({n})" for p, n in sorted(served.items())) or "none"
            message = (
                f"no live worker serves provider {provider!r}: none has been seen for {self.no_worker_wait:g}s "
                f"(live workers serve: {shown}); start `pallium worker --providers {provider}` on a machine "
                "that has it, then resume the run"
            )
            failed = ProviderResult(provider, failure=Failure("not_configured", message, "no_live_worker"))
            for key in await asyncio.to_thread(self.store.withdraw, self.run_id, keys):
                future = self._pending.get(key)
                if future is not None and not future.done():
                    future.set_result(Done(key, {"result": failed.to_dict()}, b"", 0, None))

    def _stale(self) -> PalliumError:
        return PalliumError(
            "stale",
            f"run {self.run_id} was taken over by another orchestrator through the shared database",
            details={"run_id": self.run_id},
            hint="another machine owns this run now; this one must stop",
        )

    async def close(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
        if self._woken is not None and not self._woken.done():
            # the listener's thread is blocked in its wait: wake it, so closing (and exiting) does not wait it out
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self.store.wake, WAKE_DONE, self.run_id)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._woken), 2.0)
        with contextlib.suppress(Exception):
            if not self.fenced:
                await asyncio.to_thread(self.store.release_run, self.run_id, self.epoch)
        self.store.close()
        self.waker.close()


def _origin_url(repo: Path) -> str:
    found = git.attempt(["remote", "get-url", "origin"], repo)
    if found.returncode != 0:
        raise PalliumError(
            "unavailable",
            "the repository has no remote `origin` for workers to fetch from",
            hint="add one (`git remote add origin URL`) or pass --git-remote URL",
        )
    url = found.stdout.decode().strip()
    if "://" not in url and ":" not in url.split("/")[0] and Path(url).is_absolute() is False:
        url = str((repo / url).resolve())  # a relative path remote: workers need it absolute
    return url
