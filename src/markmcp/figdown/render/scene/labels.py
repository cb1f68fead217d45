"""Where connector text goes: mid labels, end labels, external names.

Every label is placed by trying a short, fixed list of candidate boxes beside
its own connector and keeping the cheapest: a box over a node, another label
or a connector costs a lot; a box whose centre is nearly as close to another
connector as to its own (so a reader cannot tell which line it names) costs
too; otherwise nearer the middle of its run is better.  The list order breaks
ties, so placement is deterministic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..text import label_px
from .free import seg_hits_rect

Rect = tuple[float, float, float, float]
GOOD = 5.0    # a candidate this cheap collides with nothing


@dataclass
class Label:
    text: str
    size: float
    cx: float = 0.0
    cy: float = 0.0
    w: float = 0.0
    h: float = 0.0
    anchor: str = "middle"
    colour: str = "#555"
    port: str | None = None     # data-port-sq key of the fitting it names

    @property
    def rect(self) -> Rect:
        return (self.cx - self.w / 2, self.cy - self.h / 2, self.cx + self.w / 2, self.cy + self.h / 2)

    @property
    def x(self) -> float:
        if self.anchor == "start":
            return self.cx - self.w / 2
        if self.anchor == "end":
            return self.cx + self.w / 2
        return self.cx

    @property
    def y(self) -> float:
        """The text baseline reference (multi-line text is centred on it)."""
        return self.cy + 0.3 * self.size


def measure(text: str, size: float) -> tuple[float, float]:
    n = text.count("\n") + 1
    return label_px(text, size), (n - 1) * size * 1.3 + size * 1.1


def overlap(a: Rect, b: Rect, eps: float = 1.0) -> bool:
    return a[0] + eps < b[2] and b[0] + eps < a[2] and a[1] + eps < b[3] and b[1] + eps < a[3]


def seg_dist(px: float, py: float, a, b) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    l2 = dx * dx + dy * dy
    if l2 < 1e-9:
        return math.sqrt((px - a[0]) ** 2 + (py - a[1]) ** 2)
    t = max(0.0, min(1.0, ((px - a[0]) * dx + (py - a[1]) * dy) / l2))
    qx, qy = a[0] + t * dx - px, a[1] + t * dy - py
    return math.sqrt(qx * qx + qy * qy)


def poly_dist(px: float, py: float, pts) -> float:
    return min(seg_dist(px, py, a, b) for a, b in zip(pts, pts[1:]))


def _box_dist(px: float, py: float, b) -> float:
    dx = max(b[0] - px, 0.0, px - b[2])
    dy = max(b[1] - py, 0.0, py - b[3])
    return math.sqrt(dx * dx + dy * dy)


class Board:
    """What is already on the canvas, for the label costs (with bounding boxes,
    so a label only looks at the ink near it)."""

    def __init__(self, boxes: list[Rect], paths: dict[int, list], soft: list[Rect] | None = None):
        self.boxes = boxes
        self.paths = paths
        self.labels: list[Rect] = []
        self.soft = soft or []
        self.segs: dict[int, list] = {}
        self.bbox: dict[int, Rect] = {}
        for key, pts in paths.items():
            segs = [(p, q, (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1])))
                    for p, q in zip(pts, pts[1:])]
            self.segs[key] = segs
            self.bbox[key] = (min(x for x, _ in pts), min(y for _, y in pts),
                              max(x for x, _ in pts), max(y for _, y in pts))

    def cost(self, r: Rect, own: int | None, anchor: tuple[float, float]) -> float:
        c = 0.0
        for b in self.boxes:
            if overlap(r, b):
                c += 1000
        for b in self.labels:
            if overlap(r, b):
                c += 800
        for b in self.soft:
            if overlap(r, b):
                c += 300
        band = (r[0] + 2, r[1] + (r[3] - r[1]) * 0.3, r[2] - 2, r[1] + (r[3] - r[1]) * 0.7)
        for key, segs in self.segs.items():
            pb = self.bbox[key]
            if pb[2] < band[0] or pb[0] > band[2] or pb[3] < band[1] or pb[1] > band[3]:
                continue
            for p, q, sb in segs:
                if sb[2] < band[0] or sb[0] > band[2] or sb[3] < band[1] or sb[1] > band[3]:
                    continue
                if seg_hits_rect(p, q, band, 0.0):
                    c += 500
                    break
        cx, cy = (r[0] + r[2]) / 2, (r[1] + r[3]) / 2
        if own is not None and own in self.segs:
            own_d = min(seg_dist(cx, cy, p, q) for p, q, _ in self.segs[own])
            limit = own_d + 6
            for key, segs in self.segs.items():
                if key == own or _box_dist(cx, cy, self.bbox[key]) >= limit:
                    continue
                if any(_box_dist(cx, cy, sb) < limit and seg_dist(cx, cy, p, q) < limit
                       for p, q, sb in segs):
                    c += 150
                    break
        c += 0.02 * math.sqrt((cx - anchor[0]) ** 2 + (cy - anchor[1]) ** 2)
        return c

    def take(self, r: Rect) -> None:
        self.labels.append(r)


def _segments_by_length(pts):
    segs = [(i, pts[i], pts[i + 1]) for i in range(len(pts) - 1)]
    return sorted(segs, key=lambda s: (-math.hypot(s[2][0] - s[1][0], s[2][1] - s[1][1]), s[0]))


def place_mid(board: Board, label: Label, pts, own: int) -> None:
    w, h = label.w, label.h
    cands = []
    for _, a, b in _segments_by_length(pts)[:3]:
        dx, dy = b[0] - a[0], b[1] - a[1]
        length = math.sqrt(dx * dx + dy * dy) or 1.0
        nx, ny = -dy / length, dx / length
        reach = abs(nx) * w / 2 + abs(ny) * h / 2 + 4
        for extra in (0.0, 12.0, 26.0):
            for t in (0.5, 0.35, 0.65, 0.2, 0.8):
                px, py = a[0] + dx * t, a[1] + dy * t
                for s in (-1, 1):
                    r = reach + extra
                    cands.append((px + nx * r * s, py + ny * r * s, (px, py)))
    best = None
    for cx, cy, anchor in cands:
        r = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
        c = board.cost(r, own, anchor)
        if best is None or c < best[0] - 1e-9:
            best = (c, cx, cy)
            if c < GOOD:   # nothing in the way: the candidates are in preference order
                break
    label.cx, label.cy = best[1], best[2]
    board.take(label.rect)


def place_end(board: Board, label: Label, pts, own: int, at_start: bool, away: float = 6.0) -> None:
    """A label near one end of a connector (tail near a, head near b)."""
    p, q = (pts[0], pts[1]) if at_start else (pts[-1], pts[-2])
    dx, dy = q[0] - p[0], q[1] - p[1]
    length = math.sqrt(dx * dx + dy * dy) or 1.0
    ux, uy = dx / length, dy / length
    nx, ny = -uy, ux
    w, h = label.w, label.h
    along = abs(ux) * w / 2 + abs(uy) * h / 2 + away
    across = abs(nx) * w / 2 + abs(ny) * h / 2 + 3
    cands = []
    for extra in (0.0, 8.0, 18.0):
        for s in (-1, 1):
            cx = p[0] + ux * (along + extra) + nx * across * s
            cy = p[1] + uy * (along + extra) + ny * across * s
            cands.append((cx, cy))
    best = None
    for cx, cy in cands:
        r = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
        c = board.cost(r, None, p)
        if best is None or c < best[0] - 1e-9:
            best = (c, cx, cy)
            if c < GOOD:
                break
    label.cx, label.cy = best[1], best[2]
    board.take(label.rect)
