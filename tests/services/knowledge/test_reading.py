"""Reading the base: search, get and context, with freshness apart from evidence."""

from pathlib import Path

import pytest
from mcp import Client

from pallium_mcp.server import build_server
from tests.conftest import write
from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio


async def test_search_returns_at_most_five_compact_results_within_8_kb(app_repo: Path):
    for i in range(8):
        commit(
            app_repo,
            f"Add engine part {i}",
            {
                f"part{i}/engine_{i}.py": "def engine_part():\n    return 1\n",
                f"part{i}/more_{i}.py": "def engine_more():\n    return 2\n",
            },
        )
    await ask(app_repo, "pallium_knowledge_build", model=False)
    out = await ask(app_repo, "pallium_knowledge_search", query="engine")
    assert out.version == 2 and len(out.results) == 5 and len(out.model_dump_json()) <= 8 * 1024
    assert "app%2Fcore" in [r.slug for r in out.results]
    assert out.freshness.status == "fresh" and out.results[0].evidence.claims == 0
    full = await ask(app_repo, "pallium_knowledge_search", query="engine", full=True)
    assert full.documents is not None and [d["slug"] for d in full.documents] == [r.slug for r in out.results]


async def test_context_points_at_the_file_defining_a_named_symbol_and_its_tests(app_repo: Path):
    await ask(app_repo, "pallium_knowledge_build", model=False)
    out = await ask(app_repo, "pallium_knowledge_context", task="parse_config drops values that contain '='")
    assert out.read[0].path == "app/core/engine.py"
    assert "parse_config:3" in out.read[0].symbols
    assert out.tests[0] == "tests/test_engine.py"
    assert out.modules[0].slug == "app%2Fcore" and "a named symbol" in out.modules[0].why
    assert out.checks and "tests/test_engine.py" in out.checks[0]
    assert len(out.model_dump_json()) <= 12 * 1024 and out.version == 2


async def test_context_suggests_each_files_own_checks_before_its_modules(app_repo: Path):
    commit(
        app_repo,
        "Test the jobs",
        {"tests/test_jobs.py": "from app.core.jobs import drain\n\ndef test_drain():\n    assert drain() == []\n"},
    )
    await ask(app_repo, "pallium_knowledge_build", model=False)
    task = "drain in app/core/jobs.py should return the queue that app/core/engine.py fills"
    out = await ask(app_repo, "pallium_knowledge_context", task=task)
    assert out.read[0].path == "app/core/jobs.py"
    assert out.read[0].checks == ["python -m pytest -q tests/test_jobs.py"]
    engine = next(f for f in out.read if f.path == "app/core/engine.py")
    assert engine.checks == ["python -m pytest -q tests/test_engine.py"]
    # The file's own test first; the module's wider command (both tests) after.
    assert out.checks[0] == "python -m pytest -q tests/test_jobs.py"
    assert "python -m pytest -q tests/test_engine.py tests/test_jobs.py" in out.checks[1:]


async def test_context_follows_a_named_path_and_words(app_repo: Path):
    await ask(app_repo, "pallium_knowledge_build", model=False)
    out = await ask(app_repo, "pallium_knowledge_context", task="the route in app/web/routes.py should queue jobs")
    assert out.read[0].path == "app/web/routes.py"
    by_words = await ask(app_repo, "pallium_knowledge_context", task="web server serve")
    assert by_words.read[0].path == "app/web/server.py" and by_words.tests[0] == "tests/test_server.py"


async def test_freshness_names_files_changed_since_the_build_and_reverting_clears_it(app_repo: Path):
    await ask(app_repo, "pallium_knowledge_build", model=False)
    original = (app_repo / "app/core/engine.py").read_text(encoding="utf-8")
    write(app_repo, "app/core/engine.py", original + "\nX = 1\n")
    out = await ask(app_repo, "pallium_knowledge_get", slug="app/core")  # a path works as well as its slug
    assert out.freshness.status == "stale" and out.freshness.changed_files == ["app/core/engine.py"]
    assert out.freshness.refresh_command == "pallium knowledge build --no-model"
    write(app_repo, "app/core/engine.py", original)
    out = await ask(app_repo, "pallium_knowledge_get", slug="app%2Fcore")
    assert out.freshness.status == "fresh" and out.freshness.changed_count == 0


async def test_context_over_mcp_is_in_the_default_toolset_and_builds_on_first_use(app_repo: Path):
    async with Client(build_server(cwd=app_repo)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        answer = await client.call_tool("pallium_knowledge_context", {"task": "Engine jobs queue"})
    assert {"pallium_knowledge_context", "pallium_knowledge_search", "pallium_knowledge_get"} <= names
    assert answer.is_error is False
    data = answer.structured_content
    assert data["version"] == 2 and data["read"][0]["path"] in {"app/core/jobs.py", "app/core/engine.py"}
    assert data["freshness"]["status"] == "fresh" and "evidence" in data


async def test_get_of_an_unknown_section_names_the_sections(app_repo: Path):
    from kernel.errors import PalliumError

    await ask(app_repo, "pallium_knowledge_build", model=False)
    with pytest.raises(PalliumError) as caught:
        await ask(app_repo, "pallium_knowledge_get", slug="app%2Fcore", section="Nope")
    assert caught.value.code == "not_found" and "Surface" in caught.value.details["sections"]


async def test_context_leaves_out_assets_unless_the_task_names_them(app_repo: Path):
    commit(app_repo, "Add a logo", {"app/web/engine-logo.svg": "<svg><title>engine</title></svg>\n"})
    await ask(app_repo, "pallium_knowledge_build", model=False)
    out = await ask(app_repo, "pallium_knowledge_context", task="the engine logo in the web app")
    assert "app/web/engine-logo.svg" not in [f.path for f in out.read]
    named = await ask(app_repo, "pallium_knowledge_context", task="fix app/web/engine-logo.svg colours")
    assert named.read[0].path == "app/web/engine-logo.svg"


async def test_freshness_reads_only_files_whose_time_moved_and_still_sees_an_edit(app_repo: Path):
    import os

    from kernel.store import open_repo
    from services.knowledge.store import SCHEMA, KnowledgeStore

    hour_ago = 1_700_000_000
    for path in app_repo.rglob("*"):
        if ".git" not in path.parts and path.is_file():
            os.utime(path, (hour_ago, hour_ago))
    await ask(app_repo, "pallium_knowledge_build", model=False)
    with open_repo(app_repo, [SCHEMA]) as db:
        stat = KnowledgeStore(db).file_stats()["app/core/engine.py"]
    assert stat.mtime_ns == hour_ago * 10**9 and stat.size == (app_repo / "app/core/engine.py").stat().st_size
    write(app_repo, "app/core/engine.py", (app_repo / "app/core/engine.py").read_text(encoding="utf-8") + "# x\n")
    (app_repo / "app/web/routes.py").unlink()
    out = await ask(app_repo, "pallium_knowledge_get", slug="app%2Fcore")
    assert out.freshness.status == "stale"
    assert out.freshness.changed_files == ["app/core/engine.py", "app/web/routes.py"]


async def test_files_written_just_before_the_build_are_hashed_once_then_trusted_by_time(app_repo: Path):
    import os

    from kernel.context import ToolContext
    from services.knowledge.store import KnowledgeStore

    await ask(app_repo, "pallium_knowledge_build", model=False)  # the fixture's files are seconds old

    def stats() -> dict:
        ctx = ToolContext(cwd=app_repo)
        try:
            return ctx.store(KnowledgeStore, app_repo).file_stats()
        finally:
            ctx.close()

    racy = [p for p, s in stats().items() if s.mtime_ns is None]
    assert racy  # too near the build to trust their times then
    for path in racy:  # the clock moves on: the files are now old enough to trust
        st = os.lstat(app_repo / path)
        os.utime(app_repo / path, ns=(st.st_atime_ns, st.st_mtime_ns - 10_000_000_000))
    out = await ask(app_repo, "pallium_knowledge_search", query="engine")
    assert out.freshness.status == "fresh"
    assert all(s.mtime_ns is not None for s in stats().values())  # settled: no more hashing per read
    write(app_repo, "app/core/engine.py", "def changed():\n    return 2\n")
    again = await ask(app_repo, "pallium_knowledge_search", query="engine")
    assert again.freshness.status == "stale" and "app/core/engine.py" in again.freshness.changed_files
