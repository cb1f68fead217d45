"""The MCP conformance suite's fixtures, served by the shared layer (test material, not shipped).

``@modelcontextprotocol/conformance`` (``conformance server --url ...``) expects the
server under test to define its own test tools, resources and prompts
(``test_simple_text``, ``test://static-text``, ``test_simple_prompt``, ...).  This server
defines exactly those, each through the public ``markmcp.mcpcore`` API, so a run of the
whole suite against it exercises every path of the layer the scenarios reach: content
blocks of every kind, log and progress notifications during a call, sampling and
elicitation requests to the client, binary resources, subscriptions, prompt messages
with images and embedded resources, and completions.

Run it as a script: ``python tests/mcpcore/conformance_fixture.py --transport http --port 0``.
"""

from __future__ import annotations

import json
import logging
import struct
import sys
import time
import zlib
from collections.abc import Mapping
from typing import Any

from markmcp.mcpcore import (
    Audio,
    CallContext,
    Content,
    EmbeddedResource,
    Image,
    Prompt,
    PromptArgument,
    Resource,
    ResourceTemplate,
    ServerSpec,
    Tool,
    ToolError,
    serve,
)
from markmcp.mcpcore.spec import ClientLink

log = logging.getLogger("markmcp.conformance")

NO_ARGUMENTS: dict[str, Any] = {"type": "object"}
TEXT_RESULT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
ANY_RESULT: dict[str, Any] = {"type": "object"}


def png_pixel(red: int, green: int, blue: int) -> bytes:
    """A 1x1 RGB PNG of one colour (signature, IHDR, IDAT, IEND; each chunk with its CRC)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # width, height, depth 8, RGB, defaults
    scanline = bytes([0, red, green, blue])  # filter type 0, then the pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(scanline)) + chunk(b"IEND", b"")


def wav_silence(samples: int = 80, rate: int = 8000) -> bytes:
    """A short mono 16-bit PCM WAV file of silence."""
    data = b"\x00\x00" * samples
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


RED_PIXEL = png_pixel(255, 0, 0)


def text_result(text: str) -> dict[str, Any]:
    return {"text": text}


def as_text(result: dict[str, Any]) -> str:
    return result["text"]


def client_of(ctx: CallContext) -> ClientLink:
    if ctx.client is None:
        raise ToolError("no client to ask: this call did not come through tools/call")
    return ctx.client


def simple_text(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return text_result("This is a simple text response for testing.")


def image_content(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return {"pixel": "red"}


def audio_content(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return {"samples": 80}


def embedded_resource(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return {"uri": "test://embedded-resource"}


def mixed_content(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return {"items": 3}


def mixed_blocks(result: dict[str, Any]) -> list[Content]:
    return [
        "Multiple content types test:",
        Image(RED_PIXEL, "image/png"),
        EmbeddedResource(
            "test://mixed-content-resource", "application/json", text=json.dumps({"test": "data", "value": 123})
        ),
    ]


def with_logging(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    log.info("Tool execution started")
    time.sleep(0.05)
    log.info("Tool processing data")
    time.sleep(0.05)
    log.info("Tool execution completed")
    return text_result("Tool with logging executed successfully")


def error_handling(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    raise ToolError("This tool intentionally returns an error for testing")


def with_progress(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    client = client_of(ctx)
    for step, done in enumerate((0, 50, 100)):
        if step:
            time.sleep(0.05)
        client.progress(done, 100, f"{done}% done")
    return text_result("Tool with progress executed successfully")


def sampling(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    answer = client_of(ctx).sample(args["prompt"], max_tokens=100)
    content = answer.get("content")
    said = content.get("text", "") if isinstance(content, dict) else ""
    return text_result(f"LLM response: {said}")


USER_SCHEMA = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


def elicitation(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    answer = client_of(ctx).elicit(args["message"], USER_SCHEMA)
    return text_result(f"User response: action={answer['action']}, content={json.dumps(answer.get('content'))}")


DEFAULTS_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Your name", "default": "John Doe"},
        "age": {"type": "integer", "description": "Your age", "default": 30},
        "score": {"type": "number", "description": "Your score", "default": 95.5},
        "status": {
            "type": "string", "description": "Account status", "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Whether verified", "default": True},
    },
}


def elicitation_defaults(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    answer = client_of(ctx).elicit("Please review and update the form fields with defaults", DEFAULTS_SCHEMA)
    return elicited(answer)


def titled(prefix: str, titles: tuple[str, ...]) -> list[dict[str, str]]:
    return [{"const": f"{prefix}{n}", "title": title} for n, title in enumerate(titles, 1)]


ENUMS_SCHEMA = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "description": "Pick one", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string", "description": "Pick one (titled)",
            "oneOf": titled("value", ("First Option", "Second Option", "Third Option")),
        },
        "legacyEnum": {
            "type": "string", "description": "Pick one (legacy titles)", "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array", "description": "Pick any",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array", "description": "Pick any (titled)",
            "items": {"anyOf": titled("value", ("First Choice", "Second Choice", "Third Choice"))},
        },
    },
}


def elicitation_enums(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return elicited(client_of(ctx).elicit("Please choose from the enum fields", ENUMS_SCHEMA))


def elicited(answer: dict[str, Any]) -> dict[str, Any]:
    return text_result(f"Elicitation completed: action={answer['action']}, content={json.dumps(answer.get('content'))}")


def fixture_tool(name: str, description: str, handler: Any, *, text: Any = as_text,
                 input_schema: dict[str, Any] = NO_ARGUMENTS, output_schema: dict[str, Any] = TEXT_RESULT) -> Tool:
    return Tool(
        name=name, title=name, description=description, input_schema=input_schema, output_schema=output_schema,
        handler=handler, read_only=True, text=text,
    )


def one_string(name: str, description: str) -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": "string", "description": description}}, "required": [name]}


TOOLS = [
    fixture_tool("test_simple_text", "Returns one text block.", simple_text),
    fixture_tool("test_image_content", "Returns a 1x1 red PNG image.", image_content, output_schema=ANY_RESULT,
                 text=lambda result: [Image(RED_PIXEL, "image/png")]),
    fixture_tool("test_audio_content", "Returns a short WAV clip of silence.", audio_content,
                 output_schema=ANY_RESULT, text=lambda result: [Audio(wav_silence(), "audio/wav")]),
    fixture_tool("test_embedded_resource", "Returns an embedded text resource.", embedded_resource,
                 output_schema=ANY_RESULT,
                 text=lambda result: [EmbeddedResource(result["uri"], "text/plain",
                                                       text="This is an embedded resource content.")]),
    fixture_tool("test_multiple_content_types", "Returns text, an image and an embedded resource.", mixed_content,
                 output_schema=ANY_RESULT, text=mixed_blocks),
    fixture_tool("test_tool_with_logging", "Logs three info records 50 ms apart.", with_logging),
    fixture_tool("test_error_handling", "Always fails.", error_handling),
    fixture_tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100, 50 ms apart.", with_progress),
    fixture_tool("test_sampling", "Asks the client's model to answer a prompt.", sampling,
                 input_schema=one_string("prompt", "The prompt to send to the model")),
    fixture_tool("test_elicitation", "Asks the user for a name and an e-mail address.", elicitation,
                 input_schema=one_string("message", "The message to show the user")),
    fixture_tool("test_elicitation_sep1034_defaults", "Asks the user for values with defaults (SEP-1034).",
                 elicitation_defaults),
    fixture_tool("test_elicitation_sep1330_enums", "Asks the user to pick from enums (SEP-1330).",
                 elicitation_enums),
]

RESOURCES = [
    Resource(
        uri="test://static-text", name="static-text", description="A fixed text resource.", mime_type="text/plain",
        handler=lambda ctx: "This is the content of the static text resource.",
    ),
    Resource(
        uri="test://static-binary", name="static-binary", description="A fixed binary resource (a PNG image).",
        mime_type="image/png", handler=lambda ctx: RED_PIXEL,
    ),
    Resource(
        uri="test://watched-resource", name="watched-resource", description="A resource one can subscribe to.",
        mime_type="text/plain", handler=lambda ctx: "Watched resource content.", subscribable=True,
    ),
]


def template_data(params: dict[str, str], ctx: CallContext) -> str:
    return json.dumps({"id": params["id"], "templateTest": True, "data": f"Data for ID: {params['id']}"})


TEMPLATES = [
    ResourceTemplate(
        uri_template="test://template/{id}/data", name="template-data", description="Data for one id.",
        mime_type="application/json", handler=template_data,
    ),
]

WORDS = ("paris", "park", "party", "test", "testing")


def complete_word(prefix: str, chosen: Mapping[str, str]) -> list[str]:
    return [word for word in WORDS if word.startswith(prefix)]


PROMPTS = [
    Prompt(
        name="test_simple_prompt", title="Simple prompt", description="A prompt without arguments.",
        text=lambda args: "This is a simple prompt for testing.",
    ),
    Prompt(
        name="test_prompt_with_arguments", title="Prompt with arguments", description="A prompt with two arguments.",
        text=lambda args: f"Prompt with arguments: arg1='{args['arg1']}', arg2='{args['arg2']}'",
        arguments=(
            PromptArgument("arg1", "First test argument", required=True, complete=complete_word),
            PromptArgument("arg2", "Second test argument", required=True, complete=complete_word),
        ),
    ),
    Prompt(
        name="test_prompt_with_embedded_resource", title="Prompt with a resource",
        description="A prompt embedding the resource it is given.",
        text=lambda args: [
            EmbeddedResource(args["resourceUri"], "text/plain", text="Embedded resource content for testing."),
            "Please process the embedded resource above.",
        ],
        arguments=(PromptArgument("resourceUri", "URI of the resource to embed", required=True),),
    ),
    Prompt(
        name="test_prompt_with_image", title="Prompt with an image", description="A prompt showing an image.",
        text=lambda args: [Image(RED_PIXEL, "image/png"), "Please analyze the image above."],
    ),
]

SPEC = ServerSpec(
    name="markmcp-conformance-fixture",
    version="0.0.1",
    instructions="The MCP conformance suite's fixtures on the markmcp shared MCP layer.",
    tools=TOOLS,
    resources=RESOURCES,
    resource_templates=TEMPLATES,
    prompts=PROMPTS,
    default_port=3098,
    prog="conformance-fixture-mcp",
    uses_roots=False,
    write_gate=False,
)


def main() -> int:
    return serve(SPEC)


if __name__ == "__main__":
    sys.exit(main())
