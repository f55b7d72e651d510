"""The MCP adapter: every registered tool served over stdio or streamable HTTP.

Each tool is published with the JSON schema of its input model as its flat arguments, the
schema of its output model as its output schema, and its annotations. A call goes through
`kernel.dispatch`, the same path as the CLI, so authority and validation are identical; a
`PalliumError` comes back as an `isError` result whose text is the JSON error.
"""

from __future__ import annotations

import argparse
import functools
import hmac
import ipaddress
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel import authority, dispatch
from kernel.authority import Authority
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.progress import Progress
from kernel.tool import Tool

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["build_server", "main"]

SERVER_NAME = "pallium"


def instructions(served: list[Tool]) -> str:
    """The server's instructions, made from the tools it serves (`kernel.guidance`, one source with AGENTS.md)."""
    from kernel.guidance import server_instructions

    return server_instructions({t.name for t in served})


def build_server(
    *,
    toolsets: str = "default",
    ceiling: Authority = "edit",
    cwd: Path | None = None,
    tools: list[Tool] | None = None,
) -> Any:
    """Create the MCP server for the tools in `toolsets`, refusing calls above `ceiling`.

    `tools` replaces the registry's tools, for embedding Pallium's adapter around other tools.
    """
    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolResult, TextContent, ToolAnnotations
    from mcp.types import Tool as MCPTool

    from pallium_mcp.registry import all_tools, select_toolsets

    known = all_tools() if tools is None else tools
    served = select_toolsets(known, toolsets)
    dispatch.register(served)
    listed_tools = [t for t in served if authority.allows(ceiling, t.authority)]

    class PalliumServer(MCPServer):
        """MCPServer whose tools come from Pallium's registry instead of decorated functions."""

        def __init__(self) -> None:
            from importlib.metadata import version

            super().__init__(
                SERVER_NAME, version=version("pallium"), instructions=instructions(listed_tools), log_level="WARNING"
            )
            self.ceiling = ceiling
            self.cwd = cwd or Path.cwd()
            self.served: dict[str, Tool] = {t.name: t for t in served}
            listed = [t for t in served if authority.allows(ceiling, t.authority)]
            toolset_of = {t.name: t.toolset for t in known}
            shown = {t.name for t in listed}
            self._listed = [_describe(t, MCPTool, ToolAnnotations, toolset_of, shown) for t in listed]
            _install_input_schema_lookup(self, self._input_schema)

        async def list_tools(self) -> list[MCPTool]:
            return list(self._listed)

        def _input_schema(self, name: str) -> dict[str, Any] | None:
            tool = self.served.get(name)
            return None if tool is None else published_input_schema(tool.input)

        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:
            progress = _McpProgress(context) if context is not None else Progress()
            ctx = ToolContext(ceiling=self.ceiling, cwd=self.cwd, progress=progress, origin="mcp")
            try:
                if name not in self.served:
                    dispatch.find(name)  # unknown names get not_found with the closest match
                    raise PalliumError(
                        "not_found",
                        f"tool {name!r} is not served by this server",
                        hint="tools/list lists what is served; serve it with --toolsets all (or the tool's toolset)",
                        details={"tool": name},
                    )
                out = await dispatch.call(name, arguments, ctx)
            except PalliumError as exc:
                _close(ctx)
                return CallToolResult(content=[TextContent(type="text", text=exc.to_json())], is_error=True)
            except BaseException:
                _close(ctx)
                raise
            closing = _close(ctx)
            if closing is not None:
                return CallToolResult(content=[TextContent(type="text", text=closing.to_json())], is_error=True)
            return CallToolResult(
                content=[TextContent(type="text", text=out.model_dump_json())],
                structured_content=out.model_dump(mode="json"),
            )

    return PalliumServer()


# The SDK (mcp 2.3) has no public way to tell MCPServer where a tool's input schema is: its
# lowlevel Server takes `get_tool_input_schema` (used to check Mcp-Param-* headers on streamable
# HTTP before dispatch) and MCPServer fills it from its own tool manager, which does not hold
# Pallium's tools. pyproject.toml pins the range this was checked against, and
# tests/pallium_mcp/test_sdk_contract.py fails, naming this, when an upgrade moves it.
def _install_input_schema_lookup(server: Any, lookup: Any) -> None:
    lowlevel = getattr(server, "_lowlevel_server", None)
    if lowlevel is None or not hasattr(lowlevel, "get_tool_input_schema"):
        raise RuntimeError(
            "this mcp SDK has no MCPServer._lowlevel_server.get_tool_input_schema; Pallium supports the range "
            "pinned in pyproject.toml (see pallium_mcp/server.py::_install_input_schema_lookup)"
        )
    lowlevel.get_tool_input_schema = lookup


def _close(ctx: ToolContext) -> PalliumError | None:
    """Close the call's databases; a failure there is still answered as the JSON error, never as text."""
    try:
        ctx.close()
    except Exception as exc:  # the top of a call: whatever it is, the client gets the error shape
        return PalliumError(
            "internal",
            f"closing the call's databases failed: {type(exc).__name__}: {exc}",
            hint="this is a bug in Pallium; rerun with PALLIUM_DEBUG=1 and report it",
            details={"exception": type(exc).__name__},
        )
    return None


def _describe(tool: Tool, mcp_tool: Any, tool_annotations: Any, toolset_of: dict[str, str], shown: set[str]) -> Any:
    """The listing of one tool. The summary is its title once (not again in the annotations)."""
    a = tool.annotations
    return mcp_tool(
        name=tool.name,
        title=tool.summary,
        description=with_toolsets(tool.description, toolset_of, shown),
        input_schema=published_input_schema(tool.input),
        output_schema=published_output_schema(tool.output),
        annotations=tool_annotations(
            read_only_hint=a.read_only,
            destructive_hint=a.destructive,
            idempotent_hint=a.idempotent,
            open_world_hint=a.open_world,
        ),
    )


# A model's schema is the same for every server a process builds (the resident server, a test, an
# HTTP session each build one), and pydantic's generation is most of building one: make it once.
@functools.cache
def published_input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The compact input schema of `model` as tools/list publishes it (shared: never change it)."""
    from pallium_mcp import schema

    return schema.input_schema(model.model_json_schema())


@functools.cache
def published_output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The compact output schema of `model` as tools/list publishes it (shared: never change it)."""
    from pallium_mcp import schema

    return schema.output_schema(model.model_json_schema())


def with_toolsets(description: str, toolset_of: dict[str, str], shown: set[str]) -> str:
    """`description` with each tool it names that this server does not list followed by its toolset.

    An agent told to use `pallium_workflow_run` on a server serving the default toolset learns
    where that tool lives (`--toolsets workflows`) instead of looking for a tool it does not have.
    """
    import re

    def name(match: re.Match[str]) -> str:
        tool = match.group(0)
        if tool in shown or tool not in toolset_of:
            return tool
        return f"{tool} (toolset {toolset_of[tool]})"

    return re.sub(r"\bpallium_[a-z_]+[a-z]", name, description)


class _McpProgress(Progress):
    """Forwards progress as MCP notifications: increasing, at most five a second, none after the result."""

    def __init__(self, context: Any) -> None:
        self._context = context
        self._last_sent = 0.0
        self._last_value = float("-inf")
        self._closed = False

    async def update(self, done: float, total: float | None = None, message: str | None = None) -> None:
        now = time.monotonic()
        final = total is not None and done >= total
        if self._closed or done <= self._last_value or (not final and now - self._last_sent < 0.2):
            return
        self._last_sent, self._last_value = now, done
        await self._context.report_progress(done, total, message)

    def close(self) -> None:
        self._closed = True


# ---------------------------------------------------------------- serving


def serve_parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Serve Pallium's tools over MCP: stdio by default, streamable HTTP with --http.",
    )
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    parser.add_argument(
        "--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1; any other needs a token)"
    )
    parser.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765; 0 picks a free one)")
    parser.add_argument(
        "--token",
        default=None,
        help="bearer token every HTTP request must carry; visible in `ps`, so prefer --token-file or "
        "$PALLIUM_MCP_TOKEN",
    )
    parser.add_argument(
        "--token-file", default=None, help="file holding the bearer token (mode 0600); beside $PALLIUM_MCP_TOKEN"
    )
    parser.add_argument("--toolsets", default="default", help="default, all, or a comma-separated list")
    parser.add_argument(
        "--authority",
        default=os.environ.get("PALLIUM_AUTHORITY", "edit"),
        help="the server's ceiling: observe, consult, edit (default) or admin",
    )
    return parser


def main(argv: list[str] | None = None, prog: str = "pallium-mcp") -> int:
    args = serve_parser(prog).parse_args(argv)
    try:
        ceiling = authority.parse(args.authority)
        token = _token(args)
        if args.http:
            _check_bind(args.host, token)
        server = build_server(toolsets=args.toolsets, ceiling=ceiling)
    except PalliumError as exc:
        print(f"error: {exc.message}" + (f"\n  hint: {exc.hint}" if exc.hint else ""), file=sys.stderr)
        return exc.exit_code
    if args.http:
        import anyio

        anyio.run(_serve_http, server, args.host, args.port, token)
    else:
        import anyio

        from pallium_mcp.stdio import serve_stdio

        anyio.run(serve_stdio, server)
    return 0


def _token(args: argparse.Namespace) -> str | None:
    """The bearer token from --token-file, --token or $PALLIUM_MCP_TOKEN (in that order), checked."""
    if args.token_file and args.token:
        raise PalliumError(
            "invalid_input",
            "give --token or --token-file, not both",
            hint="keep --token-file PATH (mode 0600): a token on the command line shows in `ps`",
            details={"field": "token"},
        )
    if args.token_file:
        return _read_token_file(Path(args.token_file))
    if args.token is not None:
        print(
            "pallium-mcp: warning: --token puts the bearer token on the command line, where `ps` shows it to "
            "every user of this machine; use --token-file PATH (mode 0600) or PALLIUM_MCP_TOKEN",
            file=sys.stderr,
        )
        return _checked_token(args.token, "--token")
    configured = os.environ.get("PALLIUM_MCP_TOKEN")
    return _checked_token(configured, "PALLIUM_MCP_TOKEN") if configured else None


def _read_token_file(path: Path) -> str:
    import stat

    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise PalliumError(
                "invalid_input",
                f"token file {str(path)!r} is not a regular file",
                hint="pass `--token-file` a regular file of mode 0600 holding the token",
                details={"field": "token_file"},
            )
        if stat.S_IMODE(st.st_mode) & 0o077:
            raise PalliumError(
                "invalid_input",
                f"token file {str(path)!r} has mode {stat.S_IMODE(st.st_mode):04o}; others may read the token",
                hint=f"run `chmod 600 {path}`, then start the server again",
                details={"field": "token_file", "mode": f"{stat.S_IMODE(st.st_mode):04o}"},
            )
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PalliumError(
            "invalid_input",
            f"cannot read token file {str(path)!r}: {getattr(exc, 'strerror', None) or exc}",
            hint="pass --token-file PATH naming a readable UTF-8 file of mode 0600",
            details={"field": "token_file"},
        ) from exc
    return _checked_token(text.strip(), "--token-file")


def _checked_token(token: str, source: str) -> str:
    token = token.strip()
    if not token or len(token) > 4096 or any(ord(c) < 0x21 or ord(c) > 0x7E for c in token):
        raise PalliumError(
            "invalid_input",
            f"the bearer token from {source} must be 1 to 4096 printable ASCII characters without spaces",
            hint="generate one with `python -c 'import secrets; print(secrets.token_urlsafe(32))'`",
            details={"field": "token"},
        )
    return token


def _check_bind(host: str, token: str | None) -> None:
    if not _is_loopback(host) and not token:
        raise PalliumError(
            "invalid_input",
            f"refusing to serve on {host!r} without a bearer token",
            hint="pass --token-file PATH (a file of mode 0600 holding the token; --token shows in `ps`) or set "
            "PALLIUM_MCP_TOKEN, or bind to 127.0.0.1",
            details={"field": "host"},
        )


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def _serve_http(server: Any, host: str, port: int, token: str | None) -> None:
    import socket

    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)  # before the line below announces the address, so a client that reads it can connect
    bound = sock.getsockname()[1]
    # The SDK's own Host check allows any port and only three names; ours below is exact.
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    from pallium_mcp import http_limits

    mcp_app = server.streamable_http_app(
        host=host, transport_security=security, session_idle_timeout=http_limits.session_idle_seconds()
    )
    app = http_app(mcp_app, host, bound, token)
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    print(f"pallium-mcp: serving streamable HTTP on http://{shown}:{bound}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        http=http_limits.HeaderTimeoutH11,
        limit_concurrency=http_limits.MAX_CONNECTIONS,
    )
    await uvicorn.Server(config).serve(sockets=[sock])


def http_app(app: Any, host: str, port: int, token: str | None) -> Any:
    """Wrap the MCP app: the bearer check when there is a token, the Host/Origin check on every loopback bind.

    Behind a token on another address, the Host check would refuse the machine's own LAN names and
    adds nothing (a browser page cannot attach the token); on loopback it stays on, token or not.
    """
    if token:
        app = _BearerAuth(app, token)
    if _is_loopback(host):
        app = _LoopbackOnly(app, host, port)
    return app


class _LoopbackOnly:
    """ASGI middleware against DNS rebinding: Host must be the bound address or localhost, with the port,
    and an Origin, when sent, the same; otherwise 421 or 403 with the JSON error."""

    def __init__(self, app: Any, host: str, port: int) -> None:
        self.app = app
        names = {f"[{host}]" if ":" in host else host, "localhost"}
        if host == "localhost":
            names |= {"127.0.0.1", "[::1]"}
        self.hosts = {f"{name}:{port}".encode() for name in names}
        self.origins = {b"http://" + h for h in self.hosts}
        self.port = port
        self.shown = sorted(h.decode() for h in self.hosts)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = scope.get("headers") or []
            hosts = [v.lower() for k, v in headers if k == b"host"]
            origins = [v.lower() for k, v in headers if k == b"origin"]
            if len(hosts) != 1 or hosts[0] not in self.hosts:
                given = _shown(hosts[0]) if hosts else None
                error = PalliumError(
                    "authority_exceeded",
                    f"request Host {given!r} does not name this server; refused against DNS rebinding",
                    hint=f"connect to http://{self.shown[0]}/mcp (allowed Host values: {', '.join(self.shown)})",
                    details={"host": given, "allowed": self.shown},
                )
                await _send_error(send, 421, error)
                return
            if origins and (len(origins) != 1 or origins[0] not in self.origins):
                given = _shown(origins[0])
                error = PalliumError(
                    "authority_exceeded",
                    f"request Origin {given!r} is not this server's; refused against DNS rebinding",
                    hint="call the server from a local MCP client, not from a web page",
                    details={"origin": given, "allowed": sorted(o.decode() for o in self.origins)},
                )
                await _send_error(send, 403, error)
                return
        await self.app(scope, receive, send)


class _BearerAuth:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`, else 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                error = PalliumError(
                    "authority_exceeded",
                    "missing or wrong bearer token",
                    hint="send `Authorization: Bearer <token>` with the token the server was started with "
                    "(--token-file or PALLIUM_MCP_TOKEN)",
                    details={"header": "authorization"},
                )
                await _send_error(send, 401, error, [(b"www-authenticate", b"Bearer")])
                return
        await self.app(scope, receive, send)


async def _send_error(send: Any, status: int, error: PalliumError, extra: Sequence[tuple[bytes, bytes]] = ()) -> None:
    body = error.to_json().encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _shown(raw: bytes) -> str:
    """A header value as text for an error, cut so a hostile one cannot blow up the answer."""
    return raw[:200].decode("latin-1")


if __name__ == "__main__":
    sys.exit(main())
