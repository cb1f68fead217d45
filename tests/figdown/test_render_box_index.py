"""The indexes that keep a big figure's work near-linear must answer exactly what the
plain scans answered.

``Boxes.hits`` stands for ``path_hits`` over every box but a link's two ends,
``complete_covers`` reads only the boxes that hold a box's top-left corner, and a
channel's ``_Tracks`` passes over the tracks a run cannot fit on: each was a scan of
every box (or track) for every link, box (or run), time growing with the square of a
big figure.  The answers, and so the drawing's bytes, must not change: checked here on
random boxes, paths and runs, with coordinates on square borders, near them, anywhere,
and far beyond any drawing (a box pinned billions of pixels wide is legal).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from markmcp.figdown.render.scene import checks, marks
from markmcp.figdown.render.scene.free import BOX_CELL, Boxes, path_hits
from markmcp.figdown.render.scene.graph import Box
from markmcp.figdown.render.scene.route import _Track, _Tracks

_edges = st.integers(-3, 6).map(lambda k: k * BOX_CELL)
_near = st.tuples(st.integers(-3, 6), st.sampled_from((-2.0, -0.01, 0.005, 2.0, 40.0))).map(
    lambda t: t[0] * BOX_CELL + t[1])
_any = st.floats(-400.0, 700.0, allow_nan=False, allow_infinity=False)
_huge = st.one_of(st.sampled_from((-2.1e12, 4.0e5, 2147483648110.0)), st.floats(-3e12, 3e12, allow_nan=False))
coordinate = st.one_of(_edges, _near, _any, _huge)
point = st.tuples(coordinate, coordinate)
extent = st.one_of(st.sampled_from((0.0, 12.0, 36.0, 80.0, BOX_CELL, 2 * BOX_CELL)),
                   st.floats(0.0, 500.0), st.sampled_from((2147483648110.0, 5.0e6)))


@st.composite
def rects(draw):
    x, y = draw(point)
    w, h = draw(extent), draw(extent)
    return (x, y, x + w, y + h)


@settings(max_examples=300, deadline=None)
@given(rs=st.lists(rects(), min_size=0, max_size=12),
       paths=st.lists(st.lists(point, min_size=2, max_size=5), min_size=1, max_size=6),
       skip=st.sets(st.integers(0, 11), max_size=3),
       shrink=st.sampled_from((2.0, 0.0, -1.0, -6.0)))
def test_indexed_box_hits_equal_the_plain_scan(rs, paths, skip, shrink):
    # a negative shrink (room asked round each box) is read from the squares round it
    boxes = Boxes(list(enumerate(rs)))
    others = [r for k, r in enumerate(rs) if k not in skip]
    for points in paths:
        assert boxes.hits(points, tuple(skip), shrink) == path_hits(points, others, shrink)
        assert boxes.hits(points[::-1], tuple(skip), shrink) == path_hits(points[::-1], others, shrink)


def test_room_asked_round_a_box_reaches_across_a_square_edge() -> None:
    # the box ends 2 px before a square's edge, the line runs 2 px after it: 4 px off
    box = (BOX_CELL - 50.0, 0.0, BOX_CELL - 2.0, 40.0)
    line = [(BOX_CELL + 2.0, -20.0), (BOX_CELL + 2.0, 60.0)]
    boxes = Boxes([("b", box)])
    assert boxes.hits(line, (), -6.0) and path_hits(line, [box], -6.0)
    assert not boxes.hits(line, (), -3.0)


class _Scene:
    def __init__(self, nodes):
        self.nodes = {n.id: n for n in nodes}
        self.pins = {}


def _plain_covers(real):
    return [(a.id, b.id) for a in real for b in real if a is not b
            and a.x >= b.x - 0.01 and a.y >= b.y - 0.01 and a.x + a.w <= b.x + b.w + 0.01
            and a.y + a.h <= b.y + b.h + 0.01]


@settings(max_examples=300, deadline=None)
@given(rs=st.lists(rects(), min_size=0, max_size=14))
def test_indexed_complete_covers_equal_the_plain_scan(rs):
    nodes = [Box(f"n{k}", "", x=r[0], y=r[1], w=r[2] - r[0], h=r[3] - r[1], line=k + 1)
             for k, r in enumerate(rs)]
    scene = _Scene(nodes)
    found = checks.complete_covers(scene)
    plain = _plain_covers(checks.real_boxes(scene))
    assert len(found) == len(plain)
    for (line, message), (a, b) in zip(found, plain):
        assert f'"{b}" completely over "{a}"' in message


def test_boxes_nested_and_stacked_are_all_found():
    outer = Box("outer", "", x=0.0, y=0.0, w=400.0, h=300.0, line=1)
    inner = [Box(f"i{k}", "", x=10.0 + 90 * k, y=20.0, w=80.0, h=36.0, line=k + 2) for k in range(4)]
    twin = Box("twin", "", x=10.0, y=20.0, w=80.0, h=36.0, line=9)
    scene = _Scene([outer, *inner, twin])
    pairs = [m.split('"')[1::2] for _, m in checks.complete_covers(scene)]
    assert [p[:2] for p in pairs] == [["outer", "i0"], ["twin", "i0"], ["outer", "i1"], ["outer", "i2"],
                                      ["outer", "i3"], ["outer", "twin"], ["i0", "twin"]]


# --- a channel's tracks -------------------------------------------------------------------

def _first_fit_plainly(runs, after=None):
    tracks, chosen = [], []
    for k, (lo, hi) in enumerate(runs):
        for t, track in enumerate(tracks):
            if t > (-1 if after is None else after[k]) and track.fits(lo, hi):
                track.add(lo, hi)
                chosen.append(t)
                break
        else:
            tracks.append(_Track())
            tracks[-1].add(lo, hi)
            chosen.append(len(tracks) - 1)
    return chosen


_where = st.one_of(st.floats(-500.0, 3000.0), st.integers(-50, 300).map(lambda k: k * 6.0),
                   st.sampled_from((1e16, -1e16, 3e15, 1e300, 0.0)))
_length = st.one_of(st.sampled_from((0.0, 5.0, 6.0, 12.0, 1e16)), st.floats(0.0, 3000.0))


_run = st.tuples(_where, _length).map(lambda t: (t[0], t[0] + t[1]))
_touching = st.tuples(st.integers(-20, 60), st.integers(0, 12)).map(   # ends 6 px apart and less
    lambda t: (t[0] * 3.0, t[0] * 3.0 + t[1] * 3.0))


@settings(max_examples=400, deadline=None)
@given(runs=st.lists(st.tuples(_run, st.booleans()), max_size=60))
def test_tracks_take_the_first_track_a_run_fits_on(runs):
    # in any order, each run claiming either sweep (most against it)
    tracks = _Tracks()
    assert ([tracks.place(lo, hi, down) for (lo, hi), down in runs]
            == _first_fit_plainly([run for run, _ in runs]))


@settings(max_examples=300, deadline=None)
@given(down=st.lists(st.one_of(_run, _touching), max_size=60),
       up=st.lists(st.one_of(_run, _touching), max_size=60),
       stray=st.lists(st.tuples(_run, st.integers(0, 120), st.booleans()), max_size=4))
def test_runs_in_sweep_order_take_the_first_track_they_fit_on(down, up, stray):
    # as plan_jogs hands them over: going down by falling start, then going up by rising
    # end, with a few runs out of order (a merge bus's union)
    runs = [(r, True) for r in sorted(down, key=lambda r: -r[0])]
    runs += [(r, False) for r in sorted(up, key=lambda r: r[1])]
    for run, at, sweep in stray:
        runs.insert(min(at, len(runs)), (run, sweep))
    tracks = _Tracks()
    assert ([tracks.place(lo, hi, d) for (lo, hi), d in runs]
            == _first_fit_plainly([run for run, _ in runs]))


@settings(max_examples=300, deadline=None)
@given(down=st.lists(st.tuples(st.one_of(_run, _touching), st.integers(-1, 8)), max_size=40),
       up=st.lists(st.tuples(st.one_of(_run, _touching), st.integers(-1, 8)), max_size=40))
def test_a_run_told_to_go_beyond_a_track_takes_the_first_beyond_it_it_fits_on(down, up):
    # (plan_jogs keeps a line jogging from above another's start to above its end beyond
    # the other's track); the sweep goes on right for the runs after it
    runs = [(r, True, a) for r, a in sorted(down, key=lambda t: -t[0][0])]
    runs += [(r, False, a) for r, a in sorted(up, key=lambda t: t[0][1])]
    tracks = _Tracks()
    assert ([tracks.place(lo, hi, d, a) for (lo, hi), d, a in runs]
            == _first_fit_plainly([run for run, _d, _a in runs], [a for _r, _d, a in runs]))


def test_a_fan_of_overlapping_runs_takes_a_track_each_and_then_reuses_them():
    down = [(100.0 + k * 0.1, 200.0 + 80 * k) for k in range(300)]
    up = [(100.0 - 80 * k, 99.0 - k * 0.1) for k in range(300)]
    runs = sorted(down, key=lambda r: -r[0]) + sorted(up, key=lambda r: r[1])
    tracks = _Tracks()
    assert ([tracks.place(lo, hi, k < 300) for k, (lo, hi) in enumerate(runs)]
            == _first_fit_plainly(runs))


# --- the connectors near a label (tones) -----------------------------------------------------

class _Link:
    def __init__(self, index, points):
        self.index, self.points = index, points


@settings(max_examples=300, deadline=None)
@given(paths=st.lists(st.lists(point, min_size=0, max_size=4), min_size=1, max_size=8),
       labels=st.lists(rects(), min_size=1, max_size=8))
def test_the_connectors_read_near_a_label_hold_every_one_tones_would_count(paths, labels):
    links = [_Link(k, pts) for k, pts in enumerate(paths)]
    boxes = {k: labels[k] for k in range(min(len(links), len(labels)))}
    nearby = marks._Nearby(links, boxes)
    for box in labels:
        read = nearby.around(box)
        assert [lk.index for lk in read] == sorted(lk.index for lk in read)
        for lk in links:
            counted = any(marks._seg_box_gap(p, q, box) < marks.TONE_PROX
                          for p, q in zip(lk.points, lk.points[1:]))
            if lk.index in boxes:
                counted = counted or marks._box_gap(box, boxes[lk.index]) < marks.TONE_PROX
            if counted:
                assert lk in read


def test_a_connector_near_a_label_across_a_square_border_is_read():
    box = (100.0, 100.0, 180.0, 120.0)                   # square column 1 (96..192)
    near = _Link(0, [(205.0, 90.0), (205.0, 130.0)])     # 25 px away, in column 2
    far = _Link(1, [(400.0, 90.0), (400.0, 130.0)])
    assert marks._seg_box_gap(*near.points, box) < marks.TONE_PROX
    assert marks._Nearby([near, far], {}).around(box) == [near]


# --- the label board ------------------------------------------------------------------


def _plain_cost(board, r, own, anchor, graze=False) -> float:
    """``Board.cost`` as the plain scan of every box, label, soft box and connector
    it was (no early exit: the full sum, which the board must equal when nothing cuts
    it short)."""
    import math

    from markmcp.figdown.render.scene.free import seg_hits_rect
    from markmcp.figdown.render.scene.labels import (CROWDED, GOOD, GRAZED, GRAZED_FREE, GRAZED_PX, LINE_GAP, OWN_FIRST,
                                                     OWN_HALO, ROOMY,
                                                     STACK_SHARE, STACKED, WORD_GAP, _inside, _near, _rect_seg, _within,
                                                     overlap)

    c = 1000 * sum(overlap(r, b) for b in board.boxes)
    c += 800 * sum(overlap(r, (b[0] - WORD_GAP, b[1], b[2] + WORD_GAP, b[3])) for b in board.labels)
    c += STACKED * sum(overlap(r, (b[0], b[1] - LINE_GAP, b[2], b[3] + LINE_GAP))
                       and min(r[2], b[2]) - max(r[0], b[0]) - 1 >= STACK_SHARE * (min(r[2] - r[0], b[2] - b[0]) - 1)
                       for b in board.labels)
    c += 300 * sum(overlap(r, b) for b in board.soft)
    band = (r[0] + 2, r[1] + (r[3] - r[1]) * 0.3, r[2] - 2, r[1] + (r[3] - r[1]) * 0.7)
    struck = {key for key, segs in board.segs.items() if any(seg_hits_rect(p, q, band, 0.0) for p, q, _ in segs)}
    c += 500 * len(struck)
    if graze:
        inner = (r[0] + 1, r[1] + 1, r[2] - 1, r[3] - 1)
        for key, segs in board.segs.items():
            if key in struck:
                continue
            halo = (r[0] - OWN_HALO, r[1] - OWN_HALO, r[2] + OWN_HALO, r[3] + OWN_HALO)
            run = sum(_inside(p, q, halo if key == own else inner) for p, q, _ in segs
                      if abs(q[1] - p[1]) <= 0.25 * abs(q[0] - p[0]) or abs(q[0] - p[0]) <= 0.25 * abs(q[1] - p[1]))
            if run > 0.0:
                c += min(GRAZED, GRAZED_PX * max(0.0, run - GRAZED_FREE))
    c = float(c)
    cx, cy = (r[0] + r[2]) / 2, (r[1] + r[3]) / 2
    if own is not None and own in board.segs and not graze:
        own_d = _near(cx, cy, board.segs[own])
        if any(_within(cx, cy, segs, own_d + 6) for key, segs in board.segs.items() if key != own):
            c += 150
    elif own is not None and own in board.segs:
        # a connector's text: distances from the label's rectangle (its nearest ink)
        own_d = min(_rect_seg(r, p, q) for p, q, _ in board.segs[own])
        near = min((_rect_seg(r, p, q) for key, segs in board.segs.items() if key != own
                    for p, q, _ in segs), default=math.inf)
        if near < own_d + OWN_FIRST:       # another as near as its own
            c += 150
        elif near < own_d + 6:             # crowded, its own the nearest
            c += CROWDED
        elif near < own_d + ROOMY:
            c += GOOD + 1.0
    return c + 0.02 * math.sqrt((cx - anchor[0]) ** 2 + (cy - anchor[1]) ** 2)


_paths = st.lists(st.lists(point, min_size=2, max_size=5), max_size=8)


@settings(max_examples=200, deadline=None)
@given(boxes=st.lists(rects(), max_size=10), soft=st.lists(rects(), max_size=3), paths=_paths,
       taken=st.lists(rects(), max_size=6), queries=st.lists(rects(), min_size=1, max_size=6),
       graze=st.booleans())
def test_the_label_board_indexes_count_what_the_plain_scans_counted(boxes, soft, paths, taken, queries, graze):
    """The board reads only the boxes, labels and connector segments whose squares a
    candidate label's squares meet: every cost must be the sum the plain scans gave."""
    from markmcp.figdown.render.scene.labels import Board

    board = Board(boxes, dict(enumerate(paths)), soft)
    for r in taken:
        board.take(r)
    for k, r in enumerate(queries):
        own = k % (len(paths) + 1) if paths else None
        anchor = ((r[0] + r[2]) / 2 + 3.0, r[1])
        assert board.cost(r, own, anchor, graze=graze) == _plain_cost(board, r, own, anchor, graze)
