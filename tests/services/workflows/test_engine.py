"""The sandboxed engine, driven with a host written in the test: what scripts can and cannot do."""

import asyncio
import sys

import pytest

from kernel.errors import PalliumError
from services.workflows.engine import Limits, ScriptFailed, run_script

pytestmark = pytest.mark.anyio

QUICK = Limits(idle_seconds=1, memory_bytes=64 * 2**20)


class RecordingHost:
    """Answers agent() after a delay taken from the prompt, and records every call in order."""

    def __init__(self, fail_on: str | None = None, fatal_on: str | None = None) -> None:
        self.calls: list[tuple[str, object]] = []
        self.finished: list[str] = []
        self.fail_on, self.fatal_on = fail_on, fatal_on

    async def __call__(self, op: str, payload):
        self.calls.append((op, payload))
        if op != "agent":
            return None
        prompt = payload["prompt"]
        if self.fatal_on and self.fatal_on in prompt:
            raise PalliumError("budget_exhausted", "workflow budget exhausted")
        if self.fail_on and self.fail_on in prompt:
            raise PalliumError("unavailable", f"provider failed on {prompt}")
        await asyncio.sleep(0.2 if "slow" in prompt else 0.01)
        self.finished.append(prompt)
        return {"said": prompt, "phase": payload["phase"], "label": payload["opts"].get("label")}


async def test_top_level_await_and_return_give_the_result_with_args_and_meta():
    host = RecordingHost()
    source = (
        'export const meta = {name: "demo", phases: ["scan"]};\n'
        'phase("scan");\n'
        'const a = await agent(`look at ${args.path}`, {label: "scan-1"});\n'
        "return {a, n: args.n + 1};\n"
    )
    result = await run_script(source, host=host, args={"path": "src/app.py", "n": 1}, limits=QUICK)
    assert result.value == {"a": {"said": "look at src/app.py", "phase": "scan", "label": "scan-1"}, "n": 2}
    assert result.meta == {"name": "demo", "phases": ["scan"]}
    assert result.host_calls == 1


async def test_parallel_is_a_barrier_and_a_failed_item_becomes_null_and_is_recorded():
    host = RecordingHost(fail_on="bad")
    source = 'return await parallel(["one", "bad", "three"], (item) => agent(item));'
    result = await run_script(source, host=host, limits=QUICK)
    assert [r and r["said"] for r in result.value] == ["one", None, "three"]
    failures = [payload for op, payload in host.calls if op == "failure"]
    assert failures == [
        {"primitive": "parallel", "index": 1, "stage": None, "phase": "default", "error": "provider failed on bad"}
    ]


async def test_parallel_accepts_thunks_and_plain_values():
    result = await run_script('return await parallel([() => agent("x"), 7]);', host=RecordingHost(), limits=QUICK)
    assert result.value == [{"said": "x", "phase": "default", "label": None}, 7]


async def test_pipeline_streams_items_so_a_fast_item_never_waits_for_a_slow_one():
    host = RecordingHost()
    source = (
        "return await pipeline(['slow', 'fast'],\n"
        "  (item) => agent(`stage1 ${item}`),\n"
        "  (prev, item, index) => agent(`stage2 ${item} ${index}`));\n"
    )
    result = await run_script(source, host=host, limits=QUICK)
    assert [r["said"] for r in result.value] == ["stage2 slow 0", "stage2 fast 1"]
    assert host.finished.index("stage2 fast 1") < host.finished.index("stage1 slow")


async def test_a_fatal_host_error_ends_the_run_even_inside_parallel():
    host = RecordingHost(fatal_on="costly")
    with pytest.raises(ScriptFailed) as raised:
        await run_script(
            'await parallel(["a", "costly"], (p) => agent(p)); return "unreachable";', host=host, limits=QUICK
        )
    assert raised.value.kind == "budget_exhausted"  # the refusal's own code, not `thrown`
    assert "budget exhausted" in raised.value.message


async def test_then_chains_on_host_calls_work():
    result = await run_script('return await agent("x").then((r) => r.said + "!");', host=RecordingHost(), limits=QUICK)
    assert result.value == "x!"


async def test_budget_is_visible_to_the_script():
    spent = {"value": 0.0}

    async def host(op, payload):
        spent["value"] += 0.25
        return "ok"

    source = 'const before = budget.remaining(); await agent("x"); return [budget.total, before, budget.spent()];'
    result = await run_script(source, host=host, budget=lambda: {"total": 1.0, "spent": spent["value"]}, limits=QUICK)
    assert result.value == [1.0, 1.0, 0.25]


@pytest.mark.parametrize(
    "source",
    [
        "return Date.now();",
        "return new Date();",
        "return Date();",
        "return new (new Date(0).constructor)();",
        "return Math.random();",
        "return new Intl.DateTimeFormat().format();",
        "Math.random = () => 4; return Math.random();",
        "Object.defineProperty(Math, 'random', {value: () => 4}); return Math.random();",
        "globalThis.Date = function () { return 1; }; return Date.now();",
    ],
)
async def test_nondeterminism_is_refused_and_the_guards_cannot_be_undone(source: str):
    with pytest.raises(ScriptFailed) as raised:
        await run_script(source, host=RecordingHost(), limits=QUICK)
    assert raised.value.kind == "thrown"


async def test_deterministic_dates_and_the_absence_of_timers_and_io():
    source = (
        "return [new Date(0).toISOString(), Date.UTC(2026, 0, 1), typeof setTimeout, typeof require,\n"
        "        typeof process, typeof fetch, typeof eval, typeof Temporal.Now, typeof WebAssembly];"
    )
    result = await run_script(source, host=RecordingHost(), limits=QUICK)
    assert result.value == [
        "1970-01-01T00:00:00.000Z",
        1767225600000,
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "undefined",
    ]


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("while (true) {}", "runaway"),
        ('await agent("x"); while (true) {}', "runaway"),
        ("await new Promise(() => {});", "runaway"),
        ("const a = []; while (true) a.push(new Array(1e6).fill(1));", "memory"),
        ("return 1 +", "syntax"),
        ('throw new Error("boom");', "thrown"),
        ("export const meta = {name: foo()};\nreturn 1;", "meta"),
    ],
)
async def test_bad_scripts_end_with_a_clear_failure_not_a_hang(source: str, kind: str):
    with pytest.raises(ScriptFailed) as raised:
        await asyncio.wait_for(run_script(source, host=RecordingHost(), limits=QUICK), timeout=30)
    assert raised.value.kind == kind


async def test_a_host_bug_reaches_the_script_without_a_traceback():
    async def host(op, payload):
        raise KeyError("/secret/host/path.py")

    source = 'try { await agent("x"); } catch (e) { return e.message; }'
    with pytest.raises(ScriptFailed) as raised:
        await run_script('await agent("x");', host=host, limits=QUICK)
    assert "KeyError" in raised.value.message and "/secret" not in raised.value.message
    assert (await run_script(source, host=host, limits=QUICK)).value == "internal error in agent: KeyError"


async def test_a_script_that_keeps_calling_the_host_is_stopped_at_the_host_call_cap():
    host = RecordingHost()
    source = 'while (true) { try { await agent("again"); } catch (e) {} }'
    with pytest.raises(ScriptFailed) as failed:
        await run_script(source, host=host, limits=Limits(idle_seconds=1, max_host_calls=200))
    assert failed.value.kind == "runaway" and "200 host calls" in failed.value.message
    assert len(host.calls) == 200  # calls past the cap never reach the host


async def test_a_script_that_logs_forever_is_stopped_at_the_log_cap_even_when_it_catches_errors():
    host = RecordingHost()
    source = 'while (true) { try { await log("x"); } catch (e) {} }'
    with pytest.raises(ScriptFailed) as failed:
        await run_script(source, host=host, limits=Limits(idle_seconds=1, max_log_events=100))
    assert failed.value.kind == "runaway" and "100 log()" in failed.value.message
    assert len([op for op, _ in host.calls if op == "log"]) == 100


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="V8's threads are seen through /proc on Linux")
def test_the_idle_clock_watches_the_threads_v8_started_not_wall_time_alone():
    """The memory case above ends `memory`, not `runaway`, on a loaded machine because the idle clock
    counts computing in V8's CPU time: that needs the clock to have found V8's threads."""
    import py_mini_racer

    from services.workflows.idle import _state, created_with

    made, clock = created_with(py_mini_racer.MiniRacer)
    with made as mr:
        assert clock.threads, "no thread of V8 found: the clock would count wall time only"
        assert all(_state(tid) is not None for tid in clock.threads)
        assert mr.eval("1 + 1") == 2
