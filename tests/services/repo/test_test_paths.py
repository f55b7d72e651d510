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


# Each language's runner decides what a test is; support code named like a test is not one.
PER_RUNNER = {
    "test/test_helper.rb": False,
    "test/test_helpers.rb": False,
    "spec/spec_helper.rb": False,
    "test/models/user_test.rb": True,
    "tests/Mocks/FooTest.php": False,
    "tests/Unit/FooTest.php": True,
    "tests/basic.phpt": True,
    "spec/util_spec.lua": True,
    "test/bench.lua": True,
    "lua/plenary/test_harness.lua": False,
    "test/install.bats": True,
    "tests/run-basic": True,
    "tests/README": False,
    "tests/Makefile": False,
    "tests/.gitignore": False,
    "test/unit/data/sample.py": False,
    "tests/parser/data/case_test.go": False,
    "tests/test_parse.c": True,
    "src/parse_test.cc": True,
    "tests/test_util.c": True,
    "tests/test_helpers.c": False,
    "Tests/AppTests/RouterTests.swift": True,
    "src/test/kotlin/a/RouterSpec.kt": True,
    "src/test/scala/a/RouterSuite.scala": True,
}


@pytest.mark.parametrize(("path", "expected"), PER_RUNNER.items())
def test_each_runner_collects_only_what_it_would_run(path: str, expected: bool):
    assert is_test_path(path) is expected


async def test_a_spec_pairs_with_its_source_within_its_own_gem_only(empty_repo: Path):
    commit(
        empty_repo,
        "Two gems",
        {
            "alpha/alpha.gemspec": "Gem::Specification.new\n",
            "alpha/lib/alpha/base.rb": "module Alpha\n  class Base\n  end\nend\n",
            "alpha/spec/alpha/base_spec.rb": "describe Alpha::Base do\nend\n",
            "beta/beta.gemspec": "Gem::Specification.new\n",
            "beta/lib/beta/base.rb": "module Beta\n  class Base\n  end\nend\n",
            "gamma/gamma.gemspec": "Gem::Specification.new\n",
            "gamma/lib/gamma/base.rb": "module Gamma\n  class Base\n  end\nend\n",
            "gamma/test/base_test.rb": "require 'minitest/autorun'\n",
        },
    )
    alpha = await ask(empty_repo, "explain", path="alpha/lib/alpha/base.rb")
    beta = await ask(empty_repo, "explain", path="beta/lib/beta/base.rb")
    gamma = await ask(empty_repo, "explain", path="gamma/lib/gamma/base.rb")
    assert (alpha.tests, beta.tests, gamma.tests) == (
        ["alpha/spec/alpha/base_spec.rb"],
        [],
        ["gamma/test/base_test.rb"],
    )
    facts = await ask(empty_repo, "facts", sections=["tests"])
    assert facts.tests == {
        "alpha/lib/alpha/base.rb": ["alpha/spec/alpha/base_spec.rb"],
        "gamma/lib/gamma/base.rb": ["gamma/test/base_test.rb"],
    }


async def test_a_private_module_pairs_and_a_test_never_pairs_across_languages(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "pkg/_wire.py": "def send():\n    return 1\n",
            "tests/test_wire.py": "def test_send():\n    assert True\n",
            ".github/workflows/main.yml": "on: push\n",
            "pkg/main.py": "def run():\n    return 0\n",
            "tests/test_main.py": "def test_run():\n    assert True\n",
            "tests/unit/data/test_sample.py": "x = 1\n",
            "pkg/sample.py": "y = 2\n",
        },
    )
    facts = await ask(empty_repo, "facts", sections=["tests"])
    assert facts.tests == {"pkg/_wire.py": ["tests/test_wire.py"], "pkg/main.py": ["tests/test_main.py"]}
    wire = await ask(empty_repo, "explain", path="pkg/_wire.py")
    workflow = await ask(empty_repo, "explain", path=".github/workflows/main.yml")
    assert (wire.tests, workflow.tests) == (["tests/test_wire.py"], [])


@pytest.mark.parametrize(
    ("source", "test"),
    [
        ("lib/shop/cart.rb", "spec/shop/cart_spec.rb"),
        ("lib/shop/cart.rb", "test/shop/test_cart.rb"),
        ("src/Routing/Collector.php", "tests/Routing/CollectorTest.php"),
        ("src/parse.c", "tests/test_parse.c"),
        ("include/parse.h", "tests/parse_test.cc"),
        ("Sources/App/Router.swift", "Tests/AppTests/RouterTests.swift"),
        ("src/main/kotlin/a/Router.kt", "src/test/kotlin/a/RouterTest.kt"),
        ("src/main/scala/a/Router.scala", "src/test/scala/a/RouterSpec.scala"),
        ("lua/util/bench.lua", "spec/util/bench_spec.lua"),
        ("bin/install.sh", "test/install.bats"),
    ],
)
async def test_each_runner_pairs_a_test_with_the_file_it_is_named_after(empty_repo: Path, source: str, test: str):
    commit(empty_repo, "Start", {source: "x\n", test: "y\n", "docs/other.md": "# other\n"})
    out = await ask(empty_repo, "explain", path=source)
    facts = await ask(empty_repo, "facts", sections=["tests"])
    assert (out.tests, facts.tests) == ([test], {source: [test]})


def test_a_jvm_test_package_named_like_a_support_folder_holds_tests():
    """Below `src/test/java/` the folders are packages mirroring the main tree (`org/jsoup/helper/`), so
    `helper/CookieUtilTest.java` is the test of `helper/CookieUtil.java`; resources, mocks and fixtures
    stay support."""
    assert is_test_path("src/test/java/org/lib/helper/CookieUtilTest.java")
    assert is_test_path("lib/src/test/kotlin/org/lib/support/ClientTest.kt")
    assert not is_test_path("src/test/java/org/lib/mocks/ClientTest.java")
    assert not is_test_path("src/test/resources/helpers/FooTest.java")
    assert not is_test_path("tests/helpers/test_x.py")
