"""The knowledge store's migrations: an old file is copied aside first, and the copy opens."""

from pathlib import Path

import apsw
import pytest

from kernel.store import Schema, open_repo
from services.knowledge.store import SCHEMA
from tests.services.knowledge.conftest import ask

pytestmark = pytest.mark.anyio


async def test_a_version_1_base_is_backed_up_then_migrated_and_the_backup_opens(app_repo: Path):
    version_1 = Schema("knowledge", SCHEMA.migrations[:1])
    with open_repo(app_repo, [version_1]) as db:
        db.execute(
            "INSERT INTO knowledge_files(path, slug, blob, language, test, tests) VALUES ('old.py', 'x', NULL, "
            "'python', 0, '[]')"
        )
        db.execute("INSERT INTO knowledge_state(key, value) VALUES ('built_at', '2026-01-01T00:00:00Z')")
    out = await ask(app_repo, "pallium_knowledge_build", model=False)
    assert out.modules == 5
    [backup] = (app_repo / ".pallium").glob("pallium.sqlite.knowledge-v1.*.bak")
    conn = apsw.Connection(str(backup), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        assert conn.execute("SELECT path FROM knowledge_files").get == "old.py"
        assert "checks" not in [r[1] for r in conn.execute("PRAGMA table_info(knowledge_files)")]
        assert conn.execute("SELECT version FROM kernel_schema WHERE service = 'knowledge'").get == 1
    finally:
        conn.close()
    with open_repo(app_repo, [SCHEMA]) as db:
        assert db.execute("SELECT version FROM kernel_schema WHERE service = 'knowledge'").get == SCHEMA.version
        assert db.execute("SELECT checks FROM knowledge_files WHERE path = 'app/core/engine.py'").get == (
            '["python -m pytest -q tests/test_engine.py"]'
        )


async def test_a_version_3_base_keeps_its_documents_searchable_until_the_next_build(app_repo: Path):
    version_3 = Schema("knowledge", SCHEMA.migrations[:3])
    with open_repo(app_repo, [version_3]) as db:
        db.execute(
            "INSERT INTO knowledge_docs(slug, kind, title, module_path, data, markdown, built_at, verified) VALUES "
            "('app%2Fcore', 'module', 'app/core', 'app/core', ?, '# app/core', '2026-01-01T00:00:00Z', 0)",
            ('{"purpose": "Runs the scheduler."}',),
        )
        db.execute("INSERT INTO knowledge_state(key, value) VALUES ('built_at', '2026-01-01T00:00:00Z')")
    out = await ask(app_repo, "pallium_knowledge_search", query="scheduler")
    assert [r.slug for r in out.results] == ["app%2Fcore"]
    await ask(app_repo, "pallium_knowledge_build", model=False)
    out = await ask(app_repo, "pallium_knowledge_search", query="engine")
    assert out.results[0].slug == "app%2Fcore"
