"""Every repository tool's answer stays within its declared byte budget, freshness included.

The repository is built so each answer would pass its budget by a wide margin: a file with 400
documented functions, a name used in 150 files, 40 commits with long explanations, and, after
the index, 40 changed files under long paths, so the index is stale and `freshness` lists many.
The budget is measured on the JSON that leaves (MCP's text and `--json` are the same bytes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kernel.dispatch import find
from kernel.tool import CONTEXT_BUDGET, SEARCH_BUDGET
from services.repo.queries import decode_cursor
from tests.conftest import git, write
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

_LONG = "deeply/nested/folder/with/a/rather/long/name/that/agents/see/often/"


def _size(out: Any) -> int:
    return len(out.model_dump_json().encode())


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("budgets") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    functions = "".join(
        f'def verification_plan_step_{i}(argument_{i}: int, other: str = "x") -> int:\n'
        f'    """Plan verification step {i}: checks the plan and says why it passes or fails, at length."""\n'
        f"    return target(argument_{i})\n\n"
        for i in range(400)
    )
    files = {"big.py": "from lib import target\n\n" + functions, "lib.py": "def target(x):\n    return x\n"}
    files.update({f"{_LONG}user_{i}.py": "from lib import target\n\ntarget(1)\ntarget(2)\n" for i in range(150)})
    commit(repo, "Start", files, when="2026-01-01T00:00:00Z")
    for i in range(40):
        body = f"Because verification plans drift, step {i} is checked twice. " * 12
        commit(repo, f"Check the verification plan {i}\n\n{body}", {"big.py": files["big.py"] + f"X = {i}\n"})
    return repo


@pytest.fixture(scope="module")
def stale_repo(big_repo: Path) -> Path:
    import asyncio

    asyncio.run(ask(big_repo, "index"))
    for i in range(40):  # tracked files changed after the index: freshness lists them
        write(big_repo, f"{_LONG}user_{i}.py", f"from lib import target\n\ntarget({i})\n")
    return big_repo


async def _freshness_is_stale(out: Any) -> None:
    assert out.freshness.status == "stale"
    assert out.freshness.changed_count >= 40  # the count stays whole when the list is cut


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("explain", {"path": "big.py"}),
        ("symbols", {"path": "big.py"}),
        ("search", {"query": "verification plan step", "limit": 100}),
        ("callers", {"name": "target", "limit": 1000}),
        ("decisions", {"query": "verification plan", "limit": 100}),
        ("neighbors", {"path": "big.py", "limit": 200}),
        ("risk", {"path": "big.py"}),
        ("handoff", {"limit": 1000}),
        ("changed-now", {"limit": 5000}),
    ],
)
async def test_a_stale_index_keeps_every_answer_within_its_budget(stale_repo: Path, tool: str, arguments: dict):
    declared = find(tool).budget
    assert declared in (SEARCH_BUDGET, CONTEXT_BUDGET)
    out = await ask(stale_repo, tool, **arguments)
    assert _size(out) <= declared, f"{tool}: {_size(out)} bytes, budget {declared}"
    await _freshness_is_stale(out)


async def test_explain_and_symbols_lift_the_budget_with_full(stale_repo: Path):
    whole = await ask(stale_repo, "symbols", path="big.py", full=True)
    assert len(whole.symbols) == 200 and _size(whole) > 4 * SEARCH_BUDGET  # `limit` still applies
    cut = await ask(stale_repo, "symbols", path="big.py")
    assert cut.truncated and 0 < len(cut.symbols) < 200
    assert [s.name for s in cut.symbols] == [s.name for s in whole.symbols[: len(cut.symbols)]]
    explained = await ask(stale_repo, "explain", path="big.py", full=True)
    assert _size(explained) > SEARCH_BUDGET and len(explained.symbols) == 401


async def test_a_cut_page_continues_where_it_ended(stale_repo: Path):
    first = await ask(stale_repo, "search", query="verification plan step", limit=100)
    assert first.truncated and first.next_cursor and decode_cursor(first.next_cursor) == len(first.results)
    second = await ask(stale_repo, "search", query="verification plan step", limit=100, cursor=first.next_cursor)
    seen = {(h.path, h.line) for h in first.results}
    assert second.results and not seen & {(h.path, h.line) for h in second.results}

    refs = await ask(stale_repo, "callers", name="target", limit=1000)
    assert refs.total >= 300 and refs.truncated and len(refs.references) < refs.total
    after = await ask(stale_repo, "callers", name="target", limit=1000, cursor=refs.next_cursor)
    assert (after.references[0].path, after.references[0].line) not in {(r.path, r.line) for r in refs.references}


async def test_handoff_with_400_new_test_files_stays_within_12_kb(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", {"app.py": "def run():\n    return 1\n"})
    commit(repo, "Grow", {"app.py": "def run():\n    return 2\n"})
    for i in range(400):
        write(repo, f"tests/unit/generated/test_case_number_{i}.py", f"def test_{i}():\n    assert {i} == {i}\n")
    out = await ask(repo, "handoff", limit=1000)
    assert _size(out) <= CONTEXT_BUDGET
    assert out.truncated and out.summary.startswith("401 changed file(s)")


async def test_the_mcp_answer_is_the_measured_one(stale_repo: Path):
    from mcp import Client

    from pallium_mcp.server import build_server

    async with Client(build_server(cwd=stale_repo)) as client:
        result = await client.call_tool("pallium_explain", {"path": "big.py"})
    assert not result.is_error
    text = result.content[0].text
    assert len(text.encode()) <= SEARCH_BUDGET
    assert json.loads(text)["freshness"]["status"] == "stale"


@pytest.mark.parametrize("tool", ["search", "decisions"])
async def test_a_huge_query_is_cut_in_the_echo_not_in_the_results(big_repo: Path, tool: str):
    words = "verification plan step"
    asked = await ask(big_repo, tool, query=words, limit=5)
    huge = await ask(big_repo, tool, query=words + " padding" * 11_000, limit=5)  # a 90 KB query
    assert _size(huge) <= SEARCH_BUDGET
    assert huge.query.startswith(words) and huge.query.endswith("of the `query` you sent]")
    listed = "results" if tool == "search" else "decisions"
    assert len(getattr(huge, listed)) == len(getattr(asked, listed)) >= 2
