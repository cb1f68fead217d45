"""Protocol tests over streamable HTTP and SSE: a real server subprocess on a free port."""

from __future__ import annotations

import http.client
import json
import signal
from concurrent.futures import ThreadPoolExecutor

import pytest
from mcpwire import HttpClient, SseClient, demo_http


def session(client: HttpClient | SseClient, worker: int) -> list[dict]:
    """One client's whole conversation; returns the structured results it saw."""
    init = client.initialize()["result"]
    assert init["serverInfo"]["name"] == "markmcp-demo"
    tools = client.call("tools/list")["result"]["tools"]
    assert all("outputSchema" in tool and "annotations" in tool for tool in tools)
    seen = []
    for step in range(5):
        slow = client.call("tools/call", {"name": "slow", "arguments": {"ms": 50}})["result"]
        added = client.call("tools/call", {"name": "add", "arguments": {"a": worker, "b": step}})["result"]
        seen += [slow["structuredContent"], added["structuredContent"]]
    bad = client.call("tools/call", {"name": "add", "arguments": {"a": "1", "b": 2}})["result"]
    assert bad["isError"] is True and "argument 'a': expected integer, got string" in bad["content"][0]["text"]
    unknown = client.call("tools/call", {"name": "nope", "arguments": {}})
    assert unknown["error"]["code"] == -32602
    return seen


def expected(worker: int) -> list[dict]:
    return [item for step in range(5) for item in ({"slept_ms": 50}, {"sum": worker + step})]


def test_two_concurrent_http_clients() -> None:
    with demo_http("http") as server:
        clients = [HttpClient(server.port), HttpClient(server.port)]
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(session, clients, [10, 20]))
        assert results == [expected(10), expected(20)]
        assert clients[0].session_id and clients[1].session_id
        assert clients[0].session_id != clients[1].session_id
        templates = clients[0].call("resources/templates/list")["result"]["resourceTemplates"]
        assert "demo://file/{+path}" in {t["uriTemplate"] for t in templates}
        read = clients[1].call("resources/read", {"uri": "test://template/123/data"})["result"]["contents"][0]
        assert json.loads(read["text"]) == {"id": "123", "templateTest": True, "data": "Data for ID: 123"}
        code, stdout, stderr = server.stop()
    assert code == 0, stderr
    assert stdout == ""
    assert "Traceback" not in stderr


@pytest.fixture(scope="module")
def plain_http():
    """One plain ``--transport http`` server for the tests that only talk to it (never stop or signal it)."""
    with demo_http("http") as server:
        yield server


def test_integers_stay_integers_over_http(plain_http) -> None:
    server = plain_http
    client = HttpClient(server.port)
    client.initialize()
    result = client.call("tools/call", {"name": "echo", "arguments": {"count": 3, "ratio": 1.5}})["result"]
    assert result["structuredContent"]["types"] == {"count": "integer", "ratio": "number"}
    assert type(result["structuredContent"]["arguments"]["count"]) is int


def test_dns_rebinding_protection_refuses_foreign_host(plain_http) -> None:
    server = plain_http
    evil = HttpClient(server.port, host_header="evil.example:80")
    status, _ = evil.post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert 400 <= status < 500
    good = HttpClient(server.port, host_header=f"localhost:{server.port}")
    assert good.initialize()["result"]["serverInfo"]["name"] == "markmcp-demo"


def test_two_concurrent_sse_clients() -> None:
    with demo_http("sse", "--log-level", "debug") as server:
        clients = [SseClient(server.port), SseClient(server.port)]
        assert clients[0].endpoint != clients[1].endpoint
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(session, clients, [1, 2]))
        assert results == [expected(1), expected(2)]
        # a third client after the first two still works, while they stay connected
        third = SseClient(server.port)
        assert session(third, 3) == expected(3)
        # one client leaving (upstream's SSE app raises on every disconnect) harms nobody
        clients[0].close()
        added = clients[1].call("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})["result"]
        assert added["structuredContent"] == {"sum": 2}
        code, stdout, stderr = server.stop()
        for client in (clients[1], third):
            client.close()
    assert "Client session disconnected" in stderr  # the SDK's debug line: the disconnect was handled
    assert code == 0, stderr
    assert stdout == ""
    assert "Traceback" not in stderr


def test_sse_refuses_foreign_host() -> None:
    with demo_http("sse") as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
        conn.request("GET", "/sse", headers={"Host": "evil.example", "Accept": "text/event-stream"})
        assert 400 <= conn.getresponse().status < 500
        conn.close()


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_sdk_client_with_roots(transport: str, tmp_path) -> None:
    """The SDK's own client works against our server, including the server->client roots/list request
    (over HTTP/SSE the client's root narrows the --root folder holding it)."""
    import anyio
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client

    async def list_roots(context: object) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=tmp_path.as_uri())])

    async def conversation(port: int) -> tuple[dict, dict]:
        if transport == "http":
            connect = streamable_http_client(f"http://127.0.0.1:{port}/mcp")
        else:
            connect = sse_client(f"http://127.0.0.1:{port}/sse")
        async with connect as streams, ClientSession(streams[0], streams[1], list_roots_callback=list_roots) as s:
            await s.initialize()
            roots = await s.call_tool("roots", {})
            added = await s.call_tool("add", {"a": 20, "b": 22})
            return roots.structured_content, added.structured_content

    with demo_http(transport, "--root", str(tmp_path.parent)) as server:
        roots, added = anyio.run(conversation, server.port)
    assert roots["roots"] == [str(tmp_path.resolve())] and roots["greeting"] == "hello"
    assert roots["readable"] == [str(tmp_path.resolve())]
    assert added == {"sum": 42} and type(added["sum"]) is int


def test_port_in_use_is_reported_on_stderr(plain_http) -> None:
    import subprocess

    from mcpwire import demo_command

    server = plain_http
    done = subprocess.run(
        demo_command("--transport", "http", "--port", str(server.port)), capture_output=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stdout == b""
    assert f"demo-mcp: cannot listen on 127.0.0.1:{server.port}" in done.stderr.decode()
    assert b"Traceback" not in done.stderr


# Requests running when the server is asked to stop -----------------------------------------

STOPPING = "Connection closed: the server is stopping ({}); the request was cancelled"


def wait_for_stderr(server, text: str, times: int = 1, timeout: float = 20.0) -> None:
    """Wait until the server has written ``text`` on stderr ``times`` times (e.g. a tool saying it runs)."""
    import time

    deadline = time.monotonic() + timeout
    while b"".join(server.stderr_lines).count(text.encode()) < times:
        assert time.monotonic() < deadline and server.proc.poll() is None, b"".join(server.stderr_lines)
        time.sleep(0.05)


def blocking_call(request_id: object) -> dict:
    """A tools/call that runs for ten minutes and ignores cancellation (a sleeping worker thread)."""
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "slow", "arguments": {"ms": 600_000, "announce": True}}}


def post(port: int, message: dict, headers: dict[str, str]) -> http.client.HTTPConnection:
    """Send one POST to /mcp without reading the answer (read it with ``getresponse``)."""
    from mcpwire import TIMEOUT

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    conn.request("POST", "/mcp", body=json.dumps(message), headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    return conn


def assert_stopped_cleanly(server) -> None:
    """The server, already signalled, exits with status 0 and no traceback."""
    code, stdout, stderr = server.wait()
    assert code == 0, stderr
    assert stdout == ""
    assert "Traceback" not in stderr


@pytest.mark.parametrize("signals", [(signal.SIGTERM,), (signal.SIGINT, signal.SIGINT)], ids=["SIGTERM", "SIGINTx2"])
def test_a_request_left_running_gets_an_error_on_its_sse_response(signals: tuple[signal.Signals, ...]) -> None:
    """When its session is deleted, or the server is signalled (a second Ctrl-C changing
    nothing), a running request's SSE response ends with a "connection closed" error."""
    from mcpwire import PROTOCOL, _sse_events

    with demo_http("http") as server:
        deleted = HttpClient(server.port)
        deleted.initialize()
        headers = {"MCP-Protocol-Version": PROTOCOL, "Mcp-Session-Id": deleted.session_id or ""}
        response = post(server.port, blocking_call(5), headers).getresponse()
        wait_for_stderr(server, "slow: sleeping")
        deleting = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
        deleting.request("DELETE", "/mcp", headers=headers)
        assert deleting.getresponse().status == 200
        assert [json.loads(data) for event, data in _sse_events(response)] == [{"jsonrpc": "2.0", "id": 5, "error": {
            "code": -32000, "message": "Connection closed: the session ended; the request was cancelled"}}]

        client = HttpClient(server.port)
        client.initialize()
        conn = post(server.port, blocking_call("call-1"), {"MCP-Protocol-Version": PROTOCOL,
                                                           "Mcp-Session-Id": client.session_id or ""})
        response = conn.getresponse()
        assert response.status == 200 and response.getheader("content-type").startswith("text/event-stream")
        wait_for_stderr(server, "slow: sleeping", times=2)
        assert client.call("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})["result"]["isError"] is False
        for sig in signals:
            server.proc.send_signal(sig)
        events = list(_sse_events(response))  # the whole stream: it ends after the error
        assert_stopped_cleanly(server)
    assert [(event, json.loads(data)) for event, data in events] == [("message", {
        "jsonrpc": "2.0", "id": "call-1", "error": {"code": -32000, "message": STOPPING.format(signals[0].name)}})]


def test_a_request_running_at_a_signal_gets_an_error_as_its_json_response() -> None:
    """A request at protocol 2026-07-28 is answered with a JSON body when it finishes
    within the SDK's 15 s window; stopped before, the body is the error."""
    version = "2026-07-28"
    message = blocking_call(7)
    message["params"]["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "markmcp-tests", "version": "1"},
    }
    with demo_http("http") as server:
        conn = post(server.port, message, {"MCP-Protocol-Version": version, "Mcp-Method": "tools/call",
                                           "Mcp-Name": "slow"})
        wait_for_stderr(server, "slow: sleeping")
        server.proc.send_signal(signal.SIGTERM)
        response = conn.getresponse()
        body = response.read()
        assert_stopped_cleanly(server)
    assert response.status == 200 and response.getheader("content-type") == "application/json"
    assert json.loads(body) == {"jsonrpc": "2.0", "id": 7,
                                "error": {"code": -32000, "message": STOPPING.format("SIGTERM")}}


def test_requests_running_at_a_signal_get_errors_on_the_sse_transport_event_stream() -> None:
    with demo_http("sse") as server:
        client = SseClient(server.port)
        client.initialize()
        client.post(blocking_call(41))
        client.post(blocking_call("42"))
        assert client.call("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})["result"]["structuredContent"] \
            == {"sum": 3}  # still serving while the two sleep
        wait_for_stderr(server, "slow: sleeping", times=2)
        server.proc.send_signal(signal.SIGTERM)
        rest = [json.loads(data) for event, data in client.events]  # the stream ends after the errors
        assert_stopped_cleanly(server)
        client.close()
    error = {"code": -32000, "message": STOPPING.format("SIGTERM")}
    assert sorted(rest, key=lambda answer: str(answer["id"])) == [
        {"jsonrpc": "2.0", "id": 41, "error": error}, {"jsonrpc": "2.0", "id": "42", "error": error}]
