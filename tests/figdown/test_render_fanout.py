"""Crowded arrowheads at one side of a box join into one fan-out bus (scene/fanout.py).

Lines with an arrowhead at the same side of a box, alike and saying nothing, that
would stand closer than two heads can, leave the box from one port and share one
trunk, each turning off where it turned before: one arrowhead at the box, a
junction dot at each branch.  Every check reads the drawn SVG.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from markmcp.figdown.render import build

from .test_render_merge_bus import box, dots, members
from .test_render_routes_clear import _vertices, head_tips

SVG = "{http://www.w3.org/2000/svg}"

# (four ASTM links from a lab's middleware to its analysers came off its side 5 px apart,
# beside the line to the review queue: four arrowheads in one smudge)
LAB = """figdown 0.3 block
title "Hospital clinical laboratory — LIS and analyser middleware"

flow right

class hl7 "HL7 v2 messages" stroke=#0f766e
class astm "ASTM / LIS2-A2 to instruments" stroke=#ea580c style=dashed

external ehr "EHR\\n(CPOE orders)"
node lis "Laboratory information\\nsystem" shape=rounded
node labels "Specimen label\\nprinters"
node track "Track automation\\n(decapper, centrifuge)"
node mw "Instrument middleware\\n(autoverification rules)" shape=rounded

group core "Core lab analysers"
node chem "Chemistry analyser" in=core
node immuno "Immunoassay analyser" in=core
node haem "Haematology analyser" in=core
node coag "Coagulation analyser" in=core

node poct "Point-of-care\\nglucose meters"
node micro "Microbiology\\nworkflow module"
node review "Technologist review\\nqueue"
node archive "Results archive" shape=cylinder
node qc "QC & Westgard\\nrules" shape=cylinder

edge ehr -[ORM order]-> lis class=hl7
edge lis -> labels
edge labels -> track
edge lis <-> mw
edge track -> chem
edge track -> immuno
edge track -> haem
edge track -> coag
edge mw <-> chem class=astm
edge mw <-> immuno class=astm
edge mw <-> haem class=astm
edge mw <-> coag class=astm
edge qc -> mw
edge mw -[flags, deltas, critical values]-> review
edge review -[released]-> lis
edge poct -[docking station upload]-> lis
edge micro <-> lis
edge lis -[ORU result]-> ehr class=hl7
edge lis -> archive
"""


def _edges(src: str, svg: str) -> dict[str, list[tuple[float, float]]]:
    """Each connector's drawn vertices, by the text of its edge line (``data-edge`` is
    the line's number)."""
    text = src.split("\n")
    return {text[int(el.get("data-edge")) - 1]: _vertices(el) for el in ET.fromstring(svg).iter()
            if el.get("data-edge") and el.tag in (SVG + "path", SVG + "line")}


def test_crowded_heads_at_one_side_leave_it_as_one_trunk() -> None:
    svg = build(LAB).svg
    lines = _edges(LAB, svg)
    assert len(lines) == 19
    astm = {k: v for k, v in lines.items() if "class=astm" in k}
    assert len(astm) == 4
    (bus,) = members(svg).values()
    assert {LAB.split("\n")[int(el.get("data-edge")) - 1] for el in bus} == set(astm)
    # one port at the middleware: every member starts there, on its right side
    starts = {pts[0] for pts in astm.values()}
    assert len(starts) == 1
    (start,) = starts
    x0, y0, x1, y1 = box(svg, "mw")
    assert abs(start[0] - x1) < 3.0 and y0 < start[1] < y1
    # ... clear of the straight line to the review queue leaving the same side
    (review,) = [pts for k, pts in lines.items() if "]-> review" in k]
    assert abs(review[0][1] - start[1]) >= 8.0
    # each still ends at its own analyser
    for k, pts in astm.items():
        target = k.split()[3]
        bx0, by0, bx1, by1 = box(svg, target)
        assert abs(pts[-1][0] - bx0) < 3.0 and by0 < pts[-1][1] < by1, k
    # a dot where each branch but the last leaves the trunk, none at the arrowhead
    found = dots(svg)
    assert len(found) == 3
    assert all(math.dist(d, start) > 16.0 for d in found)


def test_no_two_arrowheads_at_one_box_touch() -> None:
    """A bus's members draw their one head on one another; any other two stand apart
    (a head is 11.2 px across)."""
    drawn = head_tips(build(LAB).svg)
    tips = sorted(set(drawn))
    assert (len(drawn), len(tips)) == (25, 22)   # the four at mw on one another
    for i, p in enumerate(tips):
        for q in tips[i + 1:]:
            assert math.dist(p, q) >= 12.0, (p, q)


def test_a_fan_out_of_dashed_lines_lays_its_dashes_on_one_another() -> None:
    """They begin together, so with no offset their patterns start together and along
    the trunk the dashes coincide (an offset ending each on a period, as a merge bus's
    members that end together take, scattered them)."""
    (bus,) = members(build(LAB).svg).values()
    assert len(bus) == 4
    for el in bus:
        assert el.get("stroke-dasharray") == "6 4"
        assert el.get("stroke-dashoffset") is None


def test_lines_that_cannot_share_a_trunk_keep_their_own_heads() -> None:
    """Without the review line the four heads stand 13 px apart, not touching, and the
    last line turns up 2 px from its port, short of where a trunk would run: they stay
    four lines, the heads apart."""
    src = LAB.replace("edge mw -[flags, deltas, critical values]-> review\n", "")
    assert src != LAB
    svg = build(src).svg
    assert not members(svg)
    tips = head_tips(svg)
    assert len(tips) == len(set(tips))
    for i, p in enumerate(tips):
        for q in tips[i + 1:]:
            assert math.dist(p, q) >= 12.0, (p, q)
