"""Team templates: named rosters a team can start with (`team start --template NAME`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TEMPLATES", "Template", "TemplateMember"]


@dataclass(frozen=True)
class TemplateMember:
    name: str
    role: str
    mode: str = "read-only"


@dataclass(frozen=True)
class Template:
    name: str
    description: str
    members: tuple[TemplateMember, ...]


TEMPLATES: dict[str, Template] = {
    t.name: t
    for t in (
        Template(
            "parallel-review",
            "Three read-only reviewers look at the same change from different angles and report to the lead.",
            (
                TemplateMember(
                    "correctness-reviewer",
                    "Review for correctness: wrong results, unhandled inputs, broken invariants, missing tests. "
                    "Cite file and line for every finding.",
                ),
                TemplateMember(
                    "concurrency-reviewer",
                    "Review for concurrency: races, lost updates, lock order, cancellation and timeouts, "
                    "shared state across threads, processes or tasks. Cite file and line.",
                ),
                TemplateMember(
                    "zombie-hunter",
                    "Hunt for leaks and zombies: processes, files, sockets, worktrees or rows left behind on "
                    "error, crash or cancel paths. Cite file and line.",
                ),
            ),
        ),
        Template(
            "adversarial-debate",
            "An advocate argues for a proposal and a skeptic against it until the lead has both cases.",
            (
                TemplateMember(
                    "advocate",
                    "Argue for the proposal in the goal: the strongest case, with evidence from the code. Answer "
                    "the skeptic's points one by one.",
                ),
                TemplateMember(
                    "skeptic",
                    "Argue against the proposal in the goal: risks, costs, counter-examples from the code. Answer "
                    "the advocate's points one by one.",
                ),
            ),
        ),
    )
}
