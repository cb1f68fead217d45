"""Where each group band's name goes, once the connectors are routed.

A band's name is written along its top, inside the band's padding, in a strip
between :data:`STRIP_TOP` and :data:`STRIP_BOTTOM` below the band's edge.  A
connector running down into a band's top row passes through that strip, and in a
narrow band (one column of boxes) the name has no clear stretch beside it.  The name
therefore takes the first place along the strip that no connector, arrowhead, box,
external name, other band or other band name meets:

1. its usual place, :data:`INSET` in from the band's left, when the band is wide enough;
2. else another place inside the band's width (beside the lines that cross the strip);
3. else a place just past the band's width, the drawn band widening to hold it (by as
   little as will do, never more than the name's width plus twice :data:`INSET`), if the
   room it takes is empty: no box, no other band (a band it sits inside must still
   hold it), and no connector but one that ends inside the band anyway;
4. else the right-hand place when only that is clear, or the place inside the band's width
   that the fewest lines and things cross, the usual one of equals (the name is crossed:
   no box moves for a name); a name wider than its band is then cut short
   with "…" to the band's width, the whole name in the drawing's ``<title>`` (it ran on
   under the next band, or off the canvas): measured in the widest common face
   (:func:`~..text.face_px`), not by the layout's table of units, which takes every
   Latin letter for an average one (a name of 262 px by that table was 241 px in a
   browser, and fitted).

The band's own rectangle (``Group.box``, the one every geometry check reads) never
changes; only its drawn outline widens, so a check and a build report the same.
"""

from __future__ import annotations

from ..text import face_px, label_px, shorten
from .graph import Scene, arrowheads
from .names import external_names
from .squares import SquareIndex

TITLE_FS = 11.5        # the band name's size (px)
BASELINE = 16.0        # its baseline below the band's top edge
STRIP_TOP = BASELINE - TITLE_FS   # the strip the name takes, measured from the band's top
STRIP_BOTTOM = BASELINE + 3.0
INSET = 10.0           # from the band's side to the name
CLEAR = 2.0            # between the name and a line or box beside it, at least
BESIDE = 5.0           # between a moved name and the line or box it is moved beside
ROOM_CLEAR = 4.0       # between a widened band and a box or band beside it
CELL = 96.0            # side of a square of the index of what a name may meet
MOST_SQUARES = 256     # an item over more squares than this (a long line) is read by every question


class Title:
    """A placed band name: its left end and the drawn band's widening on each side,
    all relative to the band's rectangle (so moving the scene moves them too)."""

    __slots__ = ("at", "left", "right", "anchor", "shown")

    def __init__(self, at: float, left: float = 0.0, right: float = 0.0, anchor: str | None = None,
                 shown: str | None = None):
        self.at, self.left, self.right, self.anchor = at, left, right, anchor
        self.shown = shown   # the name cut short to the band's width, when it is

    def x(self, box) -> float:
        """The text's x (its left end, or its right end when anchored at the end)."""
        return box[0] + self.at

    def drawn(self, box):
        """The band's drawn rectangle."""
        x0, y0, x1, y1 = box
        return x0 - self.left, y0, x1 + self.right, y1


def place(scene: Scene, widen: bool = True) -> None:
    """Give each named group band a :class:`Title` (``Group.title``), in declaration order.
    ``widen=False`` keeps every drawn band to its rectangle (a figure with lassos: they are
    fitted round the bands as they stand)."""
    named = [g for g in scene.groups.values() if g.box is not None and g.label]
    for g in scene.groups.values():
        g.title = None
    if not named:
        return
    # only what lies near a named band can meet its name or its widening
    reach = max(label_px(g.label, TITLE_FS) for g in named) + 2 * INSET + ROOM_CLEAR
    zone = (min(g.box[0] for g in named) - reach, min(g.box[1] for g in named) - reach,
            max(g.box[2] for g in named) + reach, max(g.box[3] for g in named) + reach)

    def near(r) -> bool:
        return r[0] <= zone[2] and r[2] >= zone[0] and r[1] <= zone[3] and r[3] >= zone[1]

    world = SquareIndex(CELL, MOST_SQUARES)   # what a name or a widening may meet, by place
    for link in scene.links:
        for p, q in zip(link.points, link.points[1:]):
            r = (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]))
            if near(r):
                world.add(("line", p, q, link), r)
    for link, head in arrowheads(scene):   # wider than its line, it may reach the strip from below
        for p, q in zip(head, head[1:] + head[:1]):   # its sides bound it, as a line's run does
            r = (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]))
            if near(r):
                world.add(("line", p, q, link), r)
    for nid, where in external_names(scene).items():
        if near(where[3]):
            world.add(("thing", where[3]), where[3])
    for n in scene.nodes.values():
        if not n.external and n.w > 0 and n.h > 0 and near(n.rect()):
            world.add(("thing", n.rect()), n.rect())
    # bands are read plainly: a group's members may lie far apart, and its band over
    # thousands of squares would make the index cost more than it saves
    bands = [g for g in scene.groups.values() if g.box is not None]
    for g in named:
        g.title = _place_one(g, world, bands, widen)
        x = g.title.x(g.box)
        width = label_px(g.title.shown or g.label, TITLE_FS)
        lo = x - width if g.title.anchor == "end" else x
        name = (lo, g.box[1] + STRIP_TOP, lo + width, g.box[1] + STRIP_BOTTOM)
        world.add(("thing", name), name)


def _place_one(g, world: SquareIndex, bands: list, widen: bool) -> Title:
    x0, y0, x1, y1 = g.box
    width = label_px(g.label, TITLE_FS)
    top, bottom = y0 + STRIP_TOP, y0 + STRIP_BOTTOM
    reach = width + 2 * INSET
    lo_min, hi_max = x0 - reach, x1 + reach
    others = []
    for o in bands:
        if o is g:
            continue
        if _holds(o.box, g.box):   # a band this one sits in bounds its widening
            lo_min, hi_max = max(lo_min, o.box[0] + ROOM_CLEAR), min(hi_max, o.box[2] - ROOM_CLEAR)
        else:
            others.append(o.box)
    blocked = _strip_blocks(world, others, top, bottom, lo_min, hi_max)

    def clear(lo: float) -> bool:
        return all(lo + width + CLEAR <= a or lo - CLEAR >= b for a, b in blocked)

    home, right_home = x0 + INSET, x1 - INSET - width
    fits = home + width + INSET <= x1 + 1e-9
    if fits and clear(home):
        return Title(INSET)
    cands = {home, right_home}
    for a, b in blocked:
        cands.add(b + BESIDE)
        cands.add(a - BESIDE - width)
    members = set(g.members)
    ranked = []
    for lo in cands:
        left, right = max(0.0, x0 - (lo - INSET)), max(0.0, (lo + width + INSET) - x1)
        if x0 - left < lo_min - 1e-9 or x1 + right > hi_max + 1e-9 or not clear(lo):
            continue
        if left + right > 0 and not widen:
            continue
        ranked.append((round(left + right, 6), abs(lo - home), lo, left, right))
    for cost, _, lo, left, right in sorted(ranked):
        if cost == 0 or _room_empty(members, world, others, (x0 - left, y0, x0, y1)) \
                and _room_empty(members, world, others, (x1, y0, x1 + right, y1)):
            return Title(lo - x0, left, right)
    if fits and not clear(home) and clear(right_home):
        return Title(x1 - INSET - x0, anchor="end")
    if fits:
        # struck wherever it goes: where the fewest lines and things cross it, inside the band
        def crossed(lo: float) -> int:
            return sum(1 for a, b in blocked if not (lo + width + CLEAR <= a or lo - CLEAR >= b))
        inside = [lo for lo in cands if home - 1e-9 <= lo <= right_home + 1e-9]
        lo = min(inside, key=lambda lo: (crossed(lo), abs(lo - home), lo))
        if lo == right_home and lo != home:
            return Title(x1 - INSET - x0, anchor="end")
        return Title(lo - x0)
    room = x1 - x0 - 2 * INSET
    shown = shorten(g.label, lambda px: px <= room, lambda ch: face_px(ch, TITLE_FS))
    return Title(INSET, shown=None if shown == g.label else shown)


def _holds(outer, inner) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and outer[2] >= inner[2] and outer[3] >= inner[3]


def _strip_blocks(world: SquareIndex, others: list, top, bottom, lo, hi) -> list[tuple[float, float]]:
    """The stretches of the strip ``top``–``bottom`` (between x ``lo`` and ``hi``) that a
    connector, a box, an external's name, another name or another band (``others``: the
    bands this one does not sit in) takes."""
    out = [(b[0], b[2]) for b in others if b[3] >= top and b[1] <= bottom and b[2] >= lo and b[0] <= hi]
    for item in world.near(lo, top, hi, bottom):
        kind, rect = item[0], item[1]
        if kind == "line":
            span = _x_within(item[1], item[2], top, bottom)
            if span is not None:
                out.append(span)
            continue
        if rect[3] >= top and rect[1] <= bottom:
            out.append((rect[0], rect[2]))
    return out


def _x_within(p, q, top: float, bottom: float) -> tuple[float, float] | None:
    """The x-range of segment ``p``–``q`` between the heights ``top`` and ``bottom``."""
    (px, py), (qx, qy) = p, q
    if py == qy:
        return (min(px, qx), max(px, qx)) if top <= py <= bottom else None
    t0, t1 = (top - py) / (qy - py), (bottom - py) / (qy - py)
    t0, t1 = max(0.0, min(t0, t1)), min(1.0, max(t0, t1))
    if t0 > t1:
        return None
    xa, xb = px + (qx - px) * t0, px + (qx - px) * t1
    return min(xa, xb), max(xa, xb)


def _room_empty(members: set, world: SquareIndex, others: list, room) -> bool:
    """Is the stretch ``room`` a widened band would take free of boxes, names, other bands
    (but one this band sits in) and connectors that do not end in the band?"""
    rx0, ry0, rx1, ry1 = room
    if rx1 - rx0 <= 0:
        return True
    gx0, gy0, gx1, gy1 = rx0 - ROOM_CLEAR, ry0 - ROOM_CLEAR, rx1 + ROOM_CLEAR, ry1 + ROOM_CLEAR
    if any(bx0 < gx1 and bx1 > gx0 and by0 < gy1 and by1 > gy0 for bx0, by0, bx1, by1 in others):
        return False
    for item in world.near(gx0, gy0, gx1, gy1):
        kind = item[0]
        if kind == "line":
            link = item[3]
            if link.a in members or link.b in members:
                continue
            span = _x_within(item[1], item[2], ry0, ry1)
            if span is not None and span[1] > rx0 and span[0] < rx1:
                return False
            continue
        bx0, by0, bx1, by1 = item[1]
        if bx0 < gx1 and bx1 > gx0 and by0 < gy1 and by1 > gy0:
            return False
    return True
