"""Risk, co-change neighbours and test pairing for one file, from both halves of the index.

The risk formula is documented in docs/repo-intelligence.md; every point it gives comes with a
reason, so an agent can see why a file is risky, not only that it is.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from kernel import clock
from services.repo import history, testnames
from services.repo.index_git import MAX_CHANGESET, is_noise
from services.repo.models import CoChange, Level, RiskFactor, StructuralLink
from services.repo.parsing import CODE_LANGUAGES
from services.repo.rows import LifeRow, PairRow
from services.repo.store import RepoStore
from services.repo.testnames import is_test_path

__all__ = [
    "HIGH",
    "MEDIUM",
    "RiskResult",
    "blast_radius",
    "closest",
    "cochange",
    "is_test_path",
    "level_of",
    "score_risk",
    "structural_links",
    "tests_for",
]

HIGH, MEDIUM = 20.0, 10.0
DAY = 86_400
# Path words that mark a sensitive boundary: a mistake there costs more than elsewhere.
_SENSITIVE = re.compile(
    r"(auth|login|password|secret|token|crypt|security|permission|payment|billing|invoice|migration|"
    r"schema|config|settings|database|\bdb\b)",
    re.I,
)


@dataclass(frozen=True)
class RiskResult:
    score: float
    level: Level
    inferred: bool
    reasons: list[RiskFactor]


def level_of(score: float) -> Level:
    return "high" if score >= HIGH else "medium" if score >= MEDIUM else "low"


def cochange(store: RepoStore, path: str, *, min_shared: int = 1) -> tuple[int, list[CoChange]]:
    """The file's coupled revisions and its co-change partners (sharing `min_shared` commits or more),
    most telling first."""
    revisions = store.history_of(path, since=0, max_files=MAX_CHANGESET)["coupled_revisions"]
    if is_noise(path):  # a changelog or lockfile makes no pairs
        return revisions, []
    lineage = store.lineage(path)
    names = {life.name for life in lineage}
    if len(lineage) == 1 and not store.exits_of(path):  # one name, one file: the pair table is exact
        counted = store.pair_counts(path)
    else:  # a renamed file's earlier names count; an earlier file at one of its paths does not
        counted = [r for r in store.partners_within(lineage, max_files=MAX_CHANGESET) if not is_noise(r.path)]
    partners = _as_named_now(store, lineage, counted, names, min_shared)
    pairs = [_pair(p, revisions) for p in partners]
    pairs.sort(key=lambda c: (-c.confidence, -c.shared, c.path))
    return revisions, pairs


def _as_named_now(
    store: RepoStore, lineage: list[LifeRow], counted: list[PairRow], own: set[str], min_shared: int
) -> list[PairRow]:
    """Partners under the names they have now: a partner renamed since counts under its current
    path (merged with the commits shared under it), one deleted since is dropped, and at a path an
    earlier file left, only the current file's commits count. Then each kept partner's revisions."""
    moved = store.moved_among([r.path for r in counted])
    merged: dict[str, PairRow] = {}
    mapped: set[str] = set()
    # Read what following the moved partners forward needs in a few statements, not a few per partner.
    ordered = sorted(moved)
    indexed = store.indexed_among(ordered)
    seen = history.Forward(exits=store.exits_of_paths(ordered), present={p: p in indexed for p in ordered})

    def add(name: str, shared: int, last_at: int) -> None:
        had = merged.get(name)
        merged[name] = (
            PairRow(name, shared, 0, last_at)
            if had is None
            else replace(had, shared=had.shared + shared, last_at=max(had.last_at, last_at))
        )

    for row in counted:
        if row.path not in moved:
            add(row.path, row.shared, row.last_at)
    if moved:  # each commit shared with a moved partner counts under the name that partner has now
        for other, position, when in store.shared_commits(lineage, max_files=MAX_CHANGESET):
            if other in moved and (name := history.current_name(store, other, position, seen)) is not None:
                add(name, 1, when)
                mapped.add(name)
    rows = [r for name, r in merged.items() if name not in own and not is_noise(name) and r.shared >= min_shared]
    # A partner whose own history spans several names or lives counts the commits of its life; the
    # rest count every commit at their path. One read of the coupled commits serves them all.
    lives = {r.path: store.lineage(r.path) for r in rows if r.path in mapped or r.path in moved}
    counts = store.coupled_counts(sorted({r.path for r in rows} - lives.keys()), max_files=MAX_CHANGESET)
    names = sorted({life.name for chain in lives.values() for life in chain})
    positions = store.coupled_positions(names, max_files=MAX_CHANGESET)
    return [
        replace(r, revisions=_revisions_in(positions, lives[r.path]) if r.path in lives else counts.get(r.path, 0))
        for r in rows
    ]


def _revisions_in(positions: dict[str, list[int]], lineage: list[LifeRow]) -> int:
    """Coupled commits within each life of `lineage` (lives hold disjoint commit ranges, so their
    counts add up)."""
    total = 0
    for life in lineage:
        held = positions.get(life.name, [])
        low = bisect.bisect_left(held, life.since) if life.since is not None else 0
        high = bisect.bisect_left(held, life.until) if life.until is not None else len(held)
        total += max(0, high - low)
    return total


def blast_radius(store: RepoStore, path: str) -> int:
    """Files that usually change with this one (confidence >= 0.3 over at least two shared commits)."""
    _revisions, pairs = cochange(store, path, min_shared=2)
    return blast_of(pairs)


def blast_of(pairs: list[CoChange]) -> int:
    """`blast_radius` from the file's co-change partners, when the caller holds them already."""
    return sum(1 for p in pairs if p.shared >= 2 and p.confidence >= 0.3)


def tests_for(store: RepoStore, path: str) -> list[str]:
    """Test files paired with `path` by name (its runner's naming, its language, its project), or importing it."""
    if is_test_path(path) or not testnames.source_stem(path):
        return []
    named = {p for p in store.paths_with_names(testnames.name_patterns(path)) if testnames.pairs_by_name(p, path)}
    packaged = path.endswith(_PACKAGED)
    if named or packaged:
        roots = testnames.project_roots(store.paths_with_names([f"*{m}" for m in testnames.PROJECT_MANIFESTS]))
        home = testnames.project_of(path, roots)
        named = {t for t in named if is_test_path(t) and testnames.project_of(t, roots) == home}
    by_import = {p for p in store.importers_of(path) if is_test_path(p)}
    same_package = _same_package_tests(store, path, roots, home) if packaged else set()
    return sorted(closest(named, path) | by_import | same_package)


_PACKAGED = (".kt", ".java", ".scala")
_PACKAGE_KINDS = frozenset({"namespace", "package"})
_MOST_NAMES = 30


def _same_package_tests(store: RepoStore, path: str, roots: set[str], home: str) -> set[str]:
    """JVM tests of the file's own project and package that use a name it declares at the top level:
    a Kotlin, Java or Scala test in the same package needs no import (kotlin-result's `MapTest` of
    `Result`)."""
    symbols = store.symbols_in(path)
    package = next((s.name for s in symbols if s.kind in _PACKAGE_KINDS and s.parent is None), None)
    names = [s.name for s in symbols if s.parent is None and s.kind not in _PACKAGE_KINDS][:_MOST_NAMES]
    if package is None or not names:
        return set()
    tests = sorted(
        {
            d.path
            for d in store.definitions(package)
            if d.kind in _PACKAGE_KINDS
            and d.path != path
            and is_test_path(d.path)
            and testnames.project_of(d.path, roots) == home
        }
    )
    return {r.path for name in names for r in store.references_in(name, tests)} if tests else set()


def closest(tests: set[str], path: str) -> set[str]:
    """The tests sharing the deepest folder with `path`: `web/src/sum.mjs` pairs with
    `web/src/sum.test.mjs`, not with another package's `ui/src/sum.test.mjs` of the same name."""
    if len(tests) < 2:
        return tests
    depth = {t: testnames.shared_folders(t, path) for t in tests}
    best = max(depth.values())
    return {t for t, d in depth.items() if d == best}


def structural_links(store: RepoStore, path: str) -> list[StructuralLink]:
    links = [StructuralLink(path=dst, kind="imports") for dst, _raw in store.imports_of(path)]
    links += [StructuralLink(path=src, kind="imported-by") for src in store.importers_of(path)]
    links += [StructuralLink(path=t, kind="test-pair") for t in tests_for(store, path)]
    seen, out = set(), []
    for link in links:
        if (link.path, link.kind) not in seen:
            seen.add((link.path, link.kind))
            out.append(link)
    return out


def churn_points(revisions: int) -> float:
    """One point a commit up to 20, then 10 more for each doubling: busier files keep ranking higher."""
    if revisions <= 20:
        return float(revisions)
    return 20 + 10 * math.log2(revisions / 20)


def score_risk(
    store: RepoStore,
    path: str,
    *,
    now: datetime,
    language: str | None,
    lines: int | None,
    pairs: list[CoChange] | None = None,
) -> RiskResult:
    """The file's risk; `pairs` are its co-change partners when the caller read them already."""
    now_epoch = int(now.timestamp())
    history = store.history_of(path, since=now_epoch - 30 * DAY, max_files=MAX_CHANGESET)
    reasons: list[RiskFactor] = []

    def add(factor: str, points: float, detail: str) -> None:
        if round(points, 1) > 0:
            reasons.append(RiskFactor(factor=factor, points=round(points, 1), detail=detail))

    inferred = history["revisions"] == 0
    if not inferred:
        add("churn", churn_points(history["revisions"]), f"{history['revisions']} commits touched it")
        add("recent", 3 * min(history["recent"], 5), f"{history['recent']} touches in the last 30 days")
        partners = blast_radius(store, path) if pairs is None else blast_of(pairs)
        add("coupling", 2 * min(partners, 10), f"{partners} files usually change with it")
        add("authors", min(history["authors"], 5), f"{history['authors']} distinct authors")
        last = history["last_at"] or 0
        if now_epoch - last <= 14 * DAY:
            when = clock.iso_utc(datetime.fromtimestamp(last, UTC))
            add("fresh", 2, f"last touched {when}, within 14 days")
    if lines:
        add("size", min(lines / 200, 5), f"{lines} lines")
    importers = len(store.importers_of(path))
    add("fan-in", 0.5 * min(importers, 10), f"imported by {importers} files")
    if language in CODE_LANGUAGES and not is_test_path(path) and not tests_for(store, path):
        add("untested", 3, "no test file pairs with it by name or imports it")
    boundary = _SENSITIVE.search(path)
    if boundary:
        add("boundary", 4, f"sensitive boundary ({boundary.group(1).lower()}) in the path")
    score = round(sum(r.points for r in reasons), 1)
    if inferred:
        reasons.insert(0, RiskFactor(factor="inferred", points=0, detail="no commit touched it: structure only"))
    return RiskResult(score=score, level=level_of(score), inferred=inferred, reasons=reasons)


def _pair(row: PairRow, revisions: int) -> CoChange:
    mean = (revisions + row.revisions) / 2 or 1
    degree = row.shared / mean
    confidence = row.shared / revisions if revisions else 0.0
    strong = row.shared >= 5 and mean >= 5 and degree >= 0.3
    return CoChange(
        path=row.path,
        shared=row.shared,
        degree=round(degree, 3),
        confidence=round(confidence, 3),
        last_shared_at=clock.iso_utc(datetime.fromtimestamp(row.last_at, UTC)),
        strength="strong" if strong else "weak",
    )
