"""`knowledge context` in a Python package with type stubs, a re-exporting namespace and tests by class.

The traps are the classes a real one showed: a `.pyi` stub repeating every name of the code (a
plain word naming what a namespace's stub declares), a stub the task asks for ("with its type
stub"), the package stub declaring a function implemented in a private module, a test class
(`TestEvolve`) in a test file not named after the module, and a name in a docstring that is no use
of the module defining it.
"""

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio


@pytest.fixture
def stubs_repo(empty_repo: Path) -> Path:
    commit(
        empty_repo,
        "Start",
        {
            "src/kit/__init__.py": "from kit._make import evolve, make_class, record\nfrom kit._next import field\n",
            "src/kit/__init__.pyi": "def evolve(inst: object, **changes: object) -> object: ...\n"
            "def make_class(name: str, fields: list[str]) -> type: ...\n"
            "def field(default: object = ...) -> object: ...\n",
            "src/kit/_make.py": "def record(cls):\n    return cls\n\n\n"
            "def evolve(inst, **changes):\n    return type(inst)(**changes)\n\n\n"
            "def make_class(name, fields):\n    return type(name, (), dict.fromkeys(fields))\n\n\n"
            "def __ne__(self, other):\n    return not self == other\n",
            "src/kit/_next.py": "def field(default=None):\n    return default\n",
            "src/kit/_cmp.py": "from kit._make import __ne__\n\n\n"
            "def cmp_using(eq=None):\n"
            '    """A class comparing by `eq`, as made by record; its repr shows the value."""\n'
            "    body = {'__ne__': __ne__, 'eq': eq}\n    return type('Cmp', (), body)\n",
            "src/kit/checks.py": "def between(low, high):\n    def check(value):\n"
            "        if not low <= value <= high:\n            raise ValueError(value)\n    return check\n",
            "src/kit/checks.pyi": "from typing import Callable\n\n"
            "def between(low: float, high: float) -> Callable[[float], None]: ...\n",
            "src/spaced/__init__.py": "from kit import field\n",
            "src/spaced/__init__.pyi": "def field(default: object = ...) -> object: ...\n",
            "tests/test_make.py": "from kit._make import make_class\n\n\ndef test_make_class():\n"
            "    assert make_class('A', [])\n",
            "tests/test_funcs.py": "from kit import evolve\n\n\nclass TestEvolve:\n    def test_changes(self):\n"
            "        assert evolve(1) is not None\n",
            "tests/test_checks.py": "from kit.checks import between\n\n\ndef test_between():\n    between(0, 1)(0.5)\n",
            "tests/test_cmp.py": "from kit._cmp import cmp_using\n\n\ndef test_cmp():\n    assert cmp_using()\n",
        },
    )
    return empty_repo


async def _read(repo: Path, task: str) -> tuple[dict[str, list[str]], list[str]]:
    out = await ask(repo, "pallium_knowledge_context", task=task)
    return {f.path: f.why for f in out.read}, out.tests


async def test_a_task_about_the_code_does_not_read_a_namespaces_stub(stubs_repo: Path):
    await ask(stubs_repo, "pallium_knowledge_build", model=False)
    read, _ = await _read(stubs_repo, "A field whose default is a list should be rejected when the class is made")
    assert "src/spaced/__init__.pyi" not in read  # it declares `field`; `_next.py` implements it
    assert "src/kit/__init__.pyi" not in read


async def test_a_task_asking_for_the_stub_reads_it_after_the_module(stubs_repo: Path):
    await ask(stubs_repo, "pallium_knowledge_build", model=False)
    read, tests = await _read(stubs_repo, "Add an outside validator, the opposite of between, with its type stub")
    paths = list(read)
    assert paths[:2] == ["src/kit/checks.py", "src/kit/checks.pyi"], read
    assert read["src/kit/checks.pyi"][0] == "the type stub of src/kit/checks.py"
    assert tests[0] == "tests/test_checks.py"


async def test_the_package_stub_follows_the_private_module_implementing_what_it_declares(stubs_repo: Path):
    await ask(stubs_repo, "pallium_knowledge_build", model=False)
    read, _ = await _read(stubs_repo, "make_class should take a doc argument, in the implementation and its stub")
    paths = list(read)
    assert paths[0] == "src/kit/_make.py"
    assert paths[1] == "src/kit/__init__.pyi"


async def test_a_test_class_named_after_the_function_is_its_test(stubs_repo: Path):
    await ask(stubs_repo, "pallium_knowledge_build", model=False)
    read, tests = await _read(stubs_repo, "evolve should raise a TypeError naming a change the class has no field for")
    assert next(iter(read)) == "src/kit/_make.py"
    assert "tests/test_funcs.py" in tests[:2]  # `class TestEvolve`, though `_make.py` has `test_make.py`


async def test_a_name_in_a_docstring_is_no_use_of_the_module_defining_it(stubs_repo: Path):
    await ask(stubs_repo, "pallium_knowledge_build", model=False)
    read, tests = await _read(stubs_repo, "Classes made by cmp_using should have a readable repr showing the value")
    assert next(iter(read)) == "src/kit/_cmp.py"
    assert "src/kit/_make.py" not in read  # `record` is in the docstring; only `__ne__` is imported
    assert tests[0] == "tests/test_cmp.py"
