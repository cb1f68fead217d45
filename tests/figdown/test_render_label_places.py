"""Where connector labels land in whole figures (``scene/labels.py``), as a reader
checks them: an exit label beside its own decision, a label off every other line,
a label beside its own line and not past its boxes.  Each case is a figure a
reviewer read wrongly before the rule it names."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pytest

from conftest import shared_dir
from markmcp.figdown.render import build
from markmcp.figdown.render import scene as scene_mod


def labelled_scenes(monkeypatch, src: str) -> list:
    """Build a source and give back its scenes as labelled (boxes, routes, labels)."""
    seen = []
    real = scene_mod._labels

    def spy(scene, model):
        board = real(scene, model)
        seen.append(scene)
        return board

    monkeypatch.setattr(scene_mod, "_labels", spy)
    result = build(src)
    assert result.svg, result.error_lines()
    monkeypatch.setattr(scene_mod, "_labels", real)
    return seen


@pytest.fixture
def placed(monkeypatch):
    """:func:`labelled_scenes` for the test's monkeypatch."""
    def run(src: str):
        return labelled_scenes(monkeypatch, src)
    return run


def _inside(p, q, r) -> float:
    """The length of segment p-q inside rectangle r, by sampling every half pixel."""
    n = max(1, int(math.hypot(q[0] - p[0], q[1] - p[1]) * 2))
    inside = sum(1 for k in range(n) if r[0] <= p[0] + (q[0] - p[0]) * (k + 0.5) / n <= r[2]
                 and r[1] <= p[1] + (q[1] - p[1]) * (k + 0.5) / n <= r[3])
    return inside / n * math.hypot(q[0] - p[0], q[1] - p[1])


def _rect_point_gap(r, p) -> float:
    dx = max(r[0] - p[0], 0.0, p[0] - r[2])
    dy = max(r[1] - p[1], 0.0, p[1] - r[3])
    return math.hypot(dx, dy)


def _mid(scene, text):
    (link,) = [lk for lk in scene.links if lk.mid == text]
    return link, link.mid_label


RETRY = """figdown 0.2 flowchart
flow down
terminator go "Begin"
process fetch "Fetch the batch"
decision valid "Schema valid?"
process load "Load rows"
decision counted "Counts match?"
process publish "Publish"
terminator end "End"
flowline go -> fetch
flowline fetch -> valid
flowline valid -[yes]-> load
flowline valid -[no]-> end
flowline load -> counted
flowline counted -[yes]-> publish
flowline counted -[no]-> fetch
flowline publish -> end
"""


def test_an_exit_label_stands_where_its_line_leaves_its_decision(placed) -> None:
    """A "no" leaving the first decision was drawn beside the second one, 150 px on,
    where the second seemed to have two "no" exits."""
    (scene,) = placed(RETRY)
    for link in scene.links:
        if link.mid and scene.nodes[link.a].shape == "diamond":
            gap = _rect_point_gap(link.mid_label.rect, link.points[0])
            # (a "no" leaving by a side point with a short run stands past its turn,
            # out of the corner, where the line's halo no longer clips it: 24 px)
            assert gap <= 26.0, (link.a, link.mid, gap)


def _segment_rect_gap(p, q, r, steps: int = 200) -> float:
    """How near the segment p-q comes to the rectangle r (sampled finely)."""
    return min(_rect_point_gap(r, (p[0] + (q[0] - p[0]) * k / steps, p[1] + (q[1] - p[1]) * k / steps))
               for k in range(steps + 1))


def test_an_exit_label_keeps_its_letters_off_its_own_turn(placed) -> None:
    """Schema valid?'s "no" leaves by the left point, runs 30 px and turns down: the label
    stood in the corner, the turned line 1 px off its letters, so the line's halo
    clipped them; every exit label of the figure keeps 2 px off its own line."""
    (scene,) = placed(RETRY)
    for link in scene.links:
        if link.mid and scene.nodes[link.a].shape == "diamond":
            r = link.mid_label.rect
            gap = min(_segment_rect_gap(p, q, r) for p, q in zip(link.points, link.points[1:]))
            assert gap >= 2.0, (link.a, link.mid, gap)


def test_a_diamond_is_read_as_its_outline_not_its_box() -> None:
    """An exit label may stand in the empty corner of a decision's bounding box."""
    from markmcp.figdown.render.scene.labels import Board, outline_rects
    rect = (0.0, 0.0, 200.0, 100.0)
    board = Board([rect], {}, solid=outline_rects(rect, 1.0))
    assert board.cost((4.0, 80.0, 30.0, 96.0), None, (17.0, 88.0)) < 5.0   # lower-left corner
    assert board.cost((90.0, 40.0, 110.0, 60.0), None, (100.0, 50.0)) >= 1000.0
    assert outline_rects(rect, math.inf) == [rect]


def _strikes(scene, link) -> list[str]:
    """The other connectors with more than 6 px of stroke inside ``link``'s label box
    (1 px in): a slanted line may clip a corner, nothing may run through the text."""
    r = link.mid_label.rect
    inner = (r[0] + 1, r[1] + 1, r[2] - 1, r[3] - 1)
    return [o.mid or f"{o.a}->{o.b}" for o in scene.links
            if o is not link and sum(_inside(p, q, inner) for p, q in zip(o.points, o.points[1:])) > 6.0]


HANDSHAKE = """figdown 0.1 block
node c "Caller"
node s "Callee"
edge c -[1: INVITE]-> s
edge s -[2: 180 Ringing]-> c
edge c -[3: ACK]-> s
"""


def test_three_labelled_lines_between_two_boxes_leave_each_label_off_the_others(placed) -> None:
    """Three lines 10 px apart: the middle one's label stood on the third line."""
    (scene,) = placed(HANDSHAKE)
    for link in scene.links:
        assert _strikes(scene, link) == [], link.mid


def nearer_another_line(scene, margin: float) -> list[tuple[str, str]]:
    """(label, other line's label) for each mid label not nearer its own line than
    ``other`` by more than ``margin`` px."""
    from markmcp.figdown.render.scene.labels import poly_dist

    found = []
    for link in scene.links:
        if not link.mid:
            continue
        lab = link.mid_label
        own = poly_dist(lab.cx, lab.cy, link.points)
        found += [(link.mid, other.mid) for other in scene.links
                  if other is not link and poly_dist(lab.cx, lab.cy, other.points) <= own + margin]
    return found


def test_each_of_three_labels_between_two_boxes_is_nearest_its_own_line(placed) -> None:
    (scene,) = placed(HANDSHAKE)
    assert nearer_another_line(scene, 4) == []


def test_a_stroke_across_a_label_box_off_its_middle_costs() -> None:
    from markmcp.figdown.render.scene.labels import Board
    board = Board([], {1: [(0.0, 22.0), (100.0, 22.0)]})
    # line 1 runs 2 px inside the label's top edge, above the letters' middle band
    assert board.cost((30.0, 20.0, 70.0, 32.0), None, (50.0, 26.0), graze=True) >= 100.0
    assert board.cost((30.0, 24.0, 70.0, 36.0), None, (50.0, 30.0), graze=True) < 5.0
    # a note or a caption (not a connector's small text) is not held to it
    assert board.cost((30.0, 20.0, 70.0, 32.0), None, (50.0, 26.0)) < 5.0


def _past_its_boxes(scene, link) -> list[str]:
    """The boxes of ``link`` with the middle of its label level with or behind the side
    the line meets them by."""
    lab, out = link.mid_label, []
    for nid, (px, py) in ((link.a, link.points[0]), (link.b, link.points[-1])):
        n = scene.nodes[nid]
        u, v = (px - n.cx) / (n.w / 2), (py - n.cy) / (n.h / 2)
        nx, ny = ((1.0 if u >= 0 else -1.0), 0.0) if abs(u) >= abs(v) else (0.0, (1.0 if v >= 0 else -1.0))
        if (lab.cx - px) * nx + (lab.cy - py) * ny < 0:
            out.append(nid)
    return out


FAN_IN = """figdown 0.1 block
flow down
node web "Web"
node billing "Billing"
node stock "Stock"
node courier "Courier"
node crm "CRM"
node log "Audit stream" shape=cylinder
edge web -[session.opened]-> log
edge billing -[invoice.issued]-> log
edge stock -[level.dropped]-> log
edge courier -[parcel.handed]-> log
edge crm -[contact.merged]-> log
rank web,billing,stock,courier,crm
"""


def test_a_fan_in_label_stays_beside_its_line_not_over_its_source(placed) -> None:
    """Five labelled lines into one hub through one 44 px gap: two labels went above
    their sources, where they read as those boxes' captions."""
    (scene,) = placed(FAN_IN)
    for link in scene.links:
        assert _past_its_boxes(scene, link) == [], link.mid
        assert [s for s in _strikes(scene, link)] == [], link.mid


HUB = """figdown 0.2 statechart
flow down
state hub "READY"
state s1 "FILL"
state s2 "DRAIN"
state s3 "HOLD"
state s4 "PURGE"
transition hub -[go1]-> s1
transition hub -[go2]-> s2
transition hub -[go3]-> s3
transition hub -[go4]-> s4
transition s1 -[back]-> hub
transition s2 -[back]-> hub
transition s3 -[back]-> hub
transition s4 -[back]-> hub
"""


def test_hub_and_spokes_both_ways_give_each_label_its_own_place(placed) -> None:
    """Eight labelled transitions between a hub and four states in a 40 px gap: labels
    sat on the neighbouring transitions."""
    (scene,) = placed(HUB)
    boxes = [lk.mid_label.rect for lk in scene.links]
    for i, r in enumerate(boxes):
        for q in boxes[i + 1:]:
            assert not (r[0] < q[2] and q[0] < r[2] and r[1] < q[3] and q[1] < r[3])
    for link in scene.links:
        assert _past_its_boxes(scene, link) == [], link.mid


QUERY = """figdown 0.1 topology
class flood "Flooded to every station" stroke=#dc2626 style=dashed
class reply "Sent back to the asking station only" stroke=#16a34a
node a "Station P\\nasks for Q's address"
node b "Station Q\\nholds the address"
external rest "other stations\\n(R, S, ...)"
flow right
edge a -[1: where is Q?  (flooded)]-> b class=flood
edge a -[1: seen, dropped]-> rest class=flood
edge b -[2: Q is at 10.0.0.9:631  P notes it]-> a class=reply
"""


def test_a_reply_label_is_nearest_its_own_line_among_a_fan(placed) -> None:
    """A query fanned out from one box and the reply coming back: the reply's label
    stood under the asker, beside the flooded line (and later over the query's label)."""
    (scene,) = placed(QUERY)
    assert nearer_another_line(scene, 0) == []


def _note_rects(svg: str) -> list[tuple[float, float, float, float]]:
    """Each drawn note's rectangle, read off its outline (``M x y H .. L .. V y1 H x Z``)."""
    out = []
    for d in re.findall(r'<g class="fd-note"[^>]*><path d="([^"]+)"', svg):
        nums = [float(v) for v in re.findall(r"-?[\d.]+", d)]
        x, y, right, y1 = nums[0], nums[1], nums[3], nums[5]
        out.append((x, y, right, y1))
    return out


def test_notes_never_cover_one_another() -> None:
    """Every note of the conformance corpus (and of upstream's examples, when at hand)
    stands clear of every other: when the sixteen places next to a note's target are all
    crowded, it looks further (case 800 drew its edge's note over its group's)."""
    documents = [fd.read_bytes().decode("utf-8") for corpus in ("cases", "experimental")
                 for fd in sorted(shared_dir("figdown", "conformance", corpus).glob("*.fd"))]
    root = Path(os.environ.get("FIGDOWN_UPSTREAM") or "/nonexistent") / "examples"
    documents += [p.read_bytes().decode("utf-8") for p in sorted(root.rglob("*.fd"))]
    notes = 0
    covered = []
    for src in documents:
        svg = build(src).svg
        if svg is None:
            continue
        rects = _note_rects(svg)
        notes += len(rects)
        covered += [(a, b) for i, a in enumerate(rects) for b in rects[i + 1:]
                    if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]
    assert notes > 20
    assert covered == []


def test_a_note_does_not_hide_the_lines_at_its_node() -> None:
    """The order API's note sat above it, over the line from Web and the arrowhead into
    Stock: a note hides all the ink under it, so a place over a connector pays for it."""
    from .test_render_band_titles import crosses, segments
    source = ("figdown 0.3 block\nflow right\ngroup front \"Front end\"\nnode web \"Web\" in=front\n"
              "node app \"Mobile app\" in=front\ngroup back \"Back end\"\n"
              "node api \"Order API\" in=back note=\"up to 1000 per second\"\nnode stock \"Stock\" in=back\n"
              "node pay \"Payment\" in=back\nedge web -> api\nedge app -> api\nedge api -> stock\nedge api -> pay\n")
    svg = build(source).svg
    (note,) = _note_rects(svg)
    assert [key for key, p, q in segments(svg) if crosses(p, q, note)] == []


def test_end_labels_between_boxes_side_by_side_have_room() -> None:
    """Two switches side by side in a rank, two labelled links between them: the rank's
    56 px gap held four port names in two, written over each other; the gap now grows to
    hold both names of each link."""
    from markmcp.figdown.render.text import label_px
    svg = build("figdown 0.5 topology\nflow down\nnode c1 \"Core switch 1\"\nnode c2 \"Core switch 2\"\n"
                "edge c1 [te1/1] -- [te1/1] c2\nedge c1 [te1/2] -- [te1/2] c2\nrank c1,c2\n").svg
    labels = [(float(x), float(y), t) for x, y, t in re.findall(
        r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="10" text-anchor="middle" fill="#555"[^>]*>(te1/\d)<', svg)]
    assert len(labels) == 4
    rects = [(x - label_px(t, 10) / 2, y - 8, x + label_px(t, 10) / 2, y + 2) for x, y, t in labels]
    assert not any(a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
                   for i, a in enumerate(rects) for b in rects[i + 1:])


PORT_FAN = """figdown 0.1 topology
flow right
node r "Border router"
node s1 "Switch A"
node s2 "Switch B"
node fw "Firewall"
node mgmt "OOB management"
edge r [ge-1/0/0] -- [gi0/1] s1
edge r [ge-1/0/1] -- [gi0/1] s2
edge r [ge-1/0/3] -- [port 1] fw
edge r [fxp0] -- [port 48] mgmt
edge s1 [gi0/24] -- [gi0/24] s2
"""


def test_port_squares_at_one_box_keep_apart() -> None:
    """Four ports fanning from one router: two of their squares (7 px) stood 6.6 px
    apart, overlapping, read as one port."""
    from markmcp.figdown.render.scene.draw import PORT
    svg = build(PORT_FAN).svg
    squares = sorted({(float(x), float(y)) for x, y in re.findall(r'data-port-sq="([-\d.]+),([-\d.]+)"', svg)})
    assert len(squares) == 10
    close = [(p, q) for i, p in enumerate(squares) for q in squares[i + 1:] if math.dist(p, q) < PORT + 3]
    assert close == []


def test_each_port_name_is_nearer_its_own_line_than_any_other(placed) -> None:
    """The lines of a fan leave one side close together: "ge-1/0/1" stood between its
    line and the next, nearer the next, and Switch A's "gi0/1" under its line, nearer
    Switch B's."""
    from markmcp.figdown.render.scene.labels import poly_dist
    (scene,) = placed(PORT_FAN)
    ends = {id(lab): link for link in scene.links for lab in scene.labels
            if lab.text in (link.tail, link.head) and lab.port is not None
            and any(math.dist(tuple(map(float, lab.port.split(","))), end) < 0.01
                    for end in (link.points[0], link.points[-1]))}
    assert len(ends) == 10
    wrong = []
    for lab in scene.labels:
        own = ends[id(lab)]
        d = poly_dist(lab.cx, lab.cy, own.points)
        wrong += [(lab.text, other.tail) for other in scene.links
                  if other is not own and poly_dist(lab.cx, lab.cy, other.points) <= d]
    assert wrong == []


PENDING = """figdown 0.2 statechart
state pending "Payment pending"
state onhold "On hold (fraud review)"
state paid "Paid"
state cancelled "Cancelled"
transition pending -[payment authorised [amount ≤ limit]]-> paid
transition pending -[payment authorised [amount > limit]]-> onhold
transition onhold -[analyst approves]-> paid
transition onhold -[analyst rejects]-> cancelled
transition pending -[timeout 30 min]-> cancelled
transition pending -[card declined]-> pending
"""


def test_a_straight_lines_label_has_room_between_the_lines_jogging_past_it(placed) -> None:
    """Two transitions jogged out round a straight one at the middle of the gap; the
    straight one's label (as wide as the gap) had no room and stood over the jogging
    line's top run, 46 px from its own.  The jogs now go in the near part of the gap."""
    (scene,) = placed(PENDING)
    assert nearer_another_line(scene, 0) == []
    (straight,) = [lk for lk in scene.links if lk.mid == "payment authorised [amount > limit]"]
    assert len(straight.points) == 2


def test_three_port_names_at_one_end_each_stand_clear_of_the_other_lines() -> None:
    """Three links 10 px apart between two routers: the middle link's port names had no
    room beside it and were written on the outer links.  They now stand on their own
    line, on a white ground that hides it there."""
    from markmcp.figdown.render.text import label_px
    from .test_render_band_titles import crosses
    svg = build("figdown 0.1 topology\nflow right\nnode a \"Router A\"\nnode b \"Router B\"\n"
                "edge a [xe-0/0/0] -- [xe-0/0/0] b\nedge a [xe-0/0/1] -- [xe-0/0/1] b\n"
                "edge a [xe-0/0/2] -- [xe-0/0/2] b\n").svg
    lines = {key: ((float(x1), float(y1)), (float(x2), float(y2))) for key, x1, y1, x2, y2 in re.findall(
        r'<line data-edge="([^"]+)" x1="([-\d.]+)" y1="([-\d.]+)" x2="([-\d.]+)" y2="([-\d.]+)"', svg)}
    labels = re.findall(r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="10" text-anchor="middle" fill="#555" '
                        r'data-port-sq="([-\d.]+),([-\d.]+)">([^<]+)<', svg)
    assert len(lines) == 3 and len(labels) == 6
    for x, y, px, py, name in labels:
        (own,) = [k for k, (p, q) in lines.items() if (float(px), float(py)) in (p, q)]
        w = label_px(name, 10)
        middle = (float(x) - w / 2, float(y) - 6, float(x) + w / 2, float(y) - 2)   # the letters' middle
        assert [k for k, (p, q) in lines.items() if k != own and crosses(p, q, middle)] == [], name
    # the middle link's names hide their own line behind a white ground
    grounds = re.findall(r'<rect x="[-\d.]+" y="[-\d.]+" width="[-\d.]+" height="[-\d.]+" fill="#fff" '
                         r'stroke="none"/><text[^>]*>xe-0/0/1<', svg)
    assert len(grounds) == 2



ROLLOUT = """figdown 0.2 statechart
flow up
state pending "Pending"
state progressing "Progressing"
state paused "Paused"
state complete "Complete"
state degraded "Degraded"
state failed "Failed"
transition pending -[new ReplicaSet created]-> progressing
transition progressing -[all replicas ready]-> complete
transition progressing -[kubectl rollout pause]-> paused
transition paused -[kubectl rollout resume]-> progressing
transition progressing -[progressDeadlineSeconds exceeded]-> failed
transition complete -[pod crash loop]-> degraded
transition degraded -[pods recover]-> complete
transition failed -[rollback]-> progressing
transition degraded -[manual rollback]-> progressing
"""


def test_a_label_with_no_free_place_beside_its_line_is_set_on_it(placed) -> None:
    """"all replicas ready" stood 95 px from its own line, beside three others: every
    place beside its line was nearer another.  Such a label is set on its own line, over
    a white ground that hides no other line."""
    from markmcp.figdown.render.scene.labels import Board, poly_dist
    (scene,) = placed(ROLLOUT)
    (ready,) = [link for link in scene.links if link.mid == "all replicas ready"]
    assert ready.mid_label.backed
    assert poly_dist(ready.mid_label.cx, ready.mid_label.cy, ready.points) < 0.5
    board = Board([], {lk.index: lk.points for lk in scene.links})
    for link in scene.links:
        if link.mid_label.backed:
            r = link.mid_label.rect
            assert board.lines_under((r[0] - 1, r[1], r[2] + 1, r[3])) == 1, link.mid


def test_a_jog_far_from_a_straight_lines_label_stays_in_the_middle_of_its_gap() -> None:
    """"bypass" jogs above the straight "raw bytes" line, whose label has the free side
    below: moved to the near part of the gap for that label's sake, it left its box
    with a 6.6 px stub and bent at once.  Jogs move only when the label has no room on
    either side of its line."""
    from .test_render_band_titles import segments
    svg = build("figdown 0.1 block\nflow left\nnode a \"Ingest\"\nnode b \"Parse\"\nnode c \"Route\"\n"
                "edge a -[raw bytes]-> b\nedge b -[records]-> c\nedge a -[bypass]-> c\n").svg
    (first, *_rest) = [(p, q) for key, p, q in segments(svg) if key == "8"]
    assert abs(first[0][0] - first[1][0]) >= 20, first


def test_jogs_keep_out_of_a_label_run_only_where_no_port_names_stand(monkeypatch) -> None:
    """Where the jogs pass a straight line's label on both sides, they go in the gap's
    near part; not where port names stand at the gap's ends (upstream's
    srl-evpn-irb-auto: two jogs moved next to the boxes struck "e1/13.4" and "e1/2.3")."""
    rooms = []
    real = scene_mod.channel_need

    def spy(scene, frame, routing):
        need = real(scene, frame, routing)
        rooms.append(dict(routing.label_room))
        return need
    monkeypatch.setattr(scene_mod, "channel_need", spy)
    for tail, packed in (("", True), ("[p1] ", False)):
        rooms.clear()
        svg = build("figdown 0.1 block\nflow right\nnode p \"Payment pending\"\nnode h \"On hold (fraud review)\"\n"
                    "node d \"Paid\"\nnode c \"Cancelled\"\n"
                    f"edge p {tail}-[payment authorised above limit]-> h\n"
                    f"edge p {tail}-[payment authorised]-> d\nedge h -> d\nedge h -> c\n"
                    f"edge p {tail}-[timeout 30 min]-> c\n").svg
        assert svg is not None
        assert bool(rooms and rooms[0]) is packed, (tail, rooms)


ZONES = """figdown 0.3 block
flow down
group g1 "Availability zone eu-west-1a (primary writer)" gap=0
node w1 "Writer" in=g1
node c1 "Cache" in=g1
group g2 "Availability zone eu-west-1b (synchronous standby)" gap=0
node w2 "Standby" in=g2
node c2 "Cache" in=g2
group g3 "AZ c"
node w3 "Async replica" in=g3
node lb "Regional endpoint"
edge lb -> w1
edge lb -[reads]-> w2
edge lb -[reads]-> w3
edge w1 -> c1
edge w2 -> c2
"""

PAYMENT = """figdown 0.3 statechart
state idle "Idle"
state auth "Authorising" note="3-D Secure challenge may add 30 s"
state done "Authorised"
state fail "Declined"
transition idle -[card inserted]-> auth
transition idle -[phone wallet]-> auth
transition idle -[manual entry [MOTO enabled]]-> auth
transition auth -[timeout / reverse]-> idle
transition auth -[cancel pressed]-> idle
transition auth -[approved]-> done
transition auth -[declined]-> fail
transition fail -[retry [attempts < 3]]-> auth
transition done -[receipt printed]-> idle
transition fail -[give up]-> idle
"""


def test_a_white_ground_hides_no_other_line_nor_a_band_border(placed) -> None:
    """A label set on its line hid a band's top border under its ground ("reads"), and
    the lower half of a neighbour's stroke running along its edge ("cancel pressed" over
    "manual entry")."""
    from markmcp.figdown.render.scene.labels import Board
    for source in (ZONES, PAYMENT, ROLLOUT):
        (scene,) = placed(source)
        board = Board([], {lk.index: lk.points for lk in scene.links})
        bands = [g.title.drawn(g.box) if g.title is not None else g.box
                 for g in scene.groups.values() if g.box is not None]
        for lab in scene.labels:
            if getattr(lab, "backed", False):
                r = lab.rect
                ground = (r[0] - 2, r[1] - 1, r[2] + 2, r[3] + 1)   # with half a stroke round it
                assert board.lines_under(ground) == 1, lab.text
                across = [b for b in bands if ground[0] < b[2] and b[0] < ground[2] and ground[1] < b[3]
                          and b[1] < ground[3] and not (b[0] <= ground[0] and ground[2] <= b[2]
                                                         and b[1] <= ground[1] and ground[3] <= b[3])]
                assert across == [], lab.text


CACHE = """figdown 0.1 block
flow right
node app "Application"
node cache "Cache"
node db "Database" shape=cylinder
edge app -[get]-> cache
edge app -[set]-> cache
edge app -[delete]-> cache
edge cache -[miss → load]-> db
edge cache -[refresh ahead]-> cache
edge cache -[evict LRU]-> cache
edge db -[invalidate]-> cache
"""


def _letters_to(rect, pts) -> float:
    """How far a label's rectangle is from a connector (0 where they meet)."""
    from markmcp.figdown.render.scene.free import seg_hits_rect
    from markmcp.figdown.render.scene.labels import seg_dist
    best = math.inf
    for a, b in zip(pts, pts[1:]):
        if seg_hits_rect(a, b, rect, 0.0):
            return 0.0
        corners = [(x, y) for x in (rect[0], rect[2]) for y in (rect[1], rect[3])]
        best = min(best, _rect_point_gap(rect, a), _rect_point_gap(rect, b),
                   *(seg_dist(x, y, a, b) for x, y in corners))
    return best


def test_a_label_is_nearer_its_own_line_by_its_letters(placed) -> None:
    """A reader takes a label for the line nearest its letters: "refresh ahead" stood
    4 px from its own loop and as near the "delete" line, judged by its middle.  Every
    label here is nearer its own line than any other, measured from its rectangle."""
    (scene,) = placed(CACHE)
    for link in scene.links:
        own = _letters_to(link.mid_label.rect, link.points)
        others = {other.mid: _letters_to(link.mid_label.rect, other.points)
                  for other in scene.links if other is not link}
        assert all(d >= own for d in others.values()), (link.mid, own, others)


MANY_TO_ONE = """figdown 0.3 statechart
state idle "Idle"
state auth "Authorising" note="3-D Secure challenge may add 30 s"
state done "Authorised"
state fail "Declined"
transition idle -[card tapped]-> auth
transition idle -[card inserted]-> auth
transition idle -[phone wallet]-> auth
transition idle -[manual entry [MOTO enabled]]-> auth
transition auth -[timeout / reverse]-> idle
transition auth -[approved]-> done
transition auth -[declined]-> fail
transition fail -[retry [attempts < 3]]-> auth
transition fail -[give up]-> idle
"""


def test_two_labels_are_never_stacked_into_one(placed) -> None:
    """"timeout / reverse" stood right under "retry [attempts < 3]", no gap between them:
    a reader took the two for one label of two lines.  A label over or under another
    (sharing two fifths of the narrower one's width) keeps a gap between their letters;
    offset diagonally, they may touch."""
    (scene,) = placed(MANY_TO_ONE)
    assert len(scene.labels) == 9
    assert _stacked(scene) == []


def _stacked(scene) -> list[tuple[str, str]]:
    """The pairs of labels one over the other (sharing two fifths of the narrower one's
    width) with less than 2 px between their letters."""
    rects = [(lab.text, lab.rect) for lab in scene.labels]
    out = []
    for i, (ta, a) in enumerate(rects):
        for tb, b in rects[i + 1:]:
            shared = min(a[2], b[2]) - max(a[0], b[0])
            if shared >= 0.4 * min(a[2] - a[0], b[2] - b[0]) and max(b[1] - a[3], a[1] - b[3]) < 2.0:
                out.append((ta, tb))
    return out


def test_a_fan_of_labelled_lines_into_one_box_gets_a_row_more_for_its_labels(placed) -> None:
    """Five labelled lines into one hub: the gap was grown for two rows of labels, as many
    as their spans overlap half way, but the lines converge at the hub, and
    "invoice.issued" stood right under "session.opened" there.  A fan gets a row more."""
    (scene,) = placed(FAN_IN)
    assert len(scene.labels) == 5
    assert _stacked(scene) == []


LOG_FAN_IN = """figdown 0.1 block
flow down
node agg "Log aggregator"
node idx "Search index" shape=cylinder
node h1 "web-01"
node h2 "web-02"
node h3 "web-03"
node h4 "api-01"
node h5 "api-02"
node h6 "worker-01"
node h7 "worker-02"
node h8 "db-01"
node h9 "cache-01"
edge h2 -[syslog]-> agg
edge h3 -[syslog]-> agg
edge h4 -[json over TLS]-> agg
edge h5 -[json over TLS]-> agg
edge h7 -[journald]-> agg
edge h8 -[pg audit]-> agg
edge h9 -[stats]-> agg
"""


def test_a_straight_lines_label_is_not_level_with_its_box_at_any_distance(placed) -> None:
    """api-01's "json over TLS" stood level with the aggregator's top, 40 px left of it and
    past two other lines: beside a straight line, a place past its box costs the same at
    any distance, not only within 30 px."""
    (scene,) = placed(LOG_FAN_IN)
    straight = [link for link in scene.links if len(link.points) == 2 and getattr(link, "mid_label", None)]
    assert len(straight) == 7
    for link in straight:
        assert _past_its_boxes(scene, link) == [], link.mid_label.text


def test_a_lane_label_beside_its_short_leg_keeps_off_the_lanes_run(placed) -> None:
    """"d to m" stood beside its lane's 14 px leg down into M, its box 0.9 px over the lane's
    run: under the 1 px a box is read with, so nothing was counted, and the halo of its
    letters cut the run.  A label's own line counts from the box's edge."""
    (scene,) = placed("figdown 0.2 statechart\nflow right\nstate a \"A\"\nstate b \"B\"\nstate m \"M\"\n"
                      "state c \"C\"\nstate d \"D\"\ntransition a -[1]-> b\ntransition b -[2]-> m\n"
                      "transition m -[3]-> c\ntransition c -[4]-> d\ntransition d -[d to m]-> m\n"
                      "transition m -[m to a]-> a\ntransition d -[d to b]-> b\n")
    for link in scene.links:
        if link.mid_label is None:
            continue
        r = link.mid_label.rect
        level = [(p, q) for p, q in zip(link.points, link.points[1:]) if p[0] == q[0] or p[1] == q[1]]
        assert sum(_inside(p, q, r) for p, q in level) == 0.0, link.mid


def _head_box(tip, prev) -> tuple[float, float, float, float]:
    """The bounding box of an arrowhead (10.08 px long, 11.2 px across) at ``tip``."""
    dx, dy = tip[0] - prev[0], tip[1] - prev[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    bx, by = tip[0] - ux * 10.08, tip[1] - uy * 10.08
    xs, ys = (tip[0], bx - uy * 5.6, bx + uy * 5.6), (tip[1], by + ux * 5.6, by - ux * 5.6)
    return min(xs), min(ys), max(xs), max(ys)


@pytest.mark.parametrize("source", [
    # "y", beside the last 14 px of its lane into A, stood against its own arrowhead
    "figdown 0.2 statechart\nflow right\nstate a \"A\"\nstate b \"B\"\nstate c \"C\"\nstate d \"D\"\n"
    "transition a -> b\ntransition b -> c\ntransition c -> d\ntransition b -[x]-> a\n"
    "transition c -[y]-> a\ntransition d -[z]-> a\n",
    # "200 OK (cached copy)" ran under Client's arrowhead (upstream's block-c pattern)
    "figdown 0.1 block\nnode origin \"Origin server\"\nnode cache \"Edge cache\"\nnode client \"Client\"\n"
    "flow left\nedge origin -[200 OK]-> cache\nedge cache -[200 OK (cached copy)]-> client\n"
    "layout\npin cache at=(210,-16)\n",
])
def test_a_label_keeps_off_the_arrowheads(placed, source: str) -> None:
    (scene,) = placed(source)
    heads = [_head_box(lk.points[-1], lk.points[-2]) for lk in scene.links if lk.arrow_b and len(lk.points) >= 2]
    for lab in scene.labels:
        r = lab.rect
        touching = [h for h in heads if r[0] < h[2] + 1.0 and h[0] < r[2] + 1.0 and r[1] < h[3] + 1.0 and h[1] < r[3] + 1.0]
        assert touching == [], lab.text


def test_a_label_breaks_into_two_lines_after_a_slash_or_as_evenly_as_it_can() -> None:
    from markmcp.figdown.render.scene.labels import wrap_label
    from markmcp.figdown.render.text import LABEL_FS
    assert wrap_label("caller cancels / send CANCEL", LABEL_FS) == "caller cancels /\nsend CANCEL"
    assert wrap_label("empty, rinse cycles left", LABEL_FS) == "empty, rinse\ncycles left"
    assert wrap_label("download for offline viewing", LABEL_FS) == "download for\noffline viewing"
    assert wrap_label("timeout", LABEL_FS) is None             # one word
    assert wrap_label("a verylongword", LABEL_FS) is None      # not narrower than 4/5
    assert wrap_label("two\nlines already", LABEL_FS) is None  # the author's lines stay


WASHER = """figdown 0.2 statechart
title "Washing machine cycle"
flow down
state idle "Door unlocked, idle"
state locked "Door locked"
state fill "Filling"
state wash "Washing"
state drain "Draining"
state spin "Spinning"
state unbal "Unbalanced load"
transition idle -[start]-> locked
transition locked -[lock confirmed]-> fill
transition fill -[level reached]-> wash
transition wash -[pause pressed]-> wash
transition wash -[wash time elapsed]-> drain
transition drain -[empty, rinse cycles left]-> fill
transition drain -[empty, last rinse done]-> spin
transition spin -[pause pressed]-> spin
transition spin -[imbalance detected]-> unbal
transition unbal -[redistributed by tumbling]-> spin
transition unbal -[third imbalance]-> drain
transition spin -[spin finished]-> idle
"""


def test_a_label_with_no_free_place_on_one_line_takes_two_beside_its_own(placed) -> None:
    """"empty, rinse cycles left" names the lane from Draining back to Filling; on one
    line it fitted nowhere between that lane and the states, and stood beyond the next
    lane out, 44 px from its own and 2 px from the other, read as that one's.  On two
    lines it stood beside its own lane; the next lane out now runs beyond a lane's label, and the
    label stands beside it on one line or two."""
    (scene,) = placed(WASHER)
    link, lab = _mid(scene, "empty, rinse cycles left")
    assert lab.text.replace("\n", " ") == "empty, rinse cycles left"
    own = _letters_to(lab.rect, link.points)
    assert own <= 12.0
    for other in scene.links:
        if other is not link:
            assert _letters_to(lab.rect, other.points) > own, other.mid
    # a label that has a free place on one line keeps it
    assert "\n" not in _mid(scene, "lock confirmed")[1].text


TCP_STATES = """figdown 0.2 statechart
flow down
state closed "CLOSED"
state listen "LISTEN"
state synsent "SYN-SENT"
state synrcvd "SYN-RECEIVED"
state est "ESTABLISHED"
state fw1 "FIN-WAIT-1"
state fw2 "FIN-WAIT-2"
state cw "CLOSE-WAIT"
state lastack "LAST-ACK"
state tw "TIME-WAIT"
transition closed -[passive open]-> listen
transition closed -[active open / send SYN]-> synsent
transition listen -[rcv SYN / send SYN,ACK]-> synrcvd
transition synsent -[rcv SYN,ACK / send ACK]-> est
transition synrcvd -[rcv ACK]-> est
transition synrcvd -[rcv RST]-> listen
transition est -[close / send FIN]-> fw1
transition est -[rcv FIN / send ACK]-> cw
transition fw1 -[rcv ACK]-> fw2
transition fw2 -[rcv FIN / send ACK]-> tw
transition cw -[close / send FIN]-> lastack
transition lastack -[rcv ACK]-> closed
transition tw -[2 MSL timeout]-> closed
transition synsent -[timeout]-> closed
"""


def test_a_label_crowded_on_one_line_does_not_stack_on_another(placed) -> None:
    """"rcv SYN,ACK / send ACK" found no free place beside its long run (a lane 55 px
    off) and stood by ESTABLISHED, where "rcv FIN / send ACK" was then set right under
    it: a reader read one label of two lines.  On two lines it had a place of its own;
    the next lane out now runs beyond a lane's label, which stands by its own line."""
    (scene,) = placed(TCP_STATES)
    assert _stacked(scene) == []
    link, lab = _mid(scene, "rcv SYN,ACK / send ACK")
    assert _letters_to(lab.rect, link.points) <= 12.0
    assert all(_letters_to(lab.rect, other.points) > _letters_to(lab.rect, link.points)
               for other in scene.links if other is not link)


def test_a_label_beside_a_slanted_line_may_stand_level_with_it() -> None:
    """Beside a slanted line a label is also tried straight across from the line's point
    (a wide label pushed out along the normal stood far up the line, over the box at its
    end): level with the point, its near edge 4 px clear of the line, on either side,
    each tried just after the normal's place on that side; a level or upright line (whose
    normal is straight across already) gets no such places."""
    from markmcp.figdown.render.scene.labels import LEVEL_EXTRA, _beside
    w, h = 120.0, 12.0
    cands = _beside([(0.0, 0.0), (200.0, 200.0)], w, h, (0.0,), (0.5,))
    assert len(cands) == 4
    (nx1, ny1, _, c1), (lx1, ly1, _, e1), (nx2, ny2, _, c2), (lx2, ly2, _, e2) = cands
    assert ly1 == ly2 == 100.0 and {lx1, lx2} == {100.0 - 70.0, 100.0 + 70.0}
    assert e1 == e2 == c1 + LEVEL_EXTRA
    # each level place on the side of the normal's place before it
    assert (lx1 - 100.0) * (nx1 - 100.0) > 0 and (lx2 - 100.0) * (nx2 - 100.0) > 0
    for cx, cy in ((lx1, ly1), (lx2, ly2)):
        # the corner nearest the line y = x stands 4 px across from it
        x, y = (cx - w / 2, cy + h / 2) if cx > 100.0 else (cx + w / 2, cy - h / 2)
        assert abs(abs(x - y) - 4.0) < 1e-9
    assert len(_beside([(0.0, 0.0), (0.0, 200.0)], w, h, (0.0,), (0.5,))) == 2
    assert len(_beside([(0.0, 0.0), (200.0, 0.0)], w, h, (0.0,), (0.5,))) == 2


def test_a_notes_leader_goes_round_a_box_between_it_and_its_target() -> None:
    """Its agent box crowded on every side, the note went 100 px below it, under the HSM
    box, and its leader, aimed at the agent's middle, ran up through the HSM: a leader
    may leave the note from along its near side, to the nearest point of its target."""
    from markmcp.figdown.render.scene.free import seg_hits_rect
    from markmcp.figdown.render.scene.labels import Board
    from markmcp.figdown.render.scene.marks import _place_note
    agent, hsm = (100.0, 100.0, 300.0, 136.0), (110.0, 210.0, 290.0, 246.0)
    # boxes all round the agent's near rings but below, and the HSM below
    crowd = [(330.0, 40.0, 700.0, 200.0), (-400.0, 40.0, 70.0, 200.0), (-400.0, -200.0, 700.0, 80.0),
             (100.0, 150.0, 300.0, 190.0)]
    board = Board([agent, hsm, *crowd], {})
    note = _place_note(board, "node", "agent", "renders creds to tmpfs, renews at 2/3 TTL", "Vault agent", agent)
    assert note.leader is not None
    p, q = note.leader
    assert not any(seg_hits_rect(p, q, b, 1.0) for b in (hsm, *crowd))
    # it still meets the agent's outline
    assert agent[0] <= q[0] <= agent[2] and agent[1] <= q[1] <= agent[3]


def test_beside_a_pair_of_lines_a_label_costs_less_on_its_own_lines_side() -> None:
    """Two lines 5 px apart (a transition each way) leave no place beside either farther
    than 6 px from the other.  A label beside its own line, on the far side from the other,
    reads as its own and costs less than one beside the other line. Both had cost the
    same, so "re-home X/Y" stood beside "stall on X/Y"'s line."""
    from markmcp.figdown.render.scene.labels import CROWDED, Board
    board = Board([], {1: [(0.0, 50.0), (200.0, 50.0)], 2: [(0.0, 55.0), (200.0, 55.0)]})
    above = (60.0, 35.0, 140.0, 47.0)    # 3 px above line 1, 8 px from line 2
    below = (60.0, 58.0, 140.0, 70.0)    # 3 px below line 2, 8 px from line 1
    own_side = board.cost(above, 1, (100.0, 41.0), graze=True)
    far_side = board.cost(below, 1, (100.0, 64.0), graze=True)
    assert CROWDED <= own_side < far_side
    assert board.cost(below, 2, (100.0, 64.0), graze=True) < board.cost(above, 2, (100.0, 41.0), graze=True)


ENVELOPE = """figdown 0.2 statechart
state idle "Idle\\n(level 0)"
state attack "Attack\\n(ramp to 1.0)"
state decay "Decay\\n(ramp to sustain)"
state sustain "Sustain\\n(hold level)"
state release "Release\\n(ramp to 0)"
transition attack -[level reaches 1.0]-> decay
transition attack -[note off]-> release
pin attack at=(190,30)
pin decay at=(380,110)
pin release at=(760,240)
"""


def test_a_label_beside_its_slanted_line_under_another_is_nearer_its_own(placed) -> None:
    """"level reaches 1.0" stood under the "note off" line, as near it as its own slanted
    line; beside the slanted line on the side away from it, it reads as its own."""
    (scene,) = placed(ENVELOPE)
    (link,) = [lk for lk in scene.links if lk.mid == "level reaches 1.0"]
    (other,) = [lk for lk in scene.links if lk.mid == "note off"]
    rect = link.mid_label.rect
    assert _letters_to(rect, link.points) + 0.5 < _letters_to(rect, other.points)


def test_the_board_counts_the_connectors_a_leader_crosses() -> None:
    """A note's leader pays for each connector it crosses (a note moved above a lane drew
    its leader across it): each connector once, however many of its runs it crosses,
    and a run it only meets at an end not at all."""
    from markmcp.figdown.render.scene.labels import Board
    board = Board([], {1: [(0.0, 50.0), (200.0, 50.0), (200.0, 70.0), (0.0, 70.0)],
                       2: [(0.0, 90.0), (200.0, 90.0)], 3: [(300.0, 0.0), (300.0, 100.0)]})
    assert board.crossed((100.0, 0.0), (100.0, 100.0)) == 2     # 1 (twice) and 2
    assert board.crossed((100.0, 0.0), (100.0, 60.0)) == 1
    assert board.crossed((250.0, 0.0), (250.0, 100.0)) == 0



def test_the_board_counts_the_connector_ends_a_leader_passes_near() -> None:
    """A leader passing beside where a line ends reads as that line going on to the note
    (NAT64's leader ran down 5 px from the end of the line to "IPv6 Internet"): the board
    counts each connector with an end within the clearance, but for ends at the leader's
    own target."""
    from markmcp.figdown.render.scene.labels import Board
    board = Board([], {1: [(0.0, 50.0), (95.0, 50.0)], 2: [(200.0, 50.0), (105.0, 50.0)],
                       3: [(100.0, 200.0), (160.0, 260.0)], 4: [(0.0, 80.0), (200.0, 80.0)]})
    far = (-1.0, -1.0, -1.0, -1.0)
    assert board.ends_near((100.0, 0.0), (100.0, 100.0), 10.0, far) == 2   # 1 and 2; 4 passes, no end
    assert board.ends_near((100.0, 0.0), (100.0, 100.0), 4.0, far) == 0
    assert board.ends_near((100.0, 0.0), (100.0, 190.0), 12.0, far) == 3   # 3's first end too
    assert board.ends_near((100.0, 0.0), (100.0, 190.0), 12.0, (90.0, 190.0, 110.0, 210.0)) == 2


def test_a_label_keeps_off_a_group_bands_border_where_a_place_as_near_is_free() -> None:
    """Above its line a label lay across the band's top border and read as part of the
    band's frame ("chairlift fibre" on the Mid-mountain band's edge): the side of the line
    clear of the border is taken, as near to the line."""
    from markmcp.figdown.render.scene.labels import Board, Label, measure, place_mid
    pts = [(0.0, 100.0), (400.0, 100.0)]
    band = (-50.0, 90.0, 500.0, 300.0)   # its top border 10 px above the line
    board = Board([], {1: pts}, outlines=[band])
    label = Label("chairlift fibre", 11.0)
    label.w, label.h = measure(label.text, label.size)
    place_mid(board, label, pts, 1)
    x0, y0, x1, y1 = label.rect
    assert board.borders_under(label.rect) == 0
    assert min(abs(y0 - 100.0), abs(y1 - 100.0)) <= 6.0   # beside its line still
    # with no band there it takes the place above, as before
    alone = Board([], {1: pts})
    free = Label("chairlift fibre", 11.0)
    free.w, free.h = measure(free.text, free.size)
    place_mid(alone, free, pts, 1)
    assert free.rect[3] <= 100.0

def test_the_board_counts_the_connectors_a_leader_runs_along() -> None:
    """A leader on a line reads as part of it: the board counts each connector running
    within the clearance of it and its way (within 15°) for the least length or more,
    not one crossing it."""
    from markmcp.figdown.render.scene.labels import Board
    board = Board([], {1: [(100.0, 60.0), (100.0, 0.0), (300.0, 0.0)], 2: [(0.0, 50.0), (300.0, 50.0)],
                       3: [(103.0, 95.0), (104.0, 140.0)], 4: [(0.0, 40.0), (200.0, 120.0)]})
    assert board.runs_along((100.0, 20.0), (100.0, 90.0), 4.0, 8.0) == 1   # 1; 2 and 4 cross it
    assert board.runs_along((100.0, 20.0), (100.0, 130.0), 4.0, 8.0) == 2   # and 3, slanting 1 in 45
    assert board.runs_along((100.0, 20.0), (100.0, 90.0), 4.0, 50.0) == 0   # 1 for 40 px only
    assert board.runs_along((100.0, 20.0), (100.0, 25.0), 4.0, 8.0) == 0


def test_a_notes_leader_is_not_drawn_on_a_line_leaving_its_box() -> None:
    """Crowded all round but above, EXECUTE's note went above it, and its leader, aimed
    at the box's middle, came down on the line leaving its top there: it now leaves the
    note further along."""
    from markmcp.figdown.render.scene.labels import Board
    from markmcp.figdown.render.scene.marks import _place_note
    box = (100.0, 100.0, 300.0, 136.0)
    crowd = [(330.0, 40.0, 700.0, 200.0), (-400.0, 40.0, 70.0, 200.0), (-400.0, 150.0, 700.0, 400.0)]
    board = Board([box, *crowd], {7: [(200.0, 100.0), (200.0, 50.0), (800.0, 50.0)]})
    note = _place_note(board, "node", "execute", "Producing; Abort is reachable from every state", "EXECUTE", box)
    assert note.leader is not None
    (px, py), (qx, qy) = note.leader
    assert qy == 100.0 and py < 100.0   # from above
    assert min(abs(px - 200.0), abs(qx - 200.0)) > 4.0 or abs(px - qx) > 20.0
    assert board.runs_along((px, py), (qx, qy), 4.0, 8.0) == 0

def test_a_notes_leader_keeps_off_the_end_of_a_line_beside_it() -> None:
    from markmcp.figdown.render.scene.labels import seg_dist

    from .test_render_band_titles import segments
    svg = build(NAT64).svg
    leaders = [tuple(map(float, m)) for m in re.findall(
        r'<line x1="([-\d.]+)" y1="([-\d.]+)" x2="([-\d.]+)" y2="([-\d.]+)"[^>]*stroke-dasharray="4 3"', svg)]
    assert len(leaders) == 1
    x1, y1, x2, y2 = leaders[0]
    key = str(NAT64.split("\n").index("edge bng -[native IPv6]- v6") + 1)
    (end,) = [q for k, _p, q in segments(svg) if k == key][-1:]
    assert seg_dist(end[0], end[1], (x1, y1), (x2, y2)) >= 10.0


NAT64 = ("figdown 0.3 topology\nflow right\ngroup access \"IPv6-only access network\"\n"
         "node phone \"Handset with CLAT\\n(464XLAT)\" in=access\nnode laptop \"Tethered laptop\" in=access\n"
         "node bng \"Access router / PGW\" in=access\nnode dns64 \"DNS64 resolver\"\n"
         "node nat64 \"NAT64 (PLAT)\\n64:ff9b::/96\" "
         "note=\"Stateful; one public IPv4 address is shared by ~1,000 subscribers\"\n"
         "node logs \"NAT session log\\ncollector\" shape=cylinder\nexternal v4 \"IPv4 Internet\"\n"
         "external v6 \"IPv6 Internet\"\nedge phone -- bng\nedge laptop -- phone\n"
         "edge bng -[synthesised AAAA]- dns64\nedge bng -- nat64\nedge nat64 -[public IPv4 pool /26]- v4\n"
         "edge bng -[native IPv6]- v6\nedge nat64 -[port-block allocations]- logs style=dashed\n")


ENCOUNTER = """figdown 0.2 statechart
flow right
state preadmit "Pre-admitted"
state ed "In emergency dept"
state admitted "Admitted"
state transferred "Transferred\\n(ward to ward)"
state leave "On leave of absence"
state pendingdc "Discharge pending"
state discharged "Discharged"
state cancelled "Cancelled"
transition preadmit -[arrives for elective admission]-> admitted
transition preadmit -[surgery cancelled]-> cancelled
transition ed -[admit decision, bed assigned]-> admitted
transition ed -[treated & released]-> discharged
transition admitted -[bed move]-> transferred
transition transferred -[bed move]-> transferred
transition transferred -[arrived on new ward]-> admitted
transition admitted -[day pass]-> leave
transition leave -[returns]-> admitted
transition admitted -[discharge order]-> pendingdc
transition pendingdc -[medications & transport ready]-> discharged
transition pendingdc -[clinical deterioration]-> admitted style=dashed
transition discharged -[undo within 24 h]-> admitted style=dotted
"""


def test_a_label_crowded_by_those_before_it_is_placed_first(placed) -> None:
    """Labels are placed in the order the lines are written, and a label that comes
    late may find its one free place taken by an earlier one that had others:
    "day pass" stood between its line and "arrived on new ward"'s, nearer that one.
    A crowded label is tried first and the placing kept where all costs clearly
    less: every label here is nearer its own line than any other, by its letters,
    and none is struck or stacked on another."""
    (scene,) = placed(ENCOUNTER)
    for link in scene.links:
        if not link.mid or link.a == link.b:
            continue
        own = _letters_to(link.mid_label.rect, link.points)
        others = {other.mid: _letters_to(link.mid_label.rect, other.points)
                  for other in scene.links if other is not link}
        assert all(d >= own for d in others.values()), (link.mid, own, others)
        assert _strikes(scene, link) == [], link.mid
    assert _stacked(scene) == []


def test_trying_a_crowded_label_first_needs_a_clear_gain(monkeypatch, placed) -> None:
    """The placing with a crowded label first is kept only when it lowers the cost of
    all the places by RELABEL_GAIN: with no gain asked the same figure takes it, and
    with a gain no placing can make, the labels stand where the written order put
    them."""
    def places(gain):
        monkeypatch.setattr(scene_mod, "RELABEL_GAIN", gain)
        (scene,) = placed(ENCOUNTER)
        return [(lab.text, round(lab.cx, 2), round(lab.cy, 2)) for lab in scene.labels]

    monkeypatch.setattr(scene_mod, "RELABEL_TRIES", 0)
    written = places(50.0)
    monkeypatch.setattr(scene_mod, "RELABEL_TRIES", 4)
    assert places(1e9) == written
    assert places(0.0) != written


def test_a_pile_of_crowded_labels_is_placed_once(monkeypatch) -> None:
    """Placing a crowded label again moves the labels near its line with it; where more
    than RELABEL_NEAR stand there (a hundred and fifty transitions between two states
    pinned close together) the labels are placed once, and a figure with a few crowded labels among few
    others is placed again for each of them, up to RELABEL_TRIES."""
    calls: list[int] = []
    real = scene_mod._place_labels

    def counted(scene, model, jobs, order, *rest):
        calls.append(len(list(order)))
        return real(scene, model, jobs, order, *rest)

    monkeypatch.setattr(scene_mod, "_place_labels", counted)
    pile = ("figdown 0.2 statechart\nstate down \"DOWN\"\nstate init \"INIT\"\n"
            + "transition down -[rx Down]-> init\n" * 150
            + "layout\npin down at=(220,40) width=110 height=56\npin init at=(60,200) width=110 height=56\n")
    assert build(pile).svg is not None
    assert calls == [150]
    calls.clear()
    assert build(ENCOUNTER).svg is not None
    assert calls[0] == 13 and 2 <= len(calls) <= 1 + scene_mod.RELABEL_TRIES
    assert all(n <= 1 + scene_mod.RELABEL_NEAR for n in calls[1:])
