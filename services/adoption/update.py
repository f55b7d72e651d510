"""`pallium update`: find how this Pallium was installed and run the matching upgrade, without a shell.

Install kinds: `editable` (a source checkout: pull and reinstall instead), `pipx`, `uv_tool`,
`pip_venv` (pip inside a virtual environment). Detection reads the environment's own files
(`direct_url.json`, pipx's and uv's folders and receipts, `pyvenv.cfg`), never the network, and
only this environment's site-packages: a checkout's `pallium.egg-info` in the current folder is
not the installed Pallium.

pip upgrades only from where Pallium came from (the folder or git URL `direct_url.json` records),
never by name from a package index: on PyPI the name `pallium` is another project's, so
`pip install --upgrade pallium` would replace Pallium with a stranger's code.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from kernel.errors import PalliumError

__all__ = ["Install", "detect", "upgrade"]

PACKAGE = "pallium"
_OFFLINE = (
    "network is unreachable",
    "temporary failure in name resolution",
    "name or service not known",
    "could not fetch",
    "connection refused",
    "connection error",
    "failed to establish a new connection",
    "no matching distribution",
    "offline",
    "timed out",
    "nodename nor servname",
    "failed to fetch",
    "error sending request",
    "dns error",
)


@dataclass(frozen=True)
class Install:
    kind: str  # editable | pipx | uv_tool | pip_venv
    prefix: Path
    source: str | None  # where it came from: the checkout (editable), or the folder or git URL pip upgrades from
    command: list[str] | None  # the upgrade, without a shell; None when Pallium should not run it


def detect(prefix: Path | None = None, base_prefix: Path | None = None, dist_info: Path | None = None) -> Install:
    """How the Pallium in `prefix` (default: this interpreter's environment) was installed."""
    prefix = Path(prefix or sys.prefix)
    base_prefix = Path(base_prefix or sys.base_prefix)
    direct = _direct_url(dist_info)
    if direct and direct.get("dir_info", {}).get("editable"):
        source = str(direct.get("url", "")).removeprefix("file://")
        return Install("editable", prefix, source, None)
    parts = [p.lower() for p in prefix.parts]
    python = _python(prefix)
    if "pipx" in parts and "venvs" in parts:
        return Install("pipx", prefix, None, [shutil.which("pipx") or "pipx", "upgrade", PACKAGE])
    if (prefix / "uv-receipt.toml").exists() or ("uv" in parts and "tools" in parts):
        return Install("uv_tool", prefix, None, [shutil.which("uv") or "uv", "tool", "upgrade", PACKAGE])
    if (prefix / "pyvenv.cfg").exists() or prefix != base_prefix:
        origin = _pip_origin(direct)
        command = [str(python), "-m", "pip", "install", "--upgrade", origin] if origin else None
        return Install("pip_venv", prefix, origin, command)
    raise PalliumError(
        "unavailable",
        f"Pallium is installed in the system Python at {prefix}, which `pallium update` does not change",
        hint="reinstall it with pipx (`pipx install pallium`) or in a virtual environment, then update",
        details={"prefix": str(prefix)},
    )


def upgrade(install: Install, *, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run the upgrade command; a failure that looks like no network is `unavailable`, saying offline."""
    assert install.command is not None
    try:
        done = subprocess.run(
            install.command, capture_output=True, text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL
        )
    except FileNotFoundError as exc:
        raise PalliumError(
            "unavailable",
            f"{install.command[0]} is not installed, so {install.kind} cannot upgrade Pallium",
            hint="install it, or run the upgrade your own way",
            details={"command": install.command},
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise PalliumError(
            "unavailable",
            f"the upgrade did not finish within {timeout:.0f} s (offline or a slow index?)",
            hint="check the network and rerun `pallium update`",
            details={"command": install.command},
        ) from exc
    if done.returncode != 0:
        output = (done.stderr + "\n" + done.stdout).strip()
        offline = any(marker in output.lower() for marker in _OFFLINE)
        raise PalliumError(
            "unavailable",
            (
                "the package index cannot be reached (offline?)"
                if offline
                else f"the upgrade failed (exit {done.returncode})"
            )
            + f": {output[-300:]}",
            hint="check the network, then rerun `pallium update`"
            if offline
            else "run the command yourself: " + " ".join(install.command),
            details={"command": install.command, "exit_code": done.returncode, "offline": offline},
        )
    return done


def installed_version(install: Install) -> str | None:
    """The version the environment holds now, asked of its own Python (it may have just changed)."""
    python = _python(install.prefix)
    if not python.exists():
        return None
    done = subprocess.run(
        [str(python), "-c", f"import importlib.metadata as m; print(m.version({PACKAGE!r}))"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    return done.stdout.strip() or None if done.returncode == 0 else None


def _pip_origin(direct: dict | None) -> str | None:
    """What pip may upgrade from: the folder or the git URL this install was made from, as pip takes it.

    None for an install by name from an index (no `direct_url.json`) or from one fixed archive: an
    upgrade by name would take PyPI's `pallium`, which is not this project.
    """
    if not direct or not isinstance(direct.get("url"), str):
        return None
    url: str = direct["url"]
    if "dir_info" in direct and url.startswith("file://"):
        return url.removeprefix("file://")
    vcs = direct.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git":
        return f"git+{url}"
    return None


def _python(prefix: Path) -> Path:
    for name in ("bin/python", "bin/python3", "Scripts/python.exe"):
        if (prefix / name).exists():
            return prefix / name
    return prefix / "bin" / "python"


def _direct_url(dist_info: Path | None) -> dict | None:
    if dist_info is None:
        import sysconfig
        from importlib.metadata import distributions

        # this environment's own site-packages, not sys.path (which may start with a checkout)
        paths = sysconfig.get_paths()
        found = next(iter(distributions(name=PACKAGE, path=[paths["purelib"], paths["platlib"]])), None)
        text = found.read_text("direct_url.json") if found is not None else None
    else:
        path = dist_info / "direct_url.json"
        text = path.read_text(encoding="utf-8") if path.exists() else None
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None
