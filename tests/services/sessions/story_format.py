"""How Claude Code and Codex write their transcripts: record builders for the test story (transcripts.py)."""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

SHOP = "/home/dev/shop"
_NS = uuid.UUID("6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f")


def uid(*parts: str) -> str:
    return str(uuid.uuid5(_NS, ":".join(parts)))


def tag(prefix: str, *parts: str, length: int = 24) -> str:
    digest = hashlib.sha256(":".join(parts).encode()).hexdigest()
    return prefix + digest[:length]


def usage(inp: int, create: int, read: int, out: int) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "cache_creation_input_tokens": create,
        "cache_read_input_tokens": read,
        "cache_creation": {"ephemeral_5m_input_tokens": create, "ephemeral_1h_input_tokens": 0},
        "output_tokens": out,
        "service_tier": "standard",
    }


def numbered(text: str, start: int = 1) -> str:
    return "\n".join(f"{n:>6}\u2192{line}" for n, line in enumerate(text.split("\n"), start))


class Claude:
    """One Claude Code transcript file: records appended in order, usage booked per message id."""

    def __init__(self, session_id: str, branch: str, version: str, *, agent_id: str | None = None) -> None:
        self.session_id, self.branch, self.version, self.agent_id = session_id, branch, version, agent_id
        self.records: list[dict[str, Any] | str] = []
        self.parent: str | None = None
        self.usage: dict[str, dict[str, int]] = {}
        self.prompts: list[int] = []
        self.pending: dict[str, tuple[int, str, str]] = {}  # tool_use id -> (line, name, command)
        self.model = "claude-haiku-4-5-20251001" if agent_id else "claude-sonnet-5"
        self.prompt_id = ""

    def _common(self, rid: str, ts: str | None) -> dict[str, Any]:
        common: dict[str, Any] = {"parentUuid": self.parent, "isSidechain": self.agent_id is not None}
        if self.agent_id:
            common["agentId"] = self.agent_id
        return common | {"uuid": rid, "timestamp": ts}

    def _tail(self) -> dict[str, Any]:
        return {
            "userType": "external",
            "entrypoint": "cli",
            "cwd": SHOP,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": self.branch,
        }

    def add(self, record: dict[str, Any] | str) -> int:
        self.records.append(record)
        if isinstance(record, dict) and record.get("uuid") and record.get("type") in ("user", "assistant", "system"):
            self.parent = record["uuid"]
        return len(self.records)

    def raw(self, record: dict[str, Any]) -> int:
        return self.add(record)

    def prompt(self, text: str, ts: str, *, human: bool = True) -> int:
        rid = uid(self.session_id, self.agent_id or "", str(len(self.records)))
        if human:
            self.prompt_id = uid(self.session_id, "prompt", ts)
        record = self._common(rid, ts) | {"type": "user", "message": {"role": "user", "content": text}}
        record["promptId"] = self.prompt_id
        if human and not self.agent_id:
            record |= {"permissionMode": "default", "origin": {"kind": "human"}, "promptSource": "typed"}
        line = self.add(record | self._tail())
        if human and not self.agent_id:
            self.prompts.append(line)
        return line

    def say(self, blocks: list[dict[str, Any]], ts: list[str], usage: dict[str, Any], stop: str | None) -> list[int]:
        """One API response written as one record per content block; only the last carries `stop_reason`."""
        msg_id = tag("msg_01", self.session_id, self.agent_id or "", str(len(self.records)))
        lines = []
        for i, block in enumerate(blocks):
            last = i == len(blocks) - 1
            if block.get("type") == "tool_use":
                block = {"type": "tool_use", "id": tag("toolu_01", msg_id, str(i)), **block}
            share = dict(usage, output_tokens=max(1, usage["output_tokens"] * (i + 1) // len(blocks)))
            message = {
                "model": self.model,
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": stop if last else None,
                "stop_sequence": None,
                "usage": share,
            }
            rid = uid(self.session_id, self.agent_id or "", str(len(self.records)))
            record = self._common(rid, ts[i]) | {"message": message, "requestId": tag("req_011", msg_id)}
            line = self.add(record | {"type": "assistant"} | self._tail())
            lines.append(line)
            if block.get("type") == "tool_use":
                command = block["input"].get("command", "")
                self.pending[block["id"]] = (line, block["name"], command)
        self.usage[msg_id] = {k: share[k] for k in CLAUDE_USAGE}
        return lines

    def result(self, line_of_call: int, content: Any, ts: str, extra: dict[str, Any], is_error: bool = False) -> int:
        call = self.records[line_of_call - 1]
        assert isinstance(call, dict)
        tool_id = call["message"]["content"][0]["id"]
        self.pending.pop(tool_id)
        rid = uid(self.session_id, self.agent_id or "", str(len(self.records)))
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": content, "is_error": is_error}
        record = self._common(rid, ts) | {"promptId": self.prompt_id, "type": "user"}
        record |= {"message": {"role": "user", "content": [block]}, "toolUseResult": extra}
        record["sourceToolAssistantUUID"] = call["uuid"]
        return self.add(record | self._tail())

    def turn_done(self, ts: str, duration_ms: int, count: int) -> int:
        rid = uid(self.session_id, "turn", ts)
        record = self._common(rid, ts) | {"type": "system", "subtype": "turn_duration"}
        return self.add(record | {"durationMs": duration_ms, "messageCount": count, "isMeta": False} | self._tail())

    def snapshot(self, ts: str, files: dict[str, Any] | None = None, update: bool = False) -> int:
        message_id = uid(self.session_id, "snapshot")
        snap = {"messageId": message_id, "trackedFileBackups": files or {}, "timestamp": ts}
        return self.add(
            {"type": "file-history-snapshot", "messageId": message_id, "snapshot": snap, "isSnapshotUpdate": update}
        )

    def title(self, text: str) -> int:
        return self.add({"type": "ai-title", "aiTitle": text, "sessionId": self.session_id})

    def last_prompt(self, text: str) -> int:
        return self.add(
            {"type": "last-prompt", "lastPrompt": text, "leafUuid": self.parent, "sessionId": self.session_id}
        )

    def totals(self) -> dict[str, int]:
        return {k: sum(u[k] for u in self.usage.values()) for k in CLAUDE_USAGE}

    def lines(self) -> list[str]:
        return [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in self.records]


CLAUDE_USAGE = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
CODEX_USAGE = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")


def bash(command: str, description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": "Bash", "input": {"command": command, "description": description, **extra}}


def stdout(text: str, stderr: str = "") -> dict[str, Any]:
    return {"stdout": text, "stderr": stderr, "interrupted": False, "isImage": False, "noOutputExpected": False}


def read_result(path: str, text: str) -> tuple[str, dict[str, Any]]:
    lines = text.count("\n") + 1
    file = {"filePath": path, "content": text, "numLines": lines, "startLine": 1, "totalLines": lines}
    return numbered(text), {"type": "text", "file": file}


def created(path: str, text: str) -> tuple[str, dict[str, Any]]:
    return f"File created successfully at: {path}", {
        "type": "create",
        "filePath": path,
        "content": text,
        "structuredPatch": [],
    }


def edited(path: str, old: str, new: str, original: str) -> tuple[str, dict[str, Any]]:
    patch = [
        {
            "oldStart": 1,
            "oldLines": old.count("\n") + 1,
            "newStart": 1,
            "newLines": new.count("\n") + 1,
            "lines": [f"-{x}" for x in old.split("\n")] + [f"+{x}" for x in new.split("\n")],
        }
    ]
    extra = {
        "filePath": path,
        "oldString": old,
        "newString": new,
        "originalFile": original,
        "structuredPatch": patch,
        "userModified": False,
        "replaceAll": False,
    }
    return f"The file {path} has been updated successfully.", extra


# ---------------------------------------------------------------- Codex rollouts


class Codex:
    """One Codex rollout (legacy history mode): envelope records, turns and the last token count."""

    def __init__(self, thread_id: str, cwd: str = SHOP) -> None:
        self.thread_id, self.cwd = thread_id, cwd
        self.records: list[dict[str, Any] | str] = []
        self.totals = dict.fromkeys(CODEX_USAGE, 0)
        self.turn_id = ""
        self.prompts: list[int] = []
        self.open: dict[str, tuple[int, str]] = {}
        self.last_token_line = 0

    def add(self, ts: str, kind: str, payload: dict[str, Any] | None = None) -> int:
        record: dict[str, Any] = {"timestamp": ts, "type": kind}
        if payload is not None:
            record["payload"] = payload
        self.records.append(record)
        return len(self.records)

    def meta(self, ts: str, originator: str, source: str, commit: str) -> int:
        payload = {
            "id": self.thread_id,
            "session_id": self.thread_id,
            "timestamp": ts,
            "cwd": self.cwd,
            "originator": originator,
            "cli_version": "0.162.0",
            "source": source,
            "model_provider": "openai",
            "base_instructions": {"text": "You are Codex, a coding agent working in the user's terminal. (shortened)"},
            "git": {
                "commit_hash": commit,
                "branch": "feature/split-payments",
                "repository_url": "git@example.com:dev/shop.git",
            },
        }
        return self.add(ts, "session_meta", payload)

    def injected(self, ts: str) -> list[int]:
        developer = (
            "<permissions instructions>\nThe sandbox is workspace-write: read anything, write inside "
            f"{self.cwd}; network access is off.\n</permissions instructions>"
        )
        agents = (
            f"# AGENTS.md instructions for {self.cwd}\n\n<INSTRUCTIONS>\n- Tests: `python -m pytest -q`.\n"
            "- A migration that has been applied is never edited; write a new one.\n</INSTRUCTIONS>"
        )
        env = (
            f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <shell>zsh</shell>\n  <current_date>{ts[:10]}"
            "</current_date>\n  <timezone>Europe/Berlin</timezone>\n</environment_context>"
        )
        return [
            self._message(ts, "developer", developer),
            self._message(ts, "user", agents),
            self._message(ts, "user", env),
        ]

    def _message(self, ts: str, role: str, text: str, phase: str | None = None) -> int:
        kind = "output_text" if role == "assistant" else "input_text"
        payload: dict[str, Any] = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        if phase:
            payload["phase"] = phase
        return self.add(ts, "response_item", payload)

    def task_started(self, ts: str, turn_id: str, epoch: int) -> int:
        self.turn_id = turn_id
        return self.add(
            ts,
            "event_msg",
            {
                "type": "task_started",
                "turn_id": turn_id,
                "started_at": epoch,
                "model_context_window": 272000,
                "collaboration_mode_kind": "default",
            },
        )

    def user(self, ts: str, text: str) -> int:
        line = self._message(ts, "user", text)
        self.prompts.append(line)
        self.add(
            ts,
            "event_msg",
            {"type": "user_message", "message": text, "images": [], "local_images": [], "text_elements": []},
        )
        return line

    def context(self, ts: str, policy: str) -> int:
        return self.add(
            ts,
            "turn_context",
            {
                "turn_id": self.turn_id,
                "cwd": self.cwd,
                "current_date": ts[:10],
                "timezone": "Europe/Berlin",
                "approval_policy": policy,
                "sandbox_policy": {"type": "workspace-write", "writable_roots": [self.cwd], "network_access": False},
                "model": "gpt-5.5-codex",
                "personality": "pragmatic",
                "effort": "medium",
                "summary": "auto",
            },
        )

    def tokens(self, ts: str, last: tuple[int, int, int, int] | None) -> int:
        if last is None:
            return self.add(ts, "event_msg", {"type": "token_count", "info": None, "rate_limits": None})
        inp, cached, out, reasoning = last
        step = {
            "input_tokens": inp,
            "cached_input_tokens": cached,
            "output_tokens": out,
            "reasoning_output_tokens": reasoning,
            "total_tokens": inp + out,
        }
        for key, value in step.items():
            self.totals[key] += value
        info = {"total_token_usage": dict(self.totals), "last_token_usage": step, "model_context_window": 272000}
        self.last_token_line = self.add(ts, "event_msg", {"type": "token_count", "info": info})
        return self.last_token_line

    def reason(self, ts: str, text: str) -> list[int]:
        return [
            self.add(ts, "event_msg", {"type": "agent_reasoning", "text": text}),
            self.add(
                ts,
                "response_item",
                {
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": text}],
                    "content": None,
                    "encrypted_content": "gAAAAB" + "q" * 48,
                },
            ),
        ]

    def say(self, ts: str, text: str, phase: str = "commentary") -> list[int]:
        return [
            self.add(ts, "event_msg", {"type": "agent_message", "message": text, "phase": phase}),
            self._message(ts, "assistant", text, phase),
        ]

    def call(self, ts: str, cmd: str) -> int:
        call_id = tag("call_", self.thread_id, str(len(self.records)))
        arguments = json.dumps({"cmd": cmd, "workdir": self.cwd, "yield_time_ms": 10000, "max_output_tokens": 6000})
        line = self.add(
            ts,
            "response_item",
            {"type": "function_call", "name": "exec_command", "arguments": arguments, "call_id": call_id},
        )
        self.open[call_id] = (line, cmd)
        return line

    def output(self, ts: str, line_of_call: int, code: int, text: str, seconds: float) -> int:
        call_id = self._call_id(line_of_call)
        self.open.pop(call_id)
        chunk = hashlib.sha256(f"{call_id}".encode()).hexdigest()[:6]
        body = (
            f"Chunk ID: {chunk}\nWall time: {seconds:.4f} seconds\nProcess exited with code {code}\n"
            f"Original token count: {len(text) // 4}\nOutput:\n{text}"
        )
        return self.add(ts, "response_item", {"type": "function_call_output", "call_id": call_id, "output": body})

    def patch(self, ts: str, patch: str) -> int:
        call_id = tag("call_", self.thread_id, str(len(self.records)))
        return self.add(
            ts,
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call_id,
                "name": "apply_patch",
                "input": patch,
            },
        )

    def patched(self, ts: str, line_of_call: int, files: str) -> int:
        output = json.dumps(
            {
                "output": f"Success. Updated the following files:\nM {files}\n",
                "metadata": {"exit_code": 0, "duration_seconds": 0.1},
            }
        )
        return self.add(
            ts,
            "response_item",
            {"type": "custom_tool_call_output", "call_id": self._call_id(line_of_call), "output": output},
        )

    def _call_id(self, line: int) -> str:
        record = self.records[line - 1]
        assert isinstance(record, dict)
        return record["payload"]["call_id"]

    def lines(self) -> list[str]:
        return [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in self.records]
