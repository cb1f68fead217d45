"""Screening every incoming JSON-RPC message before the SDK sees it, on every transport.

The SDK's message model is lenient where a hostile or broken client needs a clear
answer: a request whose ``id`` is an object or ``1.5`` parses as a *notification* (the
``id`` is dropped as an unknown field), so it is never answered; other malformed
messages get a bare "Invalid request" that does not say what is wrong.  :func:`screen`
gives each message one verdict: deliver it (a :data:`JSONRPCMessage`), answer it with an
error (a :class:`JSONRPCError`), or drop it (a notification MCP cannot use).

JSON-RPC 2.0 rules applied, with the MCP restrictions on top:

* not JSON (or not UTF-8, or nested deeper than the parser's limit) -> ``-32700``;
* JSON but for a string escape of a lone surrogate (``"\\ud800"``: no character) ->
  ``-32602`` naming the parameter, with the request's id (see :func:`_lone_surrogate_verdict`);
* not one JSON object (a batch array, a string, a number) -> ``-32600``; MCP removed
  JSON-RPC batching in 2025-06-18, so a batch is refused as a whole;
* an ``id`` that is not a string or an integer (object, array, boolean, ``null``, a
  number written with a fraction or exponent) -> ``-32600`` with ``id: null``, since the
  id cannot be trusted to answer with;
* ``jsonrpc`` other than ``"2.0"``, a ``method`` that is not a string, ``params`` that is
  a string or a number -> ``-32600``; ``params`` that is an array (valid JSON-RPC, but MCP
  takes named parameters only) -> ``-32602``; these answers carry the request's id when
  that id is valid;
* a message larger than :data:`MAX_MESSAGE_BYTES` -> ``-32600`` without being parsed.

Error messages start with JSON-RPC's name for the code and then say what is wrong and
where, e.g. ``Invalid Request: 'id' must be a string or an integer, got object``.

Outgoing messages pass :func:`encode`.  Text on the wire must be Unicode, and a Python
string may hold a lone surrogate that no UTF-8 can carry (a file-name byte that is not
UTF-8, kept as ``\\udcff``; a ``\\ud800`` escape decoded from a JSON or YAML file).  The
layer escapes such text where it builds results, but should one still reach the wire, a
response becomes a ``-32603`` error for its id naming where the character was, and any
other message is sent with the character written as the escape ``\\udXXX``; the session
goes on either way.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import mcp_types as types
import pydantic_core
from pydantic import ValidationError

from markmcp.mcpcore.args import json_type
from markmcp.mcpcore.lines import MAX_MESSAGE_BYTES
from markmcp.textsafe import (
    SURROGATE_ESCAPE,
    escape_controls,
    escape_surrogates,
    lone_surrogate,
    lone_surrogate_escapes,
    surrogate_name,
)

logger = logging.getLogger("markmcp.mcpcore")

SHOWN_VALUE_CHARS = 40
"""Values quoted in error messages are cut to this many characters."""



@dataclass(frozen=True)
class Verdict:
    """What to do with one incoming message: deliver ``message``, or answer ``error``.

    Both None: drop it quietly (a notification whose parameters MCP cannot use;
    notifications are never answered).
    """

    message: types.JSONRPCMessage | None = None
    error: types.JSONRPCError | None = None
    rewritten: bool = False
    """``message`` is not what the client sent (a response of the client holding a lone
    surrogate, delivered as an error response): a transport that replays the raw bytes
    must send ``encode(message)`` instead."""


def valid_id(value: Any) -> bool:
    """Whether ``value`` may be a request id: a string or an integer (not a boolean, not 1.0)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def error(code: int, message: str, request_id: Any = None) -> types.JSONRPCError:
    """A JSON-RPC error response; ``request_id`` is used only when it is a valid id."""
    return types.JSONRPCError(
        jsonrpc="2.0",
        id=request_id if valid_id(request_id) else None,
        error=types.ErrorData(code=code, message=message),
    )


def encode(message: types.JSONRPCMessage) -> bytes:
    """The wire form of a message: compact JSON, without a line end.

    A message holding a lone surrogate is never sent as it is (no UTF-8 can carry it, and
    failing here would end the session): a response becomes an ``Internal error`` for its
    id naming where the character was; an error, a notification or a request of the
    server is sent with each such character written as its escape (``\\udcff``).
    """
    try:
        return message.model_dump_json(by_alias=True, exclude_unset=True).encode()
    except (pydantic_core.PydanticSerializationError, UnicodeEncodeError):
        data = message.model_dump(by_alias=True, exclude_unset=True)  # (JSON mode fails on such a key)
        found = lone_surrogate(data)
        if found is None:
            raise
    where, char = found
    if isinstance(message, types.JSONRPCResponse):
        logger.error("the result for id %s holds %s at %s; answered with an error instead",
                     encode_id(message.id), surrogate_name(char), where)
        return encode(error(types.INTERNAL_ERROR, unsendable_message(where, char), message.id))
    logger.warning("a message to the client held %s at %s; sent escaped", surrogate_name(char), where)
    return pydantic_core.to_json(escape_surrogates(data))


def unsendable_message(where: str, char: str, what: str = "the result") -> str:
    """The error message of a result that cannot be sent because ``where`` holds ``char``."""
    return (
        f"Internal error: {what} could not be sent: {where} holds {surrogate_name(char)}, "
        "which is not a character (no UTF-8 text can carry it)"
    )


def encode_id(request_id: Any) -> str:
    """A request id as JSON text for messages (long ones cut)."""
    return _shown(request_id)


def unanswered(request_id: Any, why: str) -> types.JSONRPCError:
    """The answer to a request the server stops before finishing: it was cancelled, and why.

    Every transport sends it for each request still unanswered when its connection or the
    server ends (``why``: e.g. "the server is stopping (SIGTERM)"), so none goes unanswered.
    """
    error = types.ErrorData(code=types.CONNECTION_CLOSED, message=f"Connection closed: {why}; the request was cancelled")
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def too_large(size: int | None) -> types.JSONRPCError:
    """The answer to a message over :data:`MAX_MESSAGE_BYTES` (``size`` None: not measured)."""
    amount = f" ({size} bytes)" if size is not None else ""
    return error(
        types.INVALID_REQUEST,
        f"Invalid Request: the message{amount} is over the {MAX_MESSAGE_BYTES}-byte limit; it was discarded unread",
    )


def _shown(value: Any) -> str:
    """A short rendering of a scalar for messages (an object or array is named by its type)."""
    if isinstance(value, (dict, list)):
        return f"an {json_type(value)}"
    if isinstance(value, str):
        value = value[:SHOWN_VALUE_CHARS]
    text = pydantic_core.to_json(value).decode()
    return text if len(text) <= SHOWN_VALUE_CHARS else text[: SHOWN_VALUE_CHARS - 1] + "…"


def _bad_id(value: Any) -> str:
    if isinstance(value, float):
        return f"'id' must be a string or an integer, got a number with a fraction or exponent ({_shown(value)})"
    if value is None:
        return "'id' must be a string or an integer, got null (MCP request ids are never null)"
    return f"'id' must be a string or an integer, got {json_type(value)}"


def _parse(data: bytes | str) -> Any:
    """The decoded JSON of ``data``; ValueError naming the problem and where it is."""
    if isinstance(data, bytes):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as problem:
            raise ValueError(
                f"the message is not UTF-8 text (byte 0x{data[problem.start]:02x} at offset {problem.start})"
            ) from None
    # No NaN/Infinity (not JSON); nesting deeper than the parser's recursion limit (a few
    # hundred levels) is refused there, so a deep document cannot exhaust the stack.
    return pydantic_core.from_json(data, allow_inf_nan=False)


def screen(data: bytes | str) -> Verdict:
    """The verdict on one incoming message (the bytes of a line or a POST body)."""
    if len(data) > MAX_MESSAGE_BYTES:
        return Verdict(error=too_large(len(data)))
    try:
        value = _parse(data)
    except ValueError as problem:
        return _lone_surrogate_verdict(data) or Verdict(error=error(types.PARSE_ERROR, f"Parse error: {problem}"))
    return screen_value(value)


def _lone_surrogate_verdict(data: bytes | str) -> Verdict | None:
    """The verdict on a message that would be well-formed JSON but for escapes of lone
    surrogates (``"\\ud800"``, which JavaScript's ``JSON.stringify`` writes for broken text);
    None when there is no such escape (the parse error stands), the parse error of the rest
    when it is malformed anyway.

    Such a string is no text, so the message cannot be used; but its id can be trusted, so
    a request is answered with its id: ``-32602`` naming the parameter (``-32600`` when the
    method holds it).  An id holding one is ``-32600`` with id null; a notification is
    dropped; a client's response becomes an error response for the server's request."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        return None
    if SURROGATE_ESCAPE.search(text) is None:
        return None
    lone = [(offset, code) for offset, code in lone_surrogate_escapes(text) if text[offset + 1] == "u"]
    if not lone:
        return None
    pieces, start = [], 0
    for offset, _ in lone:  # the same length, so offsets and columns stay
        pieces += [text[start:offset], "\\ufffd"]
        start = offset + 6
    try:
        clean = pydantic_core.from_json("".join(pieces) + text[start:], allow_inf_nan=False)
    except ValueError as problem:  # malformed anyway: say where, not "unexpected end of hex escape"
        return Verdict(error=error(types.PARSE_ERROR, f"Parse error: {problem}"))
    try:
        original = json.loads(text)
    except (ValueError, RecursionError):
        return None
    found = lone_surrogate(original)
    if not isinstance(clean, dict) or not isinstance(original, dict) or found is None:
        return screen_value(clean)
    where, char = found
    column = next((offset for offset, code in lone if code == ord(char)), lone[0][0]) + 1
    key = where.startswith("the key ")
    path = where.removeprefix("the key ")
    problem = (f"{surrogate_name(char)} (column {column}), which is not a character (an escape of "
               "U+D800-U+DFFF is half of a UTF-16 pair; send text as Unicode characters)")
    if path == "id" and not key:
        return Verdict(error=error(types.INVALID_REQUEST, f"Invalid Request: 'id' holds {problem}"))
    verdict = screen_value(clean)
    if verdict.error is not None or verdict.message is None:
        return verdict
    message = verdict.message
    named = f"{'the key ' if key else ''}'{_cut(path.removeprefix('params.'))}'"
    if isinstance(message, types.JSONRPCRequest):
        if path.startswith("params."):
            return Verdict(error=error(
                types.INVALID_PARAMS, f"Invalid params for '{_cut(message.method)}': {named} holds {problem}", message.id
            ))
        return Verdict(error=error(types.INVALID_REQUEST, f"Invalid Request: {named} holds {problem}", message.id))
    if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)) and message.id is not None:
        logger.warning("the client's response to %s holds %s; taken as an error", encode_id(message.id), surrogate_name(char))
        return Verdict(
            message=error(types.INVALID_PARAMS, f"Invalid response: {named} holds {problem}", message.id),
            rewritten=True,
        )
    logger.warning("dropped a notification holding %s at %s", surrogate_name(char), path)
    return Verdict()


def screen_value(value: Any) -> Verdict:
    """The verdict on one decoded message (see :func:`screen`)."""
    invalid = types.INVALID_REQUEST
    if isinstance(value, list):
        return Verdict(error=error(
            invalid, "Invalid Request: batch arrays are not supported (MCP removed JSON-RPC batching); "
            "send each message as one JSON object",
        ))
    if not isinstance(value, dict):
        return Verdict(error=error(
            invalid, f"Invalid Request: a message must be a JSON object, got {json_type(value)}"
        ))
    has_id = "id" in value
    request_id = value.get("id")
    is_error_reply = "method" not in value and "error" in value
    if has_id and not valid_id(request_id) and not (request_id is None and is_error_reply):
        return Verdict(error=error(invalid, f"Invalid Request: {_bad_id(request_id)}"))
    if value.get("jsonrpc") != "2.0":
        if "jsonrpc" not in value:
            problem = "'jsonrpc' is missing; it must be \"2.0\""
        else:
            problem = f"'jsonrpc' must be \"2.0\", got {_shown(value['jsonrpc'])}"
        return Verdict(error=error(invalid, f"Invalid Request: {problem}", request_id))
    if "method" in value:
        return _screen_call(value, has_id, request_id)
    return _screen_reply(value, has_id)


def _screen_call(value: dict[str, Any], has_id: bool, request_id: Any) -> Verdict:
    """A request (with ``id``) or a notification (without)."""
    invalid = types.INVALID_REQUEST
    method = value["method"]
    for key in ("result", "error"):
        if key in value:
            return Verdict(error=error(
                invalid, f"Invalid Request: a message cannot have both 'method' and '{key}'", request_id
            ))
    if not isinstance(method, str):
        return Verdict(error=error(
            invalid, f"Invalid Request: 'method' must be a string, got {json_type(method)}", request_id
        ))
    params = value.get("params")
    if params is not None and not isinstance(params, dict):
        if not isinstance(params, list):
            return Verdict(error=error(
                invalid, f"Invalid Request: 'params' must be an object, got {json_type(params)}", request_id
            ))
        if not has_id:
            return Verdict()  # a notification with positional params: valid JSON-RPC, nothing MCP can use
        return Verdict(error=error(
            types.INVALID_PARAMS,
            f"Invalid params for '{_cut(method)}': 'params' must be an object (MCP takes named parameters), got array",
            request_id,
        ))
    return _validated(value, request_id if has_id else None)


def _screen_reply(value: dict[str, Any], has_id: bool) -> Verdict:
    """A response (``result``) or an error response (``error``) from the client."""
    invalid = types.INVALID_REQUEST
    if "result" in value and "error" in value:
        return Verdict(error=error(invalid, "Invalid Request: a response cannot have both 'result' and 'error'"))
    if "result" not in value and "error" not in value:
        return Verdict(error=error(
            invalid, "Invalid Request: not a request, notification or response (no 'method', 'result' or 'error')",
        ))
    if not has_id:
        return Verdict(error=error(invalid, "Invalid Request: a response must have an 'id'"))
    if "result" in value and not isinstance(value["result"], dict):
        return Verdict(error=error(
            invalid, f"Invalid Request: 'result' must be an object, got {json_type(value['result'])}"
        ))
    if "error" in value:
        problem = _error_object_problem(value["error"])
        if problem:
            return Verdict(error=error(invalid, f"Invalid Request: {problem}"))
    return _validated(value, None)


def _error_object_problem(data: Any) -> str:
    if not isinstance(data, dict):
        return f"'error' must be an object, got {json_type(data)}"
    code = data.get("code")
    if not (isinstance(code, int) and not isinstance(code, bool)):
        return f"'error.code' must be an integer, got {json_type(code) if 'code' in data else 'nothing'}"
    if not isinstance(data.get("message"), str):
        return f"'error.message' must be a string, got {json_type(data.get('message')) if 'message' in data else 'nothing'}"
    return ""


def _validated(value: dict[str, Any], request_id: Any) -> Verdict:
    """The SDK's model of a message that passed the checks above."""
    try:
        return Verdict(message=types.jsonrpc_message_adapter.validate_python(value, by_name=False))
    except ValidationError as problem:  # the checks above should leave nothing for this
        first = problem.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or "message"
        return Verdict(error=error(types.INVALID_REQUEST, f"Invalid Request: {where}: {first['msg']}", request_id))


def _cut(text: str) -> str:
    """A client-given name for a message: control characters escaped, long names cut."""
    shown = escape_controls(text[: SHOWN_VALUE_CHARS * 2])
    return shown if len(shown) <= SHOWN_VALUE_CHARS else shown[: SHOWN_VALUE_CHARS - 1] + "…"
