"""`infer`: the rules that reproduce the numbers a plain Markdown document already has.

For a document with tables and no ``vmark`` rules, :func:`infer` proposes

* **column rules**: ``C = A op B`` over two numeric columns of a table (stage 1), ``C = A *
  k`` with ``k`` solved from one row (stage 2), and ``C = A * s`` with ``s`` a scalar of
  stage 3 (stage 4);
* **scalars**: ``SUM``/``AVG``/``MIN``/``MAX``/``COUNT`` of a column whose value is already
  written in the prose after its table, exactly as ``fmt`` would write it (stage 3), with
  an anchor on that figure;
* **aliases** (``"Unit price" is up``) for headers that are not identifiers.

Nothing here is fitted.  Candidates are screened with plain decimal arithmetic, then every
survivor is verified by the real engine (:func:`check` on a document holding the table and
the rule), so a rule is proposed only when ``check`` itself says it reproduces every cell it
covers, at the column's own width (a ``precision`` clause is added where the width the rule
derives is not the one the cells show).  Selection builds an acyclic set (a rule that would
close a cycle with those already chosen is dropped), prefers a rule over materialised
columns to one with a constant, and the constructive form (``*``, ``+``) to its
rearrangement; two survivors that still rank equally are reported as ambiguous and neither
is proposed.  Two rows of evidence make a proposal *weak* (reported, never written); one
row is no evidence; a rule that fits every row but one is a *near-miss*, reported with the
row that disagrees and never written.

Finally the whole proposal is written into the document (:func:`plan`) and checked once
more; anything that does not verify there is withdrawn.  So ``infer --write`` always leaves
a document that ``check`` passes, apart from what was wrong with it before.

The module is pure: text in, proposals and insertions out.  A document that already has
``vmark`` blocks, or says ``<!--vmark:no-formulas-->``, is left alone (``left_alone`` says
why): adopting rules is for documents that have none.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from decimal import Decimal, DivisionByZero, InvalidOperation, Overflow, localcontext

from . import lang
from .builtins import REGISTRY
from .check import CheckResult, check
from .locate import NO_FORMULAS_MARKER, Located, Table, _code_spans, locate, plain_text, split_lines
from .model import IDENT_RE, build, header_unit
from .units import UnitSyntaxError, parse_unit
from .values import CONTEXT, CellNumber, Decoration, fixed, parse_cell_number

MAX_CONSTANT_PLACES = 6
"""A constant solved from one row with more decimals than this is the residue of a division,
not a rate anybody wrote; it is not proposed."""

REDUCES = ("SUM", "AVG", "MIN", "MAX", "COUNT")
SUFFIX = {"SUM": "_total", "AVG": "_avg", "MIN": "_min", "MAX": "_max", "COUNT": "_count"}
STOPWORDS = frozenset({"a", "an", "the", "of", "per", "in", "on", "for", "and", "or", "to", "at", "by"})
PREFERS_COLUMNS = "prefers a rule over materialised columns"
OUTRANKED = "another rule for this column ranks higher"
NOT_ANCHORABLE = "no anchorable inline node holds this figure"
MAX_FINAL_ROUNDS = 4

# a whole inline node that is one number, decorated or not: `23300.00`, `$5.50`, `28659.00 PLN`
WHOLE_NUMBER_RE = re.compile(r"-?\s*[^\d\s.\-%]*\s*\d+(?:\.\d+)?\s*(?:%|[^\d\s.\-%]*)")
ANY_NUMBER_RE = re.compile(r"\d+(?:\.\d+)?%?")
GLUE = re.compile(r"[\w./\-:%]")  # next to a digit run: part of a date, an id, a code — not a figure
PLAIN_FIGURE_RE = re.compile(r"-?\d+(?:\.\d+)?%?")
STRONG_FIGURE_RE = re.compile(r"(\*\*|__)(?=\S)([^*_\n]+?)(?<=\S)\1")
EMPHASIS_FIGURE_RE = re.compile(r"(?<![\w*])([*_])(?=\S)([^*_\n]+?)(?<=\S)\1(?![\w*])")
COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)


# --- what infer reads ---------------------------------------------------------------------


@dataclass
class Column:
    """A table column as infer sees it."""

    index: int
    header: str                    # the header cell's source text (a unit clause included)
    name: str                      # the header's name: unit clause removed, markup resolved
    ref: str | None                # how a rule names it (the name, an alias, or None: unreachable)
    numbers: list[Decimal | None] | None  # per row, None for an empty cell; None when not numeric
    places: int = 0                # the widest decimals its cells show
    filled: int = 0                # rows with a non-empty cell
    constant: bool = False         # every non-empty cell holds the same value
    decoration: Decoration | None = None  # the decoration its numeric cells share
    unit_text: str | None = None   # the unit its header declares (`Net [PLN]`)


@dataclass
class Sheet:
    """A table and the sheet id its rules will live under (``minted`` when made up here)."""

    index: int
    id: str
    minted: bool
    table: Table
    columns: list[Column]
    aliases: dict[str, str] = field(default_factory=dict)  # header name -> alias

    @property
    def rows(self) -> int:
        return self.table.height

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)

    @property
    def numeric(self) -> list[Column]:
        return [c for c in self.columns if c.numbers is not None and c.ref is not None]


@dataclass
class Figure:
    """A number written in prose: ``start``/``end`` is the text an anchor would own,
    ``anchor_at`` where the anchor comment goes (None: no inline node can carry one)."""

    text: str
    start: int
    end: int
    anchor_at: int | None
    anchored: bool
    line: int


@dataclass
class Disagreement:
    row_index: int
    row_label: str
    stored: str
    computed: str


@dataclass
class Proposal:
    """One thing infer says.  ``kind`` is ``column``, ``alias``, ``scalar``, ``constant``,
    ``near-miss``, ``ambiguous`` or ``alternative``; only columns, aliases and scalars are
    written (never a weak one)."""

    kind: str
    sheet: str
    name: str
    rule: str            # the statement as written into the block (a precision clause included)
    shown: str = ""      # what the report prints after `=`
    fits: int = 0
    rows: int = 0
    weak: bool = False
    reason: str | None = None
    alternatives: list[str] | None = None
    disagreement: Disagreement | None = None
    table: int = -1      # the sheet's table (-1: a figure matching several values)
    header: str | None = None      # alias: the header it names
    figure: Figure | None = None   # scalar: the figure it anchors; ambiguous figure: that figure
    echo: Figure | None = None     # constant: the same value written another way in prose
    deps: tuple[str, ...] = ()

    @property
    def writable(self) -> bool:
        return self.kind in ("column", "alias", "scalar") and not self.weak

    def key(self) -> tuple[str, str, str, str]:
        return (self.kind, self.sheet, self.name, self.rule)


@dataclass
class Inference:
    source: str
    sheets: list[Sheet]
    proposals: list[Proposal]
    left_alone: str | None = None

    @property
    def marker(self) -> bool:
        """Whether ``--write`` would write the no-formulas marker: the document has a table
        and infer found nothing whatsoever (a near-miss or an ambiguity is something)."""
        return self.left_alone is None and bool(self.sheets) and not self.proposals

    def count(self) -> dict[str, int]:
        ps = self.proposals
        return {
            "rules": sum(1 for p in ps if p.kind == "column" and not p.weak),
            "aliases": sum(1 for p in ps if p.kind == "alias"),
            "scalars": sum(1 for p in ps if p.kind == "scalar"),
            "anchors": sum(1 for p in ps if p.kind == "scalar" and p.figure is not None
                           and p.figure.anchor_at is not None),
        }


@dataclass
class Insert:
    """An insertion at ``at``; ``kind`` is ``block``, ``anchor`` or ``marker``."""

    at: int
    text: str
    kind: str
    proposals: list[Proposal] = field(default_factory=list)


# --- reading the document -------------------------------------------------------------------


def generate_alias(header: str) -> str:
    """The first letter of each word of a header, stopwords left out (`Unit price` -> `up`)."""
    words = [w for w in re.split(r"[^A-Za-z0-9]+", header) if w and w.lower() not in STOPWORDS]
    name = "".join(w[0].lower() for w in words)
    return name if name and not name[0].isdigit() else "_" + name


def _read_column(table: Table, index: int) -> Column:
    header = table.header[index].text
    stem, unit_text, _, err = header_unit(header)
    name = plain_text(header) if unit_text is None or err else plain_text(stem)
    ref = name if IDENT_RE.fullmatch(name) and name not in lang.RESERVED else None
    col = Column(index, header, name, ref, None, unit_text=unit_text if not err else None)
    texts = table.column(index)
    numbers: list[Decimal | None] = []
    decorations: set[Decoration | None] = set()
    places = 0
    for text in texts:
        if not text.strip():
            numbers.append(None)
            continue
        col.filled += 1
        num = parse_cell_number(text)
        if not isinstance(num, CellNumber):
            return col
        numbers.append(num.value)
        places = max(places, num.places)
        decorations.add(num.decoration)
    if col.filled == 0:
        return col
    col.numbers = numbers
    col.places = places
    values = {v for v in numbers if v is not None}
    col.constant = len(values) == 1
    col.decoration = next(iter(decorations)) if len(decorations) == 1 else None
    return col


def _sheets(located: Located, used: set[str]) -> list[Sheet]:
    sheets = []
    n = 0
    for index, table in enumerate(located.tables):
        while True:
            n += 1
            sheet_id = f"unnamed{n}"
            if sheet_id not in used:
                used.add(sheet_id)
                break
        columns = [_read_column(table, i) for i in range(table.width)]
        sheets.append(Sheet(index, sheet_id, True, table, columns))
    return sheets


def _line_of(starts: list[int], offset: int) -> int:
    return bisect_right(starts, offset)


def figures(source: str, located: Located | None = None) -> list[Figure]:
    """The numbers written in prose (outside tables, fences and comments), in document order."""
    located = located or locate(source)
    texts, starts = split_lines(source)
    blocked: list[tuple[int, int]] = [(t.start, t.end) for t in located.tables]
    blocked += [(f.start, f.end) for f in located.fences]
    anchored = {a.value_span for a in located.anchors if a.value_span is not None}
    out: list[Figure] = []
    # paragraphs: runs of non-blank lines outside tables and fences
    para: list[int] = []
    blocked.sort()
    block_starts = [a for a, _ in blocked]

    def inside_block(pos: int) -> bool:
        i = bisect_right(block_starts, pos) - 1
        return i >= 0 and pos < blocked[i][1]

    def flush() -> None:
        if para:
            start = starts[para[0]]
            end = starts[para[-1]] + len(texts[para[-1]])
            _paragraph_figures(source, start, end, starts, anchored, out)
            para.clear()

    for i, text in enumerate(texts):
        if not text.strip() or inside_block(starts[i]):
            flush()
            continue
        para.append(i)
    flush()
    out.sort(key=lambda f: f.start)
    return out


def _paragraph_figures(source: str, start: int, end: int, starts: list[int],
                       anchored: set[tuple[int, int]], out: list[Figure]) -> None:
    text = source[start:end]
    masked = [False] * len(text)  # code spans and comments are not prose
    codes = _code_spans(text)
    for a, b in codes:
        inner = text[a:b].strip("`")
        lead = a + (len(text[a:b]) - len(text[a:b].lstrip("`")))
        if WHOLE_NUMBER_RE.fullmatch(inner.strip()) and inner.strip():
            s = lead + (len(inner) - len(inner.lstrip()))
            e = s + len(inner.strip())
            out.append(_figure(source, start + s, start + e, start + b, anchored, starts))
        for k in range(a, b):
            masked[k] = True
    for m in COMMENT_RE.finditer(text):
        for k in range(m.start(), m.end()):
            masked[k] = True
    for regex in (STRONG_FIGURE_RE, EMPHASIS_FIGURE_RE):
        for m in regex.finditer(text):
            if any(masked[m.start():m.end()]):
                continue
            inner = m.group(2)
            if not WHOLE_NUMBER_RE.fullmatch(inner):
                continue
            out.append(_figure(source, start + m.start(2), start + m.end(2), start + m.end(), anchored, starts))
            for k in range(m.start(), m.end()):
                masked[k] = True
    for m in ANY_NUMBER_RE.finditer(text):
        s, e = m.start(), m.end()
        if any(masked[s:e]):
            continue
        before = text[s - 1] if s > 0 else " "
        after = text[e] if e < len(text) else " "
        if GLUE.match(before) or GLUE.match(after):
            continue
        rest = text[e:]
        stop = re.search(r"[*_`<\[\]!]", rest)
        trailing = not rest[: stop.start() if stop else len(rest)].strip()
        anchor_at = start + e if trailing and not m.group().endswith("%") else None
        out.append(_figure(source, start + s, start + e, anchor_at, anchored, starts))


def _figure(source: str, s: int, e: int, anchor_at: int | None, anchored: set[tuple[int, int]],
            starts: list[int]) -> Figure:
    return Figure(source[s:e], s, e, anchor_at, (s, e) in anchored, _line_of(starts, s))


# --- verification through the engine ------------------------------------------------------------


def _alias_lines(sheet: Sheet, keep: set[int] | None = None) -> list[str]:
    return [f'"{c.name}" is {sheet.aliases[c.name]}' for c in sheet.columns
            if c.name in sheet.aliases and (keep is None or c.index in keep)]


def _table_text(sheet: Sheet, keep: set[int] | None) -> str:
    """The sheet's table, or a copy with only the columns in ``keep`` (the first column, the
    row labels, always stays): a rule over three columns is checked on those three."""
    table = sheet.table
    if keep is None:
        return table.source[table.start:table.end]
    columns = sorted(keep | {0})
    rows = [[table.header[i].text for i in columns], ["---"] * len(columns)]
    rows += [[table.text(r, i) for i in columns] for r in range(table.height)]
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def _synthetic(sheets: list[tuple[Sheet, list[str], set[int] | None]]) -> str:
    """A document holding each table (or the columns of it in the set) with a block of
    ``lines`` under it."""
    parts = []
    for sheet, lines, keep in sheets:
        body = "\n".join([*_alias_lines(sheet, keep), *lines])
        parts.append(f"{_table_text(sheet, keep)}\n\n```vmark #{sheet.id}\n{body}\n```\n")
    return "\n".join(parts)


def _statement(head: str, rhs: str, precision: int | None) -> str:
    return f"{head} precision {precision} = {rhs}" if precision is not None else f"{head} = {rhs}"


@dataclass
class Candidate:
    sheet: Sheet
    stage: int
    target: Column
    rhs: str
    op: str
    deps: tuple[str, ...]
    constant: str | None = None
    fits: int = 0
    rows: int = 0
    misses: list[Disagreement] = field(default_factory=list)
    precision: int | None = None
    degenerate: str | None = None
    usable: bool = False

    @property
    def id(self) -> str:
        return f"{self.sheet.id}.{self.target.name}"

    @property
    def head(self) -> str:
        assert self.target.ref is not None
        return self.target.ref

    @property
    def rule(self) -> str:
        return f"{self.head} = {self.rhs}"

    @property
    def statement(self) -> str:
        return _statement(self.head, self.rhs, self.precision)


class Verifier:
    """Runs candidate rules through the engine, one small document per rule."""

    def __init__(self, sheets: list[Sheet]) -> None:
        self.sheets = sheets
        self.scalar_lines: dict[str, str] = {}  # "sheet.name" -> the binding defining it

    def column(self, cand: Candidate) -> None:
        """Fill in ``cand``'s verdict: usable, fits, rows and misses, and the precision clause."""
        for precision in (None, cand.target.places):
            statement = _statement(cand.head, cand.rhs, precision)
            result = self._run(cand.sheet, statement, cand.deps, cand.target)
            if result is None:
                return
            width = result.precision.get(cand.id)
            if precision is None and width != cand.target.places:
                continue  # the rule derives another width (or none): state the cells' own
            self._verdict(cand, result, precision)
            return

    @staticmethod
    def _columns(sheet: Sheet, deps: tuple[str, ...], target: Column) -> set[int]:
        names = {d.split(".", 1)[1] for d in deps if d.split(".", 1)[0] == sheet.id}
        return {target.index} | {c.index for c in sheet.columns if c.name in names}

    def _run(self, sheet: Sheet, statement: str, deps: tuple[str, ...], target: Column) -> CheckResult | None:
        others: dict[str, list[str]] = {}
        for dep in deps:
            if dep in self.scalar_lines:
                dep_sheet = dep.split(".", 1)[0]
                if dep_sheet != sheet.id:
                    others.setdefault(dep_sheet, []).append(self.scalar_lines[dep])
        own = [self.scalar_lines[d] for d in deps if d in self.scalar_lines and d.split(".", 1)[0] == sheet.id]
        parts: list[tuple[Sheet, list[str], set[int] | None]] = [
            (s, lines, None) for s in self.sheets for sid, lines in others.items() if s.id == sid]
        parts.append((sheet, [*own, statement], None if own else self._columns(sheet, deps, target)))
        try:
            return check(build(_synthetic(parts)))
        except RecursionError:
            return None

    def _verdict(self, cand: Candidate, result: CheckResult, precision: int | None) -> None:
        misses: list[Disagreement] = []
        for f in result.findings:
            if f.code == "WARN":
                continue
            if f.code == "STALE" and f.is_cell and f.sheet == cand.sheet.id and f.name == cand.target.name:
                misses.append(Disagreement(f.row_index or 0, f.row_label or f"row {(f.row_index or 0) + 1}",
                                           f.stored or "", f.computed or ""))
                continue
            return  # anything else: the rule cannot be evaluated here
        if cand.id not in result.cells:
            return
        cand.usable = True
        cand.precision = precision
        cand.rows = cand.target.filled
        cand.misses = sorted(misses, key=lambda d: d.row_index)
        cand.fits = cand.rows - len(misses)

    def scalars(self, sheet: Sheet) -> dict[str, Decimal]:
        """The value of every reduce of every numeric column (unwritten, so at full width)."""
        lines = []
        for col in sheet.numeric:
            for reduce in REDUCES:
                lines.append(f"{_scalar_name(col, reduce)} = {reduce}({col.ref})")
        if not lines:
            return {}
        try:
            result = check(build(_synthetic([(sheet, lines, {c.index for c in sheet.numeric})])))
        except RecursionError:
            return {}
        broken = {f.name for f in result.findings if f.is_problem}
        out = {}
        for line in lines:
            name = line.split(" = ", 1)[0]
            value = result.values.get(f"{sheet.id}.{name}")
            if name not in broken and isinstance(value, Decimal) and not isinstance(value, bool):
                out[name] = value
        return out


def _scalar_name(col: Column, reduce: str) -> str:
    assert col.ref is not None
    return col.ref.lower() + SUFFIX[reduce]


# --- candidates ----------------------------------------------------------------------------------


def _arith(op: str, a: Decimal, b: Decimal) -> Decimal | None:
    try:
        with localcontext(CONTEXT):
            if op == "*":
                return a * b
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            return a / b
    except (DivisionByZero, InvalidOperation, Overflow):
        return None


def _screen(target: Column, left: list[Decimal | None], op: str,
            right: list[Decimal | None] | Decimal) -> tuple[int, int] | None:
    """(fits, rows) of a rule by plain arithmetic, generous by one unit of the last place so
    it never turns away what the engine would accept; None when a row cannot be computed."""
    assert target.numbers is not None
    unit = Decimal(1).scaleb(-target.places)
    fits = rows = 0
    for r, stored in enumerate(target.numbers):
        if stored is None:
            continue
        rows += 1
        a = left[r]
        b = right if isinstance(right, Decimal) else right[r]
        if a is None or b is None:
            return None
        value = _arith(op, a, b)
        if value is None:
            return None
        if abs(value - stored) <= unit:
            fits += 1
        elif rows - fits > 1:
            return None  # two rows disagree: no evidence, whatever the rest say
    return fits, rows


def _evidence(fits: int, rows: int) -> bool:
    """Two rows to report, three to report a near-miss; one row is no evidence."""
    misses = rows - fits
    return (misses == 0 and rows >= 2) or (misses == 1 and rows >= 3)


def _solve_multiplier(target: Column, a: Column) -> str | None:
    assert target.numbers is not None and a.numbers is not None
    for t, d in zip(target.numbers, a.numbers):
        if t is None or d is None or d == 0:
            continue
        k = _arith("/", t, d)
        if k is None or k == 0 or k == 1:
            return None
        k = k.normalize(CONTEXT)
        if -k.as_tuple().exponent > MAX_CONSTANT_PLACES:  # type: ignore[operator]
            return None
        return f"{k:f}"
    return None


class Search:
    """Stages 1, 2 and 4 for every table, screened by arithmetic, verified by the engine."""

    def __init__(self, sheets: list[Sheet], verifier: Verifier) -> None:
        self.sheets = sheets
        self.verifier = verifier
        self.out: list[Candidate] = []

    def add(self, sheet: Sheet, stage: int, target: Column, left: Column, op: str,
            right: Column | None = None, constant: str | None = None,
            scalar: tuple[str, str, Decimal] | None = None) -> None:
        assert left.numbers is not None
        operand: list[Decimal | None] | Decimal
        deps = [f"{sheet.id}.{left.name}"]
        if right is not None:
            assert right.numbers is not None
            operand = right.numbers
            rhs = f"{left.ref} {op} {right.ref}"
            deps.append(f"{sheet.id}.{right.name}")
        elif constant is not None:
            operand = Decimal(constant)
            rhs = f"{left.ref} {op} {constant}"
        else:
            assert scalar is not None
            ref, dep, value = scalar
            operand = value
            rhs = f"{left.ref} {op} {ref}"
            deps.append(dep)
        screened = _screen(target, left.numbers, op, operand)
        if screened is None or not _evidence(*screened):
            return
        cand = Candidate(sheet, stage, target, rhs, op, tuple(deps), constant)
        self.verifier.column(cand)
        if not cand.usable or not _evidence(cand.fits, cand.rows):
            return
        if op == "*" and right is not None and not cand.misses:
            cand.degenerate = self._degenerate(sheet, target, left, right)
        self.out.append(cand)

    def _degenerate(self, sheet: Sheet, target: Column, left: Column, right: Column) -> str | None:
        """``T = A * B`` with B constant on every row fits because ``T = A`` does: the data
        cannot choose between them, so the rule is ambiguous."""
        keep = right if left.constant else left if right.constant else None
        if keep is None:
            return None
        assert keep.numbers is not None and target.numbers is not None
        if all(t is None or (k is not None and k == t) for t, k in zip(target.numbers, keep.numbers)):
            return f"{target.ref} = {keep.ref}"
        return None

    def columns(self, sheet: Sheet) -> None:
        for target in sheet.numeric:
            others = [c for c in sheet.numeric if c is not target]
            for op in ("*", "+"):
                for i, a in enumerate(others):
                    for b in others[i + 1:]:
                        self.add(sheet, 1, target, a, op, b)
            for op in ("-", "/"):
                for a in others:
                    for b in others:
                        if a is not b:
                            self.add(sheet, 1, target, a, op, b)
            for a in others:
                k = _solve_multiplier(target, a)
                if k is not None:
                    self.add(sheet, 2, target, a, "*", constant=k)

    def cross(self, sheet: Sheet, scalars: list[tuple[str, str, Decimal]]) -> None:
        for target in sheet.numeric:
            for a in sheet.numeric:
                if a is target:
                    continue
                for owner, name, value in scalars:
                    ref = name if owner == sheet.id else f"{owner}.{name}"
                    self.add(sheet, 4, target, a, "*", scalar=(ref, f"{owner}.{name}", value))


# --- selection ------------------------------------------------------------------------------------


def _stage_rank(c: Candidate) -> int:
    return {1: 0, 4: 1}.get(c.stage, 2)


def _rank(c: Candidate) -> int:
    tier = 1 if c.misses else 0
    weak = 1 if c.rows == 2 else 0
    op = 0 if c.op in ("*", "+") else 1
    return ((tier * 2 + weak) * 3 + _stage_rank(c)) * 2 + op


def _closes_cycle(graph: dict[str, tuple[str, ...]], target: str, deps: tuple[str, ...]) -> bool:
    seen: set[str] = set()
    stack = list(deps)
    while stack:
        node = stack.pop()
        if node == target:
            return True
        if node in seen:
            continue
        seen.add(node)
        stack.extend(graph.get(node, ()))
    return False


@dataclass
class Selection:
    accepted: list[Candidate] = field(default_factory=list)   # exact, strong or weak
    near_misses: list[Candidate] = field(default_factory=list)
    ambiguous: list[tuple[Candidate, list[str]]] = field(default_factory=list)
    also_fits: list[tuple[Candidate, str]] = field(default_factory=list)
    graph: dict[str, tuple[str, ...]] = field(default_factory=dict)


def select(candidates: list[Candidate], seed: dict[str, tuple[str, ...]],
           order: dict[str, int]) -> Selection:
    """An acyclic set: best rank first, ties broken by table and column position."""
    out = Selection(graph=dict(seed))
    resolved: set[str] = set()
    winner: dict[str, Candidate] = {}

    def position(c: Candidate) -> int:
        return order[c.sheet.id] * 1000 + c.target.index

    while True:
        pool = [c for c in candidates if c.id not in resolved and not _closes_cycle(out.graph, c.id, c.deps)]
        if not pool:
            break
        best = min(_rank(c) for c in pool)
        group = [c for c in pool if _rank(c) == best]
        first = min(group, key=position)
        here = [c for c in group if c.id == first.id]
        rules = list(dict.fromkeys(c.rule for c in here))
        resolved.add(first.id)
        if len(rules) > 1:
            out.ambiguous.append((first, rules))
            continue
        chosen = here[0]
        if chosen.degenerate is not None:
            out.ambiguous.append((chosen, [chosen.rule, chosen.degenerate]))
            continue
        out.graph[chosen.id] = chosen.deps
        winner[chosen.id] = chosen
        (out.near_misses if chosen.misses else out.accepted).append(chosen)
    for c in candidates:
        won = winner.get(c.id)
        if c.misses or won is None or won is c or _closes_cycle(out.graph, c.id, c.deps):
            continue
        out.also_fits.append((c, PREFERS_COLUMNS if _stage_rank(won) < _stage_rank(c) else OUTRANKED))
    return out


def _dependency_order(cands: list[Candidate], graph: dict[str, tuple[str, ...]]) -> list[Candidate]:
    by_id = {c.id: c for c in cands}
    out: list[Candidate] = []
    done: set[str] = set()

    def visit(node: str) -> None:
        if node in done:
            return
        done.add(node)
        for dep in graph.get(node, ()):
            if dep in by_id:
                visit(dep)
        if node in by_id:
            out.append(by_id[node])

    for c in cands:
        visit(c.id)
    return out


# --- stage 3: scalars anchored at figures ------------------------------------------------------------


@dataclass
class ScalarCandidate:
    sheet: Sheet
    column: Column
    reduce: str
    name: str
    value: Decimal

    @property
    def rhs(self) -> str:
        return f"{self.reduce}({self.column.ref})"

    def writes(self, figure: str) -> bool:
        """Whether ``fmt`` would write this value exactly as ``figure`` stands: the value at
        the figure's own decimals, decorated as the column's cells are (or, under a header
        unit, with that unit after it)."""
        text = figure.strip()
        num = parse_cell_number(text)
        if not isinstance(num, CellNumber) or num.percent:
            return False
        digits = num.digits.lstrip("-")
        places = len(digits.split(".")[1]) if "." in digits else 0
        if fixed(self.value, places) != num.digits:
            return False
        deco = num.decoration
        if deco is None or deco == self.column.decoration:
            return True
        unit = self.column.unit_text
        return unit is not None and deco.side == "suffix" and _same_unit(deco.text.strip(), unit)


def _same_unit(a: str, b: str) -> bool:
    if a == b.strip():
        return True
    try:
        return parse_unit(a) == parse_unit(b)
    except UnitSyntaxError:
        return False


def _scalars(sheets: list[Sheet], verifier: Verifier, prose: list[Figure]
             ) -> tuple[list[tuple[ScalarCandidate, Figure]], list[tuple[Figure, list[str]]]]:
    every: list[ScalarCandidate] = []
    for sheet in sheets:
        if sheet.rows < 2:
            continue
        taken = {c.name for c in sheet.columns} | set(sheet.aliases.values())
        values = verifier.scalars(sheet)
        for col in sheet.numeric:
            for reduce in REDUCES:
                name = _scalar_name(col, reduce)
                if name in values and name not in taken:
                    every.append(ScalarCandidate(sheet, col, reduce, name, values[name]))
    picks: list[tuple[ScalarCandidate, Figure]] = []
    loose: list[tuple[Figure, list[str]]] = []
    claimed: set[int] = set()
    for fig in prose:
        if fig.anchored:
            continue
        matching = [c for c in every if c.writes(fig.text)]
        if not matching:
            continue
        available = [c for c in matching if id(c) not in claimed and c.sheet.table.end < fig.start]
        if len(available) == 1:
            claimed.add(id(available[0]))
            picks.append((available[0], fig))
            continue
        if len(matching) >= 2:
            loose.append((fig, [f"{c.sheet.id}.{c.name} = {c.rhs}" for c in matching]))
    return picks, loose


def _echo(prose: list[Figure], constant: str) -> Figure | None:
    """The same value as ``constant`` written another way in prose (`0.08` as `8%`)."""
    k = Decimal(constant)
    for fig in prose:
        if fig.text == constant or not PLAIN_FIGURE_RE.fullmatch(fig.text):
            continue
        num = parse_cell_number(fig.text)
        if isinstance(num, CellNumber) and num.value == k:
            return fig
    return None


# --- aliases -----------------------------------------------------------------------------------------


def _aliases(sheet: Sheet) -> tuple[list[Proposal], list[Proposal]]:
    """An ``is`` alias for each header that is not an identifier (and has no `"`, which no
    quoted form can spell); a generated name that is taken is ambiguous, not proposed."""
    taken = {c.name for c in sheet.columns} | lang.RESERVED | lang.WORD_OPERATORS | lang.BOOLEAN_WORDS
    taken |= set(REGISTRY)
    proposals: list[Proposal] = []
    collisions: list[Proposal] = []
    for col in sheet.columns:
        if col.ref is not None or '"' in col.name or not col.name:
            continue
        name = generate_alias(col.name)
        rule = f'"{col.name}" is {name}'
        if name in taken or name.upper() in REGISTRY:
            collisions.append(Proposal("ambiguous", sheet.id, name, "", table=sheet.index, header=col.name,
                                       alternatives=[rule], reason="the generated name is already taken"))
            continue
        taken.add(name)
        sheet.aliases[col.name] = name
        col.ref = name
        proposals.append(Proposal("alias", sheet.id, name, rule, shown=rule, table=sheet.index, header=col.name))
    return proposals, collisions


# --- the whole inference ---------------------------------------------------------------------------------


def infer(source: str) -> Inference:
    """Propose rules, scalars, anchors and aliases for a document with no rules."""
    located = locate(source)
    if located.no_formulas is not None:
        return Inference(source, [], [], f"it is marked `{NO_FORMULAS_MARKER}`; delete the marker to infer its rules")
    if any(f.lang == "vmark" for f in located.fences):
        return Inference(source, [], [], "it already has `vmark` blocks; `check` and `fmt` look after a document "
                                         "with rules, and infer proposes rules only for one that has none")
    model = build(source)
    sheets = _sheets(located, set(model.sheets))
    prose = figures(source, located)
    proposals: list[Proposal] = []
    alias_proposals: dict[int, tuple[list[Proposal], list[Proposal]]] = {s.index: _aliases(s) for s in sheets}
    verifier = Verifier(sheets)
    picks, loose = _scalars(sheets, verifier, prose)
    for cand, _ in picks:
        verifier.scalar_lines[f"{cand.sheet.id}.{cand.name}"] = f"{cand.name} = {cand.rhs}"
    search = Search(sheets, verifier)
    scalar_refs = [(c.sheet.id, c.name, c.value) for c, _ in picks]
    for sheet in sheets:
        search.columns(sheet)
        search.cross(sheet, scalar_refs)
    seed = {f"{c.sheet.id}.{c.name}": (f"{c.sheet.id}.{c.column.name}",) for c, _ in picks}
    chosen = select(search.out, seed, {s.id: s.index for s in sheets})

    for sheet in sheets:
        def here(c: Candidate) -> bool:
            return c.sheet is sheet

        proposals += alias_proposals[sheet.index][0]
        for c in _dependency_order([c for c in chosen.accepted if here(c)], chosen.graph):
            weak = c.rows == 2
            proposals.append(Proposal("column", sheet.id, c.target.name, c.statement, shown=c.rhs, fits=c.fits,
                                      rows=c.rows, weak=weak, table=sheet.index, deps=c.deps))
            echo = _echo(prose, c.constant) if c.constant is not None else None
            if echo is not None:
                assert c.constant is not None
                proposals.append(Proposal("constant", sheet.id, c.constant, c.rule, shown=c.rhs, fits=c.fits,
                                          rows=c.rows, table=sheet.index, echo=echo,
                                          reason=f'also appears as "{echo.text}" in prose, line {echo.line}'))
        for cand, fig in picks:
            if cand.sheet is sheet:
                proposals.append(Proposal("scalar", sheet.id, cand.name, f"{cand.name} = {cand.rhs}",
                                          shown=cand.rhs, fits=sheet.rows, rows=sheet.rows, table=sheet.index,
                                          figure=fig, reason=None if fig.anchor_at is not None else NOT_ANCHORABLE,
                                          deps=(f"{sheet.id}.{cand.column.name}",)))
        for c in chosen.near_misses:
            if here(c):
                proposals.append(Proposal("near-miss", sheet.id, c.target.name, c.rule, shown=c.rhs, fits=c.fits,
                                          rows=c.rows, table=sheet.index, disagreement=c.misses[0]))
        proposals += alias_proposals[sheet.index][1]
        for c, rules in chosen.ambiguous:
            if here(c):
                proposals.append(Proposal("ambiguous", sheet.id, c.target.name, "", rows=sheet.rows,
                                          table=sheet.index, alternatives=rules))
        for c, reason in chosen.also_fits:
            if here(c):
                proposals.append(Proposal("alternative", sheet.id, c.target.name, c.rule, shown=c.rhs, fits=c.fits,
                                          rows=c.rows, table=sheet.index, reason=reason))
    for fig, rules in loose:
        proposals.append(Proposal("ambiguous", "", fig.text, "", figure=fig, alternatives=rules))
    inference = Inference(source, sheets, proposals)
    _settle(inference)
    return inference


def _settle(inference: Inference) -> None:
    """Write the proposal into the document and check it: give each anchored scalar the
    width its figure shows, and withdraw whatever still does not verify."""
    for _ in range(MAX_FINAL_ROUNDS):
        written = apply(inference.source, plan(inference))
        result = check(build(written))
        changed = False
        for p in inference.proposals:
            if p.kind != "scalar" or p.figure is None or p.figure.anchor_at is None:
                continue
            places = _figure_places(p.figure.text)
            if result.precision.get(f"{p.sheet}.{p.name}") != places and places is not None:
                statement = f"{p.name} precision {places} = {p.shown}"
                if statement != p.rule:
                    p.rule = statement
                    changed = True
        if changed:
            continue
        broken = {(f.sheet, f.name) for f in result.findings if f.is_problem}
        if not broken:
            return
        withdrawn = [p for p in inference.proposals if p.writable and (p.sheet, p.name) in broken]
        if not withdrawn:
            return
        for p in withdrawn:
            p.kind, p.alternatives, p.reason = "ambiguous", [p.rule], "does not verify in the written document"
            p.rule = ""


def _figure_places(text: str) -> int | None:
    num = parse_cell_number(text.strip())
    if not isinstance(num, CellNumber) or num.percent:
        return None
    digits = num.digits.lstrip("-")
    return len(digits.split(".")[1]) if "." in digits else 0


# --- writing ------------------------------------------------------------------------------------------


def plan(inference: Inference, only: list[Proposal] | None = None, *, marker: bool = True) -> list[Insert]:
    """The insertions that write ``only`` (default: every writable proposal): a ``vmark``
    block after each table, an anchor after each matched figure — or, when infer found
    nothing whatsoever and ``marker`` allows it, the no-formulas marker at the end."""
    source = inference.source
    if inference.left_alone is not None:
        return []
    chosen = [p for p in (inference.proposals if only is None else only) if p.writable]
    # a scalar with no figure to anchor is written only when a written rule reads it
    read = {dep for p in chosen if p.kind == "column" for dep in p.deps}
    chosen = [p for p in chosen if p.kind != "scalar" or (p.figure is not None and p.figure.anchor_at is not None)
              or f"{p.sheet}.{p.name}" in read]
    if only is None and marker and inference.marker:
        lead = "" if source.endswith(("\n\n", "\r\n\r\n")) else "\n" if source.endswith("\n") else "\n\n"
        return [Insert(len(source), f"{lead}{NO_FORMULAS_MARKER}\n", "marker")]
    inserts: list[Insert] = []
    for sheet in inference.sheets:
        mine = [p for p in chosen if p.table == sheet.index]
        if not mine:
            continue
        eol = "\r\n" if source[sheet.table.end:sheet.table.end + 2] == "\r\n" else "\n"
        groups = [
            [p.rule for p in mine if p.kind == "alias"],
            _aligned([p for p in mine if p.kind == "column"]),
            _aligned([p for p in mine if p.kind == "scalar"]),
        ]
        body = (eol + eol).join(eol.join(g) for g in groups if g)
        text = f"{eol}{eol}```vmark #{sheet.id}{eol}{body}{eol}```"
        inserts.append(Insert(sheet.table.end, text, "block", mine))
    for p in chosen:
        if p.kind == "scalar" and p.figure is not None and p.figure.anchor_at is not None:
            inserts.append(Insert(p.figure.anchor_at, f"<!--vmark={p.sheet}.{p.name}-->", "anchor", [p]))
    return sorted(inserts, key=lambda i: i.at)


def _aligned(group: list[Proposal]) -> list[str]:
    """Statements with their `=` signs in one column, the way a person writes a block."""
    heads = [p.rule.split(" = ", 1)[0] for p in group]
    width = max((len(h) for h in heads), default=0)
    return [f"{h.ljust(width)} = {p.rule.split(' = ', 1)[1]}" for h, p in zip(heads, group)]


def apply(source: str, inserts: list[Insert]) -> str:
    """``source`` with every insertion made (each at an offset of the original text)."""
    out = []
    last = 0
    for ins in sorted(inserts, key=lambda i: i.at):
        out.append(source[last:ins.at])
        out.append(ins.text)
        last = ins.at
    out.append(source[last:])
    return "".join(out)


def select_plan(inference: Inference, keys: list[tuple[str, str, str, str]]) -> tuple[list[Proposal], list[tuple]]:
    """The writable proposals named by ``keys`` (kind, sheet, name, rule), and the keys that
    name no writable proposal of this inference."""
    by_key = {p.key(): p for p in inference.proposals if p.writable}
    found = [by_key[k] for k in keys if k in by_key]
    missing = [k for k in keys if k not in by_key]
    return found, missing
