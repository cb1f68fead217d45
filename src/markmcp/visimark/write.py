"""Write-back: splice recomputed values into the original text by offset.

``fmt`` owns computed cells and anchored values; ``--fix-dates`` adds the decidable
date fixes and ``--fix-units`` the normalised spelling of every parsable unit bracket.
Markdown is never re-serialised: each edit replaces one ``[start, end)`` span, so a
one-cell change touches one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import syntax
from .charts import owner
from .check import CheckResult, Edit, check, children
from .findings import Finding
from .model import Model, build
from .port import Files, PortError, ReadOnce
from .units import format_unit

MAX_PASSES = 4


def _repaired(result: CheckResult) -> CheckResult:
    """``result`` once every stale cell and anchor it found has been written back."""
    from dataclasses import replace

    kept = [f for f in result.findings if not (f.code == "STALE" and f.artifact is None)]
    return replace(result, findings=kept, edits=[e for e in result.edits if e.kind not in ("cell", "anchor")])


def apply_edits(src: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits (see :func:`apply_counted`)."""
    return apply_counted(src, edits)[0]


def apply_counted(src: str, edits: list[Edit]) -> tuple[str, int]:
    """Apply non-overlapping edits in one pass over the text (where two overlap, the one
    starting later is kept); also say how many were applied.  The result is assembled
    from slices, so the cost is the length of the text plus the edits, however many."""
    kept: list[Edit] = []
    for e in sorted(edits, key=lambda x: (x.start, x.end), reverse=True):
        if kept and e.end > kept[-1].start:
            continue  # overlapping edit: keep the later one
        kept.append(e)
    pieces: list[str] = []
    at = 0
    for e in reversed(kept):
        pieces.append(src[at:e.start])
        pieces.append(e.text)
        at = e.end
    pieces.append(src[at:])
    return "".join(pieces), len(kept)


@dataclass
class FmtResult:
    output: str
    changed: bool
    cells_updated: int = 0
    anchors_updated: int = 0
    dates_fixed: int = 0
    units_fixed: int = 0
    stamps_updated: int = 0
    unfixable: list[Finding] = field(default_factory=list)
    result: CheckResult | None = None
    artifacts: list[str] = field(default_factory=list)  # paths written, as the document names them
    artifacts_skipped: int = 0  # stale or missing, not written (--no-artifacts)
    write_error: tuple[str, str] | None = None  # (path, message) of an artifact that could not be written
    # the text ``result`` was found in (its findings' spans are offsets into it): ``output`` or
    # the pass before it, with the same lines, since no repair adds or removes a line break
    checked: str = ""


def unit_edits(model: Model) -> list[Edit]:
    """Rewrite every parsable unit bracket to the normalised form of its own map."""
    edits: list[Edit] = []

    def bracket(span: tuple[int, int] | None, unit) -> None:
        if span is None or unit is None:
            return
        text = "[" + format_unit(unit) + "]"
        if model.source[span[0] : span[1]] != text:
            edits.append(Edit(span[0], span[1], text, "unit"))

    for sheet in model.sheets.values():
        for col in sheet.columns.values():
            bracket(col.unit_span, col.unit)
    seen: set[int] = set()
    for node in model.nodes:
        stmt = node.stmt
        if isinstance(stmt, syntax.Binding):
            bracket(stmt.unit_span, stmt.unit)

        def walk(e: syntax.Node) -> None:
            if isinstance(e, syntax.Num) and e.unit_span and e.unit_span[0] not in seen:
                seen.add(e.unit_span[0])
                bracket(e.unit_span, e.unit)
            for c in children(e):
                walk(c)

        walk(node.expr)
    for d in model.unit_defs:
        line = model.source[d.start : d.end]
        m = re.match(r"\[([^\]]*)\](\s*=\s*)\[([^\]]*)\]", line)
        if m:
            bracket((d.start + m.start(3) - 1, d.start + m.end(3) + 1), d.unit)
            atom = {"degC": "℃", "°C": "℃", "degF": "℉", "°F": "℉"}.get(d.atom, d.atom)
            if atom != m.group(1).strip():
                edits.append(Edit(d.start + m.start(1) - 1, d.start + m.end(1) + 1, f"[{atom}]", "unit"))
    return edits


def fmt(src: str, fix_dates: bool = False, fix_units: bool = False, files: Files | None = None,
        artifacts: bool = True) -> FmtResult:
    """Repair every STALE value (and, when asked, dates and unit spellings).

    With ``files``, stale or missing chart artifacts are written through it (unless
    ``artifacts`` is False) before the caller writes the document; a refused write is
    ``write_error`` and the caller then leaves the document as it was.
    """
    port = ReadOnce(files) if files is not None else None
    out = src
    res = FmtResult(src, False)
    if fix_units:
        edits = unit_edits(build(out))
        if edits:
            out = apply_edits(out, edits)
            res.units_fixed = len(edits)
    result: CheckResult | None = None
    checked = out
    for _ in range(MAX_PASSES):
        checked = out
        result = check(build(out), port)
        edits = [e for e in result.edits if e.kind in ("cell", "anchor", "stamp") or (fix_dates and e.kind == "date")]
        if not edits:
            break
        res.cells_updated += sum(1 for e in edits if e.kind == "cell")
        res.anchors_updated += sum(1 for e in edits if e.kind == "anchor")
        res.dates_fixed += sum(1 for e in edits if e.kind == "date")
        res.stamps_updated += sum(1 for e in edits if e.kind == "stamp")
        out, applied = apply_counted(out, edits)
        if applied == len(edits) and all(e.kind in ("cell", "anchor") for e in edits):
            # Rewriting outputs changes no value: every rule reads inputs, never the text
            # written for another rule. The check after this pass would find the same
            # document with these STALE lines gone, so that is the result, unchecked.
            result = _repaired(result)
            break
    else:
        checked = out
        result = check(build(out), port)
    assert result is not None
    res.output = out
    res.checked = checked
    res.changed = out != src
    res.result = result
    # a stale or missing artifact is fmt's to repair, written here or declined by the caller
    res.unfixable = [f for f in result.findings if not (f.code == "STALE" and f.artifact is not None)]
    if port is not None:
        _write_artifacts(res, result, port, artifacts)
    return res


def _write_artifacts(res: FmtResult, result: CheckResult, port: ReadOnce, allowed: bool) -> None:
    for chart in result.charts:
        if chart.state not in ("stale", "missing") or chart.svg is None or chart.path is None:
            continue
        if not allowed:
            res.artifacts_skipped += 1
            continue
        try:
            # prove ownership again at the moment of writing: the file may have changed since
            now = port.files.read(chart.path)
            if now is not None and owner(now) != (chart.sheet, chart.name):
                res.write_error = (chart.path, f"`{chart.path}` changed since it was checked and is not ours "
                                               "to overwrite; nothing was written")
                return
            port.write(chart.path, chart.svg)
        except PortError as e:
            res.write_error = (chart.path, e.message)
            return
        res.artifacts.append(chart.path)
