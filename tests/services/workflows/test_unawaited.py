"""What a script never awaited still counts: failures are recorded, the verdict says NOT FINISHED;
phase scopes end with their function; one call's cost past the budget fails the run."""

from pathlib import Path

import pytest

from kernel.context import ToolContext
from services.workflows.asyncwrap import track_async_functions
from services.workflows.models import RunInput, ValidateInput
from services.workflows.script import wrap_body
from services.workflows.tools import run, validate

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


async def _run(repo: Path, source: str, **extra):
    ctx = ToolContext(ceiling="edit", cwd=repo)
    try:
        return await run(RunInput(task="test", source=source, **extra), ctx)
    finally:
        ctx.close()


async def test_a_denied_gate_the_script_never_awaited_fails_the_run(git_repo, fake):
    fake.scenario(
        {"match": "ship", "reply": {"approved": False, "reason": "no tests", "evidence": []}},
        {"match": "slow", "reply": "ok", "delay": 0.3},
    )
    out = await _run(git_repo, 'gate("release", "ship it?"); await agent("slow"); return "done";', id="g-un")
    assert out.status == "failed" and out.verdict.startswith("VERDICT: NOT FINISHED")
    assert any("release" in f.error and "never awaited" in f.error for f in out.failures)


async def test_an_agent_that_failed_while_nothing_awaited_it_is_a_recorded_failure(git_repo, fake):
    fake.scenario({"match": "bad", "exit": 1, "stderr": "boom"}, {"match": "slow", "reply": "ok", "delay": 0.3})
    out = await _run(git_repo, 'const p = agent("bad"); await agent("slow"); return 1;', id="a-un")
    assert out.status == "failed" and out.verdict.startswith("VERDICT: NOT FINISHED")
    assert len(out.failures) == 1 and 'agent "bad"' in out.failures[0].error


async def test_a_failure_the_script_awaits_later_or_catches_is_its_own_business(git_repo, fake):
    fake.scenario({"match": "bad", "exit": 1, "stderr": "boom"}, {"match": "slow", "reply": "ok", "delay": 0.3})
    source = """
const p = agent("bad");
await agent("slow");
try { await p; } catch (err) { return "caught"; }
return "not reached";
"""
    out = await _run(git_repo, source, id="a-caught")
    assert out.status == "completed" and out.result == "caught" and out.failures == []


async def test_phase_scopes_made_together_do_not_leak_into_the_next_call(git_repo, fake):
    fake.scenario({"match": "", "reply": "ok", "delay": 0.05})
    source = """
phase("outer");
await parallel(["a", "b", "c"], (x, i) => phase("p-" + i, () => agent("work " + x, {label: x})));
await agent("after", {label: "after"});
return null;
"""
    out = await _run(git_repo, source, id="phases")
    assert out.status == "completed"
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    try:
        from services.workflows.runner import open_store

        events = open_store(ctx).events("phases", kind="agent")
    finally:
        ctx.close()
    phases = {e.detail["label"]: e.phase for e in events}
    assert phases == {"a": "p-0", "b": "p-1", "c": "p-2", "after": "outer"}


async def test_one_call_reporting_more_than_the_budget_fails_the_run_and_starts_nothing_after(git_repo, fake):
    fake.scenario({"match": "pricey", "reply": "ok", "usage": {"cost_usd": 5}}, {"match": "", "reply": "ok"})
    source = 'await agent("pricey"); try { await agent("next"); } catch (e) {} return "done";'
    out = await _run(git_repo, source, id="budget-5", max_budget_usd=1)
    assert out.status == "failed" and out.error.startswith("budget_exhausted")
    assert out.verdict.startswith("VERDICT: NOT FINISHED")
    assert [c["prompt"] for c in fake.calls()] == ["pricey"]


async def test_validate_warns_about_a_host_call_whose_promise_is_never_awaited(git_repo):
    source = 'export const meta = {name: "x"};\ngate("release", "ok?");\nconst p = agent("a");\nawait agent("b");\n'
    ctx = ToolContext(ceiling="observe", cwd=git_repo)
    try:
        out = await validate(ValidateInput(source=source), ctx)
    finally:
        ctx.close()
    unawaited = [w for w in out.warnings if "never awaited" in w]
    assert len(unawaited) == 2 and unawaited[0].startswith("line 2") and unawaited[1].startswith("line 3")


# A rejection no handler observed by the end of the run is a failure, however the promise was
# chained or wrapped (V8's promise-rejection tracker); one a handler saw is the script's business.
UNHANDLED = {
    "then": 'agent("bad").then((x) => log(x));',
    "finally": 'agent("bad").finally(() => null);',
    "promise_all": 'Promise.all([agent("bad"), agent("ok")]);',
    "promise_race": 'Promise.race([agent("bad")]);',
    "async_wrapper": 'async function work() { await agent("bad"); }\nwork();',
    "async_arrow": 'const work = async () => { await agent("bad"); };\nwork();',
    "async_method": 'const o = { async go() { return await agent("bad"); } };\no.go();',
    "new_promise": 'new Promise((resolve) => resolve(agent("bad")));',
    "then_then": 'agent("bad").then(() => 1).then(() => 2);',
}
HANDLED = {
    "catch": 'agent("bad").catch(() => null);',
    "then_with_handler": 'agent("bad").then(() => 1, () => 2);',
    "awaited_all": 'try { await Promise.all([agent("bad")]); } catch (e) {}',
    "async_wrapper_caught": 'async function work() { await agent("bad"); }\nawait work().catch(() => null);',
    "handled_late": 'const p = agent("bad").then((x) => x);\nawait agent("ok");\ntry { await p; } catch (e) {}',
    "allSettled": 'await Promise.allSettled([agent("bad")]);',
}


@pytest.mark.parametrize("name", sorted(UNHANDLED))
async def test_a_rejection_no_handler_observed_fails_the_run(git_repo, fake, name):
    fake.scenario({"match": "bad", "exit": 1, "stderr": "boom"}, {"match": "ok", "reply": "fine", "delay": 0.2})
    source = UNHANDLED[name] + '\nawait agent("ok");\nreturn 1;'
    out = await _run(git_repo, source, id=f"unhandled-{name.replace('_', '-')}")
    assert out.status == "failed", (name, out.error)
    assert out.ok is False and out.verdict.startswith("VERDICT: NOT FINISHED")
    assert out.failures and any("never awaited" in f.error and "boom" in f.error for f in out.failures), out.failures


@pytest.mark.parametrize("name", sorted(HANDLED))
async def test_a_rejection_a_handler_observed_is_the_scripts_business(git_repo, fake, name):
    fake.scenario({"match": "bad", "exit": 1, "stderr": "boom"}, {"match": "ok", "reply": "fine", "delay": 0.2})
    source = HANDLED[name] + '\nawait agent("ok");\nreturn 1;'
    out = await _run(git_repo, source, id=f"handled-{name.replace('_', '-')}")
    assert out.status == "completed", (name, out.error, out.failures)
    assert out.failures == [] and out.result == 1


async def test_async_functions_keep_their_lines_this_and_results(git_repo, fake):
    fake.scenario({"match": "", "reply": "fine"})
    source = """const o = {
  n: 2,
  async twice() { return this.n * 2; },
};
class K { async name() { return "k"; } }
const arrow = async (x) => x + 1;
async function
  spaced(a = 1) { return a; }
const got = [await o.twice(), await new K().name(), await arrow(1), await spaced(), await spaced(5)];
if (got.join() !== "4,k,2,1,5") throw new Error("wrong: " + got.join());
throw new Error("line check");
"""
    out = await _run(git_repo, source, id="async-lines")
    assert out.status == "failed" and out.error == "thrown: Error: line check"  # not "wrong: ..."
    wrapped = wrap_body(source)
    rewritten = track_async_functions(wrapped)
    assert rewritten != wrapped and "__pallium_async" in rewritten
    lines = wrapped.splitlines()
    assert [n for n, line in enumerate(rewritten.splitlines()) if "line check" in line or "twice" in line] == [
        n for n, line in enumerate(lines) if "line check" in line or "twice" in line
    ]


async def test_a_started_agent_the_script_left_running_counts_as_one_that_did_not_complete(git_repo, fake):
    fake.scenario({"match": "slow", "reply": "ok", "delay": 5})
    out = await _run(git_repo, 'agent("slow");\nreturn 1;', id="left-running")
    assert out.status == "failed" and out.ok is False
    assert (out.agents.total, out.agents.succeeded, out.agents.failed) == (1, 0, 1)
    assert out.verdict.endswith("0/1 agents complete")


@pytest.mark.parametrize(
    "source",
    [
        'await agent("pricey"); await agent("next"); return "done";',  # the refusal not caught
        'await agent("pricey"); try { await agent("next"); } catch (e) { throw e; } return "done";',
        'await agent("pricey"); try { await agent("next"); } catch (e) { throw new Error("mine"); }',
    ],
)
async def test_the_budget_refusal_is_budget_exhausted_however_the_script_handled_it(git_repo, fake, source):
    fake.scenario({"match": "pricey", "reply": "ok", "usage": {"cost_usd": 5}}, {"match": "", "reply": "ok"})
    out = await _run(git_repo, source, max_budget_usd=1)
    assert out.status == "failed" and out.error.startswith("budget_exhausted: "), out.error


@pytest.mark.parametrize(
    ("source", "warned"),
    [
        ('Promise.all([agent("a"), agent("b")]);', True),
        ('agent("a").then((x) => log(x));', True),
        ('agent("a").finally(() => null);', True),
        ('agent("a").catch(() => null);', False),
        ('agent("a").then((x) => x, (e) => null);', False),
        ('await Promise.all([agent("a"), agent("b")]);', False),
        ('const all = Promise.all([agent("a")]);\nawait all;', False),
        ('async function w() { await agent("a"); }\nw();', True),
        ('async function w() { await agent("a"); }\nawait w();', False),
        ('return Promise.all([agent("a")]);', False),
        ('agent("a").then(null, null);', True),
        ('Promise.allSettled([agent("a")]);', False),
        ('["x", "y"].forEach(async (x) => { await agent(x); });', True),
        ('const o = { async go() { await agent("a"); } };\no.go();', True),
        ('const p = agent("a");\np.then((x) => x);', True),
        # a rejection handler that rethrows, or returns a promise that may reject, handles nothing
        ('agent("a").catch((e) => { throw e; });', True),
        ('agent("a").catch(function (e) { log(e); if (e) { throw new Error("again"); } });', True),
        ('agent("a").catch((e) => Promise.reject(e));', True),
        ('agent("a").catch((e) => agent("retry"));', True),
        ('agent("a").then((x) => x, (e) => { throw e; });', True),
        ('agent("a").catch((e) => { try { throw e; } catch (again) { log(again); } });', False),
        ('agent("a").catch((e) => { const later = () => { throw e; }; log(later); });', False),
        ('agent("a").catch((e) => { return 1; });', False),
        # an async function wholly inside a `try` whose `catch` cannot reject never rejects
        ('async function w() { try { await agent("a"); } catch (e) { log(e); } }\nw();', False),
        ('const w = async () => { try { await agent("a"); } catch (e) {} };\nw();', False),
        ('class A { async m() { try { await agent("a"); } catch (e) {} } }\nnew A().m();', False),
        ('async function w() { try { await agent("a"); } catch (e) { throw e; } }\nw();', True),
        ('async function w() { try { await agent("a"); } finally { log("x"); } }\nw();', True),
        ('async function w() { try { return agent("a"); } catch (e) {} }\nw();', True),
        ('async function w() { const x = await agent("a"); try { log(x); } catch (e) {} }\nw();', True),
    ],
)
async def test_validate_reasons_about_unhandled_promises_as_the_run_does(git_repo, source, warned):
    ctx = ToolContext(ceiling="observe", cwd=git_repo)
    try:
        out = await validate(ValidateInput(source='export const meta = {name: "x"};\n' + source), ctx)
    finally:
        ctx.close()
    unawaited = [w for w in out.warnings if "never awaited" in w or "no rejection handler" in w]
    assert bool(unawaited) is warned, out.warnings


async def test_a_long_chain_made_just_before_returning_is_followed_to_its_end(git_repo, fake):
    """The chain starts after the failure is known and the script returns at once: its 500 links reject
    one microtask turn after another, well after the script's last line."""
    fake.scenario({"match": "bad", "exit": 1, "stderr": "boom"})
    source = (
        'const failed = agent("bad");\nawait failed.catch(() => null);\n'
        "let p = failed;\nfor (let i = 0; i < 500; i++) p = p.then((x) => x);\nreturn 1;"
    )
    out = await _run(git_repo, source, id="long-chain")
    assert out.status == "failed", out.error
    assert len(out.failures) == 1 and "boom" in out.failures[0].error
