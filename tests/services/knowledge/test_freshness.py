"""Freshness keeps what the base recorded between reads, and never serves it once the store changed."""

import os
import subprocess
import sys
from pathlib import Path

import apsw
import pytest

from kernel.paths import repo_db_path
from tests.conftest import write
from tests.services.knowledge.conftest import ask

pytestmark = pytest.mark.anyio

HOUR_AGO = 1_700_000_000


def _age(repo: Path) -> None:
    """Make every file an hour old, so the build trusts their times (no racy files)."""
    for path in repo.rglob("*"):
        if ".git" not in path.parts and path.is_file():
            os.utime(path, (HOUR_AGO, HOUR_AGO))


def _stamp(repo: Path) -> str:
    conn = apsw.Connection(str(repo_db_path(repo)), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return conn.execute("SELECT value FROM knowledge_state WHERE key = 'files_stamp'").get
    finally:
        conn.close()


async def test_a_rebuild_in_another_process_is_seen_by_the_next_read(app_repo: Path):
    _age(app_repo)
    await ask(app_repo, "pallium_knowledge_build", model=False)
    assert (await ask(app_repo, "pallium_knowledge_search", query="engine")).freshness.status == "fresh"
    write(app_repo, "app/core/engine.py", "def parse_config(text):\n    return {}\n")
    stale = await ask(app_repo, "pallium_knowledge_search", query="engine")
    assert stale.freshness.changed_files == ["app/core/engine.py"]
    done = subprocess.run(
        [sys.executable, "-m", "pallium_mcp.cli", "knowledge", "build", "--no-model"],
        cwd=app_repo,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    # The other process recorded the edited file: what this process kept from before is not used.
    again = await ask(app_repo, "pallium_knowledge_search", query="engine")
    assert again.freshness.status == "fresh" and again.freshness.changed_count == 0


async def test_any_write_to_the_recorded_files_replaces_the_stamp_and_the_next_read_sees_it(app_repo: Path):
    _age(app_repo)
    await ask(app_repo, "pallium_knowledge_build", model=False)
    before = _stamp(app_repo)
    assert (await ask(app_repo, "pallium_knowledge_get", slug="app%2Fcore")).freshness.status == "fresh"
    # Another connection (as another process would) records a different blob and time for one file.
    conn = apsw.Connection(str(repo_db_path(app_repo)))
    try:
        conn.execute(
            "UPDATE knowledge_files SET blob = ?, mtime_ns = mtime_ns + 1 WHERE path = 'app/core/jobs.py'", ("0" * 40,)
        )
    finally:
        conn.close()
    assert _stamp(app_repo) != before
    out = await ask(app_repo, "pallium_knowledge_get", slug="app%2Fcore")
    assert out.freshness.status == "stale" and out.freshness.changed_files == ["app/core/jobs.py"]


async def test_an_edit_keeping_the_size_is_seen_on_the_very_next_read_racy_or_not(app_repo: Path):
    await ask(app_repo, "pallium_knowledge_build", model=False)  # the fixture's files are seconds old: racy
    for _ in range(2):  # the second read is served from what the first kept
        assert (await ask(app_repo, "pallium_knowledge_search", query="engine")).freshness.status == "fresh"
    routes = app_repo / "app/web/routes.py"
    text = routes.read_text(encoding="utf-8")
    write(app_repo, "app/web/routes.py", text.replace("queue()\n", "Queue()\n"))
    assert routes.stat().st_size == len(text.encode())
    out = await ask(app_repo, "pallium_knowledge_search", query="engine")
    assert out.freshness.status == "stale" and out.freshness.changed_files == ["app/web/routes.py"]

    _age(app_repo)
    await ask(app_repo, "pallium_knowledge_build", model=False)  # now every time is trusted
    assert (await ask(app_repo, "pallium_knowledge_search", query="engine")).freshness.status == "fresh"
    write(app_repo, "app/web/routes.py", text)  # same size again, written just now
    out = await ask(app_repo, "pallium_knowledge_search", query="engine")
    assert out.freshness.status == "stale" and out.freshness.changed_files == ["app/web/routes.py"]


async def test_two_repositories_in_one_process_keep_their_own_records(app_repo: Path, tmp_path: Path):
    from tests.conftest import git

    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    write(other, "lib/engine.py", "def start():\n    return 1\n")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "Start")
    for repo in (app_repo, other):
        _age(repo)
        await ask(repo, "pallium_knowledge_build", model=False)
        assert (await ask(repo, "pallium_knowledge_search", query="engine")).freshness.status == "fresh"
    write(other, "lib/engine.py", "def start():\n    return 2\n")
    assert (await ask(app_repo, "pallium_knowledge_search", query="engine")).freshness.status == "fresh"
    out = await ask(other, "pallium_knowledge_search", query="engine")
    assert out.freshness.changed_files == ["lib/engine.py"]
