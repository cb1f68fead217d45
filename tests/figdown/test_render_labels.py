"""Label placement costs (``scene/labels.py``): the bounded count.

A candidate is taken only when it costs less than the best so far, so ``Board.cost``
may stop counting once its sum reaches that bound (``above``).  Below the bound it
must give the whole cost; at or over it, a value no smaller than the bound, so the
choice between candidates is the one the whole costs make.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from markmcp.figdown.render.scene.labels import Board

_coord = st.floats(-200.0, 400.0, allow_nan=False, allow_infinity=False)


@st.composite
def _rect(draw):
    x, y = draw(_coord), draw(_coord)
    return (x, y, x + draw(st.floats(0.0, 120.0)), y + draw(st.floats(0.0, 60.0)))


_path = st.lists(st.tuples(_coord, _coord), min_size=2, max_size=5)


@settings(max_examples=300, deadline=None)
@given(boxes=st.lists(_rect(), max_size=6), soft=st.lists(_rect(), max_size=3),
       paths=st.lists(_path, max_size=4), taken=st.lists(_rect(), max_size=3),
       r=_rect(), own=st.integers(-1, 4), anchor=st.tuples(_coord, _coord),
       above=st.one_of(st.floats(0.0, 4000.0), st.just(math.inf)), graze=st.booleans())
def test_bounded_cost_is_whole_below_the_bound_and_not_below_it_otherwise(
        boxes, soft, paths, taken, r, own, anchor, above, graze):
    board = Board(boxes, dict(enumerate(paths)), soft)
    for label in taken:
        board.take(label)
    mine = own if own >= 0 else None
    whole = board.cost(r, mine, anchor, graze=graze)
    bounded = board.cost(r, mine, anchor, above, graze=graze)
    if whole < above:
        assert bounded == whole
    else:
        assert bounded >= above


def test_a_label_on_a_box_costs_the_box_and_stops_at_a_lower_bound():
    board = Board([(0.0, 0.0, 100.0, 40.0)], {})
    r = (10.0, 10.0, 50.0, 30.0)
    assert board.cost(r, None, (30.0, 20.0)) == 1000.0
    assert board.cost(r, None, (30.0, 20.0), above=2.0) >= 2.0
    assert board.cost((200.0, 10.0, 240.0, 30.0), None, (220.0, 20.0), above=2.0) == 0.0


def test_the_finer_look_of_crowded_labels_is_bounded_per_figure(monkeypatch) -> None:
    """Crowded labels look again at finer places, within one allowance per figure: a fuzzed
    figure with a hundred and fifty labelled transitions between two pinned states spent
    seconds looking (each look reads the ink near it) before the allowance."""
    from markmcp.figdown.render import build
    from markmcp.figdown.render.scene import labels

    looked: list[int] = []
    beside = labels._beside

    def counted(pts, w, h, extras, ts):
        found = beside(pts, w, h, extras, ts)
        if extras is labels.FINE_EXTRAS:
            looked.append(len(found))
        return found

    monkeypatch.setattr(labels, "_beside", counted)
    source = ("figdown 0.2 statechart\nstate down \"DOWN\"\nstate init \"INIT\"\n"
              + "transition down -[rx Down]-> init\n" * 150
              + "layout\npin down at=(220,40) width=110 height=56\npin init at=(60,200) width=110 height=56\n")
    assert build(source).svg is not None
    assert len(looked) >= 2                                  # crowded labels did look again
    assert sum(looked[:-1]) < labels.FINE_ALLOWANCE          # until the allowance ran out
    assert sum(looked) < labels.FINE_ALLOWANCE + max(looked)


def test_a_label_with_room_beside_its_line_does_not_stand_far_off_it() -> None:
    # a place 26 px out in the open cost less than one beside the line with another line
    # 20-odd px beyond it, so "picked and boxed" stood 30 px under its line, no line's
    import markmcp.figdown.render.scene as scene_mod
    from markmcp.figdown.render import build
    from markmcp.figdown.render.scene.labels import poly_dist
    src = ("figdown 0.2 statechart\ntitle \"Orders\"\nstate new \"Created\"\nstate paid \"Paid\"\n"
           "state packed \"Packed\"\nstate shipped \"Shipped\"\nstate delivered \"Delivered\"\n"
           "state cancelled \"Cancelled\"\nstate returned \"Return requested\"\nstate refunded \"Refunded\"\n"
           "transition new -[payment captured]-> paid\ntransition new -[cancel or timeout]-> cancelled\n"
           "transition paid -[picked and boxed]-> packed\ntransition paid -[customer cancels]-> refunded\n"
           "transition packed -[carrier scan]-> shipped\ntransition shipped -[delivery confirmed]-> delivered\n"
           "transition shipped -[lost in transit]-> refunded\n"
           "transition delivered -[return within 14 days]-> returned\n"
           "transition returned -[item received]-> refunded\ntransition paid -[payment retry]-> paid\n")
    gaps = {}
    real = scene_mod.marks.tones

    def spy(scene) -> None:
        for lk in scene.links:
            lab = getattr(lk, "mid_label", None)
            if lab is not None:
                x0, y0, x1, y1 = lab.rect
                gaps[lab.text] = min(poly_dist(x0 + (x1 - x0) * k / 20, y, lk.points)
                                     for k in range(21) for y in (y0, y1))
        real(scene)
    scene_mod.marks.tones = spy
    try:
        assert build(src).svg is not None
    finally:
        scene_mod.marks.tones = real
    assert len(gaps) == 10
    assert max(gaps.values()) <= 12, gaps
    assert not any(math.isinf(g) for g in gaps.values())


def _fresh(boxes, paths, taken) -> Board:
    board = Board(boxes, dict(enumerate(paths)))
    for r in taken:
        board.take(r)
    return board


@settings(max_examples=150, deadline=None)
@given(boxes=st.lists(_rect(), max_size=5), paths=st.lists(_path, min_size=1, max_size=4),
       taken=st.lists(_rect(), max_size=3), bound=st.floats(0.0, 1200.0),
       text=st.sampled_from(["ok", "retry later", "user frees robot + CLEAN"]))
def test_a_bounded_label_takes_only_a_place_under_its_bound(boxes, paths, taken, bound, text):
    """A label placed again (``scene._labels``) looks only for a place costing less than
    its bound: where the plain search finds one that cheap, the bounded one finds the
    same; otherwise it finds a cheaper one or takes none, leaving the board as it was."""
    from markmcp.figdown.render.scene.labels import Label, measure, place_mid

    def label():
        lab = Label(text, 13.0)
        lab.w, lab.h = measure(text, 13.0)
        return lab

    plain_board, plain = _fresh(boxes, paths, taken), label()
    cost = place_mid(plain_board, plain, paths[0], 0)
    board, bounded = _fresh(boxes, paths, taken), label()
    got = place_mid(board, bounded, paths[0], 0, bound=bound)
    if cost < bound:
        assert (got, bounded.cx, bounded.cy, bounded.text) == (cost, plain.cx, plain.cy, plain.text)
    elif got == math.inf:
        assert board.labels == taken
    else:
        assert got < bound and board.labels == taken + [bounded.rect]


@settings(max_examples=150, deadline=None)
@given(boxes=st.lists(_rect(), max_size=5), paths=st.lists(_path, min_size=1, max_size=4),
       freed=st.lists(_rect(), max_size=2))
def test_a_board_told_where_to_look_places_a_label_only_there(boxes, paths, freed):
    """``only_where`` limits the places looked at to those meeting the freed rectangles
    (grown by the gaps a label keeps): a label placed there meets one, and with none
    to meet it is not placed at all."""
    from markmcp.figdown.render.scene.labels import LINE_GAP, WORD_GAP, Label, measure, place_mid

    board = _fresh(boxes, paths, [])
    board.only_where(freed)
    lab = Label("retry later", 13.0)
    lab.w, lab.h = measure(lab.text, 13.0)
    got = place_mid(board, lab, paths[0], 0, bound=5000.0)
    g = max(WORD_GAP, LINE_GAP) + 1.0
    if got == math.inf:
        assert board.labels == []
    else:
        r = lab.rect
        assert any(r[0] < f[2] + g and f[0] - g < r[2] and r[1] < f[3] + g and f[1] - g < r[3] for f in freed)
    board.only_where(None)
    assert board.looks_at((1e6, 1e6, 1e6 + 1, 1e6 + 1))


PAIR = ("figdown 0.1 topology\nflow down\nnode sw1 \"Core-1\"\nnode sw2 \"Core-2\"\nnode h1 \"web-01\"\n"
        "node h2 \"web-02\"\nnode h3 \"cache-01\"\nedge sw1 -[ISL 4×25G]- sw2\nedge h1 -- sw1\nedge h1 -- sw2\n"
        "edge h2 -- sw1\nedge h2 -- sw2\nedge h3 -- sw1\nrank sw1,sw2\nrank h1,h2,h3\n"
        "bundle b1 \"bond0 (802.3ad)\" h1--sw1,h1--sw2\nbundle b2 \"bond1 (802.3ad)\" h2--sw1,h2--sw2\n")


def test_boxes_side_by_side_leave_room_for_the_label_on_the_level_line_between() -> None:
    """Two switches side by side in a rank stood the usual gap apart, shorter than the
    label on the line between them, and "ISL 4×25G" was set 30 px below its line, under
    the boxes.  Their gap takes the label's width and room round it, and the label
    stands by its line, between them."""
    import re
    import xml.etree.ElementTree as ET

    from markmcp.figdown.render import build
    from markmcp.figdown.render.text import label_px

    svg = build(PAIR).svg
    root = ET.fromstring(svg)
    (line,) = [el for el in root.iter() if el.get("data-edge") == "8"]
    x1, y1, x2, y2 = (float(line.get(k)) for k in ("x1", "y1", "x2", "y2"))
    assert abs(y1 - y2) < 0.01   # level, straight across
    (at,) = re.findall(r'<text x="([-\d.]+)" y="([-\d.]+)"[^>]*fill="#555">ISL 4×25G</text>', svg)
    cx, base = float(at[0]), float(at[1])
    half = label_px("ISL 4×25G") / 2
    assert min(x1, x2) <= cx - half and cx + half <= max(x1, x2)   # between the boxes
    top, bottom = base - 11.0, base + 3.0   # the text's reach round its baseline
    assert max(0.0, top - y1, y1 - bottom) < 10.0                   # by its line
