"""`knowledge context` leaves a frozen copy of the package kept inside it (`pkg/v1/`, repeating the
package's module names and imported by nothing live) out of a task that does not name the copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio

_NETWORKS = (
    "class NameEmail:\n    def __init__(self, name, email):\n        # split the display name from the address\n"
    "        self.name = name\n        self.email = email\n"
)
_TYPES = "class ByteSize(int):\n    def human_readable(self, decimal=False):\n        return f'{self}B'\n"
_MAIN = "class BaseModel:\n    def model_dump(self):\n        return dict(self.__dict__)\n"


def _package_with_copy(repo: Path) -> Path:
    commit(
        repo,
        "Start",
        {
            "pkg/__init__.py": "from pkg.networks import NameEmail\n",
            "pkg/networks.py": _NETWORKS,
            "pkg/types.py": _TYPES,
            "pkg/main.py": _MAIN,
            "pkg/color.py": "class Color:\n    def as_hex(self):\n        return '#fff'\n",
            "pkg/legacy/__init__.py": "",
            "pkg/legacy/networks.py": _NETWORKS,
            "pkg/legacy/types.py": _TYPES,
            "pkg/legacy/main.py": _MAIN,
            "pkg/legacy/color.py": "class Color:\n    def as_hex(self):\n        return '#ffffff'\n",
            "tests/test_networks.py": "from pkg.networks import NameEmail\n\n\ndef test_name():\n"
            "    assert NameEmail('a', 'b').name == 'a'\n",
            "tests/test_legacy.py": "from pkg.legacy.networks import NameEmail\n\n\ndef test_old():\n"
            "    assert NameEmail('a', 'b')\n",
        },
    )
    return repo


async def test_a_frozen_copy_of_the_named_definition_is_left_out(empty_repo: Path):
    repo = _package_with_copy(empty_repo)
    out = await ask(repo, "pallium_knowledge_context", task="NameEmail should split a quoted display name.")
    read = [f.path for f in out.read]
    assert read[0] == "pkg/networks.py"
    assert "pkg/legacy/networks.py" not in read
    assert out.tests[0] == "tests/test_networks.py"
    asked = await ask(
        repo, "pallium_knowledge_context", task="The legacy NameEmail should split a quoted display name."
    )
    assert "pkg/legacy/networks.py" in [f.path for f in asked.read]


async def test_a_subpackage_the_package_imports_is_no_copy(empty_repo: Path):
    """A subfolder repeating module names but imported by the live code (a second renderer, say) is
    live code itself: its definition of the name stays in the answer."""
    repo = _package_with_copy(empty_repo)
    uses = "from pkg.legacy import networks, types, main, color\n"
    changed = {name: uses + (repo / name).read_text() for name in ("pkg/networks.py", "pkg/types.py", "pkg/main.py")}
    commit(repo, "Use the subpackage", changed)
    out = await ask(repo, "pallium_knowledge_context", task="NameEmail should split a quoted display name.")
    assert "pkg/legacy/networks.py" in [f.path for f in out.read]
