"""Typo correction for route: a misspelt word read as the closest word route knows ("wokrflow": workflow).

Symmetric deletes (SymSpell) over the catalog's words, the synonyms and the reading's own vocabulary,
so a lookup is a few dictionary reads; built once per process by the catalog.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from services.route.lexicon import OFF_DOMAIN, SOFTWARE, STOPWORDS, SYNONYMS_OF, canonical

__all__ = ["Speller"]


class Speller:
    """Typo correction against a vocabulary: symmetric deletes (SymSpell), so a lookup is a few dict reads.

    `known` holds canonical terms; `surfaces` maps every known surface word to its term. A word of
    eight letters or more may be two edits away, a shorter one of at least four letters one edit.
    """

    def __init__(self, surfaces: Iterable[str]) -> None:
        self.surface_terms: dict[str, str] = {}
        for word in surfaces:
            if len(word) >= 3 and word not in STOPWORDS:
                self.surface_terms.setdefault(word, canonical(word))
        for word in SYNONYMS_OF:
            self.surface_terms.setdefault(word, canonical(word))
        for word in SOFTWARE | OFF_DOMAIN:  # a slip in "branches" is "branches", not the nearest catalog word
            if len(word) >= 3:
                self.surface_terms.setdefault(word, canonical(word))
        self.known = frozenset(self.surface_terms.values())
        self._deletes: dict[str, list[str]] = {}
        for word in self.surface_terms:
            for variant in _deletes(word, 2 if len(word) >= 8 else 1):
                self._deletes.setdefault(variant, []).append(word)

    def correct(self, word: str) -> str | None:
        surface = self.correct_surface(word)
        return self.surface_terms[surface] if surface is not None else None

    def fix_text(self, text: str, keep: frozenset[str] = frozenset()) -> str:
        """`text` with each misspelt plain word replaced by the known word it most likely is ("wokrflow"
        -> "workflow"), so reading a task's structure sees the words its ranking sees. Names, quoted text
        and known words stay as they are."""
        out = []
        last = 0
        for match in _PLAIN_WORD.finditer(text):
            word = match.group(0)
            lowered = word.lower()
            if (
                len(lowered) < 3
                or lowered in STOPWORDS
                or lowered in self.surface_terms
                or lowered in keep
                or lowered in OFF_DOMAIN
                or lowered in SOFTWARE
                or canonical(lowered) in self.known  # an inflection of a known word ("returning") is no slip
                or _inside_quotes(text, match.start())
            ):
                continue
            fixed = self.correct_surface(lowered)
            if (
                fixed is not None
                and len(lowered) < 8
                and len(fixed) == len(lowered)
                and sorted(fixed) != sorted(lowered)
            ):
                fixed = None  # a short word with one letter changed is as likely a real word ("miles", not "files")
            if fixed is not None and fixed in STOPWORDS:
                fixed = None  # a word read as a stopword loses its sense ("cover" is no slip for "over")
            if fixed is not None and fixed != lowered:
                out += [text[last : match.start()], fixed]
                last = match.end()
        return "".join(out) + text[last:] if out else text

    def correct_surface(self, word: str) -> str | None:
        if len(word) < 3 or word.isdigit():
            return None
        limit = 2 if len(word) >= 8 else 1
        best: tuple[int, bool, int, str] | None = None
        short = len(word) <= 4  # "tall" must not become "call": short words take no substitutions
        for variant in _deletes(word, limit):
            for candidate in self._deletes.get(variant, ()):
                distance = _distance(word, candidate)
                if distance > limit or (distance == 2 and candidate[0] != word[0]):
                    continue
                if short and len(candidate) == len(word) and sorted(candidate) != sorted(word):
                    continue
                if len(word) == 3 and (len(candidate) != 3 or sorted(candidate) != sorted(word)):
                    continue  # three letters: only a swap ("fxi" -> "fix")
                # Routing words first ("faling" -> "failing", not "facing"), then fewer edits.
                key = (distance, candidate not in SYNONYMS_OF, abs(len(candidate) - len(word)), candidate)
                if best is None or key < best:
                    best = key
        return best[3] if best is not None else None


# A word written in capitals (HEAD, CI) or joined to a ref's ~ or ^ is a name, never a slip.
_PLAIN_WORD = re.compile(r"(?<![\w./@`'\"~^-])(?![A-Z]{2,}\b)[A-Za-z]+(?![\w./@`'\"~^-])")


def _inside_quotes(text: str, at: int) -> bool:
    before = text[:at]
    return before.count("`") % 2 == 1 or before.count('"') % 2 == 1


def _deletes(word: str, depth: int) -> set[str]:
    found = {word}
    frontier = {word}
    for _ in range(depth):
        frontier = {w[:i] + w[i + 1 :] for w in frontier for i in range(len(w)) if len(w) > 2}
        found |= frontier
    return found


def _distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment): a swap of neighbours is one edit."""
    if a == b:
        return 0
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]
