"""The reference oracles read an index only once it is complete: a language server's first
`backgroundIndex` end can come before the files its compilation database lists are queued (clangd),
which gave a different figure run to run. The server here is a real process speaking LSP over stdio."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from benchmarks.oracle.lsp import Lsp

SERVER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path

    def send(message):
        body = json.dumps(message).encode()
        sys.stdout.buffer.write(b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)
        sys.stdout.buffer.flush()

    def progress(kind):
        send({"jsonrpc": "2.0", "method": "$/progress",
              "params": {"token": "backgroundIndexProgress", "value": {"kind": kind}}})

    shards = Path(sys.argv[1])
    progress("begin")
    progress("end")  # the first end: one file indexed, the others not yet queued
    (shards / "a.cc.0001.idx").write_text("")
    if sys.argv[2] == "all":
        time.sleep(1.0)
        progress("begin")
        (shards / "b.cc.0002.idx").write_text("")
        progress("end")
    time.sleep(30)
    """
)


def shards_of(folder: Path, files: list[str]):
    def count() -> tuple[int, int]:
        have = {p.name.split(".idx")[0].rsplit(".", 1)[0] for p in folder.glob("*.idx")}
        return sum(1 for f in files if f in have), len(files)

    return count


def stop(lsp: Lsp) -> None:
    lsp.proc.kill()
    lsp.proc.wait()
    for pipe in (lsp.proc.stdin, lsp.proc.stdout):
        if pipe is not None:
            pipe.close()


def start(tmp_path: Path, mode: str) -> tuple[Lsp, Path]:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    folder = tmp_path / "index"
    folder.mkdir()
    return Lsp([sys.executable, str(script), str(folder), mode], tmp_path), folder


def test_the_wait_goes_past_the_first_end_until_every_file_has_its_shard(tmp_path: Path) -> None:
    lsp, folder = start(tmp_path, "all")
    try:
        assert lsp.wait_for_index(timeout=20, shards=shards_of(folder, ["a.cc", "b.cc"]), settle=15)
        assert (folder / "b.cc.0002.idx").exists()  # the first end alone would have stopped without it
    finally:
        stop(lsp)


def test_an_index_that_never_completes_is_reported_partial(tmp_path: Path) -> None:
    lsp, folder = start(tmp_path, "some")
    try:
        assert not lsp.wait_for_index(timeout=3, shards=shards_of(folder, ["a.cc", "b.cc"]), settle=60)
    finally:
        stop(lsp)
