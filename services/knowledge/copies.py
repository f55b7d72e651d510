"""A frozen copy of a package kept inside it (`pydantic/v1/` beside `pydantic/`): found by its shape,
so `knowledge context` can leave it out of a task that does not ask for it."""

from __future__ import annotations

import re
from collections import defaultdict

from services.knowledge.store import KnowledgeStore

_SHARED = 3  # module names a folder must repeat from its parent to be a copy of it
_SHARE = 0.5  # of the folder's own module names
_PLAIN = {"__init__", "index", "mod", "types", "utils", "util", "constants", "errors"}
_LIMIT = 400
_OUTSIDE = 2  # files outside a copy importing it (a check for old models), more is live code


def _stems(store: KnowledgeStore, folder: str) -> set[str]:
    """The source modules directly inside `folder` (`networks` for `pydantic/networks.py`)."""
    out = set()
    for hit in store.files_under(folder, limit=_LIMIT):
        rest = hit.path[len(folder) + 1 :]
        if hit.test or "/" in rest or "." not in rest:
            continue
        out.add(rest.split(".", 1)[0])
    return out - _PLAIN


def copy_folders(store: KnowledgeStore, paths: list[str], imports: dict[str, list[str]], task: str) -> set[str]:
    """The folders among `paths`' that repeat most of their parent's module names (`v1/networks.py`,
    `v1/types.py`, `v1/main.py` beside `networks.py`, `types.py`, `main.py`) while hardly a source
    file outside them imports them: a copy kept for old callers, not the code a change goes to. A folder
    the task names (`pydantic.v1`, "the v1 shim") is what the task is about and is no copy."""
    words = set(re.findall(r"[a-z0-9_]+", task.lower()))
    folders = {p.rsplit("/", 1)[0] for p in paths if p.count("/") >= 2}
    importers: dict[str, set[str]] = defaultdict(set)  # folder -> the files importing a file in it
    for source, found in imports.items():
        for target in found:
            if "/" in target:
                importers[target.rsplit("/", 1)[0]].add(source)
    out = set()
    for folder in folders:
        name = folder.rsplit("/", 1)[-1]
        if name.lower() in words or any(part in ("tests", "test") for part in folder.split("/")):
            continue
        outside = {
            s
            for s in importers.get(folder, set())
            if not s.startswith(folder + "/") and not any(part in ("tests", "test") for part in s.split("/"))
        }
        if len(outside) > _OUTSIDE:
            continue
        own = _stems(store, folder)
        shared = own & _stems(store, folder.rsplit("/", 1)[0])
        if len(shared) >= _SHARED and len(shared) >= _SHARE * len(own):
            out.add(folder)
    return out


def in_copies(store: KnowledgeStore, paths: list[str], imports: dict[str, list[str]], task: str) -> list[str]:
    """The `paths` inside a copy folder (see `copy_folders`)."""
    copies = copy_folders(store, paths, imports, task)
    return [p for p in paths if p.rsplit("/", 1)[0] in copies]
