"""The sandboxed script engine: embedded V8 (mini-racer) behind a small interface.

A script sees only the host API installed by `prelude.js`; every host call crosses one door,
`host(op, payload)`, as JSON, and comes back as an `{ok, value}` envelope, so no Python
traceback ever reaches the script. One V8 context per run, closed when the run ends.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel.errors import PalliumError
from services.workflows.asyncwrap import track_async_functions
from services.workflows.door import host_door
from services.workflows.idle import IdleClock, created_with
from services.workflows.script import parse_script, wrap_body

__all__ = [
    "FATAL_CODES",
    "Limits",
    "ScriptFailed",
    "ScriptResult",
    "evaluate_meta",
    "run_script",
    "unawaited_failure_message",
    "unawaited_message",
]

PRELUDE = (Path(__file__).with_name("prelude.js")).read_text(encoding="utf-8")
# Host errors with these codes end the whole run, even inside parallel() or pipeline().
FATAL_CODES = frozenset({"budget_exhausted", "authority_exceeded", "conflict"})
# Host calls that only record or ask (no agent, no command): a script that returns without awaiting
# them is the common `log("done"); return x;`, so they are let finish instead of being abandoned.
_QUICK_OPS = frozenset({"log", "failure", "pallium"})
QUICK_GRACE_SECONDS = 10.0
# Once the script returned, its settled promises get turns of the microtask queue to reach their
# handlers: rounds of SETTLE_TURNS, while some promise settled in the last round (a chain of a
# thousand `.then` takes a few rounds), at most SETTLE_ROUNDS of them.
SETTLE_TURNS = 64
SETTLE_ROUNDS = 256

Host = Callable[[str, Any], Awaitable[Any]]


@dataclass(frozen=True)
class Limits:
    """Bounds on a script. `idle_seconds`: how long the script may run JavaScript (or wait on a
    promise nothing will settle) while no host call is in flight, before it counts as a runaway; time
    spent computing counts in the CPU V8's threads were given, so load does not turn a script that
    meets its memory limit into a runaway (`services/workflows/idle.py`).
    `max_host_calls` and `max_log_events` bound one attempt: a loop that keeps calling the host
    resets the idle clock each time, so it is stopped by count instead."""

    memory_bytes: int = 256 * 2**20
    idle_seconds: float = 20.0
    wall_seconds: float | None = None
    max_host_calls: int = 100_000
    max_log_events: int = 10_000


@dataclass(frozen=True)
class ScriptResult:
    """What a script returned. `abandoned`: host calls it started and never awaited, still running when it
    returned; they were cancelled (their processes killed), one `{op, what}` each. `unawaited_failures`:
    calls that failed while nothing awaited them (the script never saw the error)."""

    value: Any
    meta: dict[str, Any] | None
    host_calls: int
    abandoned: tuple[dict[str, str], ...] = ()
    # host calls that failed before the script ever looked at their promise: `{op, what, error}` each
    unawaited_failures: tuple[dict[str, str], ...] = ()


class ScriptFailed(Exception):
    """The script did not complete: `kind` is syntax, meta, thrown, runaway, memory, timeout or
    unavailable, or the code of a host refusal that ends the run (`FATAL_CODES`: budget_exhausted...)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


async def run_script(
    source: str,
    *,
    host: Host,
    args: Any = None,
    budget: Callable[[], dict[str, Any]] | None = None,
    limits: Limits = Limits(),
) -> ScriptResult:
    """Run a workflow script to completion and return what it returned."""
    parsed = parse_script(source)
    if parsed.errors:
        raise ScriptFailed("meta", "; ".join(parsed.errors))
    mini_racer = _load_engine()
    meta = await evaluate_meta(parsed.meta_source) if parsed.meta_source else None
    tracker = _Activity()

    async def bridge(request_json: str) -> str:
        # One string argument: every JS value crossing into Python costs a round trip to V8's thread.
        number = tracker.enter()
        op = "?"
        try:
            request = json.loads(request_json)
            op = request["op"]
            tracker.describe(number, op, request.get("payload"))
            if tracker.over_limit(op, limits) is not None:
                reply: dict[str, Any] = {"ok": False, "error": tracker.runaway, "fatal": True}
            else:
                reply = {"ok": True, "value": await host(op, request["payload"])}
        except PalliumError as exc:
            reply = {"ok": False, "error": exc.message, "fatal": exc.code in FATAL_CODES}
            if exc.code in FATAL_CODES:
                tracker.fatal = exc
        except Exception as exc:  # a host bug must not leak a traceback with paths into the script
            reply = {"ok": False, "error": f"internal error in {op}: {type(exc).__name__}", "fatal": True}
        finally:
            tracker.leave(number)
        if budget is not None:
            reply["budget"] = budget()
        return json.dumps(reply, default=str)

    initial_budget = budget() if budget is not None else {"total": None, "spent": 0}
    config = json.dumps(
        {"args": args, "budget_total": initial_budget["total"], "budget_spent": initial_budget["spent"]}
    )
    made, clock = created_with(mini_racer.MiniRacer)
    with made as mr:
        mr.set_hard_memory_limit(limits.memory_bytes)
        async with host_door(mr, bridge) as js_bridge:
            global_object = mr.eval("globalThis")
            global_object["__pallium_host"] = js_bridge
            global_object["__pallium_config"] = config
            unobserved = mr.eval(PRELUDE)
            try:
                script = mr.eval(track_async_functions(wrap_body(parsed.body)))
            except mini_racer.JSParseException as exc:
                raise ScriptFailed("syntax", _first_line(exc)) from None
            # Once the script returned, let chains of promises already settled run their course (a
            # rejection reaches `.then(...).finally(...)` turns later) before asking what no handler
            # observed.
            runner = mr.eval(
                "(fn, unobserved) => fn().then(async (value) => {"
                f" for (let round = 0; round < {SETTLE_ROUNDS}; round++) {{"
                "   const before = unobserved('settled');"
                f"  for (let turn = 0; turn < {SETTLE_TURNS}; turn++) await undefined;"
                "   if (unobserved('settled') === before) break; }"
                " return JSON.stringify({value: value === undefined ? null : value,"
                " unobserved: JSON.parse(unobserved())}); })"
            )
            task = asyncio.ensure_future(_drive(runner, script, unobserved))
            try:
                text = await _supervise(task, tracker, limits, mini_racer, mr, clock)
            except ScriptFailed as exc:
                raise _as_fatal(exc, tracker.fatal) from None
            finally:
                if not task.done():
                    task.cancel()
            abandoned = await tracker.settle_quick()
            # Leaving this block cancels every host call still in flight: their agents' groups are killed.
    ended = json.loads(text)
    return ScriptResult(
        value=ended["value"],
        meta=meta,
        host_calls=tracker.calls,
        abandoned=abandoned,
        unawaited_failures=tuple(ended.get("unobserved") or ()),
    )


async def evaluate_meta(literal: str) -> dict[str, Any]:
    """Evaluate a meta literal in a bare V8 context (no host API, nothing to call) and return it."""
    mini_racer = _load_engine()
    with mini_racer.MiniRacer() as mr:
        try:
            text = await asyncio.wait_for(mr.eval_cancelable(f"JSON.stringify(({literal}))"), timeout=2)
        except (mini_racer.JSEvalException, TimeoutError) as exc:
            raise ScriptFailed("meta", f"meta could not be read as a literal: {_first_line(exc)}") from None
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ScriptFailed("meta", "meta must be an object")
    return value


def unawaited_failure_message(failed: tuple[dict[str, str], ...]) -> str:
    """What a run says when calls its script never awaited failed (`ScriptResult.unawaited_failures`)."""
    shown = "; ".join(f"{f['what']}: {f['error'][:200]}" for f in failed[:3])
    more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
    return (
        f"{len(failed)} call(s) the script never awaited failed ({shown}{more}); await every call "
        "(collect several with parallel() or Promise.all) so its failure is seen"
    )


def unawaited_message(abandoned: tuple[dict[str, str], ...]) -> str:
    """What a run says when its script returned with calls still running (`ScriptResult.abandoned`)."""
    names = ", ".join(a["what"] for a in abandoned[:5])
    if len(abandoned) > 5:
        names += f" and {len(abandoned) - 5} more"
    return (
        f"the script returned while {len(abandoned)} call(s) it started were still running ({names}); "
        "they were cancelled. Await every agent() (collect several with parallel() or Promise.all)"
    )


class _Activity:
    """Counts host calls in flight (and which they are), and when the script last made progress."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.calls = 0
        self.last_change = time.monotonic()
        self.pending: dict[int, tuple[str, str, asyncio.Task | None]] = {}
        self.logs = 0
        self.runaway: str | None = None  # why the script was cut off, once it passed a cap
        self.fatal: PalliumError | None = None  # the last host refusal that ends the whole run

    def enter(self) -> int:
        self.in_flight += 1
        self.calls += 1
        self.last_change = time.monotonic()
        self.pending[self.calls] = ("?", "a host call", asyncio.current_task())
        return self.calls

    def describe(self, number: int, op: str, payload: Any) -> None:
        self.pending[number] = (op, _what(op, payload), self.pending[number][2])

    def over_limit(self, op: str, limits: Limits) -> str | None:
        """Count a call against the attempt's caps; the reason it is refused, once one is passed."""
        self.logs += op == "log"
        if self.runaway is None and self.calls > limits.max_host_calls:
            self.runaway = (
                f"the script made more than {limits.max_host_calls} host calls in this attempt, the limit: "
                "an endless loop around agent(), log() or another call? Split very large work across runs"
            )
        elif self.runaway is None and self.logs > limits.max_log_events:
            self.runaway = (
                f"the script wrote more than {limits.max_log_events} log() lines in this attempt, the limit: "
                "an endless loop? Log per batch rather than per item"
            )
        return self.runaway

    def leave(self, number: int) -> None:
        self.in_flight -= 1
        self.pending.pop(number, None)
        self.last_change = time.monotonic()

    async def settle_quick(self) -> tuple[dict[str, str], ...]:
        """After the script returned: let quick calls (logs) finish; return the others still running."""
        for _ in range(3):  # a call the script made just before returning may not have entered yet
            await asyncio.sleep(0)
        quick = [t for op, _, t in self.pending.values() if op in _QUICK_OPS and t is not None]
        if quick:
            await asyncio.wait(quick, timeout=QUICK_GRACE_SECONDS)
        return tuple({"op": op, "what": what} for op, what, _ in self.pending.values())


def _what(op: str, payload: Any) -> str:
    """A short name for a host call, for the failure that says it was never awaited."""
    payload = payload if isinstance(payload, dict) else {}
    opts = payload.get("opts") if isinstance(payload.get("opts"), dict) else {}
    if op == "agent":
        return f"agent {opts.get('label') or repr(str(payload.get('prompt', ''))[:60])}"
    if op in ("gate", "workflow"):
        return f"{op} {payload.get('name')!r}"
    if op in ("check", "verify.untilGreen"):
        return f"{op} {str(payload.get('command', ''))[:60]!r}"
    if op == "pallium":
        return f"pallium.{payload.get('helper')}()"
    return f"{op}()"


async def _drive(runner: Any, script: Any, unobserved: Any) -> str:
    # Cancelable, so the synchronous start of the script (an endless loop before any await) can be stopped.
    promise = await runner.cancelable()(script, unobserved)
    return await promise


async def _supervise(
    task: asyncio.Future, tracker: _Activity, limits: Limits, mini_racer: Any, mr: Any, clock: IdleClock
) -> str:
    started = time.monotonic()
    progress = tracker.last_change
    while True:
        done, _ = await asyncio.wait({task}, timeout=0.05)
        if done:
            return _result_of(task, mini_racer, mr)
        now = time.monotonic()
        if limits.wall_seconds is not None and now - started > limits.wall_seconds:
            raise ScriptFailed("timeout", f"the script did not finish within {limits.wall_seconds:g}s")
        if tracker.runaway is not None:
            raise ScriptFailed("runaway", tracker.runaway)
        if tracker.in_flight or tracker.last_change != progress:
            progress = tracker.last_change
            clock.reset()
            continue
        if clock.tick() > limits.idle_seconds:  # computing counts in V8's CPU time, waiting in wall time
            if mr.was_hard_memory_limit_reached():  # it met the memory limit first: that is what happened
                raise ScriptFailed("memory", "the script used more memory than its limit")
            raise ScriptFailed(
                "runaway",
                f"the script made no host call for {limits.idle_seconds:g}s and did not finish: an endless "
                "loop, or a promise that nothing will ever settle",
            )


def _result_of(task: asyncio.Future, mini_racer: Any, mr: Any) -> str:
    try:
        return task.result()
    except mini_racer.JSOOMException:
        raise ScriptFailed("memory", "the script used more memory than its limit") from None
    except mini_racer.JSPromiseError as exc:
        raise ScriptFailed("thrown", _js_error_text(exc)) from None
    except mini_racer.JSEvalException as exc:
        if mr.was_hard_memory_limit_reached():
            raise ScriptFailed("memory", "the script used more memory than its limit") from None
        raise ScriptFailed("thrown", _first_line(exc)) from None


def _as_fatal(failed: ScriptFailed, fatal: PalliumError | None) -> ScriptFailed:
    """A script that died of a host refusal that ends the run (the budget, authority) fails with that
    refusal's code, whether it let the error through or caught and rethrew it: `budget_exhausted`,
    never `thrown`."""
    if failed.kind != "thrown" or fatal is None:
        return failed
    if fatal.code != "budget_exhausted" and fatal.message not in failed.message:
        return failed  # the script caught an authority refusal, say, and failed of something else
    return ScriptFailed(fatal.code, fatal.message)


def _js_error_text(exc: Exception) -> str:
    text = str(exc)
    # mini-racer prefixes rejections with its own words; keep the script's message and location.
    for marker in ("JavaScript rejected promise with reason: ",):
        if marker in text:
            text = text.split(marker, 1)[1]
    return text.strip().splitlines()[0] if text.strip() else "the script failed"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _load_engine() -> Any:
    try:
        import py_mini_racer
    except ImportError as exc:
        raise PalliumError(
            "unavailable", "the workflow engine needs mini-racer (embedded V8)", hint="pip install mini-racer"
        ) from exc
    return py_mini_racer
