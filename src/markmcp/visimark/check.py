"""The checker: one pass over a built model, in phases a reader can follow.

``graph`` resolves names and orders the bindings; ``inputs`` reads the columns a human
writes; ``static`` derives each binding's type, width and unit; ``evaluate`` computes
every value and compares it with what is written; ``anchors`` checks the prose; the
artifact passes ``imports`` (CSV tables) and ``charts`` (SVG files) reach the
document's folder only through the file port.  ``check(model)`` is pure.  Its result
carries the findings in report order, every computed value, and the edits ``fmt`` may
splice back (computed cells, anchors, import stamps, and the decidable date fixes
``--fix-dates`` opts into).
"""

from __future__ import annotations

import re
from decimal import localcontext

from . import syntax
from .anchors import ProseChecks
from .charts import check_charts
from .evaluate import Evaluation, binary, cell_matches, compare, strip_assert
from .findings import Finding
from .graph import NameGraph, children, tarjan
from .imports import resolve_imports
from .inputs import InputColumns
from .locate import Anchor
from .model import Model
from .port import Files
from .results import (
    BOOLEAN_BINDING,
    IMPORT_FAILED,
    AssertionResult,
    ChartResult,
    CheckResult,
    Edit,
    Unevaluable,
    UnitError,
)
from .static import StaticChecks, significant_places
from .units import UnitMap
from .values import CONTEXT, Decoration

__all__ = [  # the public names of the checker, wherever a phase defines them
    "AssertionResult", "BOOLEAN_BINDING", "CheckResult", "Checker", "Edit", "IMPORT_FAILED", "Unevaluable",
    "UnitError", "binary", "cell_matches", "check", "children", "compare", "order_findings",
    "significant_places", "strip_assert", "tarjan",
]


CODE_RANK = {
    "COVERAGE": 0, "SHEET": 0, "TYPE": 0, "IMPORT": 0, "PRECISION": 0,
    "DATE": 1, "UNIT": 1, "NOTE": 1, "UNDEF": 1, "DUP": 1, "VECTOR": 1, "DOMAIN": 1,
    "CYCLE": 2, "ASSERT": 2, "ANCHOR": 3, "WARN": 4,
}


def check(model: Model, files: Files | None = None, full: bool = True) -> CheckResult:
    """Check a built model; ``files`` reaches the document's folder (charts, imports).

    ``full=False`` evaluates only (values and assertions): no charts, reports, anchors
    or unused-name advice, for callers that ask many questions of one document."""
    with localcontext(CONTEXT):
        return Checker(model, files, full).run()


class Checker(NameGraph, InputColumns, StaticChecks, Evaluation, ProseChecks):
    """One check of one document: the state the phases share, and ``run``, which takes
    them in order (imports, coverage and decorations, the graph, each binding in order:
    static checks then evaluation, cycles, charts, reports, anchors, unused names)."""

    def __init__(self, model: Model, files: Files | None = None, full: bool = True) -> None:
        self.m = model
        self.files = files
        self.full = full
        self.charts: list[ChartResult] = []
        self.entries: list[Finding] = []
        self.det = 0
        self.values: dict[str, object] = {}
        self.cells: dict[str, list[object | None]] = {}
        self.prec: dict[str, int | None] = {}
        self.vtype: dict[str, str] = {}
        self.units: dict[str, UnitMap | None] = {}
        self.unevaluable: set[str] = set()
        self.edits: list[Edit] = []
        self.date_rows: set[tuple[str, str, int]] = set()
        self.sheet_seen: list[str] = []
        self.assertions: dict[str, AssertionResult] = {}
        self.assert_suppressed: dict[str, int] = {}
        self.import_suppressed: dict[str, int] = {}  # per sheet: bindings reading a failed import
        self.input_cache: dict[tuple[str, str], tuple[str, int | None]] = {}
        self.input_values: dict[tuple[str, str], list[object]] = {}
        self.plain_columns: dict[tuple[str, str], list] = {}
        self.bare_columns: dict[tuple[str, str], bool] = {}
        self.col_decoration: dict[tuple[str, str], Decoration | None] = {}
        self.unit_conflict: set[tuple[str, str]] = set()
        self.row_cause: dict[tuple[str, int], str | None] = {}
        self.unevaluable.add(IMPORT_FAILED)
        self.anchors_by_id: dict[str, list[Anchor]] = {}
        for a in model.located.anchors:
            self.anchors_by_id.setdefault(a.id, []).append(a)

    def emit(self, f: Finding) -> Finding:
        if f.code in ("TYPE", "UNIT") and f.hint is None and f.name is not None:
            f.hint = self.quoted_header_hint(f)
        f.det = self.det
        self.det += 1
        self.entries.append(f)
        return f

    def quoted_header_hint(self, f: Finding) -> str | None:
        """A string literal that spells a header of the binding's table, where a number was
        wanted: the writer meant the column.  Quoted text is a string on the right-hand side;
        the column is read through an alias."""
        sheet = self.m.sheets.get(f.sheet) if f.sheet else None
        if sheet is None or sheet.table is None:
            return None
        node = sheet.rules.get(f.name) or sheet.scalars.get(f.name)
        if node is None or not hasattr(node.stmt, "expr"):
            return None
        stack = [node.expr]
        while stack:
            e = stack.pop()
            if isinstance(e, syntax.Str) and e.value in sheet.columns:
                alias = re.sub(r"[^A-Za-z0-9_]+", "_", e.value).strip("_").lower() or "col"
                if not re.match(r"[A-Za-z_]", alias):
                    alias = "c_" + alias
                return (f'"{e.value}" here is a string, not the column: declare `"{e.value}" is {alias}` '
                        f"in the block and write `{alias}`")
            stack.extend(children(e))
        return None

    def run(self) -> CheckResult:
        m = self.m
        for f in m.findings:
            self.emit(f)
        resolve_imports(m, self.files, self.emit, self.edits)
        self.coverage()
        for sheet in m.sheets.values():
            if sheet.table is not None:
                for name in sheet.columns:
                    self.column_decoration(sheet, name)
        self.check_unit_definitions()
        order, cycles, info = self.order()
        for cyc in cycles:
            for n in cyc:
                self.unevaluable.add(n.id)

        for node in order:
            if node.sheet and node.sheet not in self.sheet_seen:
                self.sheet_seen.append(node.sheet)
            deps, problems = info[node.id]
            if node.kind == "assert":
                self.eval_assert(node, deps, problems)
                continue
            if problems:
                for f in problems:
                    self.emit(f)
                self.unevaluable.add(node.id)
                continue
            if any(d in self.unevaluable for d in deps):
                self.unevaluable.add(node.id)
                if IMPORT_FAILED in deps and self.files is not None:
                    # it reads a sheet whose import failed (the IMPORT finding says why):
                    # counted into one NOTE per sheet, never a finding per binding
                    self.import_suppressed[node.sheet] = self.import_suppressed.get(node.sheet, 0) + 1
                continue
            if not self.static_checks(node):
                self.unevaluable.add(node.id)
                continue
            if node.kind == "column":
                self.eval_column(node)
            else:
                self.eval_scalar(node)

        for cyc in cycles:
            self.emit(Finding("CYCLE", cyc[0].sheet or None, cyc[0].name, cycle_path=[n.id for n in cyc],
                              span=(cyc[0].stmt.start, cyc[0].stmt.end)))
        for node in m.nodes:
            if node.kind == "assert" and node.id not in self.assertions:
                self.assertions[node.id] = AssertionResult(node.sheet, node.stmt.source, None, {},
                                                           strip_assert(node.stmt.source))
                self.assert_suppressed[node.sheet] = self.assert_suppressed.get(node.sheet, 0) + 1
        for sheet_id, n in self.import_suppressed.items():
            self.emit(Finding("NOTE", sheet_id, None, assertion_scoped=True, suppressed_count=n,
                              message=f"{n} binding{'s' if n != 1 else ''} not verified (upstream IMPORT errors)"))
        for sheet_id, n in self.assert_suppressed.items():
            self.emit(Finding("NOTE", sheet_id, None, assertion_scoped=True, suppressed_count=n,
                              message=f"{n} assertion{'s' if n != 1 else ''} not verified (upstream errors)"))
        if self.full:
            self.charts = check_charts(self, self.files)
            self.check_reports()
            self.check_anchors()
            self.warn_unused()
        findings = order_findings(self.entries, self.sheet_seen)
        assertions = [self.assertions[n.id] for n in m.nodes if n.kind == "assert" and n.id in self.assertions]
        input_units: dict[str, UnitMap] = {}
        for sheet in m.sheets.values():
            for col in sheet.columns.values():
                if col.unit and col.name not in sheet.rules:
                    input_units[f"{sheet.id}.{col.name}"] = col.unit
        return CheckResult(findings, self.values, self.cells, self.prec, self.units, input_units,
                           assertions, self.edits, order, self.unevaluable, self.charts,
                           {nid: deps for nid, (deps, _) in info.items()})


def order_findings(entries: list[Finding], sheet_order: list[str]) -> list[Finding]:
    """Report order: stale cells by sheet and row group, stale scalars, the anchor
    roll-up, then everything else by code rank and emission order."""
    stale_cells = [f for f in entries if f.code == "STALE" and f.is_cell]
    stale_scalars = [f for f in entries if f.code == "STALE" and not f.is_cell and not f.anchor_group]
    group = [f for f in entries if f.anchor_group]
    rest = [f for f in entries if f.code != "STALE"]

    def rank(s: str | None) -> int:
        return sheet_order.index(s) if s in sheet_order else len(sheet_order) + 1

    out: list[Finding] = []
    sheets: list[str | None] = []
    for f in stale_cells + stale_scalars:
        if f.sheet not in sheets:
            sheets.append(f.sheet)
    sheets.sort(key=rank)
    for sh in sheets:
        rows: dict[int, list[Finding]] = {}
        for f in stale_cells:
            if f.sheet == sh:
                rows.setdefault(f.row_index or 0, []).append(f)
        for _, fs in sorted(rows.items(), key=lambda kv: min(x.det for x in kv[1])):
            out.extend(sorted(fs, key=lambda x: x.det))
        # scalars in declaration order; a scalar's several anchors in document order
        out.extend(sorted((f for f in stale_scalars if f.sheet == sh), key=lambda x: (x.binding_order, x.det)))
    out.extend(group)
    out.extend(sorted(rest, key=lambda f: (CODE_RANK.get(f.code, 9), f.det)))
    return out
