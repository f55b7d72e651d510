"""The patch gates: size, confinement to the repository, .git/, sensitive files, secrets and the override."""

from __future__ import annotations

from kernel.worktrees.gates import check_patch


def patch_adding(path: str, *lines: str, mode: str = "100644") -> bytes:
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode {mode}\nindex 0000000..1111111\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    ).encode()


def kinds(patch: bytes, **kw) -> list[str]:
    return [v.kind for v in check_patch(patch, **kw).violations]


def test_a_plain_edit_passes_and_names_its_files():
    report = check_patch(patch_adding("src/with space/é.py", "x = 1"))
    assert report.ok and report.files == ["src/with space/é.py"]


def test_paths_into_git_or_out_of_the_repository_are_blocked_even_with_the_override():
    assert kinds(patch_adding(".git/hooks/pre-commit", "echo pwned"), allow_secrets=True) == ["git_dir"]
    assert kinds(patch_adding("../outside.txt", "x"), allow_secrets=True) == ["escape"]
    renamed = b"diff --git a/a.txt b/../../etc/x\nsimilarity index 100%\nrename from a.txt\nrename to ../../etc/x\n"
    assert "escape" in kinds(renamed, allow_secrets=True)


def test_a_symlink_pointing_out_of_the_repository_is_blocked():
    assert kinds(patch_adding("docs/link", "../../../etc/passwd", mode="120000")) == ["symlink_escape"]
    assert kinds(patch_adding("docs/link", "../README.md", mode="120000")) == []


def test_added_secrets_are_blocked_unless_overridden_and_the_override_is_reported():
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    patch = patch_adding("config.py", f'AWS_KEY = "{key}"', 'password = "hunter2hunter2"')
    assert kinds(patch) == ["secret", "secret"]
    overridden = check_patch(patch, allow_secrets=True)
    assert overridden.ok and [v.kind for v in overridden.overridden] == ["secret", "secret"]


def test_removed_secret_lines_and_placeholders_do_not_block():
    patch = (
        b"diff --git a/c.py b/c.py\n--- a/c.py\n+++ b/c.py\n@@ -1 +1 @@\n-token = 'ghp_" + b"a" * 36 + b"'\n"
        b"+token = os.environ['TOKEN']\n"
    )
    assert check_patch(patch).ok


def test_sensitive_files_huge_binaries_and_huge_patches_are_blocked():
    assert kinds(patch_adding(".env", "DEBUG=1")) == ["sensitive_path"]
    assert kinds(patch_adding(".claude/settings.json", "{}")) == ["sensitive_path"]
    binary = b"diff --git a/big.bin b/big.bin\nnew file mode 100644\nGIT binary patch\nliteral 5000000\nzc$@...\n"
    assert kinds(binary) == ["binary_too_large"]
    assert "too_large" in kinds(patch_adding("a.txt", "x" * 100), max_bytes=50)
