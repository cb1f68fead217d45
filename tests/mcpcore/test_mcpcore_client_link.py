"""The shared layer's richer protocol paths, over stdio on the conformance fixture server.

Content blocks other than text (images, audio, embedded resources) in tool results and
prompt messages, binary resources, subscriptions, prompt-argument completions, and a
tool handler reaching its client during the call (``CallContext.client``): progress
notifications, sampling and elicitation requests, each with the client's answers,
refusals and missing capabilities.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcpwire import StdioClient

from markmcp.mcpcore import EmbeddedResource
from markmcp.mcpcore.handlers import content_block

FIXTURE = Path(__file__).resolve().parent / "conformance_fixture.py"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
Answer = Callable[[dict[str, Any]], dict[str, Any]]


class FixtureClient(StdioClient):
    """A client of the fixture server, with the server's ``initialize`` answer."""

    def __init__(self, capabilities: dict[str, Any] | None = None) -> None:
        # A longer bound than the default: one start serves the whole module, and a loaded
        # machine (parallel test workers) can take more than 20 s to import the SDK.
        super().__init__([sys.executable, str(FIXTURE)], timeout=60.0)
        self.initialized = self.initialize(capabilities)["result"]


@pytest.fixture(scope="module")
def client() -> Iterator[FixtureClient]:
    """One server for the module (starting one costs seconds); the tests share no state."""
    with FixtureClient({"sampling": {}, "elicitation": {}}) as c:
        yield c


@pytest.fixture(scope="module")
def bare_client() -> Iterator[FixtureClient]:
    """A client that declares no capabilities."""
    with FixtureClient() as c:
        yield c


def exchange(
    client: StdioClient, method: str, params: dict[str, Any], answer: Answer | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """Send a request; answer the server's own requests with ``answer`` (a JSON-RPC result,
    or ``{"error": ...}``) until the response comes.  Returns the response, the
    notifications and the server's requests seen before it, in order."""
    request_id = client.request(method, params)
    notifications: list[dict[str, Any]] = []
    asked: list[dict[str, Any]] = []
    while True:
        message = client.receive()
        assert message is not None, "server closed stdout before answering"
        if "method" in message and "id" in message:
            asked.append(message)
            assert answer is not None, f"unexpected request from the server: {message}"
            reply = answer(message)
            body = {"error": reply["error"]} if "error" in reply else {"result": reply}
            client.send({"jsonrpc": "2.0", "id": message["id"], **body})
        elif "method" in message:
            notifications.append(message)
        elif message.get("id") == request_id:
            return message, notifications, asked


def call_tool(client: FixtureClient, name: str, arguments: dict[str, Any] | None = None, *,
              answer: Answer | None = None, meta: dict[str, Any] | None = None):
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if meta is not None:
        params["_meta"] = meta
    response, notifications, asked = exchange(client, "tools/call", params, answer)
    assert "result" in response, response
    return response["result"], notifications, asked


# content blocks ------------------------------------------------------------------------


def test_image_content_is_a_base64_png(client: FixtureClient) -> None:
    result, _, _ = call_tool(client, "test_image_content")
    assert result["isError"] is False
    [block] = result["content"]
    assert block["type"] == "image" and block["mimeType"] == "image/png"
    assert base64.b64decode(block["data"], validate=True).startswith(PNG_SIGNATURE)


def test_audio_content_is_a_base64_wav(client: FixtureClient) -> None:
    result, _, _ = call_tool(client, "test_audio_content")
    [block] = result["content"]
    assert block["type"] == "audio" and block["mimeType"] == "audio/wav"
    data = base64.b64decode(block["data"], validate=True)
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    assert int.from_bytes(data[4:8], "little") == len(data) - 8


def test_mixed_content_keeps_order_and_kinds(client: FixtureClient) -> None:
    result, _, _ = call_tool(client, "test_multiple_content_types")
    assert [block["type"] for block in result["content"]] == ["text", "image", "resource"]
    assert result["content"][0]["text"] == "Multiple content types test:"
    resource = result["content"][2]["resource"]
    assert resource["uri"] == "test://mixed-content-resource"
    assert resource["mimeType"] == "application/json"
    assert json.loads(resource["text"]) == {"test": "data", "value": 123}
    assert "blob" not in resource


def test_embedded_resource_needs_exactly_one_of_text_and_blob() -> None:
    with pytest.raises(ValueError, match="exactly one of text and blob"):
        EmbeddedResource("x://a", "text/plain")
    with pytest.raises(ValueError, match="exactly one of text and blob"):
        EmbeddedResource("x://a", "text/plain", text="t", blob=b"b")
    block = content_block(EmbeddedResource("x://a", "application/octet-stream", blob=b"\x00\xff"))
    assert block.resource.blob == "AP8="
    with pytest.raises(TypeError, match="not a content item: int"):
        content_block(3)  # type: ignore[arg-type]


# logging and progress during a call -------------------------------------------------------


def test_log_records_reach_the_client_before_the_result(client: FixtureClient) -> None:
    assert "result" in client.call("logging/setLevel", {"level": "info"})
    result, notifications, _ = call_tool(client, "test_tool_with_logging")
    assert result["isError"] is False
    logged = [n["params"] for n in notifications if n["method"] == "notifications/message"]
    assert [entry["data"] for entry in logged] == [
        "Tool execution started", "Tool processing data", "Tool execution completed",
    ]
    assert {entry["level"] for entry in logged} == {"info"}


def test_progress_notifications_carry_the_callers_token(client: FixtureClient) -> None:
    result, notifications, _ = call_tool(client, "test_tool_with_progress", meta={"progressToken": "tok-7"})
    assert result["isError"] is False
    progress = [n["params"] for n in notifications if n["method"] == "notifications/progress"]
    assert [(p["progressToken"], p["progress"], p["total"]) for p in progress] == [
        ("tok-7", 0, 100), ("tok-7", 50, 100), ("tok-7", 100, 100),
    ]


def test_no_progress_without_a_token(client: FixtureClient) -> None:
    result, notifications, _ = call_tool(client, "test_tool_with_progress")
    assert result["isError"] is False
    assert [n for n in notifications if n["method"] == "notifications/progress"] == []


# sampling and elicitation -------------------------------------------------------------------


def test_sampling_asks_the_client_and_uses_its_answer(client: FixtureClient) -> None:
    def model(request: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "forty-two"}, "model": "m",
                "stopReason": "endTurn"}

    result, _, asked = call_tool(client, "test_sampling", {"prompt": "What is six times seven?"}, answer=model)
    [request] = asked
    assert request["method"] == "sampling/createMessage"
    assert request["params"]["maxTokens"] == 100
    assert request["params"]["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "What is six times seven?"}}
    ]
    assert result["isError"] is False
    assert result["content"][0]["text"] == "LLM response: forty-two"


def test_sampling_refused_by_the_client_is_a_tool_error(client: FixtureClient) -> None:
    def refuse(request: dict[str, Any]) -> dict[str, Any]:
        return {"error": {"code": -1, "message": "User rejected sampling request"}}

    result, _, asked = call_tool(client, "test_sampling", {"prompt": "hi"}, answer=refuse)
    assert len(asked) == 1
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        "the client answered sampling/createMessage with an error: User rejected sampling request"
    )


def test_a_malformed_sampling_answer_is_a_tool_error(client: FixtureClient) -> None:
    result, _, _ = call_tool(client, "test_sampling", {"prompt": "hi"}, answer=lambda request: {"role": 5})
    assert result["isError"] is True
    assert "sampling/createMessage" in result["content"][0]["text"]


@pytest.mark.parametrize(("tool", "arguments", "capability"), [
    ("test_sampling", {"prompt": "hi"}, "sampling"),
    ("test_elicitation", {"message": "who?"}, "elicitation"),
])
def test_no_request_to_a_client_without_the_capability(
    bare_client: FixtureClient, tool: str, arguments: dict, capability: str
) -> None:
    result, _, asked = call_tool(bare_client, tool, arguments)
    assert asked == []
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        f"the client does not offer {capability} (it declared no '{capability}' capability)"
    )


def test_elicitation_sends_the_schema_and_reports_the_answer(client: FixtureClient) -> None:
    def user(request: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"username": "ada", "email": "ada@example.org"}}

    result, _, asked = call_tool(client, "test_elicitation", {"message": "Who are you?"}, answer=user)
    [request] = asked
    assert request["method"] == "elicitation/create"
    assert request["params"]["message"] == "Who are you?"
    assert request["params"]["requestedSchema"]["required"] == ["username", "email"]
    assert result["content"][0]["text"] == (
        'User response: action=accept, content={"username": "ada", "email": "ada@example.org"}'
    )


def test_elicitation_schema_keeps_defaults_and_enum_forms(client: FixtureClient) -> None:
    _, _, asked = call_tool(client, "test_elicitation_sep1034_defaults", answer=lambda r: {"action": "decline"})
    properties = asked[0]["params"]["requestedSchema"]["properties"]
    assert {name: p["default"] for name, p in properties.items()} == {
        "name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True,
    }
    result, _, asked = call_tool(client, "test_elicitation_sep1330_enums", answer=lambda r: {"action": "cancel"})
    properties = asked[0]["params"]["requestedSchema"]["properties"]
    assert properties["legacyEnum"]["enumNames"] == ["Option One", "Option Two", "Option Three"]
    assert properties["titledMulti"]["items"]["anyOf"][0] == {"const": "value1", "title": "First Choice"}
    assert result["content"][0]["text"] == "Elicitation completed: action=cancel, content=null"


# resources, subscriptions, prompts, completions ---------------------------------------------


def test_capabilities_follow_what_the_server_offers(client: FixtureClient) -> None:
    capabilities = client.initialized["capabilities"]
    assert capabilities["resources"]["subscribe"] is True
    assert "completions" in capabilities


def test_binary_resource_is_a_base64_blob(client: FixtureClient) -> None:
    [contents] = client.call("resources/read", {"uri": "test://static-binary"})["result"]["contents"]
    assert contents["mimeType"] == "image/png" and "text" not in contents
    assert base64.b64decode(contents["blob"], validate=True).startswith(PNG_SIGNATURE)


def test_subscriptions(client: FixtureClient) -> None:
    assert client.call("resources/subscribe", {"uri": "test://watched-resource"})["result"] == {}
    assert client.call("resources/unsubscribe", {"uri": "test://watched-resource"})["result"] == {}
    assert client.call("resources/unsubscribe", {"uri": "test://never-subscribed"})["result"] == {}
    refused = client.call("resources/subscribe", {"uri": "test://static-text"})["error"]
    assert refused["code"] == -32602
    assert refused["message"] == "Not a resource one can subscribe to: test://static-text"


def test_prompt_messages_carry_images_and_resources(client: FixtureClient) -> None:
    result = client.call("prompts/get", {"name": "test_prompt_with_embedded_resource",
                                         "arguments": {"resourceUri": "test://doc"}})["result"]
    first, second = (m["content"] for m in result["messages"])
    assert first == {"type": "resource", "resource": {"uri": "test://doc", "mimeType": "text/plain",
                                                      "text": "Embedded resource content for testing."}}
    assert second == {"type": "text", "text": "Please process the embedded resource above."}
    result = client.call("prompts/get", {"name": "test_prompt_with_image"})["result"]
    assert [m["content"]["type"] for m in result["messages"]] == ["image", "text"]
    assert {m["role"] for m in result["messages"]} == {"user"}


def test_prompt_argument_completion(client: FixtureClient) -> None:
    def complete(argument: str, value: str) -> dict[str, Any]:
        params = {"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                  "argument": {"name": argument, "value": value}}
        return client.call("completion/complete", params)

    assert complete("arg1", "par")["result"]["completion"] == {
        "values": ["paris", "park", "party"], "total": 3, "hasMore": False,
    }
    assert complete("arg2", "zzz")["result"]["completion"]["values"] == []
    assert complete("arg3", "")["error"]["code"] == -32602
