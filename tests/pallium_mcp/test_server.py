"""The MCP adapter, through the SDK's own client in-process."""

import json
from pathlib import Path

import pytest
from mcp import Client

from pallium_mcp.registry import all_tools
from pallium_mcp.server import build_server
from tests.conftest import write
from tests.services.sessions.transcripts import shared_homes

pytestmark = pytest.mark.anyio

_HOMES = shared_homes()

# One call per tool, with arguments valid in a fresh repository: every tool must be exercised.
SAMPLE_CALLS = {
    "pallium_version": {},
    "pallium_doctor": {},
    "pallium_trust": {},
    "pallium_changed_now": {"limit": 5},
    "pallium_index": {},
    "pallium_explain": {"path": "src/app.py"},
    "pallium_symbols": {"path": "src/app.py"},
    "pallium_callers": {"name": "main"},
    "pallium_search": {"query": "main"},
    "pallium_risk": {"path": "src/app.py"},
    "pallium_neighbors": {"path": "src/app.py"},
    "pallium_hotspots": {},
    "pallium_decisions": {"query": "demo"},
    "pallium_handoff": {},
    "pallium_db_reset": {"scope": "repo"},
    "pallium_workflow_validate": {"source": "export const meta = {name: 'demo'};\nreturn await agent('hi');"},
    # In registry order: the run is made first (it fails on purpose, so resume has work to do).
    "pallium_workflow_run": {"task": "sample", "source": "throw new Error('on purpose');", "id": "sample-run"},
    "pallium_workflow_resume": {"run_id": "sample-run"},
    "pallium_workflow_stop": None,  # needs a live run: tests/services/workflows/test_background.py
    "pallium_workflow_pause": None,  # likewise
    "pallium_workflow_status": {"run_id": "sample"},
    "pallium_workflow_list": {},
    "pallium_workflow_gate_list": {"run_id": "sample-run"},
    "pallium_workflow_gate_approve": None,  # needs a waiting gate: tests/services/workflows/test_gates.py
    "pallium_workflow_gate_reject": None,  # likewise
    "pallium_start": {"task": "review my change", "dry_run": True},
    "pallium_workflow_preflight": {"task": "what calls main?", "scope": ["src"]},
    "pallium_workflow_template_list": {},
    "pallium_workflow_template_show": {"name": "review"},
    "pallium_workflow_save": {"run_id": "sample-run", "name": "sample"},
    "pallium_workflow_generate": {"task": "research auth", "style": "research"},
    "pallium_workflow_apply": {"run_id": "sample-run"},
    "pallium_workflow_revert": {"run_id": "sample-run"},
    "pallium_workflow_report": {"run_id": "sample-run"},
    "pallium_workflow_inspect": {"run_id": "sample-run"},
    "pallium_workflow_show": {"run_id": "sample-run", "limit": 5},
    "pallium_workflow_read": None,  # needs an agent call: tests/services/workflows/test_inspect.py
    "pallium_workflow_gc": {"older_than": 0},
    "pallium_workflow_tools_list": {},
    "pallium_worker": None,  # serves a queue until it is idle: tests/kernel/test_scaleout.py, over MCP too
    "pallium_workflow_decisions": {"query": "sample"},
    "pallium_sessions_sync": {"claude_home": str(_HOMES["claude"]), "codex_home": str(_HOMES["codex"])},
    "pallium_sessions_recall": {"query": "where did the checkout migration stop?"},
    "pallium_sessions_search": {"query": "backfill", "limit": 3},
    "pallium_sessions_show": {"id": "4ba71ab7"},
    "pallium_sessions_read": {"id": "4ba71ab7", "from_line": 3, "limit": 5},
    "pallium_sessions_find": {"question": "which sessions were updated most recently?"},
    "pallium_sessions_live": {"claude_home": str(_HOMES["claude"]), "codex_home": str(_HOMES["codex"])},
    "pallium_sessions_doctor": {},
    "pallium_sessions_forget": {"id": "4ba71ab7"},
    "pallium_sessions_prune": {"older_than": "180d"},
    "pallium_sessions_embedding_status": {},
    "pallium_sessions_embedding_configure": {"model": "text-embedding-3-small"},
    "pallium_sessions_embedding_check": {},
    # The loop's script is written into the repository by the test below (SAMPLE_FILES).
    "pallium_loop_start": {"name": "sample-loop", "script": "sample.loop.js"},
    "pallium_loop_tick": {"name": "sample-loop"},
    "pallium_loop_status": {"name": "sample-loop"},
    "pallium_loop_list": {},
    "pallium_loop_stop": {"name": "sample-loop"},
    "pallium_loop_reset": {"name": "sample-loop"},
    "pallium_route": {"task": "who calls main"},
    "pallium_route_capabilities": {},
    "pallium_agents_guide": {},
    "pallium_agents_block": {},
    "pallium_agents_install": {"dry_run": True},
    "pallium_mcp_install": {"client": "claude", "dry_run": True},
    "pallium_update": {"dry_run": True},
    "pallium_facts": {"sections": ["files", "checks"], "checks": [["src/app.py"]]},
    "pallium_knowledge_map": {},
    "pallium_knowledge_build": {"model": False},
    "pallium_knowledge_search": {"query": "app"},
    "pallium_knowledge_get": {"slug": "@root"},
    "pallium_knowledge_context": {"task": "change main in src/app.py"},
    "pallium_knowledge_audit": {"limit": 1},
    "pallium_knowledge_decisions_link": {"title": "Keep a README", "file": "README.md", "source": "sample"},
    "pallium_knowledge_decisions_search": {"query": "readme"},
    "pallium_knowledge_maintain_status": {},
    "pallium_knowledge_maintain_enable": {},
    "pallium_knowledge_maintain_disable": {},
    "pallium_knowledge_maintain_pause": {},
    "pallium_knowledge_maintain_resume": {},
    "pallium_knowledge_maintain_retry": {"max_modules": 0},
    "pallium_knowledge_maintain_run": {"once": True, "max_modules": 0},
    "pallium_knowledge_serve": None,  # runs until stopped: served and browsed in tests/services/knowledge/test_serve.py
    "pallium_knowledge_maintain_install": None,  # writes under HOME: called over MCP by test_maintain.py
    # Team tools need a team, members and the fake provider: tests/services/teams/test_tools.py calls each over MCP.
    "pallium_team_apply": None,
    "pallium_team_budget": None,
    "pallium_team_diff": None,
    "pallium_team_approve": None,
    "pallium_team_attach": None,
    "pallium_team_gate_set": None,
    "pallium_team_inbox": None,
    "pallium_team_join": None,
    "pallium_team_list": None,
    "pallium_team_member_restart": None,
    "pallium_team_member_steer": None,
    "pallium_team_member_stop": None,
    "pallium_team_nudge": None,
    "pallium_team_reject": None,
    "pallium_team_resume": None,
    "pallium_team_revert": None,
    "pallium_team_run": None,
    "pallium_team_send": None,
    "pallium_team_spawn": None,
    "pallium_team_start": None,
    "pallium_team_status": None,
    "pallium_team_stop": None,
    "pallium_team_tasks_add": None,
    "pallium_team_tasks_claim": None,
    "pallium_team_tasks_complete": None,
    "pallium_team_tasks_list": None,
    "pallium_team_tasks_release": None,
    "pallium_team_template_list": None,
    "pallium_team_template_show": None,
    "pallium_team_watch": None,
}
# Files some sample calls need in the repository before they run.
SAMPLE_FILES = {
    "sample.loop.js": 'export const meta = {kind: "loop"};\nreturn {state: "success", summary: "sample"};\n'
}


def test_every_registered_tool_has_a_sample_call():
    assert set(SAMPLE_CALLS) == {t.name for t in all_tools()}


async def test_every_tool_is_listed_with_schemas_and_annotations_and_answers(git_repo: Path):
    for relative, text in SAMPLE_FILES.items():
        write(git_repo, relative, text)
    server = build_server(toolsets="all", ceiling="admin", cwd=git_repo)
    async with Client(server) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert set(listed) == {t.name for t in all_tools()}
        for tool in all_tools():
            published = listed[tool.name]
            assert published.description == tool.description
            assert published.input_schema["type"] == "object"
            # a field named for a Python keyword (`as_`, `from_`) is published under its alias (`as`, `from`)
            fields = {field.alias or name for name, field in tool.input.model_fields.items()}
            assert set(published.input_schema.get("properties", {})) == fields
            assert published.output_schema["type"] == "object"
            declared = tool.annotations
            assert (
                published.annotations.read_only_hint,
                published.annotations.destructive_hint,
                published.annotations.idempotent_hint,
                published.annotations.open_world_hint,
            ) == (declared.read_only, declared.destructive, declared.idempotent, declared.open_world), tool.name
            if SAMPLE_CALLS[tool.name] is None:
                continue  # called over MCP by the test named beside it in SAMPLE_CALLS
            result = await client.call_tool(tool.name, SAMPLE_CALLS[tool.name])
            assert result.is_error is False, (tool.name, result.content[0].text)
            assert tool.output.model_validate(result.structured_content)
            assert json.loads(result.content[0].text) == result.structured_content


async def test_arguments_are_flat_top_level_fields(git_repo: Path):
    server = build_server(cwd=git_repo)
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    props = tools["pallium_changed_now"].input_schema["properties"]
    assert set(props) == {"repo", "limit", "refresh"}
    assert props["limit"]["maximum"] == 5000
    assert props["limit"]["description"]


async def test_changed_now_over_the_legacy_handshake(git_repo: Path):
    write(git_repo, "src/app.py", "changed\n")
    server = build_server(cwd=git_repo)
    async with Client(server, mode="legacy") as client:
        result = await client.call_tool("pallium_changed_now", {})
    assert result.is_error is False
    assert result.structured_content["files"][0]["path"] == "src/app.py"


async def test_call_above_the_ceiling_is_an_error_result_and_the_server_stays_up(git_repo: Path):
    server = build_server(toolsets="all", ceiling="edit", cwd=git_repo)
    async with Client(server) as client:
        refused = await client.call_tool("pallium_db_reset", {"confirm": True})
        assert refused.is_error is True
        error = json.loads(refused.content[0].text)["error"]
        assert error["code"] == "authority_exceeded"
        assert error["details"]["needed"] == "admin"
        assert refused.structured_content is None
        again = await client.call_tool("pallium_version", {})
        assert again.is_error is False


async def test_bad_arguments_and_unknown_tools_are_json_errors(git_repo: Path):
    server = build_server(cwd=git_repo)
    async with Client(server) as client:
        bad = await client.call_tool("pallium_changed_now", {"limit": 0})
        unknown = await client.call_tool("pallium_changed_nwo", {})
    bad_error = json.loads(bad.content[0].text)["error"]
    assert bad.is_error and bad_error["code"] == "invalid_input" and bad_error["details"]["field"] == "limit"
    unknown_error = json.loads(unknown.content[0].text)["error"]
    assert unknown_error["code"] == "not_found"
    assert unknown_error["details"]["suggestion"] == "pallium_changed_now"


async def test_repo_outside_any_repository_is_a_json_error(tmp_path: Path):
    server = build_server(cwd=tmp_path)
    async with Client(server) as client:
        result = await client.call_tool("pallium_changed_now", {})
    assert result.is_error
    assert json.loads(result.content[0].text)["error"]["code"] == "invalid_input"


async def test_toolsets_limit_what_is_listed_and_callable(git_repo: Path):
    server = build_server(toolsets="core", cwd=git_repo)
    async with Client(server) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        hidden = await client.call_tool("pallium_changed_now", {})
    assert names == {"pallium_version", "pallium_doctor", "pallium_db_reset"}
    assert json.loads(hidden.content[0].text)["error"]["code"] == "not_found"


async def test_unknown_toolset_is_refused():
    from kernel.errors import PalliumError

    with pytest.raises(PalliumError) as raised:
        build_server(toolsets="core,nope")
    assert raised.value.code == "invalid_input"
    assert "nope" in raised.value.message


async def test_progress_reaches_a_client_that_asked_for_it(git_repo: Path):
    from kernel.models import ToolInput, ToolOutput
    from kernel.tool import Tool

    class StepsInput(ToolInput):
        pass

    class StepsOutput(ToolOutput):
        steps: int

    async def steps(inp: StepsInput, ctx) -> StepsOutput:
        for done in range(1, 4):
            await ctx.progress.update(done, 3, f"step {done}")
        return StepsOutput(steps=3)

    tool = Tool(
        cli="test steps",
        handler=steps,
        input=StepsInput,
        output=StepsOutput,
        summary="Steps.",
        description="Reports progress.",
        authority="observe",
        toolset="test",
    )
    server = build_server(toolsets="all", cwd=git_repo, tools=[tool])
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with Client(server) as client:
        result = await client.call_tool("pallium_test_steps", {}, progress_callback=on_progress)
    assert result.structured_content == {"steps": 3}
    # The first and last always go out; the middle one may be rate-limited away.
    assert seen[0] == (1, 3, "step 1")
    assert seen[-1] == (3, 3, "step 3")
