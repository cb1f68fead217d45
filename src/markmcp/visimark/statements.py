"""The two statement forms that bind nothing: ``chart`` and ``report``.

    chart NAME as ENGINE of COL {, COL} labelled COL [aspect W:H]
    report NAME [OPTIONS]

``ENGINE`` is an identifier, or two joined by a ``-`` with no blanks around it
(``stacked-bar``).  ``COL`` is a column name, bare or sheet-qualified.  The report
names and their option grammars form a closed list (see ``REPORT_SYNOPSIS``); every
word in an option list is contextual, recognised only inside a ``report`` line.

Grammar functions take ``(tokens, pos)`` and return ``(pos, value)``; a fault is a
``LangError`` carrying the finding code and the offset of the offending token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .syntax import LangError, Ref, Statement

TOKEN_RE = re.compile(
    r"(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<num>[0-9]+(?:\.[0-9]+)?%?)|(?P<punct>[.,:\-])|(?P<other>[^\s])"
)
EXPRESSION_MESSAGE = "a chart takes a column, not an expression"
ASPECT_MESSAGE = "aspect needs two positive integers, as `16:9`"
REPORT_NAMES = ("ledger", "deltas", "gates", "best", "forbidden")
POPULATIONS = ("feasible", "infeasible", "all")
REPORT_SYNOPSIS = {
    "ledger": "`report ledger` takes: [assertions broken]",
    "deltas": "`report deltas` takes: [on REF {, REF}] among feasible|infeasible|all",
    "gates": "`report gates` takes no options",
    "best": "`report best` takes: scalar REF direction max|min among feasible|infeasible|all",
    "forbidden": "`report forbidden` takes no options",
}


@dataclass(frozen=True)
class Tok:
    kind: str  # ident num punct other end
    text: str
    start: int
    end: int


@dataclass
class ColumnRef:
    """A chart operand as written: ``Revenue`` or ``sales.Revenue``."""

    name: str
    qualifier: str | None
    start: int
    end: int

    @property
    def text(self) -> str:
        return f"{self.qualifier}.{self.name}" if self.qualifier else self.name

    def as_ref(self) -> Ref:
        return Ref(self.start, self.end, self.name, self.qualifier)


@dataclass
class ChartStmt(Statement):
    name: str
    name_span: tuple[int, int]
    engine: str
    engine_span: tuple[int, int]
    series: list[ColumnRef]
    labels: ColumnRef
    aspect: tuple[int, int] | None = None


@dataclass
class ReportStmt(Statement):
    """A reading ``simulate`` prints; ``check`` only validates its grammar and names."""

    name: str
    refs: list[Ref] = field(default_factory=list)
    broken: bool = False  # ledger: with the `broken` column
    on: bool = False  # deltas: an explicit `on` list
    among: str | None = None  # best / deltas: feasible | infeasible | all
    direction: str | None = None  # best: max | min

    @property
    def normalized(self) -> str:
        """The statement with its blank runs collapsed: its heading and its DUP key."""
        return " ".join(self.source.split())


def scan(src: str, base: int) -> list[Tok]:
    toks = [Tok(m.lastgroup or "other", m.group(0), base + m.start(), base + m.end()) for m in TOKEN_RE.finditer(src)]
    end = base + len(src.rstrip())
    # a few end markers, so a grammar rule may look ahead without bounds checks
    toks.extend([Tok("end", "", end, end)] * 4)
    return toks


def _is_op(t: Tok) -> bool:
    return t.kind in ("punct", "other") and t.text not in (".", ",", ":")


# ----------------------------------------------------------------------- chart


def parse_chart(src: str, base: int, start: int, end: int, source: str) -> ChartStmt:
    """Parse a whole ``chart`` line (comment already removed)."""
    toks = scan(src, base)
    pos = 1  # past `chart`
    if toks[pos].text == "=":
        raise LangError("`chart` is a keyword", toks[0].start)
    if toks[pos].text == "as":
        raise LangError("a chart needs a name", toks[0].start)
    pos, name = _chart_ident(toks, pos, "a chart name")
    pos = _word(toks, pos, "as")
    pos, (engine, engine_span) = _engine(toks, pos)
    pos = _word(toks, pos, "of")
    series: list[ColumnRef] = []
    while True:
        pos, col = _column(toks, pos)
        series.append(col)
        if toks[pos].text != ",":
            break
        pos += 1
    pos = _word(toks, pos, "labelled")
    pos, labels = _column(toks, pos)
    aspect = None
    if toks[pos].kind == "ident" and toks[pos].text == "aspect":
        pos, aspect = _aspect(toks, pos)
    t = toks[pos]
    if t.kind != "end":
        if _is_op(t):
            raise LangError(EXPRESSION_MESSAGE, t.start)
        raise LangError(f"unexpected `{t.text}` after the chart statement", t.start)
    return ChartStmt(start, end, source, name.text, (name.start, name.end), engine, engine_span, series, labels, aspect)


def _chart_ident(toks: list[Tok], pos: int, what: str) -> tuple[int, Tok]:
    t = toks[pos]
    if _is_op(t):
        raise LangError(EXPRESSION_MESSAGE, t.start)
    if t.kind != "ident":
        raise LangError(f"expected {what}", t.start)
    return pos + 1, t


def _word(toks: list[Tok], pos: int, word: str) -> int:
    t = toks[pos]
    if _is_op(t):
        raise LangError(EXPRESSION_MESSAGE, t.start)
    if t.kind != "ident" or t.text != word:
        raise LangError(f"expected `{word}`", t.start)
    return pos + 1


def _engine(toks: list[Tok], pos: int) -> tuple[int, tuple[str, tuple[int, int]]]:
    pos, head = _chart_ident(toks, pos, "a chart type")
    name, span_end = head.text, head.end
    dash = toks[pos]
    if dash.text == "-" and dash.start == head.end:
        tail = toks[pos + 1]
        if tail.kind != "ident" or tail.start != dash.end:
            raise LangError("expected a chart type", head.start)
        name, span_end, pos = f"{name}-{tail.text}", tail.end, pos + 2
    return pos, (name, (head.start, span_end))


def _column(toks: list[Tok], pos: int) -> tuple[int, ColumnRef]:
    pos, head = _chart_ident(toks, pos, "a column name")
    if toks[pos].text == ".":
        pos, name = _chart_ident(toks, pos + 1, "a column name")
        return pos, ColumnRef(name.text, head.text, head.start, name.end)
    return pos, ColumnRef(head.text, None, head.start, head.end)


def _aspect(toks: list[Tok], pos: int) -> tuple[int, tuple[int, int]]:
    keyword = toks[pos]
    w, colon, h = toks[pos + 1], toks[pos + 2], toks[pos + 3]
    if not (w.kind == "num" and colon.text == ":" and h.kind == "num"):
        raise LangError(ASPECT_MESSAGE, keyword.start, "ARTIFACT")
    if not (w.text.isdigit() and h.text.isdigit()) or int(w.text) == 0 or int(h.text) == 0:
        raise LangError(ASPECT_MESSAGE, keyword.start, "ARTIFACT")
    return pos + 4, (int(w.text), int(h.text))


# ---------------------------------------------------------------------- report


def is_report_line(stripped: str) -> bool:
    """A line whose first word is `report` and which has no `=` (`report = 5` binds)."""
    return re.match(r"report(?![A-Za-z0-9_])", stripped) is not None and "=" not in stripped


def parse_report(src: str, base: int, start: int, end: int, source: str) -> ReportStmt:
    toks = scan(src, base)
    head = toks[0]
    t = toks[1]
    if t.kind == "end":
        raise LangError("a report needs a name", head.start)
    if t.kind != "ident" or t.text not in REPORT_NAMES:
        raise LangError(f"unknown report `{t.text}`; the reports are {', '.join(REPORT_NAMES)}", t.start)
    stmt = ReportStmt(start, end, source, t.text)
    grammar = {"ledger": _ledger, "deltas": _deltas, "gates": _bare, "best": _best, "forbidden": _bare}[t.text]
    if not grammar(toks, 2, stmt):
        raise LangError(REPORT_SYNOPSIS[t.text], t.start)
    return stmt


def _bare(toks: list[Tok], pos: int, stmt: ReportStmt) -> bool:
    return toks[pos].kind == "end"


def _ledger(toks: list[Tok], pos: int, stmt: ReportStmt) -> bool:
    if toks[pos].kind == "end":
        return True
    if [t.text for t in toks[pos:pos + 2]] == ["assertions", "broken"] and toks[pos + 2].kind == "end":
        stmt.broken = True
        return True
    return False


def _ref(toks: list[Tok], pos: int) -> tuple[int, Ref | None]:
    head = toks[pos]
    if head.kind != "ident":
        return pos, None
    if toks[pos + 1].text == "." and toks[pos + 2].kind == "ident":
        name = toks[pos + 2]
        return pos + 3, Ref(head.start, name.end, name.text, head.text)
    return pos + 1, Ref(head.start, head.end, head.text)


def _among(toks: list[Tok], pos: int, stmt: ReportStmt) -> bool:
    """The required closing clause `among feasible|infeasible|all`, and nothing after it."""
    if toks[pos].text != "among" or toks[pos + 1].text not in POPULATIONS or toks[pos + 2].kind != "end":
        return False
    stmt.among = toks[pos + 1].text
    return True


def _deltas(toks: list[Tok], pos: int, stmt: ReportStmt) -> bool:
    # `among` is the last clause; a scalar may itself be called `among`, so the clause is
    # recognised only as the final three tokens
    if toks[pos].text == "on":
        stmt.on = True
        pos += 1
        while True:
            pos, ref = _ref(toks, pos)
            if ref is None:
                return False
            stmt.refs.append(ref)
            if toks[pos].text != ",":
                break
            pos += 1
    return _among(toks, pos, stmt)


def _best(toks: list[Tok], pos: int, stmt: ReportStmt) -> bool:
    if toks[pos].text != "scalar":
        return False
    pos, ref = _ref(toks, pos + 1)
    if ref is None or toks[pos].text != "direction" or toks[pos + 1].text not in ("max", "min"):
        return False
    stmt.refs.append(ref)
    stmt.direction = toks[pos + 1].text
    return _among(toks, pos + 2, stmt)
