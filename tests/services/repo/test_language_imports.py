"""Imports and bare names resolved by each pack language's own rules, on small real repositories.

Kotlin by package and declaration, PHP `use` beside a same-named class of the repository and typed
properties, Ruby gems of a monorepo and bare calls that go to self, C include folders the build
declares, Lua's package.path and its lexical scope.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio


async def _imports(repo: Path, path: str) -> list[str]:
    out = await ask(repo, "pallium_neighbors", path=path)
    return sorted(s.path for s in out.structural if s.kind == "imports")


async def _calls(repo: Path, name: str, path: str) -> dict[int, tuple[str, str | None]]:
    out = await ask(repo, "pallium_callers", name=name)
    return {r.line: (r.resolution, r.target) for r in out.references if r.path == path and r.kind == "call"}


async def test_kotlin_imports_name_the_declaring_file_not_a_folder_or_a_whole_package(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "app/src/main/kotlin/shop/util/Strings.kt": "package shop.util\n\nfun helper(): Int = 1\n",
            "app/src/main/kotlin/shop/util/Numbers.kt": "package shop.util\n\nval zero = 0\n",
            "lib/src/main/kotlin/shop/util/Other.kt": "package shop.util\n\nclass Other\n",
            "app/src/main/kotlin/misc/Moved.kt": "package shop.model\n\nclass Cart {\n    class Line\n}\n",
            "tools/src/kotlin/collections/Ours.kt": "package tools.kotlin.collections\n\nfun mine() = 1\n",
            "app/src/main/kotlin/shop/Main.kt": "package shop\n\nimport kotlin.collections.listOf\n"
            "import shop.util.helper\nimport shop.model.Cart.Line\n\nfun main() = helper()\n",
            "app/src/main/kotlin/shop/All.kt": "package shop\n\nimport shop.util.*\n\nfun all() = zero\n",
        },
    )
    assert await _imports(repo, "app/src/main/kotlin/shop/Main.kt") == [
        "app/src/main/kotlin/misc/Moved.kt",
        "app/src/main/kotlin/shop/util/Strings.kt",
    ]
    assert await _imports(repo, "app/src/main/kotlin/shop/All.kt") == [
        "app/src/main/kotlin/shop/util/Numbers.kt",
        "app/src/main/kotlin/shop/util/Strings.kt",
        "lib/src/main/kotlin/shop/util/Other.kt",
    ]


async def test_php_use_of_a_vendor_class_never_resolves_to_the_repositorys_own_class(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "composer.json": json.dumps({"autoload": {"psr-4": {"App\\": "src/"}}}),
            "src/Factory.php": "<?php\nnamespace App;\n\nclass Factory {\n    public function make() {}\n}\n",
            "src/Uses.php": "<?php\nnamespace App\\Http;\n\nuse Vendor\\Pkg\\Factory;\n\nfunction build() {\n"
            "    return new Factory();\n}\n",
            "src/Own.php": "<?php\nnamespace App\\Http;\n\nuse App\\Factory;\n\nfunction own() {\n"
            "    return new Factory();\n}\n",
        },
    )
    assert await _imports(repo, "src/Uses.php") == []
    assert (await _calls(repo, "Factory", "src/Uses.php")).get(7, ("unresolved", None))[0] == "unresolved"
    assert (await _calls(repo, "Factory", "src/Own.php"))[7] == ("import", "src/Factory.php")


async def test_php_calls_through_typed_and_promoted_properties_reach_the_declared_class(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "src/CollectorInterface.php": "<?php\ninterface CollectorInterface {\n"
            "    public function basePath(): string;\n}\n",
            "src/Other.php": "<?php\nclass Other {\n    public function basePath(): string { return ''; }\n}\n",
            "src/Loader.php": "<?php\nclass Loader {\n    public function basePath(): string { return ''; }\n}\n",
            "src/Router.php": "<?php\nclass Router {\n    private CollectorInterface $collector;\n\n"
            "    public function __construct(private Loader $loader) {}\n\n    public function path() {\n"
            "        $this->loader->basePath();\n        return $this->collector->basePath();\n    }\n}\n",
        },
    )
    calls = await _calls(repo, "basePath", "src/Router.php")
    assert calls == {8: ("receiver", "src/Loader.php"), 9: ("receiver", "src/CollectorInterface.php")}


async def test_ruby_requires_reach_each_gems_lib_and_bare_calls_go_to_self(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "alpha/alpha.gemspec": "Gem::Specification.new\n",
            "alpha/lib/alpha/base.rb": "require 'beta/part'\n\nmodule Alpha\n  class Base\n    def run\n"
            "      warn 'x'\n      helper\n    end\n\n    def helper; end\n  end\nend\n",
            "beta/beta.gemspec": "Gem::Specification.new\n",
            "beta/lib/beta/part.rb": "module Beta\n  class Part\n    def warn(message); end\n  end\nend\n",
            "gamma/lib/gamma/log.rb": "class Log\n  def warn(message); end\nend\n",
        },
    )
    assert await _imports(repo, "alpha/lib/alpha/base.rb") == ["beta/lib/beta/part.rb"]
    assert await _calls(repo, "warn", "alpha/lib/alpha/base.rb") in ({}, {6: ("unresolved", None)})
    assert (await _calls(repo, "helper", "alpha/lib/alpha/base.rb"))[7] == ("receiver", "alpha/lib/alpha/base.rb")


@pytest.mark.parametrize(
    ("build_file", "text"),
    [
        ("CMakeLists.txt", "project(p C)\ninclude_directories(${PROJECT_SOURCE_DIR}/core/api)\n"),
        ("Makefile.am", "AM_CPPFLAGS = -I$(top_srcdir)/core/api\n"),
        ("compile_commands.json", None),
    ],
)
async def test_c_includes_from_a_subfolder_use_the_include_folders_the_build_declares(
    tmp_path: Path, build_file: str, text: str | None
):
    root = tmp_path / "repo"
    if text is None:  # compile_commands.json names absolute folders of the machine that built it
        entry = {"directory": str(root / "build"), "file": "../tools/cli/main.c", "command": "cc -I../core/api -c x"}
        text = json.dumps([entry])
    repo = new_repo(
        tmp_path,
        {
            build_file: text,
            "core/api/store.h": "int store_get(int key);\n",
            "core/other/store.h": "int other_get(int key);\n",
            "tools/cli/main.c": '#include "store.h"\n\nint main(void) { return store_get(1); }\n',
        },
    )
    assert await _imports(repo, "tools/cli/main.c") == ["core/api/store.h"]


async def test_c_include_without_build_folders_resolves_when_one_file_has_that_path(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "src/util/list.h": "struct list;\n",
            "src/util/map.h": "struct map;\n",
            "vendor/a/map.h": "struct other_map;\n",
            "app/main.c": '#include "util/list.h"\n#include "map.h"\n',
        },
    )
    assert await _imports(repo, "app/main.c") == ["src/util/list.h"]  # two map.h: neither is guessed


async def test_lua_require_follows_package_path_from_the_requiring_folder_and_bare_names_are_lexical(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "plugin/util/bench.lua": "local M = {}\nfunction M.run() return 1 end\nreturn M\n",
            "plugin/main.lua": 'local bench = require "util.bench"\nreturn bench.run()\n',
            "codec.lua": "local M = {}\n\nlocal function encode(v)\n  return tostring(v)\nend\n\n"
            "function M.encode(v)\n  return encode(v)\nend\n\nreturn M\n",
        },
    )
    assert await _imports(repo, "plugin/main.lua") == ["plugin/util/bench.lua"]
    calls = await _calls(repo, "encode", "codec.lua")
    assert calls == {8: ("same-file", "codec.lua")}
    out = await ask(repo, "pallium_callers", name="M.encode")
    assert [(r.path, r.line) for r in out.references if r.kind == "call"] == []


@pytest.mark.parametrize(
    "asked",
    [
        "Pkg\\Routing\\Collector::basePath",
        "\\Pkg\\Routing\\Collector::basePath",
        "Pkg.Routing.Collector.basePath",
        "Collector::basePath",
        "Collector#basePath",
    ],
)
async def test_callers_accept_a_php_name_in_its_own_spelling_with_its_namespace(tmp_path: Path, asked: str):
    repo = new_repo(
        tmp_path,
        {
            "src/Routing/Collector.php": "<?php\nnamespace Pkg\\Routing;\n\nclass Collector {\n"
            "    public function basePath() {}\n}\n",
            "src/Other/Collector.php": "<?php\nnamespace Pkg\\Other;\n\nclass Collector {\n"
            "    public function basePath() {}\n}\n",
        },
    )
    out = await ask(repo, "pallium_callers", name=asked)
    expected = (
        ["src/Routing/Collector.php"]
        if "Routing" in asked
        else ["src/Other/Collector.php", "src/Routing/Collector.php"]
    )
    assert sorted(d.path for d in out.definitions) == expected


async def test_callers_accept_a_kotlin_name_with_its_package(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "core/src/main/kotlin/Helpers.kt": "package com.example.internal\n\nfun helper() = 1\n",
            "app/src/main/kotlin/Helpers.kt": "package com.example.app\n\nfun helper() = 2\n",
            "app/src/main/kotlin/Main.kt": "package com.example.app\n\nimport com.example.internal.helper\n\n"
            "fun main() = helper()\n",
        },
    )
    out = await ask(repo, "pallium_callers", name="com.example.internal.helper")
    assert [d.path for d in out.definitions] == ["core/src/main/kotlin/Helpers.kt"]
    assert [(r.path, r.line, r.resolution) for r in out.references if r.kind == "call"] == [
        ("app/src/main/kotlin/Main.kt", 5, "import")
    ]


async def test_a_c_function_declared_in_a_header_and_defined_in_a_c_file_is_one_target(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "include/store.h": "int store_get(int key);\n",
            "src/store.c": '#include "store.h"\n\nint store_get(int key) { return key; }\n',
            "examples/demo.c": "#include <store/api.h>\n\nint main(void) { return store_get(1); }\n",
            "src/other.c": '#include "../include/store.h"\n\nint twice(void) { return 2 * store_get(2); }\n',
        },
    )
    # an include the repository cannot resolve still reaches the one function, not an ambiguity
    assert (await _calls(repo, "store_get", "examples/demo.c"))[3] == ("unique", "src/store.c")
    assert (await _calls(repo, "store_get", "src/other.c"))[3] == ("import", "include/store.h")


async def test_a_ruby_constant_resolves_by_lexical_scope_before_the_top_level(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "lib/base.rb": "class Base\nend\n",
            "lib/a/b/base.rb": "module A\n  module B\n    class Base\n    end\n  end\nend\n",
            "lib/a/b/x.rb": "module A\n  module B\n    class X < Base\n    end\n  end\nend\n",
            "lib/y.rb": "class Y < Base\nend\n",
        },
    )
    out = await ask(repo, "pallium_callers", name="Base", kind="inherits")
    found = {(r.path, r.line): (r.resolution, r.target_qualified) for r in out.references}
    assert found == {("lib/a/b/x.rb", 3): ("unique", "A.B.Base"), ("lib/y.rb", 1): ("unique", "Base")}
