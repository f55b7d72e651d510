"""A test reached only by an import: `tests/test_output.py` imports `pkg.wrapping` and shares no name
with it; it is the test of a change to `wrapping.py` (and a sibling module's own test is not)."""

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio


async def test_a_test_importing_the_module_without_its_name_is_its_test(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "pyproject.toml": '[project]\nname = "pkg"\n',
            "pkg/__init__.py": "",
            "pkg/wrapping.py": "def wrap_paragraph(text, width=80):\n"
            "    '''Wrap one paragraph of help text at the terminal width.'''\n    return text[:width]\n",
            "pkg/colors.py": "def paint(text, color):\n    '''Paint text in a terminal color.'''\n    return text\n",
            "tests/__init__.py": "",
            "tests/test_output.py": "from pkg.wrapping import wrap_paragraph\n\n\n"
            "def test_long_help_is_cut():\n    assert wrap_paragraph('a' * 100) == 'a' * 80\n",
            "tests/test_colors.py": "from pkg.colors import paint\n\n\n"
            "def test_paint():\n    assert paint('a', 'red') == 'a'\n",
        },
    )
    await ask(empty_repo, "pallium_knowledge_build", model=False)
    out = await ask(
        empty_repo, "pallium_knowledge_context", task="wrap_paragraph should keep a bullet line on its own line."
    )
    assert out.read[0].path == "pkg/wrapping.py"
    assert out.tests[0] == "tests/test_output.py"
    assert "tests/test_colors.py" not in out.tests
