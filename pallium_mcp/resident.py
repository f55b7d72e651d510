"""The resident CLI server: one warm process that answers this user's read-only `pallium` queries.

`pallium_mcp.launcher` (the console script) connects here and passes its standard streams; the
server runs the same `pallium_mcp.cli.main` a call would run in its own process, in the caller's
folder, writing to the caller's streams, and answers with the exit status. Calls run one at a
time on the main thread (as in their own process); a call that arrives while one runs is told
`busy` and runs in its own process, so no call ever waits behind another.

What it serves (`serves`): commands of the repository, knowledge, facts and sessions tools at
`observe` that cannot escalate. Anything that may act, hold a process or take a signal
(workflows, loops, teams, `knowledge serve`) runs in its own process as before.

It trusts only its own user: the socket is in a private folder of the home (see the launcher), and every
connection's peer credentials must name this uid. It refuses a call whose key (interpreter,
installation, environment) is not its own, and stops serving as soon as a source file of the
installation changes, so an upgrade or an edit of a checkout is never answered by old code.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

from pallium_mcp import launcher

__all__ = ["command", "serve", "serves", "start_for"]

# Toolsets whose read-only commands the server answers; see the module docstring for the others.
SERVED_TOOLSETS = frozenset({"repo", "facts", "knowledge", "sessions"})
DEFAULT_IDLE = 600.0
_PACKAGES = ("kernel", "services", "pallium_mcp", "tools_manifest")
_TICK = 1.0
_MAX_REQUEST = 1 << 20


def serves(argv: list[str]) -> bool:
    """True when `argv` names a command the resident server answers."""
    from pallium_mcp.cli import _named_command
    from tools_manifest import load_manifest

    entry = _named_command(argv, load_manifest()["tools"])
    return entry is not None and _served(entry)


def _served(entry: dict[str, Any]) -> bool:
    return entry["toolset"] in SERVED_TOOLSETS and entry["authority"] == "observe" and not entry.get("escalation")


def start_for(argv: list[str], environment: dict[str, str]) -> None:
    """After a call ran in its own process: start a server for the next one, if it would serve it.

    `environment` is the one the call started with (the call may have changed `os.environ`).
    """
    if not serves(argv):
        return
    from kernel import background, writes
    from kernel.errors import PalliumError

    key = launcher.server_key(environment)
    path = launcher.socket_path(key)
    if path is None:
        return
    folder = Path(path).parent
    try:
        writes.ensure_dir(folder, root=writes.home(), mode=0o700)
        if launcher.private_folder(str(folder)):
            background.start_detached(
                "pallium_mcp.resident", [path, key], cwd=folder, log_path=folder / f"{key}.log", env=environment
            )
    except (PalliumError, OSError):
        return  # the next call runs in its own process too; nothing is lost


class _Server:
    def __init__(self, path: str, key: str, idle: float) -> None:
        self.path = path
        self.key = key
        self.idle = idle
        self.folder = os.path.dirname(path)
        self.jobs: queue.Queue[tuple[socket.socket, list[int], dict[str, Any]]] = queue.Queue()
        self.slot = threading.Lock()  # held from the moment a call is accepted until it has answered
        self.stopping = threading.Event()
        self.started = time.time()
        self.last_call = time.monotonic()
        self.served = 0
        self.listener: socket.socket | None = None
        self.inode = 0
        self.stamps: dict[str, tuple[int, int]] = {}
        # The call running now (a token per call) and the one asked to stop: a cancellation from a
        # connection that ended, or a signal its client forwarded, reaches that call and no other.
        self.current: object | None = None
        self.calls = threading.Lock()

    # -- life --------------------------------------------------------------------------------

    def run(self) -> int:
        lock = _take_lock(Path(self.path).with_suffix(".lock"))
        if lock is None:
            return 0  # another server for this key is starting or running
        try:
            with _unlinked_on_error(self.path):
                if os.path.lexists(self.path):
                    os.unlink(self.path)  # a server that died left it; we hold the lock
                self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.listener.bind(self.path)
                os.chmod(self.path, 0o600)
                self.listener.listen(32)
                self.inode = os.stat(self.path).st_ino
            self._handle_signals()
            _warm_up()
            self.stamps = _code_stamps()
            self.listener.settimeout(_TICK)
            threading.Thread(target=self._accept, name="pallium-resident-accept", daemon=True).start()
            self._serve()
        finally:
            self.stopping.set()
            if self.listener is not None:
                self.listener.close()
            if self._socket_is_ours():
                os.unlink(self.path)
            self._decline_waiting()
            os.close(lock)
        return 0

    def _handle_signals(self) -> None:
        """SIGTERM stops the whole server (a running call is cancelled first and answers); SIGHUP is
        ignored. A client's own signal travels on its connection, and its watcher interrupts that call
        with SIGINT on the main thread, so the call stops as it would in its own process (asyncio
        cancels it, then `interrupted`, 130)."""
        import signal

        from pallium_mcp import cli

        signal.signal(signal.SIGTERM, self._on_term)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        cli.SIGNAL_HOOKS.update(seen=self._on_loop_signal, restore=self._handle_signals)

    def _on_loop_signal(self, signum: int) -> None:
        """A signal the call's event loop took: a SIGTERM was sent to this process, so the server stops."""
        import signal

        if signum == signal.SIGTERM:
            self.stopping.set()

    def _on_term(self, _signum: int, _frame: object) -> None:
        self.stopping.set()
        if self.current is not None:
            raise KeyboardInterrupt  # even out of a write blocked on a pipe nobody reads

    def _cancel(self, token: object) -> None:
        """From a watcher thread: interrupt the call `token` while it is still the one running.

        As Ctrl-C in a terminal reaches a process and its children, the call's main thread gets
        SIGINT and so do the programs it started (a `git` it waits on); a second round a second
        later kills those programs, so a call is never left running for a client that is gone.
        """
        import signal

        main = threading.main_thread().ident or 0
        for attempt in range(30):
            with self.calls:
                if self.current is not token:
                    return
                signal.pthread_kill(main, signal.SIGINT)
                for child in _children():
                    with contextlib.suppress(OSError):
                        os.kill(child, signal.SIGINT if attempt == 0 else signal.SIGKILL)
            time.sleep(1.0)

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                job = self.jobs.get(timeout=_TICK)
            except queue.Empty:
                if self._should_stop():
                    return
                continue
            except KeyboardInterrupt:  # a cancellation that arrived after its call ended
                continue
            try:
                self._run(*job)
            except KeyboardInterrupt:
                _restore_streams()
            finally:
                self.last_call = time.monotonic()
                self.slot.release()

    def _should_stop(self) -> bool:
        if time.monotonic() - self.last_call > self.idle:
            return True
        # Its socket was removed (`pallium resident stop`, or its PALLIUM_HOME deleted) or taken over.
        return not self._socket_is_ours()

    def _socket_is_ours(self) -> bool:
        try:
            return os.lstat(self.path).st_ino == self.inode
        except OSError:
            return False

    def _decline_waiting(self) -> None:
        while True:
            try:
                conn, fds, _request = self.jobs.get_nowait()
            except queue.Empty:
                return
            _decline(conn, fds, "absent")

    # -- connections -------------------------------------------------------------------------

    def _accept(self) -> None:
        assert self.listener is not None
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            fds: list[int] = []
            try:
                conn.settimeout(5.0)
                if not _same_user(conn):
                    conn.close()
                    continue
                data, fds, _flags, _addr = socket.recv_fds(conn, 65536, 3)
                while not data.endswith(b"\n") and len(data) < _MAX_REQUEST:
                    more = conn.recv(65536)
                    if not more:
                        break
                    data += more
                self._admit(conn, data, fds)
            except Exception as exc:  # one bad connection never stops the server
                print(f"resident: dropped a connection: {exc!r}", file=sys.stderr, flush=True)
                _close_all(fds)
                conn.close()

    def _admit(self, conn: socket.socket, data: bytes, fds: list[int]) -> None:
        try:
            request = json.loads(data)
        except ValueError:
            _decline(conn, fds, "bad_request")
            return
        if not isinstance(request, dict):
            _decline(conn, fds, "bad_request")
        elif request.get("ping"):
            _decline(conn, fds, "ping", self._status())
        elif request.get("key") != self.key:
            _decline(conn, fds, "key")
        elif len(fds) != 3 or not isinstance(request.get("argv"), list) or not isinstance(request.get("cwd"), str):
            _decline(conn, fds, "bad_request")
        elif _code_stamps() != self.stamps:
            self.stopping.set()
            _decline(conn, fds, "stale")
        elif not serves([str(word) for word in request["argv"]]):
            _decline(conn, fds, "not_served")
        elif self.stopping.is_set() or not self.slot.acquire(blocking=False):
            _decline(conn, fds, "busy")
        else:
            self.jobs.put((conn, fds, request))

    def _status(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "served": self.served,
            "busy": self.slot.locked(),
            "started": self.started,
            "idle_seconds": round(time.monotonic() - self.last_call, 1),
        }

    # -- calls -------------------------------------------------------------------------------

    def _run(self, conn: socket.socket, fds: list[int], request: dict[str, Any]) -> None:
        try:
            conn.sendall(b'{"started": true}\n')
        except OSError:
            _close_all(fds)
            conn.close()
            return
        self.served += 1
        token = object()
        with self.calls:
            self.current = token
        conn.settimeout(None)
        watcher = threading.Thread(target=self._watch, args=(conn, token), name="pallium-resident-watch", daemon=True)
        watcher.start()
        code = 130
        try:
            code = _call([str(word) for word in request["argv"]], request["cwd"], fds)
        except KeyboardInterrupt:  # a cancellation that landed between the call's own handlers
            _restore_streams()
        finally:
            self._end_call()
            self._handle_signals()
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps({"exit": code}).encode() + b"\n")
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_RDWR)  # ends the watcher's read
        conn.close()

    def _end_call(self) -> None:
        """No call is current any more; a cancellation pending for it is taken here, not by the next step."""
        while True:
            try:
                with self.calls:
                    self.current = None
                return
            except KeyboardInterrupt:
                continue

    def _watch(self, conn: socket.socket, token: object) -> None:
        """Read the call's connection: `signal N` from its client, or its end (the client died)."""
        buffer = b""
        while True:
            try:
                data = conn.recv(256)
            except OSError:
                data = b""
            if not data:
                self._cancel(token)  # the client is gone: nobody waits for this call any more
                return
            buffer += data
            while b"\n" in buffer:
                line, _, buffer = buffer.partition(b"\n")
                if line.startswith(b"signal "):
                    self._cancel(token)


def _call(argv: list[str], cwd: str, fds: list[int]) -> int:
    """Run `pallium argv` as its own process would: in `cwd`, on the caller's streams."""
    from pallium_mcp.cli import main as run

    streams = _streams(fds)
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        os.chdir(cwd)
        code = run(argv)
    except SystemExit as exc:  # argparse's --help, and anything else that exits
        code = _exit_status(exc.code)
    except KeyboardInterrupt:
        _say("interrupted")
        code = 130
    except OSError as exc:
        _say(f"error: cannot run in {cwd}: {exc.strerror or exc}")
        code = 1
    except Exception:
        import traceback

        with contextlib.suppress(OSError, ValueError):
            traceback.print_exc()
        code = 1
    finally:
        for stream in streams[1:]:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        sys.stdin, sys.stdout, sys.stderr = saved
        for stream in streams:
            with contextlib.suppress(OSError, ValueError):
                stream.close()
        os.chdir("/")
    return code


def _children() -> list[int]:
    """This process's child processes (Linux `/proc`; elsewhere none are found, and the call ends with them)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError, ValueError):
                found += [int(p) for p in Path(f"/proc/self/task/{task}/children").read_text().split()]
    return found


def _restore_streams() -> None:
    """The server's own streams and folder again, after a call cut short where `_call` could not."""
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
    with contextlib.suppress(OSError):
        os.chdir("/")


def _say(text: str) -> None:
    """A line on the caller's standard error, which may be closed already (a killed client)."""
    with contextlib.suppress(OSError, ValueError, KeyboardInterrupt):
        print(text, file=sys.stderr)


def _streams(fds: list[int]) -> tuple[Any, Any, Any]:
    """Text streams on the caller's descriptors, encoded as its own would be (same environment)."""
    like_in, like_out, like_err = sys.__stdin__, sys.__stdout__, sys.__stderr__
    stdin = os.fdopen(fds[0], encoding=_encoding(like_in), errors=_errors(like_in, "strict"), closefd=True)
    stdout = os.fdopen(
        fds[1],
        "w",
        encoding=_encoding(like_out),
        errors=_errors(like_out, "strict"),
        buffering=1 if os.isatty(fds[1]) else -1,
        closefd=True,
    )
    stderr = os.fdopen(fds[2], "w", encoding=_encoding(like_err), errors="backslashreplace", buffering=1, closefd=True)
    return stdin, stdout, stderr


def _encoding(stream: Any) -> str:
    return getattr(stream, "encoding", None) or "utf-8"


def _errors(stream: Any, default: str) -> str:
    return getattr(stream, "errors", None) or default


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _decline(conn: socket.socket, fds: list[int], why: str, extra: dict[str, Any] | None = None) -> None:
    _close_all(fds)
    with contextlib.suppress(OSError):
        conn.sendall(json.dumps({"started": False, "why": why, **(extra or {})}).encode() + b"\n")
    conn.close()


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _same_user(conn: socket.socket) -> bool:
    """True when the peer runs as this user (Linux says so; elsewhere the 0700 folder is the check)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    import struct

    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return uid == os.getuid()


def _take_lock(path: Path) -> int | None:
    """An exclusive lock on `path`, waiting up to 3 s for a stopping server to let go; None if not got."""
    import fcntl

    from kernel import writes
    from kernel.errors import PalliumError

    try:
        fd = writes.open_fd(path, os.O_RDWR | os.O_CREAT, 0o600, root=path.parent)
    except (PalliumError, OSError):
        return None
    deadline = time.monotonic() + 3.0
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                return None
            time.sleep(0.05)


class _unlinked_on_error:
    def __init__(self, path: str) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, *_rest: object) -> None:
        if kind is not None and os.path.lexists(self.path):
            os.unlink(self.path)


def _warm_up() -> None:
    """Import what the served commands need, so the first call served is as quick as the rest."""
    import pallium_mcp.cli  # noqa: F401  (the CLI itself)
    from kernel import dispatch
    from tools_manifest import load_manifest

    for entry in load_manifest()["tools"]:
        if _served(entry):
            dispatch.find(entry["name"])


def _code_stamps() -> dict[str, tuple[int, int]]:
    """(mtime, size) of every source file and folder of the installation, and of the manifest."""
    stamps: dict[str, tuple[int, int]] = {}
    top = Path(launcher.__file__).resolve().parent.parent
    for package in _PACKAGES:
        for folder, subfolders, files in os.walk(top / package):
            subfolders[:] = [name for name in subfolders if name != "__pycache__"]
            for name in [".", *files]:
                if name == "." or name.endswith((".py", ".json")):
                    path = os.path.join(folder, name)
                    try:
                        info = os.stat(path)
                    except OSError:
                        continue
                    stamps[path] = (info.st_mtime_ns, info.st_size)
    return stamps


# -- `pallium resident status|stop` ------------------------------------------------------------


def command(argv: list[str]) -> int:
    """`pallium resident status` lists this home's servers; `pallium resident stop` stops them."""
    usage = "usage: pallium resident status|stop [--json]"
    if argv in (["-h"], ["--help"]):
        print(f"{usage}\n\n{__doc__}")
        return 0
    if argv not in (["status"], ["stop"], ["status", "--json"], ["stop", "--json"]):
        print(usage, file=sys.stderr)
        return 2
    folder = launcher.runtime_dir()
    mine = launcher.socket_path(launcher.server_key())
    servers = []
    if folder is not None and launcher.private_folder(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".sock"):
                path = os.path.join(folder, name)
                status = _ping(path)
                if argv[0] == "stop":
                    with contextlib.suppress(OSError):
                        os.unlink(path)  # the server sees its socket gone within a second and exits
                servers.append(
                    {"socket": path, "this_environment": path == mine, "running": status is not None, **(status or {})}
                )
    if argv[-1] == "--json":
        print(json.dumps({"folder": folder, "servers": servers, "stopped": argv[0] == "stop"}))
        return 0
    verb = "stopped" if argv[0] == "stop" else "running"
    live = [s for s in servers if s["running"]]
    print(f"{len(live)} resident server(s) {verb} in {folder}")
    for server in live:
        here = " (this environment)" if server["this_environment"] else ""
        print(f"  pid {server['pid']}: {server['served']} call(s), idle {server['idle_seconds']} s{here}")
    return 0


def _ping(path: str) -> dict[str, Any] | None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(2.0)
    try:
        conn.connect(path)
        conn.sendall(b'{"ping": true}\n')
        answer = json.loads(conn.makefile("rb").readline())
    except (OSError, ValueError):
        return None
    finally:
        conn.close()
    if not isinstance(answer, dict) or answer.get("why") != "ping":
        return None
    return {k: answer[k] for k in ("pid", "served", "busy", "idle_seconds") if k in answer}


def serve(argv: list[str] | None = None) -> int:
    """`python -P -m pallium_mcp.resident SOCKET KEY`: what `start_for` runs."""
    path, key = argv if argv is not None else sys.argv[1:3]
    if key != launcher.server_key():  # started by hand, or from another environment
        print("resident: this environment's key differs from the one asked for", file=sys.stderr)
        return 2
    try:
        idle = float(os.environ.get("PALLIUM_RESIDENT_IDLE", DEFAULT_IDLE))
    except ValueError:
        idle = DEFAULT_IDLE
    return _Server(path, key, max(idle, 1.0)).run()


if __name__ == "__main__":
    sys.exit(serve())
