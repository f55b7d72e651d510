"""`pallium agents install`: the block upserted between its markers, idempotently, never half-written."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from kernel import dispatch
from kernel.context import ToolContext
from kernel.errors import PalliumError
from pallium_mcp.cli import main
from services.adoption.agents_files import BEGIN, BLOCK, END


async def _install(folder: Path, ceiling: str = "admin", **extra):
    ctx = ToolContext(ceiling=ceiling, cwd=folder)  # type: ignore[arg-type]
    try:
        return await dispatch.call("pallium_agents_install", {"dir": str(folder), **extra}, ctx)
    finally:
        ctx.close()


def _actions(out) -> dict[str, str]:
    return {Path(f.path).name: f.action for f in out.files}


def test_agents_md_is_created_when_neither_file_exists_and_a_second_install_changes_nothing(tmp_path: Path):
    assert _actions(anyio.run(_install, tmp_path)) == {"AGENTS.md": "created"}
    assert (tmp_path / "AGENTS.md").read_text(encoding="utf-8") == BLOCK
    assert _actions(anyio.run(_install, tmp_path)) == {"AGENTS.md": "unchanged"}
    assert not (tmp_path / "CLAUDE.md").exists()


def test_the_block_is_appended_to_each_existing_file_and_keeps_its_text(tmp_path: Path):
    (tmp_path / "AGENTS.md").write_text("# Rules\n\nBe kind.\n", encoding="utf-8")
    (tmp_path / "CLAUDE.md").write_text("Use tabs.", encoding="utf-8")
    assert _actions(anyio.run(_install, tmp_path)) == {"AGENTS.md": "appended", "CLAUDE.md": "appended"}
    agents = (tmp_path / "AGENTS.md").read_text(encoding="utf-8")
    assert agents.startswith("# Rules\n\nBe kind.\n\n") and agents.endswith(BLOCK)
    assert (tmp_path / "CLAUDE.md").read_text(encoding="utf-8") == "Use tabs.\n\n" + BLOCK


def test_an_old_block_is_replaced_between_the_markers_only(tmp_path: Path):
    old = f"intro\n{BEGIN}\nold words\n{END}\noutro\n"
    (tmp_path / "AGENTS.md").write_text(old, encoding="utf-8")
    assert _actions(anyio.run(_install, tmp_path)) == {"AGENTS.md": "updated"}
    assert (tmp_path / "AGENTS.md").read_text(encoding="utf-8") == "intro\n" + BLOCK + "outro\n"


@pytest.mark.parametrize(
    "broken",
    [f"a\n{BEGIN}\nno end\n", f"{END}\n{BEGIN}\n", f"{BEGIN}\n{END}\n{BEGIN}\n{END}\n", f"x\n{END}\n"],
    ids=["unclosed", "reversed", "twice", "end-only"],
)
def test_a_file_with_bad_markers_is_refused_and_no_file_changes(tmp_path: Path, broken: str):
    (tmp_path / "CLAUDE.md").write_text("fine\n", encoding="utf-8")
    (tmp_path / "AGENTS.md").write_text(broken, encoding="utf-8")
    with pytest.raises(PalliumError) as caught:
        anyio.run(_install, tmp_path)
    assert caught.value.code == "conflict"
    assert caught.value.details["path"].endswith("AGENTS.md")
    assert (tmp_path / "AGENTS.md").read_text(encoding="utf-8") == broken
    assert (tmp_path / "CLAUDE.md").read_text(encoding="utf-8") == "fine\n"


def test_install_needs_admin_and_dry_run_writes_nothing(tmp_path: Path):
    with pytest.raises(PalliumError) as caught:
        anyio.run(_install, tmp_path, "edit")
    assert caught.value.code == "authority_exceeded"
    out = anyio.run(lambda: _install(tmp_path, dry_run=True))
    assert _actions(out) == {"AGENTS.md": "created"} and not (tmp_path / "AGENTS.md").exists()


def test_cli_block_prints_the_block_and_install_reports_each_file(tmp_path: Path, capsys, monkeypatch):
    assert main(["agents", "block"]) == 0
    assert capsys.readouterr().out == BLOCK
    monkeypatch.chdir(tmp_path)
    assert main(["agents", "install", "--authority", "admin", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["files"] == [{"path": str((tmp_path / "AGENTS.md").resolve()), "action": "created"}]


def test_guide_and_workflow_guide_come_from_the_package(capsys):
    assert main(["agents", "guide", "--json"]) == 0
    guide = json.loads(capsys.readouterr().out)
    assert guide["name"] == "PALLIUM.md" and "pallium_route" in guide["guide"]
    assert "`sessions live`" in guide["guide"]  # the generated capability table
    assert main(["agents", "guide", "--workflow"]) == 0
    assert "parallel(" in capsys.readouterr().out


def test_a_named_folder_other_than_the_current_one_must_be_a_repository(tmp_path: Path):
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()

    async def install_elsewhere():
        ctx = ToolContext(ceiling="admin", cwd=here)
        try:
            return await dispatch.call("pallium_agents_install", {"dir": str(elsewhere)}, ctx)
        finally:
            ctx.close()

    with pytest.raises(PalliumError) as caught:
        anyio.run(install_elsewhere)
    assert caught.value.code == "invalid_input" and caught.value.details["field"] == "dir"
    assert "--dir" in caught.value.hint and list(elsewhere.iterdir()) == []
    (elsewhere / ".git").mkdir()
    (elsewhere / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    assert _actions(anyio.run(install_elsewhere)) == {"AGENTS.md": "created"}
