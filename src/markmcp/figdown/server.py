"""``figdown-mcp``: FigDown building, checking, reading and reference over MCP.

Four tools:

``figdown_build``
    ``source`` or ``path`` (one ``.fd``); ``write``, ``with_title``, ``return_svg``,
    ``include_model``.  Draws the deterministic, self-carrying SVG (its source,
    the source's SHA-256 and the engine version embedded).  ``write: true`` (with a
    ``path``) saves ``X.svg`` beside ``X.fd`` and nowhere else, through the write
    gate.  The SVG comes back inline unless it was written (``return_svg``
    overrides either way); the model only with ``include_model: true``.
``figdown_check``
    ``source`` or ``path`` (a file, or a folder whose ``*.fd`` files are all
    checked at any depth, except under ``.git`` and ``node_modules``).  Parses
    and runs the drawing's geometry checks (a pin covering a node, a group band or
    bundle lasso enclosing a non-member), so what it clears ``figdown_build``
    draws; returns no SVG and saves nothing; the result counts the documents it
    covered.
``figdown_read``
    ``source`` or ``path`` (one file: a ``.fd``, or an ``.svg`` FigDown built, whose
    embedded source is read back: never the picture).  The sections' shape (each
    with the document line it starts at), the reading contract (short form; one
    extra line when a sequence section is present) and the §12 model, in which
    every element carries its line (§12 counts lines from the start of the
    element's own section, so document line = ``startLine`` + line - 1).  For an
    artifact it also says whether another engine drew it and, for a path, whether
    the ``X.fd`` beside it still matches (``STALE ARTIFACT`` / ``SIDECAR REFUSED``).
``figdown_reference``
    ``name``: a genre, ``reading``, ``transcribe``, ``build`` or ``skill``; without it, the
    list of all of them.  ``experimental: true`` adds a genre's experimental files.  The genre
    list comes from the router table of our ``SKILL.md``, read at call time.

Three channels, kept apart:

* JSON-RPC errors for protocol faults only (the shared layer: unknown tool,
  unknown method, bad JSON);
* ``isError: true`` when the request itself is wrong or cannot be carried out: both
  ``source`` and ``path``, neither, an empty path, no such file, a device or pipe,
  a directory where one document is needed, a file that is not UTF-8, a document
  (file or ``source``) over the size limit, an SVG with no FigDown metadata given
  to ``figdown_read`` (there is no source to read: never OCR the picture), a path
  outside the server's folders, an unknown reference name; for ``write``: no
  ``path``, a server started without ``--allow-write`` or without a root, an
  artifact path outside the roots, a symlink, FIFO or folder at it, or an ``.svg``
  there that FigDown did not build (it is never replaced);
* a normal result when the document itself has errors.  Its first text line reads
  ``PARSE FAILED — N diagnostic(s) in <label>`` (or ``FIGURE REFUSED — N geometry
  diagnostic(s)`` when it parses but the drawing would state what the source does
  not) and the diagnostics follow verbatim (control characters escaped in the
  text; ``structuredContent`` keeps them exact and says the same with ``ok:
  false``).  No SVG is drawn and nothing is written then.

Files are read only when a ``path`` is given, and only through
:mod:`markmcp.mcpcore.files`.  Relative paths are taken from the server's working
directory (``--cwd``); a path must lie inside that directory or inside a root
(``--root DIR`` or the client's MCP roots), symlinks followed.  A folder check
resolves every ``*.fd`` it finds: one that leads outside those folders (a planted
symlink), a FIFO or device, a file over the limit or one that is not UTF-8 is never
read but reported in the result (``problem`` on its document, counted in
``unreadable``), and the check goes on.  Every document, found, named or inline,
is limited to 10 MiB.

Writing (``figdown_build`` with ``write: true``) needs the server started with
``--allow-write`` and at least one root (``--root DIR`` or the client's MCP roots);
the working directory alone is readable, not writable.  The artifact path
(``X.svg`` beside the ``X.fd`` as named) must lie inside a root, is never written
through a symlink, and is replaced atomically, only when what is there is a FigDown
artifact (an artifact whose bytes would not change is left untouched).  Default
port for ``--transport http|sse``: 3002.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markmcp import __version__ as PACKAGE_VERSION
from markmcp.figdown.sources import LIMIT, check_inline, documents_below, read_document, read_named, shown
from markmcp.mcpcore import (CallContext, Resource, ResourceTemplate, ServerSpec, Tool, ToolError, files, serve,
                             writable_places)
from markmcp.mcpcore.roots import READABLE
from markmcp.textsafe import escape_controls

# The engine (parser, renderer, artifacts, reports, pages) is imported by the tools that use
# it, not here: the server answers ``initialize`` without it, and loads it right after
# (ENGINE_MODULES, imported in the background over stdio, before serving over HTTP/SSE).
ENGINE_MODULES = (
    "markmcp.figdown.artifacts", "markmcp.figdown.docs", "markmcp.figdown.report", "markmcp.figdown.render",
)

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

MODEL_HEAD = ("MODEL (§12; each element's line number counts from the first line of its own "
              "section: document line = the section's first line + line - 1)")

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
STRINGS_LIST = {"type": "array", "items": {"type": "string"}}

STAGE = {"type": ["string", "null"], "enum": ["parse", "geometry", None],
         "description": "what refused the document: parse (the text), geometry (the drawing would state "
                        "what the source does not), null when it builds"}

BUILD_INPUT = {
    "type": "object",
    "properties": {
        "source": SOURCE,
        "path": {"type": "string", "description": "A FigDown file (.fd). Use this or `source`; `write` needs it."},
        "write": {"type": "boolean", "description": "Save the artifact X.svg beside X.fd (default false). Needs "
                                                    "`path`, a server started with --allow-write and the file "
                                                    "inside a root. X.svg is the only file this tool writes, "
                                                    "and an .svg FigDown did not build is never replaced."},
        "with_title": {"type": "boolean", "description": "Draw the title inside the figure (default false: the "
                                                         "page around the figure usually captions it)."},
        "return_svg": {"type": "boolean", "description": "Send the SVG in the result (true) or not (false). "
                                                         "Default: sent unless it was just written to disk or "
                                                         "is over 1 MiB."},
        "include_model": {"type": "boolean", "description": "Also send the §12 model (default false; "
                                                            "figdown_read is the tool for reading one)."},
    },
    "additionalProperties": False,
}
#: The largest SVG (UTF-8 bytes) figdown_build sends when the call leaves return_svg out.
INLINE_SVG_LIMIT = 1 << 20
BUILD_OUTPUT = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean", "description": "false when the document does not parse or its drawing is refused"},
        "label": {"type": "string"},
        "stage": STAGE,
        "diagnostics": DIAGNOSTICS,
        "engine": {"type": "string", "description": "the engine version recorded in the artifact"},
        "renderOptions": {"type": ["string", "null"], "description": "with-title, or null for the default"},
        "sha256": {"type": ["string", "null"], "description": "SHA-256 of the source (as recorded in the artifact)"},
        "bytes": {"type": ["integer", "null"], "description": "size of the artifact in UTF-8 bytes"},
        "written": {"type": ["string", "null"], "description": "the artifact path written, or null"},
        "unchanged": {"type": "boolean", "description": "true when the artifact on disk already had these bytes "
                                                        "(it was left untouched)"},
        "svg": {"type": ["string", "null"], "description": "the artifact, when it is sent"},
        "empty": {"type": "boolean", "description": "present and true when the document has no header and "
                                                    "declares nothing: the SVG is a blank picture"},
        "withheld": {"type": "string", "enum": ["size"],
                     "description": "present when the SVG was not sent by default because it is over 1 MiB"},
        "model": {"type": ["object", "null"], "description": "the §12 model, with include_model"},
        "hints": {**STRINGS_LIST, "description": "present when a diagnostic names an element whose own "
                                                   "declaration line failed: fix that line first"},
    },
    "required": ["ok", "label", "stage", "diagnostics", "engine", "renderOptions", "sha256", "bytes", "written",
                 "unchanged", "svg", "model"],
}

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
        "empty": {"type": "integer", "description": "clean documents with no header and nothing declared "
                                                    "(they draw a blank picture)"},
        "documents": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "ok": {"type": "boolean"},
                    "diagnostics": DIAGNOSTICS,
                    "empty": {"type": "boolean", "description": "true when the document is clean but has no "
                                                                "header and declares nothing"},
                    "stage": {"type": "string", "enum": ["parse", "geometry"],
                              "description": "present with diagnostics: parse (the text) or geometry (the "
                                             "drawing would state what the source does not, or is past "
                                             "a size bound)"},
                    "hints": {**STRINGS_LIST, "description": "present when a diagnostic names an element whose own "
                                                   "declaration line failed: fix that line first"},

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
    "required": ["ok", "checked", "clean", "withDiagnostics", "unreadable", "empty", "documents"],
}

READ_INPUT = {
    "type": "object",
    "properties": {
        "source": {"type": "string", "description": "The document as FigDown text, or the text of an SVG FigDown "
                                                    "built (its embedded source is read). At most 10 MiB as "
                                                    "UTF-8. Use this or `path`."},
        "path": {"type": "string", "description": "A single FigDown file, or an .svg FigDown built (its embedded "
                                                  "source is read and the .fd beside it compared). Use this or "
                                                  "`source`."},
    },
    "additionalProperties": False,
}
ARTIFACT = {
    "type": ["object", "null"],
    "description": "for an SVG: what its metadata records, and the .fd beside it compared (null for a .fd)",
    "properties": {
        "engineVersion": {"type": ["string", "null"]},
        "engineSkew": {"type": "boolean", "description": "drawn by another engine or version than this one"},
        "recordedSha256": {"type": ["string", "null"]},
        "sha256Matches": {"type": "boolean", "description": "the recorded hash is the embedded source's"},
        "renderOptions": {"type": ["string", "null"]},
        "sidecar": {
            "type": ["object", "null"],
            "properties": {
                "path": {"type": "string"},
                "status": {"type": "string",
                           "enum": ["matches", "stale", "refused", "missing", "unreadable", "unchecked"]},
                "diagnostics": STRINGS_LIST,
            },
            "required": ["path", "status", "diagnostics"],
        },
    },
    "required": ["engineVersion", "engineSkew", "recordedSha256", "sha256Matches", "renderOptions", "sidecar"],
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
        "artifact": ARTIFACT,
        "notes": {**STRINGS_LIST, "description": "what a reader should know about where the source came from"},
        "hints": {**STRINGS_LIST, "description": "present when a diagnostic names an element whose own "
                                                 "declaration line failed: fix that line first"},
    },
    "required": ["ok", "label", "sections", "contract", "model", "diagnostics", "artifact", "notes"],
}

REFERENCE_INPUT = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "description": "What to fetch: a genre name (block, bitfield, table, topology, flowchart, "
                           "statechart, timing, sequence), reading, transcribe, build, or skill. Leave it out "
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


# --- figdown_build -----------------------------------------------------------------------


def build_tool(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.figdown import artifacts, model_json
    from markmcp.figdown.render import ENGINE_VERSION, build, sha256
    from markmcp.figdown.report import as_items, hints, is_empty

    _one_of(args)
    write = args.get("write", False)
    with_title = args.get("with_title", False)
    given: str | None = None
    if "source" in args:
        if write:
            raise ToolError("`write` needs `path`: the artifact is written beside its .fd and nowhere else "
                            "(leave `write` out to get the SVG in the result)")
        label, text = INLINE_LABEL, check_inline(args["source"], INLINE_LABEL)
    else:
        given = args["path"]
        path = _resolve(ctx, given)
        label = shown(given)
        if files.kind_of(path) == "dir":
            raise ToolError(f"{files.shown(given)} is a directory: figdown_build draws one document "
                            "(figdown_check walks directories)")
        if artifacts.is_svg_name(given):
            raise ToolError(f"{files.shown(given)} is an SVG: figdown_build takes the .fd it is built from "
                            "(figdown_read reads an artifact's source back)")
        if write and not given.endswith(artifacts.SOURCE_SUFFIX):
            raise ToolError(f"{files.shown(given)} is not a .fd file: `write` saves X.svg beside X.fd, so it "
                            "needs a .fd (leave `write` out to get the SVG in the result)")
        text = read_document(path, places=ctx.places(), label=label)
    built = build(text, with_title=with_title)
    result: dict[str, Any] = {
        "ok": built.svg is not None, "label": label, "stage": None, "diagnostics": [],
        "engine": ENGINE_VERSION, "renderOptions": "with-title" if with_title else None,
        "sha256": None, "bytes": None, "written": None, "unchanged": False, "svg": None, "model": None,
    }
    if built.svg is None:
        parsed = built.result is not None and bool(built.result.diagnostics)
        result["stage"] = "parse" if parsed else "geometry"
        result["diagnostics"] = as_items(built.diagnostics)
        found = hints(text, result["diagnostics"]) if parsed else []
        if found:
            result["hints"] = found
        return result
    svg = built.svg
    if built.result is not None and is_empty(built.result):
        result["empty"] = True
    result["sha256"] = sha256(text)
    result["bytes"] = len(svg.encode("utf-8"))
    if write:
        assert given is not None
        target = artifacts.artifact_for(ctx.cwd / given)  # beside the .fd as named (not where a link leads)
        shown_target = str(artifacts.artifact_for(given))
        places = writable_places(ctx, shown_target)
        try:
            done = artifacts.write_artifact(target, svg, places=places, label=shown_target)
        except artifacts.NotOurs as error:
            raise ToolError(error.message) from None
        result["written"] = shown(shown_target)
        result["unchanged"] = done == "unchanged"
    wanted = args.get("return_svg")
    if wanted is None:
        # by default the SVG comes back unless it was written, and unless it is so large
        # that sending it would flood the caller's context (return_svg: true still sends it)
        wanted = not write and result["bytes"] <= INLINE_SVG_LIMIT
        if not write and not wanted:
            result["withheld"] = "size"
    if wanted:
        result["svg"] = svg
    if args.get("include_model", False) and built.result is not None:
        result["model"] = json.loads(model_json(built.result))
    return result


def build_text(result: dict[str, Any]) -> list[str]:
    """The summary first (or the refusal), then the SVG when sent, then the model when asked for."""
    from markmcp.figdown.report import EMPTY_NOTE, refusal

    if not result["ok"]:
        return [refusal(result["label"], result["stage"], result["diagnostics"], result.get("hints", ()))]
    options = "  render options: with-title" if result["renderOptions"] else ""
    if result["written"] is None:
        where = "written: no (pass `path` and `write: true` to save X.svg beside X.fd)"
    elif result["unchanged"]:
        where = f"written: {escape_controls(result['written'])} (unchanged: it already held these bytes)"
    else:
        where = f"written: {escape_controls(result['written'])}"
    if result["svg"] is not None:
        follows = ("The SVG follows. It carries its own source, that source's SHA-256 and the engine "
                   "version, so figdown_read gets the text back from it.")
    elif result["written"] is not None:
        follows = "SVG not sent (it is on disk; pass `return_svg: true` to receive it)."
    elif result.get("withheld") == "size":
        follows = (f"SVG not sent: {result['bytes']:,} bytes is over the {INLINE_SVG_LIMIT:,}-byte limit for "
                   "sending it by default (pass `path` and `write: true` to save it, or `return_svg: true` "
                   "to receive it anyway).")
    else:
        follows = "SVG not sent (`return_svg: false`)."
    lines = [
        f"BUILT {escape_controls(result['label'])}: an SVG of {result['bytes']} bytes",
        f"engine: {result['engine']}{options}",
        f"source sha256: {result['sha256']}",
        where,
        follows,
    ]
    if result.get("empty"):
        lines.append(f"EMPTY — {EMPTY_NOTE}")
    summary = "\n".join(lines)
    blocks = [summary]
    if result["svg"] is not None:
        blocks.append(result["svg"])
    if result["model"] is not None:
        model = json.dumps(result["model"], ensure_ascii=False, indent=1)
        blocks.append(f"{MODEL_HEAD}\n{model}")
    return blocks


# --- figdown_check -----------------------------------------------------------------------


def check(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.figdown.report import check_report, tally, unread_report

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
    return tally([check_report(label, read_named(path, places=places, label=label))])


def check_text(result: dict[str, Any]) -> list[str]:
    """Failing documents first (each a PARSE FAILED or NOT READ block), then the tally."""
    from markmcp.figdown.report import failing_blocks, tally_line

    summary = tally_line(result)
    if result["checked"] == 0:
        summary += " (no .fd file found)"
    return [*failing_blocks(result), summary]


# --- figdown_read ------------------------------------------------------------------------


def read(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.figdown import artifacts, model_json, parse
    from markmcp.figdown.provenance import NotAnArtifact
    from markmcp.figdown.report import diagnostics, hints

    _one_of(args)
    sidecar = sidecar_label = None
    if "source" in args:
        label, text = INLINE_LABEL, check_inline(args["source"], INLINE_LABEL)
    else:
        given = args["path"]
        path = _resolve(ctx, given)
        label = shown(given)
        if files.kind_of(path) == "dir":
            raise ToolError(f"{files.shown(given)} is a directory: figdown_read reads one document "
                            "(figdown_check walks directories)")
        if artifacts.is_svg_name(given):
            text = artifacts.read_svg(path, places=ctx.places(), label=label)
            sidecar = artifacts.source_for(ctx.cwd / given)  # X.fd beside X.svg as named
            named = artifacts.source_for(given)
            sidecar_label = None if named is None else shown(str(named))
        else:
            text = read_document(path, places=ctx.places(), label=label)
    artifact_info: dict[str, Any] | None = None
    notes: list[str] = []
    if sidecar is not None or artifacts.looks_like_svg(text):
        try:
            back = artifacts.read_back(text, sidecar=sidecar, places=ctx.places(), sidecar_label=sidecar_label)
        except NotAnArtifact as error:
            raise ToolError(f"{files.shown(label)} {error}") from None
        art = back.artifact
        artifact_info = {"engineVersion": art.engine_version, "engineSkew": art.engine_skew,
                         "recordedSha256": art.recorded_sha256, "sha256Matches": art.sha256_ok,
                         "renderOptions": art.render_options, "sidecar": back.sidecar}
        notes = list(back.notes)
        text = back.source
    result = parse(text)
    if result.diagnostics:
        items = diagnostics(result)
        failed = {"ok": False, "label": label, "sections": [], "contract": None, "model": None,
                  "diagnostics": items, "artifact": artifact_info, "notes": notes}
        found = hints(text, items)
        if found:
            failed["hints"] = found
        return failed
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
            "model": json.loads(model_json(result)), "diagnostics": [], "artifact": artifact_info, "notes": notes}


def _note_lines(result: dict[str, Any]) -> list[str]:
    return [f"! {escape_controls(note)}" for note in result.get("notes", [])]


def read_text(result: dict[str, Any]) -> list[str]:
    from markmcp.figdown.report import parse_failed

    if not result["ok"]:
        blocks = [parse_failed(result["label"], result["diagnostics"], result.get("hints", ()))]
        if result.get("notes"):
            blocks.append("\n".join(_note_lines(result)))
        return blocks
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
    lines += _note_lines(result)
    model = json.dumps(result["model"], ensure_ascii=False, indent=1)
    return ["\n".join(lines), result["contract"], f"{MODEL_HEAD}\n{model}"]


# --- figdown_reference ---------------------------------------------------------------------


def reference(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.figdown import docs

    try:
        answer = docs.lookup(args.get("name"), experimental=args.get("experimental", False))
    except docs.DocsError as error:
        raise ToolError(str(error)) from None
    return docs.as_dict(answer)


def reference_text(result: dict[str, Any]) -> list[str]:
    from markmcp.figdown import docs

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
        name="figdown_build",
        title="Draw a FigDown figure as SVG",
        description=(
            "Draws one FigDown document (`source`, or a .fd in `path`) as a deterministic SVG that carries "
            "its own source, the source's SHA-256 and the engine version, so the text can always be read "
            "back from it. write: true saves X.svg beside X.fd (the only file it writes; needs the server's "
            "--allow-write and a root) and then returns the path instead of the markup; return_svg decides "
            "either way. include_model: true adds the §12 model. A document that does not parse, or whose "
            "drawing would state what the source does not or is past a size bound, is an ordinary result (PARSE FAILED or FIGURE "
            "REFUSED) with no SVG: fix the named lines and call again."
        ),
        input_schema=BUILD_INPUT,
        output_schema=BUILD_OUTPUT,
        handler=build_tool,
        idempotent=True,
        text=build_text,
    ),
    Tool(
        name="figdown_check",
        title="Check FigDown documents",
        description=(
            "Validate FigDown: text in `source`, or a file or folder tree in `path`. It parses each document "
            "and runs the drawing's geometry checks, so what it clears figdown_build can draw. Every problem "
            "comes back with its line; no SVG is returned or saved, and the result counts the documents seen. "
            "Problems in a document are an ordinary result beginning PARSE FAILED (or FIGURE REFUSED for "
            "geometry), not a tool error: correct the named lines and check again until none are left."
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
            "from a figure) and the §12 model, whose elements carry their source line (`line`) where the "
            "model records one: a timing block's signals and gaps and a table's rows have none, their block's "
            "`line` is where it starts. Takes a .fd, or an .svg FigDown built: its embedded source is read (never the picture) and, for a path, the X.fd "
            "beside it is compared (STALE ARTIFACT when it changed since the build). An SVG without FigDown "
            "metadata is refused. Use it rather than interpreting any rendered image. Problems in the "
            "document are an ordinary result beginning PARSE FAILED."
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
            "Serves our FigDown pages: the words of one genre, a task guide (reading, transcribe, build) or the "
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

# --- resources: the same pages as figdown_reference, for a client that reads resources ----------------


def _skill_resource(ctx: CallContext) -> str:
    from markmcp.figdown import docs

    return docs.render(docs.lookup(docs.SKILL_NAME))


def _index_resource(ctx: CallContext) -> str:
    from markmcp.figdown import docs

    return docs.render(docs.lookup(None))


def _page_resource(variables: dict[str, str], ctx: CallContext) -> str:
    from markmcp.figdown import docs

    name, _, extra = variables.get("name", "").partition("+")
    if extra not in ("", "experimental"):
        raise ToolError(f"figdown://reference/{variables.get('name', '')}: the only suffix is +experimental "
                        "(figdown://reference/timing+experimental)")
    try:
        answer = docs.lookup(name, experimental=extra == "experimental")
    except docs.DocsError as error:
        raise ToolError(str(error)) from None
    if answer.kind == "index":   # an empty name: the index lives at figdown://reference
        raise ToolError("figdown://reference/ needs a name: a genre, a task or skill (figdown://reference "
                        "is the index)")
    return docs.render(answer)


def _page_names(argument: str, value: str, context: Any, ctx: CallContext) -> list[str]:
    from markmcp.figdown import docs

    names = list(docs.router()) + list(docs.TASKS) + [docs.SKILL_NAME]
    return [name for name in names if name.startswith(value)]


RESOURCES = [
    Resource("figdown://skill", "skill", "How to write, check, build and read FigDown figures, and the language "
             "every genre shares — read this first", "text/markdown", _skill_resource, title="FigDown skill"),
    Resource("figdown://reference", "reference-index", "Every genre with its pages, and the task guides",
             "text/markdown", _index_resource, title="FigDown reference index"),
]

RESOURCE_TEMPLATES = [
    ResourceTemplate(
        uri_template="figdown://reference/{name}",
        name="reference",
        description="One genre's pages (block, topology, flowchart, statechart, sequence, bitfield, table, "
                    "timing), a task guide (reading, transcribe, build) or skill; add +experimental to a "
                    "genre for its experimental pages (figdown://reference/table+experimental)",
        mime_type="text/markdown",
        handler=_page_resource,
        complete=_page_names,
    ),
]

INSTRUCTIONS = (
    "A FigDown figure is a .fd text file, and that text is the source of truth; the SVG is built from it. "
    "Get a figure's meaning with figdown_read (of the .fd, or of an .svg FigDown built), never from an "
    "image. To write one, fetch the genre's page with figdown_reference (only defined words parse), write "
    "the .fd, repeat figdown_check until it reports no problems, then figdown_build. Paths are read in "
    f"{READABLE}. Saving X.svg "
    "(figdown_build with write: true) needs a server started with --allow-write and the .fd inside a root; "
    "without them, leave write out and take the SVG from the result. PARSE FAILED or FIGURE REFUSED in a "
    "result lists problems in the document; the tool worked."
)

SPEC = ServerSpec(
    name=SERVER_NAME,
    version=PACKAGE_VERSION,
    instructions=INSTRUCTIONS,
    tools=TOOLS,
    resources=RESOURCES,
    resource_templates=RESOURCE_TEMPLATES,
    default_port=DEFAULT_PORT,
    prog="figdown-mcp",
    write_gate=True,  # figdown_build's `write`: --allow-write, and X.svg only inside a root
    preload=ENGINE_MODULES,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``figdown-mcp``."""
    return serve(SPEC, argv)


if __name__ == "__main__":
    sys.exit(main())
