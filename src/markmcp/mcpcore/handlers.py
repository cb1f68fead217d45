"""The MCP request handlers of a markmcp server, on the SDK's low-level ``Server``.

The SDK's high-level ``MCPServer`` builds tools from Python signatures and coerces
arguments through pydantic; it answers an unknown tool with an ``isError`` result.
This project needs the opposite on each point, so the layer registers its own
handlers on the low-level ``mcp.server.lowlevel.Server``.  They return the SDK's
result models (not raw dicts) so the SDK can shape them for either protocol era
(the 2026-07-28 wire needs ``resultType``, ``ttlMs`` and ``cacheScope``):

* ``tools/list``: the tools with input/output schemas (the strict form that is
  enforced) and annotations from the :class:`Tool` fields;
* ``tools/call``: unknown tool -> JSON-RPC error -32602; arguments checked
  strictly (no coercion; integers stay ``int``) -> ``isError`` naming the argument;
  the handler runs in a worker thread (abandoned, not awaited, when the call is
  cancelled or the server stops, so a stuck handler cannot block shutdown); its dict becomes ``structuredContent`` and
  the content blocks (text, or what ``Tool.text`` gives: images, audio, embedded resources);
  ``ToolError`` -> ``isError`` (with ``data``); any other exception
  -> ``isError`` with a one-line message, the traceback going to the stderr log; during the
  call the handler reaches the client through :class:`SessionLink` (progress, sampling,
  elicitation);
* ``resources/list`` (the fixed-URI resources), ``resources/templates/list`` and
  ``resources/read`` (exact URIs first, then RFC 6570 matching via the SDK's ``UriTemplate``;
  text, or bytes as a base64 blob); ``resources/subscribe`` and ``resources/unsubscribe``
  when a resource is ``subscribable``;
* ``prompts/list`` and ``prompts/get`` (one user message per content item; a missing required
  argument or an unknown prompt is -32602);
  ``completion/complete`` for template variables and prompt arguments that offer ``complete``;
* the client's MCP roots, asked with ``roots/list`` once per connection when the
  client declares the capability, and forgotten on ``notifications/roots/list_changed``;
* ``logging/setLevel``: once a client sets a level, records that ``markmcp.*``
  loggers emit while a tool handler runs are also sent to that client as
  ``notifications/message`` (before the tool's result); the stderr log is unchanged.

Around every request, :meth:`Handlers.gate` (SDK middleware, so on every transport):

* a request other than ``initialize`` and ``ping`` before ``initialize`` is refused
  with ``-32600`` "Server not initialized: ..." (the SDK answers ``-32602`` "Invalid
  request parameters", which blames parameters that are fine).  MCP defines no code
  for this; ``-32600`` (Invalid Request: not valid in the connection's state) is the
  standard code that fits, ``-32002`` is MCP's "resource not found" and ``-32000``
  is the SDK's "connection closed".  A method the server does not serve stays
  ``-32601`` whatever the state, as in the SDK;
* parameters that do not match the method's schema get ``-32602`` naming each bad
  parameter and the problem (``'arguments' must be an object, got array``) instead
  of the SDK's bare "Invalid request parameters";
* a result no UTF-8 can carry (it holds a lone surrogate: a file name that is not UTF-8,
  a ``\\ud800`` escape read from a file) is never handed to the transport: a tool's
  result becomes an ``isError`` result naming where the character is, any other result a
  ``-32603`` error; an error message holding one is sent with it escaped (``\\udcff``).
  Engines escape such names where they build results (``files.name_text``); this is the
  last line of defence, so one odd file can never end a session.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit
from urllib.request import url2pathname

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp.shared.uri_template import UriTemplate
import pydantic_core
from pydantic import BaseModel, ValidationError

from markmcp.mcpcore import clientlog, wire
from markmcp.mcpcore.spec import (
    Audio,
    CallContext,
    Content,
    EmbeddedResource,
    Image,
    ServerSpec,
    Settings,
    Tool,
    ToolError,
    offers_completions,
    offers_subscriptions,
)
from markmcp.mcpcore.args import check_arguments, check_value, json_type, strict_schema
from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError
from markmcp.mcpcore.roots import RootsPolicy
from markmcp.textsafe import escape_controls

logger = logging.getLogger("markmcp.mcpcore")

RESOURCE_NOT_FOUND = -32002
"""MCP's error code for ``resources/read`` of a URI no resource answers to."""

ROOTS_TIMEOUT = 10.0
"""Seconds to wait for the client's answer to ``roots/list``."""

CLIENT_REQUEST_TIMEOUT = 300.0
"""Seconds a tool handler waits, by default, for the client's answer to a sampling or
elicitation request (a person may be answering)."""

T = TypeVar("T")

_ROOTS_KEY = "markmcp.roots"
_LOG_LEVEL_KEY = "markmcp.log_level"
_SUBSCRIPTIONS_KEY = "markmcp.subscriptions"


_running = 0
_running_lock = threading.Lock()


def running_handlers() -> int:
    """How many handler calls are executing in worker threads right now (abandoned ones included)."""
    with _running_lock:
        return _running


OUT_OF_MEMORY = "the server ran out of memory doing what this request asked"


async def in_worker(function: Callable[..., T], *args: Any) -> T:
    """Run a (synchronous) handler in a worker thread and return its result.

    If the awaiting request is cancelled (client cancel, shutdown), the thread is
    abandoned rather than awaited, so a stuck handler cannot block shutdown;
    :func:`running_handlers` still counts it until it really returns, and a file it
    would still write is left as it was (:func:`files.writes_abandoned_when`).  A handler
    that runs out of memory raises a fresh :class:`MemoryError` that no longer holds its
    frames (so the memory they filled is free again to answer with).
    """
    abandoned = threading.Event()

    def counted() -> T:
        global _running
        with _running_lock:
            _running += 1
        try:
            with files.writes_abandoned_when(abandoned):
                return function(*args)
        except MemoryError:
            # Reported only once out of this block: the error's traceback holds the
            # handler's frames, and with them what filled the memory, so even the report
            # to the event loop failed and the request was never answered.
            pass
        finally:
            with _running_lock:
                _running -= 1
        raise MemoryError(OUT_OF_MEMORY)

    try:
        return await anyio.to_thread.run_sync(counted, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        abandoned.set()
        raise


SHOWN_NAME_CHARS = 80


def shown_name(name: str) -> str:
    """A client-given name for a message: control characters escaped (``markmcp.textsafe``),
    long names cut."""
    text = escape_controls(name[: SHOWN_NAME_CHARS * 2])
    return text if len(text) <= SHOWN_NAME_CHARS else text[: SHOWN_NAME_CHARS - 1] + "…"


def not_found(uri: str) -> MCPError:
    """MCP's "resource not found" for ``uri`` (the full URI rides in ``data``)."""
    return MCPError(code=RESOURCE_NOT_FOUND, message=f"Resource not found: {shown_name(uri)}", data={"uri": uri})


def one_line(text: str) -> str:
    """Collapse whitespace (newlines included) so a message fits one line."""
    return " ".join(text.split())


def error_result(message: str, data: dict[str, Any] | None = None) -> types.CallToolResult:
    """A ``tools/call`` result with ``isError: true`` (a lone surrogate in it written as its
    escape, so the error can always be sent)."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=wire.escape_surrogates(message))],
        structured_content=wire.escape_surrogates(data), is_error=True,
    )


def sendable_error(error: MCPError) -> MCPError:
    """``error``, or the same error with each lone surrogate in its message and data escaped."""
    if wire.lone_surrogate([error.message, error.data]) is None:
        return error
    return MCPError(
        code=error.code, message=wire.escape_surrogates(error.message), data=wire.escape_surrogates(error.data)
    )


def unsendable(result: Any) -> tuple[str, str] | None:
    """Where a handler's result holds a lone surrogate (and which), or None when it can be sent."""
    try:
        if isinstance(result, BaseModel):
            result.model_dump_json(by_alias=True, exclude_unset=True)
        elif result is not None:
            pydantic_core.to_json(result)
        return None
    except (pydantic_core.PydanticSerializationError, UnicodeEncodeError):
        data = result.model_dump(by_alias=True, exclude_unset=True) if isinstance(result, BaseModel) else result
        return wire.lone_surrogate(data, "result")


def content_block(
    item: Content,
) -> types.TextContent | types.ImageContent | types.AudioContent | types.EmbeddedResource:
    """The MCP content block of one :data:`Content` item (bytes are sent base64-encoded)."""
    if isinstance(item, str):
        return types.TextContent(type="text", text=item)
    if isinstance(item, Image):
        return types.ImageContent(type="image", data=_base64(item.data), mime_type=item.mime_type)
    if isinstance(item, Audio):
        return types.AudioContent(type="audio", data=_base64(item.data), mime_type=item.mime_type)
    if isinstance(item, EmbeddedResource):
        return types.EmbeddedResource(type="resource", resource=resource_contents(item.uri, item.mime_type,
                                                                                  item.text if item.blob is None
                                                                                  else item.blob))
    raise TypeError(f"not a content item: {type(item).__name__}")


def resource_contents(
    uri: str, mime_type: str, value: str | bytes
) -> types.TextResourceContents | types.BlobResourceContents:
    """A resource's contents: text, or bytes as a base64 ``blob``."""
    if isinstance(value, bytes):
        return types.BlobResourceContents(uri=uri, mime_type=mime_type, blob=_base64(value))
    if isinstance(value, str):
        return types.TextResourceContents(uri=uri, mime_type=mime_type, text=value)
    raise TypeError(f"resource {uri!r}: its handler returned {type(value).__name__}, not str or bytes")


def _base64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class SessionLink:
    """The client behind one ``tools/call``, for its handler (``CallContext.client``): the
    :class:`~markmcp.mcpcore.spec.ClientLink` over the SDK's session.

    The handler runs in a worker thread; each method hands its message to the event
    loop and blocks that thread until the message is sent (and, for :meth:`sample` and
    :meth:`elicit`, until the client answered or ``timeout`` seconds passed).  A client
    without the capability, a refusal, a timeout or an answer of the wrong shape is a
    :class:`ToolError` naming what happened, so the call ends as a tool error.
    """

    def __init__(self, ctx: ServerRequestContext[Any]) -> None:
        self._ctx = ctx

    def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Send ``notifications/progress`` for this call (nothing when the client gave no progress token)."""
        anyio.from_thread.run(self._ctx.session.report_progress, progress, total, message)

    def sample(
        self, prompt: str, *, max_tokens: int, system_prompt: str | None = None,
        timeout: float = CLIENT_REQUEST_TIMEOUT,
    ) -> dict[str, Any]:
        """Ask the client's model (``sampling/createMessage``, one user message); returns the
        client's result as JSON (``role``, ``content``, ``model``, ``stopReason``)."""
        self._require("sampling")
        request = types.CreateMessageRequest(
            params=types.CreateMessageRequestParams(
                messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))],
                max_tokens=max_tokens,
                system_prompt=system_prompt,
            )
        )
        return self._request(request, types.CreateMessageResult, timeout)

    def elicit(
        self, message: str, requested_schema: dict[str, Any], *, timeout: float = CLIENT_REQUEST_TIMEOUT
    ) -> dict[str, Any]:
        """Ask the user through the client (``elicitation/create``, form mode); returns the
        client's result as JSON (``action`` and, when accepted, ``content``)."""
        self._require("elicitation")
        request = types.ElicitRequest(
            params=types.ElicitRequestFormParams(message=message, requested_schema=requested_schema)
        )
        return self._request(request, types.ElicitResult, timeout)

    def _require(self, capability: str) -> None:
        capabilities = self._ctx.session.client_capabilities
        if capabilities is None or getattr(capabilities, capability, None) is None:
            raise ToolError(f"the client does not offer {capability} (it declared no '{capability}' capability)")
        if not self._ctx.session.can_send_request:
            raise ToolError(f"this connection cannot carry a request to the client, so no {capability}")

    def _request(self, request: Any, result_type: type[Any], timeout: float) -> dict[str, Any]:
        method = request.method

        async def send() -> Any:
            return await self._ctx.session.send_request(
                request,
                result_type,
                request_read_timeout_seconds=timeout,
                metadata=ServerMessageMetadata(related_request_id=self._ctx.request_id),
            )

        try:
            result = anyio.from_thread.run(send)
        except MCPError as error:
            raise ToolError(f"the client answered {method} with an error: {one_line(error.message)}") from None
        except ValidationError:
            raise ToolError(f"the client's answer to {method} is not a valid result") from None
        except Exception as error:  # timeout, connection gone
            raise ToolError(f"{method} failed: {type(error).__name__}: {one_line(str(error))}") from None
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)


def tool_listing(tool: Tool) -> types.Tool:
    """The ``tools/list`` entry of a tool: the enforced (strict) input schema and the annotations."""
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=strict_schema(tool.input_schema),
        output_schema=tool.output_schema,
        annotations=types.ToolAnnotations(
            title=tool.title,
            read_only_hint=tool.read_only,
            destructive_hint=tool.destructive,
            idempotent_hint=tool.idempotent,
            open_world_hint=tool.open_world,
        ),
    )


_PRE_INIT_METHODS = frozenset({"initialize", "ping"})

_EXPECTED = {
    "dict_type": "an object", "model_type": "an object", "model_attributes_type": "an object",
    "string_type": "a string", "int_type": "an integer", "int_parsing": "an integer", "int_from_float": "an integer",
    "float_type": "a number", "float_parsing": "a number", "bool_type": "a boolean", "bool_parsing": "a boolean",
    "list_type": "an array", "tuple_type": "an array", "none_required": "null",
}
MAX_SHOWN_PROBLEMS = 5


def _is_union_tag(part: object) -> bool:
    """Whether a pydantic error location segment names a union member (``str``,
    ``PromptReference``) rather than a key (MCP parameter names start in lower case)."""
    return isinstance(part, str) and (part in _UNION_TAGS or "[" in part or part[:1].isupper())


_UNION_TAGS = frozenset({"str", "int", "float", "bool", "none", "list", "dict", "tuple", "is-instance"})


def params_problems(error: ValidationError) -> list[str]:
    """One message per problem of a request's parameters, naming the parameter and the problem.

    A value that matches no member of a union is one problem (``'x' must be a string or
    an integer, got object``), not one per member.
    """
    expected: dict[str, list[str]] = {}
    got: dict[str, str] = {}
    problems: list[str] = []
    for item in error.errors(include_url=False):
        loc = [part for part in (item.get("loc") or ()) if not _is_union_tag(part)]
        if loc and loc[0] == "params":
            loc = loc[1:]
        where = ""
        for part in loc:
            where += f"[{part}]" if isinstance(part, int) else (f".{part}" if where else str(part))
        where = f"'{shown_name(where)}'" if where else "params"
        kind = item.get("type", "")
        if kind in _EXPECTED:
            if where not in expected:
                expected[where] = []
                problems.append(where)  # placeholder, filled in below
            if _EXPECTED[kind] not in expected[where]:
                expected[where].append(_EXPECTED[kind])
            got[where] = json_type(item.get("input"))
            continue
        if kind == "missing":
            problem = f"{where} is required"
        elif kind == "extra_forbidden":
            problem = f"{where} is not a known parameter"
        elif kind in ("literal_error", "enum") and "expected" in (item.get("ctx") or {}):
            problem = f"{where} must be one of {item['ctx']['expected']}"
        else:
            problem = f"{where}: {item.get('msg', 'invalid')}"
        if problem not in problems:
            problems.append(problem)
    problems = [
        f"{entry} must be {' or '.join(expected[entry])}, got {got[entry]}" if entry in expected else entry
        for entry in problems
    ]
    if len(problems) > MAX_SHOWN_PROBLEMS:
        problems[MAX_SHOWN_PROBLEMS:] = [f"and {len(problems) - MAX_SHOWN_PROBLEMS} more"]
    return problems


def _initialize_accepted(ctx: ServerRequestContext[Any]) -> bool:
    """Whether the connection behind ``ctx`` got its ``initialize`` (the SDK's own gate)."""
    connection = getattr(ctx.session, "_connection", None)
    accepted = getattr(connection, "initialize_accepted", None)
    if isinstance(accepted, bool):
        return accepted
    return ctx.session.client_params is not None  # the SDK moved its state: the public view


def file_uri_to_path(uri: str) -> Path | None:
    """The local folder of a ``file://`` root URI, or None for anything else."""
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    return Path(url2pathname(parts.path)).resolve()  # url2pathname also undoes %-escapes


class Handlers:
    """The request handlers of one server; one instance serves every connection."""

    def __init__(self, spec: ServerSpec, settings: Settings) -> None:
        self.spec = spec
        self.settings = settings
        self.roots_policy = RootsPolicy.of(settings)
        self.tools = {tool.name: tool for tool in spec.tools}
        self.strict_inputs = {tool.name: strict_schema(tool.input_schema) for tool in spec.tools}
        self.listing = [tool_listing(tool) for tool in spec.tools]
        self.templates = [(UriTemplate.parse(t.uri_template), t) for t in spec.resource_templates]
        self.resources = {resource.uri: resource for resource in spec.resources}
        self.prompts = {prompt.name: prompt for prompt in spec.prompts}

    def build_server(self) -> Server[Any]:
        """A low-level SDK ``Server`` wired to these handlers."""
        server: Server[Any] = Server(
            self.spec.name,
            version=self.spec.version,
            instructions=self.spec.instructions or None,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_list_resource_templates=self.list_resource_templates,
            on_read_resource=self.read_resource,
            on_list_prompts=self.list_prompts,
            on_get_prompt=self.get_prompt,
            on_completion=self.complete if self.completes() else None,
            on_subscribe_resource=self.subscribe if self.subscribable() else None,
            on_unsubscribe_resource=self.unsubscribe if self.subscribable() else None,
        )
        server.add_notification_handler(
            "notifications/roots/list_changed", types.NotificationParams, self.roots_changed
        )
        server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, self.set_level)
        server.middleware.append(self.gate)
        self.server = server
        clientlog.install()
        return server

    def completes(self) -> bool:
        """Whether a template variable or a prompt argument offers completions."""
        return offers_completions(self.spec)

    def subscribable(self) -> bool:
        return offers_subscriptions(self.spec)

    # protocol ------------------------------------------------------------------------

    async def gate(self, ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        """SDK middleware around every request: the pre-``initialize`` refusal and
        parameter errors that name the parameter (see the module docstring)."""
        method = ctx.method
        if (
            ctx.request_id is not None
            and method not in _PRE_INIT_METHODS
            and self.server.get_request_handler(method) is not None
            and not _initialize_accepted(ctx)
        ):
            raise MCPError(
                code=types.INVALID_REQUEST,
                message=f"Server not initialized: '{method}' was sent before 'initialize'; "
                "send 'initialize' first (then 'notifications/initialized'); only 'ping' may come before it",
            )
        try:
            result = await call_next(ctx)
        except ValidationError as error:
            if ctx.request_id is None:
                raise
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Invalid params for '{method}': " + "; ".join(params_problems(error)),
            ) from None
        except MCPError as error:
            raise sendable_error(error) from None
        # A tool checks its own result (to answer isError); any other result is checked here.
        found = unsendable(result) if ctx.request_id is not None and method != "tools/call" else None
        if found is not None:
            where, char = found
            logger.error("the result of %r holds %s at %s", method, wire.surrogate_name(char), where)
            raise MCPError(code=types.INTERNAL_ERROR, message=wire.unsendable_message(where, char, f"the result of '{method}'"))
        return result

    # tools -------------------------------------------------------------------------

    async def list_tools(self, ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.listing)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = self.tools.get(params.name)
        if tool is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {shown_name(params.name)}")
        arguments = params.arguments if params.arguments is not None else {}
        problems = check_arguments(self.strict_inputs[tool.name], arguments)
        if problems:
            return error_result(f"invalid arguments for tool '{tool.name}': " + "; ".join(problems))
        call_ctx = dataclasses.replace(await self.call_context(ctx), client=SessionLink(ctx))
        with clientlog.collect() as records:
            try:
                result = await in_worker(tool.handler, arguments, call_ctx)
            except Exception as error:
                result = error
        await self.forward_logs(ctx, records)
        if isinstance(result, ToolError):
            return error_result(one_line(result.message), result.data)
        if isinstance(result, FileAccessError):
            return error_result(one_line(result.message))
        if isinstance(result, Exception):
            logger.error("tool %r failed", tool.name, exc_info=result)
            return error_result(one_line(f"tool '{tool.name}' failed: {type(result).__name__}: {result}"))
        problems = check_value(tool.output_schema, result) if isinstance(result, dict) else ["not an object"]
        if problems:
            logger.error("tool %r returned a result outside its outputSchema: %s", tool.name, "; ".join(problems))
            return error_result(f"tool '{tool.name}' failed: its result does not match its outputSchema")
        try:
            texts = self.texts(tool, result)
        except Exception as error:  # a result that is not JSON, or a text renderer that failed
            logger.error("tool %r: its result could not be rendered", tool.name, exc_info=error)
            return error_result(f"tool '{tool.name}' failed: its result could not be rendered as JSON and text")
        answer = types.CallToolResult(content=texts, structured_content=result, is_error=False)
        found = unsendable(answer)
        if found is not None:
            where, char = found
            logger.error("tool %r: its result holds %s at %s", tool.name, wire.surrogate_name(char), where)
            return error_result(
                f"tool '{tool.name}' failed: its result cannot be sent: {where.removeprefix('result.')} holds "
                f"{wire.surrogate_name(char)}, which is not a character (no UTF-8 text can carry it)"
            )
        return answer

    @staticmethod
    def texts(tool: Tool, result: dict[str, Any]) -> list[Any]:
        """The content blocks of a tool result: ``tool.text`` or the JSON of the result.

        The result is always encoded once, strictly (no NaN, only JSON types), so a result
        that the transport could not serialise fails here, as one tool error, instead of
        taking the connection down.
        """
        encoded = json.dumps(result, ensure_ascii=False, allow_nan=False)
        if tool.text is None:
            return [content_block(encoded)]
        text = tool.text(result)
        return [content_block(item) for item in ([text] if isinstance(text, str) else text)]

    # prompts -----------------------------------------------------------------------

    async def list_prompts(self, ctx: ServerRequestContext[Any], params: Any) -> types.ListPromptsResult:
        """The server's prompts (an empty list, not "method not found", when it has none)."""
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=prompt.name,
                    title=prompt.title or None,
                    description=prompt.description,
                    arguments=[
                        types.PromptArgument(name=a.name, description=a.description, required=a.required)
                        for a in prompt.arguments
                    ],
                )
                for prompt in self.prompts.values()
            ]
        )

    async def get_prompt(
        self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        prompt = self.prompts.get(params.name)
        if prompt is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown prompt: {shown_name(params.name)}")
        given = dict(params.arguments or {})
        known = {a.name for a in prompt.arguments}
        unknown = sorted(set(given) - known)
        missing = [a.name for a in prompt.arguments if a.required and a.name not in given]
        if unknown or missing:
            problems = [f"unknown argument '{shown_name(name)}'" for name in unknown]
            problems += [f"missing required argument '{name}'" for name in missing]
            raise MCPError(code=types.INVALID_PARAMS, message=f"prompt '{prompt.name}': " + "; ".join(problems))
        text = prompt.text(given)
        items = [text] if isinstance(text, str) else list(text)
        return types.GetPromptResult(
            description=prompt.description,
            messages=[types.PromptMessage(role="user", content=content_block(item)) for item in items],
        )

    # resources ---------------------------------------------------------------------

    async def list_resources(self, ctx: ServerRequestContext[Any], params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=r.uri, name=r.name, title=r.title or None, description=r.description,
                               mime_type=r.mime_type)
                for r in self.resources.values()
            ]
        )

    async def list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: Any
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=template.uri_template,
                    name=template.name,
                    description=template.description,
                    mime_type=template.mime_type,
                )
                for _, template in self.templates
            ]
        )

    async def read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        fixed = self.resources.get(uri)
        if fixed is not None:
            call_ctx = await self.call_context(ctx)
            try:
                text = await in_worker(fixed.handler, call_ctx)
            except FileNotFoundError:
                raise not_found(uri) from None
            except ToolError as error:
                raise MCPError(code=types.INVALID_PARAMS, message=one_line(error.message), data={"uri": uri})
            except Exception as error:
                logger.exception("resource %r failed", uri)
                raise MCPError(
                    code=types.INTERNAL_ERROR, message=f"reading {shown_name(uri)} failed: {type(error).__name__}"
                )
            return types.ReadResourceResult(contents=[resource_contents(uri, fixed.mime_type, text)])
        for parsed, template in self.templates:
            variables = parsed.match(uri)
            if variables is None:
                continue
            flat = {name: v if isinstance(v, str) else "/".join(v) for name, v in variables.items()}
            call_ctx = await self.call_context(ctx)
            try:
                text = await in_worker(template.handler, flat, call_ctx)
            except FileNotFoundError:
                raise not_found(uri) from None
            except FileAccessError as error:
                if error.code == "not-found":
                    raise not_found(uri) from None
                raise MCPError(code=types.INVALID_PARAMS, message=one_line(error.message), data={"uri": uri})
            except ToolError as error:
                raise MCPError(code=types.INVALID_PARAMS, message=one_line(error.message), data={"uri": uri})
            except Exception as error:
                logger.exception("resource %r failed", uri)
                raise MCPError(
                    code=types.INTERNAL_ERROR, message=f"reading {shown_name(uri)} failed: {type(error).__name__}"
                )
            return types.ReadResourceResult(contents=[resource_contents(uri, template.mime_type, text)])
        raise not_found(uri)

    async def complete(
        self, ctx: ServerRequestContext[Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        """``completion/complete`` for a variable of a resource template or a prompt argument
        (empty when it offers no ``complete``); an unknown prompt, template or argument is -32602."""
        ref = params.ref
        chosen = dict(params.context.arguments or {}) if params.context else {}
        if not isinstance(ref, types.ResourceTemplateReference):
            prompt = self.prompts.get(ref.name)
            if prompt is None:
                raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown prompt: {shown_name(ref.name)}")
            argument = next((a for a in prompt.arguments if a.name == params.argument.name), None)
            if argument is None:
                raise MCPError(
                    code=types.INVALID_PARAMS,
                    message=f"Prompt '{prompt.name}' has no argument '{shown_name(params.argument.name)}'",
                )
            offered: list[str] = []
            if argument.complete is not None:
                try:
                    offered = [str(v) for v in await in_worker(argument.complete, params.argument.value, chosen)]
                except Exception:
                    logger.exception("completion for prompt %s argument %s failed", prompt.name, argument.name)
            return completion(offered)
        found = [(parsed, t) for parsed, t in self.templates if t.uri_template == ref.uri]
        if not found:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown resource template: {shown_name(ref.uri)}")
        parsed, template = found[0]
        variable = params.argument.name
        if variable not in parsed.variable_names:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Template {shown_name(ref.uri)} has no variable '{shown_name(variable)}'",
            )
        values: list[str] = []
        if template.complete is not None:
            call_ctx = await self.call_context(ctx)
            try:
                found_values = await in_worker(template.complete, variable, params.argument.value, chosen, call_ctx)
            except (ToolError, FileAccessError):  # e.g. a prefix that leaves the allowed folders: nothing to offer
                found_values = []
            except Exception:
                logger.exception("completion for %s {%s} failed", ref.uri, variable)
                found_values = []
            values = [str(value) for value in found_values]
        return completion(values)

    # subscriptions -------------------------------------------------------------------

    async def subscribe(self, ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams) -> types.EmptyResult:
        """``resources/subscribe`` to a subscribable resource (kept per connection); any
        other URI is -32602.  The layer's resources never change while the server runs,
        so no ``notifications/resources/updated`` follows."""
        uri = str(params.uri)
        resource = self.resources.get(uri)
        if resource is None or not resource.subscribable:
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"Not a resource one can subscribe to: {shown_name(uri)}",
                data={"uri": uri},
            )
        _connection_state(ctx).setdefault(_SUBSCRIPTIONS_KEY, set()).add(uri)
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        """``resources/unsubscribe``: forget the subscription (none is fine, as with a set)."""
        _connection_state(ctx).get(_SUBSCRIPTIONS_KEY, set()).discard(str(params.uri))
        return types.EmptyResult()

    # context and roots ---------------------------------------------------------------

    async def call_context(self, ctx: ServerRequestContext[Any]) -> CallContext:
        """The :class:`CallContext` of one request: settings plus the client's roots,
        combined by the roots policy of the transport (see ``markmcp.mcpcore.roots``)."""
        client_roots = await self.client_roots(ctx) if self.spec.uses_roots else ()
        return self.roots_policy.context(client_roots)

    async def client_roots(self, ctx: ServerRequestContext[Any]) -> tuple[Path, ...]:
        """The client's MCP roots, asked once per connection (when it declares the capability)."""
        capabilities = ctx.session.client_capabilities
        if capabilities is None or capabilities.roots is None or not ctx.session.can_send_request:
            return ()
        state = _connection_state(ctx)
        cached = state.get(_ROOTS_KEY)
        if cached is not None:
            return cached
        try:
            answer = await ctx.session.send_request(
                types.ListRootsRequest(),
                types.ListRootsResult,
                request_read_timeout_seconds=ROOTS_TIMEOUT,
                metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
            )
        except Exception as error:  # the client is gone, refused, or answered nonsense
            logger.warning("roots/list failed (%s); using --root folders only", one_line(str(error)))
            return ()
        roots = tuple(p for p in (file_uri_to_path(str(root.uri)) for root in answer.roots) if p is not None)
        state[_ROOTS_KEY] = roots
        return roots

    async def roots_changed(self, ctx: ServerRequestContext[Any], params: Any) -> None:
        _connection_state(ctx).pop(_ROOTS_KEY, None)

    # logging -------------------------------------------------------------------------

    async def set_level(
        self, ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        """``logging/setLevel``: forward this connection's tool log records at ``level`` and above."""
        _connection_state(ctx)[_LOG_LEVEL_KEY] = params.level
        return types.EmptyResult()

    async def forward_logs(self, ctx: ServerRequestContext[Any], records: list[logging.LogRecord]) -> None:
        """Send a tool call's log records to the client, if it asked for them with ``logging/setLevel``."""
        wanted = _connection_state(ctx).get(_LOG_LEVEL_KEY)
        if wanted is None or not records:
            return
        for level, record in clientlog.at_or_above(records, wanted):
            params = types.LoggingMessageNotificationParams(
                level=level, logger=record.name, data=wire.escape_surrogates(record.getMessage())
            )
            await ctx.session.send_notification(
                types.LoggingMessageNotification(params=params), related_request_id=ctx.request_id
            )


def completion(values: list[str]) -> types.CompleteResult:
    """A ``completion/complete`` result: the first 100 values, the total, whether more exist."""
    return types.CompleteResult(
        completion=types.Completion(values=values[:100], total=len(values), has_more=len(values) > 100)
    )


def _connection_state(ctx: ServerRequestContext[Any]) -> dict[str, Any]:
    """Per-connection scratch state (``Connection.state``) behind a request context.

    The SDK keeps the connection on the session's private ``_connection``; when that
    changes, caching just stops (an empty dict each time) instead of failing.
    """
    connection = getattr(ctx.session, "_connection", None)
    state = getattr(connection, "state", None)
    return state if isinstance(state, dict) else {}
