import json
from pathlib import Path

import pytest

from pallium_mcp.cli import main
from services.workflows.script import lint
from services.workflows.validate import validate_source
from tests.conftest import write

pytestmark = pytest.mark.anyio

GOOD = """export const meta = {
  name: "review", // a comment with { braces }
  description: "Review the change",
  phases: ["scan", "judge"],
  args: {files: "the files to review"},
};

phase("scan");
const found = await parallel(args.files, (f) => agent(`review ${f}`, {label: f}));
function summarise(items) { return items.filter(Boolean).length; }
return {found: summarise(found)};
"""


async def test_a_good_script_is_valid_with_its_meta():
    result = await validate_source(GOOD)
    assert result.errors == [] and result.warnings == []
    assert result.meta == {
        "name": "review",
        "description": "Review the change",
        "phases": ["scan", "judge"],
        "args": {"files": "the files to review"},
    }


async def test_syntax_errors_carry_the_line_of_the_script():
    result = await validate_source("export const meta = {name: 'x'};\nconst a = ;\nreturn a;\n")
    assert result.valid is False
    assert result.errors[0].startswith("line 2: SyntaxError")


async def test_guard_violations_and_unavailable_apis_are_errors():
    source = "const t = Date.now();\nconst r = Math.random();\nconst fs = require('fs');\nsetTimeout(() => 1, 5);\n"
    result = await validate_source(source)
    assert [e.split(":")[0] for e in result.errors] == ["line 1", "line 2", "line 3", "line 4"]


async def test_strings_and_comments_do_not_trigger_the_guards():
    result = await validate_source('// Date.now() is banned\nlog("use Math.random() nowhere");\nreturn 1;')
    assert result.errors == []


async def test_unknown_primitives_are_warned_about_and_unknown_helpers_are_errors():
    result = await validate_source('export const meta = {name: "x"};\nawait agnet("x");\nawait pallium.explian("a");')
    assert result.valid is False
    assert result.errors[0].startswith("line 3: unknown helper pallium.explian (known: changedNow, decisions.record")
    assert result.warnings == ["line 2: agnet() is neither a Pallium primitive nor defined in the script"]


async def test_an_unknown_member_of_a_pallium_namespace_is_an_error():
    source = 'await pallium.decisions.record("t", "b");\nawait pallium.decisions.serch("t");\nreturn pallium.decisions;'
    result = await validate_source(source)
    assert result.errors == [
        "line 2: unknown helper pallium.decisions.serch (pallium.decisions has decisions.record, decisions.search)"
    ]


async def test_helpers_only_the_original_pallium_had_are_errors_that_say_so():
    result = await validate_source('await pallium.review();\nawait pallium.verify("fast");')
    assert result.errors == ["line 2: pallium.verify is a helper of the original Pallium that this version lacks"]


def test_calls_on_objects_the_script_never_defines_are_warned_about():
    source = 'const plan = await coordinator.replan("goal");\nhelpers.tidy(plan);\nbudget.left();\nreturn plan;'
    errors, warnings = lint(source)
    assert errors == []
    assert warnings == [
        "line 3: unknown primitive budget.left (remaining, spent, total)",
        "line 1: coordinator.replan() is not available in this version; those calls will fail",
        "line 2: helpers.tidy() calls helpers, which is neither a Pallium primitive nor defined in the script",
    ]


def test_names_bound_by_destructuring_loops_and_catch_are_defined():
    source = """const checks = {lint: () => agent("lint"), test: () => agent("test")};
for (const [name, run] of Object.entries(checks)) { await run(); log(name); }
for (const {label, go} of [{label: "x", go: () => 1}]) { go(); }
try { await agent("x"); } catch (err) { log(err.toString()); }
const [first, second] = [() => 1, () => 2];
return [first(), second()];
"""
    assert lint(source) == ([], [])


async def test_meta_must_be_a_pure_literal_of_known_shape():
    impure = await validate_source("export const meta = {name: compute()};\nreturn 1;")
    assert impure.errors == [
        "line 1: meta must be a pure literal (no calls, functions, template expressions or variables)"
    ]
    wrong = await validate_source('export const meta = {name: 3, kind: "daemon", extra: 1};\nreturn 1;')
    assert wrong.errors == ["meta.name must be a str", "meta.kind must be one of workflow, loop"]
    assert wrong.warnings == ["meta.extra is not a known meta field (name, description, phases, kind, loop, args)"]


def test_cli_validate_exits_non_zero_for_an_invalid_script_with_json(git_repo: Path, capsys, monkeypatch):
    write(git_repo, "flows/bad.js", "return Date.now();\n")
    write(git_repo, "flows/good.js", GOOD)
    monkeypatch.chdir(git_repo / "flows")
    assert main(["workflow", "validate", "--script", "bad.js", "--json"]) == 1
    bad = json.loads(capsys.readouterr().out)
    assert bad["valid"] is False and bad["script"] == str((git_repo / "flows" / "bad.js").resolve())
    assert main(["workflow", "validate", "--script", "good.js"]) == 0
    assert capsys.readouterr().out.startswith("valid: review")


def test_cli_validate_and_run_both_refuse_a_script_outside_the_repository(
    git_repo: Path, tmp_path: Path, capsys, monkeypatch
):
    write(tmp_path, "elsewhere.js", "return 1;")
    monkeypatch.chdir(git_repo)
    # An answer about any file (its tokens, its hash) reads it: validate reads only where run may (#32).
    assert main(["workflow", "validate", "--script", str(tmp_path / "elsewhere.js")]) == 2
    assert "outside the repository" in capsys.readouterr().err
    assert main(["workflow", "run", "t", "--script", str(tmp_path / "elsewhere.js")]) == 2
    assert "outside the repository" in capsys.readouterr().err


def test_cli_validate_reads_saved_workflows_in_pallium_home(pallium_home: Path, git_repo: Path, capsys, monkeypatch):
    saved = write(pallium_home, "workflows/review.js", GOOD)
    monkeypatch.chdir(git_repo)
    assert main(["workflow", "validate", "--script", str(saved)]) == 0


def test_cli_validate_takes_the_file_positionally_as_the_original_did(git_repo: Path, capsys, monkeypatch):
    write(git_repo, "flows/good.js", GOOD)
    write(git_repo, "flows/bad.js", "await pallium.reveiw();\n")
    monkeypatch.chdir(git_repo / "flows")
    assert main(["workflow", "validate", "good.js"]) == 0
    assert capsys.readouterr().out.startswith("valid: review")
    assert main(["workflow", "validate", "bad.js", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["valid"] is False
    assert main(["workflow", "validate", "--script", "good.js"]) == 0  # the flag still works
