"""The verification `explain` suggests for C, Ruby, PHP, Lua and shell runs verbatim and runs the paired tests.

Each fixture is a small real project; each command comes from `pallium_explain` through the
dispatcher and runs with `sh -c` at the repository root. A toolchain missing here skips its test
with the reason; none touches the network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio


def _run(repo: Path, command: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RUBYOPT", "RUBYLIB", "LUA_PATH", "LUA_INIT")}
    return subprocess.run(["sh", "-c", command], cwd=repo, capture_output=True, text=True, env=env, timeout=300)


def _need(*programs: str) -> None:
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed here (Debian: apt-get install the toolchain)")


async def test_cmake_ctest_commands_build_and_run_the_paired_test(tmp_path: Path):
    _need("cmake", "cc", "ctest")
    repo = new_repo(
        tmp_path,
        {
            "CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(p C)\nenable_testing()\n"
            "add_library(parse src/parse.c)\nadd_executable(test_parse tests/test_parse.c)\n"
            "target_link_libraries(test_parse parse)\nadd_test(NAME test_parse COMMAND test_parse)\n"
            "add_executable(test_other tests/test_other.c)\nadd_test(NAME test_other COMMAND test_other)\n",
            "src/parse.h": "int parse(const char *text);\n",
            "src/parse.c": "#include \"parse.h\"\nint parse(const char *text) { return text[0] == '1'; }\n",
            "tests/test_parse.c": '#include "../src/parse.h"\nint main(void) { return parse("1") ? 0 : 1; }\n',
            "tests/test_other.c": "int main(void) { return 0; }\n",
        },
    )
    out = await ask(repo, "explain", path="src/parse.c")
    assert out.tests == ["tests/test_parse.c"]
    fast = _run(repo, out.verification.fast[0])
    assert fast.returncode == 0, fast.stdout + fast.stderr
    assert "100% tests passed, 0 tests failed out of 1" in fast.stdout, fast.stdout
    full = _run(repo, out.verification.full[0])
    assert full.returncode == 0 and "100% tests passed, 0 tests failed out of 2" in full.stdout, full.stdout


async def test_make_check_runs_the_suite_of_a_plain_c_makefile(tmp_path: Path):
    _need("make", "cc")
    repo = new_repo(
        tmp_path,
        {
            "Makefile": "check: tests/test_sum\n\t./tests/test_sum && echo CHECKED\n"
            "tests/test_sum: tests/test_sum.c sum.c\n\tcc -o $@ $^\n",
            "sum.c": "int sum(int a, int b) { return a + b; }\n",
            "tests/test_sum.c": "int sum(int, int);\nint main(void) { return sum(1, 2) == 3 ? 0 : 1; }\n",
        },
    )
    out = await ask(repo, "explain", path="sum.c")
    assert (out.tests, out.verification.full) == (["tests/test_sum.c"], ["make check"])
    ran = _run(repo, "make check")
    assert ran.returncode == 0 and "CHECKED" in ran.stdout, ran.stdout + ran.stderr


_CART = "module Shop\n  class Cart\n    def total(items) = items.sum\n  end\nend\n"
_CART_TEST = (
    'require "minitest/autorun"\nrequire "shop/cart"\n\nclass CartTest < Minitest::Test\n'
    "  def test_total\n    assert_equal 3, Shop::Cart.new.total([1, 2])\n  end\nend\n"
)


async def test_ruby_minitest_and_rake_commands_run_the_gems_tests(tmp_path: Path):
    _need("ruby", "rake")
    repo = new_repo(
        tmp_path,
        {
            "shop/Rakefile": 'require "rake/testtask"\nRake::TestTask.new { |t| t.libs << "lib" << "test"; '
            't.pattern = "test/**/*_test.rb" }\ntask default: :test\n',
            "shop/lib/shop/cart.rb": _CART,
            "shop/test/shop/cart_test.rb": _CART_TEST,
            "shop/test/test_helper.rb": "# shared setup\n",
        },
    )
    out = await ask(repo, "explain", path="shop/lib/shop/cart.rb")
    assert out.tests == ["shop/test/shop/cart_test.rb"]
    assert out.verification.model_dump() == {
        "fast": ["cd shop && ruby -Ilib -Itest test/shop/cart_test.rb"],
        "safe": ["ruby -c shop/lib/shop/cart.rb"],
        "full": ["cd shop && rake"],
    }
    for command in (*out.verification.fast, *out.verification.safe, *out.verification.full):
        ran = _run(repo, command)
        assert ran.returncode == 0, command + "\n" + ran.stdout + ran.stderr
    assert "1 runs, 1 assertions, 0 failures" in _run(repo, out.verification.fast[0]).stdout


async def test_ruby_under_bundler_runs_through_bundle_exec(tmp_path: Path):
    _need("ruby", "bundle")
    repo = new_repo(
        tmp_path,
        {
            "Gemfile": 'source "https://rubygems.org"\ngem "minitest"\n',
            "lib/shop/cart.rb": _CART,
            "test/shop/cart_test.rb": _CART_TEST,
        },
    )
    if _run(repo, "bundle lock --local").returncode != 0:  # the installed minitest, no network
        pytest.skip("bundler cannot resolve the installed minitest offline here")
    out = await ask(repo, "explain", path="lib/shop/cart.rb")
    assert out.verification.fast == ["bundle exec ruby -Ilib -Itest test/shop/cart_test.rb"]
    ran = _run(repo, out.verification.fast[0])
    assert ran.returncode == 0 and "0 failures" in ran.stdout, ran.stdout + ran.stderr


async def test_php_lint_and_composer_test_run(tmp_path: Path):
    _need("php")
    repo = new_repo(
        tmp_path,
        {
            "composer.json": '{"scripts": {"test": "php tests/run.php"}}',
            "src/Cart.php": "<?php\nnamespace Shop;\nfinal class Cart { public function total(array $i): int "
            "{ return array_sum($i); } }\n",
            "tests/CartTest.php": "<?php\nrequire __DIR__ . '/../src/Cart.php';\n",
            "tests/run.php": "<?php\nrequire __DIR__ . '/../src/Cart.php';\n"
            "exit((new Shop\\Cart())->total([1, 2]) === 3 ? 0 : 1);\n",
        },
    )
    out = await ask(repo, "explain", path="src/Cart.php")
    assert out.tests == ["tests/CartTest.php"]
    assert (out.verification.safe, out.verification.full) == (["php -l src/Cart.php"], ["composer test"])
    lint = _run(repo, out.verification.safe[0])
    assert lint.returncode == 0 and "No syntax errors" in lint.stdout, lint.stdout + lint.stderr
    if shutil.which("composer") is None:
        pytest.skip("composer not installed here: `composer test` checked as text only")
    ran = _run(repo, "COMPOSER_ALLOW_SUPERUSER=1 " + out.verification.full[0])
    assert ran.returncode == 0, ran.stdout + ran.stderr


async def test_busted_runs_the_paired_lua_spec(tmp_path: Path):
    _need("busted")
    repo = new_repo(
        tmp_path,
        {
            ".busted": 'return { default = { lpath = "lua/?.lua" } }\n',
            "lua/util/bench.lua": "local M = {}\nfunction M.double(x) return 2 * x end\nreturn M\n",
            "spec/util/bench_spec.lua": 'local bench = require "util.bench"\n'
            'describe("bench", function()\n  it("doubles", function() assert.are.equal(4, bench.double(2)) end)\n'
            "end)\n",
        },
    )
    out = await ask(repo, "explain", path="lua/util/bench.lua")
    assert out.tests == ["spec/util/bench_spec.lua"]
    assert (out.verification.fast, out.verification.full) == (["busted spec/util/bench_spec.lua"], ["busted"])
    for command in (*out.verification.fast, *out.verification.full):
        ran = _run(repo, command)
        assert ran.returncode == 0 and "1 success" in ran.stdout, command + "\n" + ran.stdout + ran.stderr


async def test_bats_runs_the_paired_shell_test_and_bash_checks_the_script(tmp_path: Path):
    _need("bats", "bash")
    repo = new_repo(
        tmp_path,
        {
            "bin/greet.sh": '#!/usr/bin/env bash\ngreet() { echo "hello $1"; }\n'
            '[[ "${BASH_SOURCE[0]}" == "$0" ]] && greet "$@"\n',
            "test/greet.bats": '#!/usr/bin/env bats\n@test "greets" {\n  run bash bin/greet.sh ada\n'
            '  [ "$output" = "hello ada" ]\n}\n',
        },
    )
    out = await ask(repo, "explain", path="bin/greet.sh")
    assert out.tests == ["test/greet.bats"]
    assert out.verification.model_dump() == {
        "fast": ["bats test/greet.bats"],
        "safe": ["bash -n bin/greet.sh"],
        "full": ["bats test"],
    }
    for command in (*out.verification.fast, *out.verification.safe, *out.verification.full):
        ran = _run(repo, command)
        assert ran.returncode == 0, command + "\n" + ran.stdout + ran.stderr
    assert "ok 1 greets" in _run(repo, out.verification.fast[0]).stdout


async def test_a_script_without_an_extension_is_verified_by_its_shebangs_ecosystem(tmp_path: Path):
    # `libexec/pyenv`, `bin/setup`: the shebang names the language, so its bats test and `bash -n` apply
    repo = new_repo(
        tmp_path,
        {
            "libexec/greet": '#!/usr/bin/env bash\necho "hello $1"\n',
            "test/greet.bats": '#!/usr/bin/env bats\n@test "greets" {\n  run libexec/greet ada\n'
            '  [ "$output" = "hello ada" ]\n}\n',
            "bin/tool": '#!/usr/bin/env python3\nprint("not a shell script")\n',
        },
    )
    out = await ask(repo, "explain", path="libexec/greet")
    assert out.tests == ["test/greet.bats"]
    assert out.verification.model_dump() == {
        "fast": ["bats test/greet.bats"],
        "safe": ["bash -n libexec/greet"],
        "full": ["bats test"],
    }
    other = await ask(repo, "explain", path="bin/tool")
    assert not [c for c in (*other.verification.fast, *other.verification.safe) if "bats" in c or "bash -n" in c]
    if shutil.which("bash"):
        ran = _run(repo, out.verification.safe[0])
        assert ran.returncode == 0, ran.stderr


async def test_swift_package_tests_run_through_swift_test(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "Package.swift": "// swift-tools-version:5.5\nimport PackageDescription\n"
            'let package = Package(name: "Shop", targets: [.target(name: "Shop"), '
            '.testTarget(name: "ShopTests", dependencies: ["Shop"])])\n',
            "Sources/Shop/Cart.swift": "public struct Cart {\n    public init() {}\n"
            "    public func total(_ xs: [Int]) -> Int { xs.reduce(0, +) }\n}\n",
            "Tests/ShopTests/CartTests.swift": "import XCTest\n@testable import Shop\n"
            "final class CartTests: XCTestCase {\n"
            "    func testTotal() { XCTAssertEqual(Cart().total([1, 2]), 3) }\n}\n",
        },
    )
    out = await ask(repo, "explain", path="Sources/Shop/Cart.swift")
    assert out.tests == ["Tests/ShopTests/CartTests.swift"]
    assert out.verification.model_dump() == {
        "fast": ["swift test --filter CartTests"],
        "safe": ["swift build"],
        "full": ["swift test"],
    }
    _need("swift")  # not in Debian's archive: the commands are checked above, run where it installs
    for command in (*out.verification.fast, *out.verification.full):
        ran = _run(repo, command)
        assert ran.returncode == 0, command + "\n" + ran.stdout + ran.stderr


async def test_scala_sbt_tests_run_through_sbt(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "build.sbt": 'scalaVersion := "3.3.1"\n'
            'libraryDependencies += "org.scalameta" %% "munit" % "0.7.29" % Test\n',
            "src/main/scala/shop/Cart.scala": "package shop\n\nobject Cart:\n"
            "  def total(xs: List[Int]): Int = xs.sum\n",
            "src/test/scala/shop/CartSuite.scala": "package shop\n\nclass CartSuite extends munit.FunSuite:\n"
            '  test("total")(assertEquals(Cart.total(List(1, 2)), 3))\n',
        },
    )
    out = await ask(repo, "explain", path="src/main/scala/shop/Cart.scala")
    assert out.tests == ["src/test/scala/shop/CartSuite.scala"]
    assert "sbt test" in out.verification.full
    assert any("CartSuite" in c and c.startswith("sbt") for c in out.verification.fast), out.verification
    _need("sbt")  # not in Debian's archive: the commands are checked above, run where it installs
    for command in (*out.verification.fast, *out.verification.full):
        ran = _run(repo, command)
        assert ran.returncode == 0, command + "\n" + ran.stdout + ran.stderr
