"""The text replies of ``mrsf-mcp`` in the JSON shapes ``@mrsf/mcp`` clients parse.

The upstream Sidemark MCP server answers every tool call with one text content holding
``JSON.stringify(result, null, 2)``; clients written for it parse that text.  Our tools
return a structured object (``structuredContent`` must be an object) that carries more
(``previousVersion``, per-file ``document`` and ``count``, the comment as stored ...).
The functions here turn each tool's structured result into the upstream shape, key by
key, for the text content:

* field names and nesting as upstream writes them (``commentId``/``newLine`` in
  re-anchoring results, ``{file, result}`` per validated file ...);
* top-level arrays where upstream returns one (``mrsf_list`` in full format,
  ``mrsf_help`` without a tool);
* keys upstream leaves out when it has no value (``JSON.stringify`` drops ``undefined``)
  are left out here too, keys it writes as ``null`` are written as ``null``;
* plus the ``version`` fields the upstream documentation promises (the SHA-256 of the
  sidecar after the call): on every write result, each re-anchored file, each listed
  file, and the ``files`` array of ``mrsf_status`` (and of a list summary, which upstream
  documents as carrying each sidecar's version without naming the key; we use the same
  ``files`` array as ``mrsf_status``).

Pure functions: dict in, JSON-able value out.
"""

from __future__ import annotations

from typing import Any, Callable

#: Keys of a validation diagnostic as upstream writes them (``code`` since 0.6).
DIAGNOSTIC_KEYS = ("severity", "message", "path", "commentId", "code")

#: Keys of a re-anchoring result in upstream's order; absent ones are left out.
REANCHOR_RESULT_KEYS = (
    "commentId", "status", "score", "newLine", "newEndLine", "newStartColumn", "newEndColumn",
    "anchoredText", "previousSelectedText", "reason",
)


def _pick(source: dict[str, Any], keys: tuple[str, ...] | list[str], *, drop_none: tuple[str, ...] = ()) -> dict:
    """``keys`` of ``source`` in that order; keys in ``drop_none`` are left out when None."""
    out: dict[str, Any] = {}
    for key in keys:
        if key not in source:
            continue
        if key in drop_none and source[key] is None:
            continue
        out[key] = source[key]
    return out


def discover(result: dict[str, Any]) -> dict[str, Any]:
    return _pick(result, ("sidecarPath", "documentPath", "version"))


def _diagnostic(diag: dict[str, Any]) -> dict[str, Any]:
    return _pick(diag, DIAGNOSTIC_KEYS, drop_none=("path", "commentId", "code"))


def validate(result: dict[str, Any]) -> dict[str, Any]:
    files = []
    for entry in result["files"]:
        inner = entry["result"]
        files.append({
            "file": entry["file"],
            "result": {
                "valid": inner["valid"],
                "errors": [_diagnostic(d) for d in inner["errors"]],
                "warnings": [_diagnostic(d) for d in inner["warnings"]],
            },
        })
    return {"valid": result["valid"], "files": files}


def reanchor_result(item: dict[str, Any]) -> dict[str, Any]:
    """One comment's re-anchoring result: the upstream keys it has a value for."""
    return _pick(item, REANCHOR_RESULT_KEYS, drop_none=REANCHOR_RESULT_KEYS)


def reanchor(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "totalChanged": result["totalChanged"],
        "totalOrphaned": result["totalOrphaned"],
        "dryRun": result["dryRun"],
        "files": [
            {
                "file": entry["file"],
                "results": [reanchor_result(r) for r in entry["results"]],
                "changed": entry["changed"],
                "version": entry["version"],
            }
            for entry in result["files"]
        ],
    }


def add(result: dict[str, Any]) -> dict[str, Any]:
    return _pick(result, ("id", "line", "end_line", "status", "sidecarPath", "version"))


def add_batch(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "sidecarPath": result["sidecarPath"],
        # upstream copies c.line / c.end_line: absent on a comment without them
        "added": [_pick(a, ("id", "line", "end_line"), drop_none=("line", "end_line")) for a in result["added"]],
        "total": result["total"],
        "version": result["version"],
    }


def update(result: dict[str, Any]) -> dict[str, Any]:
    return _pick(result, ("id", "updated", "sidecarPath", "version"))


def resolve(result: dict[str, Any]) -> dict[str, Any]:
    return _pick(result, ("resolved", "changed", "notFound", "sidecarPath", "version"), drop_none=("notFound",))


def list_comments(result: dict[str, Any]) -> Any:
    """Full: a top-level array of ``{file, comments, version}``; summary: the totals
    object with ``files: [{file, version}]``; compact: the text table itself."""
    if "table" in result:
        return result["table"]
    if "summary" in result:
        return {**result["summary"], "files": [{"file": f["file"], "version": f["version"]} for f in result["files"]]}
    return [{"file": f["file"], "comments": f["comments"], "version": f["version"]} for f in result["files"]]


def status(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "counts": result["counts"],
        "results": [_pick(r, ("commentId", "health", "reason")) for r in result["results"]],
        "files": [_pick(f, ("file", "version")) for f in result["files"]],
    }


def rename(result: dict[str, Any]) -> dict[str, Any]:
    return _pick(result, ("oldSidecar", "newSidecar", "document", "version"))


def delete(result: dict[str, Any]) -> dict[str, Any]:
    return _pick(result, ("id", "deleted", "cascade", "sidecarPath", "version"))


def repair(result: dict[str, Any]) -> dict[str, Any]:
    """Upstream's keys; ``backup`` (our option, off by default) only when one was made."""
    out = _pick(result, ("strategy", "sidecarPath", "result", "commentsRecovered", "commentsSkipped", "version"))
    if result.get("backup"):
        out["backup"] = result["backup"]
    return out


def help_tool(result: dict[str, Any]) -> Any:
    """Without a tool: the array of tool summaries; with one: ``{tool, description,
    parameters}``, each parameter ``{type, required, description}``."""
    if "tools" in result:
        return result["tools"]
    return {
        "tool": result["tool"],
        "description": result["description"],
        "parameters": {name: _pick(p, ("type", "required", "description")) for name, p in result["parameters"].items()},
    }


#: Tool name -> shaper, for every tool of the server.
SHAPES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "mrsf_discover": discover,
    "mrsf_validate": validate,
    "mrsf_reanchor": reanchor,
    "mrsf_add": add,
    "mrsf_add_batch": add_batch,
    "mrsf_update": update,
    "mrsf_resolve": resolve,
    "mrsf_list": list_comments,
    "mrsf_status": status,
    "mrsf_rename": rename,
    "mrsf_delete": delete,
    "mrsf_repair": repair,
    "mrsf_help": help_tool,
}
