"""The stdio transport: JSON-RPC lines on stdin/stdout, for one client.

This is our own small transport rather than the SDK's ``stdio_server`` because of
what we measured with the latter (mcp 2.3): on stdin EOF its dispatcher cancels
requests it already received, so they are never answered (we answer them first);
its stdin reader sits in a worker thread that cancellation cannot interrupt, so
SIGINT on an idle server hangs until more input arrives (and SIGTERM ends it with
status -15).  Here one daemon thread reads lines, one daemon thread writes them,
and the event loop in between stays free to react to signals.  The SDK's server
loop (``Server.run``) does everything else.

Every line is screened first (``markmcp.mcpcore.wire``): a malformed message is
answered here with a JSON-RPC error that says what is wrong, and the session goes
on.  A line is read in bounded pieces, so a line over ``MAX_MESSAGE_BYTES`` (100 MB
of JSON, or endless bytes without a newline) is discarded as it streams in and
answered with an error instead of being held in memory.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage

from markmcp.mcpcore import wire as rpc

logger = logging.getLogger("markmcp.mcpcore")

JSON_WHITESPACE = b" \t\r\n"

DRAIN_TIMEOUT = 60.0
"""Seconds the server keeps answering requests received before stdin ended."""


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


@dataclass
class PendingIds:
    """Request ids the stdio transport has seen and not yet seen answered.

    ``inbound``: client requests the server still owes a response; ``outbound``:
    server requests (e.g. ``roots/list``) still waiting for the client.  Ids are kept
    as :func:`key` of the id, the SDK's correlation domain (``"7"`` and ``7`` are one).
    """

    inbound: set[Any] = field(default_factory=set)
    outbound: set[Any] = field(default_factory=set)
    eof: anyio.Event = field(default_factory=anyio.Event)
    drained: anyio.Event = field(default_factory=anyio.Event)

    def check_drained(self) -> None:
        if self.eof.is_set() and not self.inbound:
            self.drained.set()


def key(request_id: Any) -> Any:
    """The correlation key of a (valid) request id."""
    return coerce_request_id(request_id)


def _closed_error(request_id: Any) -> SessionMessage:
    """A stand-in answer to a server request that the client can no longer give."""
    error = types.ErrorData(code=types.CONNECTION_CLOSED, message="Connection closed: stdin reached end of file")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


def _line(message: types.JSONRPCMessage) -> bytes:
    return rpc.encode(message) + b"\n"


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client over stdin/stdout until stdin ends, stdout breaks, or SIGINT/SIGTERM.

    On stdin EOF, requests already received are still answered (server requests
    still waiting on the client are failed with "connection closed" so nothing
    waits forever), then the server stops.
    """
    await StdioSession(StdioWire.claim()).serve(server)


class StdioSession:
    """One stdio connection: a reader thread, a writer thread and the SDK server loop between them.

    Lines read from stdin are parsed on the event loop and fed to the server; the
    server's messages are serialized and queued for the writer thread.  Both
    directions pass through here, which is how the session knows which requests
    are still unanswered when stdin ends.
    """

    def __init__(self, wire: StdioWire, *, signals: bool = True) -> None:
        self.wire = wire
        self.signals = signals
        self.pending = PendingIds()
        self.stop = anyio.Event()
        self.inbox_send, self.inbox = anyio.create_memory_object_stream[SessionMessage | Exception](math.inf)
        self.outbox, self.outbox_receive = anyio.create_memory_object_stream[SessionMessage](math.inf)
        self.lines_out: queue.Queue[bytes | None] = queue.Queue()
        self.token = anyio.lowlevel.current_token()

    async def serve(self, server: Server[Any]) -> None:
        writer = threading.Thread(target=self.write_lines, name="mcp-stdout", daemon=True)
        writer.start()
        threading.Thread(target=self.read_lines, name="mcp-stdin", daemon=True).start()
        try:
            async with anyio.create_task_group() as group:
                if self.signals:
                    group.start_soon(_stop_on_signal, self.stop.set)
                group.start_soon(self.cancel_when_stopped, group.cancel_scope)
                group.start_soon(self.close_input_when_drained)
                output_done = anyio.Event()
                group.start_soon(self.pump_output, output_done)
                await server.run(self.inbox, self.outbox, server.create_initialization_options())
                await output_done.wait()
                group.cancel_scope.cancel()
        finally:
            self.lines_out.put(None)
            writer.join(timeout=5)
            self.wire.release()

    # input ---------------------------------------------------------------------------

    def read_lines(self) -> None:
        """Reader thread: hand each stdin line to the event loop, then report EOF.

        A line is read at most ``MAX_MESSAGE_BYTES`` at a time; a longer one is skipped
        to its end in bounded pieces and reported by its size, never held whole.
        """
        limit = rpc.MAX_MESSAGE_BYTES
        reader = self.wire.reader
        try:
            while line := reader.readline(limit + 1):
                if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
                    size = len(line)
                    while not line.endswith(b"\n") and (line := reader.readline(rpc.SKIP_CHUNK)):
                        size += len(line)
                    anyio.from_thread.run_sync(self.on_oversized, size, token=self.token)
                    continue
                anyio.from_thread.run_sync(self.on_line, line, token=self.token)
            anyio.from_thread.run_sync(self.on_eof, token=self.token)
        except (anyio.RunFinishedError, OSError, ValueError):
            pass  # the loop or the pipe is gone: nothing left to deliver

    def on_oversized(self, size: int) -> None:
        """A line over the size limit was discarded: say so (the id is unknown: null)."""
        logger.warning("discarded a %d-byte message (the limit is %d bytes)", size, rpc.MAX_MESSAGE_BYTES)
        self.reply(rpc.too_large(size))

    def reply(self, message: types.JSONRPCMessage) -> None:
        """Answer the client directly (a message the server loop never saw)."""
        self.lines_out.put(_line(message))

    def on_line(self, line: bytes) -> None:
        """One input line (on the event loop): screen it, note request ids, deliver it to the server.

        Whatever the line holds, it gets at most one answer and never ends the session:
        an unexpected failure here is logged and answered as an internal error.
        """
        try:
            self.take(line)
        except Exception:
            logger.exception("failed to handle an input line")
            self.reply(rpc.error(types.INTERNAL_ERROR, "Internal error: the message could not be handled"))

    def take(self, line: bytes) -> None:
        line = line.strip(JSON_WHITESPACE)
        if not line:
            return
        verdict = rpc.screen(line)
        if verdict.error is not None:
            self.reply(verdict.error)
            return
        message = verdict.message
        if message is None:
            return
        if isinstance(message, types.JSONRPCRequest):
            if key(message.id) in self.pending.inbound:
                self.reply(rpc.error(
                    types.INVALID_REQUEST,
                    f"Invalid Request: id {rpc.encode_id(message.id)} is already used by a request that is "
                    "still unanswered; use a new id for each request",
                ))
                return
            self.pending.inbound.add(key(message.id))
        elif isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            if message.id is not None:
                self.pending.outbound.discard(key(message.id))
        elif message.method == "notifications/cancelled":  # a cancelled request is never answered
            cancelled = (message.params or {}).get("requestId")
            if rpc.valid_id(cancelled):
                self.pending.inbound.discard(key(cancelled))
                self.pending.check_drained()
        self.inbox_send.send_nowait(SessionMessage(message))

    def on_eof(self) -> None:
        """stdin ended: fail the server's open requests to the client, then wait for the drain."""
        self.pending.eof.set()
        for request_id in list(self.pending.outbound):
            self.inbox_send.send_nowait(_closed_error(request_id))
        self.pending.check_drained()

    async def close_input_when_drained(self) -> None:
        """After EOF, end the server's input once every received request was answered.

        A handler that never finishes must not keep the process alive forever, so
        the wait is bounded by ``DRAIN_TIMEOUT``.
        """
        await self.pending.eof.wait()
        with anyio.move_on_after(DRAIN_TIMEOUT):
            await self.pending.drained.wait()
        if self.pending.inbound:
            logger.warning(
                "stdin closed; giving up on %d request(s) unanswered after %.0f s",
                len(self.pending.inbound), DRAIN_TIMEOUT,
            )
        self.inbox_send.close()

    # output --------------------------------------------------------------------------

    async def pump_output(self, done: anyio.Event) -> None:
        """Serialize the server's messages for the writer thread, noting ids on the way."""
        async with self.outbox_receive:
            async for item in self.outbox_receive:
                message = item.message
                if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
                    if message.id is not None:
                        self.pending.inbound.discard(key(message.id))
                elif isinstance(message, types.JSONRPCRequest):
                    self.pending.outbound.add(key(message.id))
                    if self.pending.eof.is_set():
                        self.inbox_send.send_nowait(_closed_error(message.id))
                self.lines_out.put(_line(message))
                self.pending.check_drained()
        done.set()

    def write_lines(self) -> None:
        """Writer thread: write queued lines to the protocol stdout, flushing each."""
        while (chunk := self.lines_out.get()) is not None:
            try:
                self.wire.writer.write(chunk)
                self.wire.writer.flush()
            except (OSError, ValueError):  # the client closed our stdout: nobody can hear us
                try:
                    anyio.from_thread.run_sync(self.stop.set, token=self.token)
                except anyio.RunFinishedError:
                    pass
                return

    async def cancel_when_stopped(self, scope: anyio.CancelScope) -> None:
        await self.stop.wait()
        scope.cancel()


async def _stop_on_signal(stop: Callable[[], None]) -> None:
    """Call ``stop`` at the first SIGINT or SIGTERM."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            logger.info("received %s, stopping", signal.Signals(signum).name)
            stop()
            return
