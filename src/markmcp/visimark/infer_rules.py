"""The search for column rules and scalars behind `infer`: candidates screened with plain
decimal arithmetic, verified by the real engine, then selected into an acyclic set.

Stage 1 tries ``C = A op B`` over two numeric columns, stage 2 ``C = A * k`` with ``k`` solved
from one row, stage 3 the reduces of a column that the prose already writes, stage 4
``C = A * s`` with ``s`` such a scalar.  :mod:`.infer` turns what is selected into proposals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, DivisionByZero, InvalidOperation, Overflow, localcontext

from .check import CheckResult, check
from .infer_read import PLAIN_FIGURE_RE, Column, Figure, Sheet
from .model import build
from .units import UnitSyntaxError, parse_unit
from .values import CONTEXT, CellNumber, fixed, parse_cell_number

MAX_CONSTANT_PLACES = 6
"""A constant solved from one row with more decimals than this is the residue of a division,
not a rate anybody wrote; it is not proposed."""

REDUCES = ("SUM", "AVG", "MIN", "MAX", "COUNT")
SUFFIX = {"SUM": "_total", "AVG": "_avg", "MIN": "_min", "MAX": "_max", "COUNT": "_count"}
PREFERS_COLUMNS = "prefers a rule over materialised columns"
OUTRANKED = "another rule for this column ranks higher"


@dataclass
class Disagreement:
    row_index: int
    row_label: str
    stored: str
    computed: str


# --- verification through the engine ------------------------------------------------------------


def _alias_lines(sheet: Sheet, keep: set[int] | None = None) -> list[str]:
    return [f'"{c.name}" is {sheet.aliases[c.name]}' for c in sheet.columns
            if c.name in sheet.aliases and (keep is None or c.index in keep)]


def _table_text(sheet: Sheet, keep: set[int] | None) -> str:
    """The sheet's table, or a copy with only the columns in ``keep`` (the first column, the
    row labels, always stays): a rule over three columns is checked on those three.  A total
    row is left out: rules are verified on the data rows."""
    table = sheet.table
    if keep is None and sheet.total is None:
        return table.source[table.start:table.end]
    columns = sorted((keep if keep is not None else set(range(table.width))) | {0})
    rows = [[table.header[i].text for i in columns], ["---"] * len(columns)]
    rows += [[table.text(r, i) for i in columns] for r in range(sheet.rows)]
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


def rounding_absorbs_a_miss(q: Candidate, candidates: list[Candidate]) -> bool:
    """A rule that fits only through its precision clause, for a column that an
    exact rule missing one row reads, and reading that rule's own column: the rounding hides
    the other rule's wrong row.  2 x 38.00 stored as 67.00 makes ``Qty precision 0 = Total /
    Price`` fit (67.00 / 38.00 = 1.76 rounds to 2), 12 x 38.00 stored as 456.01 makes ``Price
    precision 2 = Total / Qty`` fit (38.0008), while ``Total = Qty * Price`` is exact on every
    other row.  The rounded rule is no evidence, so the exact rule's near-miss stands (and a
    rounded rule that misses a row of its own does not outrank it either)."""
    if q.precision is None:
        return False
    return any(p.misses and p.precision is None and q.id in p.deps and p.id in q.deps for p in candidates)


def select(candidates: list[Candidate], seed: dict[str, tuple[str, ...]],
           order: dict[str, int]) -> Selection:
    """An acyclic set: best rank first, ties broken by table and column position."""
    candidates = [c for c in candidates if not rounding_absorbs_a_miss(c, candidates)]
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


def dependency_order(cands: list[Candidate], graph: dict[str, tuple[str, ...]]) -> list[Candidate]:
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


def scalar_picks(sheets: list[Sheet], verifier: Verifier, prose: list[Figure]
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


def echo_in_prose(prose: list[Figure], constant: str) -> Figure | None:
    """The same value as ``constant`` written another way in prose (`0.08` as `8%`)."""
    k = Decimal(constant)
    for fig in prose:
        if fig.text == constant or not PLAIN_FIGURE_RE.fullmatch(fig.text):
            continue
        num = parse_cell_number(fig.text)
        if isinstance(num, CellNumber) and num.value == k:
            return fig
    return None
