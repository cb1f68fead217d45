"""``mrsf-mcp``: the MRSF (Sidemark) review-sidecar operations as an MCP server.

The thirteen tools and three resource templates of the upstream Sidemark MCP server,
with every parameter of its current version (``documentText`` for unsaved buffers,
``version`` in every result, ``expectedVersion`` on every write).  This module is only an
edge: it checks paths, maps MCP arguments to :mod:`markmcp.mrsf.ops` calls and shapes the
results.  The engine does the work, and :mod:`markmcp.mcpcore` speaks the protocol.

Paths
    Every path argument (``document``, ``files``, ``cwd``, ``oldDocument`` ...) is
    resolved against the tool's ``cwd`` (default: the server's working directory), with
    ``..`` collapsed and symlinks followed, and must stay inside the server's working
    directory (``--cwd``).  Sidecars are found per MRSF §3 by the engine.

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
    ResourceTemplate,
    ServerSpec,
    Tool,
    ToolError,
    resolve_inside,
    serve,
)
from markmcp.mrsf import help as tool_help
from markmcp.mrsf import ops
from markmcp.mrsf.errors import MrsfConflict, MrsfError

SERVER_NAME = "sidemark-mrsf"
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


CWD = _string("Working directory for relative paths (default: the server's working directory; must lie inside it)")
FILES = _strings("Sidecar or Markdown file paths. If omitted, discovers all sidecars in the working directory.")
EXTENSIONS = {
    "type": "object",
    "additionalProperties": True,
    "description": "Tool-specific extension fields keyed by x_* (stored as flat x_* fields on the comment)",
}
DOCUMENT_TEXT = _string(
    "Current text of the Markdown document (e.g. an unsaved editor buffer); used instead of reading the file"
)
EXPECTED_VERSION = _string(
    "Version (SHA-256 of the sidecar bytes) the change was based on; if the sidecar changed since, "
    "nothing is written and a version-mismatch conflict is returned"
)

#: The fields of one new comment (mrsf_add, and each item of mrsf_add_batch).
COMMENT_FIELDS: dict[str, Any] = {
    "text": _string("Comment text"),
    "author": _string("Author identifier (e.g. 'Name (handle)')"),
    "line": _integer("Starting line number (1-based)", 1),
    "end_line": _integer("Ending line number (inclusive)", 1),
    "start_column": _integer("Starting column (0-based)", 0),
    "end_column": _integer("Ending column (0-based, exclusive)", 0),
    "type": _string(f"Comment type: {COMMENT_TYPES}"),
    "severity": _severity("Severity level"),
    "reply_to": _string("Parent comment ID for threading"),
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
    "description": "SHA-256 (hex) of the sidecar file's bytes; null when the sidecar does not exist",
}
COMMENT_OUT = {"type": "object", "description": "A comment's fields as stored in the sidecar"}
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
    if not path.is_dir():
        raise ToolError(f"cwd '{cwd}' is not a directory", data=_error("not-found", f"cwd '{cwd}' is not a directory"))
    return path


def _inside(ctx: CallContext, workdir: Path, value: str, what: str) -> Path:
    """Resolve ``value`` against ``workdir``; refuse it when it leaves the server's working directory."""
    try:
        return resolve_inside(ctx.cwd, Path(workdir) / value)
    except ToolError:
        message = f"{what} '{value}' is outside the working directory {ctx.cwd.resolve()}"
        raise ToolError(message, data=_error("path-escape", message, path=value)) from None


def _error(code: str, message: str, **details: Any) -> dict[str, Any]:
    return {"status": "error", "code": code, "message": message, **{k: v for k, v in details.items() if v is not None}}


def _engine(call: Callable[..., dict[str, Any]], *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Run an engine operation; its MrsfError (conflicts included) becomes a ToolError."""
    try:
        return call(*args, **kwargs)
    except MrsfError as error:
        raise ToolError(error.message, data=error.to_dict()) from None


def _abs(result: dict[str, Any], key: str) -> str:
    """An absolute path from a result's repository-relative ``key``."""
    return str(Path(result["root"]) / result[key])


def _sidecar_version(root: str, sidecar: str) -> str | None:
    """The version of a sidecar as the engine reports it (None when missing)."""
    return _engine(ops.locate, str(Path(root) / sidecar), root=root).get("version")


def _sidecars(ctx: CallContext, workdir: Path, files: list[str] | None) -> list[str]:
    """Absolute target paths for the multi-file tools: the given files, or every sidecar below workdir."""
    if files:
        return [str(_inside(ctx, workdir, f, "file")) for f in files]
    found = _engine(ops.find_sidecars, str(workdir), cwd=str(workdir))
    return [str(Path(found["root"]) / rel) for rel in found["sidecars"]]


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
    workdir = _workdir(args, ctx)
    target = _inside(ctx, workdir, args["document"], "document")
    found = _engine(ops.locate, str(target), cwd=str(workdir))
    sidecar = Path(found["sidecarPath"])
    _inside(ctx, workdir, str(sidecar), "sidecar")
    if not found["exists"]:
        message = f"No sidecar found: {sidecar} does not exist"
        raise ToolError(message, data=_error("not-found", message, sidecarPath=str(sidecar)))
    return {"sidecarPath": str(sidecar), "documentPath": found["documentPath"], "version": found.get("version")}


def validate(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    workdir = _workdir(args, ctx)
    targets = _sidecars(ctx, workdir, args.get("files"))
    files = []
    for target in targets:
        result = _engine(ops.validate, [target], strict=bool(args.get("strict")), cwd=str(workdir))
        for entry in result["files"]:
            files.append(
                {
                    "file": str(Path(result["root"]) / entry["sidecar"]),
                    "version": entry["version"] if "version" in entry else _sidecar_version(result["root"], entry["sidecar"]),
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
    workdir = _workdir(args, ctx)
    targets = _sidecars(ctx, workdir, args.get("files"))
    single_only = [k for k in ("documentText", "expectedVersion") if k in args]
    if single_only and len(targets) != 1:
        message = f"{' and '.join(single_only)} need exactly one file (got {len(targets)})"
        raise ToolError(message, data=_error("invalid-argument", message))
    dry_run = bool(args.get("dryRun", False))
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
        result = _engine(ops.reanchor, target, **kwargs)
        files.append(
            {
                "file": _abs(result, "sidecar"),
                "version": result.get("version"),
                "changed": result["changed"],
                "written": result.get("written", False),
                "results": result["results"],
            }
        )
    return {
        "totalChanged": sum(f["changed"] for f in files),
        "totalOrphaned": sum(1 for f in files for r in f["results"] if r.get("status") == "orphaned"),
        "dryRun": dry_run,
        "files": files,
        "version": files[0]["version"] if len(files) == 1 else None,
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
            message = f"Comment extension key '{key}' must start with 'x_'."
            raise ToolError(message, data=_error("invalid-argument", message, key=key))
    return value


def _document_target(args: dict[str, Any], ctx: CallContext, key: str = "document") -> tuple[Path, str]:
    """The tool's working directory and its checked target (document or sidecar).

    Besides the target itself, the sidecar the engine would write must resolve inside the
    server's working directory too (a ``sidecar_root`` or a symlinked sidecar could point
    elsewhere in the workspace).
    """
    workdir = _workdir(args, ctx)
    target = str(_inside(ctx, workdir, args[key], key))
    found = _engine(ops.locate, target, cwd=str(workdir))
    _inside(ctx, workdir, found["sidecarPath"], "sidecar")
    return workdir, target


def _write_kwargs(args: dict[str, Any], workdir: Path, *, text: bool = False) -> dict[str, Any]:
    """Engine keyword arguments shared by the writing tools (version check, cwd, buffer text)."""
    kwargs: dict[str, Any] = {"expected_version": args.get("expectedVersion"), "cwd": str(workdir)}
    if text and "documentText" in args:
        kwargs["document_text"] = args["documentText"]
    return kwargs


def add(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    workdir, target = _document_target(args, ctx)
    result = _engine(ops.add, target, **_comment_options(args), **_write_kwargs(args, workdir, text=True))
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
    workdir, target = _document_target(args, ctx)
    comments = [_comment_options(item) for item in args["comments"]]
    result = _engine(ops.add_batch, target, comments, **_write_kwargs(args, workdir, text=True))
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
    workdir, target = _document_target(args, ctx)
    changes = {key: args[key] for key in UPDATABLE if key in args}
    if "extensions" in args:
        changes.update(_extensions(args["extensions"]))
    if not changes:
        message = f"Nothing to update: give at least one of {', '.join(UPDATABLE)} or extensions."
        raise ToolError(message, data=_error("invalid-argument", message))
    result = _engine(ops.update, target, args["id"], changes, **_write_kwargs(args, workdir, text=True))
    return {
        "id": args["id"],
        "updated": list(result.get("changed", [])),
        "sidecarPath": _abs(result, "sidecar"),
        "version": result["version"],
        "previousVersion": result.get("previousVersion"),
        "comment": result.get("comment", {}),
    }


def resolve(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    workdir, target = _document_target(args, ctx)
    ids: list[str] | None = None
    filters: dict[str, Any] | None = None
    if args.get("id"):
        ids = [args["id"]]
    elif args.get("ids"):
        ids = list(args["ids"])
    elif any(args.get(k) for k in ("author", "type", "severity")):
        filters = {k: args[k] for k in ("author", "type", "severity") if args.get(k)}
    else:
        message = "Provide id, ids, or a filter (author/type/severity)."
        raise ToolError(message, data=_error("invalid-argument", message))
    unresolve = bool(args.get("unresolve", False))
    operation = ops.unresolve if unresolve else ops.resolve
    not_found: list[str] = []
    if ids is not None:
        # Ids that do not exist are reported, not fatal (as upstream); the rest are changed.
        listing = _engine(ops.list_comments, [target], cwd=str(workdir))
        _raise_errors(listing)
        known = {c.get("id") for c in listing["comments"]}
        not_found = [i for i in ids if i not in known]
        ids = [i for i in ids if i in known]
    if ids == []:
        located = _engine(ops.locate, target, cwd=str(workdir))
        result = {**located, "matched": [], "changed": []}
        if args.get("expectedVersion") is not None and args["expectedVersion"] != located.get("version"):
            conflict = MrsfConflict(located.get("version"), args["expectedVersion"], located.get("sidecar"))
            raise ToolError(conflict.message, data=conflict.to_dict())
    else:
        result = _engine(operation, target, ids, filters=filters, **_write_kwargs(args, workdir))
    output: dict[str, Any] = {
        "resolved": not unresolve,
        "changed": list(result.get("matched", [])),
        "sidecarPath": _abs(result, "sidecar"),
        "version": result.get("version"),
    }
    if not_found:
        output["notFound"] = not_found
    return output


def list_comments(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    workdir = _workdir(args, ctx)
    targets = _sidecars(ctx, workdir, args.get("files"))
    # As upstream: open/resolved filter only when true; empty strings filter nothing.
    filters = {k: True for k in ("open", "resolved") if args.get(k) is True}
    filters.update({k: args[k] for k in ("author", "type", "severity") if args.get(k)})
    files = []
    flat: list[dict[str, Any]] = []
    for target in targets:
        result = _engine(ops.list_comments, [target], filters=filters or None, cwd=str(workdir))
        _raise_errors(result)
        sidecar = _engine(ops.locate, target, cwd=str(workdir))
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
        # Summary statistics instead of the comments (as upstream); the per-file counts stay.
        output["summary"] = _summary(flat)
        for entry in files:
            del entry["comments"]
    if args.get("format") == "compact":
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
        "threads": sum(1 for c in comments if not c.get("reply_to")),
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


def _list_text(result: dict[str, Any]) -> str:
    if "table" in result:
        return result["table"]
    if "summary" in result:
        return json.dumps(result["summary"], ensure_ascii=False, indent=2)
    return json.dumps(result, ensure_ascii=False, indent=2)


def status(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    workdir = _workdir(args, ctx)
    targets = _sidecars(ctx, workdir, args.get("files"))
    results: list[dict[str, Any]] = []
    files = []
    for target in targets:
        result = _engine(ops.status, [target], cwd=str(workdir))
        _raise_errors(result)
        sidecar = _engine(ops.locate, target, cwd=str(workdir))
        version = result.get("versions", {}).get(sidecar["sidecar"], sidecar.get("version"))
        files.append({"file": sidecar["sidecarPath"], "version": version})
        for r in result["results"]:
            results.append({"commentId": r["id"], "health": r["health"], "reason": r["reason"], "file": sidecar["sidecarPath"]})
    counts = {"total": len(results)}
    for health in ("fresh", "stale", "orphaned", "unknown"):
        counts[health] = sum(1 for r in results if r["health"] == health)
    return {"counts": counts, "results": results, "files": files, "version": _single(targets, files[0]["version"] if files else None)}


def rename(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    workdir = _workdir(args, ctx)
    old = _inside(ctx, workdir, args["oldDocument"], "oldDocument")
    new = _inside(ctx, workdir, args["newDocument"], "newDocument")
    result = _engine(ops.rename, str(old), str(new), **_write_kwargs(args, workdir))
    return {
        "oldSidecar": str(Path(result["root"]) / result["oldSidecar"]),
        "newSidecar": _abs(result, "sidecar"),
        "document": result["document"],
        "version": result["version"],
        "previousVersion": result.get("previousVersion"),
    }


def delete(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    workdir, target = _document_target(args, ctx)
    cascade = bool(args.get("cascade", False))
    result = _engine(ops.delete, target, [args["id"]], cascade=cascade, **_write_kwargs(args, workdir))
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
    workdir, target = _document_target(args, ctx)
    strategy = args.get("strategy", "salvage")
    result = _engine(ops.repair, target, reset=strategy == "reset", **_write_kwargs(args, workdir))
    if strategy == "reset":
        summary = "Sidecar reset to empty."
    elif not result.get("changed"):
        summary = "File was already valid."
    else:
        summary = f"Salvaged {result.get('salvaged', 0)} comment(s); dropped {len(result.get('dropped', []))}."
    output = {
        "strategy": strategy,
        "sidecarPath": _abs(result, "sidecar"),
        "result": summary,
        "commentsRecovered": 0 if strategy == "reset" else result.get("salvaged", 0),
        "commentsSkipped": len(result.get("dropped", [])),
        "dropped": list(result.get("dropped", [])),
        "backup": result.get("backup"),
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
            message = f"Unknown tool '{name}'. Available tools: {available}"
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
        title="Discover Markdown Sidecar",
        description=(
            "Find the Sidemark (MRSF) review sidecar for a Markdown document before listing comments, "
            "adding review feedback, or validating anchors. Returns the absolute path to the sidecar, "
            "or an error if none exists."
        ),
        input_schema=_object({"document": _string("Path to the Markdown document"), "cwd": CWD}, ["document"]),
        output_schema=_out(
            {"sidecarPath": {"type": "string"}, "documentPath": {"type": "string"}, "version": VERSION_OUT},
            ["sidecarPath", "documentPath", "version"],
        ),
        handler=discover,
        text=_pretty,
        read_only=True,
        idempotent=True,
    ),
    Tool(
        name="mrsf_validate",
        title="Validate Markdown Review Sidecars",
        description=(
            "Validate one or more Sidemark (MRSF) sidecars for Markdown review workflows against the schema "
            "and specification rules. Returns validation diagnostics (each with a code) before you trust or "
            "edit review comments."
        ),
        input_schema=_object({"files": FILES, "strict": _boolean("Treat warnings as errors"), "cwd": CWD}),
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
        text=_pretty,
        read_only=True,
        idempotent=True,
    ),
    Tool(
        name="mrsf_reanchor",
        title="Re-anchor Markdown Review Comments",
        description=(
            "Re-anchor Markdown review comments in Sidemark (MRSF) sidecars after a Markdown document has been "
            "edited. Updates line numbers and populates anchored_text when the text at the new position differs "
            "from selected_text. Pass documentText to re-anchor against an unsaved buffer."
        ),
        input_schema=_object(
            {
                "files": _strings("Sidecar or Markdown file paths. If omitted, discovers all sidecars."),
                "dryRun": _boolean("Report without modifying files"),
                "threshold": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": 1,
                    "description": "Fuzzy match threshold 0.0–1.0 (default 0.6)",
                },
                "updateText": _boolean("Also replace selected_text with current document text"),
                "force": _boolean(
                    "Firmly anchor high-confidence results: update commit to HEAD and clear audit fields"
                ),
                "documentText": {**DOCUMENT_TEXT, "description": DOCUMENT_TEXT["description"] + " (one file only)"},
                "expectedVersion": {**EXPECTED_VERSION, "description": EXPECTED_VERSION["description"] + " (one file only)"},
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
                            "results": {"type": "array", "items": {"type": "object"}},
                        },
                        ["file", "version", "changed", "results"],
                    ),
                },
                "version": VERSION_OUT,
            },
            ["totalChanged", "totalOrphaned", "dryRun", "files", "version"],
        ),
        handler=reanchor,
        text=_pretty,
    ),
    Tool(
        name="mrsf_add",
        title="Add Markdown Review Comment",
        description=(
            "Add a review comment to a Markdown document's Sidemark (MRSF) sidecar. Creates the sidecar if it "
            "does not exist. Automatically populates selected_text from the document (or from documentText) "
            "and the current git commit."
        ),
        input_schema=_object(
            {
                "document": _string("Path to the Markdown document"),
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
        text=_pretty,
    ),
    Tool(
        name="mrsf_add_batch",
        title="Add Multiple Markdown Review Comments",
        description=(
            "Add multiple review comments to a Markdown document's Sidemark (MRSF) sidecar in a single atomic "
            "operation. Prefer this over calling mrsf_add multiple times to avoid race conditions when adding "
            "comments in parallel."
        ),
        input_schema=_object(
            {
                "document": _string("Path to the Markdown document"),
                "comments": {
                    "type": "array",
                    "items": _object(COMMENT_FIELDS, ["text", "author"]),
                    "description": "Array of comments to add",
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
        text=_pretty,
    ),
    Tool(
        name="mrsf_update",
        title="Update Markdown Review Comment",
        description=(
            "Update fields of an existing comment by ID. Only the supplied fields are changed; omitted fields are "
            "left as-is. Moving the anchor re-captures selected_text from the document (or documentText)."
        ),
        input_schema=_object(
            {
                "document": _string("Path to the Markdown document or its sidecar"),
                "id": _string("Comment ID to update"),
                "text": _string("New comment text"),
                "type": _string(f"New type: {COMMENT_TYPES}"),
                "severity": _severity("New severity level"),
                "line": _integer("New starting line number (1-based)", 1),
                "end_line": _integer("New ending line number (inclusive)", 1),
                "start_column": _integer("New starting column (0-based)", 0),
                "end_column": _integer("New ending column", 0),
                "extensions": {**EXTENSIONS, "description": "Merge tool-specific x_* fields into the comment"},
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
        text=_pretty,
    ),
    Tool(
        name="mrsf_resolve",
        title="Resolve Markdown Review Comments",
        description=(
            "Resolve or unresolve one or more comments in a Sidemark (MRSF) sidecar. Supply a single id, an array "
            "of ids, or use filter fields (author, type, severity) to bulk-resolve matching comments."
        ),
        input_schema=_object(
            {
                "document": _string("Path to the Markdown document or its sidecar"),
                "id": _string("Single comment ID to resolve/unresolve"),
                "ids": _strings("Array of comment IDs to resolve/unresolve"),
                "author": _string("Resolve all comments by this author"),
                "type": _string("Resolve all comments of this type"),
                "severity": _severity("Resolve all comments of this severity"),
                "unresolve": _boolean("Set to true to unresolve instead"),
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
                "version": VERSION_OUT,
            },
            ["resolved", "changed", "sidecarPath", "version"],
        ),
        handler=resolve,
        text=_pretty,
    ),
    Tool(
        name="mrsf_list",
        title="List Markdown Review Comments",
        description=(
            "List and filter Markdown review comments across one or more Sidemark (MRSF) sidecars. Supports "
            "filtering by status, author, type, and severity, a summary, and a compact text table."
        ),
        input_schema=_object(
            {
                "files": _strings("Sidecar or Markdown file paths. If omitted, discovers all sidecars."),
                "open": _boolean("Only show unresolved comments"),
                "resolved": _boolean("Only show resolved comments"),
                "author": _string("Filter by author"),
                "type": _string("Filter by type"),
                "severity": _severity("Filter by severity"),
                "format": {
                    "type": "string",
                    "enum": ["full", "compact"],
                    "description": "Output format: 'full' (default) returns complete JSON; 'compact' returns a "
                    "scannable text table",
                },
                "summary": _boolean("Return summary statistics instead of full comments"),
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
        text=_list_text,
    ),
    Tool(
        name="mrsf_status",
        title="Check Markdown Comment Anchor Health",
        description=(
            "Check the anchor health of all comments in one or more Sidemark (MRSF) sidecars. Reports whether "
            "each comment is fresh, stale, orphaned or unknown."
        ),
        input_schema=_object(
            {"files": _strings("Sidecar or Markdown file paths. If omitted, discovers all sidecars."), "cwd": CWD}
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
        text=_pretty,
        read_only=True,
        idempotent=True,
    ),
    Tool(
        name="mrsf_rename",
        title="Rename Markdown Review Document",
        description=(
            "Update a Sidemark (MRSF) sidecar after its Markdown document has been renamed or moved. Moves the "
            "sidecar file and updates the document reference inside it."
        ),
        input_schema=_object(
            {
                "oldDocument": _string("Old path to the Markdown document"),
                "newDocument": _string("New path to the Markdown document"),
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
        text=_pretty,
    ),
    Tool(
        name="mrsf_delete",
        title="Delete Markdown Review Comment",
        description=(
            "Delete a comment by ID from a Sidemark (MRSF) sidecar. By default, direct replies are promoted: they "
            "inherit the parent's anchor and their reply_to is re-pointed to the grandparent. Use cascade to "
            "delete direct replies along with the parent instead."
        ),
        input_schema=_object(
            {
                "document": _string("Path to the Markdown document or its sidecar"),
                "id": _string("Comment ID to delete"),
                "cascade": _boolean(
                    "When true, also remove direct replies instead of promoting them (default: false)"
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
        text=_pretty,
        destructive=True,
    ),
    Tool(
        name="mrsf_repair",
        title="Repair Markdown Review Sidecar",
        description=(
            "Repair or reset a corrupted Sidemark (MRSF) sidecar for a Markdown review workflow. Use 'salvage' "
            "strategy to attempt to recover parseable comments from a corrupted sidecar (rewrites it cleanly). "
            "Use 'reset' strategy to start fresh with an empty comment list. The damaged file is kept as .bak."
        ),
        input_schema=_object(
            {
                "document": _string("Path to the Markdown document or its sidecar"),
                "strategy": {
                    "type": "string",
                    "enum": ["salvage", "reset"],
                    "description": "Repair strategy: 'salvage' (default) attempts to recover comments; "
                    "'reset' starts fresh",
                },
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
                "backup": {"type": ["string", "null"]},
                **_RESULT_VERSION,
            },
            ["strategy", "sidecarPath", "result", "commentsRecovered", "version"],
        ),
        handler=repair,
        text=_pretty,
        destructive=True,
    ),
    Tool(
        name="mrsf_help",
        title="Help For Markdown Review Tools",
        description=(
            "List all available Sidemark (MRSF) MCP tools for reviewing and commenting on Markdown documents, "
            "together with their parameter schemas. Optionally filter to a specific tool for detailed "
            "parameter info."
        ),
        input_schema=_object(
            {"tool": _string("Tool name to get detailed help for (e.g. 'mrsf_add'). Omit to list all tools.")}
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
        text=_pretty,
        read_only=True,
        idempotent=True,
    ),
]


# ---------------------------------------------------------------------------
# Resources
# ---------------------------------------------------------------------------


def _resource_sidecar(ctx: CallContext, path: str) -> dict[str, Any]:
    target = _inside(ctx, ctx.cwd, path, "path")
    try:
        return ops.read(str(target), cwd=str(ctx.cwd))
    except MrsfError as error:
        if error.code == "not-found":
            raise FileNotFoundError(path) from None
        raise ToolError(error.message) from None


def sidecar_resource(params: dict[str, str], ctx: CallContext) -> str:
    result = _resource_sidecar(ctx, params["path"])
    return json.dumps(result["data"], ensure_ascii=False, indent=2)


def comment_resource(params: dict[str, str], ctx: CallContext) -> str:
    result = _resource_sidecar(ctx, params["path"])
    comments = result["data"].get("comments") if isinstance(result["data"], dict) else None
    for comment in comments if isinstance(comments, list) else []:
        if isinstance(comment, dict) and comment.get("id") == params["id"]:
            return json.dumps(comment, ensure_ascii=False, indent=2)
    raise ToolError(f"Comment '{params['id']}' not found in {params['path']}")


def anchors_resource(params: dict[str, str], ctx: CallContext) -> str:
    target = _inside(ctx, ctx.cwd, params["path"], "path")
    try:
        result = ops.status([str(target)], cwd=str(ctx.cwd))
    except MrsfError as error:
        if error.code == "not-found":
            raise FileNotFoundError(params["path"]) from None
        raise ToolError(error.message) from None
    for error in result.get("errors", []):
        raise ToolError(f"{error['sidecar']}: {error['message']}")
    rows = [{"commentId": r["id"], "health": r["health"], "reason": r["reason"]} for r in result["results"]]
    return json.dumps(rows, ensure_ascii=False, indent=2)


RESOURCE_TEMPLATES = [
    ResourceTemplate(
        uri_template="mrsf://sidecar/{+path}",
        name="sidecar",
        description="Full parsed Sidemark (MRSF) sidecar document as JSON",
        mime_type="application/json",
        handler=sidecar_resource,
    ),
    ResourceTemplate(
        uri_template="mrsf://comment/{+path}/{id}",
        name="comment",
        description="A single review comment from a Sidemark sidecar file",
        mime_type="application/json",
        handler=comment_resource,
    ),
    ResourceTemplate(
        uri_template="mrsf://anchors/{+path}",
        name="anchors",
        description="All comments for a document with their anchor health status",
        mime_type="application/json",
        handler=anchors_resource,
    ),
]

INSTRUCTIONS = (
    "Tools for reviewing Markdown documents with Sidemark / MRSF review sidecars "
    "(<document>.review.yaml). Discover or list comments first; every result carries the sidecar's "
    "`version` (SHA-256 of its bytes). Pass it back as `expectedVersion` on writes: if another agent "
    "changed the sidecar meanwhile, nothing is written and a version-mismatch conflict with the "
    "`currentVersion` is returned; re-read and retry. Paths must stay inside the server's working directory."
)

SPEC = ServerSpec(
    name=SERVER_NAME,
    version=PACKAGE_VERSION,
    instructions=INSTRUCTIONS,
    tools=TOOLS,
    resource_templates=RESOURCE_TEMPLATES,
    default_port=3001,
    prog="mrsf-mcp",
)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``mrsf-mcp``."""
    return serve(SPEC, argv)


if __name__ == "__main__":
    sys.exit(main())
