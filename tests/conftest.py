"""Fixtures shared by the whole suite: a private Pallium home, the home guard, real git repositories."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import home_guard
from tests.memory_keyring import MemoryKeyring

REAL_HOME = Path(os.path.expanduser("~"))
REAL_PALLIUM_HOME = REAL_HOME / ".pallium"
_REAL_HOME_WATCH = home_guard.watch(REAL_PALLIUM_HOME)
# Where toolchains the tests run (cargo through rustup, go, npm) keep their installs and caches by
# default, under the home; the test's own HOME must not hide them.
_TOOL_HOMES = (
    ("RUSTUP_HOME", ".rustup"),
    ("CARGO_HOME", ".cargo"),
    ("npm_config_cache", ".npm"),
    ("GOPATH", "go"),
    ("GOCACHE", ".cache/go-build"),
    ("GOMODCACHE", "go/pkg/mod"),
)


@pytest.fixture(autouse=True)
def pallium_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Give the test a home of its own (HOME and PALLIUM_HOME), and fail it if its process tree wrote
    under `~/.pallium`: in that home (its children resolve `~` there too), or, from this process,
    under the real one. Pallium used meanwhile outside the test (a resident server, an agent) writes
    to the real `~/.pallium` and fails nothing (tests/home_guard.py)."""
    home = tmp_path_factory.mktemp("pallium-home")
    user_home = tmp_path_factory.mktemp("user-home")
    real_gitconfig = REAL_HOME / ".gitconfig"
    if real_gitconfig.is_file():  # git's identity and settings, as the test had them before
        shutil.copyfile(real_gitconfig, user_home / ".gitconfig")
    monkeypatch.setenv("HOME", str(user_home))
    for variable, folder in _TOOL_HOMES:  # toolchains keep finding what is installed in the real home
        if variable not in os.environ and (REAL_HOME / folder).exists():
            monkeypatch.setenv(variable, str(REAL_HOME / folder))
    monkeypatch.setenv("PALLIUM_HOME", str(home))
    monkeypatch.delenv("PALLIUM_AUTHORITY", raising=False)
    monkeypatch.delenv("PALLIUM_MCP_TOKEN", raising=False)
    # `pallium` run as a process answers from its own process: a resident server per test would
    # outlive it. tests/pallium_mcp/test_resident.py turns it on, in a folder of its own.
    monkeypatch.setenv("PALLIUM_RESIDENT", "off")
    tree_home = user_home / ".pallium"
    before = home_guard.snapshot(tree_home)
    _REAL_HOME_WATCH.take()
    yield home
    written = home_guard.changes(before, home_guard.snapshot(tree_home))
    assert not written, f"test wrote under ~/.pallium (its own home's, {tree_home}): {written[:5]}"
    direct = _REAL_HOME_WATCH.take()
    assert not direct, f"test wrote under the real {REAL_PALLIUM_HOME}: {direct[:5]}"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def script(name: str) -> str:
    """The console script installed beside the running Python (not whichever is first on PATH)."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else (shutil.which(name) or name)


# The suite makes a few thousand repositories. git's default template copies a dozen sample hooks into
# each, and each commit starts `git maintenance run --auto`: together most of a fixture repository's
# cost, and nothing a test looks at. The tests' own git (this helper, not Pallium's) skips both; the
# template keeps what a default one has that git reads (`info/exclude`, an empty `hooks/`).
_LEAN_GIT = {
    "GIT_CONFIG_COUNT": "2",
    "GIT_CONFIG_KEY_0": "maintenance.auto",
    "GIT_CONFIG_VALUE_0": "false",
    "GIT_CONFIG_KEY_1": "gc.auto",
    "GIT_CONFIG_VALUE_1": "0",
}
_TEMPLATE: list[Path] = []


@pytest.fixture(autouse=True, scope="session")
def _lean_git_template(tmp_path_factory: pytest.TempPathFactory) -> None:
    template = tmp_path_factory.mktemp("git-template")
    (template / "hooks").mkdir()
    (template / "info").mkdir()
    (template / "info" / "exclude").write_text("# git ls-files --others --exclude-from=.git/info/exclude\n")
    _TEMPLATE[:] = [template]


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run git in `repo` with a fixed identity and dates, and return stdout."""
    full_env = {
        **os.environ,
        **_LEAN_GIT,
        **({"GIT_TEMPLATE_DIR": str(_TEMPLATE[0])} if _TEMPLATE else {}),
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "ada@example.com",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.com",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
        **(env or {}),
    }
    done = subprocess.run(["git", *args], cwd=repo, env=full_env, capture_output=True, text=True, check=True)
    return done.stdout


def write(repo: Path, relative: str, text: str) -> Path:
    path = repo / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def trusted(repo: Path) -> Path:
    """Trust `repo`'s saved workflows and config.toml as they are now, as `pallium trust` does."""
    from kernel import trust

    trust.record(repo, now="2026-01-01T00:00:00Z")
    return repo


@pytest.fixture
def empty_repo(tmp_path: Path) -> Path:
    """A freshly initialised repository with no commits."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    return repo


@pytest.fixture
def git_repo(empty_repo: Path) -> Path:
    """A repository with two commits on `main`: a README, a package and a test."""
    write(empty_repo, "README.md", "# demo\n")
    write(empty_repo, "src/app.py", "def main():\n    return 1\n")
    git(empty_repo, "add", "-A")
    git(empty_repo, "commit", "-q", "-m", "Start the demo")
    write(empty_repo, "tests/test_app.py", "from src.app import main\n\ndef test_main():\n    assert main() == 1\n")
    write(empty_repo, ".gitignore", "*.log\n")
    git(empty_repo, "add", "-A")
    git(empty_repo, "commit", "-q", "-m", "Test the app")
    return empty_repo


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """An in-memory keyring backend installed for one test, the machine's own restored after."""
    import keyring

    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)
