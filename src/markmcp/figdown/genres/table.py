"""The ``table`` typed block (genres/table.md) and ``chart`` over a table.

::

    table <id> ["label"]
    | head | head |            one or more header tiers
    |------|:----:|            the GFM delimiter row (alignment)
    | cell | cell |            data rows; "" after a cell = colspan, ^^ = rowspan
    width auto,90,25%          one value per column
    cell (<row>,<col>) fill=…  a mark; (h<tier>,<col>) addresses a header cell
    cell <row> highlight       a row tint
    chart <table-id> [type=bar3d]

A pipe row is read by a small scanner (:func:`pipe_segments`) and then filed
by what the block has seen so far: header tiers until the delimiter row,
data rows after it.
"""

from __future__ import annotations

import re

from .. import messages as M
from ..context import Context
from ..lexer import WS, split_list, trim
from ..numbers import to_number
from ..options import Split, id_error, join_list_form, parse_class_list
from .blockhead import claim_block

PIPE = "|"
ESCAPED_PIPE = "\\|"
SEPARATOR_RE = re.compile(r"(?<!\\)\|")   # a pipe not escaped by a backslash
ROWSPAN_MARK = "^^"
ESCAPED_ROWSPAN = "\\^^"
# delimiter-cell = ws* ':'? '-'+ ':'? ws*
DELIMITER_CELL_RE = re.compile(f"{WS}*:?-+:?{WS}*\\Z")
LINE_BREAK_TAG_RE = re.compile(f"<br{WS}*/?>", re.I)
DECIMAL = r"[0-9]+(?:\.[0-9]+)?"
# cell addresses: (h?row,col) for a cell, h?row for a row, and the unparenthesised pair (retired)
CELL_ADDRESS_RE = re.compile(r"\((h?)([0-9]+),([0-9]+)\)\Z")
ROW_ADDRESS_RE = re.compile(r"(h?)([0-9]+)\Z")
UNWRAPPED_PAIR_RE = re.compile(r"h?[0-9]+,[0-9]+\Z")
# column widths: auto | <px> | <n>%  (a px suffix is a common slip, named in the error)
COLUMN_WIDTH_FORMS = (
    (re.compile(rf"({DECIMAL})\Z"), "px"),
    (re.compile(rf"({DECIMAL})%\Z"), "pct"),
)
PX_SUFFIXED_RE = re.compile(rf"{DECIMAL}px\Z")
SIGNED_DECIMAL_RE = re.compile(rf"-?{DECIMAL}\Z")
AUTO = "auto"
HIGHLIGHT = "highlight"
CHART_TYPES = ("bar3d",)


def open_block(ctx: Context, n: int, sp: Split) -> None:
    """``table <id> ["label"]`` opens a block that pipe rows fill."""
    ident = claim_block(ctx, n, sp, "table")
    if ident is None:
        return
    block = {"genre": "table", "id": ident, "label": sp.arg(2), "fill": sp.get("fill"),
             "stroke": sp.get("stroke"), "class": parse_class_list(sp.opts.get("class"))[0],
             "heads": [], "aligns": None, "rows": [], "width": None, "marks": [],
             "highlights": [], "line": n, "_cols": 0, "_sep": False, "_width_line": None}
    ctx.doc.regions.append(block)
    ctx.current = block


# ---------------------------------------------------------------- pipe rows


def pipe_segments(src: str, pos: int, end: int) -> list[str]:
    """row-inside = segment ('|' segment)*  over ``src[pos:end]``; ``\\|`` is a literal pipe
    (a pipe right after a backslash: the backslash goes, the pipe stays)."""
    return [segment.replace(ESCAPED_PIPE, PIPE) for segment in SEPARATOR_RE.split(src[pos:end])]


def column_alignment(segment: str) -> str:
    """The alignment a delimiter cell's colons ask for."""
    text = trim(segment)
    colons = (text[:1] == ":", text[-1:] == ":")
    return {(True, True): "center", (False, True): "right", (True, False): "left"}.get(colons, "none")


def table_cell(segment: str) -> dict:
    """One cell: an empty segment joins the cell to its left, ``^^`` the one above."""
    if segment == "":
        return {"v": "", "merge": "left"}
    text = trim(segment)
    if text == ROWSPAN_MARK:
        return {"v": "", "merge": "up"}
    if text.startswith(ESCAPED_ROWSPAN):
        text = text[1:]
    return {"v": LINE_BREAK_TAG_RE.sub("\n", text)}


def _joins_upward(cells: list[dict]) -> bool:
    return any(cell.get("merge") == "up" for cell in cells)


def _delimiter_row_problem(block: dict, columns: int) -> str | None:
    if block["_sep"]:
        return "duplicate delimiter row"
    if not block["heads"]:
        return "delimiter row before any header row"
    if columns != block["_cols"]:
        return f"delimiter row has {columns} columns, expected {block['_cols']}"
    return None


def _file_header_row(block: dict, cells: list[dict]) -> str | None:
    tiers = block["heads"]
    if tiers and len(cells) != block["_cols"]:
        return f"header row has {len(cells)} cells, expected {block['_cols']}"
    if not tiers:
        block["_cols"] = len(cells)
    tiers.append(cells)
    return None


def _file_data_row(block: dict, cells: list[dict], n: int) -> str | None:
    if len(cells) != block["_cols"]:
        return f"row has {len(cells)} cells, expected {block['_cols']}"
    if not block["rows"] and _joins_upward(cells):
        return ('"^^" cannot appear in the first data row (rowspan does not cross the header '
                "delimiter row)")
    block["rows"].append({"cells": cells, "line": n})
    return None


def _pipe_row_problem(block: dict | None, raw: str, n: int) -> str | None:
    if block is None or block["genre"] != "table":
        return "pipe row outside a table block"
    row = trim(raw)
    if not row.endswith(PIPE):
        return "pipe row must end with |"
    segments = pipe_segments(row, 1, len(row) - 1)
    if all(DELIMITER_CELL_RE.match(segment) for segment in segments):
        problem = _delimiter_row_problem(block, len(segments))
        if problem is None:
            block["_sep"] = True
            block["aligns"] = [column_alignment(segment) for segment in segments]
        return problem
    cells = [table_cell(segment) for segment in segments]
    if cells[0].get("merge") == "left":
        return "colspan cannot start in the first column"
    if not block["heads"] and _joins_upward(cells):
        return '"^^" cannot appear in the first row'
    if block["_sep"]:
        return _file_data_row(block, cells, n)
    return _file_header_row(block, cells)


def pipe_row(ctx: Context, n: int, raw: str) -> None:
    """A ``|…|`` line: a header tier, the delimiter row, or a data row."""
    problem = _pipe_row_problem(ctx.current, raw, n)
    if problem:
        ctx.err(n, problem)


# ---------------------------------------------------------------- width


def column_width(text: str) -> object | str:
    """column-width = 'auto' | px | pct — the model value, or the problem as a str."""
    if text == AUTO:
        return AUTO
    for form, unit in COLUMN_WIDTH_FORMS:
        m = form.match(text)
        if m:
            return {unit: to_number(m.group(1))}
    if PX_SUFFIXED_RE.match(text):
        return f'bad width "{text}" — drop the px suffix and write {text[:-2]} (auto | <px> | <n>%)'
    return f'bad width "{text}" (auto | <px> | <n>%)'


def _width_problem(block: dict, sp: Split) -> tuple[list[str], str | None]:
    if block["width"] is not None:
        return [], "duplicate width"
    if len(sp.pos) > 2:
        return [], (f"width takes ONE comma-delimited token: write width {join_list_form(sp.pos[1:])} "
                    "— the space form is retired (MIGRATIONS 0.1)")
    texts = [item.v for item in split_list(sp.post[1])] if len(sp.post) > 1 else []
    if not texts:
        return [], "width needs one value per column (auto | <px> | <n>%)"
    return texts, None


def width_line(ctx: Context, n: int, sp: Split) -> None:
    """``width a,b,c`` — one column width per column; the last bad value is the one named."""
    block = ctx.current
    assert block is not None
    texts, problem = _width_problem(block, sp)
    if problem:
        return ctx.err(n, problem)
    widths = [column_width(text) for text in texts]
    bad = [w for w in widths if isinstance(w, str) and w != AUTO]
    if bad:
        return ctx.err(n, bad[-1])
    block["width"] = {"widths": widths, "line": n}
    return None


# ---------------------------------------------------------------- cell marks


def cell_address(text: str) -> tuple[bool, int, int | None] | None:
    """address = '(' 'h'? row ',' col ')' | 'h'? row  → (in header, row, col or None)."""
    m = CELL_ADDRESS_RE.match(text)
    if m:
        return bool(m.group(1)), int(m.group(2)), int(m.group(3))
    m = ROW_ADDRESS_RE.match(text)
    if m:
        return bool(m.group(1)), int(m.group(2)), None
    return None


def _cell_words_problem(sp: Split) -> str | None:
    """The bare words after the address: only ``highlight``, written bare."""
    if HIGHLIGHT in sp.pos:
        at = sp.pos.index(HIGHLIGHT)
        if at > 0 and sp.posq[at]:
            return M.enum_bare(f"cell {sp.pos[1]} highlight")
    stray = [word for word in sp.pos[2:] if word != HIGHLIGHT]
    return f'unexpected argument "{stray[0]}"' if stray else None


def cell_line(ctx: Context, n: int, sp: Split) -> None:
    """``cell (<row>,<col>) fill=…|class=…`` marks a cell; ``cell <row> highlight`` tints a row."""
    block = ctx.current
    assert block is not None
    written = sp.arg(1) or ""
    if UNWRAPPED_PAIR_RE.match(written):
        return ctx.err(n, f"cell address needs parentheses: cell ({written}) — without them the pair "
                          "reads as a list of two numbers (MIGRATIONS 0.1)")
    problem = _cell_words_problem(sp)
    if problem:
        return ctx.err(n, problem)
    address = cell_address(written)
    tint = HIGHLIGHT in sp.pos[1:]
    paints = "fill" in sp.opts or "stroke" in sp.opts
    styled = paints or bool(sp.get("class"))
    if address is None or not (styled or tint):
        return ctx.err(n, "cell needs [h]<row>[,<col>] with fill=…/class=… or highlight")
    in_header, row, col = address
    if row == 0 and not in_header:
        return ctx.err(n, "row 0 is retired — address header tiers as h1..hN (top-down)")
    if tint:
        if col is not None:
            return ctx.err(n, M.HIGHLIGHT_NEEDS_ROW_FORM)
        if in_header:
            return ctx.err(n, "highlight applies to data rows only")
        block["highlights"].append({"row": row, "line": n})
        return None
    if col is None:
        return ctx.err(n, "cell needs [h]<row>,<col> fill=…/class=… or <row> highlight")
    block["marks"].append({"header": True if in_header else None, "row": row, "col": col,
                           "fill": sp.get("fill"), "stroke": sp.get("stroke"),
                           "class": parse_class_list(sp.opts.get("class"))[0], "line": n})
    return None


# ---------------------------------------------------------------- chart


def directive_chart(ctx: Context, n: int, sp: Split) -> None:
    """``chart <table-id> [type=bar3d]`` — a chart drawn from a table's numbers."""
    table_id = sp.arg(1)
    problem = id_error(table_id, sp.argq(1), "chart needs a table id")
    if problem is None and len(sp.pos) > 2:
        problem = f'unexpected argument "{sp.pos[2]}"'
    kind = sp.get("type") or CHART_TYPES[0]
    if problem is None and kind not in CHART_TYPES:
        problem = f'unknown chart type "{kind}" (bar3d)'
    if problem:
        return ctx.err(n, problem)
    ctx.doc.regions.append({"genre": "chart", "table": table_id, "type": kind, "line": n})
    return None


def is_numeric(text: str) -> bool:
    """Whether a cell's text reads as a (signed) number a chart can plot."""
    return SIGNED_DECIMAL_RE.match(text) is not None
