"""``mrsf-mcp``: the MRSF (Sidemark) review-sidecar operations as an MCP server.

The thirteen tools and three resource templates of the upstream Sidemark MCP server,
with every parameter of its current version (``documentText`` for unsaved buffers,
``version`` in every result, ``expectedVersion`` on every write).  The server is only an
edge: this module holds the tool table (names, descriptions, schemas built from
:mod:`markmcp.mrsf.toolschemas`), the resource templates and the server's spec; the
handlers (:mod:`markmcp.mrsf.handlers`) map MCP arguments to :mod:`markmcp.mrsf.ops` calls
and shape the results, through the path, write-gate and error plumbing of
:mod:`markmcp.mrsf.toolcalls`.  The engine does the work, and :mod:`markmcp.mcpcore`
speaks the protocol.

Paths
    Every path argument (``document``, ``files``, ``cwd``, ``oldDocument`` ...) is
    resolved against the tool's ``cwd`` (default: the server's working directory), with
    ``..`` collapsed and symlinks followed, and must stay inside the server's folders:
    its working directory (``--cwd``), each ``--root`` and the client's MCP roots as the
    roots policy allows (``markmcp.mcpcore.roots``).  So a host that launches the server
    anywhere and passes an absolute ``cwd`` per call, as ``@mrsf/mcp`` allows, works
    whenever it declares that project as a root.  A path outside is a ``path-escape``
    error with the same message every markmcp server gives, naming how to allow it.
    Sidecars are found per MRSF §3 by the engine, and every file the engine then derives
    (the sidecar, old and new, wherever a ``.mrsf.yaml`` ``sidecar_root`` puts it; its
    lock and backup) must lie there too: the engine gets the allowed folders
    (``CallContext.places()``) and reads, writes, locks and deletes only through
    :mod:`markmcp.mcpcore.files`.  A path no file system takes (a NUL, too long) is an
    ``invalid-argument`` error.

Writes
    Through the shared write gate, open by default as upstream's server writes by
    default (``ServerSpec.write_default``): the writing tools write in the folders they
    may read, and a server started with ``--read-only`` refuses every write
    (``read-only`` error) before touching a file.

Replies
    The text content of every reply is the result in the JSON shape the upstream server
    returns (:mod:`markmcp.mrsf.compat`: its field names, top-level arrays for a full
    ``mrsf_list`` and the ``mrsf_help`` overview), so clients written for it keep working.
    ``structuredContent`` is an object (as the protocol requires) with the same fields
    and ours beside them (``previousVersion``, per-file ``document`` and ``count``, the
    comment as stored, ...); array results are wrapped (``files``, ``tools``).

Versions
    ``version`` is the SHA-256 (hex) of the sidecar file's bytes, ``null`` when the
    sidecar does not exist.  A write given ``expectedVersion`` that differs from the
    current version writes nothing and fails (``isError: true``) with the structured
    result ``{"status": "conflict", "code": "version-mismatch", "currentVersion": ...,
    "expectedVersion": ...}``.  Other failures carry ``{"status": "error", "code", ...}``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from markmcp import __version__ as PACKAGE_VERSION
from markmcp.mcpcore import CallContext, Resource, ResourceTemplate, ServerSpec, Tool, ToolError, serve
from markmcp.mcpcore.files import name_texts
from markmcp.mcpcore.roots import READABLE
from markmcp.mrsf import help as tool_help
from markmcp.mrsf.handlers import (
    add,
    add_batch,
    anchors_resource,
    comment_resource,
    delete,
    discover,
    list_comments,
    reanchor,
    rename,
    repair,
    resolve,
    sidecar_resource,
    status,
    update,
    validate,
)
from markmcp.mrsf.toolcalls import invalid, upstream_text
from markmcp.mrsf.toolschemas import (
    BATCH_COMMENT_FIELDS,
    COMMENT_FIELDS,
    COMMENT_OUT,
    COMMENT_TYPES,
    CWD,
    DIAGNOSTIC_OUT,
    DOCUMENT_TEXT,
    EXPECTED_VERSION,
    EXTENSIONS,
    FILES,
    NULLABLE_INT,
    REANCHOR_RESULT_OUT,
    STRING_OUT,
    STRINGS_OUT,
    VERSION_OUT,
    array,
    boolean,
    inputs,
    integer,
    outputs,
    severity,
    string,
    strings,
    written,
)

# The engine (``ops``: sidecars, YAML, anchoring, git) is imported by the tools that use it,
# not here: the server answers ``initialize`` without it, and loads it right after
# (ENGINE_MODULES, imported in the background over stdio, before serving over HTTP/SSE).
ENGINE_MODULES = ("markmcp.mrsf.ops", "markmcp.mrsf.reanchor")

SERVER_NAME = "markmcp-mrsf"


def help_tool(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    name = args.get("tool")
    if name:
        tool = next((t for t in TOOLS if t.name == name), None)
        if tool is None:
            from markmcp.mcpcore.files import shown  # escaped, and shortened when long

            available = ", ".join(t.name for t in TOOLS)
            raise invalid(f"There is no tool called '{shown(name)}'; the tools are: {available}")
        return tool_help.tool_help(tool)
    return {"tools": tool_help.overview(TOOLS)}


# ---------------------------------------------------------------------------
# The tool table
# ---------------------------------------------------------------------------


#: The sidecars a run over several found but did not read (or could not use): which, and why.
NOT_READ_OUT = {
    **array(outputs({"file": STRING_OUT, "code": STRING_OUT, "message": STRING_OUT}, ["file", "code", "message"])),
    "description": "Sidecars found but not read (a FIFO, a symlink leading out of the allowed folders, a file "
                   "over the size limit, one that does not parse ...), each with why; present only when the "
                   "run is partial",
}

def _names_shown(
    handler: Callable[[dict[str, Any], CallContext], dict[str, Any]],
) -> Callable[[dict[str, Any], CallContext], dict[str, Any]]:
    """``handler`` with the file names in its result (or its error) shown as ``files.name_text``
    shows them: a byte that is not UTF-8 (a lone surrogate to Python, which no reply can
    carry) as ``\\xNN``."""

    def handle(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
        try:
            return name_texts(handler(args, ctx))
        except ToolError as error:
            raise ToolError(name_texts(error.message), data=name_texts(error.data)) from None

    return handle


def _tool(
    name: str,
    handler: Callable[[dict[str, Any], CallContext], dict[str, Any]],
    *,
    title: str,
    description: str,
    params: dict[str, Any],
    results: dict[str, Any],
    reads: bool = False,
    destructive: bool = False,
) -> Tool:
    """One tool: its text reply is the result in upstream's shape; ``reads``: it only reads
    (read-only and idempotent); ``destructive``: it may remove what a client wrote."""
    return Tool(
        name=name,
        title=title,
        description=description,
        input_schema=params,
        output_schema=results,
        handler=_names_shown(handler),
        text=upstream_text(name),
        read_only=reads,
        idempotent=reads,
        destructive=destructive,
    )


TOOLS: list[Tool] = [
    _tool(
        "mrsf_discover", discover, reads=True,
        title="Locate a Document's Review Sidecar",
        description=(
            "Look up where the review sidecar of a Markdown file lives (MRSF section 3 rules, including "
            ".mrsf.yaml sidecar_root). Gives both absolute paths and the sidecar's current version; fails "
            "when that sidecar has not been created yet. Reads nothing else and writes nothing."
        ),
        params=inputs({"document": string("The Markdown file, relative to cwd"), "cwd": CWD}, ["document"]),
        results=outputs(
            {"sidecarPath": STRING_OUT, "documentPath": STRING_OUT, "version": VERSION_OUT},
            ["sidecarPath", "documentPath", "version"],
        ),
    ),
    _tool(
        "mrsf_validate", validate, reads=True,
        title="Check Sidecars Against the MRSF Rules",
        description=(
            "Check sidecar files against the MRSF JSON schema and the spec's semantic rules (unique ids, "
            "reply targets, line ranges, ...). Each file gets its own errors and warnings, every one with a "
            "code. Read-only; run it when a sidecar may have been hand-edited or another tool fails on it."
        ),
        params=inputs(
            {"files": FILES, "strict": boolean("Count warnings as failures too"), "cwd": CWD}
        ),
        results=outputs(
            {
                "valid": {"type": "boolean"},
                "files": array(outputs(
                    {
                        "file": STRING_OUT,
                        "version": VERSION_OUT,
                        "result": outputs(
                            {
                                "valid": {"type": "boolean"},
                                "errors": array(DIAGNOSTIC_OUT),
                                "warnings": array(DIAGNOSTIC_OUT),
                            },
                            ["valid", "errors", "warnings"],
                        ),
                    },
                    ["file", "version", "result"],
                )),
                "version": VERSION_OUT,
                "notRead": NOT_READ_OUT,
            },
            ["valid", "files", "version"],
        ),
    ),
    _tool(
        "mrsf_reanchor", reanchor,
        title="Move Comments to Their Text's New Place",
        description=(
            "After the Markdown changed, find where each comment's text now sits and rewrite its lines and "
            "columns to match. When the text found there differs from selected_text it is kept in "
            "anchored_text (selected_text itself is left alone unless updateText). Any outcome short of a "
            "clean match is recorded in x_reanchor_status/x_reanchor_score; orphaned comments keep their old "
            "position. dryRun returns the same report without writing."
        ),
        params=inputs(
            {
                "files": FILES,
                "dryRun": boolean("Compute and return the results but leave every file untouched"),
                "threshold": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": 1,
                    "description": "Lowest similarity, 0 to 1, a fuzzy match needs to be accepted (default 0.6)",
                },
                "updateText": boolean("Overwrite selected_text with the text found (hash recomputed) rather than filling anchored_text"),
                "force": boolean(
                    "For matches scoring 0.8 or more, set commit to git HEAD and drop the x_reanchor_* fields"
                ),
                "documentText": {**DOCUMENT_TEXT, "description": DOCUMENT_TEXT["description"] + "; only with a single file"},
                "expectedVersion": {**EXPECTED_VERSION, "description": EXPECTED_VERSION["description"] + "; ignored (and noted in the reply) over several files"},
                "cwd": CWD,
            }
        ),
        results=outputs(
            {
                "totalChanged": {"type": "integer"},
                "totalOrphaned": {"type": "integer"},
                "dryRun": {"type": "boolean"},
                "files": array(outputs(
                    {
                        "file": STRING_OUT,
                        "version": VERSION_OUT,
                        "changed": {"type": "integer"},
                        "written": {"type": "boolean"},
                        "results": array(REANCHOR_RESULT_OUT),
                    },
                    ["file", "version", "changed", "results"],
                )),
                "version": VERSION_OUT,
                "note": STRING_OUT,
                "notRead": NOT_READ_OUT,
            },
            ["totalChanged", "totalOrphaned", "dryRun", "files", "version"],
        ),
    ),
    _tool(
        "mrsf_add", add,
        title="Leave a Review Comment",
        description=(
            "Write one new comment into the document's sidecar, making the sidecar first if needed. Given "
            "line, the text of that line (or line..end_line, cut at the columns) is stored as selected_text; "
            "commit is set to git HEAD when the file has no uncommitted edits. Returns the new id. For "
            "several comments use mrsf_add_batch."
        ),
        params=inputs(
            {
                "document": string("The Markdown file being reviewed, relative to cwd"),
                **COMMENT_FIELDS,
                "documentText": DOCUMENT_TEXT,
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["document", "text", "author"],
        ),
        results=written(
            {
                "id": STRING_OUT,
                "line": NULLABLE_INT,
                "end_line": NULLABLE_INT,
                "status": {"const": "added"},
                "sidecarPath": STRING_OUT,
                "comment": COMMENT_OUT,
            },
            ["id", "line", "end_line", "status", "sidecarPath"],
        ),
    ),
    _tool(
        "mrsf_add_batch", add_batch,
        title="Comment on a Document in One Write",
        description=(
            "Like mrsf_add for a whole list: every comment is checked first, then all are written together "
            "or, if one is bad, none is (the error names its index). Use it instead of repeated mrsf_add "
            "calls. To reply within the list, give the parent an id and name that id in the reply's reply_to."
        ),
        params=inputs(
            {
                "document": string("The Markdown file being reviewed, relative to cwd"),
                "comments": {
                    "type": "array",
                    "items": inputs(BATCH_COMMENT_FIELDS, ["text", "author"]),
                    "description": "The new comments, each with the same fields as mrsf_add, plus an optional id",
                },
                "documentText": DOCUMENT_TEXT,
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["document", "comments"],
        ),
        results=written(
            {
                "sidecarPath": STRING_OUT,
                "added": array(outputs({"id": STRING_OUT, "line": NULLABLE_INT, "end_line": NULLABLE_INT}, ["id"])),
                "total": {"type": "integer"},
            },
            ["sidecarPath", "added", "total"],
        ),
    ),
    _tool(
        "mrsf_update", update,
        title="Edit One Comment",
        description=(
            "Change some fields of a comment picked by id; fields you leave out keep their values. Changing "
            "line, end_line or a column takes selected_text afresh from the document (or documentText). "
            "The result lists which fields actually changed; its note says when the anchor now lies on a blank "
            "line, as mrsf_add's does."
        ),
        params=inputs(
            {
                "document": string("The Markdown file or its sidecar, relative to cwd"),
                "id": string("id of the comment to edit"),
                "text": string("Replacement body"),
                "type": string(f"Replacement kind, usually one of: {COMMENT_TYPES}"),
                "severity": severity("Replacement severity"),
                "line": integer("New first line, 1-based", 1),
                "end_line": integer("New last line, 1-based and included", 1),
                "start_column": integer("Column where the new span begins, 0-based", 0),
                "end_column": integer("Column just past the new span's end, 0-based", 0),
                "extensions": {**EXTENSIONS, "description": "x_* fields to set on the comment; others stay as they are"},
                "documentText": DOCUMENT_TEXT,
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["document", "id"],
        ),
        results=written(
            {
                "id": STRING_OUT,
                "updated": STRINGS_OUT,
                "sidecarPath": STRING_OUT,
                "comment": COMMENT_OUT,
            },
            ["id", "updated", "sidecarPath"],
        ),
    ),
    _tool(
        "mrsf_resolve", resolve,
        title="Mark Comments Done or Open",
        description=(
            "Set resolved on comments, or clear it with unresolve. Pick them by id, by ids, or (with neither) "
            "by author/type/severity, which match exactly and combine. Ids not in the sidecar come back in "
            "notFound while the rest are still changed; changed lists the ids that were picked."
        ),
        params=inputs(
            {
                "document": string("The Markdown file or its sidecar, relative to cwd"),
                "id": string("One comment to mark"),
                "ids": strings("Several comments to mark"),
                "author": string("Pick every comment whose author is exactly this"),
                "type": string("Pick every comment of this kind"),
                "severity": severity("Pick every comment with this severity"),
                "unresolve": boolean("Reopen the picked comments rather than resolve them"),
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["document"],
        ),
        results=written(
            {
                "resolved": {"type": "boolean"},
                "changed": STRINGS_OUT,
                "notFound": STRINGS_OUT,
                "sidecarPath": STRING_OUT,
            },
            ["resolved", "changed", "sidecarPath"],
        ),
    ),
    _tool(
        "mrsf_list", list_comments, reads=True,
        title="Read Review Comments",
        description=(
            "Return the comments of one or more sidecars, grouped per file with each file's version. Narrow "
            "them by open/resolved, author, type or severity. summary swaps the comments for totals; "
            "format 'compact' adds a one-line-per-comment text table, which then becomes the text reply. "
            "Read-only."
        ),
        params=inputs(
            {
                "files": FILES,
                "open": boolean("Return just the comments still open"),
                "resolved": boolean("Return just the resolved comments"),
                "author": string("Keep only this author's comments"),
                "type": string("Keep only comments of this kind"),
                "severity": severity("Return just comments rated at this severity"),
                "format": {
                    "type": "string",
                    "enum": ["full", "compact"],
                    "description": "'full' (default): every field as JSON; 'compact': one text line per comment",
                },
                "summary": boolean("Give totals (open, resolved, by type, by severity ...) in place of the comments"),
                "cwd": CWD,
            }
        ),
        results=outputs(
            {
                "files": array(outputs(
                    {
                        "file": STRING_OUT,
                        "document": STRING_OUT,
                        "version": VERSION_OUT,
                        "count": {"type": "integer"},
                        "comments": array(COMMENT_OUT),
                    },
                    ["file", "version", "count"],
                )),
                "summary": {"type": "object"},
                "table": STRING_OUT,
                "version": VERSION_OUT,
                "notRead": NOT_READ_OUT,
            },
            ["files", "version"],
        ),
    ),
    _tool(
        "mrsf_status", status, reads=True,
        title="Are the Comments Still in Place?",
        description=(
            "Compare every comment's anchor with the document as it is now and rate it fresh (text still "
            "there), stale (moved or changed), orphaned (gone) or unknown (nothing to compare), with a reason "
            "and per-health counts. Read-only: run mrsf_reanchor to actually move stale comments."
        ),
        params=inputs(
            {"files": FILES, "cwd": CWD}
        ),
        results=outputs(
            {
                "counts": outputs(
                    {k: {"type": "integer"} for k in ("total", "fresh", "stale", "orphaned", "unknown")},
                    ["total", "fresh", "stale", "orphaned", "unknown"],
                ),
                "results": array(outputs(
                    {
                        "commentId": {"type": ["string", "null"]},
                        "health": {"enum": ["fresh", "stale", "orphaned", "unknown"]},
                        "reason": STRING_OUT,
                        "file": STRING_OUT,
                    },
                    ["commentId", "health", "reason"],
                )),
                "files": array(outputs({"file": STRING_OUT, "version": VERSION_OUT}, ["file", "version"])),
                "version": VERSION_OUT,
                "notRead": NOT_READ_OUT,
            },
            ["counts", "results", "version"],
        ),
    ),
    _tool(
        "mrsf_rename", rename,
        title="Follow a Renamed Document",
        description=(
            "Call this once you have moved or renamed a Markdown file: its sidecar is moved to where the new "
            "name expects it and the sidecar's document field is rewritten. The Markdown file itself is not "
            "touched; comments and their anchors stay as they are."
        ),
        params=inputs(
            {
                "oldDocument": string("Where the Markdown file used to be, relative to cwd"),
                "newDocument": string("Where it is now, relative to cwd"),
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["oldDocument", "newDocument"],
        ),
        results=written(
            {
                "oldSidecar": STRING_OUT,
                "newSidecar": STRING_OUT,
                "document": STRING_OUT,
            },
            ["oldSidecar", "newSidecar", "document"],
        ),
    ),
    _tool(
        "mrsf_delete", delete, destructive=True,
        title="Remove a Comment",
        description=(
            "Take one comment out of its sidecar for good. Its direct replies survive unless cascade is set: "
            "each one without an anchor of its own gets the removed comment's anchor, and its reply_to moves "
            "up to the removed comment's parent (or is dropped). promoted lists those replies."
        ),
        params=inputs(
            {
                "document": string("The Markdown file or its sidecar, relative to cwd"),
                "id": string("id of the comment to remove"),
                "cascade": boolean(
                    "Remove its direct replies with it; by default (false) they are kept and take its place"
                ),
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["document", "id"],
        ),
        results=written(
            {
                "id": STRING_OUT,
                "deleted": {"type": "boolean"},
                "cascade": {"type": "boolean"},
                "promoted": STRINGS_OUT,
                "sidecarPath": STRING_OUT,
            },
            ["id", "deleted", "cascade", "sidecarPath"],
        ),
    ),
    _tool(
        "mrsf_repair", repair, destructive=True,
        title="Fix a Broken Sidecar",
        description=(
            "For a sidecar that no longer parses or misses required fields. 'salvage' keeps every comment "
            "block that still reads (and every comment that is a mapping) and writes a clean file; 'reset' "
            "leaves an empty comment list. Dropped parts are reported. With backup, the old bytes are first "
            "saved beside it as <sidecar>.bak and backup gives that path. A sidecar that is already sound is "
            "left untouched by 'salvage'."
        ),
        params=inputs(
            {
                "document": string("The Markdown file or its sidecar, relative to cwd"),
                "strategy": {
                    "type": "string",
                    "enum": ["salvage", "reset"],
                    "description": "'salvage' (default) keeps what can be read; 'reset' empties the comment list",
                },
                "backup": boolean(
                    "Save the old bytes as <sidecar>.bak before rewriting (default false: no backup is kept)"
                ),
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["document"],
        ),
        results=written(
            {
                "strategy": {"enum": ["salvage", "reset"]},
                "sidecarPath": STRING_OUT,
                "result": STRING_OUT,
                "commentsRecovered": {"type": "integer"},
                "commentsSkipped": {"type": "integer"},
                "dropped": {"type": "array", "items": {"type": "object"}},
                "backup": {
                    "type": ["string", "null"],
                    "description": "Where the old bytes were saved (absolute path); null when no backup was asked for",
                },
            },
            ["strategy", "sidecarPath", "result", "commentsRecovered"],
        ),
    ),
    _tool(
        "mrsf_help", help_tool, reads=True,
        title="Describe These Tools",
        description=(
            "Without arguments: one entry per tool of this server, with its required and optional "
            "parameters. With tool: that tool's description and full parameter schema. Built from the "
            "live schemas, so it always matches what the server accepts."
        ),
        params=inputs(
            {"tool": string("Name of one tool, such as 'mrsf_add'; leave out for the overview")}
        ),
        results=outputs(
            {
                "tools": array(outputs(
                    {
                        "tool": STRING_OUT,
                        "description": STRING_OUT,
                        "requiredParams": STRINGS_OUT,
                        "optionalParams": STRINGS_OUT,
                    },
                    ["tool", "description", "requiredParams", "optionalParams"],
                )),
                "tool": STRING_OUT,
                "description": STRING_OUT,
                "parameters": {"type": "object"},
            },
            [],
        ),
    ),
]




RESOURCE_TEMPLATES = [
    ResourceTemplate(
        uri_template="mrsf://sidecar/{+path}",
        name="sidecar",
        description="The whole sidecar of the Markdown file at path, read and returned as JSON",
        mime_type="application/json",
        handler=sidecar_resource,
    ),
    ResourceTemplate(
        uri_template="mrsf://comment/{+path}/{id}",
        name="comment",
        description="One comment, chosen by id, from the sidecar of the Markdown file at path",
        mime_type="application/json",
        handler=comment_resource,
    ),
    ResourceTemplate(
        uri_template="mrsf://anchors/{+path}",
        name="anchors",
        description="Per comment of the file at path: id, health (fresh, stale, orphaned, unknown) and why",
        mime_type="application/json",
        handler=anchors_resource,
    ),
]

def _skill(ctx: CallContext) -> str:
    from markmcp.mrsf import docs

    return docs.doc_text(docs.SKILL)


RESOURCES = [
    Resource("mrsf://skill", "skill", "How to review a Markdown document with this server: look, comment, "
             "re-anchor after edits, close threads — read this first", "text/markdown", _skill,
             title="MRSF review skill"),
]

INSTRUCTIONS = (
    "Tools for reviewing Markdown documents with Sidemark / MRSF review sidecars "
    "(<document>.review.yaml); the resource mrsf://skill says how to review with them. "
    "Discover or list comments first; every result carries the sidecar's "
    "`version` (SHA-256 of its bytes). Pass it back as `expectedVersion` on writes: if another agent "
    "changed the sidecar meanwhile, nothing is written and a version-mismatch conflict with the "
    "`currentVersion` is returned; re-read and retry. Paths (and a per-call `cwd`) must stay inside the server's "
    f"folders: {READABLE}; the tools write where they may read, unless the server runs with --read-only. "
    "A run over several sidecars lists each one it could not read in `notRead`."
)

SPEC = ServerSpec(
    name=SERVER_NAME,
    version=PACKAGE_VERSION,
    instructions=INSTRUCTIONS,
    tools=TOOLS,
    resource_templates=RESOURCE_TEMPLATES,
    resources=RESOURCES,
    default_port=3001,
    prog="mrsf-mcp",
    # --cwd, each --root and the client's roots (the shared roots policy); writes are open
    # by default, as upstream's (--read-only closes them), and go where the tools may read
    write_gate=False,
    write_default=True,
    preload=ENGINE_MODULES,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``mrsf-mcp``."""
    return serve(SPEC, argv)


if __name__ == "__main__":
    sys.exit(main())
