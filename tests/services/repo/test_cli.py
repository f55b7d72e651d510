"""Each repository command once through the CLI, in-process: human text, --json, errors."""

import json
from pathlib import Path

import pytest

from pallium_mcp.cli import main
from tests.services.repo.conftest import commit


def _run(args: list[str], cwd: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(cwd)
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_index_then_every_question_answers_in_text(git_repo: Path, capsys, monkeypatch):
    code, out, _ = _run(["index"], git_repo, capsys, monkeypatch)
    assert code == 0
    assert "files: 4 parsed, 0 reused, skipped: none" in out
    expectations = {
        ("symbols", "src/app.py"): "function   def main()",
        ("callers", "main"): "tests/test_app.py:4 in test_main  call [import]",
        ("search", "main"): "src/app.py:1  function main  (name: main; signature: main)",
        ("risk", "src/app.py"): "src/app.py: risk",
        ("neighbors", "tests/test_app.py"): "imports: src/app.py",
        ("explain", "src/app.py"): "verify (fast): python -m pytest -q tests/test_app.py",
        ("decisions", "demo"): "Start the demo",
        ("handoff",): "changed file(s) since",
    }
    for args, expected in expectations.items():
        code, out, err = _run(list(args), git_repo, capsys, monkeypatch)
        assert code == 0, err
        assert expected in out, (args, out)


def test_json_output_is_the_model_and_errors_exit_nonzero(git_repo: Path, capsys, monkeypatch):
    code, out, _ = _run(["callers", "main", "--json"], git_repo, capsys, monkeypatch)
    data = json.loads(out)
    assert code == 0
    assert data["definitions"][0]["path"] == "src/app.py"
    assert data["freshness"]["status"] == "fresh"
    code, _, err = _run(["explain", "../elsewhere.py", "--json"], git_repo, capsys, monkeypatch)
    assert code == 2
    assert json.loads(err)["error"]["details"]["field"] == "path"


def test_stale_answers_name_the_refresh_command(git_repo: Path, capsys, monkeypatch):
    _run(["index"], git_repo, capsys, monkeypatch)
    commit(git_repo, "Move on", {"src/more.py": "def more(): pass\n"})
    code, out, _ = _run(["symbols", "src/app.py"], git_repo, capsys, monkeypatch)
    assert code == 0
    assert "(index stale: 1 file(s) changed since; run `pallium index`)" in out
    code, out, _ = _run(["symbols", "src/more.py", "--refresh"], git_repo, capsys, monkeypatch)
    assert code == 0 and "def more()" in out and "stale" not in out
