"""What `tools/list` costs an agent, and that the compact listing still says what a client needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client

from benchmarks.mcp import GOALS, listed_tools, model_facing, tokenizer
from pallium_mcp import schema
from pallium_mcp.registry import DEFAULT_TOOLS, all_tools, select_toolsets
from pallium_mcp.server import build_server

pytestmark = pytest.mark.anyio

# Observe tools that write only Pallium's own index or cache: a client may run them in parallel.
CACHE_WRITERS = {
    "pallium_explain",
    "pallium_symbols",
    "pallium_callers",
    "pallium_search",
    "pallium_risk",
    "pallium_neighbors",
    "pallium_decisions",
    "pallium_handoff",
    "pallium_changed_now",
    "pallium_index",
    "pallium_sessions_sync",
    "pallium_facts",
}


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _keys(node: Any, named: bool = False) -> set[str]:
    """Every schema keyword used in `node` (not the names of properties)."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if not named:
                found.add(key)
            found |= _keys(value, named=key in ("properties", "$defs") and not named)
    elif isinstance(node, list):
        for item in node:
            found |= _keys(item)
    return found


async def test_the_default_listing_stays_within_its_goals(tmp_path: Path):
    tools = await listed_tools("default", tmp_path)
    count, method = tokenizer()
    assert method.startswith("o200k_base"), method  # bpe-openai is in the test extra: count, do not guess
    whole = len(_compact({"tools": tools}).encode())
    facing = count(_compact([model_facing(t) for t in tools]))
    assert whole <= GOALS["list_bytes"], f"tools/list is {whole} bytes"
    assert facing <= GOALS["model_tokens"], f"the model-facing part is {facing} tokens"
    assert {t["name"] for t in tools} >= DEFAULT_TOOLS


async def test_published_schemas_carry_no_generated_titles_and_annotations_no_second_title(tmp_path: Path):
    for tool in await listed_tools("all", tmp_path):
        assert "title" not in _keys(tool["inputSchema"]), tool["name"]
        assert "title" not in _keys(tool["outputSchema"]), tool["name"]
        assert "title" not in tool.get("annotations", {}), tool["name"]
        assert tool["title"]  # the summary, once


async def test_tools_that_write_only_pallium_own_index_are_announced_read_only(tmp_path: Path):
    listed = {t["name"]: t for t in await listed_tools("all", tmp_path)}
    for name in CACHE_WRITERS:
        assert listed[name]["annotations"]["readOnlyHint"] is True, name
    for tool in all_tools():  # and a tool that changes the user's tree or deletes data never is
        if tool.authority in ("edit", "admin") or tool.annotations.destructive:
            assert not tool.annotations.read_only or tool.escalation, tool.name


def test_a_compact_input_schema_accepts_and_refuses_what_the_model_does():
    for tool in all_tools():
        full = tool.input.model_json_schema()
        compact = schema.input_schema(full)
        assert compact.get("required", []) == full.get("required", []), tool.name
        assert set(compact.get("properties", {})) == set(full.get("properties", {})), tool.name
        jsonschema.Draft202012Validator.check_schema(compact)
    recall = schema.input_schema(
        next(t for t in all_tools() if t.name == "pallium_sessions_recall").input.model_json_schema()
    )
    validator = jsonschema.Draft202012Validator(recall)
    assert validator.is_valid({"query": "x"}) and "null" not in json.dumps(recall["properties"]["since"])
    assert validator.is_valid({"query": "x", "source": "codex"})
    assert not validator.is_valid({"query": "x", "source": "bard"})
    assert not validator.is_valid({"query": "x", "limit": "five"})


async def test_every_answer_validates_against_its_published_output_schema(git_repo: Path):
    async with Client(build_server(toolsets="repo", cwd=git_repo)) as client:
        listed = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        for name, arguments in (("pallium_explain", {"path": "src/app.py"}), ("pallium_changed_now", {})):
            result = await client.call_tool(name, arguments)
            assert not result.is_error
            jsonschema.validate(result.structured_content, listed[name])
            assert set(listed[name]["required"]) <= set(result.structured_content)


def test_default_names_only_tools_that_exist():
    names = {t.name for t in all_tools()}
    assert names >= DEFAULT_TOOLS
    default = {t.name for t in select_toolsets(all_tools(), "default")}
    assert default >= DEFAULT_TOOLS and "pallium_workflow_gc" not in default
    assert {t.name for t in select_toolsets(all_tools(), "default,loops")} > default


async def test_a_description_names_a_tool_another_toolset_serves_with_its_toolset(tmp_path: Path):
    import re

    listed = await listed_tools("default", tmp_path)
    names = {t["name"] for t in listed}
    toolset_of = {t.name: t.toolset for t in all_tools()}
    mentioned = 0
    for tool in listed:
        for match in re.finditer(r"pallium_[a-z_]+[a-z]", tool["description"]):
            name = match.group(0)
            if name in toolset_of and name not in names:
                mentioned += 1
                assert tool["description"][match.end() :].startswith(f" (toolset {toolset_of[name]})"), name
            elif name in names:
                assert not tool["description"][match.end() :].startswith(" (toolset"), name
    assert mentioned  # the default toolset's descriptions do point beyond it (start -> workflow_run)
