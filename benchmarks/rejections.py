"""`python -m benchmarks rejections`: Pallium's rejection tracker against Node's own (V8's tracker).

Each case is a script body over `agent(prompt)`, which fails for a prompt containing "bad". Node
runs it with an `agent` that rejects at once or resolves, and counts the rejections still unhandled
when everything settled (`unhandledRejection` minus `rejectionHandled`); Pallium runs it in its
engine and counts the failures it reports as never awaited. A case agrees when both say "some
failure" or both say "none". The `tuned` cases are the suite's own; the `held_out` ones were written
before either side was run on them and were not used to change the tracker.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TUNED = {
    "then": 'agent("bad").then((x) => x);',
    "finally": 'agent("bad").finally(() => null);',
    "promise_all": 'Promise.all([agent("bad"), agent("ok")]);',
    "promise_race": 'Promise.race([agent("bad")]);',
    "async_wrapper": 'async function work() { await agent("bad"); }\nwork();',
    "async_arrow": 'const work = async () => { await agent("bad"); };\nwork();',
    "async_method": 'const o = { async go() { return await agent("bad"); } };\no.go();',
    "new_promise": 'new Promise((resolve) => resolve(agent("bad")));',
    "then_then": 'agent("bad").then(() => 1).then(() => 2);',
    "catch": 'agent("bad").catch(() => null);',
    "then_with_handler": 'agent("bad").then(() => 1, () => 2);',
    "awaited_all": 'try { await Promise.all([agent("bad")]); } catch (e) {}',
    "async_wrapper_caught": 'async function work() { await agent("bad"); }\nawait work().catch(() => null);',
    "handled_late": 'const p = agent("bad").then((x) => x);\nawait agent("ok");\ntry { await p; } catch (e) {}',
    "allSettled": 'await Promise.allSettled([agent("bad")]);',
    "bare_agent": 'const p = agent("bad");\nawait agent("ok");',
}
HELD_OUT = {
    "then_null_handlers": 'agent("bad").then(null, null);',
    "catch_then_branch": 'const p = agent("bad");\np.catch(() => 1);\np.then((x) => x);',
    "promise_any": 'Promise.any([agent("bad")]);',
    "allSettled_unawaited": 'Promise.allSettled([agent("bad")]);',
    "iife_try": '(async () => { try { await agent("bad"); } catch (e) {} })();',
    "map_async": '[1, 2].map(async () => { await agent("bad"); });',
    "finally_then_catch": 'agent("bad").finally(() => null).catch(() => 1);',
    "reject_constructor": 'new Promise((_, reject) => reject(new Error("x")));',
    "reject_caught": 'Promise.reject(new Error("x")).catch(() => 1);',
    "class_method": 'class A { async m() { await agent("bad"); } }\nnew A().m();',
    "async_expression": 'const f = async function () { throw new Error("y"); };\nf();',
    "returned_and_handled": 'async function g() { return agent("bad"); }\nawait g().then(() => 1, () => 2);',
    "rethrown": 'agent("bad").then(undefined, (e) => { throw e; });',
    "late_catch": 'const p = agent("bad");\nawait agent("ok");\nawait p.catch(() => 1);',
    "throw_after_all": 'Promise.all([agent("ok")]).then(() => { throw new Error("z"); });',
    "adopted": 'agent("ok").then(() => agent("bad"));',
    "ok_only": 'agent("ok").then((x) => x);',
    "nested_async_caught": (
        'async function a() { await agent("bad"); }\nasync function b() { try { await a(); } catch (e) {} }\nb();'
    ),
}
# Written in the eighth session, before either side ran them, after `validate` learned rethrowing
# handlers and async functions wholly inside `try`: scored once, not tuned on.
HELD_OUT_2 = {
    "catch_rethrow_wrapped": 'agent("bad").catch((e) => { log(e); throw new Error("wrapped"); });',
    "catch_returns_reject": 'agent("bad").catch((e) => Promise.reject(e));',
    "catch_retry_call": 'agent("bad").catch(() => agent("bad again"));',
    "catch_conditional_swallow": 'agent("bad").catch((e) => { if (!e) throw e; });',
    "try_wrapper_arrow": 'const safe = async () => { try { await agent("bad"); } catch (e) { log(e); } };\nsafe();',
    "try_wrapper_returns": 'async function f() { try { return agent("bad"); } catch (e) { return 0; } }\nf();',
    "try_wrapper_finally": (
        'async function f() { try { await agent("bad"); } catch (e) { log(e); } finally { log("done"); } }\nf();'
    ),
    "try_wrapper_then_more": (
        'async function f() { try { await agent("bad"); } catch (e) {} await agent("bad"); }\nf();'
    ),
    "nested_handler_function": 'agent("bad").catch((e) => { const again = () => { throw e; }; return 1; });',
    "then_two_args_rethrow": 'agent("bad").then((x) => x, function (e) { throw e; });',
    "catch_async_handler": 'agent("bad").catch(async (e) => { await agent("bad"); });',
}

_NODE_HARNESS = r"""
const pending = new Set();
process.on("unhandledRejection", (reason, promise) => pending.add(promise));
process.on("rejectionHandled", (promise) => pending.delete(promise));
const FAILS = (prompt) => ALL_FAIL || String(prompt).includes("bad");
const agent = (prompt) => new Promise((resolve, reject) =>
  setTimeout(() => (FAILS(prompt) ? reject(new Error("boom")) : resolve("fine")), 5));
const log = () => undefined;
(async () => {
BODY
})().then(() => setTimeout(() => console.log(JSON.stringify({unhandled: pending.size})), 200),
          (err) => setTimeout(() => console.log(JSON.stringify({unhandled: pending.size, thrown: String(err)})), 200));
"""


def node_says(body: str, node: str, *, all_fail: bool = False) -> int | str:
    """Node's count of rejections left unhandled; with `all_fail`, every agent call fails (the worst
    case, which is what `validate`, reading the text alone, must warn about)."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch, "case.js")
        harness = f"const ALL_FAIL = {'true' if all_fail else 'false'};\n" + _NODE_HARNESS
        path.write_text(harness.replace("BODY", body), encoding="utf-8")
        done = subprocess.run([node, "--unhandled-rejections=warn", str(path)], capture_output=True, text=True)
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return answer.get("unhandled", answer.get("thrown"))


class _Host:
    async def __call__(self, op: str, payload: Any) -> Any:
        from kernel.errors import PalliumError

        if op == "agent":
            await asyncio.sleep(0.1 if payload.get("prompt") == "settle" else 0.005)
            if "bad" in str(payload.get("prompt")):
                raise PalliumError("unavailable", "boom", hint="a scripted failure of the benchmark's fake host")
            return "fine"
        return None


async def pallium_says(body: str) -> int | str:
    from services.workflows.engine import Limits, ScriptFailed, run_script

    try:
        # the run's last call outlasts the case's own: what the case started has settled when it returns
        source = body + '\nawait agent("settle");\nreturn 1;'
        result = await run_script(source, host=_Host(), limits=Limits(idle_seconds=5))
    except ScriptFailed as exc:
        return f"{exc.kind}: {exc.message}"
    return len(result.unawaited_failures)


def validate_says(body: str) -> bool:
    """Whether `workflow validate` warns that the case drops a promise (no run)."""
    from services.workflows.validate import validate_source

    found = asyncio.run(validate_source('export const meta = {name: "case"};\n' + body))
    return any("never awaited" in w for w in found.warnings)


def main(argv: list[str]) -> int:
    node = shutil.which("node")
    if node is None:
        print("node is not installed: the oracle is Node's own rejection tracker", file=sys.stderr)
        return 2
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"oracle: node {version} (V8's promise-rejection tracker)")
    for name, cases in (("tuned", TUNED), ("held_out", HELD_OUT), ("held_out_2", HELD_OUT_2)):
        agree = warned_right = 0
        for case, body in cases.items():
            theirs, ours = node_says(body, node), asyncio.run(pallium_says(body))
            same = isinstance(theirs, int) and isinstance(ours, int) and (theirs > 0) == (ours > 0)
            agree += same
            if not same:
                print(f"  DIFFER {name}/{case}: node {theirs!r}, pallium {ours!r}")
            worst, warned = node_says(body, node, all_fail=True), validate_says(body)
            right = isinstance(worst, int) and warned == (worst > 0)
            warned_right += right
            if not right:
                print(f"  VALIDATE {name}/{case}: node with every agent failing {worst!r}, validate warned {warned}")
        print(
            f"{name}: run {agree}/{len(cases)} agree with node; "
            f"validate {warned_right}/{len(cases)} agree with node when every agent fails"
        )
    return 0
