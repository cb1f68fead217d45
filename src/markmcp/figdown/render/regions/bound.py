"""The bounds of the typed regions' drawings, and the refusal they share.

Each region kind bounds its own drawing (``bitfield.MAX_CELLS``,
``table.MAX_CELLS``, ``timing.MAX_CELLS``, ``chart.MAX_BARS``).  A region past its bound is refused
with a diagnostic on its line: the figure is not drawn, and a check (which does
not draw) reports the same line.
"""

from __future__ import annotations

from ..block import Block


def refused(line: int, message: str) -> Block:
    """A region refused on ``line`` (section-relative): no markup, one diagnostic."""
    return Block("", 0.0, 0.0, diags=[(line, f"{message}; the figure is not drawn rather than cut short.")])
