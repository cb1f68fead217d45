"""Typed regions, stacked below the scene in document order: ``bitfield``,
``table``, ``timing`` (experimental) and ``chart`` (experimental).  Each
returns its markup, the y it ends at, the width it uses and — for the marks
that target a region — the frame of its data.  Each is bounded (:mod:`.bound`)."""

from __future__ import annotations

from ..block import Block
from . import bitfield, chart, table, timing


def render(region: dict, model: dict, classes: dict, y0: float, prefix: str = "") -> Block:
    kind = region.get("genre")
    if kind == "bitfield":
        return bitfield.render(region, classes, y0)
    if kind == "table":
        return table.render(region, classes, y0)
    if kind == "timing":
        return timing.render(region, classes, y0, prefix)
    if kind == "chart":
        return chart.render(region, model, y0)
    return Block("", y0, 0.0)


def diagnostics(region: dict, model: dict) -> list[tuple[int, str]]:
    """What :func:`render` reports for ``region`` (wherever it stands), without drawing
    it: a refusal when it goes past its kind's bound."""
    kind = region.get("genre")
    if kind == "bitfield":
        return bitfield.diagnostics(region)
    if kind == "table":
        return table.diagnostics(region)
    if kind == "timing":
        return timing.diagnostics(region)
    if kind == "chart":
        return chart.diagnostics(region, model)
    return []
