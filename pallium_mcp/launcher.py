"""The `pallium` command: hand the call to this user's resident CLI server when one is up, else run it here.

A CLI call spends most of its time importing Python, asyncio, pydantic and the tool's module
(about 150 ms of a 250 ms `pallium symbols FILE`); the answer itself takes a few milliseconds. So a
read-only query (the repository, knowledge, facts and sessions tools; see `resident.serves`) is
answered by a resident process that already has them loaded. This module is what the console
script runs: it imports only `os`, `sys`, `socket`, `json` and `hashlib`, connects to the server, passes it
this process's standard input, output and error (the server writes the answer straight to them),
and exits with the status the server reports. With no server, the call runs here as it always
has, and a server is started in the background for the next one.

The server belongs to one user, one environment and one installation: its socket sits in
`$PALLIUM_HOME/run/` (mode 0700, checked before every connection), and its name is a digest of
the interpreter, the installation and every environment variable, so a call made with another
`PATH`, `PALLIUM_NOW` or `PALLIUM_AUTHORITY` never reaches a server started under different ones.
It exits after `PALLIUM_RESIDENT_IDLE` seconds without a call (default 600), when its code changes
on disk, or when its socket is removed (`pallium resident stop`, or its home deleted).
`PALLIUM_RESIDENT=off` keeps every call in its own process and starts nothing.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["main", "occupy_closed_streams", "resident_enabled", "runtime_dir", "server_key", "socket_path"]

PROTOCOL = "2"  # 2: signals travel on the call's connection
# Variables that differ between two shells of one session without changing what a call does: a
# non-interactive bash drops the prompts an activated virtual environment exports (`PS1`).
_VOLATILE = frozenset({"_", "PWD", "OLDPWD", "SHLVL", "PS1", "PS2", "PS3", "PS4"})
_MAX_SOCKET_PATH = 100  # sun_path holds 104 bytes on macOS, 108 on Linux
# How long a server that accepted the connection may take to start the call (it may be warming up).
_START_TIMEOUT = 10.0


def main() -> int:
    argv = sys.argv[1:]
    occupy_closed_streams()
    environment = dict(os.environ)  # as the call found it: a server started after it gets this one
    why = "off"
    # `pallium`, `pallium --help`, `pallium --version`: no command, nothing a server answers
    if argv and not argv[0].startswith("-") and resident_enabled():
        served = _call_resident(argv)
        if isinstance(served, int):
            return served
        why = served
    from pallium_mcp.cli import main as run_here

    code = run_here(argv)
    if why in {"absent", "stale"}:  # not when it is busy, or the command is not one it serves
        from pallium_mcp import resident

        resident.start_for(argv, environment)
    return code


def occupy_closed_streams() -> None:
    """Give a closed standard stream (`pallium search x >&-`) /dev/null, as a careful daemon does.

    Python leaves `sys.stdout` None for a closed descriptor 1, and the next file opened would take
    number 1, so an answer or a child's output could land in a database; here the number is taken
    by /dev/null first, and the answer goes nowhere, quietly, as the caller asked.
    """
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_RDONLY if mode == "r" else os.O_WRONLY)
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
        if getattr(sys, name) is None:
            setattr(sys, name, os.fdopen(fd, mode, closefd=False))


def resident_enabled() -> bool:
    """True unless `PALLIUM_RESIDENT=off` (or 0/no/false), or this platform cannot pass descriptors."""
    if os.environ.get("PALLIUM_RESIDENT", "").strip().lower() in {"off", "0", "no", "false"}:
        return False
    import socket

    return hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")


def runtime_dir() -> str | None:
    """`$PALLIUM_HOME/run`, where the servers' sockets are (not created here), as `kernel.paths` finds
    the home; None for a relative `PALLIUM_HOME`, which names another folder in every directory."""
    configured = os.environ.get("PALLIUM_HOME")
    home = os.path.expanduser(configured) if configured else os.path.join(os.path.expanduser("~"), ".pallium")
    return os.path.join(home, "run") if os.path.isabs(home) else None


def server_key(environment: dict[str, str] | None = None) -> str:
    """A digest of everything a call's answer may depend on besides its argv and folder."""
    import hashlib

    umask = os.umask(0o022)
    os.umask(umask)
    env = sorted((k, v) for k, v in (os.environ if environment is None else environment).items() if k not in _VOLATILE)
    here = os.path.dirname(os.path.abspath(__file__))
    text = repr((PROTOCOL, os.path.realpath(sys.executable), sys.version, sys.prefix, here, umask, env))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()


def socket_path(key: str) -> str | None:
    """Where the server for `key` listens, or None when there is no such place (see `runtime_dir`)
    or the path is too long for a socket."""
    folder = runtime_dir()
    if folder is None:
        return None
    path = os.path.join(folder, f"{key}.sock")
    return path if len(os.fsencode(path)) <= _MAX_SOCKET_PATH else None


def private_folder(folder: str) -> bool:
    """True when `folder` is a real directory of this user's that no one else can enter."""
    import stat

    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and info.st_mode & 0o077 == 0


def _call_resident(argv: list[str]) -> int | str:
    """The exit status of the call as the server ran it, or why it must run here.

    The reasons: `absent` (no server answers), `unusable` (no private folder, or a closed
    standard stream), or the server's own (`busy`, `stale`: its code changed, `not_served`: a
    command it does not run). Once the server says it has started, the call is its own; losing it
    then is reported, never run a second time.
    """
    try:
        for fd in (0, 1, 2):
            os.fstat(fd)  # a closed standard stream cannot be passed: run here, as Python would
        cwd = os.getcwd()
    except OSError:
        return "unusable"
    key = server_key()
    path = socket_path(key)
    if path is None:
        return "unusable"
    folder = os.path.dirname(path)
    if not private_folder(folder):
        return "absent" if not os.path.lexists(folder) else "unusable"
    import json
    import socket

    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(_START_TIMEOUT)
    request = json.dumps({"key": key, "argv": argv, "cwd": cwd}).encode() + b"\n"
    try:
        conn.connect(path)
        sent = socket.send_fds(conn, [request], [0, 1, 2])
        if sent < len(request):  # an empty remainder is never sent: the server may have closed already
            conn.sendall(request[sent:])
    except OSError:  # not all of it arrived, so the server cannot have run it: run here
        conn.close()
        return "absent"
    except KeyboardInterrupt:
        conn.close()
        print("interrupted", file=sys.stderr)
        return 130
    # Delivered: from here the call may be running there, so a failure is reported, never run again.
    reader = conn.makefile("rb")
    try:
        first = _reply(reader)
    except (OSError, ValueError):
        conn.close()
        return _lost(argv)
    except KeyboardInterrupt:
        conn.close()
        print("interrupted", file=sys.stderr)
        return 130
    if first.get("started") is not True:
        conn.close()
        return str(first.get("why") or "absent")
    conn.settimeout(None)  # the call itself takes as long as it takes
    with _forwarding_signals(conn) as signals:
        try:
            last = _reply(reader)
        except (OSError, ValueError):
            last = {}
    conn.close()
    status = last.get("exit")
    if not isinstance(status, int):
        return _lost(argv)
    return 128 + signals.terminated if signals.terminated and status == 130 else status


def _lost(argv: list[str]) -> int:
    """Say that the server went away mid-call, in the CLI's own error form (JSON with `--json`)."""
    from kernel.errors import PalliumError

    error = PalliumError(
        "unavailable",
        "the resident Pallium server stopped during this call; it may have run in part",
        hint="run it again (set PALLIUM_RESIDENT=off to keep every call in its own process)",
    )
    if "--json" in argv:
        print(error.to_json(), file=sys.stderr)
    else:
        print(f"error: {error.message}\n  hint: {error.hint}", file=sys.stderr)
    return error.exit_code


def _reply(reader: object) -> dict[str, object]:
    import json

    line = reader.readline()  # type: ignore[attr-defined]
    if not line:
        raise ValueError("connection closed")
    answer = json.loads(line)
    if not isinstance(answer, dict):
        raise ValueError("not an object")
    return answer


class _forwarding_signals:
    """While the server runs the call, Ctrl-C or SIGTERM here cancels it there, as it would here.

    The signal travels on the call's own connection (`signal N`), so it reaches this call and no
    other, never the server's process. The call answers with its own status (130 once cancelled;
    this process then exits 143 for a SIGTERM, as it would have alone); a second signal stops waiting.
    """

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.previous: dict[int, object] = {}
        self.received = 0
        self.terminated = 0

    def __enter__(self) -> _forwarding_signals:
        import signal

        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            self.previous[signum] = signal.signal(signum, self._forward)
        return self

    def _forward(self, signum: int, _frame: object) -> None:
        import signal

        self.received += 1
        if signum != signal.SIGINT:
            self.terminated = signum
        if self.received > 1:
            os._exit(128 + signum)
        try:
            self.conn.sendall(f"signal {signum}\n".encode())
        except OSError:
            os._exit(128 + signum)

    def __exit__(self, *_exc: object) -> None:
        import signal

        for signum, handler in self.previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]


if __name__ == "__main__":
    sys.exit(main())
