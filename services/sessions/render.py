"""Short human renderings of the session tools' answers (the CLI without --json)."""

from __future__ import annotations

from typing import Any

__all__ = ["cut"]

_MARK = " […{n} more characters; pass --full]"


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + _MARK.format(n=len(text) - limit)


def _one(text: str | None, limit: int = 100) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def sync(out: Any) -> str:
    lines = [
        f"{out.files_seen} transcripts: {out.files_new} new, {out.files_appended} grew, {out.files_reparsed} "
        f"rewritten, {out.files_unchanged} unchanged; {out.messages_added} messages indexed in {out.duration_ms} ms"
    ]
    for home in out.homes:
        if not home.exists:
            lines.append(f"  {home.source}: {home.path} does not exist")
    if out.malformed_lines or out.oversized_lines:
        lines.append(f"  skipped {out.malformed_lines} malformed and {out.oversized_lines} oversized lines")
    if out.partial_lines_left:
        lines.append(f"  {out.partial_lines_left} last line(s) still being written: picked up next sync")
    if out.sessions_marked_missing:
        lines.append(f"  {len(out.sessions_marked_missing)} session(s) lost their transcript (kept, source_missing)")
    for bad in out.files_unreadable[:5]:
        lines.append(f"  unreadable: {bad['path']} ({bad['reason']})")
    if out.redactions:
        lines.append(f"  redacted {out.redactions} likely secret(s)")
    if out.embedding.configured:
        lines.append(
            f"  embedded {out.embedding.embedded}" + (f"; {out.embedding.error}" if out.embedding.error else "")
        )
    return "\n".join(lines)


def _session_line(s: Any) -> str:
    missing = " (transcript deleted)" if s.source_missing else ""
    sub = f" (subagent of {s.parent_id[:13]})" if getattr(s, "parent_id", None) else ""
    head = f"  ↳ {s.id}" if sub else s.id[:13]  # a subagent's id starts with its parent's: shown whole
    return f"{head}  {s.source:<6} {s.completion:<12} {s.updated_at or '?':<24} {_one(s.title, 60)}{sub}{missing}"


def recall(out: Any) -> str:
    if not out.results:
        return f"nothing indexed matches {out.query!r} (last sync: {out.freshness.last_sync_at or 'never'})"
    lines = []
    for r in out.results:
        lines.append(_session_line(r))
        if r.evidence:
            lines.append(f"    {r.evidence}")
        for c in r.citations:
            lines.append(f"    line {c.line:>5} {c.kind:<12} {_one(c.text, 96)}")
    if not out.semantic.used and out.semantic.reason:
        lines.append(f"(lexical only: {out.semantic.reason})")
    return "\n".join(lines)


def search(out: Any) -> str:
    lines = [f"{h.session_id[:13]} line {h.line:>5} {h.kind:<12} {_one(h.snippet, 90)}" for h in out.hits]
    if out.next_cursor:
        lines.append(f"... more: --cursor {out.next_cursor}")
    return "\n".join(lines) or f"no message matches {out.query!r}"


def show(out: Any) -> str:
    cap = out.capsule
    lines = [_session_line(out), f"  cwd {out.cwd}  branch {out.git_branch}  model {out.model}"]
    for a in cap.get("asked") or []:
        lines.append(f"  asked (line {a['line']}): {_one(a['text'])}")
    if cap.get("compaction"):
        lines.append(f"  compaction (line {cap['compaction']['line']}): {_one(cap['compaction']['text'])}")
    if cap.get("last_assistant"):
        lines.append(f"  last words (line {cap['last_assistant']['line']}): {_one(cap['last_assistant']['text'])}")
    for c in cap.get("open_calls") or []:
        lines.append(f"  open call (line {c['line']}): {_one(c['text'])}")
    if cap.get("files"):
        lines.append("  files: " + ", ".join(cap["files"]))
    lines.append(f"  completion: {out.completion} ({out.evidence})")
    for sub in out.subagents:
        lines.append("  subagent " + _session_line(sub))
    return "\n".join(lines)


def read(out: Any) -> str:
    lines = [f"{m.line:>5} {m.role:<9} {m.kind:<12} {_one(m.text, 160)}" for m in out.messages]
    if out.next_from_line:
        lines.append(f"... more: --from-line {out.next_from_line}")
    return "\n".join(lines) or "no indexed messages from that line"


def find(out: Any) -> str:
    lines = [out.interpretation]
    for s in out.sessions:
        lines.append(_session_line(s))
        capsule = (out.capsules or {}).get(s.id)
        if capsule:
            lines += [f"    asked (line {a['line']}): {_one(a['text'], 100)}" for a in capsule.get("asked", [])[:2]]
            calls = capsule.get("open_calls", [])
            lines += [f"    open call (line {c['line']}): {_one(c['text'], 100)}" for c in calls]
            if capsule.get("evidence"):
                lines.append(f"    {capsule['completion']}: {_one(capsule['evidence'], 100)}")
    return "\n".join(lines)


def live(out: Any) -> str:
    if not out.sessions:
        return "no claude or codex process is running"
    return "\n".join(
        f"{(str(s.pid) if s.pid else '-'):>7} {s.source:<6} {s.lifecycle:<8} {(s.session_id or '?')[:13]:<13} "
        f"{_one(s.why, 70)}"
        for s in out.sessions
    )


def doctor(out: Any) -> str:
    lines = ["healthy" if out.healthy else "problems:"] + [f"  {p}" for p in out.problems]
    lines += [f"  done: {d}" for d in out.done]
    if out.planned and not out.confirmed:
        lines += [f"  would: {p}" for p in out.planned] + ["rerun with --confirm --authority admin"]
    return "\n".join(lines)


def forget(out: Any) -> str:
    verb = "forgot" if out.confirmed else "would forget"
    tail = "" if out.confirmed else "\nrerun with --confirm --authority admin"
    return f"{verb} {len(out.sessions)} session(s), {out.messages} messages: {', '.join(out.sessions)}{tail}"


def prune(out: Any) -> str:
    verb = "pruned" if out.confirmed else "would prune"
    tail = "" if out.confirmed else "\nrerun with --confirm --authority admin"
    return f"{verb} {out.count} session(s) last active before {out.cutoff} ({out.messages} messages){tail}"


def embedding(out: Any) -> str:
    lines = [out.message]
    if out.configured:
        lines.append(
            f"  {out.provider} {out.model} at {out.base_url or 'default endpoint'}; key: {out.key_source or 'none'}"
        )
    for space in out.spaces:
        lines.append(f"  space {space['provider']}/{space['model']}/{space['dim']}: {space['vectors']} vectors")
    return "\n".join(lines)
