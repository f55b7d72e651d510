"""A minimal Language Server Protocol client for the reference oracles (clangd, intelephense)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

RESOLVED = {"import", "same-file", "unique", "receiver"}  # Pallium resolutions that name a definition


async def every_reference(call: Any, name: str, ctx: Any) -> list[Any]:
    """All of `pallium_callers`' references for `name`, following `next_cursor`: one page holds
    what fits the answer's 8 KB, often fewer than a much-called function has."""
    references, cursor = [], None
    while True:
        arguments = {"name": name, "limit": 500} | ({"cursor": cursor} if cursor else {})
        answer = await call("pallium_callers", arguments, ctx)
        references += answer.references
        cursor = answer.next_cursor
        if not cursor:
            return references


class Lsp:
    """A minimal LSP client over a server's stdio: requests, and the notifications it sends meanwhile."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        import queue
        import threading

        self.proc = subprocess.Popen(
            command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0
        self.progress_done: set[str] = set()
        self.progress_begun: set[str] = set()
        self.messages: queue.Queue = queue.Queue()
        self.writing = threading.Lock()
        # one thread reads, so progress is seen while the client waits and nothing sits in a buffer
        threading.Thread(target=self._reader, daemon=True).start()

    def send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        with self.writing:
            self.proc.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            self.proc.stdin.flush()

    def _reader(self) -> None:
        try:
            self._read_all()
        except (OSError, ValueError):  # the pipe closed under the reader: the server was stopped
            self.messages.put(None)

    def _read_all(self) -> None:
        assert self.proc.stdout is not None
        while True:
            length = 0
            while True:
                line = self.proc.stdout.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            message = json.loads(self.proc.stdout.read(length))
            if message.get("method") == "window/workDoneProgress/create":
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif message.get("method") == "$/progress":
                token, kind = str(message["params"]["token"]), message["params"]["value"].get("kind")
                (self.progress_begun if kind == "begin" else self.progress_done if kind == "end" else set()).add(token)
            self.messages.put(message)

    def read(self, timeout: float | None = None) -> dict:
        """The next message from the server; {} when `timeout` seconds pass with none."""
        import queue

        try:
            message = self.messages.get(timeout=timeout)
        except queue.Empty:
            return {}
        if message is None:
            self.messages.put(None)
            raise EOFError("the language server exited")
        return message

    def request(self, method: str, params: dict) -> object:
        self.next_id += 1
        ident = self.next_id
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            message = self.read()
            if message.get("id") == ident and "method" not in message:
                return message.get("result")

    def notify(self, method: str, params: dict) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_for_index(
        self, timeout: float, *, notification: str | None = None, shards: Any = None, settle: float = 20.0
    ) -> bool:
        """Until the server's index is complete: a notification of its own (intelephense's
        `indexingEnded`), or clangd's background index with every progress it began ended and, where
        `shards` (a callable giving (files with a shard, files expected)) is given, a shard on disk for
        every file, or none added for `settle` seconds while no progress runs (a file clangd cannot
        index writes none). clangd's first `backgroundIndex` end can come before the compilation
        database's other files are queued, so the first end alone gave a different index run to run.
        False when `timeout` passed first: the index is partial and no figure may be read from it."""
        deadline = time.monotonic() + timeout
        last_count, last_change = -1, time.monotonic()
        while time.monotonic() < deadline:
            if notification is not None:
                if self.read(timeout=max(0.1, deadline - time.monotonic())).get("method") == notification:
                    return True
                continue
            idle = self.progress_begun <= self.progress_done and any("backgroundIndex" in t for t in self.progress_done)
            if shards is not None:
                have, want = shards()
                if have != last_count:
                    last_count, last_change = have, time.monotonic()
                if idle and (have >= want or time.monotonic() - last_change >= settle):
                    return True
            elif idle:
                return True
            self.poll(1.0)
        return False

    def poll(self, seconds: float) -> None:
        """Take what the server sends for up to `seconds` (its progress is noted as it is read)."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if not self.read(timeout=left):
                return

    def close(self) -> None:
        try:
            self.request("shutdown", {})
            self.notify("exit", {})
        except (EOFError, BrokenPipeError):
            pass
        self.proc.wait(timeout=30)


def locations_in(found: list[dict], checkout: Path) -> set[tuple[str, int]]:
    """(path, 1-based line) of each location an LSP answer gave inside `checkout`."""
    refs = set()
    for location in found:
        target = Path(unquote(location["uri"].removeprefix("file://")))  # clangd writes `+` as `%2B`
        if target.is_relative_to(checkout):
            refs.add((target.relative_to(checkout).as_posix(), location["range"]["start"]["line"] + 1))
    return refs


def report(oracle: str, truth: dict[str, set], ours: dict[str, set], misses: int) -> None:
    """Precision and recall of Pallium's references against the oracle's, and the first differences."""
    both = sum(len(truth[k] & ours[k]) for k in truth)
    theirs = sum(len(truth[k]) for k in truth)
    given = sum(len(ours[k]) for k in truth)
    precision = both / given if given else float("nan")
    recall = both / theirs if theirs else float("nan")
    print(f"  {oracle} {theirs}, pallium {given}, both {both}: precision {precision:.3f}  recall {recall:.3f}")
    shown = 0
    for key in sorted(truth):
        extra, missed = sorted(ours[key] - truth[key]), sorted(truth[key] - ours[key])
        if (extra or missed) and shown < misses * 3:
            shown += 1
            print(f"    {key}: pallium only {extra[:misses]}; {oracle} only {missed[:misses]}")
