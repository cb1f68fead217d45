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
