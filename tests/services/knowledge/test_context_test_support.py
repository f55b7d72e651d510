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
