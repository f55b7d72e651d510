"""Authored decisions: linked, conflicting, superseded, surviving rebuilds, and ranked with the other kinds."""

from pathlib import Path

import pytest

from kernel.errors import PalliumError
from tests.conftest import write
from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio


async def test_same_title_decisions_conflict_until_one_supersedes_the_other(app_repo: Path):
    write(app_repo, "docs/adr-1.md", "We store everything in SQLite because it ships with Python.\n")
    write(app_repo, "docs/adr-2.md", "We store everything in Postgres for concurrent writers.\n")
    first = await ask(
        app_repo, "pallium_knowledge_decisions_link", title="Why SQLite", file="docs/adr-1.md", source="ADR-1"
    )
    second = await ask(
        app_repo, "pallium_knowledge_decisions_link", title="Why SQLite", file="docs/adr-2.md", source="ADR-2"
    )
    assert (first.decision.slug, second.decision.slug) == ("why-sqlite", "why-sqlite-2")
    assert second.decision.status == "conflicting" and second.conflicts == ["why-sqlite"]
    third = await ask(
        app_repo,
        "pallium_knowledge_decisions_link",
        title="Why SQLite",
        file="docs/adr-1.md",
        source="ADR-3",
        supersedes="why-sqlite-2",
    )
    assert third.decision.status == "conflicting" and third.conflicts == ["why-sqlite"]
    found = await ask(app_repo, "pallium_knowledge_decisions_search", query="sqlite", superseded=True)
    status = {d.slug: d.status for d in found.decisions}
    assert status == {"why-sqlite": "conflicting", "why-sqlite-2": "superseded", "why-sqlite-3": "conflicting"}


async def test_decisions_survive_rebuilds_and_show_in_context(app_repo: Path):
    write(app_repo, "docs/adr-9.md", "The engine parses configuration eagerly so errors surface at start.\n")
    await ask(
        app_repo,
        "pallium_knowledge_decisions_link",
        title="Parse configuration eagerly",
        file="docs/adr-9.md",
        source="ADR-9",
    )
    await ask(app_repo, "pallium_knowledge_build", model=False)
    commit(app_repo, "Touch the engine", {"app/core/more.py": "def more():\n    return 1\n"})
    await ask(app_repo, "pallium_knowledge_build", model=False)
    await ask(app_repo, "pallium_index", full=True)
    got = await ask(app_repo, "pallium_knowledge_get", slug="@decisions")
    assert "Parse configuration eagerly" in "".join(got.sections)
    ctx = await ask(app_repo, "pallium_knowledge_context", task="parse_config should parse configuration lazily")
    assert [(d.slug, d.status, d.kind) for d in ctx.decisions] == [
        ("parse-configuration-eagerly", "active", "authored")
    ]


async def test_superseding_an_unknown_decision_is_refused_with_how_to_list_them(app_repo: Path):
    write(app_repo, "docs/adr.md", "text\n")
    with pytest.raises(PalliumError) as caught:
        await ask(
            app_repo, "pallium_knowledge_decisions_link", title="T", file="docs/adr.md", source="S", supersedes="nope"
        )
    assert caught.value.code == "not_found" and "--supersedes" in caught.value.hint
    with pytest.raises(PalliumError) as caught:
        await ask(app_repo, "pallium_knowledge_decisions_link", title="T", file="../outside.md", source="S")
    assert caught.value.code == "invalid_input"


async def test_linking_needs_edit(app_repo: Path):
    write(app_repo, "docs/adr.md", "text\n")
    with pytest.raises(PalliumError) as caught:
        await ask(
            app_repo, "pallium_knowledge_decisions_link", ceiling="consult", title="T", file="docs/adr.md", source="S"
        )
    assert caught.value.code == "authority_exceeded"


async def test_pallium_decisions_ranks_commit_notes_and_authored_decisions_labelled_by_kind(app_repo: Path):
    write(app_repo, "docs/adr-q.md", "Jobs go through one queue so that a revert is cheap.\n")
    await ask(app_repo, "pallium_knowledge_decisions_link", title="One job queue", file="docs/adr-q.md", source="ADR-4")
    out = await ask(app_repo, "pallium_decisions", query="queue")
    kinds = [(r.kind, r.title) for r in out.ranked]
    assert kinds == [("authored", "One job queue"), ("commit", "Revert the job queue change")]
    assert out.ranked[0].ref == "one-job-queue" and out.ranked[0].status == "active"
