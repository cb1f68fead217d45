"""Bundles (lassos), notes, and the shift that keeps all ink on the canvas.

A bundle's *lasso* is a ring the member links run through: it sits where the
members share their run, narrow along the links and long across them, and is
shrunk (or, as a last resort, drawn axis-aligned round the members'
midpoints) so it touches no box; a ring that still encloses a non-member, or
that one of its member links does not run through, is fitted afresh by
:func:`.lassos.refit`.  A caption standing off its ring is tied to it by a
leader.  A one-member bundle draws no ring, only its caption beside the link.
Orientation uses only square roots: the half-angle of the members' mean
doubled direction is taken by the half-angle identities, and the printed
rotation is rounded to 1/1000 degree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..text import note_size
from .graph import Scene
from .free import seg_hits_rect
from .labels import Board, Label, measure, seg_dist
from .squares import SquareIndex

RING_ALONG, RING_ACROSS, RING_LONG, RING_FAN, RING_FLOOR = 15.0, 20.0, 34.0, 2.0, 7.0


@dataclass
class Ring:
    id: str
    line: int
    members: set[str]
    cx: float
    cy: float
    ux: float
    uy: float
    r_along: float
    r_across: float
    solo: bool = False
    colour: str = "#64748b"
    style: str | None = None
    caption: str | None = None
    label: Label | None = None
    leader: tuple | None = None   # from the caption to the ring, where it stands off it
    links: list = field(default_factory=list, repr=False)   # the member links drawn

    def norm(self, px: float, py: float) -> float:
        dx, dy = px - self.cx, py - self.cy
        a = (self.ux * dx + self.uy * dy) / self.r_along
        b = (-self.uy * dx + self.ux * dy) / self.r_across
        return math.sqrt(a * a + b * b)

    def inside(self, px: float, py: float) -> bool:
        return self.norm(px, py) <= 1

    @property
    def degrees(self) -> float:
        return math.degrees(math.atan2(self.uy, self.ux))

    def half_extent(self) -> tuple[float, float]:
        hw = math.sqrt((self.r_along * self.ux) ** 2 + (self.r_across * self.uy) ** 2)
        hh = math.sqrt((self.r_along * self.uy) ** 2 + (self.r_across * self.ux) ** 2)
        return hw, hh


def _hits_box(ring: Ring, r_along: float, box) -> bool:
    """Does the ring's disc meet the rectangle? (sampled outline + centre test)"""
    x0, y0, x1, y1 = box
    if x0 <= ring.cx <= x1 and y0 <= ring.cy <= y1:
        return True
    saved = ring.r_along
    ring.r_along = r_along
    try:
        steps = 8
        for i in range(steps + 1):
            t = i / steps
            for px, py in ((x0 + (x1 - x0) * t, y0), (x0 + (x1 - x0) * t, y1),
                           (x0, y0 + (y1 - y0) * t), (x1, y0 + (y1 - y0) * t)):
                if ring.norm(px, py) < 1:
                    return True
        # the ring's own extreme points inside the box
        for s in (-1, 1):
            for px, py in ((ring.cx + s * r_along * ring.ux, ring.cy + s * r_along * ring.uy),
                           (ring.cx - s * ring.r_across * ring.uy, ring.cy + s * ring.r_across * ring.ux)):
                if x0 < px < x1 and y0 < py < y1:
                    return True
        return False
    finally:
        ring.r_along = saved


def _link_index(scene: Scene) -> tuple[dict, dict]:
    """The scene's links by their key and by their (unordered) pair of ends,
    each list in document order; self-loops have no pair."""
    by_key: dict[str, list] = {}
    by_pair: dict[frozenset, list] = {}
    for lk in scene.links:
        by_key.setdefault(lk.key, []).append(lk)
        if lk.a != lk.b:
            by_pair.setdefault(frozenset((lk.a, lk.b)), []).append(lk)
    return by_key, by_pair


def _member_links(index: tuple[dict, dict], member: str):
    by_key, by_pair = index
    if "--" in member:
        a, b = member.split("--", 1)
        return by_pair.get(frozenset((a, b)), []) if a != b else []
    return by_key.get(member, [])


def _middle(points):
    """The segment holding the middle of the polyline's length."""
    lengths = [math.sqrt((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2) for p, q in zip(points, points[1:])]
    half, run = sum(lengths) / 2, 0.0
    for (p, q), length in zip(zip(points, points[1:]), lengths):
        run += length
        if run >= half and length > 0:
            return p, q
    return _longest(points)


def _longest(points):
    best, segment = -1.0, None
    for p, q in zip(points, points[1:]):
        d = (q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2
        if d > best:
            best, segment = d, (p, q)
    return segment


def captions(rings: list[Ring], board: Board) -> None:
    """Each ring's caption placed beside it, on the board."""
    for ring in rings:
        if ring.caption:
            _caption(ring, ring.caption, board)


def rings_of(scene: Scene, model: dict) -> list[Ring]:
    """The rings alone (no captions): what the lasso pass and the check look at."""
    rings = []
    boxes = [n.rect() for n in scene.nodes.values() if not n.external]
    index = _link_index(scene)
    lines = None
    for bundle in model.get("bundles", ()):
        segs, members, links = [], set(), []
        for member in bundle.get("members", ()):
            for link in _member_links(index, member):
                seg = _middle(link.points) if len(link.points) >= 2 else None
                if seg is None:
                    continue
                (px, py), (qx, qy) = seg
                if (qx - px) ** 2 + (qy - py) ** 2 > 1e-12:
                    segs.append(seg)
                    links.append(link)
                    members.update((link.a, link.b))
        if not segs:
            continue
        ring = _ring(bundle, segs, members, boxes)
        if lines is None:   # every connector's segments, by place, once a figure has a ring
            lines = SquareIndex(RING_CELL, RING_SQUARES)
            for lk in scene.links:
                for p, q in zip(lk.points, lk.points[1:]):
                    lines.add((lk.index, p, q), (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1])))
        _keep_out(ring, segs, {lk.index for lk in links}, lines)
        ring.links = links
        ring.caption = bundle.get("label") or None
        rings.append(ring)
    return rings


def _ring(bundle: dict, segs, members: set[str], boxes) -> Ring:
    c2 = s2 = 0.0
    for (px, py), (qx, qy) in segs:
        length = math.sqrt((qx - px) ** 2 + (qy - py) ** 2)
        c, s = (qx - px) / length, (qy - py) / length
        c2 += c * c - s * s
        s2 += 2 * c * s
    norm = math.sqrt(c2 * c2 + s2 * s2)
    if norm < 1e-9:
        (px, py), (qx, qy) = segs[0]
        length = math.sqrt((qx - px) ** 2 + (qy - py) ** 2)
        ux, uy = (qx - px) / length, (qy - py) / length
    else:
        cc = c2 / norm
        ux = math.sqrt(max(0.0, (1 + cc) / 2))
        uy = math.sqrt(max(0.0, (1 - cc) / 2))
        if s2 < 0:
            uy = -uy
    vx, vy = -uy, ux
    spans = []
    for p, q in segs:
        a, b = ux * p[0] + uy * p[1], ux * q[0] + uy * q[1]
        spans.append((a, b, p, q) if a <= b else (b, a, q, p))
    lo = max(z[0] for z in spans)
    hi = min(z[1] for z in spans)
    s = (lo + hi) / 2 if lo < hi else sum((z[0] + z[1]) / 2 for z in spans) / len(spans)
    pts = []
    for a, b, p, q in spans:
        f = min(1.0, max(0.0, (s - a) / ((b - a) or 1.0)))
        pts.append((p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f))
    cx = sum(p[0] for p in pts) / len(pts)
    cy = sum(p[1] for p in pts) / len(pts)
    spread = max(abs(vx * (p[0] - cx) + vy * (p[1] - cy)) for p in pts)
    run_half = min(min(s - z[0], z[1] - s) for z in spans)
    if spread < RING_FAN:
        r_along = max(RING_ALONG, min(RING_LONG, max(0.0, run_half)))
        r_across = RING_ACROSS
    else:
        r_along = RING_ALONG
        r_across = max(spread + RING_ACROSS, RING_LONG)
    ring = Ring(bundle["id"], bundle.get("line", 0), members, cx, cy, ux, uy, r_along, r_across,
                colour=bundle.get("stroke") or "#64748b", style=bundle.get("style"))
    if len(segs) == 1:
        ring.solo = True
        ring.r_across = 4.0
        return ring
    if any(_hits_box(ring, r_along, b) for b in boxes):
        for k in range(1, 25):
            candidate = r_along - (r_along - RING_FLOOR) * k / 24
            if not any(_hits_box(ring, candidate, b) for b in boxes):
                ring.r_along = candidate
                return ring
        # no squeeze clears the boxes: an upright ring round the links' midpoints
        mids = [((p[0] + q[0]) / 2, (p[1] + q[1]) / 2) for p, q in segs]
        mx = sum(m[0] for m in mids) / len(mids)
        my = sum(m[1] for m in mids) / len(mids)
        ring.cx, ring.cy, ring.ux, ring.uy = mx, my, 1.0, 0.0
        ring.r_along = max(46.0, max(abs(m[0] - mx) for m in mids) + 38)
        ring.r_across = max(26.0, max(abs(m[1] - my) for m in mids) + 22)
    return ring


RING_CLEAR = 3.0   # between a ring and a line it does not hold


RING_CELL, RING_SQUARES = 96.0, 256   # the index of the connectors' segments a ring keeps out


def _keep_out(ring: Ring, segs, held: set, lines) -> None:
    """Narrow a ring across its links until no other connector's line crossing its
    middle lies inside it (two bundles on one pair of routers each drew a ring round
    all four links), never narrower than its own links and :data:`RING_CLEAR` beside
    them."""
    if getattr(ring, "solo", False):
        return
    vx, vy = -ring.uy, ring.ux
    spread = max(abs(vx * (p[0] - ring.cx) + vy * (p[1] - ring.cy)) for seg in segs for p in seg)
    crossing = [abs(t) for p, q in segs for t in (_across_at(ring, vx, vy, p, q),) if t is not None]
    floor = (max(crossing) if crossing else spread) + RING_CLEAR   # its own lines, held
    limit = ring.r_across
    r = max(ring.r_along, ring.r_across) + RING_CLEAR
    for key, p, q in lines.near(ring.cx - r, ring.cy - r, ring.cx + r, ring.cy + r):
        if key in held:
            continue
        t = _across_at(ring, vx, vy, p, q)
        if t is not None and abs(t) < limit + RING_CLEAR:
            limit = min(limit, abs(t) - RING_CLEAR)
    ring.r_across = max(floor, min(ring.r_across, limit))


def _across_at(ring: Ring, vx: float, vy: float, p, q) -> float | None:
    """Where segment p–q crosses the ring's across axis (through its centre), as a
    distance along that axis, or None when it does not cross within the ring's length."""
    ux, uy = ring.ux, ring.uy
    ap = ux * (p[0] - ring.cx) + uy * (p[1] - ring.cy)   # along-axis coordinates
    aq = ux * (q[0] - ring.cx) + uy * (q[1] - ring.cy)
    if (ap > 0) == (aq > 0) and ap != 0 and aq != 0:
        return None
    f = ap / (ap - aq) if ap != aq else 0.0
    x, y = p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f
    return vx * (x - ring.cx) + vy * (y - ring.cy)


CAPTION_CROWDED = 200.0   # a caption place costing this or more covers a box, a label or a line
CAPTION_TURNS = 16        # directions round the ring tried when both sides across it are crowded
#: A caption whose letters stand farther than this (px) from its ring is tied to it by a
#: leader (in a crowded bundle the nearest free place was 40-60 px off, beside a box, and
#: read as that box's caption); each line such a leader crosses costs the place this much,
#: and each box or label it runs through as much as a note's leader does.
CAPTION_LEADER = 16.0
CAPTION_CROSSING = 5.0


def _ring_towards(ring: Ring, px: float, py: float) -> tuple[float, float]:
    """The point of the ring's outline on the way from its middle to (px, py)."""
    dx, dy = px - ring.cx, py - ring.cy
    d = math.sqrt(dx * dx + dy * dy)
    if d < 1e-9:
        return ring.cx, ring.cy
    dx, dy = dx / d, dy / d
    a, b = dx * ring.ux + dy * ring.uy, -dx * ring.uy + dy * ring.ux
    t = 1.0 / math.sqrt((a / ring.r_along) ** 2 + (b / ring.r_across) ** 2)
    return ring.cx + dx * t, ring.cy + dy * t


def caption_leader(ring: Ring, cx: float, cy: float, w: float, h: float, clear=None):
    """The leader from a w × h caption centred at (cx, cy) to its ring, or None where the
    two are within :data:`CAPTION_LEADER` of each other: from the caption's edge, 2 px
    off, to 2 px short of the ring's outline on the way to the ring's middle; from the
    edge on the line between their middles, or else (where that one is not ``clear``,
    a test of its two ends) from the nearest of the caption's corners that is."""
    qx, qy = _ring_towards(ring, cx, cy)
    dx, dy = qx - cx, qy - cy
    d = math.sqrt(dx * dx + dy * dy)
    if d < 1e-9:
        return None
    ux, uy = dx / d, dy / d
    out = min(w / 2 / abs(ux) if abs(ux) > 1e-9 else math.inf,
              h / 2 / abs(uy) if abs(uy) > 1e-9 else math.inf)
    if d - out <= CAPTION_LEADER:
        return None
    starts = [(cx + ux * out, cy + uy * out)]
    if clear is not None:
        corners = [(cx + sx * w / 2, cy + sy * h / 2) for sx in (-1, 1) for sy in (-1, 1)]
        starts += sorted(corners, key=lambda c: (c[0] - ring.cx) ** 2 + (c[1] - ring.cy) ** 2)
    first = None
    for px, py in starts:
        qx, qy = _ring_towards(ring, px, py)
        dx, dy = qx - px, qy - py
        d = math.sqrt(dx * dx + dy * dy)
        if d < 1e-9:
            continue
        ux, uy = dx / d, dy / d
        leader = (px + ux * 2, py + uy * 2), (qx - ux * 2, qy - uy * 2)
        if clear is None or clear(*leader):
            return leader
        first = first or leader
    return first


def _caption(ring: Ring, text: str, board: Board) -> None:
    """A ring's caption beside it: across the ring from its links, on either side, a
    little further out when crowded; and when every one of those places covers a box, a
    label or a line, all round the ring, up to 64 px beyond it (a tilted ring's two
    sides both fell on boxes, and "Into Leaf 1" was written over "Leaf 2"; among a
    switch pair's lines every place within 28 px was taken).  A caption standing off
    its ring is tied to it by a leader (:func:`caption_leader`; a one-member bundle's,
    drawing no ring, is not), and a place whose leader runs through a box costs what a
    note's does.  A line along the foot or the tops of its letters counts as for a
    connector's label (a peer link ran 2 px under "Po20 (LACP)")."""
    lab = Label(text, 11.5, colour=ring.colour)
    lab.w, lab.h = measure(text, 11.5)
    vx, vy = -ring.uy, ring.ux
    best = None

    def clear(p, q) -> bool:
        return board.passes(p, q) == 0

    def tie(cx: float, cy: float):   # (a one-member bundle draws no ring to tie it to)
        return None if ring.solo else caption_leader(ring, cx, cy, lab.w, lab.h, clear)

    def consider(cx: float, cy: float, extra_cost: float) -> None:
        nonlocal best
        r = (cx - lab.w / 2, cy - lab.h / 2, cx + lab.w / 2, cy + lab.h / 2)
        c = board.cost(r, None, (ring.cx, ring.cy), graze=True) + extra_cost
        leader = tie(cx, cy)
        if leader is not None:
            c += CAPTION_CROSSING * board.crossed(*leader) + LEADER_THROUGH * board.passes(*leader)
        if best is None or c < best[0] - 1e-9:
            best = (c, cx, cy)

    for s in (1, -1):
        for extra in (0.0, 10.0, 24.0):
            reach = ring.r_across + 4 + extra + abs(vx) * lab.w / 2 + abs(vy) * lab.h / 2
            consider(ring.cx + vx * reach * s, ring.cy + vy * reach * s, 0.0)
    if best[0] >= CAPTION_CROWDED:
        for k in range(CAPTION_TURNS):
            angle = 2 * math.pi * k / CAPTION_TURNS
            dx, dy = math.cos(angle), math.sin(angle)
            # the ring's own reach that way (an ellipse on the ring's axes), then the label's
            a, b = dx * ring.ux + dy * ring.uy, dx * vx + dy * vy
            edge = 1.0 / math.sqrt((a / ring.r_along) ** 2 + (b / ring.r_across) ** 2)
            for extra in (4.0, 14.0, 28.0, 44.0, 64.0):
                reach = edge + extra + abs(dx) * lab.w / 2 + abs(dy) * lab.h / 2
                consider(ring.cx + dx * reach, ring.cy + dy * reach, 2.0 + extra / 10)
    lab.cx, lab.cy = best[1], best[2]
    leader = tie(lab.cx, lab.cy)
    # (none through a box: where every place's would run through one, the caption stands
    # free, as it did before leaders were drawn)
    ring.leader = leader if leader is not None and clear(*leader) else None
    board.take(lab.rect)
    if ring.leader is not None:   # (a note placed later covered one)
        board.add_line(("leader", ring.id), ring.leader)
    ring.label = lab


# --- notes -----------------------------------------------------------------------------


@dataclass
class Note:
    kind: str
    ref: str
    x: float
    y: float
    w: float
    h: float
    wrapped: list
    leader: tuple | None = None
    extra: dict = field(default_factory=dict)


def annotations(scene: Scene, model: dict, board: Board) -> list[Note]:
    """Notes on nodes, groups and connectors, each beside what it annotates."""
    out: list[Note] = []
    for n in scene.nodes.values():
        if n.note is not None and not n.external:
            out.append(_place_note(board, "node", n.id, n.note, n.label or None, n.rect()))
    for g in scene.groups.values():
        if g.note is not None and g.box is not None:
            out.append(_place_note(board, "group", g.id, g.note, g.label or None, g.box))
    for link in scene.links:
        if link.note is not None and len(link.points) >= 2:
            (px, py), (qx, qy) = _longest(link.points)
            mx, my = (px + qx) / 2, (py + qy) / 2
            out.append(_place_note(board, "edge", link.key, link.note, None, (mx, my, mx, my)))
    return out


NOTE_RINGS = (10.0, 24.0, 44.0, 70.0)   # how far from its target a note is tried first
NOTE_FAR = (100.0, 140.0)               # ... and, when all those places are taken, further out
LEADER_INSET = 6.0       # a leader leaves a note at least this far from its corners
NOTE_OVER_LINE = 300.0   # a connector anywhere under a note (its ink is hidden there)
LEADER_THROUGH = 300.0   # a note's leader running through a box or another note
NOTE_TAKEN = 200.0   # a place costing this or more is crowded: a box, a label, a note or a
                     # connector in it, or a box within 4 px


def _note_places(target, w: float, h: float, rings, first_ring: int, flush: bool) -> list:
    """Places for a ``w`` × ``h`` note round ``target``: ``(x, y, ring, side)``, side 0 to 3
    being right of it, below, above and left; with ``flush``, also below and above it
    flush with either end (a wide note beside a narrow target)."""
    x0, y0, x1, y1 = target
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    out = []
    for ring, d in enumerate(rings, first_ring):
        out += [(x1 + d, cy - h / 2, ring, 0), (cx - w / 2, y1 + d, ring, 1), (cx - w / 2, y0 - d - h, ring, 2),
                (x0 - d - w, cy - h / 2, ring, 3)]
        if flush:
            out += [(x0, y1 + d, ring, 1), (x1 - w, y1 + d, ring, 1), (x0, y0 - d - h, ring, 2),
                    (x1 - w, y0 - d - h, ring, 2)]
    return out


def _leader(nx: float, ny: float, w: float, h: float, side: int, target):
    """The leader from a note at ``(nx, ny)`` on ``side`` of ``target`` to the target: from
    the middle of the note's near side, or the point of it nearest the target's middle."""
    x0, y0, x1, y1 = target
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    along_x = min(max(cx, nx + LEADER_INSET), nx + w - LEADER_INSET)
    along_y = min(max(cy, ny + LEADER_INSET), ny + h - LEADER_INSET)
    p = ((nx, along_y), (along_x, ny), (along_x, ny + h), (nx + w, along_y))[side]
    return p, (min(max(p[0], x0), x1), min(max(p[1], y0), y1))


#: Where else along its near side (shares of the side, inset) a note's leader may start
#: when the one aimed at the target's middle runs through a box or a label ...
LEADER_ALONG = (0.0, 1.0, 0.25, 0.75)
#: ... each px it runs longer than that one costing this much (a long slant across the
#: figure to miss one label read worse than a short leader beside it) ...
LEADER_LONGER = 1.0
#: ... and each connector it crosses this much (a note moved to the top of the figure drew
#: its leader across the lane running there), or passes within :data:`LEADER_END_CLEAR`
#: of the end of (NAT64's leader ran down between the end of the line to "IPv6 Internet"
#: and that name, as if the line went on to the note).
LEADER_CROSSING = 60.0
LEADER_END_CLEAR = 10.0
#: A leader within this many px of a connector for :data:`LEADER_ALONG_MOST` px or more of
#: its length is drawn on that line: it pays as for running through a box (EXECUTE's
#: leader came down on the first 60 px of the line leaving the state's top).
LEADER_ON_LINE = 4.0
LEADER_ALONG_MOST = 8.0


def _leaders(nx: float, ny: float, w: float, h: float, side: int, target) -> list:
    """The leaders a note at ``(nx, ny)`` on ``side`` of ``target`` may take, first choice
    first: :func:`_leader`, then from points along the note's near side
    (:data:`LEADER_ALONG`) to the point of the target nearest each (a note below a box
    with another box between had its leader drawn through that box, where one from the
    note's end passed beside it)."""
    out = [_leader(nx, ny, w, h, side, target)]
    x0, y0, x1, y1 = target
    for share in LEADER_ALONG:
        if side in (1, 2):
            p = (nx + LEADER_INSET + (w - 2 * LEADER_INSET) * share, ny if side == 1 else ny + h)
        else:
            p = (nx if side == 0 else nx + w, ny + LEADER_INSET + (h - 2 * LEADER_INSET) * share)
        out.append((p, (min(max(p[0], x0), x1), min(max(p[1], y0), y1))))
    return out


def _place_note(board: Board, kind: str, ref: str, text: str, prefix, target) -> Note:
    """A note beside ``target``: the cheapest of 16 places round it, and when every one of
    those is crowded (:data:`NOTE_TAKEN`, or the cheapest needs a leader round what lies
    in the way, :func:`_leaders`), the cheapest of those and 40 more (above and below
    flush with either end of the target, and further out).  A place pays for each
    connector under it, and a place away from the target for each box or note its leader
    would run through, each connector it crosses, and each px its leader runs longer to
    go round."""
    w, h, wrapped = note_size(text, prefix + ":" if prefix else None)
    x0, y0, x1, y1 = target
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2

    def best_of(cands, best):
        for nx, ny, ring, side in cands:
            if best is not None and board.spent():
                break   # (the figure's looking is spent: the first place found stands)
            r = (nx, ny, nx + w, ny + h)
            c = board.cost(r, None, (cx, cy)) + ring * 5 + 200 * board.boxes_near(r, 4.0) \
                + NOTE_OVER_LINE * board.lines_under(r)
            leader, k = None, 0
            if ring >= 1:
                if best is not None and c >= best[0] - 1e-9:
                    continue   # no leader makes it cheaper
                ways = _leaders(nx, ny, w, h, side, target)
                first = math.dist(*ways[0])
                near = (x0 - LEADER_END_CLEAR, y0 - LEADER_END_CLEAR, x1 + LEADER_END_CLEAR, y1 + LEADER_END_CLEAR)
                extra, k, leader = min((LEADER_THROUGH * (board.passes(*ends)
                                                          + board.runs_along(*ends, LEADER_ON_LINE, LEADER_ALONG_MOST))
                                        + LEADER_CROSSING * (board.crossed(*ends)
                                                             + board.ends_near(*ends, LEADER_END_CLEAR, near))
                                        + LEADER_LONGER * max(0.0, math.dist(*ends) - first), k, ends)
                                       for k, ends in enumerate(ways))
                c += extra
            if best is None or c < best[0] - 1e-9:
                best = (c, nx, ny, ring, side, leader, k > 0 if ring >= 1 else False)
        return best

    best = best_of(_note_places(target, w, h, NOTE_RINGS, 0, False), None)
    # (a place whose leader had to go round what lay on its way is crowded too: the
    # places flush with the target's ends may hold one with a plain leader)
    if (best[0] >= NOTE_TAKEN or best[6]) and not board.spent():
        best = best_of(_note_places(target, w, h, NOTE_RINGS, 0, True)
                       + _note_places(target, w, h, NOTE_FAR, len(NOTE_RINGS), True), best)
    _, nx, ny, ring, side, leader, _round = best
    board.take((nx, ny, nx + w, ny + h))
    note = Note(kind, ref, nx, ny, w, h, wrapped)
    if ring >= 1:   # not adjacent: a leader states the attachment
        note.leader = leader
    return note


def shift(rings: list[Ring], notes: list[Note], dx: float, dy: float) -> None:
    for ring in rings:
        ring.cx += dx
        ring.cy += dy
        if ring.label is not None:
            ring.label.cx += dx
            ring.label.cy += dy
        if ring.leader is not None:
            ring.leader = tuple((x + dx, y + dy) for x, y in ring.leader)
    for note in notes:
        note.x += dx
        note.y += dy
        if note.leader is not None:
            (px, py), (qx, qy) = note.leader
            note.leader = ((px + dx, py + dy), (qx + dx, qy + dy))


# --- tones: telling crowded labelled connectors apart -------------------------------

TONES = ("#3f5b8c", "#7a5638", "#55611f", "#206a72")   # four hues at one lightness
TONE_PROX = 30.0
TONE_CLEAR = 16.0   # a rival line this much farther from a label than its own reads as another's


def _seg_box_gap(p, q, box) -> float:
    x0, y0, x1, y1 = box
    # far apart on either axis: the gap is at least that far (no exact distance needed)
    far = max(min(p[0], q[0]) - x1, x0 - max(p[0], q[0]), min(p[1], q[1]) - y1, y0 - max(p[1], q[1]))
    if far >= TONE_PROX:
        return far
    if seg_hits_rect(p, q, box, 0.0):
        return 0.0
    best = math.inf
    for cx, cy in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
        best = min(best, seg_dist(cx, cy, p, q))
    for px, py in (p, q):
        dx = max(x0 - px, 0.0, px - x1)
        dy = max(y0 - py, 0.0, py - y1)
        best = min(best, math.sqrt(dx * dx + dy * dy))
    return best


def _box_gap(a, b) -> float:
    dx = max(b[0] - a[2], 0.0, a[0] - b[2])
    dy = max(b[1] - a[3], 0.0, a[1] - b[3])
    return math.sqrt(dx * dx + dy * dy)


TONE_CELL = 96.0       # side of a square of the connectors' index in tones()
TONE_SQUARES = 4096    # a segment or label over more squares than this is read for every label
TONE_PLAIN = 1e15      # beyond this size a coordinate's rounding could exceed the index's 1 px slack


#: Two lines run side by side where a level (or upright) stretch of each, this long in
#: common, stands within TONE_PROX of the other's: two lanes round one stretch of the
#: figure, one between them, took one tone, and a label by their ends read as either's.
ALONGSIDE = 30.0
#: ... next to each other within this (lanes stand 14 px apart): they must differ as
#: lines whose labels crowd do; the ones further out differ where the tones allow.
ALONGSIDE_NEXT = 16.0


def _alongside(link, nearby: "_Nearby") -> list:
    """The connectors running side by side with ``link`` (see :data:`ALONGSIDE`), each
    with the least distance between such stretches."""
    found: dict[int, list] = {}
    for p, q in zip(link.points, link.points[1:]):
        level = abs(p[1] - q[1]) < 0.01
        if not (level or abs(p[0] - q[0]) < 0.01):
            continue
        a, b = (0, 1) if level else (1, 0)   # along, across
        lo, hi = sorted((p[a], q[a]))
        if hi - lo < ALONGSIDE:
            continue
        box = (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]))
        for other in nearby.around(box):
            for r, t in zip(other.points, other.points[1:]):
                gap = abs(r[b] - p[b])
                if abs(r[b] - t[b]) < 0.01 and gap <= TONE_PROX \
                        and min(hi, max(r[a], t[a])) - max(lo, min(r[a], t[a])) >= ALONGSIDE:
                    seen = found.setdefault(id(other), [other, gap])
                    seen[1] = min(seen[1], gap)
    return [(other, gap) for other, gap in found.values()]


class _Nearby:
    """The connectors of ``links`` that may come nearer than :data:`TONE_PROX` to a
    label's box, read from a square index (:mod:`.squares`) instead of every
    connector for every label (the square of a big figure's labels).

    Each connector is indexed under the squares of each of its segments' extents,
    and of its label's box when it has one in ``boxes``; a label reads the squares
    of its box widened by ``TONE_PROX + 1``.  A segment whose extent lies wholly
    outside that widened box is at least ``TONE_PROX`` away on one axis, so
    :func:`_seg_box_gap` returns at least ``TONE_PROX`` for it, and a label box
    outside it has a :func:`_box_gap` at least that: a connector not read is one
    ``tones`` would not have counted (the 1 px covers the rounding of the widening;
    a coordinate over :data:`TONE_PLAIN` is read for every label).  The connectors
    read come in their order in ``links``."""

    def __init__(self, links: list, boxes: dict) -> None:
        self.index = SquareIndex(TONE_CELL, TONE_SQUARES, TONE_PLAIN)
        for link in links:
            extents = [(min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]))
                       for p, q in zip(link.points, link.points[1:])]
            if link.index in boxes:
                extents.append(boxes[link.index])
            self.index.add(link, *extents)

    def around(self, box) -> list:
        pad = TONE_PROX + 1.0
        return self.index.near(box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad)


#: A tone is not used beside an author's colour of a hue within this many degrees (the
#: four tones are 32 to 44 degrees apart; a legend's #0369a1 is 17 from the blue tone).
TONE_HUES_APART = 30.0
#: Below this chroma (max - min channel, 0..255) a colour is a grey: it has no hue to
#: be confused with.
TONE_CHROMA = 24


def _rgb(colour: str) -> tuple[int, int, int] | None:
    """``#rgb`` or ``#rrggbb`` as channels; None for anything else (a colour name)."""
    hexa = colour[1:] if colour.startswith("#") else ""
    if len(hexa) == 3:
        hexa = "".join(c + c for c in hexa)
    if len(hexa) != 6:
        return None
    try:
        value = int(hexa, 16)
    except ValueError:
        return None
    return value >> 16, (value >> 8) & 255, value & 255


def _hue(rgb: tuple[int, int, int]) -> float | None:
    """The hue in degrees (0 to 360), None for a grey.  Only IEEE arithmetic, no
    library functions, so every machine draws the same."""
    r, g, b = rgb
    top, low = max(rgb), min(rgb)
    chroma = top - low
    if chroma < TONE_CHROMA:
        return None
    if top == r:
        hue = 60.0 * ((g - b) / chroma)
    elif top == g:
        hue = 60.0 * ((b - r) / chroma + 2.0)
    else:
        hue = 60.0 * ((r - g) / chroma + 4.0)
    return hue + 360.0 if hue < 0 else hue


def _near_colour(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    """Two colours of nearly one hue (a grey is near nothing)."""
    ha, hb = _hue(a), _hue(b)
    if ha is None or hb is None:
        return False
    apart = abs(ha - hb)
    return min(apart, 360.0 - apart) < TONE_HUES_APART


def _free_tones(scene: Scene) -> tuple[str, ...]:
    """The tones no colour the author gave a line could be taken for: a class's stroke
    (the legend says what it means) or a connector's own.  A colour given by name cannot
    be compared, so then no tone is free."""
    given = {c.get("stroke") for c in scene.classes.values()} | {lk.stroke for lk in scene.links}
    taken = []
    for colour in sorted(c for c in given if c):
        rgb = _rgb(colour)
        if rgb is None:
            return ()
        taken.append(rgb)
    return tuple(t for t in TONES if not any(_near_colour(_rgb(t), c) for c in taken))


def tones(scene: Scene) -> None:
    """A labelled connector with no paint of its own, crowded by other ink (another
    line or label within :data:`TONE_PROX` of its label, and not :data:`TONE_CLEAR`
    farther from it than its own line), takes one of four muted tones, unlike its
    crowded neighbours', so a reader can tell which line a label names.  A tone that
    could be taken for a colour the author gave a line (a legend's class above all) is
    not used.  Greedy in document order: deterministic."""
    eligible = [lk for lk in scene.links
                if lk.stroke is None and lk.bus is None and getattr(lk, "mid_label", None) is not None
                and not scene.classes_of(lk)]
    palette = _free_tones(scene)
    if len(eligible) < 2 or not palette:
        return
    boxes = {lk.index: lk.mid_label.rect for lk in eligible}
    crowded, near = set(), {lk.index: set() for lk in eligible}
    nearby = _Nearby(scene.links, boxes)
    for lk in eligible:
        box = boxes[lk.index]
        own = min((_seg_box_gap(p, q, box) for p, q in zip(lk.points, lk.points[1:])), default=0.0)
        # another line is a rival when it is near and not clearly farther than the label's own
        prox = min(TONE_PROX, own + TONE_CLEAR)
        for other in nearby.around(box):
            if other is lk:
                continue
            hit = any(_seg_box_gap(p, q, box) < prox for p, q in zip(other.points, other.points[1:]))
            if not hit and other.index in boxes:
                hit = _box_gap(box, boxes[other.index]) < prox
            if hit:
                crowded.add(lk.index)
                if other.index in near:
                    near[lk.index].add(other.index)
                    near[other.index].add(lk.index)
    # lines run side by side (lanes round one stretch) differ too: next to each other
    # as labels do, one further out where the tones allow
    beside: dict[int, set] = {lk.index: set() for lk in eligible}
    for lk in eligible:
        if lk.index in crowded:
            for other, gap in _alongside(lk, nearby):
                if other is not lk and other.index in crowded and other.index in near:
                    pair = near if gap <= ALONGSIDE_NEXT else beside
                    pair[lk.index].add(other.index)
                    pair[other.index].add(lk.index)
    used = {t: 0 for t in palette}
    chosen: dict[int, str] = {}
    for lk in eligible:
        if lk.index not in crowded:
            continue
        taken = {chosen[o] for o in near[lk.index] if o in chosen}
        further = {chosen[o] for o in beside[lk.index] if o in chosen}
        free = ([t for t in palette if t not in taken and t not in further]
                or [t for t in palette if t not in taken] or list(palette))
        tone = min(free, key=lambda t: (used[t], palette.index(t)))
        chosen[lk.index] = tone
        used[tone] += 1
        lk.stroke = tone
        lk.mid_label.colour = tone
