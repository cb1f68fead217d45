"""``table``: a grid of cells with header tiers, merges, marks and highlights.

Columns are as wide as their widest unmerged cell (the node-box measure), or
as ``width=`` says (px, or a percentage of the natural total).  Rows are 26 px,
taller when a cell breaks its text.  Header tiers are tinted and centred;
data cells follow the GFM colon alignment, but one merged across columns is
centred on them.  ``<`` (merge left) and ``^`` (merge up) cells belong to the
cell they extend, so the boundary between them is never drawn.  Every data cell (and the bottom header tier, row 0) carries
``data-cell="<table>:<row>:<col>"`` so an editor can address it.

The drawing is bounded: a table of more than :data:`MAX_CELLS` cells (header
tiers and data rows, times columns) is refused on the row that went past it,
or on the table's line when its header tiers alone do, instead of drawing a
picture of hundreds of megabytes.
"""

from __future__ import annotations

from ..block import DRAWABLE, Block
from ..style import paint
from ..svg import esc, tag, text
from ..text import INK_DARK, INK_LIGHT, is_dark, label_ink, node_width, one_line, title_width
from . import grid
from .bound import refused

FS, LH, ROW_MIN = 12, 12 * 1.3, 26
HEADER_FILL, HIGHLIGHT_FILL = "#eeede6", "#fef3c7"
MAX_CELLS = 16_384
"""The most cells (rows × columns, header tiers included) one table draws: 1,024 rows of
16 columns, about 5 MB of SVG in 0.4 s.  The largest table of the conformance corpus and the
examples has 48."""


def _columns(block: dict) -> int:
    return max([len(t) for t in block.get("heads", ())] + [len(r["cells"]) for r in block.get("rows", ())] + [0])


def cells(block: dict) -> int:
    """The cells :func:`render` draws for ``block``: its rows (header tiers included) × columns."""
    return (len(block.get("heads", ())) + len(block.get("rows", ()))) * _columns(block)


def _refusal(block: dict) -> Block | None:
    """What :func:`render` refuses ``block`` with, found without drawing: the first row (or
    the header tiers) that takes it past :data:`MAX_CELLS`, or None."""
    ncols = _columns(block)
    tiers = len(block.get("heads", ()))
    name = 'table "' + str(block.get("id", "")) + '"'
    width = block.get("width") or {}
    for v in width.get("widths") or ():
        # a width of 600 digits is an infinite number: the page's width could not be drawn
        if isinstance(v, dict) and not all(abs(n) <= DRAWABLE for n in v.values()):
            return refused(width.get("line", block.get("line", 1)),
                           f"{name} asks for a column width too large a number to draw")
    if tiers * ncols > MAX_CELLS:
        return refused(block.get("line", 1), f"{name} has {tiers} header tier(s) of {ncols} columns: more cells "
                                             f"than one table drawing holds (at most {MAX_CELLS} cells)")
    if (tiers + len(block.get("rows", ()))) * ncols <= MAX_CELLS:
        return None
    k = MAX_CELLS // ncols - tiers          # the first data row (0-based) past the bound
    return refused(block["rows"][k].get("line", block.get("line", 1)),
                   f"data row {k + 1} takes {name} to {tiers + k + 1} rows of {ncols} columns, more cells than one "
                   f"table drawing holds (at most {MAX_CELLS} cells)")


def diagnostics(block: dict) -> list[tuple[int, str]]:
    """The diagnostics :func:`render` reports for ``block``, without drawing it."""
    found = _refusal(block)
    return [] if found is None else found.diags


def render(block: dict, classes: dict, y0: float) -> Block:
    found = _refusal(block)
    if found is not None:
        return found
    label = block.get("label")
    label = block.get("id", "") if label is None else label
    heads = block.get("heads", [])
    rows = [r["cells"] for r in block.get("rows", [])]
    table = [[dict(c, hdr=True) for c in tier] for tier in heads] + [list(r) for r in rows]
    n_heads = len(heads)
    ncols = max((len(r) for r in table), default=0)
    for r in table:
        while len(r) < ncols:
            r.append({"v": ""})
    widths = []
    for c in range(ncols):
        w = 30.0
        for r in table:
            if not r[c].get("merge"):
                w = max(w, node_width(str(r[c].get("v", ""))))
        widths.append(w)
    spec = (block.get("width") or {}).get("widths")
    if spec:
        base = sum(widths)
        for i, v in enumerate(spec[:ncols]):
            if isinstance(v, dict) and "px" in v:
                widths[i] = float(v["px"])
            elif isinstance(v, dict) and "pct" in v:
                widths[i] = v["pct"] / 100 * base
    total = sum(widths)
    heights = []
    for r in table:
        lines = max([1] + [str(c.get("v", "")).count("\n") + 1 for c in r if not c.get("merge")])
        heights.append(max(ROW_MIN, round(8 + lines * LH)))
    y_at = [0.0]
    for h in heights:
        y_at.append(y_at[-1] + h)
    x_at = [0.0]
    for w in widths:
        x_at.append(x_at[-1] + w)
    out = []
    y = y0 + 18
    out.append(tag("text", [("x", 0), ("y", y - 4), ("font-size", 13), ("font-weight", "600")], esc(one_line(label))))
    top = y + 4
    block_ink = paint(block, classes)
    highlighted = {h["row"] for h in block.get("highlights", ())}
    marks = {}
    for m in block.get("marks", ()):
        r = (m["row"] - 1) if m.get("header") else n_heads + m["row"] - 1
        marks[(r, m["col"] - 1)] = m
    aligns = block.get("aligns") or []
    owners: list[list] = [[None] * ncols for _ in table]
    tid = block.get("id", "")
    for r, row in enumerate(table):
        for c, cell in enumerate(row):
            if cell.get("merge"):
                continue
            cs = 1
            while c + cs < ncols and row[c + cs].get("merge") == "left":
                cs += 1
            rs = 1
            while r + rs < len(table) and table[r + rs][c].get("merge") == "up":
                rs += 1
            x, w = x_at[c], x_at[c + cs] - x_at[c]
            yy, h = top + y_at[r], y_at[r + rs] - y_at[r]
            mark = marks.get((r, c))
            mark_ink = paint(mark, classes) if mark else {"fill": None, "stroke": None}
            header = bool(cell.get("hdr"))
            data_row = r - n_heads + 1
            fill = mark_ink["fill"] or (HEADER_FILL if header else
                                        (HIGHLIGHT_FILL if data_row in highlighted else
                                         (block_ink["fill"] or "#fff")))
            owner = grid.Owner(mark_ink["stroke"], False)
            for rr in range(r, r + rs):
                for cc in range(c, c + cs):
                    owners[rr][cc] = owner
            address = data_row if r >= n_heads else (0 if r == n_heads - 1 else None)
            extra = [] if address is None else [("data-cell", f"{tid}:{address}:{c + 1}"),
                                                ("style", "cursor:pointer")]
            out.append(tag("rect", [("x", x), ("y", yy), ("width", w), ("height", h), ("fill", fill),
                                    ("stroke", "none"), *extra]))
            # a data cell merged across columns is centred on them: set to one column's side,
            # a value across six ("tWR 15" under six speed bins, right-aligned) read as the
            # last column's alone
            align = "center" if header or cs > 1 else (aligns[c] if c < len(aligns) else "left")
            if align not in ("left", "center", "right"):
                align = "left"
            tx = x + w / 2 if align == "center" else (x + w - 7 if align == "right" else x + 7)
            anchor = {"center": "middle", "right": "end"}.get(align, "start")
            value = str(cell.get("v", ""))
            weight = "600" if header else None
            if "\n" not in value:
                out.append(text(tx, yy + h / 2 + 4.3, FS, value, anchor=anchor, weight=weight,
                                fill=INK_LIGHT if is_dark(fill) else None))
            else:
                out.append(text(tx, yy + h / 2 + 4, FS, value, anchor=anchor, weight=weight,
                                fill=label_ink(fill, INK_DARK)))
    runs = []
    rows_idx = range(len(table))

    def at(r, c):
        if r < 0 or r >= len(table) or c < 0 or c >= ncols:
            return None
        return owners[r][c]
    for c in range(ncols + 1):
        runs += grid.runs(True, x_at[c], [(top + y_at[i], top + y_at[i + 1]) for i in rows_idx],
                          [(at(i, c - 1), at(i, c)) for i in rows_idx])
    for r in range(len(table) + 1):
        runs += grid.runs(False, top + y_at[r], [(x_at[i], x_at[i + 1]) for i in range(ncols)],
                          [(at(r - 1, i), at(r, i)) for i in range(ncols)])
    out.append(grid.draw(runs, block_ink["stroke"] or "#c9c7bf"))
    end = top + y_at[-1]
    return Block("".join(out), end + 6, max(total + 2, title_width(label)),
                 {"x0": 0, "x1": total, "y0": top + y_at[n_heads], "y1": end})
