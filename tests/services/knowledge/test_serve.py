"""`knowledge serve` in a real headless chromium: module page, a citation followed, a search; bind rules."""

import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from kernel.errors import PalliumError
from services.knowledge.serve import build_app, check_bind
from tests.services.knowledge.conftest import ask
from tests.services.knowledge.test_prose import GOOD, MISSING_FILE, OTHER_FILE

pytestmark = pytest.mark.anyio
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@asynccontextmanager
async def serving(app) -> AsyncIterator[str]:
    """The app served on a loopback socket bound before anything browses it: a browser started at once
    finds its connection queued until the server accepts it, however slowly the server comes up on a
    loaded machine, so no test waits for it by a clock."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="off"))
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve, [sock])
            try:
                yield f"http://127.0.0.1:{sock.getsockname()[1]}"
            finally:
                server.should_exit = True
    finally:
        sock.close()


async def _browse(tmp: Path, *args: str) -> str:
    """One headless chromium run with a profile of its own: a run sharing a profile with one still
    shutting down would hand its URL to that process and exit with nothing."""
    tmp.mkdir(parents=True, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="profile-", dir=tmp)
    done = await anyio.run_process(
        [CHROMIUM, *_FLAGS, f"--user-data-dir={profile}", *args], check=False, stderr=subprocess.DEVNULL
    )
    return done.stdout.decode("utf-8", "replace")


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
async def test_a_browser_reads_a_module_page_follows_a_citation_and_searches(app_repo: Path, fake, tmp_path: Path):
    fake.scenario({"match": "Module: app/core", "reply": {"claims": [GOOD, MISSING_FILE, OTHER_FILE]}})
    await ask(app_repo, "pallium_knowledge_build", provider="claude", max_modules=1)
    async with serving(build_app(app_repo)) as base:
        listing = await _browse(tmp_path, "--dump-dom", base + "/")
        page = await _browse(tmp_path, "--dump-dom", base + "/m/app%2Fcore")
        cited = await _browse(tmp_path, "--dump-dom", base + "/src/app/core/engine.py#L3")
        found = await _browse(tmp_path, "--dump-dom", base + "/search?q=engine")
        shot = tmp_path / "module.png"
        await _browse(tmp_path, f"--screenshot={shot}", "--window-size=1100,900", base + "/m/app%2Fcore")
    assert 'href="/m/app/core"' in listing and "freshness: fresh" in listing
    assert GOOD["text"] in page and 'href="/src/app/core/engine.py#L3"' in page
    assert "citations checked" in page and "## Surface" not in page and '<h2 id="surface">Surface</h2>' in page
    assert "2 claim(s) dropped: 2 unresolved citations at build" in page and 'href="#dropped"' in page
    assert "not a file of the index" in page and "'parse_config' is not defined in app/core/jobs.py" in page
    assert 'id="L3"' in cited and "def parse_config(text):" in cited
    assert 'id="results"' in found and "/m/app/core" in found
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


async def _status(app, path: str, *, host: str = "127.0.0.1:8766", method: str = "GET", **headers: str) -> int:
    """Send one request straight to the ASGI app and return the response status."""
    sent: list[dict] = []
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", host.encode()), *((k.encode(), v.encode()) for k, v in headers.items())],
        "scheme": "http",
        "server": ("127.0.0.1", 8766),
        "client": ("127.0.0.1", 5000),
        "root_path": "",
        "http_version": "1.1",
    }

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return next(m["status"] for m in sent if m["type"] == "http.response.start")


async def test_a_foreign_host_header_is_refused_and_a_token_is_required_off_loopback(app_repo: Path):
    await ask(app_repo, "pallium_knowledge_build", model=False)
    app = build_app(app_repo)
    assert await _status(app, "/") == 200
    assert await _status(app, "/", host="evil.example:8766") == 421
    assert await _status(app, "/search", method="POST") == 405
    assert await _status(app, "/src/../../etc/passwd") == 404
    guarded = build_app(app_repo, token="s3cret")
    assert await _status(guarded, "/", host="10.0.0.5:8766") == 401
    assert await _status(guarded, "/", host="10.0.0.5:8766", authorization="Bearer s3cret") == 200
    with pytest.raises(PalliumError) as caught:
        check_bind("0.0.0.0", None)
    assert caught.value.code == "invalid_input" and "--token" in caught.value.hint


async def test_serve_prints_its_url_alone_on_stdout_when_piped_and_the_url_answers(app_repo: Path):
    import os
    import signal
    import sys
    import urllib.request

    await ask(app_repo, "pallium_knowledge_build", model=False)
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "pallium"), "knowledge", "serve", "--port", "0"],
        cwd=app_repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        # The URL is printed once the socket listens: a request sent then waits in its queue until the
        # server accepts it, so it is read once, with no clock and no retries.
        first = (await anyio.to_thread.run_sync(proc.stdout.readline)).decode()
        assert re.fullmatch(r"http://127\.0\.0\.1:[1-9]\d*/\n", first), first
        with urllib.request.urlopen(first.strip()) as answer:
            page = answer.read().decode()
        assert "id='diagram'" in page and "id='sidebar'" in page
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.communicate(timeout=20)
