"""Type stubs beside their implementations (`validators.pyi` by `validators.py`, `index.d.ts` by
`index.js`): a stub declares what the implementation does, so it repeats every name and word of it.
It is read right after its implementation, never without it; for a task about types or stubs
("with its type stub", "the typing of ...") each implementation to read brings its stub.
"""

from __future__ import annotations

import re

from services.knowledge.store import KnowledgeStore

__all__ = ["is_types_task", "stubs_follow"]

_TYPES_TASK = re.compile(
    r"\b(?:stubs?|pyi|d\.ts|type hints?|typing|typed|type annotations?|type checkers?|mypy|pyright)\b", re.I
)


def is_types_task(task: str) -> bool:
    return bool(_TYPES_TASK.search(task))


def implementation_of(path: str) -> str | None:
    """`x.pyi` -> `x.py`, `x.d.ts` -> `x.js`; None for a file that is no stub."""
    if path.endswith(".pyi"):
        return path[:-1]
    if path.endswith(".d.ts"):
        return path[: -len(".d.ts")] + ".js"
    return None


def stub_of(path: str) -> str | None:
    """`x.py` -> `x.pyi`, `x.js` -> `x.d.ts`; None where a language has no stubs."""
    if path.endswith(".py"):
        return path + "i"
    if path.endswith(".js"):
        return path[: -len(".js")] + ".d.ts"
    return None


def stubs_follow(
    store: KnowledgeStore,
    sources: list[str],
    files: dict,
    why: dict[str, list[str]],
    declared: dict[str, set[str]],
    *,
    types_task: bool,
) -> list[str]:
    """Each stub right after what it declares: its own implementation, or the file to read defining a
    name the task spells as code that the stub declares (`make_class` in `__init__.pyi` and `_make.py`).
    A stub declaring nothing read is left out, unless the task names its path or no implementation is
    indexed: it only repeats the names (`src/attrs/__init__.pyi` declares `field`, `_next_gen.py`
    implements it). For a task about types, each implementation to read brings its stub."""
    stubs = [p for p in sources if implementation_of(p)]
    read = [p for p in sources if p not in stubs]
    indexed = store.files_at(sorted({implementation_of(p) or "" for p in stubs}))
    follows: dict[str, str | None] = {}
    for stub in stubs:
        impl = implementation_of(stub)
        by_path = any("named in the task" in r or "name is in the task" in r for r in why.get(stub, []))
        if by_path or impl not in indexed:
            follows[stub] = stub  # stays where it ranks
            continue
        names = declared.get(stub, set())
        follows[stub] = impl if impl in read else next((p for p in read if names & declared.get(p, set())), None)
    if types_task:
        wanted = {s: p for p in read if (s := stub_of(p)) and s not in follows}
        for stub, hit in store.files_at(sorted(wanted)).items():
            files.setdefault(stub, hit)
            follows[stub] = wanted[stub]
    out: list[str] = []
    for path in sources:
        if path in follows and follows[path] != path:
            continue  # placed after what it declares, or left out
        out.append(path)
        for stub, target in follows.items():
            if target == path and stub != path and stub not in out:
                reasons = [r for r in why.get(stub, []) if not r.startswith("the type stub of")]
                why[stub] = [f"the type stub of {path}", *reasons]
                out.append(stub)
    return out
