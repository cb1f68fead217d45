"""Keeping bundle lassos to their members (FigDown's lasso-truth rule).

A bundle's lasso is the drawn extent of its member links, so a box drawn
wholly inside the ring reads as one of the members.  Where the engine chose
that box's position it moves the box out, before the ring is judged; what it
cannot move, or has no room for, gets a ring fitted round it instead
(:func:`refit`), and only what no ring round the member links avoids is left
for :func:`.checks.lasso_enclosures` to refuse.  A ring that misses one of its
own member links is fitted afresh the same way (:func:`refit`).

The move, one step of it:

* only the intruder yields — the box alone, or its whole group when it is in
  one (half a group would reshape that group's band); never anything the
  author placed (the box, its group, or any of the group's members pinned);
* it goes across the flow, to just clear of the ring's axis-aligned extent
  (outside that box is outside the ring whatever the ring's tilt), the nearer
  side first;
* only into room that is already free: the moved footprint (the band, for a
  group) keeps ``SEP`` clear of every other box and band, does not land
  inside another lasso, and does not go before the cross-flow edge the
  layout started from.  When neither side qualifies the step declines — a
  separation that overlaps or squeezes the figure is no separation — and the
  ring is refitted, or the check refuses the figure.

Nothing moves further than that: the ring of a bundle whose members fan round
a bystander spans the fan, so the room beside it is where the outermost
members already are, and the ring is refitted (or the figure refused) rather
than redrawn around a pushed-about box.  The caller reroutes the connectors of
what moved and asks again, a bounded number of times (the ring follows its
member links, so it is recomputed after every step).
"""

from __future__ import annotations

import itertools
import math

from .checks import bands, encloses, real_boxes
from .graph import Scene
from .marks import Ring
from .separate import extent, movable_unit, overlaps, pad

SEP = 16.0
PASSES = 8


def cross_start(scene: Scene) -> float:
    """The smallest cross-flow coordinate of any box: a moved box stays past it."""
    real = real_boxes(scene)
    if not real:
        return 0.0
    return min((n.y if scene.horizontal else n.x) for n in real)


def _moved(rect, dx: float, dy: float):
    return (rect[0] + dx, rect[1] + dy, rect[2] + dx, rect[3] + dy)


def step(scene: Scene, rings: list, cross0: float) -> dict[str, tuple[float, float]]:
    """Move every engine-placed box a lasso encloses to just clear of that lasso,
    where there is room; the displacement of each box moved."""
    shifted: dict[str, tuple[float, float]] = {}
    lassos = [r for r in rings if not r.solo]
    if not lassos:
        return shifted
    horizontal = scene.horizontal
    real = real_boxes(scene)
    bands(scene)
    for ring in lassos:
        for n in real:
            if n.id in ring.members or not encloses(ring, n.rect()):
                continue
            unit = movable_unit(scene, n)
            if unit is None:
                continue
            gid = n.group if n.group in scene.groups else None
            ids = {m.id for m in unit}
            ux0, uy0, ux1, uy1 = extent(unit)
            foot = pad((ux0, uy0, ux1, uy1)) if gid is not None else (ux0, uy0, ux1, uy1)
            hw, hh = ring.half_extent()
            if horizontal:
                lo, hi, u_lo, u_hi = ring.cy - hh, ring.cy + hh, uy0, uy1
            else:
                lo, hi, u_lo, u_hi = ring.cx - hw, ring.cx + hw, ux0, ux1
            after, before = (hi + SEP) - u_lo, (lo - SEP) - u_hi
            others = [o.rect() for o in real if o.id not in ids]
            others += [g.box for k, g in scene.groups.items() if k != gid and g.box is not None]
            for d in sorted((after, before), key=lambda s: (abs(s), s < 0)):
                if u_lo + d < cross0 - 0.01:
                    continue    # never before the edge the layout started from
                dx, dy = (0.0, d) if horizontal else (d, 0.0)
                if any(overlaps(_moved(foot, dx, dy), o, SEP) for o in others):
                    continue
                if any(encloses(r, _moved(m.rect(), dx, dy)) for r in lassos
                       for m in unit if m.id not in r.members):
                    continue
                for m in unit:
                    m.x += dx
                    m.y += dy
                    px, py = shifted.get(m.id, (0.0, 0.0))
                    shifted[m.id] = (px + dx, py + dy)
                bands(scene)
                break
    return shifted


# --- a ring fitted round the bystander --------------------------------------------------
#
# What the step cannot clear (a pinned box, or one with no room beside the ring)
# may still lie outside another ring round the same links.  A lasso says "these
# links": a ring holding one point of every member link says it as truly as the
# ring through their midpoints.  So a ring that still encloses a non-member is
# fitted afresh: one point on each member link at one of REFIT_AT (fractions of
# the link's length), and rings along those points' spread, centred two ways, at
# each of REFIT_MARGINS and REFIT_STRETCH (see _fits).  A fit qualifies only
# when it meets no non-member box at all (not only when it does not enclose one:
# a ring cutting through a bystander reads no better); of those, the one the
# fewest other connectors run through wins (a ring reads as gathering what runs
# through it), then the one meeting the fewest member boxes, then the smallest,
# then the first tried.  When none qualifies the ring stays as it was and the
# check refuses the figure.
#
# A ring one of whose member links does not come inside it is fitted afresh the
# same way: it sits on the members' common run, and a link that shares none (a
# short one beside long ones, one routed round boxes away from the others) can
# pass it by.  Every fit tried holds a point of each member link.  When no fit
# meets no non-member, one that encloses none will do (the lasso-truth rule asks
# no more); when every fit encloses one, the ring round the members' midpoints
# is drawn up and the check refuses the figure, naming what it encloses.  A ring
# that holds all its member links and encloses no non-member is never refitted.

REFIT_AT = (0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9)
REFIT_MARGINS = ((18.0, 12.0), (9.0, 6.0))   # (along the points' spread, across it)
REFIT_STRETCH = (1.0, 1.6)   # the ring's aspect, times that of the points' extent
REFIT_COMBINATIONS = 343     # beyond this many, every member link takes the same fraction


def refit(scene: Scene, rings: list, only_missing: bool = False) -> None:
    """Refit, in place, every ring that encloses a non-member or misses one of its
    member links, where a ring round the same links does neither (see above).
    With ``only_missing`` only rings that miss a member link are refitted: the
    step pass asks this first, so the ring it clears is the one that is drawn."""
    real = real_boxes(scene)
    for ring in rings:
        if ring.solo or len(ring.links) < 2:
            continue
        outsiders = [n.rect() for n in real if n.id not in ring.members]
        missing = not holds(ring)
        if not missing and (only_missing or not any(encloses(ring, r) for r in outsiders)):
            continue
        mine = {id(link) for link in ring.links}
        others = [(_bounds(link.points), link.points) for link in scene.links
                  if id(link) not in mine and len(link.points) >= 2]
        members = [n.rect() for n in real if n.id in ring.members]
        fit = _best_fit(ring, outsiders, members, others, _touches)
        if fit is None and missing:
            fit = _best_fit(ring, outsiders, members, others, encloses) or _fallback(ring)
        if fit is not None:
            ring.cx, ring.cy, ring.ux, ring.uy, ring.r_along, ring.r_across = fit


def holds(ring) -> bool:
    """Does every member link's drawn polyline come inside the ring?"""
    return all(len(link.points) >= 2 and _crosses(ring, link.points) for link in ring.links)


def _fallback(ring):
    """The first ring tried round the members' midpoints: it holds every member
    link, and the non-member it encloses is what the check then names."""
    return next(_fits(_choices(ring)[0]))


def _point_at(points, t: float) -> tuple[float, float]:
    """The point ``t`` of the way along the polyline's length."""
    lengths = [math.hypot(q[0] - p[0], q[1] - p[1]) for p, q in zip(points, points[1:])]
    goal, run = sum(lengths) * t, 0.0
    for (p, q), length in zip(zip(points, points[1:]), lengths):
        if length > 0 and run + length >= goal:
            f = (goal - run) / length
            return p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f
        run += length
    return points[-1]


def _choices(ring) -> list[tuple[tuple[float, float], ...]]:
    """One point per member link, in every combination of REFIT_AT (or, past
    REFIT_COMBINATIONS, the same fraction on every link)."""
    along = [[_point_at(link.points, t) for t in REFIT_AT] for link in ring.links]
    if len(REFIT_AT) ** len(along) > REFIT_COMBINATIONS:
        return [tuple(pts[k] for pts in along) for k in range(len(REFIT_AT))]
    return list(itertools.product(*along))


def _fits(pts):
    """``(cx, cy, ux, uy, r_along, r_across)`` of each ring tried round the points.

    Every one has its long axis along the points' spread (the half-angle of their
    doubled mean direction, the way rings take their tilt) and is centred on the
    points' extent or on their mean; for each stretch it just holds the farthest
    point at the aspect of the points' extent times the stretch, then each margin
    grows it."""
    n = len(pts)
    mx, my = sum(p[0] for p in pts) / n, sum(p[1] for p in pts) / n
    c2 = sum((p[0] - mx) ** 2 - (p[1] - my) ** 2 for p in pts)
    s2 = 2 * sum((p[0] - mx) * (p[1] - my) for p in pts)
    norm = math.sqrt(c2 * c2 + s2 * s2)
    if norm < 1e-9:
        wx, wy = 1.0, 0.0
    else:
        cc = c2 / norm
        wx, wy = math.sqrt(max(0.0, (1 + cc) / 2)), math.sqrt(max(0.0, (1 - cc) / 2))
        if s2 < 0:
            wy = -wy
    along = [wx * p[0] + wy * p[1] for p in pts]
    across = [-wy * p[0] + wx * p[1] for p in pts]
    for ca, cb in (((min(along) + max(along)) / 2, (min(across) + max(across)) / 2),
                   (sum(along) / n, sum(across) / n)):
        half_long = max(abs(a - ca) for a in along)
        half_short = max(abs(b - cb) for b in across)
        cx, cy = wx * ca - wy * cb, wy * ca + wx * cb
        for stretch in REFIT_STRETCH:
            if half_short < 1e-9 or half_long < 1e-9:
                aspect, reach = 0.0, max(half_long, half_short)
            else:
                aspect = half_short / half_long * stretch
                reach = max(math.hypot(a - ca, (b - cb) / aspect) for a, b in zip(along, across))
            for m_long, m_short in REFIT_MARGINS:
                # a ring's own axis (ux, uy) crosses its links: here, across the spread
                yield cx, cy, -wy, wx, aspect * reach + m_short, reach + m_long


def _bounds(points) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def _crosses(ring, points) -> bool:
    """Does the polyline come inside the ring?  (In the ring's own frame, where
    it is the unit circle: is some segment nearer the centre than 1?)"""
    local = [((ring.ux * (x - ring.cx) + ring.uy * (y - ring.cy)) / ring.r_along,
              (-ring.uy * (x - ring.cx) + ring.ux * (y - ring.cy)) / ring.r_across) for x, y in points]
    for (px, py), (qx, qy) in zip(local, local[1:]):
        dx, dy = qx - px, qy - py
        run = dx * dx + dy * dy
        t = 0.0 if run == 0 else min(1.0, max(0.0, -(px * dx + py * dy) / run))
        if (px + dx * t) ** 2 + (py + dy * t) ** 2 < 1.0:
            return True
    return False


def _touches(ring, rect) -> bool:
    """Does the ring's inside meet the rectangle ``(x0, y0, x1, y1)``?  (Both are
    convex: either the ring's centre is in the rectangle or an edge comes inside.)"""
    x0, y0, x1, y1 = rect
    if x0 <= ring.cx <= x1 and y0 <= ring.cy <= y1:
        return True
    return _crosses(ring, ((x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)))


def _best_fit(ring, outsiders: list, member_rects: list, others: list, bars):
    """The best of the rings tried (see above) that ``bars`` (ring, rect) holds
    true of no outsider; None when every one is barred."""
    best = None
    probe = Ring(ring.id, ring.line, ring.members, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0)
    for k, pts in enumerate(_choices(ring)):
        for fit in _fits(pts):
            probe.cx, probe.cy, probe.ux, probe.uy, probe.r_along, probe.r_across = fit
            hw, hh = probe.half_extent()
            reach = (probe.cx - hw, probe.cy - hh, probe.cx + hw, probe.cy + hh)
            size = fit[4] * fit[5]
            if best is not None and best[0][:2] == (0, 0) and size >= best[0][2]:
                continue    # a clear ring at least as small is already in hand
            if any(overlaps(reach, r, 0.0) and bars(probe, r) for r in outsiders):
                continue
            # the key, counted only as far as it can still beat the best in hand
            cap = best[0] if best is not None else (math.inf, math.inf)
            through = _count(((box, points) for box, points in others if overlaps(reach, box, 0.0)),
                             lambda item: _crosses(probe, item[1]), cap[0])
            if through > cap[0]:
                continue
            met = _count((r for r in member_rects if overlaps(reach, r, 0.0)),
                         lambda r: _touches(probe, r), cap[1] if through == cap[0] else math.inf)
            key = (through, met, size, k)
            if best is None or key < best[0]:
                best = (key, fit)
    return None if best is None else best[1]


def _count(items, test, cap) -> float:
    """How many of ``items`` pass ``test``, counted no further than one past ``cap``."""
    n = 0
    for item in items:
        if test(item):
            n += 1
            if n > cap:
                break
    return n
