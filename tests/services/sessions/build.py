"""Transcripts built inside a test, in the tools' real on-disk formats (see docs/sessions.md).

The story (transcripts.py) covers the common cases; these helpers write the odd ones a single test needs (a
session with no end-of-turn evidence, a Codex subagent, records planted with secrets) without
editing the story in transcripts.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as handle:
        for record in records:
            handle.write(json.dumps(record).encode("utf-8") + b"\n")
    return path


# ---------------------------------------------------------------- Codex rollouts


def codex_path(home: Path, thread_id: str, when: str = "2026-11-21T10-00-00") -> Path:
    day = when[:10].replace("-", "/")
    return home / "sessions" / day / f"rollout-{when}-{thread_id}.jsonl"


def codex(kind: str, payload: dict[str, Any], ts: str = "2026-11-21T10:00:01.000Z") -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


def codex_meta(thread_id: str, cwd: str = "/home/dev/shop", **extra: Any) -> dict[str, Any]:
    payload = {
        "id": thread_id,
        "timestamp": "2026-11-21T10:00:00.000Z",
        "cwd": cwd,
        "originator": "codex_cli_rs",
        "cli_version": "0.162.0",
        "source": "cli",
        **extra,
    }
    return codex("session_meta", payload, "2026-11-21T10:00:00.000Z")


def codex_user(text: str, ts: str = "2026-11-21T10:00:01.000Z") -> dict[str, Any]:
    content = [{"type": "input_text", "text": text}]
    return codex("response_item", {"type": "message", "role": "user", "content": content}, ts)


def codex_assistant(text: str, ts: str = "2026-11-21T10:00:02.000Z") -> dict[str, Any]:
    content = [{"type": "output_text", "text": text}]
    return codex("response_item", {"type": "message", "role": "assistant", "content": content}, ts)


def codex_event(kind: str, ts: str = "2026-11-21T10:00:03.000Z", **fields: Any) -> dict[str, Any]:
    return codex("event_msg", {"type": kind, **fields}, ts)


# ---------------------------------------------------------------- Claude Code sessions


def claude_path(home: Path, session_id: str, project: str = "-home-dev-shop") -> Path:
    return home / "projects" / project / f"{session_id}.jsonl"


def claude_user(session_id: str, content: Any, uuid: str, ts: str, cwd: str = "/home/dev/shop") -> dict[str, Any]:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "type": "user",
        "message": {"role": "user", "content": content},
        "uuid": uuid,
        "timestamp": ts,
        "cwd": cwd,
        "sessionId": session_id,
        "version": "2.1.286",
        "gitBranch": "main",
    }


def claude_assistant(
    session_id: str,
    blocks: list[dict[str, Any]],
    uuid: str,
    ts: str,
    *,
    message_id: str,
    stop_reason: str | None = None,
    cwd: str = "/home/dev/shop",
) -> dict[str, Any]:
    usage = {"input_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 7}
    return {
        "parentUuid": None,
        "isSidechain": False,
        "type": "assistant",
        "message": {
            "model": "claude-sonnet-5",
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "content": blocks,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage,
        },
        "requestId": f"req_{message_id}",
        "uuid": uuid,
        "timestamp": ts,
        "cwd": cwd,
        "sessionId": session_id,
        "version": "2.1.286",
        "gitBranch": "main",
    }
