"""What a markmcp server declares (ServerSpec, Tool, ResourceTemplate, ...) and its parsed command line (Settings).

The bottom of the layer: the transports (``early``, ``stdio``, ``transports``), the handlers,
the roots policy and the write gate all build on these declarations, and ``app`` (``serve``)
sits on top of them all.  Standard library only, so a server module that declares its
``ServerSpec`` imports nothing heavy.
"""

from __future__ import annotations

import argparse
import os
import re
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any, Protocol, Union

from markmcp.mcpcore.args import unsupported_keywords
from markmcp.mcpcore.files import Places

TRANSPORTS = ("stdio", "http", "sse")
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")


class ToolError(Exception):
    """Raised by a handler for an expected failure.

    Becomes a ``tools/call`` result with ``isError: true``: the text content is
    ``message`` and ``structuredContent`` is ``data`` when given (e.g. the MRSF
    version-conflict object).
    """

    def __init__(self, message: str, *, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data


@dataclass(frozen=True)
class Image:
    """An image content block (of a tool result or a prompt message): raw bytes, sent base64-encoded."""

    data: bytes
    mime_type: str


@dataclass(frozen=True)
class Audio:
    """An audio content block (of a tool result or a prompt message): raw bytes, sent base64-encoded."""

    data: bytes
    mime_type: str


@dataclass(frozen=True)
class EmbeddedResource:
    """A resource embedded in a tool result or a prompt message: ``text`` or binary ``blob``."""

    uri: str
    mime_type: str
    text: str | None = None
    blob: bytes | None = None

    def __post_init__(self) -> None:
        if (self.text is None) == (self.blob is None):
            raise ValueError(f"embedded resource {self.uri!r}: give exactly one of text and blob")


Content = Union[str, Image, Audio, EmbeddedResource]
"""One content block: a string is a text block."""


class ClientLink(Protocol):
    """The way back to the client during a ``tools/call``, as a tool handler sees it
    (``CallContext.client``).

    The layer provides it over the SDK's session (``markmcp.mcpcore.handlers.SessionLink``).
    The handler runs in a worker thread; each method blocks that thread until its message is
    sent (and, for :meth:`sample` and :meth:`elicit`, until the client answered or ``timeout``
    seconds passed: 300 by default, a person may be answering).  A client without the
    capability, a refusal, a timeout or an answer of the wrong shape raises :class:`ToolError`
    naming what happened, so the call ends as a tool error.
    """

    def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Send ``notifications/progress`` for this call (nothing when the client gave no progress token)."""
        ...

    def sample(
        self, prompt: str, *, max_tokens: int, system_prompt: str | None = None, timeout: float = ...
    ) -> dict[str, Any]:
        """Ask the client's model (``sampling/createMessage``, one user message); returns the
        client's result as JSON (``role``, ``content``, ``model``, ``stopReason``)."""
        ...

    def elicit(self, message: str, requested_schema: dict[str, Any], *, timeout: float = ...) -> dict[str, Any]:
        """Ask the user through the client (``elicitation/create``, form mode); returns the
        client's result as JSON (``action`` and, when accepted, ``content``)."""
        ...


@dataclass(frozen=True)
class CallContext:
    """What a handler may know about the server and client it runs for.

    The layer builds it per call from the command line and the client's MCP roots,
    by the roots policy of the transport (``markmcp.mcpcore.roots``): over stdio the
    client's roots add folders; over HTTP/SSE they only narrow the granted ones
    unless the server runs with ``--trust-client-roots``.
    """

    roots: tuple[Path, ...]
    """Resolved roots tools may write in (with ``allow_write``): the ``--root`` folders
    plus, or narrowed by, the client's MCP roots (file:// only)."""
    cwd: Path
    """The server's working directory (``--cwd`` or the process's): the base of relative paths."""
    allow_write: bool
    """The write gate's explicit opt-in (``--allow-write``)."""
    options: Mapping[str, Any]
    """Server-specific parsed options (those added by ``ServerSpec.add_arguments``)."""
    readable: tuple[Path, ...] | None = None
    """The folders tools may read; None means the working directory and every root."""
    hint: str = "start the server with --root DIR (or let the client declare the folder as an MCP root) to allow it"
    """How to allow a refused folder: ends the refusal message of :meth:`places`."""
    read_only: bool = False
    """``--read-only``: not even the tools that write by default (``ServerSpec.write_default``) may write."""
    client: ClientLink | None = None
    """The way back to the client during a ``tools/call`` (progress notifications, sampling,
    elicitation; see :class:`ClientLink`); None outside a tool call."""

    def places(self) -> Places:
        """The folders tools may read (confine every read with it, e.g. ``files.read_text(places=...)``)."""
        folders = self.readable if self.readable is not None else (self.cwd, *self.roots)
        return Places.of(folders, hint=self.hint)


@dataclass(frozen=True)
class Tool:
    """One MCP tool: schemas, annotations and a synchronous handler.

    ``input_schema`` is enforced strictly (types without coercion, required keys,
    unknown keys refused unless the schema sets ``additionalProperties``); the
    handler runs in a worker thread and returns a JSON-able dict matching
    ``output_schema``.  ``text`` turns that dict into the content blocks: a string or a
    list of :data:`Content` (strings are text blocks; :class:`Image`, :class:`Audio` and
    :class:`EmbeddedResource` the other kinds); by default the text is the JSON itself.
    """

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    handler: Callable[[dict[str, Any], CallContext], dict[str, Any]]
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = False
    text: Callable[[dict[str, Any]], str | list[Content]] | None = None

    def __post_init__(self) -> None:
        if not _TOOL_NAME.fullmatch(self.name):
            raise ValueError(f"tool name {self.name!r}: use 1-128 letters, digits, '_', '-' or '.'")
        for label, schema in (("input_schema", self.input_schema), ("output_schema", self.output_schema)):
            if not isinstance(schema, dict) or schema.get("type") != "object":
                raise ValueError(f"tool {self.name!r}: {label} must be a JSON Schema with \"type\": \"object\"")
            unsupported = unsupported_keywords(schema)
            if unsupported:
                raise ValueError(f"tool {self.name!r}: {label} uses unsupported keywords: {', '.join(unsupported)}")


@dataclass(frozen=True)
class ResourceTemplate:
    """A family of readable resources named by an RFC 6570 URI template.

    ``{+path}`` (reserved expansion) matches values containing slashes, e.g.
    ``mrsf://sidecar/{+path}`` matches ``mrsf://sidecar/docs/a/b.md``.  The handler
    gets the matched variables and returns the resource text; it may raise
    ``FileNotFoundError`` (answered as "resource not found", -32002) or
    :class:`ToolError` (answered as invalid params, -32602).
    """

    uri_template: str
    name: str
    description: str
    mime_type: str
    handler: Callable[[dict[str, str], CallContext], str | bytes]
    complete: Callable[[str, str, Mapping[str, str], CallContext], Sequence[str]] | None = None
    """Optional ``completion/complete`` support: (variable, typed prefix, variables already
    chosen, context) -> candidate values, best first (the layer sends the first 100)."""


@dataclass(frozen=True)
class Resource:
    """A readable resource at one fixed URI (listed by ``resources/list``).

    The handler returns the text (or ``bytes``, sent as a base64 ``blob``); it may raise
    ``FileNotFoundError`` (answered as "resource not found", -32002) or :class:`ToolError`
    (invalid params, -32602).  A ``subscribable`` resource accepts ``resources/subscribe``
    (and the server then declares the ``subscribe`` capability).
    """

    uri: str
    name: str
    description: str
    mime_type: str
    handler: Callable[[CallContext], str | bytes]
    title: str = ""
    subscribable: bool = False


@dataclass(frozen=True)
class PromptArgument:
    """One argument a prompt takes (``required`` ones must be given to ``prompts/get``).

    ``complete`` offers ``completion/complete`` values: (typed prefix, arguments already
    chosen) -> candidates, best first."""

    name: str
    description: str
    required: bool = False
    complete: Callable[[str, Mapping[str, str]], Sequence[str]] | None = None


@dataclass(frozen=True)
class Prompt:
    """A prompt template: ``text`` gets the arguments (strings) and returns the text of the
    one user message ``prompts/get`` answers with, or a list of :data:`Content`, one user
    message each (text, image, audio or embedded resource)."""

    name: str
    title: str
    description: str
    text: Callable[[Mapping[str, str]], str | list[Content]]
    arguments: Sequence[PromptArgument] = ()


@dataclass(frozen=True)
class ServerSpec:
    """Everything the shared layer needs to run one markmcp server."""

    name: str
    version: str
    instructions: str
    tools: Sequence[Tool]
    resource_templates: Sequence[ResourceTemplate] = ()
    resources: Sequence[Resource] = ()
    prompts: Sequence[Prompt] = ()
    default_port: int = 3001
    prog: str = ""
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None
    uses_roots: bool = True
    """Whether tools look at roots (``--root`` and the client's MCP roots).  A server whose
    tools only work inside ``--cwd`` says False, and ``--root`` is not offered."""
    write_gate: bool = True
    """Whether tools write through :func:`check_write_path`.  A server that never writes
    through the gate says False, and ``--allow-write`` is not offered."""
    write_default: bool = False
    """Whether tools write without ``--allow-write`` (MRSF's, as their upstream server does):
    such a server offers ``--read-only`` to close its gate, and its tools write wherever they
    may read (``writable_places(..., by_default=True)``)."""
    preload: Sequence[str] = ()
    """Modules the handlers import on their first call (the engine), named here so that the
    server module need not import them: the layer imports them right after the ``initialize``
    reply over stdio (in the thread that loads the SDK, before any other request is served),
    and before it starts serving over HTTP/SSE, so the first tool call does not wait for them."""

    def __post_init__(self) -> None:
        names = [tool.name for tool in self.tools]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"server {self.name!r}: duplicate tool names: {', '.join(duplicates)}")
        for kind, keys in (("prompt", [p.name for p in self.prompts]), ("resource", [r.uri for r in self.resources])):
            twice = sorted({key for key in keys if keys.count(key) > 1})
            if twice:
                raise ValueError(f"server {self.name!r}: duplicate {kind}s: {', '.join(twice)}")


@dataclass(frozen=True)
class Settings:
    """The parsed command line of a server (the common options plus the server's own)."""

    transport: str
    host: str
    port: int
    roots: tuple[Path, ...]
    allow_write: bool
    cwd: Path
    log_level: str
    options: Mapping[str, Any] = field(default_factory=dict)
    trust_client_roots: bool = False
    read_only: bool = False


def import_preloads(spec: ServerSpec) -> None:
    """Import the modules ``spec.preload`` names (those already imported cost nothing)."""
    for name in spec.preload:
        import_module(name)


def offers_completions(spec: ServerSpec) -> bool:
    """Whether ``completion/complete`` has anything to answer: a template variable or a
    prompt argument that completes (the server then declares the capability)."""
    return any(t.complete for t in spec.resource_templates) or any(
        a.complete for p in spec.prompts for a in p.arguments
    )


def offers_subscriptions(spec: ServerSpec) -> bool:
    """Whether a resource accepts ``resources/subscribe`` (the ``subscribe`` capability)."""
    return any(r.subscribable for r in spec.resources)


_COMMON_DESTS = (
    "transport", "host", "port", "root", "allow_write", "cwd", "log_level", "trust_client_roots", "read_only",
)


def build_parser(spec: ServerSpec) -> argparse.ArgumentParser:
    """The argument parser of a server: common transport/write-gate options plus ``spec.add_arguments``."""
    parser = argparse.ArgumentParser(
        prog=spec.prog or spec.name,
        description=f"{spec.name} {spec.version}: an MCP server.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"{parser.prog} {spec.version}")
    group = parser.add_argument_group("MCP server options")
    group.add_argument(
        "--transport", choices=TRANSPORTS, default="stdio",
        help="stdio (default), http (streamable HTTP at /mcp) or sse (GET /sse, POST /messages/)",
    )
    group.add_argument("--host", default="127.0.0.1", help="address for http/sse (default 127.0.0.1)")
    group.add_argument(
        "--port", type=_port, default=spec.default_port,
        help=f"port for http/sse (default {spec.default_port}; 0 picks a free one)",
    )
    if spec.uses_roots:
        group.add_argument(
            "--root", action="append", default=[], metavar="DIR",
            help="a folder the tools may use (repeatable); over stdio clients may add MCP roots, "
            "over http/sse their roots only narrow --cwd and --root (see --trust-client-roots)",
        )
        group.add_argument(
            "--trust-client-roots", action="store_true",
            help="over http/sse, let the client's MCP roots add folders as they do over stdio "
            "(by default any local process can connect there, so its roots may only narrow --cwd/--root); "
            "use only when every process that can reach the port is trusted",
        )
    gate = group.add_mutually_exclusive_group() if spec.write_gate or spec.write_default else group
    if spec.write_gate:
        gate.add_argument("--allow-write", action="store_true", help="allow tools to write files inside the roots")
    if spec.write_default:
        gate.add_argument(
            "--read-only", action="store_true",
            help="no tool writes (by default the MRSF tools write sidecars inside the folders they may read, "
            "as @mrsf/mcp does)",
        )
    group.add_argument("--cwd", metavar="DIR", help="working directory for relative paths (default: current)")
    group.add_argument(
        "--log-level", default="warning", choices=("debug", "info", "warning", "error"),
        help="level of the log written to stderr (default warning)",
    )
    if spec.add_arguments is not None:
        spec.add_arguments(parser)
    return parser


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port out of range 0-65535: {value}")
    return value


def parse_settings(spec: ServerSpec, argv: Sequence[str] | None) -> Settings:
    """Parse ``argv``; on a usage error argparse prints usage to stderr and raises SystemExit(2)."""
    parser = build_parser(spec)
    namespace = parser.parse_args(argv)
    cwd = Path(namespace.cwd or os.getcwd()).resolve()
    if not cwd.is_dir():
        parser.error(f"--cwd {namespace.cwd}: not a directory")
    roots = []
    for root in getattr(namespace, "root", ()):
        path = (cwd / root).resolve()
        if not path.is_dir():
            parser.error(f"--root {root}: not a directory")
        roots.append(path)
    extra = {key: value for key, value in vars(namespace).items() if key not in _COMMON_DESTS}
    return Settings(
        transport=namespace.transport,
        host=namespace.host,
        port=namespace.port,
        roots=tuple(roots),
        allow_write=getattr(namespace, "allow_write", False),
        cwd=cwd,
        log_level=namespace.log_level,
        options=types.MappingProxyType(extra),
        trust_client_roots=getattr(namespace, "trust_client_roots", False),
        read_only=getattr(namespace, "read_only", False),
    )
