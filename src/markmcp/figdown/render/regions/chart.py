"""``chart`` (experimental): a table drawn as isometric 3-D bars (``bar3d``).

The table's first column names the rows, its last header tier names the
columns, and every other cell is a bar height (non-numbers count 0).  A value
below 0 has no bar (a bar cannot stand below the floor): a line under the chart
names each one, so the picture never drops a value silently.  The
floor is an isometric grid (20 × 10 px per cell), bars are painted far to
near with the two side faces shaded, and a z ruler stands at the back corner.
Axis names sit beside their own row or column line and *lean out* along that
line, 2 px at a time, until they clear every bar face and every name already
placed (row names from the front row back, so each leans past the one in front of
it); a name that cannot clear keeps a white halo.  The floor moves right by
exactly what the widest row name needs, so no name is ever clipped.

The drawing is bounded: a chart of more than :data:`MAX_BARS` bars (the table's
data rows × its value columns) is refused on its ``chart`` line; placing the
axis names against the faces grows faster than the bars do.
"""

from __future__ import annotations

import math
import re

from ..block import DRAWABLE, Block
from ..svg import esc, num, points, tag, text
from ..text import INK_MUTED, item_lines, one_line, title_width, units
from .bound import refused

PALETTE = ("#3b82f6", "#22c55e", "#f59e0b", "#ef4444", "#a855f7", "#14b8a6", "#eab308", "#64748b")
W2, H2, BAR = 20, 10, 0.72
MAX_BARS = 1_024
"""The most bars (data rows × value columns) one chart draws: 32 × 32, about 0.65 MB of SVG
in 0.6 s (40 × 40 took 0.37 s, 60 × 60 1.4 s: the names' placement grows as the
cube of the side).  The largest chart of the conformance corpus and the examples has 24."""
NUMBER = re.compile(r"\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")


def _value(text_value: str) -> float:
    m = NUMBER.match(text_value or "")
    return float(m.group(0)) if m else 0.0


def half_up(value: float) -> int:
    """The nearest integer, a half going up, as FigDown's engine rounds (Python's round()
    takes a half to the even neighbour: a ruler over 45 would read 22 where it reads 23)."""
    return math.floor(value + 0.5)


def shade(colour: str, f: float) -> str:
    v = int(colour[1:], 16)
    ch = [max(0, min(255, half_up(((v >> s) & 255) * f))) for s in (16, 8, 0)]
    return "#" + "".join(f"{c:02x}" for c in ch)


def _quad_hits_box(poly, box) -> bool:
    """Separating-axis test between a convex quad and an axis-aligned box."""
    corners = [(box[0], box[1]), (box[2], box[1]), (box[2], box[3]), (box[0], box[3])]
    for shape in (poly, corners):
        for i in range(len(shape)):
            a, c = shape[i], shape[(i + 1) % len(shape)]
            nx, ny = -(c[1] - a[1]), c[0] - a[0]
            pa = [q[0] * nx + q[1] * ny for q in poly]
            pb = [q[0] * nx + q[1] * ny for q in corners]
            if max(pa) < min(pb) or max(pb) < min(pa):
                return False
    return True


def _table(block: dict, model: dict) -> dict | None:
    return next((r for r in model.get("regions", ()) if r.get("genre") == "table"
                 and r.get("id") == block.get("table")), None)


def _shape(table: dict) -> tuple[int, int]:
    """(data rows, value columns) of the chart of ``table``."""
    heads = table.get("heads") or [[]]
    return len(table.get("rows", ())), max(0, len(heads[-1]) - 1)


def bars(block: dict, model: dict) -> int:
    """The bars :func:`render` lays out for ``block`` (every cell of the grid, drawn or not)."""
    table = _table(block, model)
    if table is None:
        return 0
    nr, nc = _shape(table)
    return nr * nc


def _refusal(block: dict, model: dict) -> Block | None:
    """What :func:`render` refuses ``block`` with, found without drawing, or None."""
    table = _table(block, model)
    if table is None:
        return None
    nr, nc = _shape(table)
    for r in table.get("rows", ()):
        # a value of 400 digits (or 1e999) is an infinite number: no bar of that height
        if any(not abs(_value(str(c.get("v", "")))) <= DRAWABLE for c in r["cells"][1:]):
            return refused(r.get("line", block.get("line", 1)),
                           f'chart of table "{block.get("table", "")}": a value in this row is too large a number '
                           f"to draw")
    if nr * nc <= MAX_BARS:
        return None
    return refused(block.get("line", 1),
                   f'chart of table "{block.get("table", "")}" would draw {nr * nc} bars ({nr} rows of {nc} '
                   f"values), more than one chart holds (at most {MAX_BARS} bars)")


def diagnostics(block: dict, model: dict) -> list[tuple[int, str]]:
    """The diagnostics :func:`render` reports for ``block``, without drawing it."""
    found = _refusal(block, model)
    return [] if found is None else found.diags


def render(block: dict, model: dict, y0: float) -> Block:
    table = _table(block, model)
    if table is None:
        return Block("", y0, 0.0)
    found = _refusal(block, model)
    if found is not None:
        return found
    rows = [[_value(str(c.get("v", ""))) for c in r["cells"][1:]] for r in table.get("rows", ())]
    row_names = [str(r["cells"][0].get("v", "")) if r["cells"] else "" for r in table.get("rows", ())]
    heads = table.get("heads") or [[]]
    col_names = [str(c.get("v", "")) for c in heads[-1][1:]]
    nr, nc = len(rows), len(col_names)
    zmax = max([1.0] + [v for r in rows for v in r])
    zs = 130 / zmax
    oy = y0 + 18 + zs * zmax + 6
    ceiling = y0 + 18
    label = table.get("label")
    label = table.get("id", "") if label is None else label
    caption = f"{label} — bar3d"

    def at(r, c, z):
        return ((c - r) * W2, oy + (c + r) * H2 - z * zs)
    faces, quads = [], []
    order = sorted(((r, c) for r in range(nr) for c in range(nc)), key=lambda rc: (rc[0] + rc[1], rc[0]))
    for r, c in order:
        h = rows[r][c] if c < len(rows[r]) else 0.0
        if h <= 0:
            continue
        colour = PALETTE[c % len(PALETTE)]
        i0, i1, j0, j1 = r + (1 - BAR) / 2, r + (1 + BAR) / 2, c + (1 - BAR) / 2, c + (1 + BAR) / 2
        a, b, cc, d = at(i0, j0, h), at(i1, j0, h), at(i1, j1, h), at(i0, j1, h)
        b0, c0, d0 = at(i1, j0, 0), at(i1, j1, 0), at(i0, j1, 0)
        for quad, fill in (([b, cc, c0, b0], shade(colour, 0.72)), ([cc, d, d0, c0], shade(colour, 0.55)),
                           ([a, b, cc, d], colour)):
            faces.append((quad, fill))
            quads.append((quad, min(q[0] for q in quad), min(q[1] for q in quad),
                          max(q[0] for q in quad), max(q[1] for q in quad)))
    placed, laid = [], []

    def lean(x, y, width, anchor, dx, dy):
        length = (dx * dx + dy * dy) ** 0.5
        ux, uy = dx / length, dy / length
        last = None
        for k in range(49):
            px, py = x + ux * k * 2, y + uy * k * 2
            box = ((px - width) if anchor == "end" else px, py - 8, px if anchor == "end" else px + width, py + 2.5)
            if box[1] < ceiling:
                break
            last = (px, py, box, False)
            pad = (box[0] - 3, box[1] - 2, box[2] + 3, box[3] + 2)
            # a face whose bounding box clears the pad by a pixel or more cannot meet it
            # (the test's own box axes separate them), so only the near faces are tested
            hit = any(_quad_hits_box(q, pad) for q, qx0, qy0, qx1, qy1 in quads
                      if not (qx1 + 1 < pad[0] or qx0 - 1 > pad[2] or qy1 + 1 < pad[1] or qy0 - 1 > pad[3])) or any(
                pad[0] < o[2] and pad[2] > o[0] and pad[1] < o[3] and pad[3] > o[1] for o in laid)
            if not hit:
                return px, py, box, True
        if last is None:
            box = ((x - width) if anchor == "end" else x, y - 8, x if anchor == "end" else x + width, y + 2.5)
            return x, y, box, False
        return last

    keyed = nc > 1   # several series: each name beside a swatch of its colour
    # the front row first: each row behind leans out further than the one in front and
    # clears it above (placed back to front, a long name left the row in front of it no
    # way past: rows stand 10 px apart, a name with its gap 14.5 px tall)
    for r in range(nr - 1, -1, -1):
        px, py = at(r + 0.5, -0.15, 0)
        x, y, box, ok = lean(px - 4, py + 10, units(row_names[r]) * NAME_CH, "end", -W2, -H2)
        placed.append((x, y, "end", row_names[r], ok, None))
        laid.append(box)
    placed.reverse()   # drawn in row order
    for c, name in enumerate(col_names):
        px, py = at(nr + 0.15, c + 0.5, 0)
        x, y, box, ok = lean(px + 4, py + 10, units(name) * NAME_CH + (KEY if keyed else 0.0), "start", -W2, H2)
        placed.append((x, y, "start", name, ok, PALETTE[c % len(PALETTE)] if keyed else None))
        laid.append(box)
    overhang, right, down = 0.0, float("-inf"), float("-inf")
    for box in laid:
        overhang, right, down = max(overhang, -box[0]), max(right, box[2]), max(down, box[3])
    ox = max(nr * W2 + 8, overhang + 4)
    shift = lambda q: [(p[0] + ox, p[1]) for p in q]  # noqa: E731
    out = [tag("text", [("x", 0), ("y", y0 + 14), ("font-size", 13), ("font-weight", "600")], esc(one_line(caption)))]
    floor = [at(0, 0, 0), at(nr, 0, 0), at(nr, nc, 0), at(0, nc, 0)]
    out.append(tag("polygon", [("points", points(shift(floor))), ("fill", "#f6f5ef"), ("stroke", "#d6d4cc")]))
    for quad, fill in faces:
        out.append(tag("polygon", [("points", points(shift(quad))), ("fill", fill)]))
    zx, zy = at(0, nc, 0)
    zx += ox
    out.append(tag("line", [("x1", zx + 14), ("y1", zy), ("x2", zx + 14), ("y2", zy - zmax * zs),
                            ("stroke", "#8a8880")]))
    ticks = []
    tick_right = zx + 21.0   # where the value axis's widest tick label ends
    # whole numbers, a half rounded up; on an axis of 2 or less (fractions) the exact half
    # and top, so 0.2 to 0.5 is not read against ticks of 0 and 1 alone
    steps = (0, half_up(zmax / 2), half_up(zmax)) if zmax > 2 else (0, zmax / 2, zmax)
    for z in steps:
        if z in ticks:
            continue
        ticks.append(z)
        label = str(int(z)) if zmax > 2 else num(z)
        tick_right = max(tick_right, zx + 21 + units(label) * TICK_CH)
        out.append(tag("line", [("x1", zx + 11), ("y1", zy - z * zs), ("x2", zx + 17), ("y2", zy - z * zs),
                                ("stroke", "#8a8880")]))
        out.append(text(zx + 21, zy - z * zs + 3.5, 9.5, label, anchor="start", fill=INK_MUTED))
    for x, y, anchor, name, ok, swatch in placed:
        if swatch is not None:
            out.append(tag("rect", [("x", x + ox), ("y", y - 8), ("width", 8), ("height", 8), ("fill", swatch)]))
            x += KEY
        out.append(text(x + ox, y, 10, name, anchor=anchor, fill=INK_MUTED, halo=not ok))
    nx, ny = at(nr, nc, 0)
    # the value axis stands at the back-right corner, beyond every bar (a chart of many
    # rows reaches far to the left of its front corner, and was cut off there)
    width = max(nx + ox + 70, tick_right + 4, right + ox + 4, title_width(caption))
    bottom = max(ny + 24, down + 6)
    below = [(row_names[r], col_names[c] if c < nc else "", table["rows"][r]["cells"][c + 1].get("v", ""))
             for r in range(nr) for c in range(len(rows[r])) if rows[r][c] < 0]
    if below:
        # a bar cannot stand below the floor: say which values the picture leaves out, in
        # lines as wide as the chart (on one line, seven losses widened a 528 px chart to
        # 988 px, and four were named)
        shown = [f"{row} · {col} = {value}" for row, col, value in below[:NOT_DRAWN_LISTED]]
        if len(below) > NOT_DRAWN_LISTED:
            shown.append(f"and {len(below) - NOT_DRAWN_LISTED} more")
        room = max(width, NOT_DRAWN_WIDTH)
        bottom += NOT_DRAWN_GAP   # (clear of the last series' name above)
        for line in item_lines("not drawn, below 0: ", shown, room, lambda t: units(t) * NAME_CH):
            out.append(text(0, bottom + 4, 10, line, anchor="start", fill=INK_MUTED))
            width = max(width, units(line) * NAME_CH + 4)
            bottom += 14
        bottom += 2
    return Block("".join(out), bottom, width)


KEY = 12.0   # a series name's swatch and the space after it
NAME_CH = 6.5 * 10 / 11   # px per Latin unit of an axis name (10 px)
TICK_CH = 9.5 * 0.70   # px per digit of a value-axis tick label (9.5 px; a wide face's digits)
NOT_DRAWN_LISTED = 12   # values below 0 named one by one under a chart, before "and N more"
NOT_DRAWN_GAP = 6.0       # between the chart and those lines
NOT_DRAWN_WIDTH = 480.0   # the least width (px) the lines naming them take before they break
