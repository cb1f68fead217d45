"""No connector enters a box that is not one of its two ends.

Every check reads the drawn SVG: a connector (``data-edge``, the source line of its
``edge``) is its line or path as written, a rounded corner taken at its true vertex
(the control point); a box is the outline its ``data-node`` wrapper draws first
(rectangle, ellipse or polygon).  A connector *enters* a box when a point of it lies
more than 1 px inside that outline.  Boxes the author pinned over one of the
connector's ends are left out (the overlap is theirs).
"""

from __future__ import annotations

import itertools
import math
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from markmcp.figdown.render import build

from conftest import shared_dir

from .test_render_band_titles import segments

SVG = "{http://www.w3.org/2000/svg}"
INSIDE = 1.0


def _vertices(el) -> list[tuple[float, float]]:
    if el.tag == SVG + "line":
        return [(float(el.get("x1")), float(el.get("y1"))), (float(el.get("x2")), float(el.get("y2")))]
    tokens = re.sub(r"([A-Za-z])", r" \1 ", el.get("d", "")).replace(",", " ").split()
    pts: list[tuple[float, float]] = []
    i = 0
    while i < len(tokens):
        if tokens[i] in ("M", "L"):
            pts.append((float(tokens[i + 1]), float(tokens[i + 2])))
            i += 3
        elif tokens[i] == "Q":   # the corner's true vertex is the control point
            pts[-1] = (float(tokens[i + 1]), float(tokens[i + 2]))
            i += 5
        else:
            i += 1
    return pts


def _shape(g) -> tuple:
    el = next(c for c in g if c.tag[len(SVG):] in ("rect", "ellipse", "polygon"))
    tag = el.tag[len(SVG):]
    if tag == "rect":
        x, y, w, h = (float(el.get(k)) for k in ("x", "y", "width", "height"))
        return ("rect", (x, y, w, h))
    if tag == "ellipse":
        cx, cy, rx, ry = (float(el.get(k)) for k in ("cx", "cy", "rx", "ry"))
        return ("ellipse", (cx - rx, cy - ry, 2 * rx, 2 * ry), cx, cy, rx, ry)
    pts = [tuple(map(float, p.split(","))) for p in el.get("points").split()]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return ("polygon", (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)), pts)


def _inside(p, shape) -> bool:
    x, y, w, h = shape[1]
    if not (x + INSIDE < p[0] < x + w - INSIDE and y + INSIDE < p[1] < y + h - INSIDE):
        return False
    if shape[0] == "rect":
        return True
    if shape[0] == "ellipse":
        _, _, cx, cy, rx, ry = shape
        u, v = (p[0] - cx) / (rx - INSIDE), (p[1] - cy) / (ry - INSIDE)
        return u * u + v * v < 1
    pts = shape[2]   # a convex polygon (a diamond): inside every edge by more than INSIDE
    sign = 0.0
    for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]):
        length = math.hypot(x1 - x0, y1 - y0) or 1.0
        d = ((x1 - x0) * (p[1] - y0) - (y1 - y0) * (p[0] - x0)) / length
        if abs(d) <= INSIDE or (sign and (d > 0) != (sign > 0)):
            return False
        sign = d
    return True


def _enters(pts, shape) -> bool:
    for a, b in zip(pts, pts[1:]):
        n = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) / 0.5))
        if any(_inside((a[0] + k / n * (b[0] - a[0]), a[1] + k / n * (b[1] - a[1])), shape)
               for k in range(n + 1)):
            return True
    return False


def _overlap(r, s) -> bool:
    return r[0] < s[0] + s[2] and s[0] < r[0] + r[2] and r[1] < s[1] + s[3] and s[1] < r[1] + r[3]


def entering(source: str) -> list[tuple[str, str]]:
    """(the connector's id or source line, box it enters) for every connector of the drawing."""
    out = build(source)
    assert out.svg is not None, out.error_lines()
    ends = {str(e["id"] if e.get("id") is not None else e.get("line")): (e["a"], e["b"])
            for doc in out.result.docs for e in getattr(doc, "edges", ())}
    found = []
    root = ET.fromstring(out.svg)
    for section in (root.findall(SVG + "g") or [root]):
        boxes = {g.get("data-node"): _shape(g) for g in section.iter(SVG + "g") if g.get("data-node")}
        for el in section.iter():
            if el.get("data-edge") is None or el.tag not in (SVG + "line", SVG + "path"):
                continue
            line = el.get("data-edge")
            a, b = ends[line]
            own = [boxes[k][1] for k in (a, b) if k in boxes]
            pts = _vertices(el)
            for nid, shape in boxes.items():
                if nid in (a, b) or any(_overlap(shape[1], r) for r in own):
                    continue
                if _enters(pts, shape):
                    found.append((line, nid))
    return found


def drawn_clear(source: str) -> dict[str, list]:
    """Each connector's drawn polyline, by its ``data-edge``, once none enters a box."""
    assert entering(source) == []
    root = ET.fromstring(build(source).svg)
    return {el.get("data-edge"): _vertices(el) for el in root.iter() if el.get("data-edge")}


def test_a_topology_link_bending_past_a_box_keeps_out_of_it() -> None:
    # evpn-fabric-auto: Spine-2 -- Leaf-2 crosses the rank of Leaf-1, whose dummy was
    # packed against Leaf-1's top edge; the straight run to it cut through Leaf-1
    src = ("figdown 0.1 topology\nnode sp1 \"Spine-1\"\nnode sp2 \"Spine-2\"\nnode lf1 \"Leaf-1 (VTEP)\"\n"
           "node lf2 \"Leaf-2 (VTEP)\"\nnode lf3 \"Leaf-3 (VTEP)\"\nnode h1 \"VM-A\"\nnode h2 \"VM-B\"\n"
           "node h3 \"VM-C\"\nedge sp1 -[eBGP]- lf1\nedge sp1 -- lf2\nedge sp1 -- lf3\nedge sp2 -- lf1\n"
           "edge sp2 -- lf2\nedge sp2 -- lf3\nedge lf1 -- h1\nedge lf2 -- h2\nedge lf3 -- h3\n"
           "edge lf1 <-[VXLAN VNI 10010]-> lf2\n")
    drawn = drawn_clear(src)
    # the two spines' links end apart on Leaf-2 (a line aimed at its centre met the other there)
    ends = [drawn["11"][-1], drawn["14"][-1]]   # sp1 -- lf2, sp2 -- lf2
    assert math.dist(*ends) >= 10


def _examples() -> list[tuple[str, str]]:
    value = os.environ.get("FIGDOWN_UPSTREAM", "")
    root = Path(value)
    if not value or not (root / "examples").is_dir():
        pytest.skip("set FIGDOWN_UPSTREAM to an upstream FigDown checkout to check its example figures")
    return [(str(p.relative_to(root)), p.read_bytes().decode("utf-8"))
            for p in sorted((root / "examples").rglob("*.fd"))]


def test_no_connector_of_an_upstream_example_enters_a_foreign_box() -> None:
    documents = _examples()
    assert len(documents) >= 59
    found = [(name, hit) for name, src in documents for hit in entering(src)]
    assert found == []


def test_no_connector_of_the_conformance_corpus_enters_a_foreign_box() -> None:
    found = []
    count = 0
    for path in sorted(shared_dir("figdown", "conformance").rglob("*.fd")):
        src = path.read_bytes().decode("utf-8")
        out = build(src)
        if out.svg is None:
            continue
        count += 1
        found += [(path.name, hit) for hit in entering(src)]
    assert count > 100
    assert found == []


def test_a_circle_given_a_width_and_a_height_is_laid_out_as_drawn() -> None:
    # the reference flowchart pins its backoff circle to width=120 height=40: it was
    # drawn 120 across and laid out 40 tall, so the route to the external below it ran
    # through the circle and its head sat on the circle's edge ("Rejected -> Wait")
    src = ("figdown 0.2 flowchart\nexternal out \"to the log\"\nterminator a \"Start\"\n"
           "node w \"Wait\" shape=circle\nterminator b \"Rejected\"\nflowline a -> w\n"
           "flowline w -> out\nflowline a -> b\nflowline b -> out\nlayout\npin w width=120 height=40\n")
    root = ET.fromstring(build(src).svg)
    g = next(g for g in root.iter(SVG + "g") if g.get("data-node") == "w")
    ellipse = g.find(SVG + "ellipse")
    assert float(ellipse.get("rx")) == float(ellipse.get("ry")) == 60
    assert float(g.get("data-y")) == float(ellipse.get("cy")) - 60   # the box is the circle's
    assert entering(src) == []


def _seg_dist(p, a, b) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    u = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return math.hypot(p[0] - a[0] - u * dx, p[1] - a[1] - u * dy)


def orphan_dots(svg: str) -> list[tuple[float, float]]:
    """Junction dots (r=3 circles) that do not sit on two connectors."""
    root = ET.fromstring(svg)
    found = []
    for section in (root.findall(SVG + "g") or [root]):
        routes = [_vertices(el) for el in section.iter() if el.get("data-edge") is not None
                  and el.tag in (SVG + "line", SVG + "path")]
        for c in section.iter(SVG + "circle"):
            if c.get("r") != "3":
                continue
            p = (float(c.get("cx")), float(c.get("cy")))
            on = sum(1 for pts in routes if any(_seg_dist(p, a, b) < 0.5 for a, b in zip(pts, pts[1:])))
            if on < 2:
                found.append(p)
    return found


def test_a_merge_bus_junction_dot_sits_on_the_trunk() -> None:
    # the dots were placed before the drawing moved to the origin, and stayed behind:
    # bfd-session drew a red dot 14 px left of every line
    src = ("figdown 0.2 statechart\nstate a \"A\"\nstate b \"B\"\nstate c \"C\"\nstate d \"D\"\nflow down\n"
           "transition a -> b\ntransition b -> c\ntransition c -> d\n"
           "transition c -[reset]-> a\ntransition d -[reset]-> a\n")
    svg = build(src).svg
    assert svg.count('r="3"') == 1
    assert orphan_dots(svg) == []


def test_no_upstream_example_draws_an_orphan_dot() -> None:
    found = [(name, dot) for name, src in _examples() for dot in orphan_dots(build(src).svg)]
    assert found == []


def _look(el) -> tuple:
    return (el.get("stroke"), el.get("stroke-dasharray"))


def _collinear(a, b, c, d) -> float:
    """How long c–d runs along a–b (within 1.5 px of its line)."""
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    if length < 1e-9:
        return 0.0
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    if any(abs((p[1] - a[1]) * ux - (p[0] - a[0]) * uy) > 1.5 for p in (c, d)):
        return 0.0
    t3 = (c[0] - a[0]) * ux + (c[1] - a[1]) * uy
    t4 = (d[0] - a[0]) * ux + (d[1] - a[1]) * uy
    return max(0.0, min(length, max(t3, t4)) - max(0.0, min(t3, t4)))


def unlike_shared(svg: str) -> list[tuple[str, str, str]]:
    """Pairs of connectors that run together for more than 10 px, or end in arrowheads at
    one point, though they look different (a merge bus's members share a trunk and a
    head, and are drawn alike)."""
    root = ET.fromstring(svg)
    found = []
    for section in (root.findall(SVG + "g") or [root]):
        routes = [(el.get("data-edge"), _look(el), _vertices(el)) for el in section.iter()
                  if el.get("data-edge") is not None and el.tag in (SVG + "line", SVG + "path")]
        for i, (ka, la, pa) in enumerate(routes):
            for kb, lb, pb in routes[i + 1:]:
                if la != lb and any(_collinear(a, b, c, d) > 10 for a, b in zip(pa, pa[1:])
                                    for c, d in zip(pb, pb[1:])):
                    found.append(("run", ka, kb))
        heads = []
        for el in section.iter(SVG + "path"):
            d = el.get("d", "")
            if el.get("stroke") == "none" and d.endswith("z") and d.count("L") == 2:
                x, y = map(float, d[1:].split(" L")[0].split())
                heads.append(((x, y), el.get("fill")))
        for i, (p, fa) in enumerate(heads):
            for q, fb in heads[i + 1:]:
                if fa != fb and math.dist(p, q) < 2:
                    found.append(("head", f"{p}", f"{q}"))
    return found


def test_connectors_that_look_different_never_share_a_lane_or_an_arrowhead() -> None:
    # bfd-session: UP -> DOWN (red) and ADMINDOWN -> DOWN (purple, dashed) both go
    # round on a lane into DOWN; they were one merge bus, drawn up one track to one
    # arrowhead, the red head under the purple one
    src = ("figdown 0.2 statechart\nclass fail \"failure\" stroke=#dc2626\n"
           "class admin \"operator\" stroke=#9333ea style=dashed\nstate down \"DOWN\"\n"
           "state init \"INIT\"\nstate up \"UP\"\nstate adm \"ADMINDOWN\"\nflow down\n"
           "transition down -> init\ntransition init -> up\ntransition up -> adm class=admin\n"
           "transition up -[fail]-> down class=fail\ntransition adm -[enable]-> down class=admin\n")
    svg = build(src).svg
    assert unlike_shared(svg) == []
    assert entering(src) == []


def test_no_upstream_example_shares_a_lane_or_a_head_between_unlike_connectors() -> None:
    found = [(name, hit) for name, src in _examples() for hit in unlike_shared(build(src).svg)]
    assert found == []


def head_tips(svg: str) -> list[tuple[float, float]]:
    """The tips of the arrowheads drawn (filled three-point paths)."""
    return [(float(m.group(1)), float(m.group(2))) for m in
            re.finditer(r'<path d="M([-\d.]+) ([-\d.]+) L[-\d. ]+ L[-\d. ]+ z" fill="[^"]+" stroke="none"/>', svg)]


def test_arrowheads_into_one_side_of_a_box_do_not_touch() -> None:
    # bfd-session: the three "admin disable" heads on ADMINDOWN sat 10 px apart (two
    # routed through the channel, on ports 10 px apart) and the straight one from the
    # rank above landed 2-5 px from them; a head is 11.2 px across.  (Saying the same,
    # they now merge into one bus: here they say different things.)
    src = ("figdown 0.2 statechart\nstate down \"DOWN\"\nstate init \"INIT\"\nstate up \"UP\"\n"
           "state adm \"ADMINDOWN\"\nflow down\ntransition down -> init\ntransition init -> up\n"
           "transition down -[admin disable]-> adm\ntransition init -[admin down]-> adm\n"
           "transition up -[shut down]-> adm\n")
    root = ET.fromstring(build(src).svg)
    g = next(g for g in root.iter(SVG + "g") if g.get("data-node") == "adm")
    rect = next(iter(g))
    x0, top = float(rect.get("x")), float(rect.get("y"))
    x1, bottom = x0 + float(rect.get("width")), top + float(rect.get("height"))
    svg = build(src).svg
    # (the farthest one out, coming down just beside the box, turns into its side)
    tips = [p for p in head_tips(svg) if abs(p[1] - top) < 1 or (min(abs(p[0] - x0), abs(p[0] - x1)) < 1
                                                                  and top < p[1] < bottom)]
    assert len(tips) == 3
    assert min(math.dist(p, q) for i, p in enumerate(tips) for q in tips[i + 1:]) >= 14


CHARGER = ("figdown 0.2 statechart\nflow right\nstate detect \"Detecting battery\"\nstate pre \"Pre-charge\"\n"
           "state cc \"Constant current\"\nstate cv \"Constant voltage\"\nstate full \"Charge complete\"\n"
           "state fault \"Fault\"\ntransition detect -> pre\ntransition detect -> cc\ntransition pre -> cc\n"
           "transition cc -> cv\ntransition cv -> full\ntransition full -> cc\n"
           "transition pre -[too hot]-> fault\ntransition cc -[over temperature]-> fault\n"
           "transition cv -[thermal trip]-> fault\ntransition pre -[timer expired]-> fault\n"
           "transition fault -[battery removed]-> detect\n")


def _box_of(svg: str, nid: str) -> tuple[float, float, float, float]:
    g = next(g for g in ET.fromstring(svg).iter(SVG + "g") if g.get("data-node") == nid)
    return _shape(g)[1]


def test_a_side_too_short_for_its_arrowheads_hands_a_run_to_the_side_beside_it() -> None:
    # Fault (36 px tall) took three routed arrowheads 12 px apart on the side the flow
    # meets, and the straight one from Constant voltage landed 2 px from one of them
    svg = build(CHARGER).svg
    x, y, w, h = _box_of(svg, "fault")
    tips = [p for p in head_tips(svg) if x - 1 <= p[0] <= x + w + 1 and y - 1 <= p[1] <= y + h + 1]
    assert len(tips) == 4
    assert min(math.dist(p, q) for i, p in enumerate(tips) for q in tips[i + 1:]) >= 11.2   # a head's width
    assert sum(1 for p in tips if abs(p[1] - y) < 0.5 or abs(p[1] - y - h) < 0.5) == 1   # one from above or below


COMPILER = ("figdown 0.1 block\nflow right\nnode src \"Source text\"\nnode lex \"Lexer\"\nnode parse \"Parser\"\n"
            "node sema \"Semantic analysis\"\nnode ir \"IR generation\"\nnode opt \"Optimiser\"\n"
            "node cg \"Code generator\"\nnode obj \"Object file\" shape=cylinder\nnode diag \"Diagnostics sink\"\n"
            "node sym \"Symbol table\" shape=cylinder\nedge src -> lex\nedge lex -[tokens]-> parse\n"
            "edge parse -[AST]-> sema\nedge sema -[typed AST]-> ir\nedge ir -> opt\nedge opt -[optimised IR]-> cg\n"
            "edge cg -> obj\nedge lex -[bad character]-> diag\nedge parse -[syntax error]-> diag\n"
            "edge sema -[type mismatch or unknown name]-> diag\nedge opt -[remarks]-> diag\nedge sema <-> sym\n"
            "edge cg -[symbol addresses]-> sym\n")


def test_no_run_steps_out_under_a_steep_straight_line_s_arrowhead() -> None:
    # Diagnostics sink's side held three routed heads and the straight line up from the
    # Optimiser: the lowest run stepped out to the bottom side, and that line crossed it
    # just before its head
    svg = build(COMPILER).svg
    root = ET.fromstring(svg)
    edges = {el.get("data-edge"): _vertices(el) for el in root.iter()
             if el.get("data-edge") is not None and el.tag in (SVG + "line", SVG + "path")}
    lines = COMPILER.split("\n")
    into = [k for k in edges if lines[int(k) - 1].endswith("-> diag")]
    remarks = next(k for k in into if "[remarks]" in lines[int(k) - 1])
    assert len(into) == 4
    (a, b), = zip(edges[remarks], edges[remarks][1:])
    for key in into:
        if key != remarks:
            pts = edges[key]
            assert not any(_crosses(a, b, p, q) for p, q in zip(pts, pts[1:])), lines[int(key) - 1]


def _crosses(a, b, c, d) -> bool:
    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def _runs_cross(p, q) -> bool:
    """Do two polylines cross anywhere (a proper crossing of two of their runs)?"""
    def side(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return any(side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0
               for a, b in zip(p, p[1:]) for c, d in zip(q, q[1:]))


def test_an_externals_lines_bending_down_to_three_sites_neither_cross_nor_clip_a_box() -> None:
    # anycast-dns: the resolvers' three lines left their point in the wrong order (two
    # crossed just below it), and the longest ran shallowly over the corner of the
    # middle site's router on its way to the first site's
    src = ("figdown 0.1 topology\nflow down\nexternal inet \"Internet resolvers\"\n"
           "group ams \"PoP Amsterdam\"\nnode r_ams \"edge router\" in=ams\nnode d_ams1 \"ns-ams-1\" in=ams\n"
           "node d_ams2 \"ns-ams-2\" in=ams\ngroup sin \"PoP Singapore\"\nnode r_sin \"edge router\" in=sin\n"
           "node d_sin1 \"ns-sin-1\" in=sin\ngroup iad \"PoP Ashburn\"\nnode r_iad \"edge router\" in=iad\n"
           "node d_iad1 \"ns-iad-1\" in=iad\nnode hidden \"Hidden primary\" shape=cylinder\n"
           "edge inet -- r_ams\nedge inet -- r_sin\nedge inet -- r_iad\n"
           "edge d_ams1 -[announce 192.0.2.53/32, withdraw on health-check fail]- r_ams\n"
           "edge d_ams2 -- r_ams\nedge d_sin1 -- r_sin\nedge d_iad1 -- r_iad\n"
           "edge hidden -[AXFR / IXFR + NOTIFY]-> d_ams1 style=dotted\n"
           "edge hidden -> d_sin1 style=dotted\nedge hidden -> d_iad1 style=dotted\n")
    drawn = drawn_clear(src)
    lines = [drawn[k] for k in ("15", "16", "17")]   # inet -- each edge router
    assert all(len(p) > 2 for p in lines)           # each bends at its dummies
    assert not any(_runs_cross(p, q) for p, q in itertools.combinations(lines, 2))


VACUUM = ("figdown 0.3 statechart\nflow down\nstate docked \"Docked / charging\"\nstate cleaning \"Cleaning\"\n"
          "state spot \"Spot cleaning\"\nstate returning \"Returning to dock\"\nstate paused \"Paused\"\n"
          "state stuck \"Stuck\"\nstate binfull \"Bin full\"\nstate sleep \"Sleep\"\n"
          "transition docked -[schedule / CLEAN]-> cleaning\ntransition docked -[SPOT]-> spot\n"
          "transition cleaning -[battery < 15 %]-> returning\ntransition cleaning -[all rooms done]-> returning\n"
          "transition cleaning -[CLEAN pressed]-> paused\ntransition paused -[CLEAN pressed]-> cleaning\n"
          "transition paused -[idle 10 min]-> sleep\ntransition cleaning -[wheel drop / bumper stuck]-> stuck\n"
          "transition stuck -[user frees robot + CLEAN]-> cleaning\ntransition cleaning -[bin sensor]-> binfull\n"
          "transition binfull -[bin emptied]-> cleaning\ntransition spot -[spiral done]-> paused\n"
          "transition returning -[dock IR lost]-> returning\ntransition returning -[on dock contacts]-> docked\n"
          "transition returning -[charge recovered, resume]-> cleaning style=dashed\n"
          "transition sleep -[any button]-> paused\n")


def test_an_arrowhead_moved_off_a_plain_end_never_lands_on_another() -> None:
    """Cleaning's bottom holds eight ends on 85 px.  Bin full's arrowhead stood 1.8 px
    off the start of the line to Paused and was moved off it, to the place farthest from
    every end, heads included, which was on that start (0.2 px off): a move off a plain
    end may not bring the head nearer the plain ends."""
    svg = build(VACUUM).svg
    root = ET.fromstring(svg)
    edges = {el.get("data-edge"): _vertices(el) for el in root.iter()
             if el.get("data-edge") is not None and el.tag in (SVG + "line", SVG + "path")}
    lines = VACUUM.split("\n")
    starts = [pts[0] for key, pts in edges.items() if lines[int(key) - 1].startswith("transition cleaning ")]
    tips = head_tips(svg)
    x, y, w, h = _box_of(svg, "cleaning")
    at_box = [p for p in tips if x - 1 <= p[0] <= x + w + 1 and y - 1 <= p[1] <= y + h + 1]
    assert len(starts) == 5 and len(at_box) == 5
    assert min(math.dist(p, s) for p in at_box for s in starts) >= 5.6   # half a head's width


SPACEWIRE = ("figdown 0.1 topology\nflow right\nnode obcA \"On-board computer A\"\n"
             "node obcB \"On-board computer B (cold spare)\"\nnode rtr1 \"SpaceWire router 1\"\n"
             "node rtr2 \"SpaceWire router 2\"\nnode mm \"Mass memory unit\" shape=cylinder\n"
             "node cam \"Imager payload\"\nnode spec \"Spectrometer payload\"\nnode ttc \"TT&C transponder\"\n"
             "node xband \"X-band transmitter\"\nnode pcdu \"Power conditioning unit\"\n"
             "edge obcA -- rtr1\nedge obcB -- rtr2 style=dashed\nedge rtr1 -- rtr2 style=dashed\nedge rtr1 -- mm\n"
             "edge rtr2 -- mm style=dashed\nedge rtr1 -- cam\nedge rtr1 -- spec\nedge rtr2 -- cam style=dashed\n"
             "edge rtr1 -- ttc\nedge mm -[playback]-> xband\nedge obcA -[MIL-STD-1553]- pcdu style=dotted\n")


def test_a_level_line_keeps_off_the_side_of_a_box_it_runs_along() -> None:
    """The router's line to the imager ran level 1.5 px above the spectrometer's top,
    along its whole width: it read as ending at the spectrometer."""
    svg = build(SPACEWIRE).svg
    root = ET.fromstring(svg)
    lines = SPACEWIRE.split("\n")
    key = str(lines.index("edge rtr1 -- cam") + 1)
    (p, q), = [_vertices(el) for el in root.iter() if el.get("data-edge") == key]
    x, y, w, h = _box_of(svg, "spec")
    assert abs(p[1] - q[1]) < 0.1 * abs(p[0] - q[0])   # (level)
    assert min(p[0], q[0]) < x and max(p[0], q[0]) > x + w   # passing the whole box

    def at(px: float) -> float:
        return p[1] + (q[1] - p[1]) * (px - p[0]) / (q[0] - p[0])

    over = [at(x), at(x + w)]
    assert max(over) <= y - 4.0 or min(over) >= y + h + 4.0


SATELLITE = (
    "figdown 0.3 statechart\n"
    "state separation \"SEPARATION\"\n"
    "state detumble \"DETUMBLE\\n(B-dot)\"\n"
    "state sunacq \"SUN ACQUISITION\"\n"
    "state deploy \"ARRAY DEPLOY\"\n"
    "state commissioning \"COMMISSIONING\"\n"
    "state standby \"STANDBY\\n(sun-pointing)\"\n"
    "state nadir \"NADIR POINTING\"\n"
    "state imaging \"IMAGING\"\n"
    "state stereo \"STEREO IMAGING\"\n"
    "state calib \"CALIBRATION\\n(dark/flat field)\"\n"
    "state downlink \"X-BAND DOWNLINK\"\n"
    "state imgdownlink \"IMAGE + DOWNLINK\\n(direct broadcast)\"\n"
    "state eclipse \"ECLIPSE\\n(load shedding)\"\n"
    "state maneuver \"ORBIT MANEUVER\\n(thrusters)\"\n"
    "state swupload \"SOFTWARE UPLOAD\"\n"
    "state payloadwarm \"PAYLOAD WARM-UP\\n(focal plane cooling)\"\n"
    "state navhold \"NAV HOLDOVER\\n(GPS lost)\"\n"
    "state degraded \"DEGRADED\\n(3-wheel control)\"\n"
    "state safehold \"SAFE HOLD\"\n"
    "state decom \"DECOMMISSIONING\"\n"
    "state deorbit \"DEORBIT BURN\"\n"
    "transition separation -[timer T+30 s]-> detumble\n"
    "transition detumble -[rates < 0.5 °/s]-> sunacq\n"
    "transition sunacq -[sun in FOV, battery charging]-> deploy\n"
    "transition deploy -[arrays locked]-> commissioning\n"
    "transition commissioning -[TC: commissioning complete]-> standby\n"
    "transition standby -[TC: start routine ops]-> nadir\n"
    "transition nadir -[payload cold, imaging planned]-> payloadwarm\n"
    "transition nadir -[over target, scheduled]-> imaging\n"
    "transition nadir -[GPS fix lost]-> navhold\n"
    "transition nadir -[wheel failure detected]-> degraded\n"
    "transition imaging -[target pass over]-> nadir\n"
    "transition nadir -[stereo request]-> stereo\n"
    "transition stereo -[pair acquired]-> nadir\n"
    "transition nadir -[monthly]-> calib\n"
    "transition nadir -[ground station AOS]-> downlink\n"
    "transition standby -[TC: burn plan]-> maneuver\n"
    "transition maneuver -[burn complete]-> standby\n"
    "transition standby -[TC: upload patch]-> swupload\n"
    "transition swupload -[patch verified]-> standby\n"
    "transition maneuver -[thruster anomaly]-> safehold\n"
    "transition decom -[payload off, tanks checked]-> deorbit\n"
)


def test_side_entries_from_the_rank_before_run_on_from_their_own_ports(monkeypatch) -> None:
    """STANDBY's "burn plan" to ORBIT MANEUVER and the reply back both came down past
    the box's corner and into its side, and both ran on from STANDBY's middle: one
    line on the other for 70 px.  Each now runs on from its own port (no step), and
    no two connectors of the figure share a run."""
    from markmcp.figdown.render import scene as scene_mod

    entries: list[dict] = []
    real = scene_mod.assign_ports

    def spy(scene, frame, routing):
        real(scene, frame, routing)
        entries.append({(scene.links[li].a, scene.links[li].b): (routing.ports[(li, "first")],
                                                                 routing.ports[(li, "last")])
                        for li in routing.side_entry if len(frame.plans[li].items) == 2})

    monkeypatch.setattr(scene_mod, "assign_ports", spy)
    svg = build(SATELLITE).svg
    runs = entries[-1]
    assert {("standby", "maneuver"), ("maneuver", "standby")} <= set(runs)
    for first, last in runs.values():
        assert first == last
    root = ET.fromstring(svg)
    routes = [_vertices(el) for el in root.iter()
              if el.get("data-edge") is not None and el.tag in (SVG + "line", SVG + "path")]
    shared = [(i, j) for i, pa in enumerate(routes) for j, pb in enumerate(routes) if i < j
              and any(_collinear(a, b, c, d) > 10 for a, b in zip(pa, pa[1:]) for c, d in zip(pb, pb[1:]))]
    assert shared == []


PLATFORMER = (
    "figdown 0.3 statechart\n"
    "state idle \"Idle\"\n"
    "state run \"Run\"\n"
    "state jump \"Jump (rising)\"\n"
    "state fall \"Fall\"\n"
    "state wallslide \"Wall slide\"\n"
    "state land \"Land\\n(recovery frames)\"\n"
    "state hurt \"Hurt\\n(invincible 1 s)\"\n"
    "state dead \"Dead\"\n"
    "transition idle -[jump]-> jump\n"
    "transition run -[jump]-> jump\n"
    "transition run -[left ledge]-> fall\n"
    "transition jump -[apex reached / jump released]-> fall\n"
    "transition fall -[touching wall + holding toward]-> wallslide\n"
    "transition wallslide -[release]-> fall\n"
    "transition fall -[hit ground]-> land\n"
    "transition run -[hit by enemy]-> hurt\n"
    "transition jump -[hit by enemy]-> hurt\n"
    "transition hurt -[HP = 0]-> dead\n"
)


def test_a_line_from_a_state_s_rounded_corner_may_move_its_arrowhead_off_another() -> None:
    """"hit by enemy" from Run (round the channel, into Hurt's side) and from Jump (straight,
    from Jump's rounded corner) ended 1.4 px apart, one arrowhead on the other: every
    place the straight line's head could move to was refused, because a line from a
    point on a rounded corner's arc enters the box's bounding rectangle.  The box at the
    other end is now read by its outline, and the two heads stand apart."""
    svg = build(PLATFORMER).svg
    x, y, w, h = _box_of(svg, "hurt")
    tips = [p for p in head_tips(svg) if x - 1 <= p[0] <= x + w + 1 and y - 1 <= p[1] <= y + h + 1]
    assert len(tips) == 2
    assert math.dist(*tips) >= 11.2   # a head's width


def test_moving_a_line_s_end_apart_never_makes_it_cross_more_lines(monkeypatch) -> None:
    """A line's end slid along its box (away from the ends beside it) may not cross more
    lines than it did: freed to slide round a state's rounded corner, a line moved
    across another just outside its box."""
    from markmcp.figdown.render import scene as scene_mod
    from markmcp.figdown.render.scene.free import lines_crossed

    grew = []
    real = scene_mod.land_apart

    def spy(scene, paths, link, *args, **kwargs):
        def crossed():
            pts = paths[link.index]
            return lines_crossed(paths, link.index, pts)
        before = crossed()
        real(scene, paths, link, *args, **kwargs)
        if crossed() > before:
            grew.append((link.a, link.b))

    monkeypatch.setattr(scene_mod, "land_apart", spy)
    for source in (PLATFORMER, SATELLITE, VACUUM, CHARGER, COMPILER):
        assert build(source).svg is not None
    assert grew == []


MAIL = ("figdown 0.1 block\nnode tmpl \"Template renderer\"\nnode supp \"Suppression list\" shape=cylinder\n"
        "node q \"Outbound queue\" shape=cylinder\nnode mta \"MTA pool\\n(Postfix)\"\nnode dkim \"DKIM signer\"\n"
        "external mx \"Recipient MX\"\nnode bounce \"Bounce processor\"\nnode events \"Delivery events\" shape=cylinder\n"
        "edge tmpl -[skip if suppressed]-> supp\nedge tmpl -> q\nedge q -> mta\nedge mta <-> dkim\n"
        "edge mta -[SMTP, STARTTLS]-> mx\nedge mx -[DSN 5xx]-> bounce\nedge bounce -[hard bounce]-> supp\n"
        "edge mta -> events\nedge bounce -> events\n")


def test_a_run_passing_beside_its_box_leaves_behind_the_slanted_lines_there() -> None:
    """MTA pool's line to Delivery events runs round below the figure.  It left by the
    side the flow meets and turned down just past the box, across the slanted pair to
    DKIM signer below.  It now leaves by the side facing its run, back past where that
    pair leaves, and crosses neither."""
    svg = build(MAIL).svg
    root = ET.fromstring(svg)
    edges = {el.get("data-edge"): _vertices(el) for el in root.iter()
             if el.get("data-edge") is not None and el.tag in (SVG + "line", SVG + "path")}
    lines = MAIL.split("\n")
    key = {lines[int(k) - 1]: k for k in edges}
    run, pair = edges[key["edge mta -> events"]], edges[key["edge mta <-> dkim"]]
    assert not _runs_cross(run, pair)
    x, y, w, h = _box_of(svg, "mta")
    start = run[0]
    assert abs(start[1] - (y + h)) < 1.0 and x < start[0] < x + w   # by the bottom side
    assert start[0] < min(p[0] for p in pair) - 8.0                  # behind where the pair leaves


PINNED_ENDS = ("figdown 0.1 block\nflow right\ngroup front \"Front end\"\ngroup store \"Stores\"\n"
               "node db \"Database\" in=store\nnode blob \"Blob store\" in=store\nnode web \"Web server\" in=front\n"
               "node lb \"Balancer\" shape=rounded\nnode cdn \"CDN\" shape=rounded\ngroup work \"Workers\"\n"
               "node jobs \"Job runner\" in=work\nnode alarm \"Alarm\" in=work shape=rounded\n"
               "node cron \"Scheduler\" in=work\nrank db,blob\nrank jobs,alarm,cron\nedge lb -> web\n"
               "edge web -> cdn\nedge web -[enqueue]-> jobs\nedge web -[query]-> db\n"
               "edge jobs -[results]-> blob style=dashed\nedge cron -> alarm\n"
               "edge alarm -[page]-> web style=dashed\nedge cron -[tick]-> web\n"
               "layout\npin lb at=(20,180)\npin cdn at=(550,180)\n")


def test_a_line_to_a_pinned_box_keeps_no_side_exit_back() -> None:
    """A side exit leaves back past the slanted lines that leave by that side, as the
    layout has them; a pinned box is not where the layout has it, and its line, drawn
    afresh to the author's place, had pushed Web server's exit to the database 30 px
    further back than the first slot for a slant that never leaves by that side."""
    from markmcp.figdown.render.scene.route import ENTRY_IN

    svg = build(PINNED_ENDS).svg
    root = ET.fromstring(svg)
    lines = PINNED_ENDS.split("\n")
    (query,) = [_vertices(el) for el in root.iter() if el.get("data-edge") is not None
                and lines[int(el.get("data-edge")) - 1] == "edge web -[query]-> db"]
    x, y, w, h = _box_of(svg, "web")
    start = query[0]
    assert abs(start[1] - y) < 1.0                        # by the top, facing its run
    assert abs((x + w) - start[0] - ENTRY_IN) < 0.5       # in the first slot from the corner


def _jog_tracks(runs: list[tuple[float, float]]) -> list[int]:
    """The tracks plan_jogs gives lines between two ranks (chains of a box each side) that
    leave at the first cross position of each run and arrive at the second."""
    from types import SimpleNamespace

    from markmcp.figdown.render.scene.route import Routing, plan_jogs

    links = [SimpleNamespace(index=k) for k in range(len(runs))]
    plans = {k: SimpleNamespace(kind="chain", items=[SimpleNamespace(rank=0, pos=c0), SimpleNamespace(rank=1, pos=c1)])
             for k, (c0, c1) in enumerate(runs)}
    routing = Routing()
    routing.orthogonal = set(range(len(runs)))
    routing.ports = {(k, end): c for k, run in enumerate(runs) for end, c in zip(("first", "last"), run)}
    plan_jogs(SimpleNamespace(links=links), SimpleNamespace(plans=plans), routing)
    return [routing.jogs[k][0].track for k in range(len(runs))]


def test_a_line_jogging_from_above_another_to_above_its_end_jogs_beyond_it() -> None:
    """An event bus's lines left its side in the order of where they go, and jogged down
    in the channel after it: the one from the upper port to the nearest box took the
    first track, free where it ran, while the one from the port below it, going farther,
    took a later track past a run from another box.  The upper one crossed the lower one
    twice, its level run out to its track and its run on to its box.  A line jogging from
    above another's start to above its end jogs beyond it, going down and going up."""
    other, far, near = (300.0, 400.0), (110.0, 380.0), (100.0, 150.0)
    t_other, t_far, t_near = _jog_tracks([other, far, near])
    assert t_far > t_other and t_near > t_far
    # mirrored: going up
    t_other, t_far, t_near = _jog_tracks([(-c0, -c1) for c0, c1 in (other, far, near)])
    assert t_far > t_other and t_near > t_far
    # lines whose runs do not overlap share the first track as before
    assert _jog_tracks([(100.0, 150.0), (200.0, 260.0)]) == [0, 0]


JOBS = ("figdown 0.2 flowchart\nterminator go \"begin\"\ndecision pending \"jobs pending?\"\n"
        "process claim \"claim the next job\"\ndecision retries \"retries left?\"\nprocess run \"run the job\"\n"
        "decision failed \"job failed?\"\nprocess record \"record the result\"\nterminator idle \"sleep\"\n"
        "flowline go -> pending\nflowline pending -[no]-> idle\nflowline pending -[yes]-> claim\n"
        "flowline claim -> retries\nflowline retries -[no]-> pending\nflowline retries -[yes]-> run\n"
        "flowline run -> failed\nflowline failed -[yes]-> retries\nflowline failed -[no]-> record\n"
        "flowline record -> retries\n")


def test_a_loop_back_into_a_box_and_one_out_of_it_go_round_opposite_sides() -> None:
    """"retries left?" takes two lines back from below and sends its "no" back up.  The
    lanes going round for them met only at that decision's rank, so they were not seen
    to cross, went round one side, and the lines back crossed the "no" lane's way out
    twice.  Lanes that meet at one rank, one ending there and one starting, cross as
    lanes overlapping over several ranks do: one goes round the other side."""
    svg = build(JOBS).svg
    root = ET.fromstring(svg)
    lines = JOBS.split("\n")
    edges = {lines[int(el.get("data-edge")) - 1]: _vertices(el) for el in root.iter()
             if el.get("data-edge") is not None and el.tag in (SVG + "line", SVG + "path")}
    up = edges["flowline retries -[no]-> pending"]
    for back in ("flowline failed -[yes]-> retries", "flowline record -> retries"):
        assert not _runs_cross(up, edges[back]), back


STUDIO = ("figdown 0.1 topology\nnode main \"Main router\\n(multicast, PTP)\"\nnode spare \"Spare router\"\n"
          "group east \"East wing\"\nnode cam \"Camera control rack\" in=east\n"
          "node vtr \"Replay server\" shape=cylinder in=east\ngroup west \"West wing\"\n"
          "node desk \"Vision mixer 2 M/E\" in=west\nnode mon \"Multiviewer wall\" in=west\n"
          "group cells \"Edit cells\"\nnode edit1 \"Edit suite one\" in=cells\nnode edit2 \"Edit suite two\" in=cells\n"
          "node grade \"Grading room\" in=cells\nnode lap \"Operator laptop\" shape=rounded\n"
          "edge cam -- main\nedge cam -- spare\nedge desk -- main\nedge edit1 -- main\nedge lap -- main\n")


def test_a_run_kept_to_the_side_the_flow_meets_is_not_crossed_by_a_nearer_side_entry() -> None:
    """Main router's side the flow meets was crowded, so the vision mixer's run, passing
    beside it, went on past its corner into the side facing it; the camera rack's run,
    farther out, was kept to the crowded side by the spare router standing between, and
    coming down to it crossed the mixer's.  A run nearer than one kept so stays on the
    side the flow meets, below it."""
    svg = build(STUDIO).svg
    root = ET.fromstring(svg)
    lines = STUDIO.split("\n")
    edges = {lines[int(el.get("data-edge")) - 1]: _vertices(el) for el in root.iter()
             if el.get("data-edge") is not None and el.tag in (SVG + "line", SVG + "path")}
    assert not _runs_cross(edges["edge cam -- main"], edges["edge desk -- main"])


DOOR = ("figdown 0.2 statechart\nclass open \"Door open\" fill=#dcfce7\nclass over \"Visit over\" fill=#f1f5f9\n"
        "state rest \"REST\"\nstate calling \"CALLING\\n(chime sent)\"\nstate waiting \"WAITING\\n(no answer yet)\"\n"
        "state ringing \"RINGING\\n(flat 12)\"\nstate visitor \"VISITOR\\n(at the gate)\"\nstate talking \"TALKING\" class=open\n"
        "state message \"LEFT A\\nMESSAGE\"\nstate gone \"VISITOR LEFT\" class=over\n"
        "transition rest -[button pressed]-> calling\ntransition calling -[line busy]-> waiting\n"
        "transition calling -[retry after 5 s]-> calling\ntransition waiting -[handset lifted in flat 12]-> ringing\n"
        "transition ringing -[door opened]-> talking\ntransition rest -[camera motion]-> visitor\n"
        "transition visitor -[resident answers]-> talking\ntransition visitor -[no answer 30 s]-> message\n"
        "transition visitor -[walked away]-> gone\n")


def test_an_arrowhead_from_the_rank_before_leaves_the_side_beside_it_to_exits_short_of_it() -> None:
    """VISITOR's side the flow meets held three lines, and "resident answers", whose run
    passes above it, stepped out of it just above "no answer 30 s": its top was closed
    by "camera motion", whose arrowhead lands on the top's far end, by the corner the
    flow comes from.  An arrowhead from the rank before keeps the exits short of it,
    by a connector's clearance, and the run leaves by the top."""
    from markmcp.figdown.render.scene.route import ENTRY_IN, LAND_APART

    svg = build(DOOR).svg
    root = ET.fromstring(svg)
    lines = DOOR.split("\n")
    edges = {lines[int(el.get("data-edge")) - 1]: _vertices(el) for el in root.iter()
             if el.get("data-edge") is not None and el.tag in (SVG + "line", SVG + "path")}
    x, y, w, h = _box_of(svg, "visitor")
    start = edges["transition visitor -[resident answers]-> talking"][0]
    tip = edges["transition rest -[camera motion]-> visitor"][-1]
    assert abs(start[1] - y) < 1.0 and abs((x + w) - start[0] - ENTRY_IN) < 0.5   # by the top, first slot
    assert math.dist(start, tip) > LAND_APART


PLANT = ("figdown 0.3 block\nclass bus \"Fieldbus to drives\" stroke=#ea580c style=dashed\n"
         "node scada \"Plant SCADA\\nserver\" shape=rounded\nnode hist \"Historian\\nexport\"\n"
         "node line \"Conveyor line\\n(infeed, merge)\"\nnode plc \"Line controller\\n(safety PLC)\" shape=rounded\n"
         "group drives \"Drive cabinet\"\nnode d1 \"Infeed drive\" in=drives\nnode d2 \"Merge drive\" in=drives\n"
         "node d3 \"Outfeed drive\" in=drives\nnode d4 \"Palletiser drive\" in=drives\nnode hmi \"Operator panel\\nHMI\"\n"
         "edge scada -> hist\nedge hist -> line\nedge scada <-> plc\nedge line -> d1\nedge line -> d2\n"
         "edge line -> d3\nedge line -> d4\nedge plc <-> d1 class=bus\nedge plc <-> d2 class=bus\n"
         "edge plc <-> d3 class=bus\nedge plc <-> d4 class=bus\nedge plc -[alarms, trends, recipes]-> hmi\n")


def test_a_run_nearer_than_one_kept_to_the_side_the_flow_meets_stays_there_too() -> None:
    """The line controller's side the flow meets holds four fieldbus lines and more: the
    two nearest drives' runs stepped out by its top, while the two farther ones, a box
    of its rank standing in their way, stayed on the crowded side and crossed them
    both, coming up past the top's corner.  A run nearer than one kept to the side the
    flow meets stays there too: none of the four crosses another."""
    svg = build(PLANT).svg
    root = ET.fromstring(svg)
    lines = PLANT.split("\n")
    edges = {lines[int(el.get("data-edge")) - 1]: _vertices(el) for el in root.iter()
             if el.get("data-edge") is not None and el.tag in (SVG + "line", SVG + "path")}
    bus = [edges[f"edge plc <-> d{k} class=bus"] for k in range(1, 5)]
    assert not [(i, j) for i in range(4) for j in range(i + 1, 4) if _runs_cross(bus[i], bus[j])]


def _triangle_gap(t, u) -> float:
    """The least distance between two triangles (0 where they meet)."""
    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    def inside(p, tri):
        a, b, c = tri
        s = (side(a, b, p), side(b, c, p), side(c, a, p))
        return min(s) >= 0 or max(s) <= 0

    def seg_point(p, a, b):
        dx, dy = b[0] - a[0], b[1] - a[1]
        k = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)))
        return math.dist(p, (a[0] + k * dx, a[1] + k * dy))

    if any(inside(p, u) for p in t) or any(inside(p, t) for p in u):
        return 0.0
    edges = lambda tri: list(zip(tri, tri[1:] + tri[:1]))   # noqa: E731
    if any(_crosses(a, b, c, d) for a, b in edges(t) for c, d in edges(u)):
        return 0.0
    return min(min(seg_point(p, c, d) for p in t for c, d in edges(u)),
               min(seg_point(p, a, b) for p in u for a, b in edges(t)))


def test_a_straight_line_s_arrowhead_keeps_its_body_off_another_head_at_an_angle() -> None:
    """A slanted line's arrowhead landed on a decision's "no" target 14.5 px from the
    head of a line coming straight down: far enough by their tips, but the slanted
    head's back corner stood 2.5 px off the other's side, and the two read as one blot.
    The heads' bodies keep apart as well: here by more than half a head's width."""
    from markmcp.figdown.render.scene.graph import ARROW_HALF, Box, Link, Scene, arrow_corners, border_point
    from markmcp.figdown.render.scene.route import HEAD_APART, land_apart

    target = Box("t", "Decline", w=120.0, h=40.0, x=200.0, y=300.0)
    slanting = Box("s1", "Above the payline?", w=100.0, h=40.0, x=440.0, y=170.0)
    above = Box("s2", "Median score", w=100.0, h=40.0, x=265.0, y=100.0)
    down, aslant = Link(0, "s2", "t", "->", "1"), Link(1, "s1", "t", "->", "2")
    scene = Scene("down", "flowchart", {"t": target, "s1": slanting, "s2": above}, ["t", "s1", "s2"],
                  [down, aslant], {}, [], {}, {})
    tip = (300.5, 300.0)
    paths = {0: [(315.0, 140.0), (315.0, 300.0)], 1: [border_point(slanting, *tip), tip]}
    before = _triangle_gap(arrow_corners(paths[1][1], paths[1][0]), arrow_corners(paths[0][1], paths[0][0]))
    assert math.dist(paths[1][1], paths[0][1]) >= HEAD_APART and before < ARROW_HALF   # the case itself
    land_apart(scene, paths, aslant, HEAD_APART, (False, True), heads=True)
    after = _triangle_gap(arrow_corners(paths[1][1], paths[1][0]), arrow_corners(paths[0][1], paths[0][0]))
    assert after >= ARROW_HALF
    assert abs(paths[1][1][1] - target.y) < 1e-6   # still on the top side


# "no" comes down to "Log ticket" 4 px past the decision's left point: its run stands
# at the point, not beyond it
IMPACT = ("figdown 0.3 flowchart\ndecision impact \"Customer impact?\"\ndecision sev \"SEV1 or SEV2?\"\n"
          "process log \"Log ticket, fix in business hours\"\n"
          "process declare \"Declare incident,\\nappoint incident commander\"\n"
          "flowline impact -[yes]-> sev\nflowline impact -[no]-> log\nflowline sev -[no (SEV3)]-> log\n"
          "flowline sev -[yes]-> declare\n")


def test_a_branch_whose_run_passes_at_the_side_point_leaves_by_that_point() -> None:
    """A branch turned less than 4 px past the decision's side point left by the point
    below, beside "yes", and stepped out under the diamond to its run ("no" leaving
    "Customer impact?"); a run at the side point or past it leaves by that point."""
    svg = build(IMPACT).svg
    xs, ys = zip(*(tuple(map(float, p.split(","))) for p in re.search(
        r'<g data-node="impact"[^>]*><polygon points="([^"]+)"', svg).group(1).split()))
    key = str(IMPACT.split("\n").index("flowline impact -[no]-> log") + 1)
    runs = [(p, q) for k, p, q in segments(svg) if k == key]
    start = runs[0][0]
    assert math.dist(start, (min(xs), (min(ys) + max(ys)) / 2)) < 0.5, start
    assert all(p[1] >= start[1] - 0.01 and q[1] >= start[1] - 0.01 for p, q in runs)   # never back up
    assert max(p[0] for p, _q in runs) <= min(xs) + 4   # nor in under the diamond
