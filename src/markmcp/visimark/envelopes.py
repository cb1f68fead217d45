"""The commands' results as the JSON envelope — text in, envelopes out.

``visimark --json`` and the ``visimark-mcp`` tools answer in one contract: ``command``,
``visimark`` (the engine version), ``status`` (``ok`` / ``problems`` / ``error``), an
``error`` object only on ``error``, then the command's body.  The server builds its
results here; the CLI shares the pieces (``eval_values``, ``eval_units``, ``params_json``,
``scenario_json``...) and a test holds the two to the same JSON for every command.

Nothing here opens a file: a document's folder (charts, imports) is reached through the
:class:`~markmcp.visimark.port.Files` the caller passes, or not at all (``None``: a
document given as content, whose imports and charts are then reported as ``skipped``).

This module also holds what only the server needs: the ``fmt`` plan (every edit as UTF-8
byte offsets into the source it was computed from, with that source's SHA-256, and the
artifacts it would write) and :class:`PlanFiles`, which lets ``fmt`` run without writing.
"""

from __future__ import annotations

from dataclasses import dataclass

from markmcp import __version__

from .check import CheckResult, Edit, check
from .findings import count
from .model import Model, build
from .port import Files
from .findings import Finding
from .report import findings_json, format_check, text_message
from .results import IMPORT_FAILED
from .units import map_to_json
from .values import canonical
from .write import MAX_PASSES, FmtResult, apply_edits, fmt

CONTENT_LABEL = "<content>"


class CommandError(Exception):
    """A request that could not run (the CLI's exit 2): ``code`` is ``USAGE``, ``READ``,
    ``SCENARIO`` or ``WRITE``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def envelope(command: str, status: str, **body) -> dict:
    return {"command": command, "visimark": __version__, "status": status, **body}


def error_envelope(command: str, code: str, message: str) -> dict:
    return envelope(command, "error", error={"code": code, "message": message})


def status_of(exit_code: int) -> str:
    return {0: "ok", 1: "problems"}.get(exit_code, "error")


def sha256(text: str) -> str:
    import hashlib  # only the envelopes that carry a digest need it

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- what a document without a folder cannot resolve ----------------------------------------------


def skipped_of(model: Model, result: CheckResult) -> dict[str, list[str]]:
    """``skipped`` of a document checked without its folder: the sheets whose CSV import
    could not be read and the charts whose SVG could not be compared (an empty arm is
    left out; ``{}`` when nothing was skipped)."""
    imports = [sheet.id for sheet in model.sheets.values()
               if sheet.import_decl is not None and sheet.import_decl.state == "skipped"]
    charts = [f"{c.sheet}.{c.name}" for c in result.charts if c.state == "skipped"]
    out: dict[str, list[str]] = {}
    if imports:
        out["imports"] = imports
    if charts:
        out["charts"] = charts
    return out


# --- check ----------------------------------------------------------------------------------------------


def check_file(label: str, result: CheckResult, src: str) -> dict:
    stale, errors = count(result.findings)
    return {"path": label, "findings": findings_json(result.findings, label, src),
            "summary": {"problems": stale + errors, "stale": stale, "errors": errors}}


def check_envelope(label: str, src: str, files: Files | None) -> tuple[dict, str, dict]:
    """``check``'s envelope for one document, its text report, and what was skipped."""
    model = build(src)
    result = check(model, files)
    entry = check_file(label, result, src)
    totals = entry["summary"]
    body = envelope("check", status_of(result.exit_code), files=[entry],
                    summary={"files": 1, **totals})
    return body, format_check(label, result.findings), skipped_of(model, result)


# --- eval ------------------------------------------------------------------------------------------------


def eval_values(result: CheckResult) -> dict:
    """``values``: scalars in evaluation order, then columns; decimal strings."""
    out: dict[str, object] = {}
    for node in result.order:
        if node.kind == "scalar" and node.id in result.values:
            out[node.id] = canonical(result.values[node.id])
    for node in result.order:
        if node.kind == "column" and node.id in result.cells:
            out[node.id] = [None if v is None else canonical(v) for v in result.cells[node.id]]
    return out


def eval_units(result: CheckResult) -> dict:
    """Every evaluated name with a unit, then declared input columns."""
    out = {}
    for node in result.order:
        u = result.units.get(node.id)
        if u and (node.id in result.values or node.id in result.cells):
            out[node.id] = u
    for k, u in result.input_units.items():
        out.setdefault(k, u)
    return out


def domain_params(model: Model) -> list:
    return [n for n in model.nodes if n.kind == "scalar" and n.binding.param is not None
            and n.binding.param.clause.shown]


def params_block(model: Model) -> list[str]:
    """``params:``: every param that declares a domain, with its lattice (nothing when none does)."""
    rows = domain_params(model)
    if not rows:
        return []
    width = max(len(n.id) for n in rows)
    out = ["params:"]
    for n in rows:
        clause = n.binding.param.clause
        out.append(f"  {n.id.ljust(width)}  {clause.shown}" + (f" lattice {clause.lattice}" if clause.lattice else ""))
    return out


def params_json(model: Model, scenario_info: dict | None) -> dict:
    from .explain import param_domain_json
    from .scenario import default_of

    out = {}
    for n in domain_params(model):
        default = canonical(default_of(n))
        value, source = default, "default"
        if scenario_info is not None and n.id in scenario_info["params"]:
            value, _, source = scenario_info["params"][n.id]
        out[n.id] = {"value": value, "default": default, "source": source, **param_domain_json(n)}
    return out


def scenario_json(info: dict, values: dict) -> dict:
    params = {pid: {"value": value, "default": default, "source": source}
              for pid, (value, default, source) in info["params"].items()}
    return {"file": info["file"], "params": params}


def uncomputed(model: Model, result: CheckResult) -> dict[str, dict]:
    """``uncomputed``: every declared value (scalar or column rule) that has no value,
    keyed like ``values``, with the code and message of what stopped it.  A value stopped
    by one it reads names that one as ``cause`` and carries the root reason, so an agent
    is sent to the binding that needs fixing and not to the name it asked for."""
    computed = set(result.values) | set(result.cells)
    nodes = {n.id: n for n in model.nodes if n.kind in ("scalar", "column")}
    own: dict[str, Finding] = {}
    for f in result.findings:
        if f.is_problem and f.code != "STALE" and f.code != "CYCLE":
            own.setdefault(f"{f.sheet}.{f.name}" if f.sheet else f.name or "", f)
        if f.code == "CYCLE":
            for nid in f.cycle_path:
                own.setdefault(nid, f)

    def why(nid: str, seen: frozenset[str]) -> tuple[str, str, str | None]:
        """(code, message, the binding whose own fault it is)."""
        f = own.get(nid)
        if f is not None:
            where = f" (row {f.row_label})" if f.row_label is not None else ""
            return f.code, _finding_text(f) + where, nid
        for dep in sorted(result.deps.get(nid, ()), key=lambda d: nodes[d].order if d in nodes else -1):
            if dep == IMPORT_FAILED:
                return "IMPORT", "it reads a sheet whose import could not be read", None
            if dep in nodes and dep not in computed and dep not in seen:
                code, message, root = why(dep, seen | {dep})
                return code, message, root or dep
        return "NOTE", "it was not evaluated; `visimark_check` lists the findings that stopped it", None

    out: dict[str, dict] = {}
    for nid, node in nodes.items():
        if nid in computed:
            continue
        code, message, root = why(nid, frozenset({nid}))
        entry = {"code": code, "message": message}
        if root is not None and root != nid:
            entry["cause"] = root
        out[nid] = entry
    return out


def _finding_text(f: Finding) -> str:
    if f.code == "CYCLE":
        return "it is part of a cycle: " + " → ".join(f.cycle_path)
    if f.code == "DATE" and f.raw is not None:
        return f"`{f.raw}` is not an ISO 8601 date"
    return text_message(f) or f.code


def uncomputed_text(name: str, entry: dict) -> str:
    """One line for a value that could not be computed: what, why, and where to look."""
    if "cause" in entry:
        return (f"{name} is declared but could not be computed: it reads {entry['cause']}, which could not be "
                f"computed ({entry['code']} {entry['message']})")
    return f"{name} is declared but could not be computed: {entry['code']} {entry['message']}"


def pick(values: dict, missing: dict, get: str) -> str:
    """The key of ``values`` (or of ``missing``) that ``get`` names: itself, or the one
    qualified name a bare name stands for.  Raises CommandError (``USAGE``) for a name the
    document does not declare, and for one it declares but could not compute, with why."""
    names = [*values, *(k for k in missing if k not in values)]
    if get in names:
        key: str | None = get
    else:
        hits = [k for k in names if k.rsplit(".", 1)[-1] == get]
        if len(hits) > 1:
            raise CommandError("USAGE", f"visimark: {get} is ambiguous: write one of " + ", ".join(hits))
        key = hits[0] if hits else None
    if key is not None and key in values:
        return key
    if key is not None:
        raise CommandError("USAGE", "visimark: " + uncomputed_text(key, missing[key]))
    raise CommandError("USAGE", f"visimark: no value named {get}")


def eval_envelope(label: str, src: str, files: Files | None, get: str | None = None,
                  scenario: tuple[str, str] | None = None) -> tuple[dict, dict]:
    """``eval``'s envelope and what was skipped; ``scenario`` is (its label, its JSON text).
    Raises CommandError (``SCENARIO`` for a scenario that cannot apply, ``USAGE`` for an
    unknown ``get``)."""
    from .scenario import ScenarioError, apply_scenario

    model = build(src)
    info = None
    if scenario is not None:
        try:
            info = apply_scenario(model, scenario[1], scenario[0])
        except ScenarioError as e:
            raise CommandError("SCENARIO", str(e)) from None
    result = check(model, files)
    values = eval_values(result)
    failed = [x for x in result.assertions if x.holds is False]
    exit_code = 1 if failed else 0
    defaults: list[bool | None] | None = None
    if info is not None and failed:
        defaults = [x.holds for x in check(build(src), files).assertions]
    key = None
    if get is not None:
        key = pick(values, uncomputed(model, result), get)
        selected = {get: values[key]}
    else:
        selected = values
    body = eval_body(label, model, result, info, values, selected, key, defaults)
    return envelope("eval", status_of(exit_code), **body), skipped_of(model, result)


def eval_body(label: str, model: Model, result: CheckResult, info: dict | None, values: dict, selected: dict,
              key: str | None, defaults: list[bool | None] | None) -> dict:
    """The fields of ``eval``'s envelope (the CLI's ``--json`` and the server's alike):
    ``selected`` the values shown, ``key`` the one asked for by ``get`` (None: all), and
    ``defaults`` each assertion's verdict without the scenario (None: no scenario ran)."""
    body: dict = {"file": label}
    if info is not None:
        body["scenario"] = scenario_json(info, values)
    body["values"] = selected
    units = eval_units(result)
    if key is None:
        body["units"] = {k: map_to_json(v) for k, v in units.items()}
        body["uncomputed"] = uncomputed(model, result)
    else:
        # keyed by the name as it was asked for, as `values` is; a value asked for by
        # name was computed (`get` on one that was not is refused, with the reason)
        asked = next(iter(selected))
        body["units"] = {asked: map_to_json(units[key])} if key in units else {}
        body["uncomputed"] = {}
    assertions = []
    for i, x in enumerate(result.assertions):
        entry = {"sheet": x.sheet, "source": x.source, "holds": x.holds, "operands": x.operands,
                 "substituted": x.substituted}
        if defaults is not None and x.holds is False:
            d = defaults[i] if i < len(defaults) else None
            entry["defaults"] = "pass" if d is True else "fail" if d is False else "unverified"
        assertions.append(entry)
    body["assertions"] = assertions
    body["charts"] = [c.json(with_state=info is None) for c in result.charts]
    params = params_json(model, info)
    if params:
        body["params"] = params
    return body


# --- explain and ref -------------------------------------------------------------------------------------------


def explain_envelope(label: str, src: str, sheets: list[str], files: Files | None) -> tuple[dict, str, dict]:
    from .explain import explain_json, explain_text
    from .suggest import closest

    model = build(src)
    for s in sheets:
        if s not in model.sheets:
            guess = closest(s, model.sheets)
            raise CommandError("USAGE", f"visimark: no sheet #{s}" + (f" — did you mean `#{guess}`?" if guess else ""))
    result = check(model, files)
    return (envelope("explain", "ok", file=label, **explain_json(model, result, sheets)),
            explain_text(model, result, sheets), skipped_of(model, result))


def ref_envelope(name: str | None) -> tuple[dict, str]:
    from .builtins import REGISTRY
    from .reference import describe, entry_json, listing
    from .suggest import closest

    if name is None:
        return envelope("ref", "ok", functions=[entry_json(b) for b in REGISTRY.values()]), listing()
    spec = REGISTRY.get(name)
    if spec is None:
        guess = name.upper() if name.upper() in REGISTRY else closest(name.upper(), REGISTRY, 3)
        raise CommandError("USAGE", f"visimark: unknown function `{name}`" + (f" — did you mean `{guess}`?" if guess else ""))
    return envelope("ref", "ok", function=entry_json(spec)), describe(spec)


# --- the fmt plan ----------------------------------------------------------------------------------------------


@dataclass
class PlannedEdit:
    """Replace bytes [start, end) of the source with ``text``; ``kind`` is cell, anchor or stamp."""

    start: int
    end: int
    text: str
    kind: str

    def public(self) -> dict:
        return {"start": self.start, "end": self.end, "text": self.text, "code": "STALE"}


def _length(segment: tuple) -> int:
    return segment[2] - segment[1] if segment[0] == "keep" else len(segment[1])


def _split(segments: list[tuple], at: int) -> int:
    """Make a segment boundary at text offset ``at``; the index of the segment starting there."""
    pos = 0
    for i, seg in enumerate(segments):
        if pos == at:
            return i
        size = _length(seg)
        if pos < at < pos + size:
            cut = at - pos
            if seg[0] == "keep":
                left, right = ("keep", seg[1], seg[1] + cut), ("keep", seg[1] + cut, seg[2])
            else:
                left, right = ("new", seg[1][:cut], seg[2]), ("new", seg[1][cut:], seg[2])
            segments[i:i + 1] = [left, right]
            return i + 1
        pos += size
    return len(segments)


def _original_edits(segments: list[tuple], length: int) -> list[Edit]:
    """The edits of the original text (of ``length`` characters) that produce ``segments``."""
    out: list[Edit] = []
    pos = 0
    pending: list[str] = []
    kind = ""
    for seg in segments:
        if seg[0] == "new":
            pending.append(seg[1])
            kind = kind or seg[2]
            continue
        if seg[1] > pos or pending:
            out.append(Edit(pos, seg[1], "".join(pending), kind or "cell"))
        pos, pending, kind = seg[2], [], ""
    if pos < length or pending:
        out.append(Edit(pos, length, "".join(pending), kind or "cell"))
    return out


def apply_pass(segments: list[tuple], edits: list[Edit]) -> None:
    """Make one pass of ``edits`` (spans of the text ``segments`` spell) on ``segments``,
    keeping what ``apply_edits`` keeps: of two overlapping edits, the later one."""
    kept: list[Edit] = []
    for e in sorted(edits, key=lambda x: (x.start, x.end), reverse=True):
        if kept and e.end > kept[-1].start:
            continue
        kept.append(e)
    for e in kept:  # last first, so the offsets of the ones before stay valid
        i = _split(segments, e.start)
        j = _split(segments, e.end)
        segments[i:j] = [("new", e.text, e.kind)]


def compose(length: int, passes: list[list[Edit]]) -> list[Edit]:
    """Passes of edits, each on the text the previous ones left, as one list of edits of the
    original text (``length`` characters long)."""
    segments: list[tuple] = [("keep", 0, length)] if length else []
    for edits in passes:
        apply_pass(segments, edits)
    return _original_edits(segments, length)


class PlanFiles:
    """A document's folder that ``fmt`` may read but not write: each write is recorded
    (``writes``: path as the document names it -> bytes) and nothing reaches the disk."""

    def __init__(self, files: Files) -> None:
        self.files = files
        self.writes: dict[str, bytes] = {}

    def read(self, rel: str) -> bytes | None:
        return self.files.read(rel)

    def write(self, rel: str, data: bytes) -> None:
        self.writes[rel] = bytes(data)


REPAIRS = ("cell", "anchor", "stamp")


def fmt_edits(src: str, files: Files | None = None) -> tuple[list[Edit], CheckResult]:
    """The repairs ``fmt`` makes (computed cells, anchors, import stamps; no date or unit
    fixes), as spans of ``src`` however many passes it takes, and the check after them."""
    segments: list[tuple] = [("keep", 0, len(src))] if src else []
    out = src
    result = check(build(out), files)
    for _ in range(MAX_PASSES):
        new = [e for e in result.edits if e.kind in REPAIRS]
        if not new:
            break
        apply_pass(segments, new)
        out = apply_edits(out, new)
        result = check(build(out), files)
    return _original_edits(segments, len(src)), result


@dataclass
class FmtPlan:
    body: dict
    edits: list["PlannedEdit"]
    artifacts: dict[str, bytes]   # what the plan would write beside the document
    result: FmtResult


def fmt_plan(label: str, src: str, files: Files | None) -> FmtPlan:
    """The ``visimark_fmt`` result: what ``fmt`` would change — the document's edits and the
    chart artifacts it would write — with nothing written.  Raises CommandError(``WRITE``)
    when ``fmt`` itself would refuse an artifact (a file there that is not VisiMark's)."""
    recorder = PlanFiles(files) if files is not None else None
    edits, _ = fmt_edits(src, recorder)
    done = fmt(src, files=recorder, artifacts=True)
    if done.write_error is not None:
        raise CommandError("WRITE", f"visimark: cannot write {done.write_error[0]} ({done.write_error[1]})")
    if apply_edits(src, edits) != done.output:
        raise RuntimeError("the planned edits do not reproduce fmt's output")
    planned = byte_edits(src, edits)
    artifacts = dict(recorder.writes) if recorder is not None else {}
    stale, errors = count(done.unfixable)
    skipped: dict[str, list[str]] = {}
    if files is None:
        model = build(src)
        skipped = skipped_of(model, check(model, None))
    body = envelope(
        "fmt", status_of(1 if any(f.is_problem for f in done.unfixable) else 0), file=label, sha256=sha256(src),
        edits=[e.public() for e in planned],
        cellsUpdated=sum(1 for e in planned if e.kind == "cell"),
        anchorsUpdated=sum(1 for e in planned if e.kind == "anchor"),
        stampsUpdated=sum(1 for e in planned if e.kind == "stamp"),
        artifactsWouldWrite=list(artifacts),
        findings=findings_json(done.unfixable, label, done.checked),
        summary={"problems": stale + errors, "stale": stale, "errors": errors},
        skipped=skipped,
        applied=False,
    )
    return FmtPlan(body, planned, artifacts, done)


def byte_edits(src: str, edits: list[Edit]) -> list[PlannedEdit]:
    """``edits`` with their character offsets turned into UTF-8 byte offsets of ``src``."""
    out = []
    char = byte = 0
    for e in sorted(edits, key=lambda x: x.start):
        byte += len(src[char:e.start].encode("utf-8"))
        start = byte
        byte += len(src[e.start:e.end].encode("utf-8"))
        char = e.end
        out.append(PlannedEdit(start, byte, e.text, e.kind))
    return out


def splice(data: bytes, edits: list[PlannedEdit]) -> bytes:
    """``data`` with every edit made (non-overlapping byte spans of the original)."""
    out = []
    last = 0
    for e in sorted(edits, key=lambda x: x.start):
        out.append(data[last:e.start])
        out.append(e.text.encode("utf-8"))
        last = e.end
    out.append(data[last:])
    return b"".join(out)
