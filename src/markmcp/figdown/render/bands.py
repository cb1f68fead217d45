"""A ``band`` (experimental): the stretch of its target it shades, and its edge.

A band covers ``from``..``to`` percent of a box, grown from the side its
``extend`` names (``up`` unless written).  The scene draws bands over nodes
and groups, the page over typed regions; both take the geometry from here.
"""

from __future__ import annotations

from .svg import dash


def band_rect(band: dict, x0: float, y0: float, x1: float, y1: float):
    """The rectangle of a band over a target box: ``extend`` is the side it grows from."""
    w, h = x1 - x0, y1 - y0
    lo, hi = band["from"], band["to"]
    side = band.get("extend") or "up"
    if side == "up":
        return x0, y1 - h * hi / 100, w, h * (hi - lo) / 100
    if side == "down":
        return x0, y0 + h * lo / 100, w, h * (hi - lo) / 100
    if side == "right":
        return x0 + w * lo / 100, y0, w * (hi - lo) / 100, h
    return x1 - w * hi / 100, y0, w * (hi - lo) / 100, h


def band_edge(band: dict):
    if band.get("stroke") is None and band.get("style") is None:
        return ()
    return (("stroke", band.get("stroke") or "#8a8880"), ("stroke-dasharray", dash(band.get("style"))))
