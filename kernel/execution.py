"""One run of agents: the lease, the journal, budgets and caps, isolation, dispatch, staging and apply.

`Run.agent(call)` is the whole life of one worker call: compute its key; return a completed call from
the journal without spawning (staging its patch again); otherwise reserve budget, write the intent
row, give an edit worker a fresh worktree seeded from staging, dispatch, capture and gate its patch
if the worker finished and stayed in its worktree, compose it in staging, and write the completion
row (the steps of a live call are in `kernel.live_call`). Patches reach the user's tree only through
`Run.apply`. Workflows, loops and teams build on this; nothing here knows which service calls it.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel import leases, paths, writes
from kernel.budget import Budget
from kernel.calls import AgentCall, AgentOutcome, Limits
from kernel.crashpoints import crash_point
from kernel.errors import PalliumError
from kernel.hashing import stable_hash
from kernel.journal import Journal
from kernel.live_call import LiveCalls
from kernel.providers.contract import ProviderRequest, ProviderResult
from kernel.providers.dispatcher import dispatch, resolve_provider
from kernel.providers.process import kill_group
from kernel.providers.schema import check_schema, schema_errors
from kernel.runstore import RunStore, WorktreeRow
from kernel.store import Database, open_store
from kernel.worktrees import tree
from kernel.worktrees.apply import ApplyReport, apply_patches, revert_patches
from kernel.worktrees.pool import ReadOnlyPool
from kernel.worktrees.snapshot import WatchedTree, snapshot
from kernel.worktrees.staging import Staging

if TYPE_CHECKING:
    from kernel.scaleout.remote import RemoteCalls

__all__ = ["AgentCall", "AgentOutcome", "Limits", "Rebase", "Run", "collect_garbage"]

ISOLATIONS = ("", "worktree")
UNSTAGED = ("blocked", "conflicted", "empty")  # patch states that never reached staging
SUPERSEDABLE = ("staged", "conflicted", "blocked", "empty")  # states an attempt that did not make the call drops


@dataclass(frozen=True)
class Rebase:
    """What `Run.rebase` did: whether the run moved, the snapshot it is on, the patches composed again
    onto it, and those that kept it from moving."""

    moved: bool
    base_commit: str
    restaged: list[str]
    blocked: list[str]


class Run(LiveCalls):
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
        self._staging_lock = asyncio.Lock()  # one call composes into staging at a time (its git runs in a thread)
        self._user_snapshot = None  # (begun at, future): one snapshot of the user's tree shared by calls (live_call)
        self._user_readings = WatchedTree(repo)  # what those snapshots read: no git while nobody wrote there
        self._conflicts: list[tuple[str, str]] = []  # restage conflicts met in a worker thread, logged on the loop
        self._owns_db = owns_db
        self._live: dict[asyncio.Future[ProviderResult], str] = {}  # dispatches running, and their call keys
        self._groups: dict[str, tuple[int, int | None]] = {}  # call key -> the worker's process group
        self._stopped: set[asyncio.Future[ProviderResult]] = set()  # cancelled because the run was taken over
        self._blocked: tuple[str, list[str], list[str]] | None = None  # (tree, staged keys, in the way): last rebase
        self.remote: RemoteCalls | None = None  # the shared queue, when the run's agents run on other machines
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
                hint="pass an `id` (CLI `--id`) of letters, digits, '.', '_' or '-', or leave it out to get one",
            )
        repo = paths.find_repo_root(repo)
        owns_db = db is None
        store = RunStore(db) if db is not None else open_store(RunStore)
        db = store.db
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
                pinned = store.pin_base(run_id, commit=snap.commit, tree=snap.tree)
                base_commit, base_tree = pinned.commit, pinned.tree
            else:
                base_commit, base_tree = row.base_commit, row.base_tree or ""
            adopted = []
            for stale in store.worktrees(run_id=run_id, states=("creating", "active", "captured")):
                if limits.reuse_worktrees and _reusable(stale):
                    adopted.append(stale)  # lent again, reset first: what a dead worker left there goes
                elif stale.purpose != "staging":  # an earlier attempt's worker: its call reruns from scratch
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
        for worktree in adopted:
            run.pool.adopt(Path(worktree.path), worktree.base_commit or base_commit)
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
        if limits.database:
            from kernel.scaleout.remote import RemoteCalls

            try:
                run.remote = await RemoteCalls.open(limits.database, run_id=run_id, repo=repo, remote=limits.git_remote)
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

    async def agent(
        self,
        call: AgentCall,
        *,
        on_session: Callable[[str], None] | None = None,
        record: Callable[[AgentOutcome], None] | None = None,
    ) -> AgentOutcome:
        """Run one worker call, or return it from the journal; caps and budget raise `budget_exhausted`.

        `on_session(id)` hears the native session id the worker streams as soon as it is seen (see
        `dispatcher.dispatch`); a caller that resumes sessions records it there, not after the call.

        `record(outcome)` is the caller's own record of the call, written once: in the transaction that
        completes a live call in the journal (both or neither survive a crash, and a fan-out commits
        once per call instead of twice), or at once for a call answered from the journal.
        """
        if call.isolation not in ISOLATIONS:
            raise PalliumError(
                "invalid_input",
                f"isolation must be '' or 'worktree', not {call.isolation!r}",
                details={"field": "isolation"},
                hint='pass `isolation: "worktree"` in the agent\'s options, or leave it out',
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
            if record is not None:
                record(cached)
            return cached
        async with self._slots:
            # the call that passed the budget keeps its answer (it was paid for); none starts after it
            self.check_budget()
            return await self._run_live(call, key, seq, request, on_session, record)

    def _stale(self) -> PalliumError:
        return PalliumError(
            "stale",
            f"run {self.run_id} was taken over by another process; this one must stop",
            details={"run_id": self.run_id},
            hint="another process now owns this run; follow it with `pallium workflow status <run-id>` instead",
        )

    def _stop_workers(self) -> None:
        """Kill the process groups of the calls still running and cancel them: the run has a new owner."""
        for pgid, start in list(self._groups.values()):
            kill_group(pgid, start)
        for task in list(self._live):
            self._stopped.add(task)
            task.cancel()

    async def _dispatch(
        self,
        key: str,
        request: ProviderRequest,
        on_spawn: Callable[[int, int | None], None],
        on_session: Callable[[str], None] | None = None,
    ) -> ProviderResult:
        """Dispatch in a task of its own, so a takeover can cancel the worker without cancelling the caller."""
        if self.remote is not None:
            remote = self.remote.dispatch(request, base_commit=self.base_commit, on_session=on_session)
            worker = asyncio.ensure_future(remote)
        else:
            worker = asyncio.ensure_future(dispatch(request, on_spawn=on_spawn, on_session=on_session))
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

    async def rebase(self, *, restage: bool = False) -> Rebase:
        """Move the run onto the user's tree as it is now, its unapplied staged patches composed again on top.

        A long-lived run (a team's, across many `team run`s) would otherwise keep the snapshot of its
        first start: after its patches are applied, or the user edits, its workers would edit an old
        tree and their patches would conflict. Patches already applied are part of the new snapshot;
        each `staged` one is composed again, in order, onto it. If one no longer composes (the user
        changed the lines it edits), nothing moves: the run stays on its snapshot, staging is rebuilt
        as it was, and the answer names the patches in the way. `restage` composes the staged patches
        again even when the tree did not change (a new attempt of the run starts with bare staging).

        Its git work (the snapshot, every patch composed) runs in the bounded pool; the store is read
        and written on the event loop's thread, which the run's other tasks (its lease) share.
        """
        from kernel.threads import in_pool

        snap = await in_pool(snapshot, self.repo)
        pending = [row for row in self.store.patches(self.run_id) if row.state == "staged" and Path(row.path).is_file()]
        if snap.tree == self.base_tree and not restage:
            return Rebase(False, self.base_commit, [], [])
        keys = [row.call_key for row in pending]
        if not restage and self._blocked is not None and self._blocked[:2] == (snap.tree, keys):
            return Rebase(False, self.base_commit, [], self._blocked[2])  # tried on this very tree: it still fails
        diffs = {row.call_key: await in_pool(Path(row.path).read_bytes) for row in pending}
        old_commit, old_tree = self.base_commit, self.base_tree
        moved = snap.tree != self.base_tree
        blocked = await self._compose_onto(snap.commit, snap.tree, diffs) if moved else []
        self._blocked = (snap.tree, keys, blocked) if blocked else None
        if blocked:
            await self._compose_onto(old_commit, old_tree, diffs)
            self.store.log_event(
                self.run_id, "rebase_blocked", {"base": snap.commit, "patches": blocked}, epoch=self.lease.epoch
            )
            return Rebase(False, old_commit, [], blocked)
        if not moved:
            await self._compose_onto(old_commit, old_tree, diffs)
        else:
            self.store.log_event(
                self.run_id, "rebased", {"from": old_commit, "to": snap.commit, "patches": list(diffs)},
                epoch=self.lease.epoch,
            )  # fmt: skip
        return Rebase(moved, self.base_commit, list(diffs), [])

    async def _compose_onto(self, commit: str, tree_id: str, diffs: dict[str, bytes]) -> list[str]:
        """Point the run and its staging at `commit` and stage `diffs` in order; return the keys that conflict."""
        from kernel.threads import in_pool

        self.store.repin_base(self.run_id, self.lease.epoch, commit=commit, tree=tree_id)
        self.base_commit, self.base_tree = commit, tree_id
        await self.staging.remove_async()
        self.staging.base_commit = commit
        self._composed = {}
        blocked = []
        if diffs:
            await self.staging.ensure_async()
        for key, diff in diffs.items():
            raw = tree.run_dir(self.run_id) / "patches" / f"{_safe(key)}.rebase.patch"
            await in_pool(writes.write_bytes, raw, diff)
            self.staging.forget(key)
            async with self._staging_lock:
                staged = await in_pool(self.staging.stage, key, raw)
            if not staged.ok:
                blocked.append(key)
                continue
            path = staged.composed or raw
            state = "staged" if staged.composed is not None else "empty"
            self.store.put_patch(
                run_id=self.run_id, call_key=key, repo=str(self.repo), path=str(path), state=state,
                epoch=self.lease.epoch,
            )  # fmt: skip
            self._composed[key] = False
            self.used.add(key)
        return blocked

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
            if not self.limits.reuse_worktrees:
                await self.pool.close_async()
            await self.staging.remove_async()
            self.store.finish_run(self.run_id, self.lease.epoch, status)
        finally:
            self._user_readings.close()
            if self.remote is not None:
                await self.remote.close()
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
        self._conflicts.append((key, message))
        if threading.current_thread() is threading.main_thread():
            self._drain_conflicts()

    def _drain_conflicts(self) -> None:
        """Log the restage conflicts met so far (on the thread that owns the store)."""
        while self._conflicts:
            key, message = self._conflicts.pop(0)
            self.store.log_event(
                self.run_id, "restage_conflict", {"call_key": key, "error": message}, epoch=self.lease.epoch
            )

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


def _reusable(row: WorktreeRow) -> bool:
    """A pooled worktree of an earlier attempt that is whole on disk (an `active` row whose folder is there)."""
    return (
        row.purpose in ("seeded", "edit")
        and row.state == "active"
        and Path(row.path).name.startswith("pooled-")
        and (Path(row.path) / ".git").exists()
    )


def collect_garbage(store: RunStore, *, include_kept: bool = False, dry_run: bool = False) -> tree.GcReport:
    """Reconcile, then remove every recorded worktree whose run is not held by a live owner."""
    leases.reconcile(store)

    def is_run_live(run_id: str) -> bool:
        row = store.run(run_id)
        return row is not None and row.status == "running" and leases.is_owner_alive(row)

    return tree.gc(store, is_run_live=is_run_live, include_kept=include_kept, dry_run=dry_run)


def _safe(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", key)
