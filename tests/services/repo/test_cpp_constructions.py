"""C++ references clangd counts that a plain call search does not: a declaration or `new` that
constructs (a reference of the constructor), and calls on what a construction, a smart pointer,
`this` or a method returning a reference hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

_RESOLVED = {"receiver", "import", "same-file", "unique"}

CACHE_H = """\
#pragma once
#include <memory>
namespace db {
class Cache
{
public:
    Cache();
    explicit Cache(int capacity);
    int Lookup(int key);
    void Evict();
};

class Table
{
public:
    int Lookup(int key);
    Cache& cache();
    Cache* pointer();
    void Scan();

private:
    Cache cache_;
};
}
"""

CACHE_CC = """\
#include "db/cache.h"
namespace db {
Cache::Cache() {}
Cache::Cache(int capacity) {}
int Cache::Lookup(int key) { return key; }
void Cache::Evict() {}
Cache& Table::cache() { return cache_; }
int Table::Lookup(int key) { return key; }
void Table::Scan()
{
    this->Lookup(1);
    cache().Evict();
}
}
"""

USE_CC = """\
#include "db/cache.h"
void run(db::Table& table)
{
    db::Cache plain;
    db::Cache sized(8);
    db::Cache* made = new db::Cache(4);
    auto owned = std::make_unique<db::Cache>(2);
    auto shared = std::make_shared<db::Cache>();
    auto raw = new db::Cache();
    std::unique_ptr<db::Cache> held(new db::Cache(1));
    owned->Lookup(1);
    shared->Lookup(2);
    raw->Lookup(3);
    held->Lookup(4);
    table.cache().Lookup(5);
    table.pointer()->Lookup(6);
    made->Evict();
}
"""


@pytest.fixture(scope="module")
def cpp_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("cpp") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", {"include/db/cache.h": CACHE_H, "db/cache.cc": CACHE_CC, "tools/use.cc": USE_CC})
    return repo


async def test_a_declaration_or_new_that_constructs_is_a_reference_of_the_constructor(cpp_repo: Path) -> None:
    out = await ask(cpp_repo, "pallium_callers", name="db.Cache.Cache")
    lines = {r.line for r in out.references if r.path == "tools/use.cc" and r.resolution != "ambiguous"}
    assert {4, 5, 6, 9, 10} <= lines  # `Cache plain;`, `Cache sized(8);`, `new Cache(4)`, `new Cache()`


async def test_calls_on_smart_pointers_and_auto_locals_reach_the_held_class(cpp_repo: Path) -> None:
    out = await ask(cpp_repo, "pallium_callers", name="Lookup")
    found = {r.line: (r.resolution, r.target_qualified) for r in out.references if r.path == "tools/use.cc"}
    for line in (11, 12, 13, 14):  # make_unique, make_shared, `auto raw = new`, `unique_ptr<Cache> held`
        assert found[line][1] == "db.Cache.Lookup", line
        assert found[line][0] in _RESOLVED, line


async def test_a_method_returning_a_reference_or_pointer_types_the_next_call(cpp_repo: Path) -> None:
    out = await ask(cpp_repo, "pallium_callers", name="Lookup")
    found = {r.line: (r.resolution, r.target_qualified) for r in out.references if r.path == "tools/use.cc"}
    assert found[15][1] == found[16][1] == "db.Cache.Lookup"  # `table.cache()` a `Cache&`, `pointer()` a `Cache*`
    assert {found[15][0], found[16][0]} <= _RESOLVED
    evict = await ask(cpp_repo, "pallium_callers", name="Evict")
    lines = {(r.path, r.line, r.target_qualified) for r in evict.references}
    assert ("db/cache.cc", 12, "db.Cache.Evict") in lines  # `cache().Evict()` inside a Table method
    assert ("tools/use.cc", 17, "db.Cache.Evict") in lines


async def test_a_call_through_this_is_the_enclosing_class_s(cpp_repo: Path) -> None:
    out = await ask(cpp_repo, "pallium_callers", name="Table.Lookup")
    found = {(r.path, r.line): r.resolution for r in out.references}
    assert found.get(("db/cache.cc", 11)) == "receiver"  # `this->Lookup(1)`
    cache = await ask(cpp_repo, "pallium_callers", name="Cache.Lookup")
    assert ("db/cache.cc", 11) not in {(r.path, r.line) for r in cache.references}


ATTRIBUTE_H = """\
#pragma once
namespace xml {
class Attribute
{
public:
    int value() const;
    bool set(int value);
    int first() const;
};

inline bool Attribute::set(int value)
{
    int first = value;
    return first > 0 && this->value() > 0;
}
}
"""


async def test_a_parameter_or_local_named_as_a_member_function_is_no_reference_of_it(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", {"include/xml/attribute.h": ATTRIBUTE_H})
    value = await ask(repo, "pallium_callers", name="Attribute.value")
    claimed = {r.line for r in value.references if r.resolution in _RESOLVED}
    assert claimed == {14}  # `this->value()`, never the parameter `value` (lines 7, 11, 13)
    first = await ask(repo, "pallium_callers", name="Attribute.first")
    assert not [r.line for r in first.references if r.resolution in _RESOLVED]  # `int first = value;`
