"""pallium route: the answer's fields, blocking, grounding, execution under the ceiling, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client

from kernel.errors import PalliumError
from pallium_mcp.cli import main
from pallium_mcp.server import build_server
from tests.conftest import git
from tests.services.route.conftest import route

FIELDS = {
    "task",
    "ceiling",
    "capability",
    "tool",
    "arguments",
    "argv",
    "why",
    "alternatives",
    "needed_authority",
    "blocked",
    "blocked_reason",
    "preparation",
    "preconditions",
    "confidence",
    "state",
    "steps",
    "executed",
}


def test_an_answer_names_capability_tool_arguments_argv_and_alternatives(git_repo: Path):
    answer = anyio.run(lambda: route("explain src/app.py before I edit it", git_repo, ceiling="observe"))
    assert set(answer.model_dump()) == FIELDS
    assert (answer.capability, answer.tool) == ("explain", "pallium_explain")
    assert answer.arguments == {"path": "src/app.py"}
    assert answer.argv == ["pallium", "explain", "src/app.py", "--authority", "observe"]
    assert answer.needed_authority == "observe" and answer.blocked is False
    assert answer.alternatives and all(a.why_not for a in answer.alternatives)
    assert 0 < answer.confidence.score <= 1 and answer.confidence.margin >= 0
    index = next(p for p in answer.preconditions if p.kind == "index")
    assert (index.met, index.command) == (False, "pallium index")


def test_a_blocked_answer_keeps_its_capability_and_offers_only_a_labelled_read_only_step(git_repo: Path):
    answer = anyio.run(lambda: route("fix the failing tests", git_repo, ceiling="observe"))
    assert (answer.capability, answer.blocked, answer.needed_authority) == ("start", True, "edit")
    assert "--authority edit" in answer.blocked_reason
    assert answer.preparation.label == "preparatory"
    assert answer.preparation.capability == "workflow preflight"
    assert answer.preparation.needed_authority == "observe"


def test_an_escalating_flag_raises_the_level_and_a_preview_keeps_it_low(git_repo: Path):
    acting = anyio.run(lambda: route("prune sessions older than 90 days", git_repo, ceiling="edit"))
    assert acting.arguments == {"older_than": "90d", "confirm": True}
    assert (acting.needed_authority, acting.blocked) == ("admin", True)
    assert acting.preparation.arguments == {"older_than": "90d"}
    preview = anyio.run(
        lambda: route("preview which sessions older than 90 days pruning would remove", git_repo, ceiling="edit")
    )
    assert preview.arguments.get("confirm") is None and preview.needed_authority == "observe"


def test_a_missing_file_or_run_is_a_needs_input_precondition_and_is_never_executed(git_repo: Path):
    missing = anyio.run(lambda: route("explain src/nowhere.py", git_repo, execute=True))
    need = [p for p in missing.preconditions if p.kind == "needs_input"]
    assert need and need[0].field == "path" and "src/nowhere.py" in need[0].detail
    assert "path" not in missing.arguments
    assert missing.executed["status"] == "not_run"
    run = anyio.run(lambda: route("resume wf-20260101-120000-abcdef", git_repo, execute=True))
    assert run.capability == "workflow resume"
    assert [p.field for p in run.preconditions if p.kind == "needs_input"] == ["run_id"]
    assert run.executed["status"] == "not_run"


def test_nothing_fits_gives_null_with_closest_candidates_and_runs_nothing(git_repo: Path):
    answer = anyio.run(lambda: route("what's the weather like in Lisbon", git_repo, execute=True))
    assert (answer.capability, answer.tool, answer.argv) == (None, None, [])
    assert answer.executed["status"] == "not_run"


def test_execute_runs_the_index_precondition_first_then_the_recommendation(git_repo: Path):
    answer = anyio.run(lambda: route("who calls main", git_repo, ceiling="observe", execute=True))
    assert answer.executed["status"] == "ok", answer.executed
    assert [p["tool"] for p in answer.executed["preconditions_run"]] == ["pallium_index"]
    assert answer.executed["output"]["definitions"][0]["path"] == "src/app.py"


def test_a_symbol_missing_from_the_index_is_reported_not_run(git_repo: Path):
    anyio.run(lambda: route("index this repository", git_repo, execute=True))
    answer = anyio.run(lambda: route("who calls no_such_function", git_repo, execute=True))
    assert [p.field for p in answer.preconditions if p.kind == "needs_input"] == ["name"]
    assert answer.executed["status"] == "not_run"


def test_a_lower_ceiling_argument_narrows_but_never_widens(git_repo: Path):
    lower = anyio.run(lambda: _route_with(git_repo, "edit", "observe"))
    assert (lower.ceiling, lower.blocked) == ("observe", True)
    higher = anyio.run(lambda: _route_with(git_repo, "observe", "admin"))
    assert (higher.ceiling, higher.blocked) == ("observe", True)


async def _route_with(repo: Path, ctx_ceiling: str, asked: str):
    from tests.services.route.conftest import call

    return await call(
        "pallium_route", {"task": "apply the patches from the last run", "ceiling": asked}, repo, ctx_ceiling
    )


@pytest.mark.parametrize("task", ["", "   ", "x" * 100_000])
def test_an_empty_or_huge_task_is_an_input_error(git_repo: Path, task: str):
    with pytest.raises(PalliumError) as caught:
        anyio.run(lambda: route(task, git_repo))
    assert caught.value.code == "invalid_input" and caught.value.details.get("field") == "task"


def test_cli_route_prints_json_and_an_unknown_level_is_a_usage_error(git_repo: Path, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    assert main(["route", "what", "changed", "in", "the", "working", "tree", "--authority", "observe", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["capability"] == "changed-now" and answer["ceiling"] == "observe"
    assert main(["route", "fix the bug", "--authority", "root"]) == 2
    assert "unknown authority level" in capsys.readouterr().err
    assert main(["route", "fix the failing tests", "--authority", "observe", "--execute"]) == 1
    assert "BLOCKED" in capsys.readouterr().out


def test_cli_route_capabilities_stays_within_4_kb_unless_full(capsys):
    assert main(["route", "capabilities", "--json"]) == 0
    compact = capsys.readouterr().out
    assert len(json.dumps(json.loads(compact), separators=(",", ":"))) <= 4096
    listed = json.loads(compact)
    assert "sessions forget" in listed["by_level"]["observe"]
    assert listed["raised"]["sessions forget"] == "admin with confirm"
    assert listed["capabilities"] is None
    assert main(["route", "capabilities", "--full", "--json"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert full["full"] is True and all(r["phrasings"] for r in full["capabilities"])


@pytest.mark.anyio
async def test_mcp_route_is_in_the_default_toolset_and_says_to_call_it_first(git_repo: Path):
    server = build_server(ceiling="observe", cwd=git_repo)
    async with Client(server) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert "call it first" in listed["pallium_route"].description
    async with Client(build_server(toolsets="route", cwd=git_repo)) as client:
        assert "pallium_route_capabilities" in {t.name for t in (await client.list_tools()).tools}
    async with Client(server) as client:
        result = await client.call_tool("pallium_route", {"task": "forget session 1234abcd-0000", "execute": True})
    answer = result.structured_content
    assert answer["capability"] == "sessions forget" and answer["blocked"] is True
    assert answer["executed"]["status"] == "not_run"


def test_route_reads_a_dirty_tree_through_changed_now(git_repo: Path):
    (git_repo / "src" / "app.py").write_text("def main():\n    return 2\n", encoding="utf-8")
    git(git_repo, "status")
    answer = anyio.run(lambda: route("what did I change", git_repo, ceiling="observe"))
    assert answer.capability == "changed-now"


@pytest.mark.parametrize(
    ("task", "arguments"),
    [
        ("make pallium forget sessions older than 90 days", {"older_than": "90d", "confirm": True}),
        ("how do I make pallium forget sessions older than 90 days?", {"older_than": "90d"}),
        ("have pallium delete its old sessions", {}),
    ],
)
def test_pallium_named_as_who_forgets_prunes_its_sessions_never_resets_its_store(
    populated: Path, task: str, arguments: dict
):
    """The object is the sessions, not Pallium: the narrowest deletion the task can ground (`sessions
    prune`: `sessions forget` needs an id it does not give), acting only when asked, never when asked how."""
    answer = anyio.run(lambda: route(task, populated, ceiling="admin"))
    assert answer.capability == "sessions prune", answer.capability
    assert answer.arguments == arguments
