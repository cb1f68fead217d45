"""The scene renderer's conventions, asserted on what it draws."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from markmcp.figdown.render import build
from markmcp.figdown.render.svg import num, rounded_path
from markmcp.figdown.render.text import label_ink, node_width, units

SVG = "{http://www.w3.org/2000/svg}"


def drawn(source: str, with_title: bool = False) -> ET.Element:
    out = build(source, with_title=with_title)
    assert out.svg is not None, out.error_lines()
    return ET.fromstring(out.svg)


def nodes(root: ET.Element) -> dict[str, dict]:
    """id -> the box of its shape (x, y, w, h), from the data-node wrappers."""
    found = {}
    for g in root.iter(SVG + "g"):
        if g.get("data-node") is None:
            continue
        shape = next(el for el in g if el.tag[len(SVG):] in ("rect", "ellipse", "polygon"))
        tag = shape.tag[len(SVG):]
        if tag == "rect":
            box = tuple(float(shape.get(k)) for k in ("x", "y", "width", "height"))
        elif tag == "ellipse":
            cx, cy, rx, ry = (float(shape.get(k)) for k in ("cx", "cy", "rx", "ry"))
            box = (cx - rx, cy - ry, 2 * rx, 2 * ry)
        else:
            pts = [tuple(map(float, p.split(","))) for p in shape.get("points").split()]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            box = (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
        found[g.get("data-node")] = {"box": box, "x": float(g.get("data-x")), "y": float(g.get("data-y")),
                                     "lasso": g.get("data-lasso")}
    return found


def test_number_formatting_is_short_and_stable() -> None:
    assert num(375.20000000000005) == "375.2"
    assert num(-0.001) == "0" and num(-0.0) == "0"
    assert num(12.0) == "12" and num(7) == "7"
    assert num(1 / 3) == "0.33"
    assert num(float("nan")) == "0"
    assert num(1e21) == "1e+21"


def test_text_measure_is_script_aware() -> None:
    assert units("Stage 1") == 7
    assert units("封") == 1.81 and units("😀") == 2.25 and units("e\u0301") == 1
    assert node_width("Stage 1") == pytest.approx(78.4)
    assert node_width("") == 30
    assert label_ink("#1e3a8a", "#1d1d1b") == "#ffffff"
    assert label_ink("#fef9c3", "#1d1d1b") == "#1d1d1b"
    assert label_ink("transparent", "#1d1d1b") == "#1d1d1b"


def test_box_sizes_follow_the_label() -> None:
    root = drawn('figdown 0.1 block\nnode a "Stage 1"\nnode b "two\\nlines"\nnode c "C" shape=diamond\n')
    boxes = nodes(root)
    assert boxes["a"]["box"][2:] == pytest.approx((78.4, 36))
    assert boxes["b"]["box"][3] == pytest.approx(52)
    assert boxes["c"]["box"][2] >= 70 and boxes["c"]["box"][3] >= 48


def test_the_root_and_the_content_offset() -> None:
    out = build('figdown 0.1 block\nnode a "A"\n').svg
    assert out.startswith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ')
    assert 'font-family="system-ui,sans-serif"><defs><marker id="arr"' in out
    assert '<g transform="translate(18,6)">' in out


def test_flow_direction_orders_the_ranks() -> None:
    for flow, axis, sign in (("right", 0, 1), ("left", 0, -1), ("down", 1, 1), ("up", 1, -1)):
        boxes = nodes(drawn(f'figdown 0.1 block\nflow {flow}\nnode a "A"\nnode b "B"\nnode c "C"\n'
                            "edge a -> b\nedge b -> c\n"))
        pos = [boxes[i]["box"][axis] for i in "abc"]
        assert pos == sorted(pos, reverse=sign < 0), flow


def test_a_rank_line_puts_its_nodes_side_by_side() -> None:
    boxes = nodes(drawn('figdown 0.1 block\nnode a "A"\nnode b "B"\nnode c "C"\nedge a -> b\n'
                        "rank b,c\n"))
    assert boxes["b"]["box"][0] == pytest.approx(boxes["c"]["box"][0], abs=25)
    assert boxes["b"]["box"][1] != boxes["c"]["box"][1]


def test_pins_place_the_top_left_corner_and_group_pins_are_local() -> None:
    src = ('figdown 0.1 block\ngroup g "G"\nnode a "A" in=g\nnode b "B"\nedge a -> b\n'
           "layout\npin g at=(100,50)\npin a at=(10,5)\npin b at=(300,0) width=90 height=40\n")
    boxes = nodes(drawn(src))
    assert (boxes["a"]["x"], boxes["a"]["y"]) == (110, 75)
    assert boxes["b"]["box"] == (300, 20, 90, 40)


def test_group_bands_hold_only_their_members_under_auto_layout() -> None:
    src = ('figdown 0.1 block\ngroup g "G"\nnode a "A" in=g\nnode x "X"\nnode c "C" in=g\n'
           "edge a -> x\nedge x -> c\nedge a -> c\n")
    root = drawn(src)
    boxes = nodes(root)
    band = next(g for g in root.iter(SVG + "g") if g.get("data-group") == "g")
    rect = band.find(SVG + "rect")
    bx, by, bw, bh = (float(rect.get(k)) for k in ("x", "y", "width", "height"))
    x, y, w, h = boxes["x"]["box"]
    assert x + w <= bx or x >= bx + bw or y + h <= by or y >= by + bh


def test_connectors_carry_their_identity_and_arrowheads() -> None:
    svg = build("figdown 0.5 block\nnode a\nnode b\nnode c\nedge a -> b id=main\nedge b <-> c\n"
                "edge c -- a\n").svg
    keys = re.findall(r'data-edge="([^"]+)"', svg)
    assert keys == ["main", "6", "7"]
    # one head for ->, two for <->, none for --
    assert len(re.findall(r'<path d="M[^"]* z" fill="#555" stroke="none"/>', svg)) == 3


def _runs(d: str) -> list[tuple[str, float, float, float]]:
    """The level and upright runs of a connector path: (axis, fixed, lo, hi)."""
    pts = []   # the true corners: M and L points, and each fillet's (Q's) control point
    for cmd, args in re.findall(r"([MLQ])([^MLQ]*)", d):
        pts.append(tuple(map(float, args.replace(",", " ").split()[:2])))
    runs = []
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if x0 == x1 and y0 != y1:
            runs.append(("x", x0, min(y0, y1), max(y0, y1)))
        elif y0 == y1 and x0 != x1:
            runs.append(("y", y0, min(x0, x1), max(x0, x1)))
    return runs


def test_connectors_passing_a_rank_keep_apart() -> None:
    """Three connectors pass the rank of "Auth" beside each other, in a figure with
    groups; each keeps its own line (they shared one when the gap between connectors
    passing a rank was never applied)."""
    svg = build("figdown 0.3 block\nflow down\ngroup back \"Back end\"\nnode api \"API\" in=back\n"
                "node auth \"Auth service\" in=back\nnode worker \"Worker\" in=back\n"
                "node db \"Postgres\"\nnode cache \"Redis\"\nedge api -> auth\nedge auth -> worker\n"
                "edge api -> db\nedge api -> cache\nedge auth -> db\nedge worker -> db\n"
                "rank db,cache\n").svg
    found = re.findall(r'<path data-edge="([^"]+)" d="([^"]+)"[^>]*?(?: data-bus="([^"]*)")?/>', svg)
    paths = {k: _runs(d) for k, d, _bus in found}
    bus = {k: b for k, _d, b in found}
    # api -> cache turns; api, auth and worker -> db merge into one bus (its members on
    # paths, sharing their trunk); the rest are straight <line>s
    assert len(paths) == 4 and len({bus[k] for k in paths if bus[k]}) == 1
    shared = []
    for (ka, ra), (kb, rb) in ((a, b) for a in paths.items() for b in paths.items() if a[0] < b[0]):
        if bus[ka] and bus[ka] == bus[kb]:
            continue
        for axis, at, lo, hi in ra:
            for axis2, at2, lo2, hi2 in rb:
                if axis == axis2 and abs(at - at2) < 1 and min(hi, hi2) - max(lo, lo2) > 10:
                    shared.append((ka, kb, axis, at))
    assert shared == []


def test_boxes_either_side_of_a_topology_line_passing_their_rank_stay_apart() -> None:
    # a topology's lines through a rank pack against the boxes beside them; with one
    # between two boxes the boxes stood flush, the line drawn through where they met
    root = drawn("figdown 0.1 topology\nflow down\nnode lan \"IXP peering LAN\\n2001:db8:ix::/64\" shape=ellipse\n"
                 "node rs1 \"Route server 1\"\nnode rs2 \"Route server 2\"\nnode us \"AS64500 (us)\"\n"
                 "node cdn \"AS64510 CDN\"\nnode isp \"AS64520 access ISP\"\nnode cloud \"AS64530 cloud\"\n"
                 "node transit \"AS64499 transit\"\nnode core \"AS64500 core router\"\n"
                 "edge us -- lan\nedge cdn -- lan\nedge isp -- lan\nedge cloud -- lan\nedge rs1 -- lan\n"
                 "edge rs2 -- lan\nedge us -[multilateral via RS, IRR-filtered]- rs1 style=dashed\n"
                 "edge us -- rs2 style=dashed\nedge us -[bilateral session, max-prefix 5000]- cloud style=dotted\n"
                 "edge us -- core\n"
                 "edge core -- transit\n")
    boxes = nodes(root)
    row = sorted((b["box"] for b in boxes.values() if b["box"][1] == boxes["cdn"]["box"][1]), key=lambda b: b[0])
    assert len(row) == 6
    assert min(b[0] - (a[0] + a[2]) for a, b in zip(row, row[1:])) >= 28


def test_self_loops_and_back_edges_are_drawn() -> None:
    svg = build('figdown 0.2 statechart\nstate a "A"\nstate b "B"\nstate c "C"\nstate d "D"\n'
                "transition a -> b\ntransition b -> c\ntransition c -> d\ntransition d -> a\n"
                "transition b -> b\n").svg
    paths = re.findall(r'<path data-edge="(\d+)" d="([^"]+)"', svg)
    loop = dict(paths)["10"]
    assert loop.count("Q") == 2               # a loop: out, across, back
    back = dict(paths)["9"]                   # d -> a runs round the drawing on a lane:
    assert back.count("Q") >= 2               # out to it, along it, and back in
    lane = [float(v) for v in re.findall(r"[-\d.]+", back)[1::2]]
    rects = [(float(y), float(y) + float(h)) for y, h in re.findall(
        r'<rect x="[-\d.]+" y="([-\d.]+)" width="[-\d.]+" height="([-\d.]+)" rx', svg)]
    assert len(rects) == 4
    assert min(lane) < min(top for top, _ in rects) or max(lane) > max(bottom for _, bottom in rects)


def test_a_one_member_bundle_draws_its_caption_only() -> None:
    svg = build('figdown 0.5 topology\nnode a\nnode b\nnode c\nedge a -- b\nedge a -- c\n'
                'bundle one "single" a--b\nbundle two "pair" a--b,a--c\n').svg
    assert svg.count("<ellipse") == 1
    assert 'data-lasso="two"' in svg and 'data-lasso="one"' not in svg
    assert ">single</text>" in svg and ">pair</text>" in svg


def test_topology_ports_are_fittings_with_their_names() -> None:
    svg = build("figdown 0.1 topology\nnode a\nnode b\nedge a [eth0] -- [eth1] b\n").svg
    squares = re.findall(r'<rect [^>]*data-port-sq="([^"]+)"', svg)
    names = re.findall(r'<text [^>]*data-port-sq="([^"]+)"[^>]*>(eth[01])</text>', svg)
    assert len(squares) == 2
    assert {key for key, _ in names} == set(squares)


def test_notes_name_what_they_annotate() -> None:
    svg = build('figdown 0.3 block\ntitle "T" note="figure"\nnode a "A" note="on a"\nnode b\n'
                'edge a -> b note="on edge" id=e1\n'.replace("0.3", "0.5")).svg
    assert 'data-note-on="node" data-note-for="a"' in svg
    assert 'data-note-on="edge" data-note-for="e1"' in svg
    assert 'data-note-on="title"' in svg


def test_the_title_is_drawn_only_on_request() -> None:
    src = 'figdown 0.1 block\ntitle "Hello there"\nnode a\n'
    assert ">Hello there</text>" not in build(src).svg
    assert ">Hello there</text>" in build(src, with_title=True).svg


def test_the_legend_lists_classes_with_a_meaning() -> None:
    svg = build('figdown 0.1 block\nclass hot "Hot path" stroke=#dc2626\nclass quiet ""\n'
                "node a class=hot\nnode b class=quiet\n").svg
    assert ">Hot path</text>" in svg
    assert svg.count('width="16" height="11"') == 1


def test_fillet_paths_keep_their_true_corners() -> None:
    d = rounded_path([(0, 0), (100, 0), (100, 50)])
    assert d == "M0 0 L90 0 Q100 0 100 10 L100 50"


def test_output_does_not_depend_on_the_hash_seed() -> None:
    code = ("from markmcp.figdown.render import build\n"
            "import sys\n"
            "src = ('figdown 0.5 topology\\nclass c \"C\" stroke=#f00\\ngroup g \"G\"\\n'\n"
            "       'node a in=g\\nnode b in=g\\nnode c\\nnode d\\nedge a -- c\\nedge b -- c\\n'\n"
            "       'edge c -- d\\nedge d -[x]- a\\nbundle l \"L\" a--c,b--c\\n')\n"
            "sys.stdout.write(build(src).svg)\n")
    outs = set()
    for seed in ("0", "1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        outs.add(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                                check=True).stdout)
    assert len(outs) == 1


def _connectors(svg: str) -> list[tuple[str, list[tuple[float, float]]]]:
    """(stroke, points) of every drawn connector: a path's coordinate pairs, a line's ends."""
    out = []
    for attrs in re.findall(r"<(?:path|line) (data-edge=[^>]*)>", svg):
        stroke = re.search(r'stroke="([^"]+)"', attrs).group(1)
        d = re.search(r' d="([^"]+)"', attrs)
        if d:
            nums = [float(v) for v in re.findall(r"-?[\d.]+", d.group(1))]
        else:
            nums = [float(re.search(f' {k}="(-?[\\d.]+)"', attrs).group(1)) for k in ("x1", "y1", "x2", "y2")]
        out.append((stroke, list(zip(nums[::2], nums[1::2]))))
    return out


def _distance(p: tuple[float, float], pts: list[tuple[float, float]]) -> float:
    best = float("inf")
    for (ax, ay), (bx, by) in zip(pts, pts[1:]):
        dx, dy = bx - ax, by - ay
        t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)))
        best = min(best, ((ax + t * dx - p[0]) ** 2 + (ay + t * dy - p[1]) ** 2) ** 0.5)
    return best


def test_a_transition_label_sits_nearer_its_own_connector_than_any_other() -> None:
    """A reviewer's door controller: 'reset by guard' (forced -> closed) was drawn 40 px from
    its own line, right under locked -> forced, so a reader took it for that one's. When every
    first-choice place is crowded the label looks again, finer, before settling for a place
    nearer another connector."""
    source = ('figdown 0.2 statechart\ntitle "Door controller"\nflow right\n'
              'class alarm "Alarm raised" fill=#fee2e2 stroke=#b91c1c\nstate closed "Closed"\nstate open "Open"\n'
              'state locked "Locked"\nstate forced "Forced open" class=alarm\nrank closed,locked\n'
              "transition closed -[handle turned]-> open\ntransition open -[door shut]-> closed\n"
              "transition closed -[key turned / log]-> locked\ntransition locked -[key turned]-> closed\n"
              "transition locked -[sensor: door moved]-> forced\ntransition forced -[reset by guard]-> closed\n"
              "transition open -[held > 30 s]-> open\n")
    svg = build(source).svg
    connectors = _connectors(svg)
    labels = re.findall(r'<text x="([\d.]+)" y="([\d.]+)" font-size="11" text-anchor="middle" fill="(#[0-9a-f]+)">'
                        r"([^<]+)</text>", svg)
    assert {text for *_, text in labels} >= {"reset by guard", "sensor: door moved", "door shut"}
    for x, y, colour, text in labels:
        if text not in ("reset by guard", "sensor: door moved", "door shut", "handle turned"):
            continue   # the two between closed and locked sit beside their pair, as they should
        centre = (float(x), float(y) - 4)
        nearest = min(connectors, key=lambda c: _distance(centre, c[1]))
        assert nearest[0] == colour, f"{text!r} sits nearest a connector drawn in {nearest[0]}, not its own {colour}"


def _columns(root: ET.Element):
    """The middle of each box across the flow (flowing right, its x), by id."""
    found = nodes(root)
    return lambda nid: round(found[nid]["box"][0] + found[nid]["box"][2] / 2, 2)


def test_a_source_stands_just_before_the_nearest_box_it_feeds() -> None:
    # an HSM feeding only the store three ranks on stood in the first rank, its line
    # across every rank between; a box fed from the first rank too stays where it is
    root = drawn("figdown 0.1 block\nflow right\nnode a \"Agent\"\nnode b \"Engine\"\nnode c \"Store\"\n"
                 "node d \"Sink\"\nnode hsm \"HSM\"\nnode cfg \"Config\"\nedge a -> b\nedge b -> c\n"
                 "edge c -> d\nedge hsm -> d\nedge cfg -> b\nedge cfg -> d\n")
    column = _columns(root)
    assert column("hsm") == column("c")
    assert column("cfg") == column("a")


def test_a_leaf_fed_by_a_source_alone_moves_with_it() -> None:
    # a playout server feeding a far leaf switch and, alone, its contribution encoders
    # stood in the first rank, held there by the encoders: its line crossed four others
    chain = ("figdown 0.1 block\nflow right\nnode a \"A\"\nnode b \"B\"\nnode c \"C\"\n"
             "node play \"Playout\"\nexternal enc \"Encoders\"\nedge a -> b\nedge b -> c\n"
             "edge play -> c\nedge play -> enc\n")
    column = _columns(drawn(chain))
    assert column("play") == column("b")
    # a leaf fed by another box too holds its sources back
    column = _columns(drawn(chain + "node other \"Other\"\nedge other -> enc\n"))
    assert column("play") == column("a")


def test_an_external_and_a_groups_sources_keep_the_first_rank_together() -> None:
    # "Internet resolvers", moved in among the name servers, had its name written over
    # one of them; a group's sources moved one by one split its first column in two
    root = drawn("figdown 0.1 block\nflow right\nexternal inet \"Internet\"\nnode a \"A\"\nnode b \"B\"\n"
                 "node c \"C\"\ngroup src \"Sources\"\nnode s1 \"S1\" in=src\nnode s2 \"S2\" in=src\n"
                 "edge a -> b\nedge b -> c\nedge inet -> c\nedge s1 -> a\nedge s2 -> c\n")
    column = _columns(root)
    assert column("s1") == column("s2") < column("a")
    text = next(t for t in root.iter(SVG + "text") if t.text == "Internet")
    assert float(text.get("x")) < min(nodes(root)[n]["box"][0] for n in ("a", "b", "c"))


def _name_and_box(source: str, name: str, nid: str) -> tuple[float, float]:
    """The x of the external named ``name`` and the left side of box ``nid``, drawn."""
    root = drawn(source)
    text = next(t for t in root.iter(SVG + "text") if t.text == name)
    return float(text.get("x")), nodes(root)[nid]["box"][0]


def test_an_external_whose_first_link_leaves_it_starts_the_flow() -> None:
    # "Game client" sends the request and gets the server's address back: ranked after
    # the allocator that answers it, it stood at the end, its request line running back
    # across the whole figure under the boxes; now it stands first and the answer goes round
    source = ("figdown 0.3 block\nflow right\nexternal player \"Game client\"\nnode lobby \"Lobby\"\n"
              "node mm \"Matchmaker\"\nnode alloc \"Allocator\"\nnode gs \"Game server\"\n"
              "edge player -> lobby\nedge lobby -> mm\nedge mm -> alloc\nedge alloc -> gs\n"
              "edge alloc -[address]-> player style=dashed\n")
    name, lobby = _name_and_box(source, "Game client", "lobby")
    assert name < lobby
    # one whose first link comes into it (a reply's reader) stays where its links put it
    reader = source.replace("edge player -> lobby\n", "").replace(
        "style=dashed\n", "style=dashed\nedge player -> lobby\n")
    name, alloc = _name_and_box(reader, "Game client", "alloc")
    assert name > alloc


def test_an_external_taking_more_than_it_sends_stays_where_its_links_put_it() -> None:
    # a card switch sends one request and takes two decisions back: ranked first, both
    # decisions went round the figure; it stays after the decision that answers it
    source = ("figdown 0.3 block\nflow right\nexternal switch \"Card switch\"\nnode enrich \"Enrich\"\n"
              "node score \"Score\"\nnode decide \"Decide\" shape=diamond\nedge switch -> enrich\n"
              "edge enrich -> score\nedge score -> decide\nedge decide -[approve]-> switch\n"
              "edge decide -[decline]-> switch\n")
    name, decide = _name_and_box(source, "Card switch", "decide")
    assert name > decide
