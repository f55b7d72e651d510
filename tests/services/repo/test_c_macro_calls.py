"""C calls made through macros: a function called inside a `#define`'s body is called wherever the
macro is used, as the preprocessor expands it (and clangd reports it), never at the body's line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

PRIVATE = """\
#ifndef PRIVATE_H
#define PRIVATE_H
void yaml_free(void *ptr);
int yaml_extend(char **start);

#define BUFFER_DEL(buffer)                                \\
    (yaml_free((buffer).start),   /* free(x) */         \\
     (buffer).start = 0)

#define STACK_DEL(stack) BUFFER_DEL(stack)
#define GROW(s) ((s).top != (s).end || yaml_extend(&(s).start))
#define UNUSED(p) yaml_free(p)
#define LOOP(a) LOOP2(a)
#define LOOP2(a) (LOOP(a), yaml_free(a))
#endif
"""

API = """\
#include <stdlib.h>
#include "private.h"

void yaml_free(void *ptr)
{
    free(ptr);
}

int yaml_extend(char **start)
{
    return start != 0;
}
"""

PARSER = """\
#include "private.h"

struct buf { char *start; char *top; char *end; };

void parser_delete(struct buf b, struct buf s)
{
    BUFFER_DEL(b);
    STACK_DEL(s);
    if (!GROW(s)) return;
    yaml_free(b.top);
    LOOP(b.end);
}
"""


@pytest.fixture(scope="module")
def macro_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("macros") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", {"src/private.h": PRIVATE, "src/api.c": API, "src/parser.c": PARSER})
    return repo


async def test_a_call_in_a_macro_body_is_listed_where_the_macro_is_used(macro_repo: Path) -> None:
    out = await ask(macro_repo, "pallium_callers", name="yaml_free")
    # resolved as the body's call is (to the header's prototype, as a direct call through the include)
    assert all(r.target in ("src/api.c", "src/private.h") for r in out.references)
    found = {(r.path, r.line): (r.via, r.enclosing) for r in out.references}
    assert found[("src/parser.c", 7)] == ("BUFFER_DEL", "parser_delete")
    assert found[("src/parser.c", 8)] == ("STACK_DEL", "parser_delete")  # the macro written there, through BUFFER_DEL
    assert found[("src/parser.c", 10)] == (None, "parser_delete")
    assert ("src/private.h", 7) not in found  # the body's line, now the uses'
    assert found[("src/private.h", 12)] == (None, "UNUSED")  # a macro nobody uses keeps its line
    assert found[("src/parser.c", 11)] == ("LOOP", "parser_delete")  # a cycle of macros ends
    assert out.kinds.get("call") == len([r for r in out.references if r.kind == "call"])


async def test_a_macro_parameter_or_a_comment_in_its_body_is_no_call(macro_repo: Path) -> None:
    symbols = await ask(macro_repo, "pallium_callers", name="yaml_extend")
    assert {(r.path, r.line, r.via) for r in symbols.references if r.path == "src/parser.c"} == {
        ("src/parser.c", 9, "GROW")
    }
    commented = await ask(macro_repo, "pallium_callers", name="free")  # `/* free(x) */` in BUFFER_DEL
    assert {(r.path, r.line) for r in commented.references} == {("src/api.c", 6)}
    parameter = await ask(macro_repo, "pallium_callers", name="s")  # GROW(s)'s `(s).top`, no call of `s`
    assert not [r for r in parameter.references if r.kind == "call"]
