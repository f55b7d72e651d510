"""The loop tools' short human renderings: what the CLI prints without `--json`."""

from __future__ import annotations

from services.loops.models import ChangeOutput, ListOutput, Loop, StatusOutput, TickOutput
from services.loops.progress import short

__all__ = ["change", "list_", "loop", "status", "tick"]


def loop(out: Loop) -> str:
    return (
        f"loop {out.name}: {out.status}, cycle {out.cycle}, threshold {out.stagnation_threshold}\n"
        f"  script {out.script_path}\n  works in {out.cwd}"
    )


def tick(out: TickOutput) -> str:
    head = f"{out.state}: loop {out.loop}" + (f" cycle {out.cycle}" if out.cycle is not None else " (nothing ran)")
    lines = [head]
    if out.reconciled is not None:
        lines.append(f"  closed cycle {out.reconciled.cycle}: {out.reconciled.reason}")
    if out.summary:
        lines.append(f"  {out.summary}")
    if out.reason:
        lines.append(f"  why: {out.reason}")
    if out.ran:
        lines.append(
            f"  run {out.run_id}, signature {short(out.signature)} (x{out.stagnation_count}), "
            f"cost {_cost(out.cost_usd or 0.0, out.unknown_cost_calls)}"
        )
    lines += [f"  warning: {w}" for w in out.warnings]
    return "\n".join(lines)


def status(out: StatusOutput) -> str:
    lines = [out.verdict, f"  budget: {out.budget}"]
    lines += [f"  warning: {w}" for w in out.warnings]
    for c in out.cycles:
        cost = _cost(c.cost_usd, c.unknown_cost_calls, short_form=True)
        lines.append(
            f"  #{c.cycle:<4} {c.state:<15} sig {short(c.signature):<24} {cost:<10} {c.run_id or '-'}"
            + (f"  ({c.reason})" if c.reason else "")
        )
    return "\n".join(lines)


def _cost(known: float, unknown_calls: int, *, short_form: bool = False) -> str:
    """Known spend, and unknown cost said as unknown: never $0 for calls that reported nothing."""
    if not unknown_calls:
        return f"${known:.4f}"
    if short_form:
        return "unknown" if known == 0 else f"${known:.4f}+?"
    if known == 0:
        return f"unknown ({unknown_calls} call(s) reported no cost)"
    return f"${known:.4f} + {unknown_calls} call(s) of unknown cost"


def list_(out: ListOutput) -> str:
    if not out.loops:
        return "no loops yet: start one with `pallium loop start NAME --script F`"
    lines = [
        f"{lp.name:<24} {lp.status:<8} cycle {lp.cycle:<5} last {lp.last_state or '-':<15} "
        f"x{lp.stagnation_count}/{lp.stagnation_threshold}"
        for lp in out.loops
    ]
    if out.next_cursor:
        lines.append(f"more: --cursor '{out.next_cursor}'")
    return "\n".join(lines)


def change(out: ChangeOutput) -> str:
    what = "changed" if out.changed else "unchanged"
    return f"loop {out.loop.name}: {out.loop.status}, stagnation {out.loop.stagnation_count} ({what})"
