"""Connectors between author-placed boxes keep out of every other box.

Where the boxes are pinned, each connector is the straight line between its two
boxes when that line meets no other box, otherwise a path round them.  These
tests read the drawn SVG: the boxes from their ``data-node`` wrappers, each
connector's corners from its ``data-edge`` line or path, and ask that no
segment enters (the open inside of) a box the connector does not join.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from markmcp.figdown.render import build
from markmcp.figdown.render.scene.free import seg_hits_rect

from .test_render_scene import SVG, nodes


def connectors(root: ET.Element) -> dict[str, list[tuple[float, float]]]:
    """Edge key -> its corners: a line's two ends, or a path's M and L points and each
    fillet's (Q's) control point, the true corner it rounds."""
    found = {}
    for el in root.iter():
        key = el.get("data-edge")
        if key is None:
            continue
        if el.tag == SVG + "line":
            found[key] = [(float(el.get("x1")), float(el.get("y1"))), (float(el.get("x2")), float(el.get("y2")))]
        elif el.tag == SVG + "path" and "z" not in el.get("d", "").lower():
            found[key] = [tuple(map(float, args.replace(",", " ").split()[:2]))
                          for _, args in re.findall(r"([MLQ])([^MLQ]*)", el.get("d"))]
    return found


def drawn(source: str) -> str:
    out = build(source)
    assert out.svg is not None, out.error_lines()
    return out.svg


def through_boxes(svg: str, ends: dict[str, tuple[str, str]]) -> list[tuple[str, str]]:
    """(edge, box) for every connector segment entering a box it does not join;
    ``ends``: edge key -> the two boxes it joins."""
    root = ET.fromstring(svg)
    boxes = {k: v["box"] for k, v in nodes(root).items()}
    drawn = connectors(root)
    assert set(drawn) == set(ends)
    found = []
    for key, pts in drawn.items():
        for nid, (x, y, w, h) in boxes.items():
            if nid in ends[key]:
                continue
            if any(seg_hits_rect(p, q, (x, y, x + w, y + h), 0.0) for p, q in zip(pts, pts[1:])):
                found.append((key, nid))
    return found


# a (35.2 x 36 at 0,20) and b (at 400,220): the line between their centres falls
# 1 px in 2 (y = 38 + (x - 17.6) / 2); c sits under it, its top right corner
# just below the line or just off it
THREE = ('figdown 0.5 block\nnode a "A"\nnode b "B"\nnode c "C"\n{edges}layout\n'
         'pin a at=(0,0)\npin b at=(400,200)\npin c at=(182,{cy})\n')


def test_a_line_clipping_a_pinned_box_corner_goes_round_it() -> None:
    # the line runs 1.8 px into c's top right corner (it was forgiven 2 px, and
    # drawn across the corner)
    source = THREE.format(edges="edge a -> b id=ab\n", cy=116)
    assert through_boxes(drawn(source), {"ab": ("a", "b")}) == []


def test_two_links_beside_each_other_do_not_run_into_a_third_box() -> None:
    # a -> b and b -> a are drawn 10 px apart; the centre line passes 2.2 px over
    # c's corner, the lower of the two would run 3.4 px into it (it did): that one
    # goes round, the other keeps the line
    source = THREE.format(edges="edge a -> b id=ab\nedge b -> a id=ba\n", cy=120)
    svg = drawn(source)
    assert through_boxes(svg, {"ab": ("a", "b"), "ba": ("b", "a")}) == []
    corners = sorted(len(pts) for pts in connectors(ET.fromstring(svg)).values())
    assert corners[0] == 2, "one of the pair keeps the straight line"


def test_a_way_round_does_not_run_along_a_grid_line_just_inside_a_box() -> None:
    # c blocks the line from a to b; the way under c runs 10 px below it, which is
    # 0.5 px inside e, and the way over it 0.5 px inside d (the search let a move
    # through up to 1 px of a box, and went under c along e's top edge, inside c)
    source = ('figdown 0.5 block\nnode a "A"\nnode b "B"\nnode c "C"\nnode d "D"\nnode e "E"\n'
              'edge a -> b id=ab\nlayout\npin a at=(0,100)\npin b at=(400,100)\npin c at=(200,100)\n'
              'pin d at=(160,30.5) width=120 height=60\npin e at=(160,145.5) width=120 height=60\n')
    assert through_boxes(drawn(source), {"ab": ("a", "b")}) == []


def pinned_grid(n: int) -> tuple[str, dict[str, tuple[str, str]]]:
    """n boxes pinned 12 to a row, 110 by 80 px apart, each joined to a pseudo-random
    other (a fixed sequence): most lines between them cross boxes."""
    lines = ["figdown 0.5 block"] + [f'node n{i} "N{i}"' for i in range(n)]
    ends = {}
    state = 7
    for i in range(n):
        state = (state * 1103515245 + 12345) % 2 ** 31
        lines.append(f"edge n{i} -> n{state % n} id=e{i}")
        ends[f"e{i}"] = (f"n{i}", f"n{state % n}")
    lines.append("layout")
    lines += [f"pin n{i} at=({(i % 12) * 110},{(i // 12) * 80})" for i in range(n)]
    return "\n".join(lines) + "\n", ends


def test_every_connector_between_120_pinned_boxes_keeps_out_of_other_boxes() -> None:
    # a few long connectors over a crowded drawing: the search weighing crossings gave
    # up after 4,000 steps and the line was drawn through boxes
    source, ends = pinned_grid(120)
    svg = drawn(source)
    assert through_boxes(svg, ends) == []
    assert drawn(source) == svg


def test_past_160_connectors_a_line_through_a_box_goes_round_when_that_is_worth_it() -> None:
    # more connectors than each can be weighed for: every line used to be kept (189 of
    # them through boxes); now each goes round by the quick search, unless the way
    # round crosses more than one drawn line more than the line itself
    source, ends = pinned_grid(200)
    svg = drawn(source)
    through = {key for key, _ in through_boxes(svg, ends)}
    corners = connectors(ET.fromstring(svg))
    assert all(len(corners[key]) == 2 for key in through), "only straight lines are left through boxes"
    assert len(through) <= 30
    assert drawn(source) == svg


def test_pinned_boxes_side_by_side_are_joined_level_and_one_above_another_upright() -> None:
    """A 24 px connector between two pinned boxes whose heights overlap by 24 px ran
    slanted from middle to middle, where a level line fitted; it is level, or upright
    for boxes one above the other, 6 px inside the overlap at least, and slanted only
    where the boxes share too little height or width."""
    src = ("figdown 0.1 block\nnode a \"Sensor gateway\"\nnode b \"Message broker\"\nnode c \"Rules engine\"\n"
           "node d \"Far off\"\nedge a -> b\nedge b -> c\nedge c -> d\n"
           "layout\npin a at=(100,100)\npin b at=(300,88)\npin c at=(330,200)\npin d at=(520,450)\n")
    root = ET.fromstring(drawn(src))
    lines = list(connectors(root).values())
    (a0, a1), (b0, b1), (c0, c1) = lines
    assert a0[1] == a1[1] and a0[0] < a1[0]          # level, rightwards
    assert b0[0] == b1[0] and b0[1] < b1[1]          # upright, downwards
    assert c0[0] != c1[0] and c0[1] != c1[1]          # no overlap: middle to middle
    boxes = nodes(root)
    for (p, q), (first, second) in zip(((a0, a1), (b0, b1)), (("a", "b"), ("b", "c"))):
        for nid in (first, second):
            x, y, w, h = boxes[nid]["box"]
            if p[1] == q[1]:
                assert y + 6 - 0.01 <= p[1] <= y + h - 6 + 0.01
            else:
                assert x + 6 - 0.01 <= p[0] <= x + w - 6 + 0.01


def test_a_level_line_meets_a_pointed_or_curved_outline_only_near_its_middle() -> None:
    """Level lines met a diamond 8 px from its bottom tip and a circle 8 px above its
    bottom, at a glance; they are level only where the outline faces them squarely (a
    diamond within a quarter of its half-height of the middle, a curve within 20° of
    square), else they run between the middles as before.  The ellipse beside a box still
    takes a level line near its middle."""
    src = ("figdown 0.1 block\nnode hub \"Hub\" shape=circle\nnode box1 \"Box one\"\n"
           "node dia \"Check\" shape=diamond\nnode box2 \"Box two\"\nnode ell \"Store\" shape=ellipse\n"
           "node box3 \"Box three\"\nnode box4 \"Box four\"\nedge box1 -> hub\nedge box2 -> dia\nedge ell -> box3\n"
           "edge box4 -> ell\nlayout\npin hub at=(220,20) width=60 height=60\npin box1 at=(20,66) height=40\n"
           "pin dia at=(220,180) width=100 height=60\npin box2 at=(20,226) height=40\n"
           "pin ell at=(20,330) width=120 height=50\npin box3 at=(260,366) height=40\n"
           "pin box4 at=(-200,340) height=40\n")
    root = ET.fromstring(drawn(src))
    boxes = nodes(root)
    lines = connectors(root)
    assert len(lines) == 4
    for pts in lines.values():
        y1, y2 = pts[0][1], pts[-1][1]
        for end in (pts[0], pts[-1]):
            hit = [nid for nid in ("hub", "dia", "ell")
                   if abs(end[0] - (boxes[nid]["box"][0] + boxes[nid]["box"][2] / 2)) <= boxes[nid]["box"][2] / 2 + 0.5
                   and abs(end[1] - (boxes[nid]["box"][1] + boxes[nid]["box"][3] / 2)) <= boxes[nid]["box"][3] / 2 + 0.5]
            if hit and y1 == y2:   # a level line into a curve or a point: near its middle
                x, y, w, h = boxes[hit[0]]["box"]
                share = 0.25 if hit[0] == "dia" else 0.5
                assert abs(end[1] - (y + h / 2)) <= share * h / 2 + 0.01, (hit, end)
    levels = sorted(round(p[0][1] - p[-1][1], 2) == 0 for p in lines.values())
    assert levels == [False, False, False, True]   # box4 -> ell only


def test_a_level_line_never_brings_its_arrowhead_onto_another() -> None:
    """Levelled, Small's line ended 1.8 px from Request's on Tall sink and the two heads
    merged; where another end is that near, the lines keep 12 px apart."""
    src = ("figdown 0.1 block\nnode a \"Request\"\nnode c \"Small\"\nnode d \"Tall sink\"\nedge c -> d\n"
           "edge a -> d\nlayout\npin a at=(20,160) height=40\npin c at=(20,250) height=30\n"
           "pin d at=(300,230) height=120\n")
    lines = list(connectors(ET.fromstring(drawn(src))).values())
    assert len(lines) == 2
    (p, q) = lines[0][-1], lines[1][-1]
    assert ((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) ** 0.5 >= 12.0, (p, q)


def _heads(svg: str) -> list[list[tuple[float, float]]]:
    """Every arrowhead (a filled three-point path) as its three corners."""
    return [[tuple(map(float, pt.split())) for pt in re.findall(r"[ML]([-\d.]+ [-\d.]+)", d)]
            for d in re.findall(r'<path d="(M[-\d.]+ [-\d.]+ L[-\d.]+ [-\d.]+ L[-\d.]+ [-\d.]+ z)" fill=', svg)]


def test_two_heads_on_a_short_run_take_half_of_it_each() -> None:
    """``a <-> b`` between boxes pinned 10 px apart (upstream's PVLAN figure): full 10 px
    heads overlapped, each reaching the other box; now each ends at the run's middle.
    A head alone on a run longer than itself keeps its full size."""
    src = ("figdown 0.1 block\nnode a \"A1\"\nnode b \"A2\"\nnode c \"C\"\nedge a <-> b\nedge b -> c\nlayout\n"
           "pin a at=(20,20) width=150 height=44\npin b at=(180,20) width=150 height=44\n"
           "pin c at=(400,20) width=80 height=44\n")
    svg = drawn(src)
    heads = _heads(svg)
    assert len(heads) == 3
    short = sorted((h for h in heads if 170 <= h[0][0] <= 180), key=lambda h: h[0][0])
    assert [h[0][0] for h in short] == [170.0, 180.0]   # the tips, at the boxes
    assert short[0][0][1] == short[1][0][1]
    left_back = max(x for x, _ in short[0][1:])
    right_back = min(x for x, _ in short[1][1:])
    assert left_back == right_back == 175.0   # back to back at the run's middle
    (long,) = [h for h in heads if h[0][0] == 400.0]
    assert 400.0 - max(x for x, _ in long[1:]) >= 10.0
