"""Text no UTF-8 can carry (a lone surrogate) never ends a session or leaves a request unanswered.

A file name that is not UTF-8 reaches Python as a string holding a lone surrogate
(``b"\\xff"`` -> ``"\\udcff"``), and so does a ``\\ud800`` escape in a JSON or YAML file.
Before the fix, a result holding one failed in the transport's encoder: over stdio the
server died with a traceback and every later request went unanswered; over HTTP the call
was answered "Connection closed", which is not what happened.  The demo server's
``surrogate`` tool and ``demo://surrogate/{where}`` resource put one in each place a
handler can.
"""

from __future__ import annotations

import mcp_types as types
import pytest
from mcpwire import HttpClient, demo_client, demo_http

from markmcp.mcpcore import wire


def test_stdio_session_survives_every_kind_of_lone_surrogate() -> None:
    with demo_client() as client:
        client.initialize()
        assert "result" in client.call("logging/setLevel", {"level": "info"})

        result = client.call_tool("surrogate", {"where": "result"})
        assert result["isError"] is True
        text = result["content"][0]["text"]
        assert "structuredContent.files[1] holds a lone surrogate \\udcff, which is not a character" in text

        text_only = client.call_tool("surrogate", {"where": "text"})
        assert text_only["isError"] is True and "content[1].text holds a lone surrogate" in text_only["content"][0]["text"]

        error = client.call_tool("surrogate", {"where": "error"})
        assert error["isError"] is True
        assert error["content"][0]["text"] == "cannot read b\\udcff.md"
        assert error["structuredContent"] == {"path": "b\\udcff.md"}

        crash = client.call_tool("surrogate", {"where": "crash"})
        assert crash["isError"] is True and "cannot read b\\udcff.md" in crash["content"][0]["text"]

        request = client.request("tools/call", {"name": "surrogate", "arguments": {"where": "log"}})
        log = client.receive()
        assert log is not None and log["method"] == "notifications/message"
        assert log["params"]["data"] == "skipping b\\udcff.md"
        assert client.response(request)["result"]["isError"] is False

        read = client.call("resources/read", {"uri": "demo://surrogate/text"})
        assert read["error"]["code"] == types.INTERNAL_ERROR
        assert "result.contents[0].text holds a lone surrogate \\udcff" in read["error"]["message"]
        refused = client.call("resources/read", {"uri": "demo://surrogate/error"})
        assert refused["error"]["message"] == "cannot read b\\udcff.md"

        assert client.call("ping") == {"jsonrpc": "2.0", "id": client.next_id, "result": {}}
        code, stderr = client.finish()
    assert code == 0, stderr
    assert "PydanticSerializationError" not in stderr and "UnicodeEncodeError" not in stderr


def test_http_answers_a_lone_surrogate_with_what_happened() -> None:
    with demo_http("http") as server:
        client = HttpClient(server.port)
        client.initialize()
        result = client.call("tools/call", {"name": "surrogate", "arguments": {"where": "result"}})["result"]
        assert result["isError"] is True and "holds a lone surrogate \\udcff" in result["content"][0]["text"]
        read = client.call("resources/read", {"uri": "demo://surrogate/text"})
        assert read["error"]["code"] == types.INTERNAL_ERROR and "lone surrogate \\udcff" in read["error"]["message"]
        refused = client.call("resources/read", {"uri": "demo://surrogate/error"})
        assert refused["error"]["message"] == "cannot read b\\udcff.md"
        assert client.call("ping")["result"] == {}
        code, _, stderr = server.stop()
    assert code == 0, stderr
    assert "PydanticSerializationError" not in stderr


@pytest.mark.parametrize("value", ["a\udcffb", {"k\ud800": 1}, ["x", "\udfff"]])
def test_encode_never_fails_on_a_lone_surrogate(value: object) -> None:
    response = types.JSONRPCResponse(jsonrpc="2.0", id=7, result={"value": value})
    answer = types.jsonrpc_message_adapter.validate_json(wire.encode(response))
    assert isinstance(answer, types.JSONRPCError) and answer.id == 7
    assert answer.error.code == types.INTERNAL_ERROR and "lone surrogate \\ud" in answer.error.message
    assert "result.value" in answer.error.message

    note = types.JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params={"data": value})
    sent = types.jsonrpc_message_adapter.validate_json(wire.encode(note))
    assert wire.lone_surrogate(sent.model_dump(mode="json")) is None
    assert "\\ud" in wire.encode(note).decode()


def test_a_paired_surrogate_escape_is_one_character() -> None:
    response = types.JSONRPCResponse(jsonrpc="2.0", id=1, result={"v": "\U0001f600"})
    assert wire.encode(response) == '{"jsonrpc":"2.0","id":1,"result":{"v":"\U0001f600"}}'.encode()
    assert wire.lone_surrogate({"v": "\U0001f600"}) is None
