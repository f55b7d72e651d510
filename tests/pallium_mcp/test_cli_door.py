"""The CLI as agents that shell out and people at a terminal meet it: JSON, pipes, mistakes, folders."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import script
from tests.pallium_mcp.test_cli import run_cli

PALLIUM = script("pallium")


def test_json_is_compact_when_piped_and_indented_with_pretty(git_repo, capsys, monkeypatch):
    code, out, _ = run_cli(["changed-now", "--json"], git_repo, capsys, monkeypatch)
    assert code == 0 and out.count("\n") == 1 and '": ' not in out
    code, pretty, _ = run_cli(["changed-now", "--json", "--pretty"], git_repo, capsys, monkeypatch)
    assert code == 0 and json.loads(pretty) == json.loads(out) and '\n  "repo": ' in pretty
    assert len(out) < len(pretty)


def test_a_closed_pipe_ends_quietly(git_repo):
    proc = subprocess.Popen(
        [PALLIUM, "symbols", "src/app.py", "--json", "--pretty"],
        cwd=git_repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the answer is written
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    proc.stderr.close()
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err
    assert proc.returncode in (0, 141)


@pytest.mark.parametrize(
    ("argv", "suggestion"),
    [
        (["sessions", "recal"], "sessions recall"),
        (["workflow", "gate", "aprove"], "workflow gate approve"),
        (["chnaged-now"], "changed-now"),
        (["sesions", "recall"], "sessions"),
        (["loop", "tikc"], "loop tick"),
    ],
)
def test_did_you_mean_at_every_level(argv, suggestion, git_repo, capsys, monkeypatch):
    code, out, err = run_cli([*argv, "--json"], git_repo, capsys, monkeypatch)
    error = json.loads(err)["error"]
    assert out == "" and error["code"] == "invalid_input"
    assert error["details"]["suggestion"] == suggestion
    assert error["hint"] == f"did you mean `pallium {suggestion}`?"
    assert code == (64 if argv[0] == "loop" else 2)  # the loop tools declare their usage exit


def test_no_suggestion_from_another_service(git_repo, capsys, monkeypatch):
    code, _, err = run_cli(["sessions", "explain", "--json"], git_repo, capsys, monkeypatch)
    error = json.loads(err)["error"]
    assert code == 2 and "suggestion" not in error["details"]
    assert error["hint"] == "see `pallium sessions --help`"  # where the sessions commands are listed


def test_options_before_between_or_after_positionals(git_repo, capsys, monkeypatch):
    answers = []
    for argv in (
        ["search", "--limit", "1", "main", "app", "--json"],
        ["search", "main", "--limit", "1", "app", "--json"],
        ["search", "main", "app", "--json", "--limit", "1"],
    ):
        code, out, err = run_cli(argv, git_repo, capsys, monkeypatch)
        assert code == 0, err
        answers.append(json.loads(out))
    assert all(a["query"] == "main app" and len(a["results"]) <= 1 for a in answers)
    code, out, err = run_cli(["symbols", "--limit", "1", "src/app.py", "--json"], git_repo, capsys, monkeypatch)
    assert code == 0, err and json.loads(out)["path"] == "src/app.py"


def test_paths_relative_to_the_root_work_from_a_subfolder(git_repo: Path, capsys, monkeypatch):
    sub = git_repo / "tests"
    for given in ("src/app.py", "../src/app.py"):
        code, out, err = run_cli(["symbols", given, "--json"], sub, capsys, monkeypatch)
        assert code == 0, err
        assert json.loads(out)["path"] == "src/app.py"
    code, out, err = run_cli(["symbols", "test_app.py", "--json"], sub, capsys, monkeypatch)  # and to the folder
    assert code == 0 and json.loads(out)["path"] == "tests/test_app.py"


def test_the_cli_adapter_names_no_service():
    source = (Path(__file__).resolve().parents[2] / "pallium_mcp" / "cli.py").read_text(encoding="utf-8")
    assert '"loop"' not in source and "'loop'" not in source
