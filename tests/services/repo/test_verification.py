"""Verification commands inferred from each ecosystem's own files, one branch at a time."""

from pathlib import Path

from services.repo.verification import verification_for
from tests.conftest import write


def _tiers(root: Path, paths: list[str], tests: list[str]) -> dict[str, list[str]]:
    return verification_for(root, paths, tests).model_dump()


def test_go_tests_and_vets_the_packages_of_the_changed_files(tmp_path: Path):
    write(tmp_path, "go.mod", "module example.com/x\n")
    assert _tiers(tmp_path, ["main.go", "pkg/a/a.go", "pkg/a/b.go"], []) == {
        "fast": ["go test . ./pkg/a"],
        "safe": ["go vet . ./pkg/a"],
        "full": ["go test ./..."],
    }


def test_go_packages_of_a_nested_module_run_in_that_modules_folder(tmp_path: Path):
    write(tmp_path, "go.mod", "module example.com/x\n")
    write(tmp_path, "tools/go.mod", "module example.com/tools\n")
    assert _tiers(tmp_path, ["api/a.go", "tools/lint/lint.go", "tools/main.go"], []) == {
        "fast": ["go test ./api", "go -C tools test . ./lint"],
        "safe": ["go vet ./api", "go -C tools vet . ./lint"],
        "full": ["go test ./...", "go -C tools test ./..."],
    }


def test_go_files_without_a_go_mod_get_no_go_commands(tmp_path: Path):
    assert _tiers(tmp_path, ["main.go"], []) == {"fast": [], "safe": [], "full": []}


def test_npm_scripts_use_npm_without_a_lockfile_and_run_lint_typecheck_and_tests(tmp_path: Path):
    write(
        tmp_path,
        "package.json",
        '{"scripts": {"lint": "x", "type-check": "x", "test:unit": "x", "test": "x"}, "dependencies": {"jest": "1"}}',
    )
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


def test_cargo_tests_the_changed_module_by_name_or_the_crate_for_lib_and_main(tmp_path: Path):
    write(tmp_path, "Cargo.toml", "[package]\nname = 'x'\n")
    assert _tiers(tmp_path, ["src/parser.rs"], [])["fast"] == ["cargo test parser"]
    assert _tiers(tmp_path, ["src/lib.rs"], []) == {
        "fast": ["cargo test"],
        "safe": ["cargo clippy --all-targets"],
        "full": ["cargo test --all"],
    }


def test_maven_runs_each_covering_test_class(tmp_path: Path):
    write(tmp_path, "pom.xml", "<project/>")
    tests = ["src/test/java/a/FooTest.java", "src/test/java/a/FooIT.java"]
    assert _tiers(tmp_path, ["src/main/java/a/Foo.java"], tests) == {
        "fast": ["mvn -q test -Dtest=FooTest", "mvn -q test -Dtest=FooIT"],
        "safe": [],
        "full": ["mvn -q test"],
    }


def test_gradle_prefers_the_wrapper_when_the_repository_has_one(tmp_path: Path):
    write(tmp_path, "build.gradle.kts", "plugins {}\n")
    tests = ["src/test/java/a/FooTest.java"]
    assert _tiers(tmp_path, ["src/main/java/a/Foo.java"], tests) == {
        "fast": ["gradle test --tests FooTest"],
        "safe": [],
        "full": ["gradle test"],
    }
    write(tmp_path, "gradlew", "#!/bin/sh\n")
    assert _tiers(tmp_path, ["src/main/java/a/Foo.java"], tests)["full"] == ["./gradlew test"]


def test_make_targets_lint_test_and_check_join_any_language(tmp_path: Path):
    write(tmp_path, "Makefile", "VAR := 1\nlint:\n\ttrue\ntest: lint\n\ttrue\ncheck:\n\ttrue\nbuild:\n\ttrue\n")
    assert _tiers(tmp_path, ["docs/guide.md"], []) == {
        "fast": [],
        "safe": ["make lint"],
        "full": ["make test", "make check"],
    }


def test_python_uses_the_covering_tests_their_folder_and_ruff_when_configured(tmp_path: Path):
    write(tmp_path, "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    write(tmp_path, "pkg/a.py", "x = 1\n")  # commands name only files that exist
    write(tmp_path, "tests/test_a.py", "def test_a():\n    pass\n")
    assert _tiers(tmp_path, ["pkg/a.py"], ["tests/test_a.py"]) == {
        "fast": ["python -m pytest -q tests/test_a.py"],
        "safe": ["python -m pytest -q tests", "ruff check pkg/a.py"],
        "full": ["python -m pytest -q"],
    }
