"""A small real repository whose modules, imports, tests and history are known exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernel.clock import FixedClock, parse_iso
from kernel.context import ToolContext
from kernel.dispatch import call
from tests.conftest import git, write

NOW = "2026-03-01T00:00:00Z"

CORE = '''"""The core engine."""

def parse_config(text):
    """Read settings from text."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


class Engine:
    """Runs jobs."""

    def run(self, job):
        return job
'''


def commit(repo: Path, message: str, files: dict[str, str | None], when: str = "2026-02-20T00:00:00Z") -> str:
    for relative, text in files.items():
        if text is None:
            git(repo, "rm", "-q", relative)
        else:
            write(repo, relative, text)
            git(repo, "add", relative)
    git(repo, "commit", "-q", "--allow-empty", "-m", message, env={"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when})
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def app_repo(empty_repo: Path) -> Path:
    """app/core (3 files and a one-file folder that folds into it), app/web importing core, tests, docs, noise."""
    repo = empty_repo
    commit(
        repo,
        "Start the engine",
        {
            "README.md": "# demo\n\nA demo app.\n",
            "app/core/__init__.py": "",
            "app/core/engine.py": CORE,
            "app/core/jobs.py": "from app.core.engine import Engine\n\ndef queue():\n    return Engine()\n",
            "app/core/extra/helpers.py": "from app.core.engine import parse_config\n\n"
            "def load(p):\n    return parse_config(p)\n",
            "app/web/__init__.py": "",
            "app/web/server.py": "import requests\nfrom app.core.engine import Engine, parse_config\n\n"
            "def serve():\n    return Engine(), parse_config(''), requests\n",
            "app/web/routes.py": "from app.core.jobs import queue\n\ndef route():\n    return queue()\n",
            "db/schema.sql": "CREATE TABLE jobs (id INTEGER);\nCREATE TABLE runs (id INTEGER);\n",
            "db/seed.sql": "INSERT INTO jobs VALUES (1);\n",
            "db/deploy.sh": "#!/bin/sh\nmigrate() { echo up; }\n",
            "package-lock.json": "{}\n",
            "vendor/lib/thing.py": "def vendored():\n    return 1\n",
        },
        when="2026-02-01T00:00:00Z",
    )
    commit(
        repo,
        "Test the engine",
        {
            "tests/test_engine.py": "from app.core.engine import parse_config\n\ndef test_parse():\n"
            "    assert parse_config('a=1') == {'a': '1'}\n",
            "tests/test_server.py": "from app.web.server import serve\n\ndef test_serve():\n    assert serve()\n",
        },
        when="2026-02-05T00:00:00Z",
    )
    commit(
        repo,
        "Revert the job queue change",
        {
            "app/core/jobs.py": "from app.core.engine import Engine\n\n"
            "def queue():\n    return Engine()\n\n\ndef drain():\n    return []\n"
        },
        when="2026-02-10T00:00:00Z",
    )
    return repo


async def ask(repo: Path, tool: str, ceiling: str = "edit", **arguments: Any) -> Any:
    """Call a tool through the dispatcher, as the CLI and the MCP server do."""
    ctx = ToolContext(cwd=repo, clock=FixedClock(parse_iso(NOW)), ceiling=ceiling)  # type: ignore[arg-type]
    try:
        return await call(tool, arguments, ctx)
    finally:
        ctx.close()


from tests.kernel.conftest import fake  # noqa: E402, F401  (the fake provider, installed as `claude` on PATH)
