"""A topology whose parts hang off one hub may rank the later parts past it.

Two station switches every device is dual-homed to, with the station's devices declared
before the switches and the bays after: all in the one rank above the switches, every
two dual-homed devices crossed (49 crossings).  The bays now stand below the switches,
each the mirror of how it would stand above, and the figure crosses less.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

from markmcp.figdown.parser import parse
from markmcp.figdown.render import build
from markmcp.figdown.render.page import class_table
from markmcp.figdown.render.scene.graph import build_scene
from markmcp.figdown.render.scene.ranks import hub_split

from .test_render_routes_clear import _vertices
from .test_render_scene import SVG, nodes

SUBSTATION = """figdown 0.1 topology
flow down
node gw "Gateway"
node hmi "Station HMI"
node eng "Engineering workstation"
node swA "Station switch A"
node swB "Station switch B"
group bay1 "Bay 1"
node p1 "Line protection" in=bay1
node c1 "Bay controller 1" in=bay1
node mu1 "Merging unit 1" in=bay1
group bay2 "Bay 2"
node p2 "Transformer protection" in=bay2
node c2 "Bay controller 2" in=bay2
group bay3 "Bay 3"
node p3 "Feeder protection" in=bay3
edge gw -- swA
edge gw -- swB
edge hmi -- swA
edge hmi -- swB
edge eng -- swA
edge p1 -- swA
edge p1 -- swB
edge c1 -- swA
edge c1 -- swB
edge mu1 -> p1
edge p1 -[trip]-> c1 style=dotted
edge p2 -- swA
edge p2 -- swB
edge c2 -- swA
edge c2 -- swB
edge p3 -- swA
edge p3 -- swB
rank swA,swB
"""


def offered(source: str) -> set[str]:
    """What :func:`hub_split` offers for the one-section ``source``."""
    (model,) = parse(source).models
    return set(hub_split(build_scene(model, class_table(model))))


def crossings(svg: str) -> int:
    """Proper crossings between the drawn segments of different connectors."""
    segs = []
    for el in ET.fromstring(svg).iter():
        key = el.get("data-edge")
        if key is not None and el.tag in (SVG + "line", SVG + "path"):
            pts = _vertices(el)
            segs += [(key, p, q) for p, q in zip(pts, pts[1:])]

    def cross(a, b, c, d) -> bool:
        def side(p, q, r):
            v = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
            return (v > 1e-9) - (v < -1e-9)
        return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0

    return sum(1 for (k1, a, b), (k2, c, d) in itertools.combinations(segs, 2) if k1 != k2 and cross(a, b, c, d))


def test_the_parts_declared_after_the_hub_stand_past_it() -> None:
    out = build(SUBSTATION)
    assert out.diagnostics == []
    boxes = {k: v["box"] for k, v in nodes(ET.fromstring(out.svg)).items()}
    switch = boxes["swA"][1]
    for nid in ("gw", "hmi", "eng"):
        assert boxes[nid][1] + boxes[nid][3] < switch
    for nid in ("p1", "c1", "mu1", "p2", "c2", "p3"):
        assert boxes[nid][1] > switch + boxes["swA"][3]
    # each part the mirror of itself: the boxes linked to the hub nearest it, side by side
    assert boxes["p1"][1] == boxes["c1"][1] < boxes["mu1"][1]


def test_the_split_crosses_less_than_the_figure_ranked_as_written() -> None:
    split = crossings(build(SUBSTATION).svg)
    # the same figure with the switches declared first offers no split
    lines = SUBSTATION.split("\n")
    first = [ln for ln in lines if ln.startswith("node sw")]
    written = "\n".join(lines[:2] + first + [ln for ln in lines[2:] if ln not in first])
    plain = crossings(build(written).svg)
    assert split < plain
    boxes = {k: v["box"] for k, v in nodes(ET.fromstring(build(written).svg)).items()}
    assert all(boxes[nid][1] < boxes["swA"][1] for nid in ("gw", "p1", "c2", "p3"))


def test_a_split_is_offered_only_with_parts_on_both_sides() -> None:
    assert offered(SUBSTATION) == {"p1", "c1", "mu1", "p2", "c2", "p3"}
    one_before = SUBSTATION.replace('node hmi "Station HMI"\n', "").replace("edge hmi -- swA\nedge hmi -- swB\n", "")
    one_before = one_before.replace('node eng "Engineering workstation"\n', "").replace("edge eng -- swA\n", "")
    assert offered(one_before) == set()
    # a part linked to anything but the hub stays (p3 also feeds the gateway)
    tied = SUBSTATION + "edge p3 -- gw\n"
    assert "p3" not in offered(tied)
    # only topology
    assert offered(SUBSTATION.replace("topology", "block", 1)) == set()
