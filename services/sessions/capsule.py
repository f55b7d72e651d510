"""The continuity capsule: a bounded summary (about 2 KB) of where a session stood, and its completion.

Built from the parse state alone, so it is recomputed after every sync of a file without re-reading
the transcript. Completion is `finished` only on a positive end-of-turn record, `not_finished` on
evidence of an unfinished turn (an unanswered tool call, an aborted turn, a prompt never answered),
and `unknown` otherwise; the evidence says which record decided it.
"""

from __future__ import annotations

import json
from typing import Any

from services.sessions.transcript import shorten

__all__ = ["CAPSULE_BUDGET", "build", "completion", "continuity_text"]

CAPSULE_BUDGET = 2048  # bytes of JSON

_END_TEXT = {
    "turn_complete": "the last turn ended normally",
    "turn_aborted": "the last turn was aborted",
    "interrupted": "the user interrupted the last turn",
    "open_tool_use": "the last tool call never got a result",
    "prompt_pending": "the last prompt was never answered",
    "in_progress": "the last turn never ended",
}


def completion(state: dict[str, Any]) -> tuple[str, str, str | None]:
    """(completion, evidence, finished_at) from the end of the transcript."""
    end = state["end"]
    kind, line = end["state"], end["line"]
    open_calls = sorted(state["open_calls"].values(), key=lambda c: c[0] or 0)
    if open_calls:
        last = open_calls[-1]
        evidence = f"{last[1]} call at line {last[0]} has no result"
        if kind == "turn_aborted":
            evidence = f"turn aborted ({end.get('reason') or 'unknown'}) at line {line}; " + evidence
        return "not_finished", evidence, None
    if kind == "turn_complete":
        return "finished", f"{_END_TEXT[kind]} (line {line})", end.get("ts")
    if kind in _END_TEXT:
        reason = f" ({end['reason']})" if end.get("reason") else ""
        return "not_finished", f"{_END_TEXT[kind]}{reason} (line {line})", None
    if kind.startswith("stopped_"):
        return "not_finished", f"the model stopped with {kind[len('stopped_') :]} (line {line})", None
    return "unknown", "no end-of-turn record was found", None


def stopped_line(state: dict[str, Any]) -> int | None:
    """Where the session stopped: its last unanswered call; in a turn that never ended, its last record
    (the turn's opening line says only when it started); else the record that ended the last turn."""
    end = state["end"]
    open_calls = sorted(state["open_calls"].values(), key=lambda c: c[0] or 0)
    if open_calls and open_calls[-1][0]:
        return open_calls[-1][0]
    if end["state"] == "in_progress" and end.get("last"):
        return end["last"]
    return end["line"]


def build(state: dict[str, Any], usage: dict[str, int]) -> dict[str, Any]:
    """The capsule of one session, trimmed until its JSON fits `CAPSULE_BUDGET`."""
    status, evidence, _ = completion(state)
    session = state["session"]
    capsule: dict[str, Any] = {
        "title": session.get("title"),
        "asked": [{"line": line, "text": shorten(text)} for line, text in state["prompts"]],
        "last_prompt": _cite(state["last_prompt"]),
        "last_assistant": _cite(state["last_assistant"], 400),
        "compaction": _cite(state["compaction"], 500),
        "files": list(reversed(state["files"]))[:10],
        "commands": [{"line": line, "text": shorten(text)} for line, text in state["commands"][-5:]],
        "errors": [{"line": line, "text": shorten(text)} for line, text in state["errors"][-3:]],
        "open_calls": [
            {"line": line, "tool": name, "text": shorten(text)}
            for line, name, text in sorted(state["open_calls"].values(), key=lambda c: c[0] or 0)[-3:]
        ],
        "completion": status,
        "evidence": evidence,
        "stopped_line": stopped_line(state),
        "end_state": state["end"]["state"],
        "usage": usage,
        "api_calls": state["api_calls"] or None,
    }
    if capsule["last_prompt"] and capsule["asked"] and capsule["last_prompt"]["line"] == capsule["asked"][-1]["line"]:
        capsule["last_prompt"] = None
    return _fit(capsule)


def continuity_text(capsule: dict[str, Any], session: dict[str, Any]) -> str:
    """The text a session's one continuity vector is computed from."""
    parts = [
        session.get("title") or "",
        f"repo {session.get('repo') or session.get('cwd') or ''} branch {session.get('git_branch') or ''}",
        *(a["text"] for a in capsule.get("asked") or []),
        (capsule.get("compaction") or {}).get("text", ""),
        (capsule.get("last_assistant") or {}).get("text", ""),
        " ".join(capsule.get("files") or []),
        *(c["text"] for c in capsule.get("commands") or []),
        *(c["text"] for c in capsule.get("open_calls") or []),
        capsule.get("evidence") or "",
    ]
    return "\n".join(p for p in parts if p)[:6000]


def _cite(entry: list[Any] | None, cap: int | None = None) -> dict[str, Any] | None:
    if not entry:
        return None
    line, text = entry
    return {"line": line, "text": shorten(text, cap) if cap else shorten(text)}


def _fit(capsule: dict[str, Any]) -> dict[str, Any]:
    """Within budget: shorten the summaries (compaction, last answer) first, then drop the oldest
    commands and errors and the later asks; asks and citations themselves stay at `CITE_CHARS`."""
    for cap in (300, 200, 120):
        if _size(capsule) <= CAPSULE_BUDGET:
            break
        for key in ("compaction", "last_assistant"):
            if capsule.get(key):
                capsule[key]["text"] = shorten(capsule[key]["text"], cap)
        capsule["files"] = capsule["files"][: max(3, len(capsule["files"]) // 2)]
    while _size(capsule) > CAPSULE_BUDGET:
        for key in ("commands", "errors", "asked", "open_calls"):
            keep = 0 if key in ("commands", "errors") else 1
            if len(capsule[key]) > keep:
                capsule[key].pop(0 if key != "asked" else -1)
                break
        else:
            break
    return capsule


def _size(capsule: dict[str, Any]) -> int:
    return len(json.dumps(capsule, ensure_ascii=False).encode("utf-8"))
