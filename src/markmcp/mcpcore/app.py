"""Running a markmcp server: ``serve(spec)`` parses the command line and starts a transport.

A server module builds one :class:`ServerSpec` (``markmcp.mcpcore.spec``) and calls
``serve(spec)`` from its ``main``.  This module sits on top of the layer and stays cheap to
import: over stdio the SDK is imported in the background while ``initialize`` is answered
(``markmcp.mcpcore.early``); for HTTP and SSE it (with uvicorn and starlette) is imported
after the command line was parsed and the port opened.  So nothing a user can get wrong on
the command line (an unknown option, a bad value, a missing ``--root`` or ``--cwd`` folder,
a port in use, a host that does not resolve) waits for the SDK's import (~1 s) to be told.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from markmcp import cmdline
from markmcp.mcpcore import early
from markmcp.mcpcore.spec import (  # noqa: F401  (the declarations, re-exported for servers and tests)
    TRANSPORTS,
    CallContext,
    Prompt,
    PromptArgument,
    Resource,
    ResourceTemplate,
    ServerSpec,
    Settings,
    Tool,
    ToolError,
    build_parser,
    import_preloads,
    parse_settings,
)

if TYPE_CHECKING:
    import socket


def serve(spec: ServerSpec, argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, run the server until it is told to stop, return the exit code.

    Options: ``--transport stdio|http|sse``, ``--host``, ``--port``, ``--root DIR``
    (repeatable), ``--trust-client-roots``, ``--allow-write``, ``--cwd DIR``, ``--log-level``, plus those of
    ``spec.add_arguments``.  Returns 0 after a clean shutdown (stdin EOF on stdio,
    SIGINT or SIGTERM), 2 after a usage error (printed on stderr before any
    transport starts, nothing on stdout).
    """
    settings = cmdline.parse(lambda words: parse_settings(spec, words), argv)
    if isinstance(settings, int):  # --help, --version or a usage error, already told
        return settings
    # Until a transport installs its own handling, SIGTERM means "stop now, quietly".
    previous = signal.signal(signal.SIGTERM, _exit_quietly)
    try:
        if settings.transport == "stdio":
            # the SDK (and logging, set up before it) loads while initialize is answered
            return early.serve_stdio(spec, lambda: _load_stdio(spec, settings))
        try:  # before the SDK is imported: a port in use or an unknown host is told at once
            sock = listen(settings.host, settings.port)
        except OSError as error:
            print(f"{spec.prog or spec.name}: cannot listen on {settings.host}:{settings.port}: "
                  f"{error.strerror or error}", file=sys.stderr)
            return 1
        with sock:
            _configure_logging(settings.log_level)
            from markmcp.mcpcore import transports  # the SDK is imported only from here on

            import_preloads(spec)  # the engine, before the first request rather than during it
            return transports.run(spec, settings, sock)
    except KeyboardInterrupt:  # SIGINT outside the transports' own handling
        return 0
    except SystemExit as stop:  # SIGTERM before/after the transport ran, or uvicorn giving up
        return stop.code if isinstance(stop.code, int) else 0
    finally:
        signal.signal(signal.SIGTERM, previous)


def _load_stdio(spec: ServerSpec, settings: Settings) -> early.Session:
    """What ``early.serve_stdio`` runs in the background while ``initialize`` is answered:
    logging set up (nothing logs before, and the reply does not need the logging module), the
    SDK imported and the server built on it, then the engine imported so that the first tool
    call does not wait for it.  Returns the session that serves the client from then on."""
    _configure_logging(settings.log_level)
    from markmcp.mcpcore import transports  # the SDK, anyio, pydantic and the handlers

    server = transports.build_server(spec, settings)
    import_preloads(spec)
    return lambda wire, reader, backlog: transports.run_stdio(server, wire, reader, backlog)


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: a free one); OSError when the port is
    taken or the host does not resolve.  Connections made before the server is ready wait in
    the backlog."""
    import socket  # here: a stdio server does not need it on the way to its initialize reply

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


def _exit_quietly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _configure_logging(level: str) -> None:
    """Send all logging to stderr (stdout belongs to the protocol) at ``level``.

    ``markmcp.*`` loggers pass every record on (the stderr handler filters by
    level), so a client that asks for ``logging/setLevel debug`` gets the debug
    records of tool handlers even when stderr shows only warnings.
    """
    import logging  # here, not at the top: over stdio this runs after the initialize reply

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(name)s: %(levelname)s: %(message)s"))
    handler.setLevel(level.upper())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("markmcp").setLevel(logging.DEBUG)
