"""Names a program registers as strings are found by `search`: options, routes, commands, handlers.

`add_option("max_conns")` declares an option no definition is named after; an agent asking
`search max_conns` (or `max conns`, `/health`, `serve`) must land on the line that registers it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio

_SERVER = """\
import optparse

parser = optparse.OptionParser()
parser.add_option("--max-conns", type=int)
parser.add_option("max_idle", type=int)


@app.route("/health/live")
def health():
    return "ok"


register("cleanup_jobs")
config.get("max_conns")


def max_connections_default():
    return 10
"""

_APP = """\
const app = require('express')();
app.get('/users/:id', show);
program.command('serve-static');
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return new_repo(tmp_path, {"server.py": _SERVER, "web/app.js": _APP})


@pytest.mark.parametrize(
    ("query", "where"),
    [
        ("max_conns", ("server.py", 4)),
        ("max conns", ("server.py", 4)),
        ("max-conns", ("server.py", 4)),
        ("max_idle", ("server.py", 5)),
        ("/health/live", ("server.py", 8)),
        ("health live", ("server.py", 8)),
        ("cleanup_jobs", ("server.py", 13)),
        ("/users/:id", ("web/app.js", 2)),
        ("serve-static", ("web/app.js", 3)),
        ("serveStatic", ("web/app.js", 3)),
    ],
)
async def test_a_registered_string_is_found_at_its_registration(repo: Path, query: str, where: tuple[str, int]):
    out = await ask(repo, "pallium_search", query=query, limit=5)
    registrations = [(h.path, h.line) for h in out.results if h.kind == "registration"]
    assert registrations[:1] == [where], (query, [(h.kind, h.qualified, h.path, h.line) for h in out.results])
    hit = next(h for h in out.results if h.kind == "registration")
    with open(repo / hit.path, encoding="utf-8") as f:
        assert hit.signature == f.read().splitlines()[hit.line - 1].strip()  # the registering line, to act on


async def test_a_read_of_a_key_is_no_registration_and_a_definition_still_ranks(repo: Path):
    out = await ask(repo, "pallium_search", query="max_conns", limit=10)
    lines = [(h.path, h.line) for h in out.results if h.kind == "registration"]
    assert ("server.py", 14) not in lines  # `config.get("max_conns")` reads the option
    exact = await ask(repo, "pallium_search", query="max_connections_default", limit=3)
    assert exact.results[0].qualified == "max_connections_default"  # an exact definition keeps first place


async def test_registrations_page_on_with_the_cursor(repo: Path):
    first = await ask(repo, "pallium_search", query="max", limit=1)
    seen = [(first.results[0].kind, first.results[0].path, first.results[0].line)]
    cursor = first.next_cursor
    while cursor:
        page = await ask(repo, "pallium_search", query="max", limit=1, cursor=cursor)
        seen += [(h.kind, h.path, h.line) for h in page.results]
        cursor = page.next_cursor
    assert len(seen) == len(set(seen))  # no hit twice across pages
    assert {("registration", "server.py", 4), ("registration", "server.py", 5)} <= set(seen)
