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


def test_integers_stay_integers_over_http() -> None:
    with demo_http("http") as server:
        client = HttpClient(server.port)
        client.initialize()
        result = client.call("tools/call", {"name": "echo", "arguments": {"count": 3, "ratio": 1.5}})["result"]
        assert result["structuredContent"]["types"] == {"count": "integer", "ratio": "number"}
        assert type(result["structuredContent"]["arguments"]["count"]) is int


def test_dns_rebinding_protection_refuses_foreign_host() -> None:
    with demo_http("http") as server:
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


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_http_signal_stops_cleanly(sig: signal.Signals) -> None:
    with demo_http("http") as server:
        HttpClient(server.port).initialize()
        stuck = HttpClient(server.port)
        stuck.initialize()
        pool = ThreadPoolExecutor(1)
        pool.submit(stuck.call, "tools/call", {"name": "slow", "arguments": {"ms": 600_000}})
        HttpClient(server.port).initialize()  # still serving while one handler is stuck
        code, stdout, stderr = server.stop(sig)
        pool.shutdown(wait=False, cancel_futures=True)
    assert code == 0, stderr
    assert stdout == ""
    assert "Traceback" not in stderr


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


def test_port_in_use_is_reported_on_stderr() -> None:
    import subprocess

    from mcpwire import demo_command

    with demo_http("http") as server:
        done = subprocess.run(
            demo_command("--transport", "http", "--port", str(server.port)), capture_output=True, timeout=60
        )
    assert done.returncode == 1
    assert done.stdout == b""
    assert f"demo-mcp: cannot listen on 127.0.0.1:{server.port}" in done.stderr.decode()
    assert b"Traceback" not in done.stderr
