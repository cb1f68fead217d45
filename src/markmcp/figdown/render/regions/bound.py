"""The bounds of the typed regions' drawings, and the refusal they share.

Each region kind bounds its own drawing (``bitfield.MAX_CELLS``,
``table.MAX_CELLS``, ``timing.MAX_CELLS``, ``chart.MAX_BARS``), and a document
bounds what all its regions draw together (:data:`MAX_DOCUMENT_CELLS`), so many
regions each under its own bound cannot add up to a drawing of gigabytes either.
A region past a bound is refused with a diagnostic on its line: the figure is not
drawn, and a check (which does not draw) reports the same line.
"""

from __future__ import annotations

from ..block import Block

MAX_DOCUMENT_CELLS = 65_536
"""The most cells all the typed regions of one document draw together (every section):
bit cells, table cells, timing cycles × signals (and gaps), and :data:`CHART_BAR_CELLS`
per chart bar — as many as one bitfield at its own bound."""

CHART_BAR_CELLS = 16
"""What one chart bar counts against :data:`MAX_DOCUMENT_CELLS`: a bar is three faces,
and each axis name is placed against the faces around it, so a bar costs far more than a
cell of a table."""


def refused(line: int, message: str) -> Block:
    """A region refused on ``line`` (section-relative): no markup, one diagnostic."""
    return Block("", 0.0, 0.0, diags=[(line, f"{message}; the figure is not drawn rather than cut short.")])
