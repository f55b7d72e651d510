"""`knowledge context` on the shapes real repositories have: qualified names, test names, fixtures, folders."""

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio

_CIRCULAR = "// circular import fixture for the hot update\nexport const circular = 'circular import update'\n"


@pytest.fixture
def shaped_repo(empty_repo: Path) -> Path:
    files = {
        "pyproject.toml": "[project]\nname = 'demo'\n",
        "lib/__init__.py": "",
        "lib/session.py": "class Session:\n    def merge(self, obj):\n        return obj\n\n"
        "    def add(self, obj):\n        return obj\n",
        "lib/scoping.py": "from lib.session import Session\n\n\nclass ScopedSession:\n"
        "    def merge(self, obj):\n        return Session().merge(obj)\n",
        "lib/loading.py": "def merge(rows):\n    return rows\n",
        "lib/dialects/__init__.py": "",
        "lib/dialects/mysql/__init__.py": "",
        "lib/dialects/mysql/reflection.py": "def reflect_table(name):\n    return name\n",
        "lib/dialects/sqlite/__init__.py": "",
        "lib/dialects/sqlite/reflection.py": "def reflect_table(name):\n    return name\n",
        "lib/hot.py": "from lib.session import Session\n\n\ndef hot_update(module):\n"
        '    """Apply a hot update to a module, circular imports included."""\n    return Session(), module\n',
        "lib/types.py": "class Enum:\n    def __init__(self, native=True):\n        self.native = native\n",
        "lib/elements.py": "def false():\n    return False\n",
        "LICENSE.md": "Permission to update, merge and import this circular notice.\n",
        "tests/__init__.py": "",
        "tests/test_merge.py": "import lib\n\n\ndef test_merge():\n    assert lib\n",
        "tests/test_scoping.py": "from lib.scoping import ScopedSession\n\n\ndef test_scoped():\n"
        "    assert ScopedSession()\n",
        "tests/test_session.py": "from lib.session import Session\n\n\ndef test_add():\n    assert Session()\n",
        "tests/fixtures/merge_data.py": "MERGE = 'session merge pending'\n",
    }
    for i in range(6):
        files[f"e2e/hot/circular_{i}.js"] = _CIRCULAR
    commit(empty_repo, "Start", files)
    return empty_repo


async def test_a_qualified_name_points_at_its_own_definition_not_every_namesake(shaped_repo: Path):
    out = await ask(shaped_repo, "pallium_knowledge_context", task="Session.merge drops pending objects")
    assert out.read[0].path == "lib/session.py"
    assert out.read[0].symbols == ["Session.merge:2"]
    assert all("defines ScopedSession.merge" not in r for f in out.read for r in f.why)


async def test_tests_named_after_what_the_task_names_rank_and_fixtures_are_not_tests(shaped_repo: Path):
    out = await ask(shaped_repo, "pallium_knowledge_context", task="Session.merge drops pending objects")
    assert set(out.tests[:2]) == {"tests/test_session.py", "tests/test_merge.py"}  # paired, and named `merge`
    assert "tests/fixtures/merge_data.py" not in out.tests
    assert out.checks[0] in ("python -m pytest -q tests/test_session.py", "python -m pytest -q tests/test_merge.py")


async def test_a_folder_the_task_mentions_and_a_fixture_folder_that_cannot_fill_the_list(shaped_repo: Path):
    out = await ask(shaped_repo, "pallium_knowledge_context", task="SQLite reflect_table misses check constraints")
    assert out.read[0].path == "lib/dialects/sqlite/reflection.py"
    hot = await ask(shaped_repo, "pallium_knowledge_context", task="hot update fails on a circular import")
    from_fixtures = [f.path for f in hot.read if f.path.startswith("e2e/hot/")]
    assert len(from_fixtures) <= 3  # six fixture files repeat the words; at most three speak for their folder
    assert "LICENSE.md" not in [f.path for f in hot.read]
    assert hot.read[0].path == "lib/hot.py"  # the code before the fixtures that repeat its words


async def test_a_capitalised_first_word_naming_a_class_counts_and_a_literal_does_not(shaped_repo: Path):
    out = await ask(shaped_repo, "pallium_knowledge_context", task="Enum columns with native=False lose their name")
    assert out.read[0].path == "lib/types.py" and out.read[0].symbols == ["Enum:1"]
    assert all("defines false" not in r for f in out.read for r in f.why)
