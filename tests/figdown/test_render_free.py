"""Routing round author-placed boxes (``scene/free.py``): the indexed ink and the search.

The crossing count reads a square index instead of every drawn segment; it must
give exactly the count of the plain definition (one proper crossing per drawn
segment), including on square borders, for collinear and touching segments and
for segments met in several squares.  Scenes with many pins route many
connectors round boxes; they must draw the same bytes on every run.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from markmcp.figdown.render import build
from markmcp.figdown.render.scene import free
from markmcp.figdown.render.scene.free import (BLIND_POPS, CELL, EXTRA_POPS, FEW, GIVE_UPS, MAX_BLOCKED_POPS,
                                               MAX_HASTY_POPS, MAX_POPS, MAX_SQUARES, RUN, Effort, Ink, _along,
                                               segments_cross, detour, ink_crossings, orthogonal, path_hits, reconsider,
                                               THROUGH_BOX, route_free, straight)
from markmcp.figdown.render.scene.graph import Box

# coordinates that land on square borders, near them, on shared grid lines, and anywhere
_edges = st.integers(-3, 6).map(lambda k: k * CELL)
_near = st.tuples(st.integers(-3, 6), st.sampled_from((-0.5, 0.25, 10.0, 48.0))).map(lambda t: t[0] * CELL + t[1])
_any = st.floats(-400.0, 700.0, allow_nan=False, allow_infinity=False)
# far beyond any drawing: segments over more squares than the index buckets (a box pinned
# billions of pixels wide is legal), counted from a plain list instead
_huge = st.one_of(st.sampled_from((-2.1e12, 4.0e5, 2147483648110.0)), st.floats(-3e12, 3e12, allow_nan=False))
coordinate = st.one_of(_edges, _near, _any, st.sampled_from((0.0, 10.0, 106.0, 202.0)), _huge)
point = st.tuples(coordinate, coordinate)


def _level_or_upright(start: tuple[float, float], other: float, level: bool):
    return [start, (other, start[1]) if level else (start[0], other)]


polyline = st.one_of(
    st.lists(point, min_size=2, max_size=5),
    st.builds(_level_or_upright, point, coordinate, st.booleans()),
)


def plain_count(drawn: list[list[tuple[float, float]]], p, q) -> int:
    return sum(segments_cross(p, q, a, b) for points in drawn for a, b in zip(points, points[1:]))


@settings(max_examples=300, deadline=None)
@given(drawn=st.lists(polyline, min_size=1, max_size=8),
       queries=st.lists(st.one_of(polyline.map(lambda pts: pts[:2])), min_size=1, max_size=8))
def test_indexed_crossings_equal_the_plain_count(drawn, queries):
    ink = Ink()
    for points in drawn:
        ink.add(points)
    for p, q in queries:
        assert ink.crossings(p, q) == plain_count(drawn, p, q)
        assert ink.crossings(q, p) == plain_count(drawn, q, p)


def test_a_segment_met_in_many_squares_is_counted_once():
    drawn = [[(-5.0, -5.0), (7 * CELL + 3, 5 * CELL + 1)],     # a long slant over dozens of squares
             [(CELL, -50.0), (CELL, 9 * CELL)],                # upright, on a square border
             [(-50.0, 2 * CELL), (9 * CELL, 2 * CELL)]]        # level, on a square border
    ink = Ink()
    for points in drawn:
        ink.add(points)
    for query, crossed in ((((-20.0, 3 * CELL - 1), (8 * CELL, 0.5 * CELL)), 3),
                           (((0.0, 2 * CELL), (5 * CELL, 2 * CELL)), 2),   # along the level: not it
                           (((CELL, 0.0), (CELL, 4 * CELL)), 2),          # along the upright: not it
                           (((2 * CELL, 0.0), (2 * CELL, 2 * CELL)), 1)):  # ends on the level: not it
        assert ink.crossings(*query) == crossed == plain_count(drawn, *query)


def _boxes(seed: int, count: int) -> list[Box]:
    rnd = random.Random(seed)
    boxes: list[Box] = []
    while len(boxes) < count:
        box = Box(f"n{len(boxes)}", "", x=rnd.randrange(0, 900), y=rnd.randrange(0, 600), w=80.0, h=40.0)
        x0, y0, x1, y1 = box.rect()
        if all(x1 + 12 < o.x or o.x + o.w + 12 < x0 or y1 + 12 < o.y or o.y + o.h + 12 < y0 for o in boxes):
            boxes.append(box)
    return boxes


def _route_all(boxes: list[Box], seed: int) -> list[tuple[list, list]]:
    """40 connectors between random pairs, each routed over the ink of those before it:
    (the boxes it must avoid, its points) per connector."""
    rnd = random.Random(seed)
    ink = Ink()
    routes = []
    for _ in range(40):
        a, b = rnd.sample(boxes, 2)
        others = [o.rect() for o in boxes if o is not a and o is not b]
        points = route_free(a, b, others, ink)
        ink.add(points)
        routes.append((others, points))
    return routes


def test_routes_round_boxes_keep_clear_of_them_and_repeat_exactly():
    boxes = _boxes(3, 30)
    first = _route_all(boxes, 5)
    assert [pts for _, pts in first] == [pts for _, pts in _route_all(boxes, 5)]
    detours = [(others, pts) for others, pts in first if len(pts) > 2]
    assert len(detours) >= 5, "the scene should need routes round boxes"
    for others, pts in detours:
        # a detour runs level and upright between its two border points and meets no other box
        assert all(p[0] == q[0] or p[1] == q[1] for p, q in zip(pts[1:-1], pts[2:-1]))
        assert not path_hits(pts, others)


def pinned_scene(nodes: int, pins: int, seed: int) -> str:
    rnd = random.Random(seed)
    lines = ["figdown 0.5 block", "flow right"] + [f'node n{i} "Service {i}"' for i in range(nodes)]
    lines += [f"edge n{rnd.randrange(max(0, i - 8), i)} -> n{i}" for i in range(1, nodes)]
    lines += [f"edge n{rnd.randrange(nodes)} -> n{rnd.randrange(nodes)} style=dashed" for _ in range(nodes // 5)]
    lines.append("layout")
    for k, i in enumerate(sorted(rnd.sample(range(nodes), pins))):
        lines.append(f"pin n{i} at=({(k % 6) * 170 + rnd.randrange(40)},{(k // 6) * 110 + rnd.randrange(30)})")
    return "\n".join(lines) + "\n"


def test_a_scene_with_many_pins_builds_the_same_bytes_every_time():
    source = pinned_scene(60, 16, 2)
    first = build(source)
    assert first.svg is not None, first.error_lines()
    assert build(source).svg == first.svg
    assert first.svg.count("data-edge=") == source.count("\nedge ")


def test_a_box_pinned_billions_of_pixels_wide_is_drawn_in_bounded_work():
    # found by `make fuzz` (the renderer target): each of these ran out of memory in the
    # crossing index, which bucketed a segment under every square of its extent
    huge = 2147483648110
    assert huge / CELL > 1000 * MAX_SQUARES
    for source in (
        'figdown 0.2 statechart\nstate down "DOWN"\nstate up "UP"\ntransition down -[go]-> up\n'
        'transition up -[back]-> down\ntransition down -[stay]-> down\nlayout\n'
        f'pin down at=(220,40) width={huge} height=56\npin up at=(60,200) width=110 height=56\n',
        'figdown 0.4 topology\nnode a "A"\nnode b "B"\nnode c "C"\nedge a -- b\nedge b -- c\nedge a -- c\n'
        f'layout\npin a at=(0,140) width=100 height=70\npin b at=(220,40) width=110 height={huge}\n'
        'pin c at=(440,140) width=100 height=70\n',
    ):
        out = build(source)
        assert out.svg is not None and not out.diagnostics, out.diagnostics
        assert out.svg == build(source).svg


def test_a_line_through_a_box_is_searched_for_longer_out_of_the_drawings_allowance(monkeypatch):
    monkeypatch.setattr(free, "THROUGH_BOX", 3)  # the rule at the layout score's own weight
    # 20 x 14 boxes under slanted ink: every way from one corner to the other crosses
    # lines, each costing far more than the distance leading the search, which then
    # widens over most of the grid; 4,000 steps do not reach the far box
    boxes = [Box(f"n{i}_{j}", "", x=i * 110.0, y=j * 80.0, w=50.0, h=36.0) for j in range(14) for i in range(20)]
    ink = Ink()
    for k in range(-16, 52):
        ink.add([(k * 45.0, -60.0), (k * 45.0 + 500.0, 1200.0)])
    a, b = boxes[0], boxes[-1]
    others = [o.rect() for o in boxes if o is not a and o is not b]
    assert orthogonal(a, b, others, ink) is None
    effort = Effort()
    weighed = detour(a, b, others, ink, True, effort)
    assert weighed is not None and not path_hits(weighed, others, 0.0)
    assert 0 < EXTRA_POPS - effort.left <= MAX_BLOCKED_POPS - MAX_POPS
    assert detour(a, b, others, ink, True, Effort()) == weighed
    # with nothing left to spend, the quick search (counting no crossings) finds a way
    # crossing more drawn lines than the straight line does: not worth taking
    spent = Effort(0)
    assert detour(a, b, others, ink, True, spent) is None and spent.left == 0
    quick = orthogonal(a, b, others, ink, False, MAX_HASTY_POPS)
    assert ink_crossings(weighed, ink) <= ink_crossings(straight(a, b), ink) < ink_crossings(quick, ink)


def test_past_160_connectors_every_quick_step_comes_out_of_the_allowance():
    boxes = [Box(f"n{i}", "", x=i * 110.0, y=0.0, w=50.0, h=36.0) for i in range(3)]
    a, b = boxes[0], boxes[2]
    others = [boxes[1].rect()]   # the line from a to b runs through the middle box
    effort = Effort()
    path = detour(a, b, others, Ink(), False, effort)
    assert path is not None and not path_hits(path, others, 0.0)
    assert 0 < EXTRA_POPS - effort.left < MAX_POPS   # charged from the first step
    spent = Effort(0)
    assert detour(a, b, others, Ink(), False, spent) is None and spent.left == 0


# --- what a way round a box costs the drawing ---------------------------------------------

_lattice = st.sampled_from((0.0, 1.0, 1.5, 2.0, 10.0, 11.5, 25.0, 40.0, 60.0, 61.0, 100.0, 130.0, 200.0))
_lattice_point = st.tuples(_lattice, _lattice)
_lines = st.one_of(
    st.lists(_lattice_point, min_size=2, max_size=4),
    st.builds(_level_or_upright, _lattice_point, _lattice, st.booleans()),
)


def _kind(p, q) -> int:
    return 0 if p[1] == q[1] else 1 if p[0] == q[0] else 2


def plain_coincident(drawn: list[list[tuple[float, float]]], points) -> set[int]:
    """The lines of ``drawn`` (by index) a segment of ``points`` runs along for more
    than RUN px within NEAR px, level with level, upright with upright, slanted with
    slanted (bench/figdown_layout.py's coincident runs)."""
    return {k for k, line in enumerate(drawn)
            for p, q in zip(points, points[1:]) for c, d in zip(line, line[1:])
            if p != q and c != d and _kind(p, q) == _kind(c, d) and _along(p, q, c, d) > RUN}


@settings(max_examples=300, deadline=None)
@given(drawn=st.lists(_lines, min_size=1, max_size=6), query=_lines)
def test_the_runs_along_drawn_lines_are_those_of_the_plain_definition(drawn, query):
    ink = Ink()
    for k, points in enumerate(drawn):
        ink.add(points, k)
    assert ink.coincident(query) == plain_coincident(drawn, query)


def test_a_line_through_a_box_weighs_THROUGH_BOX_and_2_per_line_crossed_or_run_along():
    ink = Ink()
    ink.add([(50.0, -50.0), (50.0, 50.0)], "upright")      # crossed by the query
    ink.add([(0.0, 0.0), (30.0, 0.0)], "level")            # run along for 30 px
    query = [(-10.0, 0.0), (100.0, 0.0)]
    assert ink.score(query, True) == THROUGH_BOX + 2 * 1 + 2 * 2  # this line and 'level' come to run along one
    assert ink.score(query, False) == 2 * 1 + 2 * 2
    ink.add([(0.0, 0.0), (20.0, 0.0)], "twin")             # runs along 'level': both count already
    assert ink.score(query, False) == 2 * 1 + 2 * 1         # only the query comes to run along one


def _row(*ys: float) -> tuple[Box, Box, list]:
    """a, c, b in a row (c in the way of the line from a to b), and the rectangle of c."""
    a, c, b = (Box(n, "", x=x, y=0.0, w=50.0, h=36.0) for n, x in (("a", 0.0), ("c", 110.0), ("b", 220.0)))
    return a, b, [c.rect()]


def _fence(ink: Ink, above: bool, below: bool) -> None:
    """Upright lines over c's column, from far above it down to just above it, and from
    just below it far down: the line from a to b crosses none of them, a way round c
    on that side three."""
    for x in (125.0, 135.0, 145.0):
        if above:
            ink.add([(x, -400.0), (x, -5.0)])
        if below:
            ink.add([(x, 41.0), (x, 400.0)])


def test_a_way_round_a_box_is_kept_only_when_it_costs_less_than_the_line(monkeypatch):
    monkeypatch.setattr(free, "THROUGH_BOX", 3)  # the rule at the layout score's own weight
    a, b, others = _row()
    ink = Ink()
    _fence(ink, above=True, below=True)      # every way round crosses three lines: 6 > 3
    assert detour(a, b, others, ink, True, Effort()) is None
    offers: list = []
    assert route_free(a, b, others, ink, True, Effort(), offers) == straight(a, b)
    assert len(offers) == 1 and offers[0][0] == straight(a, b) and not path_hits(offers[0][1], others, 0.0)
    ink = Ink()
    _fence(ink, above=True, below=False)     # under c, the way round crosses nothing: 0 < 3
    path = detour(a, b, others, ink, True, Effort())
    assert path is not None and not path_hits(path, others, 0.0) and ink_crossings(path, ink) == 0


def test_a_line_through_a_box_weighs_as_much_as_twenty_crossings():
    """At the layout score's weight 3, going round a box that three lines fence on both
    sides is no gain and the line stays through it; a line through a box reads as joining
    it, so the drawing weighs it THROUGH_BOX and goes round."""
    assert THROUGH_BOX == 40
    a, b, others = _row()
    ink = Ink()
    _fence(ink, above=True, below=True)
    path = detour(a, b, others, ink, True, Effort())
    assert path is not None and not path_hits(path, others, 0.0) and ink_crossings(path, ink) == 3


def test_once_every_line_is_drawn_a_way_round_that_others_cross_gives_way_to_the_line(monkeypatch):
    monkeypatch.setattr(free, "THROUGH_BOX", 3)  # the rule at the layout score's own weight
    a, b, others = _row()
    line = straight(a, b)
    way = detour(a, b, others, Ink(), True, Effort())
    assert way is not None
    paths = {"ab": way}
    for k, x in enumerate((125.0, 135.0, 145.0)):   # drawn after it, across the way round only
        paths[k] = [(x, -400.0), (x, -5.0)] if way[1][1] < 0 else [(x, 41.0), (x, 400.0)]
    kept = dict(paths)
    reconsider(kept, {"ab": (line, way)})
    assert kept["ab"] is line
    paths = {"ab": line, 0: [(160.0, -400.0), (160.0, 400.0)]}   # crosses both alike: 2 < 3 + 2
    reconsider(paths, {"ab": (line, way)})
    assert paths["ab"] is way


def test_the_allowance_shrinks_with_the_connectors_to_route():
    assert Effort.to_route(FEW).left == EXTRA_POPS
    assert Effort.to_route(2 * FEW).left == EXTRA_POPS // 4
    assert Effort.to_route(10 * FEW, False).left == BLIND_POPS


def test_once_weighing_searches_have_given_up_a_drawing_takes_the_quick_one():
    # a drawing where GIVE_UPS weighing searches ran out of steps is too crowded for
    # them: a line through a box then goes round by the quick search reading no ink,
    # out of an allowance of its own, when that costs less than the line
    a, b, others = _row()
    effort = Effort(0)
    effort.gave_up = GIVE_UPS
    path = detour(a, b, others, Ink(), True, effort)
    assert path is not None and not path_hits(path, others, 0.0)
    assert effort.left == 0 and 0 < BLIND_POPS - effort.blind.left < MAX_POPS
