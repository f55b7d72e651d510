"""`python -m benchmarks mcp`: what an agent pays to have Pallium's tools and to call them.

For the default toolset and for `--toolsets all` (at the default `edit` ceiling, what a client
that starts `pallium-mcp` sees): the tools listed, the bytes of the `tools/list` result as sent,
and the tokens of the part clients put before the model (each tool's name, description and
input schema). Then the bytes and tokens of a dozen typical answers on a synthetic repository.
Tokens are counted offline with the `o200k_base` encoding when `bpe-openai` is installed
(`pip install bpe-openai`), else estimated as bytes / 4; the table says which. The baseline of
each row is its goal, so the ratio column reads "times the goal" (at most 1.0 passes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

GOALS = {"model_tokens": 4000, "list_bytes": 40 * 1024}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks mcp")
    parser.add_argument("--files", type=int, default=300, help="files in the synthetic repository (default 300)")
    parser.add_argument("--commits", type=int, default=400, help="commits in its history (default 400)")
    parser.add_argument("--no-answers", action="store_true", help="measure the listing only")
    args = parser.parse_args(argv)
    count, method = tokenizer()
    print(
        f"mcp: what an agent pays (tokens: {method}; goals: default model-facing <= {GOALS['model_tokens']} "
        f"tokens, tools/list <= {GOALS['list_bytes'] // 1024} KB)"
    )
    with tempfile.TemporaryDirectory(prefix="pallium-bench-") as scratch:
        root = Path(scratch)
        os.environ["PALLIUM_HOME"] = str(root / "home")
        for toolsets in ("default", "all"):
            listing = asyncio.run(_listing(toolsets, root))
            _print_listing(toolsets, listing, count)
        if not args.no_answers:
            from benchmarks.synthetic_repo import build

            repo = build(root / "repo", files=args.files, commits=args.commits)
            asyncio.run(_answers(repo, count))
    return 0


def tokenizer() -> tuple[Callable[[str], int], str]:
    """An offline token counter and how it counts: o200k_base through bpe-openai, else bytes / 4."""
    import warnings

    try:
        with warnings.catch_warnings():  # it loads its data with a deprecated importlib.resources call
            warnings.simplefilter("ignore")
            import bpe_openai

            encoding = bpe_openai.get_encoding("o200k_base")
        return (lambda text: len(encoding.encode(text))), "o200k_base (bpe-openai, offline)"
    except Exception:  # not installed, or its data could not load: say so and estimate
        return (lambda text: -(-len(text.encode()) // 4)), "estimated as UTF-8 bytes / 4 (bpe-openai not installed)"


def model_facing(tool: dict[str, Any]) -> dict[str, Any]:
    """What clients show the model of one listed tool: its name, description and input schema."""
    return {"name": tool["name"], "description": tool.get("description"), "input_schema": tool.get("inputSchema")}


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


async def listed_tools(toolsets: str, cwd: Path) -> list[dict[str, Any]]:
    """The `tools/list` result's tools as the server sends them (aliases, no nulls), through a real client."""
    from mcp import Client

    from pallium_mcp.server import build_server

    async with Client(build_server(toolsets=toolsets, cwd=cwd)) as client:
        result = await client.list_tools()
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in result.tools]


async def _listing(toolsets: str, cwd: Path) -> list[dict[str, Any]]:
    return await listed_tools(toolsets, cwd)


def _print_listing(toolsets: str, tools: list[dict[str, Any]], count: Callable[[str], int]) -> None:
    whole = _compact({"tools": tools})
    facing = _compact([model_facing(t) for t in tools])
    tokens = count(facing)
    print(f"\n  toolsets={toolsets}: {len(tools)} tools")
    print(_line("tools/list bytes", len(whole.encode()), GOALS["list_bytes"] if toolsets == "default" else None))
    print(_line("tools/list tokens (whole result)", count(whole), None))
    print(_line("model-facing bytes (name, description, input schema)", len(facing.encode()), None))
    print(_line("model-facing tokens", tokens, GOALS["model_tokens"] if toolsets == "default" else None))
    biggest = sorted(tools, key=lambda t: -len(_compact(model_facing(t))))[:3]
    shown = ", ".join(f"{t['name']} {count(_compact(model_facing(t)))}" for t in biggest)
    print(f"    largest model-facing tools (tokens): {shown}")


def _line(label: str, value: int, goal: int | None) -> str:
    if goal is None:
        return f"    {label:<56}{value:>9,}"
    verdict = "ok" if value <= goal else "over"
    return f"    {label:<56}{value:>9,}   goal {goal:>7,}  {value / goal:5.2f}x  {verdict}"


async def _answers(repo: Path, count: Callable[[str], int]) -> None:
    from kernel.context import ToolContext
    from kernel.dispatch import call

    files = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True, check=True).stdout.split()
    path = next(f for f in files if f.endswith(".py"))
    stem = path.rsplit("/", 1)[1].split(".")[0]
    (repo / path).write_text((repo / path).read_text() + "\n# touched\n")  # a working-tree change to report
    calls: list[tuple[str, dict[str, Any]]] = [
        ("index", {}),
        ("changed-now", {}),
        ("explain", {"path": path}),
        ("symbols", {"path": path}),
        ("search", {"query": "handle service"}),
        ("callers", {"name": f"handle_{stem}"}),
        ("risk", {"path": path}),
        ("neighbors", {"path": path}),
        ("decisions", {"query": "change"}),
        ("handoff", {}),
        ("workflow preflight", {"task": f"fix the bug in handle_{stem}"}),
        ("workflow tools list", {}),
        ("sessions find", {}),
        ("version", {}),
    ]
    print(f"\n  typical answers (synthetic repository, {len(files)} files; JSON as sent)")
    for name, arguments in calls:
        ctx = ToolContext(cwd=repo, ceiling="edit")
        try:
            out = await call(name, arguments, ctx)
        finally:
            ctx.close()
        text = out.model_dump_json()
        print(f"    {name:<24}{len(text.encode()):>9,} bytes {count(text):>7,} tokens")
