"""The knowledge site as a call that returns: bound before it starts, then served in the background.

A foreground server is not a request/response tool: over MCP it never returned, and uvicorn's
`SystemExit(3)` on a port in use crossed the tool boundary and stopped the whole MCP server. Here
the socket is bound first (a port in use is this call's error), the site runs on its own event
loop in a daemon thread of the serving process, for at most `MAX_SECONDS`, one per repository
(asking again returns the same URL), and a LAN address is refused over MCP (docs/trust.md).
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel.errors import PalliumError

__all__ = ["MAX_SECONDS", "MAX_SITES", "Site", "bind", "check_reach", "running", "serve_for_call", "start", "stop_all"]

MAX_SECONDS = 3600.0  # a background site stops after an hour; ask again for another hour
MAX_SITES = 4


@dataclass
class Site:
    repo: str
    url: str
    started: float
    stops_at: float
    server: Any
    thread: threading.Thread


_sites: dict[str, Site] = {}
_lock = threading.Lock()


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on `host:port`, or a `conflict` error naming the port when it is taken."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise PalliumError(
            "conflict",
            f"cannot serve the knowledge site on {host}:{port}: {exc.strerror or exc}",
            hint="pass another `port` (0 picks a free one), or stop what listens there",
            details={"field": "port", "host": host, "port": port},
        ) from None
    sock.setblocking(False)
    return sock


def check_reach(host: str, ctx: Any) -> None:
    """A site beyond loopback serves the repository's source to the network: admin, and never over MCP."""
    from kernel import authority
    from services.knowledge.serve import is_loopback

    if is_loopback(host):
        return
    if ctx.origin == "mcp":
        raise PalliumError(
            "authority_exceeded",
            f"serving the knowledge site on {host!r} over MCP is refused: it would serve the repository's "
            "source to the network",
            hint="serve on 127.0.0.1 (the default), or let a person run `pallium knowledge serve --host ... "
            "--token ... --authority admin` on the command line",
            details={"field": "host", "host": host},
        )
    authority.check("pallium_knowledge_serve", "admin", ctx.ceiling)


def serve_for_call(repo: Path, host: str, port: int, token: str | None) -> Any:
    """Start (or find) this repository's background site and answer with its URL."""
    from services.knowledge.models import ServeOutput
    from services.knowledge.serve import build_app

    site = running(repo)
    if site is None:
        sock = bind(host, port)
        site = start(repo, build_app(repo, token=token), sock)
    remaining = max(0, int(site.stops_at - time.monotonic()))
    return ServeOutput(url=site.url, background=True, stops_in_seconds=remaining)


def running(repo: Path) -> Site | None:
    with _lock:
        site = _sites.get(str(repo))
        if site is not None and not site.thread.is_alive():
            _sites.pop(str(repo), None)
            site = None
        return site


def start(repo: Path, app: Any, sock: socket.socket, *, lifetime: float = MAX_SECONDS) -> Site:
    """Serve `app` on the bound `sock` in the background until `lifetime` seconds pass."""
    import uvicorn

    with _lock:
        alive = {k: s for k, s in _sites.items() if s.thread.is_alive()}
        _sites.clear()
        _sites.update(alive)
        if len(_sites) >= MAX_SITES:
            sock.close()
            raise PalliumError(
                "conflict",
                f"{MAX_SITES} knowledge sites are served already from this process",
                hint="use one of them (pallium_knowledge_serve on that repository returns its URL), or wait "
                "for one to stop (each stops after an hour)",
                details={"running": sorted(s.url for s in _sites.values())},
            )
        host, port = sock.getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        config = uvicorn.Config(app, log_level="warning", lifespan="off")
        server = uvicorn.Server(config)
        now = time.monotonic()
        thread = threading.Thread(
            target=_serve, args=(server, sock, now + lifetime), name=f"pallium-site-{port}", daemon=True
        )
        site = Site(str(repo), f"http://{shown}:{port}/", now, now + lifetime, server, thread)
        _sites[str(repo)] = site
        thread.start()
    return site


def _serve(server: Any, sock: socket.socket, stops_at: float) -> None:
    """The site's own thread: serve until told to stop or its time is up; nothing escapes it."""
    import asyncio

    async def main() -> None:
        async def deadline() -> None:
            while not server.should_exit and time.monotonic() < stops_at:
                await asyncio.sleep(0.5)
            server.should_exit = True

        watch = asyncio.ensure_future(deadline())
        try:
            await server.serve(sockets=[sock])
        finally:
            watch.cancel()

    try:
        asyncio.run(main())
    except BaseException:  # SystemExit from uvicorn included: the thread just ends
        pass
    finally:
        sock.close()


def stop_all(timeout: float = 5.0) -> None:
    """Stop every background site of this process (the MCP server's shutdown, and tests)."""
    with _lock:
        sites = list(_sites.values())
        _sites.clear()
    for site in sites:
        site.server.should_exit = True
    for site in sites:
        site.thread.join(timeout)
