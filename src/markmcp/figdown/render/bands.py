"""A ``band`` (experimental): the stretch of its target it shades, and its edge;
and where the labels of a target's ``threshold`` lines stand.

A band covers ``from``..``to`` percent of a box, grown from the side its
``extend`` names (``up`` unless written).  The scene draws bands over nodes
and groups, the page over typed regions; both take the geometry from here.
"""

from __future__ import annotations

from .svg import dash, tag
from .text import CH, FONT, label_px, widest


def band_rect(band: dict, x0: float, y0: float, x1: float, y1: float):
    """The rectangle of a band over a target box: ``extend`` is the side it grows from."""
    w, h = x1 - x0, y1 - y0
    lo, hi = band["from"], band["to"]
    side = band.get("extend") or "up"
    if side == "up":
        return x0, y1 - h * hi / 100, w, h * (hi - lo) / 100
    if side == "down":
        return x0, y0 + h * lo / 100, w, h * (hi - lo) / 100
    if side == "right":
        return x0 + w * lo / 100, y0, w * (hi - lo) / 100, h
    return x1 - w * hi / 100, y0, w * (hi - lo) / 100, h


#: A band's name (px) over a box, in the middle of the band, or beside the box.
BAND_NAME_FS = 11.0
#: Beside the box a band's name follows a square of the band's paint (px), this far
#: before it: with no swatch it read as the label of the line leaving the box beside it.
BAND_SWATCH, BAND_SWATCH_GAP = 8.0, 3.0


def swatch_width() -> float:
    """What a band name beside its box takes before its letters."""
    return BAND_SWATCH + BAND_SWATCH_GAP


def name_inside(band: dict, x0: float, y0: float, x1: float, y1: float, label: str) -> bool:
    """Whether the name of ``band`` over the box (x0, y0)–(x1, y1) whose own name is
    ``label`` (centred, 13 px lines) is written in the middle of the band: only where it
    fits inside the band and stays off the box's name (a 35..80 % band over a 36 px tank
    wrote "Normal operating band" over "Clearwell"), else beside the box with its
    thresholds.  A band running the box's whole height (``extend=left`` or ``right``)
    finds itself a place near the box's top (see draw)."""
    if (band.get("extend") or "up") in ("left", "right"):
        return True
    bx, by, bw, bh = band_rect(band, x0, y0, x1, y1)
    half_w = label_px(band["label"], BAND_NAME_FS) / 2 + 2
    if 2 * half_w > bw or bh < BAND_NAME_FS + 2:
        return False
    if not label:
        return True
    # the ink of each: an 11 px name from 4 px above the band's middle to 6.5 below (its
    # baseline 4 below), the box's 13 px lines from 5 px above the first baseline's
    # middle to 7.5 below the last's (baselines 16.9 px apart, the block centred)
    mx, my = bx + bw / 2, by + bh / 2
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    spread = label.count("\n") * 1.3 * FONT / 2
    if abs(mx - cx) >= half_w + widest(label) * CH / 2:
        return True
    return my + 6.5 <= cy - spread - 5 or my - 4 >= cy + spread + 7.5


def band_edge(band: dict):
    if band.get("stroke") is None and band.get("style") is None:
        return ()
    return (("stroke", band.get("stroke") or "#8a8880"), ("stroke-dasharray", dash(band.get("style"))))


#: The least distance (px) between the baselines of two threshold labels beside one
#: target: their 11 px text on rows of their own.
THRESHOLD_ROW = 14.0


def threshold_rows(wanted: list[float], row: float = THRESHOLD_ROW) -> list[float]:
    """Baselines for threshold labels that want ``wanted`` (each level with its line,
    beside one target), in the same order: where lines lie closer than a row (95 %, 90 %
    and 85 % of a 74 px box are 3.7 px apart) the labels take rows ``row`` apart, in
    the lines' order, as near their lines as that allows (each run of crowded labels
    centred on its lines: the least squared move, pooled as a run grows)."""
    order = sorted(range(len(wanted)), key=lambda k: (wanted[k], k))
    runs: list[list] = []   # [first row's baseline, labels in it (indexes into order)]
    for n, k in enumerate(order):
        runs.append([wanted[k], [n]])
        while len(runs) > 1 and runs[-2][0] + row * len(runs[-2][1]) > runs[-1][0]:
            last = runs.pop()
            members = runs[-1][1] + last[1]
            first = members[0]
            runs[-1] = [sum(wanted[order[m]] - row * (m - first) for m in members) / len(members), members]
    out = [0.0] * len(wanted)
    for top, members in runs:
        for i, m in enumerate(members):
            out[order[m]] = top + row * i
    return out


def threshold_rows_by_target(targets: list, levels: list[float]) -> list[float]:
    """The label baseline of each threshold (its target, the y of its line), each
    target's labels on rows of their own (:func:`threshold_rows`)."""
    rows = [0.0] * len(targets)
    for target in dict.fromkeys(targets):
        mine = [k for k, t in enumerate(targets) if t == target]
        for k, row in zip(mine, threshold_rows([levels[k] + 4 for k in mine])):
            rows[k] = row
    return rows


def threshold_leader(x: float, ly: float, baseline: float, colour: str) -> str:
    """A tick from the end of a threshold's line at ``x`` to its label's row, where the
    label stands off its line (nothing where it stands level with it)."""
    if abs(baseline - 4 - ly) < 2:
        return ""
    return tag("line", [("x1", x), ("y1", ly), ("x2", x + 6), ("y2", baseline - 4), ("stroke", colour),
                        ("stroke-width", 1)])
