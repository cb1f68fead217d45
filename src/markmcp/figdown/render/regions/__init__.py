"""Typed regions, stacked below the scene in document order: ``bitfield``,
``table``, ``timing`` (experimental) and ``chart`` (experimental).  Each
returns its markup, the y it ends at, the width it uses and — for the marks
that target a region — the frame of its data.  Each is bounded, and so is what
they draw together in one document (:mod:`.bound`)."""

from __future__ import annotations

from collections.abc import Iterable

from ..block import Block
from . import bitfield, bound, chart, table, timing


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


def cells(region: dict, model: dict) -> int:
    """What ``region`` counts against :data:`.bound.MAX_DOCUMENT_CELLS` (one it does not refuse)."""
    kind = region.get("genre")
    if kind == "bitfield":
        return bitfield.cells(region)
    if kind == "table":
        return table.cells(region)
    if kind == "timing":
        return timing.cells(region)
    if kind == "chart":
        return chart.bars(region, model) * bound.CHART_BAR_CELLS
    return 0


def _what(region: dict) -> str:
    if region.get("genre") == "chart":
        return f'chart of table "{region.get("table", "")}"'
    return f'{region.get("genre")} "{region.get("id", "")}"'


def document_bound(models: Iterable[dict]) -> tuple[int, int, str] | None:
    """The first region (in document order, across the sections) that takes what the
    document's regions draw together past :data:`.bound.MAX_DOCUMENT_CELLS`, as
    (section index, section-relative line, message); None when the document is within it.
    A region its own bound refuses draws nothing and counts nothing."""
    total = 0
    for k, model in enumerate(models):
        for region in model.get("regions", ()):
            if diagnostics(region, model):
                continue
            total += cells(region, model)
            if total > bound.MAX_DOCUMENT_CELLS:
                return (k, region.get("line", 1),
                        f"{_what(region)} takes what this document's typed regions draw to {total} cells, "
                        f"more than one document draws (at most {bound.MAX_DOCUMENT_CELLS}: bit cells, table "
                        f"cells, timing cycles × signals, {bound.CHART_BAR_CELLS} per chart bar); the figure "
                        "is not drawn rather than cut short.")
    return None
