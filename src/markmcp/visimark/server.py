"""``visimark-mcp``: the VisiMark engine as MCP tools, with plan/apply and a write gate.

Eight tools (the names are a frozen public surface):

``visimark_check``, ``visimark_eval``, ``visimark_explain``, ``visimark_infer``, ``visimark_fmt``, ``visimark_ref``
    Read-only.  Each document tool takes ``path`` (a file inside the server's folders) or
    ``content`` (the document itself), never both, never neither.  ``visimark_fmt`` and
    ``visimark_infer`` *plan*: they return what they would change, with the SHA-256 of
    the source it was computed from, and write nothing.
``visimark_fmt_apply``, ``visimark_infer_apply``
    Take ``path`` and the plan back.  The file is rehashed and a changed file is refused;
    exactly the plan is applied (an edit or proposal the engine did not plan for this
    very source is refused, one left out of the plan is not applied), every refusal is
    decided before a byte moves, and the write is atomic.

Results are the envelope ``visimark --json`` prints (``command``, ``visimark`` — the engine
version —, ``status``, then the body) as ``structuredContent``, plus its JSON as text.  A
document with problems is a successful call (``status: "problems"``); only a request that
cannot run is a tool error, carrying the envelope with ``error: {code, message}`` and
``code`` one of ``USAGE``, ``READ``, ``SCENARIO``, ``WRITE``.  In ``path`` mode the
document's folder is reachable (its CSV imports are read, its chart SVGs compared),
confined to that folder; a ``content`` document has no folder, so its imports and chart
targets are named in ``skipped`` instead of being checked.

The write gate: writes need ``--allow-write`` and at least one declared root (``--root DIR``,
or the client's MCP roots where the roots policy of ``markmcp.mcpcore.roots`` lets them count:
over stdio; over HTTP/SSE they only narrow ``--cwd``/``--root`` unless the server runs with
``--trust-client-roots``); the written document must lie inside a root, and a chart
artifact inside a root and the document's own folder, never over a file that is not
VisiMark's (its metadata marker).  Artifacts are written before the document; a refused
artifact leaves the document unspliced.  Reads may use the folders the same policy
allows: the working directory (``--cwd``) and the roots.  Resources serve our skill (generated for a
server user), the CLI and function references and the worked invoice and its drifted twin;
two prompts encode the orderings an agent gets wrong unsupplied.

Start-up imports no engine module: the tools import what they use, and the layer loads the
engine (``ENGINE_MODULES``) right after the ``initialize`` reply.  Default HTTP/SSE port 3003.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from markmcp import __version__ as PACKAGE_VERSION
from markmcp.mcpcore import (
    CallContext,
    FileAccessError,
    Places,
    Prompt,
    PromptArgument,
    Resource,
    ServerSpec,
    Tool,
    ToolError,
    serve,
    writable_places,
)
from markmcp.mcpcore import files
from markmcp.mcpcore.roots import READABLE

# What the tools import when they run, loaded after the ``initialize`` reply (ServerSpec.preload).
ENGINE_MODULES = (
    "markmcp.visimark.envelopes", "markmcp.visimark.disk", "markmcp.visimark.infer", "markmcp.visimark.infer_report",
    "markmcp.visimark.explain", "markmcp.visimark.scenario", "markmcp.visimark.reference",
)

SERVER_NAME = "markmcp-visimark"
DEFAULT_PORT = 3003
CONTENT_LABEL = "<content>"
WRITES_DISABLED = "writes are disabled. Start the server with --allow-write."


def no_roots(hint: str) -> str:
    """The write gate's refusal when no root is declared, ending with how to declare one on this
    transport (the roots policy's hint: over HTTP/SSE a client's roots cannot add one)."""
    return f"writes are disabled: no root is declared. {hint[:1].upper()}{hint[1:]}."


NO_ROOTS = no_roots(CallContext.hint)
"""The refusal over stdio (where the client's MCP roots count)."""
CHANGED = "the document changed since this plan was computed — re-run {tool}"

# --- schemas ---------------------------------------------------------------------------------

PATH = {"type": "string", "description": "A document on disk, relative to the server's working directory. "
                                         "Give this or `content`, not both."}
CONTENT = {"type": "string", "description": "The document itself, as Markdown text (nothing is read from disk; "
                                            "imports and chart targets cannot resolve). Give this or `path`."}
STRINGS = {"type": "array", "items": {"type": "string"}}
ERROR = {
    "type": "object",
    "properties": {"code": {"enum": ["USAGE", "READ", "SCENARIO", "WRITE"]}, "message": {"type": "string"}},
    "required": ["code", "message"],
}
SKIPPED = {
    "type": "object",
    "description": "what a `content` document cannot resolve; {} when nothing was skipped",
    "properties": {"imports": STRINGS, "charts": STRINGS},
}
FINDING = {
    "type": "object",
    "properties": {
        "code": {"type": "string"},
        "class": {"enum": ["problem", "advice"]},
        "location": {"type": "object"},
        "details": {"type": "object"},
    },
    "required": ["code", "class", "location", "details"],
}
FINDINGS = {"type": "array", "items": FINDING}
COUNTS = {
    "type": "object",
    "properties": {"problems": {"type": "integer"}, "stale": {"type": "integer"}, "errors": {"type": "integer"}},
    "required": ["problems", "stale", "errors"],
}
EDIT = {
    "type": "object",
    "properties": {
        "start": {"type": "integer", "minimum": 0, "description": "UTF-8 byte offset in the source"},
        "end": {"type": "integer", "minimum": 0, "description": "UTF-8 byte offset in the source (exclusive)"},
        "text": {"type": "string"},
        "code": {"type": "string", "description": "the finding the edit resolves"},
    },
    "required": ["start", "end", "text", "code"],
    "additionalProperties": True,
}
SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "SHA-256 of the source, hex"}


def envelope_schema(command: str, body: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    """The output schema of a tool: the envelope's head plus ``body`` (required only on success)."""
    return {
        "type": "object",
        "properties": {
            "command": {"const": command},
            "visimark": {"type": "string", "description": "the engine version"},
            "status": {"enum": ["ok", "problems", "error"]},
            "error": ERROR,
            **body,
        },
        "required": ["command", "visimark", "status", *required],
    }


CHECK_OUTPUT = envelope_schema("check", {
    "files": {"type": "array", "items": {"type": "object", "properties": {
        "path": {"type": "string"}, "findings": FINDINGS, "summary": COUNTS}, "required": ["path", "findings", "summary"]}},
    "summary": {"type": "object", "properties": {"files": {"type": "integer"}, "problems": {"type": "integer"},
                                                  "stale": {"type": "integer"}, "errors": {"type": "integer"}}},
    "skipped": SKIPPED,
}, ["files", "summary", "skipped"])
EVAL_OUTPUT = envelope_schema("eval", {
    "file": {"type": "string"},
    "scenario": {"type": "object"},
    "values": {"type": "object", "additionalProperties": {"type": ["string", "array"],
                                                          "items": {"type": ["string", "null"]}}},
    "units": {"type": "object"},
    "uncomputed": {"type": "object", "additionalProperties": {
        "type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                                         "cause": {"type": "string"}}, "required": ["code", "message"]}},
    "assertions": {"type": "array", "items": {"type": "object"}},
    "charts": {"type": "array"},
    "skipped": SKIPPED,
}, ["file", "values", "units", "uncomputed", "assertions", "charts", "skipped"])
EXPLAIN_OUTPUT = envelope_schema("explain", {
    "file": {"type": "string"},
    "documentScope": {"type": "array"},
    "sheets": {"type": "array", "items": {"type": "object"}},
    "skipped": SKIPPED,
}, ["file", "sheets", "skipped"])
PROPOSAL = {
    "type": "object",
    "properties": {
        "kind": {"enum": ["column", "alias", "scalar", "constant", "near-miss", "ambiguous", "alternative"]},
        "sheet": {"type": "string"}, "name": {"type": "string"}, "rule": {"type": "string"},
        "fits": {"type": "integer"}, "rows": {"type": "integer"}, "weak": {"type": "boolean"},
    },
    "required": ["kind", "sheet", "name", "rule", "fits", "rows", "weak"],
}
WOULD_WRITE = {"type": "object", "properties": {"blocks": {"type": "integer"}, "anchors": {"type": "integer"},
                                                "marker": {"type": "boolean"}}}
INFER_OUTPUT = envelope_schema("infer", {
    "files": {"type": "array", "items": {"type": "object", "properties": {
        "path": {"type": "string"}, "proposals": {"type": "array", "items": PROPOSAL},
        "leftAlone": {"type": "string"}}, "required": ["path", "proposals"]}},
    "summary": {"type": "object"},
    "sha256": SHA256,
    "wouldWrite": WOULD_WRITE,
    "skipped": SKIPPED,
    "applied": {"const": False},
}, ["files", "summary", "sha256", "wouldWrite", "skipped", "applied"])
FMT_OUTPUT = envelope_schema("fmt", {
    "file": {"type": "string"},
    "sha256": SHA256,
    "edits": {"type": "array", "items": EDIT},
    "cellsUpdated": {"type": "integer"},
    "anchorsUpdated": {"type": "integer"},
    "stampsUpdated": {"type": "integer"},
    "artifactsWouldWrite": STRINGS,
    "findings": FINDINGS,
    "summary": COUNTS,
    "skipped": SKIPPED,
    "applied": {"const": False},
}, ["file", "sha256", "edits", "cellsUpdated", "anchorsUpdated", "artifactsWouldWrite", "skipped", "applied"])
REF_OUTPUT = envelope_schema("ref", {"functions": {"type": "array"}, "function": {"type": "object"}})
FMT_APPLY_OUTPUT = envelope_schema("fmt", {
    "file": {"type": "string"}, "sha256": SHA256, "changed": {"type": "boolean"},
    "cellsUpdated": {"type": "integer"}, "anchorsUpdated": {"type": "integer"},
    "stampsUpdated": {"type": "integer"}, "artifacts": STRINGS,
    "findings": FINDINGS, "summary": COUNTS, "applied": {"const": True},
}, ["file", "sha256", "changed", "cellsUpdated", "anchorsUpdated", "artifacts", "findings", "summary", "applied"])
NOT_WRITTEN = {"type": "array", "items": {"type": "object", "properties": {
    "kind": {"type": "string"}, "sheet": {"type": "string"}, "name": {"type": "string"}, "rule": {"type": "string"},
    "reason": {"type": "string"}}, "required": ["kind", "sheet", "name", "rule", "reason"]},
    "description": "the plan's proposals that were not written, each with the reason"}
INFER_APPLY_OUTPUT = envelope_schema("infer", {
    "file": {"type": "string"}, "sha256": SHA256, "changed": {"type": "boolean"}, "written": WOULD_WRITE,
    "notWritten": NOT_WRITTEN, "applied": {"const": True},
}, ["file", "sha256", "changed", "written", "notWritten", "applied"])


def read_input(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": {"path": PATH, "content": CONTENT, **(extra or {})},
            "additionalProperties": False}


PLAN_PATH = {"type": "string", "description": "The document the plan was computed for (a file inside a root)."}
FMT_PLAN = {
    "type": "object",
    "description": "The result of visimark_fmt for this path, passed back (edits may be left out, none added).",
    "properties": {"sha256": SHA256, "edits": {"type": "array", "items": EDIT}, "artifactsWouldWrite": STRINGS},
    "required": ["sha256", "edits"],
    "additionalProperties": True,
}
INFER_PLAN = {
    "type": "object",
    "description": "The result of visimark_infer for this path, passed back; remove the proposals you reject "
                   "(from its one file's `proposals`, or give a top-level `proposals`).",
    "properties": {
        "sha256": SHA256,
        "proposals": {"type": "array", "items": {"type": "object", "additionalProperties": True}},
        "files": {"type": "array", "items": {"type": "object", "additionalProperties": True}},
        "wouldWrite": {"type": "object", "additionalProperties": True},
    },
    "required": ["sha256"],
    "additionalProperties": True,
}

# --- errors, sources, the write gate -------------------------------------------------------------


def fail(command: str, code: str, message: str) -> ToolError:
    from markmcp.visimark.envelopes import error_envelope

    return ToolError(message, data=error_envelope(command, code, message))


def _reason(error: FileAccessError, label: str) -> str:
    from markmcp.visimark.documents import reason

    return reason(error, label)


def _source(command: str, args: dict[str, Any], ctx: CallContext):
    """(label, text, folder) of the document a read tool is asked about; the folder (the
    engine's file port) is None for a document given as content."""
    from markmcp.visimark.disk import DocumentFolder

    if ("path" in args) == ("content" in args):
        which = "both were given" if "path" in args else "neither was given"
        raise fail(command, "USAGE", f"visimark: give either `path` or `content` — {which}")
    if "content" in args:
        text = args["content"]
        if len(text) > files.MAX_FILE_BYTES:
            raise fail(command, "USAGE", f"visimark: `content` is over the {files.MAX_FILE_BYTES}-byte limit")
        return CONTENT_LABEL, text, None
    given = args["path"]
    text = _read(command, given, ctx, "document", "READ")
    # the folder of the file itself (symlinks resolved), which lies inside the allowed folders
    return given, text, DocumentFolder(ctx.places().resolve(given, ctx.cwd))


def _read(command: str, given: str, ctx: CallContext, what: str, code: str) -> str:
    try:
        full = os.path.join(ctx.cwd, files.check_argument(given))
        return files.read_text(full, places=ctx.places(), what=what, label=given)
    except FileAccessError as error:
        if error.code == "invalid-path":
            raise fail(command, "USAGE", f"visimark: {error.message}") from None
        raise fail(command, code, f"visimark: cannot read {files.shown(given)} ({_reason(error, given)})") from None


def _guard(command: str, function, *args):
    """Run an engine function; a document nested beyond the evaluator's depth is a USAGE error."""
    from markmcp.visimark.envelopes import CommandError

    try:
        return function(*args)
    except CommandError as error:
        raise fail(command, error.code, error.message) from None
    except RecursionError:
        raise fail(command, "USAGE", "visimark: the document nests too deeply to evaluate") from None


def _writable(command: str, given: str, ctx: CallContext) -> tuple[Path, Places]:
    """The write gate, decided before anything is read: the file a tool may write, and the roots."""
    if not ctx.allow_write:
        raise fail(command, "WRITE", WRITES_DISABLED)
    if not ctx.roots:
        raise fail(command, "WRITE", no_roots(ctx.hint))
    roots = writable_places(ctx, given)
    try:
        return roots.resolve(given, ctx.cwd), roots
    except FileAccessError as error:
        code = "USAGE" if error.code == "invalid-path" else "WRITE"
        raise fail(command, code, f"visimark: cannot write {files.shown(given)}: {error.message}") from None


def _read_for_apply(command: str, target: Path, given: str, roots: Places) -> tuple[bytes, str]:
    try:
        data = files.read_bytes(target, places=roots, what="document", label=given)
        return data, files.decode_utf8(data, given, "document")
    except FileAccessError as error:
        raise fail(command, "READ", f"visimark: cannot read {files.shown(given)} ({_reason(error, given)})") from None


def _write(command: str, target: Path, data: bytes, given: str, roots: Places) -> None:
    try:
        files.write_atomic(target, data, places=roots, follow=True)
    except FileAccessError as error:
        raise fail(command, "WRITE", f"visimark: cannot write {files.shown(given)} ({_reason(error, given)})") from None


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


# --- the read tools ----------------------------------------------------------------------------------


def check_tool(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.visimark.envelopes import check_envelope

    label, text, folder = _source("check", args, ctx)
    body, _, skipped = _guard("check", check_envelope, label, text, folder)
    return {**body, "skipped": skipped}


def eval_tool(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.visimark.envelopes import eval_envelope

    if "scenarioPath" in args and "scenarioContent" in args:
        raise fail("eval", "USAGE", "visimark: give either `scenarioPath` or `scenarioContent` — both were given")
    label, text, folder = _source("eval", args, ctx)
    scenario = None
    if "scenarioPath" in args:
        given = args["scenarioPath"]
        scenario = (given, _read("eval", given, ctx, "scenario", "SCENARIO"))
    elif "scenarioContent" in args:
        scenario = (CONTENT_LABEL, args["scenarioContent"])
    body, skipped = _guard("eval", eval_envelope, label, text, folder, args.get("get"), scenario)
    return {**body, "skipped": skipped}


def explain_tool(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.visimark.envelopes import explain_envelope

    label, text, folder = _source("explain", args, ctx)
    sheets = [args["sheet"].removeprefix("#")] if "sheet" in args else []
    body, _, skipped = _guard("explain", explain_envelope, label, text, sheets, folder)
    return {**body, "skipped": skipped}


def infer_tool(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.visimark.infer import infer, plan
    from markmcp.visimark.infer_report import file_json
    from markmcp.visimark.envelopes import envelope, sha256

    label, text, folder = _source("infer", args, ctx)
    inference = _guard("infer", infer, text)
    skipped: dict[str, list[str]] = {}  # infer reads no import and compares no chart
    counts = inference.count()
    inserts = plan(inference)
    return envelope(
        "infer", "ok", files=[file_json(label, inference)],
        summary={"files": 1, "rules": counts["rules"], "scalars": counts["scalars"], "anchors": counts["anchors"]},
        sha256=sha256(text),
        wouldWrite={"blocks": sum(1 for i in inserts if i.kind == "block"),
                    "anchors": sum(1 for i in inserts if i.kind == "anchor"),
                    "marker": any(i.kind == "marker" for i in inserts)},
        skipped=skipped, applied=False,
    )


def fmt_tool(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.visimark.envelopes import fmt_plan

    label, text, folder = _source("fmt", args, ctx)
    return _guard("fmt", fmt_plan, label, text, folder).body


def ref_tool(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    from markmcp.visimark.envelopes import ref_envelope

    body, _ = _guard("ref", ref_envelope, args.get("name"))
    return body


# --- the apply tools ------------------------------------------------------------------------------------


def fmt_apply_tool(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Apply a ``visimark_fmt`` plan: exactly its edits and artifacts, to exactly the source it
    was made from; the artifacts first, the document last."""
    from markmcp.visimark.charts import owner
    from markmcp.visimark.check import check
    from markmcp.visimark.disk import DocumentFolder
    from markmcp.visimark.envelopes import envelope, fmt_plan, splice, status_of
    from markmcp.visimark.findings import count
    from markmcp.visimark.model import build
    from markmcp.visimark.port import PortError
    from markmcp.visimark.report import findings_json

    given = args["path"]
    plan = args["plan"]
    target, roots = _writable("fmt", given, ctx)
    with _locked("fmt", target, roots, given):
        data, src = _read_for_apply("fmt", target, given, roots)
        if plan["sha256"] != _sha(data):
            raise fail("fmt", "WRITE", _mismatch(plan.get("file"), target, given, ctx, "visimark_fmt"))
        folder = DocumentFolder(target)
        fresh_plan = _guard("fmt", fmt_plan, given, src, folder)
        fresh = {(e.start, e.end, e.text): e for e in fresh_plan.edits}
        chosen = {}
        for edit in plan["edits"]:
            key = (edit["start"], edit["end"], edit["text"])
            if key not in fresh:
                raise fail("fmt", "WRITE", f"the plan holds an edit visimark_fmt did not plan for this document "
                                           f"(bytes {edit['start']}–{edit['end']}); re-run visimark_fmt")
            chosen[key] = fresh[key]
        # artifacts cannot travel in a plan: re-derived from the proven-identical source, and
        # the two sets compared in both directions
        named = set(plan.get("artifactsWouldWrite") or [])
        derived = set(fresh_plan.artifacts)
        if named - derived:
            raise fail("fmt", "WRITE", "the plan names artifacts this run would not write (something appeared "
                                       "there, or it stopped being VisiMark's): " + ", ".join(sorted(named - derived))
                       + "; re-run visimark_fmt")
        if derived - named:
            raise fail("fmt", "WRITE", "this run would write artifacts the plan does not name: "
                       + ", ".join(sorted(derived - named)) + "; re-run visimark_fmt")
        charts = {c.path: (c.sheet, c.name) for c in (fresh_plan.result.result.charts if fresh_plan.result.result
                                                       else []) if c.path}
        for rel in sorted(derived):
            real = Path(os.path.realpath(folder.base / rel))
            if not roots.holds(real):
                raise fail("fmt", "WRITE", f"visimark: cannot write {files.shown(rel)}: it resolves to "
                                           f"{files.shown(real)}, outside the roots")
            try:
                now = folder.read(rel)
            except PortError as error:
                raise fail("fmt", "WRITE", f"visimark: cannot write {files.shown(rel)} ({error.message})") from None
            if now is not None and owner(now) != charts.get(rel):
                raise fail("fmt", "WRITE", f"visimark: cannot write {files.shown(rel)}: the file there is not "
                                           "VisiMark's to overwrite; nothing was written")
        for rel in sorted(derived):  # every refusal is decided: the artifacts, then the document
            try:
                folder.write(rel, fresh_plan.artifacts[rel])
            except PortError as error:
                raise fail("fmt", "WRITE", f"visimark: cannot write {files.shown(rel)} ({error.message}); "
                                           "the document was not changed") from None
        out = splice(data, list(chosen.values())) if chosen else data
        if chosen:
            _write("fmt", target, out, given, roots)
        text = out.decode("utf-8")
        result = _guard("fmt", lambda: check(build(text), folder))
    stale, errors = count(result.findings)
    applied = list(chosen.values())
    return envelope(
        "fmt", status_of(result.exit_code), file=given, sha256=_sha(out), changed=bool(applied),
        cellsUpdated=sum(1 for e in applied if e.kind == "cell"),
        anchorsUpdated=sum(1 for e in applied if e.kind == "anchor"),
        stampsUpdated=sum(1 for e in applied if e.kind == "stamp"), artifacts=sorted(derived),
        findings=findings_json(result.findings, given, text),
        summary={"problems": stale + errors, "stale": stale, "errors": errors}, applied=True,
    )


def _plan_path(plan: Mapping[str, Any]) -> Any:
    """The document an ``infer`` plan names (its one file's ``path``), or None."""
    plan_files = plan.get("files")
    if isinstance(plan_files, list) and len(plan_files) == 1 and isinstance(plan_files[0], dict):
        return plan_files[0].get("path")
    return None


def _mismatch(planned: Any, target: Path, given: str, ctx: CallContext, tool: str) -> str:
    """Why a plan's digest does not match the file: it was computed for another document
    (the plan names it), for a document given as content, or this one has changed since."""
    if planned == CONTENT_LABEL:
        return (f"this plan was computed for a document given as `content`, and {given} is not that text — "
                f"run {tool} with `path` {given} and apply that plan")
    if isinstance(planned, str) and planned:
        try:
            same = (ctx.cwd / planned).resolve() == target.resolve()
        except (OSError, ValueError):
            same = planned == given
        if not same:
            return f"this plan is for {planned}, not {given} — run {tool} on {given} and apply that plan"
    return CHANGED.format(tool=tool)


def _plan_proposals(plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    if isinstance(plan.get("proposals"), list):
        items = plan["proposals"]
    else:
        plan_files = plan.get("files")
        if not isinstance(plan_files, list) or len(plan_files) != 1 or not isinstance(plan_files[0], dict):
            raise fail("infer", "USAGE", "visimark: the plan has no `proposals` (give visimark_infer's result, "
                                         "with its one file's proposals, or a top-level `proposals`)")
        items = plan_files[0].get("proposals")
        if not isinstance(items, list):
            raise fail("infer", "USAGE", "visimark: the plan's file has no `proposals` list")
    return [p for p in items if isinstance(p, dict)]


WRITTEN_KINDS = ("column", "alias", "scalar")


def infer_apply_tool(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Insert the proposals left in a ``visimark_infer`` plan (and nothing else)."""
    from markmcp.visimark.check import check
    from markmcp.visimark.infer import apply, infer, not_written, plan as plan_inserts, select_plan
    from markmcp.visimark.locate import NO_FORMULAS_MARKER
    from markmcp.visimark.model import build
    from markmcp.visimark.envelopes import envelope

    given = args["path"]
    plan = args["plan"]
    target, roots = _writable("infer", given, ctx)
    kept = _plan_proposals(plan)
    keys = []  # what the plan asks to write
    told = []  # what else it holds: reported, never written; each is named in notWritten
    for p in kept:
        key = (p.get("kind"), p.get("sheet"), p.get("name"), p.get("rule"))
        writes = p.get("kind") in WRITTEN_KINDS and not p.get("weak")
        if not all(isinstance(part, str) for part in key):
            if writes:
                raise fail("infer", "USAGE", "visimark: a proposal in the plan lacks its kind, sheet, name or rule")
            continue
        (keys if writes else told).append(key)
    wants_marker = (plan.get("wouldWrite") or {}).get("marker") is True
    with _locked("infer", target, roots, given):
        data, src = _read_for_apply("infer", target, given, roots)
        if plan["sha256"] != _sha(data):
            raise fail("infer", "WRITE", _mismatch(_plan_path(plan), target, given, ctx, "visimark_infer"))
        inference = _guard("infer", infer, src)
        found, held, missing = select_plan(inference, keys)
        _, reported, unknown = select_plan(inference, told)
        missing = missing or unknown  # a proposal altered (its kind too) is refused, never dropped
        if missing:
            kind, sheet, name, rule = missing[0]
            raise fail("infer", "WRITE", f"the plan holds a proposal visimark_infer did not make for this document "
                                         f"({kind} {sheet}.{name}: {rule}); re-run visimark_infer")
        if wants_marker and not keys:
            if not inference.marker:
                raise fail("infer", "WRITE", f"the {NO_FORMULAS_MARKER} marker is written only when infer finds "
                                             "nothing whatsoever to derive; re-run visimark_infer")
            inserts = plan_inserts(inference)
        else:
            inserts = plan_inserts(inference, only=found)
        out_text = apply(src, inserts)
        if inserts:
            result = _guard("infer", lambda: check(build(out_text)))
            broken = [f for f in result.findings if f.is_problem and f.code != "COVERAGE"]
            if broken:
                f = broken[0]
                raise fail("infer", "WRITE", f"the plan, as left, would write a document with problems "
                                             f"({f.code} {f.ident}: {f.message or 'see visimark_check'}); "
                                             "keep the proposals the kept ones depend on")
            _write("infer", target, out_text.encode("utf-8"), given, roots)
    written = {"blocks": sum(1 for i in inserts if i.kind == "block"),
               "anchors": sum(1 for i in inserts if i.kind == "anchor"),
               "marker": any(i.kind == "marker" for i in inserts)}
    return envelope("infer", "ok", file=given, sha256=_sha(out_text.encode("utf-8")), changed=bool(inserts),
                    written=written, notWritten=not_written(inference, inserts, found + held + reported),
                    applied=True)


class _locked:
    """The writer's lock of the target (a FileAccessError becomes a WRITE tool error)."""

    def __init__(self, command: str, target: Path, roots: Places, given: str) -> None:
        self.command, self.target, self.roots, self.given = command, target, roots, given
        self.held = None

    def __enter__(self) -> None:
        try:
            self.held = files.locked(self.target, places=self.roots)
            self.held.__enter__()
        except FileAccessError as error:
            raise fail(self.command, "WRITE",
                       f"visimark: cannot lock {files.shown(self.given)} ({_reason(error, self.given)})") from None

    def __exit__(self, *exc: object) -> None:
        assert self.held is not None
        self.held.__exit__(*exc)


# --- resources and prompts -----------------------------------------------------------------------------


def _doc(name: str):
    def read(ctx: CallContext) -> str:
        from markmcp.visimark import docs

        return docs.doc_text(name)

    return read


def _skill(ctx: CallContext) -> str:
    from markmcp.visimark import docs

    return docs.doc_text(docs.SERVED_SKILL)


RESOURCES = [
    Resource("visimark://skill", "skill", "The VisiMark authoring discipline and language summary, for an agent "
             "using this server — read this first", "text/markdown", _skill, title="VisiMark skill"),
    Resource("visimark://cli-reference", "cli-reference", "Every command, option, exit code and finding",
             "text/markdown", _doc("cli-reference.md"), title="VisiMark command reference"),
    Resource("visimark://function-reference", "function-reference", "The builtin functions: signatures, widths, "
             "units, errors and examples", "text/markdown", _doc("function-reference.md"),
             title="VisiMark function reference"),
    Resource("visimark://example/invoice", "example-invoice", "A complete worked invoice that checks clean",
             "text/markdown", _doc("example-invoice.md"), title="Worked invoice"),
    Resource("visimark://example/drift", "example-drift", "The same invoice after inputs changed and nothing "
             "derived from them was updated (its appendix holds the check report)", "text/markdown",
             _doc("example-invoice-drift.md"), title="Drifted invoice"),
]

PATH_ARGUMENT = PromptArgument("path", "The document to work on (optional)")


def _about(arguments: Mapping[str, str]) -> str:
    path = arguments.get("path")
    return f"the document `{path}`" if path else "the document"


def _take_over(arguments: Mapping[str, str]) -> str:
    doc = _about(arguments)
    return "\n".join([
        f"Adopt {doc} into VisiMark. It already has its numbers; your job is to find the rules they follow, "
        "not to invent them. In this order:",
        "1. `visimark_check` it. `COVERAGE` means it has tables and no rules yet.",
        "2. `visimark_infer` it FIRST. Never hand-author rules for a document that already has its numbers: a "
        "rule typed to match numbers proves nothing; infer derives rules from the numbers and verifies each one "
        "on every row.",
        "3. Read the plan. A `near-miss` is a rule every row but one obeys: the document has a wrong number in "
        "that row — tell the user, do not 'fix' it silently. `ambiguous` and `alternative` entries are choices "
        "infer refused to make; `weak` ones rest on two rows. Drop from the plan any proposal you reject.",
        "4. `visimark_infer_apply` with the path and the plan. Then `visimark_check`: it must be clean.",
        "5. Probe: pass the written document as `content` to `visimark_check` with one input cell changed; the "
        "numbers that depend on it must turn STALE. Do not save that probe.",
        "Read `visimark://skill` for the language and the discipline.",
    ])


def _author(arguments: Mapping[str, str]) -> str:
    doc = _about(arguments)
    return "\n".join([
        f"Write {doc} as VisiMark, in this order — each step needs the one before it:",
        "1. The table: input columns with their real values; leave computed cells as placeholders.",
        "2. The `vmark` block right under the table: one rule per computed column, scalars for totals, "
        "`precision N` where a division or average has no natural width, units in brackets after names.",
        "3. Anchors: in the prose, seed each figure with `**_**<!--vmark=sheet.name-->`. Never type a computed "
        "number by hand.",
        "4. The prose around the anchors.",
        "5. `visimark_fmt`, review the plan, `visimark_fmt_apply`; then `visimark_check` until it is clean.",
        "6. Probe: change one input (as `content` in `visimark_check`) and watch the dependent numbers turn "
        "STALE; do not save the probe.",
        "`visimark://skill` has the language; `visimark_ref` describes a function.",
    ])


PROMPTS = [
    Prompt("visimark/take-over", "Take over a document that has numbers but no rules",
           "Adopt an existing document: infer its rules first, never hand-author them", _take_over,
           (PATH_ARGUMENT,)),
    Prompt("visimark/author", "Author a new VisiMark document",
           "Write a new document: table, vmark block, anchors, prose, then fmt", _author, (PATH_ARGUMENT,)),
]

# --- the server ---------------------------------------------------------------------------------------------

CONTENT_NOTE = " In `content` mode nothing is read from disk, so imports and chart targets are listed in `skipped`."

TOOLS = [
    Tool("visimark_check", "Check a VisiMark document",
         "Recompute every rule, compare every written number and evaluate every assert. A document with problems "
         "is a successful call with status `problems` and the findings (STALE values `visimark_fmt` repairs; "
         "errors to fix by hand); only a request that cannot run is a tool error." + CONTENT_NOTE,
         read_input(), CHECK_OUTPUT, check_tool, read_only=True, idempotent=True),
    Tool("visimark_eval", "Evaluate a VisiMark document",
         "Every computed value (decimal strings), units and assertions; a declared value that could not be computed "
         "is listed under `uncomputed` with its reason (`check` has the findings); `get` picks one value (`sheet.name`, or a "
         "bare name when unambiguous); `scenarioPath` or `scenarioContent` (a JSON object of param names to number "
         "strings) replaces param defaults without writing anything.",
         read_input({"get": {"type": "string", "description": "one value to return"},
                     "scenarioPath": {"type": "string", "description": "a scenario JSON file"},
                     "scenarioContent": {"type": "string", "description": "a scenario as JSON text"}}),
         EVAL_OUTPUT, eval_tool, read_only=True, idempotent=True),
    Tool("visimark_explain", "Explain a VisiMark document's sheets",
         "Each sheet's inputs, column rules, scalars, params, assertions and evaluation order; `sheet` limits it "
         "to one sheet.",
         read_input({"sheet": {"type": "string", "description": "a sheet id (`lines` or `#lines`)"}}),
         EXPLAIN_OUTPUT, explain_tool, read_only=True, idempotent=True),
    Tool("visimark_infer", "Infer the rules of a plain document (plan)",
         "For a document with tables and no rules: the column rules, aliases, totals and anchors its numbers "
         "already follow, each verified on every row; near-misses name a row that disagrees. Writes nothing: "
         "pass the result (minus proposals you reject) to `visimark_infer_apply`.",
         read_input(), INFER_OUTPUT, infer_tool, read_only=True, idempotent=True),
    Tool("visimark_fmt", "Plan the repair of stale values",
         "The edits `fmt` would make — only stale computed cells, anchored values and import stamps, never "
         "prose, inputs or rules — as UTF-8 byte spans, with the SHA-256 of the source, and the chart artifacts "
         "it would write. Writes nothing: pass the result to `visimark_fmt_apply`." + CONTENT_NOTE,
         read_input(), FMT_OUTPUT, fmt_tool, read_only=True, idempotent=True),
    Tool("visimark_ref", "Describe a builtin function",
         "The reference entry of one builtin (`name`, upper case) or, without a name, of all of them. Reads no file.",
         {"type": "object", "properties": {"name": {"type": "string", "description": "a function name, e.g. SUM"}},
          "additionalProperties": False},
         REF_OUTPUT, ref_tool, read_only=True, idempotent=True),
    Tool("visimark_fmt_apply", "Apply a fmt plan",
         "Writes the plan from `visimark_fmt` into the file: exactly its edits (leave one out and it is not "
         "applied; an edit `fmt` did not plan is refused) and its chart artifacts (first; a refused one leaves "
         "the document unchanged), and only if the file is byte for byte the source the plan was computed from. "
         "Needs --allow-write and a declared root; atomic.",
         {"type": "object", "properties": {"path": PLAN_PATH, "plan": FMT_PLAN}, "required": ["path", "plan"],
          "additionalProperties": False},
         FMT_APPLY_OUTPUT, fmt_apply_tool, destructive=True),
    Tool("visimark_infer_apply", "Apply an infer plan",
         "Inserts the proposals left in the plan from `visimark_infer` (a `vmark` block after each table, an "
         "anchor after each matched figure) and nothing else, only if the file is unchanged since the plan. "
         "`notWritten` names each proposal of the plan that was not written, with the reason. "
         "An emptied plan inserts nothing. Needs --allow-write and a declared root; atomic.",
         {"type": "object", "properties": {"path": PLAN_PATH, "plan": INFER_PLAN}, "required": ["path", "plan"],
          "additionalProperties": False},
         INFER_APPLY_OUTPUT, infer_apply_tool, destructive=True),
]

INSTRUCTIONS = (
    "VisiMark keeps a Markdown document's arithmetic next to its numbers: `vmark` blocks under tables state the "
    "rules, anchors tie prose figures to values. Read visimark://skill first. Check with visimark_check (a "
    "document with problems is a normal result, status `problems`). To repair stale numbers: visimark_fmt (a "
    "plan), then visimark_fmt_apply. To adopt a document that has numbers but no rules: visimark_infer first, "
    "never hand-written rules, then visimark_infer_apply. Documents may be given as `path` or `content`; a "
    f"`path` is read in {READABLE}. Writes need the server started with --allow-write and a declared root "
    "(--root or a client root; the working directory alone is not one)."
)

SPEC = ServerSpec(
    name=SERVER_NAME,
    version=PACKAGE_VERSION,
    instructions=INSTRUCTIONS,
    tools=TOOLS,
    resources=RESOURCES,
    prompts=PROMPTS,
    default_port=DEFAULT_PORT,
    prog="visimark-mcp",
    preload=ENGINE_MODULES,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``visimark-mcp``."""
    return serve(SPEC, argv)


if __name__ == "__main__":
    sys.exit(main())
