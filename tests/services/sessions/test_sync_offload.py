"""A large sync parses every other file in a child process; what it stores must not change."""

from pathlib import Path

import apsw
import pytest

from services.sessions import sync
from tests.services.sessions.conftest import Caller

pytestmark = pytest.mark.anyio

_TABLES = {
    "sessions_session": "SELECT id, source, cwd, completion, message_count, capsule FROM sessions_session ORDER BY id",
    "sessions_message": "SELECT session_id, line, role, kind, text, tool_name FROM sessions_message "
    "ORDER BY session_id, line, kind, text",
    "sessions_file": "SELECT path, session_id, size, offset, lines, malformed FROM sessions_file ORDER BY path",
}


def _contents(home: Path) -> dict[str, list[tuple]]:
    db = apsw.Connection(str(home / "pallium.sqlite"))
    try:
        found = {table: db.execute(sql).fetchall() for table, sql in _TABLES.items()}
        found["fts"] = db.execute(
            "SELECT count(*) FROM sessions_message_fts WHERE sessions_message_fts MATCH 'pytest OR migration'"
        ).fetchall()
        return found
    finally:
        db.close()


async def _sync_into(home: Path, homes: dict[str, Path], monkeypatch, *, offload: bool) -> dict[str, list[tuple]]:
    monkeypatch.setenv("PALLIUM_HOME", str(home))
    monkeypatch.setattr(sync, "_OFFLOAD_BYTES", 0 if offload else 1 << 60)
    out = await Caller(homes, home).sync()
    assert out.files_unreadable == []
    return _contents(home)


async def test_a_sync_shared_with_a_child_stores_what_a_sync_in_process_stores(homes, tmp_path, monkeypatch):
    here = await _sync_into(tmp_path / "here", homes, monkeypatch, offload=False)
    shared = await _sync_into(tmp_path / "shared", homes, monkeypatch, offload=True)
    assert shared == here and here["sessions_message"]


async def test_when_the_child_dies_the_parent_parses_its_share(homes, tmp_path, monkeypatch):
    here = await _sync_into(tmp_path / "here", homes, monkeypatch, offload=False)
    monkeypatch.setenv("PALLIUM_CRASHPOINT", "offloaded_parse:2")  # only the child passes this point
    shared = await _sync_into(tmp_path / "shared", homes, monkeypatch, offload=True)
    assert shared == here
