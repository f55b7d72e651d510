"""How many other files reach each top-level definition through an import the index resolved.

A file reaches `flowfilter.match` when it imports `flowfilter.py` and then names `match` as that
import brings it: bare after `from mitmproxy.flowfilter import match` (or a `*` import), or behind
the module's own name after `from mitmproxy import flowfilter` / `import mitmproxy.flowfilter`
(`flowfilter.match(...)`). A `re.match` in the same file, a `self.match`, or a `match` in a file
that never imports `flowfilter.py` does not count: the count is of resolved references, not of
files spelling the name (mitmproxy's `match`: 88 files name it; 33 import its file; fewer use it).
"""

from __future__ import annotations

import posixpath
from collections import defaultdict

from services.repo.store import RepoStore

__all__ = ["key", "resolved_referencing"]


def key(path: str, name: str) -> str:
    return f"{path}#{name}"


def resolved_referencing(store: RepoStore) -> dict[str, int]:
    """`{"path#name": files}` for each top-level definition some other file reaches by import."""
    defs, uses = store.top_level_uses()
    defined: dict[str, set[str]] = defaultdict(set)
    for path, name in defs:
        defined[name].add(path)
    imports: dict[str, list[tuple[str, str, set[str]]]] = defaultdict(list)  # importer -> (imported, raw, names)
    # `httpx/__init__.py` brings `Client` from `_client.py`: `httpx.Client` reaches `_client.py` (one hop)
    passes_on: dict[tuple[str, str], set[str]] = defaultdict(set)
    for src, dst, raw, names in store.edges_with_names():
        brought = set(names.split())
        imports[src].append((dst, raw, brought))
        for name in brought:
            passes_on[(src, name)].add(dst)
    reached: dict[tuple[str, str], set[str]] = defaultdict(set)
    for path, name, receiver in uses:
        owner = receiver.lstrip("?")
        homes = defined.get(name, set())
        for dst, raw, names in imports.get(path, ()):
            bare = not owner and (name in names or "*" in names)
            if not bare and not (owner and _names_module(owner, dst, raw, names)):
                continue
            onward = passes_on.get((dst, name), set()) | passes_on.get((dst, "*"), set())  # `from ._client import *`
            for home in ({dst} | onward) & homes:
                if home != path:
                    reached[(home, name)].add(path)
    return {key(dst, name): len(files) for (dst, name), files in reached.items()}


def _names_module(owner: str, dst: str, raw: str, names: set[str]) -> bool:
    """`flowfilter` (or `mitmproxy.flowfilter`) is how this import names the module `dst`."""
    stem = posixpath.basename(dst).split(".", 1)[0]
    if stem in ("__init__", "index", "mod"):
        stem = posixpath.basename(posixpath.dirname(dst))
    last = owner.rsplit(".", 1)[-1]
    if not names:  # `import mitmproxy.flowfilter`, `import x as y` kept as written
        return owner == raw or last == stem or owner == raw.rsplit(".", 1)[-1]
    return last in names and (last == stem or "*" in names)
