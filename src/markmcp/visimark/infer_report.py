"""What `infer` prints: the text report (one part per table) and the public JSON proposals.

The text report has the same idiom as ``check``'s — a path header, two-space indents,
aligned fields, a summary footer — in its own layout: per table the column rules (with
``fits/rows``), aliases, constants that prose repeats, scalars matched to prose figures,
the columns left as inputs, then what was not proposed (ambiguous, near-misses, rules
that also fit).  Fields are at least seven wide (a longer value widens its field by two),
a rule's ``fits`` column starts at column 46, a scalar's name after a 28-wide rule field.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from .infer import TOTAL_ROW, Inference, Proposal
from .infer_read import Sheet
from .values import CellNumber, parse_cell_number

TOTAL_ROW_LEAD = TOTAL_ROW.split("{", 1)[0]
FITS_COLUMN = 46
SCALAR_RULE_FIELD = 28
REASON_FIELD = 26
MIN_FIELD = 7


def _field(values: list[str]) -> int:
    return max([MIN_FIELD, *(len(v) + 2 for v in values)])


def _column(heads: list[str], least: int) -> int:
    return max([least, *(len(h) + 2 for h in heads)])


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _section(out: list[str], title: str, body: list[str]) -> None:
    if body:
        if out:
            out.append("")
        out.append(f"  {title}")
        out.extend(body)


def _held(p: Proposal) -> str:
    """Why a fitting proposal is not written, as the report says it: the total-row section
    of its table explains that cause once."""
    if p.held is None:
        return ""
    return "not written (total row)" if p.held.startswith(TOTAL_ROW_LEAD) else p.held


def _rules(group: list[Proposal]) -> list[str]:
    ps = [p for p in group if p.kind == "column"]
    width = _field([p.name for p in ps])
    heads = [f"    {p.name.ljust(width)}= {p.shown}" for p in ps]
    col = _column(heads, FITS_COLUMN)
    return [h.ljust(col) + ("2 rows — weak, not written" if p.weak else f"{p.fits}/{p.rows} rows")
            + (f" — {_held(p)}" if p.held else "") for h, p in zip(heads, ps)]


def _aliases(group: list[Proposal]) -> list[str]:
    ps = [p for p in group if p.kind == "alias"]
    width = _field([p.name for p in ps])
    return [f'    {p.name.ljust(width)}for "{p.header}"' + (f" — {_held(p)}" if p.held else "") for p in ps]


def _total(sheet: Sheet) -> list[str]:
    total = sheet.total
    if total is None:
        return []
    out = [f"    row {sheet.table.height}  {total.label or '(no label)'}, line {total.line}"]
    width = _field([s.column for s in total.sums])
    stored = _field([s.stored for s in total.sums])
    for s in total.sums:
        said = (f"= SUM({s.column})" if s.matches
                else f"SUM({s.column}) gives {s.sum}, differs by {_difference(s.stored, s.sum)}")
        out.append(f"      {s.column.ljust(width)}{s.stored.ljust(stored)}{said}")
    out += ["    A rule covers every row of its table, so nothing of this table is written while the",
            "    total row is in it: move it out (SUM scalars anchored in prose replace it), then infer again."]
    return out


def _constants(group: list[Proposal]) -> list[str]:
    ps = [p for p in group if p.kind == "constant" and p.echo is not None]
    width = _field([p.name for p in ps])
    return [f'    {p.name.ljust(width)}also appears as "{p.echo.text}" in prose, line {p.echo.line}'
            for p in ps if p.echo is not None]


def _scalars(group: list[Proposal]) -> list[str]:
    ps = [p for p in group if p.kind == "scalar"]
    values = [p.figure.text if p.figure else "" for p in ps]
    lines = [f"line {p.figure.line}" if p.figure else "" for p in ps]
    vw, lw = _field(values), _field(lines)
    out = []
    for p, value, line in zip(ps, values, lines):
        out.append(f"    {value.ljust(vw)}{line.ljust(lw)}{('= ' + p.shown).ljust(SCALAR_RULE_FIELD)}{p.name}")
        if p.held:
            out.append(f"      {_held(p)}")
        if p.reason:
            out.append(f"      {p.reason}")
    return out


def _inputs(inference: Inference, index: int, group: list[Proposal]) -> list[str]:
    sheet = inference.sheets[index]
    ruled = {p.name for p in group if p.kind in ("column", "near-miss")}
    left = [c.header for c in sheet.columns if c.name not in ruled]
    return [f"    {', '.join(left)}"] if left else []


def _ambiguous(group: list[Proposal]) -> list[str]:
    ps = [p for p in group if p.kind == "ambiguous"]
    width = _field([p.name for p in ps])
    return [f"    {(p.name if i == 0 else '').ljust(width)}{alt}"
            for p in ps for i, alt in enumerate(p.alternatives or [])]


def _difference(stored: str, computed: str) -> str:
    def number(text: str) -> tuple[Decimal, int] | None:
        num = parse_cell_number(text)
        if not isinstance(num, CellNumber):
            return None
        digits = num.digits.lstrip("-")
        return num.value, len(digits.split(".")[1]) if "." in digits else 0

    a, b = number(stored), number(computed)
    if a is None or b is None:
        return "?"
    places = max(a[1], b[1])
    try:
        return f"{abs(b[0] - a[0]).quantize(Decimal(1).scaleb(-places)):f}"
    except InvalidOperation:
        return "?"


def _near_misses(group: list[Proposal]) -> list[str]:
    ps = [p for p in group if p.kind == "near-miss" and p.disagreement is not None]
    heads = []
    for p in ps:
        assert p.disagreement is not None
        heads += [f"    {p.rule}", f"      cell {p.disagreement.stored}, rule gives {p.disagreement.computed}"]
    col = _column(heads, FITS_COLUMN)
    out = []
    for i, p in enumerate(ps):
        d = p.disagreement
        assert d is not None
        out.append(heads[2 * i].ljust(col) + f"{p.fits}/{p.rows} rows")
        out.append(f"      row {d.row_index + 1}  {d.row_label}")
        out.append(heads[2 * i + 1].ljust(col) + f"differs by {_difference(d.stored, d.computed)}")
    return out


def _also_fits(group: list[Proposal]) -> list[str]:
    ps = [p for p in group if p.kind == "alternative"]
    heads = [f"    {p.rule}" for p in ps]
    col = _column(heads, 4 + REASON_FIELD)
    return [h.ljust(col) + (p.reason or "") for h, p in zip(heads, ps)]


def _loose(ps: list[Proposal]) -> list[str]:
    ps = [p for p in ps if p.kind == "ambiguous" and p.figure is not None]
    vw = _field([p.name for p in ps])
    lines = [f"line {p.figure.line}" if p.figure else "" for p in ps]
    lw = _field(lines)
    out = []
    for p, line in zip(ps, lines):
        for i, alt in enumerate(p.alternatives or []):
            out.append(f"    {(p.name if i == 0 else '').ljust(vw)}{(line if i == 0 else '').ljust(lw)}{alt}")
    return out


def format_infer(path: str, inference: Inference) -> str:
    """The text report of one document (``path`` as the user gave it)."""
    if inference.left_alone is not None:
        return f"{path}: infer leaves this document alone — {inference.left_alone}."
    lines: list[str] = []
    for sheet in inference.sheets:
        group = [p for p in inference.proposals if p.table == sheet.index]
        if lines:
            lines.append("")
        lines.append(f"{path}  table at line {sheet.table.line} — {_plural(sheet.rows, 'row')}"
                     f"{' and a total row' if sheet.total is not None else ''}, "
                     f"{_plural(sheet.table.width, 'column')}")
        _section(lines, "column rules", _rules(group))
        _section(lines, "column aliases", _aliases(group))
        _section(lines, "constants worth naming", _constants(group))
        _section(lines, "scalars matching figures in prose", _scalars(group))
        _section(lines, "no rule found — treating as inputs", _inputs(inference, sheet.index, group))
        _section(lines, "ambiguous — proposed neither", _ambiguous(group))
        _section(lines, "near-miss — not proposed", _near_misses(group))
        _section(lines, "also fits, not proposed", _also_fits(group))
        _section(lines, "total row — not a row of data", _total(sheet))
    _section(lines, "figures matching more than one value — not anchored",
             _loose([p for p in inference.proposals if p.table == -1]))
    n = inference.count()
    if lines:
        lines.append("")
    lines.append(f"{_plural(n['rules'], 'rule')}, {_plural(n['aliases'], 'alias', 'aliases')}, "
                 f"{_plural(n['scalars'], 'scalar')}, {_plural(n['anchors'], 'anchor')}.")
    return "\n".join(lines)


def proposal_json(p: Proposal) -> dict:
    """A proposal as the JSON envelope carries it: no spans, no stages."""
    out: dict = {"kind": p.kind, "sheet": p.sheet, "name": p.name, "rule": p.rule, "fits": p.fits,
                 "rows": p.rows, "weak": p.weak}
    if p.kind == "alias" and p.header is not None:
        out["header"] = p.header
    if p.reasons:
        out["reason"] = p.reasons
    if p.alternatives:
        out["alternatives"] = list(p.alternatives)
    if p.disagreement is not None:
        d = p.disagreement
        out["disagreement"] = {"rowLabel": d.row_label, "stored": d.stored, "computed": d.computed}
    if p.figure is not None:
        out["figure"] = {"text": p.figure.text, "line": p.figure.line, "anchored": p.figure.anchor_at is not None}
    return out


def total_json(sheet: Sheet) -> dict:
    """A total row infer set aside: where it is, and each of its numbers against the sum of
    the cells above it."""
    total = sheet.total
    assert total is not None
    return {"sheet": sheet.id, "rowLabel": total.label, "line": total.line,
            "sums": [{"column": s.column, "stored": s.stored, "sum": s.sum, "matches": s.matches}
                     for s in total.sums]}


def file_json(path: str, inference: Inference) -> dict:
    """One file's entry in the ``infer`` envelope."""
    entry: dict = {"path": path, "proposals": [proposal_json(p) for p in inference.proposals]}
    totals = [total_json(s) for s in inference.sheets if s.total is not None]
    if totals:
        entry["totalRows"] = totals
    if inference.left_alone is not None:
        entry["leftAlone"] = inference.left_alone
    return entry
