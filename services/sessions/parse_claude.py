"""Claude Code transcripts (`<config>/projects/<key>/<session>.jsonl` and subagent files): records to messages.

One record is one content block (an API response of N blocks is N records sharing `message.id`), so
usage is counted once per `message.id`, from its last record. Injected text (`isMeta`, command
echoes, system reminders) is not what the user asked and is left out; the compaction summary is
kept as the best "where did we stop" text but never counted as a prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from services.sessions import transcript as t
from services.sessions.transcript import Parsed

__all__ = ["discover", "feed", "identify"]

_USAGE_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
_INJECTED = ("<command-name>", "<command-message>", "<local-command-stdout>", "<system-reminder>", "Caveat: ")
_INTERRUPTED = "[Request interrupted"
_SHELL = ("<bash-input>", "<bash-stdout>", "<bash-stderr>")
_EDIT_TOOLS = {"Edit", "Write", "MultiEdit", "NotebookEdit"}
_RECENT_IDS = 64


def discover(home: Path) -> list[Path]:
    """Every transcript under a Claude Code config home: sessions, subagents (both layouts)."""
    projects = home / "projects"
    if not projects.is_dir():
        return []
    found = list(projects.glob("*/*.jsonl"))
    found += projects.glob("*/*/subagents/agent-*.jsonl")
    found += projects.glob("*/*/subagents/*/agent-*.jsonl")
    return sorted(set(found))


def identify(path: Path) -> dict[str, Any]:
    """The session a file holds, from its path alone (records confirm it as they are read)."""
    stem = path.stem
    if stem.startswith("agent-"):
        agent_id = stem[len("agent-") :]
        parent = None
        if path.parent.name == "subagents":
            parent = path.parent.parent.name
        elif path.parent.parent.name == "subagents":  # subagents/<group>/agent-x.jsonl
            parent = path.parent.parent.parent.name
        meta = _read_meta(path.with_suffix(".meta.json"))
        return {
            "id": f"{parent}:{agent_id}" if parent else f"agent-{agent_id}",
            "native_id": parent or f"agent-{agent_id}",
            "agent_id": agent_id,
            "parent_id": parent,
            "parent_tool_use_id": meta.get("toolUseId"),
            "agent_type": meta.get("agentType"),
            "model": meta.get("model"),
            "title": meta.get("description") if isinstance(meta.get("description"), str) else None,
        }
    return {"id": stem, "native_id": stem, "agent_id": None, "parent_id": None}


def feed(state: dict[str, Any], line: int, record: dict[str, Any]) -> list[Parsed]:
    """Fold one record into `state` and return the messages it holds."""
    kind = record.get("type")
    ts = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
    session = state["session"]
    if kind in ("user", "assistant", "system", "attachment"):
        t.touch(state, ts, record.get("cwd"), record.get("gitBranch") or None)
        if record.get("version"):
            session["cli_version"] = record["version"]
        if session.get("parent_id") is None and session.get("agent_id") and record.get("sessionId"):
            session["parent_id"] = record["sessionId"]  # legacy sibling agent-<id>.jsonl files
    if kind == "user":
        return _user(state, line, ts, record)
    if kind == "assistant":
        return _assistant(state, line, ts, record)
    if kind == "system":
        return _system(state, line, ts, record)
    if kind == "attachment":
        attachment = record.get("attachment") or {}
        if attachment.get("type") == "queued_command" and isinstance(attachment.get("prompt"), str):
            text = t.clean(state, attachment["prompt"])
            return [Parsed(line, ts, "user", "queued_prompt", text)]
        return []
    if kind in ("ai-title", "custom-title"):
        title = record.get("customTitle") or record.get("aiTitle")
        if isinstance(title, str) and title and not (session.get("title_custom") and kind == "ai-title"):
            session["title"] = t.clean(state, title, 200)
            session["title_custom"] = kind == "custom-title"
        return []
    if kind == "summary" and isinstance(record.get("summary"), str) and not session.get("title"):
        session["title"] = t.clean(state, record["summary"], 200)
        return []
    if kind == "file-history-snapshot":
        backups = (record.get("snapshot") or {}).get("trackedFileBackups") or {}
        for path in backups:
            t.note_file(state, _relative(state, path))
        return []
    if kind == "pr-link" and record.get("prUrl"):
        session["pr_url"] = record["prUrl"]
    return []  # state records and unknown types carry nothing to index


def _user(state: dict[str, Any], line: int, ts: str | None, record: dict[str, Any]) -> list[Parsed]:
    content = (record.get("message") or {}).get("content")
    if isinstance(content, str):
        return _user_text(state, line, ts, record, content)
    out: list[Parsed] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            out.append(_tool_result(state, line, ts, record, block))
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            out += _user_text(state, line, ts, record, block["text"])
    return out


def _user_text(state: dict[str, Any], line: int, ts: str | None, record: dict[str, Any], text: str) -> list[Parsed]:
    if record.get("isCompactSummary"):
        summary = t.clean(state, text)
        state["compaction"] = [line, summary[:1200]]
        return [Parsed(line, ts, "system", "compaction", summary)]
    stripped = text.lstrip()
    if record.get("isMeta"):
        return []
    if stripped.startswith(_SHELL):
        return _shell(state, line, ts, stripped)
    command = _slash_command(stripped)
    if command is not None:
        text = stripped = command
    elif stripped.startswith(_INJECTED):
        return []
    if stripped.startswith(_INTERRUPTED):
        t.set_end(state, "interrupted", line, ts)
        return [Parsed(line, ts, "user", "interrupt", t.clean(state, stripped, 200))]
    cleaned = t.clean(state, text)
    t.note_prompt(state, line, cleaned)
    t.set_end(state, "prompt_pending", line, ts)
    return [Parsed(line, ts, "user", "prompt", cleaned)]


def _slash_command(text: str) -> str | None:
    """`/name args` from the record Claude Code writes for a slash command (`<command-name>/name</command-name>`
    with `<command-message>` and `<command-args>`), else None."""
    if "<command-name>" not in text[:400]:
        return None
    name = _tag(text, "command-name")
    if not name:
        return None
    name = name if name.startswith("/") else f"/{name}"
    args = _tag(text, "command-args")
    return f"{name} {args}".strip()


def _tag(text: str, tag: str) -> str:
    start = text.find(f"<{tag}>")
    if start == -1:
        return ""
    start += len(tag) + 2
    end = text.find(f"</{tag}>", start)
    return text[start : end if end != -1 else len(text)].strip()


def _shell(state: dict[str, Any], line: int, ts: str | None, text: str) -> list[Parsed]:
    """Claude Code's `!` shell mode: `<bash-input>` is a command the user ran, `<bash-stdout>` /
    `<bash-stderr>` its output; stored as a call and its result, not as a typed prompt."""
    call_id = f"shell-{line}"
    if text.startswith("<bash-input>"):
        command = t.clean(state, _tag(text, "bash-input"))
        t.note_command(state, line, command)
        state["shell_call"] = call_id
        return [Parsed(line, ts, "user", "tool_call", command, "Bash", call_id)]
    out, err = _tag(text, "bash-stdout"), _tag(text, "bash-stderr")
    cleaned = t.tool_text(state, "\n".join(part for part in (out, err) if part))
    previous = state.pop("shell_call", None) or call_id
    if err and not out:
        t.add_error(state, line, cleaned)
    return [Parsed(line, ts, "tool", "tool_result", cleaned, "Bash", previous, bool(err and not out))]


def _tool_result(state: dict[str, Any], line: int, ts: str | None, record: dict[str, Any], block: dict) -> Parsed:
    call_id = block.get("tool_use_id")
    name = t.close_call(state, call_id)
    content = block.get("content")
    if isinstance(content, list):
        text = "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    else:
        text = content if isinstance(content, str) else ""
    result = record.get("toolUseResult")
    if not text and isinstance(result, dict):
        text = "\n".join(str(result.get(k) or "") for k in ("stdout", "stderr")).strip()
    is_error = bool(block.get("is_error"))
    cleaned = t.tool_text(state, text)
    if is_error:
        t.add_error(state, line, cleaned)
    if not state["open_calls"] and state["end"]["state"] == "open_tool_use":
        t.set_end(state, "in_progress", line, ts)
    return Parsed(line, ts, "tool", "tool_result", cleaned, name, call_id, is_error)


def _assistant(state: dict[str, Any], line: int, ts: str | None, record: dict[str, Any]) -> list[Parsed]:
    message = record.get("message") or {}
    _count_usage(state, message, record.get("requestId"))
    model = message.get("model")
    if isinstance(model, str) and model and not model.startswith("<"):
        state["session"]["model"] = model
    out: list[Parsed] = []
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            text = t.clean(state, block["text"])
            state["last_assistant"] = [line, text[:800]]
            if record.get("isApiErrorMessage"):
                t.add_error(state, line, text)
            out.append(Parsed(line, ts, "assistant", "error" if record.get("isApiErrorMessage") else "text", text))
        elif kind == "thinking" and isinstance(block.get("thinking"), str) and block["thinking"].strip():
            out.append(Parsed(line, ts, "assistant", "thinking", t.clean(state, block["thinking"])))
        elif kind == "tool_use" and isinstance(block.get("id"), str):
            out.append(_tool_use(state, line, ts, block))
    stop = message.get("stop_reason")
    if stop == "tool_use" or state["open_calls"]:
        t.set_end(state, "open_tool_use", line, ts)
    elif stop in ("end_turn", "stop_sequence", "max_tokens", "refusal"):
        t.set_end(state, "turn_complete" if stop in ("end_turn", "stop_sequence") else f"stopped_{stop}", line, ts)
    elif out:
        t.set_end(state, "in_progress", line, ts)
    return out


def _tool_use(state: dict[str, Any], line: int, ts: str | None, block: dict[str, Any]) -> Parsed:
    name = str(block.get("name") or "tool")
    args = block.get("input") if isinstance(block.get("input"), dict) else {}
    summary, body = _describe_call(state, line, name, args)
    t.open_call(state, block["id"], line, name, t.clean(state, summary, 300))
    text = t.tool_text(state, summary + ("\n" + body if body else ""))
    return Parsed(line, ts, "assistant", "tool_call", text, name, block["id"])


def _describe_call(state: dict[str, Any], line: int, name: str, args: dict[str, Any]) -> tuple[str, str]:
    """A one-line summary of a tool call and the longer text worth searching."""
    if name == "Bash" and isinstance(args.get("command"), str):
        t.note_command(state, line, t.clean(state, args["command"], 300))
        return f"Bash: {args['command']}", str(args.get("description") or "")
    path = args.get("file_path") or args.get("notebook_path") or args.get("path")
    if name in _EDIT_TOOLS and isinstance(path, str):
        t.note_file(state, _relative(state, path))
        body = args.get("content") or args.get("new_string") or ""
        return f"{name} {_relative(state, path)}", body if isinstance(body, str) else ""
    if name in ("Agent", "Task"):
        return f"{name} ({args.get('subagent_type') or 'agent'}): {args.get('description') or ''}", str(
            args.get("prompt") or ""
        )
    if isinstance(path, str):
        extra = f" {args['pattern']}" if isinstance(args.get("pattern"), str) else ""
        return f"{name} {_relative(state, path)}{extra}", ""
    return f"{name} {t.json_text(state, args, 300)}", ""


def _system(state: dict[str, Any], line: int, ts: str | None, record: dict[str, Any]) -> list[Parsed]:
    subtype = record.get("subtype")
    if subtype == "compact_boundary":
        meta = record.get("compactMetadata") or {}
        text = f"conversation compacted ({meta.get('trigger', 'unknown')}, {meta.get('preTokens', '?')} tokens before)"
        return [Parsed(line, ts, "system", "compact_boundary", t.clean(state, text, 300))]
    if subtype == "turn_duration" and state["end"]["state"] == "turn_complete":
        t.set_end(state, "turn_complete", line, ts)
    elif subtype == "api_error":
        text = t.clean(state, str(record.get("content") or record.get("error") or "API error"), 500)
        t.add_error(state, line, text)
        return [Parsed(line, ts, "system", "error", text, is_error=True)]
    return []


def _count_usage(state: dict[str, Any], message: dict[str, Any], request_id: Any) -> None:
    usage = message.get("usage")
    msg_id = message.get("id")
    if not isinstance(usage, dict) or not isinstance(msg_id, str):
        return
    key = f"{msg_id}:{request_id or ''}"
    book = state["usage"]
    book.setdefault("totals", dict.fromkeys(_USAGE_FIELDS, 0))
    current = {f: int(usage.get(f) or 0) for f in _USAGE_FIELDS}
    if book.get("pending_id") == key:
        book["pending"] = current  # later records of one response carry the final counts
        return
    if key in book.setdefault("recent", []):
        return
    if book.get("pending_id"):
        for f in _USAGE_FIELDS:
            book["totals"][f] += book["pending"][f]
    book["pending_id"], book["pending"] = key, current
    book["recent"] = [*book["recent"], key][-_RECENT_IDS:]
    state["api_calls"] += 1


def usage_totals(state: dict[str, Any]) -> dict[str, int]:
    book = state["usage"]
    totals = dict(book.get("totals") or dict.fromkeys(_USAGE_FIELDS, 0))
    for f in _USAGE_FIELDS:
        totals[f] += (book.get("pending") or {}).get(f, 0)
    return totals


def _relative(state: dict[str, Any], path: str) -> str:
    cwd = state["session"].get("cwd")
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path


def _read_meta(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
