"""What both transcript parsers share: the resumable parse state, text trimming and redaction.

A parser turns one decoded JSONL record into message rows and updates a plain-dict `state` that is
stored with the session, so a transcript that grew is parsed from its last offset with the state
the previous sync left. Everything text-like passes through `clean` (redaction, then a length cap)
before it reaches a row, the state, or the capsule; the session's own fields (a subagent's title
from its `.meta.json`, the working folder, the branch), which parsers set from paths and metadata,
are redacted by `clean_session` before the state is stored.
"""

from __future__ import annotations

import json
from typing import Any

from kernel.secrets import redact

__all__ = [
    "CITE_CHARS",
    "CUT_MARK",
    "MAX_TEXT",
    "MAX_TOOL_TEXT",
    "Parsed",
    "add_error",
    "clean",
    "clean_session",
    "close_call",
    "json_text",
    "new_state",
    "note_file",
    "redacted",
    "shorten",
    "text_safe",
]

MAX_TEXT = 20_000  # characters of a prompt or an assistant message kept for search
CITE_CHARS = 240  # every ask and citation a capsule or an answer shows is cut here, ending with CUT_MARK
CUT_MARK = "…"
MAX_TOOL_TEXT = 4_000  # characters of a tool result kept: its head and tail, with a marker between
_KEEP_FILES = 20
_KEEP_COMMANDS = 10
_KEEP_ERRORS = 5
_KEEP_PROMPTS = 3
_CUT = "\n[… {n} characters cut …]\n"
# Session fields that are ids or times, never free text: left as they are so links between sessions hold.
_ID_FIELDS = frozenset(("native_id", "agent_id", "parent_id", "parent_tool_use_id", "created_at", "updated_at"))


class Parsed:
    """One message produced from one transcript line (the session id is added by the caller)."""

    __slots__ = ("call_id", "is_error", "kind", "line", "role", "text", "tool_name", "ts")

    def __init__(
        self,
        line: int,
        ts: str | None,
        role: str,
        kind: str,
        text: str,
        tool_name: str | None = None,
        call_id: str | None = None,
        is_error: bool = False,
    ) -> None:
        self.line, self.ts, self.role, self.kind, self.text = line, ts, role, kind, text
        self.tool_name, self.call_id, self.is_error = tool_name, call_id, is_error


def new_state(session: dict[str, Any]) -> dict[str, Any]:
    return {
        "session": session,
        "prompts": [],  # the first few [line, text] the user typed
        "last_prompt": None,
        "last_assistant": None,
        "compaction": None,
        "files": [],
        "commands": [],
        "errors": [],
        "open_calls": {},  # call id -> [line, tool name, one-line summary]
        "end": {"state": "unknown", "line": None, "ts": None},
        "usage": {},
        "api_calls": 0,
        "messages": 0,
        "redactions": 0,
    }


def shorten(text: str, cap: int = CITE_CHARS) -> str:
    """`text` within `cap` characters; a cut one ends with `CUT_MARK`, so a reader can tell."""
    return text if len(text) <= cap else text[: cap - 1] + CUT_MARK


def clean(state: dict[str, Any], text: str, cap: int = MAX_TEXT) -> str:
    """Redact likely secrets, then cut to `cap` characters keeping the head and the tail."""
    if not text:
        return ""
    text, found = redact(text)
    if found:
        state["redactions"] += found
    if len(text) > cap:
        half = cap // 2
        text = text[:half] + _CUT.format(n=len(text) - 2 * half) + text[-half:]
    return text


def text_safe(value: Any) -> Any:
    """`value` with every string made UTF-8-encodable: a lone surrogate (from a `\\udcff` escape in a
    record) becomes U+FFFD. Used only after a write refused a text, so the common path costs nothing."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {text_safe(k): text_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [text_safe(v) for v in value]
    return value


def note_prompt(state: dict[str, Any], line: int, text: str) -> None:
    short = text[:500]
    if len(state["prompts"]) < _KEEP_PROMPTS:
        state["prompts"].append([line, short])
    state["last_prompt"] = [line, short]


def redacted(value: Any) -> tuple[Any, int]:
    """A decoded JSON value with every string (keys too) redacted, and how many secrets were replaced.

    Redact before encoding: JSON writes a newline as `\\n`, so `\\nAKIA…` hides a key's word boundary.
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        out, found = {}, 0
        for k, v in value.items():
            (key, n), (item, m) = redact(k), redacted(v)
            out[key] = item
            found += n + m
        return out, found
    if isinstance(value, list):
        items = [redacted(v) for v in value]
        return [i for i, _ in items], sum(n for _, n in items)
    return value, 0


def json_text(state: dict[str, Any], value: Any, cap: int) -> str:
    """`value` as compact JSON for display, redacted before encoding and then cut to `cap` characters."""
    value, found = redacted(value)
    state["redactions"] += found
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= cap else text[: cap - 1] + "…"


def clean_session(state: dict[str, Any]) -> None:
    """Redact the session's text fields in place (cheap: a handful of short strings per file read)."""
    session = state["session"]
    for key, value in session.items():
        if isinstance(value, str) and key not in _ID_FIELDS:
            session[key] = clean(state, value, 1000)


def note_file(state: dict[str, Any], path: str) -> None:
    path = clean(state, path, 500)
    files = state["files"]
    if path in files:
        files.remove(path)
    files.append(path)
    del files[:-_KEEP_FILES]


def note_command(state: dict[str, Any], line: int, command: str) -> None:
    state["commands"].append([line, command[:200]])
    del state["commands"][:-_KEEP_COMMANDS]


def add_error(state: dict[str, Any], line: int, text: str) -> None:
    first = next((ln for ln in text.splitlines() if ln.strip()), text)[:200]
    state["errors"].append([line, first])
    del state["errors"][:-_KEEP_ERRORS]


def open_call(state: dict[str, Any], call_id: str, line: int, name: str, summary: str) -> None:
    state["open_calls"][call_id] = [line, name, summary[:300]]


def close_call(state: dict[str, Any], call_id: str | None) -> str | None:
    """Mark a call answered; return its tool name when it was known."""
    if not call_id:
        return None
    entry = state["open_calls"].pop(call_id, None)
    return entry[1] if entry else None


def touch(state: dict[str, Any], ts: str | None, cwd: str | None = None, branch: str | None = None) -> None:
    session = state["session"]
    if ts:
        if not session.get("created_at") or ts < session["created_at"]:
            session["created_at"] = ts
        if not session.get("updated_at") or ts > session["updated_at"]:
            session["updated_at"] = ts
    if cwd:
        session["cwd"] = cwd
    if branch:
        session["git_branch"] = branch


def set_end(state: dict[str, Any], end_state: str, line: int, ts: str | None) -> None:
    state["end"] = {"state": end_state, "line": line, "ts": ts}


def tool_text(state: dict[str, Any], text: str) -> str:
    return clean(state, text, MAX_TOOL_TEXT)
