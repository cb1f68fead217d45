"""Keeping group bands to their members once pins have moved boxes.

Auto layout never puts a non-member inside a band (groups are lanes).  Pins
can: a pinned member stretches its band over a box the engine placed, or a
pinned box lands where the engine put a group.  Then whatever the engine
placed yields, to the nearest place clear of every other box and band: the
intruding box (with its whole group, if it is in one); failing that the
group; failing that, the group's engine-placed members, when the pinned ones
alone do not reach the intruder.  A box the engine placed that a pinned box
runs into steps aside too (with its group when the engine placed all of it,
else alone), and nothing that moves lands on another box, the engine's or
the author's: two boxes overlap only where pins put both.  A box the author
placed never moves; what is left is reported by :mod:`.checks`.  The work is
bounded (passes, and places tried per group and per box), and what it cannot
clear is left for the check to name.
"""

from __future__ import annotations

from .checks import bands, positioned
from .graph import Scene
from .layout import BAND

SEP = 16.0
PASSES = 12
TRIALS = 48      # places tried for a group's engine-placed members, or for a box (bounded work)


def separate(scene: Scene, moved: set[str]) -> None:
    if not any(positioned(scene, i) for i in list(scene.nodes) + list(scene.groups)):
        return
    if all(positioned(scene, n.id) for n in scene.nodes.values() if not n.external):
        return
    for _ in range(PASSES):
        bands(scene)
        changed = False
        tried: set[str] = set()
        for gid, g in scene.groups.items():
            members = set(g.members)
            for n in scene.nodes.values():
                if g.box is None or n.external or n.id in members:
                    continue
                x0, y0, x1, y1 = g.box
                if not (n.x < x1 and n.x + n.w > x0 and n.y < y1 and n.y + n.h > y0):
                    continue
                unit = movable_unit(scene, n)
                owner = n.group if n.group in scene.groups else None
                if unit is None:   # the author placed the intruder: the group yields, if it can
                    unit, owner = _movable_group(scene, gid), gid
                if unit is not None:
                    _step_aside(scene, unit, owner, moved)
                else:
                    if gid in tried:   # one try per group and pass: a success clears the whole band
                        continue
                    tried.add(gid)
                    if not _pull_in(scene, gid, n, moved):
                        continue
                bands(scene)
                changed = True
        changed |= _bands_apart(scene, moved)
        changed |= _boxes_apart(scene, moved)
        changed |= _joined_apart(scene, moved)
        if not changed:
            break
    bands(scene)


def movable_unit(scene: Scene, n) -> list | None:
    """What moves when ``n`` has to: ``n`` alone, or its whole group; None when
    the author placed any of it."""
    if positioned(scene, n.id):
        return None
    if n.group is None or n.group not in scene.groups:
        return [n]
    if positioned(scene, n.group):
        return None
    unit = [scene.nodes[m] for m in scene.groups[n.group].members]
    if any(positioned(scene, m.id) for m in unit):
        return None
    return unit


def _movable_group(scene: Scene, gid: str) -> list | None:
    """A group's members, when the engine placed all of them (and the group)."""
    if _fixed_group(scene, gid):
        return None
    return [scene.nodes[m] for m in scene.groups[gid].members]


def overlaps(a, b, margin: float = 0.0) -> bool:
    """Do rectangles ``a`` and ``b`` come closer than ``margin``?"""
    return a[0] - margin < b[2] and b[0] < a[2] + margin and a[1] - margin < b[3] and b[1] < a[3] + margin


def _pull_in(scene: Scene, gid: str, n, moved: set[str]) -> bool:
    """The author placed ``n`` and some of group ``gid``'s members; the engine
    placed the rest, and it is their extent that reaches ``n``.  Move those
    members together by the least distance (across the flow before along it)
    that leaves the band clear of every non-member and them clear of every
    other box and band.  False when no such place is found among the
    candidates (then the check reports the pin)."""
    g = scene.groups[gid]
    if positioned(scene, gid):
        return False
    members = [scene.nodes[m] for m in g.members]
    fixed = [m for m in members if positioned(scene, m.id)]
    free = [m for m in members if not positioned(scene, m.id)]
    if not fixed or not free:
        return False
    fixed_box = extent(fixed)
    if overlaps(pad(fixed_box), n.rect()):
        return False    # the author's own members reach it: nothing to move
    ids = {m.id for m in members}
    others = [o.rect() for o in scene.nodes.values() if not o.external and o.id not in ids]
    obstacles = others + [h.box for hid, h in scene.groups.items() if hid != gid and h.box is not None]
    obstacles += [m.rect() for m in fixed]   # the moved members keep clear of the pinned ones too
    free_box = extent(free)
    free_rects = [m.rect() for m in free]
    trials = []   # (distance, along the flow, backwards, axis, shift); axis 0 moves x, 1 moves y
    for axis in (0, 1):
        lo, hi = free_box[axis], free_box[axis + 2]
        shifts = {fixed_box[axis] - lo, fixed_box[axis + 2] - hi}
        for o in obstacles:
            shifts |= {(o[axis + 2] + SEP) - lo, (o[axis] - SEP) - hi}
        along = (axis == 0) == scene.horizontal
        trials += [(abs(s), along, s < 0, axis, s) for s in shifts]
    for *_, axis, shift in sorted(trials)[:TRIALS]:
        dx, dy = (0.0, shift) if axis else (shift, 0.0)
        fb = (free_box[0] + dx, free_box[1] + dy, free_box[2] + dx, free_box[3] + dy)
        band = pad((min(fixed_box[0], fb[0]), min(fixed_box[1], fb[1]),
                     max(fixed_box[2], fb[2]), max(fixed_box[3], fb[3])))
        if any(overlaps(band, o) for o in others):
            continue
        near = [o for o in obstacles if overlaps(fb, o, SEP / 2)]
        if any(overlaps((r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy), o, SEP / 2)
               for r in free_rects for o in near):
            continue
        for m in free:
            m.x += dx
            m.y += dy
            moved.add(m.id)
        return True
    return False


def _shift(nodes: list, shift: float, *, along_y: bool, moved: set[str]) -> None:
    """Move ``nodes`` by ``shift`` along one axis and note them as moved."""
    for n in nodes:
        if along_y:
            n.y += shift
        else:
            n.x += shift
        moved.add(n.id)


def extent(boxes: list) -> tuple[float, float, float, float]:
    """The rectangle the boxes cover together."""
    return (min(b.x for b in boxes), min(b.y for b in boxes),
            max(b.x + b.w for b in boxes), max(b.y + b.h for b in boxes))


def _cover(rects: list) -> tuple[float, float, float, float]:
    """The rectangle the rectangles ``(x0, y0, x1, y1)`` cover together."""
    return (min(r[0] for r in rects), min(r[1] for r in rects),
            max(r[2] for r in rects), max(r[3] for r in rects))


def pad(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """A group's band around its members' extent ``box``."""
    return (box[0] - BAND["l"], box[1] - BAND["t"], box[2] + BAND["r"], box[3] + BAND["b"])


def _step_aside(scene: Scene, unit: list, gid: str | None, moved: set[str]) -> None:
    """Move ``unit`` across the flow by the smallest distance that leaves its
    footprint (its band, when it is a group) clear of every other box and band.

    Stepping only past the band it is in can land it in the next one, and the
    next pass moves it back: the search looks at everything at once, so a
    move never makes a new intrusion and the pass settles."""
    foot, obstacles = _footing(scene, unit, gid)
    shift = _clear_shifts(scene, foot, obstacles, across=True)[0]
    _shift(unit, shift, along_y=scene.horizontal, moved=moved)


def _footing(scene: Scene, unit: list, gid: str | None, own: str | None = None) -> tuple:
    """What ``unit`` occupies (its band, when it is group ``gid``) and what it must
    keep clear of: every other box, and every band but its own (``gid``, or the
    group ``own`` that a lone member stays in)."""
    ids = {m.id for m in unit}
    foot = pad(extent(unit)) if gid is not None else extent(unit)
    obstacles = [o.rect() for o in scene.nodes.values() if not o.external and o.id not in ids]
    obstacles += [h.box for hid, h in scene.groups.items()
                  if hid not in (gid, own) and h.box is not None]
    return foot, obstacles


def _clear_shifts(scene: Scene, foot: tuple, obstacles: list, *, across: bool) -> list[float]:
    """The shifts along one axis (across the flow, or along it) that leave the
    rectangle ``foot`` ``SEP`` clear of every obstacle, nearest first (forward
    before backward on a tie).  Never empty: past the farthest obstacle is clear.

    Each obstacle that shares some of the footprint's span on the other axis
    rules out an open range of shifts; the candidates are those ranges' ends."""
    move_y = scene.horizontal == across
    f_lo, f_hi, s_lo, s_hi = (foot[1], foot[3], foot[0], foot[2]) if move_y else \
        (foot[0], foot[2], foot[1], foot[3])
    blocked = []
    for ox0, oy0, ox1, oy1 in obstacles:
        o_lo, o_hi, o_slo, o_shi = (oy0, oy1, ox0, ox1) if move_y else (ox0, ox1, oy0, oy1)
        if o_shi + SEP <= s_lo or o_slo - SEP >= s_hi:
            continue
        blocked.append(((o_lo - SEP) - f_hi, (o_hi + SEP) - f_lo))
    candidates = sorted({e for pair in blocked for e in pair}, key=lambda s: (abs(s), s < 0))
    return [s for s in candidates if not any(lo < s < hi for lo, hi in blocked)] or [0.0]


def _fixed_group(scene: Scene, gid: str) -> bool:
    return positioned(scene, gid) or any(positioned(scene, m) for m in scene.groups[gid].members)


def _bands_apart(scene: Scene, moved: set[str]) -> bool:
    """An engine-placed group whose band runs into an author-placed one steps
    back along the flow, away from it."""
    bands(scene)
    horizontal = scene.horizontal
    for gid, g in scene.groups.items():
        for hid, h in scene.groups.items():
            if gid == hid or g.box is None or h.box is None:
                continue
            if not _fixed_group(scene, gid) or _fixed_group(scene, hid):
                continue
            a, b = g.box, h.box
            if not (a[0] - SEP < b[2] and b[0] < a[2] + SEP and a[1] - SEP < b[3] and b[1] < a[3] + SEP):
                continue
            if horizontal:
                after = (b[0] + b[2]) >= (a[0] + a[2])
                shift = (a[2] + 2 * SEP - b[0]) if after else (a[0] - 2 * SEP - b[2])
            else:
                after = (b[1] + b[3]) >= (a[1] + a[3])
                shift = (a[3] + 2 * SEP - b[1]) if after else (a[1] - 2 * SEP - b[3])
            _shift([scene.nodes[m] for m in h.members], shift, along_y=not horizontal, moved=moved)
            bands(scene)
            return True
    return False


def _boxes_apart(scene: Scene, moved: set[str]) -> bool:
    """An engine-placed box that an author-placed one runs into PARTLY steps aside
    (with its group, when the engine placed all of it; alone, staying in its band,
    when the author placed some of the members) to where it lands on no other box
    (:func:`_aside`).  A box the pin covers completely is not moved: that is pin
    rot, which :mod:`.checks` reports; nor is one that a group pin placed."""
    changed = False
    real = [n for n in scene.nodes.values() if not n.external]
    for p in real:
        if not positioned(scene, p.id):
            continue
        for n in real:
            if n is p or positioned(scene, n.id):
                continue
            if not (n.x < p.x + p.w + 8 and p.x < n.x + n.w + 8 and n.y < p.y + p.h + 8 and p.y < n.y + n.h + 8):
                continue
            if n.x >= p.x and n.y >= p.y and n.x + n.w <= p.x + p.w and n.y + n.h <= p.y + p.h:
                continue
            unit, gid, own = [n], None, None
            if n.group is not None and n.group in scene.groups:
                if positioned(scene, n.group):
                    continue
                if any(positioned(scene, m) for m in scene.groups[n.group].members):
                    own = n.group
                else:
                    unit, gid = [scene.nodes[m] for m in scene.groups[n.group].members], n.group
            found = _aside(scene, p, unit, gid, own)
            if found is None:
                continue
            dx, dy = found
            for m in unit:
                m.x += dx
                m.y += dy
                moved.add(m.id)
            changed = True
    return changed


#: The least gap along the flow between an author-placed box and an engine-placed one
#: joined to it: room for an arrowhead (10 px) with a shaft before it.
FLOW_GAP = 24.0


def _joined_apart(scene: Scene, moved: set[str]) -> bool:
    """An engine-placed box joined by a connector to an author-placed one, beside it
    along the flow and closer than :data:`FLOW_GAP`, steps back along the flow to that
    gap (with its group, when the engine placed all of it), where it lands ``SEP``
    clear of every other box and band: a gateway left 8 px before a pinned broker drew
    an arrowhead with no shaft."""
    horizontal = scene.horizontal
    for link in scene.links:
        for a, b in ((link.a, link.b), (link.b, link.a)):
            p, n = scene.nodes[a], scene.nodes[b]
            if a == b or p.external or n.external or not positioned(scene, a) or positioned(scene, b):
                continue
            # along the flow (x in a flow right or left) and across it
            p_lo, p_hi, n_lo, n_hi = (p.x, p.x + p.w, n.x, n.x + n.w) if horizontal else \
                (p.y, p.y + p.h, n.y, n.y + n.h)
            pc_lo, pc_hi, nc_lo, nc_hi = (p.y, p.y + p.h, n.y, n.y + n.h) if horizontal else \
                (p.x, p.x + p.w, n.x, n.x + n.w)
            if nc_hi <= pc_lo or pc_hi <= nc_lo:
                continue
            if 0.0 <= p_lo - n_hi < FLOW_GAP:
                shift = -(FLOW_GAP - (p_lo - n_hi))
            elif 0.0 <= n_lo - p_hi < FLOW_GAP:
                shift = FLOW_GAP - (n_lo - p_hi)
            else:
                continue
            unit, gid = [n], None
            if n.group is not None and n.group in scene.groups:
                if _fixed_group(scene, n.group):
                    continue
                unit, gid = [scene.nodes[m] for m in scene.groups[n.group].members], n.group
            foot, obstacles = _footing(scene, unit, gid)
            dx, dy = (shift, 0.0) if horizontal else (0.0, shift)
            landed = (foot[0] + dx, foot[1] + dy, foot[2] + dx, foot[3] + dy)
            if any(overlaps(landed, o, SEP) for o in obstacles if not overlaps(foot, o, SEP)):
                continue
            _shift(unit, shift, along_y=not horizontal, moved=moved)
            bands(scene)
            return True
    return False


def _aside(scene: Scene, p, unit: list, gid: str | None, own: str | None) -> tuple[float, float] | None:
    """The displacement :func:`_boxes_apart` gives ``unit`` to clear ``p``: just past
    ``p`` across the flow, on the nearer side, when that lands on no other box; else
    the nearest place ``SEP`` clear of every box and band, across the flow before
    along it.  A lone member of group ``own`` also keeps that group's band off every
    non-member the other members' band is clear of; None when no candidate does."""
    if own is not None:   # the outsiders the other members' band already meets are the author's doing
        stay = [m.rect() for m in (scene.nodes[i] for i in scene.groups[own].members) if m is not unit[0]]
        kept = pad(_cover(stay))
        outsiders = [o.rect() for o in scene.nodes.values() if not o.external and o.group != own]
        outsiders = [o for o in outsiders if not overlaps(kept, o)]

    def fits(dx: float, dy: float) -> bool:
        if own is None:
            return True
        r = unit[0].rect()
        rects = stay + [(r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy)]
        return not any(overlaps(pad(_cover(rects)), o) for o in outsiders)

    horizontal = scene.horizontal
    lo = min((m.y if horizontal else m.x) for m in unit)
    hi = max((m.y + m.h if horizontal else m.x + m.w) for m in unit)
    p_lo, p_hi = (p.y, p.y + p.h) if horizontal else (p.x, p.x + p.w)
    down, up = (p_hi + SEP) - lo, (p_lo - SEP) - hi
    shift = down if abs(down) <= abs(up) else up
    dx, dy = (0.0, shift) if horizontal else (shift, 0.0)
    ids = {m.id for m in unit}
    others = [o.rect() for o in scene.nodes.values() if not o.external and o.id not in ids]
    if fits(dx, dy) and not any(overlaps((r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy), o)
                                for r in (m.rect() for m in unit) for o in others):
        return dx, dy
    foot, obstacles = _footing(scene, unit, gid, own)
    for across in (True, False):
        move_y = horizontal == across
        for shift in _clear_shifts(scene, foot, obstacles, across=across)[:TRIALS]:
            dx, dy = (0.0, shift) if move_y else (shift, 0.0)
            if fits(dx, dy):
                return dx, dy
    return None
