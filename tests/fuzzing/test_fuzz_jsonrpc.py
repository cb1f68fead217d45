"""Fuzzing the JSON-RPC layer, CI-sized (Hypothesis; derandomized in CI).

In process: random and edited JSON-RPC lines go into the stdio session's line handler
(``StdioSession.take``, see ``tests/fuzz_targets.py``): each line gets at most one answer,
a well-formed JSON-RPC error, or is delivered as exactly one message; nothing escapes.
Over the wire: the same kind of lines go to a real demo server on stdio, each followed by
a ping that must still be answered; everything the server writes is well-formed JSON-RPC
and it exits cleanly at the end.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz_targets import ALPHABETS, jsonrpc_runner, jsonrpc_seeds
from mcpwire import StdioClient, demo_client

from .strategies import edited

SEEDS = jsonrpc_seeds(None)  # type: ignore[arg-type]  (built in, no corpus folder needed)
KEYS = ("jsonrpc", "id", "method", "params", "result", "error", "code", "message", "name", "arguments", "_meta",
        "requestId", "progressToken", "uri", "cursor", "protocolVersion", "capabilities")
METHODS = ("initialize", "ping", "tools/list", "tools/call", "resources/read", "resources/templates/list",
           "completion/complete", "logging/setLevel", "notifications/initialized", "notifications/cancelled",
           "prompts/list", "nope")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
    | st.sampled_from(METHODS) | st.just("2.0"),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6),
                                                                      children, max_size=5),
    max_leaves=25,
)


@st.composite
def message_like(draw: Any) -> str:
    """A JSON object built from JSON-RPC's keys with random values (mostly near-valid)."""
    message: dict[str, Any] = {}
    if draw(st.booleans()):
        message["jsonrpc"] = draw(st.sampled_from(["2.0", "2.0", "1.0", 2, None]))
    if draw(st.booleans()):
        message["id"] = draw(st.one_of(st.integers(), st.text(max_size=8), json_values))
    if draw(st.booleans()):
        message["method"] = draw(st.one_of(st.sampled_from(METHODS), json_values))
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=3)):
        message[key] = draw(json_values)
    return json.dumps(message)


lines = st.one_of(
    edited(SEEDS, ALPHABETS["jsonrpc"]),
    message_like(),
    st.builds(json.dumps, json_values),
    st.text(alphabet=ALPHABETS["jsonrpc"], max_size=200),
)
raw_lines = st.one_of(lines.map(lambda text: text.encode("utf-8", "surrogatepass")), st.binary(max_size=200))

FUZZ = settings(max_examples=150, deadline=timedelta(seconds=10), suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(batch=st.lists(raw_lines, min_size=1, max_size=8))
def test_each_line_gets_at_most_one_well_formed_answer(batch: list[bytes]) -> None:
    async def session() -> None:
        run = jsonrpc_runner()
        for line in batch:
            run(line)

    anyio.run(session)


@pytest.fixture(scope="module")
def server() -> Any:
    with demo_client() as client:
        client.initialize()
        yield client


def _well_formed(message: Any) -> None:
    assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", message
    if "method" in message:
        assert isinstance(message["method"], str)
        return
    assert ("result" in message) != ("error" in message), message
    assert message["id"] is None or isinstance(message["id"], (str, int)), message
    if "error" in message:
        assert isinstance(message["error"]["code"], int) and isinstance(message["error"]["message"], str)


sync_ids = iter(range(10**9))


@settings(FUZZ, max_examples=150)
@given(line=raw_lines.filter(lambda raw: b"\n" not in raw and b"\r" not in raw))
def test_a_live_server_keeps_answering(server: StdioClient, line: bytes) -> None:
    assert server.proc.stdin is not None
    server.proc.stdin.write(line + b"\n")
    sync = f"sync-{next(sync_ids)}"
    server.send({"jsonrpc": "2.0", "id": sync, "method": "ping"})
    while True:
        message = server.receive()
        assert message is not None, "the server closed stdout"
        _well_formed(message)
        if message.get("id") == sync and "result" in message:
            break


def test_the_fuzzed_server_exits_cleanly(server: StdioClient) -> None:
    code, stderr = server.finish()
    assert code == 0 and "Traceback" not in stderr, stderr[-2000:]
