"""The flag-drift probe behind `pallium doctor`, run against the fake installed as `claude` and `codex`."""

from __future__ import annotations

import os

import pytest

from kernel.providers.fake import install
from kernel.providers.probe import FLAGS_USED, check_cli


@pytest.fixture
def shims(tmp_path, monkeypatch):
    install(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    for name in ("PALLIUM_CLAUDE_BIN", "PALLIUM_CODEX_BIN", "PALLIUM_FAKE_HELP_DROP"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "bin"


def test_codex_probe_reads_the_exec_resume_help_page_too():
    pages = [help_args for help_args, _ in FLAGS_USED["codex"]]
    assert ("exec", "resume", "--help") in pages


@pytest.mark.parametrize("program", ["claude", "codex"])
def test_a_cli_listing_every_flag_the_dispatcher_uses_has_none_missing(shims, program):
    found = check_cli(program)
    assert found.path == str(shims / program)
    assert found.version == f"{program} 0.0.0-fake"
    assert found.missing_flags == []


def test_a_flag_gone_from_exec_resume_help_only_is_reported_with_its_page(shims, monkeypatch):
    monkeypatch.setenv("PALLIUM_FAKE_HELP_DROP", "resume:--output-schema")
    found = check_cli("codex")
    assert found.missing_flags == ["--output-schema (exec resume)"]


def test_a_flag_gone_from_every_codex_page_is_reported_once_per_page(shims, monkeypatch):
    monkeypatch.setenv("PALLIUM_FAKE_HELP_DROP", "--json")
    assert check_cli("codex").missing_flags == ["--json (exec)", "--json (exec resume)"]


def test_a_missing_cli_has_no_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PALLIUM_CODEX_BIN", str(tmp_path / "no-such-codex"))
    assert check_cli("codex").path is None
