"""A loop's life outside its ticks: starting one from a script's meta, stopping, resetting, describing.

Reading a script's meta goes through `pallium_workflow_validate`, the workflows service's front door.
"""

from __future__ import annotations

import contextlib
import functools
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from kernel import paths
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.hashing import stable_hash
from services.loops import lease
from services.loops.models import Cycle, Loop, StatusOutput
from services.loops.progress import short
from services.loops.store import CycleRow, LoopRow, LoopStore
from services.loops.verdict import budget_text

__all__ = ["LoopConfig", "change_warnings", "describe", "loop_config", "pallium_identity", "require", "to_loop"]

DEFAULT_THRESHOLD = 3
DEFAULT_STALE_MINUTES = 15.0
MAX_SCRIPT_BYTES = 1_000_000
_LOOP_KEYS = ("stagnationThreshold", "cycleBudgetUsd", "lifetimeBudgetUsd", "staleAfterMinutes", "maxCycles")


@dataclass(frozen=True)
class LoopConfig:
    threshold: int
    cycle_budget_usd: float | None
    lifetime_budget_usd: float | None
    stale_after_minutes: float
    max_cycles: int | None


def loop_config(meta: dict[str, Any] | None) -> LoopConfig:
    """The loop settings of a script's meta, or `invalid_input` saying exactly what is missing or wrong."""
    example = "export const meta = {kind: 'loop', loop: {stagnationThreshold: 3, cycleBudgetUsd: 0.5}}"
    if meta is None:
        raise _meta_error(f"the script has no meta; a loop script declares `{example}`")
    if meta.get("kind") != "loop":
        kind = "missing" if "kind" not in meta else f'{_shown(meta["kind"])}, not "loop"'
        raise _meta_error(f"meta.kind is {kind}; a loop script declares `{example}`")
    settings = meta.get("loop", {})
    if not isinstance(settings, dict):
        raise _meta_error("meta.loop must be an object")
    unknown = sorted(set(settings) - set(_LOOP_KEYS))
    if unknown:
        raise _meta_error(f"meta.loop has unknown field(s) {', '.join(unknown)}; known: {', '.join(_LOOP_KEYS)}")
    threshold = settings.get("stagnationThreshold", DEFAULT_THRESHOLD)
    if isinstance(threshold, bool) or not isinstance(threshold, int) or not 1 <= threshold <= 1000:
        raise _meta_error(
            f"meta.loop.stagnationThreshold must be a whole number from 1 to 1000, not {_shown(threshold)}"
        )
    max_cycles = settings.get("maxCycles")
    if max_cycles is not None and (isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1):
        raise _meta_error(f"meta.loop.maxCycles must be a whole number of at least 1, not {_shown(max_cycles)}")
    return LoopConfig(
        threshold=threshold,
        cycle_budget_usd=_positive(settings, "cycleBudgetUsd", None, zero_is_none=True),
        lifetime_budget_usd=_positive(settings, "lifetimeBudgetUsd", None, zero_is_none=True),
        stale_after_minutes=_positive(settings, "staleAfterMinutes", DEFAULT_STALE_MINUTES),  # type: ignore[arg-type]
        max_cycles=max_cycles,
    )


def script_location(ctx: ToolContext, user_path: str, repo: Path) -> Path:
    """A script inside the loop's repository, or among the saved workflows in $PALLIUM_HOME/workflows."""
    saved = (paths.pallium_home() / "workflows").resolve()
    candidate = Path(user_path).expanduser()
    resolved = (candidate if candidate.is_absolute() else ctx.cwd / candidate).resolve()
    if resolved == saved or saved in resolved.parents:
        return resolved
    try:
        return paths.confine(repo, user_path, base=ctx.cwd)
    except PalliumError as exc:
        raise PalliumError(exc.code, exc.message, hint=exc.hint, details={**exc.details, "field": "script"}) from None


def read_script(path: Path) -> str:
    """The script's text; `not_found` or `invalid_input` (field `script`) when it cannot serve."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise PalliumError(
            "not_found",
            f"no script at {str(path)!r}",
            details={"field": "script"},
            hint="pass `script` (CLI `--script`) as the path of a .js file; list files with `git ls-files '*.js'`",
        ) from None
    except IsADirectoryError:
        raise PalliumError(
            "invalid_input",
            f"{str(path)!r} is a folder",
            details={"field": "script"},
            hint="pass `script` (CLI `--script`) as the path of a .js file, not a folder",
        ) from None
    if len(data) > MAX_SCRIPT_BYTES:
        raise PalliumError(
            "invalid_input",
            f"script is over {MAX_SCRIPT_BYTES} bytes",
            details={"field": "script"},
            hint=f"pass a smaller `script` (CLI positional or `--script`), at most {MAX_SCRIPT_BYTES} bytes",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise PalliumError(
            "invalid_input",
            f"{str(path)!r} is not UTF-8 text",
            details={"field": "script"},
            hint="save the script as UTF-8 and pass it as `script` (CLI `--script`) again",
        ) from None


def script_hash(source: str) -> str:
    return stable_hash(source)  # the same hash `pallium workflow validate` reports


@functools.cache
def pallium_identity() -> str:
    """Pallium's version, plus the source commit when it runs from a git checkout (an editable install)."""
    from importlib.metadata import PackageNotFoundError, version

    from kernel import git

    try:
        identity = version("pallium")
    except PackageNotFoundError:
        identity = "unknown"
    source = Path(__file__).resolve().parents[2]
    if (source / ".git").exists():
        with contextlib.suppress(PalliumError):  # a checkout without git still has a version
            identity += "+g" + git.run(["rev-parse", "--short=12", "HEAD"], source).decode().strip()
    return identity


def change_warnings(row: LoopRow, *, current_hash: str | None, identity: str) -> list[str]:
    """What changed since the loop started that a tick should say before it runs."""
    warnings = []
    if current_hash is not None and current_hash != row.started_script_hash:
        warnings.append(
            f"the script changed since the loop started (hash {row.started_script_hash[:12]} -> {current_hash[:12]}); "
            "this tick ran the current file, with the budgets and threshold read at start"
        )
    if identity != row.started_version:
        warnings.append(f"Pallium changed since the loop started ({row.started_version} -> {identity})")
    return warnings


def require(store: LoopStore, name: str, *, active: bool = False) -> LoopRow:
    row = store.loop(name)
    if row is None:
        raise PalliumError(
            "not_found",
            f"no loop named {name!r}",
            hint="list loops with `pallium loop list`; start one with `pallium loop start NAME --script F`",
            details={"field": "name", "name": name},
        )
    if active and row.status != "active":
        raise PalliumError(
            "conflict",
            f"loop {name!r} is stopped",
            hint="a stopped loop does not tick; start a new loop under another name to go on",
            details={"field": "name", "name": name, "status": row.status},
        )
    return row


def to_loop(row: LoopRow) -> Loop:
    _, enforceable = budget_text(
        spend=row.lifetime_spend_usd,
        unknown_calls=row.unknown_cost_calls,
        cycle_budget=row.cycle_budget_usd,
        lifetime_budget=row.lifetime_budget_usd,
    )
    return Loop(
        name=row.name,
        script_path=row.script_path,
        cwd=row.cwd,
        task=row.task,
        args=row.args_json,
        status=row.status,  # type: ignore[arg-type]  # the store writes only active or stopped
        cycle=row.cycle,
        last_state=row.last_state,
        last_signature=row.last_signature,
        stagnation_count=row.stagnation_count,
        stagnation_threshold=row.stagnation_threshold,
        cycle_budget_usd=row.cycle_budget_usd,
        lifetime_budget_usd=row.lifetime_budget_usd,
        lifetime_spend_usd=round(row.lifetime_spend_usd, 6),
        unknown_cost_calls=row.unknown_cost_calls,
        budget_enforceable=enforceable,
        stale_after_minutes=row.stale_after_minutes,
        max_cycles=row.max_cycles,
        started_version=row.started_version,
        started_script_hash=row.started_script_hash,
        tick_in_flight=row.lease_token is not None,
        tick_started_at=row.tick_started_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def to_cycle(row: CycleRow) -> Cycle:
    return Cycle(
        cycle=row.cycle,
        state=row.state,
        run_id=row.run_id,
        signature=row.signature,
        stagnation_count=row.stagnation_count,
        cost_usd=round(row.cost_usd, 6),
        unknown_cost_calls=row.unknown_cost_calls,
        reason=row.reason,
        summary=row.summary,
        warnings=row.warnings,
        started_at=row.started_at,
        finished_at=row.finished_at,
    )


def describe(store: LoopStore, row: LoopRow, *, limit: int, now: datetime, warnings: list[str]) -> StatusOutput:
    budget, _ = budget_text(
        spend=row.lifetime_spend_usd,
        unknown_calls=row.unknown_cost_calls,
        cycle_budget=row.cycle_budget_usd,
        lifetime_budget=row.lifetime_budget_usd,
    )
    return StatusOutput(
        verdict=verdict_line(row, now),
        loop=to_loop(row),
        cycles=[to_cycle(c) for c in store.cycles(row.name, limit=limit)],
        budget=budget,
        warnings=warnings,
    )


def verdict_line(row: LoopRow, now: datetime) -> str:
    """One line a person reads first: where the loop stands and what its next tick will do."""
    head = f"loop {row.name}, cycle {row.cycle}"
    if row.status == "stopped":
        return f"STOPPED: {head}; last state {row.last_state or '-'}; ticks are refused"
    if row.lease_token is not None:
        holder = lease.holder_of(row.lease_owner, row.tick_started_at, row.stale_after_minutes)
        minutes = holder.minutes_running(now)
        if holder.alive(now):
            return f"TICKING: {head} began {minutes:.0f} min ago in pid {holder.owner_pid}"
        return f"DEAD TICK: {head}: pid {holder.owner_pid} died mid-tick; the next tick closes it and goes on"
    if row.stagnation_count >= row.stagnation_threshold and row.last_signature:
        return (
            f"STAGNATED: {head}: signature {short(row.last_signature)} for {row.stagnation_count} cycle(s); "
            f"ticks refuse to run until `pallium loop reset {row.name}`"
        )
    if row.lifetime_budget_usd is not None and row.lifetime_spend_usd >= row.lifetime_budget_usd:
        return (
            f"EXHAUSTED: {head}: spent ${row.lifetime_spend_usd:.4f} of ${row.lifetime_budget_usd:.2f}; "
            "ticks refuse to run"
        )
    if row.max_cycles is not None and row.cycle >= row.max_cycles:
        return f"EXHAUSTED: {head}: all {row.max_cycles} cycles (maxCycles) are run; ticks refuse to run"
    if row.cycle == 0:
        return f"READY: {head}: never ticked"
    return f"ACTIVE: {head}; last state {row.last_state}; the next tick runs"


def args_text(args: str | None) -> str | None:
    """Check that `args` is JSON now, so no tick fails on it later."""
    if args is None:
        return None
    try:
        json.loads(args)
    except json.JSONDecodeError as exc:
        raise PalliumError(
            "invalid_input",
            f"args is not JSON: {exc.msg} at character {exc.pos}",
            details={"field": "args"},
            hint="pass `args` (CLI `--args`) as a JSON object, such as '{\"limit\": 3}'",
        ) from None
    return args


def _positive(settings: dict[str, Any], key: str, default: float | None, *, zero_is_none: bool = False) -> float | None:
    """A positive number from the loop meta; for a budget, 0 means no limit, as in the original."""
    value = settings.get(key, default)
    if value is None or (zero_is_none and value == 0 and not isinstance(value, bool)):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        wanted = "a positive number, or 0 for no limit" if zero_is_none else "a positive number"
        raise _meta_error(f"meta.loop.{key} must be {wanted}, not {_shown(value)}")
    return float(value)


def _shown(value: Any) -> str:
    """A value from a script's meta as the script wrote it (JSON: null, true, "text"), never Python's repr."""
    return json.dumps(value, ensure_ascii=False, default=str)


def _meta_error(message: str) -> PalliumError:
    return PalliumError(
        "invalid_input", message, hint="see docs/loops.md for the loop meta", details={"field": "script"}
    )
