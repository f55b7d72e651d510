"""Suggested verification commands start and run the intended tests, on real fixture repositories.

Each command comes from a real tool answer (`pallium_explain`, `pallium_handoff`, through the
dispatcher or the MCP client) and runs verbatim with `sh -c` from the repository root, as a
workflow's `check()` runs it. Python, Node and Rust run for real; Go runs only where `go` is
installed. No test touches the network: Node gets no `npm install`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

from pallium_mcp.server import build_server
from tests.conftest import git, write
from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio


def _run(repo: Path, command: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run `command` as the agent would paste it: one shell, at the repository root.

    `python` is this interpreter (first on PATH); no PYTHONPATH, so imports work only when the
    command runs from the right folder. `-rA` (through PYTEST_ADDOPTS, not the command) makes
    pytest list each test it passed."""
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    clean["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    clean |= {"PYTEST_ADDOPTS": "-rA -p no:cacheprovider", "npm_config_offline": "true"}
    clean |= {"npm_config_update_notifier": "false", "CARGO_NET_OFFLINE": "true", **env}
    return subprocess.run(["sh", "-c", command], cwd=repo, capture_output=True, text=True, env=clean, timeout=300)


@pytest.fixture
def py_repo(tmp_path: Path) -> Path:
    """A root project and a sub-project with its own pytest.ini, conftest and package."""
    return new_repo(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "geo"\n\n[tool.ruff]\nline-length = 100\n',
            "uv.lock": "version = 1\n",
            "CHANGELOG.md": "# 1.0\n",
            "geo/__init__.py": "",
            "geo/io.py": "def read():\n    return 1\n",
            "tests/__init__.py": "",
            "tests/conftest.py": "import pytest\n",
            "tests/fixtures/sample.py": "DATA = 1\n",
            "tests/test_app.py": "from geo.io import read\n\n\ndef test_app():\n    assert read() == 1\n",
            "tests/test_io.py": "from geo.io import read\n\n\ndef test_read():\n    assert read() == 1\n",
            "plugins/sdk/pytest.ini": "[pytest]\ntestpaths = tests\n",
            "plugins/sdk/sdk/__init__.py": "",
            "plugins/sdk/sdk/client.py": "def connect(url):\n    return url\n",
            "plugins/sdk/tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef url():\n    return 'x://sdk'\n",
            "plugins/sdk/tests/test_client.py": (
                "from sdk.client import connect\n\n\n"
                "def test_connect(url, request):\n"
                "    assert request.config.rootpath.name == 'sdk'\n"
                "    assert connect(url) == 'x://sdk'\n"
            ),
        },
    )


async def test_the_fast_command_runs_the_files_own_test_first_and_passes(py_repo: Path) -> None:
    out = await ask(py_repo, "pallium_explain", path="geo/io.py")
    assert "tests/conftest.py" not in out.tests and "tests/fixtures/sample.py" not in out.tests
    fast = out.verification.fast
    assert fast and fast[0].split()[4] == "tests/test_io.py"
    ran = _run(py_repo, fast[0])
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "2 passed" in ran.stdout
    assert "PASSED tests/test_io.py::test_read" in ran.stdout and "PASSED tests/test_app.py::test_app" in ran.stdout


async def test_a_sub_projects_tests_run_from_its_folder_with_its_own_conftest(py_repo: Path) -> None:
    """The sub-project's package imports only from its folder, its fixture comes from its conftest,
    and pytest's rootdir is the sub-project: the test checks all three."""
    write(py_repo, "plugins/sdk/sdk/client.py", "def connect(url):\n    return str(url)\n")
    out = await ask(py_repo, "pallium_handoff", base="HEAD")
    assert out.verification.fast == ["cd plugins/sdk && python -m pytest -q tests/test_client.py"]
    assert "cd plugins/sdk && python -m pytest -q" in out.verification.full
    for command in out.verification.fast + [c for c in out.verification.safe if "pytest" in c]:
        ran = _run(py_repo, command)
        assert ran.returncode == 0, command + "\n" + ran.stdout + ran.stderr
        assert "PASSED tests/test_client.py::test_connect" in ran.stdout
    run_from_root = _run(py_repo, "python -m pytest -q plugins/sdk/tests/test_client.py")
    assert run_from_root.returncode != 0  # the reason the command changes folder first


async def test_linters_get_only_existing_files_of_their_language(py_repo: Path) -> None:
    (py_repo / "geo" / "io.py").write_text("def read():\n    return 2\n", encoding="utf-8")
    (py_repo / "uv.lock").write_text("version = 2\n", encoding="utf-8")
    (py_repo / "CHANGELOG.md").write_text("# 1.1\n", encoding="utf-8")
    git(py_repo, "rm", "-q", "tests/test_app.py")
    out = await ask(py_repo, "pallium_handoff", base="HEAD")
    ruff = [c for c in out.verification.safe if c.startswith("ruff check")]
    assert ruff == ["ruff check geo/io.py"]
    assert all("tests/test_app.py" not in c for c in out.verification.fast)


@pytest.fixture
def js_repo(tmp_path: Path) -> Path:
    sum_test = (
        "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { sum } from './sum.mjs';\n\n"
        "test('sum adds', () => assert.equal(sum(1, 2), 3));\n"
    )
    repo = new_repo(
        tmp_path,
        {
            "package.json": '{"name": "root", "private": true}\n',
            "web/package.json": '{"name": "web", "scripts": {"test": "node --test"}}\n',
            "web/src/sum.mjs": "export function sum(a, b) {\n  return a + b;\n}\n",
            "web/src/sum.test.mjs": sum_test,
            "web/src/other.test.mjs": "import { test } from 'node:test';\n\ntest('other is not run', () => {});\n",
            "ui/package.json": '{"name": "ui", "scripts": {"test": "jest"}, "devDependencies": {"jest": "29"}}\n',
            "ui/src/sum.mjs": "export function sum(a, b) {\n  return a + b;\n}\n",
            "ui/src/sum.test.mjs": sum_test,
        },
    )
    # Stand-in for the jest binary (not installable offline), written where `npm install` would put
    # it and left untracked like node_modules: it logs where and with what it started, then runs the
    # named files with node's test runner.
    jest = write(
        repo,
        "ui/node_modules/.bin/jest",
        "#!/usr/bin/env node\n"
        "const { execFileSync } = require('node:child_process');\n"
        "console.log('jest-stand-in ' + JSON.stringify({ cwd: process.cwd(), args: process.argv.slice(2) }));\n"
        "process.stdout.write(execFileSync(process.execPath, ['--test', ...process.argv.slice(2)]));\n",
    )
    jest.chmod(0o755)
    return repo


async def test_a_nested_package_runs_its_own_node_test_runner_on_the_files_own_test(js_repo: Path) -> None:
    out = await ask(js_repo, "pallium_explain", path="web/src/sum.mjs")
    assert out.verification.fast == ["cd web && node --test src/sum.test.mjs"]
    assert out.verification.full == ["cd web && npm test"]
    ran = _run(js_repo, out.verification.fast[0])
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "# pass 1" in ran.stdout and "sum adds" in ran.stdout and "other is not run" not in ran.stdout


async def test_a_nested_jest_package_resolves_its_local_runner_from_its_folder(js_repo: Path) -> None:
    """Through the MCP client. The jest binary is a stand-in (see the fixture): this proves the command
    starts in the package's folder, finds the package's own runner through npx without the network,
    and names the test by a path that exists there; it does not exercise jest's own CLI."""
    async with Client(build_server(cwd=js_repo)) as client:
        result = await client.call_tool("pallium_explain", {"path": "ui/src/sum.mjs"})
    assert not result.is_error, result.content[0].text
    fast = json.loads(result.content[0].text)["verification"]["fast"]
    assert fast == ["cd ui && npx jest src/sum.test.mjs"]
    ran = _run(js_repo, fast[0])
    assert ran.returncode == 0, ran.stdout + ran.stderr
    started = json.loads(ran.stdout.split("jest-stand-in ", 1)[1].splitlines()[0])
    assert started == {"cwd": str((js_repo / "ui").resolve()), "args": ["src/sum.test.mjs"]}
    assert "# pass 1" in ran.stdout


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
async def test_a_nested_crate_runs_the_changed_modules_tests_through_its_manifest(tmp_path: Path) -> None:
    """A crate with no dependencies builds offline in about a second."""
    repo = new_repo(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["crates/lexer"]\nresolver = "2"\n',
            "crates/lexer/Cargo.toml": '[package]\nname = "lexer"\nversion = "0.1.0"\nedition = "2021"\n',
            "crates/lexer/src/lib.rs": "pub mod other;\npub mod token;\n",
            "crates/lexer/src/token.rs": (
                "pub fn one() -> u32 {\n    1\n}\n\n#[cfg(test)]\nmod tests {\n"
                "    #[test]\n    fn token_is_one() {\n        assert_eq!(super::one(), 1);\n    }\n}\n"
            ),
            "crates/lexer/src/other.rs": "#[cfg(test)]\nmod tests {\n    #[test]\n    fn other_runs() {}\n}\n",
        },
    )
    out = await ask(repo, "pallium_explain", path="crates/lexer/src/token.rs")
    assert out.verification.fast == ["cargo test --manifest-path crates/lexer/Cargo.toml token"]
    ran = _run(repo, out.verification.fast[0], CARGO_TARGET_DIR=str(tmp_path / "target"))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "token::tests::token_is_one ... ok" in ran.stdout and "other_runs" not in ran.stdout


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed here")
async def test_a_nested_go_module_tests_the_changed_package_in_its_folder(tmp_path: Path) -> None:
    repo = new_repo(
        tmp_path,
        {
            "go.mod": "module example.com/x\n\ngo 1.21\n",
            "tools/go.mod": "module example.com/tools\n\ngo 1.21\n",
            "tools/lint/lint.go": "package lint\n\nfunc One() int { return 1 }\n",
            "tools/lint/lint_test.go": (
                'package lint\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {\n'
                '\tif One() != 1 {\n\t\tt.Fatal("one")\n\t}\n}\n'
            ),
        },
    )
    out = await ask(repo, "pallium_explain", path="tools/lint/lint.go")
    assert out.verification.fast == ["go -C tools test ./lint"]
    ran = _run(repo, out.verification.fast[0] + " -v", GOFLAGS="-mod=mod", GOCACHE=str(tmp_path / "gocache"))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "--- PASS: TestOne" in ran.stdout
