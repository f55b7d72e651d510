"""What a request is about, by its nouns: Pallium itself, the knowledge base, a session, a team, a loop,
a run, or code; a path it names is scope, never its object. The reading (`reading.py`) asks this of each
request; only recognition lives here.
"""

from __future__ import annotations

import re

__all__ = ["CODE_HEAD", "names_path", "object_in"]

# Object cues, strongest first: the first kind a request names is its object.
_OBJECTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "pallium",
        re.compile(
            r"\bpallium'?s?\b|\bmcp\b|\bagents\.md\b|\bclaude\.md\b|\bembedding\w*\b|"
            r"(?<!session )(?<!sessions )\b(?:database|db)\b",
            re.I,
        ),
    ),
    (
        "knowledge",
        re.compile(
            r"\bknowledge\b|\bmodule docs?\b|\bclaims?\b|\b(?:according to|per|in|from) the (?:module )?docs\b|"
            # keeping the docs fresh in the background is the knowledge base's upkeep
            r"\bupkeep\b",
            re.I,
        ),
    ),
    (
        "session",
        re.compile(
            # "a codex member", "a claude reviewer": an agent of a team, not a session
            r"\b(?:claude|codex)\b(?! code\b)(?!(?:\s+[\w-]+)?\s+(?:members?|reviewers?|teammates?|testers?|fixers?|"
            r"editors?|planners?)\b)|\bagents? (?:sessions?|running|doing|up to)\b|"
            r"\b(?:running|stuck|live|active|idle|busy) agents?\b|\bwhere (?:was|were|did) (?:i|we)\b|"
            # where earlier work stood: "where did the last agent stop on the parser rewrite"
            r"\bwhere (?:was|were|did|had) (?:you|they|(?:the |my |our )?(?:last |previous |earlier |other )?"
            r"(?:agents?|sessions?|claude|codex|bots?|assistants?))\b(?=.*\b(?:stop|leave|left|get|got|end|stand|"
            r"stood|finish)\w*\b)|"
            r"\bwhere (?:i|we) left off\b",
            re.I,
        ),
    ),
    (
        "team",
        re.compile(
            r"\bteam-[0-9a-f]{4,}\b|\b[a-z]+-[a-z]+ team\b|"
            r"\bteam ?mates?\b|\brosters?\b|\bteams?\b(?=.*\b(?:agents?|members?|roster|board|"
            r"lead|mail|status|template)\b)|\b(?:the|this|agent) team\b|\bteams\b|^teams?\b|"
            r"\b(?:start|spin up|create|launch|spawn|stop|set up|form|assemble|put together)\s+(?:a|an|the|my)?\s*"
            r"(?:[\w-]+\s+)?team\b|"
            # several agents working together are a team ("assemble a few agents to debate ...")
            r"\b(?:a few|few|several|some|multiple|a couple of|a group of|a panel of|a handful of|a bunch of|"
            r"two|three|four|five|\d+)\s+(?:\w+\s+)?agents\b(?!\s+(?:running|are running))",
            re.I,
        ),
    ),
    ("loop", re.compile(r"\bloops?\b|\btick\b", re.I)),
    (
        "session",
        re.compile(
            r"\bsessions?\b|\btranscripts?\b|\bconversations?\b|\bchats?\b|\braw events\b|\bsession history\b|"
            r"\bforget(?:ting|s)?\s+(?:about\s+)?(?=[0-9a-f]*\d)[0-9a-f]{6,}\b",
            re.I,
        ),
    ),
    (
        "run",
        re.compile(
            r"\bwf-\w+|(?<!\bdry )(?<!\bdry-)\bruns?\b(?! (?:the |my )?(?:tests?|it|them|this))|\bworkflows?\b|"
            r"\b(?:old|stale|leftover|unused|finished|dead|orphan\w*)\s+worktrees?\b|\bworktrees?\s+(?:of|from|left)\b|"
            r"\bpatch(?:es)?\b|\bgates?\b|\brun folders?\b|\btemplates?\b|\.js\b",
            re.I,
        ),
    ),
)
# A request whose object's head noun is code, whatever a clause after it speaks of.
CODE_HEAD = re.compile(
    r"^(?:\w+\s+){0,3}?(?:the|which|what|a|any)\s+(?:\w+\s+)?(?:code|file|files|function|functions|module|modules|"
    r"class|classes|method|methods|line|lines)\s+(?:that|which|where|in charge of|responsible for|handling|"
    r"opens?|reads?|writes?|parses?|handles?|calls?|does|talks to)\b",
    re.IGNORECASE,
)
_CODE = re.compile(
    r"[\w-]+/[\w./-]+|\b[\w-]+\.(?:py|js|ts|go|rs|java|rb|c|h|cpp|md|json|toml|ya?ml|sh|txt)\b|"
    r"\b(?:code|codebase|repo|repository|project|app|function|functions|class|classes|method|file|files|module|"
    r"modules|tests?|bugs?|imports?|comments?|helpers?|branch|diff|changes?|commits?|build|lint|types?|"
    r"docstrings?|endpoint|api|parser|config|crash\w*|errors?|exceptions?|checkout|auth\w*|cache|logging|"
    r"retr(?:y|ies)|print statements?|dead code|todo|changed|modified|uncommitted|staged|working tree|"
    r"validation|flags?|options?|features?|inputs?|outputs?|arguments?|parameters?|edge cases?|type hints?|"
    r"docs?trings?|variables?|constants?|logic|coverage)\b",
    re.IGNORECASE,
)


# A path the task names (`src/patches.py`, `run_report.md`) is scope, not words: its folder and file
# names never make it a task about runs, patches or sessions.
_PATH_TOKEN = re.compile(
    r"(?<![\w./-])(?:[\w.-]+/[\w./-]*[\w-]|[\w-]+\.(?:py|js|ts|go|rs|java|rb|c|h|cpp|md|json|toml|ya?ml|sh|txt))\b"
)


# The text Pallium writes into an agents file is Pallium's, not the file's ("the snippet for CLAUDE.md").
_ADOPTION = re.compile(
    r"\b(?:snippet|block|section|instructions?|stanza|boilerplate|blurb)\b.*\b(?:agents|claude)\.md\b|"
    r"\b(?:agents|claude)\.md\b.*\b(?:snippet|block|section|instructions?|stanza|boilerplate|blurb)\b",
    re.IGNORECASE,
)


_PALLIUM_NAME = re.compile(r"pallium'?s?", re.IGNORECASE)


def object_in(text: str) -> str | None:
    """The kind of thing the text is about: pallium, knowledge, session, team, loop, run, code, or None."""
    if _ADOPTION.search(text):
        return "pallium"
    words = _PATH_TOKEN.sub(" file ", text)
    for i, (kind, pattern) in enumerate(_OBJECTS):
        match = pattern.search(words)
        if match and kind == "pallium" and _PALLIUM_NAME.fullmatch(match.group(0)):
            # "make pallium forget old sessions", "pallium's loops": the product named as the one who acts or
            # owns; the thing of its own the task names is the object (never the whole store for its sessions)
            # (not "claude" or "codex": "hook pallium into claude" configures Pallium)
            own = next((k for j, (k, p) in enumerate(_OBJECTS) if j not in (i, 2) and p.search(words)), None)
            if own is not None:
                return own
        if match:
            return kind
    return "code" if _CODE.search(text) else None


def names_path(text: str) -> bool:
    """Whether the text names a file or folder (`src/app.py`, `README.md`)."""
    return bool(_PATH_TOKEN.search(text))
