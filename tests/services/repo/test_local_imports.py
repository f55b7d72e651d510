"""A Python function that imports a name from outside the repository uses that import, not the file's own.

Alembic's `testing/util.py` defines `testing_engine()` and, inside it, does
`from sqlalchemy.testing.engines import testing_engine` and calls it: that call (and that import)
are sqlalchemy's, yet "same file wins" tied both to the function they sit in. A name a function
binds by importing it is that function's binding for every use inside it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio


async def test_a_function_local_import_from_outside_shadows_the_files_definition(tmp_path: Path) -> None:
    repo = new_repo(
        tmp_path,
        {
            "util.py": (
                "def engine(url=None):\n"
                "    from sqlalchemy.testing.engines import engine\n\n"
                "    return engine(url)\n\n\n"
                "def other():\n"
                "    return engine('x')\n"
            ),
            "app.py": "from util import engine\n\n\ndef main():\n    return engine()\n",
        },
    )
    await ask(repo, "pallium_index")
    out = await ask(repo, "pallium_callers", name="engine")
    got = {(r.path, r.line, r.kind, r.resolution) for r in out.references}
    assert ("util.py", 4, "call", "unresolved") in got
    assert ("util.py", 2, "import", "unresolved") in got
    assert ("util.py", 8, "call", "same-file") in got  # the other function sees the file's own
    assert ("app.py", 5, "call", "import") in got
