"""Every registered tool has its answer pinned by a snapshot test, so a new tool cannot skip one.

The snapshot tests call a tool by CLI path or MCP name, the first argument of an awaited call
compared with `snapshot(...)`, perhaps through one normalising call
(`environment_free(await answer("doctor")) == snapshot(...)`). This test reads them and lists the
registered tools that none pins.
"""

from __future__ import annotations

import ast
from pathlib import Path

from pallium_mcp.registry import all_tools

SNAPSHOT_TESTS = sorted(Path(__file__).parent.glob("test_snapshots*.py"))


def _pinned_names(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        left = node.left
        if isinstance(left, ast.Call) and len(left.args) == 1:  # a normalising wrapper: f(await answer(...))
            left = left.args[0]
        if not isinstance(left, ast.Await):
            continue
        pinned = any(
            isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "snapshot"
            for c in node.comparators
        )
        called = left.value
        if not (pinned and isinstance(called, ast.Call) and called.args):
            continue
        first = called.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            names.add(first.value)
    return names


def test_the_reader_finds_snapshot_calls_and_only_those():
    source = (
        "async def t(answer):\n"
        "    assert await answer('index') == snapshot({})\n"
        "    assert await answer('search', query='x') == 3\n"
        "    await answer('risk')\n"
        "    assert masked(await answer('facts')) == snapshot({})\n"
    )
    assert _pinned_names(source) == {"index", "facts"}


def test_every_registered_tool_has_an_answer_snapshot():
    pinned: set[str] = set()
    for path in SNAPSHOT_TESTS:
        pinned |= _pinned_names(path.read_text(encoding="utf-8"))
    missing = sorted(t.cli for t in all_tools() if t.cli not in pinned and t.name not in pinned)
    assert SNAPSHOT_TESTS, "no snapshot tests found"
    assert not missing, f"tools with no answer snapshot in tests/pallium_mcp/test_snapshots*.py: {missing}"
