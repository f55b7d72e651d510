"""What a cycle's child run amounts to: its state, signature and reason; budgets; how a loop reads in words.

Pure functions over plain values: the tick (ticking.py) gathers the facts, this module judges them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "EXIT_CODES",
    "SCRIPT_STATES",
    "Reading",
    "budget_text",
    "budget_verdict",
    "exit_code",
    "read_result",
]

EXIT_CODES = {
    "success": 0,
    "error": 1,
    "no_op": 2,
    "blocked": 3,
    "exhausted": 4,
    "stagnated": 5,
    "already_running": 6,
}
# What a loop script may return as `state`; `already_running` is the tick's own word, never the script's.
SCRIPT_STATES = ("success", "no_op", "blocked", "exhausted", "stagnated", "error")
_SUMMARY_LIMIT = 500


@dataclass(frozen=True)
class Reading:
    """The child run read as a cycle: `failures` is set when the script asks Pallium to build the signature."""

    state: str
    signature: str | None
    summary: str | None
    reason: str | None
    failures: list[str] | None = None
    tree: str | None = None


def read_result(status: str, result: Any, error: str | None) -> Reading:
    """Read `{state, signature, summary}` (or `{state, failing, tree}`) from a finished child run.

    Anything but a completed run that returned an object with a known state is an `error` cycle,
    with the reason said: an object without `state` (or with `state: null`) included, since a
    script that forgot to say how the cycle went has not said "nothing to do". An explicitly empty
    state (`state: ""`) is `no_op`, as in the original Pallium.
    """
    if status == "refused":
        return Reading("error", None, None, f"the workflow run was refused: {error}")
    if status != "completed":
        return Reading("error", None, None, f"the workflow run {status}: {error or 'no error recorded'}")
    if not isinstance(result, dict):
        shown = repr(result)[:80]
        return Reading("error", None, None, f"the script returned {shown}, not an object {{state, signature, summary}}")
    summary = result.get("summary")
    summary = str(summary)[:_SUMMARY_LIMIT] if summary is not None else None
    if result.get("state") is None:
        keys = ", ".join(sorted(map(str, result))) or "none"
        return Reading(
            "error", None, summary, f"the script returned an object without a state (keys: {keys}), not {{state, ...}}"
        )
    state = result["state"] or "no_op"
    if not isinstance(state, str) or state not in SCRIPT_STATES:
        return Reading(
            "error", None, summary, f"the script returned unknown state {state!r} (known: {', '.join(SCRIPT_STATES)})"
        )
    signature = result.get("signature")
    failing = result.get("failing")
    if signature is not None and not isinstance(signature, str):
        return Reading("error", None, summary, f"signature must be a string, not {type(signature).__name__}")
    if failing is not None and (not isinstance(failing, list) or not all(isinstance(f, str) for f in failing)):
        return Reading("error", None, summary, "failing must be a list of strings (failing test ids or first lines)")
    tree = result.get("tree") if isinstance(result.get("tree"), str) else None
    reason = f"the script reported an error: {summary}" if state == "error" else None
    if signature is None and failing is not None:
        return Reading(state, None, summary, reason, failures=failing, tree=tree)
    return Reading(state, signature or "", summary, reason)


def budget_verdict(
    *,
    cost: float,
    lifetime_spend: float,
    cycle_budget: float | None,
    lifetime_budget: float | None,
    run_error: str | None,
) -> str | None:
    """Why this cycle exhausted a budget, or None. `lifetime_spend` is the spend before this cycle."""
    if cycle_budget is not None and cost > cycle_budget:
        return f"the cycle cost ${cost:.4f}, over the cycle budget of ${cycle_budget:.2f}"
    if lifetime_budget is not None and lifetime_spend + cost > lifetime_budget:
        return f"lifetime spend ${lifetime_spend + cost:.4f} is over the lifetime budget of ${lifetime_budget:.2f}"
    if run_error and run_error.startswith("budget_exhausted"):
        return f"the run stopped at its budget: {run_error}"
    return None


def budget_text(
    *, spend: float, unknown_calls: int, cycle_budget: float | None, lifetime_budget: float | None
) -> tuple[str, bool]:
    """Spend against the budgets in words, and whether the budgets can be enforced.

    A provider that reports no cost makes the known spend a floor: the text says so instead of
    showing $0, and a budget is then unenforceable.
    """
    limits = []
    if cycle_budget is not None:
        limits.append(f"${cycle_budget:.2f} a cycle")
    if lifetime_budget is not None:
        limits.append(f"${lifetime_budget:.2f} over its life")
    if unknown_calls and spend == 0:
        spent = f"spend unknown: {unknown_calls} agent call(s) reported no cost"
    elif unknown_calls:
        spent = f"${spend:.4f} known + {unknown_calls} agent call(s) of unknown cost"
    else:
        spent = f"${spend:.4f} spent"
    if not limits:
        return f"{spent}; no budget set", True
    if unknown_calls:
        return f"{spent}; budget ({', '.join(limits)}) NOT enforceable: a provider reports no cost", False
    return f"{spent}; budget {', '.join(limits)}", True


def exit_code(state: str) -> int:
    return EXIT_CODES.get(state, 1)
