"""Routing in the flow frame: ports, channel tracks, back-edge lanes, loops.

A connector between ranks leaves its first node through the side facing the
flow and enters its last node through the side facing back.  Several
connectors on one side get distinct *ports* (spread in the order of where they
go, so they do not cross at the box); a lone connector takes the port that
lines up with its other end when the box allows, so aligned boxes get a
straight line.  Every change of cross position happens in the *channel*
between two ranks, on a track of its own: tracks are shared only by jogs
whose spans do not overlap, so no two connectors are drawn on top of each
other.  A connector running two or more ranks against the flow goes round the
drawing on a *lane* outside it.  Connectors inside one rank run straight
across to an adjacent box, or through the channel after the rank.  A
self-loop sits on the box's cross-before side.

In ``topology`` links are straight lines between the outlines (the network
diagram convention); in the other scene genres every route is orthogonal.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from ..text import END_FS, LABEL_FS, label_px
from .free import EPS, centre_line, lines_crossed, path_hits, segments_cross
from .graph import (ARROW_HALF, ARROW_LEN, Box, Link, Scene, arc_inset, axes, border_point, corner_radius,
                    outline_norm, outline_test, ray_exit, side_point)
from .labels import seg_dist
from .layout import GAPX, GAPY, Frame, slant_landing

PORT_STEP = 10.0
HEAD_STEP = 16.0   # between ports where an arrowhead (11.2 px across) ends: heads never touch
PORT_MARGIN = 6.0
PORT_SNAP = 8.0   # a port this near the run it meets takes the run's cross position
TRACK = 10.0
LANE_STEP = 14.0
#: Flowing down or up, the next lane out stands this far beyond a lane's label ...
LANE_LABEL_GAP = 8.0
#: ... the label's width counted up to this (a longer one goes on two lines or on a leg)
LANE_LABEL_MOST = 120.0
#: A self-loop's reach out from its box and the distance between its legs: at 16 × 16 its
#: arrowhead filled the leg it came back on and it read as a hook.
LOOP_H = 24.0
LOOP_W = 28.0
LOOP_SMALL = 16.0
WAY_CLEAR = 4.0   # room a topology link bending at its dummies keeps round the other boxes
#: How deep into another box a topology link's line must cut before the gaps beside its
#: end boxes take points too: a cut of a px or two reads as passing the box's corner, but
#: 3 px let anycast-dns's longest line run shallowly over the middle site's router
WAY_DEEP = 1.0
EXTERNAL_APART = 20.0   # how far beside an external (a point) a straight line's end may land
PARALLEL_STEP = 10.0   # between straight lines joining one pair of boxes, drawn side by side
LAND_APART = 12.0  # how far its ends keep from where other connectors meet the same box
HEAD_APART = 14.0  # how far an arrowhead's tip on a straight line keeps from other ends there


@dataclass
class Jog:
    link: int
    channel: int
    c0: float
    c1: float
    track: int = 0
    bus: str | None = None       # jogs of one merge bus share a track
    order: float | None = None   # sorts for a track as if it started here (nested lanes)
    onward: bool = False         # a chain's: the line runs on across the channel, into it and out

    @property
    def lo(self) -> float:
        return min(self.c0, self.c1)

    @property
    def hi(self) -> float:
        return max(self.c0, self.c1)


@dataclass
class Routing:
    ports: dict[tuple[int, str], float] = field(default_factory=dict)   # (link, end) → cross
    jogs: dict[int, list[Jog]] = field(default_factory=dict)            # link → its jogs in order
    channels: dict[int, list[Jog]] = field(default_factory=dict)
    tracks: dict[int, int] = field(default_factory=dict)
    lanes: dict[int, float] = field(default_factory=dict)               # link → lane cross
    bus: dict[int, str] = field(default_factory=dict)                   # link → merge-bus key
    orthogonal: set = field(default_factory=set)                        # links routed in channels
    waypoints: set = field(default_factory=set)                         # topology links via dummies
    lane_order: dict[int, float] = field(default_factory=dict)          # link → its lane's nesting key
    side_exit: dict[int, float] = field(default_factory=dict)           # link → the vertex it leaves by
    exit_slot: dict[int, int] = field(default_factory=dict)             # side exit of a rectangle → its slot along the side
    lane_shift: dict[tuple[int, str], float] = field(default_factory=dict)   # (lane, end) → off the side's middle, along it
    side_entry: dict[int, tuple[int, int]] = field(default_factory=dict)  # link → (slot, side) it enters by
    lane_entry: dict[int, float] = field(default_factory=dict)          # lane link → the side point it enters by
    label_room: dict[int, float] = field(default_factory=dict)          # channel → a straight line's label run
    landing: dict[int, float] = field(default_factory=dict)             # straight link → cross it aims at on its last box


def _size(frame: Frame, box: Box) -> float:
    return box.h if frame.horizontal else box.w


def needs_channels(scene: Scene, frame: Frame, link: Link) -> bool:
    """Routed through the channels (not a straight line between neighbours)."""
    plan = frame.plans[link.index]
    if plan.kind == "lane":
        return True
    if plan.kind == "chain":
        return (len(plan.items) > 2 or plan.bus is not None) and scene.genre != "topology"
    if plan.kind == "same":
        return not _adjacent(frame, link)
    return False


def waypoint_polyline(scene: Scene, frame: Frame, link: Link) -> list:
    """A topology link across several ranks whose straight line would enter a box.

    It passes each rank between at its dummy, which is placed clear of the boxes
    beside it: where the rank begins and where it ends (the rank's boxes lie
    between, so the run from one to the other meets none, nor does a run in the
    gap between two ranks).  Of those points each run goes straight to the
    farthest it reaches keeping :data:`WAY_CLEAR` off every box but its ends'.  Where the
    line so drawn still cuts :data:`WAY_DEEP` into a box (one of an end box's rank,
    between its centre and the dummy beside it), a point in the middle of the gap beside
    each end box joins the points, within the box's width as near its dummy as that
    reaches: a run from there meets no other box of that rank (level with the box's
    centre, the lines from several dummies met at one point above it)."""
    plan = frame.plans[link.index]
    head, tail = plan.items[0], plan.items[-1]
    first, last = scene.nodes[head.key], scene.nodes[tail.key]
    others = [n.rect() for n in scene.nodes.values()
              if n.id != first.id and n.id != last.id and not n.external]

    def gap_middle(r: int) -> float:   # the middle of the gap after rank r
        return (frame.rank_start[r] + frame.rank_size[r] + frame.rank_start[r + 1]) / 2

    def toward(end, dummy) -> float:   # across the end box, as near its dummy as it reaches
        reach = max(0.0, end.size / 2 - PORT_MARGIN)
        return min(max(dummy.pos, end.pos - reach), end.pos + reach)

    def simplest(chain: list) -> list:
        kept = [0]
        while kept[-1] < len(chain) - 1:
            i = kept[-1]
            j = len(chain) - 1
            while j > i + 1 and path_hits([chain[i], chain[j]], others, -WAY_CLEAR):
                j -= 1
            kept.append(j)
        pts = [chain[k] for k in kept]
        pts[0] = border_point(first, *pts[1])
        pts[-1] = border_point(last, *pts[-2])
        return pts

    middle = []
    for it in plan.items[1:-1]:
        m = frame.rank_start[it.rank]
        middle.append(frame.to_xy(m, it.pos))
        middle.append(frame.to_xy(m + frame.rank_size[it.rank], it.pos))
    pts = simplest([(first.cx, first.cy), *middle, (last.cx, last.cy)])
    if path_hits(pts, others, WAY_DEEP):
        # the end boxes' own points in the gaps beside them: the run from the last dummy
        # went for the box's centre through a box above it in its rank
        pts = simplest([(first.cx, first.cy), frame.to_xy(gap_middle(head.rank), toward(head, plan.items[1])),
                        *middle, frame.to_xy(gap_middle(tail.rank - 1), toward(tail, plan.items[-2])),
                        (last.cx, last.cy)])
    return pts[::-1] if plan.flipped else pts


def land_apart(scene: Scene, paths: dict[int, list], link: Link, room: float = LAND_APART,
               ends: tuple[bool, bool] = (True, True), heads: bool = False,
               touching: dict[str, list] | None = None, ports: bool = False, tails: bool = False,
               body: bool = False) -> None:
    """Move the ends of a connector drawn straight to its boxes (a topology link, or
    one bending at its dummies, :func:`waypoint_polyline`) along their outlines away
    from where other connectors meet those boxes, when one is nearer than ``room``: a
    line aimed at a box's centre meets the lines from the same side at nearly one
    point, and two lines landing together (or two arrowheads) read as one.  ``ends``:
    which of its two ends may move; with ``heads`` only an arrowhead of another
    connector (not one between the same two boxes, drawn side by side on purpose) is a
    reason to move, though an end that moves keeps off every other end; with ``ports``
    only another connector's end with a port (an end label, drawn as a square), again
    not one between the same two boxes; with ``tails`` only another end without an
    arrowhead, and an arrowhead counts as its width nearer (a line moved off a tail had
    its start under the corner of the arrowhead beside it); with ``body`` (the end that
    moves is an arrowhead) only another plain end, not one between the same two boxes
    (drawn side by side on purpose), and how far apart is measured between the
    arrowhead's body and the other connectors' first runs (:func:`_head_clear`), ``room``
    being the clearance wanted.  Each end's
    last run keeps :data:`WAY_CLEAR` off the other boxes, does not enter the box at
    its other end (read by its outline where that is not a plain rectangle) and
    crosses no more lines than it did.  ``touching``: each box's connectors, when the
    caller has them."""
    li = link.index
    pts = list(paths[li])
    pair = {link.a, link.b}
    for k, nid, nxt, far, may in ((0, link.a, 1, link.b, ends[0]),
                                  (len(pts) - 1, link.b, len(pts) - 2, link.a, ends[1])):
        box = scene.nodes[nid]
        if not may:
            continue
        others_at, asking, runs, partners, bodies = [], [], [], [], []
        for lk in (scene.links if touching is None else touching.get(nid, ())):
            if lk.index == li or not paths.get(lk.index):
                continue
            for j, end, mark, head in ((0, lk.a, lk.arrow_a if heads else lk.tail, lk.arrow_a),
                                       (-1, lk.b, lk.arrow_b if heads else lk.head, lk.arrow_b)):
                if end == nid:
                    other = paths[lk.index]
                    others_at.append((other[j], ARROW_HALF if tails and head else 0.0))
                    if heads and head and {lk.a, lk.b} != pair and len(other) >= 2:
                        bodies.append((other[j], other[1 if j == 0 else -2]))
                    if body:
                        run = (other[j], other[1 if j == 0 else -2], ARROW_HALF if head else 0.0)
                        (runs if {lk.a, lk.b} != pair else partners).append(run)
                        if not head and {lk.a, lk.b} != pair:
                            asking.append(other[j])
                    elif (not head) if tails else (not (heads or ports) or (mark and {lk.a, lk.b} != pair)):
                        asking.append(other[j])
        if not asking:
            continue
        if body:
            plain = [r for r in runs if r[2] == 0.0]
            clear = _head_clear(pts[k], pts[nxt], plain)
            if clear >= room:
                continue
            # the lines drawn beside it on purpose (between the same two boxes) hold it no
            # nearer them than it stands, and the plain ends no nearer either: it may not
            # trade a head's clearance for a plain end's (a head 8 px from another head
            # moved onto a plain start, 0.2 px off)
            floor = _head_clear(pts[k], pts[nxt], partners) - 0.01
            clear -= 0.01

            def apart(p, q=pts[nxt]) -> float:
                if (partners and _head_clear(p, q, partners) < floor) or _head_clear(p, q, plain) < clear:
                    return -math.inf
                return _head_clear(p, q, runs)
        else:
            # (arrowheads: their bodies keep HEAD_BODY_GAP apart too, whatever their tips'
            # distance; two heads 15 px apart at an angle overlapped)
            if min(math.dist(pts[k], o) for o in asking) >= room \
                    and (not bodies or _heads_gap(pts[k], pts[nxt], bodies) >= HEAD_BODY_GAP):
                continue

            def apart(p, q=pts[nxt]) -> float:
                near = min(math.dist(p, o) - wide for o, wide in others_at)
                if not bodies:
                    return near
                return min(near, room - max(0.0, HEAD_BODY_GAP - _heads_gap(p, q, bodies)))
        qx, qy = pts[nxt]
        dx, dy = qx - box.cx, qy - box.cy
        length = math.hypot(dx, dy) or 1.0
        nx, ny = -dy / length, dx / length
        # every candidate run lies within the box grown by the farthest offset, and its
        # next point: only the boxes near that can be in its way
        reach = 40.0 + WAY_CLEAR + 1.0
        bx0, by0, bx1, by1 = box.rect()
        zx0, zy0 = min(bx0 - reach, qx - 1.0), min(by0 - reach, qy - 1.0)
        zx1, zy1 = max(bx1 + reach, qx + 1.0), max(by1 + reach, qy + 1.0)
        obstacles = [r for n in scene.nodes.values()
                     if n.id != link.a and n.id != link.b and not n.external
                     for r in (n.rect(),) if r[0] <= zx1 and r[2] >= zx0 and r[1] <= zy1 and r[3] >= zy0]
        far_box = scene.nodes[far]
        own = [] if len(pts) > 2 or far_box.external else [far_box.rect()]
        if own and (axes(far_box)[2] != math.inf or corner_radius(far_box) > 0.0):
            # a diamond's or an ellipse's end lies inside its bounding box, and so does
            # one on a rounded corner's arc: whether the moved line enters the box is read
            # off its outline, just short of the end (every line from a state's corner
            # entered its bounding box, and an arrowhead stayed on another's)
            inside_far, own = outline_test(far_box), []
        else:
            inside_far = None
        a, b, pw = axes(box)
        best_key = (apart(pts[k], (qx, qy)), 0.0)
        better = []
        for step in range(-40, 41):
            o = step * 1.0
            ax, ay = box.cx + o * nx, box.cy + o * ny
            if box.external:
                # a point never drawn: the end may stand beside it, a little way off
                if abs(o) > EXTERNAL_APART:
                    continue
                land = (ax, ay)
            elif outline_norm(a, b, pw, ax - box.cx, ay - box.cy) > 0.8:
                continue
            else:
                land = _exit(box, ax, ay, qx - ax, qy - ay)
            if path_hits([land, (qx, qy)], obstacles, -WAY_CLEAR) or path_hits([land, (qx, qy)], own):
                continue
            if inside_far is not None and _enters(far_box, inside_far, land, (qx, qy)):
                continue
            key = (min(apart(land, (qx, qy)), room), -abs(o))
            if key > best_key:
                better.append((key, step, land))
        # the best place whose last run crosses no more lines than the one it has (freed
        # to slide round a state's corner, a line moved across another at its box)
        if better:
            crossed = lines_crossed(paths, li, [pts[k], (qx, qy)])
            better.sort(key=lambda c: (c[0][0], c[0][1], -c[1]), reverse=True)
            pts[k] = next((land for _key, _step, land in better
                           if lines_crossed(paths, li, [land, (qx, qy)]) <= crossed), pts[k])
    paths[li] = pts


def _enters(box: Box, inside, p, q, short: float = EPS) -> bool:
    """Whether the segment p-q, ending at q on the outline of the convex ``box`` (``inside``:
    its :func:`outline_test`), runs through the box on its way there: the point ``short``
    px before q is inside the outline (on a convex outline the part of the segment inside
    ends at q)."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    length = math.hypot(dx, dy)
    if length <= short:
        return False
    x, y = q[0] - dx / length * short, q[1] - dy / length * short
    return inside(x - box.cx, y - box.cy)


def seg_gap(p, q, r, s) -> float:
    """The distance between segments p-q and r-s (0 where they cross)."""
    if segments_cross(p, q, r, s):
        return 0.0
    return min(seg_dist(p[0], p[1], r, s), seg_dist(q[0], q[1], r, s),
               seg_dist(r[0], r[1], p, q), seg_dist(s[0], s[1], p, q))


def _heads_gap(tip, toward, heads) -> float:
    """How far an arrowhead with its point at ``tip``, on a line from ``toward``, stays
    off the arrowheads ``heads`` (each a tip and the next point of its line): between
    their bodies, as segments along their axes less their half widths."""
    def back(p, q):
        dx, dy = q[0] - p[0], q[1] - p[1]
        length = math.hypot(dx, dy) or 1.0
        return p[0] + dx / length * ARROW_LEN, p[1] + dy / length * ARROW_LEN
    mine = back(tip, toward)
    return min((seg_gap(tip, mine, o, back(o, q)) - 2 * ARROW_HALF for o, q in heads), default=math.inf)


#: The least gap between two arrowheads' bodies at one box (see :func:`land_apart`).
HEAD_BODY_GAP = 2.0


def _head_clear(tip, toward, runs) -> float:
    """How far an arrowhead with its point at ``tip``, on a line coming from ``toward``,
    stays off ``runs`` (each another connector's end at the box, the next point of its
    line, and half its arrowhead's width or 0): from the head's body (its axis, less
    half its width) to each first run."""
    dx, dy = toward[0] - tip[0], toward[1] - tip[1]
    length = math.hypot(dx, dy) or 1.0
    back = (tip[0] + dx / length * ARROW_LEN, tip[1] + dy / length * ARROW_LEN)
    return min((seg_gap(tip, back, end, nxt) - ARROW_HALF - wide for end, nxt, wide in runs), default=math.inf)


def assign_ports(scene: Scene, frame: Frame, routing: Routing) -> None:
    """Cross positions of every channel-routed connector end on the flow-facing sides."""
    sides: dict[tuple[str, int], list[tuple[float, int, str]]] = {}
    items = frame.item_of
    lane_of_group: dict[tuple[str, int], float] = {}
    group_size: dict[tuple[str, int], int] = {}
    mid = (frame.cross_lo + frame.cross_hi) / 2
    # connectors merge into one bus only when they look alike: a trunk shows one colour
    # and dash, the members share one arrowhead and end label, and a label on the trunk
    # reads as every member's, so they must carry the same labels (or none), but for a
    # decision's exits
    # (their labels stand where they leave it: three lines back to "neighbours left?",
    # "yes", "no" and a plain one, came in as three hooks beside the main line's head)
    names: dict[int, str] = {}
    looks: dict[str, list] = {}
    labels: dict[tuple[str, int], list] = {}   # the labels seen per target and look
    legs: dict[int, dict[int, int]] = {}   # runs each lane's legs cross, per side
    for link in scene.links:
        plan = frame.plans[link.index]
        if plan.kind == "lane":
            legs[link.index] = _leg_crossings(frame, items[link.a], items[link.b])
            plan.side = _lane_side(legs[link.index], items[link.a], items[link.b], mid)
            seen = looks.setdefault(link.b, [])
            look = (link.stroke, link.style, link.op)
            if look not in seen:
                seen.append(look)
            k = seen.index(look)
            said = labels.setdefault((link.b, k), [])
            words = (None if scene.nodes[link.a].shape == "diamond" else link.mid, link.head)
            if scene.genre == "topology":
                # a topology's lines are cables: two never share a run (two cross-connects
                # into a switch's ports xe-0 and xe-1 were drawn as one, one port square)
                words = link.index
            if words not in said:
                said.append(words)
            j = said.index(words)
            names[link.index] = link.b if k == j == 0 else f"{link.b}.{k}.{j}"
            if k % 2:   # a second look goes round the other side, a third nests with the first
                plan.side = -plan.side
            key = (names[link.index], plan.side)
            group_size[key] = group_size.get(key, 0) + 1
    _unnest_sides(scene, frame, names, legs)
    group_size = Counter((names[lk.index], frame.plans[lk.index].side) for lk in scene.links
                         if frame.plans[lk.index].kind == "lane")
    # each side's lanes, innermost first: a lane spanning fewer ranks runs nearer the
    # figure, so a longer one round the same stretch passes outside it, not across it
    # (equal spans keep the connectors' order)
    spans: dict[tuple[str, int], int] = {}
    reach: dict[tuple[str, int], tuple[int, int]] = {}
    said: dict[tuple[str, int], float] = {}   # the room its widest label takes across the flow
    for link in scene.links:
        if link.index in routing.orthogonal and frame.plans[link.index].kind == "lane":
            key = (names[link.index], frame.plans[link.index].side)
            ra, rb = sorted((frame.rank_of[link.a], frame.rank_of[link.b]))
            spans[key] = max(spans.get(key, 0), rb - ra)
            lo, hi = reach.get(key, (ra, rb))
            reach[key] = (min(lo, ra), max(hi, rb))
            if link.mid and not frame.horizontal:
                across = min(label_px(link.mid, LABEL_FS), LANE_LABEL_MOST) + LANE_LABEL_GAP
                said[key] = max(said.get(key, 0.0), across)
    # each runs LANE_STEP beyond the ranks it passes, outside the lanes already placed
    # beside them and, the flow running down or up, their labels beside their runs: round
    # the whole figure, a retry between two steps went out past every wider rank, and
    # three lanes 14 px apart had no room for their labels between them (a lane alone
    # keeps close, its label beyond it)
    ends = _rank_ends(frame)
    placed: list[tuple[int, int, int, float]] = []
    for key in sorted(spans, key=spans.__getitem__):
        side = key[1]
        lo, hi = reach[key]
        edge = [ends[r][0 if side < 0 else 1] for r in range(lo, hi + 1)]
        edge += [out for s, a, b, out in placed if s == side and a <= hi and lo <= b]
        c = (min(edge) - LANE_STEP) if side < 0 else (max(edge) + LANE_STEP)
        lane_of_group[key] = c
        placed.append((side, lo, hi, c + side * said.get(key, 0.0)))
    entered: set[tuple[str, int]] = set()
    trunks: set[str] = set()
    # a merge bus along the flow comes in where its members come from, its trunk counted
    # once for each member on it (the median of where each passes the rank before)
    coming: dict[str, list[float]] = {}
    for link in scene.links:
        plan = frame.plans[link.index]
        if plan.kind == "chain" and plan.bus is not None:
            coming.setdefault(plan.bus, []).append(plan.items[-2].pos)
    approach = {bus: sorted(cs)[(len(cs) - 1) // 2] for bus, cs in coming.items()}
    for link in scene.links:
        if link.index not in routing.orthogonal:
            continue
        plan = frame.plans[link.index]
        if plan.kind == "chain":
            first, last = plan.items[0], plan.items[-1]
            # (a bus's member from the rank before aims at the trunk's port)
            toward = approach[plan.bus] if plan.bus is not None and len(plan.items) == 2 else plan.items[1].pos
            sides.setdefault((first.key, 1), []).append((toward, link.index, "first"))
            if plan.bus is not None:   # one port for the bus's trunk (shared below)
                routing.bus[link.index] = plan.bus
                if plan.bus in trunks:
                    continue
                trunks.add(plan.bus)
            sides.setdefault((last.key, -1), []).append((approach.get(plan.bus, plan.items[-2].pos),
                                                         link.index, "last"))
        elif plan.kind == "lane":
            key = (names[link.index], plan.side)
            if key not in entered:
                entered.add(key)
                sides.setdefault((link.b, -1), []).append((lane_of_group[key], link.index, "last"))
            if group_size[key] > 1:
                routing.bus[link.index] = names[link.index]
            lane_c = lane_of_group[key]
            routing.lanes[link.index] = lane_c
            sides.setdefault((link.a, 1), []).append((lane_c, link.index, "first"))
        elif plan.kind == "same":
            sides.setdefault((link.a, 1), []).append((items[link.b].pos, link.index, "first"))
            sides.setdefault((link.b, 1), []).append((items[link.a].pos, link.index, "last"))
    spans = _rank_boxes(frame)
    _side_exits(scene, frame, routing, sides, spans)
    held = _straight_landings(scene, frame, routing)   # side entries and exits change none
    _side_entries(scene, frame, routing, sides, spans, held)
    _lane_sides(scene, frame, routing, sides, spans)
    by_index = {link.index: link for link in scene.links}
    _side_leaves(scene, frame, routing, sides, spans, held, by_index)
    # several lanes into one side of a box (connectors that look different do not merge)
    # nest: the outermost lane takes the port farthest along the side and the track
    # farthest from the box, so none crosses another.  Each group's lane coordinate is
    # swapped with its mirror among them for that ordering (routing.lane_order)
    into: dict[tuple[str, int], list[float]] = {}
    for link in scene.links:
        if link.index in routing.lanes:
            coords = into.setdefault((link.b, frame.plans[link.index].side), [])
            if routing.lanes[link.index] not in coords:
                coords.append(routing.lanes[link.index])
    mirror: dict[float, float] = {}
    for coords in into.values():
        coords.sort()
        for c, m in zip(coords, coords[::-1]):
            mirror[c] = m
    routing.lane_order = {li: mirror[c] for li, c in routing.lanes.items()}
    # several lanes out of one side of a box nest the same way: the outermost lane leaves
    # by the port farthest from its side of the figure and takes the track farthest from
    # the box (its run out to the lane passes below the others', not across their legs)
    out_of: dict[tuple[str, int], list[float]] = {}
    for link in scene.links:
        if link.index in routing.lanes and link.index not in routing.side_exit:
            coords = out_of.setdefault((link.a, frame.plans[link.index].side), [])
            if routing.lanes[link.index] not in coords:
                coords.append(routing.lanes[link.index])
    leaving: dict[tuple[str, float], float] = {}
    for (nid, _side), coords in out_of.items():
        coords.sort()
        for c, m in zip(coords, coords[::-1]):
            leaving[(nid, c)] = m
    for (nid, side), ends in sides.items():
        if side < 0:
            ends[:] = [(routing.lane_order[li], li, end)
                       if end == "last" and li in routing.lane_order else (c, li, end)
                       for c, li, end in ends]
        else:
            ends[:] = [(leaving[(nid, c)], li, end)
                       if end == "first" and li in routing.lanes and (nid, c) in leaving else (c, li, end)
                       for c, li, end in ends]
    # a straight line from the rank before into a side too short for it and the
    # channel-routed lines ending there apart takes a place among their ports, by where
    # it comes from, and aims at it (see :func:`straight_landing`), where the side holds
    # them all LANE_CLOSE apart: routed arrowheads spread over a short side left it no
    # room, and it landed on one of them
    routing.landing = {}
    for nid, straight in _straight_into(scene, frame, routing).items():
        into = sides.get((nid, -1))
        count = len(into or ()) + len(held.get((nid, -1), ())) + len(straight)
        room = _size(frame, scene.nodes[nid]) - 2 * PORT_MARGIN
        if into and _holds(scene, frame, nid, into, straight) < count <= room / LANE_CLOSE + 1:
            into.extend((frame.item_of[lk.a if frame.plans[lk.index].items[0].key == lk.a else lk.b].pos,
                         lk.index, "straight") for lk in straight)
    singles = []
    slants = _slanted_landings(scene, frame, routing)
    for (nid, side), ends in sides.items():
        centre = items[nid].pos
        lines = held.get((nid, side), [])
        if len(ends) == 1 and not lines:
            singles.append((nid, ends[0]))
            routing.ports[(ends[0][1], ends[0][2])] = centre
            continue
        ends.sort(key=lambda e: (e[0], e[1]))
        placed, step, room = _side_ports(scene, frame, nid, ends, lines, by_index, slants.get((nid, side), ()))
        # a port a few px off the run it meets moves onto it, where its neighbours and
        # the side allow, so the run goes in straight (no step just before the box)
        for i, (c, li, end) in enumerate(ends):
            if 0 < abs(c - placed[i]) < PORT_SNAP and abs(c - centre) <= room / 2 \
                    and (i == 0 or c - placed[i - 1] >= step) \
                    and (i + 1 == len(ends) or placed[i + 1] - c >= step) \
                    and all(abs(c - h) >= max(step, LAND_APART) for h in lines):
                placed[i] = c
        for (_, li, end), port in zip(ends, placed):
            if end == "straight":
                routing.landing[li] = port
            else:
                routing.ports[(li, end)] = port
    # a lone end lines up with its other end when its box allows; at an external (a
    # point) other lines meet, up to EXTERNAL_APART off it, on the side it comes from
    meeting: dict[str, int] = {}
    for lk in scene.links:
        for nid in {lk.a, lk.b}:
            meeting[nid] = meeting.get(nid, 0) + 1
    for nid, (other_c, li, end) in singles:
        box = scene.nodes[nid]
        centre = items[nid].pos
        half = max(0.0, _size(frame, box) / 2 - PORT_MARGIN)
        if box.shape in ("diamond", "ellipse", "circle") and not box.external:
            half = min(half, _size(frame, box) * 0.2)
            if box.shape == "diamond" and frame.plans[li].kind == "lane":
                half = 0.0   # (a lane turns off anyway: "requeue" left a decision by its slope)
        if box.external and meeting[nid] > 1 and frame.plans[li].kind == "chain":
            half = EXTERNAL_APART      # (a lane's leg runs out to its lane: not there)
        routing.ports[(li, end)] = min(max(other_c, centre - half), centre + half)
    # the members of a merge bus share the target port
    shared: dict[str, float] = {}
    for li, key in sorted(routing.bus.items()):
        port = routing.ports.get((li, "last"))
        if port is not None:
            shared.setdefault(key, port)
    for li, key in routing.bus.items():
        if key in shared:
            routing.ports[(li, "last")] = shared[key]
    # a member from the rank before whose port stands a few px off the trunk's port
    # takes the trunk's cross position where its side allows: it joins the trunk
    # straight (Configured's member stepped 5 px just above the join)
    for li, key in sorted(routing.bus.items()):
        plan = frame.plans[li]
        port, to = routing.ports.get((li, "first")), shared.get(key)
        if plan.kind != "chain" or len(plan.items) != 2 or li in routing.side_exit or port is None \
                or to is None or not 0 < abs(port - to) < PORT_SNAP:
            continue
        first = plan.items[0]
        others = [routing.ports[(lj, end)] for _c, lj, end in sides.get((first.key, 1), ())
                  if lj != li and (lj, end) in routing.ports]
        if abs(to - first.pos) <= _size(frame, first.node) / 2 - PORT_MARGIN \
                and all(abs(to - c) >= PORT_STEP for c in others) \
                and all(abs(to - c) >= LAND_APART for c in held.get((first.key, 1), ())):
            routing.ports[(li, "first")] = to
    for link in scene.links:
        if frame.plans[link.index].kind == "lane" and link.index in routing.orthogonal \
                and (link.index, "last") not in routing.ports:
            routing.ports[(link.index, "last")] = items[link.b].pos
    _own_entry_runs(scene, frame, routing)


def _own_entry_runs(scene: Scene, frame: Frame, routing: Routing) -> None:
    """A side entry from the rank just before its box has no run of its own: it ran on
    from its source's middle, and two from one source ran there one on the other
    (a transition and its reply both 70 px along one line).  Each runs on from its own
    port instead, where that keeps it as far out from the box as a side entry goes
    and apart from the other entries' runs; then the entries into one side turn in
    nearest run first, as :func:`_side_entries` orders them."""
    groups: dict[tuple[str, int], list[int]] = {}
    for li, (_k, side) in routing.side_entry.items():
        groups.setdefault((frame.plans[li].items[-1].key, side), []).append(li)
    for (nid, side), lis in groups.items():
        target = frame.item_of[nid]
        half = _size(frame, target.node) / 2
        for li in lis:
            plan = frame.plans[li]
            port = routing.ports.get((li, "first"))
            if len(plan.items) != 2 or li in routing.side_exit or port is None:
                continue
            if (port - target.pos) * side >= half + TRACK \
                    and all(abs(routing.ports[(lj, "last")] - port) >= PORT_STEP for lj in lis if lj != li):
                routing.ports[(li, "last")] = port
        runs = sorted((abs(routing.ports[(li, "last")] - target.pos), li) for li in lis)
        for k, (_, li) in enumerate(runs):
            routing.side_entry[li] = (k, side)


def _slants(scene: Scene, frame: Frame, routing: Routing):
    """The straight connectors between boxes of neighbouring ranks that are not aligned:
    ``(link, first, last)``, its items in flow order."""
    for link in scene.links:
        plan = frame.plans[link.index]
        if plan.kind != "chain" or len(plan.items) != 2 or link.index in routing.orthogonal:
            continue
        first, last = plan.items
        if first.node is not None and last.node is not None and abs(first.pos - last.pos) >= 0.5:
            yield link, first, last


def _slanted_landings(scene: Scene, frame: Frame, routing: Routing) -> dict[tuple[str, int], list[float]]:
    """Where straight connectors between boxes of neighbouring ranks that are not aligned
    meet them, per (box, side), estimated with the usual gap between the ranks (their
    boxes are not placed along the flow yet)."""
    out: dict[tuple[str, int], list[float]] = {}
    for _link, first, last in _slants(scene, frame, routing):
        out.setdefault((first.key, 1), []).append(slant_landing(frame, first, last))
        out.setdefault((last.key, -1), []).append(slant_landing(frame, last, first))
    return out


def _side_ports(scene: Scene, frame: Frame, nid: str, ends: list, lines: list[float], by_index: dict,
                slants=()):
    """Cross positions for the ``ends`` (sorted) on one flow-facing side of box ``nid``
    beside the straight ``lines`` landing there; ``(ports, step, room)``.  ``slants``:
    where slanted straight lines meet the side (:func:`_slanted_landings`); ports as near
    their runs as may be keep off them, else the ends spread evenly round the middle."""
    box = scene.nodes[nid]
    centre = frame.item_of[nid].pos
    # an external is a point: its ends spread beside it however many there are
    room = math.inf if box.external else max(0.0, _size(frame, box) - 2 * PORT_MARGIN)
    heads = any(by_index[li].arrow_b if by_index[li].b == nid else by_index[li].arrow_a
                for _, li, _end in ends)
    step = HEAD_STEP if heads else PORT_STEP
    placed = _beside(ends, lines, centre, room, max(step, LAND_APART))
    if placed is None:
        if len(ends) > 1:
            step = min(step, room / (len(ends) - 1))
        placed = _nearest_ports([c for c, _li, _end in ends], centre, room, step)
        if any(abs(p - at) < max(step, LAND_APART) for p in placed for at in slants):
            placed = [centre + (i - (len(ends) - 1) / 2) * step for i in range(len(ends))]
    return placed, step, room


def _nearest_ports(wanted: list[float], centre: float, room: float, step: float) -> list[float]:
    """Ports for ends that come from ``wanted`` (sorted) on a side ``room`` long round
    ``centre``: as near where each comes from as they may stand ``step`` apart in that
    order (least squares, by pooling adjacent violators), so a run already over the
    side goes in straight (spread evenly round the middle, a "no" and a box's line
    coming down 120 px apart both stepped aside into ports 20 px apart just above the
    box).  A run from beyond the side keeps its even place."""
    n = len(wanted)
    even = [centre + (i - (n - 1) / 2) * step for i in range(n)]
    if n == 1 or not math.isfinite(room):
        return even
    lo, hi = centre - room / 2, centre + room / 2 - (n - 1) * step
    if hi < lo:
        return even
    # a run beyond the side steps in whatever port it takes: it keeps its even place
    # (pushed to the side's end, two ran into its corner)
    wanted = [c if abs(c - centre) <= room / 2 else e for c, e in zip(wanted, even)]
    # in y = x - i·step the spacing is y non-decreasing, the side lo ≤ y ≤ hi
    blocks: list[list[float]] = []   # [sum, count]
    for i, c in enumerate(wanted):
        blocks.append([min(max(c - i * step, lo), hi), 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    out: list[float] = []
    for total, count in blocks:
        out.extend([total / count] * count)
    return [y + i * step for i, y in enumerate(out)]


def _crowded(ports: list[float], lines: list[float]) -> bool:
    """Whether two of the ports and straight lines on one side are closer than ``PORT_STEP``."""
    at = sorted(ports + lines)
    return any(b - a < PORT_STEP - 0.01 for a, b in zip(at, at[1:]))


def _side_leaves(scene: Scene, frame: Frame, routing: Routing, sides: dict, spans: list,
                 held: dict[tuple[str, int], list[float]], by_index: dict) -> None:
    """A flow-facing side too short for its ends ``PORT_STEP`` apart hands connectors whose
    run passes beside the box to the side facing that run: they leave it ``ENTRY_IN`` px
    back from the flow-facing corner, and ``PORT_STEP`` further back for each run farther
    out, so no drop crosses another's run (three lines left an arbiter's 36 px side 4 px
    apart, beside a straight one, while its long side stood empty).  The runs farthest
    out go first, until the rest have their room.  So does a run that would cross a
    straight line leaving the flow-facing side aslant just past the box
    (:func:`_crossing_slants`).  Only rectangular boxes (rounded corners too), only where
    no box of the rank stands between the run and the box, none nearer than a run such a
    box keeps to the side the flow meets (that run, coming past the corner, crossed it),
    and not by a side already holding a side entry, a lane's leg, a self-loop, a line
    across to a box of the same rank or a waypoint line's arrowhead.  Straight lines to
    the rank after that leave by that side near the corner keep the exits back past
    them, a connector's clearance beyond where each crosses it (:func:`_past_slants`);
    an arrowhead from the rank before landing on it keeps them short of it by as much."""
    routing.exit_slot = {}
    taken: set[tuple[str, int]] = set()
    # how far from the flow-facing corner a side's exits may reach: short of where an
    # arrowhead from the rank before lands on it, by a connector's clearance
    reach: dict[tuple[str, int], float] = {}
    for link in scene.links:
        entry = routing.side_entry.get(link.index)
        if entry is not None:
            taken.add((link.b, entry[1]))
        for nid, at in ((link.a, routing.side_exit.get(link.index)), (link.b, routing.lane_entry.get(link.index))):
            if at is not None:
                taken.add((nid, 1 if at > frame.item_of[nid].pos else -1))
        plan = frame.plans[link.index]
        if link.index in routing.orthogonal or link.a == link.b or plan.kind not in ("chain", "same"):
            continue
        # a straight line with an arrowhead here, to a box beyond this one's side (or beside
        # it in its rank), lands on that side or by its corner: an exit there ran through
        # the arrowhead (a plain line's end there leaves it room enough); one to the rank
        # after only keeps the exits back past it (see _past_slants), one from the rank
        # before short of it
        for nid, other, head in ((link.a, link.b, link.arrow_a), (link.b, link.a, link.arrow_b)):
            here, there = frame.item_of[nid], frame.item_of[other]
            half = _size(frame, scene.nodes[nid]) / 2
            key = (nid, 1 if there.pos > here.pos else -1)
            if plan.kind == "same":
                taken.add(key)
                continue
            if not head or abs(there.pos - here.pos) <= half:
                continue
            if len(plan.items) != 2:   # a waypoint line's
                taken.add(key)
                continue
            if plan.items[0] is here:   # to the rank after (see _past_slants)
                continue
            off = abs(slant_landing(frame, here, there) - here.pos)
            if off > half:   # (else it lands on the side the flow meets)
                back = here.main / 2 * (1.0 - half / off)   # from the corner the flow meets
                reach[key] = min(reach.get(key, math.inf), here.main - back - LAND_APART)
    slanted, past = _past_slants(scene, frame, routing)
    for (nid, flow), ends in list(sides.items()):
        box, item = scene.nodes[nid], frame.item_of[nid]
        if flow != 1 or box.external or box.shape in ("diamond", "ellipse", "circle"):
            continue
        lines = held.get((nid, 1), [])
        ends.sort(key=lambda e: (e[0], e[1]))
        half = _size(frame, box) / 2
        crossing = _crossing_slants(frame, nid, ends, slanted.get(nid, ()), half,
                                    _side_ports(scene, frame, nid, ends, lines, by_index,
                                                [at for at, _far in slanted.get(nid, ())])[0])
        if not crossing and not _crowded(_side_ports(scene, frame, nid, ends, lines, by_index)[0], lines):
            continue
        loops = {place for place, _level in frame.loop_side.get(nid) or ()}
        # the slots each side has: from ENTRY_IN back from the flow-facing corner, past the
        # straight lines leaving by it there, PORT_STEP apart, to ENTRY_IN from the far one
        behind = {side: math.ceil(max(0.0, past.get((nid, side), 0.0) - ENTRY_IN) / PORT_STEP - 1e-9)
                  for side in (-1, 1)}
        fits = {side: int(max(0.0, min(item.main - ENTRY_IN, reach.get((nid, side), math.inf)) - ENTRY_IN)
                          // PORT_STEP) + 1 - behind[side] for side in (-1, 1)}
        runs = []
        kept = {-1: -1.0, 1: -1.0}   # the farthest run out a box between keeps to the flow-facing side
        for c, li, end in ends:
            plan = frame.plans[li]
            if end != "first" or plan.kind != "chain" or li in routing.bus or li in routing.side_exit:
                continue
            side = 1 if c > item.pos else -1
            if abs(c - item.pos) < half + TRACK or (nid, side) in taken or ("+c" if side > 0 else "-c") in loops \
                    or fits[side] < 1:
                continue
            vertex = item.pos + side * half
            lo, hi = sorted((vertex, c))
            if not _box_between(spans, item, lo, hi):
                runs.append((abs(c - item.pos), li, c, side, vertex))
            else:
                kept[side] = max(kept[side], abs(c - item.pos))
        # (a run nearer than a kept one, leaving by the side beside, is crossed by it)
        runs = [run for run in runs if run[0] > kept[run[3]]]
        runs.sort(reverse=True)
        moved: dict[int, list] = {}
        while runs:
            if _crowded(_side_ports(scene, frame, nid, ends, lines, by_index)[0], lines):
                pick = 0
            else:
                pick = next((k for k, run in enumerate(runs) if run[1] in crossing), None)
                if pick is None:
                    break
            far, li, c, side, vertex = runs.pop(pick)
            if len(moved.get(side, ())) >= fits[side]:
                continue
            moved.setdefault(side, []).append((far, li, c, vertex))
            ends[:] = [e for e in ends if e[1] != li]
        for side, out in moved.items():
            # runs level with one box (a transition there and its way back) run HEAD_STEP
            # apart, in document order: on one track they drew one line for two
            level: dict[float, list] = {}
            for run in out:
                level.setdefault(run[2], []).append(run)
            out[:] = []
            for c, runs in level.items():
                runs.sort(key=lambda run: run[1])
                for k, (_far, li, _c, vertex) in enumerate(runs):
                    at = c + (k - (len(runs) - 1) / 2) * HEAD_STEP
                    out.append((abs(at - item.pos), li, at, vertex))
            for k, (_far, li, c, vertex) in enumerate(sorted(out)):
                routing.side_exit[li] = vertex
                routing.exit_slot[li] = behind[side] + k
                routing.ports[(li, "first")] = c
                plan = frame.plans[li]
                if len(plan.items) == 2:   # its run comes level with the box it meets, not from this one
                    into = sides.get((plan.items[1].key, -1), [])
                    into[:] = [(c, lj, e) if lj == li and e == "last" else (cj, lj, e) for cj, lj, e in into]
        if not ends:
            sides.pop((nid, 1), None)


def _past_slants(scene: Scene, frame: Frame, routing: Routing):
    """The straight lines leaving boxes toward the rank after aslant: per box, where each
    crosses the plane of its flow-facing side and where it goes; and per (box, side
    across the flow), how far back from the flow-facing corner a side exit must leave to
    pass behind those that leave by that side (:data:`LAND_APART` beyond the farthest
    back: estimated with the least gap between the ranks, the lines are no flatter than
    drawn, so they cross that side no farther back)."""
    slanted: dict[str, list[tuple[float, float]]] = {}
    past: dict[tuple[str, int], float] = {}
    # (a pinned box is not where the layout has it: its lines are drawn afresh)
    pinned = set(scene.pins) | {nid for nid, box in scene.nodes.items()
                                if box.group is not None and scene.groups[box.group].pin}
    for link, first, last in _slants(scene, frame, routing):
        if link.a in pinned or link.b in pinned:
            continue
        at = slant_landing(frame, first, last)
        slanted.setdefault(first.key, []).append((at, last.pos))
        half, off = _size(frame, first.node) / 2, abs(at - first.pos)
        if off > half:
            key = (first.key, 1 if last.pos > first.pos else -1)
            back = first.main / 2 * (1.0 - half / off) + LAND_APART
            past[key] = max(past.get(key, 0.0), back)
    return slanted, past


def _crossing_slants(frame: Frame, nid: str, ends: list, slanted, half: float, ports: list[float]) -> set[int]:
    """The chains among ``ends`` (on box ``nid``'s flow-facing side, at ``ports``) whose
    first run passes beside the box and would cross a straight line leaving that side
    aslant toward the same side (``slanted``: where each crosses the side's plane, where
    it goes): it leaves beyond the chain's port and goes less far out than the run, so
    the run's turn out to it crosses the line just past the box, where a run leaving by
    the side facing it passes behind it (MTA pool's run round to Delivery events
    crossed its pair of lines to DKIM signer).  A run less far out than such a line
    stays: its level run would cross the line beyond the box either way."""
    centre = frame.item_of[nid].pos
    out = set()
    for (c, li, end), port in zip(ends, ports):
        if end != "first" or frame.plans[li].kind != "chain" or abs(c - centre) < half + TRACK:
            continue
        side = 1 if c > centre else -1
        if any((at - port) * side > 0 and 0 < (far - centre) * side < abs(c - centre) for at, far in slanted):
            out.add(li)
    return out


def round_side(k: int) -> int:
    """The side the ``k``-th line round a pair of boxes takes (see scene._round_pair): under
    the pair, or right of it one above the other (+1, the cross axis growing), then over
    (-1), in turn."""
    return 1 if k % 2 == 0 else -1


#: How far inside a decision's side vertex a branch's run may pass and still leave by it.
VERTEX_AT = 0.5


def _side_exits(scene: Scene, frame: Frame, routing: Routing, sides: dict, spans: list) -> None:
    """A decision's connector that goes out beyond its side leaves by that side's vertex,
    across the flow, and turns along it beyond the diamond: the flowchart convention, and
    the main path keeps the decision's flow-facing point to itself.  So does one whose
    run passes at the vertex, straight on from it ("no" 4 px past "Customer impact?"'s
    left point left by the point below, beside "yes", and stepped out under the
    diamond).  Only where no box
    of the decision's rank stands between the vertex and the turn, one connector a vertex
    (the one turning farthest out, so the others' turns stay inside its run; the first in
    document order of equals); a merge bus's members too, each from its own decision."""
    routing.side_exit = {}
    best: dict[tuple[str, int], tuple] = {}
    for link in scene.links:
        plan = frame.plans[link.index]
        if link.index not in routing.orthogonal:
            continue
        if plan.kind == "chain":
            # (where its first end aims: a bus's member from the rank before, the trunk's port)
            item = plan.items[0]
            turn = next((c for c, li, end in sides.get((item.key, 1), ()) if li == link.index and end == "first"),
                        plan.items[1].pos)
        elif plan.kind == "lane":
            item, turn = frame.item_of[link.a], routing.lanes[link.index]
        else:
            continue
        box = scene.nodes[item.key]
        if box.shape != "diamond" or box.external:
            continue
        half = _size(frame, box) / 2
        side = 1 if turn > item.pos else -1
        vertex = item.pos + side * half
        if abs(turn - item.pos) < half - VERTEX_AT:
            continue
        lo, hi = sorted((vertex, turn))
        if _box_between(spans, item, lo, hi):
            continue
        key = (item.key, side)
        if key not in best or abs(turn - item.pos) > best[key][0]:
            best[key] = (abs(turn - item.pos), link.index, vertex, turn)
    for (nid, _side), (_, li, vertex, turn) in best.items():
        routing.side_exit[li] = vertex
        routing.ports[(li, "first")] = turn
        ends = sides.get((nid, 1), [])
        ends[:] = [e for e in ends if not (e[1] == li and e[2] == "first")]
        if not ends:
            sides.pop((nid, 1), None)


def _lane_sides(scene: Scene, frame: Frame, routing: Routing, sides: dict, spans: list) -> None:
    """A lane (a connector going round the figure against the flow) leaves its first box
    by the side facing the lane, from the middle of that side, and enters its last box
    the same way, where that box is the outermost of its rank on the lane's side: a U
    round the figure's edge, not a line leaving the box's far end and wrapping round it
    (a retry from the last state came out of its flow-facing end and went round it).
    The lanes of one side take it together, nearest the box first, while no other
    lane runs between two of them (a lane out takes it past one) and the side holds them
    ``2 * LANE_PAIR`` apart (see
    :func:`_lane_slots`), only the innermost on a curved side (a decision's side point
    takes one: four arrowheads lay along the top faces of a diamond); a merge bus's
    members each by their own first box, and by its last as one (its first member's end,
    the others ending where it does); not for one leaving a diamond (see
    :func:`_side_exits`), an external, a side
    holding a side entry (:func:`_side_entries`), or the side of a box joined to
    another by more than two labelled lines where the further ones go round the pair
    and land (see ``_spread_parallel``).  A side holding the box's self-loop
    takes only the nearest lane out, beside the loop toward the lane's run and
    :data:`LOOP_BESIDE` clear of it, where the side is long enough (one came round the
    box's far end, under the loop); no lane in (its arrowhead met the loop's)."""
    routing.lane_entry = {}
    pairs: dict[tuple[str, str], int] = {}
    for link in scene.links:
        if link.mid and link.a != link.b:
            pair = (link.a, link.b) if link.a < link.b else (link.b, link.a)
            pairs[pair] = pairs.get(pair, 0) + 1
    # the sides the lines round such a pair take: the third labelled line goes under the
    # pair (right of it, the flow running down or up), a fourth over it, and on in turn
    # (see _round_pair); a lane comes in by the other side (two brake transitions came
    # round over the figure into the end of a state whose pair went round underneath,
    # their arrowheads 8 px apart beside the pair's two straight lines)
    rounded: dict[str, set[int]] = {}
    for pair, count in pairs.items():
        for nid in pair:
            rounded.setdefault(nid, set()).update(round_side(k) for k in range(count - 2))
    # a side with side entries (runs from the ranks before, turning in by its near part)
    # takes one lane in at its middle, where a head's width beyond the last of them: a
    # lane coming round over Active turned down past it, into the side the flow meets,
    # across the entry's run
    entered: dict[tuple[str, int], int] = {}
    for link in scene.links:
        entry = routing.side_entry.get(link.index)
        if entry:
            entered[(link.b, entry[1])] = entered.get((link.b, entry[1]), 0) + 1
    taken = {key for key, k in entered.items()
             if axes(scene.nodes[key[0]])[2] != math.inf or frame.item_of[key[0]].main / 2 < ENTRY_IN + k * HEAD_STEP}
    # a decision's side point that a branch leaves by takes no lane in
    taken |= {(link.a, 1 if vertex > frame.item_of[link.a].pos else -1)
              for link in scene.links if (vertex := routing.side_exit.get(link.index)) is not None}
    found: dict[tuple[str, int], list] = {}
    # a merge bus round the figure ends as one line: its first member stands for it there
    trunk: dict[str, int] = {}
    for link in scene.links:
        if link.index in routing.lanes and link.index in routing.bus:
            trunk.setdefault(routing.bus[link.index], link.index)
    for link in scene.links:
        if link.index not in routing.lanes:
            continue
        lane = routing.lanes[link.index]
        for end, nid, other in (("first", link.a, link.b), ("last", link.b, link.a)):
            if end == "first" and link.index in routing.side_exit:
                continue
            if end == "last" and trunk.get(routing.bus.get(link.index), link.index) != link.index:
                continue
            box, item = scene.nodes[nid], frame.item_of[nid]
            half = _size(frame, box) / 2
            side = 1 if lane > item.pos else -1
            if box.external or (box.shape == "diamond" and end == "first") or side in rounded.get(nid, ()):
                continue
            loops = [place for place, _level in frame.loop_side.get(nid) or ()]
            looped = loops.count("+c" if side > 0 else "-c")
            # (one self-loop there, at the side's middle: a lane may leave beside it; one
            # coming in beside it set its arrowhead against the loop's)
            if (nid, side) in taken or looped > 1 or (looped and (end == "last" or box.shape == "diamond"
                                                                  or axes(box)[2] != math.inf)):
                continue
            if (nid, side) in entered and end == "first":
                continue
            if abs(lane - item.pos) < half + TRACK:
                continue
            vertex = item.pos + side * half
            lo, hi = sorted((vertex, lane))
            if _box_between(spans, item, lo, hi):
                continue
            toward = 1.0 if frame.rank_of[other] > frame.rank_of[nid] else -1.0   # its run, along the flow
            head = link.arrow_b if end == "last" else link.arrow_a
            found.setdefault((nid, side), []).append(
                _LaneEnd(abs(lane - item.pos), link.index, vertex, end, toward, bool(head), bool(looped)))
    routing.lane_shift = {}
    chosen = []
    lanes = sorted(set(routing.lanes.values()))
    for (nid, _side), here in found.items():
        here.sort()
        group = [here[0]]
        for h in here[1:]:   # the next farther, while no other lane runs between it and the last
            # (a lane out goes on past one between: by the side the flow meets, its leg out
            # crossed that lane and the lanes in beside it too)
            a, b = sorted((routing.lanes[group[-1].index], routing.lanes[h.index]))
            if any(a < c < b for c in lanes) and h.end != "first":
                break
            group.append(h)
        room = frame.item_of[nid].main - 2 * PORT_MARGIN
        if axes(scene.nodes[nid])[2] != math.inf or (nid, _side) in entered:
            del group[1:]   # off a circle's middle the ends stood clear of its curve
        if group[0].looped:
            # beside the side's self-loop, toward the lane's run (it leaves clear of the
            # loop), the nearest lane alone, where the side is long enough
            del group[1:]
            beside = LOOP_W / 2 + LOOP_BESIDE
            if beside > room / 2:
                continue
            slots = [group[0].toward * beside]
        else:
            slots = _lane_slots(group, max(room, 0.0))
        while slots is None:   # (one lane always fits: the middle)
            group.pop()
            slots = _lane_slots(group, max(room, 0.0))
        chosen.extend((nid, h, shift) for h, shift in zip(group, slots))
    for nid, (_, li, vertex, end, _toward, _head, _looped), shift in chosen:
        if shift:
            routing.lane_shift[(li, end)] = shift
        if end == "first":
            routing.side_exit[li] = vertex
            routing.ports[(li, "first")] = routing.lanes[li]
        else:
            routing.lane_entry[li] = vertex
        flow = 1 if end == "first" else -1
        ends = sides.get((nid, flow), [])
        ends[:] = [e for e in ends if not (e[1] == li and e[2] == end)]
        if not ends:
            sides.pop((nid, flow), None)
    for link in scene.links:   # the bus's other members end where its first does
        first = trunk.get(routing.bus.get(link.index)) if link.index in routing.lanes else None
        if first is not None and first != link.index and first in routing.lane_entry:
            routing.lane_entry[link.index] = routing.lane_entry[first]
            if (first, "last") in routing.lane_shift:
                routing.lane_shift[(link.index, "last")] = routing.lane_shift[(first, "last")]


class _LaneEnd(NamedTuple):
    """A lane's end at one side of a box (:func:`_lane_sides`), ordered nearest the box first."""

    distance: float   # from the box's middle to the lane, across the flow
    index: int        # the lane's link
    vertex: float     # the side's cross coordinate
    end: str          # "first" or "last"
    toward: float     # its run goes toward higher ranks (1) or lower (-1)
    head: bool        # an arrowhead at this end
    looped: bool = False   # the side holds the box's self-loop, at its middle


def _lane_slots(group: list[_LaneEnd], room: float) -> list[float] | None:
    """Where each lane of one side meets it, off the side's middle: ``group`` nearest the
    box first.  A farther
    lane's leg must stay off every nearer lane's run, so it stands on the side of that leg
    away from the run: lanes running toward lower ranks line up from one end nearest first,
    those toward higher ranks from the other, and the farthest meet in the middle (one lane:
    the middle).  They stand ``2 * LANE_PAIR`` apart where the side's ``room`` allows, else
    closer, down to ``LANE_CLOSE`` beside an arrowhead (two heads never nearer than
    ``HEAD_STEP``) and ``PORT_STEP`` between two plain ends; None when even that does not
    fit.  With the middle both, Eco's arrow into On fell on the start of On's line to Off; a
    third lane left to go round by the flow side crossed the other two (L09)."""
    back = [h for h in group if h.toward < 0]
    ahead = [h for h in group if h.toward >= 0]
    order = back + ahead[::-1]
    gaps = [HEAD_STEP if a.head and b.head else LANE_CLOSE if a.head or b.head else PORT_STEP
            for a, b in zip(order, order[1:])]
    if sum(gaps) > room:
        return None
    roomy = 2 * LANE_PAIR
    if roomy * len(gaps) <= room:
        gaps = [roomy] * len(gaps)
    else:   # as far apart as the side holds, the closer pairs given the room first
        extra = room - sum(gaps)
        for k in sorted(range(len(gaps)), key=lambda k: gaps[k]):
            more = min(roomy - gaps[k], extra)
            if more > 0:
                gaps[k] += more
                extra -= more
    at, pos = {}, -sum(gaps) / 2
    for k, h in enumerate(order):
        at[id(h)] = pos
        if k < len(gaps):
            pos += gaps[k]
    return [at[id(h)] for h in group]


def _box_between(spans, item, lo: float, hi: float) -> bool:
    """Whether a box of ``item``'s rank stands within ``TRACK`` of the cross span lo..hi (a
    connector passing the rank there does not count: going round by the flow-facing
    side would cross it as well).  ``spans``: :func:`_rank_boxes`, searched by bisection."""
    lefts, rights, boxes = spans[item.rank]
    k = bisect.bisect_left(rights, lo - TRACK)
    while k < len(boxes) and lefts[k] <= hi + TRACK:
        if boxes[k] is not item:
            return True
        k += 1
    return False


def _rank_boxes(frame: Frame) -> list[tuple[list[float], list[float], list]]:
    """Each rank's boxes in cross order (apart, so their extents are ordered too) with
    their left and right cross edges."""
    out = []
    for items in frame.ranks:
        boxes = sorted((it for it in items if it.node is not None), key=lambda it: it.pos)
        out.append(([it.pos - it.size / 2 for it in boxes], [it.pos + it.size / 2 for it in boxes], boxes))
    return out


ENTRY_IN = 14.0   # how far along a box's side from its near corner the first side entry lands
LANE_PAIR = 8.0   # a lane in and a lane out by one side: each this far off its middle
LANE_CLOSE = 12.0   # the least between a lane's end and an arrowhead beside it, on a short side
LOOP_BESIDE = 12.0   # between a self-loop and a lane's end beside it on one side (a head's half and a gap)


def _side_entries(scene: Scene, frame: Frame, routing: Routing, sides: dict, spans: list,
                  held: dict[tuple[str, int], list[float]]) -> None:
    """A connector whose run passes beside its last box, into a side the flow meets
    that is already taken by two or more ends, goes on past the corner and turns into
    the box's side facing the run, ``ENTRY_IN`` px from the near corner and a head's
    width (``HEAD_STEP``) further for each run farther out: arrowheads crowded on a
    short side overlapped.  Only rectangular boxes (rounded corners too), only where
    no box of the box's rank stands between the run and the box, as many as the side
    holds, the runs farthest out, and none nearer than a run that such a box keeps to
    the side the flow meets (coming down to it, that run crossed the nearer one going
    on past the corner).  ``held``: :func:`_straight_landings`.

    A side the flow meets that still has more ends than it holds apart (``HEAD_STEP``
    where one is an arrowhead, else ``PORT_STEP``; straight lines from the rank before
    counted too) hands on runs that come in across it as well, the outermost first:
    such a run steps out in the last gap to ``TRACK`` px beyond the box (``TRACK``
    more for each next, all inside the runs that pass beside it) and turns in the
    same way, by a side no lane or self-loop uses (three routed arrowheads and a
    straight one lay on a 36 px side, one over the other)."""
    routing.side_entry = {}
    by_side: dict[tuple[str, int], list] = {}
    kept: dict[tuple[str, int], float] = {}   # the farthest run out kept to the side the flow meets
    near: dict[str, list] = {}
    for link in scene.links:
        if link.index not in routing.orthogonal or link.index in routing.bus:
            continue
        plan = frame.plans[link.index]
        if plan.kind != "chain":
            continue
        item = plan.items[-1]
        box = scene.nodes[item.key]
        if box.external or box.shape in ("diamond", "ellipse", "circle"):
            continue
        if len(sides.get((item.key, -1), ())) + len(held.get((item.key, -1), ())) < 2:
            continue
        c, half = plan.items[-2].pos, _size(frame, box) / 2
        side = 1 if c > item.pos else -1
        if abs(c - item.pos) < half + TRACK:
            if c != item.pos:
                near.setdefault(item.key, []).append((abs(c - item.pos), link.index, c, side))
            continue
        lo, hi = (c, item.pos - half) if c < item.pos else (item.pos + half, c)
        if _box_between(spans, item, lo, hi):
            key = (item.key, side)
            kept[key] = max(kept.get(key, 0.0), abs(c - item.pos))
            continue
        by_side.setdefault((item.key, side), []).append((abs(c - item.pos), link.index, c))
    chosen: dict[tuple[str, int], list] = {}
    for (nid, side), runs in by_side.items():
        runs.sort()
        # as many as the side holds, the runs farthest out: a nearer run left to the side
        # the flow meets turns in before the farther ones pass, and crosses none of them;
        # and none nearer than a run kept to that side by a box between (coming down to
        # it past the corner, that run crossed the nearer one going on into the side
        # beside: Wireless receivers' line, the console's and two more)
        fits = _entries_fit(frame, nid)
        runs = [run for run in runs if run[0] > kept.get((nid, side), -1.0)]
        chosen[(nid, side)] = runs[max(0, len(runs) - fits):] if fits else []
    for nid, runs in near.items():
        _step_out(scene, frame, routing, sides, spans, held, nid, runs, chosen)
    for (nid, side), runs in chosen.items():
        for k, (_, li, c) in enumerate(sorted(runs)):
            routing.side_entry[li] = (k, side)
            routing.ports[(li, "last")] = c
            ends = sides.get((nid, -1), [])
            ends[:] = [e for e in ends if not (e[1] == li and e[2] == "last")]
            if not ends:
                sides.pop((nid, -1), None)


def _entries_fit(frame: Frame, nid: str) -> int:
    """How many side entries one side of box ``nid`` holds (``HEAD_STEP`` apart, the first
    ``ENTRY_IN`` from its corner, none nearer the far corner than that)."""
    room = frame.item_of[nid].main - 2 * ENTRY_IN
    return int(room // HEAD_STEP) + 1 if room >= 0 else 0


def _straight_into(scene: Scene, frame: Frame, routing: Routing) -> dict[str, list]:
    """Per box, the straight connectors into the side the flow meets from a box of the
    rank before that is not in line with it (those in line are ``held``)."""
    out: dict[str, list] = {}
    for link in scene.links:
        plan = frame.plans[link.index]
        if link.index in routing.orthogonal or link.index in routing.waypoints or plan.kind != "chain" \
                or len(plan.items) != 2 or link.a == link.b:
            continue
        first, last = plan.items
        if abs(first.pos - last.pos) >= 0.5 and not scene.nodes[last.key].external:
            out.setdefault(last.key, []).append(link)
    return out


def _holds(scene: Scene, frame: Frame, nid: str, ends: list, straight: list) -> int:
    """How many ends the side the flow meets at box ``nid`` holds apart (``HEAD_STEP`` where
    one of its ``ends`` (routed) or ``straight`` lines has an arrowhead there, else
    ``PORT_STEP``)."""
    links = {link.index: link for link in scene.links}
    heads = any((lk.arrow_b if lk.b == nid else lk.arrow_a)
                for lk in [links[li] for _, li, _ in ends] + straight)
    room = max(0.0, _size(frame, scene.nodes[nid]) - 2 * PORT_MARGIN)
    return int(room // (HEAD_STEP if heads else PORT_STEP)) + 1


def _step_out(scene: Scene, frame: Frame, routing: Routing, sides: dict, spans: list,
              held: dict[tuple[str, int], list[float]], nid: str, runs: list, chosen: dict) -> None:
    """Hand on to the sides beside it (into ``chosen``) the ``runs`` coming in across the side
    the flow meets at box ``nid``, outermost first, while that side has more ends than
    it holds (see :func:`_side_entries`)."""
    item, box = frame.item_of[nid], scene.nodes[nid]
    taking = {li for group in chosen.values() for _, li, _ in group}
    ends = [e for e in sides.get((nid, -1), ()) if e[1] not in taking]
    straight = _straight_into(scene, frame, routing).get(nid, [])
    over = len(ends) + len(held.get((nid, -1), ())) + len(straight) - _holds(scene, frame, nid, ends, straight)
    if over <= 0:
        return
    half = _size(frame, box) / 2
    loops = {place for place, _level in frame.loop_side.get(nid) or ()}
    laned = {1 if routing.lanes[lk.index] > item.pos else -1
             for lk in scene.links if lk.index in routing.lanes and nid in (lk.a, lk.b)}
    gap = GAPX if frame.horizontal else GAPY
    for link in straight:
        # a straight line steep enough to meet a side beside the one the flow meets (its
        # ranks as near as they may stand): a run stepping out there passed under its head
        src = frame.plans[link.index].items[0]
        across = src.pos - item.pos
        if abs(across) * item.main / 2 > half * (item.main / 2 + src.main / 2 + gap):
            laned.add(1 if across > 0 else -1)
    fits = _entries_fit(frame, nid)
    for _, li, _c, side in sorted(runs, reverse=True):
        if over <= 0:
            break
        if side in laned or ("+c" if side > 0 else "-c") in loops:
            continue
        group = chosen.setdefault((nid, side), [])
        if len(group) >= fits:
            continue
        inner = [d for d, _, _ in group]
        out = half + TRACK * (1 + sum(1 for d in inner if d < half + TRACK))
        if inner and out > min(inner) - TRACK:
            continue
        c = item.pos + side * out
        lo, hi = sorted((item.pos + side * half, c + side * TRACK))
        if _box_between(spans, item, lo, hi):
            continue
        group.append((out, li, c))
        over -= 1


def _straight_landings(scene: Scene, frame: Frame, routing: Routing) -> dict[tuple[str, int], list[float]]:
    """Where straight connectors between two aligned boxes of neighbouring ranks meet
    them, per (box, side): the channel-routed ends of those sides keep off them."""
    pairs: dict[tuple[str, str], list] = {}
    for link in scene.links:
        plan = frame.plans[link.index]
        if plan.kind != "chain" or len(plan.items) != 2 or link.index in routing.orthogonal:
            continue
        first, last = plan.items
        if abs(first.pos - last.pos) < 0.5:
            pairs.setdefault((first.key, last.key), []).append(first.pos)
    out: dict[tuple[str, int], list[float]] = {}
    for (first, last), at in pairs.items():
        # several lines between one pair are drawn side by side, PARALLEL_STEP apart
        n = len(at)
        spread = [at[0] + (i - (n - 1) / 2) * PARALLEL_STEP for i in range(n)]
        out.setdefault((first, 1), []).extend(spread)
        out.setdefault((last, -1), []).extend(spread)
    return out


def _beside(ends: list, lines: list[float], centre: float, room: float, step: float) -> list[float] | None:
    """Ports for ``ends`` (sorted by where they come from) ``step`` apart beside the straight
    ``lines`` there (one aligned pair's, side by side), each on the side it comes from,
    closer together where the side's ``room`` is short; None with no straight line, or
    no room beside them."""
    if not lines:
        return None
    lo, hi = min(lines), max(lines)
    k = sum(1 for c, _, _ in ends if c < (lo + hi) / 2)
    n = len(ends) - k
    before = min(step, (lo - (centre - room / 2)) / k) if k else step
    after = min(step, ((centre + room / 2) - hi) / n) if n else step
    if before < 1.0 or after < 1.0:     # no room beside the lines on that side
        return None
    return [lo - before * (k - i) for i in range(k)] + [hi + after * (j + 1) for j in range(n)]


def _rank_ends(frame: Frame) -> list[tuple[float, float]]:
    """Each rank's first and last cross position taken: its items with the room beside them
    (self-loops), and the bands of the groups through it."""
    out = []
    for r, rank in enumerate(frame.ranks):
        spans = [(it.pos - it.size / 2 - getattr(it, "lead", 0.0), it.pos + it.size / 2 + getattr(it, "trail", 0.0))
                 for it in rank]
        spans += [(lane.open, lane.open + lane.size) for lane in frame.lanes.values() if r in lane.ranks]
        out.append((min((a for a, _b in spans), default=frame.cross_lo),
                    max((b for _a, b in spans), default=frame.cross_lo)))
    return out


def _lane_side(beyond: dict[int, int], ia, ib, mid: float) -> int:
    """The side a connector against the flow goes round on: the one where its two legs
    (after ``ia``'s rank, before ``ib``'s) cross fewer runs of other connectors
    (``beyond``, :func:`_leg_crossings`); on a tie the side nearer its ends."""
    if beyond[-1] != beyond[1]:
        return -1 if beyond[-1] < beyond[1] else 1
    return -1 if (ia.pos + ib.pos) / 2 <= mid else 1


def _leg_crossings(frame: Frame, ia, ib) -> dict[int, int]:
    """How many runs of other connectors a lane's two legs cross, going round on each
    side (-1, 1) (see :func:`_lane_side`)."""
    ca, cb = ia.pos, ib.pos
    beyond = {-1: 0, 1: 0}
    # a run is counted where it meets the leg: leaving the rank above the leg after
    # ``ia``, arriving at the rank below the leg before ``ib``
    for rank, c, below in ((ia.rank, ca, False), (ib.rank - 1, cb, True)):
        if not 0 <= rank < len(frame.ranks):
            continue
        for u in frame.ranks[rank]:
            for d in u.downs:
                if u is ia or d is ib:
                    continue
                at = d.pos if below else u.pos
                if at != c:
                    beyond[-1 if at < c else 1] += 1
    return beyond


def _unnest_sides(scene: Scene, frame: Frame, names: dict[int, str], legs: dict[int, dict[int, int]]) -> None:
    """Lanes on one side whose stretches of ranks overlap without one holding the other
    cross (the longer one's leg runs through the shorter's run), and so do two that
    meet at one rank, one ending there and the other starting (the one's leg in turns
    before that rank, the other's leg out after it: lines back into "neighbours left?"
    crossed its "no" going back up, twice), but where both meet one box that takes
    them by its side facing them (see :func:`_lane_sides`: the outermost box of its
    rank that way, neither an external nor, for the one leaving, a decision).  A lane
    (with the lanes merged with it) moves to the other side where that crosses fewer
    runs there, legs and lanes counted together, fewest ranks first (a roam back to the
    handshake crossed the deauthentication lane round the whole row; below, it crossed
    nothing)."""
    groups: dict[str, list] = {}
    for link in scene.links:
        plan = frame.plans[link.index]
        if plan.kind == "lane" and link.index in names:
            groups.setdefault(names[link.index], []).append(link)
    if len(groups) < 2:
        return
    reach, across, side, ends = {}, {}, {}, {}
    for g, links in groups.items():
        ranks = [frame.rank_of[e] for lk in links for e in (lk.a, lk.b)]
        reach[g] = (min(ranks), max(ranks))
        across[g] = {s: sum(legs[lk.index][s] for lk in links) for s in (-1, 1)}
        side[g] = frame.plans[links[0].index].side
        # the boxes it goes into and comes out of, at the ends of its stretch
        ends[g] = ({lk.b for lk in links if frame.rank_of[lk.b] == reach[g][0]},
                   {lk.a for lk in links if frame.rank_of[lk.a] == reach[g][1]})

    def by_side(nid: str, s: int, leaving: bool) -> bool:
        """Whether box ``nid`` takes a lane by its side facing side ``s`` of the figure."""
        item, box = frame.item_of[nid], scene.nodes[nid]
        if box.external or (leaving and box.shape == "diamond"):
            return False
        return not any(it.node is not None and (it.pos - item.pos) * s > 0 for it in frame.ranks[item.rank])

    def meet(into: str, out: str, s: int) -> bool:
        """Lane ``into`` ends at the rank where lane ``out`` starts: they cross unless both
        meet one box there that takes them by its side."""
        (boxes_in, _), (_, boxes_out) = ends[into], ends[out]
        if len(boxes_in) == 1 and boxes_in == boxes_out:
            (nid,) = boxes_in
            return not (by_side(nid, s, False) and by_side(nid, s, True))
        return True

    def crossed(g: str, s: int) -> int:
        lo, hi = reach[g]
        count = 0
        for h in groups:
            if h == g or side[h] != s:
                continue
            h_lo, h_hi = reach[h]
            if lo < h_lo < hi < h_hi or h_lo < lo < h_hi < hi:
                count += 1
            elif (lo == h_hi and h_lo < lo < hi and meet(g, h, s)) or (hi == h_lo and lo < hi < h_hi and meet(h, g, s)):
                count += 1
        return count

    for _ in range(UNNEST_PASSES):
        moved = False
        for g in sorted(groups, key=lambda g: reach[g][1] - reach[g][0]):
            s = side[g]
            if across[g][-s] + crossed(g, -s) < across[g][s] + crossed(g, s):
                side[g] = -s
                for lk in groups[g]:
                    frame.plans[lk.index].side = -s
                moved = True
        if not moved:
            break


#: Rounds of :func:`_unnest_sides` at most (each move lowers the crossings counted).
UNNEST_PASSES = 4


def _adjacent(frame: Frame, link: Link) -> bool:
    ia, ib = frame.item_of[link.a], frame.item_of[link.b]
    if ia.rank != ib.rank:
        return False
    rank = frame.ranks[ia.rank]
    lo, hi = sorted((ia.index, ib.index))
    return all(rank[k].node is None for k in range(lo + 1, hi))


def plan_jogs(scene: Scene, frame: Frame, routing: Routing) -> None:
    """The cross-direction runs every channel-routed connector needs, per channel."""
    routing.jogs, routing.channels, routing.tracks = {}, {}, {}
    for link in scene.links:
        if link.index not in routing.orthogonal:
            continue
        plan = frame.plans[link.index]
        jogs: list[Jog] = []
        if plan.kind == "chain":
            cs = [routing.ports[(link.index, "first")]]
            cs += [it.pos for it in plan.items[1:-1]]
            cs.append(routing.ports[(link.index, "last")])
            r0 = plan.items[0].rank
            bus = routing.bus.get(link.index)
            for k in range(len(cs) - 1):
                if abs(cs[k] - cs[k + 1]) > 0.5:
                    jogs.append(Jog(link.index, r0 + k, cs[k], cs[k + 1],
                                    bus=None if bus is None else f"{bus}@{r0 + k}", onward=True))
        elif plan.kind == "lane":
            lane = routing.lanes[link.index]
            ra, rb = frame.rank_of[link.a], frame.rank_of[link.b]
            bus = routing.bus.get(link.index)
            if link.index not in routing.side_exit:
                jogs.append(Jog(link.index, ra, routing.ports[(link.index, "first")], lane,
                                bus=None if bus is None else f"{bus}@{ra}"))
            if link.index not in routing.lane_entry:
                jogs.append(Jog(link.index, rb - 1, lane, routing.ports[(link.index, "last")],
                                bus=None if bus is None else f"{bus}@in",
                                order=routing.lane_order.get(link.index)))
        elif plan.kind == "same":
            r = frame.rank_of[link.a]
            jogs.append(Jog(link.index, r, routing.ports[(link.index, "first")],
                            routing.ports[(link.index, "last")]))
        routing.jogs[link.index] = jogs
        for j in jogs:
            routing.channels.setdefault(j.channel, []).append(j)
    for ch, jogs in routing.channels.items():
        # a merge bus takes one track for all its members (one interval, their union)
        units: list[list[Jog]] = []
        by_bus: dict[str, list[Jog]] = {}
        for j in jogs:
            if j.bus is None:
                units.append([j])
            elif j.bus in by_bus:
                by_bus[j.bus].append(j)
            else:
                by_bus[j.bus] = [j]
                units.append(by_bus[j.bus])

        def key(unit: list[Jog]):
            j = unit[0]
            down = j.c1 > j.c0
            c0 = j.c0 if j.order is None else j.order
            return (0 if down else 1, -c0 if down else c0, j.link)
        tracks = _Tracks()
        # two lines running on across the channel, one jogging down from above the
        # other's start to above its end, cross twice unless the upper one jogs farther
        # along the flow (a line from an event bus's upper port jogging down to the
        # nearest box took the first track, across the lines from the ports below it
        # jogging down farther); so too, mirrored, going up
        onward: list[tuple[bool, float, float, int]] = []   # (down, lo, hi, track) of those placed
        for unit in sorted(units, key=key):
            lo, hi = min(j.lo for j in unit), max(j.hi for j in unit)
            down = key(unit)[0] == 0
            after = -1
            if len(unit) == 1 and unit[0].onward:
                for d, a, b, t in onward:
                    if d == down and a < hi and lo < b and (b > hi if down else a < lo) and t > after:
                        after = t
            chosen = tracks.place(lo, hi, down, after)   # the first track it fits on (past after)
            if len(unit) == 1 and unit[0].onward:
                onward.append((down, lo, hi, chosen))
            for j in unit:
                j.track = chosen
        routing.tracks[ch] = len(tracks.tracks)


class _Track:
    """The runs one track of a channel holds, each kept more than 6 px clear of the
    others.  Being clear of each other, the runs sorted by start are sorted by end
    too, so a new run ``lo..hi`` need only be held against the last run starting
    (less the gap) at or before ``hi``: it fits when it starts beyond that run's end
    (plus the gap)."""

    __slots__ = ("starts", "ends")

    def __init__(self) -> None:
        self.starts: list[float] = []   # each run's start - 6, ascending
        self.ends: list[float] = []     # its end + 6, in the same order

    def fits(self, lo: float, hi: float) -> bool:
        k = bisect.bisect_right(self.starts, hi) - 1
        return k < 0 or lo > self.ends[k]

    def add(self, lo: float, hi: float) -> None:
        k = bisect.bisect_right(self.starts, lo - 6)
        self.starts.insert(k, lo - 6)
        self.ends.insert(k, hi + 6)


class _Tracks:
    """A channel's tracks, each run going on the first track it fits on.

    Trying every track in turn costs as many tests as there are tracks, and a wide
    fan's runs all overlap near the shared box, so the tests would grow with the
    square of the runs.  :func:`plan_jogs` hands the runs over as a sweep instead:
    those going down by falling start, then those going up by rising end.  Going
    down, a run lo..hi can meet only the runs ending at or after lo, and as lo only
    falls a run once *open* (ending at or after the sweep) stays open; lo..hi meets
    one of a track's open runs exactly when the lowest open start is at or before
    hi.  Each track therefore keeps the lowest start of its open runs, and a tree of
    maxima over the tracks finds, in a descent, the first track whose lowest open
    start lies beyond hi: the first track the run fits on.  Going up is the mirror
    image (every coordinate negated), begun afresh with the runs already placed
    waiting to open.  A run against the sweep (a merge bus's union can start
    beyond the last) or not plain (see :data:`_PLAIN`) tries every track in turn;
    after a run that is not plain, every later one does."""

    __slots__ = ("tracks", "sign", "sweep", "waiting", "size", "best", "plain")

    def __init__(self) -> None:
        self.tracks: list[_Track] = []
        self.sign = 1                  # 1 going down, -1 going up (coordinates negated)
        self.sweep = math.inf          # runs ending at or after it are open
        self.waiting: list = []        # (end, start, track) of runs not open yet, ends ascending
        self.size = 1                  # leaves the tree has room for
        self.best = [math.inf] * 2     # leaf size + t: track t's lowest open start (none: inf,
        self.plain = True              # so too for tracks not made yet); node k: the larger of
                                       # its children's, 2k and 2k + 1

    def place(self, lo: float, hi: float, down: bool = True, after: int = -1) -> int:
        """Put the run lo..hi on the first track it fits on (a new one if none); its index.
        ``down``: the sweep it belongs to (runs going down, then runs going up); ``after``:
        only a track beyond this one (the tracks from there are tried in turn)."""
        a, b = lo - 6, hi + 6   # the run as the track keeps it
        self.plain = self.plain and abs(a) < _PLAIN and abs(b) < _PLAIN
        if self.plain and self.sign != (1 if down else -1):
            self._turn()
        x0, x1 = (lo, hi) if self.sign > 0 else (-hi, -lo)   # as the sweep sees them
        swept = self.plain and x0 <= self.sweep
        if swept:
            self._open(x0)
        if swept and after < 0:
            t = self._first_above(x1)
        else:
            t = next((k for k in range(after + 1, len(self.tracks)) if self.tracks[k].fits(lo, hi)), -1)
        if t < 0 or t == len(self.tracks):
            t = len(self.tracks)
            self.tracks.append(_Track())
            if t >= self.size:
                self._grow()
        self.tracks[t].add(lo, hi)
        if self.plain:   # the run ends at or after x0, the sweep or beyond: open at once
            self._lower(t, a if self.sign > 0 else -b)
        return t

    def _turn(self) -> None:
        """Begin the other sweep: no run open, every one placed waiting."""
        self.sign = -self.sign
        self.sweep = math.inf
        self.waiting = sorted(
            (b, a, t) if self.sign > 0 else (-a, -b, t)
            for t, track in enumerate(self.tracks) for a, b in zip(track.starts, track.ends))
        self.best = [math.inf] * (2 * self.size)

    def _open(self, x0: float) -> None:
        """Move the sweep to x0, opening the runs that end at or after it."""
        self.sweep = x0
        waiting = self.waiting
        while waiting and waiting[-1][0] >= x0:
            _, s, t = waiting.pop()
            self._lower(t, s)

    def _first_above(self, x1: float) -> int:
        """The first track whose lowest open start is beyond x1 (one not made yet when
        none is), or -1 when the tree is full."""
        best, node = self.best, 1
        if best[1] <= x1:
            return -1
        while node < self.size:
            node *= 2
            if best[node] <= x1:
                node += 1
        return node - self.size

    def _lower(self, t: int, s: float) -> None:
        best = self.best
        node = self.size + t
        if s >= best[node]:
            return
        best[node] = s
        node //= 2
        while node and best[node] != max(best[2 * node], best[2 * node + 1]):
            best[node] = max(best[2 * node], best[2 * node + 1])
            node //= 2

    def _grow(self) -> None:
        old, self.size = self.best, self.size * 2
        self.best = [math.inf] * (2 * self.size)
        self.best[self.size:self.size + len(old) // 2] = old[len(old) // 2:]
        for node in range(self.size - 1, 0, -1):
            self.best[node] = max(self.best[2 * node], self.best[2 * node + 1])


# Below this size the 6 px kept round a run is exact enough that a track's runs, sorted
# by start, are sorted by end too, so a run meeting lo..hi means the track's last run
# starting by hi does (what :meth:`_Track.fits` reads, and what the sweep relies on).
_PLAIN = 1e15


def channel_need(scene: Scene, frame: Frame, routing: Routing) -> dict[int, float]:
    """Room each channel must give: its tracks, and the labels drawn in it.  Notes in
    ``routing.label_room`` the run a straight line's label takes in a channel of a flow
    right or left, where a jog would pass beside that label (:func:`_track_main` keeps the
    jogs out of it): not in a channel with port names at its ends, which stand in the
    near part themselves (jogs moved there struck them)."""
    need: dict[int, float] = {}
    for ch, count in routing.tracks.items():
        need[ch] = (count + 1) * TRACK
    straight: dict[int, list[tuple[float, float, float]]] = {}   # channel → (cross, height, run)
    ported: set[int] = set()
    for link in scene.links:
        plan = frame.plans[link.index]
        if plan.kind != "chain":
            continue
        ch = plan.items[0].rank
        room = 0.0
        if link.mid:
            room = _label_main(frame, link.mid, LABEL_FS) + 24
            # (a straight line between aligned boxes is not channel-routed: no port)
            cross = routing.ports.get((link.index, "first"), plan.items[0].pos)
            if frame.horizontal and len(plan.items) == 2 and not routing.jogs.get(link.index):
                tall = (link.mid.count("\n") + 1) * LABEL_FS * 1.3
                straight.setdefault(ch, []).append((cross, tall, room))
        ends = [t for t in (link.tail, link.head) if t]
        if ends:
            ported.update((ch, plan.items[-1].rank - 1))
        if ends and len(plan.items) == 2:
            room = max(room, sum(_label_main(frame, t, END_FS) + 14 for t in ends) + 16)
        if room:
            need[ch] = max(need.get(ch, 0.0), room + routing.tracks.get(ch, 0) * TRACK)
    for ch, labels in straight.items():
        if ch in ported:
            continue
        jogs = routing.channels.get(ch, ())
        runs = [room for c, tall, room in labels if _hemmed_near(jogs, c, tall + 4)]
        if runs:
            routing.label_room[ch] = max(runs)
    return need


def _hemmed_near(jogs, c: float, reach: float) -> bool:
    """Whether the level runs of ``jogs`` leave a straight line at cross ``c`` no room
    for its label (``reach`` deep) beside it in the channel's near part, on either
    side, while the far part leaves room on one: the runs before the jogs (at their
    start, ``c0``) come within ``reach`` of the line above it and below it, the runs
    after them (``c1``) not on both sides."""
    def sides(ends) -> tuple[bool, bool]:
        return (any(c - reach < e < c for e in ends), any(c < e < c + reach for e in ends))
    near = sides([j.c0 for j in jogs])
    far = sides([j.c1 for j in jogs])
    return all(near) and not all(far)


def _label_main(frame: Frame, text: str, size: float) -> float:
    if frame.horizontal:
        return label_px(text, size)
    return (text.count("\n") + 1) * size * 1.3


# --- polylines ----------------------------------------------------------------------


def _track_main(frame: Frame, routing: Routing, ch: int, track: int) -> float:
    count = max(1, routing.tracks.get(ch, 1))
    if ch < 0:
        start, width = 0.0, frame.rank_start[0] if frame.rank_start else 0.0
    elif ch + 1 < len(frame.rank_start):
        start = frame.rank_start[ch] + frame.rank_size[ch]
        width = frame.rank_start[ch + 1] - start
    else:
        start = frame.rank_start[ch] + frame.rank_size[ch]
        width = frame.main_total - start
    room = routing.label_room.get(ch)
    if room is not None and ch >= 0 and width - room + LABEL_GAP >= (count + 1) * TRACK:
        # (a flow right or left) the label of a straight line through the channel takes
        # its far part: the jogs go in the near part, so the lines beside it run level
        # past the label (a jog at the middle left it no room, and it stood by the
        # jogging line instead); in a flow down or up a label stands beside its line,
        # across the channel, and an exit label needs the near part
        width = width - room + LABEL_GAP
    return start + width * (track + 1) / (count + 1)


#: The part of a straight line's label run (:data:`Routing.label_room`) the jogs may share:
#: the margin kept round the label.
LABEL_GAP = 12.0


def _end_main(frame: Frame, box: Box, cross: float, side: int) -> float:
    """Main coordinate where a run at ``cross`` meets the box outline on ``side``."""
    rel = cross - (box.cy if frame.horizontal else box.cx)
    px, py = side_point(box, frame.horizontal, 1 if (side > 0) != frame.mirror else -1, rel)
    return frame.to_main_cross(px, py)[0]


def flow_polyline(scene: Scene, frame: Frame, routing: Routing, link: Link):
    """The connector as points in the flow frame, from ``a`` to ``b``."""
    plan = frame.plans[link.index]
    nodes = scene.nodes
    if plan.kind == "chain":
        first, last = nodes[plan.items[0].key], nodes[plan.items[-1].key]
        c_first = routing.ports[(link.index, "first")]
        c_last = routing.ports[(link.index, "last")]
        pts = _side_start(frame, routing, link, first) or [(_end_main(frame, first, c_first, 1), c_first)]
        jogs = {j.channel: j for j in routing.jogs[link.index]}
        cs = [c_first] + [it.pos for it in plan.items[1:-1]] + [c_last]
        r0 = plan.items[0].rank
        for k in range(len(cs) - 1):
            j = jogs.get(r0 + k)
            if j is not None:
                m = _track_main(frame, routing, j.channel, j.track)
                pts.append((m, cs[k]))
                pts.append((m, cs[k + 1]))
        pts.extend(_side_end(frame, routing, link, last, c_last)
                   or [(_end_main(frame, last, c_last, -1), c_last)])
        return pts[::-1] if plan.flipped else pts
    if plan.kind == "lane":
        a, b = nodes[link.a], nodes[link.b]
        ca = routing.ports[(link.index, "first")]
        cb = routing.ports[(link.index, "last")]
        jogs = routing.jogs[link.index]
        lane = routing.lanes[link.index]
        entry = routing.lane_entry.get(link.index)
        if entry is None:
            m1 = _track_main(frame, routing, jogs[-1].channel, jogs[-1].track)
            tail = [(m1, lane), (m1, cb), (_end_main(frame, b, cb, -1), cb)]
        else:
            shift = routing.lane_shift.get((link.index, "last"), 0.0)
            main = frame.to_main_cross(b.cx, b.cy)[0] + shift
            tail = [(main, lane), (main, _on_arc(frame, b, entry, shift))]
        start = _side_start(frame, routing, link, a)
        if start:
            return start + tail
        m0 = _track_main(frame, routing, jogs[0].channel, jogs[0].track)
        return [(_end_main(frame, a, ca, 1), ca), (m0, ca), (m0, lane)] + tail
    if plan.kind == "same":
        a, b = nodes[link.a], nodes[link.b]
        if _adjacent(frame, link):
            return None   # drawn across in x/y (see same_rank_line)
        ca = routing.ports[(link.index, "first")]
        cb = routing.ports[(link.index, "last")]
        (j,) = routing.jogs[link.index]
        m = _track_main(frame, routing, j.channel, j.track)
        return [(_end_main(frame, a, ca, 1), ca), (m, ca), (m, cb), (_end_main(frame, b, cb, 1), cb)]
    return None


def _on_arc(frame: Frame, box: Box, vertex: float, shift: float) -> float:
    """The cross coordinate where a lane ``shift`` off the middle of a side (at ``vertex``,
    its straight line) meets the outline: on a rounded box's corner arc, a little inside."""
    if not shift:
        return vertex
    half = (box.w if frame.horizontal else box.h) / 2
    inset = arc_inset(box, half, shift)
    centre = frame.to_main_cross(box.cx, box.cy)[1]
    return vertex - inset if vertex > centre else vertex + inset


def _side_start(frame: Frame, routing: Routing, link: Link, box: Box) -> list | None:
    """A side exit's first two points (see :func:`_side_exits`): the vertex, then the turn
    level with it; None for a connector leaving by its flow-facing side."""
    vertex = routing.side_exit.get(link.index)
    if vertex is None:
        return None
    k = routing.exit_slot.get(link.index)
    if k is None:   # a decision's vertex, or the side facing a lane, by its middle
        shift = routing.lane_shift.get((link.index, "first"), 0.0)
        main = frame.to_main_cross(box.cx, box.cy)[0] + shift
        vertex = _on_arc(frame, box, vertex, shift)
    else:   # k slots back from the flow-facing corner (see _side_leaves)
        centre = frame.to_main_cross(box.cx, box.cy)[1]
        face = _end_main(frame, box, centre, 1)
        back = 1.0 if face > _end_main(frame, box, centre, -1) else -1.0
        main = face - back * (ENTRY_IN + k * PORT_STEP)
    return [(main, vertex), (main, routing.ports[(link.index, "first")])]


def _side_end(frame: Frame, routing: Routing, link: Link, box: Box, cross: float) -> list | None:
    """A side entry's last two points (see :func:`_side_entries`): on along its run past
    the box's near corner, then into the side facing the run; None for a connector
    entering by the side the flow meets."""
    entry = routing.side_entry.get(link.index)
    if entry is None:
        return None
    k, side = entry
    m0 = frame.to_main_cross(box.x, box.y)[0]
    m1 = frame.to_main_cross(box.x + box.w, box.y + box.h)[0]
    main = min(m0, m1) + ENTRY_IN + k * HEAD_STEP
    x, y = frame.to_xy(main, 0.0)
    offset = (x - box.cx) if frame.horizontal else (y - box.cy)
    px, py = side_point(box, not frame.horizontal, side, offset)
    return [(main, cross), frame.to_main_cross(px, py)]


def same_rank_line(scene: Scene, frame: Frame, link: Link, slot: float) -> list:
    """Two adjacent boxes of one rank: straight across, ``slot`` off the shared centre."""
    a, b = scene.nodes[link.a], scene.nodes[link.b]
    if frame.horizontal:
        lo, hi = max(a.x, b.x), min(a.x + a.w, b.x + b.w)
        x = (lo + hi) / 2 + slot if lo < hi else (a.cx + b.cx) / 2
        down = b.cy > a.cy
        pa = side_point(a, False, 1 if down else -1, x - a.cx)
        pb = side_point(b, False, -1 if down else 1, x - b.cx)
        return [pa, pb]
    lo, hi = max(a.y, b.y), min(a.y + a.h, b.y + b.h)
    y = (lo + hi) / 2 + slot if lo < hi else (a.cy + b.cy) / 2
    right = b.cx > a.cx
    pa = side_point(a, True, 1 if right else -1, y - a.cy)
    pb = side_point(b, True, -1 if right else 1, y - b.cy)
    return [pa, pb]


def loop_polyline(frame: Frame, box: Box, k: int, side: str = "-c", small: bool = False) -> list:
    """The k-th self-loop of a box, on ``side`` ("+m"/"-m" along the flow, "+c"/"-c" across);
    ``small``: :data:`LOOP_SMALL` wide and out (where the full size meets another line)."""
    half = (LOOP_SMALL if small else LOOP_W) / 2 + 4 * k
    reach = (LOOP_SMALL if small else LOOP_H) + 2 + 8 * k
    along = side[1] == "m"
    sign = 1 if side[0] == "+" else -1
    if along and frame.mirror:
        sign = -sign
    horizontal_normal = along == frame.horizontal   # the loop sticks out along x
    if horizontal_normal:
        a = side_point(box, True, sign, -half)
        b = side_point(box, True, sign, half)
        out = box.x + box.w + reach if sign > 0 else box.x - reach
        return [a, (out, a[1]), (out, b[1]), b]
    a = side_point(box, False, sign, -half)
    b = side_point(box, False, sign, half)
    out = box.y + box.h + reach if sign > 0 else box.y - reach
    return [a, (a[0], out), (b[0], out), b]


def _exit(box: Box, px: float, py: float, dx: float, dy: float) -> tuple[float, float]:
    """Where the line (px, py) + t·(dx, dy), t ≥ 0, leaves the outline (worked out: see
    :func:`.graph.ray_exit`); a start outside it is its own answer."""
    if not outline_test(box)(px - box.cx, py - box.cy):
        return px, py
    t = ray_exit(box, px - box.cx, py - box.cy, dx, dy)
    return px + t * dx, py + t * dy


def straight_landing(scene: Scene, frame: Frame, routing: Routing, link: Link) -> list | None:
    """A straight line given a place among the channel-routed ports on its last box's side
    (see :func:`assign_ports`): from its first box's outline to that place, aimed from
    the first box's middle; None where the line would cross the last box to get there."""
    plan = frame.plans[link.index]
    first, last = scene.nodes[plan.items[0].key], scene.nodes[plan.items[-1].key]
    c = routing.landing[link.index]
    tx, ty = frame.to_xy(_end_main(frame, last, c, -1), c)
    start = _exit(first, first.cx, first.cy, tx - first.cx, ty - first.cy)
    if _enters(last, outline_test(last), start, (tx, ty)):
        return None
    pts = [start, (tx, ty)]
    return pts if plan.items[0].key == link.a else pts[::-1]


def straight_link(a: Box, b: Box, offset: float = 0.0) -> list:
    """Outline to outline along the centre line, shifted ``offset`` across it."""
    dx, dy = b.cx - a.cx, b.cy - a.cy
    if not offset:
        return centre_line(a, b)
    length = (dx * dx + dy * dy) ** 0.5 or 1.0
    ox, oy = -dy / length * offset, dx / length * offset
    pa = _exit(a, a.cx + ox, a.cy + oy, dx, dy)
    pb = _exit(b, b.cx + ox, b.cy + oy, -dx, -dy)
    return [pa, pb]
