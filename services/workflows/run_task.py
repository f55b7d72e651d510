"""`pallium.task.start|show|clear` for scripts written for the original Pallium: the run's declared
task, kept as events of the run.

The original kept one active task per repository branch in its repo database, read by its drift
review; here the task belongs to the run that declared it, so a script can set it and read it back
(`pallium.review()` is answered by `pallium_handoff` and does not read it).
"""

from __future__ import annotations

from typing import Any

from kernel.errors import PalliumError
from services.workflows.store import WorkflowStore

__all__ = ["HELPERS", "answer"]

HELPERS = frozenset({"task.start", "task.show", "task.clear"})


def answer(store: WorkflowStore, run_id: str, helper: str, given: list[Any]) -> tuple[Any, dict[str, Any] | None]:
    """The helper's answer, and the event to record (None for a read)."""
    if helper == "task.show":
        return current(store, run_id), None
    if helper == "task.clear":
        return {"cleared": current(store, run_id) is not None}, {"cleared": True, "message": "task cleared"}
    goal = str(given[0]).strip() if given and given[0] is not None else ""
    if not goal:
        raise PalliumError(
            "invalid_input",
            "pallium.task.start(goal, ...scopes) needs a goal",
            hint='call pallium.task.start("the goal", ...scopes) with a non-empty goal',
        )
    task = {"goal": goal, "scope_paths": [str(s) for s in given[1:] if s is not None], "run_id": run_id}
    return task, {**task, "message": f"task: {goal}"}


def current(store: WorkflowStore, run_id: str) -> dict[str, Any] | None:
    events = store.events(run_id, kind="task")
    if not events or events[-1].detail.get("cleared"):
        return None
    detail = events[-1].detail
    return {"goal": detail["goal"], "scope_paths": detail["scope_paths"], "run_id": run_id, "started_at": events[-1].at}
