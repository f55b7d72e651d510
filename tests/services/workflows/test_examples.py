"""The recipes in examples/workflows run as their comments say, against the fake provider."""

import json
import sys
from pathlib import Path

import pytest

from kernel.context import ToolContext
from services.workflows.models import RunInput
from services.workflows.tools import run
from services.workflows.validate import validate_source
from tests.conftest import git, write

pytestmark = pytest.mark.anyio

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "workflows"


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


async def _run_example(repo: Path, name: str, args: dict, **extra):
    ctx = ToolContext(ceiling="edit", cwd=repo)
    try:
        script = repo / "examples" / "workflows" / name  # copied into the repository by `repo_with_examples`
        return await run(RunInput(task=name, script=str(script), args=json.dumps(args), **extra), ctx)
    finally:
        ctx.close()


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.js")))
async def test_every_example_is_valid_without_warnings(name: str):
    checked = await validate_source((EXAMPLES / name).read_text(encoding="utf-8"))
    assert (checked.errors, checked.warnings) == ([], [])
    assert checked.meta["name"] == name.removesuffix(".js")


@pytest.fixture
def repo_with_examples(git_repo: Path) -> Path:
    """Scripts must live inside the repository (or the saved-workflow folder) to be run by path."""
    for example in EXAMPLES.glob("*.js"):
        write(git_repo, f"examples/workflows/{example.name}", example.read_text(encoding="utf-8"))
    return git_repo


async def test_adversarial_review_keeps_only_findings_a_skeptic_confirms(repo_with_examples, fake):
    fake.scenario(
        {
            "match": "^Review src/a.py",
            "reply": {
                "findings": [
                    {"file": "src/a.py", "line": 3, "problem": "off by one"},
                    {"file": "src/a.py", "line": 9, "problem": "style"},
                ]
            },
        },
        {"match": "^Review", "reply": {"findings": []}},
        {"match": "(?s)skeptic.*off by one", "reply": {"holds": True, "why": "the loop ends early"}},
        {"match": "skeptic", "reply": {"holds": False, "why": "not a bug"}},
    )
    out = await _run_example(repo_with_examples, "adversarial-review.js", {"files": ["src/a.py", "src/b.py"]})
    assert out.status == "completed", out.error
    assert out.result == {
        "confirmed": [
            {"file": "src/a.py", "line": 3, "problem": "off by one", "confirmed_because": "the loop ends early"}
        ],
        "files": 2,
    }


async def test_research_panel_reconciles_independent_answers(repo_with_examples, fake):
    fake.scenario(
        {"match": "^Reconcile", "reply": {"answer": "tokens in middleware", "evidence": ["auth.py:3"]}},
        {"match": "", "reply": {"answer": "tokens", "evidence": ["auth.py:3"], "confidence": 0.8}},
    )
    out = await _run_example(repo_with_examples, "research-panel.js", {"question": "How is auth done?", "panel": 2})
    assert out.result == {"answer": "tokens in middleware", "evidence": ["auth.py:3"], "researchers": 2}
    assert out.agents.total == 3


async def test_fix_until_green_repairs_a_real_failing_test(repo_with_examples, fake):
    write(repo_with_examples, "calc.py", "def add(a, b):\n    return a - b\n")
    write(repo_with_examples, "test_calc.py", "from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n")
    git(repo_with_examples, "add", "-A")
    git(repo_with_examples, "commit", "-qm", "bug")
    fake.scenario({"match": "fails", "write": {"calc.py": "def add(a, b):\n    return a + b\n"}})
    command = f"{sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"
    out = await _run_example(repo_with_examples, "fix-until-green.js", {"command": command}, allow_command=[command])
    assert out.result == {"ok": True, "rounds": 2}


async def test_review_until_clean_ends_on_the_gate(repo_with_examples, fake):
    fake.scenario(
        {"match": "^Review", "reply": {"problems": ["unused import"]}, "times": 1},
        {"match": "^Review", "reply": {"problems": []}},
        {"match": "^Fix", "write": {"src/app.py": "def main():\n    return 1\n\n"}},
        {"match": "ready to merge", "reply": {"approved": True, "reason": "clean", "evidence": []}},
    )
    out = await _run_example(repo_with_examples, "review-until-clean.js", {"path": "src/app.py", "rounds": 3})
    assert out.result == {"clean": True, "rounds": 2}
    assert [p.state for p in out.patches] == ["staged"]


async def test_review_until_clean_resumes_past_a_gate_that_denied(repo_with_examples, fake):
    from services.workflows.models import ResumeInput
    from services.workflows.tools import resume

    fake.scenario(
        {"match": "^Review", "reply": {"problems": []}},
        {"match": "ready to merge", "times": 1, "reply": {"approved": False, "reason": "untested", "evidence": []}},
        {"match": "ready to merge", "reply": {"approved": True, "reason": "clean", "evidence": []}},
        {"match": "^Fix", "times": 1, "exit": 1, "stderr": "provider hiccup"},
        {"match": "^Fix", "write": {"tests/test_more.py": "def test_more():\n    assert True\n"}},
    )
    args = {"path": "src/app.py", "rounds": 3}
    failed = await _run_example(repo_with_examples, "review-until-clean.js", args, id="until-clean")
    assert failed.status == "failed" and "fix-1" in failed.error
    ctx = ToolContext(ceiling="edit", cwd=repo_with_examples)
    try:
        resumed = await resume(ResumeInput(run_id="until-clean"), ctx)
    finally:
        ctx.close()
    assert resumed.status == "completed" and resumed.result == {"clean": True, "rounds": 2}
    gates = {g.name: g.approved for g in resumed.gates}
    assert gates == {"clean-1": False, "clean-2": True}
