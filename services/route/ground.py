"""Turn what a task names into a capability's arguments, each checked against the repository or a store.

A path must exist, a symbol must be in the index, a run, loop or session must be stored; what
cannot be grounded becomes a `needs_input` precondition, and such a call is never executed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel.errors import PalliumError
from services.route import lexicon
from services.route.models import Precondition

if TYPE_CHECKING:
    from services.route.catalog import Capability
    from services.route.extract import Found
    from services.route.state import State

__all__ = ["Grounded", "ground", "needed_level", "repo_root", "state_preconditions"]

_PREVIEW = re.compile(
    r"\b(preview|dry[- ]?run|what would|would it|simulate|without (deleting|removing|changing)|just (show|list)|"
    r"how many would|before (deleting|removing))\b",
    re.IGNORECASE,
)
_NO_EDIT = re.compile(
    r"\b(don'?t|do not|never|without|no)\s+(change|changing|edit|editing|modify|modifying|touch|touching|fix|fixing|"
    r"write|writing|edits|changes)\b|\bread[- ]only\b|\bjust (look|read|review|report)\b",
    re.IGNORECASE,
)
_COMMAND_TERMS = frozenset(lexicon.canonical(w) for w in ("find", "show", "search", "explain", "tell", "where"))


@dataclass
class Grounded:
    arguments: dict[str, Any] = field(default_factory=dict)
    needs_input: list[Precondition] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # how an argument was chosen, for `why`
    pending_symbol: str | None = None  # named but not checkable until the index exists


async def ground(cap: Capability, task: str, found: Found, state: State, root: Path | None) -> Grounded:
    out = Grounded()
    for name, source in cap.arguments.items():
        if name not in cap.properties:
            continue
        value = await _value(cap, name, source, task, found, state, root, out)
        if value is not None and value != []:
            out.arguments[name] = value
    for name, words in cap.flags.items():
        if name in cap.properties and _mentions(task, words):
            if cap.escalation and name == cap.escalation[0] and _PREVIEW.search(task):
                out.notes.append(f"the task asks for a preview, so `{name}` stays off")
                continue
            out.arguments[name] = True
    for name in cap.required:
        if name not in out.arguments and not any(p.field == name for p in out.needs_input):
            out.needs_input.append(_needs(cap, name, f"the task does not say which {_noun(name)} to use"))
    return out


def needed_level(cap: Capability, arguments: dict[str, Any], task: str) -> tuple[str, str | None]:
    """The level this call needs, and why it is above the tool's base level (None when it is not)."""
    from kernel.authority import LEVELS

    level, reason = cap.authority, None
    if cap.escalation and arguments.get(cap.escalation[0]):
        field_name, escalated = cap.escalation
        if LEVELS.index(escalated) > LEVELS.index(level):
            level, reason = escalated, f"`{field_name}` makes {cap.capability} act instead of preview"
    if not _NO_EDIT.search(task):
        for wanted, words in cap.levels.items():
            hit = _mentions(task, words)
            if hit and LEVELS.index(wanted) > LEVELS.index(level):
                level, reason = wanted, f"the task asks to {hit}, which {cap.capability} can only do at {wanted}"
    return level, reason


async def state_preconditions(cap: Capability, state: State) -> list[Precondition]:
    out: list[Precondition] = []
    if "git" in cap.needs or "index" in cap.needs:
        await state.probe_repo()
        if state.git is False:
            out.append(
                Precondition(
                    kind="git",
                    met=False,
                    detail="not inside a git repository",
                    command="git init (or pass --repo PATH)",
                )
            )
            return out
    if "index" in cap.needs:
        status = state.index_status
        met = status == "indexed"
        detail = {
            "indexed": "the index is current",
            "stale": "the index is behind the working tree or HEAD",
            "missing": "the repository has no index yet",
        }.get(status or "", "index state unknown")
        out.append(
            Precondition(
                kind="index",
                met=met,
                detail=detail,
                command="pallium index",
                tool="pallium_index",
                arguments={"repo": state.repo} if state.repo else {},
                needed_authority="observe",
            )
        )
    if "sessions" in cap.needs:
        count = await state.session_count()
        out.append(
            Precondition(
                kind="sessions",
                met=count > 0,
                detail=f"{count} sessions in memory" if count else "session memory is empty",
                command="pallium sessions sync",
                tool="pallium_sessions_sync",
                needed_authority="observe",
            )
        )
    return out


async def _value(
    cap: Capability,
    name: str,
    source: str,
    task: str,
    found: Found,
    state: State,
    root: Path | None,
    out: Grounded,
) -> Any:
    if source == "task":
        return task
    if source == "quoted":
        return found.quoted[0] if found.quoted else None
    if source == "text":
        return found.quoted[0] if found.quoted else _content_words(task, found, cap)
    if source in ("path", "paths", "script"):
        return _paths(cap, name, source, found, state, root, out)
    if source == "symbol":
        return await _symbol(cap, name, found, state, out)
    if source == "run_id":
        return await _run(cap, name, found, state, out)
    if source == "loop_name":
        return await _loop(cap, name, found, state, out)
    if source == "session_id":
        return await _session(cap, name, found, state, out)
    if source == "name":
        return found.names[0] if found.names else None
    if source == "gate":
        return found.gates[0] if found.gates else await _pending_gate(out, state)
    if source == "age":
        return found.ages[0] if found.ages else None
    if source == "test_command":
        return found.test_command
    if source == "ref":
        return found.refs[0] if found.refs else None
    if source == "source":
        return found.source
    return None


def _paths(
    cap: Capability, name: str, source: str, found: Found, state: State, root: Path | None, out: Grounded
) -> Any:
    wanted = [p for p in found.paths if p.endswith(".js")] if source == "script" else list(found.paths)
    good, missing = [], []
    for text in wanted:
        resolved = _existing(text, state, root)
        (good if resolved else missing).append(resolved or text)
    for text in missing:
        out.needs_input.append(_needs(cap, name, f"{text!r} does not exist in the repository", value=text))
    if source == "paths":
        return good
    return good[0] if good else None


def _existing(text: str, state: State, root: Path | None) -> str | None:
    """`text` relative to the repository root when it names an existing file or folder inside it."""
    bases = [b for b in (root, state.ctx.cwd) if b is not None]
    for base in bases:
        candidate = (base / text).resolve() if not Path(text).is_absolute() else Path(text).resolve()
        if candidate.exists() and (root is None or _inside(candidate, root)):
            return str(candidate.relative_to(root)) if root is not None else str(candidate)
    return None


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root.resolve())
    except ValueError:
        return False
    return True


async def _symbol(cap: Capability, name: str, found: Found, state: State, out: Grounded) -> str | None:
    if not found.symbols:
        return None
    symbol = found.symbols[0]
    await state.probe_repo()
    if state.index_status not in ("indexed", "stale"):
        out.pending_symbol = symbol
        out.notes.append(f"`{symbol}` is checked against the index once it is built")
        return symbol
    try:
        answer = await state.ctx.call("pallium_callers", {"name": symbol, "limit": 1, "repo": state.repo})
    except PalliumError:
        answer = None
    if answer is None or not (answer.definitions or answer.references):
        out.needs_input.append(_needs(cap, name, f"no symbol {symbol!r} in the index", value=symbol))
        return None
    return symbol


async def _run(cap: Capability, name: str, found: Found, state: State, out: Grounded) -> str | None:
    runs = await state.workflow_runs()
    if found.run_ids:
        wanted = found.run_ids[0]
        matches = [r for r in runs if r["id"] == wanted or r["id"].startswith(wanted)]
        if len(matches) == 1:
            return matches[0]["id"]
        try:  # older than the newest page of runs
            status = await state.ctx.call("pallium_workflow_status", {"run_id": wanted})
            return status.run_id if hasattr(status, "run_id") else wanted
        except PalliumError:
            out.needs_input.append(_needs(cap, name, f"no workflow run {wanted!r}", value=wanted))
            return None
    if not runs:
        out.needs_input.append(_needs(cap, name, "there are no workflow runs yet (`pallium start` makes one)"))
        return None
    fitting = runs
    for signal in cap.signals:
        wanted_status = {
            "runs_awaiting_approval": {"awaiting_approval"},
            "runs_interrupted": {"interrupted", "failed"},
            "runs_active": {"queued", "running", "paused"},
            "runs_finished": {"completed"},
        }.get(signal)
        if wanted_status:
            fitting = [r for r in runs if r["status"] in wanted_status] or fitting
    if found.last_run or len(fitting) == 1 or len(runs) == 1:
        chosen = fitting[0]
        out.notes.append(f"run {chosen['id']} ({chosen['status']}) is the {'newest' if found.last_run else 'only'} fit")
        return chosen["id"]
    out.needs_input.append(
        _needs(cap, name, f"{len(fitting)} runs could be meant; name one (newest: {fitting[0]['id']})")
    )
    return None


async def _pending_gate(out: Grounded, state: State) -> str | None:
    run_id = out.arguments.get("run_id")
    if not run_id:
        return None
    try:
        listed = await state.ctx.call("pallium_workflow_gate_list", {"run_id": run_id})
    except PalliumError:
        return None
    pending = [g.name for g in listed.gates if g.state == "pending"]
    if len(pending) == 1:
        out.notes.append(f"gate {pending[0]!r} is the one run {run_id} waits on")
        return pending[0]
    return None


async def _loop(cap: Capability, name: str, found: Found, state: State, out: Grounded) -> str | None:
    loops = await state.loop_names()
    lowered = {n.lower(): n for n in loops}
    for word in [*found.names, *found.quoted, *found.words]:
        if word.lower() in lowered:
            return lowered[word.lower()]
    if len(loops) == 1:
        out.notes.append(f"loop {loops[0]!r} is the only one")
        return loops[0]
    detail = (
        "there are no loops yet (`pallium loop start` makes one)"
        if not loops
        else (f"the task names none of the {len(loops)} loops ({', '.join(loops[:5])})")
    )
    out.needs_input.append(_needs(cap, name, detail))
    return None


async def _session(cap: Capability, name: str, found: Found, state: State, out: Grounded) -> str | None:
    if not found.session_ids:
        return None
    wanted = found.session_ids[0]
    try:
        shown = await state.ctx.call("pallium_sessions_show", {"id": wanted})
    except PalliumError:
        out.needs_input.append(_needs(cap, name, f"no session {wanted!r} in session memory", value=wanted))
        return None
    return getattr(shown, "id", None) or wanted


def _content_words(task: str, found: Found, cap: Capability) -> str:
    skip = cap.name_terms | _COMMAND_TERMS
    kept = [w for w in lexicon.words(task) if w not in lexicon.STOPWORDS and lexicon.canonical(w) not in skip]
    return " ".join(kept) or task


def _mentions(task: str, words: tuple[str, ...]) -> str | None:
    """The first of `words` the task uses (as a word or, for one-word entries, any form of it)."""
    lowered = task.lower()
    stems = {lexicon.stem(w) for w in lexicon.words(task)}
    for word in words:
        if " " in word:
            if word in lowered:
                return word
        elif lexicon.stem(word) in stems:
            return word
    return None


def _needs(cap: Capability, name: str, detail: str, value: str | None = None) -> Precondition:
    return Precondition(
        kind="needs_input",
        met=False,
        detail=detail,
        command=None,
        field=name,
        arguments={name: value} if value else {},
    )


def _noun(name: str) -> str:
    return {
        "run_id": "run",
        "id": "session",
        "name": "name",
        "path": "file",
        "script": "script",
        "older_than": "age",
        "query": "query",
        "model": "model",
    }.get(name, name.replace("_", " "))


def repo_root(state: State) -> Path | None:
    try:
        return state.ctx.repo_root(state.repo)
    except PalliumError:
        return None
    except OSError:
        return None
