"""Running a server: stdio (see ``stdio.py``), streamable HTTP (``/mcp``) or SSE.

HTTP and SSE use the SDK's session manager / SSE transport on uvicorn; this module
imports uvicorn and the SSE/starlette pieces only when such a transport is chosen
(``import mcp`` itself already costs ~0.45 s, paid on every path that serves; none that ends
with a usage error imports this module: see ``markmcp.mcpcore.app``).
SSE connections are served by a plain ASGI endpoint (one ``Server.run`` per GET
/sse): the SDK's own SSE app answers a finished SSE response with a second
response, which raises on every client disconnect.  uvicorn is run without
re-raising the signal it caught, so SIGINT/SIGTERM end the process with status 0.

Every POSTed message (``/mcp``, ``/messages/``) passes :class:`ScreenedPosts` before
the SDK sees it: the same checks as a stdio line (``markmcp.mcpcore.wire``), the same
size limit (413 beyond it), and a malformed message is answered ``400`` with the
JSON-RPC error as the body.

Every HTTP request is served as an exchange (``markmcp.mcpcore.exchanges``) that knows
which answers its response still owes.  At SIGINT/SIGTERM each request still running
is answered with a "connection closed" JSON-RPC error (as over stdio), on its POST
response (JSON body or SSE event) or, for the SSE transport, on the session's event
stream.  Nothing else is written after the signal, and the stop stays bounded when a
tool ignores the cancellation (its worker thread is abandoned; see
``_leave_abandoned_handlers``).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

import anyio
from mcp.server.lowlevel import Server
from mcp_types import JSONRPCRequest

from markmcp.mcpcore import wire
from markmcp.mcpcore.lines import MAX_MESSAGE_BYTES, Item, LineReader, StdioWire
from markmcp.mcpcore.exchanges import Exchange, Exchanges
from markmcp.mcpcore.handlers import Handlers, running_handlers
from markmcp.mcpcore.spec import ServerSpec, Settings
from markmcp.mcpcore.stdio import serve_session

logger = logging.getLogger("markmcp.mcpcore")

SHUTDOWN_GRACE = 2
"""Seconds HTTP/SSE connections get to finish after SIGINT/SIGTERM."""


def build_server(spec: ServerSpec, settings: Settings) -> Server[Any]:
    """The SDK server of ``spec``: the layer's handlers on the low-level ``Server``."""
    return Handlers(spec, settings).build_server()


def run(spec: ServerSpec, settings: Settings, sock: socket.socket) -> int:
    """Serve ``spec`` over HTTP or SSE on ``sock``; return the process exit code.

    ``sock`` is the listening socket ``markmcp.mcpcore.app.serve`` opened before it
    imported this module, so a port in use or a host that does not resolve is reported
    without the SDK's import time.  Stdio never comes here: ``serve`` starts it through
    ``markmcp.mcpcore.early``, which answers ``initialize`` while this module is still
    being imported, and then hands the client to :func:`run_stdio`.
    """
    code = serve_http(build_server(spec, settings), settings, spec.prog or spec.name, sock)
    _leave_abandoned_handlers(code)
    return code


def run_stdio(server: Server[Any], wire: StdioWire, reader: LineReader, backlog: list[Item]) -> int:
    """Serve one stdio client: the items read so far (``backlog``), then the rest from ``reader``."""
    anyio.run(serve_session, server, wire, reader, backlog)
    _leave_abandoned_handlers(0)
    return 0


def _leave_abandoned_handlers(code: int) -> None:
    """Exit now if handler threads abandoned at shutdown are still running.

    Worker threads are not daemons, so a normal interpreter exit would wait for a
    stuck handler forever.  Idle workers end by themselves within moments; anything
    still alive after a short wait is abandoned work, and since the protocol is
    finished the process leaves without it.
    """
    busy = running_handlers()
    if busy:
        logger.warning("exiting with %d tool call(s) still running in worker threads", busy)
    deadline = time.monotonic() + 0.5
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
    if busy or any(t.is_alive() and not t.daemon and t is not threading.main_thread() for t in threading.enumerate()):
        logging.shutdown()
        sys.stderr.flush()
        os._exit(code)


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


class ScreenedPosts:
    """ASGI wrapper: each POST to one of ``paths`` is screened before ``app`` sees it.

    The SDK's Host/Origin/Content-Type check runs first (a refused caller learns
    nothing more); then the body is read up to ``MAX_MESSAGE_BYTES`` (a larger
    one, declared or streamed, gets ``413``) and screened.  A malformed message is
    answered ``400`` with its JSON-RPC error as an ``application/json`` body; a
    notification nobody can use gets ``202``; anything else reaches ``app`` with the
    body replayed.

    Every HTTP request (POST or not) is served as an exchange of :attr:`exchanges`,
    whose :meth:`~markmcp.mcpcore.exchanges.Exchanges.stop` ends them all at shutdown.
    """

    def __init__(self, app: Any, paths: tuple[str, ...], security: Any) -> None:
        from mcp.server.transport_security import TransportSecurityMiddleware

        self.app = app
        self.paths = paths
        self.security = TransportSecurityMiddleware(security)
        self.exchanges = Exchanges()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        exchange = self.exchanges.enter(scope, send)
        try:
            with exchange.cut:
                await self.serve(scope, receive, exchange)
            await exchange.finish()
        finally:
            self.exchanges.leave(exchange)

    async def serve(self, scope: Any, receive: Any, exchange: Exchange) -> None:
        """Serve one HTTP request, answering through ``exchange``."""
        send = exchange.send
        if scope["method"] != "POST" or scope["path"] not in self.paths:
            if not self.exchanges.why:  # after the stop, the exchange answers for itself
                exchange.delivered = True
                await self.app(scope, receive, send)
            return
        from starlette.requests import Request

        refusal = await self.security.validate_request(Request(scope, receive), is_post=True)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        body = await self.read_body(scope, receive)
        if body is None:
            await self.answer(send, 413, wire.too_large(None))
            return
        verdict = wire.screen(body)
        if verdict.error is not None:
            await self.answer(send, 400, verdict.error)
            return
        if verdict.message is None:
            await self.answer(send, 202, None)
            return
        if verdict.rewritten:
            body = wire.encode(verdict.message)
        if isinstance(verdict.message, JSONRPCRequest):
            exchange.owe(verdict.message.id)
        if self.exchanges.why:
            return
        exchange.delivered = True
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    async def read_body(scope: Any, receive: Any) -> bytes | None:
        """The request body, or None when it is over the size limit (declared or streamed)."""
        limit = MAX_MESSAGE_BYTES
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    if int(value) > limit:
                        return None
                except ValueError:
                    pass
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    @staticmethod
    async def answer(send: Any, status: int, message: Any) -> None:
        body = wire.encode(message) if message is not None else b""
        headers = [(b"content-length", str(len(body)).encode())]
        if body:
            headers.append((b"content-type", b"application/json"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def http_app(server: Server[Any], host: str) -> Any:
    """The streamable HTTP app: the SDK's session manager at ``/mcp``, its POSTs screened."""
    security = security_settings(host)
    app = server.streamable_http_app(
        streamable_http_path="/mcp", transport_security=security, max_request_body_size=MAX_MESSAGE_BYTES
    )
    return ScreenedPosts(app, ("/mcp",), security)


def sse_app(server: Server[Any], host: str) -> Any:
    """The SSE app: ``GET /sse`` opens a session, ``POST /messages/?session_id=...`` feeds it."""
    from mcp.server.sse import SseServerTransport
    from starlette.applications import Starlette
    from starlette.routing import Mount, Route

    security = security_settings(host)
    transport = SseServerTransport(
        "/messages/", security_settings=security, max_request_body_size=MAX_MESSAGE_BYTES
    )
    init_options = server.create_initialization_options()

    class Connect:
        """ASGI endpoint (not a request/response function): one server loop per client."""

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            try:
                async with transport.connect_sse(scope, receive, send) as (read_stream, write_stream):
                    await server.run(read_stream, write_stream, init_options)
            except ValueError as error:  # refused by the Host/Origin check; the 4xx is already sent
                logger.info("SSE connection refused: %s", error)

    app = Starlette(
        routes=[
            Route("/sse", endpoint=Connect(), methods=["GET"]),
            Mount("/messages/", app=transport.handle_post_message),
        ]
    )
    return ScreenedPosts(app, ("/messages/", "/messages"), security)


def serve_http(server: Server[Any], settings: Settings, prog: str, sock: socket.socket) -> int:
    """Serve streamable HTTP or SSE with uvicorn on the listening ``sock`` until SIGINT/SIGTERM;
    return the exit code (the caller closes ``sock``)."""
    import uvicorn

    app = http_app(server, settings.host) if settings.transport == "http" else sse_app(server, settings.host)

    class QuietServer(uvicorn.Server):
        """uvicorn ending the exchanges in flight at the first SIGINT/SIGTERM (their requests
        answered with an error), without re-raising the signal after shutdown (that would end
        in 130/143).  A second signal changes nothing: the stop is bounded already, and
        uvicorn's forced exit would skip the app's shutdown and log a traceback for it."""

        def handle_exit(self, sig: int, frame: Any) -> None:
            app.exchanges.stop(f"the server is stopping ({signal.Signals(sig).name})")
            self.should_exit = True

        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

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
    QuietServer(config).run(sockets=[sock])
    return 0
