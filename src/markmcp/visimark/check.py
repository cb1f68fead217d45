"""The checker: resolve names, order the dependency graph, derive precision and units,
evaluate every binding and compare each written value with its recomputation.

``check(model)`` is pure.  Its result carries the findings in report order, every
computed value, and the edits ``fmt`` may splice back (computed cells, anchors, and
the decidable date fixes ``--fix-dates`` opts into).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal, DivisionByZero, InvalidOperation, Overflow, localcontext

from . import lang
from .builtins import REGISTRY, EvalError, is_reduce, map_call, reduce_call, type_word
from .domain import in_domain, is_empty
from .display import (
    BARE_SEED_MESSAGE,
    MALFORMED_MESSAGE,
    NO_VALUE_MESSAGE,
    RULES,
    TYPE_MESSAGE,
    bare_token_refusal,
    code_span_message,
    nbsp_refusal,
    nbsp_render,
)
from .findings import Finding
from .locate import NO_FORMULAS_MARKER, Anchor, plain_text
from .charts import ChartResult, check_charts
from .imports import resolve_imports
from .lattice import LatticeFault
from .lattice import points as lattice_points
from .model import IDENT_RE, Model, Node, Sheet
from .port import Files
from .suggest import closest
from .units import DIMENSIONLESS, UnitMap, UnitSyntaxError, combine, format_unit, parse_unit, power
from .values import (
    CONTEXT,
    PLAIN_RE,
    WORKING_DIGITS,
    CellNumber,
    Decoration,
    canonical,
    diagnose_date,
    fixed,
    parse_cell_number,
    parse_iso,
    quantum,
    render,
)

IMPORT_FAILED = "#import-failed"  # a dependency standing for a sheet whose CSV could not be read
BOOLEAN_BINDING = "a boolean cannot be stored; wrap it in `IF()` to produce a number or a string"
CODE_RANK = {
    "COVERAGE": 0, "SHEET": 0, "TYPE": 0, "IMPORT": 0, "PRECISION": 0,
    "DATE": 1, "UNIT": 1, "NOTE": 1, "UNDEF": 1, "DUP": 1, "VECTOR": 1, "DOMAIN": 1,
    "CYCLE": 2, "ASSERT": 2, "ANCHOR": 3, "WARN": 4,
}
MAX_FN_SUGGESTION = 2
DECIMAL_OPS: dict[str, Callable[[Decimal, Decimal], Decimal]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul,
}

#: A compiled expression: its value for a table row (None outside a table).
Evaluator = Callable[[int | None], object]


_PENDING = object()  # an input cell not read yet
_NUMBER = r"-?\d+(?:\.\d+)?"
ALL_PLAIN_RE = re.compile(rf"(?:(?:{_NUMBER})?\x00)*(?:{_NUMBER})?")  # cells joined by NUL
ALL_WORDS_RE = re.compile(r"(?:(?:[A-Za-z_][A-Za-z0-9_]*)?\x00)*(?:[A-Za-z_][A-Za-z0-9_]*)?")
DECIMALS_RE = re.compile(r"\.(\d+)")


class Unevaluable(Exception):
    """A value depends on something that has already been reported; ``cause`` names the
    code of a row-level root cause (DATE, UNIT) when there is one."""

    def __init__(self, cause: str | None = None) -> None:
        super().__init__(cause)
        self.cause = cause


class UnitError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class Resolved:
    kind: str  # column | input | scalar | unknown
    node: Node | None = None
    sheet: Sheet | None = None
    column: str | None = None
    suggestion: str | None = None


@dataclass
class Edit:
    """A splice ``fmt`` may apply: replace [start, end) with ``text``."""

    start: int
    end: int
    text: str
    kind: str  # cell | anchor | date | unit


@dataclass
class AssertionResult:
    sheet: str
    source: str
    holds: bool | None
    operands: dict[str, str]
    substituted: str


@dataclass
class CheckResult:
    findings: list[Finding]
    values: dict[str, object]
    cells: dict[str, list[object | None]]
    precision: dict[str, int | None]
    units: dict[str, UnitMap | None]
    input_units: dict[str, UnitMap]
    assertions: list[AssertionResult]
    edits: list[Edit]
    order: list[Node]
    unevaluable: set[str] = field(default_factory=set)
    charts: list[ChartResult] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 1 if any(f.is_problem for f in self.findings) else 0


def check(model: Model, files: Files | None = None, full: bool = True) -> CheckResult:
    """Check a built model; ``files`` reaches the document's folder (charts, imports).

    ``full=False`` evaluates only (values and assertions): no charts, reports, anchors
    or unused-name advice, for callers that ask many questions of one document."""
    with localcontext(CONTEXT):
        return Checker(model, files, full).run()


class Checker:
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
        self.input_cache: dict[tuple[str, str], tuple[str, int | None]] = {}
        self.input_values: dict[tuple[str, str], list[object]] = {}
        self.col_decoration: dict[tuple[str, str], Decoration | None] = {}
        self.unit_conflict: set[tuple[str, str]] = set()
        self.row_cause: dict[tuple[str, int], str | None] = {}
        self.unevaluable.add(IMPORT_FAILED)
        self.anchors_by_id: dict[str, list[Anchor]] = {}
        for a in model.located.anchors:
            self.anchors_by_id.setdefault(a.id, []).append(a)

    # ------------------------------------------------------------------ utils

    def emit(self, f: Finding) -> Finding:
        f.det = self.det
        self.det += 1
        self.entries.append(f)
        return f

    def sheet_of(self, node: Node) -> Sheet | None:
        return self.m.sheets.get(node.sheet) if node.sheet else None

    def resolve(self, sheet_id: str, ref: lang.Ref) -> Resolved:
        m = self.m
        if ref.qualifier is not None:
            sheet = m.sheets.get(ref.qualifier)
            if sheet is None:
                return Resolved("unknown", suggestion=None)
            return self._in_sheet(sheet, ref.name) or Resolved(
                "unknown", suggestion=closest(ref.name, self._sheet_names(sheet)))
        if sheet_id:
            sheet = m.sheets[sheet_id]
            found = self._in_sheet(sheet, ref.name)
            if found:
                return found
        if ref.name in m.doc:
            return Resolved("scalar", node=m.doc[ref.name])
        candidates = set(m.doc)
        if sheet_id:
            candidates |= self._sheet_names(m.sheets[sheet_id])
        return Resolved("unknown", suggestion=closest(ref.name, candidates))

    def import_failed(self, sheet_id: str, ref: lang.Ref) -> bool:
        sheet = self.m.sheets.get(ref.qualifier or sheet_id)
        return sheet is not None and sheet.import_failed

    def chart_named(self, sheet_id: str, ref: lang.Ref) -> bool:
        sheet = self.m.sheets.get(ref.qualifier or sheet_id)
        return sheet is not None and any(c.name == ref.name for c in sheet.charts)

    def _sheet_names(self, sheet: Sheet) -> set[str]:
        names = set(sheet.scalars) | set(sheet.aliases)
        names |= {c for c in sheet.columns if lang_ident(c)}
        return names

    def _in_sheet(self, sheet: Sheet, name: str) -> Resolved | None:
        col = sheet.column_name(name)
        if col is not None and sheet.table is not None:
            if col in sheet.rules:
                return Resolved("column", node=sheet.rules[col], sheet=sheet, column=col)
            return Resolved("input", sheet=sheet, column=col)
        if name in sheet.scalars:
            return Resolved("scalar", node=sheet.scalars[name], sheet=sheet)
        return None

    # --------------------------------------------------------------- analysis

    def analyse(self, node: Node) -> tuple[set[str], list[Finding]]:
        """Dependencies of a node, plus the static problems that stop it evaluating."""
        deps: set[str] = set()
        problems: list[Finding] = []
        call_errors: list[Finding] = []
        undef: list[Finding] = []
        vector: list[Finding] = []
        scoped = node.kind == "assert"

        def base(code: str, **kw) -> Finding:
            return Finding(code, node.sheet or None, None if scoped else node.name,
                           assertion_scoped=scoped, **kw)

        def walk(e: lang.Node, reduce_arg: bool = False) -> None:
            if isinstance(e, lang.Ref):
                r = self.resolve(node.sheet, e)
                if r.kind == "unknown" and self.import_failed(node.sheet, e):
                    deps.add(IMPORT_FAILED)  # the import's own finding says why; this value waits on it
                    return
                if r.kind == "unknown" and self.chart_named(node.sheet, e):
                    call_errors.append(base("TYPE", message="a chart is not a value", span=(e.start, e.end)))
                    return
                if r.kind == "unknown":
                    undef.append(base("UNDEF", raw=e.text, suggestion=r.suggestion, span=(e.start, e.end)))
                    return
                if r.kind in ("column", "input"):
                    own = r.sheet is not None and r.sheet.id == node.sheet
                    if not reduce_arg and not (own and node.kind == "column"):
                        vector.append(base("VECTOR", raw=e.text, span=(e.start, e.end)))
                        return
                if r.node is not None:
                    deps.add(r.node.id)
                return
            if isinstance(e, lang.Call):
                spec = REGISTRY.get(e.name)
                if spec is None:
                    call_errors.append(base("TYPE", message=f"unknown function `{e.name}`",
                                            suggestion=closest(e.name, REGISTRY, MAX_FN_SUGGESTION),
                                            span=(e.start, e.end)))
                    return
                if len(e.args) != len(spec.params):
                    n = len(spec.params)
                    call_errors.append(base(
                        "TYPE",
                        message=f"{e.name}() takes {n} argument{'s' if n != 1 else ''}, got {len(e.args)}",
                        span=(e.start, e.end)))
                    return
                for i, arg in enumerate(e.args):
                    col_param = spec.kind == "reduce" and i == len(spec.params) - 1
                    if col_param:
                        if not isinstance(arg, lang.Ref):
                            call_errors.append(base(
                                "TYPE", message=f"{e.name}() takes a column reference, not an expression",
                                span=(e.start, e.end)))
                            continue
                        r = self.resolve(node.sheet, arg)
                        if r.kind == "scalar":
                            call_errors.append(base(
                                "TYPE", message=f"{e.name} takes a column; `{arg.text}` is a value",
                                span=(arg.start, arg.end)))
                            continue
                        walk(arg, reduce_arg=True)
                    else:
                        walk(arg)
                return
            for child in children(e):
                walk(child)

        walk(node.expr)
        problems = call_errors or undef or vector
        return deps, problems

    def order(self) -> tuple[list[Node], list[list[Node]], dict[str, tuple[set[str], list[Finding]]]]:
        """Topological order (document order, dependencies first) and the cycles."""
        info = {n.id: self.analyse(n) for n in self.m.nodes}
        by_id = {n.id: n for n in self.m.nodes}
        graph = {nid: sorted((d for d in deps if d in by_id), key=lambda d: by_id[d].order)
                 for nid, (deps, _) in info.items()}
        # dependencies in the order they are written in the expression
        for n in self.m.nodes:
            graph[n.id] = [d for d in self._ref_order(n) if d in info[n.id][0]]
        sccs = tarjan([n.id for n in self.m.nodes], graph)
        cyclic: set[str] = set()
        cycles: list[list[Node]] = []
        for comp in sccs:
            if len(comp) > 1 or comp[0] in graph[comp[0]]:
                cyclic.update(comp)
                cycles.append(self._cycle_path(comp, graph, by_id))
        cycles.sort(key=lambda c: c[0].order)
        order: list[Node] = []
        seen: set[str] = set(cyclic)
        for n in self.m.nodes:
            stack = [(n.id, iter(graph[n.id]))]
            if n.id in seen:
                continue
            seen.add(n.id)
            while stack:
                nid, it = stack[-1]
                for d in it:
                    if d not in seen:
                        seen.add(d)
                        stack.append((d, iter(graph[d])))
                        break
                else:
                    stack.pop()
                    order.append(by_id[nid])
        return order, cycles, info

    def _ref_order(self, node: Node) -> list[str]:
        out: list[str] = []

        def walk(e: lang.Node) -> None:
            if isinstance(e, lang.Ref):
                r = self.resolve(node.sheet, e)
                if r.node is not None and r.node.id not in out:
                    out.append(r.node.id)
            for c in children(e):
                walk(c)

        walk(node.expr)
        return out

    def _cycle_path(self, comp: list[str], graph: dict[str, list[str]], by_id: dict[str, Node]) -> list[Node]:
        """A cycle through the component in the direction values flow, longest found."""
        members = set(comp)
        start = min(comp, key=lambda c: by_id[c].order)
        feeds: dict[str, list[str]] = {c: [] for c in comp}
        for c in comp:
            for d in graph[c]:
                if d in members:
                    feeds[d].append(c)
        for c in feeds:
            feeds[c].sort(key=lambda x: by_id[x].order)
        best: list[str] = []
        budget = 5000
        # depth-first over simple paths from `start`, with an explicit stack (a cycle of
        # thousands of bindings must not exhaust the interpreter's recursion limit)
        path = [start]
        on_path = {start}
        stack = [iter(feeds[start])]
        while stack and budget > 0:
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                on_path.discard(path.pop())
                continue
            if nxt == start:
                if len(path) > len(best):
                    best = list(path)
            elif nxt not in on_path:
                budget -= 1
                path.append(nxt)
                on_path.add(nxt)
                stack.append(iter(feeds[nxt]))
        if not best:
            best = [start]
        return [by_id[c] for c in best] + [by_id[best[0]]]

    # ----------------------------------------------------------- input columns

    def input_info(self, sheet: Sheet, column: str) -> tuple[str, int | None]:
        """Static type and width of an input column, read off its cells."""
        key = (sheet.id, column)
        if key in self.input_cache:
            return self.input_cache[key]
        assert sheet.table is not None
        idx = sheet.columns[column].index
        kind, width = "?", None
        widths = []
        saw_date = saw_text = False
        cells = sheet.table.column(idx)
        if cells and ALL_PLAIN_RE.fullmatch("\x00".join(cells)) and any(cells):
            # every cell a bare number (or empty): the width is the most decimals written
            kind, width = "num", max((len(d) for d in DECIMALS_RE.findall("\x00".join(cells))), default=0)
            self.input_cache[key] = (kind, width)
            return kind, width
        plain = PLAIN_RE.fullmatch
        for t in cells:
            if not t:
                continue
            m = plain(t)
            if m is not None:  # a bare number: its width is its decimals
                widths.append(len(m.group(3) or ""))
                continue
            num = parse_cell_number(t)
            if isinstance(num, CellNumber):
                widths.append(num.places)
            elif (not sheet.imported and diagnose_date(t) is not None) or parse_iso(t):
                saw_date = True
            else:
                saw_text = True
        if saw_text:
            kind = "str"
        elif saw_date:
            kind = "date"
        elif widths:
            kind, width = "num", max(widths)
        self.input_cache[key] = (kind, width)
        return kind, width

    def column_decoration(self, sheet: Sheet, column: str) -> Decoration | None:
        """The v1 inert decoration shared by a column's numeric cells (UNIT when mixed)."""
        key = (sheet.id, column)
        if key in self.col_decoration:
            return self.col_decoration[key]
        assert sheet.table is not None
        col = sheet.columns[column]
        table = sheet.table
        # each distinct decoration of a numeric cell, with the first row that has it
        forms: dict[Decoration | None, int] = {}
        plain = PLAIN_RE.fullmatch
        cells = table.column(col.index)
        joined = "\x00".join(cells)
        if ALL_PLAIN_RE.fullmatch(joined):  # bare numbers (or empty cells) only: one form, none
            first = next((r for r, t in enumerate(cells) if t), None)
            if first is not None:
                forms[None] = first
            cells = []
        elif ALL_WORDS_RE.fullmatch(joined):  # plain words only: no number at all
            cells = []
        for r, t in enumerate(cells):
            if not t:
                continue
            if plain(t) is not None:  # a bare number: no decoration
                if None not in forms:
                    forms[None] = r
                continue
            num = parse_cell_number(t)
            if isinstance(num, CellNumber):
                if num.decoration not in forms:
                    forms[num.decoration] = r
            elif num == "both":
                self.unit_conflict.add(key)
                cell = table.cell(r, col.index)
                self.emit(Finding("UNIT", sheet.id, column, row_label=self.row_label(sheet, r), raw=t,
                                  message=f"`{t}` is decorated on both sides; a unit sits before the number or after it, not both",
                                  span=(cell.start, cell.end)))
                self.col_decoration[key] = None
                return None
        if col.unit is not None and column not in sheet.rules:
            kind, _ = self.input_info(sheet, column)
            if kind in ("date", "str"):
                self.unit_conflict.add(key)
                self.emit(Finding("UNIT", sheet.id, column, f"a {'date' if kind == 'date' else 'string'} cannot carry a unit",
                                  span=col.unit_span))
                self.col_decoration[key] = None
                return None
        if col.unit is not None:
            for r, t in enumerate(table.column(col.index)):
                problem = self.decoration_problem(t, col.unit, "cell", "the column declares",
                                                  "a column with a unit forbids")
                if problem is not None:
                    self.unit_conflict.add(key)
                    cell = table.cell(r, col.index)
                    self.emit(Finding("UNIT", sheet.id, column, row_label=self.row_label(sheet, r), raw=cell.text,
                                      message=problem, span=(cell.start, cell.end)))
                    self.col_decoration[key] = None
                    return None
        deco: Decoration | None = None
        if forms:
            keys = {d: self.decoration_key(d) for d in forms}
            first = next(iter(forms))
            if len(set(keys.values())) > 1:
                deviant = min(r for d, r in forms.items() if keys[d] != keys[first])
                self.unit_conflict.add(key)
                shown = []
                for d in forms:  # in order of first appearance
                    s = d.text.strip() if d else "(none)"
                    if s not in shown:
                        shown.append(s)
                cell = table.cell(deviant, col.index)
                self.emit(Finding("UNIT", sheet.id, column, row_label=self.row_label(sheet, deviant), raw=cell.text,
                                  message="column mixes units: " + " and ".join(shown),
                                  span=(cell.start, cell.end)))
            else:
                deco = first
        self.col_decoration[key] = deco
        return deco

    def decoration_key(self, d: Decoration | None) -> object:
        """Decorations compare by unit map when the suffix parses as a unit (`m^2` is `m²`)."""
        if d is None:
            return None
        if d.side == "suffix":
            try:
                return ("unit", self.m.units.expand(parse_unit(d.text.strip())))
            except UnitSyntaxError:
                pass
        return (d.side, d.text.strip())

    def decoration_problem(self, text: str, unit: UnitMap, what: str, declares: str, forbids: str) -> str | None:
        """Why a written number's decoration disagrees with a declared unit, or None."""
        num = parse_cell_number(text)
        if not isinstance(num, CellNumber):
            return None
        t = text.strip()
        if num.percent:
            return f"{t} is a ratio and cannot carry a unit"
        d = num.decoration
        if d is None:
            return None
        if d.side == "prefix":
            return f'{what} "{t}" has a prefix, which {forbids}'
        suffix = d.text.strip()
        try:
            carried = parse_unit(suffix)
        except UnitSyntaxError:
            return f'{what} "{t}" carries "{suffix}", which is not a unit'
        if not self.m.units.equal(carried, unit):
            return f'{what} "{t}" carries {suffix}, but {declares} {format_unit(unit)}'
        return None

    def row_label(self, sheet: Sheet, row: int) -> str:
        assert sheet.table is not None
        return plain_text(sheet.table.text(row, 0)) or f"row {row + 1}"

    def input_value(self, sheet: Sheet, column: str, row: int) -> object:
        """An input cell's value (number, date, text); the column's cells are read once."""
        key = (sheet.id, column)
        values = self.input_values.get(key)
        if values is None:
            assert sheet.table is not None
            values = self.input_values[key] = [_PENDING] * sheet.table.height
        v = values[row]
        if v is _PENDING:
            v = values[row] = self._read_input(sheet, column, row)
        if isinstance(v, Unevaluable):
            raise v
        return v

    def _read_input(self, sheet: Sheet, column: str, row: int) -> object:
        try:
            return self._input_cell(sheet, column, row)
        except Unevaluable as e:
            return e

    def _input_cell(self, sheet: Sheet, column: str, row: int) -> object:
        assert sheet.table is not None
        if (sheet.id, column) in self.unit_conflict:
            raise Unevaluable("UNIT")  # already reported
        idx = sheet.columns[column].index
        t = sheet.table.text(row, idx)
        if PLAIN_RE.fullmatch(t) is not None:
            return Decimal(t)
        num = parse_cell_number(t)
        if isinstance(num, CellNumber):
            return num.value
        iso = parse_iso(t)
        if iso is not None:
            return iso
        problem = None if sheet.imported else diagnose_date(t)  # an imported field is only ever text
        if problem is not None:
            key = (sheet.id, column, row)
            if key not in self.date_rows:
                self.date_rows.add(key)
                cell = sheet.table.cell(row, idx)
                self.emit(Finding("DATE", sheet.id, column, row_label=self.row_label(sheet, row), raw=problem.raw,
                                  iso_fix=problem.iso_fix, alt_a=problem.alt_a, alt_b=problem.alt_b,
                                  days_apart=problem.days_apart, span=(cell.start, cell.end)))
                if problem.iso_fix:
                    self.edits.append(Edit(cell.start, cell.end, problem.iso_fix, "date"))
            raise Unevaluable("DATE")
        if num == "both":
            raise Unevaluable("UNIT")
        return plain_text(t)

    # ------------------------------------------------------- static derivation

    def derive(self, e: lang.Node, node: Node) -> tuple[str, int | None]:
        """(type, width) of an expression, by the derivation table."""
        if isinstance(e, lang.Num):
            return "num", e.places
        if isinstance(e, lang.DateLit):
            return "date", None
        if isinstance(e, lang.Str):
            return "str", None
        if isinstance(e, lang.Ref):
            r = self.resolve(node.sheet, e)
            if r.node is not None:
                return self.vtype.get(r.node.id, "?"), self.prec.get(r.node.id)
            if r.kind == "input" and r.sheet is not None and r.column is not None:
                return self.input_info(r.sheet, r.column)
            return "?", None
        if isinstance(e, lang.Unary):
            if e.op == "not":
                return "bool", None
            return self.derive(e.operand, node)
        if isinstance(e, lang.Binary):
            if e.op in lang.COMPARISONS or e.op in ("and", "or"):
                return "bool", None
            lt, lp = self.derive(e.left, node)
            rt, rp = self.derive(e.right, node)
            if e.op in ("+", "-") and ("date" in (lt, rt)):
                if lt == "date" and rt == "date" and e.op == "-":
                    return "num", 0
                return "date", None
            if "str" in (lt, rt):
                return "str", None
            if e.op in ("+", "-"):
                return "num", None if lp is None or rp is None else max(lp, rp)
            if e.op == "*":
                return "num", None if lp is None or rp is None else lp + rp
            if e.op == "^":
                if isinstance(e.right, lang.Num) and not e.right.percent and e.right.value == e.right.value.to_integral_value() and e.right.value >= 0 and lp is not None:
                    return "num", lp * int(e.right.value)
                return "num", None
            return "num", None
        if isinstance(e, lang.Call):
            name = e.name
            args = [self.derive(a, node) for a in e.args]
            if name in ("SUM", "MIN", "MAX"):
                t, p = args[0] if args else ("?", None)
                return (t if t != "?" else "num"), p
            if name == "COUNT":
                return "num", 0
            if name == "ROUND":
                if len(e.args) == 2 and isinstance(e.args[1], lang.Num):
                    return "num", int(e.args[1].value)
                return "num", None
            if name in ("FLOOR", "CEILING"):
                return "num", args[1][1] if len(args) == 2 else None
            if name == "ABS":
                return "num", args[0][1] if args else None
            if name == "MOD":
                ps = [p for _, p in args]
                return "num", None if None in ps or not ps else max(ps)  # type: ignore[type-var]
            if name == "IF":
                if len(args) == 3:
                    t = args[1][0] if args[1][0] != "?" else args[2][0]
                    ps = [args[1][1], args[2][1]]
                    if t != "num":
                        return t, None
                    return "num", None if None in ps else max(ps)  # type: ignore[type-var]
                return "?", None
            if name == "EOMONTH":
                return "date", None
            return "num", None
        return "?", None

    # ------------------------------------------------------------ static units

    def unit_of(self, e: lang.Node, node: Node) -> tuple[UnitMap | None, bool]:
        """(unit map or None for non-numbers, whether any operand carries a unit)."""
        defs = self.m.units
        if isinstance(e, lang.Num):
            return (e.unit or DIMENSIONLESS), e.unit is not None
        if isinstance(e, (lang.DateLit, lang.Str)):
            return None, False
        if isinstance(e, lang.Ref):
            r = self.resolve(node.sheet, e)
            if r.node is not None:
                u = self.units.get(r.node.id)
                return u, bool(u)
            if r.kind == "input" and r.sheet is not None and r.column is not None:
                col = r.sheet.columns[r.column]
                kind, _ = self.input_info(r.sheet, r.column)
                if kind in ("date", "str"):
                    return None, False
                return (col.unit or DIMENSIONLESS), bool(col.unit)
            return DIMENSIONLESS, False
        if isinstance(e, lang.Unary):
            u, c = self.unit_of(e.operand, node)
            return (None, c) if e.op == "not" else (u, c)
        if isinstance(e, lang.Binary):
            lu, lc = self.unit_of(e.left, node)
            ru, rc = self.unit_of(e.right, node)
            carries = lc or rc
            if e.op in ("and", "or"):
                return None, carries
            if e.op in ("+", "-") or e.op in lang.COMPARISONS:
                if lu is None or ru is None:
                    if e.op == "-" and lu is None and ru is None:
                        return DIMENSIONLESS, carries  # date - date: a count of days
                    return None, carries
                if not (is_zero(e.left) or is_zero(e.right)) and not defs.equal(lu, ru):
                    raise UnitError(f"{e.op} needs matching units: {format_unit(lu)} and {format_unit(ru)}")
                if e.op in lang.COMPARISONS:
                    return None, carries
                return (ru if is_zero(e.left) else lu), carries
            if lu is None or ru is None:
                return None, carries
            if e.op == "*":
                return combine(lu, ru), carries
            if e.op == "/":
                return combine(lu, ru, -1), carries
            if e.op == "^":
                if not lu:
                    return DIMENSIONLESS, carries
                if isinstance(e.right, lang.Num) and e.right.value == e.right.value.to_integral_value() and e.right.value >= 0:
                    return power(lu, int(e.right.value)), carries
                raise UnitError(f"^ needs a literal exponent when its base has a unit ({format_unit(lu)})")
        if isinstance(e, lang.Call):
            args = [self.unit_of(a, node) for a in e.args]
            carries = any(c for _, c in args)
            maps = [u for u, _ in args]
            name = e.name

            def dimensionless(i: int, what: str) -> None:
                if i < len(maps) and maps[i]:
                    raise UnitError(f"{name}'s {what} must be dimensionless, not {format_unit(maps[i])}")

            def tied(i: int, j: int, msg: str) -> UnitMap | None:
                a, b = maps[i], maps[j]
                if a is None or b is None:
                    return a if b is None else b
                if e.implicit_step and name in ("FLOOR", "CEILING"):
                    return a
                if not (is_zero(e.args[i]) or is_zero(e.args[j])) and not defs.equal(a, b):
                    raise UnitError(f"{msg}: {format_unit(a)} and {format_unit(b)}")
                return b if is_zero(e.args[i]) else a

            if len(maps) != len(REGISTRY[name].params) if name in REGISTRY else True:
                return DIMENSIONLESS, carries
            if name in ("SUM", "MIN", "MAX", "AVG", "ABS"):
                return maps[0], carries
            if name in ("COUNT", "IRR"):
                return DIMENSIONLESS, carries
            if name == "NPV":
                dimensionless(0, "rate")
                return maps[1], carries
            if name == "ROUND":
                dimensionless(1, "places")
                return maps[0], carries
            if name == "MOD":
                return tied(0, 1, "MOD needs matching units"), carries
            if name in ("FLOOR", "CEILING"):
                return tied(0, 1, f"{name} needs matching units"), carries
            if name == "SQRT":
                u = maps[0] or DIMENSIONLESS
                odd = [a for a, x in u if x % 2]
                if odd:
                    raise UnitError(f"SQRT needs even exponents; {odd[0]} has an odd one")
                return tuple((a, x // 2) for a, x in u), carries
            if name == "IF":
                return tied(1, 2, "IF's branches need matching units"), carries
            if name == "EOMONTH":
                return None, carries
            if name == "PMT":
                dimensionless(0, "rate")
                dimensionless(1, "nper")
                return maps[2], carries
        return DIMENSIONLESS, False

    # ------------------------------------------------------------------- run

    def run(self) -> CheckResult:
        m = self.m
        for f in m.findings:
            self.emit(f)
        resolve_imports(self, self.files)
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
                           assertions, self.edits, order, self.unevaluable, self.charts)

    def check_unit_definitions(self) -> None:
        """CYCLE for a definition that expands back to itself, WARN for one nothing uses."""
        defs = self.m.units
        reported: set[frozenset[str]] = set()
        for d in self.m.unit_defs:
            path = defs.find_cycle(d.atom)
            if path is None:
                continue
            defs.cyclic.update(path)
            members = frozenset(path)
            if members in reported:
                continue
            reported.add(members)
            self.emit(Finding("CYCLE", None, f"[{d.atom}]", cycle_path=[f"[{a}]" for a in path],
                              span=(d.start, d.end)))
        used: set[str] = set()
        for d in self.m.unit_defs:
            used.update(a for a, _ in d.unit)
        for sheet in self.m.sheets.values():
            for col in sheet.columns.values():
                used.update(a for a, _ in col.unit or ())
        for node in self.m.nodes:
            b = node.stmt
            if isinstance(b, lang.Binding):
                used.update(a for a, _ in b.unit or ())
                stack: list[lang.Node] = [b.expr]
                while stack:
                    e = stack.pop()
                    if isinstance(e, lang.Num) and e.unit:
                        used.update(a for a, _ in e.unit)
                    stack.extend(children(e))
            elif isinstance(b, lang.Assert):
                stack = [b.expr]
                while stack:
                    e = stack.pop()
                    if isinstance(e, lang.Num) and e.unit:
                        used.update(a for a, _ in e.unit)
                    stack.extend(children(e))
        for d in self.m.unit_defs:
            if d.atom not in used:
                self.emit(Finding("WARN", None, f"[{d.atom}]", f"[{d.atom}] is defined and never used",
                                  span=(d.start, d.end)))

    def coverage(self) -> None:
        m = self.m
        rules = len(m.nodes)
        marked = m.located.no_formulas is not None
        if marked and rules > 0:
            self.emit(Finding("COVERAGE", message=f"marked `{NO_FORMULAS_MARKER}`, but the document has {rules} rule{'s' if rules != 1 else ''}",
                              suggestion="delete the marker — those rules are checked either way",
                              span=m.located.no_formulas))
        elif (not marked and rules == 0 and m.located.tables and not m.unit_defs
              and not any(fence.lang == "vmark" for fence in m.located.fences)):
            # a document with a `vmark` block (aliases only, say) has started on its
            # rules: its other findings say what is wrong, not "there are no rules"
            self.emit(Finding("COVERAGE", message="a table with no `vmark` rules — nothing in this document is checked",
                              suggestion=f"run `visimark infer` to derive them, or mark it `{NO_FORMULAS_MARKER}`"))

    def written(self, node: Node) -> bool:
        return node.kind == "column" or bool(self.anchors_by_id.get(node.id))

    def static_checks(self, node: Node) -> bool:
        """Type, precision and unit of a binding, before any value is computed."""
        b = node.binding
        vtype, derived = self.derive(b.expr, node)
        self.vtype[node.id] = vtype
        if b.precision is not None and vtype in ("date", "str"):
            self.emit(Finding("TYPE", node.sheet or None, node.name,
                              f"a `precision` clause on a {'date' if vtype == 'date' else 'string'}-valued binding",
                              span=(b.start, b.end)))
            return False
        if vtype == "bool":
            self.emit(Finding("TYPE", node.sheet or None, node.name, BOOLEAN_BINDING, span=(b.start, b.end)))
            return False
        gov = b.precision if b.precision is not None else derived
        self.prec[node.id] = gov if vtype in ("num", "?") else None
        if vtype in ("num", "?") and gov is None and self.written(node):
            text = self.m.source[b.expr.start:b.expr.end]
            head = b.name if not b.quoted else f'"{b.name}"'
            self.emit(Finding("PRECISION", node.sheet or None, node.name,
                              f"`{text}` has no derivable precision",
                              suggestion=f"declare the width: `{head} precision N = …`",
                              span=(b.start, b.end)))
            return False
        if b.param is not None and not self.check_param(node):
            return False
        # units
        try:
            derived_unit, carries = self.unit_of(b.expr, node)
        except UnitError as e:
            self.emit(Finding("UNIT", node.sheet or None, node.name, e.message, span=(b.start, b.end)))
            return False
        declared = b.unit
        if node.kind == "column":
            sheet = self.sheet_of(node)
            assert sheet is not None and node.column is not None
            declared = sheet.columns[node.column].unit
        if declared is not None:
            if vtype in ("date", "str"):
                self.emit(Finding("UNIT", node.sheet or None, node.name,
                                  f"a {'date' if vtype == 'date' else 'string'} cannot carry a unit", span=(b.start, b.end)))
                return False
            if isinstance(b.expr, lang.Num) and b.expr.percent or (
                    isinstance(b.expr, lang.Unary) and isinstance(b.expr.operand, lang.Num) and b.expr.operand.percent):
                lit = b.expr if isinstance(b.expr, lang.Num) else b.expr.operand  # type: ignore[union-attr]
                self.emit(Finding("UNIT", node.sheet or None, node.name,
                                  f"{self.m.source[lit.start:lit.end]} is a ratio and cannot carry a unit", span=(b.start, b.end)))
                return False
            if carries and not self.m.units.equal(derived_unit or DIMENSIONLESS, declared):
                self.emit(Finding("UNIT", node.sheet or None, node.name,
                                  f"{node.name} declares {format_unit(declared)} but its formula derives "
                                  f"{format_unit(derived_unit or DIMENSIONLESS)}", span=(b.start, b.end)))
                return False
            self.units[node.id] = declared
        else:
            self.units[node.id] = derived_unit if vtype not in ("date", "str") else None
        return True

    def check_param(self, node: Node) -> bool:
        b = node.binding
        assert b.param is not None
        expr = b.expr
        lit = expr.operand if isinstance(expr, lang.Unary) else expr
        if b.precision is None:
            self.emit(Finding("PRECISION", node.sheet or None, node.name, f"param {node.name} declares no width",
                              suggestion=f"param {node.name} precision N = default …",
                              hint=f"write `param {node.name} precision N = default …`", span=(b.start, b.end)))
            return False
        assert isinstance(lit, lang.Num)
        places = significant_places(b.param.default_text)
        if places > b.precision:
            self.emit(Finding("PRECISION", node.sheet or None, node.name,
                              f"default {b.param.default_text} has {places} decimals; param {node.name} "
                              f"declares {b.precision}", span=(b.start, b.end)))
            return False
        value = -lit.value if isinstance(expr, lang.Unary) else lit.value
        clause = b.param.clause
        if clause.text and is_empty(clause):
            self.emit(Finding("DOMAIN", node.sheet or None, node.name,
                              f"param {node.name} declares an empty domain: {clause.shown} has no legal value",
                              span=(b.start, b.end)))
            return False
        if clause.domain is not None:
            for d in clause.domain.literals:
                if d.percent != b.param.percent:
                    message = (f"{node.name} is a percent; domain value {d.text} must be too" if b.param.percent
                               else f"{node.name} is not a percent; domain value {d.text} must not be one")
                    self.emit(Finding("TYPE", node.sheet or None, node.name, message, span=(b.start, b.end)))
                    return False
                if significant_places(d.text) > b.precision:
                    self.emit(Finding("PRECISION", node.sheet or None, node.name,
                                      f"domain value {d.text} has {significant_places(d.text)} decimals; "
                                      f"param {node.name} "
                                      f"declares {b.precision}", span=(b.start, b.end)))
                    return False
        if not in_domain(clause, value):
            self.emit(Finding("DOMAIN", node.sheet or None, node.name,
                              f"default {b.param.default_text} is not in the domain of {node.name}: {clause.shown}",
                              span=(b.start, b.end)))
            return False
        if clause.lattice is not None:
            # an impossible lattice is a finding on the declaration only: the default still evaluates
            try:
                lattice_points(node.name, clause, clause.lattice, b.param.percent, b.precision)
            except LatticeFault as e:
                self.emit(Finding(e.code, node.sheet or None, node.name, e.message, span=(b.start, b.end)))
        return True

    # -------------------------------------------------------------- evaluation

    def bind(self, node: Node, v: object) -> object:
        """Round a value at its binding's governing width (half-up)."""
        if isinstance(v, bool):
            raise EvalError(BOOLEAN_BINDING)
        if isinstance(v, Decimal):
            p = self.prec.get(node.id)
            if p is not None:
                if v.adjusted() + 1 + p > WORKING_DIGITS:
                    raise EvalError(f"{canonical(v)} is too large to carry {p} decimals", "PRECISION")
                return v.quantize(quantum(p), rounding=ROUND_HALF_UP)
        return v

    def eval_column(self, node: Node) -> None:
        sheet = self.sheet_of(node)
        assert sheet is not None and sheet.table is not None and node.column is not None
        table = sheet.table
        idx = sheet.columns[node.column].index
        key = (sheet.id, node.column)
        deco = self.col_decoration.get(key)
        conflicted = key in self.unit_conflict
        prec = self.prec.get(node.id)
        formula = self.m.source[node.expr.start:node.expr.end]
        out: list[object | None] = []
        upstream = 0
        causes: set[str | None] = set()
        fn = self.compile(node.expr, node)
        q = quantum(prec) if prec is not None else None
        limit = WORKING_DIGITS - 1 - (prec or 0)
        for r, stored in enumerate(table.column(idx)):
            rounded = False
            try:
                v = fn(r)
                if type(v) is Decimal and q is not None:
                    # the common case of bind(), inline: round at the column's width
                    if v.adjusted() > limit:
                        raise EvalError(f"{canonical(v)} is too large to carry {prec} decimals", "PRECISION")
                    v = v.quantize(q, rounding=ROUND_HALF_UP)
                    rounded = True
                else:
                    v = self.bind(node, v)
            except (InvalidOperation, Overflow):
                out.append(None)
                cell = table.cell(r, idx)
                self.emit(Finding("TYPE", sheet.id, node.name, "result is not a finite decimal",
                                  row_label=self.row_label(sheet, r), span=(cell.start, cell.end)))
                continue
            except DivisionByZero:
                out.append(None)
                cell = table.cell(r, idx)
                self.emit(Finding("TYPE", sheet.id, node.name, "division by zero",
                                  row_label=self.row_label(sheet, r), span=(cell.start, cell.end)))
                continue
            except Unevaluable as e:
                out.append(None)
                upstream += 1
                causes.add(e.cause)
                self.row_cause[(node.id, r)] = e.cause
                continue
            except EvalError as e:
                out.append(None)
                if e.message == BOOLEAN_BINDING:
                    self.emit(Finding("TYPE", sheet.id, node.name, BOOLEAN_BINDING, span=(node.stmt.start, node.stmt.end)))
                    self.unevaluable.add(node.id)
                    self.cells[node.id] = out + [None] * (table.height - len(out))
                    return
                cell = table.cell(r, idx)
                self.emit(Finding(e.code, sheet.id, node.name, e.message, row_label=self.row_label(sheet, r),
                                  span=(cell.start, cell.end)))
                continue
            out.append(v)
            # a value just rounded to the width already has its exponent: write it as it is
            text = f"{v:f}" if rounded and v else render(v, prec)
            if deco is not None and isinstance(v, Decimal):
                text = deco.apply(text)
            if conflicted or stored == text or cell_matches(stored, text, v):
                continue
            cell = table.cell(r, idx)
            self.emit(Finding("STALE", sheet.id, node.name, row_label=self.row_label(sheet, r), row_index=r,
                              stored=stored, computed=text, formula=formula, is_cell=True,
                              span=(cell.start, cell.end)))
            self.edits.append(Edit(cell.start, cell.end, text, "cell"))
        self.cells[node.id] = out
        if upstream:
            self.emit(Finding("NOTE", sheet.id, node.name, suppressed_count=upstream,
                              message=f"{upstream} row{'s' if upstream != 1 else ''} not verified "
                                      f"(upstream {next(iter(causes)) + ' ' if len(causes) == 1 and None not in causes else ''}errors)"))

    def eval_scalar(self, node: Node) -> None:
        try:
            v = self.bind(node, self.ev(self.compile(node.expr, node), None))
        except Unevaluable:
            self.unevaluable.add(node.id)
            return
        except EvalError as e:
            self.unevaluable.add(node.id)
            self.emit(Finding(e.code, node.sheet or None, node.name, e.message, span=(node.stmt.start, node.stmt.end)))
            return
        self.values[node.id] = v

    def eval_assert(self, node: Node, deps: set[str], problems: list[Finding]) -> None:
        src = node.stmt.source
        payload = strip_assert(src)
        if problems:
            for f in problems:
                f.source = src
                self.emit(f)
            self.assertions[node.id] = AssertionResult(node.sheet, src, None, {}, payload)
            return
        if any(d in self.unevaluable for d in deps):
            self.assertions[node.id] = AssertionResult(node.sheet, src, None, {}, payload)
            self.assert_suppressed[node.sheet] = self.assert_suppressed.get(node.sheet, 0) + 1
            return
        try:
            self.unit_of(node.expr, node)
        except UnitError as e:
            self.emit(Finding("UNIT", node.sheet, None, e.message, source=src, assertion_scoped=True,
                              span=(node.stmt.start, node.stmt.end)))
            self.assertions[node.id] = AssertionResult(node.sheet, src, None, {}, payload)
            return
        try:
            v = self.ev(self.compile(node.expr, node), None)
        except Unevaluable:
            self.assertions[node.id] = AssertionResult(node.sheet, src, None, {}, payload)
            self.assert_suppressed[node.sheet] = self.assert_suppressed.get(node.sheet, 0) + 1
            return
        except EvalError as e:
            self.assertions[node.id] = AssertionResult(node.sheet, src, None, {}, payload)
            self.emit(Finding(e.code, node.sheet, None, e.message, source=src, assertion_scoped=True))
            return
        if not isinstance(v, bool):
            self.assertions[node.id] = AssertionResult(node.sheet, src, None, {}, payload)
            self.emit(Finding("TYPE", node.sheet, None, f"assert needs a boolean; `{payload}` is {type_word(v)}",
                              source=src, assertion_scoped=True))
            return
        operands, substituted = self.substitute(node)
        self.assertions[node.id] = AssertionResult(node.sheet, src, v, operands, substituted)
        if not v:
            self.emit(Finding("ASSERT", node.sheet, None, substituted, source=src, assertion_scoped=True,
                              substituted=substituted, span=(node.stmt.start, node.stmt.end)))

    def operand_text(self, node: Node, ref: lang.Ref) -> str:
        r = self.resolve(node.sheet, ref)
        if r.node is None or r.node.id not in self.values:
            return ref.text
        v = self.values[r.node.id]
        return render(v, self.prec.get(r.node.id) if isinstance(v, Decimal) else None)

    def substitute(self, node: Node) -> tuple[dict[str, str], str]:
        expr = node.expr
        text = self.m.source[expr.start:expr.end]
        subs: list[tuple[int, int, str]] = []
        operands: dict[str, str] = {}

        def walk(e: lang.Node) -> None:
            if isinstance(e, lang.Ref):
                shown = self.operand_text(node, e)
                operands[e.text] = shown
                subs.append((e.start - expr.start, e.end - expr.start, shown))
            for c in children(e):
                walk(c)

        walk(expr)
        for a, b, s in sorted(subs, reverse=True):
            text = text[:a] + s + text[b:]
        return operands, text

    def ev(self, fn: Evaluator, row: int | None) -> object:
        """Run a compiled expression for one row, decimal traps reported as evaluation errors."""
        try:
            return fn(row)
        except (InvalidOperation, Overflow):
            raise EvalError("result is not a finite decimal") from None
        except DivisionByZero:
            raise EvalError("division by zero") from None

    def compile(self, e: lang.Node, node: Node) -> Evaluator:
        """``e``, part of ``node``'s expression, as a function of the table row it is
        evaluated for (None for a scalar or an assertion).

        Names are resolved and operators dispatched here, once per expression rather than
        once per cell; values are read when the function runs.  Operands are evaluated left
        to right, ``and``/``or`` short-circuit and ``IF`` evaluates only the branch taken.
        """
        if isinstance(e, (lang.Num, lang.DateLit, lang.Str)):
            value = e.value
            return lambda row: value
        if isinstance(e, lang.Ref):
            return self._compile_ref(e, node)
        if isinstance(e, lang.Unary):
            return self._compile_unary(e, node)
        if isinstance(e, lang.Binary):
            return self._compile_binary(e, node)
        if isinstance(e, lang.Call):
            return self._compile_call(e, node)

        def unknown(row: int | None) -> object:
            raise EvalError("unknown expression")

        return unknown

    def _compile_ref(self, ref: lang.Ref, node: Node) -> Evaluator:
        r = self.resolve(node.sheet, ref)
        values, cells, unevaluable = self.values, self.cells, self.unevaluable
        if r.kind == "scalar" and r.node is not None:
            scalar_id = r.node.id

            def scalar(row: int | None) -> object:
                if scalar_id in unevaluable or scalar_id not in values:
                    raise Unevaluable()
                return values[scalar_id]

            return scalar
        if r.kind == "column" and r.node is not None:
            column_id = r.node.id

            def computed_cell(row: int | None) -> object:
                if row is None:
                    raise Unevaluable()
                col = cells.get(column_id)
                v = col[row] if col is not None else None
                if v is None:
                    raise Unevaluable(self.row_cause.get((column_id, row)))
                return v

            return computed_cell
        if r.kind == "input" and r.sheet is not None and r.column is not None and r.sheet.table is not None:
            sheet, column = r.sheet, r.column
            key = (sheet.id, column)
            values = self.input_values.get(key)
            if values is None:
                values = self.input_values[key] = [_PENDING] * sheet.table.height
            read = self._read_input

            def input_cell(row: int | None) -> object:
                if row is None:
                    raise Unevaluable()
                v = values[row]
                if v is _PENDING:
                    v = values[row] = read(sheet, column, row)
                if type(v) is Unevaluable:
                    raise v
                return v

            return input_cell

        def unresolved(row: int | None) -> object:
            raise Unevaluable()

        return unresolved

    def _compile_unary(self, e: lang.Unary, node: Node) -> Evaluator:
        operand = self.compile(e.operand, node)
        if e.op == "not":
            def negation(row: int | None) -> object:
                v = operand(row)
                if not isinstance(v, bool):
                    raise EvalError(f"`not` needs a boolean, not {type_word(v)}")
                return not v

            return negation

        def minus(row: int | None) -> object:
            v = operand(row)
            if isinstance(v, bool) or not isinstance(v, Decimal):
                raise EvalError(f"cannot negate {type_word(v)}")
            return -v

        return minus

    def _compile_binary(self, e: lang.Binary, node: Node) -> Evaluator:
        left, right = self.compile(e.left, node), self.compile(e.right, node)
        op = e.op
        if op in ("and", "or"):
            decisive = op == "or"  # the left value that settles the result on its own

            def logic(row: int | None) -> object:
                a = left(row)
                if not isinstance(a, bool):
                    raise EvalError(f"`{op}` needs booleans, not {type_word(a)}")
                if a is decisive:
                    return a
                b = right(row)
                if not isinstance(b, bool):
                    raise EvalError(f"`{op}` needs booleans, not {type_word(b)}")
                return b

            return logic
        plain = DECIMAL_OPS.get(op)
        if plain is None:
            return lambda row: binary(op, left(row), right(row))

        def arithmetic(row: int | None) -> object:
            a = left(row)
            b = right(row)
            if type(a) is Decimal and type(b) is Decimal:
                return plain(a, b)  # the common case, without binary()'s type checks
            return binary(op, a, b)

        return arithmetic

    def _compile_call(self, e: lang.Call, node: Node) -> Evaluator:
        name = e.name
        if REGISTRY[name].kind == "reduce":
            col_ref = e.args[-1]
            assert isinstance(col_ref, lang.Ref)
            extra = [self.compile(a, node) for a in e.args[:-1]]

            def reduce(row: int | None) -> object:
                values = self.vector(col_ref, node)
                return reduce_call(name, values, [f(row) for f in extra])

            return reduce
        args = [self.compile(a, node) for a in e.args]
        if name == "IF":
            cond, then, otherwise = args

            def choose(row: int | None) -> object:
                c = cond(row)
                if not isinstance(c, bool):
                    raise EvalError(f"IF needs a boolean condition, not {type_word(c)}")
                return then(row) if c else otherwise(row)

            return choose
        return lambda row: map_call(name, [f(row) for f in args])

    def vector(self, ref: lang.Ref, node: Node) -> list[object]:
        r = self.resolve(node.sheet, ref)
        if r.kind == "column" and r.node is not None:
            if r.node.id in self.unevaluable:
                raise Unevaluable()
            col = self.cells.get(r.node.id)
            if col is None or any(v is None for v in col):
                raise Unevaluable()
            return list(col)  # type: ignore[arg-type]
        if r.kind == "input" and r.sheet is not None and r.column is not None and r.sheet.table is not None:
            return [self.input_value(r.sheet, r.column, i) for i in range(r.sheet.table.height)]
        raise Unevaluable()

    # ----------------------------------------------------------------- anchors

    def check_anchors(self) -> None:
        stale_ids: set[str] = set()
        for a in self.m.located.bad_comments:
            self.emit(Finding("ANCHOR", "", "", MALFORMED_MESSAGE, span=(a.start, a.end)))
        type_reported: set[str] = set()
        for a in self.m.located.anchors:
            sheet = self.m.sheets.get(a.sheet)
            node = sheet.scalars.get(a.name) if sheet else None
            def anchor_finding(msg: str, code: str = "ANCHOR") -> None:
                self.emit(Finding(code, a.sheet, a.name, msg, span=(a.comment_start, a.comment_end)))
            chart = next((c for c in sheet.charts if c.name == a.name), None) if sheet else None
            if chart is not None:
                if a.kind != "image":
                    anchor_finding(f"a chart anchor follows its image: `![...](path)<!--vmark={a.id}-->`")
                continue  # an image anchor names the chart's file; it is never rewritten
            if node is None:
                if sheet is not None and sheet.column_name(a.name) is not None:
                    anchor_finding("an anchor names a scalar; a column is written in its table")
                else:
                    # upstream leaves such an anchor unchecked; say so as advice
                    cands = set(sheet.scalars) if sheet else set(self.m.sheets)
                    guess = closest(a.name if sheet else a.sheet, cands)
                    self.emit(Finding("WARN", a.sheet, a.name,
                                      message=f"anchor `{a.id}` names no scalar, so its value is not checked",
                                      suggestion=guess, span=(a.comment_start, a.comment_end)))
                continue
            if a.rule is not None and a.rule not in RULES:
                anchor_finding(f"unknown display rule `{a.rule}`")
                continue
            if a.kind == "image":
                anchor_finding("an image anchor must name a chart")
                continue
            if a.kind in ("bad", "empty"):
                anchor_finding(NO_VALUE_MESSAGE)
                continue
            if a.rule is not None and a.kind == "text":
                anchor_finding(BARE_SEED_MESSAGE)
                continue
            refused = False
            if a.rule is not None and a.kind == "code" and not RULES[a.rule].inline_code:
                anchor_finding(code_span_message(a.rule))
                refused = True
            if node.id in self.unevaluable or node.id not in self.values:
                continue
            value = self.values[node.id]
            if a.rule is not None:
                problem = self.rule_type_problem(node, a.rule, value)
                if problem is not None:
                    if node.id not in type_reported:
                        type_reported.add(node.id)
                        self.emit(Finding("TYPE", a.sheet, a.name, problem, span=(a.comment_start, a.comment_end)))
                    continue
            if refused:
                continue
            if a.rule == "nbsp" and a.kind in ("strong", "emphasis") and a.value_span is not None:
                assert isinstance(value, str)
                why = self.nbsp_problem(a, value)
                if why is not None:
                    anchor_finding(why)
                    continue
            stored = self.m.source[a.value_span[0]:a.value_span[1]] if a.value_span else ""
            if a.kind == "text":
                refusal = bare_token_refusal(value, stored)
                if refusal is not None:
                    anchor_finding(refusal)
                    continue
            if a.rule is None and not isinstance(value, Decimal):
                continue  # string and date anchors are targets, never compared
            if a.rule is None and node.binding.unit is not None:
                problem = self.decoration_problem(stored, node.binding.unit, "anchor", f"{node.name} declares",
                                                  "a value with a unit forbids")
                if problem is not None:
                    anchor_finding(problem, "UNIT")
                    continue
            try:
                text = self.render_anchor(node, a, value, stored)
            except EvalError as e:
                self.emit(Finding(e.code, a.sheet, a.name, e.message, span=(a.comment_start, a.comment_end)))
                continue
            if text is None or stored == text:
                continue
            if a.rule is None and cell_matches(stored, text, value):
                continue  # a plain anchor written as a percent (`40.26%`) holds the same number
            stale_ids.add(a.id)
            if not self.cross_sheet_aggregate(node):
                formula = None
                if isinstance(node.expr, lang.Call) and is_reduce(node.expr.name):
                    formula = self.m.source[node.expr.start:node.expr.end]
                self.emit(Finding("STALE", node.sheet or None, node.name, stored=stored, computed=text,
                                  formula=formula, span=a.value_span, binding_order=node.order))
            assert a.value_span is not None
            self.edits.append(Edit(a.value_span[0], a.value_span[1], text, "anchor"))
        if stale_ids:
            # the roll-up counts every anchor bound to a stale scalar, current ones included
            bound = sum(len(self.anchors_by_id[i]) for i in stale_ids)
            self.emit(Finding("STALE", anchor_group=True, suppressed_count=bound))

    def check_reports(self) -> None:
        """A report's names must be scalars; `check` never runs a report."""
        for sheet in self.m.sheets.values():
            for stmt in sheet.reports:
                for ref in stmt.refs:
                    r = self.resolve(sheet.id, ref)
                    span = (ref.start, ref.end)
                    if r.kind == "unknown":
                        self.emit(Finding("UNDEF", sheet.id, None, raw=ref.text, suggestion=r.suggestion,
                                          assertion_scoped=True, span=span))
                    elif r.kind in ("column", "input"):
                        self.emit(Finding("TYPE", sheet.id, None, f"a report reads a scalar; {ref.text} is a column",
                                          assertion_scoped=True, span=span))
                if stmt.name == "deltas" and not stmt.on and not any(
                        n.binding.param is None for n in sheet.scalars.values()):
                    self.emit(Finding("TYPE", sheet.id, None, "`report deltas` has nothing to read: this sheet has "
                                      "no scalar that is not a param; name the values with `deltas on REF, …`",
                                      assertion_scoped=True, span=(stmt.start, stmt.end)))

    def rule_type_problem(self, node: Node, rule: str, value: object) -> str | None:
        """The TYPE message when ``rule`` cannot render this scalar's value, else None."""
        unit = self.units.get(node.id)
        is_num = isinstance(value, Decimal)
        if rule in ("percent", "nbsp") and is_num and unit:
            return f"|{rule} cannot render a value with a unit ({format_unit(unit)})"
        accepts = {
            "percent": is_num,
            "nbsp": isinstance(value, str) and not isinstance(value, bool),
            "unit": is_num and bool(unit),
        }
        return None if accepts[rule] else TYPE_MESSAGE

    def nbsp_problem(self, a: Anchor, value: str) -> str | None:
        """Refuse an ``|nbsp`` anchor whose rendering would not read back as ``value``."""
        assert a.value_span is not None
        width = 2 if a.kind == "strong" else 1
        src = self.m.source
        start, end = a.value_span
        opener = src[start - width:start]
        closer = src[end:end + width]
        before = src[start - width - 1] if start - width > 0 else ""
        if before in ("\n", "\r"):
            before = ""
        after = src[end + width] if end + width < len(src) else ""
        return nbsp_refusal(value, opener, closer, before, after)

    def render_anchor(self, node: Node, a: Anchor, value: object, stored: str) -> str | None:
        prec = self.prec.get(node.id)
        unit = self.units.get(node.id)
        if a.rule is None:
            text = render(value, prec)
            if isinstance(value, Decimal):
                num = parse_cell_number(stored)
                if isinstance(num, CellNumber) and num.decoration is not None:
                    text = num.decoration.apply(text)
            return text
        if a.rule == "percent":
            assert isinstance(value, Decimal)
            if prec is None or prec < 2:
                raise EvalError(f"percent display needs precision 2 or more; {node.name} has {prec if prec is not None else 'none'}", "PRECISION")
            return fixed(value * 100, prec - 2) + "%"
        if a.rule == "nbsp":
            assert isinstance(value, str)
            return nbsp_render(value)
        assert isinstance(value, Decimal) and unit
        return render(value, prec) + " " + format_unit(unit)

    def cross_sheet_aggregate(self, node: Node) -> bool:
        e = node.expr
        if not (isinstance(e, lang.Call) and is_reduce(e.name) and e.args and isinstance(e.args[-1], lang.Ref)):
            return False
        r = self.resolve(node.sheet, e.args[-1])
        return r.kind in ("column", "input") and r.sheet is not None and r.sheet.id != node.sheet

    def warn_unused(self) -> None:
        referenced: set[str] = set()
        used_aliases: set[tuple[str, str]] = set()
        for n in self.m.nodes:
            def walk(e: lang.Node) -> None:
                if isinstance(e, lang.Ref):
                    sheet_id = e.qualifier or n.sheet
                    sh = self.m.sheets.get(sheet_id)
                    if sh is not None and e.name in sh.aliases:
                        used_aliases.add((sheet_id, e.name))
                    r = self.resolve(n.sheet, e)
                    if r.node is not None:
                        referenced.add(r.node.id)
                for c in children(e):
                    walk(c)
            walk(n.expr)
            if n.kind == "column" and not n.binding.quoted and n.name != n.binding.name:
                used_aliases.add((n.sheet, n.binding.name))
        for sheet in self.m.sheets.values():  # a report's names count as reads
            for stmt in sheet.reports:
                for ref in stmt.refs:
                    r = self.resolve(sheet.id, ref)
                    if r.node is not None:
                        referenced.add(r.node.id)
        anchored = set(self.anchors_by_id)
        reported = {(f.sheet or "", f.name) for f in self.entries}
        for n in self.m.nodes:
            if n.kind != "scalar" or not n.sheet or n.id in referenced or n.id in anchored or n.id in self.unevaluable:
                continue
            if (n.sheet, n.name) in reported:
                continue
            self.emit(Finding("WARN", n.sheet or None, n.name,
                              suggestion=closest(n.name, {r.rsplit(".", 1)[-1] for r in referenced}),
                              span=(n.stmt.start, n.stmt.end)))
        for sheet in self.m.sheets.values():
            for symbol, (_, span) in sheet.aliases.items():
                if (sheet.id, symbol) not in used_aliases:
                    self.emit(Finding("WARN", sheet.id, symbol, span=span))


# ---------------------------------------------------------------------------


def lang_ident(name: str) -> bool:
    return IDENT_RE.fullmatch(name) is not None


def children(e: lang.Node) -> list[lang.Node]:
    if isinstance(e, lang.Unary):
        return [e.operand]
    if isinstance(e, lang.Binary):
        return [e.left, e.right]
    if isinstance(e, lang.Call):
        return list(e.args)
    return []


def is_zero(e: lang.Node) -> bool:
    return isinstance(e, lang.Num) and e.value == 0 and e.unit is None and not e.percent


def strip_assert(source: str) -> str:
    return source[len("assert"):].strip() if source.startswith("assert") else source


def cell_matches(stored: str, text: str, value: object) -> bool:
    if stored == text:
        return True
    if isinstance(value, Decimal):
        num = parse_cell_number(stored)
        if isinstance(num, CellNumber) and num.percent:
            return num.value == value
    return False


def binary(op: str, a: object, b: object) -> object:
    if op in lang.COMPARISONS:
        return compare(op, a, b)
    a_num = isinstance(a, Decimal) and not isinstance(a, bool)
    b_num = isinstance(b, Decimal) and not isinstance(b, bool)
    if isinstance(a, date) and op in ("+", "-"):
        if isinstance(b, date) and op == "-":
            return Decimal((a - b).days)
        if b_num:
            assert isinstance(b, Decimal)
            if b != b.to_integral_value():
                raise EvalError("a date moves by a whole number of days")
            try:
                return a + timedelta(days=int(b) if op == "+" else -int(b))
            except OverflowError:
                raise EvalError("date outside years 1–9999", "DATE") from None
    if isinstance(b, date) and op == "+" and a_num:
        return binary("+", b, a)
    if not (a_num and b_num):
        raise EvalError(f"`{op}` expects a number")
    assert isinstance(a, Decimal) and isinstance(b, Decimal)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise EvalError("division by zero")
        return a / b
    if op == "^":
        if b != b.to_integral_value():
            if a < 0:
                raise EvalError("result is not a finite decimal")
            return a ** b
        if a == 0 and b < 0:
            raise EvalError("result is not a finite decimal")
        if abs(b) > 100000:
            raise EvalError("result is not a finite decimal")
        return a ** int(b)
    raise EvalError(f"unknown operator `{op}`")


def compare(op: str, a: object, b: object) -> bool:
    same = (isinstance(a, Decimal) and isinstance(b, Decimal)) or (isinstance(a, date) and isinstance(b, date)) or (
        isinstance(a, str) and isinstance(b, str))
    if isinstance(a, bool) or isinstance(b, bool) or not same:
        if op in ("==", "!=") and isinstance(a, bool) and isinstance(b, bool):
            return (a == b) if op == "==" else (a != b)
        raise EvalError(f"`{op}` cannot compare {type_word(a)} with {type_word(b)}")
    if isinstance(a, str) and op not in ("==", "!="):
        raise EvalError(f"`{op}` cannot order strings")
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if op == "<":
        return a < b  # type: ignore[operator]
    if op == "<=":
        return a <= b  # type: ignore[operator]
    if op == ">":
        return a > b  # type: ignore[operator]
    return a >= b  # type: ignore[operator]


def significant_places(literal: str) -> int:
    """Decimals a number literal needs once trailing zeros go (`2.00` needs 0, `12.5%` needs 3)."""
    percent = literal.endswith("%")
    digits = literal.rstrip("%").lstrip("-")
    frac = digits.split(".")[1].rstrip("0") if "." in digits else ""
    return len(frac) + (2 if percent else 0)


def tarjan(nodes: list[str], graph: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            recurse = False
            succ = graph.get(v, [])
            for j in range(i, len(succ)):
                w = succ[j]
                if w not in index:
                    work.append((v, j + 1))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out


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
