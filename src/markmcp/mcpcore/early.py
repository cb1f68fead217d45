"""Start-up over stdio: answer ``initialize`` while the MCP SDK is still being imported.

Importing the SDK (``mcp``, ``mcp_types``, pydantic, anyio) costs far more than the rest of
a server's start (0.5-0.8 s against a few tens of milliseconds), and a client waits for the
``initialize`` reply before it does anything.  So :func:`serve_stdio` claims stdin/stdout,
starts the line reader (``markmcp.mcpcore.lines``) and imports the SDK in a background thread
(with the loader ``app`` passes in, which then imports the server's engine, ``ServerSpec.preload``,
so that the first tool call does not wait for it); meanwhile the main thread answers the first line itself when it is an ``initialize`` request of the ordinary shape.
When the SDK is ready, the session is handed over to it (``markmcp.mcpcore.stdio``):

* the early-answered ``initialize`` is replayed to the SDK's server loop first, so the SDK
  holds exactly the state it would hold had it answered (client capabilities, protocol
  version, the initialized gate); its own reply is compared with ours and not sent again;
* every line read meanwhile (``notifications/initialized``, ``tools/list``, garbage, stdin
  EOF) follows in the order it arrived, and only then does the reader deliver to the loop.

Only an ``initialize`` request this module can judge completely is answered early: the
first line, strict UTF-8, plain JSON (no duplicate keys, no fractions, NaN or exponents),
``jsonrpc`` "2.0", an integer or string id, and parameters made only of the fields and
shapes the SDK validates (``protocolVersion``, ``capabilities`` with the known
capability objects, ``clientInfo`` with string fields).  Anything else waits for the SDK,
which answers it as it always did.  The reply is the SDK's (same protocol version
negotiation, capabilities, ``serverInfo`` and instructions); the tests compare the two.

Once that ``initialize`` is answered and the client's ``notifications/initialized`` follows
it, ``tools/list``, ``prompts/list``, ``resources/list`` and ``resources/templates/list`` are
answered early too, when plain (no parameters, or ``{}``) and under an id no other request
read so far carries: their results are fixed by the server's spec (a client lists the tools
as soon as it has connected, and waited for the SDK to load for that answer).  They are
replayed to the SDK like the ``initialize``, and its replies compared and dropped.

This module imports only the standard library (and the cheap parts of this package), so it
costs nothing on the way to the reply.
"""

from __future__ import annotations

import json
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from markmcp.mcpcore.lines import JSON_WHITESPACE, Answered, Item, LineReader, Marker, Oversized, StdioWire
from markmcp.mcpcore.args import strict_schema
from markmcp.mcpcore.spec import ServerSpec, offers_completions, offers_subscriptions

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The protocol revisions the SDK negotiates with ``initialize``, oldest first (the SDK's
``HANDSHAKE_PROTOCOL_VERSIONS``; a test keeps the two equal).  A client asking for any
other revision is offered the newest of these."""

EARLY_LINE_BYTES = 64 * 1024
"""An ``initialize`` line longer than this is left to the SDK."""

SWITCH_INTERVAL = 0.0005
"""Seconds between the interpreter's thread switches while the SDK loads: the reader and the
main thread get their turn promptly while the import thread is busy."""

STOP_GRACE = 0.1
"""Seconds a signal before the SDK was ready waits for lines still on their way from the reader."""
SIGNAL_POLL = 0.05
"""Seconds the wait for the SDK looks for a marked signal when no line comes (a line ends the wait at once)."""

_ID_LIMIT = 2**63

SDK_READY = Marker("SDK_READY")
"""Posted by the import thread among the reader's items: the server loop can take over."""


# The initialize reply ---------------------------------------------------------------------


def negotiated_version(requested: str) -> str:
    """The protocol version the server answers a client asking for ``requested`` with."""
    return requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]


def capabilities(spec: ServerSpec) -> dict[str, Any]:
    """The server capabilities the layer's handlers amount to (``handlers.Handlers.build_server``
    registers tools, resources, prompts and logging always, completion and subscriptions when
    the spec offers them: the same two functions of ``spec`` decide both)."""
    found: dict[str, Any] = {
        "logging": {},
        "prompts": {"listChanged": False},
        "resources": {"listChanged": False, "subscribe": offers_subscriptions(spec)},
        "tools": {"listChanged": False},
    }
    if offers_completions(spec):
        found["completions"] = {}
    return dict(sorted(found.items()))


def initialize_result(spec: ServerSpec, requested: str) -> dict[str, Any]:
    """The ``initialize`` result of ``spec`` for a client asking for protocol ``requested``."""
    result: dict[str, Any] = {"capabilities": capabilities(spec)}
    if spec.instructions:
        result["instructions"] = spec.instructions
    result["protocolVersion"] = negotiated_version(requested)
    result["serverInfo"] = {"name": spec.name, "version": spec.version}
    return result


# The lists ---------------------------------------------------------------------------------


LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
"""The requests answered early once ``initialize`` has been (each result is fixed by the spec)."""


def _present(pairs: dict[str, Any]) -> dict[str, Any]:
    """``pairs`` without its None members, keys in order (as the SDK writes a result)."""
    return dict(sorted((name, value) for name, value in pairs.items() if value is not None))


def list_result(spec: ServerSpec, method: str) -> dict[str, Any]:
    """The result of one of :data:`LISTS` for ``spec``: what ``handlers.Handlers`` answers."""
    if method == "tools/list":
        return {"tools": [_present({
            "name": tool.name, "title": tool.title, "description": tool.description,
            "inputSchema": strict_schema(tool.input_schema), "outputSchema": tool.output_schema,
            "annotations": _present({
                "title": tool.title, "readOnlyHint": tool.read_only, "destructiveHint": tool.destructive,
                "idempotentHint": tool.idempotent, "openWorldHint": tool.open_world,
            }),
        }) for tool in spec.tools]}
    if method == "prompts/list":
        return {"prompts": [_present({
            "name": prompt.name, "title": prompt.title or None, "description": prompt.description,
            "arguments": [_present({"name": a.name, "description": a.description, "required": a.required})
                          for a in prompt.arguments],
        }) for prompt in {p.name: p for p in spec.prompts}.values()]}
    if method == "resources/list":
        return {"resources": [_present({
            "uri": r.uri, "name": r.name, "title": r.title or None, "description": r.description,
            "mimeType": r.mime_type,
        }) for r in {r.uri: r for r in spec.resources}.values()]}
    if method == "resources/templates/list":
        return {"resourceTemplates": [_present({
            "uriTemplate": t.uri_template, "name": t.name, "description": t.description, "mimeType": t.mime_type,
        }) for t in spec.resource_templates]}
    raise ValueError(f"not a list request: {method}")


class _NotPlain(Exception):
    """The line holds something this module leaves to the SDK."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise _NotPlain("duplicate key")
    return value


def _refuse(text: str) -> Any:
    raise _NotPlain(text)


def _is_object(value: Any, fields: dict[str, Callable[[Any], bool]] | None = None) -> bool:
    """``value`` is an object whose members are all in ``fields`` and pass its check
    (``fields`` None: any members)."""
    if not isinstance(value, dict):
        return False
    if fields is None:
        return True
    return all(name in fields and fields[name](member) for name, member in value.items())


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_any_object(value: Any) -> bool:
    return isinstance(value, dict)


def _is_object_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(member, dict) for member in value.values())


_CAPABILITIES: dict[str, Callable[[Any], bool]] = {
    "experimental": _is_object_map,
    "extensions": _is_object_map,
    "roots": lambda value: _is_object(value, {"listChanged": _is_bool}),
    "sampling": lambda value: _is_object(value, {"context": _is_any_object, "tools": _is_any_object}),
    "elicitation": lambda value: _is_object(value, {"form": _is_any_object, "url": _is_any_object}),
}
_CLIENT_INFO: dict[str, Callable[[Any], bool]] = {
    "name": _is_string, "version": _is_string, "title": _is_string,
    "description": _is_string, "websiteUrl": _is_string,
}
_PARAMS: dict[str, Callable[[Any], bool]] = {
    "protocolVersion": _is_string,
    "capabilities": lambda value: _is_object(value, _CAPABILITIES),
    "clientInfo": lambda value: _is_object(value, _CLIENT_INFO) and "name" in value and "version" in value,
}


def _plain_message(line: bytes) -> dict[str, Any] | None:
    """The JSON object on ``line`` when it is plain (see the module docstring), else None."""
    if len(line) > EARLY_LINE_BYTES:
        return None
    try:
        text = line.decode("utf-8")
        message = json.loads(
            text, object_pairs_hook=_no_duplicates, parse_float=_refuse, parse_constant=_refuse
        )
        text.encode("utf-8")  # (decoded, so no surrogates can hide in it; escapes are checked below)
        json.dumps(message, ensure_ascii=False).encode("utf-8")  # a "\ud800" escape cannot be encoded
    except (ValueError, _NotPlain, RecursionError):
        return None
    if not _is_object(message) or message.get("jsonrpc") != "2.0":
        return None
    return message


def _plain_id(message: dict[str, Any]) -> int | str | None:
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
        return None
    if isinstance(request_id, int) and not -_ID_LIMIT < request_id < _ID_LIMIT:
        return None
    return request_id


def plain_list(line: bytes) -> tuple[int | str, str] | None:
    """The id and method of one of :data:`LISTS` of the plainest shape (no parameters, or
    ``{}``), which this module may answer itself; None leaves the line to the SDK."""
    message = _plain_message(line)
    if message is None or set(message) - {"params"} != {"jsonrpc", "id", "method"}:
        return None
    request_id = _plain_id(message)
    if request_id is None or message["method"] not in LISTS or message.get("params", {}) != {}:
        return None
    return request_id, message["method"]


def plain_initialized(line: bytes) -> bool:
    """Whether ``line`` is the client's ``notifications/initialized`` of the plainest shape."""
    message = _plain_message(line)
    return (message is not None and set(message) - {"params"} == {"jsonrpc", "method"}
            and message["method"] == "notifications/initialized" and message.get("params", {}) == {})


def plain_initialize(line: bytes) -> tuple[int | str, str] | None:
    """The id and requested protocol version of an ``initialize`` request this module may
    answer itself; None leaves the line to the SDK (see the module docstring)."""
    message = _plain_message(line)
    if message is None or set(message) != {"jsonrpc", "id", "method", "params"}:
        return None
    request_id = _plain_id(message)
    if request_id is None or message["method"] != "initialize":
        return None
    params = message["params"]
    if not _is_object(params, _PARAMS) or not {"protocolVersion", "capabilities", "clientInfo"} <= set(params):
        return None
    return request_id, params["protocolVersion"]


def response_line(request_id: int | str, result: dict[str, Any]) -> bytes:
    """The wire form of a response: compact JSON on one line, text kept as UTF-8."""
    message = {"jsonrpc": "2.0", "id": request_id, "result": result}
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


# Serving ----------------------------------------------------------------------------------


Session = Callable[[StdioWire, LineReader, list[Item]], int]
"""Serves the stdio client once the SDK is loaded: the wire, the reader and the backlog of
items read (and the ``initialize`` answered) meanwhile; returns the exit code."""


def serve_stdio(spec: ServerSpec, load: Callable[[], Session]) -> int:
    """Serve ``spec`` over stdin/stdout, answering ``initialize`` before the SDK is loaded.

    ``load`` runs in a background thread while the reply is sent: it imports the SDK (``app``
    gives one that also sets up logging, builds the server and imports the engine) and returns
    the session that serves the client from then on.  Returns the exit code (0 after stdin
    EOF, SIGINT or SIGTERM).
    """
    wire = StdioWire.claim()
    reader = LineReader(wire.reader)
    loaded: dict[str, Any] = {}

    def load_in_background() -> None:
        try:
            loaded["session"] = load()
        except BaseException as error:  # handed to the main thread, which raises it
            loaded["error"] = error
        reader.post(SDK_READY)

    # A signal before the SDK is ready only marks the stop; the loop below sees the mark
    # between items, so a line it has taken is always in the backlog (an exception raised
    # by the signal between taking a line and keeping it would lose that request).
    signals: list[str] = []

    def mark(signum: int, frame: Any) -> None:
        signals.append(signal.Signals(signum).name)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    previous = {sig: signal.signal(sig, mark) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        reader.start()
        threading.Thread(target=load_in_background, name="mcp-sdk-import", daemon=True).start()
        backlog: list[Item] = []
        wait_for_sdk(spec, reader, wire, backlog, signals)
        if signals:  # SIGINT or SIGTERM before the SDK was ready
            take_the_rest(reader, backlog)
            cancel_requests(backlog, wire, f"the server is stopping ({signals[0]})")
            if signals[0] == "SIGINT":
                raise KeyboardInterrupt
            raise SystemExit(0)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sys.setswitchinterval(interval)
    if "error" in loaded:
        raise loaded["error"]
    return loaded["session"](wire, reader, backlog)


def wait_for_sdk(spec: ServerSpec, reader: LineReader, wire: StdioWire, backlog: list[Item],
                 signals: list[str] | None = None) -> None:
    """Take the reader's items until the SDK is ready (or a signal is marked in ``signals``),
    answering a first plain ``initialize``.

    Fills ``backlog`` with the items to replay to the server loop, in order (blank lines dropped).
    """
    ids: set[str] = set()   # the request ids read so far ("7" and 7 alike, as the SDK has them)
    unread: list[bytes] = []   # lines whose ids are not in ``ids`` yet: parsed only when a list
    # asks (a large tools/call sent while the SDK loads is not parsed here for nothing)
    ready = False   # initialize answered here, and the client's notifications/initialized read
    while not signals:
        try:
            item = reader.items.get(timeout=SIGNAL_POLL)
        except queue.Empty:
            continue
        if item is SDK_READY:
            return
        if isinstance(item, bytes):
            line = item.strip(JSON_WHITESPACE)
            if not line:
                continue
            answer: tuple[int | str, dict[str, Any]] | None = None
            if not backlog:
                found = plain_initialize(line)
                if found is not None:
                    answer = found[0], initialize_result(spec, found[1])
            elif ready:
                listed = plain_list(line)
                if listed is not None:
                    for pending in unread:
                        ids.update(_request_ids(pending))
                    unread.clear()
                    if str(listed[0]) not in ids:
                        answer = listed[0], list_result(spec, listed[1])
            elif isinstance(backlog[0], Answered) and len(backlog) == 1 and plain_initialized(line):
                ready = True
            if answer is not None:
                request_id, result = answer
                try:
                    wire.writer.write(response_line(request_id, result))
                    wire.writer.flush()
                except (OSError, ValueError):
                    pass  # nobody reads stdout: the session finds out when it writes
                ids.add(str(request_id))
                backlog.append(Answered(item, request_id, result))
                continue
            unread.append(line)
        backlog.append(item)


def _request_ids(line: bytes) -> list[str]:
    """The id of the request (or of each in a batch) on ``line``, as the set of ids read so
    far keeps them; nothing for what does not parse."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return []
    found = []
    for member in message if isinstance(message, list) else [message]:
        if isinstance(member, dict) and "id" in member and not isinstance(member["id"], (dict, list)):
            found.append(str(member["id"]))
    return found


def take_the_rest(reader: LineReader, backlog: list[Item]) -> None:
    """Add to ``backlog`` what the reader delivers within ``STOP_GRACE`` (lines already sent
    when a signal came may still be on their way through the reader thread)."""
    deadline = time.monotonic() + STOP_GRACE
    while (left := deadline - time.monotonic()) > 0:
        try:
            item = reader.items.get(timeout=left)
        except queue.Empty:
            break
        if isinstance(item, bytes) or isinstance(item, Oversized):
            backlog.append(item)


def cancel_requests(backlog: list[Item], wire: StdioWire, why: str) -> None:
    """The server stops before the SDK was ready: answer each request read so far with a
    "connection closed" error (the SDK's code, -32000), so none is left without an answer."""
    for item in backlog:
        if not isinstance(item, bytes):
            continue
        try:
            message = json.loads(item)
        except (ValueError, RecursionError):
            continue
        if not isinstance(message, dict) or not isinstance(message.get("method"), str) or "id" not in message:
            continue
        request_id = message["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
            continue
        error = {"code": -32000, "message": f"Connection closed: {why}; the request was cancelled"}
        try:
            wire.writer.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode() + b"\n")
            wire.writer.flush()
        except (OSError, ValueError):
            return
