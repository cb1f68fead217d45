"""Ends crowded on one side of a box: spaced along it so no arrowhead lies on another end.

Straight lines into a box are aimed one line (or one pair of boxes) at a time, and
their ends are moved apart one at a time too (:func:`.route.land_apart`).  A side with
more ends than moves one at a time can part, an arrowhead among them (Cleaning's 85 px
bottom took eight; Ticketed's 36 px side four, one head 1.3 px from the start of
another line), is spaced here as a whole: every end keeps its order along the side
(the order its line fans out in) and stands as near where it was as the gaps allow,
at least :data:`HEAD_GAPS` apart across the lines: two arrowheads a head's width and a
px, an arrowhead and a plain end half that and 1.5 px, two plain ends :data:`PLAIN_GAP`
(along the side, two lines leaving side by side stand that much over the sine of the
angle they leave it at, :data:`SLANT_LEAST` at least).  A side too short for those gaps
shares its length out in the same proportions.

Only straight lines (two points, no merge bus, not a self-loop) move, along the box's
outline; every other end at the side stays where it is and the others space round it.
A side is spaced only where that parts the ends it finds touching, where no moved line
then passes through a box, and where the moved lines cross no more lines than before.
Boxes whose outline is not rectangular (a diamond, an ellipse, a circle) and externals
(points) are left as they are.
"""

from __future__ import annotations

import math

from .free import Boxes, lines_crossed
from .graph import ARROW_HALF, Scene, axes, outline_test, side_point

#: The least gaps along a side: between two arrowheads, between an arrowhead and a plain
#: end (a head is 2 × ARROW_HALF = 11.2 px across), between two plain ends.
HEAD_GAPS = (2 * ARROW_HALF + 1.0, ARROW_HALF + 1.5)
PLAIN_GAP = 6.0
#: How far in from a side's ends its ends may be spaced (a rounded box's arc takes them
#: no further than they already stand).
MARGIN = 6.0
#: Two slanted lines stand their gap apart across themselves, not along the side: the gap
#: along it grows as the sine of the angle they leave it at falls, down to this one (two
#: lines leaving a box's top at 33°, 7 px apart along it, were 3.9 px apart).
SLANT_LEAST = 0.35
SIDE_BY_SIDE = math.cos(math.radians(15))   # two runs this near one direction run side by side
FAN = 20.0   # how far out from a side the order of its lines is read
FIXED = 1e9   # an end that cannot move weighs this much in the least-squares spacing


def space_sides(scene: Scene, paths: dict[int, list], touching: dict[str, list], boxes: Boxes) -> None:
    """Space the ends on every crowded side of every box (see the module docstring)."""
    for nid in sorted(touching, key=lambda k: scene.nodes[k].order):
        box = scene.nodes[nid]
        if box.external or axes(box)[2] != math.inf or box.w <= 0 or box.h <= 0:
            continue
        sides: dict[tuple[bool, int], list] = {}
        for link in touching[nid]:
            pts = paths.get(link.index)
            if not pts or len(pts) < 2 or link.a == link.b:
                continue
            for k, end, head in ((0, link.a, link.arrow_a), (len(pts) - 1, link.b, link.arrow_b)):
                if end != nid:
                    continue
                movable = len(pts) == 2 and link.bus is None
                nxt = pts[1] if k == 0 else pts[-2]
                sides.setdefault(_side_of(box, pts[k]), []).append((link, k, bool(head), movable, nxt))
        for (horizontal, sign), ends in sorted(sides.items()):
            if len(ends) >= 2 and any(e[2] for e in ends) and any(e[3] for e in ends):
                _space(scene, paths, box, horizontal, sign, ends, boxes)


def _side_of(box, p) -> tuple[bool, int]:
    """Which side of ``box`` the outline point ``p`` lies on: (across x?, sign)."""
    x0, y0, x1, y1 = box.rect()
    near = min((abs(p[1] - y0), 0, False, -1), (abs(p[1] - y1), 1, False, 1),
               (abs(p[0] - x0), 2, True, -1), (abs(p[0] - x1), 3, True, 1))
    return near[2], near[3]


def _fanned(end, nxt, along: int) -> float:
    """Where the line from ``end`` toward ``nxt`` stands along the side :data:`FAN` px out
    from it (at ``nxt`` when that is nearer the side)."""
    out = 1 - along
    reach = abs(nxt[out] - end[out])
    t = 1.0 if reach <= FAN else FAN / reach
    return end[along] + (nxt[along] - end[along]) * t


def _run(end, nxt) -> tuple[float, float]:
    """The unit direction of the run from ``end`` toward ``nxt``."""
    length = math.dist(end, nxt)
    return ((nxt[0] - end[0]) / length, (nxt[1] - end[1]) / length) if length > 0 else (0.0, 0.0)


def _across(a: tuple[float, float], b: tuple[float, float], along: int) -> float:
    """What a gap along the side is across two runs leaving it side by side (within
    :data:`SIDE_BY_SIDE` of one direction): the sine of the angle they leave it at
    (:data:`SLANT_LEAST` at least); 1 for runs that part."""
    if a[0] * b[0] + a[1] * b[1] < SIDE_BY_SIDE:
        return 1.0
    return max(SLANT_LEAST, min(abs(a[1 - along]), abs(b[1 - along])))


def _gap(a_head: bool, b_head: bool) -> float:
    if a_head and b_head:
        return HEAD_GAPS[0]
    return HEAD_GAPS[1] if a_head or b_head else PLAIN_GAP


def _space(scene: Scene, paths: dict[int, list], box, horizontal: bool, sign: int, ends: list,
           boxes: Boxes) -> None:
    along = 1 if horizontal else 0                 # the coordinate that runs along the side
    centre = box.cy if horizontal else box.cx
    half = (box.h if horizontal else box.w) / 2
    # in the order their lines fan out in, read FAN px out from the side (two ends 2 px
    # apart, a level line's head and a slanted line's start, kept their order at the box
    # and the slanted line was moved across the level one)
    ends = sorted(ends, key=lambda e: (_fanned(paths[e[0].index][e[1]], e[4], along), e[4][along]))
    at = [paths[link.index][k][along] for link, k, _h, _m, _n in ends]
    heads = [e[2] for e in ends]
    runs = [_run(paths[e[0].index][e[1]], e[4]) for e in ends]
    want = [_gap(a, b) / _across(ra, rb, along) for a, b, ra, rb in zip(heads, heads[1:], runs, runs[1:])]
    before = _worst(at, want, heads)
    if before <= 0.01:
        return
    lo = min(at[0], centre - half + MARGIN)
    hi = max(at[-1], centre + half - MARGIN)
    gaps = want
    if sum(want) > hi - lo:
        gaps = [g * (hi - lo) / sum(want) for g in want]
    placed = _nearest(at, gaps, [1.0 if e[3] else FIXED for e in ends], lo, hi)
    if any(not e[3] and abs(p - a) > 0.01 for e, p, a in zip(ends, placed, at)) \
            or _worst(placed, want, heads) > before - 0.5:
        return
    new = {}
    for (link, k, _h, movable, _n), p, a in zip(ends, placed, at):
        if movable and abs(p - a) > 0.01:
            pts = list(new.get(link.index, paths[link.index]))
            pts[k] = side_point(box, horizontal, sign, p - centre)
            new[link.index] = pts
    if not new:
        return
    links = {lk.index: lk for lk in scene.links}
    for li, pts in new.items():
        link = links[li]
        if boxes.hits(pts, (link.a, link.b)) or _enters(scene.nodes[link.a], pts[0], pts[1]) \
                or _enters(scene.nodes[link.b], pts[-1], pts[-2]):
            return
    if _crossings(paths, new) > _crossings(paths, {li: paths[li] for li in new}):
        return
    paths.update(new)


def _worst(at: list[float], want: list[float], heads: list[bool]) -> float:
    """How far the nearest two neighbours along a side with an arrowhead between them
    stand inside their gap (0 or less: none does)."""
    return max((g - (b - a) for a, b, g, ha, hb in zip(at, at[1:], want, heads, heads[1:]) if ha or hb),
               default=0.0)


def _enters(box, p, q) -> bool:
    """Whether the segment from ``p`` (on the outline of ``box``) toward ``q`` runs into
    the box: the point 1 px along it lies inside the outline (the outline is convex, so
    the rest then lies outside too)."""
    if box.external:
        return False
    length = math.dist(p, q)
    if length <= 1.0:
        return False
    x, y = p[0] + (q[0] - p[0]) / length, p[1] + (q[1] - p[1]) / length
    return outline_test(box)(x - box.cx, y - box.cy)


def _nearest(at: list[float], gaps: list[float], weights: list[float], lo: float, hi: float) -> list[float]:
    """Places as near ``at`` (sorted) as they may stand, each at least its gap after the one
    before, all within ``lo``–``hi``: weighted least squares by pooling adjacent
    violators on y = x − (the gaps before it)."""
    before = [0.0]
    for g in gaps:
        before.append(before[-1] + g)
    top = hi - before[-1]
    blocks: list[list[float]] = []   # [weighted sum, weight, count]
    for a, g, w in zip(at, before, weights):
        blocks.append([w * (a - g), w, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, weight, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += weight
            blocks[-1][2] += count
    ys: list[float] = []
    for total, weight, count in blocks:
        ys.extend([min(max(total / weight, lo), top)] * int(count))
    return [y + g for y, g in zip(ys, before)]


def _crossings(paths: dict[int, list], lines: dict[int, list]) -> int:
    """How many segments of other connectors the ``lines`` (each in place of its own
    connector's path) cross."""
    return sum(lines_crossed(paths, li, pts, lines) for li, pts in lines.items())
