import io

import pytest

from kernel.progress import TerminalProgress, for_stderr

pytestmark = pytest.mark.anyio


async def test_terminal_bar_draws_the_fraction_and_clears_itself():
    stream = io.StringIO()
    bar = TerminalProgress(stream, width=10)
    await bar.update(5, 10, "indexing")
    assert "[#####     ] 5/10 indexing" in stream.getvalue()
    await bar.update(10, 10, "done")
    assert "[##########] 10/10 done" in stream.getvalue()
    bar.close()
    assert stream.getvalue().endswith("\r")


async def test_no_bar_when_stderr_is_not_a_terminal(capsys):
    progress = for_stderr()
    await progress.update(1, 2, "x")
    assert capsys.readouterr().err == ""
