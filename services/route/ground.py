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
from services.route.level import LEVEL_NAMES, mentions
from services.route.models import Precondition

if TYPE_CHECKING:
    from services.route.catalog import Capability
    from services.route.extract import Found
    from services.route.state import State

__all__ = ["Grounded", "ground", "repo_root", "state_preconditions"]

_PREVIEW = re.compile(
    r"\b(preview|dry[- ]?run|what would|would it|simulate|without (deleting|removing|changing)|just (show|list)|"
    r"how many would|before (deleting|removing))\b",
    re.IGNORECASE,
)
_COMMAND_TERMS = frozenset(lexicon.canonical(w) for w in ("find", "show", "search", "explain", "tell", "where"))


@dataclass
class Grounded:
    arguments: dict[str, Any] = field(default_factory=dict)
    needs_input: list[Precondition] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # how an argument was chosen, for `why`
    pending_symbol: str | None = None  # named but not checkable until the index exists


async def ground(
    cap: Capability, task: str, found: Found, state: State, root: Path | None, acts: bool | None = None
) -> Grounded:
    """`acts` decides a destructive tool's escalation (`confirm`) from the task's reading, never from a word."""
    out = Grounded()
    for name, source in cap.arguments.items():
        if name not in cap.properties:
            continue
        value = await _value(cap, name, source, task, found, state, root, out)
        if value is not None and value != []:
            out.arguments[name] = value
    for name, words in cap.flags.items():
        if name not in cap.properties:
            continue
        if cap.destructive and cap.escalation and name == cap.escalation[0]:
            if acts:
                out.arguments[name] = True
            elif mentions(task, words):
                out.notes.append(f"the task asks for a preview, so `{name}` stays off")
            continue
        default_on = cap.properties[name].get("default") is True
        if default_on and _negated(task, words):
            out.arguments[name] = False  # "without a model": the default would spend
        elif mentions(task, words) and not _negated(task, words) and not default_on:
            if cap.escalation and name == cap.escalation[0] and _PREVIEW.search(task):
                out.notes.append(f"the task asks for a preview, so `{name}` stays off")
                continue
            out.arguments[name] = True
    for name, schema in cap.properties.items():
        # a choice whose value is a level ("mode": read-only or edit) as the task names it: "in edit mode"
        for value in schema.get("enum") or ():
            if (
                value in LEVEL_NAMES
                and name not in out.arguments
                and re.search(
                    rf"\b{value}[- ]mode\b|\bmode[:= ]+{value}\b|\bas an? {value}(?:ing|or)? member\b", task, re.I
                )
            ):
                out.arguments[name] = value
    await _style_and_output(cap, task, found, state, root, out)
    if (
        found.paths
        and "task" in cap.arguments.values()
        and not set(cap.arguments.values()) & {"path", "paths", "script"}
    ):
        # invariant 2 for a tool that takes no path: a file the task names that does not exist is still
        # reported, with the nearest ("context for changing src/auth/session.py" when there is no such file)
        for text in found.paths:
            if not _existing(text, state, root):
                detail = f"{text!r} does not exist in the repository" + _closest_path(text, state, root)
                out.needs_input.append(_needs(cap, "task", detail, value=text))
    for name in cap.required:
        if name not in out.arguments and not any(p.field == name for p in out.needs_input):
            out.needs_input.append(_needs(cap, name, f"the task does not say which {_noun(name)} to use"))
    return out


_STYLES = (
    ("test-fix", r"test[- ]?fix|fix(?:es|ing)? (?:the )?(?:failing )?tests|until (?:they'?re |it'?s )?green"),
    ("review", r"review"),
    ("research", r"research"),
    ("plan", r"plan"),
)
_OUTPUT = re.compile(r"\b(?:save|write|put|store|output)\b[^.;]*?\b(?:to|in|into|as|at)\s+([\w./-]+\.js)\b", re.I)


async def _style_and_output(
    cap: Capability, task: str, found: Found, state: State, root: Path | None, out: Grounded
) -> None:
    """For a tool that takes a plan `style` and an `output` path (`workflow generate`): the ones the task names."""
    if "output" not in cap.properties:
        return  # `start` chooses its own plan from the task
    if "style" in cap.properties and "style" not in out.arguments:
        allowed = cap.properties["style"].get("enum") or []
        for style, pattern in _STYLES:
            if re.search(pattern, task, re.IGNORECASE) and (not allowed or style in allowed):
                out.arguments["style"] = style
                break
    if "output" in cap.properties and "output" not in out.arguments:
        match = _OUTPUT.search(task)
        if match:
            out.arguments["output"] = match.group(1)


async def state_preconditions(cap: Capability, state: State) -> list[Precondition]:
    out: list[Precondition] = []
    if "git" in cap.needs or "index" in cap.needs:
        root = repo_root(state)  # a `.git` above the folder says it; no process is started
        outside = root is None
        if "index" in cap.needs and not outside:
            await state.index_state(root)
            outside = state.git is False
        if outside:
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
        return await _loop(cap, name, task, found, state, out)
    if source == "session_id":
        return await _session(cap, name, found, state, out)
    if source == "team":
        return await _team(cap, name, found, state, out)
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
        detail = f"{text!r} does not exist in the repository" + _closest_path(text, state, root)
        out.needs_input.append(_needs(cap, name, detail, value=text))
    if source == "paths":
        return good
    return good[0] if good else None


def _closest_path(text: str, state: State, root: Path | None) -> str:
    """The files nearest a missing path, from its nearest existing folder (never read beyond the repository)."""
    base = root or state.ctx.cwd
    if base is None:
        return ""
    folder = (base / text).parent
    while not folder.is_dir() and folder != base and base in folder.parents:
        folder = folder.parent
    if not folder.is_dir() or not _inside(folder.resolve(), base):
        return ""
    names = sorted(str((folder / p.name).relative_to(base)) for p in folder.iterdir() if not p.name.startswith("."))
    return _closest(text, names[:200])


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
    await state.index_state(repo_root(state))
    if state.index_status not in ("indexed", "stale"):
        if not _in_any_file(symbol, state):
            # invariant 2: with no index yet, a name no file holds still does not exist
            out.needs_input.append(
                _needs(cap, name, f"no symbol {symbol!r}: no file of the repository mentions it", value=symbol)
            )
            return None
        out.pending_symbol = symbol
        out.notes.append(f"`{symbol}` is checked against the index once it is built")
        return symbol
    try:
        answer = await state.ctx.call("pallium_callers", {"name": symbol, "limit": 1, "repo": state.repo})
    except PalliumError:
        answer = None
    if answer is None or not (answer.definitions or answer.references):
        near = await _near_symbols(state, symbol)
        out.needs_input.append(
            _needs(cap, name, f"no symbol {symbol!r} in the index" + _closest(symbol, near), value=symbol)
        )
        return None
    return symbol


def _in_any_file(symbol: str, state: State) -> bool:
    """Whether any tracked or untracked file holds `symbol` as a word (`git grep`), True when unsure."""
    from kernel import git

    root = repo_root(state)
    if root is None:
        return True
    word = symbol.split(".")[-1].split("::")[-1]
    held = _in_small_tree(root, word)
    if held is not None:
        return held
    try:
        out = git.run(["grep", "-l", "-I", "-F", "-w", "--untracked", "-e", word, "--"], root, check=False, timeout=5)
    except PalliumError:
        return True
    return bool(out.strip())


_SMALL_TREE = 400  # files; a larger tree is asked of `git grep`
_SMALL_BYTES = 4_000_000


def _in_small_tree(root: Path, word: str) -> bool | None:
    """Whether a file under `root` (outside `.git` and `.pallium`) holds `word` as a word, read in process
    for a small tree; None when the tree is larger than that, for `git grep` to answer. Every file git
    would search is read here (ignored ones too, which may only make a name pending, never missing)."""
    import os
    import stat

    pattern = re.compile(rb"(?<![\w])" + re.escape(word.encode()) + rb"(?![\w])")
    seen, size = 0, 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".pallium")]
        for name in files:
            seen += 1
            path = os.path.join(folder, name)
            try:
                # a repository may be hostile: a link (to /dev/zero, outside the tree) or a FIFO is
                # never opened, and no file is read past the size it had when counted
                info = os.lstat(path)
                if not stat.S_ISREG(info.st_mode):
                    continue
                size += info.st_size
                if seen > _SMALL_TREE or size > _SMALL_BYTES:
                    return None
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                with os.fdopen(fd, "rb") as handle:
                    data = handle.read(info.st_size)
            except OSError:
                return None
            if b"\0" not in data[:8000] and pattern.search(data):
                return True
    return False


async def _near_symbols(state: State, symbol: str) -> list[str]:
    try:
        found = await state.ctx.call("pallium_search", {"query": symbol, "limit": 5, "repo": state.repo})
    except PalliumError:
        return []
    return [getattr(h, "name", None) or getattr(h, "qualified_name", "") for h in getattr(found, "results", [])]


async def _run(cap: Capability, name: str, found: Found, state: State, out: Grounded) -> str | None:
    runs = await state.workflow_runs()
    if found.run_ids:
        # Invariant 2: a run the task names is that run or none; never the only fit in its place.
        wanted = found.run_ids[0]
        matches = [r for r in runs if r["id"] == wanted or r["id"].startswith(wanted)]
        if len(matches) == 1:
            return matches[0]["id"]
        try:  # older than the newest page of runs
            status = await state.ctx.call("pallium_workflow_status", {"run_id": wanted})
            return status.run_id if hasattr(status, "run_id") else wanted
        except PalliumError:
            detail = f"no workflow run {wanted!r}" + _closest(wanted, [r["id"] for r in runs])
            out.needs_input.append(_needs(cap, name, detail, value=wanted))
            return None
    named = _named_token(found)
    if named is not None:
        matches = [r for r in runs if r["id"] == named]
        if matches:
            return matches[0]["id"]
        # invariant 2: "status for nightly-7" names a run; never the only fit in its place
        detail = f"no workflow run {named!r}" + _closest(named, [r["id"] for r in runs])
        out.needs_input.append(_needs(cap, name, detail, value=named))
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


_NAME_LIKE = re.compile(r"[A-Za-z][\w.]*[-_][\w.-]*|[A-Za-z]+\d[\w-]*")


def _named_token(found: Found) -> str | None:
    """A name the task gives that no other kind claims ("weekly-audit", "done-7"): a word with a hyphen,
    an underscore or a digit that is not a path, an id, an age, a ref, a symbol or a test command."""
    taken = {*found.paths, *found.run_ids, *found.session_ids, *found.team_ids, *found.refs, *found.symbols}
    command = found.test_command or ""
    for word in found.words:
        word = word.rstrip(".")
        if word in taken or word in command or re.fullmatch(r"\d+[a-z]{0,3}", word, re.I):
            continue
        if _NAME_LIKE.fullmatch(word) and not word.lower().startswith(("wf-", "team-")):
            return word
    return None


def _closest(wanted: str, known: list[str]) -> str:
    """ "; closest: a, b" with the existing names nearest `wanted`, or "" when there are none."""
    import difflib

    near = difflib.get_close_matches(wanted, known, n=3, cutoff=0.3) or known[:3]
    return f"; closest existing: {', '.join(near)}" if near else "; none exist yet"


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


_ABOUT_A_LOOP = re.compile(
    r"\b(?:loops?|ticks?|ticking|cycles?|iterations?|stagnat\w*|it|its|this|that|them|the one)\b", re.IGNORECASE
)


async def _loop(cap: Capability, name: str, task: str, found: Found, state: State, out: Grounded) -> str | None:
    loops = await state.loop_names()
    lowered = {n.lower(): n for n in loops}
    for word in [*found.names, *found.quoted, *found.words]:
        if word.lower() in lowered:
            return lowered[word.lower()]
    named = found.loop_name or _named_token(found)
    if named is not None and named.lower() in lowered:
        return lowered[named.lower()]  # "tick nightly, then show its cycles": the loop the request before named
    if named is not None:  # invariant 2: a loop the task names is that loop or none
        detail = f"no loop {named!r}" + _closest(named, loops)
        out.needs_input.append(_needs(cap, name, detail, value=named))
        return None
    if len(loops) == 1 and _ABOUT_A_LOOP.search(task):
        # the only loop stands in only for one the task speaks of ("reset the loop", "tick it"), never for a
        # task that names no loop at all ("reset my wifi router")
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
        known = await _session_ids(state)
        detail = f"no session {wanted!r} in session memory" + _closest(wanted, known)
        out.needs_input.append(_needs(cap, name, detail, value=wanted))
        return None
    return getattr(shown, "id", None) or wanted


async def _team(cap: Capability, name: str, found: Found, state: State, out: Grounded) -> str | None:
    if not found.team_ids:
        return None
    wanted = found.team_ids[0]
    try:
        await state.ctx.call("pallium_team_status", {"team": wanted, "limit": 1})
    except PalliumError:
        known = await _team_ids(state)
        out.needs_input.append(_needs(cap, name, f"no team {wanted!r}" + _closest(wanted, known), value=wanted))
        return None
    return wanted


async def _session_ids(state: State) -> list[str]:
    try:
        listed = await state.ctx.call("pallium_sessions_find", {"limit": 20})
    except PalliumError:
        return []
    return [s.id for s in getattr(listed, "sessions", [])]


async def _team_ids(state: State) -> list[str]:
    try:
        listed = await state.ctx.call("pallium_team_list", {})
    except PalliumError:
        return []
    return [getattr(t, "team", None) or getattr(t, "id", "") for t in getattr(listed, "teams", [])]


def _content_words(task: str, found: Found, cap: Capability) -> str:
    skip = cap.name_terms | _COMMAND_TERMS
    kept = [w for w in lexicon.words(task) if w not in lexicon.STOPWORDS and lexicon.canonical(w) not in skip]
    return " ".join(kept) or task


def _negated(task: str, words: tuple[str, ...]) -> bool:
    """Whether the task says not to ("without a model", "no prose", "don't confirm") for each word it uses."""
    lowered = re.sub(r"--no-(?=\w)", "no ", task.lower())  # a typed `--no-model` says "no model"
    used = [w for w in words if lexicon.word_start(w).search(lowered)]
    return bool(used) and all(lexicon.negated_word(w).search(lowered) for w in used)


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
    """The repository's root, looked up once per routed task (the State holds it)."""
    if state.root is not None:
        return state.root or None
    try:
        root = state.ctx.repo_root(state.repo)
    except (PalliumError, OSError):
        root = None
    state.root = root if root is not None else False
    return root
