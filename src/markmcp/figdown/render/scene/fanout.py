"""Crowded arrowheads at one side of a box, joined into one fan-out bus.

Several routed lines with an arrowhead at the same box (``<->`` lines from an
instrument middleware to four analysers) leave its flow-facing side one beside
the other, each along the flow and then turning the same way across it.  Where
that side is too short for their heads :data:`~.route.HEAD_STEP` apart they were
drawn 5 px apart, four heads in one smudge.  Alike lines (one stroke and dash,
no label of their own to place, no end label at the box) then leave the box from
one port, the middle of theirs, and run on as one trunk, each turning off where
it turned before: one arrowhead at the box, a junction dot where each branch
leaves (``_bus_dots``).  The join is kept only where it crosses no more lines and
passes through no box.
"""

from __future__ import annotations

from .free import Boxes, segments_cross
from .graph import Scene, side_point
from .route import HEAD_STEP
from .squares import SquareIndex

#: The fewest lines a fan-out bus joins, and the most (past that many heads at one
#: side no single trunk is asked for, and the crossings are not counted pair by pair).
FAN_LEAST, FAN_MOST = 2, 64


def split_departures(scene: Scene, horizontal: bool, paths: dict[int, list], boxes: Boxes) -> None:
    """Join the crowded, alike lines with an arrowhead at one side of a box into one
    fan-out bus (see the module's text); their ``bus`` names it and ``splits`` says
    they share their first point or their last."""
    along = 0 if horizontal else 1
    across = 1 - along
    groups: dict[tuple, list] = {}
    for link in scene.links:
        if link.a == link.b or link.bus is not None or link.mid:
            continue
        pts = paths.get(link.index)
        if pts is None or len(pts) < 3:
            continue
        for nid, head, label, seq in ((link.a, link.arrow_a, link.tail, pts),
                                      (link.b, link.arrow_b, link.head, pts[::-1])):
            if not head or label or scene.nodes[nid].external:
                continue
            start, turn, run = seq[0], seq[1], seq[2]
            if abs(start[across] - turn[across]) > 0.01 or abs(turn[along] - run[along]) > 0.01 \
                    or abs(turn[along] - start[along]) < 0.01 or abs(run[across] - turn[across]) < 0.01:
                continue   # not a run along the flow, then a turn across it
            key = (nid, turn[along] > start[along], run[across] > turn[across], link.stroke, link.style)
            groups.setdefault(key, []).append((start[across], link, seq is pts))
    if not groups:
        return
    # what each group asks about, indexed: the lines at a box, and the lines near a place
    # (every group read every line: 400 lines took 0.7 s here, growing with its square)
    touching: dict[str, list] = {}
    near = SquareIndex(CELL, MOST_SQUARES)
    for link in scene.links:
        touching.setdefault(link.a, []).append(link)
        touching.setdefault(link.b, []).append(link)
        _index(near, link.index, paths.get(link.index) or [])
    for key, members in sorted(groups.items(), key=lambda item: min(lk.index for _c, lk, _f in item[1])):
        members = [m for m in members if m[1].bus is None]   # (not joined at its other end)
        if not FAN_LEAST <= len(members) <= FAN_MOST:
            continue
        members.sort(key=lambda m: (m[0], m[1].index))
        ports = [c for c, _lk, _first in members]
        if all(b - a >= HEAD_STEP - 0.01 for a, b in zip(ports, ports[1:])):
            continue   # their heads stand apart
        if _between(scene, paths, touching[key[0]], key[0], key[1], along, across, ports,
                    {lk.index for _c, lk, _f in members}):
            continue   # another line's end stands among theirs
        box = scene.nodes[key[0]]
        trunk = sum(ports) / len(ports)
        port = side_point(box, horizontal, 1 if key[1] else -1, trunk - (box.cy if horizontal else box.cx))
        _join(scene, paths, key[0], members, port, across, key[2], boxes, near)


#: The index's square side (px) and the most squares a segment is kept under.
CELL, MOST_SQUARES = 64.0, 1024


def _index(near: SquareIndex, index: int, pts: list) -> None:
    """Keep connector ``index`` under the squares its segments ``pts`` touch."""
    for p, q in zip(pts, pts[1:]):
        near.add(index, (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1])))


def _between(scene: Scene, paths: dict[int, list], links: list, nid: str, outward: bool, along: int,
             across: int, ports: list[float], joined: set[int]) -> bool:
    """Whether a line not among ``joined`` (of the ``links`` at box ``nid``) ends on the
    same side of the box (the one facing ``outward`` along the flow) between the first
    and last of ``ports``."""
    lo, hi = ports[0] - 0.5, ports[-1] + 0.5
    box = scene.nodes[nid]
    centre = box.cx if along == 0 else box.cy
    for link in links:
        pts = paths.get(link.index)
        if link.index in joined or not pts:
            continue
        for end, p in ((link.a, pts[0]), (link.b, pts[-1])):
            if end == nid and (p[along] > centre) == outward and lo <= p[across] <= hi:
                return True
    return False


def _join(scene: Scene, paths: dict[int, list], nid: str, members: list, port: tuple[float, float],
          across: int, onward: bool, boxes: Boxes, near: SquareIndex) -> None:
    """Give each member a first run from ``port`` (its turn the same way still) and keep
    the lot only where they cross no more other lines than before and meet no box."""
    trunk = port[across]
    joined = {lk.index for _c, lk, _first in members}
    new: dict[int, list] = {}
    for _c, link, first in members:
        seq = paths[link.index] if first else paths[link.index][::-1]
        turn = list(seq[1])
        turn[across] = trunk
        if (seq[2][across] > trunk) != onward or abs(seq[2][across] - trunk) < 0.01:
            return   # the trunk lies beyond where it turns to
        moved = [port, tuple(turn)] + list(seq[2:])
        new[link.index] = moved if first else moved[::-1]
    if any(boxes.hits(new[lk.index], (lk.a, lk.b)) for _c, lk, _f in members):
        return
    pts = [p for i in joined for p in paths[i]] + [p for i in joined for p in new[i]]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    others = [(p, q) for i in sorted(set(near.near(min(xs), min(ys), max(xs), max(ys))) - joined)
              for p, q in zip(paths[i], paths[i][1:])]
    if _crossings(new, others) > _crossings({i: paths[i] for i in joined}, others):
        return
    key = f"{nid}<{members[0][1].index}"   # (a merge bus's is "target>first member")
    for _c, link, first in members:
        paths[link.index] = new[link.index]
        _index(near, link.index, new[link.index])
        link.bus = key
        link.splits = first


def _crossings(lines: dict[int, list], others: list) -> int:
    """How many times the polylines of ``lines`` cross the segments ``others`` and one
    another."""
    segs = [(i, p, q) for i, pts in lines.items() for p, q in zip(pts, pts[1:])]
    n = sum(1 for _i, p, q in segs for c, d in others if segments_cross(p, q, c, d))
    n += sum(1 for k, (i, p, q) in enumerate(segs) for j, c, d in segs[k + 1:]
             if i != j and segments_cross(p, q, c, d))
    return n
