"""Provider dispatch end to end: each dialect's argv and parsing, with the fake installed as the real CLIs."""

from __future__ import annotations

import json
import os
import signal
import tempfile
import uuid
from pathlib import Path

import pytest

from kernel.errors import PalliumError
from kernel.providers.contract import ProviderRequest
from kernel.providers.dispatcher import dispatch, resolve_provider
from kernel.providers.process import process_start_ticks

pytestmark = pytest.mark.anyio


def living_members(pgid: int) -> list[int]:
    """Processes of group `pgid` that are still running (zombies awaiting a reaper do not count)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def request(cwd: Path, prompt: str = "hello", **kw) -> ProviderRequest:
    return ProviderRequest(prompt=prompt, cwd=cwd, **kw)


async def test_claude_gets_the_prompt_on_stdin_and_mode_scoped_tools(fake, tmp_path):
    fake.scenario(
        {"match": "review", "reply": "looks fine", "usage": {"input_tokens": 12, "output_tokens": 3, "cost_usd": 0.02}}
    )
    result = await dispatch(request(tmp_path, "please review this", provider="claude", model="sonnet"))
    assert result.ok and result.text == "looks fine"
    assert result.usage.to_dict() == {"input_tokens": 12, "output_tokens": 3, "cost_usd": 0.02}
    [call] = fake.calls()
    assert call["dialect"] == "claude" and call["prompt"] == "please review this"
    argv = call["argv"]
    assert "please review this" not in " ".join(argv), "the prompt never goes on argv"
    assert argv[:3] == ["-p", "--output-format", "json"] and argv[argv.index("--model") + 1] == "sonnet"
    assert "Edit" in argv[argv.index("--disallowedTools") + 1]
    assert "--permission-mode" not in argv
    assert call["env"]["PALLIUM_WORKFLOW_NETWORK"] == "0"


async def test_claude_edit_mode_accepts_edits_and_is_error_decides_failure(fake, tmp_path):
    fake.scenario({"match": "", "error_class": "auth", "exit": 0})
    result = await dispatch(request(tmp_path, provider="claude", mode="edit"))
    assert not result.ok and result.failure.error_class == "auth"
    argv = fake.calls()[0]["argv"]
    assert argv[argv.index("--permission-mode") + 1] == "acceptEdits"


async def test_claude_starts_a_session_with_session_id_then_resumes_it(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("PALLIUM_FAKE_SESSIONS", str(tmp_path / "sessions"))
    session = str(uuid.uuid4())
    first = await dispatch(request(tmp_path, provider="claude", new_session=session))
    second = await dispatch(request(tmp_path, provider="claude", resume_session=session))
    assert first.session_id == second.session_id == session
    first_argv, second_argv = (c["argv"] for c in fake.calls())
    assert first_argv[first_argv.index("--session-id") + 1] == session and "--resume" not in first_argv
    assert second_argv[second_argv.index("--resume") + 1] == session and "--session-id" not in second_argv


async def test_claude_resume_of_an_unknown_session_is_classified(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("PALLIUM_FAKE_SESSIONS", str(tmp_path / "sessions"))
    (tmp_path / "sessions").write_text("", encoding="utf-8")
    result = await dispatch(request(tmp_path, provider="claude", resume_session="nope"))
    assert result.failure.reason == "session_not_found"


async def test_codex_pins_the_sandbox_and_reads_the_thread_and_last_message(fake, tmp_path):
    fake.scenario(
        {
            "match": "fix",
            "reply": {"done": True},
            "write": {"a.txt": "A\n"},
            "usage": {"input_tokens": 5, "output_tokens": 2, "cost_usd": 1.0},
        }
    )
    schema = {"type": "object", "properties": {"done": {"type": "boolean"}}, "required": ["done"]}
    result = await dispatch(request(tmp_path, "fix it", provider="codex", mode="edit", schema=schema))
    assert result.ok and result.output == {"done": True}
    assert result.usage.cost_usd is None, "codex reports tokens, never dollars"
    assert result.usage.input_tokens == 5 and result.session_id
    argv = fake.calls()[0]["argv"]
    assert argv[argv.index("--sandbox") + 1] == "workspace-write"
    assert "sandbox_workspace_write.network_access=false" in argv
    assert "--output-schema" in argv and "--json" in argv and argv[-1] == "-"
    assert (tmp_path / "a.txt").read_text() == "A\n"


async def test_codex_thread_id_is_heard_from_the_stream_before_the_worker_ends(fake, tmp_path):
    """The thread id arrives in codex's first event: a caller hears it even when the turn never finishes."""
    fake.scenario({"match": "slow", "hang": 30})
    heard: list[str] = []
    result = await dispatch(request(tmp_path, "slow", provider="codex", timeout=1.5), on_session=heard.append)
    assert result.failure is not None and result.failure.error_class == "timeout"
    assert heard == [fake.calls()[0]["session"]]
    heard.clear()
    resumed = await dispatch(request(tmp_path, provider="codex", resume_session="thread-9"), on_session=heard.append)
    assert resumed.ok and heard == ["thread-9"]
    claude: list[str] = []
    await dispatch(request(tmp_path, provider="claude", new_session=str(uuid.uuid4())), on_session=claude.append)
    assert claude == []  # claude's session id is minted by the caller before the turn, never streamed


async def test_codex_read_only_and_resume_put_flags_before_resume(fake, tmp_path):
    result = await dispatch(request(tmp_path, provider="codex", resume_session="thread-1"))
    assert result.ok and result.session_id == "thread-1"
    argv = fake.calls()[0]["argv"]
    assert argv[argv.index("--sandbox") + 1] == "read-only"
    assert argv.index("--sandbox") < argv.index("resume") and argv[argv.index("resume") + 1] == "thread-1"


async def test_codex_network_grant_opens_the_network_of_an_edit_sandbox_and_claude_network_tools(fake, tmp_path):
    await dispatch(request(tmp_path, provider="codex", mode="edit", network=True))
    await dispatch(request(tmp_path, provider="claude", network=True))
    codex_argv, claude_argv = (c["argv"] for c in fake.calls())
    assert "sandbox_workspace_write.network_access=true" in codex_argv
    assert codex_argv[codex_argv.index("--sandbox") + 1] == "workspace-write"
    assert "WebFetch" in claude_argv[claude_argv.index("--allowedTools") + 1]
    assert fake.calls()[1]["env"]["PALLIUM_WORKFLOW_NETWORK"] == "1"


async def test_codex_read_only_call_with_a_network_grant_is_refused_before_anything_runs(fake, tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the call's private folder is made
    result = await dispatch(request(tmp_path, provider="codex", network=True))
    assert (result.failure.error_class, result.failure.reason) == ("not_configured", "network_read_only")
    assert fake.calls() == [], "no codex process may start with a writable sandbox in the user's tree"
    assert list(scratch.iterdir()) == [], "a refused call leaves no folder behind"


@pytest.mark.parametrize("resume", [None, "thread-1"])
async def test_codex_read_only_calls_are_always_pinned_to_the_read_only_sandbox(fake, tmp_path, resume):
    result = await dispatch(request(tmp_path, provider="codex", resume_session=resume))
    assert result.ok
    argv = fake.calls()[0]["argv"]
    assert argv[argv.index("--sandbox") + 1] == "read-only"
    assert "workspace-write" not in argv and not any("network_access" in a for a in argv)


async def test_codex_quota_failure_is_classified_from_turn_failed(fake, tmp_path):
    fake.scenario({"match": "", "error_class": "quota"})
    result = await dispatch(request(tmp_path, provider="codex"))
    assert result.failure.error_class == "quota"


async def test_command_wrapper_gets_the_contract_files(fake, tmp_path, monkeypatch):
    script = tmp_path / "wrap.sh"
    script.write_text(
        '#!/bin/sh\nstat -c %a "$PALLIUM_WORKFLOW_PROMPT_FILE" > perm.txt\n'
        'printf "%s|%s|%s" "$(cat "$PALLIUM_WORKFLOW_PROMPT_FILE")" "$PALLIUM_WORKFLOW_MODE" '
        '"$PALLIUM_WORKFLOW_NETWORK" > "$PALLIUM_WORKFLOW_OUTPUT_FILE"\n'
        'echo \'{"input_tokens": 7, "output_tokens": 1}\' > "$PALLIUM_WORKFLOW_USAGE_FILE"\n'
        'echo "tok-2" > "$PALLIUM_WORKFLOW_SESSION_FILE"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER_MY_CLI_COMMAND", f"sh {script}")
    result = await dispatch(request(tmp_path, "hi", provider="my-cli", mode="check", resume_session="tok-1"))
    assert result.ok and result.text == "hi|check|0"
    assert result.usage.to_dict() == {"input_tokens": 7, "output_tokens": 1, "cost_usd": None}
    assert result.session_id == "tok-2"
    assert (tmp_path / "perm.txt").read_text().strip() == "600"


async def test_fake_provider_runs_as_a_built_in_with_counters_across_processes(fake, tmp_path):
    fake.scenario({"match": "flaky", "times": 2, "exit": 3, "stderr": "boom"}, {"match": "flaky", "reply": "fine"})
    results = [await dispatch(request(tmp_path, "flaky", provider="fake")) for _ in range(3)]
    assert [r.ok for r in results] == [False, False, True]
    assert results[0].failure.error_class == "unknown" and results[0].exit_code == 3
    assert [c["rule"] for c in fake.calls()] == [0, 0, 1]


async def test_reply_that_fails_the_schema_is_a_schema_failure(fake, tmp_path):
    fake.scenario({"match": "", "reply": {"done": "yes"}})
    schema = {"type": "object", "properties": {"done": {"type": "boolean"}}, "required": ["done"]}
    result = await dispatch(request(tmp_path, provider="fake", schema=schema))
    assert result.failure.error_class == "schema" and "done" in result.failure.message


async def test_non_json_reply_under_a_schema_is_a_schema_failure_and_fenced_json_is_found(fake, tmp_path):
    schema = {"type": "object"}
    fake.scenario({"match": "alpha", "reply": "just words"}, {"match": "beta", "reply": 'Sure:\n{"a": 1}\nbye'})
    prose = await dispatch(request(tmp_path, "alpha", provider="fake", schema=schema))
    fenced = await dispatch(request(tmp_path, "beta", provider="fake", schema=schema))
    assert prose.failure.reason == "not_json"
    assert fenced.ok and fenced.output == {"a": 1}


async def test_an_invalid_schema_is_refused_before_anything_runs(fake, tmp_path):
    with pytest.raises(PalliumError) as raised:
        await dispatch(request(tmp_path, provider="fake", schema={"type": "nonsense"}))
    assert raised.value.code == "invalid_input" and raised.value.details["field"] == "schema"
    assert fake.calls() == []


async def test_timeout_kills_the_whole_process_group_including_a_grandchild(fake, tmp_path):
    fake.scenario({"match": "", "hang": 30, "spawn_child": True})
    spawned: list[int] = []
    result = await dispatch(request(tmp_path, provider="fake", timeout=1.5), on_spawn=lambda pg, _t: spawned.append(pg))
    assert result.failure.error_class == "timeout"
    [pgid] = spawned
    assert living_members(pgid) == []


async def test_a_grandchild_left_behind_after_a_normal_exit_is_killed(fake, tmp_path):
    script = tmp_path / "leave.sh"
    script.write_text("#!/bin/sh\n(sleep 60 >/dev/null 2>&1 &)\necho done\n", encoding="utf-8")
    os.environ["PALLIUM_WORKFLOW_PROVIDER_LEAVER_COMMAND"] = f"sh {script}"
    try:
        spawned: list[int] = []
        result = await dispatch(request(tmp_path, provider="leaver"), on_spawn=lambda pg, _t: spawned.append(pg))
    finally:
        del os.environ["PALLIUM_WORKFLOW_PROVIDER_LEAVER_COMMAND"]
    assert result.ok and result.text == "done"
    assert living_members(spawned[0]) == []


async def test_a_worker_killed_mid_edit_is_a_crash(fake, tmp_path):
    fake.scenario({"match": "", "write": {"half.txt": "x"}, "crash_after_write": True})
    result = await dispatch(request(tmp_path, provider="fake", mode="edit"))
    assert result.failure.error_class == "crash" and str(signal.SIGKILL.value) in result.failure.message
    assert (tmp_path / "half.txt").exists()


async def test_missing_cli_and_unknown_provider_are_not_configured(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("PALLIUM_CLAUDE_BIN", str(tmp_path / "no-such-claude"))
    missing = await dispatch(request(tmp_path, provider="claude"))
    unknown = await dispatch(request(tmp_path, provider="gemini"))
    assert (missing.failure.error_class, missing.failure.reason) == ("not_configured", "missing_binary")
    assert unknown.failure.error_class == "not_configured"
    assert "PALLIUM_WORKFLOW_PROVIDER_GEMINI_COMMAND" in unknown.failure.message


def test_provider_resolution_order():
    assert resolve_provider("claude", {"PALLIUM_WORKFLOW_PROVIDER": "fake"}) == "claude"
    assert resolve_provider("default", {"PALLIUM_WORKFLOW_PROVIDER": "fake", "CLAUDECODE": "1"}) == "fake"
    assert resolve_provider(None, {"CLAUDECODE": "1"}) == "claude"
    assert resolve_provider("", {}) == "codex"


def test_start_ticks_identify_a_process_and_differ_for_another():
    mine = process_start_ticks(os.getpid())
    assert mine is not None and mine == process_start_ticks(os.getpid())
    assert process_start_ticks(1) != mine or os.getpid() == 1
    assert process_start_ticks(2**22 + 12345) is None


@pytest.mark.parametrize("provider", ["claude", "codex", "fake"])
async def test_an_unknown_session_is_classified_in_every_dialect(fake, tmp_path, provider):
    fake.scenario({"match": "", "error_class": "session"})
    result = await dispatch(request(tmp_path, provider=provider, resume_session="gone"))
    assert result.failure.reason == "session_not_found"


async def test_claude_printing_no_json_envelope_is_a_failure_and_an_error_exit_is_classified(fake, tmp_path):
    fake.scenario(
        {"match": "plain", "raw": "just text"},
        {"match": "broken", "raw": "error: unknown option '--safe-mode'", "exit": 1},
        {"match": "quota", "raw": "Claude AI usage limit reached", "exit": 1},
    )
    plain = await dispatch(request(tmp_path, "plain", provider="claude"))
    broken = await dispatch(request(tmp_path, "broken", provider="claude"))
    quota = await dispatch(request(tmp_path, "quota", provider="claude"))
    assert (plain.failure.error_class, plain.failure.reason) == ("crash", "not_json")
    assert "just text" in plain.failure.message and plain.exit_code == 0
    assert broken.failure.error_class == "unknown" and "--safe-mode" in broken.failure.message
    assert quota.failure.error_class == "quota"


async def test_claude_envelope_without_is_error_succeeds_even_with_a_nonzero_exit(fake, tmp_path):
    envelope = {"type": "result", "subtype": "success", "is_error": False, "result": "fine", "session_id": "s-1"}
    fake.scenario({"match": "", "raw": json.dumps(envelope), "exit": 1})
    result = await dispatch(request(tmp_path, provider="claude"))
    assert result.ok and result.text == "fine" and result.session_id == "s-1"
    assert result.exit_code == 1
