"""Charts as generated artifacts: resolve each declaration, render it, compare it with
the file the document's image line names.

A chart is checked after every binding has been evaluated.  For each declaration, in
document order: its operands must be columns of its own sheet; a series that could not
be computed folds into one ``NOTE`` per sheet; the data must be drawable (numbers, no
blank cell, at least one row, one decoration across the series); the image anchor
names the path; the path passes the gate; and the rendered bytes are compared with
the file (line endings normalised), which must be ours (the metadata marker).

Nothing here opens a file: bytes come from a :class:`~markmcp.visimark.port.Files`.
Without one (a bare string checked in memory) a chart is validated and rendered, and
its state is ``skipped``.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Protocol

from . import lang
from .findings import Finding
from .model import Chart, Model, Sheet
from .port import Files, PortError, gate, port_problem
from .results import ChartResult, Resolved, Unevaluable
from .statements import ColumnRef
from .suggest import closest
from .values import CellNumber, Decoration, parse_cell_number

MARKER_RE = re.compile(r'<visimark\s+sheet="([^"]*)"\s+chart="([^"]*)"\s*/>')
WHAT = "artifact path"


class Evaluated(Protocol):
    """What the chart pass reads of a check whose bindings are all evaluated (the checker
    is one): the model, each column's values, width and decoration, name resolution, and
    where findings go."""

    m: Model
    cells: dict[str, list[object | None]]
    prec: dict[str, int | None]
    col_decoration: dict[tuple[str, str], Decoration | None]
    unevaluable: set[str]

    def emit(self, f: Finding) -> Finding: ...

    def resolve(self, sheet_id: str, ref: lang.Ref) -> Resolved: ...

    def input_value(self, sheet: Sheet, column: str, row: int) -> object: ...


class _Skip(Exception):
    """A series depends on something already reported: the chart is not built."""


def normalise(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n")


def owner(data: bytes) -> tuple[str, str] | None:
    """The (sheet, chart) a file's metadata marker names, or None for a file that is not ours."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    m = MARKER_RE.search(text)
    return (m.group(1), m.group(2)) if m else None


def check_charts(ck: Evaluated, files: Files | None) -> list[ChartResult]:
    """Validate, render and compare every chart; findings go through ``ck.emit``."""
    results: list[ChartResult] = []
    declared = [c for sheet in ck.m.sheets.values() for c in sheet.charts]
    image_of = _image_urls(ck)
    claimants: dict[str, list[str]] = {}
    for c in declared:
        url = image_of.get(c.id)
        if url is not None:
            claimants.setdefault(url, []).append(c.id)
    for sheet in ck.m.sheets.values():
        skipped = 0
        for c in sheet.charts:
            result = ChartResult(c.sheet, c.name, c.stmt.engine, [s.text for s in c.stmt.series],
                                 c.stmt.labels.text)
            results.append(result)
            try:
                _one(ck, files, sheet, c, result, image_of, claimants)
            except _Skip:
                result.state = "skipped"
                skipped += 1
        if skipped:
            ck.emit(Finding("NOTE", sheet.id, None, assertion_scoped=True, suppressed_count=skipped,
                            message=f"{skipped} chart{'s' if skipped != 1 else ''} not built (upstream errors)"))
    return results


def _image_urls(ck: Evaluated) -> dict[str, str]:
    out: dict[str, str] = {}
    for a in ck.m.located.anchors:
        if a.kind == "image" and a.image_url is not None:
            out.setdefault(a.id, a.image_url)
    return out


def _finding(ck: Evaluated, c: Chart, code: str, message: str, **kw) -> None:
    ck.emit(Finding(code, c.sheet, c.name, message, span=(c.stmt.start, c.stmt.end), binding_order=c.order, **kw))


def _one(ck: Evaluated, files: Files | None, sheet: Sheet, c: Chart, result: ChartResult,
         image_of: dict[str, str], claimants: dict[str, list[str]]) -> None:
    from . import chartsvg  # here, not at the top: a document without charts never loads the renderer

    stmt = c.stmt
    if stmt.engine not in chartsvg.ENGINES:
        _finding(ck, c, "ARTIFACT", f"unknown chart type `{stmt.engine}`",
                 suggestion=closest(stmt.engine, chartsvg.ENGINES, 3))
        return
    operands = [_operand(ck, c, ref) for ref in stmt.series]
    labels_col = _label_column(ck, sheet, stmt.labels)
    if any(o is None for o in operands):
        return
    series = []
    for ref, (column, node_id) in zip(stmt.series, operands):  # type: ignore[misc]
        problem, values = _values(ck, sheet, column, node_id, ref.text)
        if problem:
            _finding(ck, c, "ARTIFACT", problem)
            return
        key = (sheet.id, column)
        places = ck.prec.get(node_id) if node_id else _first_width(sheet, column)
        series.append(chartsvg.Series(ref.text, tuple(values), places or 0, ck.col_decoration.get(key)))
    if len({(s.decoration.side, s.decoration.text.strip()) if s.decoration else None for s in series}) > 1:
        _finding(ck, c, "UNIT", "a chart's series must agree about their unit")
        return
    if labels_col is None:
        _finding(ck, c, "ARTIFACT", f"`{stmt.labels.text}` is not a column of this sheet")
        return
    assert sheet.table is not None
    labels = tuple(sheet.table.column(sheet.columns[labels_col].index))
    url = image_of.get(c.id)
    if url is None:
        _finding(ck, c, "ARTIFACT",
                 f"no image reference for this chart — add `![...](path)<!--vmark={c.id}-->`")
        return
    result.path = url
    if len(claimants.get(url, ())) > 1:
        _finding(ck, c, "ARTIFACT", f"two charts write to `{url}`")
        return
    data = chartsvg.ChartData(c.sheet, c.name, tuple(series), labels, stmt.aspect or chartsvg.DEFAULT_ASPECT)
    try:
        rendered = chartsvg.render(stmt.engine, data).encode("utf-8")
    except chartsvg.Refusal as e:
        _finding(ck, c, "ARTIFACT", e.message)
        return
    refused = gate(url, WHAT, ".svg")
    if refused:
        _finding(ck, c, "ARTIFACT", refused)
        return
    result.svg = rendered
    if files is None:
        result.state = "skipped"  # no folder to compare with: valid, staleness unknown
        return
    try:
        on_disk = files.read(url)
    except PortError as e:
        result.svg = None
        _finding(ck, c, "ARTIFACT", port_problem(e, WHAT, url))
        return
    if on_disk is None:
        result.state = "missing"
        _finding(ck, c, "STALE", f"artifact missing at `{url}`", artifact=url)
        return
    mark = owner(on_disk)
    if mark is None:
        result.svg = None
        _finding(ck, c, "ARTIFACT", f"`{url}` exists and was not generated by visimark")
        return
    if mark != (c.sheet, c.name):
        result.svg = None
        _finding(ck, c, "ARTIFACT", f"`{url}` belongs to chart `{mark[0]}.{mark[1]}`")
        return
    if normalise(on_disk) == normalise(rendered):
        result.state = "current"
        return
    result.state = "stale"
    _finding(ck, c, "STALE", "artifact is out of date — run `visimark fmt`", artifact=url)


def _operand(ck: Evaluated, c: Chart, ref: ColumnRef) -> tuple[str, str | None] | None:
    """(header name, column rule id or None for an input) of a series, or None once reported."""
    r = ck.resolve(c.sheet, ref.as_ref())
    span = (ref.start, ref.end)
    if r.kind == "unknown":
        ck.emit(Finding("UNDEF", c.sheet, c.name, raw=ref.text, suggestion=r.suggestion, span=span))
        return None
    if r.kind == "scalar":
        ck.emit(Finding("TYPE", c.sheet, c.name, f"a chart takes a column; `{ref.text}` is a value", span=span))
        return None
    if r.sheet is None or r.sheet.id != c.sheet:
        ck.emit(Finding("VECTOR", c.sheet, c.name, raw=ref.text, span=span))
        return None
    assert r.column is not None
    return r.column, (r.node.id if r.node is not None else None)


def _label_column(ck: Evaluated, sheet: Sheet, ref: ColumnRef) -> str | None:
    if ref.qualifier not in (None, sheet.id) or sheet.table is None:
        return None
    return sheet.column_name(ref.name)


def _values(ck: Evaluated, sheet: Sheet, column: str, node_id: str | None, shown: str) -> tuple[str | None, list[Decimal]]:
    """A series' numbers, or the ARTIFACT message saying why it has none to draw."""
    assert sheet.table is not None
    height = sheet.table.height
    if height == 0:
        return f"`{shown}` has no rows", []
    if node_id is not None:
        if node_id in ck.unevaluable or node_id not in ck.cells:
            raise _Skip()
        raw = ck.cells[node_id]
        if any(v is None for v in raw):
            raise _Skip()
    else:
        try:
            raw = [ck.input_value(sheet, column, r) for r in range(height)]
        except Unevaluable:
            raise _Skip() from None
    out: list[Decimal] = []
    for row, v in enumerate(raw, 1):
        if v == "":
            return f"`{shown}` contains a blank cell (row {row})", []
        if not isinstance(v, Decimal):
            return f"`{shown}` needs numbers", []
        out.append(v)
    return None, out


def _first_width(sheet: Sheet, column: str) -> int:
    """An input series writes its labels at the decimals of its first number."""
    assert sheet.table is not None
    for text in sheet.table.column(sheet.columns[column].index):
        num = parse_cell_number(text)
        if isinstance(num, CellNumber):
            return num.places
    return 0
