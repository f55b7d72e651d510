"""`knowledge build --no-model`: documents in SQLite and Markdown, revisions, authored files kept."""

from pathlib import Path

import pytest

from kernel.errors import PalliumError
from services.knowledge.documents import MARKER
from tests.conftest import git, write
from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio


async def test_build_writes_a_document_per_module_with_the_five_sections(app_repo: Path):
    out = await ask(app_repo, "pallium_knowledge_build", model=False)
    assert out.modules == 5 and out.documents == 7 and out.collisions == []
    folder = app_repo / ".pallium" / "knowledge"
    assert sorted(p.name for p in folder.glob("*.md")) == sorted(
        ["@root.md", "app%2Fcore.md", "app%2Fweb.md", "db.md", "tests.md", "@incidents.md", "@decisions.md"]
    )
    text = (folder / "app%2Fcore.md").read_text(encoding="utf-8")
    assert text.startswith(MARKER + "\n# app/core\n")
    headings = [line[3:] for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["Purpose", "Surface", "Dependencies", "Tests", "History", "Files"]
    got = await ask(app_repo, "pallium_knowledge_get", slug="app%2Fcore", section="Dependencies")
    assert list(got.sections) == ["Dependencies"]
    assert "`app/web` (2)" in got.sections["Dependencies"]


async def test_incidents_are_real_commits_with_their_files_marked_unconfirmed(app_repo: Path):
    await ask(app_repo, "pallium_knowledge_build", model=False)
    sha = git(app_repo, "log", "-1", "--format=%H").strip()
    got = await ask(app_repo, "pallium_knowledge_get", slug="@incidents", full=True)
    assert got.data["incidents"] == [
        {
            "sha": sha,
            "committed_at": "2026-02-10T00:00:00Z",
            "subject": "Revert the job queue change",
            "files": ["app/core/jobs.py"],
        }
    ]
    assert "unconfirmed" in got.sections[f"`{sha[:12]}` Revert the job queue change"]


async def test_a_rebuild_after_a_change_keeps_the_replaced_document_as_a_revision(app_repo: Path):
    from kernel.store import open_repo
    from services.knowledge.store import SCHEMA, KnowledgeStore

    await ask(app_repo, "pallium_knowledge_build", model=False)
    commit(app_repo, "Add a web helper", {"app/web/extra.py": "def helper():\n    return 1\n"})
    again = await ask(app_repo, "pallium_knowledge_build", model=False)
    assert "app%2Fweb.md" in again.written and "app%2Fcore.md" not in again.written
    with open_repo(app_repo, [SCHEMA]) as db:
        revisions = KnowledgeStore(db).revisions("app%2Fweb")
    assert len(revisions) == 1 and revisions[0][1] != again.built_commit


def test_authored_markdown_is_never_overwritten_and_a_collision_is_reported(app_repo: Path, capsys, monkeypatch):
    from pallium_mcp.cli import main

    folder = app_repo / ".pallium" / "knowledge"
    write(app_repo, ".pallium/knowledge/notes.md", "# my notes\n")
    write(app_repo, ".pallium/knowledge/db.md", "# the db, by hand\n")
    monkeypatch.chdir(app_repo)
    code = main(["knowledge", "build", "--no-model"])
    out = capsys.readouterr().out
    assert code == 1 and "COLLISION" in out and "db.md" in out
    assert (folder / "db.md").read_text(encoding="utf-8") == "# the db, by hand\n"
    assert (folder / "notes.md").read_text(encoding="utf-8") == "# my notes\n"
    assert (folder / "app%2Fcore.md").read_text(encoding="utf-8").startswith(MARKER)


async def test_a_generated_file_of_a_module_that_went_away_is_removed(app_repo: Path):
    await ask(app_repo, "pallium_knowledge_build", model=False)
    commit(app_repo, "Drop the database files", {"db/schema.sql": None, "db/seed.sql": None, "db/deploy.sh": None})
    out = await ask(app_repo, "pallium_knowledge_build", model=False)
    assert out.removed == 1 and not (app_repo / ".pallium" / "knowledge" / "db.md").exists()
    with pytest.raises(PalliumError) as caught:
        await ask(app_repo, "pallium_knowledge_get", slug="db")
    assert caught.value.code == "not_found" and "knowledge map" in caught.value.hint


async def test_model_prose_needs_consult(app_repo: Path):
    with pytest.raises(PalliumError) as caught:
        await ask(app_repo, "pallium_knowledge_build", ceiling="observe", model=True)
    assert caught.value.code == "authority_exceeded"
