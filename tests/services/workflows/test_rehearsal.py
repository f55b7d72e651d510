"""The fake provider without a scenario: a rehearsal whose agents answer the smallest valid reply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from kernel.providers.fake import _minimal
from pallium_mcp.cli import main
from services.teams.prompt import DECISION_SCHEMA
from tests.conftest import write

SCHEMAS = [
    {
        "type": "object",
        "properties": {"findings": {"type": "array", "items": {"type": "object"}}},
        "required": ["findings"],
    },
    {
        "type": "object",
        "properties": {
            "status": {"enum": ["active", "idle"]},
            "count": {"type": "integer", "minimum": 3},
            "score": {"type": "number", "exclusiveMinimum": 0},
            "name": {"type": "string", "minLength": 20, "maxLength": 30},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "ok": {"type": "boolean"},
            "maybe": {"type": ["null", "string"]},
            "kind": {"const": "x"},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "ref": {"$ref": "#/$defs/Item"},
        },
        "required": ["status", "count", "score", "name", "tags", "ok", "maybe", "kind", "either", "ref"],
        "$defs": {"Item": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
    },
    DECISION_SCHEMA,
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_the_smallest_reply_validates_against_its_schema(schema: dict):
    reply = _minimal(schema, schema)
    assert list(Draft202012Validator(schema).iter_errors(reply)) == []


def test_start_with_the_fake_and_no_scenario_finishes_and_says_it_is_a_rehearsal(
    git_repo: Path, fake, monkeypatch, capsys
):
    write(git_repo, "src/app.py", "def main():\n    return 3\n")
    monkeypatch.chdir(git_repo)
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    monkeypatch.delenv("PALLIUM_FAKE_SCENARIO")
    code = main(["start", "review my change"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "note: a rehearsal" in out and "VERDICT: FINISHED" in out
    assert main(["start", "review my change", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["rehearsal"].startswith("a rehearsal") and answer["run"]["status"] == "completed"


def test_a_scenario_is_no_rehearsal(git_repo: Path, fake, monkeypatch, capsys):
    monkeypatch.chdir(git_repo)
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    fake.scenario({"match": "", "reply": {"findings": []}})
    assert main(["start", "review my change", "--dry-run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rehearsal"] is None
