"""``figdown-mcp``: FigDown checking, reading and reference over MCP.

Three tools (``figdown_build`` arrives with the renderer):

``figdown_check``
    ``source`` or ``path`` (a file, or a directory walked recursively for ``*.fd``
    files, skipping ``.git`` and ``node_modules``).  Renders and writes nothing;
    says how many documents it looked at.
``figdown_read``
    ``source`` or ``path`` (one file).  The sections' shape (each with the document
    line it starts at), the reading contract (short form; one extra line when a
    sequence section is present) and the §12 model, in which every element carries
    its line (§12 counts lines from the start of the element's own section, so
    document line = ``startLine`` + line - 1).
``figdown_reference``
    ``name``: a genre, a task (``reading``, ``transcribe``) or ``skill``; none gives
    the index.  ``experimental: true`` adds a genre's experimental files.  The genre
    list comes from the router table of our ``SKILL.md``, read at call time.

Three channels, kept apart:

* JSON-RPC errors for protocol faults only (the shared layer: unknown tool,
  unknown method, bad JSON);
* ``isError: true`` when the request itself is wrong: both ``source`` and ``path``,
  neither, an empty path, no such file, a device or pipe, a directory where one
  document is needed, a file that is not UTF-8, an ``.svg`` given
  to ``figdown_read`` (reading a built figure's embedded source comes with the
  renderer), a path outside the server's folders, an unknown reference name;
* a normal result for a document that does not parse.  Its first text line reads
  ``PARSE FAILED — N diagnostic(s) in <label>`` and the engine's diagnostics follow
  verbatim; ``structuredContent`` says the same with ``ok: false``.

Files are read only when a ``path`` is given.  Relative paths are taken from the
server's working directory (``--cwd``); a path must lie inside that directory or
inside a root (``--root DIR`` or the client's MCP roots), symlinks followed.
Default port for ``--transport http|sse``: 3002.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markmcp import __version__ as PACKAGE_VERSION
from markmcp.figdown import docs, model_json, parse
from markmcp.figdown.cli import (
    SourceError,
    check_report,
    diagnostics,
    parse_failed,
    read_document,
    shown,
    tally,
    tally_line,
    walk,
)
from markmcp.mcpcore import CallContext, ServerSpec, Tool, ToolError, serve

SERVER_NAME = "markmcp-figdown"
DEFAULT_PORT = 3002
INLINE_LABEL = "<source>"

#: Collections of a section's model that the shape line counts (``planes`` is always the base plane).
_UNCOUNTED = frozenset({"planes"})

CONTRACT = "\n".join([
    "READING CONTRACT (short form; the full text: figdown_reference name=reading)",
    "- Nodes are the participants. An edge is a relationship; its operator gives the direction",
    "  (-> and <- point one way, <-> both ways, -- states a relationship with no direction).",
    "- A category comes only from a class reference together with that class's stated meaning.",
    "  A class whose meaning is \"\" claims nothing. Colour or shape alone means nothing.",
    "- A missing label and an empty label \"\" are different facts; do not fill either in.",
    "- description= and note= are authored prose: quote them, never mine them for structure.",
    "- The order of an array is not a ranking or a priority.",
    "- pin (the layout namespace) is geometry wherever it appears: skip it when reading.",
])
SEQUENCE_LINE = (
    "- This document has a sequence section: there a message is not an edge (edges stay empty), "
    "and the array order of messages and states is the meaning: it is the order of the exchange."
)

# --- schemas ---------------------------------------------------------------------------

SOURCE = {"type": "string", "description": "FigDown source text. Give this or `path`, not both."}
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
            "description": "A FigDown file, or a directory walked recursively for *.fd files "
                           "(.git and node_modules skipped). Give this or `source`, not both.",
        },
    },
    "additionalProperties": False,
}
CHECK_OUTPUT = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean", "description": "true when every document is clean"},
        "checked": {"type": "integer", "description": "how many documents were looked at"},
        "clean": {"type": "integer"},
        "withDiagnostics": {"type": "integer"},
        "documents": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"label": {"type": "string"}, "ok": {"type": "boolean"}, "diagnostics": DIAGNOSTICS},
                "required": ["label", "ok", "diagnostics"],
            },
        },
    },
    "required": ["ok", "checked", "clean", "withDiagnostics", "documents"],
}

READ_INPUT = {
    "type": "object",
    "properties": {
        "source": SOURCE,
        "path": {"type": "string", "description": "One FigDown file. Give this or `source`, not both."},
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
            "description": "A genre (block, bitfield, table, topology, flowchart, statechart, timing, "
                           "sequence), a task (reading, transcribe) or skill. Omit it for the index.",
        },
        "experimental": {"type": "boolean", "description": "Add the genre's experimental files."},
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
    """``value`` resolved from the server's working directory; refused outside its folders."""
    if not value.strip():
        raise ToolError("`path` is empty: name a file or a directory (\".\" for the working directory)")
    if "\x00" in value:
        raise ToolError(f"path {value!r} contains a NUL character")
    resolved = (ctx.cwd / value).resolve()
    allowed = (ctx.cwd.resolve(), *(root.resolve() for root in ctx.roots))
    if not any(resolved.is_relative_to(base) for base in allowed):
        raise ToolError(
            f"path '{value}' is outside the server's folders ({', '.join(str(b) for b in allowed)}); "
            "start the server with --cwd or --root to widen them"
        )
    return resolved


def _label(ctx: CallContext, path: Path) -> str:
    try:
        return shown(path.relative_to(ctx.cwd.resolve()))
    except ValueError:
        return shown(path)


def _regular(path: Path, given: str) -> None:
    """Refuse a device, pipe or socket: reading one could block the server forever."""
    if not path.is_file():
        raise ToolError(f"{given} is not a regular file (a device, pipe or socket is never read)")


def _read(path: Path, label: str) -> str:
    """The document at ``path``; a read failure is a ToolError naming it as ``label``."""
    try:
        return read_document(path)
    except SourceError as error:
        raise ToolError(str(error).replace(shown(path), label)) from None


# --- figdown_check -----------------------------------------------------------------------


def check(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    _one_of(args)
    if "source" in args:
        return tally([check_report(INLINE_LABEL, args["source"])])
    given = args["path"]
    path = _resolve(ctx, given)
    if path.is_dir():
        try:
            files = walk(path)
        except SourceError as error:
            raise ToolError(str(error)) from None
        return tally([check_report(_label(ctx, file), _read(file, _label(ctx, file))) for file in files])
    if not path.exists():
        raise ToolError(f"no such file or directory: {given}")
    _regular(path, given)
    return tally([check_report(given, _read(path, given))])


def check_text(result: dict[str, Any]) -> list[str]:
    """Failing documents first (each a PARSE FAILED block), then the tally."""
    blocks = [parse_failed(doc["label"], doc["diagnostics"]) for doc in result["documents"] if not doc["ok"]]
    summary = tally_line(result)
    if result["checked"] == 0:
        summary += " (no .fd file found)"
    return [*blocks, summary]


# --- figdown_read ------------------------------------------------------------------------


def read(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    _one_of(args)
    if "source" in args:
        label, text = INLINE_LABEL, args["source"]
    else:
        given = args["path"]
        path = _resolve(ctx, given)
        if path.is_dir():
            raise ToolError(f"{given} is a directory: figdown_read reads one document "
                            "(figdown_check walks directories)")
        if not path.exists():
            raise ToolError(f"no such file: {given}")
        _regular(path, given)
        if path.suffix.lower() == ".svg":
            raise ToolError(f"{given} is an SVG: recovering the source from a built figure is not supported yet; "
                            "read the .fd it was built from (never the picture)")
        label, text = given, _read(path, given)
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
    lines = [f"{len(result['sections'])} section(s) in {result['label']}"]
    for shape in result["sections"]:
        title = f"  title {json.dumps(shape['title'], ensure_ascii=False)}" if "title" in shape else ""
        counts = ", ".join(f"{n} {key}" for key, n in shape["counts"].items()) or "empty"
        if shape["genre"] is None:
            lines.append(f"  section {shape['section']} (from line {shape['startLine']}): "
                         "empty: no header and nothing declared")
            continue
        lines.append(f"  section {shape['section']} (from line {shape['startLine']}): "
                     f"figdown {shape['version']} {shape['genre']}{title}  [{counts}]")
    model = json.dumps(result["model"], ensure_ascii=False, indent=1)
    model_head = ("MODEL (§12; every element carries its source line, counted from the start of its "
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
            "Parse one FigDown document (`source`) or a file or whole directory tree (`path`) and report "
            "every diagnostic with its line. Renders nothing, writes nothing, and says how many documents "
            "it looked at. A document that does not parse is a normal result whose text starts with "
            "PARSE FAILED; fix the lines it names and check again until it is clean."
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
        title="Read a figure's meaning",
        description=(
            "The meaning of a FigDown figure: the shape of its sections, the reading contract (what you may "
            "and may not conclude) and the §12 model with every element's source line. Read this instead "
            "of looking at a rendered picture. A document that does not parse is a normal result whose "
            "text starts with PARSE FAILED."
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
        title="FigDown reference",
        description=(
            "Our FigDown reference: a genre's vocabulary, a task guide (reading, transcribe) or the skill "
            "(authoring discipline). The grammar is closed, an unknown line is an error, so read the "
            "genre's reference before writing its second line. No name gives the index; experimental: "
            "true adds the genre's experimental files."
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
    "FigDown keeps a figure as text (.fd); any picture is built from it. Read the .fd (figdown_read) for "
    "meaning, never the picture. To author: consult figdown_reference for the genre first (the grammar "
    "is closed), write the .fd, then run figdown_check until it is clean. A result starting with "
    "PARSE FAILED is the document's diagnostics, not a tool failure."
)

SPEC = ServerSpec(
    name=SERVER_NAME,
    version=PACKAGE_VERSION,
    instructions=INSTRUCTIONS,
    tools=TOOLS,
    default_port=DEFAULT_PORT,
    prog="figdown-mcp",
)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``figdown-mcp``."""
    return serve(SPEC, argv)


if __name__ == "__main__":
    sys.exit(main())
