"""What `infer` reads in a document: the numeric columns of its tables (:class:`Sheet`,
:class:`Column`) and the numbers written in its prose (:class:`Figure`).

Pure: text in, columns and figures out.  :mod:`.infer_rules` searches these for rules and
:mod:`.infer` assembles the proposal.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from decimal import Decimal

from . import lang
from .locate import Located, Table, _code_spans, locate, plain_text, split_lines
from .model import IDENT_RE, header_unit
from .values import CellNumber, Decoration, fixed, parse_cell_number

STOPWORDS = frozenset({"a", "an", "the", "of", "per", "in", "on", "for", "and", "or", "to", "at", "by"})
"""Words a generated alias leaves out (`Price per unit` -> `pu`)."""

# a whole inline node that is one number, decorated or not: `23300.00`, `$5.50`, `28659.00 PLN`
WHOLE_NUMBER_RE = re.compile(r"-?\s*[^\d\s.\-%]*\s*\d+(?:\.\d+)?\s*(?:%|[^\d\s.\-%]*)")
ANY_NUMBER_RE = re.compile(r"\d+(?:\.\d+)?%?")
GLUE = re.compile(r"[\w./\-:%]")  # next to a digit run: part of a date, an id, a code — not a figure
PLAIN_FIGURE_RE = re.compile(r"-?\d+(?:\.\d+)?%?")
STRONG_FIGURE_RE = re.compile(r"(\*\*|__)(?=\S)([^*_\n]+?)(?<=\S)\1")
EMPHASIS_FIGURE_RE = re.compile(r"(?<![\w*])([*_])(?=\S)([^*_\n]+?)(?<=\S)\1(?![\w*])")
COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)
# the label of a row that totals the rows above it: `Total`, `Totals:`, `Grand total`, `Subtotal`, `Sum`, `Σ`
TOTAL_LABEL_RE = re.compile(r"(?:grand\s+|sub-?)?totals?(?:\b.*)?|sum|[Σ∑]", re.IGNORECASE)


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
class TotalSum:
    """A number of a total row and the sum of the cells above it (at the number's width)."""

    column: str
    stored: str   # the cell as written
    sum: str      # the sum of the cells above, at the cell's width (a percent as a percent)
    matches: bool


@dataclass
class TotalRow:
    """A table's last row when it totals the rows above it rather than being one of them:
    its label says so (`Total`, `Sum`, `Σ`), or each of its numbers is the sum of its column."""

    label: str
    line: int
    sums: list[TotalSum]


@dataclass
class Sheet:
    """A table and the sheet id its rules will live under (``minted`` when made up here).
    Its columns hold the data rows: a total row at the end is set aside in ``total``."""

    index: int
    id: str
    minted: bool
    table: Table
    columns: list[Column]
    aliases: dict[str, str] = field(default_factory=dict)  # header name -> alias
    total: TotalRow | None = None

    @property
    def rows(self) -> int:
        return self.table.height - (1 if self.total is not None else 0)

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


# --- reading the document -------------------------------------------------------------------


def generate_alias(header: str) -> str:
    """The first letter of each word of a header, stopwords left out (`Unit price` -> `up`)."""
    words = [w for w in re.split(r"[^A-Za-z0-9]+", header) if w and w.lower() not in STOPWORDS]
    name = "".join(w[0].lower() for w in words)
    return name if name and not name[0].isdigit() else "_" + name


def _column_name(header: str) -> str:
    """A header's name: its unit clause removed, markup resolved."""
    stem, unit_text, _, err = header_unit(header)
    return plain_text(header) if unit_text is None or err else plain_text(stem)


def _read_column(table: Table, index: int, rows: int) -> Column:
    header = table.header[index].text
    _, unit_text, _, err = header_unit(header)
    name = _column_name(header)
    ref = name if IDENT_RE.fullmatch(name) and name not in lang.RESERVED else None
    col = Column(index, header, name, ref, None, unit_text=unit_text if not err else None)
    texts = table.column(index)[:rows]
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


def read_sheets(located: Located, used: set[str]) -> list[Sheet]:
    sheets = []
    n = 0
    for index, table in enumerate(located.tables):
        while True:
            n += 1
            sheet_id = f"unnamed{n}"
            if sheet_id not in used:
                used.add(sheet_id)
                break
        total = total_row(table)
        rows = table.height - (1 if total is not None else 0)
        columns = [_read_column(table, i, rows) for i in range(table.width)]
        sheets.append(Sheet(index, sheet_id, True, table, columns, total=total))
    return sheets


def total_row(table: Table) -> TotalRow | None:
    """The table's last row, when it totals the rows above (two of them at least) instead of
    being data: labelled as a total, or each of its numbers the sum of the numeric column
    above it (two such sums at least, or one under an empty label)."""
    last = table.height - 1
    if last < 2:
        return None
    label = plain_text(table.text(last, 0)).strip()
    labelled = TOTAL_LABEL_RE.fullmatch(label.rstrip(":").strip()) is not None
    if not labelled and isinstance(parse_cell_number(label), CellNumber):
        return None  # a number where the label goes: a row of data
    sums: list[TotalSum] = []
    for i in range(1, table.width):
        text = plain_text(table.text(last, i)).strip()  # a total is often bold
        if not text:
            continue
        num = parse_cell_number(text)
        above = [parse_cell_number(t) for t in table.column(i)[:last] if t.strip()]
        if len(above) < 2 or not all(isinstance(a, CellNumber) for a in above):
            continue  # not a column of numbers (or one number): nothing to total
        if not isinstance(num, CellNumber):
            if labelled:
                continue
            return None  # a word under a column of numbers: a row of data
        total = sum((a.value for a in above if isinstance(a, CellNumber)), Decimal(0))
        digits = num.digits.lstrip("+")
        places = len(digits.split(".")[1]) if "." in digits else 0
        shown = fixed(total * 100 if num.percent else total, places)
        sums.append(TotalSum(_column_name(table.header[i].text), text, shown + ("%" if num.percent else ""),
                             shown == digits))
    if not labelled:
        if not sums or not all(s.matches for s in sums) or (len(sums) < 2 and label):
            return None
    elif not sums:
        return None  # a label and no number: nothing to set aside
    return TotalRow(label, table.line + 2 + last, sums)


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
