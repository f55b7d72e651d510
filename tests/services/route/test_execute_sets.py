"""Execute every route answer of every evaluation set at its ceiling, and watch the repository.

Nothing outside `.pallium/` may change unless the task asked for a change: the answer is the capability
the case expects and it needs edit or admin. Agents are the fake provider; HOME is a temporary folder,
so adoption tools that write a user's configuration (Codex's config.toml) write there; and package
installers are kept offline, so an executed `update` cannot replace the Pallium under test with
whatever a package index calls "pallium".
"""

from __future__ import annotations

import hashlib
import os
import sysconfig
from importlib import metadata
from pathlib import Path

import anyio
import pytest

from tests.conftest import write
from tests.services.route.cases import CASES
from tests.services.route.conftest import call, route
from tests.services.route.heldout4_cases import HELDOUT4
from tests.services.route.heldout5_cases import HELDOUT5
from tests.services.route.heldout6_cases import HELDOUT6
from tests.services.route.heldout8_cases import HELDOUT8

_PER_CALL = 120  # seconds one executed answer may take before the test gives up on it


def tree(repo: Path) -> dict[str, str]:
    """Each file of the working tree, outside `.git/` and `.pallium/`, with a hash of its content."""
    out = {}
    for path in sorted(repo.rglob("*")):
        parts = path.relative_to(repo).parts
        if parts[0] in (".git", ".pallium") or not path.is_file():
            continue
        out["/".join(parts)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def fixture_repo(git_repo: Path, workflow_env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    for name, value in {
        "PIP_NO_INDEX": "1",
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
        "PIP_FIND_LINKS": str(home),
        "PIP_CONFIG_FILE": os.devnull,
        "UV_OFFLINE": "1",
        "UV_INDEX_URL": "http://127.0.0.1:9/simple",
        "PIPX_HOME": str(home / "pipx"),
    }.items():
        monkeypatch.setenv(name, value)
    done = anyio.run(
        lambda: call(
            "pallium_workflow_run", {"task": "notes", "source": "return {ok: true};", "id": "done-1"}, git_repo, "edit"
        )
    )
    assert done.status == "completed"
    write(git_repo, "work.loop.js", 'export const meta = {kind: "loop"};\nreturn {state: "success"};\n')
    anyio.run(lambda: call("pallium_loop_start", {"name": "nightly", "script": "work.loop.js"}, git_repo, "consult"))
    return git_repo


async def _execute_all(repo: Path, cases) -> tuple[list[str], int]:
    problems, ran = [], 0
    for case in cases:
        before = tree(repo)
        with anyio.fail_after(_PER_CALL):
            answer = await route(case.task, repo, ceiling=case.ceiling, execute=True)
        ran += answer.executed is not None and answer.executed.get("status") == "ok"
        after = tree(repo)
        if after == before:
            continue
        asked = answer.capability == case.capability and answer.needed_authority in ("edit", "admin")
        if not asked:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            problems.append(f"{case.task!r} at {case.ceiling} ({answer.capability}) changed {changed}")
    return problems, ran


def _installed() -> list[tuple[str, str]]:
    """The distributions in this interpreter's site-packages (not a checkout's egg-info on sys.path)."""
    site = sysconfig.get_paths()["purelib"]
    return sorted((d.metadata["Name"] or "", d.version) for d in metadata.distributions(path=[site]))


# Sets 1-3 (written by route's own engineer, 326 tasks) are routed by test_heldout.py but no longer
# executed here: the independent hands' sets 4-8 hold every kind of task they do, and executing all
# of them kept the suite near its ten minutes on two cores.
SETS = {
    "own": CASES,
    "held-out-4": HELDOUT4,
    "held-out-5": HELDOUT5,
    "held-out-6": HELDOUT6,
    "held-out-8": HELDOUT8,
}


@pytest.mark.parametrize("name", SETS)
def test_executing_every_answer_changes_nothing_outside_pallium_unless_asked(fixture_repo: Path, name: str):
    cases = SETS[name]
    installed = _installed()
    problems, ran = anyio.run(_execute_all, fixture_repo, cases)
    assert _installed() == installed  # the environment under test is untouched
    assert problems == []
    assert ran >= len(cases) // 4  # the sets were really executed, not all refused
