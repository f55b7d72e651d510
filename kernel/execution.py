"""One run of agents: the lease, the journal, budgets and caps, isolation, dispatch, staging and apply.

`Run.agent(call)` is the whole life of one worker call: compute its key; return a completed call from
the journal without spawning (staging its patch again); otherwise reserve budget, write the intent
row, give an edit worker a fresh worktree seeded from staging, dispatch, capture and gate its patch
if the worker finished and stayed in its worktree, compose it in staging, and write the completion
row. Patches reach the user's tree only through `Run.apply`. Workflows, loops
and teams build on this; nothing here knows which service calls it.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kernel import git, leases, paths, writes
from kernel.budget import Budget, Reservation
from kernel.calls import AgentCall, AgentOutcome, Limits, finished, outcome_record, sum_usage
from kernel.crashpoints import crash_point
from kernel.errors import PalliumError
from kernel.hashing import stable_hash
from kernel.journal import Journal
from kernel.providers.contract import Failure, ProviderRequest, ProviderResult
from kernel.providers.dispatcher import confines_read_only, dispatch, resolve_provider
from kernel.providers.process import kill_group
from kernel.providers.schema import check_schema, schema_errors
from kernel.runstore import SCHEMA, RunStore
from kernel.store import Database, open_global
from kernel.worktrees import tree
from kernel.worktrees.apply import ApplyReport, apply_patches, revert_patches
from kernel.worktrees.gates import Violation, check_patch
from kernel.worktrees.pool import Lent, ReadOnlyPool
from kernel.worktrees.snapshot import snapshot
from kernel.worktrees.staging import Staging

__all__ = ["AgentCall", "AgentOutcome", "Limits", "Run", "collect_garbage"]

ISOLATIONS = ("", "worktree")
UNSTAGED = ("blocked", "conflicted", "empty")  # patch states that never reached staging
SUPERSEDABLE = ("staged", "conflicted", "blocked", "empty")  # states an attempt that did not make the call drops
CORRECTION = (
    "\n\nCORRECTION REQUIRED: your previous reply was not valid JSON for the schema above. Reply again with the "
    "bare JSON value only: no prose, no code fence."
)


class Run:
    """A run held by this process. Open with `await Run.open(...)`, end with `await run.close(status)`."""

    def __init__(
        self,
        store: RunStore,
        lease: leases.Lease,
        *,
        run_id: str,
        repo: Path,
        limits: Limits,
        base_commit: str,
        base_tree: str,
        budget: Budget,
        owns_db: bool,
    ) -> None:
        self.store = store
        self.lease = lease
        self.run_id = run_id
        self.repo = repo
        self.limits = limits
        self.base_commit = base_commit
        self.base_tree = base_tree
        self.budget = budget
        self.journal = Journal()
        self.staging = Staging(store, repo=repo, run_id=run_id, base_commit=base_commit)
        self.pool = ReadOnlyPool(store, repo=repo, run_id=run_id)
        self.stats = {"live": 0, "cached": 0}
        self.used: set[str] = set()  # the call keys this attempt made, live or from the journal
        self._composed: dict[str, bool] = {}  # call keys staged in this attempt, in order -> made live now
        self._slots = asyncio.Semaphore(limits.concurrency)
        self._owns_db = owns_db
        self._live: dict[asyncio.Future[ProviderResult], str] = {}  # dispatches running, and their call keys
        self._groups: dict[str, tuple[int, int | None]] = {}  # call key -> the worker's process group
        self._stopped: set[asyncio.Future[ProviderResult]] = set()  # cancelled because the run was taken over
        lease.on_fenced = self._stop_workers
        self.staging.on_deferred_conflict = self._restage_conflict

    @classmethod
    async def open(cls, run_id: str, repo: Path, limits: Limits | None = None, *, db: Database | None = None) -> Run:
        """Reconcile, take the run's lease (creating the run if new), and pin the snapshot it reads from."""
        limits = limits or Limits()
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}", run_id):
            raise PalliumError(
                "invalid_input",
                f"run id {run_id!r} must be letters, digits, '.', '_' or '-'",
                details={"field": "run_id"},
            )
        repo = paths.find_repo_root(repo)
        owns_db = db is None
        db = db or open_global([SCHEMA])
        store = RunStore(db)
        lease = None
        try:
            leases.reconcile(store)
            store.ensure_run(run_id, repo=str(repo), budget_usd=limits.budget_usd, max_agents=limits.max_agents)
            lease = leases.acquire(store, run_id, ttl=limits.lease_ttl)
            lost = store.abandon_started_calls(run_id, lease.epoch)
            if lost:
                store.log_event(run_id, "lost_attempts_charged", {"calls": lost}, epoch=lease.epoch)
            row = store.run(run_id)
            assert row is not None
            if row.base_commit is None:
                snap = snapshot(repo)
                base_commit, base_tree = store.pin_base(run_id, commit=snap.commit, tree=snap.tree)
            else:
                base_commit, base_tree = row.base_commit, row.base_tree or ""
            for stale in store.worktrees(run_id=run_id, states=("creating", "active", "captured")):
                if stale.purpose != "staging":  # an earlier attempt's worker: its call reruns from scratch
                    tree.remove(store, Path(stale.path))
            budget = Budget(
                limits.budget_usd,
                limits.max_agents,
                limits.estimate_usd,
                row.spent_usd,
                row.unknown_cost_calls,
                row.agents_started,
            )
        except BaseException:
            if lease is not None:  # give the run back rather than hold it until this process exits
                store.finish_run(run_id, lease.epoch, "interrupted")
            if owns_db:
                db.close()
            raise
        run = cls(
            store,
            lease,
            run_id=run_id,
            repo=repo,
            limits=limits,
            base_commit=base_commit,
            base_tree=base_tree,
            budget=budget,
            owns_db=owns_db,
        )
        try:
            recorded = {p.call_key for p in store.patches(run_id)}
            dropped = run.staging.restart(recorded)
            if dropped:
                store.log_event(run_id, "staging_dropped", {"call_keys": dropped}, epoch=lease.epoch)
        except BaseException:
            store.finish_run(run_id, lease.epoch, "interrupted")
            if owns_db:
                db.close()
            raise
        lease.start_heartbeat()
        return run

    def request_of(self, call: AgentCall) -> dict[str, Any]:
        """What identifies a call in the journal (see `kernel.journal`): its content and the run's pinned tree.

        The staging tree a call reads is deliberately not part of it: which edits of a `parallel` had
        landed when a call was made depends on completion order, which a resume does not repeat.
        What it read is recorded beside the request instead and checked on replay (`_from_journal`).
        """
        request = {
            "op": call.op,
            "prompt": call.prompt,
            "provider": resolve_provider(call.provider),
            "model": call.model,
            "mode": call.mode,
            "isolation": call.isolation,
            "schema": stable_hash(call.schema) if call.schema is not None else None,
            "network": call.network,
            "args": call.args_hash,
            "label": call.label,
            "tree": self.base_tree,
        }
        # only when set, so the keys of calls without a native session stay what they were
        for name in ("new_session", "resume_session"):
            if getattr(call, name):
                request[name] = getattr(call, name)
        return request

    async def agent(self, call: AgentCall) -> AgentOutcome:
        """Run one worker call, or return it from the journal; caps and budget raise `budget_exhausted`."""
        if call.isolation not in ISOLATIONS:
            raise PalliumError(
                "invalid_input",
                f"isolation must be '' or 'worktree', not {call.isolation!r}",
                details={"field": "isolation"},
            )
        if call.schema is not None:
            check_schema(call.schema)
        if self.lease.fenced:
            raise self._stale()
        request = self.request_of(call)
        key, seq = self.journal.key_for(call.op, request)
        cached = self._from_journal(key, call)
        if cached is not None:
            self.stats["cached"] += 1
            self.used.add(key)
            self._restage(key, cached)
            return cached
        async with self._slots:
            # the call that passed the budget keeps its answer (it was paid for); none starts after it
            self.check_budget()
            return await self._run_live(call, key, seq, request)

    def _stale(self) -> PalliumError:
        return PalliumError(
            "stale",
            f"run {self.run_id} was taken over by another process; this one must stop",
            details={"run_id": self.run_id},
        )

    def _stop_workers(self) -> None:
        """Kill the process groups of the calls still running and cancel them: the run has a new owner."""
        for pgid, start in list(self._groups.values()):
            kill_group(pgid, start)
        for task in list(self._live):
            self._stopped.add(task)
            task.cancel()

    async def _dispatch(
        self, key: str, request: ProviderRequest, on_spawn: Callable[[int, int | None], None]
    ) -> ProviderResult:
        """Dispatch in a task of its own, so a takeover can cancel the worker without cancelling the caller."""
        worker = asyncio.ensure_future(dispatch(request, on_spawn=on_spawn))
        self._live[worker] = key
        try:
            return await worker
        except asyncio.CancelledError:
            if worker not in self._stopped:
                raise
            raise self._stale() from None
        finally:
            self._live.pop(worker, None)
            self._stopped.discard(worker)
            self._groups.pop(key, None)

    def apply(self) -> ApplyReport:
        """Bring the staged patches of this attempt to the user's tree, all or nothing (idempotent)."""
        self.supersede()
        return apply_patches(self.store, self.run_id, self.repo, step=crash_point, epoch=self.lease.epoch)

    def revert(self) -> ApplyReport:
        return revert_patches(self.store, self.run_id, self.repo, epoch=self.lease.epoch)

    def supersede(self) -> list[str]:
        """Mark the unapplied patches of calls this attempt did not make `superseded`; return their keys.

        An earlier attempt's edit that this one made again under another key (the script changed, or
        the call failed and reran) left its patch staged beside the new one; the run verified only
        what this attempt staged, so only that may reach the user's tree. Calls made again are
        restored by `_restage`, so superseding after an attempt that stopped early loses nothing.
        """
        gone = [
            row.call_key
            for row in self.store.patches(self.run_id)
            if row.call_key not in self.used and row.state in SUPERSEDABLE
        ]
        for key in gone:
            self.store.set_patch_state(self.run_id, key, "superseded", epoch=self.lease.epoch)
        if gone:
            self.store.log_event(self.run_id, "patches_superseded", {"call_keys": gone}, epoch=self.lease.epoch)
        return gone

    async def close(self, status: str = "completed") -> None:
        """Supersede what this attempt did not make, remove staging, release the lease with `status`."""
        try:
            await self.lease.stop_heartbeat()
            if status != "interrupted" and not self.lease.fenced:
                self.supersede()
            self.pool.close()
            self.staging.remove()
            self.store.finish_run(self.run_id, self.lease.epoch, status)
        finally:
            if self._owns_db:
                self.store.db.close()

    def check_budget(self) -> None:
        """Refuse to go on once the run's known spend passed its budget (one call may report more than asked)."""
        if not self.budget.overspent:
            return
        status = self.budget.status()
        raise PalliumError(
            "budget_exhausted",
            f"run {self.run_id} spent {status['spent']} of its ${self.budget.limit_usd:.2f} budget; "
            "no further agent starts",
            hint="raise the budget (`max_budget_usd`, CLI `--max-budget-usd`) and resume the run",
            details={"run_id": self.run_id, "cap": "budget", **status},
        )

    # ------------------------------------------------------------ one live call: begin, dispatch, settle, record

    async def _run_live(self, call: AgentCall, key: str, seq: int, request: dict[str, Any]) -> AgentOutcome:
        for leftover in self.store.worktrees(run_id=self.run_id, states=("creating", "active", "captured")):
            if leftover.call_key == key:
                tree.remove(self.store, Path(leftover.path))
        seed = self._seed(call, self.staging.head())
        read = list(self._composed)  # the edits in staging when the call is made: what it reads
        reservation = self._begin(call, key, seq, {**request, "read": read})
        self.used.add(key)
        box = _Worktree()
        try:
            self._worktree_for(call, key, seed, box)
            user_tree = snapshot(self.repo).tree if call.is_edit else None
            provider_request = self._provider_request(call, key, request["provider"], box.cwd)
            result, charges, pending = await self._dispatch_with_retry(call, key, provider_request, reservation)
            crash_point("after_provider_exit")
            outcome = self._settle(call, key, result, box, seed, user_tree)
        except BaseException:
            if box.path is not None and not self.lease.fenced:  # after a takeover the new owner cleans up
                tree.remove(self.store, box.path)
            elif box.lent is not None and not self.lease.fenced:
                self.pool.discard(box.lent)
            raise
        if pending is not None:
            self.budget.settle(pending, charges[-1])
        self._record(key, outcome, charges)
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

    def _worktree_for(self, call: AgentCall, key: str, seed: str | None, box: _Worktree) -> None:
        """Give the call the tree it runs in (in `box`); none means the user's tree.

        An edit call gets a fresh worktree seeded from staging. Every other call gets a pooled
        throwaway one (`ReadOnlyPool`) unless it is a read-only call, at the base, whose provider
        itself keeps it from writing: the fake and command wrappers promise nothing, and
        `isolation: "worktree"` asks for one. What such a worker writes never reaches the user.
        """
        if call.is_edit:
            box.path = tree.create(
                self.store,
                repo=self.repo,
                run_id=self.run_id,
                name=_safe(key),
                commit=seed or self.base_commit,
                purpose="edit",
                call_key=key,
            )
            box.beside = _entries(box.path.parent)
            return
        confined = call.mode == "read-only" and call.isolation == "" and confines_read_only(call.provider)
        if seed is not None or not confined:
            box.lent = self.pool.take(seed or self.base_commit)

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
            run_id=self.run_id,
            agent_id=key,
            label=call.label,
        )

    async def _dispatch_with_retry(
        self, call: AgentCall, key: str, request: ProviderRequest, reservation: Reservation
    ) -> tuple[ProviderResult, list[float | None], Reservation | None]:
        """Dispatch, plus the one corrective retry of a schema failure; return the result, each try's cost,
        and the reservation still to settle with the last try's cost."""

        def on_spawn(pgid: int, start: int | None) -> None:
            self._groups[key] = (pgid, start)
            self.store.record_spawn(self.run_id, self.lease.epoch, call_key=key, pgid=pgid, start=start)

        try:
            result = await self._dispatch(key, request, on_spawn)
        except BaseException:
            self.budget.settle(reservation, None)
            raise
        charges: list[float | None] = [result.usage.cost_usd]
        if not self._should_retry(call, result):
            return result, charges, reservation
        self.budget.settle(reservation, result.usage.cost_usd)  # the retry is another agent, reserved on its own
        result, pending = await self._correct(key, request, result, on_spawn, charges)
        return result, charges, pending

    def _settle(
        self, call: AgentCall, key: str, result: ProviderResult, box: _Worktree, seed: str | None, user_tree: str | None
    ) -> AgentOutcome:
        """Decide what becomes of the worker's tree: capture and stage an edit, discard anything else."""
        done = finished(result)
        outside = self._outside_writes(key, user_tree, box.path, box.beside) if call.is_edit else []
        if outside and done:
            shown = ", ".join(outside[:10]) + (f" and {len(outside) - 10} more" if len(outside) > 10 else "")
            result = replace(
                result, failure=Failure("unknown", f"the worker wrote outside its worktree: {shown}", "outside_write")
            )
        outcome = AgentOutcome(key, result, cached=False, outside_writes=outside)
        if box.lent is not None:
            lent, box.lent = box.lent, None
            return self._discard_writes(call, key, lent, outcome)
        worktree, box.path = box.path, None  # from here on this function removes it (or keeps it) itself
        if worktree is None:
            return outcome
        if done:
            return self._capture(key, worktree, seed or self.base_commit, outcome)
        # a worker that crashed, timed out or was refused may have stopped half way: its edit is not kept
        tree.remove(self.store, worktree)
        self.store.log_event(
            self.run_id,
            "patch_discarded",
            {"call_key": key, "error_class": result.failure.error_class if result.failure else None},
            epoch=self.lease.epoch,
        )
        return _with(outcome, patch_state="discarded")

    def _discard_writes(self, call: AgentCall, key: str, lent: Lent, outcome: AgentOutcome) -> AgentOutcome:
        """Hand a non-edit worker's worktree back; a read-only worker that changed files there fails with
        `read_only_write` (what it wrote is discarded with the worktree, never staged)."""
        changed = self.pool.give_back(lent)
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

    def _record(self, key: str, outcome: AgentOutcome, charges: list[float | None]) -> None:
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
        )
        crash_point("after_completion")

    def _capture(self, key: str, worktree: Path, base: str, outcome: AgentOutcome) -> AgentOutcome:
        try:
            patch = tree.capture(worktree, base)
        except PalliumError as exc:
            tree.remove(self.store, worktree, keep=True)
            self.store.log_event(
                self.run_id, "capture_failed", {"call_key": key, "error": exc.message}, epoch=self.lease.epoch
            )
            return _with(outcome, patch_state="capture_failed")
        tree.remove(self.store, worktree)
        if not patch.strip():
            return _with(outcome, patch_state="empty")
        gates = check_patch(patch, allow_secrets=self.limits.allow_secrets)
        # a worker that wrote outside its worktree is not trusted with what it wrote inside either
        gates.violations += [
            Violation("outside_write", p, "written outside the worker's worktree") for p in outcome.outside_writes
        ]
        raw = tree.run_dir(self.run_id) / "patches" / f"{_safe(key)}.patch"
        writes.write_bytes(raw, patch)
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
        staged = self.staging.stage(key, raw)
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

    def _seed(self, call: AgentCall, head: str) -> str | None:
        return head if call.is_edit or head != self.base_commit else None

    def _restage(self, key: str, outcome: AgentOutcome) -> None:
        """Put a replayed call's staged patch back into staging (a no-op when it is still there).

        A resumed attempt starts with staging at the base (see `Staging.restart`), and closing the
        run or garbage collection may have removed it, while the journal remembers the call. Without
        this, checks and agents later in a resumed attempt would see a tree without the edits the
        replayed calls made. A patch an earlier close marked `superseded` (this call had not been
        made again yet) is the call's own again.
        """
        row = self.store.patch(self.run_id, key)
        if row is None:
            return
        if row.state == "superseded" and outcome.patch_state:
            self.store.set_patch_state(self.run_id, key, outcome.patch_state, epoch=self.lease.epoch)
            row = replace(row, state=outcome.patch_state)
        if row.state not in UNSTAGED and row.state != "superseded" and Path(row.path).is_file():
            self.staging.defer(key, Path(row.path))
            self._composed.setdefault(key, False)

    def _restage_conflict(self, key: str, message: str) -> None:
        self.store.log_event(
            self.run_id, "restage_conflict", {"call_key": key, "error": message}, epoch=self.lease.epoch
        )

    async def _correct(
        self,
        key: str,
        request: ProviderRequest,
        first: ProviderResult,
        on_spawn: Callable[[int, int | None], None],
        charges: list[float | None],
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
                self.run_id, "schema_retry", {"call_key": key, "error": first.failure.message}, epoch=self.lease.epoch
            )
            retry = await self._dispatch(key, replace(request, prompt=request.prompt + CORRECTION), on_spawn)
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

    def _outside_writes(self, key: str, user_tree: str | None, worktree: Path | None, beside: set[str]) -> list[str]:
        """What an edit worker provably wrote outside its worktree: new entries beside it (`../name`).

        Files of the user's tree that changed while it ran are recorded (event `user_tree_changed`)
        but do not fail the call: the user editing meanwhile looks the same, and failing every
        agent whenever the user types would make isolation useless. Pallium's own worktree folder is
        written by nobody else, so an entry there that no worktree record explains is the worker's.
        """
        if user_tree is not None:
            now = snapshot(self.repo).tree
            if now != user_tree:
                changed = git.run(["diff-tree", "-r", "--name-only", "-z", user_tree, now], self.repo)
                touched = [p for p in changed.decode("utf-8", "surrogateescape").split("\0") if p]
                if touched:
                    detail = {"call_key": key, "paths": touched[:100]}
                    self.store.log_event(self.run_id, "user_tree_changed", detail, epoch=self.lease.epoch)
        paths: list[str] = []
        if worktree is not None:
            recorded = {Path(row.path).name for row in self.store.worktrees(run_id=self.run_id)}
            paths += sorted(f"../{name}" for name in _entries(worktree.parent) - beside - recorded)
        if paths:
            self.store.log_event(
                self.run_id, "outside_write", {"call_key": key, "paths": paths[:100]}, epoch=self.lease.epoch
            )
        return paths

    def _from_journal(self, key: str, call: AgentCall) -> AgentOutcome | None:
        row = self.store.call(self.run_id, key)
        if row is None or row.status != "completed" or row.result is None:
            return None
        read = row.request.get("read")
        live = {k for k, made_now in self._composed.items() if made_now}
        if read is not None and live - set(read):
            # an edit this attempt made anew is in staging, and the recorded answer never saw it
            return None
        record = row.result
        result = ProviderResult.from_dict(record["result"])
        stale = call.schema is not None and (result.output is None or bool(schema_errors(result.output, call.schema)))
        if result.ok and stale:
            return None  # the schema changed since: the cached answer no longer fits, so run again
        return AgentOutcome(
            key,
            result,
            cached=True,
            patch_state=record.get("patch_state"),
            patch_files=record.get("patch_files", []),
            gate_violations=record.get("gate_violations", []),
            outside_writes=record.get("outside_writes", []),
        )


def collect_garbage(store: RunStore, *, include_kept: bool = False, dry_run: bool = False) -> tree.GcReport:
    """Reconcile, then remove every recorded worktree whose run is not held by a live owner."""
    leases.reconcile(store)

    def is_run_live(run_id: str) -> bool:
        row = store.run(run_id)
        return row is not None and row.status == "running" and leases.is_owner_alive(row)

    return tree.gc(store, is_run_live=is_run_live, include_kept=include_kept, dry_run=dry_run)


@dataclass
class _Worktree:
    """The tree of one live call while the call owns it: an edit's own worktree (`path`) or a pooled
    throwaway one (`lent`); both None once handed on, or for a call run in the user's tree."""

    path: Path | None = None
    lent: Lent | None = None
    beside: set[str] = field(default_factory=set)  # entries beside `path` when it was made (`_outside_writes`)

    @property
    def cwd(self) -> Path | None:
        return self.path if self.path is not None else (self.lent.path if self.lent is not None else None)


def _entries(folder: Path) -> set[str]:
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _with(outcome: AgentOutcome, **changes: Any) -> AgentOutcome:
    return replace(outcome, **changes)


def _safe(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", key)
