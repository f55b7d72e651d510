"""Short human renderings of the repository tools' answers, for the CLI without --json."""

from __future__ import annotations

from services.repo.models import (
    CallersOutput,
    ChangedNowOutput,
    CoChange,
    DecisionsOutput,
    ExplainOutput,
    Freshness,
    HandoffOutput,
    HotspotsOutput,
    IndexOutput,
    NeighborsOutput,
    RiskOutput,
    SearchOutput,
    SymbolsOutput,
)

__all__ = [
    "callers",
    "changed_now",
    "decisions",
    "explain",
    "handoff",
    "hotspots",
    "index",
    "neighbors",
    "risk",
    "search",
    "symbols",
]


def _stale_note(fresh: Freshness) -> str:
    if fresh.status == "fresh":
        return ""
    if fresh.status == "missing":
        return "\n(no index yet: run `pallium index`)"
    return f"\n(index stale: {fresh.changed_count} file(s) changed since; run `{fresh.refresh_command}`)"


def changed_now(out: ChangedNowOutput) -> str:
    lines = [out.summary]
    for f in out.files:
        moved = f" (from {f.orig_path})" if f.orig_path else ""
        extra = f"  risk {f.risk_level}, blast radius {f.blast_radius}" if f.risk_level else ""
        lines.append(f"  {f.git_status}  {f.kind:<12} {f.path}{moved}{extra}")
    if out.truncated:
        lines.append(f"  ... {out.counts.total - len(out.files)} more (raise --limit)")
    if out.recommended_next_command:
        lines.append(f"next: {out.recommended_next_command}")
    return "\n".join(lines)


def index(out: IndexOutput) -> str:
    skipped = ", ".join(f"{n} {reason}" for reason, n in out.files_skipped.items()) or "none"
    return (
        f"indexed {out.repo} at {(out.watermark or 'no commits')[:12]} in {out.duration_seconds:.2f}s\n"
        f"  git: {out.commits_read} commits read ({out.commits_total} in all)"
        + (", history rebuilt" if out.history_rebuilt else "")
        + (", shallow clone" if out.shallow else "")
        + f"\n  files: {out.files_parsed} parsed, {out.files_reused} reused, skipped: {skipped}; {out.files_read} read"
        + "".join(f"\n  note: {note}" for note in out.notes)
    )


def symbols(out: SymbolsOutput) -> str:
    lines = [f"{out.path} ({out.language or 'unknown'}, {out.status}): {len(out.symbols)} symbols"]
    for s in out.symbols:
        doc = f"  # {s.doc[:120]}" if s.doc else ""
        marks = " ".join(s.decorators) + " " if s.decorators else ""
        kind = s.kind + (" (overload)" if s.overload else "")
        lines.append(f"  {s.start_line:>5}-{s.end_line:<5} {kind:<10} {marks}{s.signature}{doc}")
    if out.next_cursor:
        lines.append(f"  ... more: --cursor {out.next_cursor}")
    return "\n".join(lines) + _stale_note(out.freshness)


def callers(out: CallersOutput) -> str:
    by_kind = ", ".join(f"{n} {k}" for k, n in out.kinds.items())
    # The kinds count every use of the bare name, before a `--kind` filter or a qualifier narrows
    # it: say so, or `392 reference(s) (468 call)` reads as a contradiction.
    bare = out.name.rsplit(".", 1)[-1]
    alias = out.alias_of
    aliased = out.name  # `Motor`, or the `Motor` of `Motor.start`
    if alias is not None:
        if any((d.path, d.qualified) == (alias.path, alias.qualified) for d in out.definitions):
            bare = alias.qualified.rsplit(".", 1)[-1]  # the kinds count the original's name
        else:
            aliased = out.name.rsplit(".", 1)[0]
    lines = [
        f"{out.name}: {len(out.definitions)} definition(s), {out.total} reference(s)"
        + (f"; every `{bare}` in the index: {by_kind}" if by_kind else "")
    ]
    if alias is not None:
        lines.append(f"  {aliased} is another name for {alias.qualified} ({alias.kind} in {alias.path}:{alias.line})")
    lines += [f"  def {d.path}:{d.line}  {d.signature}" for d in out.definitions]
    for r in out.references:
        where = f" in {r.enclosing}" if r.enclosing else ""
        target = f" -> {r.target_qualified}" if r.target_qualified and r.target != r.path else ""
        lines.append(f"  {r.path}:{r.line}{where}  {r.kind} [{r.resolution}]{target}")
    if out.next_cursor:
        lines.append(f"  ... more: --cursor {out.next_cursor}")
    return "\n".join(lines) + _stale_note(out.freshness)


def search(out: SearchOutput) -> str:
    lines = [f"{len(out.results)} result(s) for {out.query!r}"]
    lines += [f"  {h.path}:{h.line}  {h.kind} {h.qualified}  ({h.matched})" for h in out.results]
    if out.next_cursor:
        lines.append(f"  ... more: --cursor {out.next_cursor}")
    return "\n".join(lines) + _stale_note(out.freshness)


def risk(out: RiskOutput) -> str:
    head = f"{out.path}: risk {out.level} ({out.score:g})" + (" [inferred]" if out.inferred else "")
    return "\n".join([head] + [f"  +{r.points:g} {r.factor}: {r.detail}" for r in out.reasons]) + _stale_note(
        out.freshness
    )


def _pair_line(c: CoChange) -> str:
    return f"  {c.path}  shared {c.shared}, confidence {c.confidence:.0%}, degree {c.degree:.0%} ({c.strength})"


def neighbors(out: NeighborsOutput) -> str:
    lines = [f"{out.path}: {out.revisions} revision(s)"]
    lines += [_pair_line(c) for c in out.cochange]
    lines += [f"  {s.kind}: {s.path}" for s in out.structural]
    return "\n".join(lines) + _stale_note(out.freshness)


def decisions(out: DecisionsOutput) -> str:
    lines = [f"{len(out.decisions)} note(s) for {out.query!r}"]
    if any(r.kind != "commit" for r in out.ranked):  # other kinds matched: show the one ranking, labelled
        for r in out.ranked:
            status = f", {r.status}" if r.status else ""
            lines.append(f"  [{r.kind}{status}] {r.ref[:10] if r.kind == 'commit' else r.ref} {r.when[:10]} {r.title}")
        return "\n".join(lines) + _stale_note(out.freshness)
    lines += [f"  {d.sha[:10]} {d.committed_at[:10]} {d.subject}" for d in out.decisions]
    return "\n".join(lines) + _stale_note(out.freshness)


def hotspots(out: HotspotsOutput) -> str:
    lines = [f"{out.total} file(s) changed since {out.since[:10]}; ranked by {out.metric}"]
    lines += [
        f"  {h.score:>7g}  {h.commits:>4} commits  +{h.lines_added}/-{h.lines_deleted}  fan-in {h.fan_in}  {h.path}"
        for h in out.files
    ]
    return "\n".join(lines) + _stale_note(out.freshness)


def explain(out: ExplainOutput) -> str:
    lines = [out.summary]
    h = out.history
    if h.added_in is not None:
        lines.append(f"added in {h.added_in.sha[:10]} {h.added_in.subject}")
    if h.former_names:
        lines.append("formerly: " + ", ".join(h.former_names))
    if out.symbols:
        lines.append("declares: " + ", ".join(s.qualified for s in out.symbols[:15]))
    for kind in ("imports", "imported-by", "test-pair"):
        linked = [s.path for s in out.structural if s.kind == kind]
        if linked:
            lines.append(f"{kind}: " + ", ".join(linked[:10]))
    if out.cochange:
        lines.append("changes with: " + ", ".join(f"{c.path} ({c.confidence:.0%})" for c in out.cochange[:5]))
    lines += [f"recent: {c.sha[:10]} {c.subject}" for c in out.recent_commits[:3]]
    lines += [f"risk: +{r.points:g} {r.factor}: {r.detail}" for r in out.risk.reasons]
    for tier in ("fast", "safe", "full"):
        commands = getattr(out.verification, tier)
        if commands:
            lines.append(f"verify ({tier}): " + " && ".join(commands))
    return "\n".join(lines) + _stale_note(out.freshness)


def handoff(out: HandoffOutput) -> str:
    lines = [out.summary]
    lines += [
        f"  {f.risk_level or '-':<6} {f.source:<12} {f.path}" + (f" (from {f.renamed_from})" if f.renamed_from else "")
        for f in out.files
    ]
    if out.tests_to_run:
        lines.append("tests: " + " ".join(out.tests_to_run))
    lines += [f"question: {q}" for q in out.open_questions]
    return "\n".join(lines) + _stale_note(out.freshness)
