"""The stdio transport: JSON-RPC lines on stdin/stdout, for one client.

This is our own small transport rather than the SDK's ``stdio_server`` because of
what we measured with the latter (mcp 2.3): on stdin EOF its dispatcher cancels
requests it already received, so they are never answered (we answer them first);
its stdin reader sits in a worker thread that cancellation cannot interrupt, so
SIGINT on an idle server hangs until more input arrives (and SIGTERM ends it with
status -15).  Here one daemon thread reads lines (``lines.LineReader``, started before
the SDK is even imported), one daemon thread writes them, and the event loop in between
stays free to react to signals.  The SDK's server loop (``Server.run``) does everything
else.  A session may start with a backlog: the lines read, and the ``initialize`` answered,
while the SDK was loading (``markmcp.mcpcore.early``); they are replayed first, in order.

Every line is screened first (``markmcp.mcpcore.wire``): a malformed message is
answered here with a JSON-RPC error that says what is wrong, and the session goes
on.  A line is read in bounded pieces, so a line over ``MAX_MESSAGE_BYTES`` (100 MB
of JSON, or endless bytes without a newline) is discarded as it streams in and
answered with an error instead of being held in memory.
"""

from __future__ import annotations

import logging
import math
import queue
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage

from markmcp.mcpcore import wire as rpc
from markmcp.mcpcore.lines import (
    END_OF_INPUT,
    JSON_WHITESPACE,
    MAX_MESSAGE_BYTES,
    Answered,
    Item,
    LineReader,
    Oversized,
    StdioWire,
)

logger = logging.getLogger("markmcp.mcpcore")

DRAIN_TIMEOUT = 60.0
"""Seconds the server keeps answering requests received before stdin ended."""


@dataclass
class PendingIds:
    """Request ids the stdio transport has seen and not yet seen answered.

    ``inbound``: client requests the server still owes a response; ``outbound``:
    server requests (e.g. ``roots/list``) still waiting for the client.  Ids are kept
    as :func:`key` of the id, the SDK's correlation domain (``"7"`` and ``7`` are one).
    """

    inbound: dict[Any, Any] = field(default_factory=dict)
    """key -> the id as the client wrote it (what an answer must carry)."""
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
    waits forever), then the server stops.  A request still unanswered when the
    session ends (a signal, or a handler still running ``DRAIN_TIMEOUT`` after EOF) is
    answered with a "connection closed" error, never left without an answer.
    """
    wire = StdioWire.claim()
    reader = LineReader(wire.reader)
    reader.start()
    await serve_session(server, wire, reader, [])


async def serve_session(server: Server[Any], wire: StdioWire, reader: LineReader, backlog: list[Item]) -> None:
    """Serve the stdio client behind ``wire``: the items read so far, then the rest from ``reader``."""
    await StdioSession(wire, reader).serve(server, backlog)


class StdioSession:
    """One stdio connection: a reader thread, a writer thread and the SDK server loop between them.

    Lines read from stdin are parsed on the event loop and fed to the server; the
    server's messages are serialized and queued for the writer thread.  Both
    directions pass through here, which is how the session knows which requests
    are still unanswered when stdin ends.
    """

    def __init__(self, wire: StdioWire, reader: LineReader | None = None, *, signals: bool = True) -> None:
        self.wire = wire
        self.reader = reader
        self.signals = signals
        self.pending = PendingIds()
        self.stop = anyio.Event()
        self.stopped_by = ""
        self.inbox_send, self.inbox = anyio.create_memory_object_stream[SessionMessage | Exception](math.inf)
        self.outbox, self.outbox_receive = anyio.create_memory_object_stream[SessionMessage](math.inf)
        self.lines_out: queue.Queue[bytes | None] = queue.Queue()
        self.token = anyio.lowlevel.current_token()
        self.early: dict[Any, Answered] = {}
        """The requests answered before the SDK was loaded (an ``initialize``, lists), by
        :func:`key` of their ids, until the SDK's own reply to each is seen."""

    async def serve(self, server: Server[Any], backlog: list[Item]) -> None:
        """Run the session: ``backlog`` (items read before the loop ran) first, then the reader's."""
        writer = threading.Thread(target=self.write_lines, name="mcp-stdout", daemon=True)
        writer.start()
        try:
            async with anyio.create_task_group() as group:
                if self.signals:
                    group.start_soon(_stop_on_signal, self.stop_for)
                group.start_soon(self.cancel_when_stopped, group.cancel_scope)
                group.start_soon(self.close_input_when_drained)
                output_done = anyio.Event()
                group.start_soon(self.pump_output, output_done)
                if self.reader is not None:
                    backlog = [*backlog, *self.reader.hand_over(self.deliver)]
                for item in backlog:  # all at once, before any item the reader delivers from now on
                    self.on_item(item)
                await server.run(self.inbox, self.outbox, server.create_initialization_options())
                await output_done.wait()
                group.cancel_scope.cancel()
        finally:
            self.answer_the_rest()
            self.lines_out.put(None)
            writer.join(timeout=5)
            self.wire.release()

    def stop_for(self, why: str) -> None:
        self.stopped_by = self.stopped_by or why
        self.stop.set()

    def answer_the_rest(self) -> None:
        """The session is over: send what the server still had queued, and a "connection closed"
        error for each request it never answered (an interrupted handler's answer is lost)."""
        while True:
            try:
                item = self.outbox_receive.receive_nowait()
            except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                break
            self.note_output(item.message)
        self.outbox_receive.close()
        why = self.stopped_by or (
            f"stdin ended and the server stopped waiting after {DRAIN_TIMEOUT:g} s" if self.pending.eof.is_set()
            else "the server is stopping"
        )
        for request_id in list(self.pending.inbound.values()):
            self.lines_out.put(_line(rpc.unanswered(request_id, why)))
        self.pending.inbound.clear()

    # input ---------------------------------------------------------------------------

    def deliver(self, item: Item) -> bool:
        """Reader thread: hand one item to the event loop; False once the loop is gone."""
        try:
            anyio.from_thread.run_sync(self.on_item, item, token=self.token)
        except anyio.RunFinishedError:
            return False
        return True

    def on_item(self, item: Item) -> None:
        """One item from the reader (on the event loop)."""
        if isinstance(item, bytes):
            self.on_line(item)
        elif isinstance(item, Oversized):
            self.on_oversized(item.size)
        elif isinstance(item, Answered):
            self.replay(item)
        elif item is END_OF_INPUT:
            self.on_eof()

    def replay(self, answered: Answered) -> None:
        """Give the server loop a request already answered before the SDK was loaded.

        Its request id is not held as pending: the client has its answer and may use the id
        again; the SDK's reply (the first message with that id) is compared and dropped.
        """
        verdict = rpc.screen(answered.line)
        if verdict.message is None:  # cannot happen: the early check is stricter than the screen
            logger.error("a request answered at start-up does not pass the screen: %s", verdict.error)
            return
        self.early[key(answered.request_id)] = answered
        self.inbox_send.send_nowait(SessionMessage(verdict.message))

    def on_oversized(self, size: int) -> None:
        """A line over the size limit was discarded: say so (the id is unknown: null)."""
        logger.warning("discarded a %d-byte message (the limit is %d bytes)", size, MAX_MESSAGE_BYTES)
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
            self.pending.inbound[key(message.id)] = message.id
        elif isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            if message.id is not None:
                self.pending.outbound.discard(key(message.id))
        elif message.method == "notifications/cancelled":  # a cancelled request is never answered
            cancelled = (message.params or {}).get("requestId")
            if rpc.valid_id(cancelled):
                self.pending.inbound.pop(key(cancelled), None)
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
        async for item in self.outbox_receive:
            self.note_output(item.message)
        done.set()

    def note_output(self, message: types.JSONRPCMessage) -> None:
        """Note the ids of one message of the server, and queue it for the writer thread."""
        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            if message.id is not None and key(message.id) in self.early and self.check_early(message):
                return
            if message.id is not None:
                self.pending.inbound.pop(key(message.id), None)
        elif isinstance(message, types.JSONRPCRequest):
            self.pending.outbound.add(key(message.id))
            if self.pending.eof.is_set():
                self.inbox_send.send_nowait(_closed_error(message.id))
        self.lines_out.put(_line(message))
        self.pending.check_drained()

    def check_early(self, message: types.JSONRPCResponse | types.JSONRPCError) -> bool:
        """Whether ``message`` is the SDK's reply to a replayed request (already sent, so not
        to be sent again; it must match ours).  A reply with the same id and other members
        is another request's, which the client sent once it had our answer and may come
        first (requests run concurrently): it goes out."""
        early = self.early[key(message.id)]
        own = message.model_dump(by_alias=True, mode="json", exclude_unset=True)
        if not isinstance(own.get("result"), dict) or set(own["result"]) != set(early.result):
            return False
        del self.early[key(message.id)]
        sent = {"jsonrpc": "2.0", "id": early.request_id, "result": early.result}
        if own != sent:
            logger.error("a reply sent at start-up differs from the SDK's: sent %s, SDK %s", sent, own)
        return True

    def write_lines(self) -> None:
        """Writer thread: write queued lines to the protocol stdout, flushing each."""
        while (chunk := self.lines_out.get()) is not None:
            try:
                self.wire.writer.write(chunk)
                self.wire.writer.flush()
            except (OSError, ValueError):  # the client closed our stdout: nobody can hear us
                try:
                    anyio.from_thread.run_sync(self.stop_for, "stdout was closed", token=self.token)
                except anyio.RunFinishedError:
                    pass
                return

    async def cancel_when_stopped(self, scope: anyio.CancelScope) -> None:
        await self.stop.wait()
        scope.cancel()


async def _stop_on_signal(stop: Callable[[str], None]) -> None:
    """Call ``stop`` (with the reason) at the first SIGINT or SIGTERM."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            name = signal.Signals(signum).name
            logger.info("received %s, stopping", name)
            stop(f"the server is stopping ({name})")
            return
