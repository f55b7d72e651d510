"""The catalog route ranks: every routable tool's metadata from the generated manifest, as terms.

Built once per process from `tools_manifest/tools.json` (no service is imported), with the
inverse document frequency of each term across capabilities and a speller over their words.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Any

from services.route import lexicon
from services.route.speller import Speller

__all__ = ["Capability", "Catalog", "Scored", "load"]

_UNKNOWN_WEIGHT = 1.2  # a word no capability uses: it dilutes the match without pointing anywhere
_GENERIC_FACTOR = 0.35
_LEAD_BONUS = 0.2
_EXAMPLE_WEIGHT = 0.6
_NO_OBJECT_PENALTY = 0.1
# Teams are experimental and no tool lists them: a team's tool needs the task to speak of a team.
_NO_TEAM_PENALTY = 0.2
_SCRIPT_CUES = frozenset({"<path>", "workflow", "fil", "loop"})
OBJECT_CUES = {
    "run": frozenset({"run", "workflow", "<run>", "gate", "approv", "reject", "apply", "revert", "resum"}),
    "loop": frozenset({"loop", "tick"}),
    "team": frozenset({"team", "teammat", "member", "lead", "roster", "mailbox", "board", "<team>"}),
}
_NAME_STOP = frozenset({"workflow", "session"})  # words too many command names share to name one


@dataclass(frozen=True)
class Capability:
    capability: str
    tool: str
    cli: str
    summary: str
    authority: str
    escalation: tuple[str, str] | None
    phrasings: tuple[str, ...]
    phrasing_terms: tuple[frozenset[str], ...]
    name_terms: frozenset[str]
    lead_terms: frozenset[str]  # verbs that, leading a task, ask for this capability
    object_terms: frozenset[str]  # a noun most of its phrasings use; a task without it fits less
    summary_terms: frozenset[str]
    all_terms: frozenset[str]
    arguments: dict[str, str]
    flags: dict[str, tuple[str, ...]]
    levels: dict[str, tuple[str, ...]]
    needs: tuple[str, ...]
    signals: tuple[str, ...]
    prepare: str | None
    required: tuple[str, ...]
    properties: dict[str, Any]
    positional: tuple[str, ...]
    toolset: str
    destructive: bool = False  # declared destructive: chosen only for a deletion of its object
    raised_by: tuple[tuple[str, str], ...] = ()  # (field, level) a set field raises the call to, by its description


@dataclass(frozen=True)
class Scored:
    capability: Capability
    score: float
    matched: tuple[str, ...]  # task terms the capability's words share
    best_phrasing: str
    structural: bool = False  # placed first by the task's reading (action and object), not by its words


class Catalog:
    def __init__(self, capabilities: list[Capability]) -> None:
        self.capabilities = capabilities
        self.by_name = {c.capability: c for c in capabilities}
        self.by_tool = {c.tool: c for c in capabilities}
        count = len(capabilities)
        df: dict[str, int] = {}
        for cap in capabilities:
            for term in cap.all_terms:
                df[term] = df.get(term, 0) + 1
        self.idf = {t: math.log(1 + count / n) for t, n in df.items()}
        # A software noun that only a phrasing's example uses ("the checkout race") says what the task
        # is about, not which capability serves it: it may not steer the choice.
        described = frozenset().union(*(c.name_terms | c.summary_terms for c in capabilities))
        for term in self.idf:
            if term in lexicon.SOFTWARE_TERMS and term not in described:
                self.idf[term] = min(self.idf[term], _EXAMPLE_WEIGHT)
        surfaces: set[str] = set()
        for cap in capabilities:
            for text in (*cap.phrasings, cap.summary, cap.cli):
                surfaces.update(lexicon.words(text))
        self.speller = Speller(surfaces)
        # The words the catalog itself uses, and every synonym it knows: a noun outside them is no thing of
        # Pallium's. A software noun only a phrasing's example uses ("the router") is left out, as for idf.
        described_words = {w for c in capabilities for text in (c.summary, c.cli) for w in lexicon.words(text)}
        self.surfaces = (
            frozenset(w for w in surfaces if w in described_words or w not in lexicon.SOFTWARE) | lexicon.SYNONYM_WORDS
        )
        from services.route.reading import VOCABULARY

        # The reading corrects against its own words too, so "prveiew" reads as "preview".
        self.reading_speller = Speller(surfaces | VOCABULARY)

        # What every call would otherwise sum again: each phrasing's weight and each name's, built once.
        self._weights: dict[str, float] = {}
        self._phrasing_totals = {
            c.capability: tuple(sum(self.weight(t) for t in terms) or 1.0 for terms in c.phrasing_terms)
            for c in capabilities
        }
        self._name_totals = {c.capability: sum(self.weight(t) for t in c.name_terms) or 1.0 for c in capabilities}
        # Postings: for each term, the capabilities and phrasings holding it, so a task visits only those.
        self._term_caps: dict[str, list[int]] = {}
        self._term_phrasings: dict[str, list[tuple[int, int]]] = {}
        for ci, cap in enumerate(capabilities):
            for term in cap.all_terms:
                self._term_caps.setdefault(term, []).append(ci)
            for pi, terms in enumerate(cap.phrasing_terms):
                for term in terms:
                    self._term_phrasings.setdefault(term, []).append((ci, pi))

    def weight(self, term: str) -> float:
        w = self._weights.get(term)
        if w is None:
            w = self.idf.get(term, _UNKNOWN_WEIGHT)
            w = w * _GENERIC_FACTOR if term in lexicon.GENERIC_TERMS else w
            if len(self._weights) < 50_000:  # tasks bring new words: the memo stays bounded
                self._weights[term] = w
        return w

    def rank(self, task_terms: list[str], hints: frozenset[str] = frozenset()) -> list[Scored]:
        """Score every capability; `hints` are words inside named paths (AGENTS.md: agents), which count
        as naming an object but not as words of the task."""
        task = set(task_terms)
        mentioned = task | hints
        # The first content word of an imperative task is usually its action ("approve the gate ...").
        lead = next((t for t in task_terms if not t.startswith("<")), None)
        if lead in lexicon.GENERIC_TERMS:
            lead = None
        total = sum(self.weight(t) for t in task) or 1.0
        shared_by: dict[int, set[str]] = {}
        hits: dict[tuple[int, int], float] = {}
        for term in task:
            for ci in self._term_caps.get(term, ()):
                shared_by.setdefault(ci, set()).add(term)
            weight = self.weight(term)
            for key in self._term_phrasings.get(term, ()):
                hits[key] = hits.get(key, 0.0) + weight
        scored = []
        for ci, cap in enumerate(self.capabilities):
            matched = shared_by.get(ci)
            if not matched:
                scored.append(Scored(cap, 0.0, (), cap.phrasings[0] if cap.phrasings else ""))
                continue
            best, best_text = 0.0, ""
            for pi, (text, whole) in enumerate(zip(cap.phrasings, self._phrasing_totals[cap.capability], strict=True)):
                hit = hits.get((ci, pi))
                if not hit:
                    continue
                precision = hit / total
                recall = hit / whole
                f = 2 * precision * recall / (precision + recall)
                if f > best:
                    best, best_text = f, text
            bag = sum(self.weight(t) for t in matched) / total
            named = cap.name_terms & task
            name = sum(self.weight(t) for t in named) / self._name_totals[cap.capability]
            score = 0.5 * best + 0.3 * bag + 0.2 * name + (_LEAD_BONUS if lead in cap.lead_terms else 0.0)
            if cap.object_terms and not mentioned & cap.object_terms:
                score -= _NO_OBJECT_PENALTY
            if "script" in cap.arguments.values() and not mentioned & _SCRIPT_CUES:
                score -= _NO_OBJECT_PENALTY  # a script's tool, for a task naming no script
            for need, cues in OBJECT_CUES.items():  # a run's or a loop's tool, for a task naming neither
                if need in cap.needs and not mentioned & cues:
                    score -= _NO_TEAM_PENALTY if need == "team" else _NO_OBJECT_PENALTY
            scored.append(Scored(cap, score, tuple(sorted(matched)), best_text))
        scored.sort(key=lambda s: (-s.score, s.capability.capability))
        return scored


@functools.cache
def load() -> Catalog:
    from tools_manifest import load_manifest

    return build(load_manifest()["tools"])


def build(entries: list[dict[str, Any]]) -> Catalog:
    capabilities = []
    for entry in entries:
        route = entry.get("route")
        if not route or not route.get("routable", True):
            continue
        phrasing_terms = tuple(frozenset(_terms(p)) for p in route["phrasings"])
        name_terms = frozenset(t for t in lexicon.terms(entry["cli"].replace("-", " ")) if t not in _NAME_STOP)
        escalating = [entry["escalation"][0]] if entry.get("escalation") else []
        lead_words = [w for words in route["levels"].values() for w in words]
        lead_words += [w for flag in escalating for w in route["flags"].get(flag, [])]
        lead_terms = name_terms | frozenset(t for w in lead_words for t in lexicon.terms(w))
        noun = lexicon.terms(entry["cli"].split()[0])
        using = sum(1 for terms in phrasing_terms if noun and noun[0] in terms)
        object_terms = (
            frozenset(noun)
            if noun and len(route["phrasings"]) and using / len(route["phrasings"]) >= 0.6
            else frozenset()
        )
        summary_terms = frozenset(lexicon.terms(entry["summary"]))
        schema = entry["input_schema"]
        capabilities.append(
            Capability(
                capability=route["capability"],
                tool=entry["name"],
                cli=entry["cli"],
                summary=entry["summary"],
                authority=entry["authority"],
                escalation=tuple(entry["escalation"]) if entry.get("escalation") else None,  # type: ignore[arg-type]
                phrasings=tuple(route["phrasings"]),
                phrasing_terms=phrasing_terms,
                name_terms=name_terms,
                lead_terms=lead_terms,
                object_terms=object_terms,
                summary_terms=summary_terms,
                all_terms=frozenset().union(*phrasing_terms, name_terms, summary_terms),
                arguments=dict(route["arguments"]),
                flags={k: tuple(v) for k, v in route["flags"].items()},
                levels={k: tuple(v) for k, v in route["levels"].items()},
                needs=tuple(route["needs"]),
                signals=tuple(route["signals"]),
                prepare=route.get("prepare"),
                required=tuple(schema.get("required", [])),
                properties=schema.get("properties", {}),
                positional=tuple(entry.get("positional", [])),
                toolset=entry["toolset"],
                destructive=bool(entry.get("annotations", {}).get("destructive")),
                raised_by=_raised_by(schema.get("properties", {})),
            )
        )
    return Catalog(capabilities)


_NEEDS_LEVEL = re.compile(r"\bneeds? (consult|edit|admin)\b")


def _raised_by(properties: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """Fields whose description says a set value needs a higher level ("write to this path (needs edit)"):
    levels a handler checks itself, beyond the declared escalation."""
    out = []
    for name, schema in properties.items():
        match = _NEEDS_LEVEL.search(schema.get("description", ""))
        if match:
            out.append((name, match.group(1)))
    return tuple(out)


def _terms(text: str) -> list[str]:
    from services.route.extract import find

    return lexicon.terms(text) + find(text).markers
