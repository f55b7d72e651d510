"""Every registered tool tells route how to recommend it, and the declaration is checked when made."""

from __future__ import annotations

import pytest

from kernel.tool import Route, Tool
from pallium_mcp.registry import all_tools
from tools_manifest import load_manifest


def test_every_registered_tool_declares_route_metadata():
    missing = [tool.cli for tool in all_tools() if tool.route is None]
    assert missing == [], f"tools without route metadata (add route=Route(...)): {missing}"


def test_every_manifest_entry_carries_its_route_metadata():
    entries = load_manifest()["tools"]
    assert entries
    for entry in entries:
        route = entry["route"]
        assert route is not None, entry["name"]
        assert route["capability"], entry["name"]
        if route["routable"]:
            assert len(route["phrasings"]) >= 3, entry["name"]


def test_routable_capabilities_are_distinct():
    capabilities = [t.route.capability or t.cli for t in all_tools() if t.route and t.route.routable]
    assert len(capabilities) == len(set(capabilities))


def _tool(route: Route) -> Tool:
    async def handler(inp, ctx):  # never called: the declaration itself is under test
        raise NotImplementedError

    return Tool(
        cli="probe",
        handler=handler,
        input=object,  # type: ignore[arg-type]  # the declaration's checks never read the models
        output=object,  # type: ignore[arg-type]
        summary="s",
        description="d",
        authority="observe",
        toolset="core",
        route=route,
    )


@pytest.mark.parametrize(
    ("route", "problem"),
    [
        (Route(phrasings=("one", "two")), "three phrasings"),
        (Route(phrasings=("a", "b", "c"), arguments={"path": "filename"}), "unknown source"),  # type: ignore[dict-item]
        (Route(phrasings=("a", "b", "c"), levels={"root": ("x",)}), "not an authority level"),  # type: ignore[dict-item]
        (Route(phrasings=("a", "b", "c"), needs=("network",)), "need"),  # type: ignore[arg-type]
        (Route(phrasings=("a", "b", "c"), signals=("sunny",)), "signal"),  # type: ignore[arg-type]
    ],
)
def test_a_wrong_route_declaration_is_refused_when_the_tool_is_declared(route: Route, problem: str):
    with pytest.raises(ValueError, match=problem):
        _tool(route)
