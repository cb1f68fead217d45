"""The stdio wire under every stdio session: stdin and stdout claimed for the protocol, the
thread that reads their lines, what it delivers, and the message size limit of every transport.

Both halves of a stdio server build on it: ``markmcp.mcpcore.early``, which starts the reader
and answers ``initialize`` while the SDK is imported, and ``markmcp.mcpcore.stdio``, the SDK's
session that takes the reader over.  The limit is also enforced on HTTP and SSE POST bodies
(``markmcp.mcpcore.wire``, ``markmcp.mcpcore.transports``).  Standard library only, so it
costs nothing on the way to the ``initialize`` reply.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

JSON_WHITESPACE = b" \t\r\n"

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
"""The largest message a client may send (16 MiB) on every transport: a stdio line, an
HTTP or SSE POST body.  Big enough for an inline document at the 10 MiB file limit
(``markmcp.mcpcore.files.MAX_FILE_BYTES``) after JSON escaping; a longer line is
discarded unread (in bounded chunks) and answered with an error."""

SKIP_CHUNK = 1024 * 1024
"""Bytes read at a time while an oversized line is skipped."""


@dataclass
class StdioWire:
    """The protocol's private copies of stdin/stdout.

    While serving, fd 0 reads /dev/null and fd 1 writes to stderr, so a stray
    ``print`` or a child process can neither eat protocol input nor corrupt output.
    """

    reader: IO[bytes]
    writer: IO[bytes]
    saved: tuple[int, int] | None = None
    """The original fds 0 and 1 (None: the wire was given, nothing to restore)."""

    @classmethod
    def claim(cls) -> StdioWire:
        saved = (os.dup(0), os.dup(1))
        reader = os.fdopen(os.dup(0), "rb")
        writer = os.fdopen(os.dup(1), "wb")
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
        return cls(reader, writer, saved)

    def release(self) -> None:
        if self.saved is None:
            return
        os.dup2(self.saved[0], 0)
        os.dup2(self.saved[1], 1)
        for fd in self.saved:
            os.close(fd)


# What the reader delivers: a line (bytes), an Oversized report, or END_OF_INPUT; ``early``
# puts the requests it Answered and its SDK_READY marker among them.


@dataclass(frozen=True)
class Oversized:
    """A line over ``MAX_MESSAGE_BYTES`` was skipped unread; ``size`` is its length in bytes."""

    size: int


@dataclass(frozen=True)
class Answered:
    """A request line answered before the SDK was loaded (``markmcp.mcpcore.early``: the
    ``initialize``, then plain lists), with the request's id and the result sent."""

    line: bytes
    request_id: int | str
    result: dict[str, Any]


class Marker:
    """An item that is no line: a named event (``END_OF_INPUT``, ``early.SDK_READY``)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


END_OF_INPUT = Marker("END_OF_INPUT")
"""stdin ended (or can no longer be read)."""

Item = bytes | Oversized | Answered | Marker


class LineReader:
    """Reads stdin lines in a daemon thread and delivers them in order.

    Until :meth:`hand_over`, items are queued (``items``); afterwards each goes to the
    sink given there.  A line is read at most ``MAX_MESSAGE_BYTES`` at a time; a longer
    one is skipped to its end in bounded pieces and reported by its size, never held whole.
    """

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.items: queue.Queue[Item] = queue.Queue()
        self.lock = threading.Lock()
        self.sink: Callable[[Item], bool] | None = None
        self.thread = threading.Thread(target=self.run, name="mcp-stdin", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def post(self, item: Item) -> bool:
        """Deliver one item; False when the receiving side is gone (stop reading)."""
        with self.lock:
            sink = self.sink
            if sink is None:
                self.items.put(item)
                return True
        return sink(item)

    def hand_over(self, sink: Callable[[Item], bool]) -> list[Item]:
        """From now on deliver to ``sink``; returns what was queued and not yet taken, in order."""
        with self.lock:
            waiting = []
            while True:
                try:
                    waiting.append(self.items.get_nowait())
                except queue.Empty:
                    break
            self.sink = sink
        return waiting

    def run(self) -> None:
        limit = MAX_MESSAGE_BYTES
        stream = self.stream
        try:
            while line := stream.readline(limit + 1):
                if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
                    size = len(line)
                    while not line.endswith(b"\n") and (line := stream.readline(SKIP_CHUNK)):
                        size += len(line)
                    if not self.post(Oversized(size)):
                        return
                    continue
                if not self.post(line):
                    return
        except (OSError, ValueError):
            pass  # stdin cannot be read any more: that is its end
        self.post(END_OF_INPUT)
