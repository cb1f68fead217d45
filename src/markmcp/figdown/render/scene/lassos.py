"""Keeping bundle lassos to their members (FigDown's lasso-truth rule).

A bundle's lasso is the drawn extent of its member links, so a box drawn
wholly inside the ring reads as one of the members.  Where the engine chose
that box's position it moves the box out, before the ring is judged; what it
cannot move, or has no room for, is left for :func:`.checks.lasso_enclosures`
to refuse.

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
  check refuses the figure.

Nothing moves further than that: the ring of a bundle whose members fan round
a bystander spans the fan, so the room beside it is where the outermost
members already are, and the figure is refused rather than redrawn around a
pushed-about box.  The caller reroutes the connectors of what moved and asks
again, a bounded number of times (the ring follows its member links, so it
is recomputed after every step).
"""

from __future__ import annotations

from .checks import bands, encloses, real_boxes
from .graph import Scene
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
