"""Straight runs in the automatic layout: a main path on one axis, long connectors
without steps, and the separation solver under them (``scene/straight.py``).

The drawings are read back from the SVG: a box is its ``data-node`` group's first
shape, a connector the vertices of its ``data-edge`` line or path (a rounded corner
at its true vertex)."""

from __future__ import annotations

import itertools
import math
import os
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest

from markmcp.figdown.render import build
from markmcp.figdown.render.scene.layout import straight_room
from markmcp.figdown.render.scene.straight import _satisfy

from conftest import shared_dir
from figdown.test_render_label_places import RETRY
from figdown.test_render_routes_clear import SVG, _shape, _vertices

# the main path with a skip ahead and a loop back (the label places' flowchart)
SPINE = RETRY


def _leaves_by_side_point(pts, box) -> bool:
    """Whether a connector's first run leaves diamond ``box`` (x, y, w, h) by its left or
    right point, level."""
    x, y, w, h = box
    return (pts[0] == pytest.approx((x, y + h / 2), abs=0.01) or pts[0] == pytest.approx((x + w, y + h / 2), abs=0.01)) \
        and pts[1][1] == pytest.approx(y + h / 2, abs=0.01)


def _beside(pts, box) -> bool:
    """Whether no corner of a connector level with box (x, y, w, h) lies within its width."""
    x, y, w, h = box
    return all(px < x or px > x + w for px, py in pts if y <= py <= y + h)


def _drawing(source: str):
    out = build(source)
    assert out.svg is not None, out.error_lines()
    root = ET.fromstring(out.svg)
    boxes = {g.get("data-node"): _shape(g)[1] for g in root.iter(SVG + "g") if g.get("data-node")}
    edges = {el.get("data-edge"): _vertices(el) for el in root.iter()
             if el.get("data-edge") is not None and el.tag in (SVG + "line", SVG + "path")}
    return boxes, edges


def _centre(rect) -> tuple[float, float]:
    x, y, w, h = rect
    return x + w / 2, y + h / 2


def _line_of(source: str, text: str) -> str:
    return str(source.split("\n").index(text) + 1)


def test_a_flowcharts_main_path_is_one_column() -> None:
    # the "no" of the first decision runs to the end, past three ranks: the steps
    # between used to slant away from it, each a few px right of the one before
    boxes, edges = _drawing(SPINE)
    xs = {round(_centre(boxes[n])[0], 2) for n in ("go", "fetch", "valid", "load", "counted", "publish", "end")}
    assert len(xs) == 1, xs
    for line in ("flowline go -> fetch", "flowline fetch -> valid", "flowline valid -[yes]-> load",
                 "flowline load -> counted", "flowline counted -[yes]-> publish", "flowline publish -> end"):
        pts = edges[_line_of(SPINE, line)]
        assert {round(x, 2) for x, _ in pts} == xs, (line, pts)


def test_a_long_connector_runs_past_the_ranks_in_one_line() -> None:
    boxes, edges = _drawing(SPINE)
    pts = edges[_line_of(SPINE, "flowline valid -[no]-> end")]
    spine_x = _centre(boxes["load"])[0]
    runs = [(a, b) for a, b in zip(pts, pts[1:]) if a[0] == b[0] and abs(b[1] - a[1]) > 40]
    assert len(runs) == 1, pts          # past the ranks: one vertical run, no steps
    (a, b), = runs
    assert a[0] < spine_x
    top = min(boxes[n][1] for n in ("load", "counted", "publish"))
    bottom = max(boxes[n][1] + boxes[n][3] for n in ("load", "counted", "publish"))
    assert min(a[1], b[1]) < top and max(a[1], b[1]) > bottom


def test_a_chain_flowing_right_is_one_row() -> None:
    src = ("figdown 0.2 statechart\nflow right\nstate new \"New\"\nstate paid \"Paid\"\n"
           "state packed \"Packed\"\nstate shipped \"Shipped\"\nstate done \"Delivered\"\n"
           "state refund \"Refunded\"\ntransition new -> paid\ntransition paid -> packed\n"
           "transition packed -> shipped\ntransition shipped -> done\n"
           "transition paid -[cancel]-> refund\ntransition shipped -[lost]-> refund\n"
           "transition done -[returned]-> refund\n")
    boxes, _ = _drawing(src)
    ys = {round(_centre(boxes[n])[1], 2) for n in ("new", "paid", "packed", "shipped", "done")}
    assert len(ys) == 1, ys


def _steps(pts) -> list[tuple[int, float]]:
    """(index, length) of every step: a run of under 8 px joining two runs that go on in
    one direction, across it (a staircase, not a turn back)."""
    out = []
    for k, (a, b, c, d) in enumerate(zip(pts, pts[1:], pts[2:], pts[3:])):
        length = abs(c[0] - b[0]) + abs(c[1] - b[1])
        if not 0.5 < length < 8:
            continue
        if b[0] == c[0] and a[1] == b[1] and c[1] == d[1] and (b[0] - a[0]) * (d[0] - c[0]) > 0:
            out.append((k + 1, length))
        elif b[1] == c[1] and a[0] == b[0] and c[0] == d[0] and (b[1] - a[1]) * (d[1] - c[1]) > 0:
            out.append((k + 1, length))
    return out


def _at_port_room_edge(pts, k: int, boxes) -> bool:
    """The step is the first or last bend and its end sits at the edge of the room a
    box side gives its ports (6 px from the corner): the run could not go in straight."""
    if k == 1:
        end, run = pts[0], pts[1]
    elif k == len(pts) - 3:
        end, run = pts[-1], pts[-2]
    else:
        return False
    for x, y, w, h in boxes.values():
        if run[0] == end[0] and x - 0.5 <= end[0] <= x + w + 0.5:
            if min(abs(end[0] - x), abs(x + w - end[0])) <= 6.01:
                return True
        if run[1] == end[1] and y - 0.5 <= end[1] <= y + h + 0.5:
            if min(abs(end[1] - y), abs(y + h - end[1])) <= 6.01:
                return True
    return False


def _auto_steps(documents) -> list:
    found = []
    for name, src in documents:
        if "\nlayout" in src or "\npin " in src:
            continue    # pinned boxes are routed round freely, not laid out in ranks
        out = build(src)
        if out.svg is None:
            continue
        root = ET.fromstring(out.svg)
        for section in (root.findall(SVG + "g") or [root]):
            boxes = {g.get("data-node"): _shape(g)[1] for g in section.iter(SVG + "g") if g.get("data-node")}
            for el in section.iter():
                if el.get("data-edge") is None or el.tag not in (SVG + "line", SVG + "path"):
                    continue
                pts = _vertices(el)
                found += [(name, el.get("data-edge"), length) for k, length in _steps(pts)
                          if not _at_port_room_edge(pts, k, boxes)]
    return found


def test_no_automatic_layout_of_the_corpus_steps_a_connector_aside() -> None:
    documents = [(p.name, p.read_bytes().decode("utf-8"))
                 for p in sorted(shared_dir("figdown", "conformance").rglob("*.fd"))]
    assert len(documents) > 200
    assert _auto_steps(documents) == []


def test_no_automatic_layout_of_an_upstream_example_steps_a_connector_aside() -> None:
    value = os.environ.get("FIGDOWN_UPSTREAM", "")
    root = Path(value)
    if not value or not (root / "examples").is_dir():
        pytest.skip("set FIGDOWN_UPSTREAM to an upstream FigDown checkout to check its example figures")
    documents = [(str(p.relative_to(root)), p.read_bytes().decode("utf-8"))
                 for p in sorted((root / "examples").rglob("*.fd"))]
    assert len(documents) >= 59
    assert _auto_steps(documents) == []


def test_a_port_a_few_px_off_its_run_takes_the_run() -> None:
    # five branches: the lines into Forward get ports 16 px apart round its centre, and
    # the IPv6 line, passing a rank, stood 1.8 px off its port (a step at its first bend
    # before the arrowhead, as in packet-ingress)
    src = ("figdown 0.2 flowchart\nexternal inlet \"from the port\"\nterminator rx \"Frame in\"\n"
           "process hdr \"Read the header\"\ndecision kind \"Kind?\" shape=ellipse\n"
           "process v4 \"Check IPv4 header\"\nprocess v6 \"Check IPv6 header\"\n"
           "process arp \"Answer or relay ARP\"\nterminator odd \"Drop:\\nunknown\"\nprocess tag \"Pop a tag\"\n"
           "decision sum \"Checksum OK?\"\nterminator bad \"Drop:\\nbad sum\"\nterminator fwd \"Forward\"\n"
           "rank v4,v6,arp,odd,tag\nflowline inlet -> rx\nflowline rx -> hdr\nflowline hdr -> kind\n"
           "flowline kind -[v4]-> v4\nflowline kind -[v6]-> v6\nflowline kind -[arp]-> arp\n"
           "flowline kind -[other]-> odd\nflowline kind -[tag]-> tag\nflowline tag -[again]-> kind\n"
           "flowline v4 -> sum\nflowline sum -[no]-> bad\nflowline sum -[yes]-> fwd\n"
           "flowline v6 -> fwd\nflowline arp -> fwd\n")
    _, edges = _drawing(src)
    assert _steps(edges[_line_of(src, "flowline v6 -> fwd")]) == []
    assert _auto_steps([("ports", src)]) == []


def test_lines_into_an_external_end_apart_and_share_no_stretch() -> None:
    # an external is a point: every line into it ended on it, so a line turning in over
    # the last stretch of a straight one was drawn on top of it (one arrowhead for two)
    src = ("figdown 0.2 flowchart\nexternal log \"to the log\"\nterminator a \"Start\"\n"
           "decision ok \"Valid?\"\nterminator no \"Rejected\"\nprocess f \"Fetch\"\n"
           "process w \"Work\"\nterminator done \"Released\"\nflowline a -> ok\n"
           "flowline ok -[no]-> no\nflowline ok -[yes]-> f\nflowline f -> w\nflowline w -> done\n"
           "flowline done -> log\nflowline no -> log\n")
    _, edges = _drawing(src)
    straight = edges[_line_of(src, "flowline done -> log")]
    chain = edges[_line_of(src, "flowline no -> log")]
    assert len(straight) == 2 and straight[0][0] == straight[1][0]     # still one straight line
    assert math.dist(straight[-1], chain[-1]) >= 14                      # two arrowheads apart
    assert not _overlap(straight, chain)


def _overlap(p, q) -> bool:
    """Two polylines share a stretch: collinear axis-parallel segments overlapping > 1 px."""
    for a, b in zip(p, p[1:]):
        for c, d in zip(q, q[1:]):
            if a[0] == b[0] == c[0] == d[0]:
                lo, hi = max(min(a[1], b[1]), min(c[1], d[1])), min(max(a[1], b[1]), max(c[1], d[1]))
                if hi - lo > 1:
                    return True
            if a[1] == b[1] == c[1] == d[1]:
                lo, hi = max(min(a[0], b[0]), min(c[0], d[0])), min(max(a[0], b[0]), max(c[0], d[0]))
                if hi - lo > 1:
                    return True
    return False


def test_lines_into_a_box_keep_off_a_straight_line_there() -> None:
    # Roll back and Comment are aligned, so their line is straight and not routed in the
    # channel; the two long "no" lines took ports round Comment's centre as if it were not
    # there, and the straight line was pushed aside into a slant across both
    src = ("figdown 0.2 flowchart\nprocess lint \"Lint\"\ndecision lok \"Lint clean?\"\n"
           "process tests \"Run unit tests\"\ndecision pass \"All tests pass?\"\n"
           "process stage \"Deploy to staging\"\ndecision smoke \"Smoke tests green?\"\n"
           "process back \"Roll back staging\"\nprocess prod \"Deploy to production\"\n"
           "process comment \"Comment failure on PR\"\nterminator done \"Pipeline finished\"\n"
           "flowline lint -> lok\nflowline lok -[no]-> comment\nflowline lok -[yes]-> tests\n"
           "flowline tests -> pass\nflowline pass -[no]-> comment\nflowline pass -[yes]-> stage\n"
           "flowline stage -> smoke\nflowline smoke -[no]-> back\nflowline smoke -[yes]-> prod\n"
           "flowline back -> comment\nflowline comment -> done\nflowline prod -> done\n")
    _, edges = _drawing(src)
    line = _line_of(src, "flowline back -> comment")
    (x0, _), (x1, _) = edges[line]
    assert x0 == x1
    assert _crossings(edges, line) == 0
    lines = [edges[_line_of(src, t)] for t in ("flowline lok -[no]-> comment",
                                               "flowline pass -[no]-> comment",
                                               "flowline back -> comment")]
    # each lands apart from the others, or runs into one's last run and shares its head
    for a, b in itertools.combinations(lines, 2):
        if a[-1] == b[-1]:
            assert any(_on_run(p[-2], q[-2], q[-1]) for p, q in ((a, b), (b, a)))
        else:
            assert math.dist(a[-1], b[-1]) >= 14


def test_an_end_off_a_rounded_boxs_middle_lands_on_its_corner_arc() -> None:
    # the tip stood on the corner of the box's rectangle, 6 px off the drawn arc
    src = ("figdown 0.2 statechart\nstate idle \"Idle\"\nstate coins \"Collecting coins\"\n"
           "state sel \"Selecting\"\nstate vend \"Vending\"\nstate change \"Giving change\"\n"
           "state fault \"Out of order\"\ntransition idle -[coin]-> coins\n"
           "transition coins -[coin]-> coins\ntransition coins -[enough]-> sel\n"
           "transition coins -[cancel]-> change\ntransition sel -[choice]-> vend\n"
           "transition sel -[sold out]-> change\ntransition vend -[done]-> change\n"
           "transition change -[done]-> idle\ntransition vend -[jam]-> fault\n"
           "transition fault -[service]-> idle\n")
    boxes, edges = _drawing(src)
    x, y, w, h = boxes["change"]
    r = min(14.0, h / 2)
    for line in ("transition coins -[cancel]-> change", "transition sel -[sold out]-> change",
                 "transition vend -[done]-> change"):
        px, py = edges[_line_of(src, line)][-1]
        # distance from the tip to the rounded rectangle's outline
        qx = min(max(px, x + r), x + w - r)
        qy = min(max(py, y + r), y + h - r)
        inner = math.hypot(px - qx, py - qy)
        on_flat = (x + r <= px <= x + w - r and (abs(py - y) < 0.6 or abs(py - y - h) < 0.6)) or \
                  (y + r <= py <= y + h - r and (abs(px - x) < 0.6 or abs(px - x - w) < 0.6))
        assert on_flat or abs(inner - r) < 0.6, (line, (px, py), (x, y, w, h))


def _crossings(edges: dict, a: str) -> int:
    def cross(p, q, r, s) -> bool:
        def orient(u, v, w) -> float:
            return (v[0] - u[0]) * (w[1] - u[1]) - (v[1] - u[1]) * (w[0] - u[0])
        d1, d2 = orient(r, s, p), orient(r, s, q)
        d3, d4 = orient(p, q, r), orient(p, q, s)
        return d1 * d2 < 0 and d3 * d4 < 0
    mine = edges[a]
    return sum(1 for k, pts in edges.items() if k != a
               for p, q in zip(mine, mine[1:]) for r, s in zip(pts, pts[1:]) if cross(p, q, r, s))


def test_a_line_against_the_flow_goes_round_the_side_it_crosses_less() -> None:
    # the retry goes up from the wait (left of the middle) to the fetch: round the left
    # its legs cross the rejected branch's long line and the "no" into it, round the
    # right only the released line (the middle of the drawing used to decide: the left)
    src = ("figdown 0.2 flowchart\nexternal audit \"to the audit log\"\nterminator job \"Job in\"\n"
           "decision ok \"Valid?\"\nterminator no \"Rejected\"\nprocess fetch \"Fetch inputs\"\n"
           "decision kind \"Kind?\"\nprocess c \"Compile\"\nprocess t \"Test\"\nprocess d \"Deploy\"\n"
           "process o \"Record other\"\ndecision green \"All green?\"\nprocess wait \"Wait a while\"\n"
           "terminator done \"Released\"\nflowline job -> ok\nflowline ok -[no]-> no\n"
           "flowline ok -[yes]-> fetch\nflowline fetch -> kind\nflowline kind -[c]-> c\n"
           "flowline kind -[t]-> t\nflowline kind -[d]-> d\nflowline kind -[o]-> o\n"
           "flowline c -> green\nflowline t -> green\nflowline d -> green\nflowline o -> green\n"
           "flowline green -[no]-> wait\nflowline green -[yes]-> done\nflowline wait -> fetch\n"
           "flowline done -> audit\nflowline no -> audit\n")
    boxes, edges = _drawing(src)
    retry = _line_of(src, "flowline wait -> fetch")
    assert max(x for x, _ in edges[retry]) > max(x + w for x, _, w, _ in boxes.values())
    assert _crossings(edges, retry) == 1


# --- the separation solver ---------------------------------------------------------------


def test_satisfy_keeps_wanted_places_no_separation_contests() -> None:
    assert _satisfy([0.0, 50.0, 120.0], [1.0, 1.0, 1.0], {(0, 1): 20.0, (1, 2): 20.0}) == [0.0, 50.0, 120.0]


def test_satisfy_meets_two_that_push_at_their_weighted_mean() -> None:
    # 0 wants 10, 1 wants 0 but must stand 20 after 0: together at the weighted mean
    x = _satisfy([10.0, 0.0], [3.0, 1.0], {(0, 1): 20.0})
    assert x is not None
    assert x[1] - x[0] == pytest.approx(20.0)
    assert 3 * x[0] + 1 * (x[1] - 20.0) == pytest.approx(3 * 10.0 + 1 * (0.0 - 20.0))


def test_satisfy_refuses_a_cycle() -> None:
    assert _satisfy([0.0, 0.0], [1.0, 1.0], {(0, 1): 5.0, (1, 0): 5.0}) is None


def test_satisfy_holds_every_separation_of_random_orders() -> None:
    rng = random.Random(20261206)
    for _ in range(300):
        n = rng.randint(2, 30)
        order = list(range(n))
        rng.shuffle(order)
        gaps = {}
        for _ in range(rng.randint(1, 3 * n)):
            i, j = sorted(rng.sample(range(n), 2))
            gaps[(order[i], order[j])] = rng.uniform(-5.0, 40.0)
        desired = [rng.uniform(-100.0, 100.0) for _ in range(n)]
        weight = [rng.choice((0.001, 0.05, 1.0, 3.0)) for _ in range(n)]
        x = _satisfy(desired, weight, gaps)
        assert x is not None
        for (a, b), gap in gaps.items():
            assert x[b] - x[a] >= gap - 1e-6
        # nothing moves that no separation pushed
        free = [v for v in range(n) if all(v not in pair for pair in gaps)]
        assert all(x[v] == desired[v] for v in free)
        assert all(math.isfinite(v) for v in x)


def test_runs_through_group_bands_are_straight_too() -> None:
    # a band holding one box in each of its ranks tied the runs through it into a cycle
    # of separations, and the whole figure kept the placer's slants
    src = ("figdown 0.1 block\nflow down\nexternal client \"Client\"\ngroup front \"Front\"\n"
           "node lb \"LB\" in=front\nnode api \"API\" in=front\ngroup back \"Back\"\n"
           "node s1 \"Orders\" in=back\nnode s2 \"Users\" in=back\nnode s3 \"Search\" in=back\n"
           "external ops \"Ops dashboard\"\nedge client -> lb\nedge lb -> api\nedge api -> s1\n"
           "edge api -> s2\nedge api -> s3\nedge s1 -> ops\nedge s3 -> ops\n"
           "edge client -[health]-> ops\nrank s1,s2,s3\n")
    boxes, edges = _drawing(src)
    assert round(_centre(boxes["lb"])[0], 2) == round(_centre(boxes["api"])[0], 2)
    health = edges[_line_of(src, "edge client -[health]-> ops")]
    runs = [(a, b) for a, b in zip(health, health[1:]) if a[0] == b[0] and abs(b[1] - a[1]) > 40]
    assert len(runs) == 1, health


def test_a_decisions_branch_going_out_beyond_its_side_leaves_by_the_vertex() -> None:
    # the flowchart convention: "no" leaves the decision's left or right point, across the
    # flow, and turns down (or round, back up) beyond it; the main path keeps the bottom point
    boxes, edges = _drawing(SPINE)
    for line, box in (("flowline valid -[no]-> end", "valid"), ("flowline counted -[no]-> fetch", "counted")):
        pts = edges[_line_of(SPINE, line)]
        assert _leaves_by_side_point(pts, boxes[box]), pts
        assert abs(pts[1][0] - pts[0][0]) >= 10
    for line in ("flowline valid -[yes]-> load", "flowline counted -[yes]-> publish"):
        (x0, y0), (x1, y1) = edges[_line_of(SPINE, line)]
        assert x0 == x1 and y1 > y0


def test_a_chain_with_lines_skipping_ahead_keeps_its_own_lines_straight() -> None:
    # each step also receives a line skipping a step: two ends on a 36 px side stand
    # 12 px apart, and the straight line was bent 2 px to keep 14 px off the other head
    src = ("figdown 0.1 block\nflow right\nnode a \"Capture\"\nnode b \"Decode\"\nnode c \"Filter\"\n"
           "node d \"Aggregate\"\nnode e \"Export\"\nedge a -> b\nedge b -> c\nedge c -> d\n"
           "edge d -> e\nedge a -> e\nedge b -> d\n")
    _, edges = _drawing(src)
    for line in ("edge a -> b", "edge b -> c", "edge c -> d", "edge d -> e"):
        (x0, y0), (x1, y1) = edges[_line_of(src, line)]
        assert y0 == y1, (line, edges[_line_of(src, line)])


def test_a_step_and_the_decision_sending_it_back_stay_on_one_axis() -> None:
    # "no" goes straight back to the step before: the two boxes are joined both ways,
    # which counted as two ways on and left the step 17 px off the decision's row
    src = ("figdown 0.2 flowchart\nflow right\nterminator cart \"Cart\"\nprocess addr \"Enter address\"\n"
           "decision stock \"In stock?\"\nprocess pay \"Take payment\"\ndecision paid \"Paid?\"\n"
           "process ship \"Ship\"\nprocess tell \"Notify buyer\"\nterminator closed \"Closed\"\n"
           "external crm \"CRM\"\nflowline cart -> addr\nflowline addr -> stock\n"
           "flowline stock -[yes]-> pay\nflowline stock -[no]-> tell\nflowline pay -> paid\n"
           "flowline paid -[no]-> pay\nflowline paid -[yes]-> ship\nflowline ship -> closed\n"
           "flowline ship -> crm\nflowline tell -> crm\n")
    boxes, _ = _drawing(src)
    assert abs(_centre(boxes["pay"])[1] - _centre(boxes["paid"])[1]) < 0.02


def _heads_apart(edges, box, lines, src) -> float:
    tips = [edges[_line_of(src, t)][-1] for t in lines]
    return min(math.dist(p, q) for p, q in itertools.combinations(tips, 2))


def test_runs_passing_beside_a_crowded_box_come_in_by_the_side_facing_them() -> None:
    # three lines into Refunded's 36 px left side: the straight one from the step before
    # and two long ones round the top stood 6-8 px apart, their heads over each other
    src = ("figdown 0.2 statechart\nflow right\nstate paid \"Paid\"\nstate packed \"Packed\"\n"
           "state shipped \"Shipped\"\nstate delivered \"Delivered\"\nstate returned \"Return requested\"\n"
           "state refunded \"Refunded\"\ntransition paid -[picked]-> packed\n"
           "transition packed -[scanned]-> shipped\ntransition shipped -[confirmed]-> delivered\n"
           "transition delivered -[within 14 days]-> returned\ntransition returned -[received]-> refunded\n"
           "transition paid -[customer cancels]-> refunded\ntransition shipped -[lost]-> refunded\n")
    boxes, edges = _drawing(src)
    lines = ("transition returned -[received]-> refunded", "transition paid -[customer cancels]-> refunded",
             "transition shipped -[lost]-> refunded")
    assert _heads_apart(edges, boxes["refunded"], lines, src) >= 14
    x, y, w, h = boxes["refunded"]
    for line in lines[1:]:
        (x0, y0), (x1, y1) = edges[_line_of(src, line)][-2:]
        assert x0 == x1 and y1 > y0 and x < x1 < x + w     # down into the top side
        assert abs(y1 - y) < 0.6
    (x0, y0), (x1, y1) = edges[_line_of(src, lines[0])]
    assert y0 == y1                                        # the straight line stays straight


def test_two_lines_between_one_pair_stay_side_by_side_beside_a_line_coming_round() -> None:
    # a back edge's port was kept off the pair's middle only, so it stood 11 px from one
    # of the two side-by-side lines, whose end then moved across the other (an X)
    src = ("figdown 0.2 statechart\nflow down\nstate shut \"Shut\"\nstate opening \"Opening\"\n"
           "state wide \"Wide open\"\nstate shutting \"Shutting\"\ntransition shut -[called]-> opening\n"
           "transition shut -[button]-> opening\ntransition opening -[done]-> wide\n"
           "transition wide -[timer]-> shutting\ntransition shutting -[done]-> shut\n"
           "transition shutting -[button]-> opening\n")
    _, edges = _drawing(src)
    a = edges[_line_of(src, "transition shut -[called]-> opening")]
    b = edges[_line_of(src, "transition shut -[button]-> opening")]
    assert a[0][0] == a[-1][0] and b[0][0] == b[-1][0] and a[0][0] != b[0][0]
    assert _crossings(edges, _line_of(src, "transition shut -[button]-> opening")) == 0


def test_a_slanted_line_and_another_into_an_external_end_apart() -> None:
    # an external's ends were never moved apart: a slanted line ended 1-4 px from another
    src = ("figdown 0.2 flowchart\nflow right\nprocess a \"Take payment\"\nprocess s \"Ship\"\n"
           "process n \"Notify buyer\"\nterminator e \"Closed\"\nexternal crm \"CRM\"\nflowline a -> s\n"
           "flowline s -> e\nflowline s -> crm\nflowline n -> crm\n")
    _, edges = _drawing(src)
    p = edges[_line_of(src, "flowline s -> crm")][-1]
    q = edges[_line_of(src, "flowline n -> crm")][-1]
    assert math.dist(p, q) >= 12


PAYMENT = ("figdown 0.2 flowchart\nterminator start \"Charge card\"\nprocess call \"Call gateway\"\n"
           "decision res \"Result?\"\nprocess ok \"Mark paid\"\nprocess soft \"Wait and retry\"\n"
           "process hard \"Notify customer\"\nexternal fraud \"Fraud team\"\ndecision again \"Retries left?\"\n"
           "terminator end \"Done\"\nflowline start -> call\nflowline call -> res\n"
           "flowline res -[approved]-> ok\nflowline res -[soft decline]-> soft\n"
           "flowline res -[hard decline]-> hard\nflowline res -[suspicious]-> fraud\n"
           "flowline soft -> again\nflowline again -[yes]-> call\nflowline again -[no]-> hard\n"
           "flowline ok -> end\nflowline hard -> end\nflowline hard -> fraud\n")


def test_of_two_branches_out_past_one_side_the_one_turning_farther_takes_the_vertex() -> None:
    # the first in the source took the left point and ran inside the other, which then
    # crossed it on its way out
    boxes, edges = _drawing(PAYMENT)
    hard = edges[_line_of(PAYMENT, "flowline res -[hard decline]-> hard")]
    sus = edges[_line_of(PAYMENT, "flowline res -[suspicious]-> fraud")]
    x, y, w, h = boxes["res"]
    assert sus[0] == pytest.approx((x, y + h / 2), abs=0.01)     # the left point
    assert _crossings({"h": hard, "s": sus}, "s") == 0
    # a back edge round the right leaves the right point when only lines pass between
    back = edges[_line_of(PAYMENT, "flowline again -[yes]-> call")]
    x, y, w, h = boxes["again"]
    assert back[0] == pytest.approx((x + w, y + h / 2), abs=0.01)


def test_runs_entering_a_box_by_its_side_are_the_ones_farthest_out() -> None:
    # two "no" lines come down the left into Comment: the nearer took the side entry and
    # the farther, going to the top, crossed it
    src = ("figdown 0.2 flowchart\nterminator push \"Push to PR branch\"\n"
           "process checkout \"Check out and restore cache\"\nprocess lint \"Lint and type-check\"\n"
           "decision lok \"Lint clean?\"\nprocess unit \"Run unit tests\"\ndecision pass \"All tests pass?\"\n"
           "process build \"Build container image\"\nprocess stage \"Deploy to staging\"\n"
           "decision smoke \"Smoke tests green?\"\nprocess back \"Roll back staging\"\n"
           "decision approve \"Release approved?\"\nprocess prod \"Deploy to production\"\n"
           "process comment \"Comment failure on PR\"\nterminator done \"Pipeline finished\"\n"
           "flowline push -> checkout\nflowline checkout -> lint\nflowline lint -> lok\n"
           "flowline lok -[no]-> comment\nflowline lok -[yes]-> unit\nflowline unit -> pass\n"
           "flowline pass -[no]-> comment\nflowline pass -[yes]-> build\nflowline build -> stage\n"
           "flowline stage -> smoke\nflowline smoke -[no]-> back\nflowline smoke -[yes]-> approve\n"
           "flowline back -> comment\nflowline approve -[yes]-> prod\nflowline approve -[no]-> done\n"
           "flowline prod -> done\nflowline comment -> done\n")
    _, edges = _drawing(src)
    for line in ("flowline lok -[no]-> comment", "flowline pass -[no]-> comment"):
        assert _crossings(edges, _line_of(src, line)) == 0, line


def test_a_lone_line_into_an_external_others_meet_lands_on_the_side_it_comes_from() -> None:
    # the health line came round the right and landed on the point, where a straight line
    # from above also aimed: that one moved right of it, and the two crossed
    src = ("figdown 0.1 block\nflow down\nexternal client \"Client\"\ngroup front \"Front\"\n"
           "node lb \"LB\" in=front\nnode api \"API\" in=front\ngroup back \"Back\"\n"
           "node s1 \"Orders\" in=back\nnode s2 \"Users\" in=back\nnode s3 \"Search\" in=back\n"
           "group store \"Storage\"\nnode db \"DB\" shape=cylinder in=store\n"
           "node idx \"Index\" shape=cylinder in=store\nexternal ops \"Ops dashboard\"\n"
           "edge client -> lb\nedge lb -> api\nedge api -> s1\nedge api -> s2\nedge api -> s3\n"
           "edge s1 -> db\nedge s2 -> db\nedge s3 -> idx\nedge db -[CDC]-> idx\nedge s1 -> ops\n"
           "edge s3 -> ops\nedge client -[health]-> ops\nrank s1,s2,s3\n")
    _, edges = _drawing(src)
    health = _line_of(src, "edge client -[health]-> ops")
    assert _crossings(edges, health) == 0


def test_two_boxes_the_placer_left_a_few_px_out_of_line_are_put_in_line() -> None:
    # Ingest feeds two boxes and Archive is fed by two, so neither rule joined them, and
    # their line slanted 4 px
    src = ("figdown 0.1 block\nflow left\ngroup edge \"Edge site\"\nnode cam \"Camera\" in=edge\n"
           "node enc \"Encoder\" in=edge\ngroup cloud \"Cloud\"\nnode ingest \"Ingest\" in=cloud\n"
           "node trans \"Transcoder\" in=cloud\nnode store \"Archive\" shape=cylinder in=cloud\n"
           "node cdn \"CDN\"\nexternal viewer \"Viewers\"\nedge cam -> enc\nedge enc -> ingest\n"
           "edge ingest -> trans\nedge trans -> cdn\nedge ingest -> store\nedge cdn -> viewer\n"
           "edge store -[replay]-> cdn\nedge enc -[backup]-> store\n")
    _, edges = _drawing(src)
    (x0, y0), (x1, y1) = edges[_line_of(src, "edge ingest -> store")]
    assert y0 == y1


def test_ports_beside_a_straight_line_pack_on_the_side_they_come_from() -> None:
    from markmcp.figdown.render.scene.route import _beside
    ends = [(-50.0, 1, "last"), (-20.0, 2, "last"), (90.0, 3, "last")]
    assert _beside(ends, [], 0.0, 60.0, 16.0) is None
    assert _beside(ends, [0.0], 0.0, 100.0, 16.0) == [-32.0, -16.0, 16.0]
    # two lines side by side: the ends keep off both
    assert _beside(ends, [-5.0, 5.0], 0.0, 100.0, 16.0) == [-37.0, -21.0, 21.0]
    # a short side: closer together, never past its room
    assert _beside(ends, [0.0], 0.0, 40.0, 16.0) == [-20.0, -10.0, 16.0]
    # no room at all beside the line on one side: no packing (the caller spreads them)
    assert _beside(ends, [-20.0], 0.0, 40.0, 16.0) is None


def test_no_alignment_passes_through_a_band() -> None:
    # x (rank 0) left of band g, y (rank 1) right of it: joined, the run would pass
    # through the band, a cycle of separations that left the whole figure unstraightened
    from markmcp.figdown.render.scene.order import Item
    from markmcp.figdown.render.scene.straight import _joins
    x = Item("x", 0, None, object())
    g1 = Item("g1", 0, "g", object())
    g2 = Item("g2", 1, "g", object())
    y = Item("y", 1, None, object())
    a = Item("a", 0, None, object())
    b = Item("b", 1, None, object())
    for u, v in ((x, y), (g1, g2), (a, b)):
        u.downs.append(v)
        v.ups.append(u)
    ranks = [[x, g1, a], [g2, y, b]]
    for rank in ranks:
        for i, it in enumerate(rank):
            it.index, it.pos, it.size = i, 50.0 * i, 20.0
    joined = {(u.key, v.key) for u, v in _joins(ranks)}
    assert ("g1", "g2") in joined
    assert ("x", "y") not in joined      # left of the band above, right of it below
    assert ("a", "b") in joined          # right of it in both


def _doubles_back(pts) -> bool:
    """A run that turns straight back over itself (two collinear segments, opposite ways;
    a zero-length segment between them does not hide it)."""
    pts = [p for k, p in enumerate(pts) if k == 0 or math.dist(p, pts[k - 1]) > 1e-6]
    for a, b, c in zip(pts, pts[1:], pts[2:]):
        u = (b[0] - a[0], b[1] - a[1])
        v = (c[0] - b[0], c[1] - b[1])
        if abs(u[0] * v[1] - u[1] * v[0]) < 1e-6 and u[0] * v[0] + u[1] * v[1] < 0:
            return True
    return False


def test_a_line_against_the_flow_from_an_external_does_not_double_back() -> None:
    # its start was moved 20 px off the external, level with its lane: it ran out past
    # the drawing and straight back over itself
    src = ("figdown 0.1 block\nexternal psp \"Payment provider\"\ngroup app \"Application\"\n"
           "node api \"Order API\" in=app\nnode worker \"Worker\" in=app\ngroup data \"Data\"\n"
           "node db \"Orders DB\" shape=cylinder in=data\nnode queue \"Queue\" in=data\n"
           "edge api -> queue\nedge queue -> worker\nedge worker -> db\nedge worker -[refund]-> psp\n"
           "edge psp -[webhook]-> api\n")
    _, edges = _drawing(src)
    assert not any(_doubles_back(pts) for pts in edges.values()), edges


def test_no_connector_of_the_corpus_doubles_back() -> None:
    found = []
    for path in sorted(shared_dir("figdown", "conformance").rglob("*.fd")):
        out = build(path.read_bytes().decode("utf-8"))
        if out.svg is None:
            continue
        found += [(path.name, el.get("data-edge")) for el in ET.fromstring(out.svg).iter()
                  if el.get("data-edge") is not None and el.tag in (SVG + "line", SVG + "path")
                  and _doubles_back(_vertices(el))]
    assert found == []


def _ends_by_side(boxes, edges, nid: str) -> dict[str, list[tuple[float, float]]]:
    """Where connectors meet box ``nid``, by the side of its rectangle they meet."""
    x0, y0, w, h = boxes[nid]
    x1, y1 = x0 + w, y0 + h
    out: dict[str, list] = {}
    for pts in edges.values():
        for px, py in (pts[0], pts[-1]):
            if not (x0 - 0.5 <= px <= x1 + 0.5 and y0 - 0.5 <= py <= y1 + 0.5):
                continue
            side = min((abs(px - x0), "left"), (abs(px - x1), "right"), (abs(py - y0), "top"), (abs(py - y1), "bottom"))[1]
            out.setdefault(side, []).append((px, py))
    return out


@pytest.mark.parametrize("flow,count", [("right", 8), ("left", 6)])
def test_a_crowded_flow_side_hands_runs_passing_beside_the_box_to_its_long_sides(flow, count) -> None:
    """Eight lines left a 32 px side 3.3 px apart, a ribbon, while the box's long sides
    stood empty: the runs farthest out leave by the side facing them, 10 px apart, and
    the rest keep 10 px on the flow side."""
    src = f"figdown 0.1 block\nflow {flow}\nnode hub \"Topic\"\n" + "".join(
        f"node s{k} \"Subscriber {k}\"\nedge hub -> s{k}\n" for k in range(count))
    boxes, edges = _drawing(src)
    sides = _ends_by_side(boxes, edges, "hub")
    assert sum(len(v) for v in sides.values()) == count
    assert len(sides) == 3                     # the flow side and both long sides
    for name, at in sides.items():
        across = sorted(p[1] if name in ("left", "right") else p[0] for p in at)
        assert all(b - a >= 10.0 - 0.01 for a, b in zip(across, across[1:])), (name, across)
    for pts in edges.values():   # no connector crosses another
        for other in edges.values():
            if other is not pts:
                assert not _segments_cross(pts, other)


def _segments_cross(p, q) -> bool:
    def cross(a, b, c, d) -> bool:
        def orient(u, v, w):
            return (v[0] - u[0]) * (w[1] - u[1]) - (v[1] - u[1]) * (w[0] - u[0])
        d1, d2, d3, d4 = orient(c, d, a), orient(c, d, b), orient(a, b, c), orient(a, b, d)
        return ((d1 > 1e-6 and d2 < -1e-6) or (d1 < -1e-6 and d2 > 1e-6)) and \
            ((d3 > 1e-6 and d4 < -1e-6) or (d3 < -1e-6 and d4 > 1e-6))
    return any(cross(a, b, c, d) for a, b in zip(p, p[1:]) for c, d in zip(q, q[1:]))


def test_a_crowded_side_beside_a_straight_line_sends_the_far_runs_out_of_the_long_side() -> None:
    """Three lines left an arbiter's 36 px side 4 px apart beside a straight one; the
    far runs leave by the bottom, the nearest its run first, so no drop crosses a run."""
    src = ("figdown 0.1 block\nflow left\nnode a \"Primary (Frankfurt)\"\nnode b \"Replica (Paris)\"\n"
           "node c \"Replica (Madrid)\"\nnode d \"Replica (Milan)\"\nnode arb \"Arbiter\"\n"
           "edge a <-[sync]-> b\nedge b <-[async]-> c\nedge c <-[async]-> d\nedge d <-[async]-> a\n"
           "edge arb -- a\nedge arb -- b\nedge arb -- c\nedge arb -- d\n")
    boxes, edges = _drawing(src)
    sides = _ends_by_side(boxes, edges, "arb")
    assert sorted(sides) == ["bottom", "left"] and len(sides["bottom"]) == 2
    left = sorted(p[1] for p in sides["left"])
    assert all(b - a >= 10.0 - 0.01 for a, b in zip(left, left[1:])), left
    for pts in edges.values():
        for other in edges.values():
            if other is not pts:
                assert not _segments_cross(pts, other)


def _point_seg(p, a, b) -> float:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def test_a_side_exit_keeps_off_a_straight_lines_arrowhead_on_that_side() -> None:
    """Control plane's line to Svc A left its top side 6 px from where the two-way line to
    Proxy A ends in an arrowhead, and ran up through the head; a side holding a straight
    line's arrowhead takes no exit."""
    src = ("figdown 0.1 block\nflow right\nnode cp \"Control plane\"\nnode p1 \"Proxy A\"\nnode p2 \"Proxy B\"\n"
           "node p3 \"Proxy C\"\nnode s1 \"Svc A\"\nnode s2 \"Svc B\"\nnode s3 \"Svc C\"\nnode ca \"Cert authority\"\n"
           "edge cp <-> p1\nedge cp <-> p2\nedge cp <-> p3\nedge p1 -> s1\nedge p2 -> s2\nedge p3 -> s3\n"
           "edge cp -> s1\nedge cp -> s3\nedge cp -> ca\n")
    boxes, edges = _drawing(src)
    heads = [_line_of(src, f"edge cp <-> {p}") for p in ("p1", "p2", "p3")]
    _x, top, _w, height = boxes["cp"]
    # the heads at Control plane on its top or bottom side (those on its flow side are
    # the ports' business)
    tips = [edges[k][0] for k in heads if min(abs(edges[k][0][1] - top), abs(edges[k][0][1] - top - height)) < 0.5]
    assert tips
    for k, pts in edges.items():
        if k in heads:
            continue
        for tip in tips:
            assert all(_point_seg(tip, a, b) >= 8.0 for a, b in zip(pts, pts[1:])), (k, tip)


def test_a_straight_line_never_starts_on_another_connectors_end() -> None:
    """Sink's straight line to Side X left it 0.4 px from where its routed line to Side Z
    left, and the two read as one line forking; a straight line's end keeps a few px off
    every other end at its box."""
    src = ("figdown 0.1 block\ntitle \"Return path\"\nflow left\nnode sink \"Sink\"\nnode a \"Stage A\"\n"
           "node b \"Stage B\"\nnode c \"Stage C\"\nnode d \"Stage D\"\nnode x \"Side X\"\nnode y \"Side Y\"\n"
           "node z \"Side Z\"\nedge sink -> a\nedge a -> b\nedge b -> c\nedge c -> d\nedge sink -[skip 1]-> b\n"
           "edge sink -[skip 2]-> c\nedge sink -[skip 3]-> d\nedge sink -> x\nedge sink -> y\nedge x -> z\n"
           "edge sink -> z\n")
    boxes, edges = _drawing(src)
    ends = [p for at in _ends_by_side(boxes, edges, "sink").values() for p in at]
    assert len(ends) == 7
    assert all(math.dist(p, q) >= 5.0 for i, p in enumerate(ends) for q in ends[i + 1:])


def _heads(svg: str) -> list[list[tuple[float, float]]]:
    """Every arrowhead drawn as a filled triangle: its point, then its two back corners."""
    out = []
    for d in re.findall(r'<path d="(M[-\d. L]+z)" fill="[^"]+" stroke="none"/>', svg):
        nums = [float(v) for v in re.findall(r"-?[\d.]+", d)]
        if len(nums) == 6:
            out.append(list(zip(nums[::2], nums[1::2])))
    return out


def _seg_gap(p, q, r, s) -> float:
    def side(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    if side(r, s, p) * side(r, s, q) < 0 and side(p, q, r) * side(p, q, s) < 0:
        return 0.0

    def to(c, a, b):
        dx, dy = b[0] - a[0], b[1] - a[1]
        t = max(0.0, min(1.0, ((c[0] - a[0]) * dx + (c[1] - a[1]) * dy) / ((dx * dx + dy * dy) or 1.0)))
        return math.dist(c, (a[0] + t * dx, a[1] + t * dy))
    return min(to(p, r, s), to(q, r, s), to(r, p, q), to(s, p, q))


def _heads_on_other_lines(svg: str) -> list[str]:
    """The connectors whose arrowhead comes within 1.5 px of another connector's line."""
    from .test_render_band_titles import segments
    runs = segments(svg)
    out = []
    for tip, b1, b2 in _heads(svg):
        own = {key for key, p, q in runs if math.dist(tip, p) < 0.05 or math.dist(tip, q) < 0.05}
        sides = ((tip, b1), (b1, b2), (b2, tip))
        out += [key for key, p, q in runs if key not in own
                and min(_seg_gap(a, b, p, q) for a, b in sides) < 1.5]
    return sorted(set(out))


@pytest.mark.parametrize("src", [
    # Proxy B's two-way line to Control plane: its arrowhead lay on the start of the
    # line to Cert authority
    "figdown 0.1 block\nflow right\nnode cp \"Control plane\"\nnode p1 \"Proxy A\"\nnode p2 \"Proxy B\"\n"
    "node p3 \"Proxy C\"\nnode s1 \"Svc A\"\nnode s2 \"Svc B\"\nnode s3 \"Svc C\"\nnode ca \"Cert authority\"\n"
    "edge cp <-> p2\nedge cp <-> p3\nedge p1 -> s1\nedge p2 -> s2\nedge p3 -> s3\nedge cp -[certs]-> s1\n"
    "edge cp -[certs]-> s3\nedge cp -> ca\nedge cp -[leader lease]-> cp\n",
    # six two-way lines out of one balancer and a labelled one beside them
    "figdown 0.1 block\nflow right\nnode lb \"Load balancer\"\n"
    + "".join(f"node c{i} \"Cache {i}\"\n" for i in range(1, 7)) + "node origin \"Origin\"\n"
    + "".join(f"edge lb <-> c{i}\n" for i in range(1, 7)) + "edge lb -[miss]-> origin\n",
])
def test_an_arrowhead_on_a_straight_line_keeps_off_another_line_starting_there(src: str) -> None:
    assert build(src).svg is not None
    assert _heads_on_other_lines(build(src).svg) == []


def test_a_straight_line_from_a_diamond_moves_its_arrowhead_off_another() -> None:
    """Billing's "yes" ran straight from the diamond into Escalate, its arrowhead on
    Outage's: a moved end was refused whenever its line entered the far box's bounding
    rectangle, and a line from a diamond's face always does.  The far box's own outline
    decides now."""
    src = ("figdown 0.1 flowchart\nprocess intake \"Intake ticket\"\ndecision d1 \"Security issue?\"\n"
           "decision d2 \"Customer data?\"\ndecision d3 \"Outage?\"\ndecision d4 \"Billing?\"\n"
           "process esc \"Escalate to duty manager\"\nprocess std \"Standard queue\"\n"
           "terminator done \"Ticket routed\"\nedge intake -> d1\nedge d1 -[yes]-> esc\nedge d1 -[no]-> d2\n"
           "edge d2 -[yes, PII]-> esc\nedge d2 -[no]-> d3\nedge d3 -[yes, outage]-> esc\nedge d3 -[no]-> d4\n"
           "edge d4 -[yes, billing]-> esc\nedge d4 -[no]-> std\nedge esc -> done\nedge std -> done\n")
    # (four plain "yes" exits say the same, and merge into one bus: tests/figdown/test_render_merge_bus.py)
    svg = build(src).svg
    assert "data-bus" not in svg
    tips = [tip for tip, _b1, _b2 in _heads(svg)]
    assert len(tips) == 11   # one a connector
    assert min(math.dist(p, q) for p, q in itertools.combinations(tips, 2)) >= 12.0
    assert _heads_on_other_lines(svg) == []


def test_a_branch_turning_just_past_the_vertex_leaves_by_it() -> None:
    # "yes" skips the box below (its way down passes 9 px beyond the diamond's left point):
    # it left by the bottom point and hooked round Tier-1, landing beside Tier-1's arrow
    src = ("figdown 0.2 flowchart\nterminator new \"Ticket created\"\nprocess classify \"Auto-classify (intent model)\"\n"
           "decision conf \"Confidence > 0.8?\"\nprocess human \"Tier-1 agent classifies\"\n"
           "decision type \"Category?\"\nprocess kb \"Send KB article, auto-close in 48 h\"\n"
           "process billing \"Route to billing queue\"\nprocess tech \"Route to tier-2 technical\"\n"
           "flowline new -> classify\nflowline classify -> conf\nflowline conf -[no]-> human\n"
           "flowline conf -[yes]-> type\nflowline human -> type\nflowline type -[how-to]-> kb\n"
           "flowline type -[billing]-> billing\nflowline type -[bug / outage]-> tech\n"
           "flowline kb -[customer replies]-> human\n")
    boxes, edges = _drawing(src)
    pts = edges[_line_of(src, "flowline conf -[yes]-> type")]
    assert _leaves_by_side_point(pts, boxes["conf"]), pts
    # and it passes beside Tier-1, never under it
    assert _beside(pts, boxes["human"])


CHECKOUT = ("figdown 0.1 block\nflow right\nexternal shopper \"Shopper browser\"\nnode bff \"Web BFF\"\n"
            "group core \"Checkout domain\"\nnode cart \"cart-svc\" in=core\nnode checkout \"checkout-svc\" in=core\n"
            "node pricing \"pricing-svc\" in=core\nnode tax \"tax-svc\" in=core\nnode inv \"inventory-svc\"\n"
            "node pay \"payment-svc\"\nnode ship \"shipping-quote-svc\"\nnode orders \"orders DB\" shape=cylinder\n"
            "node bus \"Order events topic\" shape=cylinder\nnode email \"email-svc\"\nedge shopper -> bff\n"
            "edge bff -> cart\nedge bff -> checkout\nedge checkout -> pricing\nedge pricing -> tax\n"
            "edge checkout -[reserve stock, 10 min hold]-> inv\nedge checkout -> pay\nedge checkout -> ship\n"
            "edge checkout -> orders\nedge checkout -[OrderPlaced]-> bus\nedge bus -> email\n"
            "edge bus -[release hold]-> inv style=dashed\n")


def _end_steps(pts) -> list[float]:
    """The runs across the flow shorter than 12 px between two runs along it, at a line's
    first or last bend (a port a few px off the track that meets it)."""
    out = []
    for k in (1, len(pts) - 3):
        if 0 < k < len(pts) - 2:
            a, b, c, d = pts[k - 1], pts[k], pts[k + 1], pts[k + 2]
            if (abs(a[1] - b[1]) < 0.01) == (abs(c[1] - d[1]) < 0.01) != (abs(b[1] - c[1]) < 0.01) \
                    and 0.5 < math.dist(b, c) <= 12:
                out.append(round(math.dist(b, c), 2))
    return out


def test_a_routed_line_ends_level_with_the_track_that_reaches_its_box() -> None:
    # checkout-svc -> pricing-svc left its box 10 px off its track and stepped onto it,
    # running 10 px along the line to inventory-svc there
    boxes, edges = _drawing(CHECKOUT)
    pts = edges[_line_of(CHECKOUT, "edge checkout -> pricing")]
    assert _end_steps(pts) == [], pts
    # and no line of the figure starts or ends with such a step
    assert {key: _end_steps(p) for key, p in edges.items() if _end_steps(p)} == {}


PRINT_JOB = ("figdown 0.2 statechart\nflow down\nstate pending \"pending\"\nstate held \"pending-held\"\n"
             "state processing \"processing\"\nstate stopped \"processing-stopped\"\nstate completed \"completed\"\n"
             "state canceled \"canceled\"\ntransition pending -[printer idle]-> processing\n"
             "transition pending -[hold-job]-> held\ntransition held -[release-job]-> pending\n"
             "transition processing -[paper jam / out of toner]-> stopped\n"
             "transition stopped -[condition cleared]-> processing\n"
             "transition processing -[last page stacked]-> completed\n"
             "transition pending -[cancel-job]-> canceled\ntransition processing -[cancel-job]-> canceled\n"
             "transition held -[cancel-job]-> canceled\n")


def test_a_straight_line_a_few_px_off_upright_is_squared_off() -> None:
    # processing and processing-stopped's two lines ran 6.6 px aslant over 113 px, their
    # ends moved apart along the boxes; between flat sides they now stand upright
    boxes, edges = _drawing(PRINT_JOB)
    for line in ("transition processing -[paper jam / out of toner]-> stopped",
                 "transition stopped -[condition cleared]-> processing"):
        (x0, y0), (x1, y1) = edges[_line_of(PRINT_JOB, line)]
        assert x0 == x1 and abs(y1 - y0) > 30, (line, (x0, y0), (x1, y1))
    # and no line of the figure between flat sides is left a few px off upright or level
    for key, pts in edges.items():
        if len(pts) == 2:
            dx, dy = abs(pts[1][0] - pts[0][0]), abs(pts[1][1] - pts[0][1])
            assert not (0.3 < min(dx, dy) < 8 and max(dx, dy) > 24), (key, pts)


def test_a_branch_stepping_aside_under_its_decision_moves_out_to_leave_by_the_vertex() -> None:
    # "yes" skips "Top up" to reach "Order" below it: its way down ran beside "Top up",
    # 77 px left of the diamond's centre but inside its 120 px half-width, so it left by
    # the lower face, stepped aside under the diamond and came back in at the end
    src = ("figdown 0.2 flowchart\nterminator go \"Nightly stock job\"\n"
           "decision enough \"Order quantity above supplier minimum?\"\nprocess top \"Top up\"\n"
           "process order \"Place order\"\nflowline go -> enough\nflowline enough -[no]-> top\n"
           "flowline enough -[yes]-> order\nflowline top -> order\n")
    boxes, edges = _drawing(src)
    pts = edges[_line_of(src, "flowline enough -[yes]-> order")]
    assert _leaves_by_side_point(pts, boxes["enough"]), pts
    # one short run out of the vertex, one run down beside "Top up", one run into "Order"
    assert len(pts) == 4 and 8 <= abs(pts[1][0] - pts[0][0]) <= 16, pts
    assert _beside(pts, boxes["top"])
    ox, oy, ow, oh = boxes["order"]
    assert oy < pts[-1][1] < oy + oh and pts[-1][0] in (pytest.approx(ox), pytest.approx(ox + ow)), pts


def _segment_rect_gap(p, q, rect) -> float:
    """How far the segment p-q passes from the rectangle (x, y, w, h); 0 when it enters."""
    x, y, w, h = rect
    best = math.inf
    for k in range(401):
        t = k / 400
        px, py = p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])
        dx, dy = max(x - px, 0.0, px - x - w), max(y - py, 0.0, py - y - h)
        best = min(best, math.hypot(dx, dy))
    return best


def test_a_hubs_lines_to_a_wide_row_pass_clear_of_the_boxes_beside_their_ends() -> None:
    # a core switch over a row of eight: its line to the far end of the row ran nearly
    # level and clipped the corner of the box beside the one it meets (a cylinder, deeper
    # than its neighbours, takes its line on its side); the gap grows to let it pass
    src = ("figdown 0.5 topology\nflow down\nexternal isp \"Venue ISP\"\nnode border \"Edge router / NAT\"\n"
           "node core \"Core switch (L3)\"\nnode cache \"Game download cache\\n(Steam, Battle.net)\" shape=cylinder\n"
           "node dhcp \"DHCP / DNS\"\nnode servers \"Tournament game servers\"\nnode stream \"Stream encoding PCs\"\n"
           "group ra \"Rows A-D\"\nnode acc1 \"Access switch A (48p)\" in=ra\nnode acc2 \"Access switch B (48p)\" in=ra\n"
           "group re \"Rows E-H\"\nnode acc3 \"Access switch E (48p)\" in=re\nnode acc4 \"Access switch F (48p)\" in=re\n"
           "edge isp -- border\nedge border -- core\nedge core -- cache\nedge core -- dhcp\nedge core -- servers\n"
           "edge core -- stream\nedge core -- acc1\nedge core -- acc2\nedge core -- acc3\nedge core -- acc4\n")
    boxes, edges = _drawing(src)
    names = {_line_of(src, f"edge core -- {n}"): n for n in ("cache", "dhcp", "servers", "stream", "acc1", "acc2", "acc3", "acc4")}
    for key, far in names.items():
        pts = edges[key]
        assert len(pts) == 2, pts
        for nid, rect in boxes.items():
            if nid not in ("core", far):
                assert _segment_rect_gap(pts[0], pts[1], rect) >= 3.0, (far, nid)


def test_a_topology_link_round_the_figure_keeps_out_of_the_box_beside_its_end() -> None:
    # router 1 reaches the imager round the top of the figure; the imager stands under the
    # mass memory in one rank, and the link's last run went from above the rank straight
    # for the imager's centre, through the mass memory
    src = ("figdown 0.1 topology\nflow right\nnode obcA \"On-board computer A\"\n"
           "node obcB \"On-board computer B (cold spare)\"\nnode rtr1 \"SpaceWire router 1\"\n"
           "node rtr2 \"SpaceWire router 2\"\nnode mm \"Mass memory unit\" shape=cylinder\n"
           "node cam \"Imager payload\"\nnode spec \"Spectrometer payload\"\nnode ttc \"TT&C transponder\"\n"
           "node xband \"X-band transmitter\"\nnode pcdu \"Power conditioning unit\"\n"
           "edge obcA -- rtr1\nedge obcB -- rtr2 style=dashed\nedge rtr1 -- rtr2 style=dashed\n"
           "edge rtr1 -- mm\nedge rtr2 -- mm style=dashed\nedge rtr1 -- cam\nedge rtr1 -- spec\n"
           "edge rtr2 -- cam style=dashed\nedge rtr1 -- ttc\nedge mm -[playback 150 Mbit/s]-> xband\n"
           "edge obcA -[MIL-STD-1553]- pcdu style=dotted\n")
    boxes, edges = _drawing(src)
    lines = src.split("\n")
    for key, pts in edges.items():
        ends = set(lines[int(key) - 1].split()) & set(boxes)
        for nid, rect in boxes.items():
            if nid not in ends:
                gaps = [_segment_rect_gap(p, q, rect) for p, q in zip(pts, pts[1:])]
                assert min(gaps) > 0, (lines[int(key) - 1], nid, pts)


def test_a_branch_moved_out_beside_its_decision_keeps_off_another_lines_arrowhead() -> None:
    # "no / quarantine" moved out beyond the DMARC diamond's side point came down onto the
    # classifier 18 px beside the arrowhead of the malware check's "no"
    src = ("figdown 0.2 flowchart\nexternal mta \"SMTP connection from sending MTA\"\n"
           "decision rbl \"Sender IP on blocklist?\"\ndecision spf \"SPF / DKIM / DMARC result\"\n"
           "decision pol \"DMARC policy = reject?\"\nprocess av \"Antivirus & attachment sandbox\"\n"
           "decision mal \"Malware found?\"\nprocess score \"Content classifier score\"\ndecision th \"Score\"\n"
           "process quar \"Quarantine, notify admin\"\nterminator inbox \"Delivered to Inbox\"\n"
           "terminator junk \"Junk folder\"\nterminator rej \"550 rejected\"\nflowline mta -> rbl\n"
           "flowline rbl -[yes]-> rej\nflowline rbl -[no]-> spf\nflowline spf -[pass]-> av\n"
           "flowline spf -[fail]-> pol\nflowline pol -[yes]-> rej\nflowline pol -[no / quarantine]-> score\n"
           "flowline av -> mal\nflowline mal -[yes]-> quar\nflowline mal -[no]-> score\nflowline score -> th\n"
           "flowline th -[< 5]-> inbox\nflowline th -[5-9]-> junk\nflowline th -[>= 10]-> quar\n")
    boxes, edges = _drawing(src)
    x, y, w, h = boxes["score"]
    tips = [pts[-1] for key, pts in edges.items()
            if src.split("\n")[int(key) - 1].endswith("-> score") and abs(pts[-1][1] - y) < 1.0]
    assert len(tips) == 2
    assert abs(tips[0][0] - tips[1][0]) >= 24.0, tips


FREIGHT = """figdown 0.2 flowchart
terminator start "Shipper submits quote request"
process dims "Capture pallets, weight,\\ndimensions, freight class"
decision hazmat "Hazardous goods?"
process hazdocs "Collect UN number,\\nsafety data sheet"
process rate "Rate shipment\\n(zone, class, accessorials)"
terminator done "Quoted"
flowline start -> dims
flowline dims -> hazmat
flowline hazmat -[yes]-> hazdocs
flowline hazdocs -> rate
flowline hazmat -[no]-> rate
flowline rate -> done"""


def test_a_bypass_coming_down_just_beside_its_box_turns_into_its_side() -> None:
    # the "no" came down 6 px left of Rate shipment, ran on above it and hooked down onto
    # its top 22 px beside the main line's arrowhead; now it turns into the box's side
    boxes, edges = _drawing(FREIGHT)
    x, y, w, h = boxes["rate"]
    bypass = edges[_line_of(FREIGHT, "flowline hazmat -[no]-> rate")]
    main = edges[_line_of(FREIGHT, "flowline hazdocs -> rate")]
    end, before = bypass[-1], bypass[-2]
    assert end[0] == pytest.approx(x, abs=0.01) and y < end[1] < y + h
    assert before[1] == pytest.approx(end[1], abs=0.01) and end[0] - before[0] >= 20
    assert main[-1][1] == pytest.approx(y, abs=0.01)
    # one turn down beside the box, one into it: no step on the way
    assert len(bypass) == 4


def _row_item(rank: int, pos: float, size: float, main: float = 36.0) -> SimpleNamespace:
    return SimpleNamespace(rank=rank, pos=pos, size=size, main=main, node=SimpleNamespace(external=False))


def test_a_box_nearly_in_line_does_not_stop_the_room_a_straight_line_wants_past_another() -> None:
    # a hub's straight line to the far end of a wide row passes two boxes of that row: one
    # nearly in line (no gap would take the line 6 px past its corner) and one that a
    # somewhat wider gap clears; the gap grows for the second all the same
    hub, end = _row_item(0, 0.0, 100.0), _row_item(1, 400.0, 100.0)
    moderate = _row_item(1, 250.0, 100.0)   # near corner 300: 3/4 of the way across
    in_line = _row_item(1, 345.0, 80.0)     # near corner 385: 96 % of the way across
    frame = SimpleNamespace(horizontal=False, ranks=[[hub], [moderate, in_line, end]],
                            plans={0: SimpleNamespace(kind="chain", items=[hub, end])})
    scene = SimpleNamespace(links=[SimpleNamespace(index=0, a="hub", b="end")])
    room = straight_room(scene, frame, set(), {})
    # the line from centre to centre clears the moderate box's corner by 6 px where the
    # ranks' axes stand (18 + 6) / (1 - 0.75) = 96 px apart: a gap of 96 - 36 = 60 px
    assert room == {0: pytest.approx(60.0)}
    # alone, the box nearly in line asks for no room (it would take 604 px)
    frame.ranks = [[hub], [in_line, end]]
    assert straight_room(scene, frame, set(), {}) == {}


OAUTH = """figdown 0.2 flowchart
decision sso "Active SSO session?"
process login "Login + MFA"
decision consent "Consent already granted?"
terminator done "Issue code"
process screen "Show consent screen"
flowline sso -[no]-> login
flowline login -> consent
flowline sso -[yes]-> consent
flowline consent -[yes]-> done
flowline consent -[no]-> screen
flowline screen -> done"""


def _on_run(p, a, b) -> bool:
    """Whether point ``p`` lies on the upright or level run a–b, strictly between its ends."""
    if abs(a[0] - b[0]) < 0.01:
        return abs(p[0] - a[0]) < 0.01 and min(a[1], b[1]) < p[1] < max(a[1], b[1])
    return abs(p[1] - a[1]) < 0.01 and min(a[0], b[0]) < p[0] < max(a[0], b[0])


def test_a_bypass_joins_the_main_line_above_its_box() -> None:
    # "yes" came down beside Login + MFA, ran across above Consent and turned onto its
    # top beside the main line's arrowhead; it runs on to the main line and joins it, with
    # a junction dot, and the two share one arrowhead
    out = build(OAUTH)
    _, edges = _drawing(OAUTH)
    bypass = edges[_line_of(OAUTH, "flowline sso -[yes]-> consent")]
    main = edges[_line_of(OAUTH, "flowline login -> consent")]
    assert bypass[-1] == main[-1]
    jx, jy = bypass[-2]
    assert _on_run((jx, jy), main[-2], main[-1])
    assert main[-1][1] - jy >= 14
    assert bypass[-3][1] == pytest.approx(jy, abs=0.01)   # it reaches the junction running across
    dots = [(float(x), float(y)) for x, y in re.findall(r'<circle cx="([-\d.]+)" cy="([-\d.]+)"', out.svg)]
    assert any(math.dist(d, (jx, jy)) < 0.01 for d in dots)


def _corner_scene(*pairs):
    """Two boxes with the lines ``pairs`` between them and a third, ``c``, whose top-right
    corner the centre line from ``a`` to ``b`` cuts about 4 px from the corner."""
    from markmcp.figdown.render.scene.graph import Box
    boxes = {"a": Box("a", "A", w=100, h=36, x=0, y=0), "b": Box("b", "B", w=100, h=36, x=300, y=200),
             "c": Box("c", "C", w=100, h=36, x=101, y=116)}
    links = [SimpleNamespace(index=k, a=a, b=b, bus=None) for k, (a, b) in enumerate(pairs)]
    return SimpleNamespace(nodes=boxes, links=links)


def test_a_straight_line_clipping_a_corner_is_shifted_clear_of_it() -> None:
    from markmcp.figdown.render.scene import CORNER_CLEAR, _off_corners
    from markmcp.figdown.render.scene.free import Boxes
    from markmcp.figdown.render.scene.route import straight_link
    scene = _corner_scene(("a", "b"))
    nodes = scene.nodes
    boxes = Boxes([(n.id, n.rect()) for n in nodes.values()])
    before = straight_link(nodes["a"], nodes["b"])
    # within the router's tolerance (not through the box), yet into its corner
    assert not boxes.hits(before, ("a", "b")) and boxes.hits(before, ("a", "b"), -CORNER_CLEAR)
    paths = {0: before}
    _off_corners(scene, paths, boxes)
    after = paths[0]
    assert not boxes.hits(after, ("a", "b"), -CORNER_CLEAR)
    # the same line moved across itself by a few px: parallel, ends on its own boxes' outlines
    (x0, y0), (x1, y1) = before
    (u0, v0), (u1, v1) = after
    assert abs((x1 - x0) * (v1 - v0) - (y1 - y0) * (u1 - u0)) < 1e-6
    assert 0 < math.dist(before[0], after[0]) <= 8 and 0 < math.dist(before[1], after[1]) <= 8
    assert (after[0][1] == 36 or after[0][0] == 100) and (after[1][1] == 200 or after[1][0] == 300)


def test_a_parallel_pair_clipping_a_corner_moves_together() -> None:
    from markmcp.figdown.render.scene import CORNER_CLEAR, _off_corners
    from markmcp.figdown.render.scene.free import Boxes
    from markmcp.figdown.render.scene.route import straight_link
    scene = _corner_scene(("a", "b"), ("b", "a"))
    scene.nodes["c"].x -= 10    # the pair's second line, 5 px across, clips its corner
    nodes = scene.nodes
    boxes = Boxes([(n.id, n.rect()) for n in nodes.values()])
    a, b = nodes["a"], nodes["b"]
    paths = {0: straight_link(a, b, -5.0), 1: straight_link(a, b, 5.0)[::-1]}
    assert not any(boxes.hits(p, ("a", "b")) for p in paths.values())
    _off_corners(scene, paths, boxes)
    assert not any(boxes.hits(p, ("a", "b"), -CORNER_CLEAR) for p in paths.values())
    # still 10 px apart, and the second still drawn from b to a
    (x0, y0), (x1, y1) = paths[0]
    px, py = paths[1][1]
    across = abs((x1 - x0) * (py - y0) - (y1 - y0) * (px - x0)) / math.dist(paths[0][0], paths[0][1])
    assert abs(across - 10.0) < 1e-6
    assert paths[1][0][1] == 200 or paths[1][0][0] == 300


def test_a_straight_line_through_a_box_is_left_for_the_router() -> None:
    from markmcp.figdown.render.scene import _off_corners
    from markmcp.figdown.render.scene.free import Boxes
    from markmcp.figdown.render.scene.route import straight_link
    scene = _corner_scene(("a", "b"))
    scene.nodes["c"].x += 20    # the line now cuts well into it
    boxes = Boxes([(n.id, n.rect()) for n in scene.nodes.values()])
    line = straight_link(scene.nodes["a"], scene.nodes["b"])
    assert boxes.hits(line, ("a", "b"))
    paths = {0: line}
    _off_corners(scene, paths, boxes)
    assert paths[0] == line


def test_a_branch_whose_side_the_other_branch_holds_leaves_by_the_point() -> None:
    """Mail filtering: "Malware found?" sends "no" across to the classifier by its left
    side and "yes" two ranks down to the quarantine; the yes column stood beside the
    point, within the diamond's width, so it left by the lower face and stepped aside.
    The side vertex being the other branch's, the column comes straight down from the
    point."""
    src = ("figdown 0.2 flowchart\nflow down\nexternal mta \"SMTP connection from sending MTA\"\n"
           "decision rbl \"Sender IP on blocklist?\"\ndecision spf \"SPF / DKIM / DMARC result\"\n"
           "decision dmarcpol \"DMARC policy = reject?\"\nprocess av \"Antivirus & attachment sandbox\"\n"
           "decision malware \"Malware found?\"\nprocess score \"Content classifier score\"\n"
           "decision thresh \"Score\"\nprocess quarantine \"Quarantine, notify admin\"\n"
           "terminator inbox \"Delivered to Inbox\"\nterminator junkbox \"Junk folder\"\n"
           "terminator refused \"550 rejected\"\nflowline mta -> rbl\nflowline rbl -[yes]-> refused\n"
           "flowline rbl -[no]-> spf\nflowline spf -[pass]-> av\nflowline spf -[fail]-> dmarcpol\n"
           "flowline dmarcpol -[yes]-> refused\nflowline dmarcpol -[no / quarantine]-> score\n"
           "flowline av -> malware\nflowline malware -[yes]-> quarantine\nflowline malware -[no]-> score\n"
           "flowline score -> thresh\nflowline thresh -[< 5]-> inbox\nflowline thresh -[5-9]-> junkbox\n"
           "flowline thresh -[≥ 10]-> quarantine\n")
    boxes, edges = _drawing(src)
    pts = edges[_line_of(src, "flowline malware -[yes]-> quarantine")]
    x, y, w, h = boxes["malware"]
    x0, y1, x1 = x, y + h, x + w
    assert len(pts) == 2 and abs(pts[0][0] - pts[1][0]) < 0.5      # one straight run down
    assert abs(pts[0][0] - (x0 + x1) / 2) < 0.5 and abs(pts[0][1] - y1) < 0.5   # from the point


PREFLIGHT = ("figdown 0.3 flowchart\nterminator start \"Arrive at aircraft\"\n"
             "process docs \"Check ARROW documents\\n& maintenance log\"\n"
             "decision airworthy \"Inspections current,\\nno open squawks?\"\n"
             "process weather \"Get briefing: METAR, TAF,\\nNOTAMs, TFRs\"\n"
             "decision wx \"Within personal minimums?\"\nprocess wb \"Weight & balance,\\nperformance calc\"\n"
             "decision wbok \"Within envelope,\\nrunway adequate?\"\nprocess walkaround \"Walk-around inspection\"\n"
             "decision defects \"Defects found?\"\nprocess fuel \"Visually check fuel, top off\"\n"
             "terminator go \"Start engine checklist\"\nterminator nogo \"Cancel or delay flight\"\n"
             "flowline start -> docs\nflowline docs -> airworthy\nflowline airworthy -[no]-> nogo\n"
             "flowline airworthy -[yes]-> weather\nflowline weather -> wx\nflowline wx -[no]-> nogo\n"
             "flowline wx -[yes]-> wb\nflowline wb -> wbok\nflowline wbok -[no, offload]-> wb\n"
             "flowline wbok -[yes]-> walkaround\nflowline walkaround -> defects\n"
             "flowline defects -[yes, grounding]-> nogo\nflowline defects -[no]-> fuel\nflowline fuel -> go\n")


def test_lines_coming_down_over_a_side_land_where_they_run() -> None:
    """Two "no" columns came down over the top of "Cancel or delay flight", 30 px apart,
    and each stepped aside just above it into ports spread round the middle: a port as
    near its run as the side and the spacing allow takes it, so each goes in straight."""
    boxes, edges = _drawing(PREFLIGHT)
    x, y, w, h = boxes["nogo"]
    for line in ("flowline airworthy -[no]-> nogo", "flowline wx -[no]-> nogo"):
        pts = edges[_line_of(PREFLIGHT, line)]
        (px, py), (qx, qy) = pts[-2], pts[-1]
        assert abs(px - qx) < 0.5 and abs(qy - y) < 0.5 and py < y - 100, (line, pts[-3:])
        assert x < qx < x + w


def test_ports_stand_as_near_their_runs_as_their_spacing_allows() -> None:
    from markmcp.figdown.render.scene.route import _nearest_ports
    # apart already, within the side: each at its run
    assert _nearest_ports([-40.0, 10.0, 45.0], 0.0, 120.0, 16.0) == [-40.0, 10.0, 45.0]
    # two runs 4 px apart part evenly about their middle, the third stays put
    assert _nearest_ports([0.0, 4.0, 40.0], 0.0, 120.0, 16.0) == [-6.0, 10.0, 40.0]
    # runs beyond the side step in wherever they land: they keep the even places round the
    # middle (at the side's end two ran into its corner), and one over the side its own
    assert _nearest_ports([-500.0, -400.0, 300.0], 0.0, 100.0, 16.0) == [-16.0, 0.0, 16.0]
    assert _nearest_ports([-500.0, -400.0, 40.0], 0.0, 100.0, 16.0) == [-16.0, 0.0, 40.0]
    placed = _nearest_ports([-3.0, -2.0, -1.0, 0.0, 80.0], 10.0, 80.0, 16.0)
    assert all(b - a >= 16.0 - 1e-9 for a, b in zip(placed, placed[1:]))
    assert -30.0 - 1e-9 <= placed[0] and placed[-1] <= 50.0 + 1e-9


def test_a_branch_is_not_moved_to_the_point_where_that_lands_by_its_boxs_corner() -> None:
    """Flowing right, the gap detector's "in sequence" ran level into the decoder from
    just off the diamond's point; moved to the point it met the decoder 1 px inside its
    corner and stepped in to a port just before the arrowhead.  It stays one straight
    line."""
    src = ("figdown 0.3 block\nflow right\nexternal exa \"Exchange feed A\"\nexternal exb \"Exchange feed B\"\n"
           "external retx \"Retransmission server\"\ngroup host \"Feed handler host (kernel bypass)\"\n"
           "node nicA \"NIC port 0\" in=host\nnode nicB \"NIC port 1\" in=host\n"
           "node arb \"A/B arbitration\\n(seq number)\" in=host\nnode gap \"Gap detector\" shape=diamond in=host\n"
           "node decode \"ITCH decoder\" in=host\nnode book \"Order book builder\" in=host\n"
           "edge exa -> nicA\nedge exb -> nicB\nedge nicA -> arb\nedge nicB -> arb\nedge arb -> gap\n"
           "edge gap -[in sequence]-> decode\nedge gap -[missing seq]-> retx style=dashed\n"
           "edge retx -[replay]-> decode style=dashed\nedge decode -> book\n")
    boxes, edges = _drawing(src)
    pts = edges[_line_of(src, "edge gap -[in sequence]-> decode")]
    assert len(pts) == 2 and abs(pts[0][1] - pts[1][1]) < 0.5, pts


def test_a_bypass_that_looks_unlike_the_main_line_keeps_its_own_arrowhead() -> None:
    # a dashed "none, already recovered" ran on to a solid line and shared its arrowhead,
    # so it seemed to pass through the box that line came from; a trunk shows one look,
    # so a line unlike the main one (another dash or colour) lands on its own
    src = OAUTH.replace('flowline sso -[yes]-> consent',
                        'class skip "Skipped step" style=dashed\nflowline sso -[yes]-> consent class=skip')
    _, edges = _drawing(src)
    bypass = edges[_line_of(src, "flowline sso -[yes]-> consent class=skip")]
    main = edges[_line_of(src, "flowline login -> consent")]
    assert bypass[-1] != main[-1] and not _on_run(bypass[-2], main[-2], main[-1])
    assert build(src).svg.count("<circle") == 0   # no junction dot


RENEWAL = """figdown 0.5 flowchart
flow right
terminator tick "Daily timer fires"
process order "Place ACME order"
decision issued "Certificate issued?"
terminator done "Install"
flowline tick -> order
flowline order -> issued
flowline issued -[yes]-> done
flowline issued -[no, rate-limited]-> order"""


def test_a_decisions_way_back_to_the_step_before_goes_round_not_beside_its_way_in() -> None:
    # "no" back to the step just before the decision was drawn straight back beside the
    # arrow into it, 8 px over it, leaving by the very vertex that arrow meets; it goes
    # round on a lane, leaving by another vertex, as a decision's other exits do
    boxes, edges = _drawing(RENEWAL)
    back = edges[_line_of(RENEWAL, "flowline issued -[no, rate-limited]-> order")]
    into = edges[_line_of(RENEWAL, "flowline order -> issued")]
    x, y, w, h = boxes["issued"]
    assert into[-1] == pytest.approx((x, y + h / 2), abs=0.6)          # the way in meets the left vertex
    assert math.dist(back[0], into[-1]) > h / 2 - 1                    # the way back leaves elsewhere
    assert len(back) >= 4                                              # round, on a lane
    ox, oy, ow, oh = boxes["order"]
    beside = [p for p in back[1:-1] if oy - 1 <= p[1] <= oy + oh + 1 and ox + ow < p[0] < x]
    assert not beside                                                  # no run between the two boxes


QUEUE = """figdown 0.5 flowchart
flow right
external author "PR author"
process add "Add PR to merge queue"
process rebase "Rebase onto queue head, run required checks"
decision green "All required checks green?"
decision ahead "Failure caused by a PR ahead in the queue?"
process ff "Fast-forward main, delete branch"
terminator merged "Merged"
flowline author -[label: ready-to-merge]-> add
flowline add -> rebase
flowline rebase -> green
flowline green -[yes]-> ff
flowline green -[no]-> ahead
flowline ahead -[no, genuine failure]-> author
flowline ahead -[yes, requeue behind new head]-> rebase
flowline ff -> merged"""


def test_a_decisions_second_way_back_leaves_by_a_vertex_not_a_slope() -> None:
    # two ways back round the top from one decision: one left by the top vertex, the
    # other from a point up the right slope (lined up toward its lane); a way back turns
    # off anyway, so it leaves by a vertex, as a decision's exits do
    boxes, edges = _drawing(QUEUE)
    x, y, w, h = boxes["ahead"]
    vertices = [(x + w / 2, y), (x + w, y + h / 2), (x + w / 2, y + h), (x, y + h / 2)]
    for line in ("flowline ahead -[no, genuine failure]-> author",
                 "flowline ahead -[yes, requeue behind new head]-> rebase"):
        start = edges[_line_of(QUEUE, line)][0]
        assert min(math.dist(start, v) for v in vertices) < 1.0, (line, start)
