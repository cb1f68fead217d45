"""The scene's markup, in paint order.

Group bands, group-scope bands, connectors, boxes (each in a
``<g data-node>`` wrapper carrying its position and, for bundle members,
``data-lasso``), lassos and their captions, thresholds, port fittings, then
every piece of connector text, the arrowheads and the notes.  The attribute
order of connectors and boxes is the one FigDown's own tools read
(``data-edge`` first, then the geometry), so they find every node and edge.
"""

from __future__ import annotations

import math

from ..bands import (BAND_NAME_FS, BAND_SWATCH, band_edge, band_rect, name_inside, swatch_width, threshold_leader,
                     threshold_rows_by_target)
from ..notes import leader_svg, note_svg
from ..svg import dash, esc, num, points, rounded_length, rounded_path, tag, text
from ..text import FONT, CH, EDGE_INK, INK_DARK, label_ink, label_px, widest
from .graph import THRESHOLD_FS, THRESHOLD_OUT, Box, Scene, corner_radius, inscribed_half, link_heads
from .names import EXTERNAL_FS, external_names
from .free import seg_hits_rect
from .labels import Board, measure, overlap
from .titles import BASELINE, INSET, TITLE_FS, Title

NODE_FILL, NODE_STROKE = "#fff", "#8a8880"
BAND_INK = "#334155"
GROUP_FILL, GROUP_STROKE, GROUP_INK = "#f6f5ef", "#d6d4cc", "#6f6e69"
PORT = 7.0


class Extent:
    def __init__(self):
        self.x0 = self.y0 = math.inf
        self.x1 = self.y1 = -math.inf

    def add(self, x0, y0, x1, y1):
        self.x0, self.y0 = min(self.x0, x0), min(self.y0, y0)
        self.x1, self.y1 = max(self.x1, x1), max(self.y1, y1)

    def point(self, x, y):
        self.add(x, y, x, y)

    def box(self):
        if self.x0 == math.inf:
            return (0.0, 0.0, 0.0, 0.0)
        return (self.x0, self.y0, self.x1, self.y1)


def _shape(n: Box, fill: str, stroke: str) -> str:
    d = dash(n.style)
    if n.shape == "diamond":
        cx, cy = n.cx, n.cy
        pts = [(cx, n.y), (n.x + n.w, cy), (cx, n.y + n.h), (n.x, cy)]
        return tag("polygon", [("points", points(pts)), ("fill", fill), ("stroke", stroke),
                               ("stroke-dasharray", d)])
    if n.shape == "rounded":
        return tag("rect", [("x", n.x), ("y", n.y), ("width", n.w), ("height", n.h),
                            ("rx", corner_radius(n)), ("fill", fill), ("stroke", stroke),
                            ("stroke-dasharray", d), ("stroke-width", 1.8)])
    if n.shape in ("ellipse", "circle"):
        ry = n.w / 2 if n.shape == "circle" else n.h / 2
        return tag("ellipse", [("cx", n.cx), ("cy", n.cy), ("rx", n.w / 2), ("ry", ry),
                               ("fill", fill), ("stroke", stroke), ("stroke-dasharray", d)])
    if n.shape == "cylinder":
        return (tag("rect", [("x", n.x), ("y", n.y), ("width", n.w), ("height", n.h), ("rx", 3),
                             ("fill", fill), ("stroke", stroke), ("stroke-dasharray", d)])
                + tag("line", [("x1", n.x), ("y1", n.y + 7), ("x2", n.x + n.w), ("y2", n.y + 7),
                               ("stroke", stroke)]))
    return tag("rect", [("x", n.x), ("y", n.y), ("width", n.w), ("height", n.h), ("fill", fill),
                        ("stroke", stroke), ("stroke-dasharray", d)])


def _node_label(n: Box, fill: str) -> str:
    if n.label == "":
        return ""
    size = float(FONT)
    lines = n.label.split("\n")
    need = widest(n.label) * CH
    avail = 2 * inscribed_half(n, len(lines) * 8) - 16
    if n.rigid and need > avail:
        size = max(8.0, FONT * avail / need) if need > 0 else size
    return text(n.cx, n.cy + size * 0.35, round(size, 3), n.label, anchor="middle",
                fill=label_ink(fill, INK_DARK))


def _arrow(corners, colour: str) -> str:
    tip, (x1, y1), (x2, y2) = corners
    d = f"M{num(tip[0])} {num(tip[1])} L{num(x1)} {num(y1)} L{num(x2)} {num(y2)} z"
    return tag("path", [("d", d), ("fill", colour), ("stroke", "none")])


def _label_svg(lab, extra=()) -> str:
    ground = ""
    if lab.backed:   # set on its own line: a white ground hides the line behind the text
        x0, y0, x1, y1 = lab.rect
        ground = tag("rect", [("x", x0 - 1), ("y", y0), ("width", x1 - x0 + 2), ("height", y1 - y0),
                              ("fill", "#fff"), ("stroke", "none")])
    return ground + text(lab.x, lab.y, lab.size, lab.text, anchor=lab.anchor, fill=lab.colour,
                         extra=extra, halo=True)


def _node_band_labels(n: Box, bands) -> list[tuple[float, float] | None]:
    """Where the names of the bands over box ``n`` go (text baselines, centred): in the
    middle of each band, but a band running the box's full height (``extend=left`` or
    ``right``) names itself near the top, clear of the box's own label in the middle (just
    above the box when the box is too low to hold both), and names that would run into
    each other there go one beyond the other.  None for a name written beside the box
    (``bands.name_inside``; see :func:`threshold_marks`)."""
    label_top = n.cy - (n.label.count("\n") + 1) * 1.2 * FONT / 2 if n.label else n.cy
    inside = n.y + 4 + BAND_NAME_FS + 2 <= label_top
    step = BAND_NAME_FS + 2
    placed: list[tuple[float, float, float, float]] = []
    out = []
    for band in bands:
        bx, by, bw, bh = band_rect(band, n.x, n.y, n.x + n.w, n.y + n.h)
        x = bx + bw / 2
        if not name_inside(band, n.x, n.y, n.x + n.w, n.y + n.h, n.label):
            out.append(None)
            continue
        if (band.get("extend") or "up") not in ("left", "right"):
            out.append((x, by + bh / 2 + 4))
            continue
        half = label_px(band["label"], BAND_NAME_FS) / 2 + 2
        y = n.y + 4 + BAND_NAME_FS if inside else n.y - 3
        for _ in range(len(bands)):
            if not any(x - half < r and x + half > l and y - BAND_NAME_FS < b and y > t
                       for l, t, r, b in placed):
                break
            y += step if inside and y + step <= label_top else -step
        placed.append((x - half, y - BAND_NAME_FS, x + half, y))
        out.append((x, y))
    return out


def scene_svg(scene: Scene, model: dict, board: Board, rings, notes):
    ext = Extent()
    gsvg, esvg, nsvg, tsvg, sqsvg, lsvg = [], [], [], [], [], []
    nodes = scene.nodes
    # group bands
    for g in scene.groups.values():
        if g.box is None:
            continue
        origin = getattr(g, "origin", None) or (g.box[0] + 14, g.box[1] + 26)
        title = g.title or Title(INSET)
        x0, y0, x1, y1 = title.drawn(g.box)
        body = tag("rect", [("x", x0), ("y", y0), ("width", x1 - x0), ("height", y1 - y0), ("rx", 10),
                            ("fill", g.fill or GROUP_FILL), ("stroke", g.stroke or GROUP_STROKE),
                            ("stroke-dasharray", dash(g.style))])
        if g.label and title.shown is not None:   # cut short: the whole name as its title
            body += tag("g", (), tag("title", (), esc(g.label))
                        + text(title.x(g.box), y0 + BASELINE, TITLE_FS, title.shown, anchor=title.anchor,
                               fill=label_ink(g.fill or GROUP_FILL, GROUP_INK)))
        elif g.label:
            body += text(title.x(g.box), y0 + BASELINE, TITLE_FS, g.label, anchor=title.anchor,
                         fill=label_ink(g.fill or GROUP_FILL, GROUP_INK))
        gsvg.append(tag("g", [("data-group", g.id), ("data-gx", origin[0]), ("data-gy", origin[1]),
                              ("style", "cursor:move")], body))
        ext.add(x0, y0, x1, y1)
    # bands over groups (under the boxes) and over nodes (with them)
    node_bands: dict[str, list] = {}
    for band in model.get("bands", ()):
        target = band.get("in")
        if target in scene.groups and scene.groups[target].box is not None:
            x0, y0, x1, y1 = scene.groups[target].box
            bx, by, bw, bh = band_rect(band, x0, y0, x1, y1)
            gsvg.append(tag("rect", [("x", bx), ("y", by), ("width", bw), ("height", bh),
                                     ("fill", band.get("fill")), ("opacity", 0.9), *band_edge(band)]))
            tsvg.append(text(bx + bw / 2, by + bh / 2 + 4, 11, band["label"], anchor="middle",
                             fill=label_ink(band.get("fill"), "#334155"), halo=True))
        elif target in nodes and not nodes[target].external:
            node_bands.setdefault(target, []).append(band)
    # connectors
    arrows = []
    for link in scene.links:
        pts = link.points
        if len(pts) < 2:
            continue
        colour = link.stroke or EDGE_INK
        d = dash(link.style)
        if len(pts) == 2 and link.bus is None:   # (a bus's member says so on a path)
            (x1, y1), (x2, y2) = pts
            esvg.append(tag("line", [("data-edge", link.key), ("x1", x1), ("y1", y1), ("x2", x2),
                                     ("y2", y2), ("stroke", colour), ("stroke-width", 1.6),
                                     ("stroke-dasharray", d)]))
        else:
            esvg.append(tag("path", [("data-edge", link.key), ("d", rounded_path(pts)), ("fill", "none"),
                                     ("stroke", colour), ("stroke-width", 1.6), ("stroke-dasharray", d),
                                     ("stroke-dashoffset", _trunk_phase(link, pts, d)),
                                     ("data-bus", link.bus)]))
        for x, y in pts:
            ext.point(x, y)
        arrows.extend(_arrow(corners, colour) for corners in link_heads(link))
        for x, y in link.dots:
            arrows.append(tag("circle", [("cx", x), ("cy", y), ("r", 3), ("fill", colour),
                                         ("stroke", "none")]))
    # boxes
    lasso_of: dict[str, list[str]] = {}
    for ring in rings:
        if ring.solo:
            continue
        for m in sorted(ring.members, key=lambda i: nodes[i].order):
            lasso_of.setdefault(m, []).append(ring.id)
    for nid in scene.order:
        n = nodes[nid]
        if n.external:
            continue
        fill, stroke = n.fill or NODE_FILL, n.stroke or NODE_STROKE
        body = [_shape(n, fill, stroke)]
        for band in node_bands.get(nid, ()):
            bx, by, bw, bh = band_rect(band, n.x, n.y, n.x + n.w, n.y + n.h)
            body.append(tag("rect", [("x", bx), ("y", by), ("width", bw), ("height", bh),
                                     ("fill", band.get("fill")), ("opacity", 0.9), *band_edge(band)]))
        body.append(_node_label(n, fill))
        wrap = [("data-node", n.id), ("data-x", n.x), ("data-y", n.y)]
        if nid in lasso_of:
            wrap.append(("data-lasso", " ".join(lasso_of[nid])))
        wrap.append(("style", "cursor:move"))
        nsvg.append(tag("g", wrap, "".join(body)))
        ext.add(n.x, n.y, n.x + n.w, n.y + n.h)
        for at, band in zip(_node_band_labels(n, node_bands.get(nid, ())), node_bands.get(nid, ())):
            if at is None:
                continue
            lx, ly = at
            tsvg.append(text(lx, ly, BAND_NAME_FS, band["label"], anchor="middle",
                             fill=label_ink(band.get("fill"), BAND_INK), halo=True))
            half = label_px(band["label"], BAND_NAME_FS) / 2
            ext.add(lx - half, ly - BAND_NAME_FS, lx + half, ly + 3)
    # lassos
    for ring in rings:
        if not ring.solo:
            deg = ring.degrees
            rot = None if abs(deg) < 0.05 else \
                f"rotate({num(deg, 3)} {num(ring.cx, 3)} {num(ring.cy, 3)})"
            tsvg.append(tag("ellipse", [("cx", ring.cx), ("cy", ring.cy), ("rx", ring.r_along),
                                        ("ry", ring.r_across), ("data-lasso", ring.id),
                                        ("fill", "transparent"), ("stroke", ring.colour),
                                        ("stroke-dasharray", dash(ring.style, "6 4")),
                                        ("stroke-width", 1.6), ("transform", rot)]))
            hw, hh = ring.half_extent()
            ext.add(ring.cx - hw, ring.cy - hh, ring.cx + hw, ring.cy + hh)
        if ring.label is not None:
            if ring.leader is not None:
                (px, py), (qx, qy) = ring.leader
                tsvg.append(leader_svg((px, py), (qx, qy)))
                ext.add(min(px, qx), min(py, qy), max(px, qx), max(py, qy))
            tsvg.append(_label_svg(ring.label))
            ext.add(*ring.label.rect)
    # thresholds over a node or a group, the labels beside one target on rows of their own
    marks_on, rows, names = threshold_marks(scene, model)
    for band, (_x0, _y0, x1, _y1), ly, row in names:
        sx = x1 + THRESHOLD_OUT
        tsvg.append(threshold_leader(x1, ly, row, NODE_STROKE)
                    + tag("rect", [("x", sx), ("y", row - BAND_SWATCH), ("width", BAND_SWATCH),
                                   ("height", BAND_SWATCH), ("fill", band.get("fill") or NODE_FILL),
                                   ("stroke", band.get("stroke") or NODE_STROKE)])
                    + text(sx + swatch_width(), row, BAND_NAME_FS, band["label"], anchor="start",
                           fill=BAND_INK, halo=True))
        w, _ = measure(band["label"], BAND_NAME_FS)
        ext.add(x1, row - BAND_NAME_FS, sx + swatch_width() + w, row + 3)
    for k, (mark, _target, (x0, y0, x1, y1), ly) in enumerate(marks_on):
        colour = mark.get("stroke") or "#ef4444"
        body = (tag("line", [("x1", x0), ("y1", ly), ("x2", x1), ("y2", ly), ("stroke", colour),
                             ("stroke-width", 4 if mark["offset"] >= 100 else 2),
                             ("stroke-dasharray", dash(mark.get("style"), "7 4"))])
                + tag("line", [("x1", x0), ("y1", ly), ("x2", x1), ("y2", ly),
                               ("stroke", "transparent"), ("stroke-width", 12)])
                + threshold_leader(x1, ly, rows[k], colour)
                + text(x1 + THRESHOLD_OUT, rows[k], THRESHOLD_FS, mark["label"], anchor="start", fill=colour,
                       halo=True))
        tsvg.append(tag("g", [("data-gline", mark.get("line", 0)), ("data-gtop", y0), ("data-gbot", y1),
                              ("style", "cursor:ns-resize")], body))
        w, _ = measure(mark["label"], THRESHOLD_FS)
        ext.add(x0, min(y0, rows[k] - THRESHOLD_FS), x1 + THRESHOLD_OUT + w, max(y1, rows[k] + 3))
    # port fittings and connector text
    squares = {}
    for lab in scene.labels:
        if lab.port is not None and lab.port not in squares:
            squares[lab.port] = lab
    for key, lab in squares.items():
        px, py = (float(v) for v in key.split(","))
        owner = _port_owner(scene, px, py)
        fill = (owner.fill if owner else None) or NODE_FILL
        stroke = (owner.stroke if owner else None) or NODE_STROKE
        sqsvg.append(tag("rect", [("x", px - PORT / 2), ("y", py - PORT / 2), ("width", PORT),
                                  ("height", PORT), ("fill", fill), ("stroke", stroke),
                                  ("data-port-sq", key)]))
    for lab in scene.labels:
        extra = (("data-port-sq", lab.port),) if lab.port is not None else ()
        lsvg.append(_label_svg(lab, extra))
        ext.add(*lab.rect)
    lsvg.extend(arrows)
    # external names, beyond the open end
    names = external_names(scene)
    for nid in scene.order:
        n = nodes[nid]
        if not n.external or not n.label:
            continue
        lsvg.append(_external_label(n, names[nid], ext))
    for note in notes:
        lsvg.append(note_svg(note.x, note.y, note.w, note.h, note.wrapped, note.kind, note.ref))
        ext.add(note.x, note.y, note.x + note.w, note.y + note.h)
        if note.leader is not None:
            lsvg.append(leader_svg(*note.leader))
    svg = "".join(gsvg + esvg + nsvg + tsvg + sqsvg + lsvg)
    return svg, ext.box()


def _trunk_phase(link, pts, pattern: str | None) -> float | None:
    """The dash offset that ends a merge-bus member's pattern on a period's start where
    the members end together, so their dashes fall on one another all along the trunk
    they share (each beginning at its own start, they filled each other's gaps and the
    dashed trunk drew solid); None for a solid line or one of no bus."""
    if link.bus is None or not pattern or link.splits:
        return None   # (a fan-out bus's members begin together, and so do their dashes)
    marks = [float(v) for v in pattern.replace(",", " ").split()]
    period = sum(marks) * (2 if len(marks) % 2 else 1)
    return round(-rounded_length(pts) % period, 2) % period if period > 0 else None


def _port_owner(scene: Scene, px: float, py: float):
    best, dist = None, math.inf
    for n in scene.nodes.values():
        if n.external:
            continue
        dx = max(n.x - px, 0.0, px - (n.x + n.w))
        dy = max(n.y - py, 0.0, py - (n.y + n.h))
        d = dx * dx + dy * dy
        if d < dist:
            best, dist = n, d
    return best


def threshold_marks(scene: Scene, model: dict) -> tuple[list, list[float], list]:
    """The thresholds drawn over a box or a group: ``(mark, target, its rect, the y of
    its line)`` each, and each label's baseline; and the names of bands written beside
    their box (``bands.name_inside``): ``(band, the box's rect, the band's middle, the
    baseline)`` each.  Beside one target they all stand on rows of their own."""
    marks_on = []
    for mark in model.get("thresholds", ()):
        target = mark.get("in")
        if target in scene.groups and scene.groups[target].box is not None:
            x0, y0, x1, y1 = scene.groups[target].box
        elif target in scene.nodes and not scene.nodes[target].external:
            x0, y0, x1, y1 = scene.nodes[target].rect()
        else:
            continue
        marks_on.append((mark, target, (x0, y0, x1, y1), y1 - (y1 - y0) * mark["offset"] / 100))
    names = []
    for band in model.get("bands", ()):
        n = scene.nodes.get(band.get("in"))
        if n is None or n.external:
            continue
        rect = n.rect()
        if not name_inside(band, *rect, n.label):
            _bx, by, _bw, bh = band_rect(band, *rect)
            names.append((band, n.id, rect, by + bh / 2))
    sides = marks_on + names
    rows = threshold_rows_by_target([t for _m, t, _b, _ly in sides], [ly for _m, _t, _b, ly in sides])
    widths = [measure(m["label"], THRESHOLD_FS)[0] for m, _t, _b, _ly in marks_on] + \
        [swatch_width() + measure(band["label"], BAND_NAME_FS)[0] for band, _t, _b, _ly in names]
    _rows_off_lines(scene, sides, widths, rows, len(marks_on))
    return marks_on, rows[:len(marks_on)], [(band, rect, ly, row) for (band, _t, rect, ly), row
                                            in zip(names, rows[len(marks_on):])]


#: How far (px) a target's labels beside it move together, up or down, off a connector
#: that would cross them.
ROWS_MOST = 28


def _rows_off_lines(scene: Scene, sides: list, widths: list[float], rows: list[float], marks: int) -> None:
    """Each target's labels beside it (``rows``, changed in place), moved together the
    least way within :data:`ROWS_MOST` so no connector crosses them, none is written over
    another box, and none meets another target's threshold line or labels (the first
    ``marks`` of ``sides`` are thresholds): a box's lines leave by the side its labels
    stand on in a figure flowing right, and "Optimizer state" was struck through by the
    line leaving at its row.  Where no such place is near, they stay on their lines."""
    segs = [(p, q) for link in scene.links for p, q in zip(link.points, link.points[1:])]
    taken: list = []
    for target in dict.fromkeys(t for _m, t, _b, _ly in sides):
        mine = [k for k, side in enumerate(sides) if side[1] == target]
        x = sides[mine[0]][2][2] + THRESHOLD_OUT
        boxes = [n.rect() for n in scene.nodes.values() if not n.external and n.id != target] + taken
        lines = segs + [((b[0], ly), (b[2], ly)) for _m, t, b, ly in sides[:marks] if t != target]

        def rect(k: int, d: float):
            return (x - 1, rows[k] + d - THRESHOLD_FS, x + widths[k] + 1, rows[k] + d + 3)

        def clear(d: float) -> bool:
            return not any(any(seg_hits_rect(p, q, rect(k, d), 0.0) for p, q in lines)
                           or any(overlap(rect(k, d), b, 0.0) for b in boxes) for k in mine)

        if not clear(0):
            for d in (s * step for step in range(1, ROWS_MOST + 1) for s in (-1, 1)):
                if clear(d):
                    for k in mine:
                        rows[k] += d
                    break
        taken.extend(rect(k, 0.0) for k in mine)


def threshold_label_rects(scene: Scene, model: dict) -> list[tuple[float, float, float, float]]:
    """Where the thresholds' labels, and band names beside their box, are written (see
    :func:`threshold_marks`)."""
    marks_on, rows, names = threshold_marks(scene, model)
    out = []
    for (mark, _target, (_x0, _y0, x1, _y1), _ly), row in zip(marks_on, rows):
        w, _ = measure(mark["label"], THRESHOLD_FS)
        out.append((x1 + THRESHOLD_OUT, row - THRESHOLD_FS, x1 + THRESHOLD_OUT + w, row + 3))
    for band, (_x0, _y0, x1, _y1), _ly, row in names:
        w, _ = measure(band["label"], BAND_NAME_FS)
        out.append((x1 + THRESHOLD_OUT, row - BAND_NAME_FS, x1 + THRESHOLD_OUT + swatch_width() + w, row + 3))
    return out


def _external_label(n: Box, place, ext: Extent) -> str:
    x, y, anchor, rect = place
    ext.add(*rect)
    return text(x, y, EXTERNAL_FS, n.label, anchor=anchor, fill=EDGE_INK, halo=True)
