"""Work for the second core: a child Python process that runs one of Pallium's own functions on a
series of inputs, in order, while the caller does other work.

Python threads cannot parse in parallel (the GIL); a child process can. The child is
`python -m kernel.offload MODULE:FUNCTION`: it reads length-prefixed pickles from stdin and writes
one length-prefixed pickle per input to stdout, the function's result or the exception it raised.
Only functions of Pallium's own modules run there, on data this process made, so unpickling is
safe. A caller treats `OffloadFailed` (the child died, or cannot start) by doing the rest itself.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import IO, Any

__all__ = ["Offload", "OffloadFailed", "worth_a_child"]

_HEADER = struct.Struct("!Q")
_DONE = object()
_ALLOWED_PREFIXES = ("kernel.", "services.")


class OffloadFailed(Exception):
    """The child process stopped before answering every input."""


def worth_a_child() -> bool:
    """True when a second core is there to use and offloading is not turned off."""
    return (os.cpu_count() or 1) > 1 and os.environ.get("PALLIUM_OFFLOAD", "1") != "0"


class Offload:
    """Run `target` ("module:function") on each of `inputs` in a child process; iterate the results.

    At most `ahead` results wait in memory, so a child that is faster than its reader is held back
    by the pipe rather than filling this process with parsed data.
    """

    def __init__(self, target: str, inputs: Iterable[Any], *, ahead: int = 4) -> None:
        if not target.startswith(_ALLOWED_PREFIXES):
            raise ValueError(f"offload runs Pallium's own functions only, not {target!r}")
        try:
            self._child = subprocess.Popen(
                # -P: the folder this process is in (a cloned repository, whose own `kernel/` or
                # `services/` package would otherwise be imported in place of Pallium's) is not on
                # the child's sys.path
                [sys.executable, "-P", "-m", "kernel.offload", target],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as exc:
            raise OffloadFailed(f"cannot start the child process: {exc}") from exc
        self._results: queue.Queue[Any] = queue.Queue(maxsize=ahead)
        self._feeder = threading.Thread(target=self._feed, args=(list(inputs),), daemon=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._feeder.start()
        self._reader.start()

    def __iter__(self) -> Iterator[Any]:
        while True:
            item = self._results.get()
            if item is _DONE:
                return
            if isinstance(item, OffloadFailed):
                raise item
            yield item

    @property
    def running(self) -> bool:
        """True while the child process is alive."""
        return self._child.poll() is None

    def close(self) -> None:
        """Stop the child (if it still runs) and the threads that talk to it."""
        if self._child.poll() is None:
            self._child.kill()
        self._child.wait()
        while self._reader.is_alive():  # let a reader blocked on a full queue see the end
            with contextlib.suppress(queue.Empty):
                self._results.get(timeout=0.1)
        self._feeder.join()
        for pipe in (self._child.stdin, self._child.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):  # unsent input to a child that is gone
                    pipe.close()

    def __enter__(self) -> Offload:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _feed(self, inputs: list[Any]) -> None:
        stdin = self._child.stdin
        assert stdin is not None
        try:
            for item in inputs:
                _write(stdin, item)
            stdin.close()
        except (BrokenPipeError, OSError, ValueError):  # the child is gone: the reader reports it
            pass

    def _read(self) -> None:
        stdout = self._child.stdout
        assert stdout is not None
        try:
            while True:
                item = _read(stdout)
                if item is _DONE:
                    break
                ok, value = item
                self._results.put(value if ok else OffloadFailed(f"the child's function raised {value!r}"))
                if not ok:
                    return
        except (OSError, EOFError, pickle.UnpicklingError) as exc:
            self._results.put(OffloadFailed(f"the child process stopped: {exc}"))
            return
        except Exception as exc:  # any undecodable message: a reader that died would hang the caller
            self._results.put(OffloadFailed(f"an undecodable message from the child: {type(exc).__name__}: {exc}"))
            return
        code = self._child.wait()
        self._results.put(_DONE if code == 0 else OffloadFailed(f"the child process exited {code}"))


def _write(stream: IO[bytes], value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def _read(stream: IO[bytes]) -> Any:
    header = stream.read(_HEADER.size)
    if not header:
        return _DONE
    if len(header) < _HEADER.size:
        raise EOFError("a truncated header")
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("a truncated message")
    return pickle.loads(data)


def _serve(target: str) -> int:
    """The child's side: answer each input on stdin with the function's result on stdout."""
    import importlib

    module_name, _, function_name = target.partition(":")
    if not module_name.startswith(_ALLOWED_PREFIXES):
        return 2
    function = getattr(importlib.import_module(module_name), function_name)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while (item := _read(stdin)) is not _DONE:
        try:
            answer = (True, function(item))
        except Exception as exc:  # sent back whole: the parent decides what it means
            answer = (False, f"{type(exc).__name__}: {exc}")
        _write(stdout, answer)
    return 0


if __name__ == "__main__":
    sys.exit(_serve(sys.argv[1]))
