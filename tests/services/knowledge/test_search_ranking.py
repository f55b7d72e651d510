"""Search ranks modules by what they are about: plain words by name, path and purpose; names by surface."""

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio

# A web module whose surface is full of `config` and `build` names that many files call, beside
# small modules named for those words: the words' modules, not the web one, are what they mean.
SERVER = '''"""The web server."""


def config():
    """Return the server's settings."""
    return {}


def config_path():
    return "server.toml"


def build():
    return Handler()


class Handler:
    def config(self):
        return config()

    def build(self):
        return build()
'''


@pytest.fixture
def words_repo(empty_repo: Path) -> Path:
    callers = {
        f"app/web/{name}.py": "from app.web.server import build, config, config_path\n\n"
        f"def {name}():\n    return build(), config(), config_path()\n"
        for name in ("routes", "views", "forms", "admin")
    }
    jobs = {
        f"app/jobs/{name}.py": "from app.web.server import build, config\n\n"
        f"def {name}():\n    return build(), config()\n"
        for name in ("nightly", "weekly")
    }
    commit(
        empty_repo,
        "Start",
        {
            "app/__init__.py": "",
            "app/web/__init__.py": "",
            "app/web/server.py": SERVER,
            **callers,
            **jobs,
            "app/config/__init__.py": "",
            "app/config/loader.py": '"""Read the config files and the environment."""\n\n\n'
            "def read_file(path):\n    return open(path).read()\n",
            "app/config/checks.py": "def check(values):\n    return bool(values)\n",
            "app/build/__init__.py": "",
            "app/build/steps.py": '"""The build: compile, then package."""\n\n\n'
            "class BuildPlan:\n    def steps(self):\n        return []\n",
            "app/build/package.py": "from app.build.steps import BuildPlan\n\n"
            "def package():\n    return BuildPlan().steps()\n",
            "tools/cli.py": "from app.config.loader import read_file\nfrom app.build.package import package\n\n"
            "def main():\n    return read_file('x'), package()\n",
        },
    )
    return empty_repo


async def test_a_plain_word_ranks_the_module_named_for_it_above_one_with_methods_of_that_name(words_repo: Path):
    await ask(words_repo, "pallium_knowledge_build", model=False)
    for word, module in (("config", "app%2Fconfig"), ("build", "app%2Fbuild")):
        out = await ask(words_repo, "pallium_knowledge_search", query=word)
        slugs = [r.slug for r in out.results]
        assert slugs[0] == module, (word, slugs)
        assert "app%2Fweb" in slugs  # still found: it does name things `config` and `build`


async def test_a_name_in_the_query_finds_the_module_that_defines_it(words_repo: Path):
    await ask(words_repo, "pallium_knowledge_build", model=False)
    for query, module in (
        ("config_path", "app%2Fweb"),  # snake_case
        ("BuildPlan", "app%2Fbuild"),  # CamelCase
        ("Handler.config", "app%2Fweb"),  # dotted
        ("where is `config` defined", "app%2Fweb"),  # quoted as code
    ):
        out = await ask(words_repo, "pallium_knowledge_search", query=query)
        assert out.results[0].slug == module, (query, [r.slug for r in out.results])


async def test_context_for_a_plain_word_task_leads_with_the_module_about_it(words_repo: Path):
    await ask(words_repo, "pallium_knowledge_build", model=False)
    out = await ask(words_repo, "pallium_knowledge_context", task="the config loader should read the environment")
    assert out.modules[0].slug == "app%2Fconfig"
    assert out.read[0].path == "app/config/loader.py"


async def test_a_name_beyond_the_listed_surface_still_finds_its_module(words_repo: Path):
    from services.knowledge.modules import SURFACE

    helpers = "".join(f"def helper_{i}():\n    return {i}\n\n\n" for i in range(SURFACE + 5))
    commit(words_repo, "Add helpers", {"app/build/helpers.py": helpers + "def zephyr_quokka():\n    return 0\n"})
    await ask(words_repo, "pallium_knowledge_build", model=False)
    got = await ask(words_repo, "pallium_knowledge_get", slug="app%2Fbuild", full=True)
    assert "zephyr_quokka" not in [s["name"] for s in got.data["surface"]]
    out = await ask(words_repo, "pallium_knowledge_search", query="zephyr_quokka")
    assert out.results[0].slug == "app%2Fbuild"


async def test_context_for_a_plain_word_reads_the_files_named_for_it_before_a_namesakes(words_repo: Path):
    await ask(words_repo, "pallium_knowledge_build", model=False)
    out = await ask(words_repo, "pallium_knowledge_context", task="fix the build")
    assert out.modules[0].slug == "app%2Fbuild"
    paths = [f.path for f in out.read]
    assert paths[0].startswith("app/build/") and "app/web/server.py" not in paths[:2], paths
    named = await ask(words_repo, "pallium_knowledge_context", task="Handler.build returns the wrong handler")
    assert named.read[0].path == "app/web/server.py"
