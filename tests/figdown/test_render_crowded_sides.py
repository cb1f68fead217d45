"""Ends crowded on one side of a box are spaced along it as a whole.

A side holding more straight lines than its ports were spread for ended with an
arrowhead on the start of another line.  These tests read the drawn SVG (the
arrowheads' tips, the connectors' ends) and call the spacing's solver directly.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from markmcp.figdown.render import build
from markmcp.figdown.render.scene.crowd import HEAD_GAPS, PLAIN_GAP, _nearest

from .test_render_routes_clear import SVG, _box_of, _vertices, head_tips

FLIGHT = ("figdown 0.5 statechart\nflow right\nclass cancelled \"Ends without travel\" stroke=#dc2626 style=dashed\n"
          "state held \"Held\\n(no payment, 24 h)\"\nstate ticketed \"Ticketed\"\n"
          "state changed \"Reissued\\n(date change)\"\nstate checkedin \"Checked in\"\nstate boarded \"Boarded\"\n"
          "state flown \"Flown\"\nstate noshow \"No-show\"\nstate cancelledst \"Cancelled\"\n"
          "transition held -[payment captured]-> ticketed\n"
          "transition held -[hold expires]-> cancelledst class=cancelled\n"
          "transition ticketed -[change fee paid]-> changed\ntransition changed -[new ticket issued]-> ticketed\n"
          "transition ticketed -[online check-in opens, passenger checks in]-> checkedin\n"
          "transition checkedin -[boarding pass scanned]-> boarded\n"
          "transition boarded -[door closed, departed]-> flown\n"
          "transition checkedin -[offloaded (misconnect)]-> ticketed\n"
          "transition ticketed -[passenger cancels]-> cancelledst class=cancelled\n"
          "transition ticketed -[did not board]-> noshow\ntransition checkedin -[did not board]-> noshow\n"
          "transition noshow -[rebooked on later flight]-> ticketed\n")

ARROW_HALF_AND_SOME = 6.0   # a head is 11.2 px across: another end beyond its half is clear of it


def ends_at(svg: str, nid: str) -> list[tuple[float, float]]:
    """Every connector end on (within 1 px of) box ``nid``'s bounding box."""
    x, y, w, h = _box_of(svg, nid)
    found = []
    for el in ET.fromstring(svg).iter():
        if el.get("data-edge") is not None and el.tag in (SVG + "line", SVG + "path"):
            pts = _vertices(el)
            found += [p for p in (pts[0], pts[-1]) if x - 1 <= p[0] <= x + w + 1 and y - 1 <= p[1] <= y + h + 1]
    return found


def test_no_arrowhead_on_a_crowded_side_lies_on_another_end() -> None:
    """Ticketed's right side (36 px) takes the lines to and from Reissued and to and from
    Checked in: "offloaded"'s arrowhead stood 1.3 px from the start of "change fee paid"."""
    svg = build(FLIGHT).svg
    x, y, w, h = _box_of(svg, "ticketed")
    tips = [p for p in head_tips(svg) if abs(p[0] - (x + w)) < 6 and y - 1 <= p[1] <= y + h + 1]
    ends = ends_at(svg, "ticketed")
    assert len(tips) == 2
    for tip in tips:
        others = [p for p in ends if math.dist(p, tip) > 0.01]
        assert min(math.dist(tip, p) for p in others) >= ARROW_HALF_AND_SOME


def test_spacing_keeps_order_and_moves_only_what_it_must() -> None:
    # two ends 1 px apart with a head between them part symmetrically; one far off stays
    head_plain = HEAD_GAPS[1]
    placed = _nearest([10.0, 11.0, 40.0], [head_plain, PLAIN_GAP], [1.0, 1.0, 1.0], 0.0, 50.0)
    assert placed[2] == 40.0
    assert math.isclose(placed[1] - placed[0], head_plain)
    assert math.isclose((placed[0] + placed[1]) / 2, 10.5)


def test_spacing_holds_an_end_that_cannot_move() -> None:
    placed = _nearest([10.0, 11.0], [HEAD_GAPS[0]], [1e9, 1.0], 0.0, 50.0)
    assert math.isclose(placed[0], 10.0, abs_tol=1e-6)
    assert math.isclose(placed[1], 10.0 + HEAD_GAPS[0], abs_tol=1e-6)


def test_spacing_stays_within_the_side() -> None:
    placed = _nearest([0.0, 0.5, 1.0], [7.0, 7.0], [1.0, 1.0, 1.0], 0.0, 30.0)
    assert placed == [0.0, 7.0, 14.0]
    placed = _nearest([29.0, 29.5, 30.0], [7.0, 7.0], [1.0, 1.0, 1.0], 0.0, 30.0)
    assert placed == [16.0, 23.0, 30.0]


def test_two_lines_leaving_side_by_side_are_spaced_across_themselves() -> None:
    from markmcp.figdown.render.scene.crowd import SLANT_LEAST, _across

    up = (math.cos(math.radians(33)), -math.sin(math.radians(33)))   # leaving a top side at 33°
    near = (math.cos(math.radians(40)), -math.sin(math.radians(40)))
    # side by side: a gap along the top is sin 33° of itself across the lines (a pair from
    # a sidecar's top stood 7 px apart along it, 3.9 px apart across)
    assert math.isclose(_across(up, near, 0), math.sin(math.radians(33)))
    # parting lines keep the gap along the side; a line nearly along it counts SLANT_LEAST
    assert _across(up, (0.0, -1.0), 0) == 1.0
    flat = (1.0, -0.05)
    assert _across(flat, flat, 0) == SLANT_LEAST
