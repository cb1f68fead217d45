"""The three ways a markmcp server talks: stdio, streamable HTTP (``/mcp``) and SSE.

stdio is our own small transport rather than the SDK's ``stdio_server`` because of
what we measured with the latter (mcp 2.3): on stdin EOF its dispatcher cancels
requests it already received, so they are never answered (we answer them first);
its stdin reader sits in a worker thread that cancellation cannot interrupt, so
SIGINT on an idle server hangs until more input arrives (and SIGTERM ends it with
status -15).  Here one daemon thread reads lines, one daemon thread writes them,
and the event loop in between stays free to react to signals.

HTTP and SSE use the SDK's session manager / SSE transport on uvicorn; this module
imports uvicorn and the SSE/starlette pieces only when such a transport is chosen
(``import mcp`` itself already costs ~0.45 s and is unavoidable on every path).  SSE connections are
served by a plain ASGI endpoint (one ``Server.run`` per GET /sse): the SDK's own SSE
app answers a finished SSE response with a second response, which raises on every
client disconnect.  uvicorn is run without re-raising the signal it caught, so
SIGINT/SIGTERM end the process with status 0.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import signal
import socket
import sys
import threading
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, Any, Iterator

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from markmcp.mcpcore.app import ServerSpec, Settings
from markmcp.mcpcore.handlers import Handlers, running_handlers

logger = logging.getLogger("markmcp.mcpcore")

SHUTDOWN_GRACE = 2
"""Seconds HTTP/SSE connections get to finish after SIGINT/SIGTERM."""

DRAIN_TIMEOUT = 60.0
"""Seconds the stdio server keeps answering requests received before stdin ended."""


def run(spec: ServerSpec, settings: Settings) -> int:
    """Serve ``spec`` with ``settings``; return the process exit code."""
    server = Handlers(spec, settings).build_server()
    if settings.transport == "stdio":
        anyio.run(serve_stdio, server)
        code = 0
    else:
        code = serve_http(server, settings, spec.prog or spec.name)
    _leave_abandoned_handlers(code)
    return code


def _leave_abandoned_handlers(code: int) -> None:
    """Exit now if handlers abandoned at shutdown still run in worker threads.

    Those threads are not daemons, so a normal interpreter exit would wait for a
    stuck handler forever; the protocol is finished, so leave without them.
    """
    busy = running_handlers()
    if busy:
        logger.warning("exiting with %d tool call(s) still running in worker threads", busy)
        logging.shutdown()
        sys.stderr.flush()
        os._exit(code)


# stdio ---------------------------------------------------------------------------------


@dataclass
class StdioWire:
    """The protocol's private copies of stdin/stdout.

    While serving, fd 0 reads /dev/null and fd 1 writes to stderr, so a stray
    ``print`` or a child process can neither eat protocol input nor corrupt output.
    """

    reader: IO[bytes]
    writer: IO[bytes]
    saved: tuple[int, int]

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
        os.dup2(self.saved[0], 0)
        os.dup2(self.saved[1], 1)
        for fd in self.saved:
            os.close(fd)


@dataclass
class PendingIds:
    """Request ids the stdio transport has seen and not yet seen answered.

    ``inbound``: client requests the server still owes a response; ``outbound``:
    server requests (e.g. ``roots/list``) still waiting for the client.
    """

    inbound: set[Any] = field(default_factory=set)
    outbound: set[Any] = field(default_factory=set)
    eof: anyio.Event = field(default_factory=anyio.Event)
    drained: anyio.Event = field(default_factory=anyio.Event)

    def check_drained(self) -> None:
        if self.eof.is_set() and not self.inbound:
            self.drained.set()


def _closed_error(request_id: Any) -> SessionMessage:
    """A stand-in answer to a server request that the client can no longer give."""
    error = types.ErrorData(code=types.CONNECTION_CLOSED, message="Connection closed: stdin reached end of file")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


def _wire_error(code: int, message: str, request_id: Any = None) -> bytes:
    error = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))
    return error.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"


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

    def __init__(self, wire: StdioWire) -> None:
        self.wire = wire
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
        """Reader thread: hand each stdin line to the event loop, then report EOF."""
        try:
            for line in self.wire.reader:
                anyio.from_thread.run_sync(self.on_line, line, token=self.token)
            anyio.from_thread.run_sync(self.on_eof, token=self.token)
        except (anyio.RunFinishedError, OSError, ValueError):
            pass  # the loop or the pipe is gone: nothing left to deliver

    def on_line(self, line: bytes) -> None:
        """One input line (on the event loop): parse, note request ids, deliver to the server."""
        if not line.strip():
            return
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValidationError as error:
            if error.errors()[0]["type"] == "json_invalid":
                self.lines_out.put(_wire_error(types.PARSE_ERROR, "Parse error"))
            else:
                self.lines_out.put(_wire_error(types.INVALID_REQUEST, "Invalid request"))
            return
        if isinstance(message, types.JSONRPCRequest):
            self.pending.inbound.add(message.id)
        elif isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            self.pending.outbound.discard(message.id)
        elif message.method == "notifications/cancelled":  # a cancelled request is never answered
            self.pending.inbound.discard((message.params or {}).get("requestId"))
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
                    self.pending.inbound.discard(message.id)
                elif isinstance(message, types.JSONRPCRequest):
                    self.pending.outbound.add(message.id)
                    if self.pending.eof.is_set():
                        self.inbox_send.send_nowait(_closed_error(message.id))
                self.lines_out.put(message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n")
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


# HTTP and SSE --------------------------------------------------------------------------


def security_settings(host: str) -> Any:
    """DNS-rebinding protection: only loopback names (and an explicit ``--host``) are accepted.

    On a wildcard address (0.0.0.0, ::) the names clients will use are unknown, so
    the Host/Origin check is off there (with a warning on stderr).
    """
    from mcp.server.transport_security import TransportSecuritySettings

    if host in ("0.0.0.0", "::", ""):
        logger.warning("listening on all interfaces (%s): DNS-rebinding protection is off", host or "*")
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    names = ["127.0.0.1", "localhost", "[::1]"]
    if host not in ("127.0.0.1", "localhost", "::1"):
        names.append(f"[{host}]" if ":" in host else host)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in names],
        allowed_origins=[f"http://{name}:*" for name in names],
    )


def http_app(server: Server[Any], host: str) -> Any:
    """The streamable HTTP app: the SDK's session manager at ``/mcp``."""
    return server.streamable_http_app(streamable_http_path="/mcp", transport_security=security_settings(host))


def sse_app(server: Server[Any], host: str) -> Any:
    """The SSE app: ``GET /sse`` opens a session, ``POST /messages/?session_id=...`` feeds it."""
    from mcp.server.sse import SseServerTransport
    from starlette.applications import Starlette
    from starlette.routing import Mount, Route

    transport = SseServerTransport("/messages/", security_settings=security_settings(host))
    init_options = server.create_initialization_options()

    class Connect:
        """ASGI endpoint (not a request/response function): one server loop per client."""

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            try:
                async with transport.connect_sse(scope, receive, send) as (read_stream, write_stream):
                    await server.run(read_stream, write_stream, init_options)
            except ValueError as error:  # refused by the Host/Origin check; the 4xx is already sent
                logger.info("SSE connection refused: %s", error)

    return Starlette(
        routes=[
            Route("/sse", endpoint=Connect(), methods=["GET"]),
            Mount("/messages/", app=transport.handle_post_message),
        ]
    )


def _listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: a free one)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def serve_http(server: Server[Any], settings: Settings, prog: str) -> int:
    """Serve streamable HTTP or SSE with uvicorn until SIGINT/SIGTERM; return the exit code."""
    import uvicorn

    class QuietServer(uvicorn.Server):
        """uvicorn without re-raising the caught signal after shutdown (that would end in 130/143)."""

        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    app = http_app(server, settings.host) if settings.transport == "http" else sse_app(server, settings.host)
    try:
        sock = _listen(settings.host, settings.port)
    except OSError as error:
        print(f"{prog}: cannot listen on {settings.host}:{settings.port}: {error.strerror or error}", file=sys.stderr)
        return 1
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    path = "/mcp" if settings.transport == "http" else "/sse"
    kind = "streamable HTTP" if settings.transport == "http" else "SSE"
    print(f"{prog}: serving {kind} on http://{shown}:{port}{path}", file=sys.stderr, flush=True)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=port,
        log_config=None,
        access_log=False,
        log_level=settings.log_level,
        lifespan="on",
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
    )
    try:
        QuietServer(config).run(sockets=[sock])
    finally:
        sock.close()
    return 0
