"""Which files are tests: as each language's runner collects them, so a suggested command runs tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.repo.risk import is_test_path
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

RUNNER_SEES = {
    "tests/test_app.py": True,
    "tests/app_test.py": True,
    "tests/test_apps/blueprintapp/__init__.py": False,  # a sample app the tests import
    "tests/helpers.py": False,
    "tests/conftest.py": False,
    "pkg/x_test.go": True,
    "pkg/testutil/x.go": False,
    "src/test/java/a/FooTest.java": True,
    "src/test/java/a/Helper.java": False,
    "tests/integration.rs": True,
    "tests/common/mod.rs": False,
    "web/__tests__/a.js": True,
    "web/src/a.test.ts": True,
    "test/a.js": True,
    "tests/data.json": False,
    "tests/README.md": False,
    "spec/models/user_spec.rb": True,
    "spec/support/helpers.rb": False,
    "tests/FooTest.php": True,
    "tests/fixtures/test_sample.py": False,
}


@pytest.mark.parametrize(("path", "expected"), RUNNER_SEES.items())
def test_a_file_is_a_test_when_its_runner_would_collect_it(path: str, expected: bool):
    assert is_test_path(path) is expected


async def test_a_sample_app_beside_the_tests_is_never_handed_to_pytest(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "src/shop/__init__.py": "",
            "src/shop/cart.py": "def total(items):\n    return sum(items)\n",
            "tests/test_apps/demo/__init__.py": "from shop.cart import total\n\nAPP = total\n",
            "tests/test_cart.py": "from shop.cart import total\n\n\ndef test_total():\n    assert total([1]) == 1\n",
        },
    )
    out = await ask(empty_repo, "explain", path="src/shop/cart.py")
    assert out.tests == ["tests/test_cart.py"]
    assert out.verification.fast == ["python -m pytest -q tests/test_cart.py"]
