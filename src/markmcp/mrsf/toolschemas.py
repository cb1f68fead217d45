"""JSON Schema building blocks of the ``mrsf-mcp`` tools: their parameters and their results.

Shared by the tool table (:mod:`markmcp.mrsf.server`) and the handlers
(:mod:`markmcp.mrsf.handlers`, which take a new comment's fields from ``COMMENT_FIELDS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SEVERITIES = ["low", "medium", "high"]
COMMENT_TYPES = "suggestion, issue, question, accuracy, style, clarity"

# ---------------------------------------------------------------------------
# Input schema building blocks
# ---------------------------------------------------------------------------


def string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def boolean(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def integer(description: str, minimum: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "description": description}


def strings(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description}


def severity(description: str) -> dict[str, Any]:
    return {"type": "string", "enum": SEVERITIES, "description": description}


CWD = string(
    "Working directory for relative paths (default: the server's working directory); it must lie inside the "
    "server's folders: its working directory, a --root, or one of the client's MCP roots"
)
FILES = strings(
    "Which sidecars to work on, named by the sidecar or by its Markdown document; "
    "leave out to take every sidecar found below the working directory"
)
EXTENSIONS = {
    "type": "object",
    "additionalProperties": True,
    "description": "Extra x_* fields of your own; each key must begin with x_ and lands as a top-level field of the comment",
}
DOCUMENT_TEXT = string(
    "Markdown text to anchor against in place of the file on disk, e.g. an editor buffer not yet saved"
)
EXPECTED_VERSION = string(
    "The version you last read (SHA-256 of the sidecar bytes). If the file no longer has it, the write "
    "is refused with a version-mismatch conflict and the file stays as it was"
)

#: The fields of one new comment (mrsf_add, and each item of mrsf_add_batch).
COMMENT_FIELDS: dict[str, Any] = {
    "text": string("The body of the comment"),
    "author": string("Who writes it, for instance 'Ada Lovelace (ada)'"),
    "line": integer("First document line the comment is about, 1-based; its text is stored as selected_text", 1),
    "end_line": integer("Last line covered, 1-based and included (default: same as line)", 1),
    "start_column": integer("Column where the anchored span begins on line, 0-based, in UTF-16 code units as upstream editors count (an emoji is 2)", 0),
    "end_column": integer("Column where the span stops on end_line, 0-based, exclusive, in UTF-16 code units", 0),
    "type": string(f"Kind of comment, usually one of: {COMMENT_TYPES}"),
    "severity": severity("How much it matters"),
    "reply_to": string("id of the comment this one answers (makes it a reply in that thread)"),
    "extensions": EXTENSIONS,
}

#: A comment of ``mrsf_add_batch``: the fields of ``mrsf_add`` and the comment's ``id``, so
#: that a later comment of the same list can reply to it (MRSF §6.1: any string unique in
#: the sidecar, stable; it SHOULD be collision-resistant, hence the advice).
BATCH_COMMENT_FIELDS: dict[str, Any] = {
    **COMMENT_FIELDS,
    "id": string(
        "This comment's id, for another comment of the same list to name in reply_to; leave it out to get a "
        "new UUID. Must be unique in the sidecar; use something collision-resistant (a UUID, or a prefix of "
        "your own plus a counter), as MRSF wants ids unique across sidecars"
    ),
}


def inputs(properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


# ---------------------------------------------------------------------------
# Output schema building blocks
# ---------------------------------------------------------------------------

VERSION_OUT = {
    "type": ["string", "null"],
    "description": "Hex SHA-256 of the sidecar file as it is now; null if there is no sidecar",
}
COMMENT_OUT = {"type": "object", "description": "The comment exactly as the sidecar now holds it"}
DIAGNOSTIC_OUT = {
    "type": "object",
    "properties": {
        "code": {"type": "string"},
        "severity": {"type": "string"},
        "message": {"type": "string"},
        "path": {"type": ["string", "null"]},
        "commentId": {"type": ["string", "null"]},
    },
    "required": ["severity", "message"],
}
NULLABLE_INT = {"type": ["integer", "null"]}
NULLABLE_STRING = {"type": ["string", "null"]}
REANCHOR_RESULT_OUT = {
    "type": "object",
    "description": (
        "One comment: upstream's fields (the range found in newLine..newEndColumn, whole lines with "
        "columns 0 to the line's end; anchoredText and previousSelectedText for fuzzy matches), then the "
        "position the comment now stores, its position before, and the fields written"
    ),
    "properties": {
        "commentId": NULLABLE_STRING,
        "status": {"enum": ["anchored", "shifted", "fuzzy", "ambiguous", "orphaned"]},
        "score": {"type": "number"},
        "newLine": NULLABLE_INT,
        "newEndLine": NULLABLE_INT,
        "newStartColumn": NULLABLE_INT,
        "newEndColumn": NULLABLE_INT,
        "anchoredText": NULLABLE_STRING,
        "previousSelectedText": NULLABLE_STRING,
        "reason": {"type": "string"},
        "line": NULLABLE_INT,
        "end_line": NULLABLE_INT,
        "start_column": NULLABLE_INT,
        "end_column": NULLABLE_INT,
        "previous": {"type": "object"},
        "changed": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["commentId", "status", "score", "reason", "changed"],
}


def outputs(properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    """An output object schema (extra keys allowed, so results may grow)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def array(items: dict[str, Any]) -> dict[str, Any]:
    """A list of ``items`` in a result."""
    return {"type": "array", "items": items}


STRING_OUT = {"type": "string"}
STRINGS_OUT = array({"type": "string"})
RESULT_VERSION = {"version": VERSION_OUT, "previousVersion": VERSION_OUT}


def written(properties: dict[str, Any], required: Sequence[str]) -> dict[str, Any]:
    """The result schema of a writing tool: its fields, then the sidecar's ``version`` now
    (required) and ``previousVersion`` before the write."""
    return outputs({**properties, **RESULT_VERSION}, [*required, "version"])
