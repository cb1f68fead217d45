"""``mrsf-mcp``: the MRSF (Sidemark) review-sidecar operations as an MCP server.

The thirteen tools and three resource templates of the upstream Sidemark MCP server,
with every parameter of its current version (``documentText`` for unsaved buffers,
``version`` in every result, ``expectedVersion`` on every write).  This module is only an
edge: it checks paths, maps MCP arguments to :mod:`markmcp.mrsf.ops` calls and shapes the
results.  The engine does the work, and :mod:`markmcp.mcpcore` speaks the protocol.

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

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from markmcp import __version__ as PACKAGE_VERSION
from markmcp.mcpcore import (
    CallContext,
    FileAccessError,
    Places,
    ResourceTemplate,
    ServerSpec,
    Tool,
    ToolError,
    serve,
    writable_places,
)
from markmcp.mcpcore.files import check_argument, kind_of, shown
from markmcp.mrsf import compat
from markmcp.mrsf import help as tool_help
from markmcp.mrsf.errors import MrsfConflict, MrsfError

# The engine (``ops``: sidecars, YAML, anchoring, git) is imported by the tools that use it,
# not here: the server answers ``initialize`` without it, and loads it right after
# (ENGINE_MODULES, imported in the background over stdio, before serving over HTTP/SSE).
ENGINE_MODULES = ("markmcp.mrsf.ops", "markmcp.mrsf.reanchor")

SERVER_NAME = "markmcp-mrsf"
SEVERITIES = ["low", "medium", "high"]
COMMENT_TYPES = "suggestion, issue, question, accuracy, style, clarity"

# ---------------------------------------------------------------------------
# Input schema building blocks
# ---------------------------------------------------------------------------


def _string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def _boolean(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def _integer(description: str, minimum: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "description": description}


def _strings(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description}


def _severity(description: str) -> dict[str, Any]:
    return {"type": "string", "enum": SEVERITIES, "description": description}


CWD = _string(
    "Working directory for relative paths (default: the server's working directory); it must lie inside the "
    "server's folders: its working directory, a --root, or one of the client's MCP roots"
)
FILES = _strings(
    "Which sidecars to work on, named by the sidecar or by its Markdown document; "
    "leave out to take every sidecar found below the working directory"
)
EXTENSIONS = {
    "type": "object",
    "additionalProperties": True,
    "description": "Extra x_* fields of your own; each key must begin with x_ and lands as a top-level field of the comment",
}
DOCUMENT_TEXT = _string(
    "Markdown text to anchor against in place of the file on disk, e.g. an editor buffer not yet saved"
)
EXPECTED_VERSION = _string(
    "The version you last read (SHA-256 of the sidecar bytes). If the file no longer has it, the write "
    "is refused with a version-mismatch conflict and the file stays as it was"
)

#: The fields of one new comment (mrsf_add, and each item of mrsf_add_batch).
COMMENT_FIELDS: dict[str, Any] = {
    "text": _string("The body of the comment"),
    "author": _string("Who writes it, for instance 'Ada Lovelace (ada)'"),
    "line": _integer("First document line the comment is about, 1-based; its text is stored as selected_text", 1),
    "end_line": _integer("Last line covered, 1-based and included (default: same as line)", 1),
    "start_column": _integer("Column where the anchored span begins on line, 0-based", 0),
    "end_column": _integer("Column where the span stops on end_line, 0-based, exclusive", 0),
    "type": _string(f"Kind of comment, usually one of: {COMMENT_TYPES}"),
    "severity": _severity("How much it matters"),
    "reply_to": _string("id of the comment this one answers (makes it a reply in that thread)"),
    "extensions": EXTENSIONS,
}


def _object(properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
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


def _out(properties: dict[str, Any], required: Sequence[str]) -> dict[str, Any]:
    """An output object schema (extra keys allowed, so results may grow)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


# ---------------------------------------------------------------------------
# Paths, errors, versions
# ---------------------------------------------------------------------------


def _workdir(args: dict[str, Any], ctx: CallContext) -> Path:
    """The tool's working directory: ``cwd`` if given (inside the server's), else the server's."""
    cwd = args.get("cwd")
    if cwd is None:
        return ctx.cwd.resolve()
    path = _inside(ctx, ctx.cwd, cwd, "cwd")
    if kind_of(path) != "dir":
        message = f"cwd '{shown(cwd)}' is not a directory"
        raise ToolError(message, data=_error("not-found", message))
    return path


def _inside(ctx: CallContext, workdir: Path, value: str, what: str) -> Path:
    """Resolve ``value`` against ``workdir``; refuse it when no file system takes it
    (``invalid-argument``) or when it leaves the folders the server serves (``path-escape``)."""
    from markmcp.mrsf.store import file_error

    try:
        check_argument(value)
    except FileAccessError as error:
        message = f"{what}: {error.message}"
        raise ToolError(message, data=_error("invalid-argument", message)) from None
    try:
        return _places(ctx).resolve(value, workdir)
    except FileAccessError as error:
        if error.code != "outside":
            raise ToolError(f"{what}: {error.message}", data=file_error(error).to_dict()) from None
        message = f"{what}: {error.message}"
        raise ToolError(message, data=_error("path-escape", message, path=shown(value))) from None


def _error(code: str, message: str, **details: Any) -> dict[str, Any]:
    return {"status": "error", "code": code, "message": message, **{k: v for k, v in details.items() if v is not None}}


def _places(ctx: CallContext) -> Places:
    """The folders every file a tool touches must lie in: the working directory, the roots and
    the client's roots (as the roots policy allows)."""
    return ctx.places()


def _writable(ctx: CallContext, target: str | Path) -> None:
    """The write gate of a writing tool, before anything is read or written: open unless the
    server runs with ``--read-only`` (the write folders are those of :func:`_places`)."""
    try:
        writable_places(ctx, target, by_default=True)
    except ToolError as error:
        raise ToolError(error.message, data=_error("read-only", error.message)) from None


def _engine(call: Callable[..., dict[str, Any]], *args: Any, ctx: CallContext, **kwargs: Any) -> dict[str, Any]:
    """Run an engine operation confined to the server's folders; its MrsfError (conflicts
    included), a refused file or an operating-system error becomes a ToolError."""
    from markmcp.mrsf.store import file_error

    try:
        return call(*args, places=_places(ctx), **kwargs)
    except MrsfConflict as error:
        raise _conflict(error) from None
    except MrsfError as error:
        raise ToolError(error.message, data=error.to_dict()) from None
    except FileAccessError as error:
        raise ToolError(error.message, data=file_error(error).to_dict()) from None
    except OSError as error:
        name = f"{shown(error.filename)}: " if error.filename is not None else ""
        message = f"{name}{error.strerror or type(error).__name__}"
        raise ToolError(message, data=_error("io-error", message)) from None


def _conflict(error: MrsfConflict) -> ToolError:
    """A version mismatch: the conflict object is both the structured and the text reply
    (clients of the upstream server parse it from the text)."""
    data = error.to_dict()
    return ToolError(_pretty(data), data=data)


def _abs(result: dict[str, Any], key: str) -> str:
    """An absolute path from a result's repository-relative ``key``."""
    return str(Path(result["root"]) / result[key])


def _sidecar_version(root: str, sidecar: str, ctx: CallContext) -> str | None:
    """The version of a sidecar as the engine reports it (None when missing)."""
    from markmcp.mrsf import ops

    return _engine(ops.locate, str(Path(root) / sidecar), root=root, ctx=ctx).get("version")


def _sidecars(ctx: CallContext, workdir: Path, files: list[str] | None) -> list[str]:
    """Absolute target paths for the multi-file tools: the given files, or every sidecar below workdir."""
    from markmcp.mrsf import ops

    if not files:
        found = _engine(ops.find_sidecars, str(workdir), cwd=str(workdir), ctx=ctx)
        return [str(Path(found["root"]) / rel) for rel in found["sidecars"]]
    targets = []
    for name in files:
        target = _inside(ctx, workdir, name, "file")
        if kind_of(target) == "dir":  # a folder stands for the sidecars of its documents, as in the CLI
            found = _engine(ops.sidecars_of, [str(target)], cwd=str(workdir), ctx=ctx)
            _raise_errors(found)
            targets.extend(str(Path(found["root"]) / rel) for rel in found["sidecars"])
        else:
            targets.append(str(target))
    return targets


def _raise_errors(result: dict[str, Any]) -> None:
    """Multi-file engine results list unreadable sidecars in ``errors``: the first becomes a ToolError."""
    for error in result.get("errors", []):
        raise ToolError(f"{error['sidecar']}: {error['message']}", data={"status": "error", **error})


def _single(targets: list[str], version: str | None) -> str | None:
    return version if len(targets) == 1 else None


# ---------------------------------------------------------------------------
# Tool handlers
# ---------------------------------------------------------------------------


def discover(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir = _workdir(args, ctx)
    target = _inside(ctx, workdir, args["document"], "document")
    found = _engine(ops.locate, str(target), cwd=str(workdir), ctx=ctx)
    sidecar = Path(found["sidecarPath"])
    _inside(ctx, workdir, str(sidecar), "sidecar")
    if not found["exists"]:
        message = f"This document has no sidecar yet ({sidecar} does not exist)"
        raise ToolError(message, data=_error("not-found", message, sidecarPath=str(sidecar)))
    return {"sidecarPath": str(sidecar), "documentPath": found["documentPath"], "version": found.get("version")}


def validate(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir = _workdir(args, ctx)
    targets = _sidecars(ctx, workdir, args.get("files"))
    files = []
    for target in targets:
        result = _engine(ops.validate, [target], strict=bool(args.get("strict")), cwd=str(workdir), ctx=ctx)
        for entry in result["files"]:
            files.append(
                {
                    "file": str(Path(result["root"]) / entry["sidecar"]),
                    "version": (entry["version"] if "version" in entry
                                else _sidecar_version(result["root"], entry["sidecar"], ctx)),
                    "result": {
                        "valid": entry["valid"],
                        "errors": entry["errors"],
                        "warnings": entry["warnings"],
                    },
                }
            )
    return {
        "valid": all(f["result"]["valid"] for f in files),
        "files": files,
        "version": files[0]["version"] if len(files) == 1 else None,
    }


def reanchor(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir = _workdir(args, ctx)
    targets = _sidecars(ctx, workdir, args.get("files"))
    single_only = [k for k in ("documentText", "expectedVersion") if k in args]
    if single_only and len(targets) != 1:
        message = f"{' and '.join(single_only)} need exactly one file (got {len(targets)})"
        raise ToolError(message, data=_error("invalid-argument", message))
    dry_run = bool(args.get("dryRun", False))
    if not dry_run:
        for target in targets:
            _writable(ctx, target)
    files = []
    for target in targets:
        kwargs: dict[str, Any] = {
            "threshold": args.get("threshold", 0.6),
            "update_text": bool(args.get("updateText", False)),
            "force": bool(args.get("force", False)),
            "dry_run": dry_run,
            "expected_version": args.get("expectedVersion"),
            "cwd": str(workdir),
        }
        if "documentText" in args:
            kwargs["document_text"] = args["documentText"]
        result = _engine(ops.reanchor, target, **kwargs, ctx=ctx)
        files.append(
            {
                "file": _abs(result, "sidecar"),
                "version": result.get("version"),
                "changed": result["changed"],
                "written": result.get("written", False),
                "results": [_reanchor_item(r) for r in result["results"]],
            }
        )
    return {
        "totalChanged": sum(f["changed"] for f in files),
        "totalOrphaned": sum(1 for f in files for r in f["results"] if r.get("status") == "orphaned"),
        "dryRun": dry_run,
        "files": files,
        "version": files[0]["version"] if len(files) == 1 else None,
    }


def _reanchor_item(r: dict[str, Any]) -> dict[str, Any]:
    """One comment's re-anchoring result: upstream's keys (``newLine`` ... the range found,
    whole lines spelled out with columns; ``anchoredText``, the text found by a fuzzy
    match, and ``previousSelectedText`` with it), null where upstream has no value; then
    ours: the position fields as the comment now stores them, ``previous`` (as before)
    and ``changed`` (the fields written)."""
    placed = r.get("placed") or {}
    fuzzy = r.get("status") == "fuzzy"
    return {
        "commentId": r.get("id"),
        "status": r.get("status"),
        "score": r.get("score"),
        "newLine": placed.get("line"),
        "newEndLine": placed.get("end_line"),
        "newStartColumn": placed.get("start_column"),
        "newEndColumn": placed.get("end_column"),
        "anchoredText": r.get("foundText") if fuzzy else None,
        "previousSelectedText": r.get("previousSelectedText"),
        "reason": r.get("reason", ""),
        **{key: r.get(key) for key in ("line", "end_line", "start_column", "end_column")},
        "previous": r.get("previous", {}),
        "changed": list(r.get("changed", [])),
    }


def _comment_options(item: dict[str, Any]) -> dict[str, Any]:
    """Engine keyword arguments for one new comment (MCP field names are MRSF field names)."""
    options = {key: item[key] for key in COMMENT_FIELDS if key in item and key != "extensions"}
    if "extensions" in item:
        options["extensions"] = _extensions(item["extensions"])
    return options


def _extensions(value: dict[str, Any]) -> dict[str, Any]:
    """Check an ``extensions`` map: every key must start with ``x_`` (stored as flat fields)."""
    for key in value:
        if not key.startswith("x_"):
            message = f"extensions key '{key}' is not allowed: extension keys begin with 'x_'."
            raise ToolError(message, data=_error("invalid-argument", message, key=key))
    return value


def _document_target(
    args: dict[str, Any], ctx: CallContext, key: str = "document", *, write: bool = False
) -> tuple[Path, str]:
    """The tool's working directory and its checked target (document or sidecar).

    Besides the target itself, the sidecar the engine would write must resolve inside the
    server's folders too (a ``sidecar_root`` or a symlinked sidecar could point elsewhere
    in the workspace).  ``write``: the tool writes the sidecar, so the write gate is asked first.
    """
    from markmcp.mrsf import ops

    workdir = _workdir(args, ctx)
    target = str(_inside(ctx, workdir, args[key], key))
    if write:
        _writable(ctx, target)
    found = _engine(ops.locate, target, cwd=str(workdir), ctx=ctx)
    _inside(ctx, workdir, found["sidecarPath"], "sidecar")
    return workdir, target


def _write_kwargs(args: dict[str, Any], workdir: Path, *, text: bool = False) -> dict[str, Any]:
    """Engine keyword arguments shared by the writing tools (version check, cwd, buffer text)."""
    kwargs: dict[str, Any] = {"expected_version": args.get("expectedVersion"), "cwd": str(workdir)}
    if text and "documentText" in args:
        kwargs["document_text"] = args["documentText"]
    return kwargs


def add(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir, target = _document_target(args, ctx, write=True)
    result = _engine(ops.add, target, **_comment_options(args), **_write_kwargs(args, workdir, text=True), ctx=ctx)
    comment = result["comment"]
    return {
        "id": comment["id"],
        "line": comment.get("line"),
        "end_line": comment.get("end_line"),
        "status": "added",
        "sidecarPath": _abs(result, "sidecar"),
        "version": result["version"],
        "previousVersion": result.get("previousVersion"),
        "comment": comment,
    }


def add_batch(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir, target = _document_target(args, ctx, write=True)
    comments = [_comment_options(item) for item in args["comments"]]
    result = _engine(ops.add_batch, target, comments, **_write_kwargs(args, workdir, text=True), ctx=ctx)
    added = [{"id": c["id"], "line": c.get("line"), "end_line": c.get("end_line")} for c in result["comments"]]
    return {
        "sidecarPath": _abs(result, "sidecar"),
        "added": added,
        "total": len(added),
        "version": result["version"],
        "previousVersion": result.get("previousVersion"),
    }


UPDATABLE = ("text", "type", "severity", "line", "end_line", "start_column", "end_column")


def update(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir, target = _document_target(args, ctx, write=True)
    changes = {key: args[key] for key in UPDATABLE if key in args}
    if "extensions" in args:
        changes.update(_extensions(args["extensions"]))
    if not changes:
        message = f"Nothing to update: give at least one of {', '.join(UPDATABLE)} or extensions."
        raise ToolError(message, data=_error("invalid-argument", message))
    result = _engine(ops.update, target, args["id"], changes, **_write_kwargs(args, workdir, text=True), ctx=ctx)
    return {
        "id": args["id"],
        "updated": list(result.get("changed", [])),
        "sidecarPath": _abs(result, "sidecar"),
        "version": result["version"],
        "previousVersion": result.get("previousVersion"),
        "comment": result.get("comment", {}),
    }


def resolve(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir, target = _document_target(args, ctx, write=True)
    ids: list[str] | None = None
    filters: dict[str, Any] | None = None
    if args.get("id"):
        ids = [args["id"]]
    elif args.get("ids"):
        ids = list(args["ids"])
    elif any(args.get(k) for k in ("author", "type", "severity")):
        filters = {k: args[k] for k in ("author", "type", "severity") if args.get(k)}
    else:
        message = "Nothing selected: give id, ids, or at least one of author, type, severity."
        raise ToolError(message, data=_error("invalid-argument", message))
    unresolve = bool(args.get("unresolve", False))
    operation = ops.unresolve if unresolve else ops.resolve
    not_found: list[str] = []
    if ids is not None:
        # Ids that do not exist are reported, not fatal (as upstream); the rest are changed.
        listing = _engine(ops.list_comments, [target], cwd=str(workdir), ctx=ctx)
        _raise_errors(listing)
        known = {c.get("id") for c in listing["comments"]}
        not_found = [i for i in ids if i not in known]
        ids = [i for i in ids if i in known]
    if ids == []:
        located = _engine(ops.locate, target, cwd=str(workdir), ctx=ctx)
        result = {**located, "matched": [], "changed": []}
        if args.get("expectedVersion") is not None and args["expectedVersion"] != located.get("version"):
            raise _conflict(MrsfConflict(located.get("version"), args["expectedVersion"], located.get("sidecar")))
    else:
        result = _engine(operation, target, ids, filters=filters, **_write_kwargs(args, workdir), ctx=ctx)
    output: dict[str, Any] = {
        "resolved": not unresolve,
        "changed": list(result.get("matched", [])),
        "sidecarPath": _abs(result, "sidecar"),
        "version": result.get("version"),
        "previousVersion": result.get("previousVersion", result.get("version")),
    }
    if not_found:
        output["notFound"] = not_found
    return output


def list_comments(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir = _workdir(args, ctx)
    targets = _sidecars(ctx, workdir, args.get("files"))
    # As upstream: open/resolved filter only when true; empty strings filter nothing.
    filters = {k: True for k in ("open", "resolved") if args.get(k) is True}
    filters.update({k: args[k] for k in ("author", "type", "severity") if args.get(k)})
    files = []
    flat: list[dict[str, Any]] = []
    for target in targets:
        result = _engine(ops.list_comments, [target], filters=filters or None, cwd=str(workdir), ctx=ctx)
        _raise_errors(result)
        sidecar = _engine(ops.locate, target, cwd=str(workdir), ctx=ctx)
        comments = [{k: v for k, v in c.items() if k not in ("document", "sidecar")} for c in result["comments"]]
        flat.extend(comments)
        files.append(
            {
                "file": sidecar["sidecarPath"],
                "document": sidecar["documentPath"],
                "version": result.get("versions", {}).get(sidecar["sidecar"], sidecar.get("version")),
                "count": len(comments),
                "comments": comments,
            }
        )
    output: dict[str, Any] = {"files": files, "version": files[0]["version"] if len(files) == 1 else None}
    if args.get("summary"):
        # Summary statistics instead of the comments (as upstream, which answers a summary
        # even when a compact table is asked for too); the per-file counts stay.
        output["summary"] = _summary(flat)
        for entry in files:
            del entry["comments"]
    elif args.get("format") == "compact":
        output["table"] = _compact(files)
    return output


def _summary(comments: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts over comments: total, open, resolved, orphaned, threads, byType, bySeverity."""
    by_type: dict[str, int] = {}
    by_severity: dict[str, int] = {}
    for c in comments:
        if c.get("type"):
            by_type[str(c["type"])] = by_type.get(str(c["type"]), 0) + 1
        if c.get("severity"):
            by_severity[str(c["severity"])] = by_severity.get(str(c["severity"]), 0) + 1
    resolved = sum(1 for c in comments if c.get("resolved") is True)
    return {
        "total": len(comments),
        "open": len(comments) - resolved,
        "resolved": resolved,
        "orphaned": sum(1 for c in comments if c.get("x_reanchor_status") == "orphaned"),
        "threads": len({repr(c.get("id")) for c in comments if not c.get("reply_to")}),
        "byType": by_type,
        "bySeverity": by_severity,
    }


def _compact(files: list[dict[str, Any]]) -> str:
    """A scannable table: one header per sidecar, one row per comment."""
    rows: list[str] = []
    for entry in files:
        rows.append(f"── {Path(entry['file']).name} ({len(entry['comments'])}) ──")
        for c in entry["comments"]:
            where = f"L{c['line']}" if isinstance(c.get("line"), int) else "  –"
            severity = str(c.get("severity") or "–").ljust(6)
            kind = str(c.get("type") or "–").ljust(10)
            mark = "✓" if c.get("resolved") is True else "○"
            text = str(c.get("text", ""))
            text = text[:77] + "…" if len(text) > 80 else text
            rows.append(f"  {mark} {where.ljust(5)} {severity} {kind} {c.get('id', '?')}: {text}")
    return "\n".join(rows)


def _pretty(result: dict[str, Any]) -> str:
    """The text content of a result: indented JSON, as the upstream server writes it."""
    return json.dumps(result, ensure_ascii=False, indent=2)


def _upstream(name: str) -> Callable[[dict[str, Any]], str]:
    """The text content of a tool: its result in the shape the upstream server returns
    (:mod:`markmcp.mrsf.compat`), as indented JSON (a compact list is its table)."""
    shape = compat.SHAPES[name]

    def text(result: dict[str, Any]) -> str:
        value = shape(result)
        return value if isinstance(value, str) else _pretty(value)

    return text


def status(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir = _workdir(args, ctx)
    targets = _sidecars(ctx, workdir, args.get("files"))
    results: list[dict[str, Any]] = []
    files = []
    for target in targets:
        result = _engine(ops.status, [target], cwd=str(workdir), ctx=ctx)
        _raise_errors(result)
        sidecar = _engine(ops.locate, target, cwd=str(workdir), ctx=ctx)
        version = result.get("versions", {}).get(sidecar["sidecar"], sidecar.get("version"))
        files.append({"file": sidecar["sidecarPath"], "version": version})
        for r in result["results"]:
            results.append({"commentId": r["id"], "health": r["health"], "reason": r["reason"], "file": sidecar["sidecarPath"]})
    counts = {"total": len(results)}
    for health in ("fresh", "stale", "orphaned", "unknown"):
        counts[health] = sum(1 for r in results if r["health"] == health)
    return {"counts": counts, "results": results, "files": files, "version": _single(targets, files[0]["version"] if files else None)}


def rename(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir = _workdir(args, ctx)
    old = _inside(ctx, workdir, args["oldDocument"], "oldDocument")
    new = _inside(ctx, workdir, args["newDocument"], "newDocument")
    _writable(ctx, new)
    result = _engine(ops.rename, str(old), str(new), **_write_kwargs(args, workdir), ctx=ctx)
    return {
        "oldSidecar": str(Path(result["root"]) / result["oldSidecar"]),
        "newSidecar": _abs(result, "sidecar"),
        "document": result["document"],
        "version": result["version"],
        "previousVersion": result.get("previousVersion"),
    }


def delete(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir, target = _document_target(args, ctx, write=True)
    cascade = bool(args.get("cascade", False))
    result = _engine(ops.delete, target, [args["id"]], cascade=cascade, **_write_kwargs(args, workdir), ctx=ctx)
    return {
        "id": args["id"],
        "deleted": True,
        "cascade": cascade,
        "promoted": list(result.get("promoted", [])),
        "sidecarPath": _abs(result, "sidecar"),
        "version": result["version"],
        "previousVersion": result.get("previousVersion"),
    }


def repair(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir, target = _document_target(args, ctx, write=True)
    strategy = args.get("strategy", "salvage")
    backup = bool(args.get("backup", False))
    result = _engine(ops.repair, target, reset=strategy == "reset", backup=backup, **_write_kwargs(args, workdir),
                     ctx=ctx)
    if strategy == "reset":
        summary = "Comments cleared; the sidecar now holds none."
    elif not result.get("changed"):
        summary = "Nothing to repair: the sidecar parsed cleanly."
    else:
        summary = f"Salvaged {result.get('salvaged', 0)} comment(s); dropped {len(result.get('dropped', []))}."
    output = {
        "strategy": strategy,
        "sidecarPath": _abs(result, "sidecar"),
        "result": summary,
        "commentsRecovered": 0 if strategy == "reset" else result.get("salvaged", 0),
        "commentsSkipped": len(result.get("dropped", [])),
        "dropped": list(result.get("dropped", [])),
        "backup": str(Path(result["root"]) / result["backup"]) if result.get("backup") else None,
        "version": result["version"],
        "previousVersion": result.get("previousVersion"),
    }
    return output


def help_tool(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    name = args.get("tool")
    if name:
        tool = next((t for t in TOOLS if t.name == name), None)
        if tool is None:
            available = ", ".join(t.name for t in TOOLS)
            message = f"There is no tool called '{name}'; the tools are: {available}"
            raise ToolError(message, data=_error("invalid-argument", message))
        return tool_help.tool_help(tool)
    return {"tools": tool_help.overview(TOOLS)}


# ---------------------------------------------------------------------------
# The tool table
# ---------------------------------------------------------------------------

_RESULT_VERSION = {"version": VERSION_OUT, "previousVersion": VERSION_OUT}

TOOLS: list[Tool] = [
    Tool(
        name="mrsf_discover",
        title="Locate a Document's Review Sidecar",
        description=(
            "Look up where the review sidecar of a Markdown file lives (MRSF section 3 rules, including "
            ".mrsf.yaml sidecar_root). Gives both absolute paths and the sidecar's current version; fails "
            "when that sidecar has not been created yet. Reads nothing else and writes nothing."
        ),
        input_schema=_object({"document": _string("The Markdown file, relative to cwd"), "cwd": CWD}, ["document"]),
        output_schema=_out(
            {"sidecarPath": {"type": "string"}, "documentPath": {"type": "string"}, "version": VERSION_OUT},
            ["sidecarPath", "documentPath", "version"],
        ),
        handler=discover,
        text=_upstream("mrsf_discover"),
        read_only=True,
        idempotent=True,
    ),
    Tool(
        name="mrsf_validate",
        title="Check Sidecars Against the MRSF Rules",
        description=(
            "Check sidecar files against the MRSF JSON schema and the spec's semantic rules (unique ids, "
            "reply targets, line ranges, ...). Each file gets its own errors and warnings, every one with a "
            "code. Read-only; run it when a sidecar may have been hand-edited or another tool fails on it."
        ),
        input_schema=_object(
            {"files": FILES, "strict": _boolean("Count warnings as failures too"), "cwd": CWD}
        ),
        output_schema=_out(
            {
                "valid": {"type": "boolean"},
                "files": {
                    "type": "array",
                    "items": _out(
                        {
                            "file": {"type": "string"},
                            "version": VERSION_OUT,
                            "result": _out(
                                {
                                    "valid": {"type": "boolean"},
                                    "errors": {"type": "array", "items": DIAGNOSTIC_OUT},
                                    "warnings": {"type": "array", "items": DIAGNOSTIC_OUT},
                                },
                                ["valid", "errors", "warnings"],
                            ),
                        },
                        ["file", "version", "result"],
                    ),
                },
                "version": VERSION_OUT,
            },
            ["valid", "files", "version"],
        ),
        handler=validate,
        text=_upstream("mrsf_validate"),
        read_only=True,
        idempotent=True,
    ),
    Tool(
        name="mrsf_reanchor",
        title="Move Comments to Their Text's New Place",
        description=(
            "After the Markdown changed, find where each comment's text now sits and rewrite its lines and "
            "columns to match. When the text found there differs from selected_text it is kept in "
            "anchored_text (selected_text itself is left alone unless updateText). Any outcome short of a "
            "clean match is recorded in x_reanchor_status/x_reanchor_score; orphaned comments keep their old "
            "position. dryRun returns the same report without writing."
        ),
        input_schema=_object(
            {
                "files": FILES,
                "dryRun": _boolean("Compute and return the results but leave every file untouched"),
                "threshold": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": 1,
                    "description": "Lowest similarity, 0 to 1, a fuzzy match needs to be accepted (default 0.6)",
                },
                "updateText": _boolean("Overwrite selected_text with the text found (hash recomputed) rather than filling anchored_text"),
                "force": _boolean(
                    "For matches scoring 0.8 or more, set commit to git HEAD and drop the x_reanchor_* fields"
                ),
                "documentText": {**DOCUMENT_TEXT, "description": DOCUMENT_TEXT["description"] + "; only with a single file"},
                "expectedVersion": {**EXPECTED_VERSION, "description": EXPECTED_VERSION["description"] + "; only with a single file"},
                "cwd": CWD,
            }
        ),
        output_schema=_out(
            {
                "totalChanged": {"type": "integer"},
                "totalOrphaned": {"type": "integer"},
                "dryRun": {"type": "boolean"},
                "files": {
                    "type": "array",
                    "items": _out(
                        {
                            "file": {"type": "string"},
                            "version": VERSION_OUT,
                            "changed": {"type": "integer"},
                            "written": {"type": "boolean"},
                            "results": {"type": "array", "items": REANCHOR_RESULT_OUT},
                        },
                        ["file", "version", "changed", "results"],
                    ),
                },
                "version": VERSION_OUT,
            },
            ["totalChanged", "totalOrphaned", "dryRun", "files", "version"],
        ),
        handler=reanchor,
        text=_upstream("mrsf_reanchor"),
    ),
    Tool(
        name="mrsf_add",
        title="Leave a Review Comment",
        description=(
            "Write one new comment into the document's sidecar, making the sidecar first if needed. Given "
            "line, the text of that line (or line..end_line, cut at the columns) is stored as selected_text; "
            "commit is set to git HEAD when the file has no uncommitted edits. Returns the new id. For "
            "several comments use mrsf_add_batch."
        ),
        input_schema=_object(
            {
                "document": _string("The Markdown file being reviewed, relative to cwd"),
                **COMMENT_FIELDS,
                "documentText": DOCUMENT_TEXT,
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["document", "text", "author"],
        ),
        output_schema=_out(
            {
                "id": {"type": "string"},
                "line": NULLABLE_INT,
                "end_line": NULLABLE_INT,
                "status": {"const": "added"},
                "sidecarPath": {"type": "string"},
                "comment": COMMENT_OUT,
                **_RESULT_VERSION,
            },
            ["id", "line", "end_line", "status", "sidecarPath", "version"],
        ),
        handler=add,
        text=_upstream("mrsf_add"),
    ),
    Tool(
        name="mrsf_add_batch",
        title="Comment on a Document in One Write",
        description=(
            "Like mrsf_add for a whole list: every comment is checked first, then all are written together "
            "or, if one is bad, none is (the error names its index). Use it instead of repeated mrsf_add "
            "calls; reply_to may name another comment of the same list."
        ),
        input_schema=_object(
            {
                "document": _string("The Markdown file being reviewed, relative to cwd"),
                "comments": {
                    "type": "array",
                    "items": _object(COMMENT_FIELDS, ["text", "author"]),
                    "description": "The new comments, each with the same fields as mrsf_add",
                },
                "documentText": DOCUMENT_TEXT,
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["document", "comments"],
        ),
        output_schema=_out(
            {
                "sidecarPath": {"type": "string"},
                "added": {
                    "type": "array",
                    "items": _out({"id": {"type": "string"}, "line": NULLABLE_INT, "end_line": NULLABLE_INT}, ["id"]),
                },
                "total": {"type": "integer"},
                **_RESULT_VERSION,
            },
            ["sidecarPath", "added", "total", "version"],
        ),
        handler=add_batch,
        text=_upstream("mrsf_add_batch"),
    ),
    Tool(
        name="mrsf_update",
        title="Edit One Comment",
        description=(
            "Change some fields of a comment picked by id; fields you leave out keep their values. Changing "
            "line, end_line or a column takes selected_text afresh from the document (or documentText). "
            "The result lists which fields actually changed."
        ),
        input_schema=_object(
            {
                "document": _string("The Markdown file or its sidecar, relative to cwd"),
                "id": _string("id of the comment to edit"),
                "text": _string("Replacement body"),
                "type": _string(f"Replacement kind, usually one of: {COMMENT_TYPES}"),
                "severity": _severity("Replacement severity"),
                "line": _integer("New first line, 1-based", 1),
                "end_line": _integer("New last line, 1-based and included", 1),
                "start_column": _integer("Column where the new span begins, 0-based", 0),
                "end_column": _integer("Column just past the new span's end, 0-based", 0),
                "extensions": {**EXTENSIONS, "description": "x_* fields to set on the comment; others stay as they are"},
                "documentText": DOCUMENT_TEXT,
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["document", "id"],
        ),
        output_schema=_out(
            {
                "id": {"type": "string"},
                "updated": {"type": "array", "items": {"type": "string"}},
                "sidecarPath": {"type": "string"},
                "comment": COMMENT_OUT,
                **_RESULT_VERSION,
            },
            ["id", "updated", "sidecarPath", "version"],
        ),
        handler=update,
        text=_upstream("mrsf_update"),
    ),
    Tool(
        name="mrsf_resolve",
        title="Mark Comments Done or Open",
        description=(
            "Set resolved on comments, or clear it with unresolve. Pick them by id, by ids, or (with neither) "
            "by author/type/severity, which match exactly and combine. Ids not in the sidecar come back in "
            "notFound while the rest are still changed; changed lists the ids that were picked."
        ),
        input_schema=_object(
            {
                "document": _string("The Markdown file or its sidecar, relative to cwd"),
                "id": _string("One comment to mark"),
                "ids": _strings("Several comments to mark"),
                "author": _string("Pick every comment whose author is exactly this"),
                "type": _string("Pick every comment of this kind"),
                "severity": _severity("Pick every comment with this severity"),
                "unresolve": _boolean("Reopen the picked comments rather than resolve them"),
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["document"],
        ),
        output_schema=_out(
            {
                "resolved": {"type": "boolean"},
                "changed": {"type": "array", "items": {"type": "string"}},
                "notFound": {"type": "array", "items": {"type": "string"}},
                "sidecarPath": {"type": "string"},
                **_RESULT_VERSION,
            },
            ["resolved", "changed", "sidecarPath", "version"],
        ),
        handler=resolve,
        text=_upstream("mrsf_resolve"),
    ),
    Tool(
        name="mrsf_list",
        title="Read Review Comments",
        description=(
            "Return the comments of one or more sidecars, grouped per file with each file's version. Narrow "
            "them by open/resolved, author, type or severity. summary swaps the comments for totals; "
            "format 'compact' adds a one-line-per-comment text table, which then becomes the text reply. "
            "Read-only."
        ),
        input_schema=_object(
            {
                "files": FILES,
                "open": _boolean("Return just the comments still open"),
                "resolved": _boolean("Return just the resolved comments"),
                "author": _string("Keep only this author's comments"),
                "type": _string("Keep only comments of this kind"),
                "severity": _severity("Return just comments rated at this severity"),
                "format": {
                    "type": "string",
                    "enum": ["full", "compact"],
                    "description": "'full' (default): every field as JSON; 'compact': one text line per comment",
                },
                "summary": _boolean("Give totals (open, resolved, by type, by severity ...) in place of the comments"),
                "cwd": CWD,
            }
        ),
        output_schema=_out(
            {
                "files": {
                    "type": "array",
                    "items": _out(
                        {
                            "file": {"type": "string"},
                            "document": {"type": "string"},
                            "version": VERSION_OUT,
                            "count": {"type": "integer"},
                            "comments": {"type": "array", "items": COMMENT_OUT},
                        },
                        ["file", "version", "count"],
                    ),
                },
                "summary": {"type": "object"},
                "table": {"type": "string"},
                "version": VERSION_OUT,
            },
            ["files", "version"],
        ),
        handler=list_comments,
        read_only=True,
        idempotent=True,
        text=_upstream("mrsf_list"),
    ),
    Tool(
        name="mrsf_status",
        title="Are the Comments Still in Place?",
        description=(
            "Compare every comment's anchor with the document as it is now and rate it fresh (text still "
            "there), stale (moved or changed), orphaned (gone) or unknown (nothing to compare), with a reason "
            "and per-health counts. Read-only: run mrsf_reanchor to actually move stale comments."
        ),
        input_schema=_object(
            {"files": FILES, "cwd": CWD}
        ),
        output_schema=_out(
            {
                "counts": _out(
                    {k: {"type": "integer"} for k in ("total", "fresh", "stale", "orphaned", "unknown")},
                    ["total", "fresh", "stale", "orphaned", "unknown"],
                ),
                "results": {
                    "type": "array",
                    "items": _out(
                        {
                            "commentId": {"type": ["string", "null"]},
                            "health": {"enum": ["fresh", "stale", "orphaned", "unknown"]},
                            "reason": {"type": "string"},
                            "file": {"type": "string"},
                        },
                        ["commentId", "health", "reason"],
                    ),
                },
                "files": {
                    "type": "array",
                    "items": _out({"file": {"type": "string"}, "version": VERSION_OUT}, ["file", "version"]),
                },
                "version": VERSION_OUT,
            },
            ["counts", "results", "version"],
        ),
        handler=status,
        text=_upstream("mrsf_status"),
        read_only=True,
        idempotent=True,
    ),
    Tool(
        name="mrsf_rename",
        title="Follow a Renamed Document",
        description=(
            "Call this once you have moved or renamed a Markdown file: its sidecar is moved to where the new "
            "name expects it and the sidecar's document field is rewritten. The Markdown file itself is not "
            "touched; comments and their anchors stay as they are."
        ),
        input_schema=_object(
            {
                "oldDocument": _string("Where the Markdown file used to be, relative to cwd"),
                "newDocument": _string("Where it is now, relative to cwd"),
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["oldDocument", "newDocument"],
        ),
        output_schema=_out(
            {
                "oldSidecar": {"type": "string"},
                "newSidecar": {"type": "string"},
                "document": {"type": "string"},
                **_RESULT_VERSION,
            },
            ["oldSidecar", "newSidecar", "document", "version"],
        ),
        handler=rename,
        text=_upstream("mrsf_rename"),
    ),
    Tool(
        name="mrsf_delete",
        title="Remove a Comment",
        description=(
            "Take one comment out of its sidecar for good. Its direct replies survive unless cascade is set: "
            "each one without an anchor of its own gets the removed comment's anchor, and its reply_to moves "
            "up to the removed comment's parent (or is dropped). promoted lists those replies."
        ),
        input_schema=_object(
            {
                "document": _string("The Markdown file or its sidecar, relative to cwd"),
                "id": _string("id of the comment to remove"),
                "cascade": _boolean(
                    "Remove its direct replies with it; by default (false) they are kept and take its place"
                ),
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["document", "id"],
        ),
        output_schema=_out(
            {
                "id": {"type": "string"},
                "deleted": {"type": "boolean"},
                "cascade": {"type": "boolean"},
                "promoted": {"type": "array", "items": {"type": "string"}},
                "sidecarPath": {"type": "string"},
                **_RESULT_VERSION,
            },
            ["id", "deleted", "cascade", "sidecarPath", "version"],
        ),
        handler=delete,
        text=_upstream("mrsf_delete"),
        destructive=True,
    ),
    Tool(
        name="mrsf_repair",
        title="Fix a Broken Sidecar",
        description=(
            "For a sidecar that no longer parses or misses required fields. 'salvage' keeps every comment "
            "block that still reads (and every comment that is a mapping) and writes a clean file; 'reset' "
            "leaves an empty comment list. Dropped parts are reported. With backup, the old bytes are first "
            "saved beside it as <sidecar>.bak and backup gives that path. A sidecar that is already sound is "
            "left untouched by 'salvage'."
        ),
        input_schema=_object(
            {
                "document": _string("The Markdown file or its sidecar, relative to cwd"),
                "strategy": {
                    "type": "string",
                    "enum": ["salvage", "reset"],
                    "description": "'salvage' (default) keeps what can be read; 'reset' empties the comment list",
                },
                "backup": _boolean(
                    "Save the old bytes as <sidecar>.bak before rewriting (default false: no backup is kept)"
                ),
                "expectedVersion": EXPECTED_VERSION,
                "cwd": CWD,
            },
            ["document"],
        ),
        output_schema=_out(
            {
                "strategy": {"enum": ["salvage", "reset"]},
                "sidecarPath": {"type": "string"},
                "result": {"type": "string"},
                "commentsRecovered": {"type": "integer"},
                "commentsSkipped": {"type": "integer"},
                "dropped": {"type": "array", "items": {"type": "object"}},
                "backup": {
                    "type": ["string", "null"],
                    "description": "Where the old bytes were saved (absolute path); null when no backup was asked for",
                },
                **_RESULT_VERSION,
            },
            ["strategy", "sidecarPath", "result", "commentsRecovered", "version"],
        ),
        handler=repair,
        text=_upstream("mrsf_repair"),
        destructive=True,
    ),
    Tool(
        name="mrsf_help",
        title="Describe These Tools",
        description=(
            "Without arguments: one entry per tool of this server, with its required and optional "
            "parameters. With tool: that tool's description and full parameter schema. Built from the "
            "live schemas, so it always matches what the server accepts."
        ),
        input_schema=_object(
            {"tool": _string("Name of one tool, such as 'mrsf_add'; leave out for the overview")}
        ),
        output_schema=_out(
            {
                "tools": {
                    "type": "array",
                    "items": _out(
                        {
                            "tool": {"type": "string"},
                            "description": {"type": "string"},
                            "requiredParams": {"type": "array", "items": {"type": "string"}},
                            "optionalParams": {"type": "array", "items": {"type": "string"}},
                        },
                        ["tool", "description", "requiredParams", "optionalParams"],
                    ),
                },
                "tool": {"type": "string"},
                "description": {"type": "string"},
                "parameters": {"type": "object"},
            },
            [],
        ),
        handler=help_tool,
        text=_upstream("mrsf_help"),
        read_only=True,
        idempotent=True,
    ),
]


# ---------------------------------------------------------------------------
# Resources
# ---------------------------------------------------------------------------


def _resource(ctx: CallContext, path: str, call: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    """Run an engine operation for a resource read: a missing sidecar is "resource not
    found", any other failure an invalid-params error naming it."""
    try:
        return _engine(call, *args, cwd=str(ctx.cwd), ctx=ctx)
    except ToolError as error:
        if error.data is not None and error.data.get("code") == "not-found":
            raise FileNotFoundError(path) from None
        raise ToolError(error.message) from None


def _resource_sidecar(ctx: CallContext, path: str) -> dict[str, Any]:
    from markmcp.mrsf import ops

    target = _inside(ctx, ctx.cwd, path, "path")
    return _resource(ctx, path, ops.read, str(target))


def sidecar_resource(params: dict[str, str], ctx: CallContext) -> str:
    result = _resource_sidecar(ctx, params["path"])
    return json.dumps(result["data"], ensure_ascii=False, indent=2)


def comment_resource(params: dict[str, str], ctx: CallContext) -> str:
    result = _resource_sidecar(ctx, params["path"])
    comments = result["data"].get("comments") if isinstance(result["data"], dict) else None
    for comment in comments if isinstance(comments, list) else []:
        if isinstance(comment, dict) and comment.get("id") == params["id"]:
            return json.dumps(comment, ensure_ascii=False, indent=2)
    raise ToolError(f"The sidecar of {params['path']} holds no comment with id '{params['id']}'")


def anchors_resource(params: dict[str, str], ctx: CallContext) -> str:
    from markmcp.mrsf import ops

    target = _inside(ctx, ctx.cwd, params["path"], "path")
    result = _resource(ctx, params["path"], ops.status, [str(target)])
    for error in result.get("errors", []):
        raise ToolError(f"{error['sidecar']}: {error['message']}")
    rows = [{"commentId": r["id"], "health": r["health"], "reason": r["reason"]} for r in result["results"]]
    return json.dumps(rows, ensure_ascii=False, indent=2)


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

INSTRUCTIONS = (
    "Tools for reviewing Markdown documents with Sidemark / MRSF review sidecars "
    "(<document>.review.yaml). Discover or list comments first; every result carries the sidecar's "
    "`version` (SHA-256 of its bytes). Pass it back as `expectedVersion` on writes: if another agent "
    "changed the sidecar meanwhile, nothing is written and a version-mismatch conflict with the "
    "`currentVersion` is returned; re-read and retry. Paths (and a per-call `cwd`) must stay inside the server's "
    "folders: its working directory, each --root and the client's MCP roots."
)

SPEC = ServerSpec(
    name=SERVER_NAME,
    version=PACKAGE_VERSION,
    instructions=INSTRUCTIONS,
    tools=TOOLS,
    resource_templates=RESOURCE_TEMPLATES,
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
