"""Validation is linear in the script's size and runs off the event loop."""

import asyncio

import pytest
from mcp import Client

from pallium_mcp.server import build_server
from services.workflows.validate import MAX_FINDINGS, validate_source

pytestmark = pytest.mark.anyio

BIG = "".join(f'const r{i} = await agent("part {i}", {{label: "p{i}"}});\nf{i}();\n' for i in range(15_000))[:999_000]


async def test_a_long_identifier_and_many_findings_validate_with_a_bounded_answer():
    long_name = await validate_source("const " + "a" * 200_000 + " = (x) => x;\nreturn 1;\n")
    assert long_name.valid
    many = await validate_source("".join(f"f{i}();\n" for i in range(5_000)))
    assert len(many.warnings) == MAX_FINDINGS + 1  # the first ones (the no-meta warning first), then a note
    assert many.warnings[-1] == f"... and {5_000 + 1 - MAX_FINDINGS} more of the same kind"


async def test_pallium_version_answers_while_a_big_validation_runs(git_repo):
    """In-process, client and server share one event loop: a validation on it would finish first."""
    order: list[str] = []
    async with Client(build_server(toolsets="all", cwd=git_repo)) as client:

        async def validate() -> None:
            result = await client.call_tool("pallium_workflow_validate", {"source": BIG})
            assert not result.is_error, result.content[0].text[:300]
            order.append("validate")

        task = asyncio.ensure_future(validate())
        await asyncio.sleep(0.05)  # lets the validation start; a blocked loop resumes here only after it
        version = await client.call_tool("pallium_version", {})
        order.append("version")
        await task
    assert not version.is_error
    assert order == ["version", "validate"]
