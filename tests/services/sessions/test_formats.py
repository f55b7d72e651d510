"""Transcripts as their tools write them: linked worktrees, slash commands, `!` shell mode, visible cuts."""

from pathlib import Path

import pytest

from services.sessions.transcript import CITE_CHARS, CUT_MARK
from tests.conftest import git
from tests.services.sessions import build

pytestmark = pytest.mark.anyio

SID = "7c0e0000-aaaa-4bbb-8ccc-000000000001"


def _claude(home: Path, session_id: str, cwd: str, texts: list[str], project: str = "-tmp-work") -> None:
    records = [
        build.claude_user(session_id, text, f"u-{i}", f"2026-11-21T15:0{i}:00.000Z", cwd=cwd)
        for i, text in enumerate(texts)
    ]
    build.write_jsonl(build.claude_path(home, session_id, project), records)


async def test_a_session_in_a_linked_worktree_counts_under_its_main_repository(call, homes, git_repo, tmp_path):
    linked = tmp_path / "shop-feature"
    git(git_repo, "worktree", "add", "-q", "-b", "feature", str(linked))
    _claude(homes["claude"], SID, str(linked), ["rename the zebrawood helper"])
    await call.sync()
    shown = await call("show", id=SID)
    assert shown.cwd == str(linked) and shown.repo == str(git_repo.resolve())
    found = await call("recall", query="zebrawood helper", repo=str(git_repo))
    assert [r.id for r in found.results] == [SID]


async def test_a_worktree_that_is_gone_belongs_to_the_repository_its_path_records(call, homes):
    _claude(homes["claude"], SID, "/gone/shop/.claude/worktrees/quiet-otter", ["tidy the zebrawood helper"])
    await call.sync()
    shown = await call("show", id=SID)
    assert (shown.cwd, shown.repo) == ("/gone/shop/.claude/worktrees/quiet-otter", "/gone/shop")
    assert [r.id for r in (await call("recall", query="zebrawood", repo="/gone/shop")).results] == [SID]


async def test_a_gone_codex_worktree_belongs_to_the_repository_with_the_remote_it_recorded(
    call, homes, git_repo, tmp_path
):
    git(git_repo, "remote", "add", "origin", "git@github.com:acme/shop.git")
    here, gone = "01a20000-aaaa-7aaa-8bbb-000000000001", "01a20000-aaaa-7aaa-8bbb-000000000002"
    remote = {"repository_url": "https://github.com/acme/shop", "branch": "main"}
    build.write_jsonl(
        build.codex_path(homes["codex"], here),
        [build.codex_meta(here, cwd=str(git_repo), git=remote), build.codex_user("plan the walnut export")],
    )
    worktree = str(tmp_path / "codex-worktrees" / "walnut-export")  # removed when the agent finished
    build.write_jsonl(
        build.codex_path(homes["codex"], gone, "2026-11-21T11-00-00"),
        [build.codex_meta(gone, cwd=worktree, git=remote), build.codex_user("finish the walnut export")],
    )
    await call.sync()
    shown = await call("show", id=gone)
    assert (shown.cwd, shown.repo) == (worktree, str(git_repo.resolve()))


async def test_a_gone_worktree_belongs_to_the_repository_its_recorded_gitdir_names(call, homes):
    cwd = "/gone/agents/otter"
    records = [
        build.claude_user(SID, "where is this checkout from?", "u-0", "2026-11-21T15:00:00.000Z", cwd=cwd),
        build.claude_user(
            SID, "cat .git says gitdir: /gone/shop/.git/worktrees/otter", "u-1", "2026-11-21T15:01:00.000Z", cwd=cwd
        ),
    ]
    build.write_jsonl(build.claude_path(homes["claude"], SID, "-tmp-work"), records)
    await call.sync()
    assert (await call("show", id=SID)).repo == "/gone/shop"


async def test_a_worktree_removed_between_syncs_keeps_the_repository_an_earlier_sync_saw(
    call, homes, git_repo, tmp_path
):
    linked = tmp_path / "shop-otter"
    git(git_repo, "worktree", "add", "-q", "-b", "otter", str(linked))
    _claude(homes["claude"], SID, str(linked), ["rename the walnut helper"])
    await call.sync()
    git(git_repo, "worktree", "remove", "--force", str(linked))
    other = "7c0e0000-aaaa-4bbb-8ccc-000000000002"
    _claude(homes["claude"], other, str(linked), ["and the walnut tests"], project="-tmp-other")
    await call.sync()
    assert (await call("show", id=other)).repo == str(git_repo.resolve())


async def test_a_session_started_with_a_slash_command_has_it_as_its_first_ask(call, homes):
    command = (
        "<command-message>review-pr is running…</command-message>\n<command-name>/review-pr</command-name>\n"
        "<command-args>142 --focus migrations</command-args>"
    )
    _claude(homes["claude"], SID, "/tmp/work", [command])
    await call.sync()
    shown = await call("show", id=SID)
    assert [a["text"] for a in shown.capsule["asked"]] == ["/review-pr 142 --focus migrations"]
    hits = (await call("search", query="review-pr migrations")).hits
    assert [(h.session_id, h.line) for h in hits] == [(SID, 1)]
    assert SID in {r.id for r in (await call("recall", query="review-pr migrations")).results}


async def test_shell_mode_records_are_a_command_and_its_output(call, homes):
    texts = [
        "<bash-input>git status --short</bash-input>",
        "<bash-stdout> M zebrawood.py</bash-stdout><bash-stderr></bash-stderr>",
    ]
    _claude(homes["claude"], SID, "/tmp/work", texts)
    await call.sync()
    read = await call("read", id=SID, limit=10)
    assert [(m.line, m.kind, m.tool) for m in read.messages] == [(1, "tool_call", "Bash"), (2, "tool_result", "Bash")]
    assert read.messages[0].text == "git status --short" and "zebrawood.py" in read.messages[1].text
    shown = await call("show", id=SID)
    assert shown.capsule["asked"] == [] and shown.capsule["commands"][0]["text"] == "git status --short"


async def test_long_asks_are_cut_at_one_length_with_a_marker(call, homes):
    long_ask = "migrate the zebrawood ledger " + "and keep every balance exact " * 40
    _claude(homes["claude"], SID, "/tmp/work", [long_ask, "short follow-up"])
    await call.sync()
    asked = (await call("show", id=SID)).capsule["asked"]
    assert len(asked[0]["text"]) == CITE_CHARS and asked[0]["text"].endswith(CUT_MARK)
    assert asked[1]["text"] == "short follow-up"
    for result in (await call("recall", query="zebrawood ledger balance")).results:
        for cite in result.citations:
            assert len(cite.text) <= CITE_CHARS and (len(cite.text) < CITE_CHARS or cite.text.endswith(CUT_MARK))
