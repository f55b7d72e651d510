"""`python -m benchmarks sessions`: session memory on a generated corpus in both real transcript formats.

Prints cold sync throughput beside the time `cat` takes to read the same bytes, the no-change
resync, the resync after one appended line, recall and search latency, and the database size
against the corpus size. The default corpus is the one the goals are stated for: 2,000 sessions of
about 500 KB (about 1 GB; a little over a minute on 2 cores). `--quick` writes about 50 KB per
session (about 115 MB) for a look in a few seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.harness import percentile_ms

GOALS = {"cold_mb_s": 30.0, "resync_s": 1.0, "append_s": 0.2, "recall_p50_ms": 50.0}
_WORDS = [
    "payment",
    "order",
    "refund",
    "gateway",
    "backfill",
    "migration",
    "schema",
    "invoice",
    "customer",
    "cart",
    "checkout",
    "discount",
    "tax",
    "shipping",
    "warehouse",
    "retry",
    "timeout",
    "batch",
    "index",
    "query",
    "cache",
    "token",
    "session",
    "worker",
    "queue",
    "deploy",
    "release",
    "test",
    "fixture",
    "assert",
    "mock",
    "parser",
    "handler",
    "router",
    "model",
    "view",
    "template",
    "config",
    "secret",
    "lint",
    "format",
    "build",
    "error",
    "failed",
    "passed",
    "exception",
    "traceback",
    "module",
    "package",
    "import",
    "function",
    "class",
    "method",
    "variable",
]
_QUERIES = [
    "where did the backfill migration stop?",
    "why did the checkout test fail?",
    "which commit changed the payment gateway retry?",
    "refund handler exception traceback",
    "deploy release worker queue timeout",
    "what is the plan for the invoice schema migration?",
    "cache token session parser error",
    "shipping warehouse batch index query",
]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks sessions")
    parser.add_argument("--sessions", type=int, default=2000, help="sessions to generate (default 2000)")
    parser.add_argument("--quick", action="store_true", help="about 50 KB per session (115 MB at 2000 sessions)")
    parser.add_argument("--full", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old scripts
    parser.add_argument("--queries", type=int, default=40, help="recall and search calls to time (default 40)")
    parser.add_argument("--keep", help="write the corpus and database here instead of a temporary folder")
    args = parser.parse_args(argv)
    per_session = 50_000 if args.quick else 500_000
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(args.keep or scratch)
        root.mkdir(parents=True, exist_ok=True)
        os.environ["PALLIUM_HOME"] = str(root / "pallium-home")
        homes = {"claude": root / "claude", "codex": root / "codex"}
        started = time.perf_counter()
        corpus = generate(homes, args.sessions, per_session, random.Random(4))
        print(
            f"sessions benchmark: {args.sessions} sessions, {corpus / 1e6:.1f} MB generated in "
            f"{time.perf_counter() - started:.1f}s (goals: {json.dumps(GOALS)})"
        )
        cat_s = _cat(root)
        print(f"  {'cat of the corpus to /dev/null (baseline)':<46} {cat_s:8.2f} s   {corpus / 1e6 / cat_s:8.1f} MB/s")
        redact_mb, redact_s, scan_s = _time_redaction(homes)
        print(
            f"  {'redaction of the strings of ' + format(redact_mb, '.0f') + ' MB of records':<46} "
            f"{redact_s / redact_mb * 1000:8.1f} ms/MB  ({redact_s / scan_s:.1f}x a lowercase copy of the same text)"
        )
        cold_s, out = _timed_sync(homes)
        mb_s = corpus / 1e6 / cold_s
        print(
            f"  {'cold sync':<46} {cold_s:8.2f} s   {mb_s:8.1f} MB/s  ({cold_s / cat_s:.1f}x cat)"
            f"  goal {GOALS['cold_mb_s']} MB/s: {_met(mb_s >= GOALS['cold_mb_s'])}"
        )
        print(f"    {out.messages_added} messages, {out.redactions} redactions, {out.malformed_lines} malformed")
        resync_s, out = _timed_sync(homes)
        assert out.files_unchanged == out.files_seen
        stat_s = _stat_all(homes)
        print(
            f"  {'no-change resync of ' + str(out.files_seen) + ' files':<46} {resync_s:8.3f} s   "
            f"({resync_s / stat_s:.1f}x a bare stat of every file = {stat_s * 1000:.1f} ms)  "
            f"goal {GOALS['resync_s']} s: {_met(resync_s <= GOALS['resync_s'])}"
        )
        target = sorted((homes["claude"] / "projects").rglob("*.jsonl"))[0]
        with target.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(_claude_user(target.stem, "one more prompt about the refund worker")) + "\n")
        append_s, out = _timed_sync(homes)
        assert out.files_appended == 1
        print(
            f"  {'resync after one appended line':<46} {append_s:8.3f} s   ({append_s / resync_s:.1f}x the "
            f"no-change resync)  goal {GOALS['append_s']} s: {_met(append_s <= GOALS['append_s'])}"
        )
        recall = _time_tool("recall", args.queries)
        search = _time_tool("search", args.queries)
        p50 = percentile_ms(recall, 50)
        print(
            f"  {'recall (lexical) p50 / p95':<46} {p50:8.1f} / {percentile_ms(recall, 95):.1f} ms  "
            f"goal p50 {GOALS['recall_p50_ms']} ms: {_met(p50 <= GOALS['recall_p50_ms'])}"
        )
        in_repo = _time_tool("recall", args.queries, repo="/home/dev/project0")  # a twelfth of the sessions
        p50, p95 = percentile_ms(in_repo, 50), percentile_ms(in_repo, 95)
        print(f"  {'recall --repo (no goal) p50 / p95':<46} {p50:8.1f} / {p95:.1f} ms")
        print(f"  {'search p50 / p95':<46} {percentile_ms(search, 50):8.1f} / {percentile_ms(search, 95):.1f} ms")
        db = Path(os.environ["PALLIUM_HOME"]) / "pallium.sqlite"
        size = sum(p.stat().st_size for p in db.parent.glob("pallium.sqlite*"))
        print(f"  {'database size':<46} {size / 1e6:8.1f} MB   ({size / corpus:.2f}x the corpus)")
    return 0


def generate(homes: dict[str, Path], sessions: int, per_session: int, rnd: random.Random) -> int:
    """Write `sessions` transcripts (60% Claude Code, 40% Codex) of about `per_session` bytes each."""
    total = 0
    start = datetime(2026, 10, 1, tzinfo=UTC)
    for i in range(sessions):
        when = start + timedelta(minutes=37 * i)
        cwd = f"/home/dev/project{i % 12}"
        if i % 5 < 3:
            sid = str(uuid.UUID(int=rnd.getrandbits(128)))
            folder = homes["claude"] / "projects" / cwd.replace("/", "-")
            folder.mkdir(parents=True, exist_ok=True)
            lines = _claude_session(sid, cwd, when, per_session, rnd)
            path = folder / f"{sid}.jsonl"
        else:
            sid = str(uuid.UUID(int=rnd.getrandbits(128)))
            folder = homes["codex"] / "sessions" / when.strftime("%Y/%m/%d")
            folder.mkdir(parents=True, exist_ok=True)
            lines = _codex_session(sid, cwd, when, per_session, rnd)
            path = folder / f"rollout-{when.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl"
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        path.write_bytes(data)
        total += len(data)
    return total


def _vocabulary() -> tuple[list[str], list[float]]:
    """Words with Zipf-like frequencies, so a query word matches a realistic share of messages.

    Common English words come first (in nearly every message), then frequent made-up words,
    then the domain words the queries use (in about one message in ten), then thousands of
    made-up identifiers (each in few).
    """
    syllables = [
        "ka",
        "lo",
        "mi",
        "ne",
        "ro",
        "tu",
        "sa",
        "pe",
        "di",
        "fa",
        "go",
        "hu",
        "ji",
        "be",
        "zo",
        "ra",
        "ve",
        "ti",
        "mu",
        "xo",
        "ly",
        "qe",
        "wa",
        "ce",
    ]
    made_up = [a + b + c for a in syllables for b in syllables for c in ("", "n", "r", "s", "x")][:6000]
    common = [
        "the",
        "a",
        "to",
        "of",
        "and",
        "is",
        "in",
        "for",
        "it",
        "on",
        "with",
        "that",
        "this",
        "be",
        "not",
        "run",
        "at",
        "as",
        "by",
        "file",
        "test",
    ]
    words = common + made_up[:300] + list(_WORDS) + made_up[300:]
    weights = [1.0 / (rank + 8) for rank in range(len(words))]
    total, cumulative = 0.0, []
    for w in weights:
        total += w
        cumulative.append(total)
    return words, cumulative


_VOCABULARY, _CUMULATIVE = _vocabulary()


def _text(rnd: random.Random, words: int) -> str:
    return " ".join(rnd.choices(_VOCABULARY, cum_weights=_CUMULATIVE, k=words))


def _claude_user(sid: str, text: str, when: datetime | None = None) -> dict:
    return {
        "type": "user",
        "uuid": str(uuid.uuid4()),
        "parentUuid": None,
        "timestamp": (when or datetime(2026, 11, 29, tzinfo=UTC)).isoformat().replace("+00:00", "Z"),
        "sessionId": sid,
        "cwd": "/home/dev/project0",
        "message": {"role": "user", "content": text},
    }


def _claude_session(sid: str, cwd: str, when: datetime, size: int, rnd: random.Random) -> list[dict]:
    """Records shaped like Claude Code 2.1's: full envelopes, one block per record, structured tool results."""
    prompt_id = str(uuid.UUID(int=rnd.getrandbits(128)))
    env = {
        "isSidechain": False,
        "userType": "external",
        "entrypoint": "cli",
        "cwd": cwd,
        "sessionId": sid,
        "version": "2.1.286",
        "gitBranch": "feature/benchmark",
    }
    first = {
        **_claude_user(sid, _text(rnd, 30), when),
        **env,
        "promptId": prompt_id,
        "permissionMode": "default",
        "origin": {"kind": "human"},
        "promptSource": "typed",
    }
    out: list[dict] = [
        {
            "type": "file-history-snapshot",
            "messageId": first["uuid"],
            "isSnapshotUpdate": False,
            "snapshot": {"messageId": first["uuid"], "trackedFileBackups": {}, "timestamp": first["timestamp"]},
        },
        first,
    ]
    parent, written, n = first["uuid"], 0, 0
    ts = first["timestamp"]
    while written < size:
        n += 1
        ts = (when + timedelta(seconds=n * 7)).isoformat().replace("+00:00", "Z")
        call = f"toolu_01{uuid.UUID(int=rnd.getrandbits(128)).hex[:22]}"
        usage = {
            "input_tokens": 4,
            "cache_creation_input_tokens": 300 + n,
            "cache_read_input_tokens": 20000 + 90 * n,
            "cache_creation": {"ephemeral_5m_input_tokens": 300 + n, "ephemeral_1h_input_tokens": 0},
            "output_tokens": 120,
            "service_tier": "standard",
        }
        base = {
            "model": "claude-sonnet-5",
            "id": f"msg_01{uuid.UUID(int=rnd.getrandbits(128)).hex[:22]}",
            "type": "message",
            "role": "assistant",
            "stop_sequence": None,
            "usage": usage,
        }
        request = f"req_011C{uuid.UUID(int=rnd.getrandbits(128)).hex[:20]}"
        blocks = [
            ({"type": "thinking", "thinking": "", "signature": _signature(rnd)}, None),
            ({"type": "text", "text": _text(rnd, 40)}, None),
        ]
        reading = n % 3 == 0
        if reading:
            tool = {"type": "tool_use", "id": call, "name": "Read", "input": {"file_path": f"{cwd}/src/m{n}.py"}}
        else:
            tool = {
                "type": "tool_use",
                "id": call,
                "name": "Bash",
                "input": {"command": f"pytest -q {_text(rnd, 3)}", "description": _text(rnd, 5)},
            }
        blocks.append((tool, "tool_use"))
        for block, stop in blocks:
            record = {
                "parentUuid": parent,
                **env,
                "type": "assistant",
                "uuid": str(uuid.uuid4()),
                "timestamp": ts,
                "requestId": request,
                "message": {**base, "content": [block], "stop_reason": stop},
            }
            parent = record["uuid"]
            out.append(record)
        output = _text(rnd, rnd.randint(100, 600))
        if reading:
            shown = "\n".join(f"{i:>6}\u2192{line}" for i, line in enumerate(output.split(" . "), 1))
            structured = {
                "type": "text",
                "file": {
                    "filePath": f"{cwd}/src/m{n}.py",
                    "content": output,
                    "numLines": 40,
                    "startLine": 1,
                    "totalLines": 40,
                },
            }
        else:
            shown = output
            structured = {
                "stdout": output,
                "stderr": "",
                "interrupted": False,
                "isImage": False,
                "noOutputExpected": False,
            }
        result = {
            "parentUuid": parent,
            **env,
            "promptId": prompt_id,
            "type": "user",
            "uuid": str(uuid.uuid4()),
            "timestamp": ts,
            "toolUseResult": structured,
            "sourceToolAssistantUUID": parent,
            "message": {
                "role": "user",
                "content": [{"tool_use_id": call, "type": "tool_result", "content": shown, "is_error": n % 9 == 0}],
            },
        }
        parent = result["uuid"]
        out.append(result)
        written += sum(len(json.dumps(r)) for r in out[-4:])
    out.append(
        {
            "parentUuid": parent,
            **env,
            "type": "assistant",
            "uuid": str(uuid.uuid4()),
            "timestamp": ts,
            "requestId": "req_end",
            "message": {
                "id": f"msg_end{sid[:6]}",
                "role": "assistant",
                "model": "claude-sonnet-5",
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": _text(rnd, 50)}],
            },
        }
    )
    out.append(
        {
            "parentUuid": out[-1]["uuid"],
            **env,
            "type": "system",
            "subtype": "turn_duration",
            "durationMs": 7000 * n,
            "messageCount": len(out),
            "timestamp": ts,
            "uuid": str(uuid.uuid4()),
        }
    )
    out.append({"type": "ai-title", "aiTitle": _text(rnd, 6), "sessionId": sid})
    return out


def _codex_session(sid: str, cwd: str, when: datetime, size: int, rnd: random.Random) -> list[dict]:
    """Lines shaped like a Codex 0.16x legacy rollout: envelopes, turn contexts, twins and running totals."""

    def line(kind: str, payload: dict, n: int = 0) -> dict:
        ts = (when + timedelta(seconds=n * 5)).isoformat().replace("+00:00", "Z")
        return {"timestamp": ts, "type": kind, "payload": payload}

    turn = str(uuid.UUID(int=rnd.getrandbits(128)))
    context = {
        "turn_id": turn,
        "cwd": cwd,
        "current_date": when.date().isoformat(),
        "timezone": "Europe/Berlin",
        "approval_policy": "on-request",
        "sandbox_policy": {
            "type": "workspace-write",
            "writable_roots": [cwd],
            "network_access": False,
            "exclude_tmpdir_env_var": False,
            "exclude_slash_tmp": False,
        },
        "model": "gpt-5.5-codex",
        "personality": "pragmatic",
        "collaboration_mode": {
            "mode": "default",
            "settings": {"model": "gpt-5.5-codex", "reasoning_effort": "medium", "developer_instructions": None},
        },
        "effort": "medium",
        "summary": "auto",
        "truncation_policy": {"mode": "tokens", "limit": 10000},
    }
    limits = {
        "limit_id": "codex",
        "limit_name": None,
        "primary": {"used_percent": 4.0, "window_minutes": 300, "resets_at": 1795283400},
        "secondary": {"used_percent": 36.0, "window_minutes": 10080, "resets_at": 1795600000},
        "credits": {"has_credits": False, "unlimited": False, "balance": None},
        "plan_type": "plus",
    }
    prompt = _text(rnd, 30)
    out = [
        line(
            "session_meta",
            {
                "id": sid,
                "session_id": sid,
                "timestamp": when.isoformat(),
                "cwd": cwd,
                "originator": "codex-tui",
                "cli_version": "0.162.0",
                "source": "cli",
                "model_provider": "openai",
                "base_instructions": {"text": _text(rnd, 300)},
                "git": {"commit_hash": uuid.UUID(int=rnd.getrandbits(128)).hex, "branch": "main"},
            },
        ),
        line(
            "response_item",
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "<permissions instructions>" + _text(rnd, 40)}],
            },
        ),
        line("event_msg", {"type": "task_started", "turn_id": turn, "model_context_window": 272000}),
        line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}),
        line("event_msg", {"type": "user_message", "message": prompt, "images": [], "local_images": []}),
        line("turn_context", context),
    ]
    written, n = 0, 0
    while written < size:
        n += 1
        call = f"call_{uuid.UUID(int=rnd.getrandbits(128)).hex[:24]}"
        output = _text(rnd, rnd.randint(100, 600))
        thought = _text(rnd, 20)
        said = _text(rnd, 25)
        usage = {
            "input_tokens": 15000 * n,
            "cached_input_tokens": 12000 * n,
            "output_tokens": 200 * n,
            "reasoning_output_tokens": 90 * n,
            "total_tokens": 15200 * n,
        }
        out += [
            line("event_msg", {"type": "agent_reasoning", "text": thought}, n),
            line(
                "response_item",
                {
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": thought}],
                    "content": None,
                    "encrypted_content": _signature(rnd) * 3,
                },
                n,
            ),
            line("event_msg", {"type": "agent_message", "message": said, "phase": "commentary"}, n),
            line(
                "response_item",
                {
                    "type": "message",
                    "role": "assistant",
                    "phase": "commentary",
                    "content": [{"type": "output_text", "text": said}],
                },
                n,
            ),
            line(
                "response_item",
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "call_id": call,
                    "arguments": json.dumps(
                        {
                            "cmd": f"pytest -q {_text(rnd, 3)}",
                            "workdir": cwd,
                            "yield_time_ms": 10000,
                            "max_output_tokens": 6000,
                        }
                    ),
                },
                n,
            ),
            line(
                "event_msg",
                {
                    "type": "token_count",
                    "info": {"total_token_usage": usage, "last_token_usage": usage, "model_context_window": 272000},
                    "rate_limits": limits,
                },
                n,
            ),
            line(
                "response_item",
                {
                    "type": "function_call_output",
                    "call_id": call,
                    "output": f"Chunk ID: {n:06x}\nWall time: 1.2 seconds\nProcess exited with code "
                    f"{int(n % 7 == 0)}\nOriginal token count: 80\nOutput:\n{output}",
                },
                n,
            ),
            line("turn_context", context, n),
        ]
        written += sum(len(json.dumps(r)) for r in out[-8:])
    out.append(line("event_msg", {"type": "task_complete", "turn_id": turn, "last_agent_message": "done"}, n + 1))
    return out


def _signature(rnd: random.Random) -> str:
    return base64.b64encode(rnd.randbytes(180)).decode()


def _cat(root: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        f"find {root / 'claude'} {root / 'codex'} -name '*.jsonl' -exec cat {{}} + > /dev/null", shell=True, check=True
    )
    return time.perf_counter() - started


def _time_redaction(homes: dict[str, Path], budget: int = 40_000_000) -> tuple[float, float, float]:
    """Seconds `redact` spends on every string of the first `budget` bytes of records, in MB of string text,
    beside a lowercase copy of the same strings (a pass that touches every byte once)."""
    from kernel.secrets import redact

    strings: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    read = 0
    for path in sorted(homes["claude"].rglob("*.jsonl"))[:40] + sorted(homes["codex"].rglob("*.jsonl"))[:40]:
        for line in path.read_text(encoding="utf-8").splitlines():
            walk(json.loads(line))
        read += path.stat().st_size
        if read >= budget:
            break
    size = sum(len(s) for s in strings) / 1e6
    started = time.perf_counter()
    for s in strings:
        s.lower()
    scan_s = time.perf_counter() - started
    started = time.perf_counter()
    for s in strings:
        redact(s)
    return size, time.perf_counter() - started, scan_s


def _stat_all(homes: dict[str, Path]) -> float:
    files = [p for home in homes.values() for p in home.rglob("*.jsonl")]
    started = time.perf_counter()
    for path in files:
        path.stat()
    return time.perf_counter() - started


def _timed_sync(homes: dict[str, Path]):
    started = time.perf_counter()
    out = _call("sessions sync", {"claude_home": str(homes["claude"]), "codex_home": str(homes["codex"])})
    return time.perf_counter() - started, out


def _time_tool(name: str, runs: int, **filters: str) -> list[float]:
    samples = []
    for i in range(runs):
        query = _QUERIES[i % len(_QUERIES)]
        started = time.perf_counter()
        _call(f"sessions {name}", {"query": query, **filters})
        samples.append(time.perf_counter() - started)
    return samples


def _call(tool: str, arguments: dict):
    from kernel import dispatch
    from kernel.context import ToolContext

    ctx = ToolContext(ceiling="observe")
    try:
        return asyncio.run(dispatch.call(tool, arguments, ctx))
    finally:
        ctx.close()


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
