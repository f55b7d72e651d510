"""`pallium update`: each install kind faked in a temporary folder, the upgrade run without a shell or network."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import anyio
import pytest

from kernel import dispatch
from kernel.context import ToolContext
from kernel.errors import PalliumError
from services.adoption import update


def _program(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def _venv(prefix: Path, version: str = "9.9.9") -> Path:
    (prefix / "pyvenv.cfg").parent.mkdir(parents=True, exist_ok=True)
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    log = prefix / "calls.log"
    _program(prefix / "bin" / "python", f'echo "$@" >> {log}\ncase "$1" in -c) echo {version};; esac\n')
    return log


def test_an_editable_checkout_is_told_to_pull_and_reinstall(tmp_path: Path):
    dist = tmp_path / "pallium.dist-info"
    dist.mkdir()
    (dist / "direct_url.json").write_text(json.dumps({"url": "file:///src/pallium", "dir_info": {"editable": True}}))
    found = update.detect(prefix=tmp_path / "env", base_prefix=tmp_path / "env", dist_info=dist)
    assert (found.kind, found.source, found.command) == ("editable", "/src/pallium", None)


def test_pipx_and_uv_tool_installs_run_their_own_upgrade(tmp_path: Path, monkeypatch):
    bin_dir = tmp_path / "bin"
    log = tmp_path / "calls.log"
    for name in ("pipx", "uv"):
        _program(bin_dir / name, f'echo {name} "$@" >> {log}\n')
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    dist = tmp_path / "none"
    pipx = update.detect(prefix=tmp_path / "pipx" / "venvs" / "pallium", base_prefix=Path("/usr"), dist_info=dist)
    uv_prefix = tmp_path / "uv" / "tools" / "pallium"
    uv_prefix.mkdir(parents=True)
    (uv_prefix / "uv-receipt.toml").write_text("[tool]\n", encoding="utf-8")
    uv = update.detect(prefix=uv_prefix, base_prefix=Path("/usr"), dist_info=dist)
    assert (pipx.kind, uv.kind) == ("pipx", "uv_tool")
    update.upgrade(pipx)
    update.upgrade(uv)
    assert log.read_text(encoding="utf-8").splitlines() == ["pipx upgrade pallium", "uv tool upgrade pallium"]


def _installed_from(tmp_path: Path, direct_url: dict) -> Path:
    dist = tmp_path / "pallium-0.1.0.dist-info"
    dist.mkdir()
    (dist / "direct_url.json").write_text(json.dumps(direct_url), encoding="utf-8")
    return dist


def test_pip_in_a_virtualenv_upgrades_from_the_folder_it_was_installed_from(tmp_path: Path):
    prefix = tmp_path / "venv"
    log = _venv(prefix)
    dist = _installed_from(tmp_path, {"url": "file:///src/pallium", "dir_info": {}})
    found = update.detect(prefix=prefix, base_prefix=Path("/usr"), dist_info=dist)
    assert found.kind == "pip_venv" and found.command[0] == str(prefix / "bin" / "python")
    update.upgrade(found)
    assert update.installed_version(found) == "9.9.9"
    assert log.read_text(encoding="utf-8").splitlines()[0] == "-m pip install --upgrade /src/pallium"


def test_pip_upgrades_a_git_install_from_its_repository(tmp_path: Path):
    dist = _installed_from(
        tmp_path, {"url": "https://example.invalid/pallium.git", "vcs_info": {"vcs": "git", "commit_id": "ab" * 20}}
    )
    found = update.detect(prefix=tmp_path / "venv", base_prefix=Path("/usr"), dist_info=dist)
    assert found.command[-1] == "git+https://example.invalid/pallium.git"


@pytest.mark.parametrize(
    "direct_url",
    [None, {"url": "file:///wheels/pallium-0.1.0-py3-none-any.whl", "archive_info": {}}],
    ids=["by-name-from-an-index", "one-fixed-archive"],
)
def test_pip_never_upgrades_by_name_since_pypi_pallium_is_another_project(tmp_path: Path, direct_url):
    prefix = tmp_path / "venv"
    _venv(prefix)
    dist = _installed_from(tmp_path, direct_url) if direct_url else tmp_path / "none"
    found = update.detect(prefix=prefix, base_prefix=Path("/usr"), dist_info=dist)
    assert found.kind == "pip_venv" and found.command is None


def test_a_checkout_first_on_sys_path_is_not_taken_for_the_installed_pallium(tmp_path: Path, monkeypatch):
    before = update.detect()
    checkout = tmp_path / "checkout"
    (checkout / "pallium.egg-info").mkdir(parents=True)
    (checkout / "pallium.egg-info" / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: pallium\nVersion: 0.1.0\n")
    monkeypatch.syspath_prepend(str(checkout))
    monkeypatch.chdir(checkout)
    assert update.detect() == before


def test_offline_the_upgrade_fails_unavailable_saying_so(tmp_path: Path):
    prefix = tmp_path / "venv"
    _venv(prefix)
    _program(prefix / "bin" / "python", 'echo "ERROR: Could not fetch URL: Network is unreachable" >&2\nexit 1\n')
    dist = _installed_from(tmp_path, {"url": "file:///src/pallium", "dir_info": {}})
    found = update.detect(prefix=prefix, base_prefix=Path("/usr"), dist_info=dist)
    with pytest.raises(PalliumError) as caught:
        update.upgrade(found)
    assert caught.value.code == "unavailable" and caught.value.details["offline"] is True


def test_a_system_python_install_is_not_touched(tmp_path: Path):
    with pytest.raises(PalliumError) as caught:
        update.detect(prefix=Path("/usr"), base_prefix=Path("/usr"), dist_info=tmp_path / "none")
    assert caught.value.code == "unavailable"


def test_the_tool_needs_admin_and_reports_this_checkout_as_editable(tmp_path: Path):
    async def call(ceiling: str):
        ctx = ToolContext(ceiling=ceiling, cwd=tmp_path)  # type: ignore[arg-type]
        try:
            return await dispatch.call("pallium_update", {"dry_run": True}, ctx)
        finally:
            ctx.close()

    with pytest.raises(PalliumError) as caught:
        anyio.run(call, "edit")
    assert caught.value.code == "authority_exceeded"
    out = anyio.run(call, "admin")
    assert out.ran is False and out.version_before
    assert out.install_kind in ("editable", "pip_venv", "pipx", "uv_tool")
