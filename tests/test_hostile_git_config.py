"""A repository that arrives with its `.git` folder runs none of what its git configuration names.

Each case plants one executable key (a hook, fsmonitor, a filter, textconv, an external diff, a
merge driver, gpg under log.showSignature, an include, a transport) whose program appends to a
marker file outside the repository, then makes Pallium's git calls that would run it: the marker
must stay absent, and no byte outside the repository may change. The last cases show the same
repository trusted does run its hooks (so the marker would have caught a run), and that git data
kept outside the repository is refused until trusted.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from kernel import git
from kernel.errors import PalliumError
from kernel.worktrees.snapshot import snapshot
from pallium_mcp.cli import main
from tests.conftest import git as sh_git
from tests.conftest import trusted, write
from tests.test_hostile_clone import tree_bytes


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "important.txt").write_text("do not touch\n", encoding="utf-8")
    return folder


@pytest.fixture
def marker(outside: Path) -> Path:
    return outside / "ran.txt"


@pytest.fixture
def program(tmp_path: Path, marker: Path) -> Path:
    """A program a hostile config names: it records that it ran, then behaves as a pass-through."""
    path = tmp_path / "hostile.sh"
    path.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\ncat 2>/dev/null\nexit 0\n', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def configure(repo: Path, *pairs: tuple[str, str]) -> None:
    for key, value in pairs:
        sh_git(repo, "config", key, value)


def assert_never_ran(marker: Path, outside: Path, before: dict[str, str]) -> None:
    assert not marker.exists(), f"the repository's configuration ran: {marker.read_text()}"
    assert tree_bytes(outside) == before


def changed_now(repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> int:
    monkeypatch.chdir(repo)
    code = main(["changed-now", "--json"])
    capsys.readouterr()
    return code


def test_fsmonitor_does_not_run_on_status_index_or_explain(git_repo, program, marker, outside, capsys, monkeypatch):
    configure(git_repo, ("core.fsmonitor", str(program)))
    write(git_repo, "src/app.py", "def main():\n    return 2\n")
    before = tree_bytes(outside)
    assert changed_now(git_repo, monkeypatch, capsys) == 0
    for args in (["index", "--json"], ["explain", "src/app.py", "--json"], ["risk", "--json"]):
        main(args)
        capsys.readouterr()
    git.status(git_repo)
    assert_never_ran(marker, outside, before)


def test_an_included_config_file_is_neutralised_too(git_repo, program, marker, outside, capsys, monkeypatch):
    write(git_repo, "tools/dev.gitconfig", f"[core]\n\tfsmonitor = {program}\n")
    sh_git(git_repo, "add", ".")
    sh_git(git_repo, "commit", "-q", "-m", "dev config")
    configure(git_repo, ("include.path", "../tools/dev.gitconfig"))
    write(git_repo, "src/app.py", "changed\n")
    before = tree_bytes(outside)
    assert changed_now(git_repo, monkeypatch, capsys) == 0
    assert_never_ran(marker, outside, before)


@pytest.mark.parametrize("name", ["evil", "ev=il"])  # "=" would split a `-c name=value` override
@pytest.mark.parametrize("variable", ["clean", "smudge", "process"])
def test_a_filter_named_by_gitattributes_does_not_run(git_repo, program, marker, outside, variable, name):
    write(git_repo, ".gitattributes", f"*.py filter={name}\n")
    sh_git(git_repo, "add", ".gitattributes")
    sh_git(git_repo, "commit", "-q", "-m", "attributes")
    configure(git_repo, (f"filter.{name}.{variable}", str(program)))
    write(git_repo, "src/app.py", "def main():\n    return 3\n")
    before = tree_bytes(outside)
    snapshot(git_repo)  # git add -A: clean, process
    (git_repo / "src/app.py").unlink()
    git.run(["checkout", "-q", "--", "src/app.py"], git_repo)  # smudge, process
    git.run(["worktree", "add", "--detach", "--quiet", str(git_repo.parent / "wt"), "HEAD"], git_repo)
    assert_never_ran(marker, outside, before)


@pytest.mark.parametrize("key", ["diff.evil.textconv", "diff.evil.command", "diff.external"])
def test_textconv_and_external_diff_drivers_do_not_run(git_repo, program, marker, outside, key):
    write(git_repo, ".gitattributes", "*.py diff=evil\n")
    sh_git(git_repo, "add", ".gitattributes")
    sh_git(git_repo, "commit", "-q", "-m", "attributes")
    configure(git_repo, (key, str(program)))
    write(git_repo, "src/app.py", "def main():\n    return 4\n")
    before = tree_bytes(outside)
    assert b"return 4" in git.run(["diff", "HEAD"], git_repo)
    git.run(["log", "-p", "-n", "3", "--numstat"], git_repo)
    git.run(["show", "HEAD"], git_repo)
    git.run(["blame", "--porcelain", "src/app.py"], git_repo)
    assert_never_ran(marker, outside, before)


def test_a_merge_driver_does_not_run_on_a_three_way_apply(git_repo, program, marker, outside):
    write(git_repo, ".gitattributes", "*.py merge=evil\n")
    sh_git(git_repo, "add", ".gitattributes")
    sh_git(git_repo, "commit", "-q", "-m", "attributes")
    base = sh_git(git_repo, "rev-parse", "HEAD").strip()
    write(git_repo, "src/app.py", "def main():\n    return 1\n\n\ndef other():\n    return 5\n")
    sh_git(git_repo, "commit", "-q", "-am", "theirs")
    patch = sh_git(git_repo, "format-patch", "-1", "--stdout")
    sh_git(git_repo, "reset", "-q", "--hard", base)
    write(git_repo, "src/app.py", "# ours\ndef main():\n    return 1\n")
    sh_git(git_repo, "commit", "-q", "-am", "ours")
    configure(git_repo, ("merge.evil.driver", f"{program} %O %A %B"))
    before = tree_bytes(outside)
    git.run(["apply", "--3way", "--whitespace=nowarn", "-"], git_repo, input=patch.encode())
    assert "return 5" in (git_repo / "src/app.py").read_text()
    assert_never_ran(marker, outside, before)


def signed_head(repo: Path) -> None:
    """Rewrite HEAD as a commit carrying a (fake) signature, the way a signed commit is stored."""
    raw = sh_git(repo, "cat-file", "commit", "HEAD")
    header, _, message = raw.partition("\n\n")
    signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----"
    path = repo.parent / "signed-commit.txt"
    path.write_text(f"{header}\n{signature}\n\n{message}", encoding="utf-8")
    sha = sh_git(repo, "hash-object", "-t", "commit", "-w", str(path)).strip()
    sh_git(repo, "update-ref", "HEAD", sha)


@pytest.mark.parametrize("program_key", ["gpg.program", "gpg.openpgp.program"])
def test_gpg_does_not_run_under_show_signature(git_repo, program, marker, outside, capsys, monkeypatch, program_key):
    signed_head(git_repo)
    configure(git_repo, ("log.showSignature", "true"), (program_key, str(program)))
    before = tree_bytes(outside)
    monkeypatch.chdir(git_repo)
    for args in (["index", "--json"], ["explain", "src/app.py", "--json"], ["handoff", "--json"]):
        main(args)
        capsys.readouterr()
    git.run(["log", "-n", "2"], git_repo)
    assert_never_ran(marker, outside, before)


@pytest.mark.parametrize("hook", ["post-checkout", "reference-transaction", "post-index-change", "post-commit"])
@pytest.mark.parametrize("where", ["hooks folder", "core.hooksPath"])
def test_hooks_do_not_run_on_worktrees_or_commits(git_repo, program, marker, outside, hook, where):
    target = (git_repo / ".git" / "hooks" if where == "hooks folder" else git_repo / "githooks") / hook
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(program.read_bytes())
    target.chmod(0o755)
    if where == "core.hooksPath":  # committed, so a worktree of it has the hooks too
        sh_git(git_repo, "add", "githooks")
        sh_git(git_repo, "commit", "-q", "--no-verify", "-m", "hooks")
        configure(git_repo, ("core.hooksPath", "githooks"))
    before = tree_bytes(outside)
    worktree = git_repo.parent / "wt"
    git.run(["worktree", "add", "--detach", "--quiet", str(worktree), "HEAD"], git_repo)
    write(worktree, "src/new.py", "x = 1\n")
    git.run(["add", "-A"], worktree)
    git.run(["commit", "-q", "--no-verify", "-m", "pallium: step"], worktree, env=_identity())
    git.run(["checkout", "-q", "--detach", "--force", "HEAD~1"], worktree)
    git.run(["worktree", "remove", "--force", str(worktree)], git_repo)
    assert_never_ran(marker, outside, before)


def test_transports_and_credential_helpers_do_not_run(git_repo, program, marker, outside):
    configure(
        git_repo,
        ("protocol.ext.allow", "always"),
        ("remote.origin.url", f"ext::{program} %S"),
        ("credential.helper", f"!{program}"),
        ("remote.local.url", str(outside)),
        ("remote.local.uploadpack", str(program)),
    )
    before = tree_bytes(outside)
    for remote in ("origin", "local"):
        with pytest.raises(PalliumError):
            git.run(["ls-remote", remote], git_repo)
    assert_never_ran(marker, outside, before)


def test_the_same_repository_trusted_runs_its_hooks(git_repo, program, marker):
    """The marker catches a run: trusted, git behaves as configured (which is what the cases above refuse)."""
    hook = git_repo / ".git" / "hooks" / "reference-transaction"
    hook.write_bytes(program.read_bytes())
    hook.chmod(0o755)
    configure(git_repo, ("core.fsmonitor", str(program)))
    trusted(git_repo)
    git.run(["worktree", "add", "--detach", "--quiet", str(git_repo.parent / "wt"), "HEAD"], git_repo)
    git.status(git_repo)
    assert marker.exists()


def other_repository(tmp_path: Path) -> Path:
    other = tmp_path / "other"
    other.mkdir()
    sh_git(other, "init", "-q")
    write(other, "mine.txt", "the user's other project\n")
    sh_git(other, "add", ".")
    sh_git(other, "commit", "-q", "-m", "mine")
    return other


@pytest.mark.parametrize("kind", ["gitdir file", "linked .git", "commondir", "core.worktree"])
def test_git_data_outside_the_repository_is_refused_until_trusted(tmp_path, capsys, monkeypatch, kind):
    other = other_repository(tmp_path)
    repo = tmp_path / "arrived"
    repo.mkdir()
    write(repo, "app.py", "print('hi')\n")
    if kind == "gitdir file":
        (repo / ".git").write_text(f"gitdir: {other / '.git'}\n", encoding="utf-8")
    elif kind == "linked .git":
        (repo / ".git").symlink_to(other / ".git")
    elif kind == "commondir":
        sh_git(repo, "init", "-q")
        (repo / ".git" / "commondir").write_text(str(other / ".git"), encoding="utf-8")
    else:
        sh_git(repo, "init", "-q")
        sh_git(repo, "config", "core.worktree", str(other))
    before = tree_bytes(other)
    monkeypatch.chdir(repo)
    for args in (["index", "--json"], ["changed-now", "--json"], ["start", "fix the bug", "--json"]):
        code = main(args)
        out, err = capsys.readouterr()
        assert code != 0 and out == "", (args, out)
        error = json.loads(err)["error"]
        assert error["code"] == "authority_exceeded", error
        assert "trust" in error["hint"]
        assert "Traceback" not in err
    assert tree_bytes(other) == before
    trusted(repo)
    assert git.run(["rev-parse", "--git-dir"], repo)


def test_a_registered_linked_worktree_and_a_submodule_are_not_outside(git_repo, tmp_path):
    linked = tmp_path / "feature"
    sh_git(git_repo, "worktree", "add", "-q", "--detach", str(linked), "HEAD")
    assert git.status(linked).head == git.status(git_repo).head
    sub_source = other_repository(tmp_path)
    sh_git(git_repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub_source), "vendor/other")
    assert (git_repo / "vendor/other/.git").is_file()
    assert git.run(["rev-parse", "HEAD"], git_repo / "vendor/other")


def test_inherited_git_variables_do_not_redirect_pallium(git_repo, tmp_path, monkeypatch):
    other = other_repository(tmp_path)
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    assert git.run(["rev-parse", "--show-toplevel"], git_repo).decode().strip() == str(git_repo.resolve())


def _identity() -> dict[str, str]:
    names = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
    return {k: "Pallium" if k.endswith("NAME") else "pallium@localhost" for k in names}


GIT_START = re.compile(r'\(\s*\[\s*"git"\s*,|exec\w*\(\s*"git"')


def test_no_dulwich_reader_bypasses_the_guard():
    """Every git read goes through `kernel.git`: no in-process git library honours the config behind it."""
    root = Path(__file__).resolve().parents[1]
    users = [
        p
        for folder in ("kernel", "services", "pallium_mcp")
        for p in (root / folder).rglob("*.py")
        if "dulwich" in p.read_text(encoding="utf-8") or "pygit2" in p.read_text(encoding="utf-8")
    ]
    assert users == []
    starters = [
        p
        for folder in ("kernel", "services", "pallium_mcp")
        for p in (root / folder).rglob("*.py")
        if p.name not in ("git.py", "git_guard.py") and GIT_START.search(p.read_text(encoding="utf-8"))
    ]
    assert starters == []
