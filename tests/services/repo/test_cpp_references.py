"""C++ references: a variable declared as a pointer or reference to a class, and a call through a
base's virtual, which may run each override (clangd lists it for them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

HEADER = """\
#pragma once
namespace xml {
class XML_LIB XMLNode
{
public:
    virtual bool Accept(int visitor) const = 0;
    void Unlink();
};

class XML_LIB XMLComment : public XMLNode
{
public:
    bool Accept(int visitor) const override;
};

class XML_LIB XMLText : public XMLNode
{
public:
    bool Accept(int visitor) const override;
};
}
"""

SOURCE = """\
#include "xml.h"
namespace xml {
bool XMLComment::Accept(int visitor) const
{
    return visitor > 0;
}

bool XMLText::Accept(int visitor) const
{
    return visitor < 0;
}

void XMLNode::Unlink()
{
}
}
"""

USES = """\
#include "xml.h"
using namespace xml;

int run(XMLNode* node, XMLComment& comment)
{
    XMLText* text = nullptr;
    XMLText& same = *text;
    node->Accept(1);
    comment.Accept(2);
    text->Accept(3);
    same.Unlink();
    return 0;
}
"""


@pytest.fixture(scope="module")
def cpp_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("cpp") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", {"src/xml.h": HEADER, "src/xml.cpp": SOURCE, "src/use.cpp": USES})
    return repo


async def test_pointer_and_reference_locals_type_their_calls(cpp_repo: Path) -> None:
    out = await ask(cpp_repo, "pallium_callers", name="Accept")
    found = {r.line: (r.resolution, r.target_qualified) for r in out.references if r.path == "src/use.cpp"}
    assert found[8] == ("receiver", "xml.XMLNode.Accept")
    assert found[9][1] in ("xml.XMLComment.Accept",)
    assert found[10][1] in ("xml.XMLText.Accept",)  # `XMLText* text = ...`
    unlink = await ask(cpp_repo, "pallium_callers", name="Unlink")
    assert {(r.path, r.line, r.target_qualified) for r in unlink.references} >= {
        ("src/use.cpp", 11, "xml.XMLNode.Unlink")  # `XMLText& same`, inherited
    }


async def test_a_call_through_the_base_virtual_is_listed_for_each_override(cpp_repo: Path) -> None:
    out = await ask(cpp_repo, "pallium_callers", name="XMLText.Accept")
    assert [d.qualified for d in out.implements] == ["xml.XMLNode.Accept"]
    lines = {(r.line, r.target_qualified) for r in out.references if r.path == "src/use.cpp"}
    assert (8, "xml.XMLNode.Accept") in lines  # `node->Accept(1)` may run XMLText's
    assert (10, "xml.XMLText.Accept") in lines
    assert not any(q == "xml.XMLComment.Accept" for _, q in lines)  # a sibling's is never this one's


INHERITING = """\
#include "xml.h"
namespace xml {
class XML_LIB XMLElement : public XMLNode
{
public:
    bool Accept(int visitor) const override;
    void Detach();
};

void XMLElement::Detach()
{
    Unlink();
}
}
"""


async def test_a_bare_call_in_an_out_of_line_method_reaches_the_member_a_base_gives(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    other = "namespace other {\nclass Attribute\n{\npublic:\n    void Unlink() {}\n};\n}\n"
    files = {"src/xml.h": HEADER, "src/xml.cpp": SOURCE, "src/element.cpp": INHERITING, "src/attribute.h": other}
    commit(repo, "Start", files)
    out = await ask(repo, "pallium_callers", name="Unlink")
    found = {(r.path, r.line): (r.resolution, r.target_qualified) for r in out.references}
    assert found[("src/element.cpp", 12)] == ("receiver", "xml.XMLNode.Unlink")  # never other.Attribute's


CACHE_H = """\
#pragma once
namespace db {
class Entry
{
public:
    int value() const;
};

class Cache
{
public:
    int Lookup(int key);
    Entry* Find(int key);
};

class Table
{
public:
    int Lookup(int key);
    int Find(int key);
};

class Version
{
public:
    void Run();
    Cache* cache() const { return cache_; }
    static Version* current();

private:
    Cache* cache_;
    std::unique_ptr<Table> table_;
    Table& borrowed_;
    int count_;
};
}
"""

VERSION_CC = """\
#include "db/cache.h"
namespace db {
void Version::Run()
{
    cache_->Lookup(1);
    table_->Lookup(2);
    borrowed_.Lookup(3);
    this->cache_->Lookup(4);
    cache()->Lookup(5);
    cache_->Find(6)->value();
    Version::current()->cache()->Find(7);
}
}
"""


async def test_a_field_declared_in_the_class_types_the_calls_of_its_out_of_line_methods(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", {"include/db/cache.h": CACHE_H, "db/version.cc": VERSION_CC})
    out = await ask(repo, "pallium_callers", name="Lookup")
    found = {r.line: (r.resolution, r.target_qualified) for r in out.references if r.path == "db/version.cc"}
    assert found[5] == ("receiver", "db.Cache.Lookup")  # `Cache* cache_;`
    assert found[6] == ("receiver", "db.Table.Lookup")  # `std::unique_ptr<Table> table_;`
    assert found[7] == ("receiver", "db.Table.Lookup")  # `Table& borrowed_;`
    assert found[8] == ("receiver", "db.Cache.Lookup")  # `this->cache_`
    assert found[9] == ("receiver", "db.Cache.Lookup")  # what `cache()` returns


async def test_a_call_chain_follows_each_method_s_declared_return_type(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    other = "namespace other {\nclass Row\n{\npublic:\n    int value() const;\n    int Find(int k);\n};\n}\n"
    commit(repo, "Start", {"include/db/cache.h": CACHE_H, "db/version.cc": VERSION_CC, "other/row.h": other})
    value = await ask(repo, "pallium_callers", name="value")
    found = {(r.path, r.line): r.target_qualified for r in value.references}
    assert found[("db/version.cc", 10)] == "db.Entry.value"  # `cache_->Find(6)` is an `Entry*`
    find = await ask(repo, "pallium_callers", name="Find")
    found = {(r.path, r.line): r.target_qualified for r in find.references}
    assert found[("db/version.cc", 11)] == "db.Cache.Find"  # `current()` a Version*, its `cache()` a Cache*
    assert found[("db/version.cc", 10)] == "db.Cache.Find"  # never Table's, declared beside it


QUALIFIED_USES = """\
#include "db/cache.h"
void scan(const db::Cache& cache, db::Table* table)
{
    cache.Lookup(1);
    table->Lookup(2);
    db::Cache local;
    local.Lookup(3);
}
"""


async def test_locals_and_parameters_of_a_class_named_with_its_namespace_type_their_calls(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", {"include/db/cache.h": CACHE_H, "tools/scan.cc": QUALIFIED_USES})
    out = await ask(repo, "pallium_callers", name="Lookup")
    found = {r.line: (r.resolution, r.target_qualified) for r in out.references if r.path == "tools/scan.cc"}
    assert found == {
        4: ("receiver", "db.Cache.Lookup"),
        5: ("receiver", "db.Table.Lookup"),
        7: ("receiver", "db.Cache.Lookup"),
    }
