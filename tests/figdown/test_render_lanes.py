"""Lanes: connectors against the flow go round the figure on lanes beside it.  Lanes on
one side nest: the one round the longer stretch runs outside, and lanes leaving one box
leave it in the same order, so none crosses another.  Every check reads the drawn SVG."""

from __future__ import annotations

import itertools
import math
import re
import xml.etree.ElementTree as ET

from markmcp.figdown.render import build

from .test_render_band_titles import segments
from .test_render_straight import _drawing, _line_of

SVG = "{http://www.w3.org/2000/svg}"

# a lift door: from "Closing", one transition back to "Closed" (three ranks up) and one
# back to "Opening" (two ranks up), both round the left
DOOR = """figdown 0.2 statechart
flow down
state closed "Closed"
state opening "Opening"
state open "Open"
state closing "Closing"
transition closed -[call at floor]-> opening
transition closed -[open button]-> opening
transition opening -[fully open]-> open
transition open -[timer]-> closing
transition closing -[fully closed]-> closed
transition closing -[open button]-> opening
"""


def _cross(s, t) -> bool:
    """Do two segments cross properly (each passing through the other's inside)?"""
    (p, q), (r, u) = s, t
    d = (q[0] - p[0]) * (u[1] - r[1]) - (q[1] - p[1]) * (u[0] - r[0])
    if abs(d) < 1e-9:
        return False
    a = ((r[0] - p[0]) * (u[1] - r[1]) - (r[1] - p[1]) * (u[0] - r[0])) / d
    b = ((r[0] - p[0]) * (q[1] - p[1]) - (r[1] - p[1]) * (q[0] - p[0])) / d
    return 0.01 < a < 0.99 and 0.01 < b < 0.99


def crossings(svg: str) -> list[tuple[str, str]]:
    by_edge: dict[str, list] = {}
    for key, p, q in segments(svg):
        by_edge.setdefault(key, []).append((p, q))
    return sorted({(a, b) for a, b in itertools.combinations(sorted(by_edge), 2)
                   for s in by_edge[a] for t in by_edge[b] if _cross(s, t)})


def _lane_x(svg: str, key: str) -> float:
    """The leftmost x a connector reaches (its lane, for one going round the left)."""
    return min(min(p[0], q[0]) for k, p, q in segments(svg) if k == key)


def test_lanes_out_of_one_box_to_different_targets_nest() -> None:
    svg = build(DOOR).svg
    edges = {k for k, _p, _q in segments(svg)}
    assert {"11", "12"} <= edges   # connectors are keyed by their lines
    # "fully closed" goes round the longer stretch: its lane is the outer one
    assert _lane_x(svg, "11") < _lane_x(svg, "12")
    assert crossings(svg) == []


def test_a_lane_order_in_the_source_does_not_change_the_nesting() -> None:
    """The same door with the two transitions written the other way round."""
    lines = DOOR.splitlines()
    swapped = "\n".join(lines[:-2] + [lines[-1], lines[-2]]) + "\n"
    svg = build(swapped).svg
    assert _lane_x(svg, "12") < _lane_x(svg, "11")   # "fully closed" is now on line 12
    assert crossings(svg) == []


def _shared_runs(svg: str) -> list[tuple[str, str]]:
    """Pairs of connectors with a stretch of more than 3 px drawn on one line (a trunk)."""
    runs: dict[str, list] = {}
    for key, p, q in segments(svg):
        if p[0] == q[0] or p[1] == q[1]:
            runs.setdefault(key, []).append((p, q))
    shared = set()
    for a, b in itertools.combinations(sorted(runs), 2):
        for p, q in runs[a]:
            for r, u in runs[b]:
                for axis in (0, 1):
                    other = 1 - axis
                    if p[axis] == q[axis] == r[axis] == u[axis]:
                        lo = max(min(p[other], q[other]), min(r[other], u[other]))
                        hi = min(max(p[other], q[other]), max(r[other], u[other]))
                        if hi - lo > 3:
                            shared.add((a, b))
    return sorted(shared)


def test_transitions_with_different_triggers_do_not_share_a_trunk() -> None:
    """Two transitions back into "Opening" merged into one bus carried one trigger on the
    trunk, which then read as the other's trigger too; now each keeps its own line (and
    lines that look alike and say the same still merge)."""
    source = ("figdown 0.2 statechart\nflow left\nstate opening \"Opening\"\nstate open \"Open\"\n"
              "state closing \"Closing\"\nstate blocked \"Obstruction\"\n"
              "transition opening -[fully open]-> open\ntransition open -[timer]-> closing\n"
              "transition closing -[beam broken]-> blocked\ntransition blocked -[clear for 2 s]-> opening\n"
              "transition closing -[door-open button]-> opening\n")
    svg = build(source).svg
    assert _shared_runs(svg) == []
    same = source.replace("[clear for 2 s]", "[door-open button]")
    assert _shared_runs(build(same).svg) != []


def test_lines_round_a_pair_keep_their_own_legs() -> None:
    """Six connectors between two boxes: two go straight, the rest round the pair, under
    and over; on each side the further one leaves and enters further out, so no two
    share a leg (those going opposite ways once merged into one two-headed line)."""
    source = ("figdown 0.1 block\nflow right\nnode c \"Client\"\nnode s \"Server\"\n"
              "edge c -[request 1]-> s\nedge c -[request 2]-> s\nedge s -[response]-> c\n"
              "edge s -[push]-> c\nedge c <-[heartbeat]-> s\nedge s -[event]-> c\n")
    svg = build(source).svg
    assert _shared_runs(svg) == []
    assert crossings(svg) == []


def test_a_fan_out_to_six_does_not_cross_itself() -> None:
    """The outer two of six lines must bend (straight, they would cut the next box), and
    bent beside four straight lines they crossed them: a fan one of whose lines bends
    now bends them all, in port order."""
    source = "figdown 0.1 block\nflow right\nnode t \"Topic\"\n" + "".join(
        f"node s{i} \"Subscriber {i}\"\nedge t -> s{i}\n" for i in range(1, 7))
    svg = build(source).svg
    assert crossings(svg) == []
    assert len({k for k, _p, _q in segments(svg)}) == 6


def test_a_fan_in_from_eight_hosts_does_not_cross_at_the_aggregator() -> None:
    """Straight lines from far and near hosts landed on the aggregator's sides in the
    wrong order (the ends were spread one line at a time) and crossed just before it."""
    source = "figdown 0.1 block\nflow down\nnode agg \"Log aggregator\"\n" + "".join(
        f"node h{i} \"host-0{i}\"\nedge h{i} -> agg\n" for i in range(1, 9))
    assert crossings(build(source).svg) == []


def _heads(svg: str) -> list[tuple[float, float, float, float]]:
    """Each arrowhead's bounding box (a filled three-point path with no stroke)."""
    out = []
    for m in re.finditer(r'<path d="M([-\d.]+) ([-\d.]+) L([-\d.]+) ([-\d.]+) L([-\d.]+) ([-\d.]+) z" fill="[^"]+" '
                         r'stroke="none"', svg):
        v = [float(g) for g in m.groups()]
        xs, ys = v[0::2], v[1::2]
        out.append((min(xs), min(ys), max(xs), max(ys)))
    return out


def test_several_self_loops_take_the_free_sides_in_turn() -> None:
    """Three transitions from "Established" to itself were nested on one side, their
    arrowheads 4 px apart on one corner; each now takes a side of its own."""
    svg = build("figdown 0.2 statechart\nstate a \"Idle\"\nstate e \"Established\"\ntransition a -[open]-> e\n"
                "transition e -[data / ACK]-> e\ntransition e -[window probe]-> e\n"
                "transition e -[keepalive]-> e\n").svg
    heads = _heads(svg)
    assert len(heads) == 4
    assert not any(a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
                   for i, a in enumerate(heads) for b in heads[i + 1:])


def _loop(svg: str, key: str) -> list[tuple[float, float]]:
    """A self-loop's corners in order (its fillets read as their corners)."""
    runs = [(p, q) for k, p, q in segments(svg) if k == key]
    return [runs[0][0]] + [q for _p, q in runs]


def test_a_self_loop_reads_as_a_loop_not_a_hook() -> None:
    """A loop 16 px wide and 18 px out under "Setting time" read as a hook (its arrowhead
    filled most of the leg it came back on): its legs now stand 28 px apart, 26 px out."""
    svg = build("figdown 0.2 statechart\nstate i \"Idle\"\nstate s \"Setting time\"\n"
                "transition i -[number key]-> s\ntransition s -[number key]-> s\n").svg
    pts = _loop(svg, "5")
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    legs, out = sorted((max(xs) - min(xs), max(ys) - min(ys)))
    assert legs >= 28 - 0.01 and out >= 26 - 0.01 or legs >= 26 - 0.01 and out >= 28 - 0.01


# pinned states: the straight lines between them leave where they point, whatever side
# the layout gave the self-loop (under "Cooking" it was knotted with two of them)
PINNED_LOOP = """figdown 0.2 statechart
flow right
state idle "Idle"
state setting "Setting time"
state cooking "Cooking"
state paused "Paused"
transition idle -[number key]-> setting
transition setting -[number key]-> setting
transition setting -[START]-> cooking
transition cooking -[START (+30 s)]-> cooking
transition cooking -[door opened / STOP]-> paused
transition paused -[door closed + START]-> cooking
transition paused -[STOP]-> idle
layout
pin idle at=(40,150)
pin setting at=(240,30)
pin cooking at=(470,150)
pin paused at=(470,320)
"""


def test_a_self_loop_keeps_clear_of_the_straight_lines_at_its_box() -> None:
    svg = build(PINNED_LOOP).svg
    runs = segments(svg)
    for key in ("8", "10"):
        loop = _loop(svg, key)
        assert len(loop) >= 4 and loop[0] != loop[-1], key
        near = {k for k, p, q in runs if k != key for a, b in zip(loop, loop[1:]) if _gap(p, q, a, b) < 6}
        assert not near, (key, near)


def test_a_self_loop_with_no_room_at_full_size_takes_the_small_size() -> None:
    # straight lines leave every side of the pinned box 16 px either side of its middle:
    # a full-size loop (legs 14 px off the middle) stood 2 px off two of them wherever it
    # went; at the small size (8 px) it clears them
    targets = [(356, 50), (164, 50), (356, 410), (164, 410), (80, 278), (80, 182), (440, 278), (440, 182)]
    src = ("figdown 0.2 statechart\nstate c \"Centre\"\n"
           + "".join(f"state t{i} \"T{i}\"\n" for i in range(8))
           + "".join(f"transition c -> t{i}\n" for i in range(8))
           + "transition c -[tick]-> c\nlayout\npin c at=(200,200) width=120 height=60\n"
           + "".join(f"pin t{i} at=({x - 20},{y - 12}) width=40 height=24\n" for i, (x, y) in enumerate(targets)))
    svg = build(src).svg
    key = str(src.split("\n").index("transition c -[tick]-> c") + 1)
    loop = _loop(svg, key)
    near = {k for k, p, q in segments(svg) if k != key for a, b in zip(loop, loop[1:]) if _gap(p, q, a, b) < 6}
    assert not near, near


def _gap(p, q, a, b) -> float:
    """The distance between two segments, sampled every half pixel along the first."""
    n = max(2, int(math.dist(p, q) * 2))
    return min(_point_gap((p[0] + (q[0] - p[0]) * k / n, p[1] + (q[1] - p[1]) * k / n), a, b) for k in range(n + 1))


def _point_gap(c, a, b) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = dx * dx + dy * dy
    t = 0.0 if not length else max(0.0, min(1.0, ((c[0] - a[0]) * dx + (c[1] - a[1]) * dy) / length))
    return math.dist(c, (a[0] + t * dx, a[1] + t * dy))


def _boxes(svg: str) -> dict[str, tuple[float, float, float, float]]:
    return {key: (float(x), float(y), float(x) + float(w), float(y) + float(h)) for key, x, y, w, h in re.findall(
        r'<g data-node="([^"]+)"[^>]*><rect x="([-\d.]+)" y="([-\d.]+)" width="([-\d.]+)" height="([-\d.]+)"', svg)}


def test_a_lane_from_the_outermost_box_is_a_u_round_the_figure_edge() -> None:
    """"retry" from the last state back to the first left "Failed" by its far end and
    went round it before turning back; it now leaves by the side facing its lane and
    enters "Queued" by that side too, each from the middle: a U."""
    svg = build("figdown 0.2 statechart\nstate q \"Queued\"\nstate r \"Running\"\nstate d \"Done\"\n"
                "state f \"Failed\"\ntransition q -[worker picks]-> r\ntransition r -[success]-> d\n"
                "transition r -[error]-> f\ntransition f -[retry]-> q\n").svg
    boxes = _boxes(svg)
    runs = [(p, q) for key, p, q in segments(svg) if key == "9"]
    start, end = runs[0][0], runs[-1][1]
    failed, queued = boxes["f"], boxes["q"]
    assert start == (round((failed[0] + failed[2]) / 2, 2), failed[3])
    assert end == (round((queued[0] + queued[2]) / 2, 2), queued[3])
    # down from Failed, along one level below both, up into Queued: nothing else
    lane = max(p[1] for run in runs for p in run)
    assert lane > max(failed[3], queued[3])
    assert all(p[0] in (start[0], end[0]) or p[1] == lane for run in runs for p in run)


def _in_and_out(svg: str, into: str, out: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where lane ``into`` ends (its arrowhead's tip) and lane ``out`` starts."""
    by_edge: dict[str, list] = {}
    for key, p, q in segments(svg):
        by_edge.setdefault(key, []).append((p, q))
    return by_edge[into][-1][1], by_edge[out][0][0]


def test_a_lane_in_and_a_lane_out_by_one_side_take_its_two_parts() -> None:
    """Eco's line back into On and On's line back to Off both took the middle of On's top:
    the arrowhead fell on the other line's start and the two read as one line from Eco to
    Off.  The inner lane takes the part of the side toward its run, the outer the other
    part, and neither crosses the other."""
    src = ("figdown 0.2 statechart\nflow right\nstate a \"Off\" shape=rounded\nstate b \"Standby\" shape=rounded\n"
           "state c \"On\" shape=rounded\nstate d \"Boost\" shape=rounded\nstate e \"Eco\" shape=rounded\n"
           "transition a -> b\ntransition b -> c\ntransition c -> d\ntransition d -> e\n"
           "transition e -[normal]-> c\ntransition c -[off]-> a\n")
    svg = build(src).svg
    tip, start = _in_and_out(svg, "12", "13")
    assert abs(tip[1] - start[1]) < 0.01            # both by On's top
    assert tip[0] - start[0] >= 12.0                 # Eco's from the right part, Off's from the left
    assert crossings(svg) == []


def test_a_lane_out_pairs_with_the_nearest_lane_in_when_a_side_has_more() -> None:
    """Hub takes two lanes in (fail, rollback) and one out (abort) by its top: abort went out
    by Hub's flow side, up and back over Hub, across the fail lane; it takes the top's other
    part beside the inner lane in."""
    src = ("figdown 0.1 block\nflow right\nnode s \"Start\"\nnode p \"Plan\"\nnode h \"Hub\"\n"
           "node b \"Build\"\nnode t \"Test\"\nnode x \"Ship\"\nedge s -> p\nedge p -> h\nedge h -> b\n"
           "edge b -> t\nedge t -> x\nedge t -[fail]-> h\nedge x -[rollback]-> h\nedge h -[abort]-> s\n")
    svg = build(src).svg
    tip, start = _in_and_out(svg, "14", "16")
    assert abs(tip[1] - start[1]) < 0.01          # both by Hub's top
    assert tip[0] - start[0] >= 12.0
    assert ("14", "16") not in crossings(svg)


def test_three_lanes_by_one_side_all_take_it_and_none_crosses() -> None:
    """The same Hub: rollback, the third lane at its top, was left to go out of Hub's flow
    side and round, and its leg crossed abort's run.  All three now meet the top, abort
    at the left, rollback in the middle, fail (the inner lane in) at the right, 16 px
    apart, and no connector crosses another."""
    src = ("figdown 0.1 block\nflow right\nnode s \"Start\"\nnode p \"Plan\"\nnode h \"Hub\"\n"
           "node b \"Build\"\nnode t \"Test\"\nnode x \"Ship\"\nedge s -> p\nedge p -> h\nedge h -> b\n"
           "edge b -> t\nedge t -> x\nedge t -[fail]-> h\nedge x -[rollback]-> h\nedge h -[abort]-> s\n")
    svg = build(src).svg
    hub = _boxes(svg)["h"]
    fail, _ = _in_and_out(svg, "14", "16")
    rollback, abort = _in_and_out(svg, "15", "16")
    assert fail[1] == rollback[1] == abort[1] == hub[1]   # all by Hub's top
    assert abort[0] + 15.99 < rollback[0] and rollback[0] + 15.99 < fail[0] <= hub[2]
    assert crossings(svg) == []


def test_a_lane_ends_where_its_own_box_places_it_not_where_the_other_box_does() -> None:
    """A's top holds two lanes in (c to a, m to a), so m to a took a part of it, 8 px off
    the middle; that shift was the lane's, not its end's, and moved its start on M's top
    too, onto the arrowhead of d to m: the two read as one line.  Each end now stands
    where the lanes of its own box's side place it."""
    # (c is the last box, so the three lanes nest on one side: none crosses another there)
    src = ("figdown 0.2 statechart\nflow right\nstate a \"A\"\nstate b \"B\"\nstate m \"M\"\nstate x \"X\"\n"
           "state d \"D\"\nstate c \"C\"\ntransition a -[1]-> b\ntransition b -[2]-> m\ntransition m -[3]-> x\n"
           "transition x -[4]-> d\ntransition d -[5]-> c\ntransition d -[d to m]-> m\n"
           "transition m -[m to a]-> a\ntransition c -[c to a]-> a\n")
    svg = build(src).svg
    # d to m's end, m to a's start, both at M's top
    head, start = _in_and_out(svg, _line_of(src, "transition d -[d to m]-> m"),
                              _line_of(src, "transition m -[m to a]-> a"))
    m = _boxes(svg)["m"]
    assert head[1] < m[1] + 2 and start[1] < m[1] + 2 and _off_rounded_outline(start, m, 14.0) < 0.02
    assert abs(head[0] - start[0]) >= 15.99


def test_a_decisions_exit_round_a_lane_leaves_by_its_point() -> None:
    """More records?'s yes goes back round the left to Fetch record, whose left side holds
    two lanes: the shift of its end there moved the start too, 8 px off the diamond's left
    point into empty space."""
    src = ("figdown 0.2 flowchart\nterminator start \"Start\"\nprocess fetch \"Fetch record\"\n"
           "decision ok \"Fetched?\"\nprocess parse \"Parse record\"\ndecision valid \"Valid?\"\n"
           "process store \"Store\"\ndecision more \"More records?\"\nterminator end \"End\"\n"
           "flowline start -> fetch\nflowline fetch -> ok\nflowline ok -[yes]-> parse\n"
           "flowline ok -[no, retry]-> fetch\nflowline parse -> valid\nflowline valid -[yes]-> store\n"
           "flowline valid -[no, refetch]-> fetch\nflowline store -> more\nflowline more -[yes]-> fetch\n"
           "flowline more -[no]-> end\n")
    svg = build(src).svg
    for line, diamond in (("18", "more"), ("16", "valid")):   # more's yes, valid's "no, refetch"
        start = next(p for key, p, _q in segments(svg) if key == line)
        drawn = re.search(rf'<g data-node="{diamond}"[^>]*><polygon points="([^"]+)"', svg).group(1)
        left = min(tuple(map(float, pair.split(","))) for pair in drawn.split())
        assert math.dist(start, left) < 0.01, (line, start, left)


def _off_rounded_outline(p, rect, r: float) -> float:
    """How far the point ``p`` stands from the outline of a rounded rectangle."""
    x0, y0, x1, y1 = rect
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    qx, qy = abs(p[0] - cx) - ((x1 - x0) / 2 - r), abs(p[1] - cy) - ((y1 - y0) / 2 - r)
    return abs(math.hypot(max(qx, 0.0), max(qy, 0.0)) + min(max(qx, qy), 0.0) - r)


def test_a_lane_end_off_the_middle_of_a_rounded_side_meets_the_corner_arc() -> None:
    """Flowing down, Middle's left side is 36 px long and mostly corner arcs; its lane in and
    lane out stand 8 px either side of its middle, over the arcs, where they stopped up
    to 1.4 px short of the outline, at the side's straight line."""
    src = ("figdown 0.2 statechart\nflow down\nstate a \"A\"\nstate b \"B\"\nstate m \"Middle\"\nstate c \"C\"\n"
           "state d \"D\"\ntransition a -> b\ntransition b -> m\ntransition m -> c\ntransition c -> d\n"
           "transition d -[back in]-> m\ntransition m -[back out]-> a\n")
    svg = build(src).svg
    into, out = _in_and_out(svg, "12", "13")
    middle = _boxes(svg)["m"]
    assert abs(into[1] - out[1]) >= 15.99 and abs(into[0] - out[0]) < 0.01   # one side, apart
    assert _off_rounded_outline(out, middle, 14.0) < 0.02
    assert _off_rounded_outline(into, middle, 14.0) < 0.02   # the arrowhead's point too
    assert crossings(svg) == []


def test_a_short_side_holds_more_lanes_closer_where_no_two_heads_meet() -> None:
    """F (36 px tall, flowing up) sends four lanes back down its left side.  At 16 px apart
    the side held two, and the others left by F's top and wrapped round.  Starts with no
    arrowhead between them may stand 10 px apart (12 beside a head, never two heads
    nearer than 16): three now leave by the side, and nothing crosses."""
    src = ("figdown 0.2 statechart\nflow up\n" + "".join(f"state {k} \"{k.upper()}\"\n" for k in "abcdef")
           + "transition a -> b\ntransition b -> c\ntransition c -> d\ntransition d -> e\ntransition e -> f\n"
           "transition f -[to e... no, to a]-> a\ntransition f -[to b]-> b\ntransition f -[to c]-> c\n"
           "transition f -[to d]-> d\n")
    svg = build(src).svg
    f = _boxes(svg)["f"]
    starts = [next(p for key, p, _q in segments(svg) if key == line) for line in ("14", "15", "16", "17")]
    left = sorted(p[1] for p in starts if p[0] < f[0] + 3.0)   # on F's left side (or its corner arcs)
    assert len(left) >= 3
    assert all(b - a >= 9.99 for a, b in zip(left, left[1:]))
    assert crossings(svg) == []


RETRANSMIT = ("figdown 0.2 flowchart\nterminator send \"Segment sent, RTO armed\"\n"
              "decision acked \"ACK covers segment?\"\nprocess sample \"Update SRTT / RTTVAR\"\n"
              "terminator done \"Advance snd.una\"\ndecision dup \"3 duplicate ACKs?\"\n"
              "process fastrx \"Fast retransmit,\\ncwnd = ssthresh = flight/2\"\ndecision rto \"RTO expired?\"\n"
              "process timeout \"Retransmit, cwnd = 1 MSS,\\nRTO doubled (max 60 s)\"\n"
              "flowline send -> acked\nflowline acked -[yes]-> sample\nflowline sample -> done\n"
              "flowline acked -[no]-> dup\nflowline dup -[yes]-> fastrx\nflowline fastrx -> acked\n"
              "flowline dup -[no]-> rto\nflowline rto -[no: keep waiting]-> acked\nflowline rto -[yes]-> timeout\n"
              "flowline timeout -> acked\n")


def test_a_lane_back_to_a_decision_enters_by_its_side_point() -> None:
    """Three lanes back to ACK covers segment? and the line from above put four arrowheads
    along the diamond's top faces; a lane from either side comes in by that side's point."""
    svg = build(RETRANSMIT).svg
    drawn = re.search(r'<g data-node="acked"[^>]*><polygon points="([^"]+)"', svg).group(1)
    corners = [tuple(map(float, pair.split(","))) for pair in drawn.split()]
    left, right = min(corners), max(corners)
    ends = {key: q for key, _p, q in segments(svg)}
    lanes = {"15": "fastrx", "17": "rto", "19": "timeout"}   # their lines, from below
    landed = {key for key in lanes if math.dist(ends[key], left) < 0.01 or math.dist(ends[key], right) < 0.01}
    assert landed == set(lanes), {key: ends[key] for key in lanes}
    assert math.dist(ends["15"], left) < 0.01
    # the two from the right ("no: keep waiting" leaves a decision: its label stands at
    # that exit) merge into one line, into the right point
    assert math.dist(ends["17"], right) < 0.01 and math.dist(ends["19"], right) < 0.01


ASTAR = """figdown 0.2 flowchart
process close "move current to closed"
decision more "neighbours left?"
process nextn "take next neighbour n"
decision inclosed "n in closed?"
process tentative "t <- g(current) + cost(current, n)"
decision better "n not in open\\nor t < g(n)?"
process update "came_from[n] <- current"
terminator done "done"
flowline close -> more
flowline more -[no]-> done
flowline more -[yes]-> nextn
flowline nextn -> inclosed
flowline inclosed -[yes]-> more
flowline inclosed -[no]-> tentative
flowline tentative -> better
flowline better -[no]-> more
flowline better -[yes]-> update
flowline update -> more"""


def test_lanes_back_from_decisions_saying_different_things_merge_into_one() -> None:
    """Three lines back to "neighbours left?" (two decisions' "yes" and "no", and a plain
    one) came in as three hooks beside the main line's head, nested at the figure's edge;
    a decision's exit label stands at that exit, so they merge into one line with one
    arrowhead, each leaving its decision by the side point."""
    svg = build(ASTAR).svg
    ends = {key: q for key, _p, q in segments(svg)}
    back = [_line_of(ASTAR, f"flowline {src} -[{word}]-> more") for src, word in (("inclosed", "yes"), ("better", "no"))]
    back.append(_line_of(ASTAR, "flowline update -> more"))
    assert len({ends[key] for key in back}) == 1
    tips = {p for p in _tips(svg) if math.dist(p, ends[back[0]]) < 1}   # (each member draws it)
    assert len(tips) == 1
    for key, nid in zip(back, ("inclosed", "better")):
        first = next(p for k, p, _q in segments(svg) if k == key)
        poly = re.search(r'<g data-node="%s"[^>]*><polygon points="([^"]+)"' % nid, svg).group(1)
        corners = [tuple(map(float, pair.split(","))) for pair in poly.split()]
        assert math.dist(first, min(corners)) < 0.01 or math.dist(first, max(corners)) < 0.01, key


def _tips(svg: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(
        r'<path d="M([-\d.]+) ([-\d.]+) L[-\d. ]+L[-\d. ]+z" fill="[^"]+" stroke="none"', svg)]


BILLING = ("figdown 0.3 statechart\nstate trial \"TRIALING\"\nstate active \"ACTIVE\"\n"
           "state pastdue \"PAST_DUE\\n(dunning)\"\nstate unpaid \"UNPAID\"\nstate paused \"PAUSED\"\n"
           "state cancelpending \"ACTIVE — cancels\\nat period end\"\nstate canceled \"CANCELED\"\n"
           "state incomplete \"INCOMPLETE\\n(SCA required)\"\nstate incexp \"INCOMPLETE_EXPIRED\"\n"
           "transition incomplete -[3-D Secure completed]-> active\n"
           "transition incomplete -[23 h without payment]-> incexp\n"
           "transition trial -[trial ends, card charged]-> active\n"
           "transition trial -[trial ends, no payment method]-> paused\n"
           "transition active -[invoice paid]-> active\ntransition active -[renewal charge fails]-> pastdue\n"
           "transition pastdue -[retry succeeds]-> active\ntransition pastdue -[all retries fail]-> unpaid\n"
           "transition unpaid -[customer pays open invoice]-> active\n"
           "transition unpaid -[30 days unpaid]-> canceled\ntransition paused -[payment method added]-> active\n"
           "transition active -[customer cancels]-> cancelpending\n"
           "transition cancelpending -[customer reactivates]-> active\n"
           "transition cancelpending -[period ends]-> canceled\n")


def test_a_lane_comes_in_beside_the_side_entries_on_its_side() -> None:
    """The lane from UNPAID back over the top to ACTIVE found ACTIVE's top taken by the
    run from TRIALING turning in there, so it went on past ACTIVE, came down and turned
    into the side the flow meets, across that run; it comes down into the top's middle."""
    svg = build(BILLING).svg
    lines = BILLING.split("\n")
    key = str(lines.index("transition unpaid -[customer pays open invoice]-> active") + 1)
    other = str(lines.index("transition trial -[trial ends, card charged]-> active") + 1)
    segs = {k: [] for k in (key, other)}
    for k, p, q in segments(svg):
        if k in segs:
            segs[k].append((p, q))
    g = next(g for g in ET.fromstring(svg).iter(SVG + "g") if g.get("data-node") == "active")
    rect = next(iter(g))
    x, y, w = float(rect.get("x")), float(rect.get("y")), float(rect.get("width"))
    p, q = segs[key][-1]
    assert abs(q[1] - y) < 0.01 and x + w / 4 < q[0] < x + 3 * w / 4, (p, q)   # into the top's middle
    assert p[0] == q[0] and p[1] < q[1]                                           # coming down
    assert not any(_proper(a, b, c, d) for a, b in segs[key] for c, d in segs[other])


def _proper(a, b, c, d) -> bool:
    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return side(a, b, c) * side(a, b, d) < -1e-9 and side(c, d, a) * side(c, d, b) < -1e-9


PUMP = ("figdown 0.3 statechart\n"
        "flow right\n"
        "class alarm \"Alarm — audible, nurse call\" fill=#fee2e2 stroke=#b91c1c\n"
        "class running \"Fluid being delivered\" fill=#dcfce7\n"
        "state off \"Powered off\"\n"
        "state selftest \"Power-on self test\"\n"
        "state idle \"Idle\"\n"
        "state programming \"Programming\\n(drug library)\" note=\"hard limits block; soft limits need confirm\"\n"
        "state infusing \"Infusing\" class=running\n"
        "state paused \"Paused\"\n"
        "state kvo \"KVO\\n(keep vein open 1 mL/h)\" class=running\n"
        "state occlusion \"Occlusion alarm\" class=alarm\n"
        "state airline \"Air-in-line alarm\" class=alarm\n"
        "state complete \"VTBI complete\"\n"
        "state bolus \"Bolus dose\" class=running\n"
        "state secondary \"Secondary infusion\\n(piggyback)\" class=running\n"
        "state dooropen \"Door open alarm\" class=alarm\n"
        "state lowbatt \"Low battery warning\"\n"
        "state standby \"Standby\\n(program held)\"\n"
        "state titrate \"Titrating rate\"\n"
        "transition off -[power on]-> selftest\n"
        "transition idle -[new infusion]-> programming\n"
        "transition infusing -[downstream pressure high]-> occlusion\n"
        "transition infusing -[air bubble > 50 µL]-> airline\n"
        "transition occlusion -[cleared + restart]-> infusing\n"
        "transition airline -[primed + restart]-> infusing\n"
        "transition infusing -[volume to be infused reached]-> kvo\n"
        "transition kvo -[acknowledged]-> complete\n"
        "transition complete -[new bag / reprogram]-> programming\n"
        "transition idle -[power off]-> off\n"
        "transition infusing -[bolus key, within limit]-> bolus\n"
        "transition infusing -[secondary bag programmed]-> secondary\n"
        "transition infusing -[door opened]-> dooropen\n"
        "transition infusing -[battery < 30 min on battery]-> lowbatt\n"
        "transition lowbatt -[mains connected]-> infusing\n"
        "transition lowbatt -[battery depleted]-> off style=dashed\n"
        "transition idle -[standby key]-> standby\n"
        "transition standby -[resume]-> programming\n"
        "transition infusing -[rate change]-> titrate\n"
        "transition titrate -[confirmed]-> infusing\n")


def test_a_transition_and_its_way_back_leaving_by_a_side_take_two_tracks() -> None:
    # Infusing's side the flow leaves is too short for its transitions, so some leave
    # by its sides; a transition out and its way back from one state both ran level with
    # that state on one track (two connectors drawn as one line over a stretch)
    svg = build(PUMP).svg
    assert _shared_runs(svg) == []


def test_a_lane_runs_beside_the_ranks_it_passes_not_round_the_whole_figure() -> None:
    # a retry between two steps at the foot of a figure whose top rank is wide went out
    # past that rank, far from the steps it joins
    src = ("figdown 0.2 flowchart\nprocess start \"Start\"\nprocess a1 \"Collect the first input\"\n"
           "process a2 \"Collect the second input\"\nprocess a3 \"Collect the third input\"\n"
           "process a4 \"Collect the fourth input\"\nprocess merge \"Merge\"\nprocess send \"Send\"\n"
           "decision ok \"Acknowledged?\"\nterminator done \"Done\"\n"
           "flowline start -> a1\nflowline start -> a2\nflowline start -> a3\nflowline start -> a4\n"
           "flowline a1 -> merge\nflowline a2 -> merge\nflowline a3 -> merge\nflowline a4 -> merge\n"
           "flowline merge -> send\nflowline send -> ok\nflowline ok -[yes]-> done\nflowline ok -[no]-> merge\n")
    drawn, edges = _drawing(src)
    boxes = {nid: (x, x + w) for nid, (x, _y, w, _h) in drawn.items()}
    xs = [x for x, _y in edges[_line_of(src, "flowline ok -[no]-> merge")]]
    wide = (min(boxes[k][0] for k in ("a1", "a2", "a3", "a4")), max(boxes[k][1] for k in ("a1", "a2", "a3", "a4")))
    near = (min(boxes[k][0] for k in ("merge", "send", "ok")), max(boxes[k][1] for k in ("merge", "send", "ok")))
    assert wide[0] < near[0] and near[1] < wide[1]
    assert wide[0] < min(xs) and max(xs) < wide[1], (xs, wide, near)


def test_lanes_whose_stretches_overlap_without_nesting_go_round_opposite_sides() -> None:
    """A row of Wi-Fi states: the deauthentication lane runs from "Connected" back past
    the whole row, and the roam lane from "Roaming" back to the handshake, which starts
    inside it and ends outside: on one side one's leg crossed the other's run, so the
    roam goes round the other side."""
    source = ("figdown 0.2 statechart\nflow right\nstate off \"Disconnected\"\nstate scan \"Scanning\"\n"
              "state auth \"Authenticating\\n(open system)\"\nstate assoc \"Associating\"\n"
              "state hs \"4-way handshake\"\nstate conn \"Connected\\n(keys installed)\"\nstate roam \"Roaming\"\n"
              "transition off -[connect request]-> scan\ntransition scan -[no matching BSS]-> scan\n"
              "transition scan -[BSS selected]-> auth\ntransition auth -[auth response OK]-> assoc\n"
              "transition assoc -[assoc response OK]-> hs\ntransition hs -[msg 4 sent]-> conn\n"
              "transition hs -[MIC failure / timeout]-> off\ntransition auth -[timeout]-> scan\n"
              "transition conn -[RSSI below roam threshold]-> roam\ntransition roam -[reassociated]-> hs\n"
              "transition roam -[no candidate]-> conn\ntransition conn -[GTK rekey]-> conn\n"
              "transition conn -[deauth / beacon loss]-> off\n")
    svg = build(source).svg
    assert crossings(svg) == []
    ys = {key: [p[1] for p, q in segs] for key, segs in _runs_by_key(svg).items()}
    deauth = _line_of(source, "transition conn -[deauth / beacon loss]-> off")
    roam = _line_of(source, "transition roam -[reassociated]-> hs")
    boxes = _boxes(svg)
    top, bottom = min(b[1] for b in boxes.values()), max(b[3] for b in boxes.values())
    assert min(ys[deauth]) < top and max(ys[roam]) > bottom


def _runs_by_key(svg: str) -> dict[str, list]:
    found: dict[str, list] = {}
    for key, p, q in segments(svg):
        found.setdefault(key, []).append((p, q))
    return found


KILN = ("figdown 0.3 statechart\nclass run \"Heating\" fill=#dcfce7\nclass halt \"Halted\" fill=#fee2e2\n"
        "state off \"OFF\"\nstate boot \"CONTROLLER START\"\nstate calib \"CALIBRATE\\n(thermocouples)\"\n"
        "state idle \"IDLE\\n(elements off)\"\nstate firing \"FIRING\\n(ramp program)\" class=run\n"
        "state soak \"SOAK\\n(hold at peak)\" class=run\nstate trip \"TRIPPED\\n(over-temperature)\" class=halt\n"
        "state fault \"SENSOR FAULT\" class=halt\ntransition off -[mains on]-> boot\n"
        "transition boot -[self-check passed]-> calib\ntransition boot -[self-check failed]-> fault\n"
        "transition calib -[probes agree]-> idle\ntransition idle -[program loaded, door shut, start]-> firing\n"
        "transition firing -[peak reached]-> soak\ntransition soak -[hold time over]-> idle\n"
        "transition firing -[limit switch opened]-> trip\ntransition trip -[cooled, reset]-> calib\n"
        "transition firing -[open thermocouple]-> fault\ntransition idle -[mains off]-> off\n")


def test_a_lane_out_takes_the_side_facing_it_past_a_lane_running_between() -> None:
    """IDLE's "mains off" goes back round below the figure, outside the lane from
    TRIPPED back to CALIBRATE, which passes under IDLE.  With that lane between, it was
    left to IDLE's side the flow meets, and its leg down to its lane crossed the lane
    coming back into IDLE's bottom as well.  A lane out takes the side facing it past
    a lane running between: it crosses only that one."""
    svg = build(KILN).svg
    lines = KILN.split("\n")
    found = crossings(svg)
    named = {tuple(sorted((lines[int(a) - 1], lines[int(b) - 1]))) for a, b in found}
    assert tuple(sorted(("transition idle -[mains off]-> off", "transition soak -[hold time over]-> idle"))) not in named
    assert len(found) == 2



# "Unlocked" goes back to "Screen off" round below the figure, and the side below holds
# its self-loop
PHONE = ("figdown 0.2 statechart\nflow right\nstate off \"Screen off\"\nstate locked \"Lock screen\"\n"
         "state open \"Unlocked\"\nstate pin \"PIN required\\n(biometrics disabled)\"\n"
         "state wait \"Retry cool-down\\n(30 s → 1 h)\"\nstate wipe \"Wiped\\n(after 10 failures)\"\n"
         "transition off -[power button / raise to wake]-> locked\ntransition locked -[5 biometric failures]-> pin\n"
         "transition locked -[correct PIN]-> open\ntransition pin -[5 wrong PINs]-> wait\n"
         "transition open -[screen timeout / power button]-> off\ntransition off -[restart]-> pin\n"
         "transition open -[notification]-> open\n")


def test_a_lane_leaves_beside_a_self_loop_on_the_side_facing_it() -> None:
    """"screen timeout" left "Unlocked" by its far end and went round it, under its
    self-loop, because the loop stood on the side facing the lane.  It now leaves by that
    side beside the loop, on the loop's side toward where the lane goes, clear of it."""
    svg = build(PHONE).svg
    lines = PHONE.split("\n")
    key = str(lines.index("transition open -[screen timeout / power button]-> off") + 1)
    loop = _loop(svg, str(lines.index("transition open -[notification]-> open") + 1))
    left, top, right, bottom = _boxes(svg)["open"]
    runs = [(p, q) for k, p, q in segments(svg) if k == key]
    start = runs[0][0]
    assert abs(start[1] - bottom) < 0.5 and left < start[0] < right, start
    legs = sorted(p[0] for p in loop)
    assert abs((legs[0] + legs[-1]) / 2 - (left + right) / 2) < 0.5   # the loop stays at the middle
    assert legs[0] - start[0] >= 10, (start, legs)   # beside it, toward the lane's run
    assert runs[0][1][1] > start[1] and runs[0][1][0] == start[0]   # straight down from the side
    assert not any(_cross(s, t) for s in runs for t in zip(loop, loop[1:]))



# STANDBY and SPEED HOLD are joined by three labelled transitions: the third goes round
# under the pair; "brake" comes back round over the figure into STANDBY
CRUISE = (
           "figdown 0.3 statechart\n"
           "state off \"OFF\"\n"
           "state standby \"STANDBY\\n(armed, not controlling)\"\n"
           "state hold \"SPEED HOLD\"\n"
           "state accel \"ACCELERATING\\n(+ held)\"\n"
           "state coast \"COASTING\\n(− held)\"\n"
           "state override \"DRIVER OVERRIDE\\n(accelerator pressed)\"\n"
           "state fault \"FAULT\\n(wheel-speed signal lost)\"\n"
           "transition off -[ON button]-> standby\n"
           "transition standby -[SET, speed ≥ 40 km/h / store speed]-> hold\n"
           "transition standby -[RES, stored speed exists]-> hold\n"
           "transition hold -[+ held]-> accel\n"
           "transition hold -[brake or clutch]-> standby\n"
           "transition accel -[brake]-> standby\n"
           "transition standby -[sensor fault]-> fault\n")


def test_a_lane_comes_in_by_the_side_a_pair_s_round_line_leaves_free() -> None:
    """With three labelled lines between STANDBY and SPEED HOLD, both boxes' lanes were
    sent to their ends, the flow's sides (the third line goes round the pair): "brake"
    came round over the figure, down past STANDBY's corner and into its end, its
    arrowhead 8 px from a second lane's beside the pair's straight lines.  A third line
    goes round under the pair (a fourth over it), so the lane comes in by the top, the
    side facing it."""
    svg = build(CRUISE).svg
    lines = CRUISE.split("\n")
    key = str(lines.index("transition accel -[brake]-> standby") + 1)
    left, top, right, _bottom = _boxes(svg)["standby"]
    end = [q for k, _p, q in segments(svg) if k == key][-1]
    assert abs(end[1] - top) < 0.5 and left < end[0] < right, end
    assert crossings(svg) == []



# three transitions come round over the figure into DELETED, whose end the flow meets
# already takes BLOCKED's straight line
UPLOAD = (
          "figdown 0.3 statechart\n"
          "state uploading \"UPLOADING\\n(resumable, chunked)\"\n"
          "state paused \"UPLOAD PAUSED\"\n"
          "state queued \"QUEUED FOR\\nPROCESSING\"\n"
          "state transcoding \"TRANSCODING\\n(1080p, 720p, 480p, audio)\"\n"
          "state failed \"PROCESSING FAILED\"\n"
          "state scanning \"CONTENT SCAN\\n(copyright match, safety)\"\n"
          "state review \"MANUAL REVIEW\"\n"
          "state scheduled \"SCHEDULED\\n(premiere time set)\"\n"
          "state published \"PUBLISHED\"\n"
          "state blocked \"BLOCKED\\n(policy violation)\"\n"
          "state deleted \"DELETED\"\n"
          "transition uploading -[connection lost]-> paused\n"
          "transition paused -[24 h without resume]-> deleted\n"
          "transition transcoding -[codec error]-> failed\n"
          "transition failed -[retries exhausted]-> deleted\n"
          "transition scanning -[clean]-> published\n"
          "transition scanning -[clean, premiere time set]-> scheduled\n"
          "transition scheduled -[premiere starts]-> published\n"
          "transition scanning -[match score 0.6–0.9]-> review\n"
          "transition scanning -[match score > 0.9]-> blocked\n"
          "transition review -[rejected]-> blocked\n"
          "transition published -[copyright claim filed]-> review\n"
          "transition published -[owner deletes]-> deleted\n"
          "transition blocked -[owner deletes]-> deleted\n")


def test_a_side_that_holds_more_entries_than_come_takes_them_all() -> None:
    """DELETED's top holds four side entries and three runs came past it: one took the top
    and two came down its end 7 px apart, arrowheads touching (only the last of the runs
    was taken where the side held more than came).  All three now come in by the top,
    a head's width apart, nested."""
    svg = build(UPLOAD).svg
    left, top, right, _bottom = _boxes(svg)["deleted"]
    last: dict[str, tuple[float, float]] = {}
    for key, _p, q in segments(svg):
        last[key] = q
    lines = UPLOAD.split("\n")
    into = [str(lines.index(t) + 1) for t in ("transition paused -[24 h without resume]-> deleted",
                                               "transition failed -[retries exhausted]-> deleted",
                                               "transition published -[owner deletes]-> deleted")]
    xs = sorted(last[k][0] for k in into)
    assert all(abs(last[k][1] - top) < 0.5 and left < last[k][0] < right for k in into)
    assert all(b - a >= 16 - 0.01 for a, b in zip(xs, xs[1:]))
    assert not [pair for pair in crossings(svg) if set(pair) <= set(into)]   # they nest
