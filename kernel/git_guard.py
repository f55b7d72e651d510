"""What a repository's own git configuration may make git run, neutralised until the user trusts it.

A repository can arrive with its `.git` folder (a tarball, a copied checkout, an agent's sandbox),
and git then runs what that configuration names: `core.fsmonitor` on every index read, hooks on
worktree creation and commits, filter, textconv, external-diff and merge drivers chosen by a
committed `.gitattributes`, `gpg.program` under `log.showSignature`, transports and credential
helpers on a lazy fetch. `kernel.git.run` asks `prepare` for every call: in a repository the user
has not trusted (`kernel.trust`) each executable key is overridden in git's command scope
(`GIT_CONFIG_KEY_n`, as `-c` does), which outranks every configuration file (included ones too),
and a repository whose git folder, common folder or work tree lies outside it is refused. The rule
and its comparison with git's own `safe.directory` and VS Code's restricted mode are in
docs/trust.md.
"""

from __future__ import annotations

import os
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from kernel.errors import PalliumError

__all__ = ["DIFF_FAMILY", "NEUTRAL", "Layout", "Prepared", "check_layout", "layout_of", "prepare", "scrubbed_env"]

# Overrides that hold in every untrusted repository, whatever its configuration says.
NEUTRAL: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),  # no hook is found under a file: none runs
    ("log.showSignature", "false"),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("gpg.program", "gpg"),
    ("gpg.openpgp.program", "gpg"),
    ("gpg.x509.program", "gpgsm"),
    ("gpg.ssh.program", "ssh-keygen"),
    ("credential.helper", ""),  # an empty value empties the helper list
    ("core.askPass", ""),
    ("protocol.allow", "never"),  # a lazy fetch or an ext:: URL could run a transport or upload-pack
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
)

# Drivers a repository's `.gitattributes` selects by name; git runs them only when configuration
# defines them, so the names come from git's own listing of the configuration.
_DRIVER_KEYS = {
    ("filter", "clean"): "",
    ("filter", "smudge"): "",
    ("filter", "process"): "",
    ("filter", "required"): "false",
    ("merge", "driver"): "git merge-file --marker-size=%L %A %O %B",  # git's own text merge
    ("protocol", "allow"): "never",  # protocol.<name>.allow outranks protocol.allow
}
# Porcelain commands that run textconv or external diff drivers unless told not to.
DIFF_FAMILY = frozenset({"diff", "log", "show", "blame", "format-patch", "whatchanged"})
_DIFF_FLAGS = {"blame": ("--no-textconv",)}

# Inherited variables that would point git at another repository, index or configuration, or run
# a program: Pallium names the repository by the folder it runs git in, never by its environment.
_SCRUBBED = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_PROXY_COMMAND",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_ASKPASS",
)
_UNTRUSTED_ENV = {"GIT_EDITOR": ":", "GIT_SEQUENCE_EDITOR": ":", "GIT_ASKPASS": ""}


@dataclass(frozen=True)
class Prepared:
    """The arguments to put before git's subcommand, the flags to put after it, and the environment."""

    global_args: tuple[str, ...]
    env: dict[str, str]
    trusted: bool


def scrubbed_env(base: dict[str, str]) -> dict[str, str]:
    """`base` without the inherited variables that redirect git (`GIT_CONFIG_KEY_n` included)."""
    return {
        k: v
        for k, v in base.items()
        if k not in _SCRUBBED and not k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))
    }


def prepare(cwd: Path, base_env: dict[str, str]) -> Prepared:
    """How to run git in `cwd`: as configured when its repository is trusted, neutralised otherwise."""
    env = scrubbed_env(base_env)
    layout, known = _known_layout(Path(cwd))
    if layout is not None and _trusted(layout.owner):
        return Prepared((), env, True)
    if layout is not None and not (known is not None and known.checked):
        check_layout(layout)
        if known is not None:
            known.checked = True  # its inputs are what `known` watches: unchanged, it passes again
    overrides = list(NEUTRAL) + _driver_overrides(Path(cwd), env, layout)
    # As GIT_CONFIG_KEY_n/VALUE_n (git's command scope, like -c, and passed on to the git processes
    # git starts), since a driver's name may hold "=", which `-c name=value` would split at.
    config = {"GIT_CONFIG_COUNT": str(len(overrides))}
    for i, (key, value) in enumerate(overrides):
        config[f"GIT_CONFIG_KEY_{i}"] = key
        config[f"GIT_CONFIG_VALUE_{i}"] = value
    return Prepared((), {**env, **_UNTRUSTED_ENV, **config}, False)


def subcommand_flags(args: list[str], prepared: Prepared) -> list[str]:
    """`args` with `--no-textconv --no-ext-diff` after a diff-family subcommand in an untrusted repository."""
    if prepared.trusted or not args or args[0] not in DIFF_FAMILY:
        return args
    return [args[0], *_DIFF_FLAGS.get(args[0], ("--no-textconv", "--no-ext-diff")), *args[1:]]


@dataclass(frozen=True)
class Layout:
    """Where one working tree keeps its git data: `top` holds `.git`, `owner` is whose trust counts."""

    top: Path
    git_dir: Path
    common_dir: Path
    owner: Path
    linked: bool  # a linked worktree its main repository registered, or a submodule of an enclosing one


def layout_of(cwd: Path) -> Layout | None:
    """Where the working tree holding `cwd` keeps its git data (None outside any repository)."""
    return _known_layout(Path(cwd))[0]


# Every git call asks where its folder's git data is and whether its owner is trusted, and working that
# out (paths resolved, files read, links looked for) cost about as much interpreter time as starting
# git: a run's or a team's calls hold the interpreter one after another. So each answer is kept with
# the stat of everything it was read from (the folder and each folder above it, every `.git` looked
# for, the git folders and the files `check_layout` looks at; for trust, the shipped files and
# `trust.json`) and served again only while each of those stats is unchanged. As with the config
# listing, an answer read from a file changed within one tick of the clock is not kept (`_settled`).
_KEEP_AT_MOST = 512
_ANCESTOR = "ancestor"  # a folder only its identity is watched for (its own entries change freely)


@dataclass
class _Known:
    layout: Layout
    watched: tuple[tuple[str, str], ...]  # (how, path): see `_watch`
    stats: tuple[tuple[int, ...] | None, ...]
    checked: bool = False  # `check_layout` passed on these very inputs


_known_layouts: dict[str, _Known] = {}
_known_trust: dict[tuple[str, str], tuple[bool, tuple[tuple[str, str], ...], tuple[tuple[int, ...] | None, ...]]] = {}


def _known_layout(cwd: Path) -> tuple[Layout | None, _Known | None]:
    """`_layout(cwd)`, and the entry it is kept in (None when it is not kept)."""
    key = str(cwd)
    known = _known_layouts.get(key)
    if known is not None and _watch(known.watched) == known.stats:
        return known.layout, known
    started = time.time_ns()
    layout = _layout(cwd)
    if layout is None or not os.path.isabs(key):
        return layout, None
    watched = _layout_inputs(key, layout)
    stats = _watch(watched)
    if not _settled_stats(stats, started):
        return layout, None
    if _layout(cwd) != layout or _watch(watched) != stats:  # changed while it was read: not kept
        return layout, None
    if len(_known_layouts) >= _KEEP_AT_MOST:
        _known_layouts.clear()
    known = _known_layouts[key] = _Known(layout, watched, stats)
    return layout, known


def _layout_inputs(cwd: str, layout: Layout) -> tuple[tuple[str, str], ...]:
    """What `_layout(cwd)` and `check_layout` read to give `layout` (a link among the git folders' parts makes
    the answer depend on more than these: `_watch` marks it, and such a layout is worked out every time)."""
    watched: list[tuple[str, str]] = [(_ANCESTOR, p) for p in _ancestors(cwd)]
    here = os.path.realpath(cwd)
    top = str(layout.top)
    probe = here
    while True:  # every `.git` looked for on the way up to the one found
        watched.append(("marker", os.path.join(probe, ".git")))
        if probe == top or os.path.dirname(probe) == probe:
            break
        probe = os.path.dirname(probe)
    if layout.git_dir == layout.common_dir:  # whether it is a submodule: a `.git/modules` above holds it
        watched += [("marker", os.path.join(p, ".git")) for p in _ancestors(top)[1:]]
    for folder in dict.fromkeys((str(layout.git_dir), str(layout.common_dir))):
        watched += [(_ANCESTOR, p) for p in _ancestors(folder)]
        watched += [("marker", os.path.join(folder, name)) for name in ("gitdir", "commondir")]
        watched += [("link", os.path.join(folder, part)) for part in _LAYOUT_PARTS]
    return tuple(dict.fromkeys(watched))


def _ancestors(path: str) -> list[str]:
    out = [path]
    while os.path.dirname(out[-1]) != out[-1]:
        out.append(os.path.dirname(out[-1]))
    return out


def _watch(watched: tuple[tuple[str, str], ...]) -> tuple[tuple[int, ...] | None, ...]:
    """The stat of each watched path: whole for a file read ("file", and a "marker" `.git` file), its
    identity for a folder only looked through ("ancestor", a `.git` folder), and for a part
    `check_layout` looks at ("link") only whether it is a link, given as -1 so that such an answer is
    not kept (`_settled_stats`)."""
    out: list[tuple[int, ...] | None] = []
    for how, path in watched:
        try:
            st = os.lstat(path)
        except OSError:
            out.append(None)
            continue
        if how == "link":  # only whether it is one: git rewrites the index and adds worktrees freely
            out.append((-1,) if stat.S_ISLNK(st.st_mode) else ())
        elif how == _ANCESTOR or (how == "marker" and stat.S_ISDIR(st.st_mode)):
            out.append((st.st_dev, st.st_ino, st.st_mode))
        else:
            out.append((st.st_dev, st.st_ino, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)


def _settled_stats(stats: tuple[tuple[int, ...] | None, ...], started: int) -> bool:
    """Whether an answer read from files with these stats may be kept: no link among the parts, and no file
    changed so recently that a later change could keep its stat (`_settled`)."""
    for st in stats:
        if st == (-1,):
            return False
        if st is None or len(st) <= 3:
            continue
        ctime = st[5]
        racy = _COARSE_RACY_NS if ctime % 1_000_000_000 == 0 else _RACY_NS
        if ctime >= started - racy:
            return False
    return True


def _layout(cwd: Path) -> Layout | None:
    try:
        here = cwd.resolve()
    except (OSError, RuntimeError):
        return None
    for top in (here, *here.parents):
        marker = top / ".git"
        if os.path.lexists(marker):
            return _layout_at(top, marker)
    return None


def _layout_at(top: Path, marker: Path) -> Layout:
    if marker.is_file() and not marker.is_symlink():
        text = marker.read_text(encoding="utf-8", errors="replace").strip()
        if not text.startswith("gitdir:"):
            return Layout(top, marker, marker, top, False)
        git_dir = _resolve(top, text[len("gitdir:") :].strip())
    else:
        git_dir = _resolve(top, str(marker))
    common_file = git_dir / "commondir"
    common_dir = git_dir
    if common_file.is_file():
        common_dir = _resolve(git_dir, common_file.read_text(encoding="utf-8", errors="replace").strip())
    registered = _registered_worktree(top, git_dir, common_dir)
    if registered:
        owner = common_dir.parent if common_dir.name == ".git" else common_dir
        return Layout(top, git_dir, common_dir, owner, True)
    submodule = common_dir == git_dir and any(_inside(git_dir, parent / ".git" / "modules") for parent in top.parents)
    return Layout(top, git_dir, common_dir, top, submodule)


def _registered_worktree(top: Path, git_dir: Path, common_dir: Path) -> bool:
    """A linked worktree: its git folder is `<common>/worktrees/<name>` and points back at this `.git`."""
    if git_dir.parent != common_dir / "worktrees":
        return False
    try:
        back = (git_dir / "gitdir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return False
    return _resolve(git_dir, back) == (top / ".git").resolve()


_LAYOUT_PARTS = ("objects", "refs", "index", "HEAD", "config", "logs", "packed-refs", "worktrees")


def check_layout(layout: Layout) -> None:
    """Refuse an untrusted working tree whose git data, or a part git writes to, lies elsewhere."""
    outside: list[str] = []
    if not layout.linked:
        for name, place in (("git folder", layout.git_dir), ("common git folder", layout.common_dir)):
            if not _inside(place, layout.top):
                outside.append(f"{name} {place}")
    for part in _LAYOUT_PARTS:
        for base in {layout.git_dir, layout.common_dir}:
            path = base / part
            if path.is_symlink() and not _inside(path.resolve(), layout.top if not layout.linked else layout.owner):
                outside.append(f"{path} -> {path.resolve()}")
    if outside:
        from kernel import trust

        raise PalliumError(
            "authority_exceeded",
            f"{layout.top} keeps its git data outside it ({'; '.join(outside[:3])}): git would read and "
            "write that other place, so Pallium refuses until you trust this repository",
            hint=f"look at {layout.top / '.git'}; if it is yours, run `{trust.trust_command(layout.top)}`",
            details={"repo": str(layout.top), "outside": outside[:10]},
        )


def _driver_overrides(cwd: Path, env: dict[str, str], layout: Layout | None) -> list[tuple[str, str]]:
    """An override per driver the configuration (includes followed, as git does) defines."""
    listing = _config_listing(cwd, env, layout)
    overrides: dict[str, str] = {}
    for key in listing:
        section, _, rest = key.partition(".")
        name, _, variable = rest.rpartition(".")
        if not name or section.lower() not in ("filter", "merge", "protocol"):
            continue
        for (kind, var), neutral in _DRIVER_KEYS.items():
            if kind == section.lower() and (kind == "filter" or var == variable.lower()):
                overrides[f"{kind}.{name}.{var}"] = neutral
    worktree = listing.get("core.worktree")
    if worktree and (layout is None or _resolve(layout.git_dir, worktree) != layout.top.resolve()):
        raise PalliumError(
            "authority_exceeded",
            f"the repository at {cwd} sets core.worktree to {worktree}: git would read and write there, "
            "so Pallium refuses until you trust this repository",
            hint="remove core.worktree from .git/config, or trust the repository with `pallium trust`",
            details={"repo": str(cwd), "core.worktree": worktree},
        )
    return sorted(overrides.items())


# The variables that choose which global and system files git reads: part of every cache key.
_CONFIG_ENV = ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM")
# A listing is trusted again only when every file it came from was last changed this long before it
# was taken: a file rewritten within one tick of the file system's clock can keep its time and size
# (git's "racily clean" problem), so a younger one is listed anew on every call until it ages.
_RACY_NS = 50_000_000
_COARSE_RACY_NS = 2_000_000_000  # a file system whose times have no sub-second part (FAT, HFS+)


@dataclass(frozen=True)
class _Listing:
    values: dict[str, str]
    stats: tuple[tuple[str, int, int, int, int], ...]  # (path, inode, size, mtime, ctime) of every watched file


# (common git folder, or this tree's git folder and top when its configuration is its own, and the
# variables above) -> the listing; a changed stat of any file it came from or names lists again.
_listing_cache: dict[tuple[str, ...], _Listing] = {}


def _config_listing(cwd: Path, env: dict[str, str], layout: Layout | None = None) -> dict[str, str]:
    """`git config --list` (every scope, includes followed) as key -> last value, cached per repository.

    The worktrees of one repository read the same files (system, global, the common `config` and
    what it includes), so one listing serves them all, unless the configuration depends on the
    tree: a conditional include (`includeIf`, matched against the tree's git folder or branch) or
    per-worktree files (`extensions.worktreeConfig`); such a tree gets a listing of its own.
    """
    scope = tuple(env.get(name, "") for name in _CONFIG_ENV)
    own = (str(layout.git_dir), str(layout.top)) if layout is not None else (str(cwd),)
    keys = [(*own, *scope)]
    if layout is not None:
        keys.append((str(layout.common_dir), *scope))
    for key in keys:
        cached = _listing_cache.get(key)
        if cached is not None and _stats([s[0] for s in cached.stats]) == cached.stats:
            return cached.values
    listed_at = time.time_ns()
    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "config", "--list", "--show-origin", "-z"],
            cwd=cwd,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env={**env, "LC_ALL": "C"},
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    values: dict[str, str] = {}
    watched: set[str] = set(_scope_files(env))
    if layout is not None:  # the files an include condition or a new include could bring in
        watched |= {str(layout.common_dir / "config"), str(layout.git_dir / "config.worktree")}
    top = layout.top if layout is not None else cwd  # git reads from the top: relative origins start there
    fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    for origin, entry in zip(fields[0::2], fields[1::2], strict=False):
        name, _, value = entry.partition("\n")
        values[name] = value
        if origin.startswith("file:"):
            source = _resolve(top, origin[5:])
            watched.add(str(source))
            if name.lower().startswith(("include.", "includeif.")) and name.lower().endswith(".path"):
                watched.add(str(_resolve(source.parent, value)))
    lowered = {name.lower(): value for name, value in values.items()}
    own_config = any(name.startswith("includeif.") for name in lowered) or (
        lowered.get("extensions.worktreeconfig", "").lower() in ("true", "yes", "on", "1")
    )
    if layout is not None and any(name.startswith("includeif.") and ".onbranch:" in name for name in lowered):
        watched.add(str(layout.git_dir / "HEAD"))  # the branch the tree is on decides what is included
    stats = _stats(sorted(watched))
    if _settled(stats, listed_at):
        if len(_listing_cache) > 256:
            _listing_cache.clear()
        _listing_cache[keys[0] if own_config or layout is None else keys[1]] = _Listing(values, stats)
    return values


def _scope_files(env: dict[str, str]) -> list[str]:
    """The global and system files git would read, whether or not they exist yet (a new one is a change)."""
    home = env.get("HOME", "")
    xdg = env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else "")
    files = [env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"]
    if env.get("GIT_CONFIG_GLOBAL"):
        files.append(env["GIT_CONFIG_GLOBAL"])
    else:
        files += [os.path.join(home, ".gitconfig")] if home else []
        files += [os.path.join(xdg, "git", "config")] if xdg else []
    return files


def _settled(stats: tuple[tuple[str, int, int, int, int], ...], listed_at: int) -> bool:
    """Whether every existing file was last changed far enough before `listed_at` that any later change
    must show in its stat (see `_RACY_NS`)."""
    for _, inode, _, _, ctime in stats:
        if inode == -1:
            continue
        racy = _COARSE_RACY_NS if ctime % 1_000_000_000 == 0 else _RACY_NS
        if ctime >= listed_at - racy:
            return False
    return True


def _stats(files: list[str]) -> tuple[tuple[str, int, int, int, int], ...]:
    out = []
    for path in files:
        try:
            st = os.stat(path)
            out.append((path, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
        except OSError:
            out.append((path, -1, -1, -1, -1))
    return tuple(out)


def _trusted(owner: Path) -> bool:
    """Whether the user trusts `owner` now (`kernel.trust`), kept while its inputs' stats hold (see `_Known`)."""
    from kernel import paths, trust

    key = (str(owner), str(paths.pallium_home() / trust.TRUST_FILE))
    known = _known_trust.get(key)
    if known is not None and _watch(known[1]) == known[2]:
        return known[0]
    started = time.time_ns()
    try:
        trusted = trust.state(owner).trusted
    except PalliumError:
        return False
    watched = _trust_inputs(owner, Path(key[1]))
    if watched is not None:
        stats = _watch(watched)
        if _settled_stats(stats, started) and _state_is(owner, trusted) and _watch(watched) == stats:
            if len(_known_trust) >= _KEEP_AT_MOST:
                _known_trust.clear()
            _known_trust[key] = (trusted, watched, stats)
    return trusted


def _state_is(owner: Path, trusted: bool) -> bool:
    """Whether the trust of `owner` read again is still `trusted` (an answer read across a change is not kept)."""
    from kernel import trust

    try:
        return trust.state(owner).trusted == trusted
    except PalliumError:
        return False


def _trust_inputs(owner: Path, trust_file: Path) -> tuple[tuple[str, str], ...] | None:
    """What `trust.state(owner)` reads: the repository's shipped files and folders (every entry below the
    workflow folders, whose own stat changes when an entry is added or removed) and the trust file;
    None when there are too many to watch cheaply."""
    from kernel import trust

    top = str(owner)
    watched = [(_ANCESTOR, p) for p in _ancestors(top)] + [("file", str(trust_file))]
    watched += [("file", os.path.join(top, name)) for name in trust.SHIPPED_FILES]
    for rel in trust.SHIPPED_DIRS:
        folder = os.path.join(top, rel)
        watched.append(("file", folder))
        if os.path.isdir(folder) and not os.path.islink(folder):
            for dirpath, dirnames, filenames in os.walk(folder):
                watched += [("file", os.path.join(dirpath, name)) for name in dirnames + filenames]
                if len(watched) > 200:
                    return None
    return tuple(watched)


def _resolve(base: Path, value: str) -> Path:
    path = Path(os.path.expanduser(value))
    return (path if path.is_absolute() else base / path).resolve()


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True
