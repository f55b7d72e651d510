"""Looking into workflow runs after the fact (report, inspect, show, read), cleaning up after them (gc),
and the host API a script can call (tools list)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kernel import fitting
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.runstore import CallRow, RunStore
from kernel.tool import CONTEXT_BUDGET, Route, Tool
from services.workflows import decisions, render, report, runner
from services.workflows.inspect_models import (
    AgentLine,
    CostLine,
    EventLine,
    InspectInput,
    InspectOutput,
    KernelRunRecord,
    ReadInput,
    ReadOutput,
    ReportInput,
    ReportOutput,
    ShowInput,
    ShowOutput,
    WorktreeLine,
)

__all__ = ["TOOLS"]

# The run's result fields `workflow report` reads, first present wins (documented in docs/workflows.md).
FINDING_FIELDS = ("findings", "confirmed")
RISK_FIELDS = ("risks",)
NEXT_STEP_FIELDS = ("next_steps", "nextSteps")
FAILING_FIELDS = ("failing",)
REPORT_CAP = 12_000  # bytes of JSON, unless full
ARGS_CAP = 4_000
OUTPUT_CAP = 8_000
EXCERPT_CAP = 160  # characters of each agent's excerpt in the report, unless full
_TREES_CAP = 50
_ITEM_CAP = 600  # characters of one finding, risk or step, unless full


# ---------------------------------------------------------------- report


async def report_run(inp: ReportInput, ctx: ToolContext) -> ReportOutput:
    from services.workflows.tools import shared_url

    store = runner.open_store(ctx)
    url = shared_url(inp.database, store, inp.run_id)
    if url is not None:  # a run published to a shared database, told from its record there
        import asyncio

        from services.workflows import shared

        def read() -> ReportOutput:
            with shared.reader(url, inp.run_id) as (copy, row, _note):
                return _report(inp, copy, row)

        return await asyncio.to_thread(read)
    return _report(inp, store, runner.resolve_run(store, inp.run_id))


def _report(inp: ReportInput, store: Any, row: Any) -> ReportOutput:
    described = report.describe(store, row)
    result = row.result
    fields = result if isinstance(result, dict) else {}
    agents = [
        AgentLine(
            label=str(e.detail.get("label") or ""),
            phase=e.phase,
            mode=e.detail.get("mode"),
            ok=bool(e.detail.get("ok")),
            cached=bool(e.detail.get("cached")),
            cost_usd=e.detail.get("cost_usd"),
            error_class=(e.detail.get("error") or {}).get("error_class"),
            patch_state=e.detail.get("patch_state"),
            excerpt=_short(e.detail.get("excerpt"), None if inp.full else EXCERPT_CAP),
            call_key=e.detail.get("call_key"),
        )
        for e in store.events(row.id, kind="agent", attempt=row.attempts)
    ]
    out = ReportOutput(
        verdict=described.verdict,
        ok=described.ok,
        outcome=report.script_outcome(result)[1],
        id=row.id,
        task=row.task,
        status=described.status,
        error=row.error,
        summary=result if isinstance(result, str) else fields.get("summary"),
        findings=_first_list(fields, FINDING_FIELDS),
        risks=_first_list(fields, RISK_FIELDS),
        next_steps=_first_list(fields, NEXT_STEP_FIELDS),
        failing=_first_list(fields, FAILING_FIELDS),
        patches=described.patches,
        agents=agents,
        agents_total=len(agents),
        cost=_cost_line(described.cost),
        failures=described.failures,
        decisions=decisions.entries_of_run(store, row.id, full=inp.full),
        truncated=False,
    )
    return out if inp.full else _within_cap(out)


def _short(text: str | None, cap: int | None) -> str | None:
    if text is None or cap is None or len(text) <= cap:
        return text
    return text[: cap - 1] + "…"


def _first_list(fields: dict[str, Any], names: tuple[str, ...]) -> list[Any]:
    for name in names:
        value = fields.get(name)
        if value is not None:
            return value if isinstance(value, list) else [value]
    return []


def _cost_line(cost: dict[str, Any]) -> CostLine:
    spent, unknown, limit = float(cost["spent_usd"] or 0), int(cost["unknown_cost_calls"] or 0), cost["limit_usd"]
    if unknown and not spent:
        text = f"unknown: {unknown} call(s) reported no cost"
    elif unknown:
        text = f"at least ${spent:.4f} (${spent:.4f} known + {unknown} call(s) of unknown cost)"
    else:
        text = f"${spent:.4f}"
    if limit:
        text += f" of ${limit:.2f}"
    return CostLine(spent_usd=spent, unknown_cost_calls=unknown, limit_usd=limit, text=text)


def _within_cap(out: ReportOutput) -> ReportOutput:
    """Cut long items, then halve the longest lists, until the answer's JSON fits in REPORT_CAP bytes."""

    def size(o: ReportOutput) -> int:
        return len(o.model_dump_json().encode())

    if size(out) <= REPORT_CAP:
        return out
    cut = out.model_copy(
        update={
            "truncated": True,
            "summary": _cut_item(out.summary),
            "findings": [_cut_item(i) for i in out.findings],
            "risks": [_cut_item(i) for i in out.risks],
            "next_steps": [_cut_item(i) for i in out.next_steps],
            "failing": [_cut_item(i) for i in out.failing],
            "outcome": _cut_item(out.outcome) if out.outcome else None,
            "error": _cut_item(out.error) if out.error else None,
        }
    )
    lists = ("agents", "failures", "patches", "findings", "risks", "next_steps", "failing")
    while size(cut) > REPORT_CAP:
        longest = max(lists, key=lambda name: len(getattr(cut, name)))
        items = getattr(cut, longest)
        if len(items) <= 1:
            break
        cut = cut.model_copy(update={longest: items[: len(items) // 2]})
    return cut


def _cut_item(item: Any) -> Any:
    text = item if isinstance(item, str) else json.dumps(item, ensure_ascii=False, default=str)
    if len(text) <= _ITEM_CAP:
        return item
    return text[:_ITEM_CAP] + f"… [cut {len(text) - _ITEM_CAP} chars; --full for all]"


# ---------------------------------------------------------------- inspect


async def inspect_run(inp: InspectInput, ctx: ToolContext) -> InspectOutput:
    from kernel import leases
    from kernel.worktrees.tree import run_dir

    store = runner.open_store(ctx)
    row = runner.resolve_run(store, inp.run_id)
    kernel = RunStore(store.db)
    kernel_row = kernel.run(row.id)
    record = None
    if kernel_row is not None:
        alive = (
            kernel_row.status == "running" and kernel_row.owner_pid is not None and leases.is_owner_alive(kernel_row)
        )
        record = KernelRunRecord(
            status=kernel_row.status,
            lease_epoch=kernel_row.lease_epoch,
            owner_pid=kernel_row.owner_pid,
            owner_host=kernel_row.owner_host,
            owner_alive=alive,
            heartbeat_at=_iso(kernel_row.heartbeat_at),
            lease_expires_at=_iso(kernel_row.lease_expires_at),
            base_commit=kernel_row.base_commit,
            base_tree=kernel_row.base_tree,
            agents_started=kernel_row.agents_started,
            spent_usd=kernel_row.spent_usd,
            unknown_cost_calls=kernel_row.unknown_cost_calls,
            budget_usd=kernel_row.budget_usd,
            calls=dict(Counter(c.status for c in kernel.calls(row.id))),
        )
    args: Any = row.args
    text = json.dumps(args, ensure_ascii=False)
    if not inp.full and len(text) > ARGS_CAP:
        args = text[:ARGS_CAP] + f"… [cut {len(text) - ARGS_CAP} chars; --full for all]"
    folder = run_dir(row.id)
    trees = kernel.worktrees(run_id=row.id)
    return InspectOutput(
        id=row.id,
        task=row.task,
        status=row.status,
        repo=row.repo,
        error=row.error,
        script_path=row.script_path,
        script_hash=row.script_hash,
        script_bytes=len(row.script.encode()),
        script_changed=row.script_changed,
        args=args,
        limits=row.limits,
        attempts=row.attempts,
        created_at=row.created_at,
        updated_at=row.updated_at,
        run_dir=str(folder),
        run_dir_exists=folder.is_dir(),
        kernel=record,
        worktrees=[
            WorktreeLine(
                path=w.path, purpose=w.purpose, state=w.state, call_key=w.call_key, exists=Path(w.path).exists()
            )
            for w in (trees if inp.full else trees[:_TREES_CAP])
        ],
        worktrees_total=len(trees),
    )


def _iso(stamp: float | None) -> str | None:
    return None if stamp is None else iso_utc(datetime.fromtimestamp(stamp, UTC))


# ---------------------------------------------------------------- show


async def show_run(inp: ShowInput, ctx: ToolContext) -> ShowOutput:
    store = runner.open_store(ctx)
    row = runner.resolve_run(store, inp.run_id)
    start = _offset(inp.cursor)
    events = [(i, e) for i, e in enumerate(store.events(row.id)) if inp.kind is None or e.kind == inp.kind]
    page = events[start : start + inp.limit]
    more = start + inp.limit < len(events)
    return ShowOutput(
        run_id=row.id,
        events=[_event_line(i, e) for i, e in page],
        total=len(events),
        truncated=more,
        next_cursor=str(start + inp.limit) if more else None,
    )


def _trim_show(out: ShowOutput, inp: ShowInput, budget: int) -> ShowOutput:
    """Over budget, the page ends early and its cursor continues at the first event left out."""
    out, dropped = fitting.drop_tail(out, budget, "events")
    if dropped:
        out = out.model_copy(update={"truncated": True, "next_cursor": str(_offset(inp.cursor) + len(out.events))})
    return out


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit():
        raise PalliumError(
            "invalid_input",
            f"cursor {cursor!r} is not one this tool gave",
            details={"field": "cursor"},
            hint="pass back the `next_cursor` of the previous answer as `cursor` (CLI `--cursor`), or leave it out",
        )
    return int(cursor)


def _event_line(index: int, event: Any) -> EventLine:
    d = event.detail
    ok = d.get("ok") if event.kind in ("agent", "check") else None
    if event.kind == "agent":
        error = d.get("error") or {}
        text = f"{d.get('mode') or ''} {d.get('provider') or ''}".strip()
        text += f" failed ({error.get('error_class')}): {error.get('message', '')}" if error else ""
        text += " (replayed)" if d.get("cached") else ""
    elif event.kind == "failure":
        text = f"{d.get('primitive')}[{d.get('index')}]: {d.get('error')}"
    elif event.kind == "check":
        text = f"{d.get('command')}: {d.get('summary')}"
    elif event.kind == "workflow":
        text = f"workflow {d.get('name')}"
    else:
        text = str(d.get("message", json.dumps(d, default=str)))
    return EventLine(
        index=index,
        attempt=event.attempt,
        at=event.at,
        phase=event.phase,
        kind=event.kind,
        label=d.get("label") or None,
        ok=ok,
        text=" ".join(text.split())[:300],
    )


# ---------------------------------------------------------------- read


async def read_call(inp: ReadInput, ctx: ToolContext) -> ReadOutput:
    if inp.call is not None and inp.label is not None:
        raise PalliumError(
            "invalid_input",
            "give one of `call` (a journal key) or `label`, not both",
            details={"field": "call"},
            hint="pass either `call` (CLI `--call`) or `label` (CLI `--label`), not both",
        )
    store = runner.open_store(ctx)
    row = runner.resolve_run(store, inp.run_id)
    if inp.call is None and inp.label is None:
        return _read_run(store, row, full=inp.full)
    call = _find_call(RunStore(store.db).calls(row.id), inp)
    record = call.result or {}
    result = record.get("result") or {}
    output = result.get("output")
    if output is None and result:
        output = result.get("text")
    output, truncated = _capped(output, full=inp.full)
    request = call.request
    return ReadOutput(
        run_id=row.id,
        call_key=call.call_key,
        label=request.get("label") or None,
        op=call.op,
        status=call.status,
        mode=request.get("mode"),
        provider=result.get("provider") or request.get("provider"),
        model=request.get("model"),
        attempts=call.attempts,
        prompt=str(request.get("prompt", "")),
        output=output,
        output_truncated=truncated,
        error=result.get("failure"),
        cost_usd=call.cost_usd,
        patch_state=record.get("patch_state"),
        patch_files=list(record.get("patch_files") or []),
    )


def _read_run(store: Any, row: Any, *, full: bool) -> ReadOutput:
    """`workflow read <run-id>` alone, as in the original: the run's result, error and failures."""
    result, truncated = _capped(row.result, full=full)
    return ReadOutput(
        run_id=row.id,
        call_key=None,
        label=None,
        op=None,
        status=row.status,
        mode=None,
        provider=None,
        model=None,
        attempts=row.attempts,
        prompt=None,
        output=None,
        output_truncated=truncated,
        error=None,
        cost_usd=None,
        patch_state=None,
        patch_files=[],
        result=result,
        run_error=row.error,
        failures=report.describe(store, row).failures,
    )


def _capped(value: Any, *, full: bool) -> tuple[Any, bool]:
    if full or value is None:
        return value, False
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)
    if len(text) <= OUTPUT_CAP:
        return value, False
    return text[:OUTPUT_CAP] + f"\n… [cut {len(text) - OUTPUT_CAP} chars; --full for all]", True


def _find_call(calls: list[CallRow], inp: ReadInput) -> CallRow:
    if inp.call is not None:
        exact = [c for c in calls if c.call_key == inp.call]
        found = exact or [c for c in calls if c.call_key.startswith(inp.call)]
        what, field = f"call {inp.call!r}", "call"
    else:
        found = [c for c in calls if c.request.get("label") == inp.label]
        what, field = f"label {inp.label!r}", "label"
    if len(found) == 1:
        return found[0]
    labels = sorted({str(c.request.get("label")) for c in calls if c.request.get("label")})
    if not found:
        raise PalliumError(
            "not_found",
            f"the run has no agent call with {what}",
            hint=f"labels in this run: {', '.join(labels[:20])}" if labels else "this run recorded no agent calls",
            details={"field": field},
        )
    raise PalliumError(
        "invalid_input",
        f"{len(found)} calls match {what}; give one of their keys with `call`",
        details={"field": field, "matches": [c.call_key for c in found[:20]]},
        hint="pass one of the matching keys as `call` (CLI `--call`)",
    )


TOOLS = (
    Tool(
        cli="workflow report",
        handler=report_run,
        input=ReportInput,
        output=ReportOutput,
        summary="A workflow run's report: verdict, findings, risks, next steps, patches, agents, cost, failures.",
        description=(
            "Use when a run has ended, or to see where it stands, for its outcome in one answer. Not "
            "for the run's machinery (pallium_workflow_inspect) or one agent's words (pallium_workflow_read). "
            "Reads Pallium's state only; within 12 KB unless full."
        ),
        authority="observe",
        toolset="start",
        route=Route(
            phrasings=(
                "report of the run",
                "what did the run find",
                "show the findings and verdict of the last run",
                "summarize the workflow results",
                "the run's next steps and risks",
            ),
            arguments={"run_id": "run_id"},
            needs=("run",),
            signals=("runs_finished",),
        ),
        positional=("run_id",),
        render=render.report,
        exit_code=lambda out: 0 if out.ok else 1,
        budget=CONTEXT_BUDGET,
        unbounded_by="full",
    ),
    Tool(
        cli="workflow inspect",
        handler=inspect_run,
        input=InspectInput,
        output=InspectOutput,
        summary="A workflow run's record for debugging: script, args, limits, attempts, lease, base commit, worktrees.",
        description=(
            "Use when a run behaves oddly (will not resume, seems stuck, edits look stale). Not for the outcome "
            "(pallium_workflow_report). Reads Pallium's state and checks whether the lease owner lives; no writes."
        ),
        authority="observe",
        toolset="workflows",
        route=Route(
            phrasings=(
                "inspect the run for debugging",
                "show the run's record, lease and attempts",
                "debug why the run failed",
                "which base commit and worktrees did the run use",
                "why will the run not resume, check its lease",
            ),
            arguments={"run_id": "run_id"},
            needs=("run",),
        ),
        positional=("run_id",),
        render=render.inspect,
        budget=CONTEXT_BUDGET,
        unbounded_by="full",
    ),
    Tool(
        cli="workflow show",
        handler=show_run,
        input=ShowInput,
        output=ShowOutput,
        summary="A workflow run's events in order: phase, kind, label and whether each succeeded.",
        description=(
            "Use to follow what a run did step by step, every attempt included. Not for one agent's prompt and "
            "output (pallium_workflow_read). Reads state only; pages with limit and cursor."
        ),
        authority="observe",
        toolset="workflows",
        route=Route(
            phrasings=(
                "events of the run in order",
                "show the timeline of the run",
                "which phases of the run succeeded",
                "list what happened during the run",
            ),
            arguments={"run_id": "run_id"},
            needs=("run",),
        ),
        positional=("run_id",),
        render=render.show,
        budget=CONTEXT_BUDGET,
        trim=_trim_show,
    ),
    Tool(
        cli="workflow read",
        handler=read_call,
        input=ReadInput,
        output=ReadOutput,
        summary="One agent call of a workflow run (full prompt and output), or the run's result and failures.",
        description=(
            "Use to see exactly what an agent was asked and answered (find labels with pallium_workflow_show); "
            "with neither call nor label, the run's own result, error and failures. Not for the run's full "
            "outcome (pallium_workflow_report). Reads the journal only; output is cut at 8000 characters unless full."
        ),
        authority="observe",
        toolset="workflows",
        route=Route(
            phrasings=(
                "read agent call 3 of the run",
                "show the full prompt and output of an agent in the run",
                "what did the reviewer agent answer in the run",
                "read the run's result and failures",
            ),
            arguments={"run_id": "run_id"},
            needs=("run",),
        ),
        positional=("run_id",),
        render=render.read,
        budget=CONTEXT_BUDGET,
        unbounded_by="full",
    ),
)
