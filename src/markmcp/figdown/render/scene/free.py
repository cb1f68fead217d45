"""Routing where there is no rank structure to follow (author-placed boxes).

``route_free`` draws a connector between two boxes: the straight line between
their outlines when it meets no other box, otherwise the cheapest orthogonal
path on a sparse grid made of the obstacles' own edges (offset by a margin),
found by A* over (point, heading) states with a penalty per bend and per
stretch of ink already laid by another connector.  Ties are broken by a
counter, never by hashing, so the path is the same on every run.  A search
takes a bounded number of steps (and a drawing's searches a bounded number in
all, :class:`Effort`); when the one weighing crossings gives up, a quicker one
that does not is asked (:func:`detour`).  A way round a box is taken only when
it costs the drawing less than the line through it, by the weights of
bench/figdown_layout.py's layout score (:meth:`Ink.score`: a line through a box
3, a crossing 2, a line coming to run along another 2), and once every
connector is drawn each such choice is weighed again over all of them
(:func:`reconsider`).
"""

from __future__ import annotations

import bisect
import heapq
import math

from .graph import Box, border_point, corner_radius, side_point
from .squares import span as square_span

MARGIN = 10.0
BEND = 24.0
SHARED = 4.0     # per px of line already drawn by another connector
EPS = 2.0

Rect = tuple[float, float, float, float]


def seg_hits_rect(p, q, r: Rect, shrink: float = EPS) -> bool:
    """Does segment p–q pass through the interior of r (shrunk by ``shrink``)?"""
    x0, y0, x1, y1 = r[0] + shrink, r[1] + shrink, r[2] - shrink, r[3] - shrink
    if x0 >= x1 or y0 >= y1:
        return False
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for den, num in ((-dx, p[0] - x0), (dx, x1 - p[0]), (-dy, p[1] - y0), (dy, y1 - p[1])):
        if den == 0:
            if num < 0:
                return False
            continue
        t = num / den
        if den < 0:
            if t > t1:
                return False
            t0 = max(t0, t)
        else:
            if t < t0:
                return False
            t1 = min(t1, t)
    return t0 < t1


def path_hits(points, obstacles: list[Rect], shrink: float = EPS) -> bool:
    """Does the polyline pass through one of ``obstacles`` (each shrunk by ``shrink``;
    a negative ``shrink`` grows it, asking for that much room round it)?"""
    for p, q in zip(points, points[1:]):
        x0, x1 = (p[0], q[0]) if p[0] <= q[0] else (q[0], p[0])
        y0, y1 = (p[1], q[1]) if p[1] <= q[1] else (q[1], p[1])
        for r in obstacles:
            if r[2] - shrink < x0 or r[0] + shrink > x1 or r[3] - shrink < y0 or r[1] + shrink > y1:
                continue
            if seg_hits_rect(p, q, r, shrink):
                return True
    return False


LINE_CELL = 48.0   # side of a square of the slanted segments' index
CELL = 2 * LINE_CELL   # side of a square of the ink index (level and upright segments)
MAX_SQUARES = 4096  # a segment (or a query) over more squares than this is counted plainly
BOX_CELL = 96.0   # side of a square of the boxes' index


class Boxes:
    """Boxes' rectangles bucketed by squares of side :data:`BOX_CELL`, so that asking
    whether a path passes through one of them reads only the boxes near the path.

    ``Boxes(pairs).hits(points, skip)`` is ``path_hits(points, rects)`` for the
    rectangles of ``pairs`` (``(key, rect)``) whose key is not in ``skip``: a
    rectangle is bucketed under every square its extent touches, a segment reads
    the squares its own extent touches, so every rectangle whose extent meets the
    segment's (all that :func:`path_hits` tests further) is read, and each is judged
    by the same :func:`seg_hits_rect`.  The answer is a yes or no, so the order the
    rectangles are read in does not matter.  A rectangle over more than
    :data:`MAX_SQUARES` squares or with a coordinate that is not finite is kept in
    a list every query reads.  A segment reads its squares from its two ends inward
    and stops at the first box it meets; one that has read :data:`MAX_SQUARES`
    squares without meeting any (or has a coordinate that is not finite) reads every
    rectangle instead, so the work stays bounded by the number of boxes whatever the
    coordinates."""

    __slots__ = ("pairs", "cells", "wide")

    def __init__(self, pairs: list[tuple[object, Rect]]) -> None:
        self.pairs = pairs
        self.cells: dict[tuple[int, int], list[tuple[object, Rect]]] = {}
        self.wide: list[tuple[object, Rect]] = []
        for pair in pairs:
            r = pair[1]
            span = square_span(r[0], r[1], r[2], r[3], BOX_CELL, MAX_SQUARES)
            if span is None:
                self.wide.append(pair)
                continue
            i0, j0, i1, j1 = span
            for i in range(i0, i1 + 1):
                for j in range(j0, j1 + 1):
                    bucket = self.cells.get((i, j))
                    if bucket is None:
                        self.cells[(i, j)] = [pair]
                    else:
                        bucket.append(pair)

    def hits(self, points, skip=(), shrink: float = EPS) -> bool:
        """Does the polyline pass through a box whose key is not in ``skip`` (each box
        shrunk by ``shrink``, or grown by a negative one, as in :func:`path_hits`)?"""
        cells = self.cells
        grow = max(0.0, -shrink)   # a grown box is met from the squares round its own
        for p, q in zip(points, points[1:]):
            x0, x1 = (p[0], q[0]) if p[0] <= q[0] else (q[0], p[0])
            y0, y1 = (p[1], q[1]) if p[1] <= q[1] else (q[1], p[1])
            span = square_span(x0 - grow, y0 - grow, x1 + grow, y1 + grow, BOX_CELL, None)
            if span is None:
                if _meets(p, q, x0, y0, x1, y1, self.pairs, skip, shrink):
                    return True
                continue
            if self.wide and _meets(p, q, x0, y0, x1, y1, self.wide, skip, shrink):
                return True
            budget = MAX_SQUARES
            for square in _squares_inward(*span):
                budget -= 1
                if budget < 0:   # a long way with no box met yet: read every box instead
                    if _meets(p, q, x0, y0, x1, y1, self.pairs, skip, shrink):
                        return True
                    break
                bucket = cells.get(square)
                if bucket is not None and _meets(p, q, x0, y0, x1, y1, bucket, skip, shrink):
                    return True
        return False


def _meets(p, q, x0: float, y0: float, x1: float, y1: float, pairs, skip, shrink: float = EPS) -> bool:
    """Does p–q (whose extent is x0..x1 × y0..y1) pass through one of ``pairs``' boxes
    whose key is not in ``skip``?  :func:`path_hits`' test, box by box."""
    for key, r in pairs:
        if r[2] - shrink < x0 or r[0] + shrink > x1 or r[3] - shrink < y0 or r[1] + shrink > y1 \
                or key in skip:
            continue
        if seg_hits_rect(p, q, r, shrink):
            return True
    return False


def _ends_inward(lo: int, hi: int):
    """lo, hi, lo + 1, hi - 1, …: the squares at a segment's two ends first (along
    its longer side).  A
    straight connector that meets a box mostly meets it beside one of its ends (a
    wide fan's far connectors run into the neighbours of the box they reach), and
    the first box met answers the question."""
    while lo < hi:
        yield lo
        yield hi
        lo += 1
        hi -= 1
    if lo == hi:
        yield lo


def _squares_inward(i0: int, j0: int, i1: int, j1: int):
    """The squares of columns i0..i1 × rows j0..j1, those at the two ends of the
    longer side first (see :func:`_ends_inward`)."""
    if i1 - i0 >= j1 - j0:
        for i in _ends_inward(i0, i1):
            for j in range(j0, j1 + 1):
                yield i, j
    else:
        for j in _ends_inward(j0, j1):
            for i in range(i0, i1 + 1):
                yield i, j


class Ink:
    """Segments already drawn, indexed for the overlap and crossing penalties.

    Crossing counts are asked of level and upright segments (the search's grid
    moves) hundreds of thousands of times, so drawn segments are bucketed by
    squares of side :data:`CELL`, in three indexes:

    * level and upright segments under every square their extent touches; a
      count reads the squares its own box touches and takes a segment in the
      square holding the low corner of the two boxes' overlap only (that corner
      lies in both boxes, so both were bucketed under it): once, exactly;
    * slanted segments under every square (side :data:`LINE_CELL`) within :func:`_pad` of the line
      itself (not its bounding box, which for a long diagonal is mostly empty),
      read with a set against repeats.  Where a count crosses it, the crossing
      point lies on both segments up to rounding far below the pad, so the
      square holding it was bucketed.

    A segment whose squares would number more than :data:`MAX_SQUARES` (a box
    pinned billions of pixels wide, which the language allows) is kept in a
    plain list that every count reads, and a query over as many squares counts
    against every drawn segment: the same counts, in work bounded by the number
    of segments rather than by the size of the coordinates.

    A level query skips the level index, an upright one the upright index: two
    such segments never properly cross (their direction determinant is exactly
    zero).  A slanted query (a straight connector, a few per route) reads every
    drawn segment.  Each candidate is judged by :func:`segments_cross`'s arithmetic,
    written out, so the count is always the plain one."""

    def __init__(self):
        self.h: dict[float, list[tuple[float, float]]] = {}
        self.v: dict[float, list[tuple[float, float]]] = {}
        self.segments: list[tuple] = []
        self.level: dict[tuple[int, int], list[tuple]] = {}
        self.upright: dict[tuple[int, int], list[tuple]] = {}
        self.slanted: dict[tuple[int, int], list[tuple]] = {}
        self.wide: list[tuple] = []   # segments over too many squares to bucket
        self.indexed = 0   # segments[:indexed] are in the squares (the rest wait for a count)
        # for the runs along other lines (:meth:`coincident`): level and upright
        # segments by their line (axis, rounded coordinate) as (coordinate, lo, hi,
        # owner), the slanted ones as (p, q, owner) by their direction (:func:`_heading`,
        # the short ones in a list of their own); and which drawn lines already run
        # along another
        self.runs: dict[tuple[int, int], list[tuple]] = {}
        self.slants: dict[int, list[tuple]] = {}
        self.short_slants: list[tuple] = []
        self.partners: dict[object, set] = {}
        self.drawn = 0

    def crossings(self, p, q) -> int:
        """How many drawn segments the segment p–q properly crosses."""
        if self.indexed < len(self.segments):
            self._index()
        if p[1] == q[1]:
            straight, lines = self.upright, self.slanted
        elif p[0] == q[0]:
            straight, lines = self.level, self.slanted
        else:
            return self._slanted_crossings(p, q)
        x0, x1 = (p[0], q[0]) if p[0] <= q[0] else (q[0], p[0])
        y0, y1 = (p[1], q[1]) if p[1] <= q[1] else (q[1], p[1])
        floor = math.floor
        li0, li1 = floor(x0 / LINE_CELL), floor(x1 / LINE_CELL)
        lj0, lj1 = floor(y0 / LINE_CELL), floor(y1 / LINE_CELL)
        if (li1 - li0 + 1) * (lj1 - lj0 + 1) > MAX_SQUARES:   # _squares(.., LINE_CELL)
            return _count(p, q, self.segments)
        count = _count(p, q, self.wide) if self.wide else 0
        # CELL is twice LINE_CELL, and halving a float is exact, so x / CELL is
        # (x / LINE_CELL) / 2 to the bit and floor(x / CELL) is floor(x / LINE_CELL) // 2
        ci0, ci1, cj0, cj1 = li0 >> 1, li1 >> 1, lj0 >> 1, lj1 >> 1
        if ci0 == ci1 and cj0 == cj1:
            bucket = straight.get((ci0, cj0))
            if bucket is not None:
                count += _count(p, q, bucket)
        else:
            for ci in range(ci0, ci1 + 1):
                for cj in range(cj0, cj1 + 1):
                    bucket = straight.get((ci, cj))
                    if bucket is not None:
                        count += _count(p, q, [
                            seg for seg in bucket
                            if math.floor((x0 if x0 > seg[2] else seg[2]) / CELL) == ci
                            and math.floor((y0 if y0 > seg[3] else seg[3]) / CELL) == cj])
        ci0, ci1, cj0, cj1 = li0, li1, lj0, lj1
        if ci0 == ci1 and cj0 == cj1:
            bucket = lines.get((ci0, cj0))
            if bucket is not None:
                count += _count(p, q, bucket)
            return count
        near: dict[int, tuple] = {}
        for ci in range(ci0, ci1 + 1):
            for cj in range(cj0, cj1 + 1):
                bucket = lines.get((ci, cj))
                if bucket is not None:
                    for seg in bucket:
                        near[id(seg)] = seg
        if near:
            count += _count(p, q, near.values())
        return count

    def add(self, points, owner: object = None) -> None:
        """Draw ``points``, the line of ``owner`` (any key; a new one when None)."""
        if owner is None:
            owner = ("drawn", self.drawn)
        self.drawn += 1
        met = self.coincident(points)
        met.discard(owner)
        if met:
            self.partners.setdefault(owner, set()).update(met)
            for other in met:
                self.partners.setdefault(other, set()).add(owner)
        for a, b in zip(points, points[1:]):
            self.segments.append((a, b, min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]),
                                  b[0] - a[0], b[1] - a[1]))
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            if abs(y0 - y1) < 0.5:
                self.h.setdefault(round(y0), []).append((min(x0, x1), max(x0, x1)))
                self.runs.setdefault((0, round(y0)), []).append((y0, min(x0, x1), max(x0, x1), owner))
            elif abs(x0 - x1) < 0.5:
                self.v.setdefault(round(x0), []).append((min(y0, y1), max(y0, y1)))
                self.runs.setdefault((1, round(x0)), []).append((x0, min(y0, y1), max(y0, y1), owner))
            else:
                heading = _heading(x1 - x0, y1 - y0)
                if heading is None:
                    self.short_slants.append(((x0, y0), (x1, y1), owner))
                else:
                    self.slants.setdefault(heading, []).append(((x0, y0), (x1, y1), owner))

    def coincident(self, points) -> set:
        """The drawn lines that ``points`` runs along for more than :data:`RUN` px
        within :data:`NEAR` px (bench/figdown_layout.py's coincident runs): level and
        upright segments against those on (nearly) the same line, slanted ones
        against the slanted."""
        met: set = set()
        runs = self.runs
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            if abs(y0 - y1) < 0.5:
                axis, at, lo, hi = 0, y0, min(x0, x1), max(x0, x1)
            elif abs(x0 - x1) < 0.5:
                axis, at, lo, hi = 1, x0, min(y0, y1), max(y0, y1)
            else:
                lx, hx = (x0, x1) if x0 < x1 else (x1, x0)
                ly, hy = (y0, y1) if y0 < y1 else (y1, y0)
                # a drawn segment whose two ends lie within NEAR of this line turns off
                # it by at most asin(2 NEAR / its length): for one of SLANT_LONG px or
                # more, less than a heading's width, so the headings beside this one hold it
                k = math.floor(_angle(x1 - x0, y1 - y0) / HEADING) % HEADINGS
                for bucket in (self.short_slants, *(self.slants.get((k + i) % HEADINGS, ()) for i in (-1, 0, 1))):
                    for c, d, owner in bucket:
                        if (c[0] < lx - NEAR and d[0] < lx - NEAR) or (c[0] > hx + NEAR and d[0] > hx + NEAR) \
                                or (c[1] < ly - NEAR and d[1] < ly - NEAR) or (c[1] > hy + NEAR and d[1] > hy + NEAR):
                            continue
                        if owner not in met and _along((x0, y0), (x1, y1), c, d) > RUN:
                            met.add(owner)
                continue
            key = round(at)
            for k in range(key - 2, key + 3):
                for c, a, b, owner in runs.get((axis, k), ()):
                    if abs(c - at) <= NEAR and (b if b < hi else hi) - (a if a > lo else lo) > RUN:
                        met.add(owner)
        return met

    def score(self, points, through: bool, owner: object = None) -> int:
        """What drawing ``points`` (``through`` a box or not) costs over the lines drawn
        so far, but ``owner``'s, by the weights of bench/figdown_layout.py's layout score
        but one: :data:`THROUGH_BOX` for a line through a box, 2 per line crossed, and 2
        for each line that comes to run along another (this one, and each drawn line it
        runs along that ran along none but ``owner``'s before)."""
        met = self.coincident(points)
        met.discard(owner)
        alone = sum(1 for other in met if not (self.partners.get(other, set()) - {owner}))
        return THROUGH_BOX * through + 2 * ink_crossings(points, self) + 2 * ((1 if met else 0) + alone)

    def _slanted_crossings(self, p, q) -> int:
        """:meth:`crossings` of a slanted segment: the drawn segments in the squares
        (side :data:`LINE_CELL`) within :func:`_pad` of its line, as a slanted
        segment is bucketed, read once each, and of the level and upright ones
        those in the squares (side :data:`CELL`) holding these.  Where it crosses a
        drawn segment, the crossing point lies on both: in one of its own squares,
        where the drawn segment was bucketed (every square of its extent, or along
        its line).  Over more than :data:`MAX_SQUARES` squares, every segment is read."""
        seg = (p, q, min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]), q[0] - p[0], q[1] - p[1])
        if not all(math.isfinite(v) for v in seg[2:6]):
            return _count(p, q, self.segments)
        near: dict[int, tuple] = {}
        slanted, level, upright = self.slanted, self.level, self.upright
        seen = 0
        for ci, cj in _line_squares(seg, _pad(seg)):
            seen += 1
            if seen > MAX_SQUARES:
                return _count(p, q, self.segments)
            for bucket in (slanted.get((ci, cj)), level.get((ci >> 1, cj >> 1)), upright.get((ci >> 1, cj >> 1))):
                if bucket is not None:
                    for other in bucket:
                        near[id(other)] = other
        count = _count(p, q, near.values())
        if self.wide:
            count += _count(p, q, self.wide)
        return count

    def _index(self) -> None:
        """Bucket the segments drawn since the last count (a drawing that never asks
        for one, e.g. straight lines only, never pays for the squares)."""
        for seg in self.segments[self.indexed:]:
            a, b = seg[0], seg[1]
            pad = _pad(seg)
            if _squares(seg[2] - pad, seg[3] - pad, seg[4] + pad, seg[5] + pad, LINE_CELL) > MAX_SQUARES:
                self.wide.append(seg)
                continue
            if a[1] == b[1] or a[0] == b[0]:
                cells = self.level if a[1] == b[1] else self.upright
                for ci in range(math.floor(seg[2] / CELL), math.floor(seg[4] / CELL) + 1):
                    for cj in range(math.floor(seg[3] / CELL), math.floor(seg[5] / CELL) + 1):
                        cells.setdefault((ci, cj), []).append(seg)
                continue
            for square in _line_squares(seg, pad):
                self.slanted.setdefault(square, []).append(seg)
        self.indexed = len(self.segments)

    def overlap(self, p, q) -> float:
        """How much of p–q runs along drawn level or upright ink on its own line:
        the sum of max(0, min(hi, b) - max(lo, a)) over the spans (a, b) there,
        written out (asked once per grid move, and most lines hold no span)."""
        px, py = p
        qx, qy = q
        if abs(py - qy) < 0.5:
            spans = self.h.get(round(py))
        elif abs(px - qx) < 0.5:
            spans = self.v.get(round(px))
            px, qx = py, qy
        else:
            return 0.0
        if not spans:
            return 0.0
        lo = qx if qx < px else px   # min(px, qx)
        hi = qx if qx > px else px   # max(px, qx)
        total = 0.0
        for a, b in spans:
            run = (b if b < hi else hi) - (a if a > lo else lo)
            if run > 0.0:
                total += run
        return total


def _line_squares(seg, pad: float):
    """The squares (side :data:`LINE_CELL`) within ``pad`` of the slanted segment
    ``seg`` (as :meth:`Ink.add` stores it), column by column."""
    a, _, bx0, by0, bx1, by1, dx, dy = seg
    for ci in range(math.floor((bx0 - pad) / LINE_CELL), math.floor((bx1 + pad) / LINE_CELL) + 1):
        # the part of the line over this column of squares (widened by the pad)
        xa, xb = max(bx0, ci * LINE_CELL - pad), min(bx1, (ci + 1) * LINE_CELL + pad)
        if xa > xb:
            continue
        ya, yb = a[1] + (xa - a[0]) * dy / dx, a[1] + (xb - a[0]) * dy / dx
        lo = max(min(ya, yb), by0) - pad
        hi = min(max(ya, yb), by1) + pad
        for cj in range(math.floor(lo / LINE_CELL), math.floor(hi / LINE_CELL) + 1):
            yield ci, cj


def _squares(x0: float, y0: float, x1: float, y1: float, side: float) -> float:
    """How many squares of ``side`` the box (x0, y0)–(x1, y1) touches."""
    return (math.floor(x1 / side) - math.floor(x0 / side) + 1) * (math.floor(y1 / side) - math.floor(y0 / side) + 1)


def segments_cross(a, b, c, d) -> bool:
    """Do segments a-b and c-d cross at a point inside both (not at a shared end)?"""
    d1x, d1y, d2x, d2y = b[0] - a[0], b[1] - a[1], d[0] - c[0], d[1] - c[1]
    den = d1x * d2y - d1y * d2x
    if abs(den) < 1e-9:
        return False
    t = ((c[0] - a[0]) * d2y - (c[1] - a[1]) * d2x) / den
    u = ((c[0] - a[0]) * d1y - (c[1] - a[1]) * d1x) / den
    return 1e-6 < t < 1 - 1e-6 and 1e-6 < u < 1 - 1e-6


def lines_crossed(paths: dict[int, list], key: int, pts, moved: dict[int, list] | None = None) -> int:
    """How many segments of the connectors of ``paths`` other than ``key`` the polyline
    ``pts`` crosses, each connector in ``moved`` read in its moved place."""
    count = 0
    for p, q in zip(pts, pts[1:]):
        x0, x1 = min(p[0], q[0]), max(p[0], q[0])
        y0, y1 = min(p[1], q[1]), max(p[1], q[1])
        for other_key, other in paths.items():
            if other_key == key:
                continue
            if moved is not None:
                other = moved.get(other_key, other)
            for r, s in zip(other, other[1:]):
                if max(r[0], s[0]) < x0 or min(r[0], s[0]) > x1 or max(r[1], s[1]) < y0 \
                        or min(r[1], s[1]) > y1:
                    continue
                if segments_cross(p, q, r, s):
                    count += 1
    return count


def _pad(seg) -> float:
    """How far round a slanted segment its squares reach: half a pixel, and more for
    huge coordinates — many orders above the rounding in a crossing test, whose
    error is a few units in the last place of the coordinates."""
    return 0.5 + 1e-9 * (abs(seg[2]) + abs(seg[3]) + abs(seg[4]) + abs(seg[5]))


def _count(p, q, segments) -> int:
    """How many of ``segments`` (as :meth:`Ink.add` stores them) the segment p–q
    properly crosses: :func:`segments_cross`, written out with the same arithmetic."""
    x0, x1 = (p[0], q[0]) if p[0] <= q[0] else (q[0], p[0])
    y0, y1 = (p[1], q[1]) if p[1] <= q[1] else (q[1], p[1])
    px, py = p
    d1x, d1y = q[0] - px, q[1] - py
    count = 0
    for c, _, bx0, by0, bx1, by1, d2x, d2y in segments:
        if bx1 < x0 or bx0 > x1 or by1 < y0 or by0 > y1:
            continue
        den = d1x * d2y - d1y * d2x
        if abs(den) < 1e-9:
            continue
        ex, ey = c[0] - px, c[1] - py
        t = (ex * d2y - ey * d2x) / den
        if 1e-6 < t < 1 - 1e-6:
            u = (ex * d1y - ey * d1x) / den
            if 1e-6 < u < 1 - 1e-6:
                count += 1
    return count


#: What a line through a box costs when a way round is weighed against it.  The layout
#: score weighs it 3 (a crossing 2), but a line drawn through a box it does not join reads
#: as joining it: a reviewer rated that the worst fault of a picture.  At 3 the 32 partly
#: pinned scenes kept 104 such lines (score 4,026); at 12, 30 (4,342); at 40, 1 (4,733),
#: and a quarter-pinned 200-box block scene 7 where it had 37, in a third of the time.
THROUGH_BOX = 40
RUN = 10.0    # a run along another line counts past this length (bench/figdown_layout.py)
NEAR = 1.5    # within this distance of it


HEADINGS = 63                  # direction buckets of slanted segments, over half a turn
HEADING = math.pi / HEADINGS   # each one's width (radians), about 0.05
SLANT_LONG = 61.0    # 2 NEAR / 61 < sin(HEADING): a segment this long turns off a line it keeps within
                     # NEAR of by less than a bucket's width


def _angle(dx: float, dy: float) -> float:
    """The direction of (dx, dy) in [0, pi): a line's, whichever way it is drawn."""
    angle = math.atan2(dy, dx)
    if angle < 0.0:
        angle += math.pi
    return angle if angle < math.pi else 0.0


def _heading(dx: float, dy: float) -> int | None:
    """The direction bucket of a slanted segment, or None when it is shorter than
    :data:`SLANT_LONG` (or not finite) and so is read by every query."""
    length = math.hypot(dx, dy)
    if not length >= SLANT_LONG or not math.isfinite(length):
        return None
    return math.floor(_angle(dx, dy) / HEADING) % HEADINGS


def _along(a, b, c, d) -> float:
    """How far c–d runs along a–b: the length of a–b covered by c–d's projection,
    when both c and d are within :data:`NEAR` of a–b's line (else 0)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.sqrt(dx * dx + dy * dy)
    if length < 1e-9:
        return 0.0
    ux, uy = dx / length, dy / length
    if abs((c[1] - a[1]) * ux - (c[0] - a[0]) * uy) > NEAR or abs((d[1] - a[1]) * ux - (d[0] - a[0]) * uy) > NEAR:
        return 0.0
    t3 = (c[0] - a[0]) * ux + (c[1] - a[1]) * uy
    t4 = (d[0] - a[0]) * ux + (d[1] - a[1]) * uy
    return max(0.0, min(length, max(t3, t4)) - max(0.0, min(t3, t4)))


def _runs_along(points, other) -> bool:
    """Does a segment of ``points`` run along one of ``other`` (:meth:`Ink.coincident`)?"""
    return any(_along(p, q, c, d) > RUN for p, q in zip(points, points[1:]) for c, d in zip(other, other[1:]))


def _inside(pt, r: Rect, pad: float) -> bool:
    return r[0] - pad < pt[0] < r[2] + pad and r[1] - pad < pt[1] < r[3] + pad


#: A straight connector between two boxes side by side (or one above the other) whose
#: sides face each other over a stretch is drawn level (upright) across it, this far at
#: least inside each box's flat side (an arrowhead is 11.2 px across), not slanted
#: between their middles.
LEVEL_KEEP = 8.0


def centre_line(a: Box, b: Box) -> list[tuple[float, float]]:
    """Outline to outline along the line between the boxes' middles."""
    return [border_point(a, b.cx, b.cy), border_point(b, a.cx, a.cy)]


#: A level or upright line meets a diamond only this share of its half-size off the
#: middle (further out an arrowhead met it 8 px from its tip)...
POINTED_SHARE = 0.25
#: ...and an ellipse or a circle only where the outline's normal is within this angle of
#: the line (a circle 8 px above its bottom was met at a glance).
CURVED_TAN = math.tan(math.radians(20.0))


def _flat(box: Box, horizontal: bool) -> tuple[float, float] | None:
    """The stretch across which a level (``horizontal``) or upright line may meet the box's
    side: its flat part, :data:`LEVEL_KEEP` in from the corners (a rounded box's arcs and a
    cylinder's rim kept clear), or the middle of a pointed or curved outline
    (:data:`POINTED_SHARE`, :data:`CURVED_TAN`); None for an external."""
    if box.external:
        return None
    x0, y0, x1, y1 = box.rect()
    lo, hi = (y0, y1) if horizontal else (x0, x1)
    if box.shape in ("diamond", "ellipse", "circle"):
        mid, half = (lo + hi) / 2, (hi - lo) / 2
        if box.shape == "diamond":
            share = POINTED_SHARE
        else:   # the normal at u (of the half-size) off the middle leans (along / across) * u / sqrt(1 - u²)
            along = (x1 - x0 if horizontal else y1 - y0) / 2
            k = CURVED_TAN * (half / along if along > 0 else 0.0)
            share = k / math.sqrt(1.0 + k * k)
        return mid - share * half, mid + share * half
    keep = LEVEL_KEEP
    if box.shape == "rounded":
        keep = max(keep, corner_radius(box))
    if box.shape == "cylinder" and horizontal:
        lo += 7.0   # its rim
    return lo + keep, hi - keep


def straight(a: Box, b: Box) -> list[tuple[float, float]]:
    """The straight connector from ``a`` to ``b``: level or upright where the boxes stand
    side by side or one above the other and their flat sides face each other over a
    stretch (as near the line between their middles as it allows), else
    :func:`centre_line`."""
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a.rect(), b.rect()
    for horizontal, apart, mid, ca, cb in (
            (True, ax1 <= bx0 or bx1 <= ax0, (a.cy + b.cy) / 2, a.cy, b.cy),
            (False, ay1 <= by0 or by1 <= ay0, (a.cx + b.cx) / 2, a.cx, b.cx)):
        fa, fb = _flat(a, horizontal), _flat(b, horizontal)
        if not apart or fa is None or fb is None:
            continue
        lo, hi = max(fa[0], fb[0]), min(fa[1], fb[1])
        if lo <= hi:
            at = min(max(mid, lo), hi)
            sign = 1 if (b.cx > a.cx if horizontal else b.cy > a.cy) else -1
            return [side_point(a, horizontal, sign, at - ca), side_point(b, horizontal, -sign, at - cb)]
    return centre_line(a, b)


def _ports(box: Box):
    """(border point, first grid point outside, heading) for each side: its middle
    and, room allowing, 10 px either way (so a route can keep off another's port)."""
    x0, y0, x1, y1 = box.rect()
    cx, cy = box.cx, box.cy
    out = []
    for off in (0.0, -10.0, 10.0):
        if off and (box.h < 36 or box.w < 36):
            continue
        out += [((x1, cy + off), (x1 + MARGIN, cy + off), 0), ((cx + off, y1), (cx + off, y1 + MARGIN), 1),
                ((x0, cy + off), (x0 - MARGIN, cy + off), 2), ((cx + off, y0), (cx + off, y0 - MARGIN), 3)]
    return out


CROSS = 150.0
RING = 28.0
REACH = 160.0        # obstacles further than this from both ends' box are not in the grid
MAX_POPS = 4000      # a search that has not arrived by then gives up (the caller keeps the line)
MAX_BLOCKED_POPS = 32000   # the same for the way round a line through a box (weighing crossings)
MAX_HASTY_POPS = 16000     # and for the search that counts no crossings (the last resort)
EXTRA_POPS = 200000  # the steps beyond MAX_POPS each that one drawing's searches may take in all
FEW = 40             # connectors a drawing may route with all of EXTRA_POPS (see Effort.to_route)
BLIND_POPS = 100000  # all the steps of a drawing's quick searches that read no ink (past 160 connectors)
HASTY_FREE = 2000    # the steps a quick search after the weighing one takes before the allowance
GIVE_UPS = 4         # weighing searches a drawing lets run out of steps before it stops asking them
HASTE = 1.5          # how hard the distance left leads a search that counts no crossings


class Effort:
    """The steps the searches of one drawing may still take beyond :data:`MAX_POPS`
    each (beyond :data:`HASTY_FREE` for the quick search after the weighing one),
    all together: a search allowed more (:data:`MAX_BLOCKED_POPS`,
    :data:`MAX_HASTY_POPS`) takes them from here, and a quick search past
    160 connectors takes every step from here, so a drawing of many connectors
    that each need a long search stays bounded work (:meth:`to_route`)."""

    __slots__ = ("left", "gave_up", "blind")

    def __init__(self, left: int = EXTRA_POPS) -> None:
        self.left = left
        self.gave_up = 0   # weighing searches that ran out of steps
        self.blind: Effort | None = None   # the allowance of the quick searches once they have

    @classmethod
    def to_route(cls, connectors: int, weigh: bool = True) -> "Effort":
        """The allowance of a drawing routing ``connectors`` connectors: all of
        :data:`EXTRA_POPS` up to :data:`FEW` of them, then less, as the square of
        FEW / connectors.  Every connector drawn after a way round a box may cross
        it, so among many of them a way round seldom stays (:func:`reconsider`: in
        the partly pinned scenes of 20 and 60 boxes, 105 of the 156 ways found with
        steps from the allowance stayed; in the quarter-pinned ones of 200 boxes, 5
        of 33).  Without ``weigh`` (quick searches only, each step from the
        allowance): :data:`BLIND_POPS`."""
        if not weigh:
            return cls(BLIND_POPS)
        return cls(EXTRA_POPS if connectors <= FEW else int(EXTRA_POPS * (FEW / connectors) ** 2))


def orthogonal(a: Box, b: Box, obstacles: list[Rect], ink: Ink | None = None, crossings: bool = True,
               limit: int = MAX_POPS, effort: Effort | None = None, free: int = MAX_POPS):
    """The cheapest orthogonal path from a side of ``a`` to a side of ``b``, or None
    when the search has not arrived after ``limit`` steps (those beyond the first
    ``free`` taken from ``effort``, when given, as far as it lasts).  See :func:`_search`."""
    return _search(a, b, obstacles, ink, crossings, limit, effort, free)[0]


def _search(a: Box, b: Box, obstacles: list[Rect], ink: Ink | None, crossings: bool, limit: int,
            effort: Effort | None, free: int, bound: float = math.inf):
    """(path, cut short): :func:`orthogonal`'s path or None, and whether the search
    stopped for its steps (rather than for having nowhere left to go cheaper than
    ``bound``, the most a path may cost: no path of the search's cost up to it
    exists when it returns None and False).

    The grid holds every obstacle edge (offset by the margin) and a ring round the
    whole drawing, so a route may go round the outside when that crosses less.
    Without ``crossings`` the ink costs only the stretches run along it, not the
    lines crossed: the cheapest path is then nearly the shortest, which the search
    (led by the distance left) finds in a few hundred steps instead of thousands."""
    starts, ends = _ports(a), _ports(b)
    zone = (min(a.x, b.x) - REACH, min(a.y, b.y) - REACH,
            max(a.x + a.w, b.x + b.w) + REACH, max(a.y + a.h, b.y + b.h) + REACH)
    obstacles = [r for r in obstacles if r[2] > zone[0] and r[0] < zone[2] and r[3] > zone[1] and r[1] < zone[3]]
    xs = {p[1][0] for p in starts + ends}
    ys = {p[1][1] for p in starts + ends}
    every = obstacles + [a.rect(), b.rect()]
    for r in every:
        xs.update((r[0] - MARGIN, r[2] + MARGIN))
        ys.update((r[1] - MARGIN, r[3] + MARGIN))
    for ring in (RING, RING + 14, RING + 28):
        xs.update((min(r[0] for r in every) - ring, max(r[2] for r in every) + ring))
        ys.update((min(r[1] for r in every) - ring, max(r[3] for r in every) + ring))
    # the grid stays inside the zone, so no box outside it can be crossed
    xs = sorted(x for x in xs if zone[0] <= x <= zone[2])
    ys = sorted(y for y in ys if zone[1] <= y <= zone[3])
    blocked = obstacles + [a.rect(), b.rect()]
    nx, ny = len(xs), len(ys)
    # grid point (i, j) is cell j * nx + i; a search state is cell * 4 + heading
    # grid points inside a box (with its margin), and grid moves through a box,
    # marked once per search from the boxes' own index ranges: ``closed_h[cell]``
    # is the move from (i, j) to (i + 1, j), ``closed_v[cell]`` to (i, j + 1)
    closed = bytearray(nx * ny)
    closed_h = bytearray(nx * ny)
    closed_v = bytearray(nx * ny)
    for r in blocked:
        i0 = bisect.bisect_right(xs, r[0] - MARGIN + 1)
        i1 = bisect.bisect_left(xs, r[2] + MARGIN - 1)
        j0 = bisect.bisect_right(ys, r[1] - MARGIN + 1)
        j1 = bisect.bisect_left(ys, r[3] + MARGIN - 1)
        for j in range(j0, j1):
            row = j * nx
            for i in range(i0, i1):
                closed[row + i] = 1
        # moves whose open segment runs through the box interior (a grid line an
        # edge of another box puts less than a pixel inside this one included)
        ri0 = bisect.bisect_right(xs, r[0])
        ri1 = bisect.bisect_left(xs, r[2])
        rj0 = bisect.bisect_right(ys, r[1])
        rj1 = bisect.bisect_left(ys, r[3])
        for j in range(rj0, rj1):            # horizontal moves on rows inside the box
            row = j * nx
            for i in range(max(0, ri0 - 1), min(nx - 1, ri1)):
                closed_h[row + i] = 1
        for i in range(ri0, ri1):            # vertical moves on columns inside the box
            for j in range(max(0, rj0 - 1), min(ny - 1, rj1)):
                closed_v[j * nx + i] = 1
    size = nx * ny
    # per heading, the cells a step that way may not leave: the edge of the grid,
    # a closed neighbour or a closed move (bytes of 0/1, combined as integers)
    last_col = (b"\x00" * (nx - 1) + b"\x01") * ny
    first_col = (b"\x01" + b"\x00" * (nx - 1)) * ny
    edge_row = b"\x01" * nx

    def either(*parts: bytes) -> bytes:
        value = 0
        for part in parts:
            value |= int.from_bytes(part, "little")
        return value.to_bytes(size, "little")

    shut = bytes(closed)
    no_move = (
        either(last_col, shut[1:] + b"\x01", closed_h),                            # right
        either(shut[nx:] + edge_row, closed_v),                                     # down
        either(first_col, b"\x01" + shut[:-1], b"\x01" + bytes(closed_h[:-1])),   # left
        either(edge_row + shut[:-nx], edge_row + bytes(closed_v[:-nx])),            # up
    )
    # what a move costs, filled in when the search first takes it (either way),
    # under the move's lower cell: along a row in cost_h, along a column in cost_v
    cost_h: list = [None] * size
    cost_v: list = [None] * size
    right_shut, down_shut, left_shut, up_shut = no_move

    def step_cost(i: int, j: int, ni: int, nj: int) -> float:
        pt, nxt = (xs[i], ys[j]), (xs[ni], ys[nj])
        extra = abs(nxt[0] - pt[0]) + abs(nxt[1] - pt[1])
        if ink is not None:
            extra += SHARED * ink.overlap(pt, nxt)
            if crossings:
                extra += CROSS * ink.crossings(pt, nxt)
        return extra

    xi = {x: i for i, x in enumerate(xs)}
    yi = {y: j for j, y in enumerate(ys)}
    tx, ty = b.cx, b.cy
    # the distance left leads the search; counting no crossings, it leads harder
    # (:data:`HASTE` times the distance), so that of the many paths of one length
    # on the grid the search follows one to the end instead of widening over all
    lead = 1.0 if crossings else HASTE
    hx = [lead * abs(x - tx) for x in xs]
    hy = [lead * abs(y - ty) for y in ys]
    # the heading the last leg must arrive with, per goal cell (-1: not a goal)
    goal = {e[1]: e for e in ends}
    arrive = [-1] * size
    for pt, e in goal.items():
        if pt[0] in xi and pt[1] in yi:
            arrive[yi[pt[1]] * nx + xi[pt[0]]] = (e[2] + 2) % 4
    inf = math.inf
    best = [inf] * (size * 4)
    came: dict[int, int] = {}
    heap: list = []
    counter = 0
    for border, first, heading in starts:
        i, j = xi[first[0]], yi[first[1]]
        if closed[j * nx + i]:
            continue
        state = (j * nx + i) * 4 + heading
        cost = MARGIN
        best[state] = cost
        came[state] = -1
        heapq.heappush(heap, (cost + (hx[i] + hy[j]), counter, cost, state))
        counter += 1
    start_border = {s[1]: s[0] for s in starts}
    found = -1
    pops = 0
    budget = limit
    if effort is not None and limit > free:
        budget = free + min(limit - free, max(0, effort.left))
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        pops += 1
        if pops > budget:
            break
        ahead, _, cost, state = pop(heap)
        if ahead > bound:   # every path on from here costs more
            continue
        if best[state] < cost:
            continue
        cell, heading = state >> 2, state & 3
        if arrive[cell] == heading:   # the last leg enters the target head-on
            found = state
            break
        j, i = divmod(cell, nx)
        # the four steps, written out (this loop is the router's hot path): right,
        # down, left, up; never straight back, never out of a blocked cell
        if heading != 2 and not right_shut[cell]:
            extra = cost_h[cell]
            if extra is None:
                extra = cost_h[cell] = step_cost(i, j, i + 1, j)
            c = cost + extra + (BEND if heading != 0 else 0.0)
            ns = (cell + 1) * 4
            if c < best[ns] - 1e-9:
                best[ns] = c
                came[ns] = state
                push(heap, (c + (hx[i + 1] + hy[j]), counter, c, ns))
                counter += 1
        if heading != 3 and not down_shut[cell]:
            extra = cost_v[cell]
            if extra is None:
                extra = cost_v[cell] = step_cost(i, j, i, j + 1)
            c = cost + extra + (BEND if heading != 1 else 0.0)
            ns = (cell + nx) * 4 + 1
            if c < best[ns] - 1e-9:
                best[ns] = c
                came[ns] = state
                push(heap, (c + (hx[i] + hy[j + 1]), counter, c, ns))
                counter += 1
        if heading != 0 and not left_shut[cell]:
            extra = cost_h[cell - 1]
            if extra is None:
                extra = cost_h[cell - 1] = step_cost(i, j, i - 1, j)
            c = cost + extra + (BEND if heading != 2 else 0.0)
            ns = (cell - 1) * 4 + 2
            if c < best[ns] - 1e-9:
                best[ns] = c
                came[ns] = state
                push(heap, (c + (hx[i - 1] + hy[j]), counter, c, ns))
                counter += 1
        if heading != 1 and not up_shut[cell]:
            extra = cost_v[cell - nx]
            if extra is None:
                extra = cost_v[cell - nx] = step_cost(i, j, i, j - 1)
            c = cost + extra + (BEND if heading != 3 else 0.0)
            ns = (cell - nx) * 4 + 3
            if c < best[ns] - 1e-9:
                best[ns] = c
                came[ns] = state
                push(heap, (c + (hx[i] + hy[j - 1]), counter, c, ns))
                counter += 1
    if effort is not None and min(pops, budget) > free:
        effort.left -= min(pops, budget) - free
    if found < 0:
        return None, pops > budget
    pts = []
    s = found
    while s >= 0:
        j, i = divmod(s >> 2, nx)
        pts.append((xs[i], ys[j]))
        s = came[s]
    pts.reverse()
    path = [start_border[pts[0]], *pts, goal[pts[-1]][0]]
    return simplify(path), False


def simplify(pts):
    """Drop repeated and collinear interior points."""
    out = [pts[0]]
    for p in pts[1:]:
        if abs(p[0] - out[-1][0]) < 1e-6 and abs(p[1] - out[-1][1]) < 1e-6:
            continue
        if len(out) >= 2:
            a, b = out[-2], out[-1]
            cross = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
            dot = (b[0] - a[0]) * (p[0] - b[0]) + (b[1] - a[1]) * (p[1] - b[1])
            if abs(cross) < 1e-6 and dot >= 0:
                out[-1] = p
                continue
        out.append(p)
    return out


def _cost(points, ink: Ink | None) -> float:
    total = 0.0
    for p, q in zip(points, points[1:]):
        total += math.sqrt((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2)
        if ink is not None:
            total += CROSS * ink.crossings(p, q)
    return total + BEND * (len(points) - 2)


CLEAR = 0.0   # how far a straight connector keeps off other boxes: it may touch an outline, not enter it
# the search weighing crossings for a way round a box looks no further than the paths that
# could still win (:func:`detour`): up to this many times the distance between the two
# boxes' centres (level plus upright), this many px more, and the bends
DETOUR_SPAN = 2.0
DETOUR_SLACK = 400.0
DETOUR_BENDS = 6


def route_free(a: Box, b: Box, obstacles: list[Rect], ink: Ink | None = None,
               detours: bool = True, effort: Effort | None = None, offers: list | None = None):
    """A connector between two author-placed boxes that meets no other box: the
    straight line when it keeps :data:`CLEAR` off every other box (the 2 px
    forgiven elsewhere would let it cut a box's corner), unless going round
    (orthogonally) crosses less ink; otherwise a path round them (:func:`detour`)
    when that costs the layout less than the line through them.

    Without ``detours`` (a drawing with too many connectors to weigh each one's
    crossings) a clear line is kept as it is, and one through a box goes round by
    the quick search that reads no ink.  ``offers``: see :func:`detour`."""
    line = straight(a, b)
    clear = not path_hits(line, obstacles, -CLEAR)
    if clear and (not detours or ink is None or not ink.segments or ink_crossings(line, ink) == 0):
        return line
    if not clear:
        path = detour(a, b, obstacles, ink, detours, effort, line, offers)
        return line if path is None else path
    path = orthogonal(a, b, obstacles, ink)
    if path is None or _cost(line, ink) <= _cost(path, ink) + 40:
        return line
    return path


def detour(a: Box, b: Box, obstacles: list[Rect], ink: Ink | None, weigh: bool = True,
           effort: Effort | None = None, line=None, offers: list | None = None):
    """An orthogonal path from ``a`` to ``b`` round ``obstacles`` in place of ``line``
    (the straight one by default), which runs through one of them; or None.

    The path is kept only when it costs less than the line, over the ink drawn so far
    (:meth:`Ink.score`): the line counts :data:`THROUGH_BOX` for the box and 2 for each
    line it crosses or comes to run along, the path 2 for each of its own.  A way round
    that crosses some twenty lines more than the line does is no gain.

    ``weigh``: the search that counts the ink's crossings and runs, allowed
    :data:`MAX_BLOCKED_POPS` steps (a long way over a crowded drawing needs
    many: every crossing costs far more than the distance that leads the search)
    and looking only at paths that could win (their crossings at most the most a
    winner has, and their length within :data:`DETOUR_SPAN` times the boxes'
    distance and :data:`DETOUR_SLACK`); when it runs out of steps, the quick one
    that counts only the runs; once :data:`GIVE_UPS` weighing searches of the
    drawing have run out of steps, it is too crowded for them and the quick search
    reading no ink takes over, out of an allowance of its own (``effort.blind``).
    Otherwise the quick search alone, reading no ink.
    Steps beyond :data:`MAX_POPS` come out of ``effort``; for the quick search
    alone, every step (a drawing with hundreds of connectors to take round boxes
    can afford that much in all, not a search's worth for each).

    ``offers``, when given, gets (line, path) for a path found, kept or not, so the
    choice can be weighed again once every line is drawn."""
    if line is None:
        line = straight(a, b)
    if weigh and effort is not None and effort.gave_up >= GIVE_UPS:
        # a drawing too crowded for the weighing search: from here on the quick search
        # reading no ink, as past 160 connectors, out of an allowance of its own
        if effort.blind is None:
            effort.blind = Effort(BLIND_POPS)
        weigh, effort = False, effort.blind
    if not weigh and effort is not None and effort.left <= 0:
        return None   # the drawing's allowance is spent: the line stays
    stake = None if ink is None else ink.score(line, True)
    if weigh:
        bound = math.inf
        if stake is not None:
            # a winner scores less than the line: it crosses at most (stake - 1) // 2 lines
            reach = abs(a.cx - b.cx) + abs(a.cy - b.cy)
            bound = CROSS * ((stake - 1) // 2) + DETOUR_SPAN * reach + DETOUR_SLACK + BEND * DETOUR_BENDS
        path, short = _search(a, b, obstacles, ink, True, MAX_BLOCKED_POPS, effort, MAX_POPS, bound)
        if path is None and short:
            if effort is not None:
                effort.gave_up += 1
            path = orthogonal(a, b, obstacles, ink, False, MAX_HASTY_POPS, effort, HASTY_FREE)
    else:
        path = orthogonal(a, b, obstacles, None, False, MAX_HASTY_POPS, effort, free=0)
    if path is None or stake is None:
        return path
    if offers is not None:
        offers.append((line, path))
    if ink.score(path, False) >= stake:
        return None
    return path


def ink_crossings(points, ink: Ink) -> int:
    return sum(ink.crossings(p, q) for p, q in zip(points, points[1:]))


class Drawing:
    """Every connector of a finished drawing, for weighing one's line against another
    over all the others (:func:`reconsider`): the ink as it was (``start``), the
    lines taken out of it since (``gone``) and those put in (``put``), so a count is
    start's - gone's + put's; and which lines run along which."""

    def __init__(self, paths: dict) -> None:
        self.paths = dict(paths)
        self.start, self.gone, self.put = Ink(), Ink(), Ink()
        for key, points in self.paths.items():
            self.start.add(points, key)
        self.partners = {key: set(found) for key, found in self.start.partners.items()}
        self.replaced: set = set()
        self.known: dict[int, tuple] = {}   # id(points) -> (points, crossings, runs) over ``start``

    def _over_start(self, points) -> tuple:
        known = self.known.get(id(points))
        if known is None or known[0] is not points:
            known = self.known[id(points)] = (points, ink_crossings(points, self.start),
                                              self.start.coincident(points))
        return known

    def _crossings(self, points, key) -> int:
        count = self._over_start(points)[1]
        if self.replaced:
            count += ink_crossings(points, self.put) - ink_crossings(points, self.gone)
        mine = self.paths[key]
        return count - sum(segments_cross(p, q, c, d) for p, q in zip(points, points[1:]) for c, d in zip(mine, mine[1:]))

    def _met(self, points, key) -> set:
        met = self._over_start(points)[2] - self.replaced
        if self.replaced:   # the lines put in since, but only as they are now drawn
            met |= {other for other in self.put.coincident(points) if _runs_along(points, self.paths[other])}
        met.discard(key)
        return met

    def score(self, key, points, through: bool) -> int:
        """:meth:`Ink.score` of ``points`` in place of ``key``'s line, over all the others."""
        met = self._met(points, key)
        alone = sum(1 for other in met if not (self.partners.get(other, set()) - {key}))
        return THROUGH_BOX * through + 2 * self._crossings(points, key) + 2 * ((1 if met else 0) + alone)

    def swap(self, key, points) -> None:
        """Draw ``points`` as ``key``'s line instead of the one it has."""
        for other in self.partners.pop(key, set()):
            self.partners[other].discard(key)
        met = self._met(points, key)
        self.gone.add(self.paths[key], key)
        self.put.add(points, key)
        self.replaced.add(key)
        self.paths[key] = points
        if met:
            self.partners[key] = set(met)
            for other in met:
                self.partners.setdefault(other, set()).add(key)


REWEIGH_ROUNDS = 2


def reconsider(paths: dict, offers: dict) -> None:
    """Once every connector is drawn, weigh again each one that had a line through a
    box and a way round it (``offers``: key -> (line, way round)): it takes the one
    that costs the whole drawing less by bench/figdown_layout.py's weights.  While
    routing, a choice saw only the lines drawn before it; a way round is longer than
    the line, and the lines drawn after may cross it.  Rounds over the offers (in
    their order) until none changes, at most :data:`REWEIGH_ROUNDS`; after the
    first, only the offers whose line or way round crosses or runs along a line
    that changed are weighed again (no other's weights moved)."""
    if not offers:
        return
    drawing = Drawing(paths)
    todo = list(offers.items())
    for _ in range(REWEIGH_ROUNDS):
        changed = Ink()
        for key, (line, way) in todo:
            current = drawing.paths[key]
            if current is not line and current is not way:
                continue   # drawn otherwise since (several links between one pair)
            better = way if drawing.score(key, way, False) < drawing.score(key, line, True) else line
            if better is not current:
                changed.add(current)
                changed.add(better)
                drawing.swap(key, better)
                paths[key] = better
        if not changed.segments:
            break
        todo = [(key, pair) for key, pair in offers.items()
                if any(ink_crossings(points, changed) or changed.coincident(points) for points in pair)]
