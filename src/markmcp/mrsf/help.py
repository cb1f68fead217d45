"""Help for the mrsf-mcp tools, generated from the live tool definitions.

``mrsf_help`` must never drift from what the server really accepts, so nothing here is
written by hand: the parameter lists, types and descriptions are read from each tool's
JSON Schema (``Tool.input_schema``) when the help is asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class ToolLike(Protocol):
    """The part of ``markmcp.mcpcore.Tool`` that help needs."""

    name: str
    description: str
    input_schema: dict


def describe_type(schema: Mapping[str, Any]) -> str:
    """Render a JSON Schema fragment as a short human type, e.g. ``integer (≥ 1)``."""
    if "enum" in schema:
        return "enum: " + " | ".join(str(value) for value in schema["enum"])
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " | ".join(str(k) for k in kind)
    if kind == "array":
        return describe_type(schema.get("items", {})) + "[]"
    if kind == "object" and "properties" not in schema:
        pattern = schema.get("propertyNames", {}).get("pattern")
        return f"object (keys matching {pattern})" if pattern else "object"
    bounds = []
    if "minimum" in schema:
        bounds.append(f"≥ {schema['minimum']}")
    if "maximum" in schema:
        bounds.append(f"≤ {schema['maximum']}")
    return f"{kind} ({', '.join(bounds)})" if bounds else str(kind)


def parameters(tool: ToolLike) -> dict[str, dict[str, Any]]:
    """Each parameter of a tool: its type, whether it is required, and its description."""
    schema = tool.input_schema
    required = set(schema.get("required", ()))
    result: dict[str, dict[str, Any]] = {}
    for name, prop in schema.get("properties", {}).items():
        entry: dict[str, Any] = {
            "type": describe_type(prop),
            "required": name in required,
            "description": prop.get("description", ""),
        }
        items = prop.get("items", {})
        if prop.get("type") == "array" and "properties" in items:
            inner = ToolShape(name, "", items)
            entry["items"] = parameters(inner)
        result[name] = entry
    return result


class ToolShape:
    """A stand-in tool used to describe nested object schemas (the items of an array)."""

    def __init__(self, name: str, description: str, input_schema: dict) -> None:
        self.name = name
        self.description = description
        self.input_schema = input_schema


def tool_help(tool: ToolLike) -> dict[str, Any]:
    """Detailed help for one tool."""
    return {"tool": tool.name, "description": tool.description, "parameters": parameters(tool)}


def overview(tools: Sequence[ToolLike]) -> list[dict[str, Any]]:
    """One line per tool: name, description, required and optional parameter names."""
    rows = []
    for tool in tools:
        params = parameters(tool)
        rows.append(
            {
                "tool": tool.name,
                "description": tool.description,
                "requiredParams": [n for n, p in params.items() if p["required"]],
                "optionalParams": [n for n, p in params.items() if not p["required"]],
            }
        )
    return rows
