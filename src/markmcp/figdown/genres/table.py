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
"""

from __future__ import annotations

import re

from .. import messages as M
from ..context import Context
from ..lexer import WS, split_list, trim
from ..numbers import to_number
from ..options import Split, id_error, join_list_form, parse_class_list

DELIMITER_CELL_RE = re.compile(f"{WS}*:?-+:?{WS}*\\Z")
BR_RE = re.compile(f"<br{WS}*/?>", re.I)
BARE_ADDRESS_RE = re.compile(r"h?[0-9]+,[0-9]+\Z")
CELL_ADDRESS_RE = re.compile(r"\((h?)([0-9]+),([0-9]+)\)\Z")
ROW_ADDRESS_RE = re.compile(r"(h?)([0-9]+)\Z")
WIDTH_PX_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\Z")
WIDTH_PCT_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)%\Z")
WIDTH_UNIT_PX_RE = re.compile(r"[0-9]+(?:\.[0-9]+)?px\Z")
NUMERIC_RE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?\Z")


def open_block(ctx: Context, n: int, sp: Split) -> None:
    ident = sp.arg(1)
    e = id_error(ident, sp.argq(1), "table needs an id")
    if e:
        return ctx.err(n, e)
    if ctx.taken(ident):
        return ctx.err(n, f'duplicate id "{ident}"')
    if sp.arg(2) is not None and not sp.argq(2):
        return ctx.err(n, M.must_quote("table label", f'table {ident} "{sp.pos[2]}"'))
    if len(sp.pos) > 3:
        return ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
    ctx.block_ids.add(ident)
    classes, _ = parse_class_list(sp.opts.get("class"))
    block = {"genre": "table", "id": ident, "label": sp.arg(2), "fill": sp.get("fill"),
             "stroke": sp.get("stroke"), "class": classes, "heads": [], "aligns": None, "rows": [],
             "width": None, "marks": [], "highlights": [], "line": n,
             "_cols": 0, "_sep": False, "_width_line": None}
    ctx.doc.regions.append(block)
    ctx.current = block


def _split_pipe_row(inner: str) -> list[str]:
    """Split the inside of ``|…|`` on unescaped pipes (``\\|`` is a literal pipe)."""
    segments, acc, i = [], [], 0
    while i < len(inner):
        ch = inner[i]
        if ch == "\\" and i + 1 < len(inner) and inner[i + 1] == "|":
            acc.append("|")
            i += 2
            continue
        if ch == "|":
            segments.append("".join(acc))
            acc = []
        else:
            acc.append(ch)
        i += 1
    segments.append("".join(acc))
    return segments


def _alignment(seg: str) -> str:
    seg = trim(seg)
    left, right = seg.startswith(":"), seg.endswith(":")
    if left and right:
        return "center"
    if right:
        return "right"
    if left:
        return "left"
    return "none"


def _cell(seg: str) -> dict:
    if seg == "":
        return {"v": "", "merge": "left"}
    text = trim(seg)
    if text == "^^":
        return {"v": "", "merge": "up"}
    if text.startswith("\\^^"):
        text = text[1:]
    return {"v": BR_RE.sub("\n", text)}


def pipe_row(ctx: Context, n: int, raw: str) -> None:
    block = ctx.current
    if block is None or block["genre"] != "table":
        return ctx.err(n, "pipe row outside a table block")
    s = trim(raw)
    if not s.endswith("|"):
        return ctx.err(n, "pipe row must end with |")
    segments = _split_pipe_row(s[1:-1])
    if all(DELIMITER_CELL_RE.match(x) for x in segments):
        if block["_sep"]:
            return ctx.err(n, "duplicate delimiter row")
        if not block["heads"]:
            return ctx.err(n, "delimiter row before any header row")
        if len(segments) != block["_cols"]:
            return ctx.err(n, f"delimiter row has {len(segments)} columns, expected {block['_cols']}")
        block["_sep"] = True
        block["aligns"] = [_alignment(x) for x in segments]
        return None
    cells = [_cell(x) for x in segments]
    if cells[0].get("merge") == "left":
        return ctx.err(n, "colspan cannot start in the first column")
    if not block["heads"] and any(c.get("merge") == "up" for c in cells):
        return ctx.err(n, '"^^" cannot appear in the first row')
    if not block["_sep"]:
        if block["heads"] and len(cells) != block["_cols"]:
            return ctx.err(n, f"header row has {len(cells)} cells, expected {block['_cols']}")
        block["heads"].append(cells)
        if len(block["heads"]) == 1:
            block["_cols"] = len(cells)
        return None
    if len(cells) != block["_cols"]:
        return ctx.err(n, f"row has {len(cells)} cells, expected {block['_cols']}")
    if not block["rows"] and any(c.get("merge") == "up" for c in cells):
        return ctx.err(n, '"^^" cannot appear in the first data row (rowspan does not cross the '
                          "header delimiter row)")
    block["rows"].append({"cells": cells, "line": n})
    return None


def _width_value(v: str) -> tuple[object, str | None]:
    if v == "auto":
        return "auto", None
    m = WIDTH_PX_RE.match(v)
    if m:
        return {"px": to_number(m.group(1))}, None
    m = WIDTH_PCT_RE.match(v)
    if m:
        return {"pct": to_number(m.group(1))}, None
    if WIDTH_UNIT_PX_RE.match(v):
        return None, f'bad width "{v}" — drop the px suffix and write {v[:-2]} (auto | <px> | <n>%)'
    return None, f'bad width "{v}" (auto | <px> | <n>%)'


def width_line(ctx: Context, n: int, sp: Split) -> None:
    block = ctx.current
    assert block is not None
    if block["width"] is not None:
        return ctx.err(n, "duplicate width")
    if len(sp.pos) > 2:
        return ctx.err(n, f"width takes ONE comma-delimited token: write width {join_list_form(sp.pos[1:])} "
                          "— the space form is retired (MIGRATIONS 0.1)")
    values = [i.v for i in split_list(sp.post[1])] if len(sp.post) > 1 else []
    if not values:
        return ctx.err(n, "width needs one value per column (auto | <px> | <n>%)")
    widths, problem = [], None
    for v in values:
        w, e = _width_value(v)
        if e:
            problem = e  # the last bad value is the one reported
        widths.append(w)
    if problem:
        return ctx.err(n, problem)
    block["width"] = {"widths": widths, "line": n}
    return None


def cell_line(ctx: Context, n: int, sp: Split) -> None:
    block = ctx.current
    assert block is not None
    address = sp.arg(1) or ""
    if BARE_ADDRESS_RE.match(address):
        return ctx.err(n, f"cell address needs parentheses: cell ({address}) — without them the pair "
                          "reads as a list of two numbers (MIGRATIONS 0.1)")
    rc = CELL_ADDRESS_RE.match(address) or ROW_ADDRESS_RE.match(address)
    hl_at = sp.pos.index("highlight") if "highlight" in sp.pos else -1
    if hl_at > 0 and sp.posq[hl_at]:
        return ctx.err(n, M.enum_bare(f"cell {sp.pos[1]} highlight"))
    highlight = hl_at > 0
    extra = next((x for x in sp.pos[2:] if x != "highlight"), None)
    if extra is not None:
        return ctx.err(n, f'unexpected argument "{extra}"')
    paints = "fill" in sp.opts or "stroke" in sp.opts
    if not rc or (not paints and not sp.get("class") and not highlight):
        return ctx.err(n, "cell needs [h]<row>[,<col>] with fill=…/class=… or highlight")
    is_head, row = bool(rc.group(1)), int(rc.group(2))
    col = int(rc.group(3)) if rc.lastindex and rc.lastindex >= 3 else None
    if not is_head and row == 0:
        return ctx.err(n, "row 0 is retired — address header tiers as h1..hN (top-down)")
    if highlight and col is not None:
        return ctx.err(n, M.CELL_HL_ON_CELL)
    if highlight:
        if is_head:
            return ctx.err(n, "highlight applies to data rows only")
        block["highlights"].append({"row": row, "line": n})
        return None
    if col is not None and (paints or sp.get("class")):
        classes, _ = parse_class_list(sp.opts.get("class"))
        block["marks"].append({"header": True if is_head else None, "row": row, "col": col,
                               "fill": sp.get("fill"), "stroke": sp.get("stroke"), "class": classes,
                               "line": n})
        return None
    return ctx.err(n, "cell needs [h]<row>,<col> fill=…/class=… or <row> highlight")


def directive_chart(ctx: Context, n: int, sp: Split) -> None:
    table = sp.arg(1)
    e = id_error(table, sp.argq(1), "chart needs a table id")
    if e:
        return ctx.err(n, e)
    if len(sp.pos) > 2:
        return ctx.err(n, f'unexpected argument "{sp.pos[2]}"')
    kind = sp.get("type") or "bar3d"
    if kind != "bar3d":
        return ctx.err(n, f'unknown chart type "{kind}" (bar3d)')
    ctx.doc.regions.append({"genre": "chart", "table": table, "type": kind, "line": n})
    return None


def is_numeric(text: str) -> bool:
    return bool(NUMERIC_RE.match(text))

