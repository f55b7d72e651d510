"""Route reads a small repository in process to check a named symbol: a hostile tree cannot hang it or
lead it outside the repository."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import anyio

from tests.conftest import write
from tests.services.route.conftest import route


def test_a_fifo_and_links_out_of_the_tree_neither_hang_nor_answer_a_symbol_check(git_repo: Path, tmp_path: Path):
    os.mkfifo(git_repo / "pipe")  # opening it to read would wait for a writer forever
    (git_repo / "zero").symlink_to("/dev/zero")  # reading it would never end
    outside = write(tmp_path, "outside/secret.py", "def frobnicate_widget():\n    pass\n")
    (git_repo / "elsewhere.py").symlink_to(outside)  # the name is only outside the tree
    answers: list[object] = []
    worker = threading.Thread(
        target=lambda: answers.append(anyio.run(route, "where is frobnicate_widget called", git_repo, "observe")),
        daemon=True,
    )
    worker.start()
    worker.join(60)
    assert answers, "route did not answer: it read a FIFO or an endless file"
    answer = answers[0]
    assert answer.capability == "callers"
    # the name is in no file of the tree itself, so it is reported missing rather than pending
    assert "frobnicate_widget" in str(answer.model_dump(mode="json"))
