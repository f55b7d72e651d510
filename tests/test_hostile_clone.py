"""A cloned repository is untrusted: whatever links it commits, Pallium writes no byte outside it.

Each case builds a repository the way a stranger could publish it (symbolic links committed under
`.pallium/`, or `.pallium` itself a link or a file), runs what a user would run first on it, and
compares every byte of a sibling folder (standing in for the rest of the user's disk) before and
after. The call must fail with a JSON error naming the path, never a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from mcp import Client

from kernel import writes
from kernel.context import ToolContext
from kernel.errors import PalliumError
from pallium_mcp.cli import main
from pallium_mcp.server import build_server
from services.workflows.library_tools import generate, save
from services.workflows.models import GenerateInput, RunInput, SaveInput
from services.workflows.tools import run
from tests.conftest import git, write
from tests.kernel.conftest import fake  # noqa: F401  (the fake provider fixture)

pytestmark = pytest.mark.anyio


def tree_bytes(folder: Path) -> dict[str, str]:
    """Every entry under `folder` (links as their target, files by content hash)."""
    seen: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                seen[rel] = "link:" + os.readlink(path)
            elif path.is_file():
                seen[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                seen[rel] = "dir"
    return seen


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the repository holding a file the user cares about."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "important.txt").write_text("do not touch\n", encoding="utf-8")
    (folder / "elsewhere").mkdir()
    return folder


def commit_link(repo: Path, relative: str, target: str) -> None:
    link = repo / relative
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    git(repo, "add", "-f", relative)
    git(repo, "commit", "-q", "-m", f"add {relative}")


def cli(args: list[str], cwd: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(cwd)
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


HOSTILE_LINKS = [
    (".pallium/index.lock", "../../outside/important.txt"),
    (".pallium", "../outside/elsewhere"),
    (".pallium/.gitignore", "../../outside/created-by-pallium.txt"),
    (".pallium/pallium.sqlite", "../../outside/important.txt"),
    (".pallium/pallium.sqlite-wal", "../../outside/wal"),
    (".pallium/pallium.sqlite-journal", "../../outside/journal"),
]


@pytest.mark.parametrize(("relative", "target"), HOSTILE_LINKS, ids=[r for r, _ in HOSTILE_LINKS])
def test_a_read_only_query_on_a_hostile_clone_writes_nothing_outside(
    relative, target, git_repo, outside, capsys, monkeypatch
):
    commit_link(git_repo, relative, target)
    before = tree_bytes(outside)
    code, out, err = cli(["search", "main", "--json"], git_repo, capsys, monkeypatch)
    assert tree_bytes(outside) == before
    assert code == 1 and out == "" and "Traceback" not in err
    error = json.loads(err)["error"]
    assert error["code"] == "unavailable"
    assert error["details"]["path"].endswith(relative)
    assert "symbolic link" in error["message"]


@pytest.mark.parametrize(("relative", "target"), HOSTILE_LINKS[:3], ids=[r for r, _ in HOSTILE_LINKS[:3]])
async def test_the_same_query_over_mcp_is_a_json_error_and_writes_nothing_outside(
    relative, target, git_repo, outside, monkeypatch
):
    commit_link(git_repo, relative, target)
    before = tree_bytes(outside)
    async with Client(build_server(cwd=git_repo, toolsets="all")) as client:
        result = await client.call_tool("pallium_search", {"query": "main"})
        assert result.is_error
        error = json.loads(result.content[0].text)["error"]
        assert error["code"] == "unavailable" and error["details"]["path"].endswith(relative)
        version = await client.call_tool("pallium_version", {})
        assert not version.is_error
    assert tree_bytes(outside) == before


def test_a_pallium_that_is_a_file_is_a_clear_error(git_repo, outside, capsys, monkeypatch):
    write(git_repo, ".pallium", "not a folder\n")
    code, _, err = cli(["search", "main", "--json"], git_repo, capsys, monkeypatch)
    error = json.loads(err)["error"]
    assert code == 1 and error["code"] == "unavailable"
    assert "a file where Pallium needs a folder" in error["message"]
    assert (git_repo / ".pallium").read_text(encoding="utf-8") == "not a folder\n"


@pytest.mark.usefixtures("fake")
async def test_workflow_save_through_a_linked_workflows_folder_is_refused(git_repo, outside, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    (outside / "wf").mkdir()
    commit_link(git_repo, ".pallium/workflows", "../../outside/wf")
    ctx = ToolContext(cwd=git_repo)
    try:
        await run(RunInput(task="t", source="return 1;", id="to-save"), ctx)
        before = tree_bytes(outside)
        with pytest.raises(PalliumError) as caught:
            await save(SaveInput(run_id="to-save", name="answer"), ctx)
    finally:
        ctx.close()
    assert caught.value.code == "unavailable"
    assert caught.value.details["path"] == str(git_repo.resolve() / ".pallium" / "workflows")
    assert tree_bytes(outside) == before


async def test_generate_output_through_a_linked_folder_in_the_repo_is_refused(git_repo, outside):
    commit_link(git_repo, "scripts", "../outside/elsewhere")
    before = tree_bytes(outside)
    ctx = ToolContext(cwd=git_repo)
    with pytest.raises(PalliumError) as caught:
        # confine() resolves links and sees the target is outside; the writer refuses links in any case
        await generate(GenerateInput(task="t", style="review", output="scripts/wf.js"), ctx)
    ctx.close()
    assert caught.value.code in {"invalid_input", "unavailable"}
    assert tree_bytes(outside) == before


@pytest.mark.parametrize("linked", ["knowledge", "workflows", "locks", "cache/deeper"])
def test_any_linked_folder_under_pallium_is_refused_by_the_kernel_writer(linked, git_repo, outside):
    state = git_repo / ".pallium"
    state.mkdir()
    link = state / linked
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside / "elsewhere")
    before = tree_bytes(outside)
    for attempt in (
        lambda: writes.write_text(link / "note.md", "x"),
        lambda: writes.ensure_dir(link / "sub"),
        lambda: writes.open_fd(link / "lock", os.O_RDWR | os.O_CREAT),
    ):
        with pytest.raises(PalliumError) as caught:
            attempt()
        assert caught.value.code == "unavailable"
        assert caught.value.details["path"] == str(link)
    assert tree_bytes(outside) == before


def test_a_linked_folder_in_pallium_home_is_refused(pallium_home, outside):
    (pallium_home / "workflow-runs").symlink_to(outside / "elsewhere")
    before = tree_bytes(outside)
    with pytest.raises(PalliumError) as caught:
        writes.write_bytes(pallium_home / "workflow-runs" / "r1" / "patches" / "p.patch", b"diff")
    assert caught.value.details["path"] == str(pallium_home / "workflow-runs")
    assert tree_bytes(outside) == before


def test_the_writer_refuses_paths_outside_its_anchors(tmp_path):
    with pytest.raises(PalliumError) as caught:
        writes.write_text(tmp_path / "somewhere" / "file.txt", "x")
    assert caught.value.code == "internal"
    assert not (tmp_path / "somewhere").exists()


def test_a_clean_clone_still_gets_its_pallium_folder_and_gitignore(git_repo, capsys, monkeypatch):
    code, _, err = cli(["search", "main", "--json"], git_repo, capsys, monkeypatch)
    assert code == 0, err
    state = git_repo / ".pallium"
    assert state.is_dir() and not state.is_symlink()
    assert (state / ".gitignore").read_text(encoding="utf-8") == writes.REPO_GITIGNORE
    assert git(git_repo, "status", "--porcelain") == ""


def test_a_clone_shipping_pallium_s_own_package_names_runs_none_of_their_code(tmp_path):
    """Pallium's helper processes (`python -m kernel.offload`, detached runs) start in the folder
    the user is in: a repository with its own `kernel/` or `services/` package must not replace
    Pallium's. The first cold index of this one used to run its `kernel/__init__.py`."""
    import subprocess

    from tests.conftest import script

    repo = tmp_path / "hostile"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    marker = tmp_path / "ran"
    payload = f"import pathlib\npathlib.Path({str(marker)!r}).write_text(__name__)\n"
    for package in ("kernel", "services", "pallium_mcp", "tools_manifest"):
        write(repo, f"{package}/__init__.py", payload)
        write(repo, f"{package}/offload.py", payload)
    for i in range(60):
        write(repo, f"src/m{i}.py", f"def f{i}():\n    return {i}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")
    for i in range(3):
        git(repo, "commit", "-q", "--allow-empty", "-m", f"more {i}")
    done = subprocess.run([script("pallium"), "index", "--json"], cwd=repo, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["commits_read"] == 4
    assert not marker.exists(), f"the repository's {marker.read_text()} ran"
