"""MCP over stdio, where a line the SDK cannot read still gets an answer.

The SDK's stdio transport hands an unreadable line (a lone surrogate escape, nesting deeper than
its parser goes, a JSON batch, which MCP no longer has) to the server as an exception, and the
client waits forever. Here each such line is answered at once with JSON-RPC's own error (-32700
for what is not JSON, -32600 for a batch or a message that is not a request), carrying the line's
id when it has a readable one, as the HTTP transport answers 400 with -32700.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["error_reply", "serve_stdio"]


async def serve_stdio(server: Any) -> None:
    """Serve `server` (the SDK's MCPServer) on this process's stdin and stdout."""
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def relay() -> None:
            async with send:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        await write_stream.send(SessionMessage(error_reply(item)))
                    else:
                        await send.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(relay)
            await lowlevel.run(receive, write_stream, lowlevel.create_initialization_options())
            group.cancel_scope.cancel()


def error_reply(exc: Exception) -> Any:
    """The JSON-RPC error answering the line `exc` failed on."""
    import mcp_types as types

    code, message, request_id = -32700, "Parse error: the line is not a JSON-RPC message this server can read", None
    raw = _raw_input(exc)
    if raw is not None:
        try:
            value = json.loads(raw) if isinstance(raw, str) else raw
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, list):
            code, message = -32600, "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them)"
        elif isinstance(value, dict):
            code, message = -32600, "Invalid Request: the message holds text that is not valid UTF-8 or is malformed"
            found = value.get("id")
            if isinstance(found, int | str) and not isinstance(found, bool) and _encodable(found):
                request_id = found
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


def _raw_input(exc: Exception) -> Any:
    errors = getattr(exc, "errors", None)
    try:
        first = errors()[0] if callable(errors) else None
    except Exception:
        return None
    value = first.get("input") if isinstance(first, dict) else None
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return value if isinstance(value, str | list | dict) else None


def _encodable(value: int | str) -> bool:
    try:
        str(value).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
