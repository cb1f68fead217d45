"""Connectors along the flow that say the same into one box merge into one bus.

Three or more forward arrows into one box, alike (stroke, dash) and with the same label,
one at least across two ranks, share their trunk from where each joins it: one port, one
arrowhead, a junction dot at every join, each member's label on its own leg.  A figure
keeps its buses only where they add no crossing.  Every check reads the drawn SVG.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

from markmcp.figdown.render import build
from markmcp.figdown.render import scene

from .test_render_routes_clear import _vertices

SVG = "{http://www.w3.org/2000/svg}"

TRIAGE = ("figdown 0.1 flowchart\nprocess intake \"Intake ticket\"\ndecision d1 \"Security issue?\"\n"
          "decision d2 \"Customer data?\"\ndecision d3 \"Outage?\"\ndecision d4 \"Billing?\"\n"
          "process esc \"Escalate to duty manager\"\nprocess std \"Standard queue\"\n"
          "terminator done \"Ticket routed\"\nedge intake -> d1\nedge d1 -[yes]-> esc\nedge d1 -[no]-> d2\n"
          "edge d2 -[yes]-> esc\nedge d2 -[no]-> d3\nedge d3 -[yes]-> esc\nedge d3 -[no]-> d4\n"
          "edge d4 -[yes]-> esc\nedge d4 -[no]-> std\nedge esc -> done\nedge std -> done\n")

USB = ("figdown 0.2 statechart\nflow down\nstate det \"Detached\"\nstate att \"Attached\"\n"
       "state pow \"Powered\"\nstate def \"Default\"\nstate adr \"Address\"\nstate cfg \"Configured\"\n"
       "state sus \"Suspended\"\ntransition det -[VBUS]-> att\ntransition att -[hub power]-> pow\n"
       "transition pow -[bus reset]-> def\ntransition def -[SET_ADDRESS]-> adr\n"
       "transition adr -[SET_CONFIGURATION]-> cfg\ntransition pow -[bus inactive 3 ms]-> sus\n"
       "transition def -[bus inactive 3 ms]-> sus\ntransition adr -[bus inactive 3 ms]-> sus\n"
       "transition sus -[bus activity]-> cfg\n")


STORE = ("figdown 0.1 block\nflow right\ngroup store \"Store\"\nnode pos1 \"POS lane 1\" in=store\n"
         "node pos2 \"POS lane 2\" in=store\nnode sco \"Self-checkout\" in=store\n"
         "node scale \"Deli scale\" in=store\nnode pinpad \"PIN pad\" in=store\n"
         "node ssrv \"Store server\" in=store\nnode hh \"Handheld scanners\" in=store\n"
         "group hq \"Head office\"\nnode oms \"Order management\" in=hq\nnode pricing \"Price engine\" in=hq\n"
         "node psp \"Payment processor\"\nnode ecom \"Web shop\"\n"
         "edge pos1 -> ssrv\nedge pos2 -> ssrv\nedge sco -> ssrv\nedge scale -[PLU weights]-> ssrv\n"
         "edge pos1 -> pinpad\nedge pinpad -[EMV]-> psp\nedge hh -[stock counts]-> ssrv\n"
         "edge pricing -[price file]-> ssrv\nedge ecom -> oms\nedge oms -[click & collect]-> ssrv\n"
         "rank pos1,pos2,sco,scale,hh\n")   # (each a source: else they stand just before the server)


def _drawn_length(d: str) -> float:
    """A path's length as a browser lays a dash along it: lines, and each quadratic
    corner sampled in 200 chords (written here afresh, not the renderer's sum)."""
    tokens = re.sub(r"([A-Za-z])", r" \1 ", d).replace(",", " ").split()
    total, at, i = 0.0, None, 0
    while i < len(tokens):
        cmd = tokens[i]
        if cmd == "M":
            at = (float(tokens[i + 1]), float(tokens[i + 2]))
            i += 3
        elif cmd == "L":
            p = (float(tokens[i + 1]), float(tokens[i + 2]))
            total += math.dist(at, p)
            at, i = p, i + 3
        elif cmd == "Q":
            c = (float(tokens[i + 1]), float(tokens[i + 2]))
            p = (float(tokens[i + 3]), float(tokens[i + 4]))
            prev = at
            for k in range(1, 201):
                t = k / 200
                q = ((1 - t) ** 2 * at[0] + 2 * (1 - t) * t * c[0] + t * t * p[0],
                     (1 - t) ** 2 * at[1] + 2 * (1 - t) * t * c[1] + t * t * p[1])
                total += math.dist(prev, q)
                prev = q
            at, i = p, i + 5
        else:
            i += 1
    return total


def members(svg: str) -> dict[str, list[ET.Element]]:
    """Each bus's member paths, by the bus's name."""
    out: dict[str, list[ET.Element]] = {}
    for el in ET.fromstring(svg).iter(SVG + "path"):
        if el.get("data-bus"):
            out.setdefault(el.get("data-bus"), []).append(el)
    return out


def dots(svg: str) -> list[tuple[float, float]]:
    return [(float(c.get("cx")), float(c.get("cy"))) for c in ET.fromstring(svg).iter(SVG + "circle")
            if c.get("r") == "3"]


def box(svg: str, nid: str) -> tuple[float, float, float, float]:
    g = next(g for g in ET.fromstring(svg).iter(SVG + "g") if g.get("data-node") == nid)
    shape = next(iter(g))
    if shape.tag == SVG + "polygon":
        xy = [tuple(map(float, p.split(","))) for p in shape.get("points").split()]
        xs, ys = [p[0] for p in xy], [p[1] for p in xy]
        return min(xs), min(ys), max(xs), max(ys)
    x, y = float(shape.get("x")), float(shape.get("y"))
    return x, y, x + float(shape.get("width")), float(shape.get("height")) + y


def labels(svg: str, text: str) -> list[tuple[float, float]]:
    """Where each connector label reading ``text`` is written (its halo left out)."""
    return [(float(t.get("x")), float(t.get("y"))) for t in ET.fromstring(svg).iter(SVG + "text")
            if (t.text or "") == text and t.get("stroke") is None]


def test_four_decisions_saying_yes_into_one_box_share_one_trunk() -> None:
    svg = build(TRIAGE).svg
    buses = members(svg)
    assert len(buses) == 1
    (paths,) = buses.values()
    assert len(paths) == 4
    ends = {tuple(round(v, 2) for v in _vertices(p)[-1]) for p in paths}
    assert len(ends) == 1                       # one port, so one arrowhead
    x0, y0, x1, _y1 = box(svg, "esc")
    (end,) = ends
    assert x0 < end[0] < x1 and abs(end[1] - y0) < 0.5
    # each leaves its decision by the side vertex (the flowchart convention), not its point
    for p in paths:
        start = _vertices(p)[0]
        dx0, dy0, dx1, dy1 = box(svg, _source(TRIAGE, p.get("data-edge")))
        assert abs(start[1] - (dy0 + dy1) / 2) < 0.5 and abs(start[0] - dx0) < 0.5
    # the three later exits each join the trunk at a dot on it
    trunk = _vertices(paths[0])
    joins = dots(svg)
    assert len(joins) == 3
    assert all(any(_on_segment(j, a, b) for a, b in zip(trunk, trunk[1:])) for j in joins)
    # and each "yes" stands by its own decision, not stacked on the trunk
    said = labels(svg, "yes")
    assert len(said) == 4
    for nid in ("d1", "d2", "d3", "d4"):
        bx0, by0, bx1, by1 = box(svg, nid)
        assert sum(1 for x, y in said if bx0 - 60 < x < bx0 + 10 and by0 - 10 < y < by1 + 25) == 1, nid


def _source(source: str, key: str) -> str:
    """The box a connector leaves: its ``edge`` line (``data-edge``) read back."""
    return source.split("\n")[int(key) - 1].split()[1]


def _on_segment(p, a, b) -> bool:
    if abs(a[0] - b[0]) < 0.01:
        return abs(p[0] - a[0]) < 0.05 and min(a[1], b[1]) - 0.05 <= p[1] <= max(a[1], b[1]) + 0.05
    if abs(a[1] - b[1]) < 0.01:
        return abs(p[1] - a[1]) < 0.05 and min(a[0], b[0]) - 0.05 <= p[0] <= max(a[0], b[0]) + 0.05
    return False


def test_a_bus_of_transitions_labels_each_by_its_own_lines() -> None:
    # "bus inactive 3 ms" from Powered, Default and Address into Suspended: three lines
    # down the figure's side; each label stands by its own leg where that is free, else by
    # the trunk it shares, never nearer another transition's line than the bus's own
    # (stood by its leg at any price, two read as "bus reset"'s and "SET_ADDRESS"'s)
    svg = build(USB).svg
    buses = members(svg)
    assert len(buses) == 1 and len(next(iter(buses.values()))) == 3
    said = labels(svg, "bus inactive 3 ms") + labels(svg, "bus inactive")
    assert len(said) == 3
    assert min(math.dist(p, q) for i, p in enumerate(said) for q in said[i + 1:]) > 20
    lines = []
    for el in ET.fromstring(svg).iter():
        if el.get("data-edge") is not None and el.tag in (SVG + "path", SVG + "line"):
            pts = _vertices(el)
            lines.append((el.get("data-bus"), list(zip(pts, pts[1:]))))
    for x, y in said:
        centre = (x, y - 4)
        nearest = min(lines, key=lambda line: min(_point_segment(centre, a, b) for a, b in line[1]))
        assert nearest[0], (x, y)


def _point_segment(p, a, b) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def test_a_dashed_bus_lays_its_dashes_on_one_another() -> None:
    """Each member's dash pattern ends on a period's start where the members end
    together, so along the trunk they share the dashes coincide (each starting at its
    own start, they filled each other's gaps and the trunk drew solid)."""
    src = TRIAGE.replace("-[yes]-> esc", "-[yes]-> esc style=dashed")
    svg = build(src).svg
    (paths,) = members(svg).values()
    assert len(paths) == 4
    for p in paths:
        pattern = [float(v) for v in p.get("stroke-dasharray").split()]
        period = sum(pattern)
        phase = (_drawn_length(p.get("d")) + float(p.get("stroke-dashoffset", "0"))) % period
        assert min(phase, period - phase) < 0.1, (p.get("data-edge"), phase)


def test_lines_that_say_different_things_do_not_merge() -> None:
    src = TRIAGE.replace("d2 -[yes]-> esc", "d2 -[yes, PII]-> esc").replace("d3 -[yes]", "d3 -[outage]")
    svg = build(src).svg
    # two "yes" lines are left: fewer than three do not merge
    assert members(svg) == {}


def test_a_figure_keeps_separate_lines_where_a_bus_would_cross_more(monkeypatch) -> None:
    """Three tills into the store server merged into a trunk crossed the scale's line
    and the scanners' more than three lines side by side did; the figure keeps those."""
    svg = build(STORE).svg
    assert "data-bus" not in svg
    kept = _crossings(svg)
    # the same figure made to merge whatever the crossings
    monkeypatch.setattr(scene, "_crossings", lambda s: 0 if s.merge else 1)
    forced = build(STORE).svg
    assert len(members(forced)) == 1
    assert _crossings(forced) > kept


def _crossings(svg: str) -> int:
    lines = []
    for el in ET.fromstring(svg).iter():
        if el.tag == SVG + "path" and el.get("data-edge") and el.get("fill") == "none":
            lines.append((el.get("data-bus"), _vertices(el)))
        elif el.tag == SVG + "line" and el.get("data-edge"):
            lines.append((None, [(float(el.get("x1")), float(el.get("y1"))),
                                 (float(el.get("x2")), float(el.get("y2")))]))
    count = 0
    for i, (ba, pa) in enumerate(lines):
        for bb, pb in lines[i + 1:]:
            if ba and ba == bb:
                continue
            for a, b in zip(pa, pa[1:]):
                for c, d in zip(pb, pb[1:]):
                    count += _proper(a, b, c, d)
    return count


def _proper(a, b, c, d) -> bool:
    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    s1, s2, s3, s4 = side(a, b, c), side(a, b, d), side(c, d, a), side(c, d, b)
    return s1 * s2 < -1e-9 and s3 * s4 < -1e-9


def _small_steps(pts) -> list[float]:
    """The runs shorter than 8 px between two longer ones (a step of a few px)."""
    runs = [math.dist(a, b) for a, b in zip(pts, pts[1:])]
    return [r for k, r in enumerate(runs) if 0 < k < len(runs) - 1 and 0.3 < r < 8]


def _one_bus_of_three(svg: str) -> list:
    """The drawn paths of the figure's one merge bus, which has three members."""
    buses = members(svg)
    assert len(buses) == 1 and len(next(iter(buses.values()))) == 3
    return next(iter(buses.values()))


def test_a_member_from_the_rank_before_joins_the_trunk_straight() -> None:
    # three outcomes into "Done": the one just above it came down 5 px off the trunk's
    # port and stepped onto it just above the join
    src = ("figdown 0.2 flowchart\nterminator go \"Start\"\ndecision a \"First check?\"\n"
           "process p \"Prepare\"\ndecision b \"Second check?\"\nprocess x \"Outcome X\"\n"
           "process y \"Outcome Y\"\nprocess z \"Outcome Z\"\nterminator done \"Done\"\n"
           "flowline go -> a\nflowline a -[yes]-> p\nflowline a -[no]-> x\nflowline p -> b\n"
           "flowline b -[yes]-> y\nflowline b -[no]-> z\nflowline x -> done\nflowline y -> done\n"
           "flowline z -> done\n")
    svg = build(src).svg
    for p in _one_bus_of_three(svg):
        assert _small_steps(_vertices(p)) == [], (p.get("data-edge"), _vertices(p))
    assert len(dots(svg)) >= 1


def test_a_decisions_member_leaving_by_its_side_point_runs_level_with_the_trunk() -> None:
    # flow right: the last decision's "no" rose from its top point to the box's middle,
    # then stepped 13 px up onto the trunk the earlier "no"s share, just before the port
    src = ("figdown 0.2 flowchart\nflow right\nprocess s \"Stage\"\ndecision c1 \"Schema ok?\"\n"
           "process f \"Freshness\"\ndecision c2 \"Fresh?\"\nprocess u \"Uniqueness\"\n"
           "decision c3 \"No duplicates?\"\nprocess q \"Keep previous version;\\nquarantine staging\"\n"
           "process ok \"Publish\"\nflowline s -> c1\nflowline c1 -[no]-> q\nflowline c1 -[yes]-> f\n"
           "flowline f -> c2\nflowline c2 -[no]-> q\nflowline c2 -[yes]-> u\nflowline u -> c3\n"
           "flowline c3 -[no]-> q\nflowline c3 -[yes]-> ok\n")
    for p in _one_bus_of_three(build(src).svg):
        assert _small_steps(_vertices(p)) == [] and len(_vertices(p)) <= 4, (p.get("data-edge"), _vertices(p))


def test_a_member_with_a_line_back_beside_it_stays_on_its_trunk() -> None:
    # Configured's "bus inactive" joins the trunk into Suspended, and "bus activity" goes
    # back beside it: spreading the pair apart put the member 21 px off the trunk's port,
    # so it came in beside the trunk's own arrowhead instead of joining it
    src = USB + "transition cfg -[bus inactive 3 ms]-> sus\n"
    svg = build(src).svg
    (paths,) = members(svg).values()
    assert len(paths) == 4
    ends = {tuple(round(v, 2) for v in _vertices(p)[-1]) for p in paths}
    assert len(ends) == 1
    assert all(_small_steps(_vertices(p)) == [] for p in paths)


def test_a_trunk_within_the_widest_decision_moves_out_past_its_side_vertex() -> None:
    """CORS: three "yes" exits into "Send actual request" share a trunk that stood under
    the first decision, the widest, inside its width: its "yes" left from beside the
    bottom point and ran along under the diamond.  The trunk moves out past that
    decision's side vertex, and every member leaves its decision by that vertex."""
    src = ("figdown 0.2 flowchart\nexternal js \"fetch() from https://app.example\"\n"
           "decision simple \"Simple request?\\n(GET/HEAD/POST, safe headers)\"\n"
           "decision cache \"Preflight cached?\\n(Access-Control-Max-Age)\"\n"
           "process options \"Send OPTIONS preflight\"\n"
           "decision allowed \"Origin, method & headers\\nallowed in response?\"\n"
           "process send \"Send actual request\"\ndecision acao \"Response has matching\\n"
           "Access-Control-Allow-Origin?\"\nprocess expose \"Expose response to script\"\n"
           "terminator err \"TypeError: Failed to fetch\"\nflowline js -> simple\n"
           "flowline simple -[yes]-> send\nflowline simple -[no]-> cache\nflowline cache -[yes]-> send\n"
           "flowline cache -[no]-> options\nflowline options -> allowed\nflowline allowed -[yes]-> send\n"
           "flowline allowed -[no]-> err\nflowline send -> acao\nflowline acao -[yes]-> expose\n"
           "flowline acao -[no]-> err\n")
    svg = build(src).svg
    (paths,) = members(svg).values()
    assert len(paths) == 3
    for p in paths:
        start = _vertices(p)[0]
        dx0, dy0, dx1, dy1 = box(svg, _source(src, p.get("data-edge")))
        assert abs(start[1] - (dy0 + dy1) / 2) < 0.5 and abs(start[0] - dx0) < 0.5, p.get("data-edge")


COLO = ("figdown 0.5 topology\nflow right\ngroup exch \"Meet-me room\"\nnode orderA \"Order entry A\" in=exch\n"
        "node orderB \"Order entry B\" in=exch\nnode md \"Market data\" in=exch\ngroup cage \"Our cage\"\n"
        "node l1 \"L1 switch\" in=cage\nnode t1 \"Trading server 1\" in=cage\nnode t2 \"Trading server 2\" in=cage\n"
        "edge md -- l1\nedge l1 [p1] -- [eth0] t1\nedge l1 [p2] -- [eth0] t2\n"
        "edge t1 [eth1] -- [xe-0] orderA\nedge t1 [eth2] -- [xe-0] orderB\n"
        "edge t2 [eth1] -- [xe-1] orderA\nedge t2 [eth2] -- [xe-1] orderB\nrank md,orderA,orderB\n")


def test_a_topologys_cables_round_the_figure_never_share_a_run() -> None:
    """Two cross-connects from the servers into one switch's ports xe-0 and xe-1 went
    round the figure as one line (one lane, a junction dot), into one port square that
    carried both port names: each cable keeps its own run and its own port."""
    svg = build(COLO).svg
    assert "data-bus" not in svg
    root = ET.fromstring(svg)
    lines = COLO.split("\n")
    ends = {}
    for el in root.iter():
        key = el.get("data-edge")
        if key is not None and el.tag in (SVG + "line", SVG + "path"):
            ends[lines[int(key) - 1]] = _vertices(el)[-1]
    into_a = [p for line, p in ends.items() if "orderA" in line]
    assert len(into_a) == 2 and math.dist(*into_a) >= 7.0   # two port squares, apart
