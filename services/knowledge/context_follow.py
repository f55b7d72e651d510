"""Files a change needs that no task word names: what the named definition uses, and what does the work of a
setting the task names. Each gains a share of the points of the file that leads to it, damped for a file
that everything imports (a hub is imported for everything, so it says little about this change)."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from services.knowledge import uses as _uses
from services.knowledge.context_tests import TEST_NAME, in_tests, stem_of
from services.knowledge.store import KnowledgeStore
from services.knowledge.task_words import stems

__all__ = ["key_readers", "used_by_definitions", "user_follows"]

_KEY_READERS = 3  # more files reading the key is a key everything passes along, no lead

_USED_FILES = 1  # the imports of a definer worth following, the surest first
_USED_SHARE = 0.8  # of the definer's points, for an import few other files import


def used_by_definitions(
    store: KnowledgeStore,
    root: Path,
    anchors: list[str],
    spans: dict[str, list[tuple[str, int, int]]],
    carrying: list[str],
    imports: dict[str, list[str]],
    files: dict,
    score: dict[str, float],
    add,
    written: Callable[[str], bool],
    task: str = "",
) -> None:
    """The second file a change needs is often what the named definition uses where the task's words
    are: `TransferSpeedColumn` in `progress.py` formats its speed with `filesize.decimal`; `iter_lines`
    in `_models.py` splits with `_decoders.py`'s `LineDecoder`. A look-alike of a type the task spells
    (`Bytes` used by `BytesMut.copy_to_bytes`, in a task naming `BytesMut` and never `Bytes`) is the
    sibling the task tells apart, not a second file of the change."""
    forms = {f for w in carrying for f in stems(w) if len(f) >= 4}
    definers = _top_level_definers(store)
    for anchor in anchors:
        used = _uses.used_imports(root, anchor, spans.get(anchor, []), forms, imports.get(anchor, []), definers)
        found = [p for p in used if _source(p, written) and not look_alike_of_spelled(used[p][1], task)]
        for path, gain in _gains(store, files, score, found, _USED_SHARE * score[anchor]):
            qualified, ident = used[path]
            add(path, gain, f"{qualified} in {anchor} uses its {ident}")


def key_readers(
    store: KnowledgeStore,
    root: Path,
    spans: dict[str, list[tuple[str, int, int]]],
    spelled: set[str],
    files: dict,
    score: dict[str, float],
    add,
    written: Callable[[str], bool],
) -> None:
    """An option the task names is set where it is defined (`def raise_on` storing
    `default_options[:raise_on]`) and does its work where its key is read (`options[:raise_on]` in
    `response.rb`): the few source files reading the key of a named setter follow it."""
    from kernel import git

    for definer in sorted(spelled):
        if definer not in spans or definer not in score:
            continue
        for qualified, start, end in spans[definer]:
            name = qualified.rsplit(".", 1)[-1]
            if len(name) < 3 or not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
                continue
            keys = (f"[:{name}]", f'["{name}"]', f"['{name}']", f"fetch(:{name}", f'.get("{name}"')
            try:
                with open(root / definer, "rb") as handle:
                    body = handle.read(1 << 20).decode("utf-8", "replace").splitlines()[max(0, start - 1) : end]
            except OSError:
                continue
            if not any(k in line for line in body for k in keys):
                continue  # not a setter: a method doing its own work
            args = ["grep", "-l", "-I", "-F"] + [a for k in keys for a in ("-e", k)] + ["--"]
            out = git.run(args, root, check=False, timeout=10).decode("utf-8", "replace").split("\n")
            readers = [p for p in out if p and p != definer and _source(p, written)]
            known = store.files_at(readers)
            readers = [p for p in readers if p in known and not known[p].test]
            if not readers or len(readers) > _KEY_READERS:
                continue
            for path in readers:
                add(path, 0.8 * score[definer] / len(readers), f"reads the option {name} ({definer} sets it)")


def look_alike_of_spelled(ident: str, task: str) -> bool:
    """Whether `ident` is a type name the task does not spell that a type name it does spell extends or
    shortens (`Bytes` beside `BytesMut`, `BufMut` beside `Buf`)."""
    if not task or not ident[:1].isupper() or len(ident) < 3 or re.search(rf"\b{re.escape(ident)}\b", task):
        return False
    spelled = set(re.findall(r"\b[A-Z][A-Za-z0-9]+\b", task))
    return any(w != ident and (w.startswith(ident) or ident.startswith(w)) and len(w) >= 3 for w in spelled)


def user_follows(
    store: KnowledgeStore,
    root: Path,
    references: dict[str, list[tuple[str, str]]],
    spans: dict[str, list[tuple[str, int, int]]],
    anchors: list[str],
    imports: dict[str, list[str]],
    files: dict,
    score: dict[str, float],
    add,
    written: Callable[[str], bool],
) -> None:
    """A setting the task spells (`use_attribute_docstrings`) is only declared where it is defined; the
    best file reading it does the work through an import named by the setting's own words
    (`_fields.py` calls `extract_docstrings_from_cls` of `_docs_extraction.py`): that file follows it."""
    definers = _top_level_definers(store)
    for name, uses in references.items():
        defined = [
            (q, start, end) for found in spans.values() for q, start, end in found if q.rsplit(".", 1)[-1] == name
        ]
        if not defined or any("." not in q or end - start > 1 for q, start, end in defined):
            continue  # a function or method the task names does its own work (`setCookie`); a field declares
        forms = {part.lower() for part in re.split(r"_|(?<=[a-z])(?=[A-Z])", name) if len(part) >= 5}
        users = sorted(
            (p for p, _ in uses if p in files and not files[p].test and p not in anchors and p in score),
            key=lambda p: (-score[p], p),
        )
        if not users or not forms or ("_" not in name and not re.search(r"[a-z][A-Z]", name)):
            continue
        user = users[0]
        used = _uses.used_imports(root, user, [(user, 1, 1 << 30)], forms, imports.get(user, []), definers)
        found = [
            p
            for p, (_, ident) in used.items()
            if any(form in ident.lower() for form in forms)  # `extract_docstrings_from_cls`, not a helper
            and _source(p, written)
        ]
        # a share of the setting's definer's points, as for what a named definition uses
        for path, gain in _gains(store, files, score, found, _USED_SHARE * score[anchors[0]]):
            add(path, gain, f"{used[path][1]} in {user}, which reads {name}, does it")


def _source(path: str, written: Callable[[str], bool]) -> bool:
    """A file worth following: written by hand, and no test."""
    return written(path) and not in_tests(path) and not TEST_NAME.search(stem_of(path))


def _gains(
    store: KnowledgeStore, files: dict, score: dict[str, float], found: list[str], share: float
) -> list[tuple[str, float]]:
    """`share` damped by how many files import each found one, the best `_USED_FILES` of them."""
    files.update(store.files_at([p for p in found if p not in files]))
    gain = {p: share / (1.0 + math.log2(1.0 + files[p].importers / 4.0)) for p in found if p in files}
    best = sorted(gain, key=lambda p: (-(score.get(p, 0.0) + gain[p]), p))[:_USED_FILES]
    return [(p, gain[p]) for p in best]


def _top_level_definers(store: KnowledgeStore) -> Callable[[list[str]], dict[str, set[str]]]:
    """The files defining each of a list of names at their top level (a module's function or class)."""

    def definers(idents: list[str]) -> dict[str, set[str]]:
        wanted = set(idents)
        out: dict[str, set[str]] = defaultdict(set)
        for s in store.symbols_named(idents, limit=8):
            if s.name in wanted and "." not in s.qualified:
                out[s.name].add(s.path)
        return out

    return definers
