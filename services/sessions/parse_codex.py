"""Codex CLI rollouts (`<codex home>/sessions/YYYY/MM/DD/rollout-*.jsonl`): envelopes to messages.

Each line is `{timestamp, type, payload}`. Turns are bounded by `task_started` and `task_complete` /
`turn_aborted`; a `function_call` or `custom_tool_call` whose `call_id` never gets an output is an
open call. Token counts are running totals, so the last `token_count` wins. The `event_msg`
twins of messages (`user_message`, `agent_message`, `agent_reasoning`) repeat `response_item`s in
the default history mode and are skipped; developer messages and harness-injected user text
(AGENTS.md, environment context) are not what the user asked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from services.sessions import transcript as t
from services.sessions.transcript import Parsed

__all__ = ["discover", "feed", "identify"]

_INJECTED = (
    "# AGENTS.md instructions",
    "<environment_context>",
    "<user_instructions>",
    "<turn_aborted>",
    "<skill>",
    "<user_shell_command>",
    "<subagent_notification>",
    "<recommended_plugins>",
    "<agent_message_board_notification>",
    "<permissions instructions>",
)
_ROLLOUT_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:_[^.]*)?$")
_EXIT = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.M)


def discover(home: Path) -> list[Path]:
    found: list[Path] = []
    for folder in ("sessions", "archived_sessions"):
        root = home / folder
        if root.is_dir():
            found += root.rglob("rollout-*.jsonl")
    return sorted(found)


def identify(path: Path) -> dict[str, Any]:
    match = _ROLLOUT_UUID.search(path.stem)
    if match is None:
        return {"id": path.stem, "native_id": path.stem, "agent_id": None, "parent_id": None}
    # A `thread/revert` writes `<uuid>_<rollout id>.jsonl` beside the original: a session of its own.
    return {"id": match.group(0), "native_id": match.group(1), "agent_id": None, "parent_id": None}


def feed(state: dict[str, Any], line: int, record: dict[str, Any]) -> list[Parsed]:
    kind = record.get("type")
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return []
    ts = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
    t.touch(state, ts)
    if state["end"]["state"] == "in_progress":  # an open turn stopped at its last record, not at task_started
        state["end"]["last"] = line
    if kind == "session_meta":
        _session_meta(state, payload)
        return []
    if kind == "turn_context":
        session = state["session"]
        if isinstance(payload.get("model"), str):
            session["model"] = payload["model"]
        if isinstance(payload.get("approval_policy"), str):
            session["approval_policy"] = payload["approval_policy"]
        t.touch(state, None, payload.get("cwd"))
        return []
    if kind == "response_item":
        return _response_item(state, line, ts, payload)
    if kind == "event_msg":
        return _event(state, line, ts, payload)
    if kind == "compacted" and isinstance(payload.get("message"), str):
        summary = t.clean(state, payload["message"])
        state["compaction"] = [line, summary[:1200]]
        return [Parsed(line, ts, "system", "compaction", summary)]
    return []


def _session_meta(state: dict[str, Any], meta: dict[str, Any]) -> None:
    session = state["session"]
    own = meta.get("id")
    if isinstance(own, str) and own:
        session["native_id"] = own
    for key in ("forked_from_id", "parent_thread_id", "session_id"):
        parent = meta.get(key)
        if isinstance(parent, str) and parent and parent != own:
            session["parent_id"] = parent
            break
    source = meta.get("source")
    if isinstance(source, dict) and "subagent" in source:
        session["agent_type"] = "subagent"
    if isinstance(meta.get("cli_version"), str):
        session["cli_version"] = meta["cli_version"]
    if isinstance(meta.get("originator"), str):
        session["originator"] = meta["originator"]
    git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
    if isinstance(git.get("repository_url"), str) and git["repository_url"]:
        session["repository_url"] = git["repository_url"]  # maps a worktree that is gone to its repository
    t.touch(
        state,
        meta.get("timestamp") if isinstance(meta.get("timestamp"), str) else None,
        meta.get("cwd"),
        git.get("branch") or None,
    )


def _response_item(state: dict[str, Any], line: int, ts: str | None, item: dict[str, Any]) -> list[Parsed]:
    kind = item.get("type")
    if kind == "message":
        return _message(state, line, ts, item)
    if kind == "reasoning":
        summary = "\n".join(s.get("text", "") for s in item.get("summary") or [] if isinstance(s, dict)).strip()
        return [Parsed(line, ts, "assistant", "reasoning", t.clean(state, summary))] if summary else []
    if kind in ("function_call", "custom_tool_call", "local_shell_call"):
        return [_call(state, line, ts, item)]
    if kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        return [_output(state, line, ts, item)]
    if kind == "web_search_call":
        action = item.get("action") or {}
        query = action.get("query") or action.get("url") or ""
        return [Parsed(line, ts, "assistant", "tool_call", t.clean(state, f"web_search: {query}", 500), "web_search")]
    return []


def _message(state: dict[str, Any], line: int, ts: str | None, item: dict[str, Any]) -> list[Parsed]:
    role = item.get("role")
    text = "\n".join(
        c.get("text", "") for c in item.get("content") or [] if isinstance(c, dict) and isinstance(c.get("text"), str)
    ).strip()
    if not text or role not in ("user", "assistant"):
        return []  # developer and system messages are the harness talking
    if role == "user":
        if text.startswith(_INJECTED):
            return []
        cleaned = t.clean(state, text)
        t.note_prompt(state, line, cleaned)
        return [Parsed(line, ts, "user", "prompt", cleaned)]
    cleaned = t.clean(state, text)
    state["last_assistant"] = [line, cleaned[:800]]
    return [Parsed(line, ts, "assistant", "text", cleaned)]


def _call(state: dict[str, Any], line: int, ts: str | None, item: dict[str, Any]) -> Parsed:
    name = str(item.get("name") or item.get("type"))
    call_id = item.get("call_id") or item.get("id")
    summary, body = _describe(state, line, name, item)
    if isinstance(call_id, str):
        t.open_call(state, call_id, line, name, t.clean(state, summary, 300))
    text = t.tool_text(state, summary + ("\n" + body if body else ""))
    return Parsed(line, ts, "assistant", "tool_call", text, name, call_id if isinstance(call_id, str) else None)


def _describe(state: dict[str, Any], line: int, name: str, item: dict[str, Any]) -> tuple[str, str]:
    if item.get("type") == "custom_tool_call":
        patch = item.get("input") if isinstance(item.get("input"), str) else ""
        files = _PATCH_FILE.findall(patch)
        for _, path in files:
            t.note_file(state, path.strip())
        heads = ", ".join(f"{op[0]} {path.strip()}" for op, path in files)
        return f"{name}: {heads}" if heads else name, patch
    if item.get("type") == "local_shell_call":
        command = (item.get("action") or {}).get("command") or []
        cmd = " ".join(command) if isinstance(command, list) else str(command)
        t.note_command(state, line, t.clean(state, cmd, 300))
        return f"shell: {cmd}", ""
    raw = item.get("arguments")
    try:
        args = json.loads(raw) if isinstance(raw, str) else (raw or {})
    except ValueError:
        args = {}
    if not isinstance(args, dict):
        args = {}
    command = args.get("cmd") or args.get("command")
    if isinstance(command, list):
        command = " ".join(str(c) for c in command)
    if isinstance(command, str) and command:
        t.note_command(state, line, t.clean(state, command, 300))
        return f"{name}: {command}", ""
    return f"{name} {t.json_text(state, args, 300)}", ""


def _output(state: dict[str, Any], line: int, ts: str | None, item: dict[str, Any]) -> Parsed:
    call_id = item.get("call_id")
    name = t.close_call(state, call_id if isinstance(call_id, str) else None)
    output = item.get("output")
    if isinstance(output, list):
        output = "\n".join(o.get("text", "") for o in output if isinstance(o, dict))
    elif isinstance(output, dict):
        output = output.get("content") or t.json_text(state, output, t.MAX_TOOL_TEXT * 4)
    text = output if isinstance(output, str) else ""
    exit_code = None
    if text.startswith("{"):
        try:
            wrapped = json.loads(text)
            text = str(wrapped.get("output", text))
            exit_code = (wrapped.get("metadata") or {}).get("exit_code")
        except (ValueError, AttributeError):
            pass
    if exit_code is None:
        found = _EXIT.search(text[:400])
        exit_code = int(found.group(1)) if found else None
    cleaned = t.tool_text(state, text)
    is_error = isinstance(exit_code, int) and exit_code != 0
    if is_error:
        t.add_error(state, line, f"exit {exit_code}: " + _first_output_line(cleaned))
    return Parsed(
        line, ts, "tool", "tool_result", cleaned, name, call_id if isinstance(call_id, str) else None, is_error
    )


def _event(state: dict[str, Any], line: int, ts: str | None, event: dict[str, Any]) -> list[Parsed]:
    kind = event.get("type")
    if kind in ("task_started", "turn_started"):
        t.set_end(state, "in_progress", line, ts)
    elif kind in ("task_complete", "turn_complete"):
        t.set_end(state, "turn_complete", line, ts)
        last = event.get("last_agent_message")
        if isinstance(last, str) and last and not state["last_assistant"]:
            state["last_assistant"] = [line, t.clean(state, last)[:800]]
    elif kind == "turn_aborted":
        t.set_end(state, "turn_aborted", line, ts)
        reason = t.clean(state, str(event.get("reason") or "unknown"), 200)
        state["end"]["reason"] = reason
        return [Parsed(line, ts, "system", "interrupt", f"turn aborted ({reason})")]
    elif kind == "token_count":
        info = event.get("info")
        if isinstance(info, dict) and isinstance(info.get("total_token_usage"), dict):
            state["usage"] = {k: v for k, v in info["total_token_usage"].items() if isinstance(v, int)}
    elif kind == "item_completed":  # paginated history mode: no response_item twins
        return _paginated_item(state, line, ts, event.get("item") or {})
    return []


def _paginated_item(state: dict[str, Any], line: int, ts: str | None, item: dict[str, Any]) -> list[Parsed]:
    kind = item.get("type")
    text = item.get("text") or item.get("message") or ""
    if kind == "UserMessage" and isinstance(text, str) and text and not text.startswith(_INJECTED):
        cleaned = t.clean(state, text)
        t.note_prompt(state, line, cleaned)
        return [Parsed(line, ts, "user", "prompt", cleaned)]
    if kind == "AgentMessage" and isinstance(text, str) and text:
        cleaned = t.clean(state, text)
        state["last_assistant"] = [line, cleaned[:800]]
        return [Parsed(line, ts, "assistant", "text", cleaned)]
    if kind == "CommandExecution" and isinstance(item.get("command"), str):
        t.note_command(state, line, t.clean(state, item["command"], 300))
        text = t.tool_text(state, f"{item['command']}\n{item.get('aggregated_output') or ''}")
        failed = isinstance(item.get("exit_code"), int) and item["exit_code"] != 0
        return [Parsed(line, ts, "tool", "tool_result", text, "exec_command", None, failed)]
    return []


def usage_totals(state: dict[str, Any]) -> dict[str, int]:
    return dict(state["usage"])


def _first_output_line(text: str) -> str:
    body = text.split("Output:\n", 1)[-1]
    lines = [ln for ln in body.splitlines() if ln.strip()]
    failing = next((ln for ln in lines if re.search(r"(?i)error|fail|exception", ln)), None)
    return (failing or (lines[0] if lines else text))[:200]
