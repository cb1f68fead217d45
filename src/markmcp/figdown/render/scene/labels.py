"""Where connector text goes: mid labels, end labels, external names.

Every label is placed by trying a short, fixed list of candidate boxes beside
its own connector and keeping the cheapest: a box over a node, another label
or a connector costs a lot; a box whose centre is nearly as close to another
connector as to its own (so a reader cannot tell which line it names) costs
too; otherwise nearer the middle of its run is better.  The list order breaks
ties, so placement is deterministic.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from ..text import label_px, together
from .free import seg_hits_rect, segments_cross
from .squares import SquareIndex

Rect = tuple[float, float, float, float]
GOOD = 5.0    # a candidate this cheap collides with nothing
#: Another connector's level or upright stroke across a label's box, above or below the
#: letters' middle: the letters still read, but the line seems to strike them (a reviewer
#: read "2: SYN,ACK" as struck through by the next line 8 px away).  A slanted line through
#: the box off its middle only clips a corner.
GRAZED = 250
WORD_GAP = 4.0   # px a label keeps clear of another beside it
#: A label closer than this above or below another, over at least STACK_SHARE of the
#: narrower one's width, reads with it as one label of two lines ("timeout / reverse"
#: under "retry [attempts < 3]"; two offset diagonally do not)...
LINE_GAP = 3.0
STACK_SHARE = 0.4
#: ...and costs this: as much as a place that reads as another connector's, so a finer
#: look is taken for a place with a gap, but less than a line through the letters.
STACKED = 100.0
#: A label touching an arrowhead (within HEAD_GAP of its box) costs this: the head reads as
#: pointing at the label ("y" stood against its own arrowhead into A).
HEADED = 40.0
HEAD_GAP = 1.5
#: What a label over a hard box, another label or a soft box (a band's name) costs.
BOX_COST, LABEL_COST, SOFT_COST = 1000.0, 800.0, 300.0
STACK = -1.0   # marks a label's stacking room in the board's index (it costs STACKED, by its share)
ROOMY = 18.0     # px beyond its own line's distance within which another line crowds a label
GRAZED_PX = 4.0   # ... per pixel of its run inside the box past GRAZED_FREE, up to GRAZED:
GRAZED_FREE = 4.0   # a corner clipped by a slanted line does not strike the letters
OWN_HALO = 2.0      # px round a label within which its own line's run grazes it (its white halo)
OWN_FIRST = 0.5     # px nearer than any other its own line must be to read as the label's


def _inside(p, q, r) -> float:
    """The length of segment p-q inside rectangle r (clipped, Liang-Barsky)."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    t0, t1 = 0.0, 1.0
    for den, num in ((-dx, p[0] - r[0]), (dx, r[2] - p[0]), (-dy, p[1] - r[1]), (dy, r[3] - p[1])):
        if den == 0.0:
            if num < 0.0:
                return 0.0
            continue
        t = num / den
        if den < 0.0:
            if t > t1:
                return 0.0
            t0 = max(t0, t)
        else:
            if t < t0:
                return 0.0
            t1 = min(t1, t)
    if t1 <= t0:
        return 0.0
    return (t1 - t0) * math.sqrt(dx * dx + dy * dy)


@dataclass
class Label:
    text: str
    size: float
    cx: float = 0.0
    cy: float = 0.0
    w: float = 0.0
    h: float = 0.0
    anchor: str = "middle"
    colour: str = "#555"
    port: str | None = None     # data-port-sq key of the fitting it names
    backed: bool = False        # set on its own line, on a white ground that hides it there

    @property
    def rect(self) -> Rect:
        return (self.cx - self.w / 2, self.cy - self.h / 2, self.cx + self.w / 2, self.cy + self.h / 2)

    @property
    def x(self) -> float:
        if self.anchor == "start":
            return self.cx - self.w / 2
        if self.anchor == "end":
            return self.cx + self.w / 2
        return self.cx

    @property
    def y(self) -> float:
        """The text baseline reference (multi-line text is centred on it)."""
        return self.cy + 0.3 * self.size


def measure(text: str, size: float) -> tuple[float, float]:
    n = text.count("\n") + 1
    return label_px(text, size), (n - 1) * size * 1.3 + size * 1.1


def overlap(a: Rect, b: Rect, eps: float = 1.0) -> bool:
    return a[0] + eps < b[2] and b[0] + eps < a[2] and a[1] + eps < b[3] and b[1] + eps < a[3]


def seg_dist(px: float, py: float, a, b) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    l2 = dx * dx + dy * dy
    if l2 < 1e-9:
        return math.sqrt((px - a[0]) ** 2 + (py - a[1]) ** 2)
    t = max(0.0, min(1.0, ((px - a[0]) * dx + (py - a[1]) * dy) / l2))
    qx, qy = a[0] + t * dx - px, a[1] + t * dy - py
    return math.sqrt(qx * qx + qy * qy)


def poly_dist(px: float, py: float, pts) -> float:
    return min(seg_dist(px, py, a, b) for a, b in zip(pts, pts[1:]))


def _box_dist(px: float, py: float, b) -> float:
    dx = max(b[0] - px, 0.0, px - b[2])
    dy = max(b[1] - py, 0.0, py - b[3])
    return math.sqrt(dx * dx + dy * dy)


def _near(px: float, py: float, segs) -> float:
    """min(seg_dist(px, py, p, q) for p, q, _ in segs), written out (same arithmetic)."""
    best = None
    sqrt = math.sqrt
    for a, b, _ in segs:
        a0, a1 = a
        dx, dy = b[0] - a0, b[1] - a1
        l2 = dx * dx + dy * dy
        if l2 < 1e-9:
            d = sqrt((px - a0) ** 2 + (py - a1) ** 2)
        else:
            t = max(0.0, min(1.0, ((px - a0) * dx + (py - a1) * dy) / l2))
            qx, qy = a0 + t * dx - px, a1 + t * dy - py
            d = sqrt(qx * qx + qy * qy)
        if best is None or d < best:
            best = d
    if best is None:
        raise ValueError("min() arg is an empty sequence")
    return best


def _within(px: float, py: float, segs, limit: float) -> bool:
    """any(_box_dist(px, py, sb) < limit and seg_dist(px, py, p, q) < limit for p, q, sb
    in segs), written out (same arithmetic; a segment box has sb[0] <= sb[2], sb[1] <= sb[3])."""
    sqrt = math.sqrt
    for a, b, sb in segs:
        dx = sb[0] - px
        if dx < 0.0:
            dx = px - sb[2]
            if dx < 0.0:
                dx = 0.0
        dy = sb[1] - py
        if dy < 0.0:
            dy = py - sb[3]
            if dy < 0.0:
                dy = 0.0
        if not sqrt(dx * dx + dy * dy) < limit:
            continue
        if seg_dist(px, py, a, b) < limit:
            return True
    return False


def _rect_seg(r: Rect, a, b) -> float:
    """The distance between rectangle ``r`` and segment a–b (0 when they meet): from the
    segment's ends to the rectangle, or from the rectangle's corners to the segment."""
    if seg_hits_rect(a, b, r, 0.0):
        return 0.0
    return min(_box_dist(a[0], a[1], r), _box_dist(b[0], b[1], r),
               seg_dist(r[0], r[1], a, b), seg_dist(r[2], r[1], a, b),
               seg_dist(r[0], r[3], a, b), seg_dist(r[2], r[3], a, b))


def _rect_nearest(r: Rect, segs, limit: float, reach: float) -> float:
    """The distance from ``r`` to the nearest of ``segs`` (``(p, q, bounding box)``) if it
    is below ``reach`` (else inf), or the first found below ``limit`` (as good an answer,
    for a caller asking only whether one is).  A segment that misses ``r`` grown by the
    distance to beat (a superset of the points that near) is not measured.  With a
    ``limit`` of 0 and an endless ``reach``: the distance to the nearest, whatever it is."""
    best = reach
    for a, b, sb in segs:
        if best < math.inf and (
                sb[0] >= r[2] + best or sb[2] <= r[0] - best or sb[1] >= r[3] + best or sb[3] <= r[1] - best
                or not seg_hits_rect(a, b, (r[0] - best, r[1] - best, r[2] + best, r[3] + best), 0.0)):
            continue
        d = _rect_seg(r, a, b)
        if d < best:
            best = d
            if d < limit:
                return d
    return best if best < reach else math.inf


ACROSS_BORDER = 6.0   # a label lying across a group band's border ("chairlift fibre" on the
                       # Mid-mountain band's edge read as part of the band's frame)
ALONG_SINE = 0.26   # sin 15°: a run this near the direction of another lies along it
GRID = 64.0        # side of a square of the board's indexes
GRID_SQUARES = 1024   # a rectangle (or a query) over more squares than this is read plainly


class Board:
    """What is already on the canvas, for the label costs (indexed by squares, so a
    label only looks at the ink near it)."""

    def __init__(self, boxes: list[Rect], paths: dict[int, list], soft: list[Rect] | None = None,
                 solid: list[Rect] | None = None, outlines: list[Rect] | None = None,
                 heads: list[Rect] | None = None):
        """``solid``: what a label may not cover, when not ``boxes`` themselves (a diamond
        or an ellipse as a stack of slices, so a label may sit in its bounding box's corner);
        ``outlines``: the drawn group bands, whose borders a label's white ground must not
        hide (:meth:`borders_under`)."""
        self.boxes = boxes
        self.outlines = outlines or []
        self.paths = paths
        self.labels: list[Rect] = []
        self.soft = soft or []
        self.segs: dict[int, list] = {}   # each connector's segments, with their bounding boxes
        for key, pts in paths.items():
            self.segs[key] = [(p, q, (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1])))
                              for p, q in zip(pts, pts[1:])]
        # the hard boxes, soft boxes, arrowheads and labels with their near corner moved in
        # by overlap()'s 1 px, once, for the inner loop of cost(); all in one square index,
        # each with what it costs (STACK for a label grown by LINE_GAP up and down, whose
        # cost depends on the share of width), so a candidate asks one question
        # (every cost term is a count or an any(), so the sums are those of reading everything)
        self._ink = SquareIndex(GRID, GRID_SQUARES)
        self._boxes = SquareIndex(GRID, GRID_SQUARES)   # the hard boxes and labels, for passes()
        for b in (boxes if solid is None else solid):
            inner = (b[0] + 1.0, b[1] + 1.0, b[2], b[3])
            self._ink.add((*inner, BOX_COST), inner)
            self._boxes.add(inner, inner)
        for b in self.soft:
            inner = (b[0] + 1.0, b[1] + 1.0, b[2], b[3])
            self._ink.add((*inner, SOFT_COST), inner)
        for b in heads or ():   # the arrowheads' boxes, grown by HEAD_GAP
            grown = (b[0] - HEAD_GAP + 1.0, b[1] - HEAD_GAP + 1.0, b[2] + HEAD_GAP, b[3] + HEAD_GAP)
            self._ink.add((*grown, HEADED), grown)
        # every connector segment with its connector's key, under its own bounding box;
        # built by the first cost() (a figure without labels never asks, and a long
        # figure's segments span many squares)
        self._seg_index: SquareIndex | None = None
        self._box_index: SquareIndex | None = None   # the hard boxes as they are, for boxes_near()
        self.fine_left = FINE_ALLOWANCE   # see place_mid
        self.work = 0   # the segments the costs have looked at, and the most they may
        self.work_most = WORK_BASE + WORK_EACH * (len(boxes) + len(paths))
        # when set, the only places looked at: those meeting one of these rectangles
        # (see :meth:`only_where`)
        self.freed: list[Rect] | None = None

    def spent(self) -> bool:
        """Whether the looking this figure's labels and notes may do is spent (see
        :data:`WORK_EACH`): from then on each takes the first place it finds."""
        return self.work > self.work_most

    def only_where(self, rects: list[Rect] | None) -> None:
        """Look only at places meeting one of ``rects`` (grown by the gaps a placed
        label keeps round it), or (None) everywhere again: a label placed again after
        the labels there were taken up has nothing new to find anywhere else."""
        if rects is None:
            self.freed = None
            return
        g = max(WORD_GAP, LINE_GAP) + 1.0
        self.freed = [(r[0] - g, r[1] - g, r[2] + g, r[3] + g) for r in rects]

    def looks_at(self, r: Rect) -> bool:
        """Whether a place at ``r`` is looked at (see :meth:`only_where`)."""
        freed = self.freed
        return freed is None or any(r[0] < f[2] and f[0] < r[2] and r[1] < f[3] and f[1] < r[3]
                                    for f in freed)

    def add_line(self, key, pts) -> None:
        """A line drawn after the connectors (a caption's leader), under ``key``: what is
        placed later keeps off it and counts crossing it as it does a connector."""
        segs = [(p, q, (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1])))
                for p, q in zip(pts, pts[1:])]
        self.segs[key] = segs
        if self._seg_index is not None:
            for p, q, sb in segs:
                self._seg_index.add((key, p, q, sb), sb)

    @property
    def _segs(self) -> SquareIndex:
        index = self._seg_index
        if index is None:
            index = self._seg_index = SquareIndex(GRID, GRID_SQUARES)
            for key, segs in self.segs.items():
                for p, q, sb in segs:
                    index.add((key, p, q, sb), sb)
        return index

    def cost(self, r: Rect, own: int | None, anchor: tuple[float, float],
             above: float = math.inf, graze: bool = False, roomy: bool = True,
             on_own: bool = False, by_rect: bool = True) -> float:
        """What placing a label at ``r`` costs: hard boxes, labels, soft boxes and
        connectors under it, another connector nearer than its own, and the distance
        from ``anchor``; with ``graze`` (a connector's text, whose letters are small), also
        a connector's level or upright stroke off the middle of the box (:data:`GRAZED`).

        Every term is a non-negative addition, so the sum only grows: once it reaches
        ``above`` (the best candidate's cost, which this one must undercut) the rest is
        not counted and a value at least ``above`` comes back.  Without ``roomy`` another
        connector within :data:`ROOMY` of a grazing label costs nothing (an end label
        stands at its port, where the lines of a fan are close by nature); with
        ``on_own`` its own connector through it does not count (a label set on its
        line, over a white ground).  A grazing label pays for its own connector's run
        inside it as for any other's, and (``by_rect``) is near a connector by its
        rectangle, the letters a reader sees, not by its middle."""
        r0, r1, r2, r3 = r
        # overlap(r, b) with its 1 px: r0 + 1 < b2, b0 + 1 < r2, r1 + 1 < b3, b1 + 1 < r3
        e0, e1 = r0 + 1.0, r1 + 1.0
        c = 0.0
        for b0, b1, b2, b3, price in self._ink.near(r0, r1, r2, r3):
            if e0 < b2 and b0 < r2 and e1 < b3 and b1 < r3:
                if price != STACK:
                    c += price
                elif min(r2, b2) - max(e0, b0) >= STACK_SHARE * min(r2 - e0, b2 - b0):
                    c += STACKED
        if c >= above:
            return c
        band = (r0 + 2, r1 + (r3 - r1) * 0.3, r2 - 2, r1 + (r3 - r1) * 0.7)
        n0, n1, n2, n3 = band
        inner = (r0 + 1, r1 + 1, r2 - 1, r3 - 1)
        # its own line is read by the letters' halo: a run up to OWN_HALO px off the box
        # lies under it ("yes" beside a side point's short run stood on the turn after it)
        halo = (r0 - OWN_HALO, r1 - OWN_HALO, r2 + OWN_HALO, r3 + OWN_HALO)
        struck = set()   # the connectors with a segment through the band
        grazed: dict = {}   # another connector's run inside the box (off the band): its length
        h0, h1, h2, h3 = halo
        under = self._segs.near(h0, h1, h2, h3)
        self.work += len(under)
        for key, p, q, sb in under:
            if key in struck or (on_own and key == own):
                continue
            if sb[2] < r0 or sb[0] > r2 or sb[3] < r1 or sb[1] > r3:
                if key != own or sb[2] < h0 or sb[0] > h2 or sb[3] < h1 or sb[1] > h3:
                    continue
            if not (sb[2] < n0 or sb[0] > n2 or sb[3] < n1 or sb[1] > n3) \
                    and seg_hits_rect(p, q, band, 0.0):
                struck.add(key)
            elif graze:   # its own line too: along the tops of the letters it strikes them
                dx, dy = abs(q[0] - p[0]), abs(q[1] - p[1])
                if dy <= 0.25 * dx or dx <= 0.25 * dy:
                    # its own line counts from the box's edge: a label beside a lane's
                    # short leg reached 0.9 px over the lane's run, its letters' halo on it
                    run = _inside(p, q, halo if key == own else inner)
                    if run > 0.0:
                        grazed[key] = grazed.get(key, 0.0) + run
        c += len(struck) * 500
        for key, run in grazed.items():
            if key not in struck:
                c += min(GRAZED, GRAZED_PX * max(0.0, run - GRAZED_FREE))
        c = float(c)
        if c >= above:
            return c
        cx, cy = (r0 + r2) / 2, (r1 + r3) / 2
        if own is not None and own in self.segs:
            own_d = _near(cx, cy, self.segs[own])
            limit = own_d + 6
            if not graze or not by_rect:
                # another connector as near as its own (a segment within ``limit``)
                others = [(p, q, sb) for key, p, q, sb
                          in self._segs.near(cx - limit, cy - limit, cx + limit, cy + limit) if key != own]
                if _within(cx, cy, others, limit):
                    c += 150
            else:
                # a connector's text is read as the line nearest its letters, not its
                # middle (a wide label beside its line has its middle far from it, and
                # stood beside another line as near as its own)
                own_d = _rect_nearest(r, self.segs[own], 0.0, math.inf)
                limit, wide = own_d + 6, own_d + ROOMY
                others = [(p, q, sb) for key, p, q, sb
                          in self._segs.near(r0 - wide, r1 - wide, r2 + wide, r3 + wide) if key != own]
                self.work += len(others)
                near = _rect_nearest(r, others, own_d + OWN_FIRST, wide if roomy else limit)
                if near < own_d + OWN_FIRST:
                    c += 150
                elif near < limit:
                    # crowded, but its own line is the nearest: its side of a pair of
                    # lines (two transitions each way 5 px apart had both labels beside
                    # the same one)
                    c += CROWDED
                elif near < wide:
                    # a free place between its line and another: taken only when no
                    # place in the open is free, which it leaves to the other's label
                    c += GOOD + 1.0
        if self.outlines and roomy:
            # a label across a band's border reads as part of the band's frame (an end
            # label stays at its port whatever runs there)
            c += ACROSS_BORDER * self.borders_under(r)
        c += 0.02 * math.sqrt((cx - anchor[0]) ** 2 + (cy - anchor[1]) ** 2)
        return c

    def boxes_near(self, r: Rect, margin: float) -> int:
        """How many of the hard boxes come within ``margin`` of ``r`` (overlap()'s test
        with the rectangle grown by ``margin``)."""
        index = self._box_index
        if index is None:
            index = self._box_index = SquareIndex(GRID, GRID_SQUARES)
            for b in self.boxes:
                index.add(b, b)
        grown = (r[0] - margin, r[1] - margin, r[2] + margin, r[3] + margin)
        return sum(1 for b in index.near(*grown) if overlap(r, b, -margin))

    def lines_under(self, r: Rect) -> int:
        """How many connectors have a segment under the rectangle ``r`` anywhere (a note
        hides all the ink under it, not only what crosses its middle)."""
        keys = set()
        under = self._segs.near(*r)
        self.work += len(under)
        for key, p, q, sb in under:
            if key not in keys and not (sb[2] < r[0] or sb[0] > r[2] or sb[3] < r[1] or sb[1] > r[3]) \
                    and seg_hits_rect(p, q, r, 0.0):
                keys.add(key)
        return len(keys)

    def crossed(self, p, q) -> int:
        """How many connectors the segment p–q crosses (passing through a run of theirs)."""
        x0, y0, x1, y1 = min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1])
        keys = set()
        for key, a, b, sb in self._segs.near(x0, y0, x1, y1):
            if key not in keys and not (sb[2] < x0 or sb[0] > x1 or sb[3] < y0 or sb[1] > y1) \
                    and segments_cross(p, q, a, b):
                keys.add(key)
        return len(keys)

    def ends_near(self, p, q, clear: float, skip: Rect) -> int:
        """How many connectors end within ``clear`` of the segment p–q, outside ``skip``
        (where a leader from p–q lands, among the ends of its own box's lines)."""
        x0, y0, x1, y1 = min(p[0], q[0]) - clear, min(p[1], q[1]) - clear, max(p[0], q[0]) + clear, \
            max(p[1], q[1]) + clear
        keys = set()
        for key, a, b, _sb in self._segs.near(x0, y0, x1, y1):
            pts = self.paths.get(key)
            if key in keys or not pts:
                continue
            for end in (pts[0], pts[-1]):
                if (end == a or end == b) and x0 <= end[0] <= x1 and y0 <= end[1] <= y1 \
                        and not (skip[0] <= end[0] <= skip[2] and skip[1] <= end[1] <= skip[3]) \
                        and seg_dist(end[0], end[1], p, q) < clear:
                    keys.add(key)
                    break
        return len(keys)

    def runs_along(self, p, q, clear: float, least: float) -> int:
        """How many connectors run beside the segment p–q (within 15° of its direction),
        within ``clear`` of it for ``least`` px of its length or more (read every 2 px
        along it): a leader drawn on a line, not one crossing it."""
        length = math.dist(p, q)
        if length < least:
            return 0
        ux, uy = (q[0] - p[0]) / length, (q[1] - p[1]) / length
        x0, y0, x1, y1 = min(p[0], q[0]) - clear, min(p[1], q[1]) - clear, max(p[0], q[0]) + clear, \
            max(p[1], q[1]) + clear
        near: dict = {}
        beside = self._segs.near(x0, y0, x1, y1)
        self.work += len(beside)
        for key, a, b, _sb in beside:
            run = math.dist(a, b)
            if run and abs(ux * (b[1] - a[1]) - uy * (b[0] - a[0])) <= ALONG_SINE * run:
                near.setdefault(key, []).append((a, b))
        n = max(1, int(length / 2.0))
        step = length / n
        count = 0
        self.work += (n + 1) * sum(len(segs) for segs in near.values())
        for key, segs in near.items():
            run = 0.0
            for k in range(n + 1):
                t = k / n
                x, y = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
                if any(seg_dist(x, y, a, b) < clear for a, b in segs):
                    run += step
            if run >= least:
                count += 1
        return count

    def borders_under(self, r: Rect) -> int:
        """How many band outlines run under the rectangle ``r`` (it meets the band without
        lying inside it)."""
        return sum(1 for b0, b1, b2, b3 in self.outlines
                   if r[0] < b2 and b0 < r[2] and r[1] < b3 and b1 < r[3]
                   and not (b0 <= r[0] and r[2] <= b2 and b1 <= r[1] and r[3] <= b3))

    def passes(self, p, q) -> int:
        """How many hard boxes and placed labels (notes among them) the segment p–q runs
        through (their interiors: a segment ending on a box's edge does not count it)."""
        x0, y0, x1, y1 = min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1])
        return sum(1 for b in self._boxes.near(x0, y0, x1, y1) if seg_hits_rect(p, q, b, 1.0))

    def take(self, r: Rect) -> None:
        self.labels.append(r)
        # widened by WORD_GAP each side: two labels on one baseline closer than that read
        # as one ("0x0806 ARP" and "other" printed as "0x0806 ARPother")
        inner = (r[0] + 1.0 - WORD_GAP, r[1] + 1.0, r[2] + WORD_GAP, r[3])
        self._ink.add((*inner, LABEL_COST), inner)
        self._boxes.add(inner, inner)
        grown = (r[0] + 1.0, r[1] + 1.0 - LINE_GAP, r[2], r[3] + LINE_GAP)
        self._ink.add((*grown, STACK), grown)


#: Slices a curved or angled outline is read as, for the label costs.
SLICES = 12


def outline_rects(rect: Rect, p: float) -> list[Rect]:
    """The box ``rect`` whose outline is |dx/a|^p + |dy/b|^p = 1 (p = 1 a diamond, 2 an
    ellipse, inf a rectangle) as horizontal slices, each as wide as the outline at its
    widest: a label may stand in the empty corners of a diamond's or an ellipse's box."""
    x0, y0, x1, y1 = rect
    if p == math.inf or y1 - y0 < 1.0:
        return [rect]
    a, b = (x1 - x0) / 2, (y1 - y0) / 2
    cx, cy = x0 + a, y0 + b
    out = []
    step = (y1 - y0) / SLICES
    for k in range(SLICES):
        lo, hi = y0 + k * step, y0 + (k + 1) * step
        d = 0.0 if lo <= cy <= hi else min(abs(lo - cy), abs(hi - cy))
        half = a * max(0.0, 1.0 - (d / b) ** p) ** (1.0 / p)
        out.append((cx - half, lo, cx + half, hi))
    return out


def _segments_by_length(pts):
    segs = [(i, pts[i], pts[i + 1]) for i in range(len(pts) - 1)]
    return sorted(segs, key=lambda s: (-math.hypot(s[2][0] - s[1][0], s[2][1] - s[1][1]), s[0]))


def place_mid(board: Board, label: Label, pts, own: int, exit_from=None, ends=(), whole=None,
              bound: float = math.inf) -> float:
    """A label beside its connector.  ``exit_from`` (a centre): the connector leaves a decision,
    so its label (yes / no) names that exit and goes where the line leaves the box when
    that is free; anywhere else along the line costs :data:`FAR_FROM_EXIT` more.
    ``ends``: the boxes (x0, y0, x1, y1) the line joins, with its end on each and the
    exponent of each outline (:func:`face`); a place past one of them costs
    :data:`PAST_END` more (see :func:`_past`).  ``whole``: ``pts`` is part of the line
    (a merge bus's member's own leg), and ``(pts, ends)`` of all of it are looked along
    too where no place by the part is free, on one line or two.  Gives what the place
    taken costs; with a ``bound``, only a place costing less is taken, and where there
    is none, nothing is and the cost is infinite."""
    text, best = label.text, _unplaced(bound)
    for pts, ends in ((pts, ends),) if whole is None else ((pts, ends), whole):
        near = math.inf if len(pts) == 2 else PAST_NEAR
        found = _search(board, label.w, label.h, pts, own, exit_from, ends, near, 0.0, bound)
        if best is None or found[0] < best[0] - 1e-9:
            best, label.text = found, text
            label.w, label.h = measure(text, label.size)
        if _crowded(best):
            # no free place for it on one line: on two, where that frees one ("caller
            # cancels / send CANCEL" stood beyond the next lane, read as that lane's)
            wrapped = wrap_label(text, label.size)
            if wrapped is not None:
                w, h = measure(wrapped, label.size)
                other = _search(board, w, h, pts, own, exit_from, ends, near, WRAPPED, bound)
                if other[0] < best[0] - 1e-9:
                    best = other
                    label.text, label.w, label.h = wrapped, w, h
        if not _crowded(best):
            break
    if _crowded(best) and exit_from is None:
        best = _on_own(board, label, own, _along_own(pts, label.w, label.h), ON_OWN_MID, best)
    if best[1] is None:
        return math.inf
    label.cx, label.cy = best[1], best[2]
    board.take(label.rect)
    return best[0]


#: What a mid label set on two lines costs (see :func:`wrap_label`): a free place on two
#: lines is taken before one on one line nearer another connector, over a line or a label.
WRAPPED = 30.0
#: A label is set on two lines only where that makes it at most this share as wide.
WRAP_SHARE = 0.8
#: Where a break reads best: after an event's slash ("rcv SYN /" over "send SYN,ACK") or
#: a comma; such a break may make the wider line this many px wider than the evenest one.
WRAP_AFTER = ("/", ",", ";", ":")
WRAP_BONUS = 14.0


def wrap_label(text: str, size: float) -> str | None:
    """``text`` broken at one space into two lines, as even as may be (a break after
    :data:`WRAP_AFTER` preferred, never one between a number and its unit), or None:
    text already on several lines, of one word, or not made narrower than
    :data:`WRAP_SHARE` of its width."""
    if "\n" in text:
        return None
    best = None
    for i, ch in enumerate(text):
        if ch != " " or not text[:i].strip() or not text[i + 1:].strip():
            continue
        first, second = text[:i], text[i + 1:]
        if together(first.rsplit(" ", 1)[-1], second.split(" ", 1)[0]):
            continue   # (not between a number and its unit: "still under 3.0" over "V after 30 min")
        width = max(label_px(first, size), label_px(second, size))
        score = width - (WRAP_BONUS if first.rstrip().endswith(WRAP_AFTER) else 0.0)
        if best is None or score < best[0] - 1e-9:
            best = (score, width, first + "\n" + second)
    if best is None or best[1] > WRAP_SHARE * label_px(text, size):
        return None
    return best[2]


def _unplaced(bound: float):
    """What a label search starts from: nothing (None), or with a finite ``bound`` no
    place at the price of the bound, which only a cheaper place undercuts."""
    return None if bound == math.inf else (bound, None, None)


#: What a search gives when it looked at no place at all (see :meth:`Board.only_where`).
NOWHERE = (math.inf, None, None)


def _crowded(best) -> bool:
    """Whether the best place found is crowded (:data:`CROWDED`), or none was found."""
    return best[0] >= CROWDED or best[1] is None


def _search(board: Board, w: float, h: float, pts, own: int, exit_from, ends, near: float, extra: float,
            bound: float = math.inf):
    """The cheapest place for a w × h mid label (see :func:`place_mid`), each costing ``extra``
    more, and under ``bound`` (:func:`_unplaced`): the first look, then a finer one
    where all of those are crowded."""
    cands = _beside(pts, w, h, FIRST_EXTRAS, FIRST_TS)
    if exit_from is not None:
        cands = itertools.chain(_near_start(pts, w, h, exit_from), _farther(cands, pts[0]))
    # beside a straight line nothing but the boxes is near a place past one of them: such a
    # label reads as their caption at any distance (one far along a line round a box does not)
    if ends:
        cands = _past(cands, ends, w, h, near)
    # an exit label stands where its line leaves a decision, among the other exits: near
    # by its middle there ("yes" moved onto its own line's stub when read by its letters)
    by_rect = exit_from is None
    best = _cheapest(board, w, h, own, _plus(cands, extra), _unplaced(bound), by_rect=by_rect) or NOWHERE
    if _crowded(best) and board.fine_left > 0 and not board.spent():
        # every place tried is in something's way, or nearer another connector than its
        # own (where a reader would take the label for that one's): look again, finer,
        # while the figure's allowance for that lasts
        fine = _beside(pts, w, h, FINE_EXTRAS, FINE_TS)
        board.fine_left -= len(fine)
        if exit_from is not None:
            fine = _farther(fine, pts[0])
        if ends:
            fine = _past(fine, ends, w, h, near)
        best = _cheapest(board, w, h, own, _plus(fine, extra), best, by_rect=by_rect)
    return best


def _plus(cands, extra: float):
    if not extra:
        return cands
    return ((cx, cy, anchor, more + extra) for cx, cy, anchor, more in cands)


#: What an exit label costs for standing anywhere but beside the first few pixels of its
#: line: more than a place nearer another connector (a "no" beside the wrong decision
#: states the wrong branch), less than a place over a box, a label or a line.
FAR_FROM_EXIT = 200.0
#: How far along its line (past the room the label itself takes) an exit label may stand.
EXIT_STEPS = (0.0, 8.0, 18.0)


def _near_start(pts, w: float, h: float, centre) -> list:
    """Places beside the line just after it leaves its first box (centred on ``centre``),
    nearest first, the side away from the box's centre before the other (so the labels
    of two exits stand outside the angle between them); measured along the line, so a
    short first run continues round its bend."""
    out = []
    for extra in EXIT_STEPS:
        pair = []
        for side in (1, -1):
            walked, need = 0.0, None
            last = len(pts) - 2
            for i in range(last + 1):
                a, b = pts[i], pts[i + 1]
                dx, dy = b[0] - a[0], b[1] - a[1]
                length = math.sqrt(dx * dx + dy * dy)
                if length < 1e-9:
                    continue
                ux, uy = dx / length, dy / length
                if need is None:
                    need = abs(ux) * w / 2 + abs(uy) * h / 2 + 6.0 + extra
                if walked + length >= need or i == last:
                    t = min(length, max(0.0, need - walked))
                    px, py = a[0] + ux * t, a[1] + uy * t
                    nx, ny = -uy, ux
                    reach = abs(nx) * w / 2 + abs(ny) * h / 2 + 4
                    pair.append((px + nx * reach * side, py + ny * reach * side, (px, py), 0.0))
                    break
                walked += length
        pair.sort(key=lambda c: -((c[0] - centre[0]) ** 2 + (c[1] - centre[1]) ** 2))
        out += pair
    return out


#: What a label costs whose middle is past one of its line's boxes: level with or
#: behind the side the line leaves it by, where it reads as a caption of that box or its
#: neighbour (a reviewer took "payment.captured" above Payments for a box's caption).
PAST_END = 600.0


def face(box: Rect, point, p: float = math.inf) -> tuple[float, float]:
    """The outward normal at ``point`` of the outline |dx/a|^p + |dy/b|^p = 1 filling
    ``box``: a rectangle's (p = inf) is one axis, the side the point is on; a diamond's
    (p = 1) is its face's, an ellipse's (p = 2) the curve's."""
    x0, y0, x1, y1 = box
    a, b = max((x1 - x0) / 2, 1.0), max((y1 - y0) / 2, 1.0)
    u, v = (point[0] - (x0 + x1) / 2) / a, (point[1] - (y0 + y1) / 2) / b
    if p == math.inf:
        if abs(u) >= abs(v):
            return (1.0 if u >= 0 else -1.0), 0.0
        return 0.0, (1.0 if v >= 0 else -1.0)
    if p == 1.0:
        u, v = math.copysign(1.0, u), math.copysign(1.0, v)
    return u / a, v / b


PAST_NEAR = 30.0   # px from the box within which such a label reads as its caption


def _past(cands, ends, w: float, h: float, near: float = PAST_NEAR):
    """``cands`` (of a w × h label) with :data:`PAST_END` on each whose middle is past a
    box of ``ends`` (``(box, point, p)``: the line meets the box at the point): behind the
    line through the point along the box's side there, and within ``near`` of the box."""
    sides = [(face(box, p, shape), p, box) for box, p, shape in ends]
    for cx, cy, anchor, extra in cands:
        for (nx, ny), (px, py), (x0, y0, x1, y1) in sides:
            if (cx - px) * nx + (cy - py) * ny >= 0.0:
                continue
            if cx - w / 2 < x1 + near and cx + w / 2 > x0 - near \
                    and cy - h / 2 < y1 + near and cy + h / 2 > y0 - near:
                extra += PAST_END
                break
        yield cx, cy, anchor, extra


def _farther(cands, start):
    """``cands`` with :data:`FAR_FROM_EXIT` on each (and a little more the farther it is)."""
    for cx, cy, anchor, extra in cands:
        d = math.sqrt((cx - start[0]) ** 2 + (cy - start[1]) ** 2)
        yield cx, cy, anchor, extra + FAR_FROM_EXIT + 0.1 * d


CROWDED = 100.0   # a mid label costing this much collides, or reads as another connector's
#: Finer places the crowded mid labels of one figure may look at, in all: enough for the
#: few a figure usually has (one label beside three segments looks at about 600), and a
#: bound on a pathological one (two hundred labels crowded on one pair of boxes would
#: look at half a million, each reading the ink near it).
FINE_ALLOWANCE = 8_000
#: What the label and note costs of one figure may look at, in segments: WORK_BASE and
#: WORK_EACH for each box and connector.  Past it each label or note takes the first
#: place it finds (two hundred labelled, noted transitions between three states looked at
#: 2.9 million segments, 7.7 s; the most any figure of the corpus, upstream's examples,
#: the fresh review scenes or the bench scenes looks at is 1,452 per box and connector,
#: a 400-box figure with 100 pins).
WORK_BASE, WORK_EACH = 50_000, 3_000


def _cheapest(board: Board, w: float, h: float, own: int | None, cands, best, roomy: bool = True,
              by_rect: bool = True):
    """The first cheapest of ``cands`` (``(x, y, anchor, extra cost)``) as ``(cost, x, y)``,
    or ``best`` when none undercuts it;
    stops at the first that collides with nothing (they come in preference order)."""
    for cx, cy, anchor, extra in cands:
        if best is not None and best[1] is not None and board.spent():
            break   # (the figure's looking is spent: the first place found stands)
        r = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
        if not board.looks_at(r):
            continue
        c = extra + board.cost(r, own, anchor, math.inf if best is None else best[0] - 1e-9 - extra,
                               graze=True, roomy=roomy, by_rect=by_rect)
        if best is None or c < best[0] - 1e-9:
            best = (c, cx, cy)
            if c < GOOD:
                break
    return best


#: Where a mid label may go: beside each of its connector's three longest segments, at
#: these fractions of the segment's length and these distances (px) beyond the reach that
#: just clears the line, both sides; the first look, then the finer one of a crowded label
#: (from the middle out by tenths, every 4 px out to 40 px).
FIRST_EXTRAS, FIRST_TS = (0.0, 12.0, 26.0), (0.5, 0.35, 0.65, 0.2, 0.8)
FINE_EXTRAS = tuple(float(d) for d in range(0, 44, 4))
FINE_TS = (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.1, 0.9)


def _beside(pts, w: float, h: float, extras, ts) -> list:
    """The places (centre x, centre y, anchor) beside ``pts`` for a w × h label, in
    preference order: segment by segment, then distance, then fraction, then side."""
    out = []
    for _, a, b in _segments_by_length(pts)[:3]:
        dx, dy = b[0] - a[0], b[1] - a[1]
        length = math.sqrt(dx * dx + dy * dy) or 1.0
        nx, ny = -dy / length, dx / length
        reach = abs(nx) * w / 2 + abs(ny) * h / 2 + 4
        # beside a slanted line, also straight across from it (level beside a steep one,
        # over or under a flat one): a wide label pushed out along the normal stood far
        # up the line, on the box beyond its end, where level beside it the room was free
        slanted = abs(dx) > 1e-6 and abs(dy) > 1e-6
        if abs(dy) >= abs(dx):
            level = (w / 2 + 4 + h / 2 * abs(dx / dy) if slanted else 0.0, 0.0)
        else:
            level = (0.0, h / 2 + 4 + w / 2 * abs(dy / dx) if slanted else 0.0)
        for extra in extras:
            for t in ts:
                px, py = a[0] + dx * t, a[1] + dy * t
                for s in (-1, 1):
                    r = reach + extra
                    out.append((px + nx * r * s, py + ny * r * s, (px, py), DETACHED * extra))
                    if slanted:
                        # on the same side of the line as the normal's place
                        side = s if (nx * level[0] + ny * level[1]) >= 0 else -s
                        ex, ey = (extra, 0.0) if level[1] == 0.0 else (0.0, extra)
                        out.append((px + (level[0] + ex) * side, py + (level[1] + ey) * side, (px, py),
                                    DETACHED * extra + LEVEL_EXTRA))
    return out


#: What a place straight across from a slanted line costs more than the one along its
#: normal at the same distance (it is tried after that one).
LEVEL_EXTRA = 0.5


#: What a mid label costs per px it stands farther off its line than it must: 12 px out
#: is still cheaper than a place between its line and another (``GOOD + 1``), 26 px out
#: no longer (labels stood 30-39 px off in open space, read as no line's).
DETACHED = 0.25


#: How far past its first place (px along the line) an end label may stand: the nearest
#: free of other ink and of other lines' reach wins, so the labels of lines fanning from
#: one side stand where the fan has opened (ge-1/0/1 stood between its line and the next).
#: Past the first three, only within :data:`END_REACH` of the segment's length, where the
#: label still reads as this end's (not the far box's).
END_EXTRAS = (0.0, 8.0, 18.0, 30.0, 44.0)
END_REACH = 0.35


#: What an end label costs set on its own line (see :func:`place_end`): more than a place
#: beside it nearer another line, less than one over another line or label.
ON_OWN_LINE = 200.0


def place_end(board: Board, label: Label, pts, own: int, at_start: bool, away: float = 6.0,
              bound: float = math.inf) -> float:
    """A label near one end of a connector (tail near a, head near b); gives what the
    place taken costs (with a ``bound``, as :func:`place_mid`)."""
    p, q = (pts[0], pts[1]) if at_start else (pts[-1], pts[-2])
    dx, dy = q[0] - p[0], q[1] - p[1]
    length = math.sqrt(dx * dx + dy * dy) or 1.0
    ux, uy = dx / length, dy / length
    nx, ny = -uy, ux
    w, h = label.w, label.h
    along = abs(ux) * w / 2 + abs(uy) * h / 2 + away
    across = abs(nx) * w / 2 + abs(ny) * h / 2 + 3
    cands = []
    for i, extra in enumerate(END_EXTRAS):
        if i >= 3 and along + extra > END_REACH * length:
            break
        for s in (-1, 1):
            cx = p[0] + ux * (along + extra) + nx * across * s
            cy = p[1] + uy * (along + extra) + ny * across * s
            cands.append((cx, cy, p, 0.0))
    best = _cheapest(board, w, h, own, cands, _unplaced(bound), roomy=False, by_rect=False) or NOWHERE
    if _crowded(best):
        # every place beside the line is on another line or label (the middle one of
        # three lines 10 px apart): on its own line, over a white ground, at a price
        on = []
        for i, extra in enumerate(END_EXTRAS):
            if i >= 3 and along + extra > END_REACH * length:
                break
            on.append((p[0] + ux * (along + extra), p[1] + uy * (along + extra), p))
        best = _on_own(board, label, own, on, ON_OWN_LINE, best, roomy=False, by_rect=False)
    if best[1] is None:
        return math.inf
    label.cx, label.cy = best[1], best[2]
    board.take(label.rect)
    return best[0]


def _on_own(board: Board, label: Label, own: int, cands, price: float, best, roomy: bool = True,
            by_rect: bool = True):
    """``best`` or, when cheaper at ``price`` more, the first cheapest of ``cands`` (centres
    on the label's own line, with an anchor), the line through it not counted: the
    label is then set there over a white ground (``label.backed``)."""
    w, h = label.w, label.h
    for cx, cy, anchor in cands:
        r = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
        if not board.looks_at(r):
            continue
        c = price + board.cost(r, own, anchor, best[0] - price, graze=True, roomy=roomy, on_own=True,
                               by_rect=by_rect)
        if c < best[0] - 1e-9:
            # the ground hides every other line under it, even one through a corner or
            # half a stroke along its edge, and any band's border
            ground = (r[0] - 2, r[1] - 1, r[2] + 2, r[3] + 1)
            c += HIDDEN * (board.lines_under(ground) - 1 + board.borders_under(ground))
        if c < best[0] - 1e-9:
            best = (c, cx, cy)
            label.backed = True
    return best


#: What a label set on its own line costs for each other line its white ground hides.
HIDDEN = 500.0
#: What a mid label costs set on its own line: less than a place beside it nearer
#: another line (which a reader takes for that line's), more than any free place.
ON_OWN_MID = 120.0
#: How far a label set on its line keeps from the ends of the segment under it (its
#: white ground hides no bend).
ON_OWN_END = 6.0


def _along_own(pts, w: float, h: float) -> list:
    """Centres on ``pts`` for a w × h label set on the line: on each of its three
    longest segments at :data:`FIRST_TS`, where the label lies within the segment."""
    out = []
    for _, a, b in _segments_by_length(pts)[:3]:
        dx, dy = b[0] - a[0], b[1] - a[1]
        length = math.sqrt(dx * dx + dy * dy)
        if length < 1e-9:
            continue
        half = abs(dx) / length * w / 2 + abs(dy) / length * h / 2 + ON_OWN_END
        for t in FIRST_TS:
            if half <= t * length <= length - half:
                px, py = a[0] + dx * t, a[1] + dy * t
                out.append((px, py, (px, py)))
    return out
