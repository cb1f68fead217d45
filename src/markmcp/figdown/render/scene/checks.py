"""Geometry refusals: what a drawing would state that its source does not.

``parse`` cannot see a coordinate, so three defects exist only in the final
geometry, and each refuses the figure instead of drawing it:

* a box drawn completely over another, unless the author placed both (then
  document order is paint order and the cover is the author's statement);
* a group band (the bounding box of its members) meeting a non-member;
* a bundle lasso (the drawn extent of its member links) wholly enclosing a
  non-member.

Whoever chose the position answers for it: when a pin is involved the message
names the pin, otherwise it says the layout could not separate them.  The
wording is FigDown's, pinned by its conformance files.
"""

from __future__ import annotations

from .graph import Scene
from .layout import BAND
from .squares import SquareIndex

COVER_CELL = 96.0     # side of a square of the boxes' index in complete_covers
COVER_SQUARES = 4096  # a box over more squares than this is read for every box


def bands(scene: Scene) -> None:
    """Each group's band: its members' bounding box plus the band padding."""
    for g in scene.groups.values():
        members = [scene.nodes[m] for m in g.members]
        if not members:
            g.box = None
            continue
        g.box = (min(m.x for m in members) - BAND["l"], min(m.y for m in members) - BAND["t"],
                 max(m.x + m.w for m in members) + BAND["r"], max(m.y + m.h for m in members) + BAND["b"])


def _pin_line(scene: Scene, ident: str) -> int | None:
    pin = scene.pins.get(ident)
    return None if pin is None else pin.get("line")


def positioned(scene: Scene, ident: str | None) -> bool:
    """Whether the author gave ``ident`` (a box or a group) a position with a pin."""
    pin = scene.pins.get(ident) if ident is not None else None
    return bool(pin and pin.get("x") is not None)


def real_boxes(scene: Scene) -> list:
    """The boxes drawn with an extent (not the outside world's stand-ins, not empty)."""
    return [n for n in scene.nodes.values() if not n.external and n.w > 0 and n.h > 0]


def encloses(ring, rect) -> bool:
    """Is the rectangle ``(x0, y0, x1, y1)`` wholly inside the ring (all four corners)?"""
    x0, y0, x1, y1 = rect
    return all(ring.inside(px, py) for px, py in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)))


def band_enclosures(scene: Scene) -> list[tuple[int, str]]:
    out = []
    for gid, g in scene.groups.items():
        if g.box is None:
            continue
        x0, y0, x1, y1 = g.box
        members = set(g.members)
        for n in scene.nodes.values():
            if n.external or n.id in members:
                continue
            if not (n.x < x1 and n.x + n.w > x0 and n.y < y1 and n.y + n.h > y0):
                continue
            who = None
            if positioned(scene, n.id):
                who = n.id
            elif n.group is not None and positioned(scene, n.group):
                who = n.group
            elif positioned(scene, gid):
                who = gid
            else:
                who = next((m for m in g.members if positioned(scene, m)), None)
            if who is not None:
                line = _pin_line(scene, who) or g.line
                out.append((line, f'pin puts "{n.id}" inside the band of group "{gid}" — a band is '
                                  "the bounding box of the group's members, so this draws "
                                  f'"{n.id}" as one of them. Move the pin clear of the group\'s '
                                  f"extent, or say what the drawing says with in={gid}."))
            else:
                out.append((g.line, f'group "{gid}" would enclose non-member "{n.id}" and the '
                                    "layout pass could not separate them; the figure is not drawn "
                                    f'rather than drawn wrongly. Give "{n.id}" a pin outside the '
                                    f"group, or add it with in={gid}."))
    return out


def _covering(real: list) -> list[list[int]]:
    """For each box of ``real``, the positions (ascending) of the boxes that might
    cover it: those whose extent, widened by the 0.01 px the test allows, holds its
    top-left corner (a box that covers another holds that corner), read from a
    square index (:mod:`.squares`) rather than every box."""
    index = SquareIndex(COVER_CELL, COVER_SQUARES)
    for k, b in enumerate(real):
        index.add(k, (b.x - 0.01, b.y - 0.01, b.x + b.w + 0.01, b.y + b.h + 0.01))
    return [index.near(a.x, a.y, a.x, a.y) for a in real]


def complete_covers(scene: Scene) -> list[tuple[int, str]]:
    real = real_boxes(scene)
    out = []
    for a, near in zip(real, _covering(real)):
        for k in near:
            b = real[k]
            if a is b:
                continue
            if not (a.x >= b.x - 0.01 and a.y >= b.y - 0.01 and a.x + a.w <= b.x + b.w + 0.01
                    and a.y + a.h <= b.y + b.h + 0.01):
                continue
            pa, pb = positioned(scene, a.id), positioned(scene, b.id)
            if pa and pb:
                continue
            who = b.id if pb else (a.id if pa else None)
            line = _pin_line(scene, who) if who is not None else a.line
            head = "pin puts" if who is not None else "the layout puts"
            advice = (f'Move the pin off "{a.id}", or pin "{a.id}" too if the cover is deliberate — '
                      "document order is paint order (`PAINT-ORDER-CONSTRUCT`), so two author-placed "
                      "boxes may overlap however the author says."
                      if who is not None else "Pin one of them clear of the other.")
            out.append((line, f'{head} "{b.id}" completely over "{a.id}" — a node drawn entirely '
                              f'inside another is invisible, so the figure states that "{a.id}" is '
                              f"not there. {advice} Partial overlap is not this error; only a "
                              "complete cover is."))
    return out


def lasso_enclosures(scene: Scene, rings: list) -> list[tuple[int, str]]:
    out = []
    real = real_boxes(scene)
    for ring in rings:
        if ring.solo:
            continue
        members = ring.members
        member_pinned = any(positioned(scene, m) for m in members)
        for n in real:
            if n.id in members:
                continue
            if not encloses(ring, n.rect()):
                continue
            bid = ring.id
            if positioned(scene, n.id) or member_pinned:
                out.append((ring.line, f'the lasso for bundle "{bid}" would enclose non-member '
                                       f'"{n.id}" — a lasso is the drawn extent of the bundle\'s '
                                       f'members, so this draws "{n.id}" as one of them. Move the '
                                       f'pin clear of the bundle\'s extent, or change what "{bid}" '
                                       "collects so the lasso is its members' own. The figure is not "
                                       "drawn rather than drawn wrongly."))
            else:
                out.append((ring.line, f'the lasso for bundle "{bid}" would enclose non-member '
                                       f'"{n.id}" and the layout pass could not separate them; the '
                                       "figure is not drawn rather than drawn wrongly. Give "
                                       f'"{n.id}" a pin outside the bundle\'s extent, or add its '
                                       f'link to "{bid}".'))
    return out
