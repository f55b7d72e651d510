"""Fixtures of the front-door tests: a small repository with fixed dates, authors and so shas."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import commit


@pytest.fixture
def fixed_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start the shop",
        {
            "shop/cart.py": 'def total(items):\n    """Sum the prices."""\n    return sum(i.price for i in items)\n',
            "shop/api.py": "from shop.cart import total\n\n\ndef checkout(items):\n    return total(items)\n",
        },
        when="2026-01-02T00:00:00Z",
    )
    commit(
        repo,
        "Test the cart\n\nBecause totals broke twice.",
        {
            "tests/test_cart.py": "from shop.cart import total\n\n\ndef test_total():\n    assert total([]) == 0\n",
            "shop/cart.py": 'def total(items):\n    """Sum the prices."""\n    return sum(i.price for i in items) or 0\n',  # noqa: E501
        },
        when="2026-01-05T00:00:00Z",
    )
    return repo
