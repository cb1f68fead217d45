"""HTTP exchanges in flight (``markmcp.mcpcore.exchanges``), in-process with a stand-in app.

The end-to-end behaviour (a real server signalled with requests running) is tested in
``test_mcpcore_http.py``; here the pieces: reading SSE events, recognising answers, and
what an exchange writes when the server stops.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from markmcp.mcpcore.exchanges import EventReader, Exchanges, answered_id
from markmcp.mcpcore.transports import ScreenedPosts, security_settings

WHY = "the server is stopping (SIGTERM)"
STOPPED = f"Connection closed: {WHY}; the request was cancelled"
SSE_START = {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]}


def event(message: dict[str, Any]) -> bytes:
    return b"event: message\r\ndata: " + json.dumps(message, separators=(",", ":")).encode() + b"\r\n\r\n"


def body(chunk: bytes, more: bool = True) -> dict[str, Any]:
    return {"type": "http.response.body", "body": chunk, "more_body": more}


@pytest.mark.parametrize("cut", [1, 7, 15, 16, 17, 30])
def test_events_are_read_across_chunks_with_any_line_end(cut: int) -> None:
    stream = (b": ping\r\n\r\nevent: endpoint\r\ndata: /messages/?session_id=ab\r\n\r\n"
              b"id: 3\ndata: {\"a\":\ndata: 1}\n\nevent: message\rdata\r\r\n")
    reader = EventReader()
    events = reader.feed(stream[:cut]) + reader.feed(stream[cut:])
    assert events == [(b"endpoint", b"/messages/?session_id=ab"), (b"message", b'{"a":\n1}'), (b"message", b"")]
    assert reader.rest == b""


def test_a_lone_cr_at_the_end_of_a_chunk_waits_for_the_next() -> None:
    reader = EventReader()
    assert reader.feed(b"data: x\r") == []
    assert reader.feed(b"\n\r\n") == [(b"message", b"x")]


@pytest.mark.parametrize(("data", "expected"), [
    (b'{"jsonrpc":"2.0","id":7,"result":{}}', (True, 7)),
    (b'{"jsonrpc":"2.0","id":"a\\"b","error":{"code":1,"message":"m"}}', (True, 'a"b')),
    (b'{ "jsonrpc": "2.0", "result": {}, "id": "x" }', (True, "x")),  # not the SDK's layout: decoded
    (b'{"jsonrpc":"2.0","id":7,"method":"roots/list"}', (False, None)),  # a request to the client
    (b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}', (False, None)),
    (b'{"method":"x","id":1,"result":{}}', (False, None)),
    (b"not json", (False, None)),
])
def test_answers_are_recognised_by_their_id(data: bytes, expected: tuple[bool, Any]) -> None:
    assert answered_id(data) == expected


class Recorder:
    """An ASGI ``send`` that keeps what it is given."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def __call__(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def events(self) -> list[dict[str, Any]]:
        reader = EventReader()
        found = []
        for message in self.sent:
            if message["type"] == "http.response.body":
                found += [json.loads(data) for _, data in reader.feed(message["body"])]
        return found


def test_a_stream_ending_without_its_answer_gets_the_error_even_without_a_stop() -> None:
    async def run() -> Recorder:
        recorder = Recorder()
        exchange = Exchanges().enter({"type": "http", "query_string": b"", "headers": []}, recorder)
        exchange.owe(9)
        await exchange.send(SSE_START)
        await exchange.send(body(event({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}})))
        await exchange.send(body(b"", more=False))
        return recorder

    recorder = anyio.run(run)
    assert recorder.events()[-1] == {"jsonrpc": "2.0", "id": 9, "error": {
        "code": -32000, "message": "Connection closed: the session ended; the request was cancelled"}}
    assert recorder.sent[-1]["more_body"] is False


def test_an_answered_stream_ends_as_the_app_ends_it() -> None:
    async def run() -> Recorder:
        recorder = Recorder()
        exchange = Exchanges().enter({"type": "http", "query_string": b"", "headers": []}, recorder)
        exchange.owe("7")
        await exchange.send(SSE_START)
        await exchange.send(body(event({"jsonrpc": "2.0", "id": 7, "result": {}}), more=False))
        return recorder

    recorder = anyio.run(run)
    assert recorder.events() == [{"jsonrpc": "2.0", "id": 7, "result": {}}]  # "7" and 7 are one id


def test_after_the_stop_only_the_owed_errors_are_written() -> None:
    async def run() -> Recorder:
        recorder = Recorder()
        exchanges = Exchanges()
        exchange = exchanges.enter({"type": "http", "query_string": b"", "headers": []}, recorder)
        exchange.owe(1)
        await exchange.send(SSE_START)
        exchanges.stop(WHY)
        await exchange.send(body(event({"jsonrpc": "2.0", "id": 1, "result": {}})))  # too late: dropped
        await exchange.send(body(b": ping\r\n\r\n"))
        await exchange.finish()
        await exchange.finish()  # once only
        return recorder

    recorder = anyio.run(run)
    assert recorder.sent[0] == SSE_START and len(recorder.sent) == 2
    assert recorder.events() == [{"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": STOPPED}}]
    assert recorder.sent[-1]["more_body"] is False


def scope(body_size: int, session: str | None = None) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
               (b"accept", b"application/json, text/event-stream"),
               (b"content-length", str(body_size).encode())]
    if session:
        headers.append((b"mcp-session-id", session.encode()))
    return {"type": "http", "method": "POST", "path": "/mcp", "query_string": b"", "headers": headers}


def call(posts: ScreenedPosts, message: dict[str, Any], session: str | None = None) -> Recorder:
    """Run one POST of ``message`` through ``posts`` (its stop may come while the app runs)."""
    data = json.dumps(message).encode()

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": data, "more_body": False}

    async def run() -> Recorder:
        recorder = Recorder()
        with anyio.fail_after(10):
            await posts(scope(len(data), session), receive, recorder)
        return recorder

    return anyio.run(run)


def test_a_request_arriving_after_the_stop_is_refused_with_its_error() -> None:
    reached: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope)

    posts = ScreenedPosts(app, ("/mcp",), security_settings("127.0.0.1"))
    posts.exchanges.stop(WHY)
    recorder = call(posts, {"jsonrpc": "2.0", "id": 4, "method": "ping"}, session="s1")
    assert reached == []
    start, end = recorder.sent
    assert start["status"] == 503 and (b"mcp-session-id", b"s1") in start["headers"]
    assert json.loads(end["body"]) == {"jsonrpc": "2.0", "id": 4, "error": {"code": -32000, "message": STOPPED}}


@pytest.mark.parametrize("streaming", [False, True])
def test_a_request_the_app_is_serving_at_the_stop_is_answered_in_its_responses_form(streaming: bool) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if streaming:
            await send(SSE_START)
            await send(body(event({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}})))
        posts.exchanges.stop(WHY)  # the signal comes while the request runs
        await anyio.sleep_forever()  # a handler ignoring cancellation is abandoned, not awaited

    posts = ScreenedPosts(app, ("/mcp",), security_settings("127.0.0.1"))
    recorder = call(posts, {"jsonrpc": "2.0", "id": "r", "method": "tools/call", "params": {"name": "x"}})
    error = {"jsonrpc": "2.0", "id": "r", "error": {"code": -32000, "message": STOPPED}}
    if streaming:
        assert recorder.events()[-1] == error and recorder.sent[-1]["more_body"] is False
    else:
        start, end = recorder.sent
        assert start["status"] == 200 and (b"content-type", b"application/json") in start["headers"]
        assert json.loads(end["body"]) == error
