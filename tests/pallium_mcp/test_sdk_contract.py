"""What Pallium assumes of the mcp SDK beyond its public API: this fails loudly when an upgrade moves it.

The server hands the SDK each tool's input schema through `MCPServer._lowlevel_server
.get_tool_input_schema`, which streamable HTTP reads to check `Mcp-Param-*` headers before a call
is dispatched. If this test fails after upgrading `mcp`, look for a public way to do the same,
else adapt `pallium_mcp/server.py::_install_input_schema_lookup` and the range in pyproject.toml.
"""

from __future__ import annotations

import inspect
from importlib.metadata import version

from packaging.specifiers import SpecifierSet

from pallium_mcp.server import build_server


def _pinned_range() -> SpecifierSet:
    from importlib.metadata import requires

    line = next(r for r in requires("pallium") or [] if r.replace(" ", "").startswith("mcp") and "extra" not in r)
    return SpecifierSet(line.split(";")[0].strip()[len("mcp") :])


def test_the_installed_sdk_is_within_the_pinned_range():
    assert version("mcp") in _pinned_range(), f"mcp {version('mcp')} is outside {_pinned_range()}"


def test_the_lowlevel_server_reads_the_lookup_pallium_sets():
    from mcp.server import _streamable_http_modern
    from mcp.server.lowlevel.server import Server

    assert "get_tool_input_schema" in inspect.signature(Server.__init__).parameters
    assert "app.get_tool_input_schema" in inspect.getsource(_streamable_http_modern)
    server = build_server(toolsets="repo")
    lookup = server._lowlevel_server.get_tool_input_schema
    explain = lookup("pallium_explain")
    assert explain is not None and "path" in explain["properties"] and explain["required"] == ["path"]
    assert lookup("pallium_no_such_tool") is None
