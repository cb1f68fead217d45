"""The ``mrsf-mcp`` tool and resource handlers: MCP arguments in, engine calls, results out.

Each handler checks its arguments with :mod:`markmcp.mrsf.toolcalls` (paths inside the
server's folders, the write gate first for a writing tool), calls one :mod:`markmcp.mrsf.ops`
operation per target and shapes the result: upstream's field names, ``version`` (the
SHA-256 of the sidecar's bytes, or null) and, for a write, ``previousVersion``.  The tool
table that names, describes and wires them is in :mod:`markmcp.mrsf.server`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from markmcp.mcpcore import CallContext, ToolError
from markmcp.mrsf.errors import MrsfConflict
from markmcp.mrsf.toolcalls import (
    absolute,
    conflict,
    document_target,
    engine,
    error_data,
    inside,
    invalid,
    pretty,
    Sweep,
    raise_errors,
    sidecar_targets,
    workdir_of,
    writable,
    write_kwargs,
)
from markmcp.mrsf.toolschemas import BATCH_COMMENT_FIELDS, COMMENT_FIELDS



# ---------------------------------------------------------------------------
# Shared by the handlers
# ---------------------------------------------------------------------------


def _each_sidecar(
    operation: Callable[..., dict[str, Any]], sweep: Sweep, ctx: CallContext, **kwargs: Any
) -> Iterator[tuple[dict[str, Any], dict[str, Any], str | None]]:
    """Run a multi-file engine operation on one target at a time; per target yield its result,
    where its sidecar is (``ops.locate``) and the sidecar's version as the operation read
    it.  A sidecar that cannot be read or parsed fails the call, unless the call sweeps:
    then it goes to ``sweep.not_read`` and the rest still answer."""
    from markmcp.mrsf import ops

    for target in sweep.targets:
        try:
            result = engine(operation, [target], cwd=str(sweep.workdir), ctx=ctx, **kwargs)
            if sweep.tolerant and result.get("errors"):
                sweep.skip_engine_errors(result)
                continue
            raise_errors(result)
            located = engine(ops.locate, target, cwd=str(sweep.workdir), ctx=ctx)
        except ToolError as error:
            if not sweep.tolerant:
                raise
            sweep.skip_error(target, error)
            continue
        yield result, located, result.get("versions", {}).get(located["sidecar"], located.get("version"))


#: Engine codes of a sidecar that could not be read at all: a validation has nothing to judge.
UNREAD = frozenset({"path-escape", "not-regular", "file-too-large", "io-error", "symlink", "not-found",
                    "invalid-argument"})


def _located_version(root: str, sidecar: str, ctx: CallContext) -> str | None:
    """The version of a sidecar as the engine reports it (None when missing)."""
    from markmcp.mrsf import ops

    return engine(ops.locate, str(Path(root) / sidecar), root=root, ctx=ctx).get("version")


def _only_version(files: list[dict[str, Any]]) -> str | None:
    """The ``version`` of a multi-file result: that of its one file, else null."""
    return files[0]["version"] if len(files) == 1 else None


def _versions(result: dict[str, Any]) -> dict[str, Any]:
    """The version fields of a write: the sidecar's version now and before."""
    return {"version": result["version"], "previousVersion": result.get("previousVersion")}


# ---------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------


def discover(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir = workdir_of(args, ctx)
    target = inside(ctx, workdir, args["document"], "document")
    found = engine(ops.locate, str(target), cwd=str(workdir), ctx=ctx)
    sidecar = Path(found["sidecarPath"])
    inside(ctx, workdir, str(sidecar), "sidecar")
    if not found["exists"]:
        message = f"This document has no sidecar yet ({sidecar} does not exist)"
        raise ToolError(message, data=error_data("not-found", message, sidecarPath=str(sidecar)))
    return {"sidecarPath": str(sidecar), "documentPath": found["documentPath"], "version": found.get("version")}


def validate(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    sweep = sidecar_targets(args, ctx)
    files = []
    for target in sweep.targets:
        try:
            result = engine(ops.validate, [target], strict=bool(args.get("strict")), cwd=str(sweep.workdir), ctx=ctx)
        except ToolError as error:
            if not sweep.tolerant:
                raise
            sweep.skip_error(target, error)
            continue
        for entry in result["files"]:
            file = str(Path(result["root"]) / entry["sidecar"])
            errors = entry["errors"]
            if sweep.tolerant and "version" not in entry and len(errors) == 1 and errors[0]["code"] in UNREAD:
                sweep.skip(file, errors[0]["code"], errors[0]["message"])  # never read: nothing validated
                continue
            files.append(
                {
                    "file": file,
                    "version": (entry["version"] if "version" in entry
                                else _located_version(result["root"], entry["sidecar"], ctx)),
                    "result": {
                        "valid": entry["valid"],
                        "errors": errors,
                        "warnings": entry["warnings"],
                    },
                }
            )
    # a sidecar not read was not validated: the run cannot vouch for every sidecar
    return sweep.report({
        "valid": all(f["result"]["valid"] for f in files) and not sweep.not_read,
        "files": files,
        "version": _only_version(files),
    })


def reanchor(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    sweep = sidecar_targets(args, ctx)
    workdir, targets = sweep.workdir, sweep.targets
    if "documentText" in args and len(targets) != 1:
        raise invalid(f"documentText needs exactly one file (got {len(targets)})")
    # The spec's concurrency contract: expectedVersion guards a single sidecar only; over
    # several it is ignored, and the reply says so.
    ignored_version = "expectedVersion" in args and len(targets) != 1
    if ignored_version:
        args = {k: v for k, v in args.items() if k != "expectedVersion"}
    dry_run = bool(args.get("dryRun", False))
    if not dry_run:
        for target in targets:
            writable(ctx, target)
    options = {
        "threshold": args.get("threshold", 0.6),
        "update_text": bool(args.get("updateText", False)),
        "force": bool(args.get("force", False)),
        "dry_run": dry_run,
        **write_kwargs(args, workdir, text=True),
    }
    files = []
    for target in targets:
        try:
            result = engine(ops.reanchor, target, **options, ctx=ctx)
        except ToolError as error:
            if not sweep.tolerant:
                raise
            sweep.skip_error(target, error)
            continue
        files.append(
            {
                "file": absolute(result),
                "version": result.get("version"),
                "changed": result["changed"],
                "written": result.get("written", False),
                "results": [_reanchor_item(r) for r in result["results"]],
            }
        )
    output = {
        "totalChanged": sum(f["changed"] for f in files),
        "totalOrphaned": sum(1 for f in files for r in f["results"] if r.get("status") == "orphaned"),
        "dryRun": dry_run,
        "files": files,
        "version": _only_version(files),
    }
    if ignored_version:
        output["note"] = (f"expectedVersion ignored: it applies to exactly one sidecar "
                          f"and this call has {len(targets)}")
    return sweep.report(output)


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


def _comment_options(item: dict[str, Any], fields: dict[str, Any] = COMMENT_FIELDS) -> dict[str, Any]:
    """Engine keyword arguments for one new comment (MCP field names are MRSF field names)."""
    options = {key: item[key] for key in fields if key in item and key != "extensions"}
    if "extensions" in item:
        options["extensions"] = _extensions(item["extensions"])
    return options


def _extensions(value: dict[str, Any]) -> dict[str, Any]:
    """Check an ``extensions`` map: every key must start with ``x_`` (stored as flat fields)."""
    for key in value:
        if not key.startswith("x_"):
            raise invalid(f"extensions key '{key}' is not allowed: extension keys begin with 'x_'.", key=key)
    return value


def _note(result: dict[str, Any]) -> dict[str, Any]:
    """The engine's ``note`` (something the caller should know, the call having worked)."""
    return {"note": result["note"]} if "note" in result else {}


def add(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir, target = document_target(args, ctx, write=True)
    result = engine(ops.add, target, **_comment_options(args), **write_kwargs(args, workdir, text=True), ctx=ctx)
    comment = result["comment"]
    return {
        "id": comment["id"],
        "line": comment.get("line"),
        "end_line": comment.get("end_line"),
        "status": "added",
        "sidecarPath": absolute(result),
        **_versions(result),
        "comment": comment,
        **_note(result),
    }


def add_batch(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir, target = document_target(args, ctx, write=True)
    comments = [_comment_options(item, BATCH_COMMENT_FIELDS) for item in args["comments"]]
    result = engine(ops.add_batch, target, comments, **write_kwargs(args, workdir, text=True), ctx=ctx)
    added = [{"id": c["id"], "line": c.get("line"), "end_line": c.get("end_line")} for c in result["comments"]]
    return {
        "sidecarPath": absolute(result),
        "added": added,
        "total": len(added),
        **_versions(result),
        **_note(result),
    }


UPDATABLE = ("text", "type", "severity", "line", "end_line", "start_column", "end_column")


def update(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir, target = document_target(args, ctx, write=True)
    changes = {key: args[key] for key in UPDATABLE if key in args}
    if "extensions" in args:
        changes.update(_extensions(args["extensions"]))
    if not changes:
        raise invalid(f"Nothing to update: give at least one of {', '.join(UPDATABLE)} or extensions.")
    result = engine(ops.update, target, args["id"], changes, **write_kwargs(args, workdir, text=True), ctx=ctx)
    return {
        "id": args["id"],
        "updated": list(result.get("changed", [])),
        "sidecarPath": absolute(result),
        **_versions(result),
        "comment": result.get("comment", {}),
        **_note(result),
    }


def resolve(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir, target = document_target(args, ctx, write=True)
    ids: list[str] | None = None
    filters: dict[str, Any] | None = None
    if args.get("id") and args.get("ids"):
        raise invalid("Give either id or ids, not both (id names one comment, ids several).")
    if args.get("id"):
        ids = [args["id"]]
    elif args.get("ids"):
        ids = list(args["ids"])
    elif any(args.get(k) for k in ("author", "type", "severity")):
        filters = {k: args[k] for k in ("author", "type", "severity") if args.get(k)}
    else:
        raise invalid("Nothing selected: give id, ids, or at least one of author, type, severity.")
    unresolve = bool(args.get("unresolve", False))
    operation = ops.unresolve if unresolve else ops.resolve
    not_found: list[str] = []
    if ids is not None:
        # Ids that do not exist are reported, not fatal (as upstream); the rest are changed.
        listing = engine(ops.list_comments, [target], cwd=str(workdir), ctx=ctx)
        raise_errors(listing)
        known = {c.get("id") for c in listing["comments"]}
        not_found = [i for i in ids if i not in known]
        ids = [i for i in ids if i in known]
    if ids == []:
        located = engine(ops.locate, target, cwd=str(workdir), ctx=ctx)
        result = {**located, "matched": [], "changed": []}
        if args.get("expectedVersion") is not None and args["expectedVersion"] != located.get("version"):
            raise conflict(MrsfConflict(located.get("version"), args["expectedVersion"], located.get("sidecar")))
    else:
        result = engine(operation, target, ids, filters=filters, **write_kwargs(args, workdir), ctx=ctx)
    output: dict[str, Any] = {
        "resolved": not unresolve,
        "changed": list(result.get("matched", [])),
        "sidecarPath": absolute(result),
        "version": result.get("version"),
        "previousVersion": result.get("previousVersion", result.get("version")),
    }
    if not_found:
        output["notFound"] = not_found
    return output


def list_comments(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    sweep = sidecar_targets(args, ctx)
    # As upstream: open/resolved filter only when true; empty strings filter nothing.
    filters = {k: True for k in ("open", "resolved") if args.get(k) is True}
    filters.update({k: args[k] for k in ("author", "type", "severity") if args.get(k)})
    files = []
    flat: list[dict[str, Any]] = []
    orphaned = 0
    for result, sidecar, version in _each_sidecar(ops.list_comments, sweep, ctx, filters=filters or None):
        comments = [{k: v for k, v in c.items() if k not in ("document", "sidecar")} for c in result["comments"]]
        flat.extend(comments)
        orphaned += result["summary"]["orphaned"]
        files.append(
            {
                "file": sidecar["sidecarPath"],
                "document": sidecar["documentPath"],
                "version": version,
                "count": len(comments),
                "comments": comments,
            }
        )
    output: dict[str, Any] = sweep.report({"files": files, "version": _only_version(files)})
    if args.get("summary"):
        # Summary statistics instead of the comments (as upstream, which answers a summary
        # even when a compact table is asked for too); the per-file counts stay.
        output["summary"] = _summary(flat, orphaned)
        for entry in files:
            del entry["comments"]
    elif args.get("format") == "compact":
        output["table"] = _compact(files)
    return output


def _summary(comments: list[dict[str, Any]], orphaned: int) -> dict[str, Any]:
    """Counts over comments: total, open, resolved, orphaned (as the engine counted them: a
    reply without an anchor of its own is orphaned with its parent), threads, byType,
    bySeverity."""
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
        "orphaned": orphaned,
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


def status(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    sweep = sidecar_targets(args, ctx)
    results: list[dict[str, Any]] = []
    files = []
    for result, sidecar, version in _each_sidecar(ops.status, sweep, ctx):
        files.append({"file": sidecar["sidecarPath"], "version": version})
        for r in result["results"]:
            results.append({"commentId": r["id"], "health": r["health"], "reason": r["reason"], "file": sidecar["sidecarPath"]})
    counts = {"total": len(results)}
    for health in ("fresh", "stale", "orphaned", "unknown"):
        counts[health] = sum(1 for r in results if r["health"] == health)
    return sweep.report({"counts": counts, "results": results, "files": files, "version": _only_version(files)})


def rename(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir = workdir_of(args, ctx)
    old = inside(ctx, workdir, args["oldDocument"], "oldDocument")
    new = inside(ctx, workdir, args["newDocument"], "newDocument")
    writable(ctx, new)
    result = engine(ops.rename, str(old), str(new), **write_kwargs(args, workdir), ctx=ctx)
    return {
        "oldSidecar": absolute(result, "oldSidecar"),
        "newSidecar": absolute(result),
        "document": result["document"],
        **_versions(result),
        **_note(result),
    }


def delete(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir, target = document_target(args, ctx, write=True)
    cascade = bool(args.get("cascade", False))
    result = engine(ops.delete, target, [args["id"]], cascade=cascade, **write_kwargs(args, workdir), ctx=ctx)
    return {
        "id": args["id"],
        "deleted": True,
        "cascade": cascade,
        "promoted": list(result.get("promoted", [])),
        "sidecarPath": absolute(result),
        **_versions(result),
    }


def repair(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.mrsf import ops

    workdir, target = document_target(args, ctx, write=True)
    strategy = args.get("strategy", "salvage")
    backup = bool(args.get("backup", False))
    result = engine(ops.repair, target, reset=strategy == "reset", backup=backup, **write_kwargs(args, workdir),
                     ctx=ctx)
    if strategy == "reset":
        summary = "Comments cleared; the sidecar now holds none."
    elif not result.get("changed"):
        summary = "Nothing to repair: the sidecar parsed cleanly."
    else:
        summary = f"Salvaged {result.get('salvaged', 0)} comment(s); dropped {len(result.get('dropped', []))}."
    output = {
        "strategy": strategy,
        "sidecarPath": absolute(result),
        "result": summary,
        "commentsRecovered": 0 if strategy == "reset" else result.get("salvaged", 0),
        "commentsSkipped": len(result.get("dropped", [])),
        "dropped": list(result.get("dropped", [])),
        "backup": absolute(result, "backup") if result.get("backup") else None,
        **_versions(result),
    }
    return output



# ---------------------------------------------------------------------------
# Resources
# ---------------------------------------------------------------------------


def _resource(ctx: CallContext, path: str, read: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """Run an engine operation for a resource read on the file at ``path`` (inside the
    server's folders): a missing sidecar is "resource not found", any other failure an
    invalid-params error naming it."""
    target = str(inside(ctx, ctx.cwd, path, "path"))
    try:
        return read(target)
    except ToolError as error:
        if error.data is not None and error.data.get("code") == "not-found":
            raise FileNotFoundError(path) from None
        raise ToolError(error.message) from None


def _sidecar_data(ctx: CallContext, path: str) -> Any:
    from markmcp.mrsf import ops

    return _resource(ctx, path, lambda target: engine(ops.read, target, cwd=str(ctx.cwd), ctx=ctx))["data"]


def sidecar_resource(params: dict[str, str], ctx: CallContext) -> str:
    return pretty(_sidecar_data(ctx, params["path"]))


def comment_resource(params: dict[str, str], ctx: CallContext) -> str:
    data = _sidecar_data(ctx, params["path"])
    comments = data.get("comments") if isinstance(data, dict) else None
    for comment in comments if isinstance(comments, list) else []:
        if isinstance(comment, dict) and comment.get("id") == params["id"]:
            return pretty(comment)
    raise ToolError(f"The sidecar of {params['path']} holds no comment with id '{params['id']}'")


def anchors_resource(params: dict[str, str], ctx: CallContext) -> str:
    from markmcp.mrsf import ops

    result = _resource(ctx, params["path"], lambda target: engine(ops.status, [target], cwd=str(ctx.cwd), ctx=ctx))
    for error in result.get("errors", []):
        raise ToolError(f"{error['sidecar']}: {error['message']}")
    return pretty([{"commentId": r["id"], "health": r["health"], "reason": r["reason"]} for r in result["results"]])
