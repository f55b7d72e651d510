"""Every error is the JSON error, whatever the timing of the work a call started."""

import asyncio
import json
import threading

import pytest
from mcp import Client

from kernel import threads
from pallium_mcp.server import build_server

pytestmark = pytest.mark.anyio

ERROR_CALLS = [
    ("pallium_explain", {"path": "nope.py"}),
    ("pallium_decisions", {"query": "x", "cursor": "bogus"}),
    ("pallium_symbols", {"path": "missing/deeper.py"}),
    ("pallium_search", {"query": "main", "cursor": "zz"}),
]


async def test_800_repeated_error_calls_all_come_back_as_the_json_error(git_repo):
    """The freshness check ran on its thread after the query's error closed the database: 1 in 5 was text."""
    not_json = []
    async with Client(build_server(toolsets="all", cwd=git_repo)) as client:
        assert not (await client.call_tool("pallium_index", {})).is_error
        for number in range(800):
            name, arguments = ERROR_CALLS[number % len(ERROR_CALLS)]
            result = await client.call_tool(name, arguments)
            try:
                error = json.loads(result.content[0].text)["error"]
                assert result.is_error and error["code"] in {"not_found", "invalid_input"}
            except (ValueError, KeyError, AssertionError):
                not_json.append(result.content[0].text[:120])
    assert not_json == []


async def test_all_of_waits_for_the_slow_work_before_raising_the_fast_error():
    release = threading.Event()
    finished = []

    def slow() -> str:
        release.wait(5)
        finished.append("slow")
        return "slow"

    def fail() -> None:
        release.set()
        raise LookupError("fast")

    with pytest.raises(LookupError):
        await threads.all_of(threads.in_thread(slow), threads.in_thread(fail))
    assert finished == ["slow"]


async def test_a_cancelled_thread_call_returns_only_after_its_thread_ended():
    started, release = threading.Event(), threading.Event()
    finished = []

    def work() -> None:
        started.set()
        release.wait(5)
        finished.append(True)

    task = asyncio.ensure_future(threads.in_thread(work))
    await asyncio.to_thread(started.wait, 5)
    task.cancel()
    await asyncio.sleep(0)
    assert not task.done()  # still waiting for the thread, not returned to the caller
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert finished == [True]
