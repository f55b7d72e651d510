"""`knowledge context` prefers the files that own the change: what the task spells as code, what changes
with it in history, the command line's entry point; look-alikes, bundles and words alone come after."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio


def _when(i: int) -> str:
    return f"2026-01-{i + 1:02d}T00:00:00Z"


@pytest.fixture
def cookies_repo(empty_repo: Path) -> Path:
    """`Cookies.set` in models.py; client.py shares every word of the task but defines none of it."""
    commit(
        empty_repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/models.py": "class Cookies:\n    def set(self, name, value, domain=''):\n        return name\n",
            "pkg/client.py": "from pkg.models import Cookies\n\n\nclass Client:\n"
            "    def set_secure_flag(self, expires_argument=None):\n"
            "        '''Send the cookies with a secure flag and an expires argument.'''\n"
            "        return Cookies()\n",
            "pkg/other.py": "from pkg.client import Client\n\n\ndef run():\n    return Client()\n",
            "tests/test_models.py": "from pkg.models import Cookies\n\n\ndef test_set():\n    assert Cookies()\n",
            "tests/test_client.py": "from pkg.client import Client\n\n\ndef test_client():\n    assert Client()\n",
        },
    )
    return empty_repo


async def test_a_name_spelled_as_code_leads_a_file_sharing_only_its_words(cookies_repo: Path):
    out = await ask(
        cookies_repo,
        "pallium_knowledge_context",
        task="Cookies.set should accept an expires argument and a secure flag.",
    )
    # client.py holds every word of the task in its names and docs; models.py defines what it spells
    assert out.read[0].path == "pkg/models.py"
    assert out.tests[0] == "tests/test_models.py"


async def test_the_function_the_task_calls_by_name_is_read_even_beside_a_spelled_parameter(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/core.py": "class Option:\n    confirmation_prompt = False\n\n    def hide(self):\n        return 1\n",
            "pkg/termui.py": "def prompt(text, hide_input=False, confirmation_prompt=False):\n"
            '    """Ask for input; hide password input and confirm it again."""\n    return text\n',
            # three more `prompt`s: as a plain word, a name defined this often is no lead
            "pkg/shell.py": "def prompt():\n    return '$ '\n",
            "pkg/repl.py": "def prompt():\n    return '>>> '\n",
            "pkg/wizard.py": "def prompt():\n    return '? '\n",
            "tests/test_termui.py": "from pkg.termui import prompt\n\n\ndef test_prompt():\n    assert prompt('x')\n",
        },
    )
    out = await ask(
        empty_repo,
        "pallium_knowledge_context",
        task="The prompt function should hide password input and confirm it when confirmation_prompt is set.",
    )
    read = [f.path for f in out.read]
    assert "pkg/termui.py" in read
    assert any(r == "defines prompt" for f in out.read if f.path == "pkg/termui.py" for r in f.why)
    assert "tests/test_termui.py" in out.tests[:3]


async def test_a_look_alike_beside_the_file_holding_the_tasks_phrase_comes_after_it(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "addons/__init__.py": "",
            "addons/serverplayback.py": "class ServerPlayback:\n"
            "    '''Server replay: answer from recorded flows.'''\n\n"
            "    def next(self, request):\n        return request\n",
            "addons/clientplayback.py": "class ClientPlayback:\n"
            "    '''Replay flows that were recorded: send each of their requests again, keys chosen by matching.'''\n\n"
            "    def replay_requests(self, flows, keys):\n        return flows\n\n"
            "    def recorded(self, matching):\n        return []\n",
            "addons/other.py": "def unrelated():\n    return 1\n",
            "tests/test_serverplayback.py": "from addons.serverplayback import ServerPlayback\n\n\n"
            "def test_next():\n    assert ServerPlayback()\n",
            "tests/test_clientplayback.py": "from addons.clientplayback import ClientPlayback\n\n\n"
            "def test_replay():\n    assert ClientPlayback()\n",
        },
    )
    out = await ask(
        empty_repo,
        "pallium_knowledge_context",
        task="Server replay should ignore chosen keys when matching requests to recorded flows.",
    )
    # clientplayback.py shares more of the task's words; serverplayback.py holds its phrase
    assert out.read[0].path == "addons/serverplayback.py"
    assert out.tests[0] == "tests/test_serverplayback.py"


async def test_a_command_line_task_reads_the_entry_point(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/_main.py": "import sys\n\n\ndef main():\n    '''Run the command line tool.'''\n    return sys.argv\n",
            "pkg/_client.py": "class Client:\n    def __init__(self, timeout=5):\n        self.timeout = timeout\n",
            "pkg/_config.py": "class Timeout:\n    pass\n",
            "tests/test_main.py": "from pkg._main import main\n\n\ndef test_main():\n    assert main()\n",
            "tests/test_client.py": "from pkg._client import Client\n\n\ndef test_client():\n    assert Client()\n",
        },
    )
    out = await ask(empty_repo, "pallium_knowledge_context", task="Add a --timeout option to the command line client.")
    entry = [f for f in out.read if f.path == "pkg/_main.py"]
    assert entry and any("command-line entry point" in r for r in entry[0].why)
    assert "tests/test_main.py" in out.tests[:3]


async def test_a_test_that_changes_with_the_file_is_ranked_with_the_reason_shown(empty_repo: Path):
    """`tests/test_replay.py` is named after nothing in the task; history ties it to `ledger.py`."""
    base = {
        "pkg/__init__.py": "",
        "pkg/ledger.py": "def balance(entries):\n    return sum(entries)\n",
        "pkg/report.py": "def render(rows):\n    return rows\n",
        "tests/test_replay.py": "def test_it():\n    assert True\n",
        "tests/test_report.py": "def test_render():\n    assert True\n",
    }
    commit(empty_repo, "Start", base, when=_when(0))
    for i in range(1, 7):
        commit(
            empty_repo,
            f"Fix the balance {i}",
            {
                "pkg/ledger.py": base["pkg/ledger.py"] + f"# {i}\n",
                "tests/test_replay.py": base["tests/test_replay.py"] + f"# {i}\n",
            },
            when=_when(i),
        )
        commit(empty_repo, f"Render {i}", {"pkg/report.py": base["pkg/report.py"] + f"# {i}\n"}, when=_when(i + 10))
    out = await ask(empty_repo, "pallium_knowledge_context", task="The ledger balance should skip voided entries.")
    assert out.read[0].path == "pkg/ledger.py"
    assert out.tests[0] == "tests/test_replay.py"
    assert "tests/test_report.py" not in out.tests


async def test_a_co_changed_file_found_by_words_gains_and_says_why(empty_repo: Path):
    base = {
        "pkg/__init__.py": "",
        "pkg/ledger.py": "def balance(entries):\n    return sum(entries)\n",
        "pkg/voids.py": "def voided_entries(entries):\n    return [e for e in entries if e]\n",
        "pkg/audit.py": "def voided_entries_audit(entries):\n    return entries\n",
    }
    commit(empty_repo, "Start", base, when=_when(0))
    for i in range(1, 7):
        commit(
            empty_repo,
            f"Balance {i}",
            {"pkg/ledger.py": base["pkg/ledger.py"] + f"# {i}\n", "pkg/voids.py": base["pkg/voids.py"] + f"# {i}\n"},
            when=_when(i),
        )
    out = await ask(empty_repo, "pallium_knowledge_context", task="The ledger balance should skip voided entries.")
    voids = [f for f in out.read if f.path == "pkg/voids.py"]
    assert voids and any(r.startswith("changes with pkg/ledger.py (in ") for r in voids[0].why)
    read = [f.path for f in out.read]
    assert "pkg/audit.py" not in read or read.index("pkg/voids.py") < read.index("pkg/audit.py")


async def test_a_bundle_stays_out_unless_the_task_names_it(empty_repo: Path):
    bundle = "\n".join(["(function(){var py=1,Mb=2,c=3;" + "x" * 1500 + "})();"] * 40) + "\n"
    commit(
        empty_repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/sizes.py": "def format_mb(size):\n    '''Sizes in MB for .py files.'''\n    return size\n",
            "docs/assets/player.js": "/* player v2 */\n" + bundle,
            "web/dist/app.js": "function formatMb(size) { return size }\n",
            "web/static/vendor-BS4xPthR.js": "function formatMb(size) { return size }\n",
        },
    )
    out = await ask(
        empty_repo, "pallium_knowledge_context", task="Show sizes in MB, e.g. for .py files, with format_mb."
    )
    read = [f.path for f in out.read]
    assert read[0] == "pkg/sizes.py"
    assert not {"docs/assets/player.js", "web/dist/app.js", "web/static/vendor-BS4xPthR.js"} & set(read)
    explained = await ask(empty_repo, "pallium_explain", path="docs/assets/player.js")
    assert explained.status == "skipped:minified"
    named = await ask(empty_repo, "pallium_knowledge_context", task="Update docs/assets/player.js to version 3.")
    assert [f.path for f in named.read][:1] == ["docs/assets/player.js"]
    assert any("not indexed" in r for r in named.read[0].why)
