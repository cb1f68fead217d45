"""Shared MCP layer used by every markmcp server (mrsf-mcp, figdown-mcp, visimark-mcp).

A server declares a :class:`ServerSpec` (tools, resources, resource templates, prompts,
extra options)
and calls :func:`serve`.  The layer owns the transports (stdio, streamable HTTP,
SSE), strict argument checking, result shaping and the write gate.  Importing this
package does not import the MCP SDK; :func:`serve` does, after parsing argv (over stdio in
the background, while ``initialize`` is answered: ``markmcp.mcpcore.early``).

The modules build on each other in one direction, without cycles: ``args`` and ``files``
at the bottom; ``spec`` (the declarations and the command line) on them; ``roots``,
``writegate`` and ``early`` (stdio start-up) on ``spec``; the SDK side (``wire``,
``handlers``, ``stdio``, ``transports``) above; ``app`` (``serve``) on top.
"""

from markmcp.mcpcore.app import serve
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
from markmcp.mcpcore.files import FileAccessError, Places
from markmcp.mcpcore.writegate import check_write_path, resolve_inside, writable_places

__all__ = [
    "Audio",
    "CallContext",
    "Content",
    "EmbeddedResource",
    "Image",
    "FileAccessError",
    "Places",
    "Prompt",
    "PromptArgument",
    "Resource",
    "ResourceTemplate",
    "ServerSpec",
    "Tool",
    "ToolError",
    "check_write_path",
    "resolve_inside",
    "serve",
    "writable_places",
]
