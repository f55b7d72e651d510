"""doctor, forget and prune: previews by default, admin to act, and nothing comes back on the next sync."""

import pytest

from kernel.errors import PalliumError
from kernel.paths import global_db_path
from kernel.store import open_global
from services.sessions.store import SCHEMA
from tests.services.sessions import build
from tests.services.sessions.conftest import EXPECTED

pytestmark = pytest.mark.anyio

A, C, B = (EXPECTED["sessions"][i]["session_id"] for i in range(3))


async def test_forget_previews_then_needs_admin_then_deletes_for_good(call, homes):
    await call.sync()
    preview = await call("forget", id=C[:8])
    assert preview.confirmed is False and len(preview.sessions) == 2 and preview.messages > 0
    assert (await call("show", id=C)).id == C
    with pytest.raises(PalliumError) as refused:
        await call("forget", ceiling="edit", id=C, confirm=True)
    assert refused.value.code == "authority_exceeded" and refused.value.details["needed"] == "admin"
    done = await call("forget", id=C, confirm=True)
    assert done.confirmed and done.sessions == preview.sessions
    with pytest.raises(PalliumError) as gone:
        await call("show", id=C)
    assert gone.value.code == "not_found"
    path = homes["claude"] / EXPECTED["sessions"][1]["path"].split("/", 1)[1]
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type":"user","message":{"role":"user","content":"more about migration 0042"}}\n')
    again = await call.sync()
    assert again.files_skipped_forgotten == 1
    hits = (await call("search", query="0042", limit=200)).hits
    assert C not in {h.session_id.split(":")[0] for h in hits}


async def test_prune_removes_sessions_last_active_before_the_cutoff(call):
    await call.sync()
    preview = await call("prune", older_than="3d")  # now is 2026-11-21T15:30Z
    assert preview.cutoff == "2026-11-18T15:30:00Z"
    assert {s.id for s in preview.sessions} == {A, C, f"{C}:{EXPECTED['sessions'][1]['subagents'][0]['agent_id']}"}
    assert preview.confirmed is False
    assert (await call("find")).sessions[-1].id == A
    done = await call("prune", older_than="3d", confirm=True)
    assert done.count == 3
    left = {s.id for s in (await call("find")).sessions}
    assert left == {B, EXPECTED["sessions"][3]["session_id"], EXPECTED["sessions"][4]["session_id"]}


async def test_prune_refuses_an_age_it_cannot_read(call):
    with pytest.raises(PalliumError) as bad:
        await call("prune", older_than="half a year")
    assert bad.value.code == "invalid_input" and bad.value.details["field"] == "older_than"


async def test_doctor_finds_orphans_and_repairs_them_only_when_confirmed(call):
    await call.sync(raw_events=True)
    healthy = await call("doctor")
    assert healthy.healthy and healthy.counts["sessions"] == 6 and healthy.database_bytes > 0
    with open_global([SCHEMA]) as db:
        db.execute("DELETE FROM sessions_session WHERE id = ?", (A,))  # damage: messages left without a session
    sick = await call("doctor", repair=True, prune_raw_events=True, vacuum=True)
    assert not sick.healthy and any("messages without session" in p for p in sick.problems)
    assert sick.done == [] and "vacuum the database" in sick.planned
    fixed = await call("doctor", repair=True, prune_raw_events=True, vacuum=True, confirm=True)
    assert fixed.healthy and fixed.counts["raw_events"] == 0
    assert fixed.done == [
        "rebuilt the full-text index",
        "deleted orphaned rows",
        f"deleted {healthy.counts['raw_events']} raw events",
        "vacuumed the database",
    ]
    assert (await call("doctor")).healthy


async def test_pruned_sessions_stay_gone_after_a_resync_even_when_their_transcript_grows(call, homes):
    await call.sync()
    done = await call("prune", older_than="3d", confirm=True)
    pruned = {s.id for s in done.sessions}
    assert A in pruned and C in pruned
    again = await call.sync()
    assert again.files_unchanged == 6 and again.sessions_updated == 0
    path = homes["claude"] / EXPECTED["sessions"][0]["path"].split("/", 1)[1]
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type":"user","message":{"role":"user","content":"one more thing about gateway retries"}}\n')
    grown = await call.sync()
    assert grown.files_skipped_forgotten == 1 and A not in grown.session_ids
    assert {s.id for s in (await call("find", limit=100)).sessions}.isdisjoint(pruned)
    assert (await call("search", query="gateway retries")).hits == []
    with pytest.raises(PalliumError) as gone:
        await call("show", id=A)
    assert gone.value.code == "not_found"


@pytest.mark.parametrize("ceiling", ["observe", "consult", "edit"])
async def test_confirmed_prune_doctor_repair_and_forget_need_admin_and_change_nothing_below_it(call, ceiling):
    await call.sync(raw_events=True)
    before = (await call("doctor")).counts
    refused = []
    for name, arguments in (
        ("prune", {"older_than": "1d"}),
        ("doctor", {"repair": True, "prune_raw_events": True, "vacuum": True}),
        ("forget", {"id": B}),
    ):
        preview = await call(name, ceiling=ceiling, **arguments)  # the preview is allowed at any level
        assert preview.confirmed is False
        with pytest.raises(PalliumError) as error:
            await call(name, ceiling=ceiling, confirm=True, **arguments)
        refused.append((error.value.code, error.value.details["needed"]))
    assert refused == [("authority_exceeded", "admin")] * 3
    assert (await call("doctor")).counts == before


def _file_bytes() -> bytes:
    db = global_db_path()
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*")).lower()


@pytest.mark.parametrize("how", ["forget", "prune"])
async def test_forgotten_text_is_gone_from_the_database_file_and_its_free_pages(call, homes, how):
    words = ["zqxjvbwplk", "mrtqzvhxa"]  # stems of themselves, as the full-text index stores them
    thread = "01a20000-9999-7aaa-8bbb-ccccddddeeee"
    records = [
        {**build.codex_meta(thread, timestamp="2026-06-01T10:00:00.000Z"), "timestamp": "2026-06-01T10:00:00.000Z"},
        build.codex_user(f"the vault phrase is {words[0]}", "2026-06-01T10:00:01.000Z"),
        build.codex_assistant(f"noted: {words[1]} " * 400, "2026-06-01T10:00:02.000Z"),  # spills to overflow pages
    ]
    build.write_jsonl(build.codex_path(homes["codex"], thread, "2026-06-01T10-00-00"), records)
    await call.sync(raw_events=True)
    assert all(w.encode() in _file_bytes() for w in words)
    if how == "forget":
        await call("forget", id=thread, confirm=True)
    else:
        assert thread in {s.id for s in (await call("prune", older_than="90d", confirm=True)).sessions}
    stored = _file_bytes()
    assert [w for w in words if w.encode() in stored] == []
    assert (await call("doctor")).healthy and (await call("search", query="backfill")).hits  # the rest is intact


async def test_forget_while_another_process_reads_reports_the_purge_pending_and_the_next_sync_finishes_it(call, homes):
    import apsw

    word = "qvzmxkwtrb"
    thread = "01a20000-8888-7aaa-8bbb-ccccddddeeee"
    records = [build.codex_meta(thread, git={"branch": "feature/quartz-ledger"}), build.codex_user(f"say {word}")]
    build.write_jsonl(build.codex_path(homes["codex"], thread), records)
    await call.sync()
    reader = apsw.Connection(str(global_db_path()), flags=apsw.SQLITE_OPEN_READONLY)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM sessions_message").fetchall()  # holds a snapshot, as a reader does
    try:
        done = await call("forget", id=thread, confirm=True)
        assert done.confirmed and done.purged is False  # not "gone" while the old pages are still needed
    finally:
        reader.execute("COMMIT")
        reader.close()
    assert word.encode() in _file_bytes()
    await call.sync()  # the next write finishes the purge
    assert word.encode() not in _file_bytes()
    assert (await call("forget", id=B, confirm=True)).purged is True


async def test_a_tombstone_keeps_no_text_of_the_session(call):
    await call.sync()
    row = await call("show", id=B)
    assert row.cwd and row.model
    await call("forget", id=B, confirm=True)
    with open_global([SCHEMA]) as db:
        kept = db.execute(
            "SELECT title, cwd, repo, git_branch, model, cli_version, agent_type FROM sessions_session WHERE id = ?",
            (B,),
        ).fetchall()
    assert kept == [(None,) * 7]
