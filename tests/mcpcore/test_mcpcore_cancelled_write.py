"""A tool call whose request is cancelled while its worker thread still runs writes no file.

The thread cannot be stopped (``handlers.in_worker`` abandons it), so the write itself
looks before it renames its temporary file into place.
"""

from __future__ import annotations

import threading
from pathlib import Path

import anyio
import pytest

from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError
from markmcp.mcpcore.handlers import in_worker


def test_an_abandoned_write_leaves_the_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "doc.md"
    target.write_text("old\n")
    stop = threading.Event()
    with files.writes_abandoned_when(stop):
        files.write_atomic(target, b"first\n")
        stop.set()
        with pytest.raises(FileAccessError, match="cancelled; nothing was written"):
            files.write_atomic(target, b"second\n")
    assert target.read_text() == "first\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.md"]
    files.write_atomic(target, b"third\n")  # outside the block: written as ever
    assert target.read_text() == "third\n"


def test_a_cancelled_tool_call_does_not_write_when_its_thread_goes_on(tmp_path: Path) -> None:
    target = tmp_path / "doc.md"
    target.write_text("old\n")
    started, go, finished = threading.Event(), threading.Event(), threading.Event()
    outcome: list[str] = []

    def handler() -> None:
        started.set()
        go.wait(10)
        try:
            files.write_atomic(target, b"new\n")
            outcome.append("written")
        except FileAccessError as error:
            outcome.append(error.message)
        finally:
            finished.set()

    async def call_then_cancel() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(in_worker, handler)
            while not started.is_set():
                await anyio.sleep(0.01)
            group.cancel_scope.cancel()  # the client cancelled; the thread is abandoned

    anyio.run(call_then_cancel)
    go.set()
    assert finished.wait(10)
    assert outcome == [f"{files.shown(target)}: the request was cancelled; nothing was written"]
    assert target.read_text() == "old\n"
