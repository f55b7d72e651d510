"""Splitting a large flat folder into the groups its own imports draw, and naming each group.

A folder with many files of its own is rarely one thing: SQLAlchemy's `orm/` holds the loading
strategies, the declarative layer and the unit of work side by side. The files every other file
imports (`base`, `util`, `interfaces`) are the folder's core and stay under its own name; the
rest are grouped by modularity over the import links among them (Louvain's local moves, then
aggregation, visiting nodes in path order so the same tree always gives the same groups). A
group is named after the member the rest of the repository imports most (`orm@loading`), then its
most connected one, so its name is a file it holds and one a reader knows it by.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable

__all__ = ["GROUP_MIN", "SPLIT_MIN", "communities", "split_folder"]

SPLIT_MIN = 24  # files of its own before a folder is split
GROUP_MIN = 3  # a smaller group goes back to the folder's core
HUB_SHARE = 0.5  # a file linked to more than this share of its folder is core, not a group's
_GENERIC = {"index", "init", "mod", "main", "types", "typing", "utils", "util"}


def split_folder(files: list[str], edges: Iterable[tuple[str, str]]) -> dict[str, str]:
    """`{file: group name}` for the files that leave the folder's core; `{}` when it stays whole.

    `files` are the folder's own files; `edges` any import links (those between two of `files` count).
    """
    own = set(files)
    edges = list(edges)
    weight: dict[tuple[str, str], int] = defaultdict(int)
    for src, dst in edges:
        if src != dst and src in own and dst in own:
            weight[(min(src, dst), max(src, dst))] += 1
    neighbours: dict[str, set[str]] = defaultdict(set)
    for a, b in weight:
        neighbours[a].add(b)
        neighbours[b].add(a)
    hubs = {f for f in files if len(neighbours[f]) > HUB_SHARE * (len(files) - 1)}
    kept = {pair: w for pair, w in weight.items() if not (pair[0] in hubs or pair[1] in hubs)}
    label = communities(sorted(own - hubs), kept)
    groups: dict[str, list[str]] = defaultdict(list)
    for path, group in label.items():
        groups[group].append(path)
    real = [sorted(members) for members in groups.values() if len(members) >= GROUP_MIN]
    if not real or (len(real) == 1 and len(real[0]) >= len(files) - GROUP_MIN):
        return {}  # one group that is nearly the whole folder: nothing to split
    edge_list = edges
    out: dict[str, str] = {}
    taken: set[str] = set()
    for members in sorted(real, key=lambda m: (-len(m), m[0])):
        name = _name(members, kept, taken, _outside_importers(members, edge_list))
        taken.add(name)
        out.update(dict.fromkeys(members, name))
    return out


def communities(nodes: list[str], weight: dict[tuple[str, str], int]) -> dict[str, str]:
    """Louvain modularity groups, deterministic: `{node: label}`, the label being a member's path.

    Each pass moves every node (in order) to the neighbouring group that raises modularity most,
    until nothing moves; the groups then become single nodes and the passes repeat on that graph.
    """
    adjacency: dict[str, dict[str, float]] = {n: {} for n in nodes}
    for (a, b), w in weight.items():
        adjacency[a][b] = adjacency[a].get(b, 0.0) + w
        adjacency[b][a] = adjacency[b].get(a, 0.0) + w
    members = {n: [n] for n in nodes}
    while True:
        total = sum(sum(links.values()) for links in adjacency.values())  # twice the edge weight
        if not total:
            break
        group = {n: n for n in adjacency}
        degree = {n: sum(links.values()) for n, links in adjacency.items()}
        load = dict(degree)
        moved = False
        changed = True
        while changed:
            changed = False
            for node in sorted(adjacency):
                here = group[node]
                towards: dict[str, float] = defaultdict(float)
                for other, w in adjacency[node].items():
                    if other != node:
                        towards[group[other]] += w
                load[here] -= degree[node]
                best, gain = here, towards.get(here, 0.0) - load[here] * degree[node] / total
                for candidate in sorted(towards):
                    score = towards[candidate] - load[candidate] * degree[node] / total
                    if score > gain + 1e-12:
                        best, gain = candidate, score
                load[best] += degree[node]
                if best != here:
                    group[node] = best
                    changed = moved = True
        if not moved:
            break
        merged: dict[str, list[str]] = defaultdict(list)
        for node, g in group.items():
            merged[g].append(node)
        rename = {}
        new_members: dict[str, list[str]] = {}
        for nodes_in in merged.values():
            originals = sorted(x for n in nodes_in for x in members[n])
            for n in nodes_in:
                rename[n] = originals[0]
            new_members[originals[0]] = originals
        coarse: dict[str, dict[str, float]] = {n: {} for n in new_members}
        for node, links in adjacency.items():
            for other, w in links.items():
                a, b = rename[node], rename[other]
                coarse[a][b] = coarse[a].get(b, 0.0) + w
        members, adjacency = new_members, coarse
        if len(adjacency) == 1:
            break
    return {x: label for label, xs in members.items() for x in xs}


def _outside_importers(members: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """How many files outside the group import each member: the file the rest of the repository knows it by."""
    inside = set(members)
    found: dict[str, set[str]] = defaultdict(set)
    for src, dst in edges:
        if dst in inside and src not in inside:
            found[dst].add(src)
    return {path: len(srcs) for path, srcs in found.items()}


def _name(
    members: list[str], weight: dict[tuple[str, str], int], taken: set[str], outside: dict[str, int] | None = None
) -> str:
    """The stem of the member the rest of the repository imports most (`http` for the group holding
    `http.py`, `tcp.py` and `connection.py`, which those import), then of the most linked one;
    generic stems like `index` only as a last resort."""
    inside = set(members)
    outside = outside or {}
    links: dict[str, int] = defaultdict(int)
    for (a, b), w in weight.items():
        if a in inside and b in inside:
            links[a] += w
            links[b] += w
    ranked = sorted(members, key=lambda p: (_stem(p) in _GENERIC, -outside.get(p, 0), -links[p], p))
    for path in ranked:
        stem = _stem(path)
        if stem and stem not in taken:
            return stem
    base = _stem(ranked[0]) or "group"
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def _stem(path: str) -> str:
    name = posixpath.basename(path).split(".", 1)[0]
    return name.strip("_") if name.strip("_") else name
