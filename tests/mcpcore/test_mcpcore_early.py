"""Start-up over stdio: ``initialize`` answered before the SDK is loaded (``markmcp.mcpcore.early``).

The early reply must be the SDK's reply, field for field: compared in process against the
SDK's own server loop (fixed cases for every server and generated ones), and over the wire
against a session that makes the SDK answer.  The hand-over must lose, duplicate and
reorder nothing.  Requests still running when the session ends are answered.
"""

from __future__ import annotations

import importlib
import json
import math
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcpwire import PROTOCOL, StdioClient, demo_command, initialize_params, module_command

from markmcp.mcpcore import early
from markmcp.mcpcore.spec import ResourceTemplate, ServerSpec, parse_settings

LOADED_TIMEOUT = 60.0
"""Seconds to wait for an answer: some come only once the SDK is loaded, slow on a busy machine."""

SERVER_MODULES = ("markmcp.visimark.server", "markmcp.figdown.server", "markmcp.mrsf.server")


def demo_spec() -> ServerSpec:
    import mcpcore_demo

    return mcpcore_demo.SPEC


def specs() -> list[ServerSpec]:
    bare = ServerSpec(name="bare", version="0", instructions="", tools=())
    completing = ServerSpec(
        name="completing", version="1.2", instructions="Line one.\nUnicode: é → ✓ \u2028 end.", tools=(),
        resource_templates=(ResourceTemplate("x://{+path}", "x", "d", "text/plain", lambda v, c: "",
                                             complete=lambda *args: []),),
    )
    return [importlib.import_module(name).SPEC for name in SERVER_MODULES] + [demo_spec(), bare, completing]


def sdk_reply(spec: ServerSpec, message: dict[str, Any]) -> dict[str, Any]:
    """What the SDK's server loop answers ``message`` with (screened as on the wire first)."""
    import anyio
    from mcp.shared.message import SessionMessage

    from markmcp.mcpcore import wire
    from markmcp.mcpcore.handlers import Handlers

    verdict = wire.screen(json.dumps(message).encode())
    if verdict.message is None:
        return {"screened": verdict.error.model_dump(by_alias=True, mode="json", exclude_unset=True)
                if verdict.error else None}
    server = Handlers(spec, parse_settings(spec, [])).build_server()

    async def run() -> dict[str, Any]:
        send_in, read = anyio.create_memory_object_stream(math.inf)
        write, receive_out = anyio.create_memory_object_stream(math.inf)
        async with anyio.create_task_group() as group:
            group.start_soon(server.run, read, write, server.create_initialization_options())
            await send_in.send(SessionMessage(verdict.message))
            with anyio.fail_after(10):
                reply = await receive_out.receive()
            group.cancel_scope.cancel()
        return reply.message.model_dump(by_alias=True, mode="json", exclude_unset=True)

    return anyio.run(run)


def sdk_replies(spec: ServerSpec, messages: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """The first ``count`` messages the SDK's server loop sends for ``messages``."""
    import anyio
    from mcp.shared.message import SessionMessage

    from markmcp.mcpcore import wire
    from markmcp.mcpcore.handlers import Handlers

    server = Handlers(spec, parse_settings(spec, [])).build_server()

    async def run() -> list[dict[str, Any]]:
        send_in, read = anyio.create_memory_object_stream(math.inf)
        write, receive_out = anyio.create_memory_object_stream(math.inf)
        out = []
        async with anyio.create_task_group() as group:
            group.start_soon(server.run, read, write, server.create_initialization_options())
            for message in messages:
                await send_in.send(SessionMessage(wire.screen(json.dumps(message).encode()).message))
            with anyio.fail_after(10):
                while len(out) < count:
                    reply = await receive_out.receive()
                    out.append(json.loads(wire.encode(reply.message)))
            group.cancel_scope.cancel()
        return out

    return anyio.run(run)


def early_reply(spec: ServerSpec, message: dict[str, Any]) -> dict[str, Any] | None:
    """What the early path answers ``message`` with (None: it leaves the message to the SDK)."""
    found = early.plain_initialize(json.dumps(message).encode())
    if found is None:
        return None
    request_id, requested = found
    return json.loads(early.response_line(request_id, early.initialize_result(spec, requested)))


def initialize(params: dict[str, Any], request_id: int | str = 0) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def test_the_handshake_versions_are_the_sdks() -> None:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    assert early.HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


ORDINARY_PARAMS = [
    {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
    for version in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2099-01-01", "", "x")
] + [
    {
        "protocolVersion": "2025-06-18",
        "capabilities": {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {"form": {}, "url": {}},
                         "experimental": {"x": {"a": [1, None]}}, "extensions": {}},
        "clientInfo": {"name": "claude-code", "version": "2.0", "title": "T", "description": "é",
                       "websiteUrl": "https://example.org"},
    },
    {"protocolVersion": "2025-11-25", "capabilities": {"sampling": {"context": {}, "tools": {"x": 1}}},
     "clientInfo": {"name": "", "version": ""}},
]


@pytest.mark.parametrize("index", range(len(ORDINARY_PARAMS)))
def test_the_early_reply_is_the_sdks_for_every_server(index: int) -> None:
    params = ORDINARY_PARAMS[index]
    for spec in specs():
        for request_id in (0, 7, -3, 2**62, "a", "7", ""):
            message = initialize(params, request_id)
            mine = early_reply(spec, message)
            assert mine is not None, (spec.name, message)
            assert mine == sdk_reply(spec, message), (spec.name, message)


@pytest.mark.parametrize(
    "message",
    [
        initialize({"protocolVersion": "2025-06-18", "capabilities": {}}),  # no clientInfo: the SDK refuses it
        initialize({"protocolVersion": 5, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        initialize({**ORDINARY_PARAMS[0], "_meta": {"progressToken": 1}}),
        initialize({**ORDINARY_PARAMS[0], "capabilities": {"roots": {"listChanged": "yes"}}}),
        initialize({**ORDINARY_PARAMS[0], "capabilities": {"tasks": {}}}),
        initialize({**ORDINARY_PARAMS[0], "clientInfo": {"name": "c", "version": "1", "icons": []}}),
        initialize({**ORDINARY_PARAMS[0], "clientInfo": {"name": "c", "version": 1}}),
        initialize({**ORDINARY_PARAMS[0], "capabilities": {"experimental": {"x": {"ratio": 0.5}}}}),
        initialize(ORDINARY_PARAMS[0], True),
        initialize(ORDINARY_PARAMS[0], 2**63),
        initialize(ORDINARY_PARAMS[0], None),
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "initialize", "params": ORDINARY_PARAMS[0]},
        {"jsonrpc": "1.0", "id": 1, "method": "initialize", "params": ORDINARY_PARAMS[0]},
        [initialize(ORDINARY_PARAMS[0])],
    ],
)
def test_anything_unusual_is_left_to_the_sdk(message: Any) -> None:
    assert early.plain_initialize(json.dumps(message).encode()) is None


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","id":0,"id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        b'"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}',  # a duplicate key
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        b'"capabilities":{},"clientInfo":{"name":"c\\ud800","version":"1"}}}',  # a lone surrogate
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        b'"capabilities":{"experimental":{"x":{"n":NaN}}},"clientInfo":{"name":"c","version":"1"}}}',
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        b'"capabilities":{},"clientInfo":{"name":"\xff","version":"1"}}}',  # not UTF-8
        b"\xef\xbb\xbf" + json.dumps(initialize(ORDINARY_PARAMS[0])).encode(),  # a byte order mark
        json.dumps(initialize(ORDINARY_PARAMS[0])).encode() + b" x",
        json.dumps(initialize({**ORDINARY_PARAMS[0], "clientInfo": {"name": "c" * 70000, "version": "1"}})).encode(),
    ],
)
def test_lines_the_early_check_cannot_vouch_for_are_left_to_the_sdk(line: bytes) -> None:
    assert early.plain_initialize(line) is None


JSON_LEAVES = st.none() | st.booleans() | st.integers(-5, 2**64) | st.text(max_size=4)
KEYS = st.sampled_from(["roots", "sampling", "elicitation", "experimental", "extensions", "tasks", "listChanged",
                        "form", "url", "context", "tools", "name", "version", "title", "websiteUrl", "icons", "x"])
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(KEYS | st.text(max_size=3), inner, max_size=3), max_leaves=8)
CAPABILITY = st.fixed_dictionaries({}, optional={
    "listChanged": st.booleans() | JSON_LEAVES, "form": st.just({}) | JSON_VALUES, "url": st.just({}),
    "context": st.just({}) | JSON_VALUES, "tools": st.just({}),
})
PARAMS = st.fixed_dictionaries(
    {
        "protocolVersion": st.sampled_from([*early.HANDSHAKE_VERSIONS, "2026-07-28", "1999-01-01"]) | JSON_LEAVES,
        "capabilities": st.dictionaries(KEYS, CAPABILITY | st.dictionaries(st.text(max_size=3), CAPABILITY, max_size=2)
                                        | JSON_VALUES, max_size=4),
        "clientInfo": st.fixed_dictionaries({"name": st.text(max_size=4), "version": st.text(max_size=4)},
                                            optional={"title": st.text(max_size=3) | JSON_LEAVES,
                                                      "websiteUrl": st.text(max_size=3)})
        | st.dictionaries(KEYS, JSON_VALUES, max_size=4),
    },
    optional={"_meta": JSON_VALUES},
)


@settings(max_examples=150, deadline=None)
@given(params=PARAMS, request_id=st.integers(-(2**64), 2**64) | st.text(max_size=4) | JSON_LEAVES)
def test_whatever_the_early_path_answers_the_sdk_answers_the_same(params: dict[str, Any], request_id: Any) -> None:
    message = initialize(params, request_id)
    mine = early_reply(demo_spec(), message)
    if mine is not None:
        assert mine == sdk_reply(demo_spec(), message)


# over the wire ----------------------------------------------------------------------------


def read_all(client: StdioClient) -> list[dict[str, Any]]:
    messages = []
    while (message := client.receive()) is not None:
        messages.append(message)
    return messages


@pytest.mark.parametrize("module", SERVER_MODULES)
def test_each_server_answers_initialize_early_as_the_sdk_would(module: str) -> None:
    """The early reply (first line) against the SDK's (a ping first makes the SDK answer)."""
    answers = []
    for first in (None, {"jsonrpc": "2.0", "id": "p", "method": "ping"}):
        with StdioClient(module_command(module), timeout=LOADED_TIMEOUT) as client:
            if first is not None:
                client.send(first)
            client.send(initialize(initialize_params(), 1))
            client.close_stdin()
            messages = read_all(client)
            code, stderr = client.finish()
        assert code == 0 and "Traceback" not in stderr and "differs" not in stderr, stderr
        answers.append([m for m in messages if m.get("id") == 1])
    assert len(answers[0]) == 1 and "result" in answers[0][0]
    assert answers[0] == answers[1]


def test_requests_sent_while_the_sdk_loads_are_each_answered_once_and_the_id_can_be_reused() -> None:
    """(Answers may come in any order: requests run concurrently, a parse error is answered at once.)"""
    with StdioClient(demo_command(), timeout=LOADED_TIMEOUT) as client:
        client.send(initialize(initialize_params(), 0))
        first = client.receive()
        assert first["id"] == 0 and first["result"]["protocolVersion"] == PROTOCOL
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        client.send({"jsonrpc": "2.0", "id": 0, "method": "tools/list"})  # the answered id, used again
        client.send("not json")
        client.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}})
        client.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        client.close_stdin()
        rest = read_all(client)
        code, stderr = client.finish()
    assert code == 0 and "differs" not in stderr and "Traceback" not in stderr, stderr
    answers = {m.get("id"): m for m in rest}
    assert len(rest) == 4 and set(answers) == {0, None, 1, 2}
    assert "tools" in answers[0]["result"]
    assert answers[None]["error"]["code"] == -32700
    assert answers[1]["result"]["structuredContent"] == {"sum": 3}
    assert answers[2]["result"] == {}


def test_an_unusual_initialize_is_answered_by_the_sdk() -> None:
    with StdioClient(demo_command(), timeout=LOADED_TIMEOUT) as client:
        client.send(initialize({**initialize_params(), "_meta": {"progressToken": 5}}, "i"))
        answer = client.receive()
        assert answer["id"] == "i" and answer["result"]["serverInfo"]["name"] == "markmcp-demo"
        assert client.call_tool("add", {"a": 2, "b": 2})["structuredContent"] == {"sum": 4}
        code, stderr = client.finish()
    assert code == 0, stderr


def test_stdin_closing_right_after_initialize_ends_the_session_cleanly() -> None:
    with StdioClient(demo_command(), timeout=LOADED_TIMEOUT) as client:
        client.send(initialize(initialize_params(), 0))
        client.close_stdin()
        messages = read_all(client)
        code, stderr = client.finish()
    assert [m["id"] for m in messages] == [0]
    assert code == 0 and "Traceback" not in stderr, stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_request_running_when_a_signal_stops_the_server_is_answered(sig: signal.Signals) -> None:
    with StdioClient(demo_command(), timeout=LOADED_TIMEOUT) as client:
        client.initialize()
        slow = client.request("tools/call", {"name": "slow", "arguments": {"ms": 600_000}})
        assert client.call("ping")["result"] == {}  # the server is serving while the handler sleeps
        client.proc.send_signal(sig)
        answer = client.receive()
        code = client.proc.wait(timeout=20)
        stderr = client.proc.stderr.read().decode()
    assert answer is not None and answer["id"] == slow, stderr
    assert answer["error"]["code"] == -32000
    assert answer["error"]["message"].startswith("Connection closed")
    assert code == 0 and "Traceback" not in stderr, stderr


def test_requests_left_unanswered_when_the_session_ends_get_an_error_with_their_own_id() -> None:
    import io

    import anyio

    from markmcp.mcpcore.lines import StdioWire
    from markmcp.mcpcore.stdio import StdioSession

    async def run() -> list[dict[str, Any]]:
        session = StdioSession(StdioWire(reader=io.BytesIO(), writer=io.BytesIO()), signals=False)
        for request_id in ("7", 8):
            session.take(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}).encode())
        session.stop_for("the server is stopping (SIGTERM)")
        session.answer_the_rest()
        return [json.loads(session.lines_out.get_nowait()) for _ in range(session.lines_out.qsize())]

    answers = anyio.run(run)
    assert [answer["id"] for answer in answers] == ["7", 8]
    assert answers[0]["error"] == {
        "code": -32000,
        "message": "Connection closed: the server is stopping (SIGTERM); the request was cancelled",
    }


def test_the_layer_imports_in_one_direction() -> None:
    """No import cycle among the layer's modules, and nothing below ``app`` imports it.

    Every import counts: at module level, under ``TYPE_CHECKING`` and inside functions (a
    lazy import such as ``app`` -> ``transports`` is fine as long as it points down)."""
    import ast
    from pathlib import Path

    import markmcp.mcpcore

    folder = Path(markmcp.mcpcore.__file__).parent
    graph: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            found |= {name.split(".")[2] for name in names
                      if name.startswith("markmcp.mcpcore.") and (folder / f"{name.split('.')[2]}.py").exists()}
        graph[path.stem] = found - {path.stem}
    assert not [name for name, uses in graph.items() if "app" in uses and name != "__init__"]

    def visit(name: str, trail: tuple[str, ...]) -> None:
        assert name not in trail, " -> ".join((*trail, name))
        for used in graph.get(name, ()):
            visit(used, (*trail, name))

    for name in graph:
        visit(name, ())


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_request_sent_right_after_initialize_is_answered_when_a_signal_comes_at_once(sig: signal.Signals) -> None:
    """Whether the SDK is still loading or already serving when the signal comes, the request
    gets a "connection closed" error rather than nothing."""
    with StdioClient(demo_command(), timeout=LOADED_TIMEOUT) as client:
        client.send(initialize(initialize_params(), 0))
        assert client.receive()["id"] == 0
        client.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "slow", "arguments": {"ms": 600_000}}})
        client.proc.send_signal(sig)
        answer = client.receive()
        code = client.proc.wait(timeout=20)
        stderr = client.proc.stderr.read().decode()
    assert answer is not None and answer["id"] == 1, stderr
    assert answer["error"]["code"] == -32000 and answer["error"]["message"].startswith("Connection closed"), answer
    assert code == 0 and "Traceback" not in stderr, stderr


def test_the_early_reply_declares_subscriptions_and_completions_when_the_spec_offers_them() -> None:
    """The conformance fixture offers a subscribable resource and a completing prompt
    argument: the reply our code gives before the SDK loads says so, as the SDK's does."""
    with StdioClient([sys.executable, str(Path(__file__).with_name("conformance_fixture.py"))],
                     timeout=LOADED_TIMEOUT) as client:
        client.send(initialize(initialize_params(), 0))
        capabilities = client.receive()["result"]["capabilities"]
    assert capabilities["resources"]["subscribe"] is True and capabilities["completions"] == {}


@pytest.mark.parametrize("method", early.LISTS)
def test_the_early_lists_are_the_sdks_for_every_server(method: str) -> None:
    """tools/list, prompts/list, resources/list and resources/templates/list answered before
    the SDK is loaded: the result the SDK's server loop gives, for every server."""
    for spec in specs():
        replies = sdk_replies(spec, [initialize(ORDINARY_PARAMS[0], 0),
                                     {"jsonrpc": "2.0", "method": "notifications/initialized"},
                                     {"jsonrpc": "2.0", "id": 1, "method": method}], 2)
        assert replies[1] == {"jsonrpc": "2.0", "id": 1, "result": early.list_result(spec, method)}, spec.name


def _early_session(lines: list[Any]) -> tuple[list[dict[str, Any]], list[Any]]:
    """What the early path writes for ``lines`` (each a message or raw bytes) before the SDK is
    ready, and the backlog it hands over."""
    import io

    from markmcp.mcpcore.lines import END_OF_INPUT, LineReader, StdioWire

    data = b"".join(line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n" for line in lines)
    out = io.BytesIO()
    reader = LineReader(io.BytesIO(data))
    reader.start()
    reader.thread.join(10)
    reader.post(early.SDK_READY)
    backlog: list[Any] = []
    spec = importlib.import_module("markmcp.figdown.server").SPEC
    early.wait_for_sdk(spec, reader, StdioWire(io.BytesIO(), out), backlog)
    assert backlog[-1] is END_OF_INPUT
    return [json.loads(line) for line in out.getvalue().splitlines()], backlog[:-1]


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def test_plain_lists_after_the_handshake_are_answered_before_the_sdk_is_loaded() -> None:
    """A client lists the tools as soon as it has connected: the answer waited for the SDK's
    import (about 0.6 s).  Each plain list under a fresh id is answered from the spec."""
    sent, backlog = _early_session([
        initialize(ORDINARY_PARAMS[0], 0), INITIALIZED,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "p", "method": "prompts/list", "params": {}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "figdown_help", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 4, "method": "resources/list"},
        {"jsonrpc": "2.0", "id": 5, "method": "resources/templates/list"},
    ])
    assert [m["id"] for m in sent] == [0, 1, "p", 4, 5]
    spec = importlib.import_module("markmcp.figdown.server").SPEC
    assert sent[1]["result"] == early.list_result(spec, "tools/list")
    assert [m["method"] for m in (json.loads(getattr(item, "line", item)) for item in backlog)] == [
        "initialize", "notifications/initialized", "tools/list", "prompts/list", "tools/call",
        "resources/list", "resources/templates/list"]   # all replayed to the SDK, in order
    assert [type(item).__name__ for item in backlog].count("Answered") == 5


@pytest.mark.parametrize("lines", [
    # before the client said it is initialized
    [initialize(ORDINARY_PARAMS[0], 0), {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}],
    # with parameters (a cursor) or an odd shape
    [initialize(ORDINARY_PARAMS[0], 0), INITIALIZED, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": "x"}}],
    [initialize(ORDINARY_PARAMS[0], 0), INITIALIZED, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "extra": 1}],
    [initialize(ORDINARY_PARAMS[0], 0), INITIALIZED, {"jsonrpc": "2.0", "id": True, "method": "tools/list"}],
    [initialize(ORDINARY_PARAMS[0], 0), INITIALIZED, b'{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}\n'],
    # under an id another request read so far carries ("7" and 7 are one id to the SDK)
    [initialize(ORDINARY_PARAMS[0], 0), INITIALIZED, {"jsonrpc": "2.0", "id": 0, "method": "tools/list"}],
    [initialize(ORDINARY_PARAMS[0], 0), INITIALIZED, {"jsonrpc": "2.0", "id": 7, "method": "ping"},
     {"jsonrpc": "2.0", "id": "7", "method": "tools/list"}],
    # no early initialize, or something between it and the notification
    [initialize({"protocolVersion": "2025-06-18", "capabilities": {}}, 0), INITIALIZED,
     {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}],
    [initialize(ORDINARY_PARAMS[0], 0), {"jsonrpc": "2.0", "id": 9, "method": "ping"}, INITIALIZED,
     {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}],
])
def test_a_list_the_early_path_cannot_vouch_for_is_left_to_the_sdk(lines: list[Any]) -> None:
    sent, backlog = _early_session(lines)
    assert len(sent) <= 1 and all(m["id"] == 0 for m in sent)
    assert len(backlog) == len(lines)


def test_lists_answered_early_are_answered_once_over_the_wire_and_match_the_sdks() -> None:
    """A real server: the early answers, then the SDK's replies to the replayed requests
    compared and dropped (a mismatch is logged as "differs"), and later calls served."""
    with StdioClient(module_command("markmcp.figdown.server"), timeout=LOADED_TIMEOUT) as client:
        client.send(initialize(initialize_params(), 0))
        client.send(INITIALIZED)
        for k, method in enumerate(early.LISTS, start=1):
            client.send({"jsonrpc": "2.0", "id": k, "method": method})
        client.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})   # an id answered early, used again
        client.close_stdin()
        messages = read_all(client)
        code, stderr = client.finish()
    assert code == 0 and "differs" not in stderr and "Traceback" not in stderr, stderr
    assert sorted(str(m["id"]) for m in messages) == ["0", "1", "1", "2", "3", "4"]
    tools = next(m for m in messages if m["id"] == 1 and "tools" in m["result"])["result"]["tools"]
    assert "figdown_build" in {t["name"] for t in tools}
