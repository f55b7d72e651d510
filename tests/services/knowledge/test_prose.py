"""Model prose with checked citations, and the skeptic's audit, with the fake provider."""

from pathlib import Path

import pytest

from kernel.store import open_repo
from services.knowledge.store import SCHEMA, KnowledgeStore
from tests.conftest import write
from tests.services.knowledge.conftest import ask

pytestmark = pytest.mark.anyio

GOOD = {
    "text": "parse_config turns key=value lines into settings.",
    "citations": [{"path": "app/core/engine.py", "symbol": "parse_config", "lines": [3, 5]}],
}
MISSING_FILE = {"text": "Settings live in config.py.", "citations": [{"path": "app/core/config.py"}]}
OTHER_FILE = {"text": "Engine queues jobs.", "citations": [{"path": "app/core/jobs.py", "symbol": "parse_config"}]}
OUTSIDE = {
    "text": "Engine runs jobs.",
    "citations": [{"path": "app/core/engine.py", "symbol": "Engine", "lines": [3, 4]}],
}
PAST_END = {"text": "The engine ends late.", "citations": [{"path": "app/core/engine.py", "lines": [10, 400]}]}
SECOND = {
    "text": "Engine.run hands the job back.",
    "citations": [{"path": "app/core/engine.py", "symbol": "Engine.run", "lines": [11, 12]}],
}


def _build(repo: Path, **extra):
    return ask(repo, "pallium_knowledge_build", provider="claude", max_modules=1, **extra)


async def test_claims_keep_only_citations_that_resolve_and_the_document_says_unverified(app_repo: Path, fake):
    fake.scenario(
        {"match": "Module: app/core", "reply": {"claims": [GOOD, MISSING_FILE, OTHER_FILE, OUTSIDE, PAST_END, SECOND]}}
    )
    out = await _build(app_repo)
    assert (out.model_modules, out.claims_kept, out.claims_dropped, out.model_attempts) == (1, 2, 4, 1)
    got = await ask(app_repo, "pallium_knowledge_get", slug="app%2Fcore")
    assert [c.text for c in got.claims] == [GOOD["text"], SECOND["text"]]
    assert got.claims[0].citations[0]["blob"] == _blob(app_repo, "app/core/engine.py")
    reasons = {d["text"]: d["reason"] for d in got.dropped_claims}
    assert "not a file of the index" in reasons[MISSING_FILE["text"]]
    assert "'parse_config' is not defined in app/core/jobs.py" in reasons[OTHER_FILE["text"]]
    assert "do not overlap Engine" in reasons[OUTSIDE["text"]]
    assert "outside app/core/engine.py" in reasons[PAST_END["text"]]
    assert got.unverified_reason == "4 claim(s) dropped: unresolved citations"
    assert got.evidence.citations_checked == 2 and got.evidence.removed == 4 and not got.evidence.verified
    markdown = (app_repo / ".pallium/knowledge/app%2Fcore.md").read_text(encoding="utf-8")
    assert GOOD["text"] in markdown and MISSING_FILE["text"] not in markdown
    assert [c["mode"] for c in fake.calls()] == ["read-only"]


async def test_a_tree_changed_while_the_model_worked_rejects_the_candidate(app_repo: Path, fake):
    fake.scenario(
        {"match": "Module: app/core", "write": {"app/core/engine.py": "x = 1\n"}, "reply": {"claims": [GOOD]}}
    )
    out = await _build(app_repo)
    assert out.claims_kept == 0 and out.rejected == ["app%2Fcore: the tree changed while the model worked"]
    from services.knowledge.render import build_text

    assert "REFUSED: app%2Fcore: the tree changed while the model worked" in build_text(out)  # text says it too
    with open_repo(app_repo, [SCHEMA]) as db:
        assert KnowledgeStore(db).claims("app%2Fcore") == []


async def test_the_skeptic_removes_refuted_claims_keeps_unclear_ones_uncertain_and_supported_ones_verify(
    app_repo: Path, fake
):
    fake.scenario({"match": "Module: app/core", "reply": {"claims": [GOOD, SECOND]}})
    await _build(app_repo)
    fake.scenario(
        {"match": "Claim: parse_config", "reply": {"verdict": "supported", "reason": "lines 3-5 do it"}},
        {"match": "Claim: Engine.run", "reply": {"verdict": "refuted", "reason": "run returns the job itself"}},
    )
    out = await ask(app_repo, "pallium_knowledge_audit", provider="claude")
    assert (out.audited, out.supported, out.refuted, out.unclear) == (2, 1, 1, 0)
    assert "def parse_config(text):" in fake.calls()[-2]["prompt"]  # the skeptic saw the cited source
    got = await ask(app_repo, "pallium_knowledge_get", slug="app%2Fcore")
    assert [(c.text, c.audit) for c in got.claims] == [(GOOD["text"], "supported")]
    assert got.evidence.verified and got.evidence.audit_supported == 1
    assert {"text": SECOND["text"], "outcome": "refuted", "reason": "run returns the job itself"} in [
        {k: d[k] for k in ("text", "outcome", "reason")} for d in got.dropped_claims
    ]
    markdown = (app_repo / ".pallium/knowledge/app%2Fcore.md").read_text(encoding="utf-8")
    assert SECOND["text"] not in markdown
    fake.scenario({"match": "Claim:", "reply": {"verdict": "unclear", "reason": "the source does not say"}})
    again = await ask(app_repo, "pallium_knowledge_audit", provider="claude")
    assert again.unclear == 1
    got = await ask(app_repo, "pallium_knowledge_get", slug="app%2Fcore")
    assert got.claims[0].audit == "uncertain" and not got.evidence.verified
    assert "_(uncertain)_" in (app_repo / ".pallium/knowledge/app%2Fcore.md").read_text(encoding="utf-8")


async def test_a_claim_goes_stale_when_its_cited_file_changes(app_repo: Path, fake):
    fake.scenario({"match": "Module: app/core", "reply": {"claims": [GOOD]}})
    await _build(app_repo)
    write(app_repo, "app/core/engine.py", (app_repo / "app/core/engine.py").read_text(encoding="utf-8") + "\n# more\n")
    got = await ask(app_repo, "pallium_knowledge_get", slug="app%2Fcore")
    assert got.claims[0].stale and got.freshness.stale_claims == 1


def _blob(repo: Path, relative: str) -> str:
    from tests.conftest import git

    return git(repo, "hash-object", relative).strip()
