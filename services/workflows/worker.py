"""`python -m services.workflows.worker RUN_ID --authority LEVEL`: one attempt of a run, in its own process.

Started detached by `workflow run` when the run goes to the background (always over MCP). SIGTERM
(`pallium workflow stop`) cancels the attempt, which records it as `stopped` and kills its workers.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path

from kernel import authority
from kernel.context import ToolContext
from kernel.errors import PalliumError
from services.workflows import runner


async def _main(run_id: str, ceiling: str, script: str | None) -> int:
    ctx = ToolContext(ceiling=authority.parse(ceiling), cwd=Path.cwd())
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, task.cancel)
    try:
        source = Path(script).read_text(encoding="utf-8") if script else None
        attempt = await runner.run_attempt(ctx, runner.open_store(ctx), run_id, source=source)
    except asyncio.CancelledError:
        print(f"workflow run {run_id} stopped", file=sys.stderr)
        return 1
    except PalliumError as exc:
        print(f"workflow run {run_id}: {exc.message}", file=sys.stderr)
        return 1
    finally:
        ctx.close()
    print(f"workflow run {run_id}: {attempt.run.status}", file=sys.stderr)
    return 0 if attempt.run.status == "completed" else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.workflows.worker")
    parser.add_argument("run_id")
    parser.add_argument("--authority", default="edit")
    parser.add_argument("--script", default=None, help="a new version of the script (a resume after an edit)")
    args = parser.parse_args(argv)
    return asyncio.run(_main(args.run_id, args.authority, args.script))


if __name__ == "__main__":
    sys.exit(main())
