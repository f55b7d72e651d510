"""Verification commands inferred from each ecosystem's own files: the nearest manifest governs a file."""

from pathlib import Path

from services.repo.verification import verification_for
from tests.conftest import write


def _tiers(root: Path, paths: list[str], tests: list[str]) -> dict[str, list[str]]:
    return verification_for(root, paths, tests).model_dump()


def _touch(root: Path, *paths: str) -> None:
    """Commands name only files that exist, so the changed files and tests are written first."""
    for path in paths:
        write(root, path, "")


def test_go_tests_and_vets_the_packages_of_the_changed_files(tmp_path: Path):
    write(tmp_path, "go.mod", "module example.com/x\n")
    _touch(tmp_path, "main.go", "pkg/a/a.go", "pkg/a/b.go")
    assert _tiers(tmp_path, ["main.go", "pkg/a/a.go", "pkg/a/b.go"], []) == {
        "fast": ["go test . ./pkg/a"],
        "safe": ["go vet . ./pkg/a"],
        "full": ["go test ./..."],
    }


def test_go_packages_of_a_nested_module_run_in_that_modules_folder(tmp_path: Path):
    write(tmp_path, "go.mod", "module example.com/x\n")
    write(tmp_path, "tools/go.mod", "module example.com/tools\n")
    _touch(tmp_path, "api/a.go", "tools/lint/lint.go", "tools/main.go")
    assert _tiers(tmp_path, ["api/a.go", "tools/lint/lint.go", "tools/main.go"], []) == {
        "fast": ["go test ./api", "go -C tools test . ./lint"],
        "safe": ["go vet ./api", "go -C tools vet . ./lint"],
        "full": ["go test ./...", "go -C tools test ./..."],
    }


def test_go_package_deleted_with_its_folder_is_not_tested_or_vetted(tmp_path: Path):
    write(tmp_path, "go.mod", "module example.com/x\n")
    _touch(tmp_path, "api/a.go")
    assert _tiers(tmp_path, ["api/a.go", "gone/b.go"], [])["safe"] == ["go vet ./api"]


def test_go_files_without_a_go_mod_get_no_go_commands(tmp_path: Path):
    _touch(tmp_path, "main.go")
    assert _tiers(tmp_path, ["main.go"], []) == {"fast": [], "safe": [], "full": []}


def test_npm_scripts_use_npm_without_a_lockfile_and_run_lint_typecheck_and_tests(tmp_path: Path):
    write(
        tmp_path,
        "package.json",
        '{"scripts": {"lint": "x", "type-check": "x", "test:unit": "x", "test": "x"}, "dependencies": {"jest": "1"}}',
    )
    _touch(tmp_path, "src/a.ts", "src/a.test.ts")
    assert _tiers(tmp_path, ["src/a.ts"], ["src/a.test.ts"]) == {
        "fast": ["npx jest src/a.test.ts"],
        "safe": ["npm run lint", "npm run type-check", "npm run test:unit"],
        "full": ["npm test"],
    }


def test_bun_lockfile_picks_bun_and_a_package_without_scripts_gets_nothing(tmp_path: Path):
    write(tmp_path, "package.json", '{"scripts": {"test": "bun test"}}')
    (tmp_path / "bun.lockb").write_bytes(b"\0")
    assert _tiers(tmp_path, ["a.js"], [])["full"] == ["bun test"]
    write(tmp_path, "package.json", "not json")
    assert _tiers(tmp_path, ["a.js"], []) == {"fast": [], "safe": [], "full": []}


def test_a_nested_package_brings_its_own_runner_scripts_and_lockfile_and_runs_in_its_folder(tmp_path: Path):
    write(tmp_path, "package.json", '{"scripts": {"test": "vitest"}, "devDependencies": {"vitest": "1"}}')
    write(tmp_path, "web/package.json", '{"scripts": {"lint": "eslint .", "test": "jest"}}')
    write(tmp_path, "web/pnpm-lock.yaml", "lockfileVersion: 9\n")
    _touch(tmp_path, "web/src/a.js", "web/src/a.test.js", "web/src/b.test.js", "lib/x.ts", "lib/x.test.ts")
    assert _tiers(tmp_path, ["web/src/a.js"], ["web/src/b.test.js", "web/src/a.test.js"]) == {
        "fast": ["cd web && pnpm exec jest src/a.test.js src/b.test.js"],
        "safe": ["cd web && pnpm run lint"],
        "full": ["cd web && pnpm test"],
    }
    both = _tiers(tmp_path, ["lib/x.ts", "web/src/a.js"], ["lib/x.test.ts", "web/src/a.test.js"])
    assert both["fast"] == ["npx vitest run lib/x.test.ts", "cd web && pnpm exec jest src/a.test.js"]
    assert both["full"] == ["npm test", "cd web && pnpm test"]


def test_a_workspace_package_uses_the_root_lockfile_and_the_hoisted_runner(tmp_path: Path):
    write(tmp_path, "package.json", '{"workspaces": ["packages/*"], "devDependencies": {"vitest": "1"}}')
    write(tmp_path, "yarn.lock", "")
    write(tmp_path, "packages/ui/package.json", '{"name": "ui", "scripts": {"typecheck": "tsc"}}')
    _touch(tmp_path, "packages/ui/src/button.tsx", "packages/ui/src/button.test.tsx")
    assert _tiers(tmp_path, ["packages/ui/src/button.tsx"], ["packages/ui/src/button.test.tsx"]) == {
        "fast": ["cd packages/ui && yarn vitest run src/button.test.tsx"],
        "safe": ["cd packages/ui && yarn run typecheck"],
        "full": [],
    }


def test_node_builtin_runner_is_used_when_the_test_script_calls_node_test(tmp_path: Path):
    write(tmp_path, "app/package.json", '{"scripts": {"test": "node --test"}}')
    _touch(tmp_path, "app/lib/sum.mjs", "app/test/sum.test.mjs")
    assert _tiers(tmp_path, ["app/lib/sum.mjs"], ["app/test/sum.test.mjs"])["fast"] == [
        "cd app && node --test test/sum.test.mjs"
    ]


def test_cargo_tests_the_changed_module_by_name_or_the_crate_for_lib_and_main(tmp_path: Path):
    write(tmp_path, "Cargo.toml", "[package]\nname = 'x'\n")
    _touch(tmp_path, "src/parser.rs", "src/lib.rs")
    assert _tiers(tmp_path, ["src/parser.rs"], [])["fast"] == ["cargo test parser"]
    assert _tiers(tmp_path, ["src/lib.rs"], []) == {
        "fast": ["cargo test"],
        "safe": ["cargo clippy --all-targets"],
        "full": ["cargo test --all"],
    }


def test_a_nested_crate_is_tested_through_its_manifest_path(tmp_path: Path):
    write(tmp_path, "Cargo.toml", "[workspace]\nmembers = ['crates/*']\n")
    write(tmp_path, "crates/lexer/Cargo.toml", "[package]\nname = 'lexer'\n")
    _touch(tmp_path, "crates/lexer/src/token.rs")
    assert _tiers(tmp_path, ["crates/lexer/src/token.rs"], []) == {
        "fast": ["cargo test --manifest-path crates/lexer/Cargo.toml token"],
        "safe": ["cargo clippy --manifest-path crates/lexer/Cargo.toml --all-targets"],
        "full": ["cargo test --manifest-path crates/lexer/Cargo.toml --all"],
    }


def test_maven_runs_each_covering_test_class(tmp_path: Path):
    write(tmp_path, "pom.xml", "<project/>")
    tests = ["src/test/java/a/FooTest.java", "src/test/java/a/FooIT.java"]
    _touch(tmp_path, "src/main/java/a/Foo.java", *tests)
    assert _tiers(tmp_path, ["src/main/java/a/Foo.java"], tests) == {
        "fast": ["mvn -q test -Dtest=FooTest", "mvn -q test -Dtest=FooIT"],
        "safe": [],
        "full": ["mvn -q test"],
    }


def test_a_nested_maven_module_runs_through_its_own_pom(tmp_path: Path):
    write(tmp_path, "pom.xml", "<project/>")
    write(tmp_path, "core/pom.xml", "<project/>")
    tests = ["core/src/test/java/a/FooTest.java"]
    _touch(tmp_path, "core/src/main/java/a/Foo.java", *tests)
    assert _tiers(tmp_path, ["core/src/main/java/a/Foo.java"], tests) == {
        "fast": ["mvn -q -f core/pom.xml test -Dtest=FooTest"],
        "safe": [],
        "full": ["mvn -q -f core/pom.xml test"],
    }


def test_gradle_prefers_the_wrapper_when_the_repository_has_one(tmp_path: Path):
    write(tmp_path, "build.gradle.kts", "plugins {}\n")
    tests = ["src/test/java/a/FooTest.java"]
    _touch(tmp_path, "src/main/java/a/Foo.java", *tests)
    assert _tiers(tmp_path, ["src/main/java/a/Foo.java"], tests) == {
        "fast": ["gradle test --tests FooTest"],
        "safe": [],
        "full": ["gradle test"],
    }
    write(tmp_path, "gradlew", "#!/bin/sh\n")
    assert _tiers(tmp_path, ["src/main/java/a/Foo.java"], tests)["full"] == ["./gradlew test"]


def test_a_nested_gradle_project_runs_with_the_root_wrapper_and_its_folder(tmp_path: Path):
    write(tmp_path, "settings.gradle", "include 'app'\n")
    write(tmp_path, "gradlew", "#!/bin/sh\n")
    write(tmp_path, "app/build.gradle", "plugins {}\n")
    tests = ["app/src/test/java/a/FooTest.java"]
    _touch(tmp_path, "app/src/main/java/a/Foo.java", *tests)
    assert _tiers(tmp_path, ["app/src/main/java/a/Foo.java"], tests) == {
        "fast": ["./gradlew -p app test --tests FooTest"],
        "safe": [],
        "full": ["./gradlew -p app test"],
    }


def test_make_targets_lint_test_and_check_join_any_language(tmp_path: Path):
    write(tmp_path, "Makefile", "VAR := 1\nlint:\n\ttrue\ntest: lint\n\ttrue\ncheck:\n\ttrue\nbuild:\n\ttrue\n")
    assert _tiers(tmp_path, ["docs/guide.md"], []) == {
        "fast": [],
        "safe": ["make lint"],
        "full": ["make test", "make check"],
    }


def test_the_nearest_makefile_with_a_verification_target_governs(tmp_path: Path):
    write(tmp_path, "Makefile", "test:\n\ttrue\n")
    write(tmp_path, "native/Makefile", "lint:\n\ttrue\ntest:\n\ttrue\n")
    write(tmp_path, "docs/Makefile", "html:\n\ttrue\n")  # a docs build only: the root's test still applies
    assert _tiers(tmp_path, ["native/src/a.c"], []) == {
        "fast": [],
        "safe": ["make -C native lint"],
        "full": ["make -C native test"],
    }
    assert _tiers(tmp_path, ["docs/guide.md"], [])["full"] == ["make test"]


def test_python_uses_the_covering_tests_their_folder_and_ruff_when_configured(tmp_path: Path):
    write(tmp_path, "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    write(tmp_path, "pkg/a.py", "x = 1\n")
    write(tmp_path, "tests/test_a.py", "def test_a():\n    pass\n")
    assert _tiers(tmp_path, ["pkg/a.py"], ["tests/test_a.py"]) == {
        "fast": ["python -m pytest -q tests/test_a.py"],
        "safe": ["python -m pytest -q tests", "ruff check pkg/a.py"],
        "full": ["python -m pytest -q"],
    }


def test_a_python_sub_project_runs_pytest_from_its_own_folder_with_paths_relative_to_it(tmp_path: Path):
    write(tmp_path, "pyproject.toml", "[tool.ruff]\n")
    write(tmp_path, "services/api/pytest.ini", "[pytest]\n")
    _touch(
        tmp_path,
        "services/api/api/views.py",
        "services/api/tests/test_views.py",
        "services/api/tests/test_urls.py",
        "services/api/tests/conftest.py",
        "tests/test_views.py",
    )
    paths = ["services/api/api/views.py"]
    tests = ["services/api/tests/test_urls.py", "services/api/tests/conftest.py", "services/api/tests/test_views.py"]
    assert _tiers(tmp_path, paths, tests) == {
        "fast": ["cd services/api && python -m pytest -q tests/test_views.py tests/test_urls.py"],
        "safe": ["cd services/api && python -m pytest -q tests", "ruff check services/api/api/views.py"],
        "full": ["cd services/api && python -m pytest -q"],
    }


def test_each_python_test_runs_in_the_project_that_holds_it_own_test_first(tmp_path: Path):
    write(tmp_path, "setup.cfg", "[tool:pytest]\n")
    write(tmp_path, "sdk/pyproject.toml", "[project]\nname = 'sdk'\n")
    _touch(tmp_path, "sdk/sdk/client.py", "sdk/tests/test_client.py", "tests/test_integration.py")
    out = _tiers(tmp_path, ["sdk/sdk/client.py"], ["tests/test_integration.py", "sdk/tests/test_client.py"])
    assert out["fast"] == [
        "cd sdk && python -m pytest -q tests/test_client.py",
        "python -m pytest -q tests/test_integration.py",
    ]
    assert out["full"] == ["cd sdk && python -m pytest -q", "python -m pytest -q"]


def test_linters_and_tests_skip_lockfiles_deleted_files_fixtures_and_conftest(tmp_path: Path):
    write(tmp_path, "pyproject.toml", "[tool.ruff]\n")
    write(tmp_path, "web/ruff.toml", "")
    _touch(tmp_path, "uv.lock", "web/app.py", "web/tests/fixtures/test_data.py", "web/tests/test_app.py")
    paths = ["uv.lock", "web/app.py", "web/gone.py", "CHANGELOG.md"]
    tests = ["web/tests/fixtures/test_data.py", "web/tests/test_gone.py", "web/tests/test_app.py"]
    out = _tiers(tmp_path, paths, tests)
    assert out["fast"] == ["python -m pytest -q web/tests/test_app.py"]
    assert [c for c in out["safe"] if c.startswith("ruff")] == ["ruff check web/app.py"]


def test_paths_with_spaces_are_quoted_for_the_shell(tmp_path: Path):
    write(tmp_path, "my app/package.json", '{"scripts": {"test": "node --test"}}')
    _touch(tmp_path, "my app/a b.js", "my app/a b.test.js")
    assert _tiers(tmp_path, ["my app/a b.js"], ["my app/a b.test.js"])["fast"] == [
        "cd 'my app' && node --test 'a b.test.js'"
    ]


def test_a_manifest_reached_through_a_symlink_out_of_the_repository_is_ignored(tmp_path: Path):
    outside = tmp_path / "outside"
    write(outside, "package.json", '{"scripts": {"test": "rm -rf /"}}')
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "package.json").symlink_to(outside / "package.json")
    _touch(repo, "a.js")
    assert _tiers(repo, ["a.js"], []) == {"fast": [], "safe": [], "full": []}


def test_cmake_with_tests_configures_builds_and_runs_ctest_by_the_covering_tests_names(tmp_path: Path):
    write(tmp_path, "CMakeLists.txt", "project(p C)\nenable_testing()\nadd_subdirectory(src)\n")
    write(tmp_path, "src/CMakeLists.txt", "add_library(parse parse.c)\n")
    _touch(tmp_path, "src/parse.c", "tests/test_parse.c")
    prepare = "cmake -S . -B build && cmake --build build"
    assert _tiers(tmp_path, ["src/parse.c"], ["tests/test_parse.c"]) == {
        "fast": [f"{prepare} && ctest --test-dir build -R test_parse"],
        "safe": [],
        "full": [f"{prepare} && ctest --test-dir build --output-on-failure"],
    }


def test_automake_tests_run_by_make_check_configured_first_when_the_tree_is_not(tmp_path: Path):
    write(tmp_path, "configure.ac", "AC_INIT([p], [1])\n")
    write(tmp_path, "Makefile.am", "SUBDIRS = src tests\n")
    write(tmp_path, "tests/Makefile.am", "check_PROGRAMS = test_parse \\\n  test_lex\nTESTS = $(check_PROGRAMS)\n")
    _touch(tmp_path, "src/parse.c", "tests/test_parse.c")
    assert _tiers(tmp_path, ["src/parse.c"], ["tests/test_parse.c"]) == {
        "fast": ["autoreconf -fi && ./configure && make check TESTS=test_parse"],
        "safe": [],
        "full": ["autoreconf -fi && ./configure && make check"],
    }
    write(tmp_path, "Makefile", "check:\n\ttrue\n")
    assert _tiers(tmp_path, ["src/parse.c"], ["tests/test_parse.c"])["full"] == ["make check"]


def test_ruby_runs_specs_by_rspec_minitest_by_ruby_and_the_gem_rakefile_under_bundler(tmp_path: Path):
    write(tmp_path, "gems/shop/Gemfile", "source 'https://rubygems.org'\ngemspec\n")
    write(tmp_path, "gems/shop/Rakefile", "task default: :test\n")
    write(tmp_path, "gems/shop/.rubocop.yml", "AllCops: {}\n")
    tests = ["gems/shop/spec/shop/cart_spec.rb", "gems/shop/test/shop/cart_test.rb"]
    _touch(tmp_path, "gems/shop/lib/shop/cart.rb", *tests)
    assert _tiers(tmp_path, ["gems/shop/lib/shop/cart.rb"], tests) == {
        "fast": [
            "cd gems/shop && bundle exec rspec spec/shop/cart_spec.rb",
            "cd gems/shop && bundle exec ruby -Ilib -Itest test/shop/cart_test.rb",
        ],
        "safe": ["cd gems/shop && bundle exec rubocop lib/shop/cart.rb"],
        "full": ["cd gems/shop && bundle exec rake"],
    }


def test_ruby_without_bundler_or_rubocop_checks_syntax_and_runs_rspec(tmp_path: Path):
    write(tmp_path, ".rspec", "--require spec_helper\n")
    _touch(tmp_path, "lib/cart.rb", "spec/cart_spec.rb")
    assert _tiers(tmp_path, ["lib/cart.rb"], ["spec/cart_spec.rb"]) == {
        "fast": ["rspec spec/cart_spec.rb"],
        "safe": ["ruby -c lib/cart.rb"],
        "full": ["rspec"],
    }


def test_php_runs_phpunit_per_test_class_phpstan_and_composer_test(tmp_path: Path):
    write(tmp_path, "composer.json", '{"scripts": {"test": "phpunit"}}')
    write(tmp_path, "phpunit.xml.dist", "<phpunit/>\n")
    write(tmp_path, "phpstan.neon", "parameters: {}\n")
    _touch(tmp_path, "src/Routing/Collector.php", "tests/Routing/CollectorTest.php")
    assert _tiers(tmp_path, ["src/Routing/Collector.php"], ["tests/Routing/CollectorTest.php"]) == {
        "fast": ["vendor/bin/phpunit tests/Routing/CollectorTest.php"],
        "safe": ["vendor/bin/phpstan analyse src/Routing/Collector.php", "php -l src/Routing/Collector.php"],
        "full": ["composer test"],
    }


def test_php_without_a_test_script_runs_the_whole_phpunit_suite(tmp_path: Path):
    write(tmp_path, "lib/composer.json", "{}")
    write(tmp_path, "lib/phpunit.xml", "<phpunit/>\n")
    _touch(tmp_path, "lib/src/Cart.php")
    assert _tiers(tmp_path, ["lib/src/Cart.php"], []) == {
        "fast": [],
        "safe": ["php -l lib/src/Cart.php"],
        "full": ["cd lib && vendor/bin/phpunit"],
    }


def test_kotlin_test_classes_run_by_the_modules_gradle_build(tmp_path: Path):
    write(tmp_path, "settings.gradle.kts", 'include("core")\n')
    write(tmp_path, "gradlew", "#!/bin/sh\n")
    write(tmp_path, "core/build.gradle.kts", "plugins {}\n")
    tests = ["core/src/test/kotlin/a/RouterTest.kt"]
    _touch(tmp_path, "core/src/main/kotlin/a/Router.kt", *tests)
    assert _tiers(tmp_path, ["core/src/main/kotlin/a/Router.kt"], tests) == {
        "fast": ["./gradlew -p core test --tests RouterTest"],
        "safe": [],
        "full": ["./gradlew -p core test"],
    }


def test_swift_packages_test_with_a_filter_of_the_covering_classes(tmp_path: Path):
    write(tmp_path, "Package.swift", "// swift-tools-version:5.9\n")
    _touch(tmp_path, "Sources/App/Router.swift", "Tests/AppTests/RouterTests.swift")
    assert _tiers(tmp_path, ["Sources/App/Router.swift"], ["Tests/AppTests/RouterTests.swift"]) == {
        "fast": ["swift test --filter RouterTests"],
        "safe": ["swift build"],
        "full": ["swift test"],
    }


def test_scala_with_sbt_runs_test_only_and_with_gradle_runs_gradle(tmp_path: Path):
    write(tmp_path, "build.sbt", 'name := "p"\n')
    _touch(tmp_path, "src/main/scala/a/Router.scala", "src/test/scala/a/RouterSpec.scala")
    assert _tiers(tmp_path, ["src/main/scala/a/Router.scala"], ["src/test/scala/a/RouterSpec.scala"]) == {
        "fast": ["sbt 'testOnly *RouterSpec'"],
        "safe": [],
        "full": ["sbt test"],
    }
    write(tmp_path, "jvm/build.gradle", "plugins {}\n")
    _touch(tmp_path, "jvm/src/main/scala/a/Other.scala")
    (tmp_path / "build.sbt").unlink()
    assert _tiers(tmp_path, ["jvm/src/main/scala/a/Other.scala"], [])["full"] == ["gradle -p jvm test"]


def test_lua_specs_run_by_busted_and_shell_by_bats_with_a_syntax_check(tmp_path: Path):
    _touch(tmp_path, "lua/util/bench.lua", "spec/util/bench_spec.lua", "bin/install.sh", "test/install.bats")
    assert _tiers(tmp_path, ["lua/util/bench.lua"], ["spec/util/bench_spec.lua"]) == {
        "fast": ["busted spec/util/bench_spec.lua"],
        "safe": [],
        "full": ["busted"],
    }
    assert _tiers(tmp_path, ["bin/install.sh"], ["test/install.bats"]) == {
        "fast": ["bats test/install.bats"],
        "safe": ["bash -n bin/install.sh"],
        "full": ["bats test"],
    }
