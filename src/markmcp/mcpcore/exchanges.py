"""HTTP exchanges in flight: what each response still owes, and owing nothing at shutdown.

Every HTTP request of a server on streamable HTTP or SSE is served as an
:class:`Exchange` (``transports.ScreenedPosts`` opens them): the app's ``send`` passes
through it, so it knows how far the response got (not started, streaming SSE,
complete) and which JSON-RPC requests the response still owes an answer.

* A POST to ``/mcp`` owes the answer to the request it carries, on its own response:
  a JSON body, or an SSE event carrying a response with that id.
* A POST to the SSE transport's ``/messages/`` is answered ``202``; from then on its
  request is owed by the session's event stream (``GET /sse``), which learns its
  session from its ``endpoint`` event and settles each request by a response event.

When the process is asked to stop (SIGINT/SIGTERM), :meth:`Exchanges.stop` ends every
exchange at once.  Each request an exchange still owes gets the "connection closed"
JSON-RPC error that stdio sends in the same case (``wire.unanswered``, code -32000), in
the form its response takes: a JSON body (``200``) if nothing was sent yet, else one SSE
event per request before the end of the stream; then the app serving the exchange is
cancelled (a tool handler in a worker thread is abandoned: ``handlers.in_worker``).
From the stop on nothing else is written: a message the app sends afterwards (an
answer that came too late, a notification, a keep-alive ping) is dropped, and a request
that arrives after the stop is refused with ``503`` and the same error.  Writing the
errors is bounded by :data:`ANSWER_TIMEOUT`, so a client that stops reading cannot hold
the process.

An SSE stream that ends, without a stop, before the answers it owes (a session deleted
under a running request) gets the errors too, so a request is never left unanswered
while its client is still listening.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit
from uuid import UUID

import anyio
import mcp_types as types
from mcp.shared.dispatcher import coerce_request_id

from markmcp.mcpcore import wire

logger = logging.getLogger("markmcp.mcpcore")

ANSWER_TIMEOUT = 1.0
"""Seconds an exchange gets, once the server stops, to write the errors it owes."""

SESSION_ENDED = "the session ended"
"""Why a request gets an error when its SSE stream ends without a stop."""

# The head of a JSON-RPC message as the SDK writes it (compact, "jsonrpc" then "id"):
# a response or error with its id, or a request/notification (a "method").
_ID = rb'-?\d+|"(?:[^"\\]|\\.)*"'
_ANSWER_HEAD = re.compile(rb'\{"jsonrpc":"2\.0","id":(' + _ID + rb'),"(?:result|error)":')
_CALL_HEAD = re.compile(rb'\{"jsonrpc":"2\.0",(?:"id":(?:' + _ID + rb'),)?"method":')


def key(request_id: Any) -> Any:
    """The correlation key of a request id (the SDK's: ``"7"`` and ``7`` are one)."""
    return coerce_request_id(request_id)


def answered_id(data: bytes) -> tuple[bool, Any]:
    """``(True, id)`` when ``data`` (an SSE event's data) is a JSON-RPC response or error.

    The SDK's own serialization is recognised from its first bytes; anything else is
    decoded to be sure.
    """
    head = _ANSWER_HEAD.match(data)
    if head is not None:
        return True, json.loads(head.group(1))
    if _CALL_HEAD.match(data) is not None:
        return False, None
    try:
        message = json.loads(data)
    except ValueError:
        return False, None
    if isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message):
        return True, message.get("id")
    return False, None


def sse_event(message: types.JSONRPCMessage) -> bytes:
    """One SSE ``message`` event carrying ``message``."""
    return b"event: message\r\ndata: " + wire.encode(message) + b"\r\n\r\n"


class EventReader:
    """Server-sent events out of the chunks of a response body: ``(event name, data)`` pairs.

    Lines are found with ``bytes.find`` (a tool result can be one line of megabytes);
    a line ends with CR LF, LF or CR, and an empty line ends an event.
    """

    def __init__(self) -> None:
        self.rest = b""

    def feed(self, chunk: bytes) -> list[tuple[bytes, bytes]]:
        """The events completed by ``chunk`` (an incomplete one waits for the next chunk)."""
        buffer = self.rest + chunk if self.rest else chunk
        events: list[tuple[bytes, bytes]] = []
        event_start = 0
        name = b"message"
        data: list[bytes] = []
        for start, end, after in _lines(buffer):
            if start == end:  # an empty line: the event is complete
                if data:
                    events.append((name, b"\n".join(data)))
                name, data = b"message", []
                event_start = after
                continue
            colon = buffer.find(b":", start, end)
            if colon == start:  # a comment
                continue
            if colon < 0:
                field, value = buffer[start:end], b""
            else:
                field = buffer[start:colon]
                value_start = colon + 2 if buffer.startswith(b" ", colon + 1, end) else colon + 1
                value = buffer[value_start:end]
            if field == b"event":
                name = value
            elif field == b"data":
                data.append(value)
        self.rest = buffer[event_start:]
        return events


def _lines(buffer: bytes) -> Iterator[tuple[int, int, int]]:
    """``(start, end, next start)`` of each complete line of ``buffer``.

    A CR as the last byte is not yet a line end: an LF may follow in the next chunk.
    """
    size = len(buffer)
    start = 0
    cr = buffer.find(b"\r")
    lf = buffer.find(b"\n")
    while cr >= 0 or lf >= 0:
        if cr >= 0 and (lf < 0 or cr < lf):
            if cr + 1 == size:
                return
            end, after = cr, cr + 2 if lf == cr + 1 else cr + 1
        else:
            end, after = lf, lf + 1
        yield start, end, after
        start = after
        if 0 <= cr < start:
            cr = buffer.find(b"\r", start)
        if 0 <= lf < start:
            lf = buffer.find(b"\n", start)


def session_of(text: str) -> str | None:
    """The SSE-transport session id (hex) in a URI or query string, if it has a valid one."""
    values = parse_qs(urlsplit(text).query if "?" in text else text).get("session_id")
    if not values:
        return None
    try:
        return UUID(hex=values[0]).hex
    except ValueError:
        return None


class Exchanges:
    """The exchanges in flight on one server, and the stop that ends them all."""

    def __init__(self) -> None:
        self.why = ""
        """Why the server is stopping ("" while it serves)."""
        self.live: set[Exchange] = set()
        self.sessions: dict[str, dict[Any, Any]] = {}
        """SSE transport: session id (hex) -> the requests its event stream owes (key -> id)."""
        self.loop: asyncio.AbstractEventLoop | None = None
        self.endings: set[asyncio.Task[None]] = set()

    def enter(self, scope: Any, send: Any) -> Exchange:
        """A new exchange for the HTTP request ``scope`` answered through ``send``."""
        self.loop = asyncio.get_running_loop()
        exchange = Exchange(self, scope, send)
        self.live.add(exchange)
        return exchange

    def leave(self, exchange: Exchange) -> None:
        """``exchange`` is over (its response complete, or its client gone)."""
        self.live.discard(exchange)
        if exchange.session is not None and exchange.streams_session:
            self.sessions.pop(exchange.session, None)

    def stop(self, why: str) -> None:
        """The server is asked to stop (called from the signal handler): end every exchange now.

        From here on the exchanges write nothing but the errors they owe.
        """
        if self.why:
            return
        self.why = why
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.end_all)

    def end_all(self) -> None:
        for exchange in list(self.live):
            task = asyncio.ensure_future(exchange.end())
            self.endings.add(task)
            task.add_done_callback(self.endings.discard)


class Exchange:
    """One HTTP request being served: how far its response got and which answers it owes.

    The app serving it answers through :meth:`send`; it runs inside :attr:`cut`, which
    the stop cancels once the owed errors are written.
    """

    def __init__(self, owner: Exchanges, scope: Any, send: Any) -> None:
        self.owner = owner
        self.raw = send
        self.lock = asyncio.Lock()
        self.cut = anyio.CancelScope()
        self.delivered = False
        """Whether the app got the request (a request arriving after the stop never does)."""
        self.owed: dict[Any, Any] = {}
        """Requests whose answer this response must carry: key -> id as the client wrote it."""
        self.session = session_of(scope.get("query_string", b"").decode("latin-1"))
        self.streams_session = False
        """Whether this is the SSE transport's event stream of :attr:`session`."""
        self.started = False
        self.streaming = False
        self.complete = False
        self.events: EventReader | None = None
        self.session_header = next(
            (value for name, value in scope.get("headers", ()) if name == b"mcp-session-id"), None
        )

    def owe(self, request_id: Any) -> None:
        """This exchange carries the request ``request_id``: its response owes the answer."""
        self.owed[key(request_id)] = request_id

    async def send(self, message: Any) -> None:
        """The app's ``send``: noted and passed on while serving; dropped once the server stops."""
        if self.owner.why:
            return
        async with self.lock:
            if self.owner.why:
                return
            kind = message["type"]
            if kind == "http.response.start":
                self.on_start(message)
            elif kind == "http.response.body" and self.started and not self.complete:
                message = self.on_body(message)
            await self.raw(message)

    def on_start(self, message: Any) -> None:
        self.started = True
        self.streaming = any(
            name.lower() == b"content-type" and value.startswith(b"text/event-stream")
            for name, value in message.get("headers", ())
        )
        if self.streaming:
            self.events = EventReader()
        if message["status"] == 202 and self.owed and self.session is not None:
            stream = self.owner.sessions.get(self.session)
            if stream is not None:  # accepted: the session's event stream owes the answer now
                stream.update(self.owed)
                self.owed = {}

    def on_body(self, message: Any) -> Any:
        body = message.get("body", b"")
        if self.events is not None and body:
            for name, data in self.events.feed(body):
                self.on_event(name, data)
        if not message.get("more_body", False):
            self.complete = True
            if self.streaming and self.owed:  # the stream ends without answers it owes
                message = {**message, "body": body + self.errors(SESSION_ENDED)}
        return message

    def on_event(self, name: bytes, data: bytes) -> None:
        if name == b"message":
            answer, request_id = answered_id(data)
            if answer and request_id is not None:
                self.owed.pop(key(request_id), None)
        elif name == b"endpoint" and not self.streams_session:
            session = session_of(data.decode("utf-8", "replace"))
            if session is not None:
                self.session = session
                self.streams_session = True
                self.owed = self.owner.sessions.setdefault(session, self.owed)

    def errors(self, why: str) -> bytes:
        """SSE events answering every owed request with the "connection closed" error; nothing owed after."""
        events = b"".join(sse_event(wire.unanswered(request_id, why)) for request_id in self.owed.values())
        self.owed.clear()
        return events

    async def end(self) -> None:
        """The server stops: write the errors owed (bounded), then cancel the app."""
        try:
            await self.finish()
        finally:
            self.cut.cancel()

    async def finish(self) -> None:
        """Complete the response if the app did not: with the errors owed, once the server stops.

        Called by the stop and when the app returns; whichever comes second finds it done.
        Without a stop an unfinished response is left as the app left it (its server
        reports that).
        """
        why = self.owner.why
        if not why or self.complete:
            return
        owed = len(self.owed)
        try:
            with anyio.fail_after(ANSWER_TIMEOUT):
                async with self.lock:
                    if self.complete:
                        return
                    self.complete = True
                    if not self.started:
                        await self.answer_alone(why)
                    elif self.streaming:
                        await self.raw({"type": "http.response.body", "body": self.errors(why), "more_body": False})
                    # a JSON response cut between its start and its body stays cut (its length is promised)
        except TimeoutError:
            logger.warning("gave up answering %d request(s) at shutdown: the client is not reading", owed)
        except OSError:  # the client is gone: nobody to answer
            pass

    async def answer_alone(self, why: str) -> None:
        """No response was started: the error itself is the response (as a JSON body).

        A request the app was serving gets it as its answer (``200``); one that arrived
        after the stop is refused (``503``); an exchange carrying no request (a GET) gets
        the error without an id.
        """
        owed = list(self.owed.values())
        self.owed.clear()
        error = wire.unanswered(owed[0], why) if owed else wire.error(types.CONNECTION_CLOSED, f"Connection closed: {why}")
        body = wire.encode(error)
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if self.session_header is not None:
            headers.append((b"mcp-session-id", self.session_header))
        status = 200 if owed and self.delivered else 503
        await self.raw({"type": "http.response.start", "status": status, "headers": headers})
        await self.raw({"type": "http.response.body", "body": body, "more_body": False})
        self.started = True
