"""What a genre renderer hands back to the page.

The scene, the sequence ladder and each typed region draw into a
:class:`Block`; :mod:`.page` stacks the blocks of one section and never
looks inside the markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Block:
    """What a genre renderer hands back: markup, the y it ended at, the width it used."""

    svg: str
    y: float
    w: float
    box: dict | None = None  # a region's frame, for the marks that target it
    diags: list[tuple[int, str]] = field(default_factory=list)  # section-relative lines


DRAWABLE = 1e15
"""The largest number (px) a drawing takes from its source (a pin's coordinate, a table
column's width, a bitfield's word, a chart's value): 400 digits are an infinite number, and
the page's width could not be drawn.  Past it the figure is refused on the source line."""


@dataclass
class Budget:
    """What the sections drawn before this one have used of the document's bounds: the
    items its scenes laid out and the rows its ladders drew.  A renderer within its bound
    adds what it uses; one past it is refused and adds nothing."""

    layered: int = 0
    rows: int = 0
