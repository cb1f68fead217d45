"""Keeping engine-placed boxes out of group bands that pins have moved.

Auto layout never puts a non-member inside a band (groups are lanes).  Pins
can: a pinned member stretches its band over a box the engine placed.  Then
whoever the engine placed yields — the intruding box (with its whole group,
if it is in one) moves across the flow to just past the band's nearer edge.
A box the author placed never moves; that case is reported by
:mod:`.checks`.  The pass is bounded, and what it cannot clear is left for
the check to name.
"""

from __future__ import annotations

from .checks import bands
from .graph import Scene
from .layout import BAND

SEP = 16.0
PASSES = 12


def _positioned(scene: Scene, ident: str | None) -> bool:
    pin = scene.pins.get(ident) if ident is not None else None
    return bool(pin and pin.get("x") is not None)


def separate(scene: Scene, moved: set[str]) -> None:
    if not any(_positioned(scene, i) for i in list(scene.nodes) + list(scene.groups)):
        return
    if all(_positioned(scene, n.id) for n in scene.nodes.values() if not n.external):
        return
    for _ in range(PASSES):
        bands(scene)
        changed = False
        for gid, g in scene.groups.items():
            members = set(g.members)
            for n in scene.nodes.values():
                if g.box is None or n.external or n.id in members:
                    continue
                x0, y0, x1, y1 = g.box
                if not (n.x < x1 and n.x + n.w > x0 and n.y < y1 and n.y + n.h > y0):
                    continue
                unit = _movable_unit(scene, n)
                if unit is None:
                    continue
                _step_aside(scene, unit, n.group, moved)
                bands(scene)
                changed = True
        changed |= _bands_apart(scene, moved)
        changed |= _boxes_apart(scene, moved)
        if not changed:
            break
    bands(scene)


def _movable_unit(scene: Scene, n) -> list | None:
    """What moves when ``n`` has to: ``n`` alone, or its whole group; None when
    the author placed any of it."""
    if _positioned(scene, n.id):
        return None
    if n.group is None or n.group not in scene.groups:
        return [n]
    if _positioned(scene, n.group):
        return None
    unit = [scene.nodes[m] for m in scene.groups[n.group].members]
    if any(_positioned(scene, m.id) for m in unit):
        return None
    return unit


def _step_aside(scene: Scene, unit: list, gid: str | None, moved: set[str]) -> None:
    """Move ``unit`` across the flow by the smallest distance that leaves its
    footprint (its band, when it is a group) clear of every other box and band.

    Stepping only past the band it is in can land it in the next one, and the
    next pass moves it back: the search looks at everything at once, so a
    move never makes a new intrusion and the pass settles."""
    horizontal = scene.horizontal
    ids = {m.id for m in unit}
    fx0 = min(m.x for m in unit)
    fy0 = min(m.y for m in unit)
    fx1 = max(m.x + m.w for m in unit)
    fy1 = max(m.y + m.h for m in unit)
    if gid is not None:
        fx0, fy0, fx1, fy1 = fx0 - BAND["l"], fy0 - BAND["t"], fx1 + BAND["r"], fy1 + BAND["b"]
    obstacles = [o.rect() for o in scene.nodes.values() if not o.external and o.id not in ids]
    obstacles += [h.box for hid, h in scene.groups.items() if hid != gid and h.box is not None]
    # along the flow the footprint stays where it is; across it, each obstacle that
    # shares some of its span along the flow rules out an open range of shifts
    a_lo, a_hi, c_lo, c_hi = (fx0, fx1, fy0, fy1) if horizontal else (fy0, fy1, fx0, fx1)
    blocked = []
    for ox0, oy0, ox1, oy1 in obstacles:
        o_alo, o_ahi, o_clo, o_chi = (ox0, ox1, oy0, oy1) if horizontal else (oy0, oy1, ox0, ox1)
        if o_ahi + SEP <= a_lo or o_alo - SEP >= a_hi:
            continue
        blocked.append(((o_clo - SEP) - c_hi, (o_chi + SEP) - c_lo))
    candidates = sorted({e for pair in blocked for e in pair}, key=lambda s: (abs(s), s < 0))
    shift = next(s for s in candidates if not any(lo < s < hi for lo, hi in blocked))
    for m in unit:
        if horizontal:
            m.y += shift
        else:
            m.x += shift
        moved.add(m.id)


def _fixed_group(scene: Scene, gid: str) -> bool:
    return _positioned(scene, gid) or any(_positioned(scene, m) for m in scene.groups[gid].members)


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
            for m in h.members:
                n = scene.nodes[m]
                if horizontal:
                    n.x += shift
                else:
                    n.y += shift
                moved.add(m)
            bands(scene)
            return True
    return False


def _boxes_apart(scene: Scene, moved: set[str]) -> bool:
    """An engine-placed box that an author-placed one runs into PARTLY steps aside,
    across the flow (with its group, if it has one).  A box the pin covers
    completely is not moved: that is pin rot, which :mod:`.checks` reports."""
    horizontal = scene.horizontal
    changed = False
    real = [n for n in scene.nodes.values() if not n.external]
    for p in real:
        if not _positioned(scene, p.id):
            continue
        for n in real:
            if n is p or _positioned(scene, n.id):
                continue
            if not (n.x < p.x + p.w + 8 and p.x < n.x + n.w + 8 and n.y < p.y + p.h + 8 and p.y < n.y + n.h + 8):
                continue
            if n.x >= p.x and n.y >= p.y and n.x + n.w <= p.x + p.w and n.y + n.h <= p.y + p.h:
                continue
            unit = [n]
            if n.group is not None and n.group in scene.groups:
                if _positioned(scene, n.group) or any(_positioned(scene, m) for m in scene.groups[n.group].members):
                    continue
                unit = [scene.nodes[m] for m in scene.groups[n.group].members]
            lo = min((m.y if horizontal else m.x) for m in unit)
            hi = max((m.y + m.h if horizontal else m.x + m.w) for m in unit)
            p_lo, p_hi = (p.y, p.y + p.h) if horizontal else (p.x, p.x + p.w)
            down = (p_hi + SEP) - lo
            up = (p_lo - SEP) - hi
            shift = down if abs(down) <= abs(up) else up
            for m in unit:
                if horizontal:
                    m.y += shift
                else:
                    m.x += shift
                moved.add(m.id)
            changed = True
    return changed
