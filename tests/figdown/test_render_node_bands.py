"""The names of bands over a node: a band running the box's full height (extend=left or
right) names itself near the top, clear of the box's own label, and two such names never
run into each other (a reviewer read "DrainedQ2Headroom" in block-experimental)."""

from __future__ import annotations

import re

from markmcp.figdown.render import build
from markmcp.figdown.render.text import label_px

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
