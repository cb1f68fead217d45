"""A hostile client on the wire: malformed JSON-RPC gets one clear answer and the session goes on.

Over a real stdio subprocess (the mcpcore demo server) and over HTTP and SSE.  After each
bad message a ``ping`` must still be answered: nothing a client sends ends the session.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

import pytest

from markmcp.mcpcore import wire
from mcp_types import JSONRPCError
from mcpwire import PROTOCOL, HttpClient, SseClient, StdioClient, demo_client, demo_http, module_command

INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
PARSE_ERROR = -32700


@pytest.fixture(scope="module")
def stdio() -> Any:
    """One demo server for the whole module, initialized; every test leaves it serving."""
    with demo_client() as client:
        client.initialize()
        yield client
        assert client.proc.poll() is None, "the server died"


def answer_to(client: StdioClient, line: str | bytes) -> list[dict[str, Any]]:
    """Send one raw line, then a ping; return every message that came before the ping's answer."""
    raw = line if isinstance(line, bytes) else line.encode()
    assert client.proc.stdin is not None
    client.proc.stdin.write(raw + b"\n")
    client.proc.stdin.flush()
    ping = client.request("ping")
    seen = []
    while True:
        message = client.receive()
        assert message is not None, "the server closed stdout"
        if message.get("id") == ping and "result" in message:
            return seen
        seen.append(message)


def one_error(messages: list[dict[str, Any]], code: int, request_id: Any = None) -> str:
    assert len(messages) == 1, messages
    (message,) = messages
    assert message["jsonrpc"] == "2.0" and message["id"] == request_id, message
    assert message["error"]["code"] == code, message
    return message["error"]["message"]


# --- ids ---------------------------------------------------------------------------------------

BAD_IDS = [
    ('{"a": 1}', "got object"),
    ("1.5", "got a number with a fraction or exponent (1.5)"),
    ("1.0", "fraction or exponent"),
    ("1e3", "fraction or exponent"),
    ("true", "got boolean"),
    ("null", "got null"),
    ("[1]", "got array"),
]


@pytest.mark.parametrize(("raw_id", "said"), BAD_IDS)
def test_an_invalid_id_is_answered_with_id_null(stdio: StdioClient, raw_id: str, said: str) -> None:
    message = one_error(answer_to(stdio, f'{{"jsonrpc": "2.0", "id": {raw_id}, "method": "ping"}}'), INVALID_REQUEST)
    assert message.startswith("Invalid Request: 'id' must be a string or an integer") and said in message


def test_string_and_big_integer_ids_are_answered_verbatim(stdio: StdioClient) -> None:
    for raw_id, expected in (('"a-string-id"', "a-string-id"), ("123456789012345678901234567890", 123456789012345678901234567890)):
        assert answer_to(stdio, f'{{"jsonrpc": "2.0", "id": {raw_id}, "method": "ping"}}') == [
            {"jsonrpc": "2.0", "id": expected, "result": {}}
        ]


# --- the envelope --------------------------------------------------------------------------------

MALFORMED = [
    ('[{"jsonrpc": "2.0", "id": 2, "method": "ping"}]', INVALID_REQUEST, None, "batch arrays are not supported"),
    ("[]", INVALID_REQUEST, None, "batch arrays are not supported"),
    ('{"jsonrpc": "1.0", "id": 3, "method": "ping"}', INVALID_REQUEST, 3, "'jsonrpc' must be \"2.0\", got \"1.0\""),
    ('{"id": 4, "method": "ping"}', INVALID_REQUEST, 4, "'jsonrpc' is missing"),
    ('{"jsonrpc": "2.0", "id": 5, "method": 7}', INVALID_REQUEST, 5, "'method' must be a string, got integer"),
    ('{"jsonrpc": "2.0", "method": ["x"]}', INVALID_REQUEST, None, "'method' must be a string, got array"),
    ('{"jsonrpc": "2.0", "id": 6, "method": "ping", "params": [1]}', INVALID_PARAMS, 6,
     "'params' must be an object (MCP takes named parameters), got array"),
    ('{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": "x"}', INVALID_REQUEST, 7,
     "'params' must be an object, got string"),
    ('{"jsonrpc": "2.0", "id": 8, "method": "ping", "result": {}}', INVALID_REQUEST, 8,
     "both 'method' and 'result'"),
    ('{"jsonrpc": "2.0", "result": {}}', INVALID_REQUEST, None, "a response must have an 'id'"),
    ('{"jsonrpc": "2.0", "id": 9, "error": 5}', INVALID_REQUEST, None, "'error' must be an object, got integer"),
    ('{"jsonrpc": "2.0", "id": 9}', INVALID_REQUEST, None, "no 'method', 'result' or 'error'"),
    ('"hello"', INVALID_REQUEST, None, "a message must be a JSON object, got string"),
    ("42", INVALID_REQUEST, None, "got integer"),
    ("null", INVALID_REQUEST, None, "got null"),
    ("{", PARSE_ERROR, None, "Parse error: EOF while parsing an object at line 1 column 1"),
    ('{"jsonrpc": "2.0", "id": NaN, "method": "ping"}', PARSE_ERROR, None, "Parse error: "),
    ("[" * 100_000, PARSE_ERROR, None, "recursion limit exceeded"),
    # a lone-surrogate escape (JavaScript's JSON.stringify writes one for broken text) is no
    # character; the rest of the message is sound, so it is answered with its id
    ('{"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "\\ud800"}}}',
     INVALID_PARAMS, 10, "Invalid params for 'tools/call': 'arguments.text' holds a lone surrogate \\ud800 (column 104), "
     "which is not a character"),
    ('{"jsonrpc": "2.0", "id": 11, "method": "pi\\udc00ng"}', INVALID_REQUEST, 11,
     "Invalid Request: 'method' holds a lone surrogate \\udc00 (column 43)"),
    ('{"jsonrpc": "2.0", "id": "\\ud800", "method": "ping"}', INVALID_REQUEST, None,
     "Invalid Request: 'id' holds a lone surrogate \\ud800"),
    ('{"jsonrpc": "2.0", "id": 12, "method": "ping", "params": {"\\udbff": 1}}', INVALID_PARAMS, 12,
     "the key '\\udbff' holds a lone surrogate \\udbff"),
    ('{"jsonrpc": "2.0", "id": 13, "method": "ping", "params": {"a": "\\ud800"', PARSE_ERROR, None,
     "Parse error: EOF while parsing an object"),
    ('{"a":' * 50_000, PARSE_ERROR, None, "recursion limit exceeded"),
]


@pytest.mark.parametrize(("line", "code", "request_id", "said"), MALFORMED, ids=[m[3][:40] for m in MALFORMED])
def test_a_malformed_message_gets_one_clear_error(
    stdio: StdioClient, line: str, code: int, request_id: Any, said: str
) -> None:
    assert said in one_error(answer_to(stdio, line), code, request_id)


def test_bytes_that_are_not_utf8_are_a_parse_error(stdio: StdioClient) -> None:
    message = one_error(answer_to(stdio, b'{"jsonrpc": "2.0", "id": "\xff", "method": "ping"}'), PARSE_ERROR)
    assert message == "Parse error: the message is not UTF-8 text (byte 0xff at offset 26)"


def test_a_paired_surrogate_escape_is_a_character_and_a_lone_one_in_a_notification_is_dropped(
    stdio: StdioClient,
) -> None:
    echoed = stdio.call_tool("echo", {"text": "\U0001f600"})  # json.dumps writes the pair \\ud83d\\ude00
    assert echoed["structuredContent"]["arguments"] == {"text": "\U0001f600"}
    assert answer_to(stdio, '{"jsonrpc": "2.0", "method": "notifications/cancelled", '
                            '"params": {"requestId": 1, "reason": "\\ud800"}}') == []
    assert stdio.call("ping")["result"] == {}


def test_a_client_response_holding_a_lone_surrogate_becomes_an_error_response() -> None:
    """The server's request (``roots/list``, sampling ...) gets an answer instead of waiting."""
    verdict = wire.screen(b'{"jsonrpc": "2.0", "id": 5, "result": {"roots": [{"uri": "file:///x", "name": "\\ud800"}]}}')
    assert verdict.error is None and verdict.rewritten
    assert isinstance(verdict.message, JSONRPCError) and verdict.message.id == 5
    assert "'result.roots[0].name' holds a lone surrogate \\ud800" in verdict.message.error.message


def test_blank_lines_and_unusable_notifications_get_no_answer(stdio: StdioClient) -> None:
    assert answer_to(stdio, "   ") == []
    assert answer_to(stdio, '{"jsonrpc": "2.0", "method": "notifications/whatever", "params": [1, 2]}') == []
    assert answer_to(stdio, '{"jsonrpc": "2.0", "id": 99, "result": {}}') == []  # a reply to nothing: dropped


def test_a_cancel_naming_an_object_id_does_not_stop_the_reader(stdio: StdioClient) -> None:
    """It used to raise in the reader thread (an unhashable id), after which no line was ever read."""
    line = '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": {"a": 1}}}'
    assert answer_to(stdio, line) == []
    assert stdio.call_tool("add", {"a": 1, "b": 2})["structuredContent"] == {"sum": 3}


def test_a_request_id_still_in_use_is_refused(stdio: StdioClient) -> None:
    client = stdio
    client.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 1500}}})
    client.send({"jsonrpc": "2.0", "id": "7", "method": "ping"})  # the SDK correlates "7" and 7 as one id
    first = client.receive()
    assert first["id"] is None and first["error"]["code"] == INVALID_REQUEST
    assert "id \"7\" is already used by a request that is still unanswered" in first["error"]["message"]
    assert client.response(7)["result"]["structuredContent"] == {"slept_ms": 1500}
    client.send({"jsonrpc": "2.0", "id": 7, "method": "ping"})  # answered: id 7 is free again
    assert client.response(7) == {"jsonrpc": "2.0", "id": 7, "result": {}}


# --- the lifecycle and the parameters -------------------------------------------------------------


def test_a_request_before_initialize_says_the_session_is_not_initialized() -> None:
    with demo_client() as client:
        assert client.call("ping")["result"] == {}  # allowed before initialize
        refused = client.call("tools/list")
        assert refused["error"]["code"] == INVALID_REQUEST
        assert refused["error"]["message"].startswith("Server not initialized: 'tools/list' was sent before 'initialize'")
        unknown = client.call("no/such/method")  # not served at all: method not found, whatever the state
        assert unknown["error"]["code"] == -32601
        client.initialize()
        assert "tools" in client.call("tools/list")["result"]


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"arguments": {"a": 1}}, "Invalid params for 'tools/call': 'name' is required"),
        ({"name": "add", "arguments": [1, 2]}, "Invalid params for 'tools/call': 'arguments' must be an object, got array"),
        ({"name": 5}, "'name' must be a string, got integer"),
        ({"name": "add", "arguments": {}, "_meta": {"progressToken": {"x": 1}}},
         "'_meta.progressToken' must be a string or an integer, got object"),
    ],
)
def test_bad_tools_call_params_name_the_parameter(stdio: StdioClient, params: dict[str, Any], said: str) -> None:
    answer = stdio.call("tools/call", params)
    assert answer["error"]["code"] == INVALID_PARAMS and said in answer["error"]["message"], answer


def test_other_methods_name_their_bad_parameters_too(stdio: StdioClient) -> None:
    assert "'uri' is required" in stdio.call("resources/read", {})["error"]["message"]
    assert "'cursor' must be a string, got integer" in stdio.call("tools/list", {"cursor": 5})["error"]["message"]
    level = stdio.call("logging/setLevel", {"level": "loud"})["error"]["message"]
    assert level.startswith("Invalid params for 'logging/setLevel': 'level' must be one of 'alert', ") and "'debug'" in level


def test_a_long_or_strange_tool_name_is_shown_short(stdio: StdioClient) -> None:
    message = stdio.call("tools/call", {"name": "\x1b[31m" + "x" * 10_000})["error"]["message"]
    assert message.startswith("Unknown tool: \\x1b[31mxxx") and len(message) < 120


# --- size ----------------------------------------------------------------------------------------


def _peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def test_a_100_mb_line_is_refused_without_holding_it(stdio: StdioClient) -> None:
    before = _peak_rss(stdio.proc.pid)
    assert stdio.proc.stdin is not None
    chunk = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "' + b"x" * (1 << 20)
    stdio.proc.stdin.write(chunk)
    for _ in range(100):
        stdio.proc.stdin.write(b"x" * (1 << 20))
    messages = answer_to(stdio, b'"}}')
    message = one_error(messages, INVALID_REQUEST)
    assert message.startswith("Invalid Request: the message (") and "over the 16777216-byte limit" in message
    size = int(message.split("(")[1].split(" ")[0])
    assert size == len(chunk) + 100 * (1 << 20) + 4  # every byte was counted, up to the newline
    grown = _peak_rss(stdio.proc.pid) - before
    assert grown < 3 * wire.MAX_MESSAGE_BYTES, f"peak memory grew by {grown} bytes"


def test_a_line_just_under_the_limit_is_read(stdio: StdioClient) -> None:
    head = b'{"jsonrpc": "2.0", "id": "big", "method": "ping", "params": {"pad": "'
    tail = b'"}}'
    line = head + b"y" * (wire.MAX_MESSAGE_BYTES - len(head) - len(tail)) + tail
    assert len(line) == wire.MAX_MESSAGE_BYTES
    assert answer_to(stdio, line) == [{"jsonrpc": "2.0", "id": "big", "result": {}}]


# --- HTTP and SSE -------------------------------------------------------------------------------


def post(port: int, body: bytes | str, session: str | None, path: str = "/mcp") -> tuple[int, dict[str, Any] | None]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOL,
    }
    if session:
        headers["Mcp-Session-Id"] = session
    conn.request("POST", path, body=body if isinstance(body, bytes) else body.encode(), headers=headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, (json.loads(data) if response.getheader("content-type", "").startswith("application/json") else None)


HTTP_CASES = [
    ('{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', INVALID_REQUEST, None, "got object"),
    ('{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', INVALID_REQUEST, None, "fraction or exponent (1.5)"),
    ('[{"jsonrpc": "2.0", "id": 2, "method": "ping"}]', INVALID_REQUEST, None, "batch arrays"),
    ('{"jsonrpc": "2.0", "id": 5, "method": 7}', INVALID_REQUEST, 5, "'method' must be a string"),
    ('{"jsonrpc": "2.0", "id": 6, "method": "ping", "params": [1]}', INVALID_PARAMS, 6, "got array"),
    ("[" * 10_000, PARSE_ERROR, None, "recursion limit exceeded"),
]


def test_http_answers_malformed_messages_and_goes_on() -> None:
    with demo_http("http") as server:
        client = HttpClient(server.port)
        client.initialize()
        for body, code, request_id, said in HTTP_CASES:
            status, answer = post(server.port, body, client.session_id)
            assert status == 400 and answer is not None, (body[:40], status)
            assert answer["id"] == request_id and answer["error"]["code"] == code and said in answer["error"]["message"]
        status, answer = post(server.port, b"x" * (wire.MAX_MESSAGE_BYTES + 1), client.session_id)
        assert status == 413 and answer is not None and "over the 16777216-byte limit" in answer["error"]["message"]
        bad = client.call("tools/call", {"name": "add", "arguments": [1, 2]})
        assert bad["error"] == {
            "code": INVALID_PARAMS, "message": "Invalid params for 'tools/call': 'arguments' must be an object, got array"
        }
        assert "'name' is required" in client.call("tools/call", {})["error"]["message"]
        assert client.call("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})["result"]["structuredContent"] == {"sum": 5}


def test_sse_answers_malformed_messages_and_the_uninitialized_session() -> None:
    with demo_http("sse") as server:
        client = SseClient(server.port)
        try:
            early = client.call("tools/list")
            assert early["error"]["code"] == INVALID_REQUEST and "Server not initialized" in early["error"]["message"]
            client.initialize()
            status, answer = post(server.port, '{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', None,
                                  path=client.endpoint)
            assert status == 400 and answer is not None and answer["id"] is None
            assert answer["error"]["code"] == INVALID_REQUEST and "got object" in answer["error"]["message"]
            missing = client.call("tools/call", {"arguments": {}})
            assert missing["error"]["code"] == INVALID_PARAMS and "'name' is required" in missing["error"]["message"]
            assert client.call("ping")["result"] == {}
        finally:
            client.close()


def test_screen_keeps_valid_messages_intact() -> None:
    verdict = wire.screen(b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "x", "arguments": {"n": 3}}}')
    assert verdict.error is None and verdict.message is not None
    assert verdict.message.model_dump(by_alias=True, exclude_unset=True) == {
        "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "x", "arguments": {"n": 3}}
    }
    assert type(verdict.message.params["arguments"]["n"]) is int


# --- resources and prompts (visimark-mcp serves both) ----------------------------------------------


def test_resources_and_prompts_get_the_same_lifecycle_and_parameter_checks() -> None:
    with StdioClient(module_command("markmcp.visimark.server")) as client:
        for method, params in (("prompts/list", {}), ("prompts/get", {"name": "visimark/author"}),
                               ("resources/list", {}), ("resources/read", {"uri": "visimark://skill"})):
            early = client.call(method, params)["error"]
            assert early["code"] == INVALID_REQUEST and early["message"].startswith(f"Server not initialized: '{method}'")
        client.initialize()
        bad = {
            "'name' is required": ("prompts/get", {}),
            "'arguments' must be an object, got array": ("prompts/get", {"name": "visimark/author", "arguments": ["a.md"]}),
            "'arguments.path' must be a string, got integer": ("prompts/get", {"name": "visimark/author", "arguments": {"path": 5}}),
            "'uri' must be a string, got object": ("resources/read", {"uri": {"a": 1}}),
            "'cursor' must be a string, got integer": ("prompts/list", {"cursor": 5}),
        }
        for said, (method, params) in bad.items():
            error = client.call(method, params)["error"]
            assert error["code"] == INVALID_PARAMS and f"Invalid params for '{method}': {said}" in error["message"], error
        unknown = client.call("prompts/get", {"name": "visimark/author", "arguments": {"\x1b[2J": "x"}})["error"]
        assert unknown["code"] == INVALID_PARAMS and unknown["message"] == "prompt 'visimark/author': unknown argument '\\x1b[2J'"
        strange = client.call("prompts/get", {"name": "\x1b[31m" + "p" * 10_000})["error"]["message"]
        assert strange.startswith("Unknown prompt: \\x1b[31mppp") and len(strange) < 120
        missing = client.call("resources/read", {"uri": "visimark://" + "\x07" * 5_000})["error"]
        assert missing["code"] == -32002 and len(missing["message"]) < 120 and "\x07" not in missing["message"]
        assert answer_to(client, '{"jsonrpc": "2.0", "id": 1.5, "method": "prompts/list"}')[0]["id"] is None
        served = client.call("prompts/get", {"name": "visimark/author", "arguments": {"path": "a.md"}})["result"]
        assert "a.md" in served["messages"][0]["content"]["text"]
        assert client.call("resources/read", {"uri": "visimark://skill"})["result"]["contents"][0]["text"]
