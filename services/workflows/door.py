"""The script's one door to Python: a JS function taking a request string and returning a promise of the
answer string.

mini-racer's public `wrap_py_function` makes such a function, but each call then costs about nine
synchronous round trips to V8's thread: the Python side unpacks the JS array `[arguments, resolve,
reject]` item by item (each item and each `length` one trip), and resolving builds an argument array
in V8 (`[]`, a push) before calling `resolve`. In a fan-out those trips were a quarter of the event
loop's time. Here the requests queue in V8 and one notification (a doorbell, rung when the queue
stops being empty) has Python take them all in one `eval`; answers that are ready together go back
in one `eval` of `__pallium_settle([[number, answer], ...])`. A `parallel()` of 64 agents is then
two trips in and a few out instead of about 600. The doorbell needs mini-racer's private
notification API; where it is missing (another version), the public wrapper is used, with the same
behaviour.

A script can see `__pallium_take` and `__pallium_settle` (it cannot change them): calling them only
loses its own pending requests or resolves them with answers it made up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

__all__ = ["host_door"]

TAKE = "__pallium_take"
SETTLE = "__pallium_settle"

_DOOR = f"""
(ring) => {{
  const waiting = new Map();
  let queued = [];
  let next = 0;
  const fixed = (name, value) =>
    Object.defineProperty(globalThis, name, {{ value, writable: false, configurable: false, enumerable: false }});
  fixed("{TAKE}", () => {{
    const taken = JSON.stringify(queued);
    queued = [];
    return taken;
  }});
  fixed("{SETTLE}", (answers) => {{
    for (const [number, answer] of answers) {{
      const call = waiting.get(number);
      if (call === undefined) continue;
      waiting.delete(number);
      call.resolve(answer);
    }}
  }});
  return (request) => {{
    next += 1;
    const call = Promise.withResolvers();
    waiting.set(next, call);
    queued.push([next, request]);
    if (queued.length === 1) ring();
    return call.promise;
  }};
}}
"""


@contextlib.asynccontextmanager
async def host_door(mr: Any, answer: Callable[[str], Awaitable[str]]) -> AsyncIterator[Any]:
    """The JS function that hands each request string to `answer` and resolves with what it returns.

    Leaving the block cancels every call still being answered (and waits for it), as mini-racer's
    own wrapper does.
    """
    ctx = getattr(mr, "_ctx", None)
    register = getattr(ctx, "_register_js_notification", None)
    if register is None:
        async with mr.wrap_py_function(answer) as door:
            yield door
        return
    loop = asyncio.get_running_loop()
    answering: set[asyncio.Task[None]] = set()
    ready: list[tuple[int, str]] = []

    def rung(handle: Any) -> None:
        del handle  # the doorbell carries nothing: every request queued so far is taken at once
        try:
            requests = json.loads(str(mr.eval(f"{TAKE}()")))
        except Exception:  # the context stopped (its memory limit): the run fails on its own
            return
        for number, request in requests:
            task = loop.create_task(reply(int(number), str(request)))
            answering.add(task)
            task.add_done_callback(answering.discard)

    async def reply(number: int, request: str) -> None:
        ready.append((number, await answer(request)))
        if len(ready) == 1:
            loop.call_soon(settle)

    def settle() -> None:
        batch = ready[:]
        ready.clear()
        # json.dumps is a JS literal here (ASCII only: U+2028 and lone surrogates escaped)
        with contextlib.suppress(Exception):  # a context already stopped: the run fails on its own
            mr.eval(f"{SETTLE}({json.dumps(batch)})")

    try:
        with register(rung) as ring:
            yield mr.eval(_DOOR)(ring)
    finally:
        for task in list(answering):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
