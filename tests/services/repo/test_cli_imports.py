"""A query on a warm index, from the CLI, loads the query's code only: no parser, no history, no MCP."""

import json
import subprocess
import sys

import pytest

from tests.conftest import write
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

_PROBE = (
    "import sys, contextlib, io, json\n"
    "from pallium_mcp.cli import main\n"
    "out = io.StringIO()\n"
    "with contextlib.redirect_stdout(out):\n"
    "    code = main(sys.argv[1:])\n"
    "heavy = ('mcp', 'starlette', 'tree_sitter', 'tree_sitter_language_pack', 'services.repo.parsing', "
    "'services.repo.index_content', 'services.repo.indexing', 'services.repo.explain', 'services.repo.history')\n"
    "loaded = sorted(m for m in sys.modules if any(m == h or m.startswith(h + '.') for h in heavy))\n"
    "print(json.dumps({'code': code, 'answer': json.loads(out.getvalue()), 'loaded': loaded}))\n"
)


async def test_symbols_on_a_warm_index_imports_no_parser_and_no_history_code(empty_repo):
    commit(empty_repo, "Add the store", {"shop/store.py": "class Store:\n    def save(self):\n        return 1\n"})
    await ask(empty_repo, "pallium_index")
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "symbols", "shop/store.py", "--json"],
        cwd=empty_repo,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["code"] == 0
    assert [s["qualified"] for s in result["answer"]["symbols"]] == ["Store", "Store.save"]
    assert result["answer"]["freshness"]["status"] == "fresh"
    assert result["loaded"] == []


async def test_symbols_on_a_changed_file_still_sees_the_change(empty_repo):
    commit(empty_repo, "Add the store", {"shop/store.py": "class Store:\n    pass\n"})
    await ask(empty_repo, "pallium_index")
    write(empty_repo, "shop/store.py", "class Store:\n    def load(self):\n        return 2\n")
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "symbols", "shop/store.py", "--json"],
        cwd=empty_repo,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["answer"]["freshness"]["status"] == "stale"
    assert result["answer"]["freshness"]["changed_files"] == ["shop/store.py"]
    assert result["loaded"] == [], "hashing a changed file needs no parser: an agent mid-edit always has one"
