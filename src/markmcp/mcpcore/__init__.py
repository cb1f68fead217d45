"""Shared MCP layer used by every markmcp server (mrsf-mcp, figdown-mcp, visimark-mcp, markmcp-mcp).

A server declares a :class:`ServerSpec` (tools, resources, resource templates, prompts,
extra options)
and calls :func:`serve`.  The layer owns the transports (stdio, streamable HTTP,
SSE), strict argument checking, result shaping and the write gate.  Importing this
package does not import the MCP SDK; :func:`serve` does, after parsing argv (over stdio in
the background, while ``initialize`` is answered: ``markmcp.mcpcore.early``).

The modules build on each other in one direction, without cycles: ``args``, ``files`` and
``lines`` (stdin/stdout, the line reader, the message size limit) at the bottom; ``spec``
(the declarations and the command line) on ``args`` and ``files``; ``roots``, ``writegate`` and ``early``
(stdio start-up) on ``spec``; the SDK side (``wire``, ``handlers``, ``stdio``,
``exchanges`` (what each HTTP response still owes, answered at shutdown), ``transports``)
above; ``app`` (``serve``) on top: it starts ``early`` and hands it the function that
loads the SDK side, so nothing below ``app`` imports upwards.

The names below are loaded on first use: a command line that only needs
:mod:`markmcp.mcpcore.files` (every CLI reads and writes through it) does not pay for
the server machinery (argument parsing, logging) at start-up.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

# public name -> the module of this package that defines it
_HOMES = {
    "Audio": "spec",
    "CallContext": "spec",
    "Content": "spec",
    "EmbeddedResource": "spec",
    "Image": "spec",
    "Prompt": "spec",
    "PromptArgument": "spec",
    "Resource": "spec",
    "ResourceTemplate": "spec",
    "ServerSpec": "spec",
    "Tool": "spec",
    "ToolError": "spec",
    "serve": "app",
    "FileAccessError": "files",
    "Places": "files",
    "check_write_path": "writegate",
    "resolve_inside": "writegate",
    "writable_places": "writegate",
}

__all__ = sorted(_HOMES)

if TYPE_CHECKING:
    from markmcp.mcpcore.app import serve
    from markmcp.mcpcore.files import FileAccessError, Places
    from markmcp.mcpcore.spec import (
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
    )
    from markmcp.mcpcore.writegate import check_write_path, resolve_inside, writable_places


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
