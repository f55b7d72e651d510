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
