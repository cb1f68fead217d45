"""The names of bands over a node: a band running the box's full height (extend=left or
right) names itself near the top, clear of the box's own label, and two such names never
run into each other (a reviewer read "DrainedQ2Headroom" in block-experimental).  A name
that would cover the box's own is written beside the box, with its thresholds, and the
labels beside a box keep off the lines leaving it there."""

from __future__ import annotations

import re

from markmcp.figdown.render import build
from markmcp.figdown.render.text import label_px

from .test_render_band_titles import crosses, segments
from .test_render_external_names import text_rect
from .test_render_regions import _box_rects, _overlaps

SRC = """figdown 0.1 block
node q2 "Q2"
node q3 "Queue three"
band "Drained" 30% in=q2 extend=right fill=#bfdbfe
band "Headroom" 15% in=q2 extend=left fill=#e9d5ff
band "Left one" 20% in=q3 extend=right
band "Left two" 10..30% in=q3 extend=right
band "Occupied" 60% in=q3 extend=up
"""


def labels(svg: str) -> dict[str, tuple[float, float, float]]:
    """text -> (x centre, baseline, width) of each 11 px or 13 px label (halo copies merged)."""
    found = {}
    for x, y, size, word in re.findall(r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="(\d+)"[^>]*>([^<]+)<', svg):
        found[word] = (float(x), float(y), label_px(word, float(size)))
    return found


def overlap(a, b, height=11.0) -> bool:
    return abs(a[0] - b[0]) < (a[2] + b[2]) / 2 and abs(a[1] - b[1]) < height


def test_full_height_band_names_clear_the_node_label_and_each_other() -> None:
    svg = build(SRC).svg
    found = labels(svg)
    for name in ("Drained", "Headroom"):
        assert not overlap(found[name], found["Q2"]), name
    assert not overlap(found["Drained"], found["Headroom"])
    assert not overlap(found["Left one"], found["Left two"])
    for name in ("Left one", "Left two"):
        assert not overlap(found[name], found["Queue three"]), name
    # a band growing from the bottom still names itself in its middle
    assert found["Occupied"][1] > found["Queue three"][1] - 14


# a small tank whose operating band covers its middle ("Normal operating band" was
# written over "Clearwell"), two thresholds, and a line leaving by the side they stand on
TANK = """figdown 0.1 block
node cl "Chlorine contact"
node well "Clearwell" shape=cylinder
node plc "Plant PLC"
edge cl -> well
edge well -[level 4-20 mA]-> plc style=dotted
threshold "High-high level 5.8 m: trip inflow" in=well offset=92%
threshold "Low level 1.2 m: stop high-service pumps" in=well offset=20%
band "Normal operating band" 35..80% in=well fill=#dbeafe
"""

# bands and a threshold over a two-line box, a line leaving it level with a band's middle
GPU = """figdown 0.1 block
node loader "Streaming data loader"
node g0 "GPU 0-3\\n(tensor parallel)"
node g1 "GPU 4-7\\n(tensor parallel)"
edge loader -> g0
edge g0 -[pipeline stage 1-2]-> g1
band "Activations" 40% in=g0 extend=up fill=#fde68a
band "Optimizer state" 40..75% in=g0 fill=#bfdbfe
threshold "80 GB HBM limit" in=g0 offset=95%
"""
BESIDE = {TANK: ("well", ("Clearwell",), ("High-high level 5.8 m: trip inflow", "Normal operating band",
                                          "Low level 1.2 m: stop high-service pumps")),
          GPU: ("g0", ("GPU 0-3", "(tensor parallel)"), ("80 GB HBM limit", "Optimizer state", "Activations"))}


def name_block(box, lines: tuple[str, ...]) -> tuple[float, float, float, float]:
    """The ink of a box's own name: its 13 px lines 16.9 px apart, centred in the box."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    half_w, spread = max(label_px(t, 13) for t in lines) / 2, (len(lines) - 1) * 16.9 / 2
    return cx - half_w, cy - spread - 5, cx + half_w, cy + spread + 7.5


def test_a_band_name_over_the_box_name_is_written_beside_the_box_instead() -> None:
    for src, (nid, name, beside) in BESIDE.items():
        svg = build(src).svg
        box = _box_rects(svg)[nid]
        own = name_block(box, name)
        rects = [text_rect(svg, text, 11) for text in beside]
        for text, rect in zip(beside, rects):
            assert rect[0] >= box[2] + 8 - 0.01, text
            assert not _overlaps(rect, own), text
        # the high line's label on top, each on a row of its own
        assert all(b[1] >= a[3] - 0.01 for a, b in zip(rects, rects[1:]))


def test_labels_beside_a_box_keep_off_the_lines_leaving_it_there() -> None:
    for src, (_nid, _name, beside) in BESIDE.items():
        svg = build(src).svg
        lines = segments(svg)
        for text in beside:
            rect = text_rect(svg, text, 11)
            assert not [key for key, p, q in lines if crosses(p, q, rect)], text


def test_a_band_name_clear_of_the_box_name_stays_in_its_band() -> None:
    svg = build("figdown 0.1 block\nnode q \"Ingress queue\"\npin q width=140 height=110\n"
                "band \"Full\" 0..25% in=q extend=up\nband \"Empty\" 0..25% in=q extend=down\n").svg
    box = _box_rects(svg)["q"]
    full, empty = text_rect(svg, "Full", 11), text_rect(svg, "Empty", 11)
    assert box[0] < full[0] and full[2] < box[2] and box[3] - 27.5 < full[1] and full[3] < box[3]
    assert box[0] < empty[0] and empty[2] < box[2] and box[1] < empty[1] and empty[3] < box[1] + 27.5


def test_labels_beside_a_box_keep_off_a_group_threshold_through_it() -> None:
    # a band name beside a queue was written over its group's "half" label, on that
    # threshold's line
    svg = build("figdown 0.1 block\ngroup pool \"Egress queues\"\nnode q1 \"Q1\" in=pool\n"
                "node tor \"ToR\"\nedge q1 -> tor\n"
                "threshold in=pool offset=50% \"half\"\n"
                "band \"Congested\" 20..40% in=q1 extend=down\n").svg
    name, half = text_rect(svg, "Congested", 11), text_rect(svg, "half", 11)
    assert not _overlaps(name, half)
    line = [float(y) for y in re.findall(r'<line x1="[^"]+" y1="([^"]+)" x2="[^"]+" y2="[^"]+" '
                                         r'stroke="#ef4444" stroke-width="2"', svg)]
    assert len(line) == 1 and not name[1] < line[0] < name[3]


def test_a_band_name_beside_its_box_follows_a_swatch_of_the_band() -> None:
    # beside the box, "Optimizer state" read as the label of the line leaving there: a
    # square of the band's fill before it says whose name it is
    svg = build(GPU).svg
    for name, fill in (("Optimizer state", "#bfdbfe"), ("Activations", "#fde68a")):
        x0, y0, _x1, y1 = text_rect(svg, name, 11)
        swatches = [(float(x), float(y), float(w)) for x, y, w in re.findall(
            r'<rect x="([-\d.]+)" y="([-\d.]+)" width="([-\d.]+)" height="[-\d.]+" fill="' + fill + '" stroke=', svg)
            if float(w) < 10]
        assert len(swatches) == 1, name
        sx, sy, sw = swatches[0]
        assert 0 < x0 - (sx + sw) <= 4 and y0 - 2 <= sy and sy + sw <= y1 + 2, name
