"""One section's picture, and the document around the sections.

A section is drawn top to bottom: the optional title (render option
``with-title``), the scene or the sequence ladder, the typed regions in
document order (bitfield, table, timing, chart) with the marks that target
them, the derived class legend, and the figure-level note.  The page wraps the
content in a fixed root: ``viewBox`` and size from the content, the
``system-ui`` font stack, the shared ``defs`` and an 18,6 content offset.
Several sections stack top to bottom 28 px apart, each keeping its own
``defs`` with ids prefixed ``s<i>_``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import regions, scene, sequence
from .block import Budget
from .bands import band_edge, band_rect, threshold_leader, threshold_rows_by_target
from .notes import note_svg
from .style import class_table
from .svg import SVG_NS, dash, esc, num, open_tag, tag, text
from .text import label_ink, note_size, one_line, units

PADL, PADT = 18, 6
STACK_GAP = 28
TITLE_CH = 8.6
LEGEND_CH = 6.6


@dataclass
class Section:
    svg: str          # a complete <svg> document (no metadata)
    width: int
    height: int
    diags: list[tuple[int, str]]


def defs(prefix: str = "") -> str:
    marker = tag("marker", [("id", prefix + "arr"), ("viewBox", "0 0 10 10"), ("refX", 9),
                            ("refY", 5), ("markerWidth", 7), ("markerHeight", 7),
                            ("orient", "auto-start-reverse")],
                 tag("path", [("d", "M0,0 L10,5 L0,10 z"), ("fill", "#555")]))
    hatch = tag("pattern", [("id", prefix + "hatch"), ("width", 6), ("height", 6),
                            ("patternUnits", "userSpaceOnUse"), ("patternTransform", "rotate(45)")],
                tag("line", [("x1", 0), ("y1", 0), ("x2", 0), ("y2", 6), ("stroke", "#bbb"),
                             ("stroke-width", 2)]))
    return tag("defs", (), marker + hatch)


def root(width: int, height: int) -> str:
    return open_tag("svg", [("xmlns", SVG_NS), ("viewBox", f"0 0 {width} {height}"),
                            ("width", width), ("height", height),
                            ("font-family", "system-ui,sans-serif")])


def _legend(model: dict, y: float, max_w: float) -> tuple[str, float, float]:
    """The derived legend: one swatch + meaning per class that states a meaning."""
    entries = [c for c in model.get("classes", ()) if c.get("meaning") != ""]
    if not entries:
        return "", y, max_w
    out = []
    lx, ly, row_h = 0.0, y + 8, 20
    wrap = max(max_w, 420)
    for c in entries:
        label = one_line(c.get("meaning") or "")
        paints = any(c.get(k) is not None for k in ("fill", "stroke", "style"))
        width = units(label) * LEGEND_CH + (30 if paints else 9)
        if lx > 0 and lx + width > wrap:
            lx, ly = 0.0, ly + row_h
        if paints:
            out.append(tag("rect", [("x", lx), ("y", ly + 3), ("width", 16), ("height", 11),
                                    ("fill", c.get("fill") or "#fff"),
                                    ("stroke", c.get("stroke") or "#555"),
                                    ("stroke-dasharray", dash(c.get("style")))]))
        out.append(text(lx + (21 if paints else 0), ly + 12.5, 11, label, fill="#1d1d1b"))
        lx += width + 14
        max_w = max(max_w, lx)
    return "".join(out), ly + row_h, max_w


def _region_marks(model: dict, boxes: dict[str, dict]) -> tuple[str, float]:
    """Bands and thresholds whose target is a typed region (drawn over its frame)."""
    out, right = [], 0.0
    for band in model.get("bands", ()):
        b = boxes.get(band.get("in"))
        if b is None:
            continue
        bx, by, bw, bh = band_rect(band, b["x0"], b["y0"], b["x1"], b["y1"])
        out.append(tag("rect", [("x", bx), ("y", by), ("width", bw), ("height", bh),
                                ("fill", band.get("fill")), ("opacity", 0.35),
                                *band_edge(band)]))
        out.append(text(bx + bw / 2, by + bh / 2 + 4, 11, band["label"], anchor="middle",
                        fill=label_ink(band.get("fill"), "#334155"), halo=True))
    marks = [(mark, mark.get("in")) for mark in model.get("thresholds", ()) if boxes.get(mark.get("in")) is not None]
    levels = [boxes[t]["y1"] - (boxes[t]["y1"] - boxes[t]["y0"]) * m["offset"] / 100 for m, t in marks]
    rows = threshold_rows_by_target([t for _m, t in marks], levels)
    for k, (mark, target) in enumerate(marks):
        b, ly = boxes[target], levels[k]
        colour = mark.get("stroke") or "#ef4444"
        out.append(tag("line", [("x1", b["x0"]), ("y1", ly), ("x2", b["x1"]), ("y2", ly),
                                ("stroke", colour), ("stroke-width", 4 if mark["offset"] >= 100 else 2),
                                ("stroke-dasharray", dash(mark.get("style"), "7 4"))]))
        out.append(threshold_leader(b["x1"], ly, rows[k], colour))
        out.append(text(b["x1"] + 8, rows[k], 11, mark["label"], anchor="start", fill=colour,
                        halo=True))
        right = max(right, b["x1"] + 8 + max(30.0, units(mark["label"]) * 7.2 + 28))
    return "".join(out), right


def render_section(model: dict, *, with_title: bool = False, prefix: str = "",
                   budget: Budget | None = None) -> Section:
    """Draw one section's §12 model.  Diagnostics carry section-relative lines; ``budget``
    is what the sections before it used of the document's bounds (and takes this one's)."""
    budget = Budget() if budget is None else budget
    classes = class_table(model)
    parts: list[str] = []
    diags: list[tuple[int, str]] = []
    y, max_w = 0.0, 0.0
    title = model.get("title")
    if title is not None and with_title:
        parts.append(tag("text", [("x", 0), ("y", 16), ("font-size", 15), ("font-weight", "600")],
                         esc(title)))
        y = 30.0
        max_w = units(title) * TITLE_CH
    genre = model["header"].get("genre")
    if genre == "sequence" and model.get("lifelines"):
        block = sequence.render(model, classes, y, budget)
    elif model.get("nodes") or model.get("edges") or model.get("externals"):
        block = scene.render(model, classes, y, budget)
    else:
        block = None
    if block is not None:
        parts.append(block.svg)
        diags.extend(block.diags)
        y, max_w = block.y, max(max_w, block.w)
    boxes: dict[str, dict] = {}
    for region in model.get("regions", ()):
        b = regions.render(region, model, classes, y, prefix)
        diags.extend(b.diags)
        parts.append(b.svg)
        if b.box is not None and region.get("id"):
            boxes[region["id"]] = b.box
        y, max_w = b.y + 24, max(max_w, b.w)
    if boxes:
        marks, right = _region_marks(model, boxes)
        parts.append(marks)
        max_w = max(max_w, right)
    legend, y, max_w = _legend(model, y, max_w)
    parts.append(legend)
    note = model.get("note")
    if note is not None:
        w, h, wrapped = note_size(note)
        ny = y + 8
        parts.append(note_svg(0, ny, w, h, wrapped, "title"))
        y, max_w = ny + h + 2, max(max_w, w)
    width = math.ceil(max_w) + PADL + 8
    height = math.ceil(y) + PADT + 4
    svg = (root(width, height) + defs(prefix)
           + tag("g", [("transform", f"translate({PADL},{PADT})")], "".join(parts)) + "</svg>")
    return Section(svg, width, height, diags)


def section_diagnostics(model: dict, *, with_title: bool = False,
                        budget: Budget | None = None) -> list[tuple[int, str]]:
    """The diagnostics :func:`render_section` reports, without drawing: the scene's
    geometry checks, the sequence ladder's bound and each region's bound, in the same
    order."""
    budget = Budget() if budget is None else budget
    diags: list[tuple[int, str]] = []
    y = 30.0 if model.get("title") is not None and with_title else 0.0
    genre = model["header"].get("genre")
    if genre == "sequence" and model.get("lifelines"):
        diags.extend(sequence.diagnostics(model, budget))
    elif model.get("nodes") or model.get("edges") or model.get("externals"):
        diags.extend(scene.diagnostics(model, class_table(model), y, budget))
    for region in model.get("regions", ()):
        diags.extend(regions.diagnostics(region, model))
    return diags


def stack(sections: list[Section]) -> str:
    """Several sections as one picture, top to bottom."""
    if len(sections) == 1:
        return sections[0].svg
    y, width, chunks = 0, 0, []
    for i, s in enumerate(sections):
        width = max(width, s.width)
        inner = s.svg[s.svg.index(">") + 1:-len("</svg>")]
        chunks.append(tag("g", [("transform", f"translate(0,{num(y)})")], inner))
        y += s.height + (STACK_GAP if i + 1 < len(sections) else 0)
    return root(width, max(y, 1)) + "".join(chunks) + "</svg>"
