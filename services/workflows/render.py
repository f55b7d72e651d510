"""The workflow tools' short human renderings: what the CLI prints without `--json`.

Each function turns one tool's output model into a few lines for a terminal; the tools name them
in their declaration (`render=render.status`), as the loop service does. No I/O, no store.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from services.workflows.decisions import DecisionsOutput
    from services.workflows.inspect_models import (
        GcOutput,
        InspectOutput,
        ReadOutput,
        ReportOutput,
        ShowOutput,
        ToolsListOutput,
    )
    from services.workflows.models import (
        ApplyOutput,
        GateListOutput,
        GenerateOutput,
        ListOutput,
        PreflightOutput,
        RunOutput,
        SaveOutput,
        StartOutput,
        TemplateListOutput,
        TemplateShowOutput,
        ValidateOutput,
    )

__all__ = [
    "apply",
    "decisions",
    "gates",
    "gc",
    "generate",
    "inspect",
    "list_",
    "preflight",
    "read",
    "report",
    "run",
    "saved",
    "show",
    "start",
    "template",
    "templates",
    "tools",
    "validate",
]


def run(out: RunOutput) -> str:
    lines = [out.verdict, f"run {out.id}: {out.task}"]
    if out.source:
        lines.append(f"  script: {out.source}" + (f" (authority {out.ceiling})" if out.ceiling else ""))
    if out.ignored:
        lines.append(f"  ignored, the repository is not trusted: {', '.join(out.ignored[:5])}")
        lines.append(f"  trust it once you have read them: {out.trust_hint}")
    lines += [f"  note: {n}" for n in out.notes]
    if out.error:
        lines.append(f"  error: {out.error}")
    spent = f"${out.cost['spent_usd']:.4f}"
    if out.cost["unknown_cost_calls"]:
        spent += f" + {out.cost['unknown_cost_calls']} call(s) of unknown cost"
    lines.append(f"  cost: {spent}" + (f" of ${out.cost['limit_usd']:.2f}" if out.cost["limit_usd"] else ""))
    for failure in out.failures[:10]:
        lines.append(f"  failed: {failure.primitive}[{failure.index}] {failure.error}")
    staged = [p for p in out.patches if p.state == "staged"]
    if staged:
        lines.append(f"  {len(staged)} patch(es) staged: apply with `pallium workflow apply {out.id}`")
    for gate in out.gates:
        if gate.state == "pending":
            lines.append(
                f"  waiting for you at gate {gate.name!r}: pallium workflow gate approve|reject {out.id} "
                f"{gate.name} --authority admin"
            )
    if out.script_changed:
        lines.append("  note: the script changed between attempts; unchanged calls were replayed")
    return "\n".join(lines)


def list_(out: ListOutput) -> str:
    if not out.runs:
        return "no workflow runs yet"
    lines = [f"{r.updated_at}  {r.status:<11} {r.id}  {r.task[:60]}" for r in out.runs]
    if out.next_cursor:
        lines.append(f"more: --cursor '{out.next_cursor}'")
    return "\n".join(lines)


def apply(out: ApplyOutput) -> str:
    return (
        f"run {out.run_id}: {len(out.applied)} patch(es) now, {len(out.already)} already, "
        f"{len(out.skipped)} skipped (blocked or conflicted)"
    )


def validate(out: ValidateOutput) -> str:
    name = (out.meta or {}).get("name") or out.script or "inline script"
    lines = [f"{'valid' if out.valid else 'INVALID'}: {name}"]
    lines += [f"  error: {e}" for e in out.errors]
    lines += [f"  warning: {w}" for w in out.warnings]
    return "\n".join(lines)


def report(out: ReportOutput) -> str:
    lines = [out.verdict, f"run {out.id}: {out.task}"]
    if out.error:
        lines.append(f"error: {out.error}")
    if out.outcome is not None:
        lines.append(f"outcome: {'ok' if out.ok else 'not ok'}: {_one_line(out.outcome)}")
    if out.summary is not None:
        lines.append(f"summary: {_one_line(out.summary)}")
    for title, items in (
        ("still failing", out.failing),
        ("findings", out.findings),
        ("risks", out.risks),
        ("next steps", out.next_steps),
    ):
        if items:
            lines.append(f"{title}:")
            lines += [f"  - {_one_line(i)}" for i in items]
    if out.decisions:
        lines.append("decisions:")
        lines += [f"  - {d.title}{' - ' + _one_line(d.body) if d.body else ''}" for d in out.decisions]
    if out.patches:
        lines.append("patches:")
        lines += [f"  {p.state:<10} {p.call_key}{' - ' + p.detail if p.detail else ''}" for p in out.patches]
    lines.append(f"agents ({out.agents_total}):")
    for a in out.agents:
        cost = "unknown" if a.cost_usd is None else f"${a.cost_usd:.4f}"
        state = "ok" if a.ok else f"FAILED ({a.error_class})"
        lines.append(
            f"  {state:<10} {a.label or '(no label)'}  phase={a.phase or '-'}  cost={cost}"
            f"{'  cached' if a.cached else ''}{'  patch=' + a.patch_state if a.patch_state else ''}"
        )
        if a.excerpt:
            lines.append(f"             {a.excerpt}")
    if len(out.agents) < out.agents_total:
        lines.append(f"  ... {out.agents_total - len(out.agents)} more (--full)")
    lines.append(f"cost: {out.cost.text}")
    if out.failures:
        lines.append("failures:")
        lines += [f"  {f.primitive}[{f.index}] phase={f.phase or '-'}: {f.error}" for f in out.failures]
    if out.truncated:
        lines.append("(cut to 12 KB; --full for everything)")
    return "\n".join(lines)


def inspect(out: InspectOutput) -> str:
    lines = [
        f"run {out.id}: {out.status}, {out.attempts} attempt(s), created {out.created_at}, updated {out.updated_at}",
        f"  task: {out.task}",
        f"  repo: {out.repo}",
        f"  script: {out.script_path or '(inline)'}  hash {out.script_hash}  {out.script_bytes} bytes"
        f"{'  (changed between attempts)' if out.script_changed else ''}",
        f"  args: {json.dumps(out.args, ensure_ascii=False)[:300]}",
        f"  limits: {json.dumps(out.limits)}",
        f"  run folder: {out.run_dir}{'' if out.run_dir_exists else ' (absent)'}",
    ]
    if out.error:
        lines.append(f"  error: {out.error}")
    k = out.kernel
    if k is None:
        lines.append("  kernel: no run record yet (never started)")
    else:
        owner = (
            f"pid {k.owner_pid} on {k.owner_host} ({'alive' if k.owner_alive else 'dead'})" if k.owner_pid else "none"
        )
        lines += [
            f"  kernel: {k.status}, lease epoch {k.lease_epoch}, owner {owner}, heartbeat {k.heartbeat_at or '-'}",
            f"  base commit: {k.base_commit or '-'}  tree {k.base_tree or '-'}",
            f"  calls: {', '.join(f'{n} {s}' for s, n in sorted(k.calls.items())) or 'none'}; "
            f"agents started {k.agents_started}",
        ]
    for w in out.worktrees:
        lines.append(f"  worktree {w.state:<9} {w.purpose:<8} {w.path}{'' if w.exists else ' (gone)'}")
    if len(out.worktrees) < out.worktrees_total:
        lines.append(f"  ... {out.worktrees_total - len(out.worktrees)} more worktree(s) (--full)")
    return "\n".join(lines)


def show(out: ShowOutput) -> str:
    lines = []
    for e in out.events:
        ok = "" if e.ok is None else ("ok " if e.ok else "FAIL ")
        lines.append(
            f"{e.index:>4} a{e.attempt} {e.phase or '-':<12} {e.kind:<8} {ok}{e.label or ''}"
            f"{'  ' + e.text if e.text else ''}"
        )
    if not lines:
        lines.append(f"run {out.run_id} has no events")
    if out.next_cursor:
        lines.append(f"more: --cursor {out.next_cursor}")
    return "\n".join(lines)


def read(out: ReadOutput) -> str:
    if out.call_key is None:
        lines = [f"run {out.run_id}: {out.status}"]
        if out.run_error:
            lines.append(f"error: {out.run_error}")
        if out.result is None:
            lines.append("no result recorded")
        elif isinstance(out.result, str):
            lines.append(out.result)
        else:
            lines.append(json.dumps(out.result, ensure_ascii=False, indent=1))
        if out.failures:
            lines.append("failures:")
            lines += [f"  {f.primitive}[{f.index}] phase={f.phase or '-'}: {f.error}" for f in out.failures]
        return "\n".join(lines)
    cost = "unknown" if out.cost_usd is None else f"${out.cost_usd:.4f}"
    lines = [
        f"call {out.call_key} ({out.label or 'no label'}): {out.status}, {out.mode or out.op}, "
        f"{out.provider or '-'}{' ' + out.model if out.model else ''}, {out.attempts} attempt(s), cost {cost}",
        "--- prompt",
        out.prompt,
        "--- output",
        out.output if isinstance(out.output, str) else json.dumps(out.output, ensure_ascii=False, indent=1),
    ]
    if out.error:
        lines.append(f"--- error: {out.error.get('error_class')}: {out.error.get('message')}")
    if out.patch_state:
        lines.append(f"--- patch: {out.patch_state} {', '.join(out.patch_files)}")
    return "\n".join(lines)


def templates(out: TemplateListOutput) -> str:
    return "\n".join(f"{e.origin:<9} {e.name:<20} {e.description or ''}" for e in out.workflows)


def generate(out: GenerateOutput) -> str:
    lines = [out.source if out.path is None else f"wrote {out.path}"]
    if out.path is not None and out.reads_args:
        lines.append("it reads args:")
        lines += [f"  {name}: {what}" for name, what in out.reads_args.items()]
        lines.append(f'run it with: pallium workflow run --script {out.path} "<task>"')
    if out.tailoring is not None:
        lines.insert(0 if out.path is None else 1, f"// tailoring: {out.tailoring.reason}")
    return "\n".join(lines)


def preflight(out: PreflightOutput) -> str:
    lines = [f"task: {out.task}", f"changed files: {out.changed_count}", f"files to inspect ({out.source}):"]
    for f in out.files:
        risk = f"{f.risk_level} ({f.risk_score:g})" if f.risk_level else f"? ({f.note})"
        lines.append(f"  {f.path}  risk {risk}" + (f"  tests: {', '.join(f.tests)}" if f.tests else ""))
    if out.truncated:
        lines.append("  ... more files matched; narrow with --scope")
    for tier in ("fast", "safe", "full"):
        for command in getattr(out.verification, tier):
            lines.append(f"verify {tier}: {command}")
    lines += [f"note: {n}" for n in out.notes]
    return "\n".join(lines)


def start(out: StartOutput) -> str:
    lines = [f"task: {out.task}", f"plan: {out.chosen} ({out.reason})", f"provider: {out.provider}"]
    if out.provider_missing:
        lines[-1] += f" — MISSING: {out.provider_missing}; a run would fail (`pallium doctor` checks providers)"
    if out.rehearsal:
        lines.append(f"note: {out.rehearsal}")
    if out.repo_commands:
        lines.append(f"note: {out.repo_commands}")
    if out.changed_files:
        lines.append(f"changed files: {len(out.changed_files)}")
    if out.tailoring is not None:
        lines.append(f"tailoring: {out.tailoring.reason}")
    if out.preflight.files:
        lines.append("files to inspect: " + ", ".join(f.path for f in out.preflight.files))
    plan = out.preflight.verification
    if plan.fast or plan.safe or plan.full:
        lines.append("verification: " + "; ".join(plan.fast[:1] + plan.safe[:1] + plan.full[:1]))
    if out.script is not None:
        lines += [f"dry run: nothing ran (a run would spend on {out.provider}). The script:", out.script]
    elif out.run is not None:
        lines.append(run(out.run))
    return "\n".join(lines)


def gc(out: GcOutput) -> str:
    verb = "removed" if out.confirmed else "would remove"
    lines = [
        f"{verb} {out.worktrees_total} worktree(s) and {out.run_dirs_total} run folder(s), "
        f"{out.bytes / 1_000_000:.1f} MB; {out.worktrees_live} worktree(s) of live runs kept"
    ]
    lines += [f"  worktree {p}" for p in out.worktrees]
    lines += [f"  run {d.run_id} ({d.status or 'no record'}, {d.updated_at}) {d.path}" for d in out.run_dirs]
    lines += [f"  kept {k}" for k in out.kept]
    if len(out.worktrees) < out.worktrees_total or len(out.run_dirs) < out.run_dirs_total:
        lines.append("  (more not listed; raise --limit)")
    if not out.confirmed:
        lines.append("rerun with --confirm --authority admin to delete")
    return "\n".join(lines)


def tools(out: ToolsListOutput) -> str:
    width = max((len(c.name) for c in out.calls), default=0)
    return "\n".join(
        f"{c.name:<{width}}  {'' if c.available else '(not available) '}{c.summary}: {c.usage}" for c in out.calls
    )


def decisions(out: DecisionsOutput) -> str:
    if not out.decisions:
        return f"no recorded decisions{' match ' + repr(out.query) if out.query else ''}"
    lines = []
    for d in out.decisions:
        tags = f"  [{', '.join(d.tags)}]" if d.tags else ""
        lines.append(f"{d.created_at}  {d.run_id}  {d.title}{tags}")
        if d.body:
            lines.append(f"    {' '.join(d.body.split())[:300]}")
    if out.truncated:
        lines.append("(more match; raise --limit)")
    return "\n".join(lines)


def gates(out: GateListOutput) -> str:
    lines = [
        f"{g.state:<8} {g.name}: {'approved' if g.approved else 'not approved'}"
        f"{' by ' + g.decided_by if g.state == 'decided' else ''}{' - ' + g.reason if g.reason else ''}"
        for g in out.gates
    ]
    return "\n".join(lines) or "no gates"


def template(out: TemplateShowOutput) -> str:
    return out.source


def saved(out: SaveOutput) -> str:
    return f"saved {out.name} to {out.path}"


def _one_line(item: Any) -> str:
    text = item if isinstance(item, str) else json.dumps(item, ensure_ascii=False, default=str)
    return " ".join(text.split())


def worker(out: Any) -> str:
    return (
        f"worker {out.worker_id} ({', '.join(out.providers)}) stopped ({out.stopped_because}): "
        f"{out.calls_run} call(s) run, {out.results_refused} result(s) refused"
    )
