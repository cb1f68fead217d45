"""Protocol tests over stdio: a real server subprocess, JSON-RPC lines in and out."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest
from mcpwire import StdioClient, demo_client, demo_command, initialize_params, wipe


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder above the shared demo server's working folder (``served/docs``)."""
    base = tmp_path_factory.mktemp("served")
    (base / "docs").mkdir()
    return base


@pytest.fixture(scope="module")
def client(served: Path) -> StdioClient:
    """One demo server for the tests that need nothing of their own: the demo keeps no state
    between calls, and the tests that feed it errors also prove it keeps answering after them.
    It works in ``served/docs``, which the tests that read files seed afresh (``fresh``)."""
    with demo_client("--cwd", str(served / "docs")) as c:
        c.initialize_answer = c.initialize()
        yield c


@pytest.fixture
def fresh(served: Path) -> Path:
    """``served`` emptied (the server's working folder ``docs`` recreated empty) for one test."""
    wipe(served)
    (served / "docs").mkdir()
    return served


def test_initialize_reports_server_and_capabilities() -> None:
    with demo_client() as c:
        answer = c.initialize()
        result = answer["result"]
        assert result["serverInfo"] == {"name": "markmcp-demo", "version": "0.0.1"}
        assert result["protocolVersion"] == "2025-11-25"
        assert {"tools", "resources", "logging", "prompts"} <= set(result["capabilities"])
        assert not result["capabilities"]["resources"].get("subscribe")  # no subscribable resource
        assert result["instructions"].startswith("A test server")
        code, stderr = c.finish()
        assert code == 0, stderr
        assert "Traceback" not in stderr


def test_tools_list_has_schemas_and_annotations(client: StdioClient) -> None:
    tools = {tool["name"]: tool for tool in client.call("tools/list")["result"]["tools"]}
    assert {"add", "echo", "fail", "crash", "slow", "write_text", "roots", "bad_output", "summary"} <= set(tools)
    add = tools["add"]
    assert add["inputSchema"]["required"] == ["a", "b"]
    assert add["inputSchema"]["additionalProperties"] is False
    assert add["outputSchema"]["properties"]["sum"] == {"type": "integer"}
    assert add["title"] == "Add two integers"
    assert add["annotations"] == {
        "title": "Add two integers",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert tools["write_text"]["annotations"]["destructiveHint"] is True
    assert tools["write_text"]["annotations"]["readOnlyHint"] is False
    for tool in tools.values():
        assert tool["outputSchema"]["type"] == "object"
        assert tool["description"]


def test_call_returns_structured_content_and_json_text(client: StdioClient) -> None:
    result = client.call_tool("add", {"a": 2, "b": 40})
    assert result["isError"] is False
    assert result["structuredContent"] == {"sum": 42}
    assert type(result["structuredContent"]["sum"]) is int
    assert [json.loads(block["text"]) for block in result["content"]] == [{"sum": 42}]


def test_numbers_keep_their_json_types(client: StdioClient) -> None:
    big = 2**70 + 1
    args = {"count": 7, "ratio": 0.5, "exact": "0.10", "lines": [1, big], "anchor": {"line": 3}}
    result = client.call_tool("echo", args)
    assert result["isError"] is False
    assert result["structuredContent"]["types"] == {
        "count": "integer", "ratio": "number", "exact": "string", "lines": "array", "anchor": "object",
    }
    echoed = result["structuredContent"]["arguments"]
    assert echoed == args
    assert type(echoed["count"]) is int and echoed["lines"][1] == big
    assert echoed["exact"] == "0.10"


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("add", {"a": "2", "b": 3}, "argument 'a': expected integer, got string"),
        ("add", {"a": 2.5, "b": 3}, "argument 'a': expected integer, got number"),
        ("add", {"a": 1}, "missing required argument 'b'"),
        ("add", {"a": 1, "b": 2, "c": 3}, "unknown argument 'c'"),
        ("add", None, "missing required argument 'a'"),
        ("echo", {"anchor": {"line": "4"}}, "argument 'anchor.line': expected integer, got string"),
        ("echo", {"flag": "true"}, "argument 'flag': expected boolean, got string"),
        ("echo", {"count": False}, "argument 'count': expected integer, got boolean"),
    ],
)
def test_strict_argument_errors_name_the_argument(client: StdioClient, name: str, arguments, message: str) -> None:
    result = client.call_tool(name, arguments)
    assert result["isError"] is True
    assert message in result["content"][0]["text"]
    assert "structuredContent" not in result


def test_unknown_tool_is_a_json_rpc_error(client: StdioClient) -> None:
    answer = client.call("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert answer["error"]["code"] == -32602
    assert "no_such_tool" in answer["error"]["message"]


def test_prompts_are_listed_empty_and_an_unknown_prompt_is_a_json_rpc_error(client: StdioClient) -> None:
    assert client.call("prompts/list")["result"]["prompts"] == []
    answer = client.call("prompts/get", {"name": "review"})
    assert answer["error"]["code"] == -32602 and "review" in answer["error"]["message"]


def test_tool_error_carries_message_and_data(client: StdioClient) -> None:
    result = client.call_tool("fail", {})
    assert result["isError"] is True
    assert result["content"] == [{"type": "text", "text": "version conflict: the sidecar changed"}]
    assert result["structuredContent"] == {"expected": 3, "actual": 4}


def test_unexpected_exception_is_one_line_without_traceback() -> None:
    with demo_client() as c:
        c.initialize()
        result = c.call_tool("crash", {})
        text = result["content"][0]["text"]
        assert result["isError"] is True
        assert text == "tool 'crash' failed: RuntimeError: boom second line of the message"
        code, stderr = c.finish()
    assert code == 0
    assert "Traceback" in stderr and "RuntimeError: boom" in stderr  # details go to the log


def test_result_breaking_its_output_schema_is_an_error(client: StdioClient) -> None:
    result = client.call_tool("bad_output", {})
    assert result["isError"] is True
    assert "outputSchema" in result["content"][0]["text"]


@pytest.mark.parametrize("arguments", [{}, {"nan": True}])
def test_result_that_is_not_json_is_an_error_and_the_server_lives_on(
    client: StdioClient, arguments: dict
) -> None:
    result = client.call_tool("not_json", arguments)
    assert result["isError"] is True
    assert "could not be rendered" in result["content"][0]["text"]
    assert client.call_tool("summary", {})["structuredContent"] == {"n": 2}


def test_tool_supplied_text(client: StdioClient) -> None:
    result = client.call_tool("summary", {})
    assert [block["text"] for block in result["content"]] == ["2 items", "done"]
    assert result["structuredContent"] == {"n": 2}


def test_resource_templates_list_and_read_with_slashes(client: StdioClient, fresh: Path) -> None:
    tmp_path = fresh  # the server works in tmp_path / "docs"
    (tmp_path / "docs" / "deep").mkdir(parents=True)
    (tmp_path / "docs" / "deep" / "note.md").write_text("# Note\nhello\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("no", encoding="utf-8")
    c = client
    templates = c.call("resources/templates/list")["result"]["resourceTemplates"]
    assert {t["uriTemplate"] for t in templates} == {
        "demo://file/{+path}", "demo://surrogate/{where}", "test://template/{id}/data"
    }
    assert all(t["mimeType"] and t["name"] and t["description"] for t in templates)
    read = c.call("resources/read", {"uri": "demo://file/deep/note.md"})["result"]
    assert read["contents"] == [
        {"uri": "demo://file/deep/note.md", "mimeType": "text/plain", "text": "# Note\nhello\n"}
    ]
    escape = c.call("resources/read", {"uri": "demo://file/../secret.txt"})
    assert escape["error"]["code"] == -32602 and "outside" in escape["error"]["message"]
    missing = c.call("resources/read", {"uri": "demo://file/deep/none.md"})
    assert missing["error"]["code"] == -32002
    unknown = c.call("resources/read", {"uri": "other://x"})
    assert unknown["error"]["code"] == -32002


def test_unknown_option_prints_usage_and_exits_2() -> None:
    done = subprocess.run(demo_command("--no-such-option"), capture_output=True, timeout=30)
    assert done.returncode == 2
    assert done.stdout == b""
    stderr = done.stderr.decode()
    assert stderr.startswith("usage: demo-mcp")
    assert "unrecognized arguments: --no-such-option" in stderr


def test_bad_option_value_exits_2() -> None:
    done = subprocess.run(demo_command("--transport", "carrier-pigeon"), capture_output=True, timeout=30)
    assert done.returncode == 2 and done.stdout == b""
    assert "invalid choice: 'carrier-pigeon'" in done.stderr.decode()


def test_stdin_eof_answers_the_request_in_flight() -> None:
    with demo_client() as c:
        c.initialize()
        first = c.request("tools/call", {"name": "slow", "arguments": {"ms": 400}})
        second = c.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
        c.close_stdin()
        answers = {}
        while (message := c.receive()) is not None:
            answers[message["id"]] = message
        code, stderr = c.finish()
    assert answers[first]["result"]["structuredContent"] == {"slept_ms": 400}
    assert answers[second]["result"]["structuredContent"] == {"sum": 2}
    assert code == 0, stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_cleanly(sig: signal.Signals) -> None:
    with demo_client() as c:
        c.initialize()
        assert c.call_tool("add", {"a": 1, "b": 2})["isError"] is False
        c.proc.send_signal(sig)
        code = c.proc.wait(timeout=20)
        stderr = c.proc.stderr.read().decode()
        assert code == 0, stderr
        assert "Traceback" not in stderr
        assert "still running" not in stderr  # the finished call is not mistaken for a stuck one


def test_signal_stops_even_with_a_stuck_handler() -> None:
    with demo_client() as c:
        c.initialize()
        c.request("tools/call", {"name": "slow", "arguments": {"ms": 600_000}})
        c.call("ping")  # the server is still responsive while the handler sleeps
        c.proc.send_signal(signal.SIGTERM)
        code = c.proc.wait(timeout=20)
        stderr = c.proc.stderr.read().decode()
    assert code == 0, stderr
    assert "Traceback" not in stderr


def test_parse_error_is_answered_and_the_server_goes_on(client: StdioClient) -> None:
    client.send("this is not json")
    answer = client.receive()
    assert answer["id"] is None and answer["error"]["code"] == -32700
    assert answer["error"]["message"].startswith("Parse error: ") and "line 1 column" in answer["error"]["message"]
    client.send(json.dumps({"jsonrpc": "2.0", "method": 5}))
    assert client.receive()["error"]["code"] == -32600
    assert client.call_tool("add", {"a": 1, "b": 2})["structuredContent"] == {"sum": 3}


def test_write_gate_over_the_wire(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    with demo_client("--allow-write", "--root", str(root), "--cwd", str(root)) as c:
        c.initialize()
        ok = c.call_tool("write_text", {"path": "sub.md", "text": "hi"})
        assert ok["isError"] is False and (root / "sub.md").read_text() == "hi"
        refused = c.call_tool("write_text", {"path": "../escape.md", "text": "x"})
        assert refused["isError"] is True and "outside the roots" in refused["content"][0]["text"]
    assert not (tmp_path / "escape.md").exists()
    with demo_client("--root", str(root), "--cwd", str(root)) as c:
        c.initialize()
        refused = c.call_tool("write_text", {"path": "other.md", "text": "x"})
        assert refused["isError"] is True and "--allow-write" in refused["content"][0]["text"]
    assert not (root / "other.md").exists()


def test_client_roots_are_asked_and_used(tmp_path: Path) -> None:
    client_root = tmp_path / "client root"
    client_root.mkdir()
    with demo_client("--allow-write", "--greeting", "hi") as c:
        c.initialize({"roots": {"listChanged": True}})
        request_id = c.request("tools/call", {"name": "roots", "arguments": {}})
        ask = c.receive()
        assert ask["method"] == "roots/list"
        c.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": client_root.as_uri()}]}})
        result = c.response(request_id)["result"]["structuredContent"]
        assert result["roots"] == [str(client_root.resolve())] and result["greeting"] == "hi"
        assert str(client_root.resolve()) in result["readable"]  # over stdio the client's roots add folders
        written = c.call_tool("write_text", {"path": str(client_root / "a.md"), "text": "ok"})
        assert written["isError"] is False, written
        assert (client_root / "a.md").read_text() == "ok"
        outside = c.call_tool("write_text", {"path": str(tmp_path / "b.md"), "text": "no"})
        assert outside["isError"] is True


def test_roots_request_pending_at_eof_does_not_hang() -> None:
    with demo_client() as c:
        c.initialize({"roots": {}})
        request_id = c.request("tools/call", {"name": "roots", "arguments": {}})
        assert c.receive()["method"] == "roots/list"
        c.close_stdin()
        # Without the EOF handling the answer would only come after the 10 s roots timeout.
        answer = c.response(request_id, timeout=8)
        code, stderr = c.finish()
    assert answer["result"]["structuredContent"]["roots"] == []
    assert code == 0, stderr


def test_tool_logs_reach_the_client_after_set_level() -> None:
    with demo_client() as c:
        c.initialize()
        request_id = c.request("tools/call", {"name": "chatty", "arguments": {}})
        assert c.receive()["id"] == request_id  # no level set: no log notifications
        assert c.call("logging/setLevel", {"level": "info"})["result"] == {}
        request_id = c.request("tools/call", {"name": "chatty", "arguments": {}})
        logs = []
        while "method" in (message := c.receive()):
            logs.append(message)
        assert message["id"] == request_id and message["result"]["structuredContent"] == {"said": 3}
        assert [(m["method"], m["params"]["level"], m["params"]["data"]) for m in logs] == [
            ("notifications/message", "info", "parsed 3 comments"),
            ("notifications/message", "warning", "anchor drifted"),
        ]
        assert {m["params"]["logger"] for m in logs} == {"markmcp.demo"}
        code, stderr = c.finish()
    assert code == 0
    assert "anchor drifted" in stderr and "parsed 3 comments" not in stderr  # stderr stays at warning
    # stray output went to stderr, the protocol stream stayed clean (every line above parsed)
    assert "stray print from a handler" in stderr
    assert "stray output of a child process" in stderr


def test_closed_stdout_stops_the_server() -> None:
    proc = subprocess.Popen(demo_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params()}
        proc.stdin.write(json.dumps(init).encode() + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        proc.stdout.close()  # the client stops listening but keeps stdin open
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        proc.stdin.write(json.dumps(ping).encode() + b"\n")
        proc.stdin.flush()
        code = proc.wait(timeout=20)
        stderr = proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        proc.stderr.close()
    assert code == 0, stderr
    assert "Traceback" not in stderr


def test_2026_envelope_requests_without_handshake() -> None:
    """A 2026-07-28 client (per-request _meta envelope, no initialize) gets well-formed results."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "modern", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    with demo_client() as c:
        added = c.call("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": meta})["result"]
        assert added["structuredContent"] == {"sum": 5} and added["resultType"] == "complete"
        bad = c.call("tools/call", {"name": "add", "arguments": {"a": 2}, "_meta": meta})["result"]
        assert bad["isError"] is True and "missing required argument 'b'" in bad["content"][0]["text"]
        read = c.call("resources/read", {"uri": "test://template/7/data", "_meta": meta})["result"]
        assert json.loads(read["contents"][0]["text"])["id"] == "7"
        assert read["resultType"] == "complete" and "ttlMs" in read and "cacheScope" in read
        unknown = c.call("tools/call", {"name": "nope", "_meta": meta})
        assert unknown["error"]["code"] == -32602
        code, stderr = c.finish()
    assert code == 0 and "Traceback" not in stderr, stderr


def test_completion_of_template_variables(client: StdioClient, fresh: Path) -> None:
    tmp_path = fresh / "docs"  # the server works in tmp_path
    (tmp_path / "docs" / "deep").mkdir(parents=True)
    (tmp_path / "docs" / "a.md").write_text("a")
    (tmp_path / "docs" / "deep" / "b.md").write_text("b")
    c = client
    assert "completions" in c.initialize_answer["result"]["capabilities"]
    ref = {"type": "ref/resource", "uri": "demo://file/{+path}"}

    def complete(value: str) -> dict:
        return c.call("completion/complete", {"ref": ref, "argument": {"name": "path", "value": value}})

    assert complete("docs/")["result"]["completion"] == {"values": ["docs/a.md", "docs/deep/"], "total": 2,
                                                         "hasMore": False}
    assert complete("docs/deep/")["result"]["completion"]["values"] == ["docs/deep/b.md"]
    assert complete("nothing")["result"]["completion"]["values"] == []
    assert complete("../")["result"]["completion"]["values"] == []  # outside the cwd: nothing offered
    wrong_variable = c.call("completion/complete", {"ref": ref, "argument": {"name": "id", "value": ""}})
    assert wrong_variable["error"]["code"] == -32602
    prompt = c.call("completion/complete", {"ref": {"type": "ref/prompt", "name": "p"},
                                            "argument": {"name": "x", "value": ""}})
    assert prompt["error"]["code"] == -32602
