"""``figdown-mcp``: FigDown checking, reading and reference over MCP.

Three tools (``figdown_build`` arrives with the renderer):

``figdown_check``
    ``source`` or ``path`` (a file, or a folder whose ``*.fd`` files are all
    checked at any depth, except under ``.git`` and ``node_modules``).  Draws and
    saves nothing; the result counts the documents it covered.
``figdown_read``
    ``source`` or ``path`` (one file).  The sections' shape (each with the document
    line it starts at), the reading contract (short form; one extra line when a
    sequence section is present) and the §12 model, in which every element carries
    its line (§12 counts lines from the start of the element's own section, so
    document line = ``startLine`` + line - 1).
``figdown_reference``
    ``name``: a genre, ``reading``, ``transcribe`` or ``skill``; without it, the
    list of all of them.  ``experimental: true`` adds a genre's experimental files.  The genre
    list comes from the router table of our ``SKILL.md``, read at call time.

Three channels, kept apart:

* JSON-RPC errors for protocol faults only (the shared layer: unknown tool,
  unknown method, bad JSON);
* ``isError: true`` when the request itself is wrong: both ``source`` and ``path``,
  neither, an empty path, no such file, a device or pipe, a directory where one
  document is needed, a file that is not UTF-8, a document (file or ``source``)
  over the size limit, an ``.svg`` given to ``figdown_read`` (reading a built
  figure's embedded source comes with the renderer), a path outside the server's
  folders, an unknown reference name;
* a normal result when the document itself has errors.  Its first text line reads
  ``PARSE FAILED — N diagnostic(s) in <label>`` and the engine's diagnostics follow
  verbatim (control characters escaped in the text; ``structuredContent`` keeps them
  exact and says the same with ``ok: false``).

Files are read only when a ``path`` is given, and only through
:mod:`markmcp.mcpcore.files`.  Relative paths are taken from the server's working
directory (``--cwd``); a path must lie inside that directory or inside a root
(``--root DIR`` or the client's MCP roots), symlinks followed.  A folder check
resolves every ``*.fd`` it finds: one that leads outside those folders (a planted
symlink), a FIFO or device, a file over the limit or one that is not UTF-8 is never
read but reported in the result (``problem`` on its document, counted in
``unreadable``), and the check goes on.  Every document, found, named or inline,
is limited to 10 MiB.  Default port for ``--transport http|sse``: 3002.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markmcp import __version__ as PACKAGE_VERSION
from markmcp.figdown import docs, model_json, parse
from markmcp.figdown.report import (
    check_report,
    diagnostics,
    failing_blocks,
    parse_failed,
    tally,
    tally_line,
    unread_report,
)
from markmcp.figdown.sources import LIMIT, check_inline, documents_below, read_document, shown
from markmcp.mcpcore import CallContext, ServerSpec, Tool, ToolError, files, serve
from markmcp.textsafe import escape_controls

SERVER_NAME = "markmcp-figdown"
DEFAULT_PORT = 3002
INLINE_LABEL = "<source>"

#: Collections of a section's model that the shape line counts (``planes`` is always the base plane).
_UNCOUNTED = frozenset({"planes"})

CONTRACT = "\n".join([
    "READING CONTRACT (summary; figdown_reference name=reading has it in full)",
    "- Who takes part: the nodes. How they relate: the edges, each directed by its operator",
    "  (-> and <- one way, <-> both ways, -- related with no direction given).",
    "- An element belongs to a category only through class=, and only as far as that class's",
    "  meaning text says; an empty meaning \"\" says nothing. Colours and shapes say nothing.",
    "- No label and the empty label \"\" differ; never supply a label the author left out.",
    "- description= and note= are the author's prose: quote them, do not extract structure.",
    "- Arrays are listed in writing order, which ranks nothing.",
    "- pin lines (the layout namespace) only place things: ignore them for meaning.",
])
SEQUENCE_LINE = (
    "- Exception for sequence sections (present here): messages are not edges, so edges stays "
    "empty, and the listed order of messages and states is the meaning, namely the order of the exchange."
)

# --- schemas ---------------------------------------------------------------------------

SOURCE = {"type": "string", "description": "The document itself, as FigDown text (at most 10 MiB as UTF-8). "
                                           "Use this or `path`."}
DIAGNOSTIC = {
    "type": "object",
    "properties": {
        "line": {"type": "integer", "description": "1-based line in the whole document"},
        "column": {"type": ["integer", "null"], "description": "1-based column when known"},
        "message": {"type": "string"},
    },
    "required": ["line", "column", "message"],
}
DIAGNOSTICS = {"type": "array", "items": DIAGNOSTIC}

CHECK_INPUT = {
    "type": "object",
    "properties": {
        "source": SOURCE,
        "path": {
            "type": "string",
            "description": "A FigDown file, or a folder: every *.fd below it is checked "
                           "(.git and node_modules are left out). Use this or `source`.",
        },
    },
    "additionalProperties": False,
}
CHECK_OUTPUT = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean", "description": "true when every document is clean"},
        "checked": {"type": "integer", "description": "how many documents were found (read or not)"},
        "clean": {"type": "integer"},
        "withDiagnostics": {"type": "integer"},
        "unreadable": {"type": "integer", "description": "documents found but not read (see their `problem`)"},
        "documents": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "ok": {"type": "boolean"},
                    "diagnostics": DIAGNOSTICS,
                    "problem": {
                        "type": "object",
                        "description": "why the document was not read: a symlink leading outside the server's "
                                       f"folders, a FIFO or device, over {LIMIT} bytes, not UTF-8...",
                        "properties": {"code": {"type": "string", "enum": list(files.CODES)},
                                       "message": {"type": "string"}},
                        "required": ["code", "message"],
                    },
                },
                "required": ["label", "ok", "diagnostics"],
            },
        },
    },
    "required": ["ok", "checked", "clean", "withDiagnostics", "unreadable", "documents"],
}

READ_INPUT = {
    "type": "object",
    "properties": {
        "source": SOURCE,
        "path": {"type": "string", "description": "A single FigDown file. Use this or `source`."},
    },
    "additionalProperties": False,
}
READ_OUTPUT = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean", "description": "false when the document does not parse"},
        "label": {"type": "string"},
        "sections": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "section": {"type": "integer"},
                    "startLine": {
                        "type": "integer",
                        "description": "the document line where the section begins; an element's model "
                                       "line L in this section is document line startLine + L - 1",
                    },
                    "version": {"type": "string"},
                    "genre": {
                        "type": ["string", "null"],
                        "description": "null only for an empty document (no header, nothing declared)",
                    },
                    "title": {"type": "string"},
                    "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
                },
                "required": ["section", "startLine", "version", "genre", "counts"],
            },
        },
        "contract": {"type": ["string", "null"], "description": "the reading contract, short form"},
        "model": {
            "type": ["object", "null"],
            "description": "the §12 model: one section flat, several as {\"sections\": [...]}",
        },
        "diagnostics": DIAGNOSTICS,
    },
    "required": ["ok", "label", "sections", "contract", "model", "diagnostics"],
}

REFERENCE_INPUT = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "description": "What to fetch: a genre name (block, bitfield, table, topology, flowchart, "
                           "statechart, timing, sequence), reading, transcribe, or skill. Leave it out "
                           "to get the list of everything.",
        },
        "experimental": {"type": "boolean", "description": "Also send the genre's experimental pages."},
    },
    "additionalProperties": False,
}
STRINGS = {"type": "array", "items": {"type": "string"}}
REFERENCE_OUTPUT = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["index", "genre", "task", "skill"]},
        "name": {"type": ["string", "null"]},
        "experimental": {"type": "boolean"},
        "files": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"file": {"type": "string"}, "text": {"type": "string"}},
                "required": ["file", "text"],
            },
        },
        "heldBack": {**STRINGS, "description": "experimental files of the genre not included"},
        "note": {"type": "string"},
        "genres": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "draws": {"type": "string"},
                               "load": STRINGS, "experimental": STRINGS},
                "required": ["name", "draws", "load", "experimental"],
            },
        },
        "tasks": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "file": {"type": "string"},
                               "purpose": {"type": "string"}},
                "required": ["name", "file", "purpose"],
            },
        },
    },
    "required": ["kind", "name", "experimental", "files", "heldBack", "note"],
}

# --- where the text comes from ---------------------------------------------------------


def _one_of(args: dict[str, Any]) -> None:
    if "source" in args and "path" in args:
        raise ToolError("`source` and `path` were both given — send exactly one")
    if "source" not in args and "path" not in args:
        raise ToolError("neither `source` nor `path` was given — send exactly one")


def _resolve(ctx: CallContext, value: str) -> Path:
    """``value`` resolved from the server's working directory (symlinks followed); a
    FileAccessError (an ``isError`` result) when it leaves the server's folders."""
    if not value.strip():
        raise ToolError("`path` is empty: name a file or a directory (\".\" for the working directory)")
    return ctx.places().resolve(value, ctx.cwd)


def _label(ctx: CallContext, path: Path) -> str:
    try:
        return shown(path.relative_to(ctx.cwd.resolve()))
    except ValueError:
        return shown(path)


# --- figdown_check -----------------------------------------------------------------------


def check(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    _one_of(args)
    if "source" in args:
        return tally([check_report(INLINE_LABEL, check_inline(args["source"], INLINE_LABEL))])
    given = args["path"]
    path = _resolve(ctx, given)
    places = ctx.places()
    if files.kind_of(path) == "dir":
        reports = []
        for source in documents_below(path, places=places, label=lambda found: _label(ctx, found)):
            if source.problem is not None:
                reports.append(unread_report(source.label, source.problem))
            else:
                reports.append(check_report(source.label, source.text or ""))
        return tally(reports)
    label = shown(given)
    return tally([check_report(label, read_document(path, places=places, label=label))])


def check_text(result: dict[str, Any]) -> list[str]:
    """Failing documents first (each a PARSE FAILED or NOT READ block), then the tally."""
    summary = tally_line(result)
    if result["checked"] == 0:
        summary += " (no .fd file found)"
    return [*failing_blocks(result), summary]


# --- figdown_read ------------------------------------------------------------------------


def read(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    _one_of(args)
    if "source" in args:
        label, text = INLINE_LABEL, check_inline(args["source"], INLINE_LABEL)
    else:
        given = args["path"]
        path = _resolve(ctx, given)
        label = shown(given)
        if files.kind_of(path) == "dir":
            raise ToolError(f"{files.shown(given)} is a directory: figdown_read reads one document "
                            "(figdown_check walks directories)")
        if path.suffix.lower() == ".svg":
            raise ToolError(f"{files.shown(given)} is an SVG: recovering the source from a built figure is not "
                            "supported yet; read the .fd it was built from (never the picture)")
        text = read_document(path, places=ctx.places(), label=label)
    result = parse(text)
    if result.diagnostics:
        return {"ok": False, "label": label, "sections": [], "contract": None, "model": None,
                "diagnostics": diagnostics(result)}
    sections = []
    for number, (model, start) in enumerate(zip(result.models, result.section_starts), 1):
        header = model["header"]
        shape: dict[str, Any] = {"section": number, "startLine": start,
                                 "version": header["version"], "genre": header.get("genre")}
        if "title" in model:
            shape["title"] = model["title"]
        shape["counts"] = {key: len(value) for key, value in model.items()
                           if isinstance(value, list) and value and key not in _UNCOUNTED}
        sections.append(shape)
    contract = CONTRACT
    if any(section["genre"] == "sequence" for section in sections):
        contract += "\n" + SEQUENCE_LINE
    return {"ok": True, "label": label, "sections": sections, "contract": contract,
            "model": json.loads(model_json(result)), "diagnostics": []}


def read_text(result: dict[str, Any]) -> list[str]:
    if not result["ok"]:
        return [parse_failed(result["label"], result["diagnostics"])]
    lines = [f"{len(result['sections'])} section(s) in {escape_controls(result['label'])}"]
    for shape in result["sections"]:
        title = f"  title {json.dumps(shape['title'], ensure_ascii=False)}" if "title" in shape else ""
        counts = ", ".join(f"{n} {key}" for key, n in shape["counts"].items()) or "empty"
        if shape["genre"] is None:
            lines.append(f"  section {shape['section']} (from line {shape['startLine']}): "
                         "empty: no header and nothing declared")
            continue
        lines.append(escape_controls(f"  section {shape['section']} (from line {shape['startLine']}): "
                                     f"figdown {shape['version']} {shape['genre']}{title}  [{counts}]"))
    model = json.dumps(result["model"], ensure_ascii=False, indent=1)
    model_head = ("MODEL (§12; each element's line number counts from the first line of its own "
                  "section: document line = the section's first line + line - 1)")
    return ["\n".join(lines), result["contract"], f"{model_head}\n{model}"]


# --- figdown_reference ---------------------------------------------------------------------


def reference(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    try:
        answer = docs.lookup(args.get("name"), experimental=args.get("experimental", False))
    except docs.DocsError as error:
        raise ToolError(str(error)) from None
    return docs.as_dict(answer)


def reference_text(result: dict[str, Any]) -> list[str]:
    answer = docs.Answer(
        kind=result["kind"], name=result["name"], experimental=result["experimental"],
        files=[(item["file"], item["text"]) for item in result["files"]],
        held_back=tuple(result["heldBack"]), note=result["note"],
        routes=[docs.Route(g["name"], g["draws"], tuple(g["load"]), tuple(g["experimental"]))
                for g in result.get("genres", [])],
    )
    return [docs.render(answer)]


# --- the server ------------------------------------------------------------------------------

TOOLS = [
    Tool(
        name="figdown_check",
        title="Check FigDown documents",
        description=(
            "Validate FigDown: text in `source`, or a file or folder tree in `path`. Every problem comes "
            "back with its line; nothing is drawn or saved, and the result counts the documents seen. "
            "Problems in the document are an ordinary result beginning PARSE FAILED, not a tool error: "
            "correct the named lines and run the check again until none are left."
        ),
        input_schema=CHECK_INPUT,
        output_schema=CHECK_OUTPUT,
        handler=check,
        read_only=True,
        idempotent=True,
        text=check_text,
    ),
    Tool(
        name="figdown_read",
        title="Read what a FigDown figure says",
        description=(
            "Returns a summary of each section, the reading contract (the rules for drawing conclusions "
            "from a figure) and the §12 model, each element tagged with its source line. Use it rather "
            "than interpreting any rendered image. Problems in the document are an ordinary result "
            "beginning PARSE FAILED."
        ),
        input_schema=READ_INPUT,
        output_schema=READ_OUTPUT,
        handler=read,
        read_only=True,
        idempotent=True,
        text=read_text,
    ),
    Tool(
        name="figdown_reference",
        title="FigDown language pages",
        description=(
            "Serves our FigDown pages: the words of one genre, a task guide (reading, transcribe) or the "
            "skill with the authoring rules. FigDown accepts only the words it defines and rejects any "
            "other line, so fetch the genre page before you start writing a figure. Called without a name "
            "it lists what exists; experimental: true also sends a genre's experimental pages."
        ),
        input_schema=REFERENCE_INPUT,
        output_schema=REFERENCE_OUTPUT,
        handler=reference,
        read_only=True,
        idempotent=True,
        text=reference_text,
    ),
]

INSTRUCTIONS = (
    "A FigDown figure is a .fd text file, and that text is the source of truth; pictures are derived. "
    "Get a figure's meaning with figdown_read, not from an image. To write one, fetch the genre's page "
    "with figdown_reference (only defined words parse), write the .fd and repeat figdown_check until "
    "it reports no problems. PARSE FAILED in a result lists problems in the document; the tool worked."
)

SPEC = ServerSpec(
    name=SERVER_NAME,
    version=PACKAGE_VERSION,
    instructions=INSTRUCTIONS,
    tools=TOOLS,
    default_port=DEFAULT_PORT,
    prog="figdown-mcp",
    write_gate=False,  # figdown-mcp reads (inside --cwd and the roots) and never writes
)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``figdown-mcp``."""
    return serve(SPEC, argv)


if __name__ == "__main__":
    sys.exit(main())
