"""Square indexes: what a big figure's checks ask of "what is near here".

A question about one place (does this line meet a box, which labels does this one
overlap, which box could cover this corner) would read every box, label or line of
the figure, and a figure asks it once per box, label or line: time growing with the
square of its size.  An index buckets each item under the squares of a grid (side
``side``) that its rectangle touches; a question reads only the squares its own
rectangle touches.  Every item that shares a point with the question's rectangle
shares a square with it, so the items read include every one the plain scan would
have found (and perhaps a few more): callers judge each by their own exact test,
and their answers (and so the drawing's bytes) are the plain scan's.

Coordinates can be anything the language allows (a box pinned billions of pixels
away): an item over more than ``most`` squares, or with a coordinate not below
``plain`` in size (not finite, by default), is read by every question, and a
question over as many reads every item, so the work stays bounded by the number of
items whatever the numbers.
"""

from __future__ import annotations

import math

Span = tuple[int, int, int, int]


def span(x0: float, y0: float, x1: float, y1: float, side: float, most: int | None,
         plain: float = math.inf) -> Span | None:
    """The squares (first and last column, first and last row) of side ``side`` that
    the closed rectangle x0..x1 × y0..y1 touches (its corners in either order); None
    when a coordinate is not below ``plain`` in size or they are more than ``most``
    (None: no limit)."""
    if not (abs(x0) < plain and abs(y0) < plain and abs(x1) < plain and abs(y1) < plain):
        return None
    i0, i1 = math.floor(x0 / side), math.floor(x1 / side)
    j0, j1 = math.floor(y0 / side), math.floor(y1 / side)
    if i0 > i1:
        i0, i1 = i1, i0
    if j0 > j1:
        j0, j1 = j1, j0
    if most is not None and (i1 - i0 + 1) * (j1 - j0 + 1) > most:
        return None
    return i0, j0, i1, j1


class SquareIndex:
    """Items bucketed by the squares their rectangles touch (see the module docstring).

    :meth:`near` gives, in the order they were added and each once, every item that
    may share a point with the question's rectangle."""

    __slots__ = ("side", "most", "plain", "items", "cells", "wide")

    def __init__(self, side: float, most: int, plain: float = math.inf) -> None:
        self.side, self.most, self.plain = side, most, plain
        self.items: list = []
        self.cells: dict[tuple[int, int], list[int]] = {}
        self.wide: list[int] = []   # items every question reads

    def add(self, item, *rects: tuple[float, float, float, float]) -> None:
        """Index ``item`` under every square one of ``rects`` touches."""
        k = len(self.items)
        self.items.append(item)
        squares: set[tuple[int, int]] = set()
        for rect in rects:
            s = span(*rect, self.side, self.most, self.plain)
            if s is None:
                self.wide.append(k)
                return
            i0, j0, i1, j1 = s
            squares.update((i, j) for i in range(i0, i1 + 1) for j in range(j0, j1 + 1))
        cells = self.cells
        for square in sorted(squares):
            bucket = cells.get(square)
            if bucket is None:
                cells[square] = [k]
            else:
                bucket.append(k)

    def near(self, x0: float, y0: float, x1: float, y1: float) -> list:
        """The items that may share a point with the rectangle x0..x1 × y0..y1 (every
        item when the rectangle is over too many squares, or not plain)."""
        s = span(x0, y0, x1, y1, self.side, self.most, self.plain)
        if s is None:
            return self.items
        i0, j0, i1, j1 = s
        cells = self.cells
        found = list(self.wide)
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                bucket = cells.get((i, j))
                if bucket is not None:
                    found.extend(bucket)
        if len(found) > 1:
            found = sorted(set(found))
        items = self.items
        return [items[k] for k in found]
