"""A library's own test support (`testing.py`, a `testing/` helper) imitates the code a task is about:
`knowledge context` reads it for a task about testing, not for a change to what it imitates."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio


async def test_the_librarys_test_support_steps_back_unless_the_task_is_about_testing(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": "from pkg._compat import should_strip_ansi\n\n\ndef echo(message, file=None):\n"
            "    '''Print a message to the output stream.'''\n"
            "    if should_strip_ansi(file):\n        message = message\n    return message\n",
            "pkg/_compat.py": "def should_strip_ansi(stream=None):\n"
            "    '''Strip ANSI color codes when the stream is not a terminal.'''\n    return True\n",
            "pkg/testing.py": "from pkg import _compat\n\n\nclass Runner:\n"
            "    '''Invoke with an output stream that is not a terminal: strip ANSI color codes.'''\n\n"
            "    def invoke(self, color=False):\n"
            "        '''The output stream is not a terminal; strip ANSI color codes unless color.'''\n"
            "        _compat.should_strip_ansi = lambda stream=None, color=None: not color\n\n"
            "    def isolate_output_stream(self, terminal=False):\n"
            "        '''An output stream, not a terminal, to strip ANSI color codes from.'''\n"
            "        return terminal\n",
            "tests/test_utils.py": "from pkg.utils import echo\n\n\ndef test_echo():\n    assert echo('x')\n",
        },
    )
    task = "`echo` should strip ANSI color codes when the output stream is not a terminal."
    out = await ask(empty_repo, "pallium_knowledge_context", task=task)
    read = [f.path for f in out.read]
    assert {"pkg/utils.py", "pkg/_compat.py"} <= set(read[:2])
    assert "pkg/testing.py" not in read
    about = await ask(
        empty_repo, "pallium_knowledge_context", task="The test Runner should strip ANSI color codes by default."
    )
    assert "pkg/testing.py" in [f.path for f in about.read][:2]


async def test_tests_named_after_a_private_module_no_test_imports_are_its_tests(empty_repo: Path):
    """`_internal/_signature.py` is reached only through the public `Model`; `tests/test_model_signature.py`
    is named after it and is the test to run, before the many tests importing the package."""
    commit(
        empty_repo,
        "Start",
        {
            "pkg/__init__.py": "from pkg.main import Model\n",
            "pkg/_internal/__init__.py": "",
            "pkg/_internal/_signature.py": "def generate_signature(fields):\n"
            "    # show each default_factory as <factory>\n    return '<factory>'\n",
            "pkg/main.py": "from pkg._internal._signature import generate_signature\n\n\nclass Model:\n"
            "    def __init_subclass__(cls):\n        cls.__signature__ = generate_signature(cls.__annotations__)\n",
            "tests/test_model_signature.py": "from pkg import Model\n\n\ndef test_signature():\n"
            "    assert Model.__signature__\n",
            "pkg/fields.py": "def Field(default=None, default_factory=None):\n    return (default, default_factory)\n",
            "tests/test_fields.py": "from pkg.fields import Field\n\n\ndef test_factory():\n"
            "    assert Field(default_factory=list)\n",
            "tests/test_fields_default.py": "from pkg.fields import Field\n\n\ndef test_default():\n"
            "    assert Field(default=1)\n",
            "tests/test_main.py": "from pkg import Model\n\n\ndef test_model():\n    assert Model()\n",
            "tests/test_dump.py": "from pkg import Model\n\n\ndef test_dump():\n    assert Model()\n",
            "tests/test_copy.py": "from pkg import Model\n\n\ndef test_copy():\n    assert Model()\n",
        },
    )
    out = await ask(
        empty_repo,
        "pallium_knowledge_context",
        task="A model's generated __signature__ should show a Field's default_factory by its name, not <factory>.",
    )
    assert "pkg/_internal/_signature.py" in [f.path for f in out.read]
    assert "tests/test_model_signature.py" in out.tests[:3]
