"""Crowded labelled connectors take muted tones so a reader can tell which line a label
names; a tone must never pass for a colour the author gave a line, above all a legend's
class colour (a reviewer read a toned "WAL stream" as the legend's blue "read path")."""

from __future__ import annotations

import itertools

from markmcp.figdown.render import build
from markmcp.figdown.render.scene.marks import TONES, _hue, _near_colour, _rgb

from figdown.test_render_straight import SPINE

# five labelled lines out of A: crowded even where one leaves by A's top, round the rest
CROWDED = """figdown 0.1 block
flow right
{cls}
node a "A"
node b "B"
node c "C"
node d "D"
edge a -[first label]-> b
edge a -[second label]-> c
edge b -[third label]-> d
edge c -[fourth label]-> d
edge a -[fifth label]-> d {use}
edge a -[sixth label]-> d
"""


def tones_in(svg: str) -> list[str]:
    return [t for t in TONES if f'stroke="{t}"' in svg]


def test_crowded_labels_take_tones_without_a_legend() -> None:
    assert len(tones_in(build(CROWDED.format(cls="", use="")).svg)) >= 2


def test_no_tone_near_a_class_colour_of_the_legend() -> None:
    plain = tones_in(build(CROWDED.format(cls="", use="")).svg)
    assert "#3f5b8c" in plain  # the blue tone, which a legend's blue must rule out
    svg = build(CROWDED.format(cls='class read "Read path" stroke=#0369a1', use="class=read")).svg
    used = tones_in(svg)
    assert used and "#3f5b8c" not in used
    assert not any(_near_colour(_rgb(t), _rgb("#0369a1")) for t in used)


def test_a_class_colour_given_by_name_leaves_no_tone() -> None:
    svg = build(CROWDED.format(cls='class read "Read path" stroke=teal', use="class=read")).svg
    assert tones_in(svg) == []


def test_the_tones_stay_apart_from_each_other() -> None:
    for i, a in enumerate(TONES):
        assert _rgb(a) is not None
        assert not any(_near_colour(_rgb(a), _rgb(b)) for b in TONES[i + 1:])
    assert _rgb("#abc") == (0xAA, 0xBB, 0xCC) and _rgb("teal") is None and _rgb("#12345") is None
    assert _hue((255, 0, 0)) == 0.0 and _hue((0, 0, 255)) == 240.0 and _hue((0x55, 0x55, 0x55)) is None
    assert _near_colour((255, 0, 10), (255, 10, 0))  # either side of red's 0 degrees


def test_a_label_beside_its_own_line_takes_no_tone_for_a_line_farther_off() -> None:
    # the main path's "yes" stands a few px from its own line and about 27 px from the
    # "no" line leaving the same decision: nothing to tell apart, so both stay plain
    # (with one column for the main path they were toned blue and brown)
    svg = build(SPINE).svg
    assert tones_in(svg) == []
    assert 'fill="#555">yes<' in svg and 'fill="#555">no<' in svg


SIP = """figdown 0.2 statechart
flow down
state idle "Idle"
state calling "Calling"
state ringing "Ringing remote"
state incall "In call"
state hold "On hold"
state ending "Terminating"
transition idle -[dial / send INVITE]-> calling
transition calling -[180 Ringing]-> ringing
transition calling -[100 Trying]-> calling
transition ringing -[200 OK / send ACK]-> incall
transition calling -[4xx or 5xx final response]-> idle
transition ringing -[caller cancels / send CANCEL]-> idle
transition incall -[hold / re-INVITE sendonly]-> hold
transition hold -[resume / re-INVITE sendrecv]-> incall
transition incall -[hang up / send BYE]-> ending
transition hold -[hang up / send BYE]-> ending
transition incall -[BYE received]-> idle
transition ending -[200 OK to BYE]-> idle
transition incall -[DTMF digit sent]-> incall
transition incall -[session timer refresh]-> incall
"""


def test_lanes_into_one_box_keep_each_label_by_its_own_lane(monkeypatch) -> None:
    # three lanes come round the right into Idle: 12 px apart, the outer and the inner
    # took one tone with another between, and "caller cancels" by their ends read as
    # either's.  The next lane out now runs beyond a lane's label: each label stands
    # nearer its own lane than any other line, and lanes still side by side (within
    # 16 px) differ in tone
    from figdown.test_render_label_places import _letters_to, labelled_scenes
    (scene,) = labelled_scenes(monkeypatch, SIP)
    lanes = [lk for lk in scene.links if lk.b == "idle" and lk.a not in ("calling", "idle")]
    assert len(lanes) == 3
    for lk in lanes:
        own = _letters_to(lk.mid_label.rect, lk.points)
        assert all(_letters_to(lk.mid_label.rect, other.points) > own for other in scene.links if other is not lk), lk.mid

    def run_x(lk) -> float:   # the lane's longest run down the side
        p, q = max(zip(lk.points, lk.points[1:]), key=lambda s: abs(s[1][1] - s[0][1]))
        return p[0]

    for a, b in itertools.combinations(lanes, 2):
        if abs(run_x(a) - run_x(b)) < 16:
            assert a.stroke != b.stroke or a.mid_label.colour != b.mid_label.colour, (a.mid, b.mid)
