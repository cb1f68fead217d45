"""Where an external's name goes.

An external is drawn as the open end of its connectors, named just beyond that end.
The name takes one of four places round the end: right of it, left of it, below it or
above it (and last, right or left of it half a line up or down).  The first choice is
the side away from the figure: beyond the figure's edge for an external the layout put
in the first or the last rank, else read off the external's first connector (a
connector arriving from the left puts the name on the right).  An external with several
connectors may have one leaving towards that side, and a name placed before it (or a
box) may stand there; the name then takes the first of the other places (below, above,
right, left, then the four half a line up or down) that nothing meets, and when
something meets every place, the one met least (a box or a name counting as two
connectors).
"""

from __future__ import annotations

from ..text import label_px
from .free import seg_hits_rect
from .graph import Box, Scene
from .squares import SquareIndex

EXTERNAL_FS = 10.0   # an external's name (px)
GAP = 10.0           # from the open end to the near edge of its name
CLEAR = 1.0          # a connector this near a name counts as running through it
COVERS = 2           # a name over a box or another name counts as this many connectors through it
CELL = 96.0          # side of a square of the connectors' index
MOST_SQUARES = 256   # a segment over more squares than this (a long line) is read for every name
TILT = 2.0           # px beyond half the name's height a name beside its end moves up or down

Rect = tuple[float, float, float, float]


def external_names(scene: Scene) -> dict[str, tuple[float, float, str, Rect]]:
    """Where each named external's name goes: id -> ``(x, baseline, text-anchor, rect)``."""
    externals = [n for n in scene.nodes.values() if n.external and n.label]
    if not externals:
        return {}
    # only what lies near an external can meet its name
    reach = max(label_px(n.label, EXTERNAL_FS) + 13.0 * n.label.count("\n") for n in externals) + 2 * GAP + 30.0
    zone = (min(n.cx for n in externals) - reach, min(n.cy for n in externals) - reach,
            max(n.cx for n in externals) + reach, max(n.cy for n in externals) + reach)

    def near(r) -> bool:
        return r[0] <= zone[2] and r[2] >= zone[0] and r[1] <= zone[3] and r[3] >= zone[1]

    first: dict[str, tuple[float, float]] = {}   # the way to the figure from each open end
    segs = SquareIndex(CELL, MOST_SQUARES)
    for link in scene.links:
        pts = link.points
        if len(pts) < 2:
            continue
        for nid, (a, b) in ((link.a, (pts[0], pts[1])), (link.b, (pts[-1], pts[-2]))):
            if nid not in first:
                first[nid] = (b[0] - a[0], b[1] - a[1])
        for p, q in zip(pts, pts[1:]):
            r = (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]))
            if near(r):
                segs.add((p, q), r)
    taken = SquareIndex(CELL, MOST_SQUARES)   # boxes, and the names placed so far
    for n in scene.nodes.values():
        if not n.external and n.w > 0 and n.h > 0 and near(n.rect()):
            taken.add(n.rect(), n.rect())
    ends = _edge_sides(scene)
    out = {}
    for n in externals:
        out[n.id] = place = _choose(n, first.get(n.id, (0.0, 0.0)), segs, taken, ends.get(n.id))
        taken.add(place[3], place[3])
    return out


#: The side beyond the figure's edge of an external in the first and in the last rank.
EDGE_SIDES = {"down": ("above", "below"), "up": ("below", "above"),
              "right": ("left", "right"), "left": ("right", "left")}


def _edge_sides(scene: Scene) -> dict[str, str]:
    """Each external the auto layout put in the first or the last rank -> the side beyond
    the figure's edge there (a pinned one stands where its pin says)."""
    ranks = [n.rank for n in scene.nodes.values()]
    if not ranks or scene.pins:
        return {}
    lo, hi = min(ranks), max(ranks)
    before, after = EDGE_SIDES.get(scene.flow, EDGE_SIDES["right"])
    return {n.id: before if n.rank == lo else after
            for n in scene.nodes.values() if n.external and lo != hi and n.rank in (lo, hi)}


def _choose(n: Box, toward: tuple[float, float], segs: SquareIndex,
            taken: SquareIndex, edge: str | None = None) -> tuple[float, float, str, Rect]:
    places = _places(n)
    dx, dy = toward
    if edge is not None:
        first = edge
    elif abs(dx) >= abs(dy):
        first = "right" if dx <= 0 else "left"
    else:
        first = "below" if dy <= 0 else "above"
    best = None
    order = [first] + [s for s in ("below", "above", "right", "left") if s != first]
    order += [s + tilt for s in order if s in ("right", "left") for tilt in ("-up", "-down")]
    for rank, side in enumerate(order):
        x0, y0, x1, y1 = rect = places[side][3]
        near = (x0 - CLEAR, y0 - CLEAR, x1 + CLEAR, y1 + CLEAR)
        struck = sum(1 for p, q in segs.near(*near) if seg_hits_rect(p, q, rect, -CLEAR))
        struck += COVERS * sum(1 for r in taken.near(*near)
                               if r[0] < near[2] and near[0] < r[2] and r[1] < near[3] and near[1] < r[3])
        if struck == 0:
            return places[side]
        if best is None or struck < best[0]:
            best = (struck, rank, side)
    return places[best[2]]


def _places(n: Box) -> dict[str, tuple[float, float, str, Rect]]:
    cx, cy = n.cx, n.cy
    lines = n.label.count("\n")
    w = label_px(n.label, EXTERNAL_FS)
    h = lines * EXTERNAL_FS * 1.3 + EXTERNAL_FS * 1.1
    places = {
        "right": (cx + GAP, cy + 3.5, "start", (cx + GAP, cy - h / 2, cx + GAP + 2 + w, cy + h / 2)),
        "left": (cx - GAP, cy + 3.5, "end", (cx - GAP - 2 - w, cy - h / 2, cx - GAP, cy + h / 2)),
        "below": (cx, cy + 17 + lines * 6.5, "middle", (cx - w / 2, cy + GAP, cx + w / 2, cy + 21 + lines * 13)),
        "above": (cx, cy - GAP - lines * 6.5, "middle", (cx - w / 2, cy - 21 - lines * 13, cx + w / 2, cy - GAP)),
    }
    # right or left of the end and half a line up or down: clear of a line leaving the
    # end's side downward or upward (the last places tried)
    for side in ("right", "left"):
        x, y, anchor, (x0, y0, x1, y1) = places[side]
        for tilt, d in (("-up", -(h / 2 + TILT)), ("-down", h / 2 + TILT)):
            places[side + tilt] = (x, y + d, anchor, (x0, y0 + d, x1, y1 + d))
    return places
