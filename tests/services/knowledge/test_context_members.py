"""`knowledge context` on a JavaScript library whose objects go by short names (`conf`, `req`) and whose
tests live in a folder per module with a file per member (`__tests__/configuration/use.test.js`).

The traps are the classes a held-out JavaScript repository showed: a dotted name whose qualifier the
index does not know (`conf.toJSON`, where the class is `Configuration`) matched every `toJSON` of the
repository; the keyword `throw` in a method's body read as a use of a `throw` method another file
defines; and the test named after the member the task names, in the folder named after its module,
ranked under tests that only share a word.
"""

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio


def _object_module(name: str, members: str) -> str:
    return f"'use strict'\n\n/** The {name} of one exchange. */\nmodule.exports = {{\n{members}}}\n"


def _test(module: str, call: str) -> str:
    return (
        "'use strict'\n\nconst { describe, it } = require('node:test')\nconst assert = require('node:assert')\n"
        f"const subject = require('../../lib/{module}')\n\n"
        f"describe('{module}', () => {{\n  it('works', () => {{\n    assert.ok({call})\n  }})\n}})\n"
    )


@pytest.fixture
def shop_repo(empty_repo: Path) -> Path:
    commit(
        empty_repo,
        "Start",
        {
            "package.json": '{"name": "shop", "version": "1.0.0", "main": "lib/configuration.js"}\n',
            "lib/configuration.js": "'use strict'\n\nconst context = require('./context')\n"
            "const request = require('./request')\n\n"
            "/** The settings and middleware of one shop. */\n"
            "module.exports = class Configuration {\n"
            "  constructor (options = {}) {\n    this.currency = options.currency || 'EUR'\n"
            "    this.middleware = []\n    this.context = Object.create(context)\n"
            "    this.request = Object.create(request)\n  }\n\n"
            "  toJSON () {\n    return { currency: this.currency }\n  }\n\n"
            "  inspect () {\n    return this.toJSON()\n  }\n\n"
            "  use (fn) {\n"
            "    if (typeof fn !== 'function') throw new TypeError('middleware must be a function')\n"
            "    this.middleware.push(fn)\n    return this\n  }\n}\n",
            "lib/context.js": _object_module(
                "context",
                "  toJSON () {\n    return { request: this.request.toJSON() }\n  },\n\n"
                "  throw (status, message) {\n    const err = new Error(message)\n    err.status = status\n"
                "    throw err\n  },\n\n"
                "  get cookies () {\n    return this._cookies || (this._cookies = new Map())\n  },\n",
            ),
            "lib/request.js": _object_module(
                "request",
                "  toJSON () {\n    return { method: this.method, url: this.url }\n  },\n\n"
                "  get secure () {\n    return this.protocol === 'https'\n  },\n\n"
                "  get cookieHeader () {\n    return this.headers.cookie || ''\n  },\n",
            ),
            "lib/response.js": _object_module(
                "response",
                "  toJSON () {\n    return { status: this.status }\n  },\n\n"
                "  set status (code) {\n    this._status = code\n  },\n",
            ),
            "__tests__/configuration/use.test.js": _test("configuration", "new subject().use(() => {})"),
            "__tests__/configuration/toJSON.test.js": _test("configuration", "new subject().toJSON()"),
            "__tests__/context/throw.test.js": _test("context", "subject.throw"),
            "__tests__/context/cookies.test.js": _test("context", "subject.cookies"),
            "__tests__/context/toJSON.test.js": _test("context", "subject.toJSON"),
            "__tests__/request/toJSON.test.js": _test("request", "subject.toJSON"),
            "__tests__/request/secure.test.js": _test("request", "subject.secure && subject.cookieHeader"),
            "__tests__/response/toJSON.test.js": _test("response", "subject.toJSON"),
            "__tests__/configuration/context.test.js": _test(
                "configuration", "new subject().context.cookies && new subject().request.secure"
            ),
        },
    )
    return empty_repo


async def _context(repo: Path, task: str) -> tuple[dict[str, str], list[str]]:
    out = await ask(repo, "pallium_knowledge_context", task=task)
    return {f.path: f.why for f in out.read}, out.tests


async def test_an_unknown_qualifier_prefixing_one_class_narrows_to_it(shop_repo: Path):
    await ask(shop_repo, "pallium_knowledge_build", model=False)
    read, tests = await _context(shop_repo, "conf.toJSON and conf.inspect should also show the currency setting")
    assert next(iter(read)) == "lib/configuration.js"
    for other in ("lib/context.js", "lib/request.js", "lib/response.js"):
        assert other not in read  # each defines a `toJSON` of its own
    assert tests[0] == "__tests__/configuration/toJSON.test.js"


async def test_a_conventional_short_qualifier_names_its_module(shop_repo: Path):
    await ask(shop_repo, "pallium_knowledge_build", model=False)
    read, _ = await _context(shop_repo, "ctx.toJSON should also list the state the middleware kept")
    assert next(iter(read)) == "lib/context.js"
    assert "lib/request.js" not in read and "lib/response.js" not in read


async def test_a_keyword_in_a_body_is_no_use_of_a_member_of_that_name(shop_repo: Path):
    await ask(shop_repo, "pallium_knowledge_build", model=False)
    task = "conf.use should throw a TypeError that names the type it received when it is not given a function"
    read, tests = await _context(shop_repo, task)
    assert next(iter(read)) == "lib/configuration.js"
    # `throw new TypeError` uses no `throw` method
    assert not any("uses its throw" in why for why in read.get("lib/context.js", []))
    assert tests[0] == "__tests__/configuration/use.test.js"
    assert "__tests__/context/throw.test.js" not in tests[:1]


async def test_the_member_test_in_the_module_folder_pairs_with_the_members_change(shop_repo: Path):
    await ask(shop_repo, "pallium_knowledge_build", model=False)
    task = "ctx.cookies should create its store with secure taken from request.secure"
    read, tests = await _context(shop_repo, task)
    assert "lib/context.js" in read
    assert "__tests__/context/cookies.test.js" in tests[:2]
    assert "__tests__/request/secure.test.js" in tests[:3]
