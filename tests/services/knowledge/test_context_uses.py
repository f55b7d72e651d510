"""`knowledge context` follows what a named definition uses to the file holding it, and leaves a data
table (one literal dict of hundreds of entries) out unless the task names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio


def _columns_repo(empty_repo: Path) -> Path:
    """`SpeedColumn` in columns.py formats its speed with `units.decimal`; the task's words are not in
    units.py, and columns.py imports a bar and a text module too, which its speed lines do not use."""
    commit(
        empty_repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/units.py": "def decimal(size):\n    return f'{size} kB'\n\n\ndef pick_suffix(size, suffixes):\n"
            "    return suffixes[0]\n",
            "pkg/bar.py": "class Bar:\n    def render(self, width):\n        return '#' * width\n",
            "pkg/text.py": "class Text:\n    def __init__(self, value):\n        self.value = value\n",
            "pkg/columns.py": "from pkg import units\nfrom pkg.bar import Bar\nfrom pkg.text import Text\n\n\n"
            "class BarColumn:\n    def render(self, task):\n        return Bar().render(task.width)\n\n\n"
            "class SpeedColumn:\n    def render(self, task):\n        speed = task.speed\n"
            "        shown = units.decimal(int(speed))\n        return Text(shown + '/s')\n",
            "pkg/app.py": "from pkg.columns import BarColumn, SpeedColumn\nfrom pkg.text import Text\n\n\n"
            "def run():\n    return [BarColumn(), SpeedColumn(), Text('x')]\n",
            "tests/test_columns.py": "from pkg.columns import SpeedColumn\n\n\ndef test_speed():\n"
            "    assert SpeedColumn()\n",
            "tests/test_units.py": "from pkg.units import decimal\n\n\ndef test_decimal():\n    assert decimal(1)\n",
        },
    )
    return empty_repo


async def test_the_file_a_named_definition_uses_where_the_task_words_are_is_read(empty_repo: Path):
    repo = _columns_repo(empty_repo)
    out = await ask(
        repo, "pallium_knowledge_context", task="SpeedColumn should take a binary option and show speeds in KiB/s."
    )
    read = [f.path for f in out.read]
    assert read[0] == "pkg/columns.py"
    assert "pkg/units.py" in read[:3]
    used = next(f for f in out.read if f.path == "pkg/units.py")
    assert any("SpeedColumn in pkg/columns.py uses its units" in r for r in used.why)
    # BarColumn's Bar is imported too, but not by the lines the task's words are on
    assert "pkg/bar.py" not in read


async def test_a_local_variable_named_like_an_imported_module_is_no_use_of_it(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/traceback.py": "class Traceback:\n    def frames(self):\n        return []\n",
            "pkg/render.py": "class LogRender:\n    def __init__(self, show_level=True):\n"
            "        self.show = show_level\n",
            "pkg/handler.py": "from pkg import traceback\nfrom pkg.render import LogRender\n\n\n"
            "class Handler:\n    def __init__(self, show_level=True):\n"
            "        self.render = LogRender(\n            show_level=show_level,\n        )\n\n"
            "    def emit(self, record, traceback=None):\n        level = record.level\n"
            "        return self.render(level, traceback)\n",
            "pkg/other.py": "from pkg import traceback\n\n\ndef run():\n    return traceback.Traceback()\n",
        },
    )
    out = await ask(empty_repo, "pallium_knowledge_context", task="Handler should show the level in its own column.")
    read = [f.path for f in out.read]
    assert read[0] == "pkg/handler.py"
    assert "pkg/render.py" in read  # `LogRender(` opens the statement two lines above `show_level=`
    assert "pkg/traceback.py" not in read  # `traceback` there is a parameter, not the module


async def test_a_data_table_stays_out_unless_the_task_names_it(empty_repo: Path):
    table = "EMOJI = {\n" + "".join(f'    "thumbs_up_{i}": "x{i}",\n' for i in range(400)) + "}\n"
    commit(
        empty_repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/_emoji_codes.py": table,
            "pkg/_emoji_replace.py": "import re\n\nfrom pkg._emoji_codes import EMOJI\n\n\n"
            "def replace_emoji_codes(text, variant=None):\n"
            "    '''Replace emoji codes such as :thumbs_up: and a variant suffix.'''\n"
            "    return re.sub(r':(\\S*?)(?:(?:\\-)(emoji|text))?:', lambda m: EMOJI.get(m.group(1), ''), text)\n",
            "pkg/emoji.py": "from pkg._emoji_replace import replace_emoji_codes\n\n\nclass Emoji:\n"
            "    def __init__(self, name):\n        self.name = replace_emoji_codes(name)\n",
            "tests/test_emoji.py": "from pkg.emoji import Emoji\n\n\ndef test_emoji():\n    assert Emoji('x')\n",
        },
    )
    task = "Emoji codes with a variant suffix should match in any case, so :Thumbs_Up-emoji: works."
    out = await ask(empty_repo, "pallium_knowledge_context", task=task)
    read = [f.path for f in out.read]
    assert "pkg/_emoji_replace.py" in read[:2]
    assert "pkg/_emoji_codes.py" not in read
    named = await ask(empty_repo, "pallium_knowledge_context", task="Add a new entry to pkg/_emoji_codes.py.")
    assert [f.path for f in named.read][:1] == ["pkg/_emoji_codes.py"]
    # nor is the table part of what its module offers
    mapped = await ask(empty_repo, "pallium_knowledge_map", full=True)
    pkg = next(m for m in mapped.full if m["path"] == "pkg")
    surface = {s["name"] for s in pkg["surface"]}
    assert "replace_emoji_codes" in surface
    assert "EMOJI" not in surface


async def test_wrappers_of_a_named_definition_step_back_and_a_barrels_test_is_the_files_test(empty_repo: Path):
    """`serveStatic` in each runtime adapter wraps the middleware's `serveStatic` it imports; the test of
    `request-id/index.ts`, which passes `request-id.ts` on, is the test of `request-id.ts`."""
    adapter = (
        "import { serveStatic as baseServeStatic } from '../../middleware/serve-static'\n\n"
        "export const serveStatic = (options) => {\n  return baseServeStatic({ ...options, precompressed: true })\n}\n"
    )
    commit(
        empty_repo,
        "Start",
        {
            "package.json": '{"name": "web", "scripts": {"test": "vitest --run"}}\n',
            "src/middleware/serve-static/index.ts": "export const serveStatic = (options) => {\n"
            "  // pick the precompressed file the client accepts\n  return options.precompressed\n}\n",
            "src/middleware/serve-static/index.test.ts": "import { serveStatic } from '.'\n\n"
            "test('precompressed', () => { serveStatic({}) })\n",
            "src/adapter/bun/serve-static.ts": adapter,
            "src/adapter/deno/serve-static.ts": adapter,
            "src/adapter/node/serve-static.ts": adapter,
            "src/middleware/request-id/request-id.ts": "export type RequestIdVariables = { requestId: string }\n"
            "export const requestId = (options) => {\n"
            "  // validate an incoming request id\n  return options.limitLength\n}\n",
            "src/middleware/request-id/index.ts": "import type { RequestIdVariables } from './request-id'\n"
            "export type { RequestIdVariables }\nexport { requestId } from './request-id'\n\n"
            "declare module '../..' {\n  interface ContextVariableMap extends RequestIdVariables {}\n}\n",
            "src/middleware/request-id/index.test.ts": "import { requestId as run } from '.'\n\n"
            "test('works', () => { run({}) })\n",
        },
    )
    out = await ask(
        empty_repo,
        "pallium_knowledge_context",
        task="serveStatic with precompressed should pick the file by the client's q-values.",
    )
    read = [f.path for f in out.read]
    assert read[0] == "src/middleware/serve-static/index.ts"
    assert not {"src/adapter/bun/serve-static.ts", "src/adapter/deno/serve-static.ts"} & set(read)
    assert out.tests[0] == "src/middleware/serve-static/index.test.ts"
    validated = await ask(
        empty_repo, "pallium_knowledge_context", task="requestId should validate an incoming request id."
    )
    assert validated.read[0].path == "src/middleware/request-id/request-id.ts"
    assert validated.tests[:1] == ["src/middleware/request-id/index.test.ts"]


async def test_the_file_reading_a_named_setting_leads_to_what_does_the_work(empty_repo: Path):
    """`use_attribute_docstrings` is only declared in the config classes; `_fields.py` reads it and
    calls `extract_docstrings_from_cls` of `_docs.py`, the file a change to that setting goes to."""
    commit(
        empty_repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/_internal/__init__.py": "",
            "pkg/config.py": "from typing import TypedDict\n\n\nclass ConfigDict(TypedDict):\n"
            "    use_attribute_docstrings: bool\n    strict: bool\n",
            "pkg/_internal/_config.py": "class ConfigWrapper:\n    use_attribute_docstrings: bool\n\n"
            "    def __init__(self, config):\n"
            "        self.use_attribute_docstrings = config.get('use_attribute_docstrings')\n",
            "pkg/_internal/_docs.py": "def extract_docstrings_from_cls(cls):\n"
            "    # read each attribute's string from the class source\n"
            "    return {}\n",
            "pkg/_internal/_typing.py": "def eval_type(value):\n    return value\n",
            "pkg/_internal/_fields.py": "from pkg._internal._config import ConfigWrapper\n"
            "from pkg._internal._docs import extract_docstrings_from_cls\n"
            "from pkg._internal._typing import eval_type\n\n\ndef _update_from_docstrings(cls, fields):\n"
            "    docs = extract_docstrings_from_cls(cls)\n    for name in fields:\n"
            "        fields[name] = docs.get(name)\n\n\n"
            "def collect_fields(cls, config_wrapper: ConfigWrapper):\n"
            "    fields = {n: eval_type(t) for n, t in cls.__annotations__.items()}\n"
            "    if config_wrapper.use_attribute_docstrings:\n        _update_from_docstrings(cls, fields)\n"
            "    return fields\n",
            "tests/test_fields.py": "from pkg._internal._fields import collect_fields\n\n\ndef test_collect():\n"
            "    assert collect_fields\n",
        },
    )
    out = await ask(
        empty_repo,
        "pallium_knowledge_context",
        task="use_attribute_docstrings should read field docstrings of a class defined inside a function.",
    )
    read = [f.path for f in out.read]
    assert "pkg/_internal/_docs.py" in read
    assert "pkg/_internal/_typing.py" not in read
