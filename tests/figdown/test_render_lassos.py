"""Bundle lassos: what a ring encloses is one of the bundle's members.

A lasso is the drawn extent of a bundle's member links, so a box wholly inside
the ring reads as a member.  Where the engine chose the box's position it steps
the box out of the ring (there was a refusal here before: ``the layout pass
could not separate them``); where an author's pin put it there, or there is no
free room beside the ring, the ring is fitted afresh round a point on each
member link, clear of every non-member, and only when no such ring exists is
the figure refused.  Each member link's connector runs through its ring.  Every
check reads the drawn SVG — the ring's ellipse, the boxes and the connectors —
never the engine's bookkeeping; who is a member comes from the parsed source.
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import shared_dir
from markmcp.figdown.render import build

from .test_render_scene import SVG, nodes


def rings(root: ET.Element) -> list[tuple[str, float, float, float, float, float]]:
    """(bundle id, cx, cy, rx, ry, rotation in radians) of every drawn lasso."""
    found = []
    for el in root.iter(SVG + "ellipse"):
        if el.get("data-lasso") is None:
            continue
        cx, cy, rx, ry = (float(el.get(k)) for k in ("cx", "cy", "rx", "ry"))
        turn = re.match(r"rotate\(([-\d.e+]+)", el.get("transform", ""))
        degrees = float(turn.group(1)) if turn else 0.0
        found.append((el.get("data-lasso"), cx, cy, rx, ry, math.radians(degrees)))
    return found


def _ring_norm(ring, x: float, y: float) -> float:
    _bid, cx, cy, rx, ry, turn = ring
    dx, dy = x - cx, y - cy
    along = (math.cos(turn) * dx + math.sin(turn) * dy) / rx
    across = (-math.sin(turn) * dx + math.cos(turn) * dy) / ry
    return math.hypot(along, across)


def enclosed(ring, box) -> bool:
    x, y, w, h = box
    return all(_ring_norm(ring, px, py) <= 1 for px, py in ((x, y), (x + w, y), (x, y + h), (x + w, y + h)))


def bundle_members(out) -> dict[str, set[str]]:
    """bundle id -> the endpoints of its member links, from the parsed model."""
    (doc,) = out.result.docs
    by_id = {e["id"]: e for e in doc.edges if e.get("id")}
    members = {}
    for bundle in doc.bundles:
        ends: set[str] = set()
        for member in bundle["_members"]:
            edge = by_id.get(member["id"]) if "id" in member else member
            if edge is not None:
                ends |= {edge["a"], edge["b"]}
        members[bundle["id"]] = ends
    return members


def lasso_intrusions(out) -> list[str]:
    """``"bundle: node"`` for every non-member box wholly inside a drawn lasso."""
    root = ET.fromstring(out.svg)
    boxes = {k: v["box"] for k, v in nodes(root).items()}
    members = bundle_members(out)
    return [f"{ring[0]}: {nid}" for ring in rings(root) for nid, box in boxes.items()
            if nid not in members[ring[0]] and enclosed(ring, box)]


def overlapping_boxes(out) -> list[tuple[str, str]]:
    found = sorted(nodes(ET.fromstring(out.svg)).items())
    return [(a, b) for i, (a, p) in enumerate(found) for b, q in found[i + 1:]
            if p["box"][0] < q["box"][0] + q["box"][2] and q["box"][0] < p["box"][0] + p["box"][2]
            and p["box"][1] < q["box"][1] + q["box"][3] and q["box"][1] < p["box"][1] + p["box"][3]]


# Five routers; the bundle's links fan out from r1 and into r5, and the layout
# puts r4 (wired to both, but not in the bundle) where the ring falls.
FAN = ("figdown 0.4 topology\n{flow}{group}node r1\nnode r2\nnode r3\nnode r4{member}\nnode r5\n"
       "edge r1 -- r2\nedge r1 -- r4\nedge r1 -- r5\nedge r3 -- r5\nedge r4 -- r5\n"
       'bundle up "Uplinks" r1--r2,r1--r5,r3--r5\n{pins}')

STEPPED_OUT = {
    "flow right": FAN.format(flow="", group="", member="", pins=""),
    "flow down": FAN.format(flow="flow down\n", group="", member="", pins=""),
    "a group steps out whole": FAN.format(flow="", group='group lab "Lab"\n', member=" in=lab", pins=""),
    "pinned members, engine-placed bystander": FAN.format(
        flow="", group="", member="", pins="layout\npin r1 at=(0,180)\npin r2 at=(400,10)\n"),
}


@pytest.mark.parametrize("source", STEPPED_OUT.values(), ids=STEPPED_OUT.keys())
def test_an_engine_placed_bystander_steps_out_of_the_lasso(source: str) -> None:
    # each of these was refused ('would enclose non-member "r4" ...') before the
    # layout moved the bystander out; now it draws, and the ring holds members only
    out = build(source)
    assert out.diagnostics == [], out.error_lines()
    root = ET.fromstring(out.svg)
    (ring,) = rings(root)
    boxes = nodes(root)
    assert not enclosed(ring, boxes["r4"]["box"])
    assert lasso_intrusions(out) == []
    assert overlapping_boxes(out) == []
    assert build(source).svg == out.svg     # the move is deterministic


# The pinned aggregation of two taps, and a monitor wired to one of them.
AGG = ('figdown 0.4 topology\nnode s1 "S1"\nnode s2 "S2"\nnode p "P"\nnode q "Q"\nnode m "Mon"\n'
       "edge s1 -- p\nedge p -- s2\nedge s1 -- q\nedge q -- s2\nedge m -- q\n"
       'bundle agg "Agg" s1--p,p--s2,s1--q,q--s2\nlayout\n'
       "pin s1 at=(0,100)\npin p at=(150,0)\npin q at=(150,200)\npin s2 at=(300,100)\n")


def test_a_pinned_bystander_inside_the_lasso_is_still_refused_naming_the_pin() -> None:
    out = build(AGG + "pin m at=(150,100)\n")
    assert out.svg is None
    assert out.error_lines() == [
        'Line 12: the lasso for bundle "agg" would enclose non-member "m" — a lasso is the drawn '
        'extent of the bundle\'s members, so this draws "m" as one of them. Move the pin clear of '
        'the bundle\'s extent, or change what "agg" collects so the lasso is its members\' own. '
        "The figure is not drawn rather than drawn wrongly."]
    unpinned = build(AGG)    # left to the engine, the monitor is placed outside the ring
    assert unpinned.diagnostics == [] and lasso_intrusions(unpinned) == []


def test_a_bystander_with_no_room_beside_the_ring_is_refused() -> None:
    # the pair's links run round the probe through West and East; the ring spans
    # that fan, so beside it on either side is a member (or the layout's edge): the
    # probe is not pushed into them and the figure is refused in the engine's voice
    source = ('figdown 0.4 topology\nflow down\nnode top "Core"\nnode w "West"\nnode mid "Probe"\n'
              'node e "East"\nnode bot "Edge"\nedge top -- w\nedge top -- mid\nedge top -- e\n'
              'edge w -- bot\nedge mid -- bot\nedge e -- bot\nbundle pair "Pair" top--w,w--bot,top--e,e--bot\n')
    out = build(source)
    assert out.svg is None
    assert out.error_lines() == [
        'Line 14: the lasso for bundle "pair" would enclose non-member "mid" and the layout pass '
        "could not separate them; the figure is not drawn rather than drawn wrongly. Give \"mid\" "
        'a pin outside the bundle\'s extent, or add its link to "pair".']


# --- a ring fitted round what cannot step out ----------------------------------------
#
# Each of these was refused (the first ring, through the member links' midpoints,
# enclosed the named box, and the box could not step out: it is pinned, or there
# was no room).  Now the ring is fitted afresh round one point on each member link
# and drawn; upstream's engine drew these figures too.  All come from random
# documents of the kind ``bundled_topologies`` makes.

REFITTED = {
    # a fan: three member links run from n0 and n1 down past n4 to n2 and n3, with
    # n4 (engine-placed) between them and no room beside the first ring
    "fan with no room": ("n4", 'figdown 0.5 topology\nflow down\nnode n0\nnode n1\nnode n2\nnode n3\n'
                         'node n4\nnode n5\nedge n1 -- n3\nedge n0 -- n4\nedge n2 -- n3\nedge n0 -- n3\n'
                         'edge n1 -- n2\nedge n1 -- n5\nbundle b0 "B0" n1--n3,n1--n2,n0--n3\n'),
    # the bystander is pinned, and so is a member: nothing may move
    "pinned bystander": ("n1", 'figdown 0.5 topology\nflow down\nnode n0\nnode n1\nnode n2\nnode n3\n'
                         'node n4\nedge n1 -- n3\nedge n0 -- n2\nedge n2 -- n3\nedge n0 -- n3\n'
                         'edge n2 -- n4\nedge n3 -- n4\nedge n1 -- n4\nbundle b0 "B0" n0--n2,n3--n4\n'
                         'layout\npin n2 at=(227,182)\npin n1 at=(53,166)\n'),
    # pinned members; the engine-placed bystander sits just inside the first ring
    "pinned members": ("n2", 'figdown 0.5 topology\nflow up\nnode n0\nnode n1\nnode n2\nnode n3\n'
                       'node n4\nnode n5\nedge n1 -- n3\nedge n3 -- n4\nedge n2 -- n5\nedge n0 -- n3\n'
                       'edge n2 -- n4\nedge n1 -- n4\nedge n1 -- n2\nedge n3 -- n5\nedge n1 -- n5\n'
                       'bundle b0 "B0" n1--n4,n3--n5\nlayout\npin n3 at=(184,179)\npin n5 at=(386,15)\n'
                       'pin n0 at=(255,58)\n'),
    # two member links routed round a column of boxes, both sides of it
    "routes round a column": ("n3", 'figdown 0.5 topology\nflow left\ngroup g "G"\nnode n0\nnode n1\n'
                              'node n2\nnode n3\nnode n4\nedge n0 -- n3\nedge n0 -- n1\nedge n1 -- n4\n'
                              'edge n0 -- n2\nbundle b0 "B0" n1--n4,n0--n1,n0--n2\nlayout\n'
                              'pin n0 at=(93,204)\n'),
    # two bundles of the same links, both rings refitted
    "two bundles, one bystander": ("n4", 'figdown 0.5 topology\nflow down\ngroup g "G"\nnode n0\n'
                                   'node n1 in=g\nnode n2\nnode n3 in=g\nnode n4\nnode n5 in=g\n'
                                   'node n6 in=g\nnode n7 in=g\nedge n0 -- n1\nedge n2 -- n7\n'
                                   'edge n0 -- n7\nbundle b0 "B0" n0--n1,n0--n7,n2--n7\n'
                                   'bundle b1 "B1" n2--n7,n0--n1,n0--n7\nlayout\npin n5 at=(300,90)\n'),
    # two member links leave n0 apart; the first ring, between them, held n2
    "two links from one box": ("n2", 'figdown 0.5 topology\nflow left\ngroup g "G"\nnode n0\nnode n1\n'
                               'node n2\nnode n3 in=g\nnode n4\nnode n5\nnode n6\nnode n7\n'
                               'edge n0 -- n6\nedge n4 -- n6\nedge n0 -- n3\nedge n0 -- n1\n'
                               'bundle b0 "B0" n0--n3,n0--n1\nbundle b1 "B1" n4--n6,n0--n3,n0--n6\n'
                               'layout\npin n1 at=(225,196)\n'),
    # one member link far from the other two, n0 between those two: the ring
    # round all three is as wide as they are, and only just clears n0
    "one link apart from two": ("n0", 'figdown 0.5 topology\nflow left\nnode n0\nnode n1\nnode n2\n'
                                'node n3\nnode n4\nnode n5\nnode n6\nnode n7\nedge n6 -- n7\n'
                                'edge n3 -- n7\nedge n0 -- n4\nedge n1 -- n2\nedge n1 -- n5\n'
                                'edge n5 -- n6\nedge n3 -- n4\nbundle b0 "B0" n1--n5,n3--n4,n6--n7\n'
                                'bundle b1 "B1" n6--n7,n0--n4\n'),
}


def connectors(svg: str) -> dict[int, list[list[tuple[float, float]]]]:
    """Source line of each connector -> its drawn polylines (a path's curve
    controls read as corners, which is close enough to say where it runs)."""
    found: dict[int, list] = {}
    for m in re.finditer(r'<line data-edge="(\d+)" x1="([-\d.e]+)" y1="([-\d.e]+)" x2="([-\d.e]+)" '
                         r'y2="([-\d.e]+)"', svg):
        x1, y1, x2, y2 = (float(m.group(k)) for k in range(2, 6))
        found.setdefault(int(m.group(1)), []).append([(x1, y1), (x2, y2)])
    for m in re.finditer(r'<path data-edge="(\d+)" d="([^"]+)"', svg):
        values = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", m.group(2))]
        found.setdefault(int(m.group(1)), []).append(list(zip(values[::2], values[1::2])))
    return found


def runs_through(ring, polyline) -> bool:
    return any(_ring_norm(ring, p[0] + (q[0] - p[0]) * k / 40, p[1] + (q[1] - p[1]) * k / 40) <= 1
               for p, q in zip(polyline, polyline[1:]) for k in range(41))


def meets(ring, box) -> bool:
    """Does any point of the box's outline (sampled) or its centre lie inside the ring?"""
    x, y, w, h = box
    outline = [(x + w * k / 16, y) for k in range(17)] + [(x + w * k / 16, y + h) for k in range(17)]
    outline += [(x, y + h * k / 16) for k in range(17)] + [(x + w, y + h * k / 16) for k in range(17)]
    return any(_ring_norm(ring, px, py) <= 1 for px, py in outline + [(x + w / 2, y + h / 2)])


@pytest.mark.parametrize("bystander, source", REFITTED.values(), ids=REFITTED.keys())
def test_a_ring_is_fitted_round_a_bystander_that_cannot_step_out(bystander: str, source: str) -> None:
    out = build(source)
    assert out.diagnostics == [], out.error_lines()
    root = ET.fromstring(out.svg)
    boxes = nodes(root)
    members = bundle_members(out)
    (doc,) = out.result.docs
    drawn = connectors(out.svg)
    for ring in rings(root):
        if bystander in members[ring[0]]:
            continue    # a ring the bystander belongs to was never in question
        assert not enclosed(ring, boxes[bystander]["box"])
        # the fitted ring does not cut through any non-member either
        assert [n for n, b in boxes.items() if n not in members[ring[0]] and meets(ring, b["box"])] == []
        # and it is still the lasso of its links: each member link runs through it
        (bundle,) = [b for b in doc.bundles if b["id"] == ring[0]]
        for member in bundle["_members"]:
            (line,) = [e["line"] for e in doc.edges if {e["a"], e["b"]} == {member["a"], member["b"]}]
            assert any(runs_through(ring, poly) for poly in drawn[line]), (ring[0], member)
    # no pinned box moved: each sits where its pin put it, give or take the one
    # translation that brings the whole figure's ink onto the canvas
    offsets = {(round(boxes[name]["x"] - float(x), 6), round(boxes[name]["y"] - float(y) - 20, 6))
               for name, x, y in re.findall(r"pin (\w+) at=\((\d+),(\d+)\)", source)}
    assert len(offsets) <= 1 and all(dx >= 0 and dy >= 0 for dx, dy in offsets), offsets
    assert build(source).svg == out.svg


def test_a_fitted_ring_prefers_one_no_other_connector_runs_through() -> None:
    # the links from n0 to n3 and to n1 part at n0, and n0's third connector (to
    # n6) leaves between them: a ring near n0 that holds both members need not
    # take it in, and the fitted ring does not, so it reads as those two alone
    bystander, source = REFITTED["two links from one box"]
    out = build(source)
    (doc,) = out.result.docs
    drawn = connectors(out.svg)
    (ring,) = [r for r in rings(ET.fromstring(out.svg)) if r[0] == "b0"]
    others = [e["line"] for e in doc.edges if {e["a"], e["b"]} not in ({"n0", "n3"}, {"n0", "n1"})]
    assert [line for line in others if any(runs_through(ring, poly) for poly in drawn[line])] == []


# --- every member link runs through its ring ----------------------------------------
#
# A ring says "these links", so each member link's drawn connector comes inside
# it.  The ring through the members' common run used to miss links that share
# no run with the others (their stretches along the members' mean direction do
# not overlap, so the ring sat between them), and links routed round boxes away
# from where the others run; such a ring is now fitted afresh round a point on
# every member link.  Each of these drew a ring missing a member link before.

def edge_polylines(svg: str) -> dict[str, list[list[tuple[float, float]]]]:
    """``data-edge`` (authored id, else source line) -> its drawn polylines (a
    fillet's control point reads as the corner it rounds)."""
    found: dict[str, list] = {}
    for m in re.finditer(r'<line data-edge="([^"]+)" x1="([-\d.e]+)" y1="([-\d.e]+)" x2="([-\d.e]+)" '
                         r'y2="([-\d.e]+)"', svg):
        x1, y1, x2, y2 = (float(m.group(k)) for k in range(2, 6))
        found.setdefault(m.group(1), []).append([(x1, y1), (x2, y2)])
    for m in re.finditer(r'<path data-edge="([^"]+)" d="([^"]+)"', svg):
        values = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", m.group(2))]
        found.setdefault(m.group(1), []).append(list(zip(values[::2], values[1::2])))
    return found


def _length(polyline) -> float:
    return sum(math.dist(p, q) for p, q in zip(polyline, polyline[1:]))


def passes_through(ring, polyline) -> bool:
    """Does the polyline come inside the ring?  Exactly: in the ring's own frame,
    where it is the unit circle, some segment is nearer the centre than 1."""
    _bid, cx, cy, rx, ry, turn = ring
    c, s = math.cos(turn), math.sin(turn)
    local = [((c * (x - cx) + s * (y - cy)) / rx, (-s * (x - cx) + c * (y - cy)) / ry) for x, y in polyline]
    for (px, py), (qx, qy) in zip(local, local[1:]):
        dx, dy = qx - px, qy - py
        run = dx * dx + dy * dy
        t = 0.0 if run == 0 else min(1.0, max(0.0, -(px * dx + py * dy) / run))
        if (px + dx * t) ** 2 + (py + dy * t) ** 2 < 1.0:
            return True
    return False


def ring_misses(out) -> list[str]:
    """``"bundle: edge"`` for every member link whose drawn connector stays
    outside its bundle's drawn ring."""
    (doc,) = out.result.docs
    drawn = edge_polylines(out.svg)
    missed = []
    for ring in rings(ET.fromstring(out.svg)):
        (bundle,) = [b for b in doc.bundles if b["id"] == ring[0]]
        for member in bundle["_members"]:
            if "id" in member:
                edges = [e for e in doc.edges if e.get("id") == member["id"]]
            else:
                edges = [e for e in doc.edges if {e["a"], e["b"]} == {member["a"], member["b"]}
                         and e["a"] != e["b"]]
            for e in edges:
                key = e["id"] if e.get("id") is not None else str(e["line"])
                # between two pinned boxes that touch, a connector draws no ink (a line of
                # length 0): there is nothing a ring could hold
                shown = [poly for poly in drawn.get(key, ()) if _length(poly) >= 1.0]
                if shown and not any(passes_through(ring, poly) for poly in shown):
                    missed.append(f"{ring[0]}: {key}")
    return missed


MISSED = {
    # b1 gathers n6--n7 and n0--n4, short links on either side of the figure:
    # the ring sat in the gap between them and held neither
    "two short links apart":
        ('figdown 0.5 topology\nflow left\nnode n0\nnode n1\nnode n2\nnode n3\nnode n4\nnode n5\n'
         'node n6\nnode n7\nedge n6 -- n7\nedge n3 -- n7\nedge n0 -- n4\nedge n1 -- n2\n'
         'edge n1 -- n5\nedge n5 -- n6\nedge n3 -- n4\nbundle b0 "B0" n1--n5,n3--n4,n6--n7\n'
         'bundle b1 "B1" n6--n7,n0--n4\n'),
    # n0--n1 is short and ends where n1--n3 and n0--n3 begin their run: the ring
    # at that run missed it
    "a short link beside a long run":
        ('figdown 0.5 topology\nnode n0\nnode n1\nnode n2\nnode n3\nedge n0 -- n2\nedge n2 -- n3\n'
         'edge n1 -- n3\nedge n0 -- n3\nedge n0 -- n1\nedge n1 -- n2\n'
         'bundle b0 "B0" n0--n3,n0--n1,n1--n3\nlayout\npin n2 at=(0,296)\n'),
    # n3--n6 is routed out of n6 and down round the group to n3, away from the
    # other two members, which the ring sat on
    "a member routed round a group":
        ('figdown 0.5 topology\nflow up\ngroup g "G"\nnode n0 in=g\nnode n1\nnode n2 in=g\n'
         'node n3 in=g\nnode n4\nnode n5 in=g\nnode n6\nedge n3 -- n6\nedge n1 -- n6\n'
         'edge n1 -- n4\nedge n4 -- n6\nedge n1 -- n5\nbundle b0 "B0" n4--n6,n3--n6,n1--n4\n'),
    # the three sides of a triangle, two of them meeting at the pinned n1
    "a triangle of members":
        ('figdown 0.5 topology\nflow down\ngroup g "G"\nnode n0\nnode n1 in=g\nnode n2 in=g\n'
         'edge n1 -- n2\nedge n0 -- n2\nedge n0 -- n1\nbundle b0 "B0" n0--n1,n0--n2,n1--n2\nlayout\n'
         'pin n1 at=(320,299)\n'),
    # every ring round the members of both bundles, all in one crowded row, cuts
    # through some bystander; one that encloses none is drawn (the rule asks no more)
    "no clear ring, one enclosing nothing":
        ('figdown 0.5 topology\nnode n0\nnode n1\nnode n2\nnode n3\nnode n4\nnode n5\nnode n6\n'
         'node n7\nedge n4 -- n5\nedge n2 -- n4\nedge n2 -- n7\nedge n0 -- n5\nedge n5 -- n7\n'
         'edge n4 -- n7\nedge n1 -- n3\nedge n2 -- n3\nedge n3 -- n6\nedge n1 -- n2\nedge n6 -- n7\n'
         'edge n0 -- n1\nbundle b0 "B0" n1--n2,n5--n7,n4--n7\nbundle b1 "B1" n5--n7,n2--n3\n'),
    # every ring round b0's four members encloses an engine-placed box at first:
    # the step pass moves the boxes out of that ring (it moved them out of the
    # ring that missed n4--n7 and n1--n3 before, and drew that one)
    "the step clears the ring round all members":
        ('figdown 0.5 topology\nnode n0\nnode n1\nnode n2\nnode n3\nnode n4\nnode n5\nnode n6\n'
         'node n7\nnode n8\nnode n9\nnode n10\nnode n11\nnode n12\nedge n11 -- n2\nedge n4 -- n7\n'
         'edge n1 -- n9\nedge n3 -- n7\nedge n1 -- n2\nedge n1 -- n3\nedge n3 -- n4\nedge n1 -- n4\n'
         'edge n12 -- n7\nedge n11 -- n4\nedge n3 -- n8\nedge n1 -- n5\nedge n5 -- n6\n'
         'edge n10 -- n11\nedge n3 -- n5\nedge n0 -- n11\nedge n4 -- n5\n'
         'bundle b0 "B0" n4--n7,n12--n7,n1--n3,n3--n7\nbundle b1 "B1" n5--n6,n3--n4,n1--n9\nlayout\n'
         'pin n11 at=(446,273)\n'),
}


@pytest.mark.parametrize("source", MISSED.values(), ids=MISSED.keys())
def test_every_member_link_runs_through_its_ring(source: str) -> None:
    out = build(source)
    assert out.diagnostics == [], out.error_lines()
    assert rings(ET.fromstring(out.svg))
    assert ring_misses(out) == []
    assert lasso_intrusions(out) == []


# --- every drawn lasso, over corpora and random documents ------------------------------


def test_every_conformance_lasso_rings_only_its_members() -> None:
    drawn = 0
    for corpus in ("cases", "experimental"):
        for fd in sorted(shared_dir("figdown", "conformance", corpus).glob("*.fd")):
            out = build(fd.read_bytes().decode("utf-8"))
            if out.svg is None or len(out.result.docs) != 1 or not out.result.docs[0].bundles:
                continue
            drawn += len(rings(ET.fromstring(out.svg)))
            assert lasso_intrusions(out) == [], fd.name
            assert ring_misses(out) == [], fd.name
    assert drawn >= 3


def test_every_upstream_example_lasso_rings_only_its_members() -> None:
    value = os.environ.get("FIGDOWN_UPSTREAM", "")
    root = Path(value)
    if not value or not (root / "examples").is_dir():
        pytest.skip("set FIGDOWN_UPSTREAM to an upstream FigDown checkout to check its example figures")
    drawn = 0
    for path in sorted((root / "examples").rglob("*.fd")):
        out = build(path.read_bytes().decode("utf-8"))
        assert out.svg is not None, path
        if len(out.result.docs) == 1 and out.result.docs[0].bundles:
            drawn += len(rings(ET.fromstring(out.svg)))
            assert lasso_intrusions(out) == [], path
            assert ring_misses(out) == [], path
    assert drawn >= 3


@st.composite
def bundled_topologies(draw) -> str:
    """Small topologies with one or two bundles of two or three links each,
    sometimes a group, sometimes a few pins."""
    n = draw(st.integers(3, 8))
    ids = [f"n{i}" for i in range(n)]
    lines = ["figdown 0.5 topology", draw(st.sampled_from(["", "flow down", "flow left", "flow up"]))]
    group = draw(st.booleans())
    if group:
        lines.append('group g "G"')
    for i in ids:
        lines.append(f"node {i}" + (" in=g" if group and draw(st.integers(0, 2)) == 0 else ""))
    pair = st.tuples(st.sampled_from(ids), st.sampled_from(ids)).filter(lambda p: p[0] < p[1])
    pairs = draw(st.lists(pair, min_size=2, max_size=n + 3, unique=True))
    lines += [f"edge {a} -- {b}" for a, b in pairs]
    for k in range(draw(st.integers(1, 2))):
        picked = draw(st.lists(st.sampled_from(pairs), min_size=2, max_size=3, unique=True))
        lines.append(f'bundle b{k} "B{k}" ' + ",".join(f"{a}--{b}" for a, b in picked))
    pinned = draw(st.lists(st.sampled_from(ids), max_size=n // 2, unique=True))
    if pinned:
        lines.append("layout")
        lines += [f"pin {i} at=({draw(st.integers(0, 400))},{draw(st.integers(0, 300))})" for i in pinned]
    return "\n".join(line for line in lines if line) + "\n"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bundled_topologies())
def test_random_bundles_draw_no_lasso_round_a_non_member(source: str) -> None:
    out = build(source)
    if out.svg is None:
        assert out.diagnostics
        return
    assert lasso_intrusions(out) == []
    assert ring_misses(out) == []


def test_a_member_link_between_touching_pinned_boxes_draws_nothing_to_ring() -> None:
    """n0 and n1 are pinned one above the other, touching: their link is a line of length 0.
    The ring still holds the two links it can see, and no non-member (hypothesis found it)."""
    out = build('figdown 0.5 topology\nnode n0\nnode n1\nnode n2\nnode n3\nedge n0 -- n1\nedge n0 -- n2\n'
                'edge n0 -- n3\nbundle b0 "B0" n0--n1,n0--n2,n0--n3\nlayout\npin n0 at=(0,63)\n'
                'pin n1 at=(0,99)\n')
    assert out.svg is not None
    lengths = {key: [_length(p) for p in polys] for key, polys in edge_polylines(out.svg).items()}
    assert lengths["6"] == [0.0] and min(lengths["7"] + lengths["8"]) > 10
    assert ring_misses(out) == [] and lasso_intrusions(out) == []


def test_two_bundles_on_one_pair_each_hold_only_their_own_links() -> None:
    """Four links between two routers, two bundles of two: each ring was drawn round all
    four (a ring is never less than 34 px across); each now narrows to keep the other
    bundle's links out."""
    svg = build("figdown 0.5 topology\nflow right\nnode a \"Router A\"\nnode b \"Router B\"\n"
                "edge a [xe-0/0/0] -- [xe-0/0/0] b id=l1\nedge a [xe-0/0/1] -- [xe-0/0/1] b id=l2\n"
                "edge a [xe-0/0/2] -- [xe-0/0/2] b id=l3\nedge a [xe-0/0/3] -- [xe-0/0/3] b id=l4\n"
                "bundle ae0 \"ae0\" l1,l2\nbundle ae1 \"ae1\" l3,l4\n").svg
    rings = {m.group(5): tuple(float(m.group(k)) for k in range(1, 5)) for m in re.finditer(
        r'<ellipse cx="([\d.]+)" cy="([\d.]+)" rx="([\d.]+)" ry="([\d.]+)" data-lasso="(\w+)"', svg)}
    lines = {k: float(y) for k, y in re.findall(r'<line data-edge="(l\d)" x1="[\d.]+" y1="([\d.]+)"', svg)}
    assert set(rings) == {"ae0", "ae1"} and len(lines) == 4
    inside = {name: sorted(k for k, y in lines.items() if abs(y - cy) < ry) for name, (cx, cy, rx, ry) in rings.items()}
    assert inside == {"ae0": ["l1", "l2"], "ae1": ["l3", "l4"]}


def test_a_tilted_ring_s_caption_keeps_off_the_boxes() -> None:
    """Two spines, two leaves, a bundle into each leaf: both rings tilt, both sides
    across them fall on boxes, and "Into Leaf 1" was written over "Leaf 2"; a crowded
    caption now looks all round its ring."""
    from markmcp.figdown.render.text import label_px
    from .test_render_scene import nodes
    svg = build("figdown 0.5 topology\nflow down\nnode a \"Spine A\"\nnode b \"Spine B\"\n"
                "node l1 \"Leaf 1\"\nnode l2 \"Leaf 2\"\nedge a -- l1\nedge a -- l2\nedge b -- l1\nedge b -- l2\n"
                "bundle x1 \"Into Leaf 1\" a--l1,b--l1\nbundle x2 \"Into Leaf 2\" a--l2,b--l2\n").svg
    boxes = [v["box"] for v in nodes(ET.fromstring(svg)).values()]
    found = 0
    for x, y, name in re.findall(r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="11.5" text-anchor="middle"'
                                 r' fill="#64748b">(Into Leaf \d)<', svg):
        found += 1
        w = label_px(name, 11.5)
        r = (float(x) - w / 2, float(y) - 11, float(x) + w / 2, float(y) + 3)
        assert not any(r[0] < bx + bw and bx < r[2] and r[1] < by + bh and by < r[3] for bx, by, bw, bh in boxes), name
    assert found == 2


LAN = ("figdown 0.5 topology\nflow down\nclass uplink \"10G fibre uplink\" stroke=#16a34a\n"
       "external isp \"Venue ISP\"\nnode border \"Edge router / NAT\"\nnode core \"Core switch (L3)\"\n"
       "node cache \"Game download cache\\n(Steam, Battle.net)\" shape=cylinder\nnode dhcp \"DHCP / DNS\"\n"
       "node servers \"Tournament game servers\"\nnode stream \"Stream encoding PCs\"\n"
       "group rowA \"Rows A-D\"\nnode accA \"Access switch A (48p)\" in=rowA\n"
       "node accB \"Access switch B (48p)\" in=rowA\n"
       "group rowE \"Rows E-H\"\nnode accE \"Access switch E (48p)\" in=rowE\n"
       "node accF \"Access switch F (48p)\" in=rowE\n"
       "edge isp -- border\nedge border -- core\nedge core -- cache\nedge core -- dhcp\nedge core -- servers\n"
       "edge core -[VLAN 50, QoS priority]- stream\nedge core -- accA class=uplink id=upA1\n"
       "edge core -- accA class=uplink id=upA2\nedge core -- accB class=uplink\nedge core -- accE class=uplink\n"
       "edge core -- accF class=uplink\nrank accA,accB,accE,accF\n"
       "bundle lagA \"LACP 2 x 10G (rows A-B are busiest)\" upA1,upA2\n")


def _leaders(svg: str) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The dashed leaders drawn (lines with no data attribute, 4 3 dashes)."""
    found = []
    for el in ET.fromstring(svg).iter(SVG + "line"):
        if el.get("stroke-dasharray") == "4 3" and not any(k.startswith("data-") for k in el.attrib):
            found.append(((float(el.get("x1")), float(el.get("y1"))), (float(el.get("x2")), float(el.get("y2")))))
    return found


def test_a_caption_standing_off_its_ring_is_tied_to_it_by_a_leader() -> None:
    """In a crowded bundle the nearest free place for the caption was 40 px off the ring,
    under a box, and read as that box's caption.  A caption standing farther than
    CAPTION_LEADER from its ring gets a leader from its edge to the ring, and its place
    is one whose leader runs through no box."""
    from markmcp.figdown.render.scene.marks import CAPTION_LEADER
    from markmcp.figdown.render.text import label_px

    svg = build(LAN).svg
    root = ET.fromstring(svg)
    (ring,) = rings(root)
    (leader,) = _leaders(svg)
    (caption,) = re.findall(r'<text x="([-\d.]+)" y="([-\d.]+)"[^>]*fill="#64748b">LACP 2 x 10G', svg)
    cx, base = float(caption[0]), float(caption[1])
    w = label_px("LACP 2 x 10G (rows A-B are busiest)", 11.5)
    rect = (cx - w / 2, base - 11, cx + w / 2, base + 3)
    p, q = leader
    # one end 2 px off the caption's edge, the other 2 px short of the ring's outline
    gap_p = max(rect[0] - p[0], p[0] - rect[2], rect[1] - p[1], p[1] - rect[3])
    assert 0.0 < gap_p <= 3.5
    assert 1.0 < _ring_norm(ring, *q) < 1.2
    assert math.dist(p, q) > CAPTION_LEADER - 4
    for name, box in nodes(root).items():
        x, y, bw, bh = box["box"]
        steps = 200
        assert not any(x < p[0] + (q[0] - p[0]) * k / steps < x + bw and y < p[1] + (q[1] - p[1]) * k / steps < y + bh
                       for k in range(steps + 1)), name


def test_a_note_placed_after_a_caption_keeps_off_its_leader() -> None:
    """Captions are placed before notes, and a caption's leader was not on the board the
    notes are placed on: Core switch's note was laid over the leader running from the
    LACP caption down to its ring.  The leader is ink like a connector's: the note goes
    where it covers none of it."""
    from markmcp.figdown.render.scene.free import seg_hits_rect

    source = LAN.replace('node core "Core switch (L3)"', 'node core "Core switch (L3)" note="short note"')
    svg = build(source).svg
    root = ET.fromstring(svg)
    (leader,) = _leaders(svg)
    (note,) = [g for g in root.iter(SVG + "g") if g.get("class") == "fd-note"]
    xs, ys = [], []
    for path in note.iter(SVG + "path"):   # the note's outline and its folded corner
        words = re.findall(r"[MHLVZ]|-?[\d.]+", path.get("d"))
        x = y = 0.0
        for i, w in enumerate(words):
            if w in "ML":
                x, y = float(words[i + 1]), float(words[i + 2])
            elif w == "H":
                x = float(words[i + 1])
            elif w == "V":
                y = float(words[i + 1])
            else:
                continue
            xs.append(x)
            ys.append(y)
    outline = (min(xs), min(ys), max(xs), max(ys))
    assert not seg_hits_rect(leader[0], leader[1], outline, 0.0), (leader, outline)


def test_a_caption_beside_its_ring_has_no_leader() -> None:
    svg = build("figdown 0.5 topology\nnode a \"A\"\nnode b \"B\"\nedge a -- b id=l1\nedge a -- b id=l2\n"
                "bundle ae0 \"ae0\" l1,l2\n").svg
    assert len(rings(ET.fromstring(svg))) == 1
    assert "ae0</text>" in svg
    assert _leaders(svg) == []


def test_a_one_member_bundle_s_caption_is_never_tied_to_the_ring_it_does_not_draw(monkeypatch) -> None:
    """A one-member bundle draws its caption beside the link and no ring: a leader would
    point at nothing, however far off the caption stands."""
    from markmcp.figdown.render.scene import marks

    monkeypatch.setattr(marks, "CAPTION_LEADER", -100.0)   # every ringed caption would be tied
    svg = build("figdown 0.5 topology\nnode a \"A\"\nnode b \"B\"\nnode c \"C\"\nedge a -- b id=l1\n"
                "edge a -- c id=l2\nedge b -- c id=l3\nbundle solo \"one link\" l1\n"
                "bundle pair \"two links\" l2,l3\n").svg
    assert "one link</text>" in svg and "two links</text>" in svg
    assert len(rings(ET.fromstring(svg))) == 1
    assert len(_leaders(svg)) == 1


def test_a_caption_crowded_all_round_its_ring_looks_further_out() -> None:
    """All round a ring, up to 28 px beyond it, every place was taken (Ceph's bonds
    caption, its ring among a switch pair's lines, was set across a dotted line on top
    of that line's label).  The search round the ring goes further out, where the
    caption stands free (tied to its ring by a leader where one runs clear)."""
    from markmcp.figdown.render.scene import marks
    from markmcp.figdown.render.scene.labels import Board

    ring = marks.Ring("lag", 1, {"a", "b"}, 500.0, 500.0, 1.0, 0.0, 40.0, 15.0, caption="bond zero")
    x0, y0, x1, y1 = 458.0, 483.0, 542.0, 517.0   # the ring's reach, 2 px round it
    g = 38.0   # boxes all round it, this deep
    frame = [(x0 - g, y0 - g, x1 + g, y0), (x0 - g, y1, x1 + g, y1 + g), (x0 - g, y0, x0, y1), (x1, y0, x1 + g, y1)]
    marks.captions([ring], Board(frame, {}))
    r = ring.label.rect
    assert not [b for b in frame if r[0] < b[2] and b[0] < r[2] and r[1] < b[3] and b[1] < r[3]]


def test_a_caption_keeps_off_a_line_running_along_its_letters() -> None:
    """Po20's caption was set with the peer link running level along the foot of its
    letters, 2 px under the text: the board counted only a line through the middle of a
    caption.  A caption, like a connector's label, counts a line grazing its letters."""
    from markmcp.figdown.render.scene import marks
    from markmcp.figdown.render.scene.labels import Board

    ring = marks.Ring("lag", 1, {"a", "b"}, 500.0, 500.0, 1.0, 0.0, 40.0, 15.0, caption="Po20 (LACP)")
    y = 530.0   # under the place below the ring, by the foot of the letters
    marks.captions([ring], Board([], {1: [(380.0, y), (620.0, y)]}))
    r = ring.label.rect
    assert not r[1] <= y <= r[3], r
