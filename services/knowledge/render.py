"""Short human renderings of the knowledge tools' answers, for the CLI without --json."""

from __future__ import annotations

from services.knowledge.models import (
    AuditOutput,
    BuildOutput,
    ContextOutput,
    Evidence,
    GetOutput,
    KnowledgeFreshness,
    MapOutput,
    SearchOutput,
)

__all__ = ["audit_text", "build_text", "context_text", "get_text", "map_text", "search_text"]


def _fresh(f: KnowledgeFreshness) -> str:
    if f.status == "missing":
        return "freshness: no knowledge base yet (run `pallium knowledge build --no-model`)"
    note = f"freshness: {f.status}, built at {(f.built_commit or 'none')[:12]} ({f.built_at})"
    if f.changed_count:
        note += f", {f.changed_count} file(s) changed since, {f.stale_claims} stale claim(s); run `{f.refresh_command}`"
    return note


def _evidence(e: Evidence) -> str:
    return (
        f"evidence: {e.claims} claim(s), {e.citations_checked} citation(s) checked, {e.audit_supported} supported, "
        f"{e.audit_uncertain} uncertain, {e.removed} removed{', verified' if e.verified else ''}"
    )


def _some(names: list[str], shown: int) -> str:
    """The first `shown` names, saying how many more the answer holds, so text keeps the count --json has."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" (+{more} more)" if more > 0 else "")


def map_text(out: MapOutput) -> str:
    lines = [f"{out.module_count} module(s), {out.file_count} file(s), {out.incidents} incident candidate(s)"]
    for m in out.modules:
        langs = ", ".join(f"{k} {v}" for k, v in m.languages.items())  # every language, as --json has them
        lines.append(f"  {m.slug:<40} {m.files:>4} files ({langs}); tests {m.tests}")
        if m.surface:
            lines.append(f"      surface: {_some(m.surface, 6)}")
        if m.depends_on:
            lines.append(f"      depends on: {_some(m.depends_on, 6)}")
    if out.truncated:
        lines.append("  ... (more; pass --full or --limit)")
    return "\n".join(lines)


def build_text(out: BuildOutput) -> str:
    lines = [
        f"built {out.documents} document(s) for {out.modules} module(s) at {(out.built_commit or 'none')[:12]}: "
        f"{out.changed} changed, {out.removed} removed, {len(out.written)} file(s) written"
    ]
    if out.model_modules:
        lines.append(
            f"model prose for {out.model_modules} module(s): {out.claims_kept} claim(s) kept, "
            f"{out.claims_dropped} dropped, {len(out.rejected)} rejected, {out.model_attempts} attempt(s)"
        )
    for refusal in out.rejected:  # every refusal, budget and pause included, not only in --json
        lines.append(f"REFUSED: {refusal}")
    if out.authored_kept:
        lines.append(f"authored files kept: {', '.join(out.authored_kept)}")
    if out.collisions:
        lines.append(f"COLLISION: not written, an authored file holds the name: {', '.join(out.collisions)}")
    return "\n".join(lines)


def search_text(out: SearchOutput) -> str:
    lines = [f"{len(out.results)} result(s) for {out.query!r}"]
    for r in out.results:
        lines.append(f"  {r.slug}  ({r.kind}, score {r.score})")
        if r.purpose:
            lines.append(f"      {r.purpose[:160]}")
    lines += [_fresh(out.freshness)]
    return "\n".join(lines)


def get_text(out: GetOutput) -> str:
    lines = [f"{out.title} ({out.slug})"]
    for name, text in out.sections.items():
        lines += [f"## {name}", text.rstrip(), ""]
    if out.dropped_claims:
        lines.append(f"dropped claims: {len(out.dropped_claims)}")
    lines += [_evidence(out.evidence), _fresh(out.freshness)]
    return "\n".join(lines)


def context_text(out: ContextOutput) -> str:
    lines = [f"context for: {out.task}"]
    for m in out.modules:
        lines.append(f"module {m.path} ({m.slug}): {', '.join(m.why)}")
        if m.purpose:
            lines.append(f"    {m.purpose[:200]}")
        lines += [f"    - {c}" for c in m.claims]
    if out.read:
        lines.append("read:")
        lines += [f"  {f.path}  ({'; '.join(f.why)})" for f in out.read]
    if out.tests:
        lines.append("tests:")
        lines += [f"  {t}" for t in out.tests]
    if out.checks:
        lines.append("checks:")
        lines += [f"  {c}" for c in out.checks]
    if out.decisions:
        lines.append("decisions:")
        lines += [f"  {d.title} ({d.status}, {d.source})" for d in out.decisions]
    lines += [_evidence(out.evidence), _fresh(out.freshness)]
    return "\n".join(lines)


def audit_text(out: AuditOutput) -> str:
    lines = [
        f"audited {out.audited} claim(s): {out.supported} supported, {out.refuted} refuted (removed), "
        f"{out.unclear} unclear; {out.attempts} model attempt(s)"
    ]
    lines += [f"  removed from {r['slug']}: {r['text']} ({r['reason']})" for r in out.removed]
    if out.stopped:
        lines.append(f"stopped: {out.stopped}")
    return "\n".join(lines)
