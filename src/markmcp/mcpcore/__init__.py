"""Shared MCP layer used by every markmcp server (mrsf-mcp, figdown-mcp, visimark-mcp).

A server declares a :class:`ServerSpec` (tools, resources, resource templates, prompts,
extra options)
and calls :func:`serve`.  The layer owns the transports (stdio, streamable HTTP,
SSE), strict argument checking, result shaping and the write gate.  Importing this
package does not import the MCP SDK; :func:`serve` does, after parsing argv.
"""

from markmcp.mcpcore.app import (
    CallContext,
    Prompt,
    PromptArgument,
    Resource,
    ResourceTemplate,
    ServerSpec,
    Tool,
    ToolError,
    serve,
)
from markmcp.mcpcore.files import FileAccessError, Places
from markmcp.mcpcore.writegate import check_write_path, resolve_inside, writable_places

__all__ = [
    "CallContext",
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
