"""Document model: sheets, document scope, column rules, scalars, aliases and units.

Built from the locator's output and the parsed block statements.  Structural problems
found while building (bad sheet ids, duplicate names, statements that do not parse,
rules with no table) are recorded as findings; the model is still built around them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import lang, syntax
from .findings import Finding
from .import_decl import ImportDecl, ImportSyntaxError, parse_import
from .locate import Cell, Located, Table, locate, plain_text
from .statements import ChartStmt, ReportStmt
from .units import UnitDefinitions, UnitMap, UnitSyntaxError, parse_unit

IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class Column:
    """A table column: ``name`` is the header's name (unit clause removed)."""

    name: str
    index: int
    header: Cell
    unit: UnitMap | None = None
    unit_text: str | None = None
    unit_span: tuple[int, int] | None = None


@dataclass
class Node:
    """A binding or an assertion: one node of the dependency graph."""

    id: str
    sheet: str  # "" for document scope
    name: str
    kind: str  # column | scalar | assert
    stmt: syntax.Statement
    column: str | None = None  # header name for a column rule
    order: int = 0

    @property
    def expr(self) -> syntax.Node:
        return self.stmt.expr  # type: ignore[attr-defined]

    @property
    def binding(self) -> syntax.Binding:
        assert isinstance(self.stmt, syntax.Binding)
        return self.stmt


@dataclass
class Chart:
    """A ``chart`` declaration of a sheet; ``order`` is its statement's place in the document."""

    sheet: str
    stmt: ChartStmt
    order: int = 0

    @property
    def name(self) -> str:
        return self.stmt.name

    @property
    def id(self) -> str:
        return f"{self.sheet}.{self.stmt.name}"


@dataclass
class Sheet:
    id: str
    table: Table | None = None
    columns: dict[str, Column] = field(default_factory=dict)
    aliases: dict[str, tuple[str, tuple[int, int]]] = field(default_factory=dict)
    rules: dict[str, Node] = field(default_factory=dict)  # keyed by column name
    scalars: dict[str, Node] = field(default_factory=dict)
    assertions: list[Node] = field(default_factory=list)
    charts: list["Chart"] = field(default_factory=list)
    reports: list[ReportStmt] = field(default_factory=list)
    import_decl: ImportDecl | None = None
    import_failed: bool = False

    @property
    def imported(self) -> bool:
        return self.import_decl is not None

    def column_name(self, name: str) -> str | None:
        """The header name a symbol denotes (an alias or the header's own name)."""
        if name in self.aliases:
            return self.aliases[name][0]
        if name in self.columns:
            return name
        return None


@dataclass
class Model:
    source: str
    located: Located
    sheets: dict[str, Sheet] = field(default_factory=dict)
    doc: dict[str, Node] = field(default_factory=dict)
    units: UnitDefinitions = field(default_factory=UnitDefinitions)
    unit_defs: list[syntax.UnitDef] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)  # document order
    findings: list[Finding] = field(default_factory=list)

    def node(self, node_id: str) -> Node | None:
        for n in self.nodes:
            if n.id == node_id:
                return n
        return None


def header_unit(text: str) -> tuple[str, str | None, tuple[int, int] | None, str | None]:
    """Split a header's source text into (stem, unit text, unit offsets, error message)."""
    t = text.rstrip()
    if not t.endswith("]") or t.endswith("\\]"):
        return text, None, None, None
    depth_open = -1
    i = len(t) - 2
    while i >= 0:
        if t[i] == "[" and (i == 0 or t[i - 1] != "\\"):
            depth_open = i
            break
        i -= 1
    if depth_open == -1:
        return text, None, None, None
    if t[depth_open + 1 : depth_open + 2] == "^" or (depth_open > 0 and t[depth_open - 1] == "]"):
        return text, None, None, None
    stem = t[:depth_open].rstrip()
    content = t[depth_open + 1 : -1]
    span = (depth_open, len(t))
    if not stem:
        return stem, content, span, "a header needs a name before its unit"
    if header_unit(stem)[1] is not None:
        return stem, content, span, "a header has one unit clause"
    return stem, content, span, None


def invalid_sheet_id(sheet_id: str) -> str:
    """The SHEET message naming each invalid character once, in order of first appearance
    (a leading digit counts as one)."""
    bad: list[str] = []
    for i, c in enumerate(sheet_id):
        if (not (c.isascii() and (c.isalnum() or c == "_")) or (i == 0 and c.isdigit())) and c not in bad:
            bad.append(c)
    listed = ", ".join(f"`{c}`" for c in bad)
    return (f"sheet id `{sheet_id}` is not a valid identifier — invalid "
            f"character{'s' if len(bad) > 1 else ''} {listed}")


def unit_header_hint(text: str, sheet: "Sheet") -> str | None:
    """For a name written with its header's unit clause (`Weight [kg]`), say which part is the name."""
    stem, unit, _, err = header_unit(text)
    if unit is None or err is not None:
        return None
    col = sheet.columns.get(plain_text(stem))
    if col is None or col.unit_text is None:
        return None
    return f"the header's name is {col.name}; [{unit}] is its unit"


def build(src: str) -> Model:
    """Locate and parse a document into its model."""
    located = locate(src)
    model = Model(src, located)
    order = 0

    def emit(f: Finding) -> None:
        model.findings.append(f)

    for fence in located.fences:
        if fence.lang != "vmark":
            continue
        sheet_id = ""
        info = src[fence.info_span[0]:fence.info_span[1]]
        head = re.match(r"\S+\s+#(\S+)", info)
        decl: ImportDecl | None = None
        if head:
            sheet_id = head.group(1)
            if not IDENT_RE.fullmatch(sheet_id):
                emit(Finding("SHEET", sheet_id, None, invalid_sheet_id(sheet_id), span=fence.info_span))
            try:
                decl = parse_import(info[head.end():], fence.info_span[0] + head.end())
            except ImportSyntaxError as e:
                emit(Finding("TYPE", sheet_id, None, e.message, assertion_scoped=True, span=e.span))
                continue  # a declaration that does not parse: the block's rules are not read
        sheet: Sheet | None = None
        if sheet_id:
            sheet = model.sheets.get(sheet_id)
            if sheet is None:
                sheet = Sheet(sheet_id)
                model.sheets[sheet_id] = sheet
            if decl is not None:
                if fence.table is not None:
                    emit(Finding("SHEET", sheet_id, None, "an imported sheet may not also own an inline table",
                                 span=fence.info_span))
                if sheet.import_decl is None and sheet.table is None:
                    sheet.import_decl = decl
            elif fence.table is not None and sheet.table is None and sheet.import_decl is None:
                sheet.table = located.tables[fence.table]
                _read_header(model, sheet, emit)
                _params_named_like_headers(model, sheet, emit)
        if sheet is not None and sheet.table is None and decl is None and _detached(located, fence):
            emit(Finding("SHEET", sheet_id, None,
                         "this block declares column rules but no table immediately precedes it",
                         span=(fence.start, fence.end)))
        for text, offset in fence.lines:
            try:
                stmt = lang.parse_statement(text, offset)
            except syntax.LangError as e:
                name = _head_name(text)
                report = name is None and re.match(r"\s*report(?![A-Za-z0-9_])", text) is not None
                emit(Finding(e.code, sheet_id or None, name, e.message, assertion_scoped=report,
                             span=(e.offset, e.offset + 1)))
                continue
            if stmt is None:
                continue
            order += 1
            _add_statement(model, sheet, sheet_id, stmt, order, emit)

    # sheets with column-rule-shaped bindings but no table are caught in _add_statement
    return model


def _params_named_like_headers(model: Model, sheet: Sheet, emit) -> None:
    """A param an earlier block bound under a header of the table that has just attached: DUP
    on the param, and the column keeps its data, as when the block comes after the table
    (upstream's scenario-params spec §4.1, "whatever the order of table and block")."""
    for name in [n for n, node in sheet.scalars.items() if node.binding.param is not None and n in sheet.columns]:
        node = sheet.scalars.pop(name)
        model.nodes.remove(node)
        emit(Finding("DUP", sheet.id, name, span=(node.stmt.start, node.stmt.end)))


def _detached(located: Located, fence) -> bool:
    """A sheet block with no table right above it that writes a header of the nearest table
    above (one no block has claimed): prose has come between a table and its rules."""
    claimed = {f.table for f in located.fences if f.table is not None}
    above = [i for i, t in enumerate(located.tables) if t.end <= fence.start]
    if not above or above[-1] in claimed:
        return False
    headers = {plain_text(c.text) for c in located.tables[above[-1]].header}
    headers |= {plain_text(header_unit(c.text)[0]) for c in located.tables[above[-1]].header}
    for text, _ in fence.lines:
        m = re.match(r'\s*(?:"([^"]+)"|([A-Za-z_][A-Za-z0-9_]*))\s*(?:\[[^\]]*\]\s*)?(?:precision\s+\d+\s*)?=(?!=)', text)
        if m and (m.group(1) or m.group(2)) in headers:
            return True
    return False


def _head_name(text: str) -> str | None:
    """The name a line that does not parse was about: a binding's, a chart's, or none (a report)."""
    if re.match(r"\s*report(?![A-Za-z0-9_])", text) and "=" not in text:
        return None
    chart = re.match(r"\s*chart\s+([A-Za-z_][A-Za-z0-9_]*)", text)
    if chart:
        return None if chart.group(1) == "as" else chart.group(1)
    quoted = re.match(r'\s*param\s+"([^"]+)"', text)
    if quoted:
        return quoted.group(1)
    m = re.match(r"\s*(?:param\s+)?([A-Za-z_][A-Za-z0-9_]*)", text)
    return m.group(1) if m else None


def _read_header(model: Model, sheet: Sheet, emit) -> None:
    assert sheet.table is not None
    seen: dict[str, int] = {}
    for idx, cell in enumerate(sheet.table.header):
        stem, unit_text, span, err = header_unit(cell.text)
        name = cell.plain if unit_text is None else plain_text(stem)
        col = Column(name, idx, cell)
        if err:
            emit(Finding("UNIT", sheet.id, name or cell.text, err, span=(cell.start, cell.end)))
        elif unit_text is not None and span is not None:
            col.unit_text = unit_text
            col.unit_span = (cell.start + span[0], cell.start + span[1])
            try:
                col.unit = parse_unit(unit_text)
            except UnitSyntaxError as e:
                emit(Finding("UNIT", sheet.id, name, str(e), span=(cell.start, cell.end)))
        if name in seen:
            emit(Finding("DUP", sheet.id, name,
                         f"two header cells are named `{name}` (columns {seen[name] + 1} and {idx + 1})",
                         span=(cell.start, cell.end)))
            continue
        if name in lang.RESERVED:
            emit(Finding("DUP", sheet.id, name, f"`{name}` is a keyword and cannot be a column header",
                         span=(cell.start, cell.end)))
        seen[name] = idx
        sheet.columns[name] = col


def _add_statement(model: Model, sheet: Sheet | None, sheet_id: str, stmt: syntax.Statement, order: int, emit) -> None:
    prefix = f"{sheet_id}." if sheet_id else ""
    if isinstance(stmt, ChartStmt):
        _add_chart(sheet, sheet_id, stmt, order, emit)
        return
    if isinstance(stmt, ReportStmt):
        if sheet is None:
            emit(Finding("SHEET", None, None, "`report` must be in a `#id` sheet block", span=(stmt.start, stmt.end)))
            return
        for other in sheet.reports:
            if other.normalized == stmt.normalized:
                emit(Finding("DUP", sheet_id, None, f"{stmt.normalized} is declared twice in sheet {sheet_id}",
                             assertion_scoped=True, span=(stmt.start, stmt.end)))
                return
        sheet.reports.append(stmt)
        return
    if isinstance(stmt, syntax.UnitDef):
        if sheet is not None:
            emit(Finding("SHEET", sheet_id, None, "a unit definition belongs in a document-scope block",
                         span=(stmt.start, stmt.end)))
            return
        for other in model.unit_defs:
            if other.atom == stmt.atom:
                line = model.source.count("\n", 0, other.start) + 1
                emit(Finding("DUP", None, f"[{stmt.atom}]", f"[{stmt.atom}] is already defined at line {line}",
                             span=(stmt.start, stmt.end)))
                return
        model.unit_defs.append(stmt)
        model.units.defs[stmt.atom] = stmt.unit
        return
    if isinstance(stmt, syntax.Assert):
        if sheet is None:
            emit(Finding("SHEET", None, None, "`assert` must be in a `#id` sheet block",
                         span=(stmt.start, stmt.end)))
            return
        node = Node(f"{sheet_id}#assert{len(sheet.assertions) + 1}", sheet_id, "", "assert", stmt, order=order)
        sheet.assertions.append(node)
        model.nodes.append(node)
        return
    if isinstance(stmt, syntax.Alias):
        if sheet is None or sheet.table is None:
            emit(Finding("SHEET", sheet_id or None, stmt.symbol, "an alias needs the sheet's table above its block",
                         span=(stmt.start, stmt.end)))
            return
        if stmt.header not in sheet.columns:
            from .suggest import closest

            hint = unit_header_hint(stmt.header, sheet)
            emit(Finding("UNDEF", sheet_id, stmt.symbol, raw=stmt.header,
                         suggestion=None if hint else closest(stmt.header, sheet.columns), hint=hint,
                         span=(stmt.start, stmt.end)))
            return
        if stmt.symbol in sheet.aliases:
            emit(Finding("DUP", sheet_id, stmt.symbol, span=(stmt.start, stmt.end)))
            return
        if stmt.symbol in sheet.columns or stmt.symbol in sheet.scalars:
            emit(Finding("DUP", sheet_id, stmt.symbol, span=(stmt.start, stmt.end)))
            return
        sheet.aliases[stmt.symbol] = (stmt.header, stmt.symbol_span)
        return
    assert isinstance(stmt, syntax.Binding)
    b = stmt
    # column rule?
    col_name: str | None = None
    if sheet is not None and sheet.table is not None:
        if b.quoted:
            col_name = b.name if b.name in sheet.columns else None
        else:
            col_name = sheet.column_name(b.name)
    if b.quoted and col_name is None:
        from .suggest import closest

        if sheet is None or sheet.table is None:
            emit(Finding("SHEET", sheet_id or None, b.name, "a quoted column rule needs the sheet's table above its block",
                         span=(b.start, b.end)))
            return
        hint = unit_header_hint(b.name, sheet)
        emit(Finding("UNDEF", sheet_id, b.name, raw=f'"{b.name}"', message=None,
                     suggestion=None if hint else closest(b.name, sheet.columns), hint=hint, span=b.name_span))
        return
    if col_name is not None:
        assert sheet is not None
        if b.param is not None:
            emit(Finding("DUP", sheet_id, b.name, span=(b.start, b.end)))
            return
        if b.unit_text is not None:
            emit(Finding("UNIT", sheet_id, col_name, f"{col_name}'s unit is declared on its header, not on its rule",
                         span=b.unit_span))
            return
        if col_name in sheet.rules:
            emit(Finding("DUP", sheet_id, b.name, span=(b.start, b.end)))
            return
        node = Node(f"{prefix}{col_name}", sheet_id, col_name, "column", b, column=col_name, order=order)
        sheet.rules[col_name] = node
        model.nodes.append(node)
        return
    scope = model.doc if sheet is None else sheet.scalars
    if b.name in scope or (sheet is not None and (b.name in sheet.aliases
                                                  or any(c.name == b.name for c in sheet.charts))):
        emit(Finding("DUP", sheet_id or None, b.name, span=(b.start, b.end)))
        return
    node = Node(f"{prefix}{b.name}", sheet_id, b.name, "scalar", b, order=order)
    scope[b.name] = node
    model.nodes.append(node)


def _add_chart(sheet: Sheet | None, sheet_id: str, stmt: ChartStmt, order: int, emit) -> None:
    span = (stmt.start, stmt.end)
    if sheet is None:
        emit(Finding("SHEET", None, stmt.name, "`chart` must be in a `#id` sheet block", span=span))
        return
    if sheet.table is None and not sheet.imported:
        emit(Finding("SHEET", sheet_id, stmt.name, "a chart needs a table", span=span))
        return
    taken = set(sheet.columns) | set(sheet.scalars) | set(sheet.aliases) | {c.name for c in sheet.charts}
    if stmt.name in taken:
        emit(Finding("DUP", sheet_id, stmt.name, span=span))
        return
    sheet.charts.append(Chart(sheet_id, stmt, order))
