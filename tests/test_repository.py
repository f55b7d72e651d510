"""Facts about the repository itself: lint, the README's test command, the examples."""

import json
import re
import subprocess
import tomllib
from pathlib import Path

from tests.conftest import script

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_passes():
    ruff = script("ruff")
    done = subprocess.run([ruff, "check", "--quiet", str(ROOT)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Tests", 1)[1]
    command = re.search(r"```sh\n(.+?)\n```", section, re.S).group(1).strip()
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci_lines


def test_example_client_configs_launch_the_installed_server():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    claude = json.loads((ROOT / "examples" / "mcp.json").read_text(encoding="utf-8"))
    codex = tomllib.loads((ROOT / "examples" / "codex-config.toml").read_text(encoding="utf-8"))
    assert claude["mcpServers"]["pallium"]["command"] in scripts
    assert codex["mcp_servers"]["pallium"]["command"] in scripts


def test_the_readmes_example_commands_name_files_the_checkout_has():
    """The quick start runs in the checkout: a path its examples pass to a command must be there."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = re.findall(r"^pallium (?:explain|risk|neighbors|symbols|callers --file)\s+(\S+)", readme, re.M)
    assert named, "the README shows `pallium explain <file>`"
    assert [path for path in named if not (ROOT / path).is_file()] == []
