"""One live call of a run, in four steps: begin (reserve, intent), dispatch with the corrective retry,
settle what the worker left (capture and stage an edit, hand a lent worktree back), record.

`kernel.execution.Run` inherits these; they share the run's store, lease, budget, staging and pool.
One clean-up guard in `_run_live` removes the call's worktree on any failure before `_settle` owns it.

Every git and file step of a call (its worktree, the snapshots, capture, gates, staging) runs in the
bounded pool of `kernel.threads.in_pool`, so calls overlap; the store is written only on the event
loop's thread (one SQLite connection is not shared across threads), and staging, which every edit
composes into, is held by one call at a time (`_staging_lock`).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel import git, writes
from kernel.budget import Budget, Reservation
from kernel.calls import AgentCall, AgentOutcome, Limits, finished, outcome_record, sum_usage
from kernel.crashpoints import crash_point
from kernel.errors import PalliumError
from kernel.providers.contract import Failure, ProviderRequest, ProviderResult
from kernel.providers.dispatcher import confines_read_only
from kernel.runstore import RunStore
from kernel.threads import in_pool
from kernel.worktrees import tree
from kernel.worktrees.gates import Violation, check_patch
from kernel.worktrees.pool import Lent, ReadOnlyPool
from kernel.worktrees.snapshot import WatchedTree
from kernel.worktrees.staging import Staging

if TYPE_CHECKING:
    from kernel import leases
    from kernel.scaleout.remote import RemoteCalls

__all__ = ["LiveCalls"]

# How long before an edit call starts a reading of the user's tree still counts as the tree it starts from:
# a team's eight edit turns start together just after the round read the tree, and each reading walks
# the whole repository (1,600 files on redis: a full `git add -A` on a copy of the index)
RECENT_READING = 1.0

CORRECTION = (
    "\n\nCORRECTION REQUIRED: your previous reply was not valid JSON for the schema above. Reply again with the "
    "bare JSON value only: no prose, no code fence."
)


class LiveCalls:
    """The steps of one live call; mixed into `Run`, which provides the state declared here."""

    store: RunStore
    lease: leases.Lease
    run_id: str
    repo: Path
    limits: Limits
    base_commit: str
    budget: Budget
    staging: Staging
    pool: ReadOnlyPool
    stats: dict[str, int]
    used: set[str]
    _composed: dict[str, bool]
    _groups: dict[str, tuple[int, int | None]]
    _staging_lock: asyncio.Lock
    _user_snapshot: tuple[float, asyncio.Future[Any]] | None
    _user_readings: WatchedTree
    remote: RemoteCalls | None

    def _drain_conflicts(self) -> None:
        raise NotImplementedError  # Run's

    def _seed(self, call: AgentCall, head: str) -> str | None:
        raise NotImplementedError  # Run's

    async def _dispatch(
        self,
        key: str,
        request: ProviderRequest,
        on_spawn: Callable[[int, int | None], None],
        on_session: Callable[[str], None] | None = None,
    ) -> ProviderResult:
        raise NotImplementedError  # Run's

    async def _run_live(
        self,
        call: AgentCall,
        key: str,
        seq: int,
        request: dict[str, Any],
        on_session: Callable[[str], None] | None = None,
        record: Callable[[AgentOutcome], None] | None = None,
    ) -> AgentOutcome:
        for leftover in self.store.worktrees(
            run_id=self.run_id, states=("creating", "active", "captured"), call_key=key
        ):
            await tree.remove_async(self.store, Path(leftover.path))
        entered = time.monotonic()
        seed = self._seed(call, await self._staging_head())
        read = list(self._composed)  # the edits in staging when the call is made: what it reads
        reservation = self._begin(call, key, seq, {**request, "read": read})
        self.used.add(key)
        box = _Worktree()
        user_tree: asyncio.Future[str] | None = None
        try:
            await self._worktree_for(call, key, seed, box)
            # read beside the worker, not before it: it only records what the user changes meanwhile
            # a reading begun just before the call (the one a team's round starts with, or another call's)
            # will do as the tree it starts from: the pair of readings only records what the user changed
            user_tree = (
                asyncio.ensure_future(self._user_tree(entered - RECENT_READING, running=True)) if call.is_edit else None
            )
            provider_request = self._provider_request(call, key, request["provider"], box.cwd)
            result, charges, pending = await self._dispatch_with_retry(
                call, key, provider_request, reservation, on_session
            )
            crash_point("after_provider_exit")
            outcome = await self._settle(call, key, result, box, seed, user_tree)
        except BaseException:
            if user_tree is not None and not user_tree.done():
                user_tree.cancel()  # this call's wait only: a reading others share goes on (shielded)
            if box.path is not None and not self.lease.fenced:  # after a takeover the new owner cleans up
                tree.remove(self.store, box.path)
            elif box.lent is not None and not self.lease.fenced:
                self.pool.discard(box.lent)
            raise
        if pending is not None:
            self.budget.settle(pending, charges[-1])
        self._record(key, outcome, charges, record)
        return outcome

    def _begin(self, call: AgentCall, key: str, seq: int, stored: dict[str, Any]) -> Reservation:
        """Reserve budget and write the intent row (what the call reads rides along, outside its key)."""
        reservation = self.budget.reserve(run_id=self.run_id)
        try:
            self.store.record_intent(
                self.run_id, self.lease.epoch, call_key=key, op=call.op, request=stored, seq=seq, counts_as_agent=True
            )
        except BaseException:
            self.budget.release(reservation)
            raise
        crash_point("after_intent")
        self.stats["live"] += 1
        if call.network:
            self.store.log_event(
                self.run_id,
                "network_grant",
                {"call_key": key, "label": call.label, "provider": stored["provider"]},
                epoch=self.lease.epoch,
            )
        return reservation

    async def user_tree(self) -> str:
        """The tree id of the user's working tree read now, shared with the run's calls starting after it (a
        team's round reads it to see whether the user moved, and its edit turns start from that reading)."""
        return await self._user_tree(time.monotonic())

    async def _user_tree(self, not_before: float, *, running: bool = False) -> str:
        """The tree of the user's working tree read at `not_before` or later (with `running`, one still
        being read will do: the tree as a call starts needs no reading of its own).

        Edit calls that start (or end) together share one reading instead of each walking the whole
        repository: a reading begun after the moment a caller names sees everything up to it, and
        one begun earlier is waited for and followed by one more, shared by all who waited.
        """
        while True:
            shared = self._user_snapshot
            failed = shared is not None and shared[1].done() and (shared[1].cancelled() or shared[1].exception())
            if shared is not None and not failed and (shared[0] >= not_before or (running and not shared[1].done())):
                return await asyncio.shield(shared[1])
            if shared is not None and not shared[1].done():
                await asyncio.wait({shared[1]})  # the next reading starts after this one: fewer, shared
                continue
            shared = (time.monotonic(), asyncio.ensure_future(in_pool(self._user_readings.read)))
            self._user_snapshot = shared

    async def _staging_head(self) -> str:
        """Staging's head (what an edit is seeded from), read off the event loop when git must be asked."""
        cached = self.staging.cached_head()
        if cached is not None:
            return cached
        async with self._staging_lock:
            if not self.staging.has_deferred and not self.staging.exists:
                return self.staging.head()  # nothing staged yet: the base, without git
            await self.staging.ensure_async()
            head = await in_pool(self.staging.head)
        self._drain_conflicts()
        return head

    async def _worktree_for(self, call: AgentCall, key: str, seed: str | None, box: _Worktree) -> None:
        """Give the call the tree it runs in (in `box`); none means the user's tree.

        An edit call gets a pooled worktree put at staging's head (made the first time, reused after:
        moving one touches only the files that differ). Every other call gets a pooled throwaway one
        too unless it is a read-only call, at the base, whose provider itself keeps it from writing:
        the fake and command wrappers promise nothing, and `isolation: "worktree"` asks for one. What
        such a worker writes never reaches the user. Worktrees are made when a call first needs one.
        """
        if call.is_edit:
            box.lent = await self.pool.take_async(seed or self.base_commit, walk=False)
            box.edit = True
            box.beside = await in_pool(tree.entries, box.lent.path.parent)
            return
        if seed is None and self.remote is not None:
            return  # a worker on another machine runs it in a worktree of its own cache
        confined = call.mode == "read-only" and call.isolation == "" and confines_read_only(call.provider)
        if seed is not None or not confined:
            box.lent = await self.pool.take_async(seed or self.base_commit)

    def _provider_request(self, call: AgentCall, key: str, provider: str, worktree: Path | None) -> ProviderRequest:
        return ProviderRequest(
            prompt=call.prompt,
            cwd=worktree or self.repo,
            mode=call.mode,
            provider=provider,
            model=call.model,
            schema=call.schema,
            timeout=self.limits.agent_timeout if call.timeout is None else call.timeout,
            network=call.network,
            new_session=call.new_session,
            resume_session=call.resume_session,
            session_file=call.session_file,
            run_id=self.run_id,
            agent_id=key,
            label=call.label,
        )

    async def _dispatch_with_retry(
        self,
        call: AgentCall,
        key: str,
        request: ProviderRequest,
        reservation: Reservation,
        on_session: Callable[[str], None] | None = None,
    ) -> tuple[ProviderResult, list[float | None], Reservation | None]:
        """Dispatch, plus the one corrective retry of a schema failure; return the result, each try's cost,
        and the reservation still to settle with the last try's cost."""

        def on_spawn(pgid: int, start: int | None) -> None:
            self._groups[key] = (pgid, start)
            self.store.record_spawn(self.run_id, self.lease.epoch, call_key=key, pgid=pgid, start=start)

        try:
            result = await self._dispatch(key, request, on_spawn, on_session)
        except BaseException:
            self.budget.settle(reservation, None)
            raise
        charges: list[float | None] = [result.usage.cost_usd]
        if not self._should_retry(call, result):
            return result, charges, reservation
        self.budget.settle(reservation, result.usage.cost_usd)  # the retry is another agent, reserved on its own
        result, pending = await self._correct(key, request, result, on_spawn, charges, on_session)
        return result, charges, pending

    async def _settle(
        self,
        call: AgentCall,
        key: str,
        result: ProviderResult,
        box: _Worktree,
        seed: str | None,
        user_tree: asyncio.Future[str] | None,
    ) -> AgentOutcome:
        """Decide what becomes of the worker's tree: capture and stage an edit, discard anything else."""
        done = finished(result)
        before = await user_tree if user_tree is not None else None
        outside = await self._outside_writes(key, before, box.cwd, box.beside) if call.is_edit else []
        if outside and done:
            shown = ", ".join(outside[:10]) + (f" and {len(outside) - 10} more" if len(outside) > 10 else "")
            result = replace(
                result, failure=Failure("unknown", f"the worker wrote outside its worktree: {shown}", "outside_write")
            )
        outcome = AgentOutcome(key, result, cached=False, outside_writes=outside)
        lent, box.lent = box.lent, None  # from here on this function removes it (or keeps it) itself
        if lent is None:
            return outcome
        if not box.edit:
            return await self._discard_writes(call, key, lent, outcome)
        if done:
            return await self._capture(key, lent, seed or self.base_commit, outcome)
        # a worker that crashed, timed out or was refused may have stopped half way: its edit is not kept
        lent.unwatch()
        await tree.remove_async(self.store, lent.path)
        self.store.log_event(
            self.run_id,
            "patch_discarded",
            {"call_key": key, "error_class": result.failure.error_class if result.failure else None},
            epoch=self.lease.epoch,
        )
        return _with(outcome, patch_state="discarded")

    async def _discard_writes(self, call: AgentCall, key: str, lent: Lent, outcome: AgentOutcome) -> AgentOutcome:
        """Hand a non-edit worker's worktree back; a read-only worker that changed files there fails with
        `read_only_write` (what it wrote is discarded with the worktree, never staged)."""
        changed = await self.pool.give_back_async(lent)
        if not changed:
            return outcome
        self.store.log_event(
            self.run_id, "read_only_write", {"call_key": key, "paths": changed[:100]}, epoch=self.lease.epoch
        )
        if call.mode != "read-only" or not outcome.ok:
            return outcome
        shown = ", ".join(changed[:10]) + (f" and {len(changed) - 10} more" if len(changed) > 10 else "")
        failure = Failure("unknown", f"a read-only worker changed files (discarded): {shown}", "read_only_write")
        return replace(outcome, result=replace(outcome.result, failure=failure))

    def _record(
        self,
        key: str,
        outcome: AgentOutcome,
        charges: list[float | None],
        record: Callable[[AgentOutcome], None] | None = None,
    ) -> None:
        result = outcome.result
        self.store.record_completion(
            self.run_id,
            self.lease.epoch,
            call_key=key,
            status="completed" if result.ok else "failed",
            result=outcome_record(outcome),
            cost_usd=result.usage.cost_usd,
            spent=True,
            charges=charges,
            also=None if record is None else lambda: record(outcome),
        )
        crash_point("after_completion")

    async def _capture(self, key: str, lent: Lent, base: str, outcome: AgentOutcome) -> AgentOutcome:
        try:
            patch = await in_pool(_capture, lent, base)
        except PalliumError as exc:
            lent.unwatch()
            await tree.remove_async(self.store, lent.path, keep=True)  # kept for a look, out of the pool
            self.store.log_event(
                self.run_id, "capture_failed", {"call_key": key, "error": exc.message}, epoch=self.lease.epoch
            )
            return _with(outcome, patch_state="capture_failed")
        self.pool.recycle(lent)
        if not patch.strip():
            return _with(outcome, patch_state="empty")
        gates = await in_pool(check_patch, patch, allow_secrets=self.limits.allow_secrets)
        # a worker that wrote outside its worktree is not trusted with what it wrote inside either
        gates.violations += [
            Violation("outside_write", p, "written outside the worker's worktree") for p in outcome.outside_writes
        ]
        raw = tree.run_dir(self.run_id) / "patches" / f"{_safe(key)}.patch"
        await in_pool(writes.write_bytes, raw, patch)
        if gates.overridden:
            self.store.log_event(
                self.run_id,
                "gate_override",
                {"call_key": key, "overridden": [v.__dict__ for v in gates.overridden]},
                epoch=self.lease.epoch,
            )
        violations = [v.__dict__ for v in gates.violations]
        if not gates.ok:
            self.store.put_patch(
                run_id=self.run_id,
                call_key=key,
                repo=str(self.repo),
                path=str(raw),
                state="blocked",
                epoch=self.lease.epoch,
                detail="; ".join(f"{v.kind} {v.path}" for v in gates.violations),
            )
            return _with(outcome, patch_state="blocked", patch_files=gates.files, gate_violations=violations)
        async with self._staging_lock:
            await self.staging.ensure_async()
            staged = await in_pool(self.staging.stage, key, raw, compose=False)
        self._drain_conflicts()
        if staged.ok and staged.commit is not None and staged.composed is None:
            staged = replace(staged, composed=await in_pool(self.staging.composed_patch, key, staged.commit))
        crash_point("after_stage")
        state = "staged" if staged.ok else "conflicted"
        if staged.ok and staged.composed is None:
            state = "empty"
        if state == "staged":
            self._composed[key] = True
        self.store.put_patch(
            run_id=self.run_id,
            call_key=key,
            repo=str(self.repo),
            path=str(staged.composed or raw),
            state=state,
            detail=staged.message or None,
            epoch=self.lease.epoch,
        )
        return _with(outcome, patch_state=state, patch_files=gates.files)

    async def _correct(
        self,
        key: str,
        request: ProviderRequest,
        first: ProviderResult,
        on_spawn: Callable[[int, int | None], None],
        charges: list[float | None],
        on_session: Callable[[str], None] | None = None,
    ) -> tuple[ProviderResult, Reservation | None]:
        """The one corrective retry of a read-only reply that failed its schema, reserved and counted as an agent.

        Past the budget or the agent cap the retry is skipped and the schema failure stands.
        """
        try:
            reservation = self.budget.reserve(run_id=self.run_id)
        except PalliumError as exc:
            self.store.log_event(
                self.run_id,
                "schema_retry_skipped",
                {"call_key": key, "cap": exc.details.get("cap")},
                epoch=self.lease.epoch,
            )
            return first, None
        try:
            self.store.count_agent(self.run_id, self.lease.epoch)
            self.store.log_event(
                self.run_id,
                "schema_retry",
                {"call_key": key, "error": first.failure.message if first.failure else None},
                epoch=self.lease.epoch,
            )
            retry = await self._dispatch(
                key, replace(request, prompt=request.prompt + CORRECTION), on_spawn, on_session
            )
        except BaseException:
            self.budget.settle(reservation, None)
            raise
        charges.append(retry.usage.cost_usd)
        usage = sum_usage(first.usage, retry.usage)
        return replace(retry, usage=usage, duration_ms=first.duration_ms + retry.duration_ms), reservation

    def _should_retry(self, call: AgentCall, result: ProviderResult) -> bool:
        """Read-only calls get one corrective retry for a schema failure (if the budget and cap allow one more)."""
        if result.failure is None or result.failure.error_class != "schema":
            return False
        return call.mode == "read-only" and not call.is_edit and call.schema_retry

    async def _outside_writes(
        self, key: str, user_tree: str | None, worktree: Path | None, beside: set[str]
    ) -> list[str]:
        """What an edit worker provably wrote outside its worktree: new entries beside it (`../name`).

        Files of the user's tree that changed while it ran are recorded (event `user_tree_changed`)
        but do not fail the call: the user editing meanwhile looks the same, and failing every
        agent whenever the user types would make isolation useless. Pallium's own worktree folder is
        written by nobody else, so an entry there that no worktree record explains is the worker's.
        """
        if user_tree is not None:
            # a reading still under way will do: this only records what the user changed meanwhile
            # (it fails no call), and waiting for a fresh one would queue every edit behind the last
            now = await self._user_tree(time.monotonic(), running=True)
            if now != user_tree:
                changed = await git.run_async(["diff-tree", "-r", "--name-only", "-z", user_tree, now], self.repo)
                touched = [p for p in changed.decode("utf-8", "surrogateescape").split("\0") if p]
                if touched:
                    detail = {"call_key": key, "paths": touched[:100]}
                    self.store.log_event(self.run_id, "user_tree_changed", detail, epoch=self.lease.epoch)
        paths: list[str] = []
        if worktree is not None:

            def recorded() -> set[str]:
                return {Path(row.path).name for row in self.store.worktrees(run_id=self.run_id)}

            paths += [f"../{name}" for name in await tree.unexplained(worktree.parent, beside, recorded)]
        if paths:
            self.store.log_event(
                self.run_id, "outside_write", {"call_key": key, "paths": paths[:100]}, epoch=self.lease.epoch
            )
        return paths


@dataclass
class _Worktree:
    """The tree of one live call while the call owns it: a pooled worktree (`lent`), an edit's (`edit`) or
    a throwaway one; None once handed on, or for a call run in the user's tree. `path` is a worktree
    of the call's own, only ever left by an earlier version (the clean-up guard still removes one)."""

    path: Path | None = None
    lent: Lent | None = None
    edit: bool = False
    beside: set[str] = field(default_factory=set)  # entries beside the worktree when it was lent (`_outside_writes`)

    @property
    def cwd(self) -> Path | None:
        return self.path if self.path is not None else (self.lent.path if self.lent is not None else None)


def _capture(lent: Lent, base: str) -> bytes:
    """An edit worker's patch, limited to the paths its tree's watch saw written when it has them."""
    # the watch goes on with the tree: what the capture's own `add` writes is forgotten when it is next moved
    written = lent.watch.changed() if lent.watch is not None else None
    return tree.capture(lent.path, base, written)


def _with(outcome: AgentOutcome, **changes: Any) -> AgentOutcome:
    return replace(outcome, **changes)


def _safe(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", key)
