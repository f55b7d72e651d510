"""`knowledge map`: modules from folders merged by size and imports, with their facts."""

import json
from pathlib import Path

import pytest

from kernel.errors import PalliumError
from tests.conftest import write
from tests.services.knowledge.conftest import ask

pytestmark = pytest.mark.anyio


async def test_folders_become_modules_small_ones_fold_into_their_parent_and_noise_is_left_out(app_repo: Path):
    out = await ask(app_repo, "pallium_knowledge_map", full=True)
    by_slug = {m["slug"]: m for m in out.full}
    assert set(by_slug) == {"@root", "app%2Fcore", "app%2Fweb", "db", "tests"}
    assert "app/core/extra/helpers.py" in by_slug["app%2Fcore"]["files"]  # a one-file folder joined its parent
    every_file = {f for m in out.full for f in m["files"]}
    assert "package-lock.json" not in every_file and "vendor/lib/thing.py" not in every_file
    assert {"db/schema.sql", "db/seed.sql", "db/deploy.sh", "README.md"} <= every_file
    assert by_slug["db"]["languages"] == {"sql": 2, "bash": 1}


async def test_a_module_has_ranked_surface_edges_both_ways_packages_tests_and_history(app_repo: Path):
    out = await ask(app_repo, "pallium_knowledge_map", full=True)
    core = next(m for m in out.full if m["slug"] == "app%2Fcore")
    web = next(m for m in out.full if m["slug"] == "app%2Fweb")
    names = [s["name"] for s in core["surface"]]
    assert names[:2] == ["parse_config", "Engine"]  # four files reference parse_config, three Engine
    assert core["surface"][0]["referencing_files"] > core["surface"][2]["referencing_files"]
    assert web["depends_on"] == [{"module": "app%2Fcore", "path": "app/core", "imports": 2}]
    assert {"module": "app%2Fweb", "path": "app/web", "imports": 2} in core["used_by"]
    assert web["external"] == ["requests"]
    assert core["tests"][0] == "tests/test_engine.py"
    assert "tests/test_server.py" in web["tests"]
    assert [h["subject"] for h in core["history"]] == ["Revert the job queue change", "Start the engine"]
    assert out.incidents == 1


async def test_compact_map_lists_slugs_and_counts_with_version_2(app_repo: Path):
    out = await ask(app_repo, "pallium_knowledge_map", limit=2)
    assert out.version == 2 and out.full is None
    assert len(out.modules) == 2 and out.truncated and out.module_count == 5


async def test_modules_json_sets_boundaries_excludes_and_lets_named_untracked_files_in(app_repo: Path):
    write(app_repo, "app/core/extra/more.py", "def more():\n    return 2\n")
    write(app_repo, "app/core/extra/ignored_untracked.py", "x = 1\n")
    write(
        app_repo,
        ".pallium/modules.json",
        json.dumps(
            {
                "boundaries": ["app/core/extra"],
                "exclude": ["db/seed.sql"],
                "include_untracked": ["app/core/extra/more.py"],
            }
        ),
    )
    out = await ask(app_repo, "pallium_knowledge_map", full=True)
    by_slug = {m["slug"]: m for m in out.full}
    assert by_slug["app%2Fcore%2Fextra"]["files"] == ["app/core/extra/helpers.py", "app/core/extra/more.py"]
    every_file = {f for m in out.full for f in m["files"]}
    assert "db/seed.sql" not in every_file and "app/core/extra/ignored_untracked.py" not in every_file


async def test_a_broken_modules_json_is_refused_naming_the_file(app_repo: Path):
    write(app_repo, ".pallium/modules.json", '{"boundaries": "app"}')
    with pytest.raises(PalliumError) as caught:
        await ask(app_repo, "pallium_knowledge_map")
    assert caught.value.code == "invalid_input" and caught.value.details["field"] == "boundaries"


async def test_surface_counts_files_that_reach_a_name_through_imports_not_every_namesake(empty_repo: Path):
    from tests.services.knowledge.conftest import commit

    files = {
        "net/__init__.py": "",
        "net/dns.py": "def dns(name):\n    return name\n\n\ndef resolve(name):\n    return dns(name)\n",
        "app/__init__.py": "",
        "app/lookup.py": "from net.dns import dns\n\n\ndef lookup(x):\n    return dns(x)\n",
    }
    for i in range(5):  # files naming their own `dns` variable, never importing net/dns.py
        files[f"tools/t{i}.py"] = f"def tool{i}(dns):\n    return dns\n"
    commit(empty_repo, "Start", files)
    out = await ask(empty_repo, "pallium_knowledge_map", full=True)
    net = next(m for m in out.full if m["path"] == "net")
    counts = {s["name"]: s["referencing_files"] for s in net["surface"]}
    assert counts["dns"] == 1  # app/lookup.py imports it; the five tools only share the word


async def test_surface_counts_the_resolved_references_not_the_importers_naming_the_word(empty_repo: Path):
    """Four files import `filt`; two use its `match` (as `filt.match` and after `from filt import match`),
    one through a package passing it on; the others call `re.match` or `self.match`."""
    from tests.services.knowledge.conftest import commit

    commit(
        empty_repo,
        "Start",
        {
            "lib/__init__.py": "from lib.filt import *\n",
            "lib/filt.py": "def match(flow):\n    return flow\n\n\ndef parse(text):\n    return text\n",
            "lib/extra.py": "def helper():\n    return 1\n",
            "app/__init__.py": "",
            "app/a.py": "from lib import filt\n\n\ndef run(f):\n    return filt.match(f), filt.parse(f)\n",
            "app/b.py": "from lib.filt import match\n\n\ndef go(f):\n    return match(f)\n",
            "app/c.py": "import lib\n\n\ndef via(f):\n    return lib.match(f)\n",
            "app/d.py": "import re\nfrom lib import filt\n\n\ndef other(s):\n"
            "    return re.match('x', s), filt.parse(s)\n",
            "app/e.py": "from lib import filt\n\n\nclass V:\n    def match(self):\n"
            "        return self.match(), filt.parse(1)\n",
        },
    )
    facts = await ask(empty_repo, "pallium_facts", sections=["resolved"])
    assert facts.resolved_referencing["lib/filt.py#match"] == 3  # a, b, c
    assert facts.resolved_referencing["lib/filt.py#parse"] == 3  # a, d, e
    out = await ask(empty_repo, "pallium_knowledge_map", full=True)
    lib = next(m for m in out.full if m["path"] == "lib")
    counts = {s["name"]: s["referencing_files"] for s in lib["surface"]}
    assert counts["match"] == 3  # by name and import alone it was 5: d and e import filt and say `match`


async def test_a_generated_file_gives_a_module_neither_surface_nor_purpose(empty_repo: Path):
    from tests.services.knowledge.conftest import commit

    commit(
        empty_repo,
        "Start",
        {
            "web/__init__.py": "",
            "web/views.py": 'def render(page):\n    """Render one page of the site."""\n    return page\n',
            "web/api_pb2.py": 'class ApiRequest:\n    """Generated request message."""\n',
            "web/_options_gen.py": 'def option_names():\n    """Every option, generated."""\n    return []\n',
        },
    )
    out = await ask(empty_repo, "pallium_knowledge_map", full=True)
    web = next(m for m in out.full if m["path"] == "web")
    assert [s["name"] for s in web["surface"]] == ["render"]
    built = await ask(empty_repo, "pallium_knowledge_build", model=False)
    assert built.modules >= 1
    doc = await ask(empty_repo, "pallium_knowledge_get", slug="web", section="Purpose")
    assert "generated" not in doc.sections["Purpose"].lower() and "Render one page" in doc.sections["Purpose"]
