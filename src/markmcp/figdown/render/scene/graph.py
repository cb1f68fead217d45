"""The scene as the layout sees it: sized boxes, connectors, groups.

Built once from a §12 model.  Sizes follow FigDown's published numbers: a
box is the widest label line at 7.2 px per unit plus 14 px padding each side
(never under 30 px) and 36 px tall plus 16 px per extra line; a diamond gains
20 px of width (at least 70 × 48); a circle is square; a curved or angled
outline grows until the label's text box fits inside it.  A pin's
``width``/``height`` is the author's word: the box keeps it (the label shrinks
instead).  An ``external`` is a 12 × 12 anchor that is never drawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..bands import BAND_NAME_FS, name_inside, swatch_width
from ..style import display_label, paint
from ..text import CH, FONT, label_px, node_height, node_width, widest

LBL_PADX, LBL_PADY = 6, 4
ANCHOR = 12.0


CORNER = 14.0   # a rounded box's corner radius as drawn (at most half its height or width)

@dataclass
class Box:
    id: str
    label: str
    shape: str = "box"
    w: float = 0.0
    h: float = 0.0
    x: float = 0.0
    y: float = 0.0
    group: str | None = None
    fill: str | None = None
    stroke: str | None = None
    style: str | None = None
    external: bool = False
    rigid: bool = False          # author-given extent
    pinned: bool = False         # author-given position
    note: str | None = None
    line: int = 0
    order: int = 0               # declaration order
    rank: int = 0
    beside: float = 0.0          # room its threshold labels take right of it (see build_scene)

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    def rect(self) -> tuple[float, float, float, float]:
        return self.x, self.y, self.x + self.w, self.y + self.h


@dataclass
class Link:
    """One connector (edge / flowline / transition)."""

    index: int
    a: str
    b: str
    op: str
    key: str                     # data-edge: authored id, else the source line
    mid: str | None = None
    tail: str | None = None
    head: str | None = None
    stroke: str | None = None
    style: str | None = None
    note: str | None = None
    line: int = 0
    points: list = field(default_factory=list)   # the drawn polyline, a → b
    bus: str | None = None                       # merge bus (shared trunk) key
    dots: list = field(default_factory=list)     # junctions where it joins the trunk
    joins: int = 0                               # merge bus: its first point on another member
    along: bool = False                          # ... a bus along the flow (layout.chain_buses)
    splits: bool = False                         # ... a fan-out bus sharing its first point (fanout.py)

    @property
    def arrow_b(self) -> bool:
        return self.op in ("->", "<->")

    @property
    def arrow_a(self) -> bool:
        return self.op in ("<-", "<->")


@dataclass
class Group:
    id: str
    label: str
    members: list[str]
    fill: str | None = None
    stroke: str | None = None
    style: str | None = None
    gap: float | None = None
    note: str | None = None
    line: int = 0
    pin: dict | None = None
    box: tuple[float, float, float, float] | None = None   # the band: x0, y0, x1, y1
    title: object = None   # where its name goes (titles.Title), once the connectors are routed


# --- outline geometry -----------------------------------------------------------------


def corner_radius(n: Box) -> float:
    """The radius of a rounded box's corner arcs as drawn (14 px, at most half its height
    or its width: a pinned box 8 px wide drew corners 4 px across and 9.5 px high while
    its outline was taken for circles of 9.5); 0 for every other shape."""
    return min(CORNER, n.h / 2, n.w / 2) if n.shape == "rounded" else 0.0


def axes(n: Box) -> tuple[float, float, float]:
    """Half-extents (a, b) and exponent p of the drawn outline |dx/a|^p + |dy/b|^p = 1."""
    if n.shape == "diamond":
        return n.w / 2, n.h / 2, 1.0
    if n.shape == "circle":
        return n.w / 2, n.w / 2, 2.0
    if n.shape == "ellipse":
        return n.w / 2, n.h / 2, 2.0
    return n.w / 2, n.h / 2, math.inf


def outline_norm(a: float, b: float, p: float, dx: float, dy: float) -> float:
    u = abs(dx) / (a or 1e-9)
    v = abs(dy) / (b or 1e-9)
    if p == 1.0:
        return u + v
    if p == 2.0:
        return math.sqrt(u * u + v * v)
    return max(u, v)


def border_point(n: Box, tx: float, ty: float) -> tuple[float, float]:
    """Where the ray from the centre of ``n`` toward (tx, ty) leaves the drawn outline."""
    cx, cy = n.cx, n.cy
    dx, dy = tx - cx, ty - cy
    if dx == 0 and dy == 0:
        return cx, cy
    a, b, p = axes(n)
    if p == math.inf:
        s = min(a / (abs(dx) or 1e-9), b / (abs(dy) or 1e-9))
        inside = outline_test(n) if n.shape == "rounded" else None
        if inside is not None and not inside(dx * s * (1 - 1e-9), dy * s * (1 - 1e-9)):
            lo, hi = 0.0, s        # the ray leaves through a corner arc: find where
            for _ in range(48):
                mid = (lo + hi) / 2
                if inside(dx * mid, dy * mid):
                    lo = mid
                else:
                    hi = mid
            s = hi
    else:
        s = 1 / outline_norm(a, b, p, dx, dy)
    return cx + dx * s, cy + dy * s


def outline_test(n: Box):
    """Whether a point (dx, dy) from the centre of ``n`` lies inside its drawn outline (a
    rounded box's corners cut by their arcs, radius as drawn: 14, at most half the
    height), as a test for one box with its axes worked out once (a bisection asks it
    forty times)."""
    a, b, p = axes(n)
    a0, b0 = a or 1e-9, b or 1e-9
    r = corner_radius(n)
    ca, cb, rr = a - r, b - r, r * r

    def inside(dx: float, dy: float) -> bool:
        u, v = abs(dx) / a0, abs(dy) / b0
        if p == 1.0:
            norm = u + v
        elif p == 2.0:
            norm = math.sqrt(u * u + v * v)
        else:
            norm = u if u > v else v
        if norm >= 1:
            return False
        if r > 0.0:
            ex, ey = abs(dx) - ca, abs(dy) - cb
            if ex > 0 and ey > 0 and ex * ex + ey * ey >= rr:
                return False
        return True
    return inside


def ray_exit(n: Box, x: float, y: float, dx: float, dy: float) -> float:
    """The t ≥ 0 at which the ray (x, y) + t·(dx, dy), from a point inside the drawn
    outline of ``n`` (relative to its centre), leaves it: a side of a rectangle, the
    corner arc of a rounded box, a face of a diamond, an ellipse's curve (0 for a ray
    that does not move)."""
    if dx == 0.0 and dy == 0.0:
        return 0.0
    a, b, p = axes(n)
    if p == 2.0:   # (x + t dx)^2 / a^2 + (y + t dy)^2 / b^2 = 1, the larger root
        a2, b2 = (a or 1e-9) ** 2, (b or 1e-9) ** 2
        return _larger_root(dx * dx / a2 + dy * dy / b2, 2 * (x * dx / a2 + y * dy / b2), x * x / a2 + y * y / b2 - 1)
    if p == 1.0:   # the first face |x|/a + |y|/b = 1 the ray reaches
        a0, b0 = a or 1e-9, b or 1e-9
        best = math.inf
        for sx in (1.0, -1.0):
            for sy in (1.0, -1.0):
                toward = sx * dx / a0 + sy * dy / b0
                if toward > 0:
                    best = min(best, (1 - sx * x / a0 - sy * y / b0) / toward)
        return max(0.0, best)
    t = math.inf
    if dx:
        t = min(t, ((a if dx > 0 else -a) - x) / dx)
    if dy:
        t = min(t, ((b if dy > 0 else -b) - y) / dy)
    r = corner_radius(n)
    if r > 0.0:
        ex, ey = x + t * dx, y + t * dy
        ca, cb = a - r, b - r
        if abs(ex) > ca and abs(ey) > cb:   # past a corner's arc: where the ray leaves its circle
            ox, oy = (ca if ex > 0 else -ca), (cb if ey > 0 else -cb)   # as outline_test has it
            ux, uy = x - ox, y - oy
            t = _larger_root(dx * dx + dy * dy, 2 * (ux * dx + uy * dy), ux * ux + uy * uy - r * r)
    return max(0.0, t)


def _larger_root(qa: float, qb: float, qc: float) -> float:
    """The larger root of qa·t² + qb·t + qc = 0 (qa > 0): where a ray from inside leaves a
    curve."""
    return (-qb + math.sqrt(max(0.0, qb * qb - 4 * qa * qc))) / (2 * qa)


def inscribed_half(n: Box, v: float) -> float:
    """Half-width the outline offers at height offset ``v`` from the centre."""
    a, b, p = axes(n)
    t = min(1.0, abs(v) / (b or 1e-9))
    if p == 1.0:
        return a * (1 - t)
    if p == 2.0:
        return a * math.sqrt(max(0.0, 1 - t * t))
    return a


def side_point(n: Box, horizontal: bool, sign: int, offset: float) -> tuple[float, float]:
    """The outline point on the side facing ``sign`` along an axis, ``offset`` across it
    (on a rounded box's corner arc where the offset reaches it)."""
    a, b, p = axes(n)
    if horizontal:
        half = _outline_extent(a, b, p, offset) - arc_inset(n, b, offset)
        return n.cx + sign * half, n.cy + offset
    half = _outline_extent(b, a, p, offset) - arc_inset(n, a, offset)
    return n.cx + offset, n.cy + sign * half


def arc_inset(n: Box, half_side: float, offset: float) -> float:
    """How far a rounded box's corner arc (radius as drawn: 14, at most half the height)
    stands inside its bounding side at ``offset`` from the side's middle."""
    if n.shape != "rounded":
        return 0.0
    r = corner_radius(n)
    over = abs(offset) - (half_side - r)
    if over <= 0 or r <= 0:
        return 0.0
    over = min(over, r)
    return r - math.sqrt(r * r - over * over)


def _outline_extent(a: float, b: float, p: float, v: float) -> float:
    """How far along the a-axis the outline reaches at offset v on the b-axis."""
    if p == math.inf:
        return a
    t = min(1.0, abs(v) / (b or 1e-9))
    if p == 1.0:
        return a * (1 - t)
    return a * math.sqrt(max(0.0, 1 - t * t))


def _fit_outline(n: Box) -> None:
    lines = n.label.split("\n")
    iw = widest(n.label) * CH + 2 * LBL_PADX
    ih = ((len(lines) - 1) * 1.3 + 1.2) * FONT + 2 * LBL_PADY
    a, b, p = axes(n)
    k = outline_norm(a, b, p, iw / 2, ih / 2)
    if k <= 1:
        return
    n.w = max(n.w, 2 * k * a)
    n.h = max(n.h, 2 * k * b)
    if n.shape == "circle":
        n.w = n.h = max(n.w, n.h)


# --- building the scene ---------------------------------------------------------------


@dataclass
class Scene:
    flow: str
    genre: str
    nodes: dict[str, Box]
    order: list[str]              # node ids in declaration order (externals after)
    links: list[Link]
    groups: dict[str, Group]
    ranks: list[list[str]]
    pins: dict[str, dict]
    classes: dict[str, dict]
    edge_classes: dict[int, list] = field(default_factory=dict)
    merge: int = 2                # how far connectors along the flow merge into buses (layout.chain_buses)
    mirrored: frozenset = frozenset()   # nodes ranked past their hub, their links read backwards (ranks.hub_split)

    @property
    def horizontal(self) -> bool:
        return self.flow in ("right", "left")

    def classes_of(self, link: "Link") -> list:
        return self.edge_classes.get(link.index, [])


#: An arrowhead: its length along the line and its half-width across it (px).
ARROW_LEN, ARROW_HALF = 10.08, 5.6


def arrow_corners(tip, back, scale: float = 1.0) -> tuple | None:
    """An arrowhead's triangle, its point at ``tip`` on a line coming from ``back``: the point
    and its two back corners (None for a line of no length); ``scale`` shrinks it."""
    dx, dy = tip[0] - back[0], tip[1] - back[1]
    length = math.sqrt(dx * dx + dy * dy)
    if length < 1e-9:
        return None
    ux, uy = dx / length, dy / length
    bx, by = tip[0] - ux * ARROW_LEN * scale, tip[1] - uy * ARROW_LEN * scale
    px, py = -uy * ARROW_HALF * scale, ux * ARROW_HALF * scale
    return tip, (bx - px, by - py), (bx + px, by + py)


def link_heads(link: Link) -> list[tuple]:
    """The arrowheads drawn on ``link``: the one at its far end first, as three corners
    each.  A head longer than its run shrinks to the run, and two heads on one straight
    run to half of it each (``a <-> b`` between boxes 10 px apart: two full heads had
    overlapped, each pointing into the other)."""
    pts = link.points
    if len(pts) < 2:
        return []
    out = []
    for on, tip, prev in ((link.arrow_b, pts[-1], pts[-2]), (link.arrow_a, pts[0], pts[1])):
        if not on:
            continue
        room = math.dist(tip, prev) / (2 if len(pts) == 2 and link.arrow_a and link.arrow_b else 1)
        corners = arrow_corners(tip, prev, min(1.0, room / ARROW_LEN))
        if corners is not None:
            out.append(corners)
    return out


def arrowheads(scene: Scene) -> list[tuple]:
    """Every arrowhead drawn at a connector's end: its connector and its three corners
    (:func:`link_heads`)."""
    return [(link, corners) for link in scene.links for corners in link_heads(link)]


def head_boxes(scene: Scene) -> list[tuple[float, float, float, float]]:
    """The bounding box of every arrowhead drawn at a connector's end."""
    return [(min(c[0] for c in head), min(c[1] for c in head), max(c[0] for c in head), max(c[1] for c in head))
            for _link, head in arrowheads(scene)]


THRESHOLD_FS = 11.0    # a threshold's label (px), written ...
THRESHOLD_OUT = 8.0    # ... this far right of the box it marks


def build_scene(model: dict, classes: dict[str, dict]) -> Scene:
    pins = {p["id"]: p for p in model.get("pins", ())}
    nodes: dict[str, Box] = {}
    order: list[str] = []
    for i, n in enumerate(model.get("nodes", ())):
        ink = paint(n, classes)
        box = Box(n["id"], display_label(n), n.get("shape") or "box", group=n.get("group"),
                  fill=ink["fill"], stroke=ink["stroke"], style=ink["style"], note=n.get("note"),
                  line=n.get("line", 0), order=i)
        box.w, box.h = node_width(box.label), node_height(box.label)
        pin = pins.get(box.id)
        if pin and (pin.get("width") is not None or pin.get("height") is not None):
            box.w = float(pin.get("width") or box.w)
            box.h = float(pin.get("height") or box.h)
            box.rigid = True
        if box.shape == "diamond" and not box.rigid:
            box.w, box.h = max(box.w + 20, 70.0), max(box.h, 48.0)
        if box.shape == "circle" and not box.rigid:
            box.w = box.h = max(box.w, box.h)
        elif box.shape == "circle":   # drawn as a circle of the width given (else the height)
            box.w = box.h = float(pin.get("width") or pin.get("height"))
        if not box.rigid:
            _fit_outline(box)
        box.pinned = bool(pin and pin.get("x") is not None)
        nodes[box.id] = box
        order.append(box.id)
    base = len(order)
    for j, x in enumerate(model.get("externals", ())):
        label = x.get("label")
        box = Box(x["id"], "" if label is None else label, "box", w=ANCHOR, h=ANCHOR,
                  external=True, line=x.get("line", 0), order=base + j)
        box.pinned = bool(pins.get(box.id) and pins[box.id].get("x") is not None)
        nodes[box.id] = box
        order.append(box.id)
    links = []
    for i, e in enumerate(model.get("edges", ())):
        if e["a"] not in nodes or e["b"] not in nodes:
            continue
        ink = paint(e, classes, ("stroke", "style"))
        key = e["id"] if e.get("id") is not None else str(e.get("line", 0))
        links.append(Link(i, e["a"], e["b"], e.get("op", "->"), key, e.get("mid"), e.get("tail"),
                          e.get("head"), ink["stroke"], ink["style"], e.get("note"),
                          e.get("line", 0)))
    groups: dict[str, Group] = {}
    for g in model.get("groups", ()):
        ink = paint(g, classes)
        members = [nid for nid in order if nodes[nid].group == g["id"]]
        groups[g["id"]] = Group(g["id"], display_label(g), members, ink["fill"], ink["stroke"],
                                ink["style"], g.get("gap"), g.get("note"), g.get("line", 0),
                                pins.get(g["id"]))
    # a threshold over a box writes its label right of the box, from 8 px out (draw.py),
    # and so does a band over a box whose name would cover the box's own
    for mark in model.get("thresholds", ()):
        box = nodes.get(mark.get("in"))
        if box is not None and not box.external and mark.get("label"):
            box.beside = max(box.beside, THRESHOLD_OUT + label_px(mark["label"], THRESHOLD_FS) + THRESHOLD_OUT)
    for band in model.get("bands", ()):
        box = nodes.get(band.get("in"))
        if box is not None and not box.external and band.get("label") \
                and not name_inside(band, 0.0, 0.0, box.w, box.h, box.label):
            box.beside = max(box.beside, THRESHOLD_OUT + swatch_width() + label_px(band["label"], BAND_NAME_FS)
                             + THRESHOLD_OUT)
    ranks = [[i for i in r["ids"] if i in nodes] for r in model.get("ranks", ())]
    genre = model["header"].get("genre") or "block"
    scene = Scene(model.get("flow", "right"), genre, nodes, order, links, groups, ranks, pins, classes)
    scene.edge_classes = {i: list(e.get("class") or []) for i, e in enumerate(model.get("edges", ()))}
    return scene
