"""Blocking work off the event loop, never outliving the call that started it.

`asyncio.to_thread` returns to a cancelled caller at once while its thread runs on, and
`asyncio.gather` raises the first error while the other awaitables still run: either way the
call's error path closes its databases under a thread still using them (apsw then raises
"Connection is busy in another thread", which no caller can read as JSON). These two wait for
every thread they started before they return or raise.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import os
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["all_of", "in_pool", "in_thread"]

T = TypeVar("T")

_POOL: concurrent.futures.ThreadPoolExecutor | None = None


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    """The bounded pool for a run's git and file work: enough threads that calls overlap (each mostly waits
    on a `git` child process), few enough that a fan-out of hundreds does not start hundreds of gits."""
    global _POOL
    if _POOL is None:
        size = int(os.environ.get("PALLIUM_GIT_THREADS") or 0) or min(32, 16 * (os.cpu_count() or 1))
        _POOL = concurrent.futures.ThreadPoolExecutor(max_workers=size, thread_name_prefix="pallium-git")
    return _POOL


async def in_pool(function: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run `function` in the bounded git pool; like `in_thread`, a cancelled caller waits for it to end."""
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(_pool(), functools.partial(function, *args, **kwargs))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        while not future.done():
            try:
                await asyncio.wait({future})
            except asyncio.CancelledError:
                continue
        if not future.cancelled():
            future.exception()
        raise


async def in_thread(function: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run `function` in a worker thread; on cancellation, wait for the thread to end, then re-raise."""
    future = asyncio.ensure_future(asyncio.to_thread(function, *args, **kwargs))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        while not future.done():
            try:
                await asyncio.wait({future})
            except asyncio.CancelledError:
                continue  # cancelled again while waiting: the thread still has to end first
        if not future.cancelled():
            future.exception()  # retrieved, so an error of the abandoned work is not logged as unhandled
        raise


async def all_of(*awaitables: Awaitable[Any]) -> list[Any]:
    """Like `asyncio.gather`, but every awaitable finishes before the first error is raised."""
    results = await asyncio.gather(*awaitables, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return list(results)
