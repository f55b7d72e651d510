"""The script's door to Python (`services.workflows.door`): each call gets its own answer, exactly, through
the doorbell and through mini-racer's public wrapper alike, and nothing outlives the block."""

import asyncio
import json

import pytest
from py_mini_racer import MiniRacer

from services.workflows.door import host_door
from services.workflows.engine import Limits, run_script

pytestmark = pytest.mark.anyio

AWKWARD = [
    "plain",
    "line\nbreak",
    "\u2028\u2029 separators",
    'quote " and \\ backslash',
    "ünïcødé ✓ 🙂",
    "",
    "x" * 100_000,
]


class PublicOnly:
    """A MiniRacer as another mini-racer version might offer it: only its public methods."""

    def __init__(self, mr: MiniRacer) -> None:
        self._mr = mr

    def eval(self, code: str):
        return self._mr.eval(code)

    def wrap_py_function(self, func):
        return self._mr.wrap_py_function(func)


async def _ask_all(make, requests: list[str], answer) -> list[str]:
    """Send every request through a door at once (as parallel() does) and return what each was answered."""
    with MiniRacer() as mr:
        async with host_door(make(mr), answer) as door:
            mr.eval("globalThis").__setitem__("door", door)
            mr.eval("globalThis").__setitem__("asked", json.dumps(requests))
            promise = mr.eval("Promise.all(JSON.parse(asked).map((r) => door(r))).then((a) => JSON.stringify(a))")
            return json.loads(await promise)


@pytest.mark.parametrize("make", [lambda mr: mr, PublicOnly], ids=["doorbell", "public wrapper"])
async def test_each_call_gets_its_own_answer_exactly_whatever_order_they_finish_in(make):
    async def answer(request: str) -> str:
        number = int(request.split(":", 1)[0])
        await asyncio.sleep(0.001 * ((number * 7) % 5))  # finish out of order
        return f"{number}:{AWKWARD[number % len(AWKWARD)]}"

    requests = [f"{n}:{AWKWARD[n % len(AWKWARD)]}" for n in range(60)]
    assert await _ask_all(make, requests, answer) == requests


@pytest.mark.parametrize("make", [lambda mr: mr, PublicOnly], ids=["doorbell", "public wrapper"])
async def test_leaving_the_block_cancels_the_answers_still_running(make):
    started, cancelled = [], []

    async def answer(request: str) -> str:
        started.append(request)
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(request)
            raise
        return "never"

    with MiniRacer() as mr:
        async with host_door(make(mr), answer) as door:
            mr.eval("globalThis").__setitem__("door", door)
            mr.eval("door('a'); door('b'); 1")
            for _ in range(50):
                if len(started) == 2:
                    break
                await asyncio.sleep(0.01)
    assert sorted(started) == ["a", "b"] and sorted(cancelled) == ["a", "b"]


async def test_a_script_cannot_take_the_door_over_and_its_calls_still_answer():
    async def host(op: str, payload):
        return f"answer to {payload['prompt']}"

    source = (
        "for (const name of ['__pallium_take', '__pallium_settle']) {\n"
        "  try { globalThis[name] = () => 'hijacked'; } catch (e) {}\n"
        "  try { delete globalThis[name]; } catch (e) {}\n"
        "}\n"
        "const hidden = Object.keys(globalThis).filter((k) => k.startsWith('__pallium'));\n"
        "return {hidden, said: await parallel(['a', 'b', 'c'], (p) => agent(p))};"
    )
    result = await run_script(source, host=host, limits=Limits(idle_seconds=2))
    assert result.value == {"hidden": [], "said": ["answer to a", "answer to b", "answer to c"]}


async def test_a_script_settling_its_own_call_only_fools_itself_and_the_call_is_still_reported():
    async def host(op: str, payload):
        await asyncio.sleep(5)
        return "real"

    source = (
        "const p = agent('x');\n"
        "globalThis.__pallium_settle([[1, JSON.stringify({ok: true, value: 'made up'})]]);\n"
        "return await p;"
    )
    result = await run_script(source, host=host, limits=Limits(idle_seconds=2))
    assert result.value == "made up"
    assert result.abandoned == ({"op": "agent", "what": "agent 'x'"},)  # still running when it returned
