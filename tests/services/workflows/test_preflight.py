"""Preflight: files to inspect, their risk and the verification commands, through the repository's front door."""

import json
from pathlib import Path

import pytest
from mcp import Client

from kernel.context import ToolContext
from kernel.errors import PalliumError
from pallium_mcp.cli import main
from pallium_mcp.server import build_server
from services.workflows.library_tools import preflight, start
from services.workflows.models import PreflightInput, RunInput, StartInput
from services.workflows.tools import run
from tests.conftest import git, write

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


async def _preflight(repo: Path, task: str, **extra):
    ctx = ToolContext(cwd=repo)
    try:
        return await preflight(PreflightInput(task=task, **extra), ctx)
    finally:
        ctx.close()


async def test_changed_files_are_inspected_with_their_risk_and_verification(git_repo: Path):
    write(git_repo, "src/app.py", "def main():\n    return 3\n")
    out = await _preflight(git_repo, "make main return 3")
    assert out.source == "changed" and out.changed_files == ["src/app.py"] and out.changed_count == 1
    assert [f.path for f in out.files] == ["src/app.py"]
    assert out.files[0].risk_level in ("low", "medium", "high") and out.files[0].tests == ["tests/test_app.py"]
    assert out.verification.fast == ["python -m pytest -q tests/test_app.py"]
    assert out.verification.full == ["python -m pytest -q"]


async def test_a_new_file_not_yet_indexed_borrows_its_folders_commands(git_repo: Path):
    write(git_repo, "src/helpers.py", "def helper():\n    return 2\n")
    out = await _preflight(git_repo, "add a helper")
    assert [(f.path, f.risk_level) for f in out.files] == [("src/helpers.py", None)]
    assert "not in the index" in out.files[0].note
    assert out.verification.fast == [] and out.verification.full == ["python -m pytest -q"]
    assert out.notes == ["src/helpers.py is not indexed yet; its safe and full commands come from src/app.py"]


async def test_a_scope_wins_over_the_changes_and_a_folder_means_its_files(git_repo: Path):
    write(git_repo, "src/app.py", "def main():\n    return 3\n")
    out = await _preflight(git_repo, "look at the tests", scope=["tests"])
    assert out.source == "scope" and [f.path for f in out.files] == ["tests/test_app.py"]
    assert out.changed_files == ["src/app.py"]
    with pytest.raises(PalliumError) as missing:
        await _preflight(git_repo, "x", scope=["nowhere.py"])
    assert missing.value.code == "not_found" and missing.value.details["field"] == "scope"


async def test_a_clean_tree_falls_back_to_search_hits_for_the_task_words(git_repo: Path):
    many = "".join(f"def handler_{i}():\n    return {i}\n\n" for i in range(40))
    for i in range(40):
        write(git_repo, f"pkg/mod_{i}.py", f'"""Module {i}: {"padding " * 60}"""\n' + many)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "Add modules")
    out = await _preflight(git_repo, "why does the handler misbehave?", limit=30)
    assert out.source == "search" and out.changed_files == []
    assert out.files and all(f.path.startswith("pkg/") for f in out.files)
    assert len(out.model_dump_json()) <= 12_000
    nothing = await _preflight(git_repo, "zzqx")
    assert nothing.source == "none" and nothing.files == [] and nothing.notes


async def test_start_carries_the_preflight_and_scripts_read_it_through_the_helper(git_repo: Path, fake):
    write(git_repo, "src/app.py", "def main():\n    return 3\n")
    ctx = ToolContext(cwd=git_repo)
    dry = await start(StartInput(task="review my change", dry_run=True), ctx)
    helper = await run(
        RunInput(
            task="t",
            source='const p = await pallium.preflight("look", "src", "tests"); return [p.source, p.files.length];',
            id="preflight-helper",
        ),
        ctx,
    )
    ctx.close()
    assert dry.preflight.source == "changed" and dry.args["files"] == ["src/app.py"]
    assert dry.preflight.verification.full == ["python -m pytest -q"]
    assert helper.status == "completed", helper.error
    assert helper.result == ["scope", 2]


async def test_preflight_over_mcp(git_repo: Path):
    write(git_repo, "src/app.py", "def main():\n    return 3\n")
    async with Client(build_server(toolsets="all", cwd=git_repo)) as client:
        result = await client.call_tool("pallium_workflow_preflight", {"task": "fix main"})
    assert result.is_error is False
    assert result.structured_content["files"][0]["path"] == "src/app.py"


def test_cli_preflight_prints_files_and_commands(git_repo: Path, capsys, monkeypatch):
    write(git_repo, "src/app.py", "def main():\n    return 3\n")
    monkeypatch.chdir(git_repo)
    assert main(["workflow", "preflight", "fix main", "--scope", "src/app.py"]) == 0
    text = capsys.readouterr().out
    assert "src/app.py  risk" in text and "verify fast: python -m pytest -q tests/test_app.py" in text
    assert main(["workflow", "preflight", "fix main", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == "changed"


async def test_start_scopes_to_the_module_the_task_names_before_the_changed_files(git_repo: Path, fake):
    write(git_repo, "src/auth/login.py", "def check_password(user, given):\n    return user.password == given\n")
    write(git_repo, "src/auth/tokens.py", "def issue_token(user):\n    return 'token'\n")
    write(git_repo, "src/billing.py", "def charge_card(amount):\n    return amount\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "Add auth and billing")
    write(git_repo, "README.md", "# demo, edited\n")  # an unrelated change
    ctx = ToolContext(cwd=git_repo)
    try:
        dry = await start(StartInput(task="audit the auth module", dry_run=True), ctx)
        symbol = await preflight(PreflightInput(task="why does `charge_card` round?"), ctx)
    finally:
        ctx.close()
    assert dry.preflight.source == "named" and dry.run is None
    assert sorted(f.path for f in dry.preflight.files) == ["src/auth/login.py", "src/auth/tokens.py"]
    assert dry.args["files"] == [f.path for f in dry.preflight.files] and "README.md" in dry.changed_files
    assert dry.provider == "fake" and fake.calls() == []
    assert symbol.source == "named" and [f.path for f in symbol.files] == ["src/billing.py"]


def test_cli_start_dry_run_names_the_provider_it_would_spend_on(git_repo: Path, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    assert main(["start", "audit the app", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "provider: fake" in out and "would spend on fake" in out
