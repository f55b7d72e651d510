"""`knowledge context` reads the words that carry a task and the repository's own rules for its checks.

Each test builds a small real repository whose traps are the classes real ones showed: a minified
bundle and a generated file full of short names, a member named like a plain word (`Frame.type`
for "Content-Type"), a method named like a verb (`Request.make`), the repository's own name as a
folder, test data beside tests, and an AGENTS.md that says how to run the tests.
"""

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio

_MINIFIED = "var c=1,g=2,py=3,Mb=4;" * 60  # one long line of one- and two-letter names


@pytest.fixture
def views_repo(empty_repo: Path) -> Path:
    commit(
        empty_repo,
        "Start",
        {
            "README.md": "# views\n\nContent views for messages.\n",
            "views/__init__.py": "from views.json_view import JsonView\n",
            "views/json_view.py": '"""Pretty-print JSON bodies."""\n\n\nclass JsonView:\n'
            '    """Shows a JSON body."""\n\n    def render(self, body):\n        return body\n',
            "views/frames.py": "class Frame:\n    type: int = 0\n    content: bytes = b''\n",
            "net/request.py": "class Request:\n    def make(self):\n        return self\n",
            "docs/assets/player.min.js": _MINIFIED,
            "web/_options_gen.ts": "export interface OptionsState {\n  view_json: boolean\n  content_type: string\n}\n",
            "tests/test_json_view.py": "from views.json_view import JsonView\n\n\ndef test_render():\n"
            "    assert JsonView().render(1) == 1\n",
            "tests/test_frames.py": "from views.frames import Frame\n\n\ndef test_frame():\n"
            "    assert Frame.type == 0\n",
            "tests/data/json_view.har": '{"log": {"entries": []}}\n',
            "tests/data/json_view.pem": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
            "AGENTS.md": "- This project uses uv. Always use `uv run pytest` and never run pytest directly.\n"
            "- To run all tests: `uv run tox`.\n",
        },
    )
    return empty_repo


async def test_a_json_view_task_reads_the_json_view_not_a_member_named_like_its_words(views_repo: Path):
    await ask(views_repo, "pallium_knowledge_build", model=False)
    task = "Make the JSON view pretty-print bodies with Content-Type application/json, e.g. indented"
    out = await ask(views_repo, "pallium_knowledge_context", task=task)
    read = [f.path for f in out.read]
    assert read[0] == "views/json_view.py", [(f.path, f.why) for f in out.read]
    assert read[0] == "views/json_view.py"
    assert "views/frames.py" not in read  # `Frame.type` and `Frame.content` are members, not the task's nouns
    assert "net/request.py" not in read  # "Make" is a verb, not `Request.make`
    assert "docs/assets/player.min.js" not in read and "web/_options_gen.ts" not in read
    assert out.tests[0] == "tests/test_json_view.py"


async def test_test_data_is_never_listed_as_a_test(views_repo: Path):
    await ask(views_repo, "pallium_knowledge_build", model=False)
    out = await ask(views_repo, "pallium_knowledge_context", task="the json view of a HAR export")
    assert "tests/test_json_view.py" in out.tests
    assert not [t for t in out.tests if t.endswith((".har", ".pem"))]


async def test_checks_follow_the_repositorys_agents_file(views_repo: Path):
    await ask(views_repo, "pallium_knowledge_build", model=False)
    out = await ask(views_repo, "pallium_knowledge_context", task="the JSON view renders bodies")
    assert out.checks[0] == "uv run pytest tests/test_json_view.py"
    assert not [c for c in out.checks if "python -m pytest" in c]
    assert "uv run tox" in out.checks


async def test_without_rules_the_generic_command_stays(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/codec.py": "def encode(x):\n    return x\n",
            "tests/test_codec.py": "from pkg.codec import encode\n\n\ndef test_encode():\n    assert encode(1) == 1\n",
        },
    )
    await ask(empty_repo, "pallium_knowledge_build", model=False)
    out = await ask(empty_repo, "pallium_knowledge_context", task="the codec should encode bytes")
    assert out.read[0].path == "pkg/codec.py"
    assert out.checks[0] == "python -m pytest -q tests/test_codec.py"


async def test_a_file_named_by_two_words_of_the_task_comes_first(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "addons/__init__.py": "",
            "addons/proxyauth.py": "def check(user, password):\n    return True\n",
            "addons/upstream_auth.py": "def authenticate(user, password):\n    return True\n",
            "addons/stickyauth.py": "def authenticate_again(password):\n    return True\n",
            "tests/test_proxyauth.py": "from addons.proxyauth import check\n\n\ndef test_check():\n"
            "    assert check('a', 'b')\n",
        },
    )
    await ask(empty_repo, "pallium_knowledge_build", model=False)
    out = await ask(empty_repo, "pallium_knowledge_context", task="Proxy authentication should accept bcrypt hashes")
    assert out.read[0].path == "addons/proxyauth.py"
    assert "the task spells its name" in out.read[0].why
    assert out.tests[0] == "tests/test_proxyauth.py"


async def test_short_tokens_match_nothing(views_repo: Path):
    await ask(views_repo, "pallium_knowledge_build", model=False)
    out = await ask(views_repo, "pallium_knowledge_context", task="c g py Mb")
    assert out.read == []


async def test_the_code_using_a_named_error_is_read_through_its_resolved_references(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/errors.py": "class DecodingError(Exception):\n    pass\n",
            "pkg/decoders.py": "from pkg.errors import DecodingError\n\n\nclass GZipDecoder:\n"
            "    def decode(self, data):\n        raise DecodingError('bad')\n",
            "pkg/other.py": "def unrelated():\n    return 1\n",
            "tests/test_decoders.py": "from pkg.decoders import GZipDecoder\n\n\ndef test_gzip():\n"
            "    assert GZipDecoder()\n",
        },
    )
    await ask(empty_repo, "pallium_knowledge_build", model=False)
    out = await ask(empty_repo, "pallium_knowledge_context", task="Raise a DecodingError when a gzip body is truncated")
    read = {f.path: f.why for f in out.read}
    assert "pkg/errors.py" in read and "defines DecodingError" in read["pkg/errors.py"]
    assert "uses DecodingError (a resolved reference)" in read["pkg/decoders.py"]
    assert "pkg/other.py" not in read
    assert out.tests[0] == "tests/test_decoders.py"
