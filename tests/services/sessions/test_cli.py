"""Every session command's CLI path once, in-process: flags, positional arguments, text and JSON."""

import json
from pathlib import Path

import pytest

from pallium_mcp.cli import main
from tests.services.sessions.conftest import EXPECTED

X2, B = EXPECTED["sessions"][4]["session_id"], EXPECTED["sessions"][2]["session_id"]


@pytest.fixture
def cli(homes, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PALLIUM_NOW", "2026-11-21T15:30:00Z")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(homes["claude"]))
    monkeypatch.setenv("CODEX_HOME", str(homes["codex"]))

    def run(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_sync_reads_the_homes_from_the_tools_own_variables(cli, homes):
    code, out, err = cli("sessions", "sync")
    assert code == 0 and err == ""
    assert out.splitlines()[0].startswith("6 transcripts: 6 new")
    code, out, _ = cli("sessions", "sync", "--json")
    data = json.loads(out)
    assert data["files_unchanged"] == 6 and [h["path"] for h in data["homes"]] == [
        str(homes["claude"]),
        str(homes["codex"]),
    ]


def test_recall_and_search_take_the_query_as_a_positional_argument(cli):
    cli("sessions", "sync")
    code, out, _ = cli("sessions", "recall", "where did the checkout migration stop?", "--source", "codex")
    assert code == 0
    assert out.splitlines()[0].startswith(X2[:13])
    assert "line    46 tool_call" in out and "lexical only" in out
    code, out, _ = cli("sessions", "search", "NotNullViolation", "--json")
    assert [(h["session_id"], h["line"]) for h in json.loads(out)["hits"]] == [(X2, 20)]
    code, out, _ = cli("sessions", "search", "NotNullViolation zzzunseen", "--any", "--json")
    assert [(h["session_id"], h["line"]) for h in json.loads(out)["hits"]] == [(X2, 20)]


def test_show_read_and_find(cli):
    cli("sessions", "sync")
    code, out, _ = cli("sessions", "show", B[:8])
    assert code == 0 and "open call (line 21)" in out and "completion: not_finished" in out
    code, out, _ = cli("sessions", "read", B[:8], "--from-line", "20", "--limit", "1")
    assert out.splitlines() == [
        out.splitlines()[0],
        "... more: --from-line 21",
    ] and out.startswith("   20 assistant text")
    code, out, _ = cli("sessions", "find", "what is unfinished?", "--json")
    data = json.loads(out)
    assert data["filters"]["completion"] == "not_finished" and [s["id"] for s in data["sessions"]] == [X2, B]


def test_live_lists_coverage_in_json(cli):
    code, out, _ = cli("sessions", "live", "--running-only", "--json")
    assert code == 0 and json.loads(out)["exclusions"]


def test_upkeep_previews_and_needs_admin_to_act(cli):
    cli("sessions", "sync")
    code, out, _ = cli("sessions", "forget", B[:8])
    assert code == 0 and "would forget 1 session(s)" in out and "--confirm" in out
    code, _, err = cli("sessions", "forget", B[:8], "--confirm")
    assert code == 1 and "needs authority 'admin'" in err
    code, out, _ = cli("sessions", "forget", B[:8], "--confirm", "--authority", "admin")
    assert code == 0 and out.startswith("forgot 1 session(s)")
    code, out, _ = cli("sessions", "prune", "--older-than", "180d")
    assert code == 0 and "would prune 0 session(s)" in out
    code, out, _ = cli("sessions", "doctor", "--vacuum")
    assert code == 0 and "would: vacuum the database" in out


def test_embedding_commands(cli, tmp_path: Path, monkeypatch):
    monkeypatch.delenv("PALLIUM_EMBED_API_KEY", raising=False)
    code, out, _ = cli("sessions", "embedding", "status")
    assert code == 0 and "no embedding provider is configured" in out
    code, out, _ = cli("sessions", "embedding", "configure", "--model", "m", "--authority", "admin")
    assert code == 0 and "configured openai m" in out
    code, out, _ = cli("sessions", "embedding", "check")
    assert code == 1 and "no embedding key" in out


def test_find_takes_details_and_subagents_are_marked_in_text(cli):
    cli("sessions", "sync")
    code, out, _ = cli("sessions", "find", "what is unfinished?", "--details")
    assert code == 0 and "open call (line 21)" in out and "asked (line 2)" in out
    child = EXPECTED["sessions"][1]["subagents"][0]["agent_id"]
    code, out, _ = cli("sessions", "recall", "where is payment_provider_ref read?")
    assert f"subagent of {EXPECTED['sessions'][1]['session_id'][:13]}" in out
    assert child[:4] in out


def test_the_described_embedding_command_line_works_with_keychain(cli, memory_keyring, monkeypatch):
    key = "sk-test-" + "q" * 24
    monkeypatch.setenv("PALLIUM_EMBED_API_KEY", key)
    line = ["sessions", "embedding", "configure", "--provider", "openai", "--model", "text-embedding-3-small"]
    code, _, err = cli(*line, "--credential-store", "keychain")
    assert code == 1 and "--authority admin" in err  # the refusal names the flag to add
    code, out, _ = cli(*line, "--credential-store", "keychain", "--authority", "admin")
    assert code == 0 and "configured openai text-embedding-3-small" in out
    assert memory_keyring.entries == {("app.pallium.embedding", "default"): key}
    monkeypatch.delenv("PALLIUM_EMBED_API_KEY")
    code, out, _ = cli("sessions", "embedding", "status", "--json")
    assert json.loads(out)["key_source"] == "keyring:app.pallium.embedding"


@pytest.mark.parametrize("command", [["recall"], ["search"], ["find"], ["prune"], ["live"]])
def test_the_help_of_commands_with_relative_times_names_pallium_now(cli, capsys, command):
    with pytest.raises(SystemExit):
        cli("sessions", *command, "--help")
    assert "PALLIUM_NOW" in capsys.readouterr().out
