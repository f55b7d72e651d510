"""The product description's own example, as written: generate a review workflow, validate it, run it
on a task; the review runs a reviewer per dimension, a skeptic per finding, and ranks what survives."""

import json

import pytest

from pallium_mcp.cli import main
from tests.conftest import write


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


def test_generate_validate_and_run_a_review_workflow_as_the_description_writes_them(
    git_repo, fake, capsys, monkeypatch
):
    write(git_repo, "src/app.py", "def main():\n    return eval(input())\n")  # a change to review
    fake.scenario(
        {
            "match": "for correctness only",
            "reply": {
                "findings": [
                    {"file": "src/app.py", "line": 2, "problem": "returns a string", "severity": "low"},
                    {"file": "src/app.py", "line": 2, "problem": "crashes on empty input", "severity": "medium"},
                ]
            },
        },
        {
            "match": "for security only",
            "reply": {
                "findings": [{"file": "src/app.py", "line": 2, "problem": "eval of user input", "severity": "high"}]
            },
        },
        {"match": "for performance only", "reply": {"findings": []}},
        {"match": "wrong;[^{]*{.*returns a string", "reply": {"holds": False, "why": "it is an int"}},
        {
            "match": "wrong;[^{]*{.*eval of user input",
            "reply": {"holds": True, "why": "input() reaches eval", "confidence": 0.9},
        },
        {"match": "wrong;[^{]*{.*crashes", "reply": {"holds": True, "why": "eval('') raises", "confidence": 0.6}},
    )
    monkeypatch.chdir(git_repo)
    task = "review the diff for correctness, security and performance"
    assert main(["workflow", "generate", task, "--style", "review", "--output", "review.workflow.js"]) == 0
    said = capsys.readouterr().out
    assert "task:" in said and "files:" in said  # generate says what args the script reads

    assert main(["workflow", "validate", "review.workflow.js", "--json"]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert checked["valid"] and not [w for w in checked["warnings"] if "args" in w]

    code = main(["workflow", "run", "--script", "review.workflow.js", task, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out["error"]
    assert out["result"]["dimensions"] == ["correctness", "security", "performance"]
    assert [(f["rank"], f["problem"], f["severity"]) for f in out["result"]["findings"]] == [
        (1, "eval of user input", "high"),
        (2, "crashes on empty input", "medium"),
    ]
    assert out["result"]["refuted"] == 1
    prompts = [c["prompt"] for c in fake.calls()]
    assert sum("Review these files" in p for p in prompts) == 3 and sum("prove" in p for p in prompts) == 3
    assert all(task in p for p in prompts if "Review these files" in p)  # the run's task reached the script


def test_validate_warns_when_a_script_reads_args_a_plain_run_does_not_give(git_repo, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(git_repo)
    outside = write(git_repo, "elsewhere/flow.js", "const files = args.files;\nreturn args?.task ?? files;\n")
    assert main(["workflow", "validate", str(outside), "--json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert [w for w in warnings if "args." in w] == [w for w in warnings if w.startswith("line 1: reads args.files")]
    assert len([w for w in warnings if "args." in w]) == 1

    declared = write(
        git_repo, "flow.js", 'export const meta = {name: "f", args: {task: "t"}};\nreturn [args.task, args.depth];\n'
    )
    assert main(["workflow", "validate", str(declared), "--json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert [w.split(",")[0] for w in warnings if "args." in w] == ["line 2: reads args.depth"]


def test_an_empty_script_is_invalid(git_repo, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    write(git_repo, "empty.js", "// nothing here\n\n")
    assert main(["workflow", "validate", "empty.js", "--json"]) == 1
    assert any("empty" in e for e in json.loads(capsys.readouterr().out)["errors"])


def test_a_local_variable_named_like_a_primitive_is_not_an_unknown_primitive(git_repo, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    write(git_repo, "v.js", 'const verify = await agent("x", {schema: {type: "object"}});\nreturn verify.args;\n')
    main(["workflow", "validate", "v.js", "--json"])
    assert not [w for w in json.loads(capsys.readouterr().out)["warnings"] if "unknown primitive" in w]
