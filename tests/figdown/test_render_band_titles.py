"""Group band names: clear of the connectors, inside their band, the checks unchanged.

A band's name goes along its top.  In a narrow band a connector coming down into the
top box runs through the usual place, so the name moves beside the lines, and the drawn
band widens to hold it where the room beside it is empty.  Every check here reads the
drawn SVG.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from conftest import shared_dir
from markmcp.figdown.parser import parse
from markmcp.figdown.render import build, geometry
from markmcp.figdown.render.text import label_px

from .test_render_scene import SVG, nodes

# a layered service, flowing down: "Front" and "Storage" hold one column of boxes each,
# and the lines into LB and DB come down through their bands' top-left corners
LAYERED = """figdown 0.1 block
flow down
external client "Client"
group front "Front"
node lb "LB" in=front
node api "API" in=front
group back "Back"
node svc1 "Orders" in=back
node svc2 "Users" in=back
node svc3 "Search" in=back
group store "Storage"
node db "DB" shape=cylinder in=store
node idx "Index" shape=cylinder in=store
external ops "Ops dashboard"
edge client -> lb
edge lb -> api
edge api -> svc1
edge api -> svc2
edge api -> svc3
edge svc1 -> db
edge svc2 -> db
edge svc3 -> idx
edge db -[CDC]-> idx
edge svc1 -> ops
edge svc3 -> ops
edge client -[health]-> ops
rank svc1,svc2,svc3
"""

# one narrow band, a line straight down into its top box (topology: no heads, no turns)
NARROW = """figdown 0.5 topology
flow down
node core "Core"
node edge1 "Edge"
group st "Storage cluster"
node db "DB" in=st
node dr "DR" in=st
edge core -- db
edge edge1 -- core
edge db -- dr
"""

PAD = {"l": 14.0, "t": 26.0, "r": 14.0, "b": 12.0}   # a band round its members (FigDown's padding)


def bands(root: ET.Element) -> dict[str, dict]:
    """group id -> its drawn rectangle and its name's rectangle (None when unnamed)."""
    out = {}
    for g in root.iter(SVG + "g"):
        gid = g.get("data-group")
        if gid is None:
            continue
        rect = g.find(SVG + "rect")
        x, y, w, h = (float(rect.get(k)) for k in ("x", "y", "width", "height"))
        name = next(g.iter(SVG + "text"), None)   # beside its rect, or under a <g> with the whole name
        title = None
        if name is not None:
            width = label_px(name.text, float(name.get("font-size")))
            tx, ty = float(name.get("x")), float(name.get("y"))
            lo = tx - width if name.get("text-anchor") == "end" else tx
            title = (lo, ty - 11.5, lo + width, ty + 2)
        out[gid] = {"rect": (x, y, x + w, y + h), "title": title, "name": name.text if name is not None else None}
    return out


def segments(svg: str) -> list[tuple[str, tuple[float, float], tuple[float, float]]]:
    """Every connector's straight pieces: (edge, from, to); a fillet is read as its corner."""
    out = []
    for key, x1, y1, x2, y2 in re.findall(
            r'<line data-edge="([^"]+)" x1="([-\d.]+)" y1="([-\d.]+)" x2="([-\d.]+)" y2="([-\d.]+)"', svg):
        out.append((key, (float(x1), float(y1)), (float(x2), float(y2))))
    for key, d in re.findall(r'<path data-edge="([^"]+)" d="([^"]+)"', svg):
        pts = [tuple(map(float, args.replace(",", " ").split()[:2]))
               for _cmd, args in re.findall(r"([MLQ])([^MLQ]*)", d)]
        out += [(key, p, q) for p, q in zip(pts, pts[1:])]
    return out


def crosses(p, q, rect) -> bool:
    """Does the segment p–q pass through the rectangle (sampled every half pixel)?"""
    x0, y0, x1, y1 = rect
    n = max(2, int(max(abs(q[0] - p[0]), abs(q[1] - p[1])) * 2))
    return any(x0 < p[0] + (q[0] - p[0]) * k / n < x1 and y0 < p[1] + (q[1] - p[1]) * k / n < y1
               for k in range(n + 1))


def struck(svg: str) -> list[str]:
    """``"group: edge"`` for every connector running through a band's name."""
    drawn = bands(ET.fromstring(svg))
    return [f"{gid}: {key}" for gid, b in drawn.items() if b["title"] is not None
            for key, p, q in segments(svg) if crosses(p, q, b["title"])]


def members_box(root: ET.Element, gid: str, groups: dict[str, str]) -> tuple[float, float, float, float]:
    boxes = [v["box"] for k, v in nodes(root).items() if groups.get(k) == gid]
    return (min(x for x, _, _, _ in boxes) - PAD["l"], min(y for _, y, _, _ in boxes) - PAD["t"],
            max(x + w for x, _, w, _ in boxes) + PAD["r"], max(y + h for _, y, _, h in boxes) + PAD["b"])


def membership(out) -> dict[str, str]:
    (doc,) = out.result.docs
    return {n["id"]: n["group"] for n in doc.nodes if n.get("group")}


def test_names_of_narrow_bands_stay_clear_of_the_lines_coming_in() -> None:
    out = build(LAYERED)
    assert out.diagnostics == []
    assert struck(out.svg) == []
    root = ET.fromstring(out.svg)
    drawn = bands(root)
    groups = membership(out)
    # "Back" is wide and nothing crosses its top-left corner: its name stays there, its band as it was
    assert drawn["back"]["rect"] == tuple(round(v, 2) for v in members_box(root, "back", groups))
    assert drawn["back"]["title"][0] == drawn["back"]["rect"][0] + 10
    # "Storage" had no clear stretch along its top: its drawn band widened to hold its name
    x0, _, x1, _ = drawn["store"]["rect"]
    m0, _, m1, _ = members_box(root, "store", groups)
    assert x1 - x0 > m1 - m0 + 1


def test_a_widened_band_names_the_same_problems_in_a_check() -> None:
    """Only the drawn outline widens: the band every geometry check reads is the members'
    box, so a check and a build of the same figure agree."""
    assert geometry(parse(NARROW)) == build(NARROW).diagnostics == []
    root = ET.fromstring(build(NARROW).svg)
    (band,) = bands(root).values()
    assert band["rect"][2] - band["rect"][0] > 100   # widened: two 42 px boxes need only 70
    assert struck(build(NARROW).svg) == []


def test_a_figure_with_lassos_keeps_its_bands_to_their_members() -> None:
    """Lassos are fitted round the bands as they stand, so a figure with a bundle never
    widens a band: its name stays in its usual place, crossed."""
    source = NARROW + 'bundle lag "LAG" edge1--core\n'
    out = build(source)
    root = ET.fromstring(out.svg)
    band = bands(root)["st"]
    assert band["rect"] == tuple(round(v, 2) for v in members_box(root, "st", membership(out)))
    assert band["title"][0] == band["rect"][0] + 10
    assert struck(out.svg) == ["st: 8"]


def test_a_band_name_a_connector_would_strike_moves_beside_it() -> None:
    """core -- dccore comes down through the "Data centre" band's top-left corner: the name
    moves clear of it, still inside the band; nothing crosses "Headquarters", which stays."""
    source = ("figdown 0.5 topology\nflow down\ngroup hq \"Headquarters\"\nnode fw \"HQ firewall\" in=hq\n"
              "node core \"HQ core switch\" in=hq\nnode acc \"HQ access switch\" in=hq\n"
              "group dc \"Data centre\"\nnode dcfw \"DC firewall\" in=dc\nnode dccore \"DC core switch\" in=dc\n"
              "node rack \"Server rack\" in=dc\nedge fw -- core\nedge core -- dccore\nedge core -- acc\n"
              "edge dccore -- dcfw\nedge dccore -- rack\n")
    svg = build(source).svg
    drawn = bands(ET.fromstring(svg))
    assert struck(svg) == []
    assert drawn["hq"]["title"][0] == drawn["hq"]["rect"][0] + 10
    assert drawn["dc"]["title"][0] > drawn["dc"]["rect"][0] + 10
    home = (drawn["dc"]["rect"][0] + 10, drawn["dc"]["title"][1],
            drawn["dc"]["rect"][0] + 10 + drawn["dc"]["title"][2] - drawn["dc"]["title"][0], drawn["dc"]["title"][3])
    assert any(crosses(p, q, home) for _key, p, q in segments(svg))   # the usual place is struck


def _corpus() -> list[tuple[str, str]]:
    """The conformance corpus, upstream's example figures when FIGDOWN_UPSTREAM names a
    checkout, and this file's two figures."""
    found = [(f"{corpus}/{fd.stem}", fd.read_bytes().decode("utf-8"))
             for corpus in ("cases", "experimental")
             for fd in sorted(shared_dir("figdown", "conformance", corpus).glob("*.fd"))]
    root = Path(os.environ.get("FIGDOWN_UPSTREAM") or "/nonexistent") / "examples"
    found += [(str(p), p.read_bytes().decode("utf-8")) for p in sorted(root.rglob("*.fd"))]
    return found + [("LAYERED", LAYERED), ("NARROW", NARROW)]


def test_every_band_name_sits_in_its_band_and_every_widening_in_empty_room() -> None:
    """Over the conformance corpus (and upstream's examples when at hand): a name lies
    inside its drawn band; a band drawn wider than its members' box meets no other band
    (but one it sits in)."""
    widened = named = 0
    problems = []
    for name, src in _corpus():
        out = build(src)
        if out.svg is None or "data-group" not in out.svg:
            continue
        root = ET.fromstring(out.svg)
        drawn = bands(root)
        for gid, b in drawn.items():
            x0, y0, x1, y1 = b["rect"]
            if b["title"] is not None:
                named += 1
                t0, _, t1, _ = b["title"]
                if t0 < x0 + 9.9 or t1 > x1 - 9.9:
                    problems.append(f"{name}: {gid} name outside its band")
        try:
            groups = membership(out)
        except ValueError:
            continue
        for gid, b in drawn.items():
            if not any(g == gid for g in groups.values()):
                continue
            own = members_box(root, gid, groups)
            if b["rect"][2] - b["rect"][0] <= own[2] - own[0] + 0.02:
                continue
            widened += 1
            for other, ob in drawn.items():
                r, o = b["rect"], ob["rect"]
                inside = o[0] <= r[0] and o[1] <= r[1] and o[2] >= r[2] and o[3] >= r[3]
                if other != gid and not inside and r[0] < o[2] and o[0] < r[2] and r[1] < o[3] and o[1] < r[3]:
                    problems.append(f"{name}: {gid} widened over {other}")
    assert named > 20 and widened >= 2
    assert problems == []


def test_a_name_wider_than_its_band_with_no_room_to_widen_is_cut_short() -> None:
    """Three one-box bands in a row, each named longer than it is wide: the middle name
    ran on under the next band, and the last one's off the canvas though there was empty
    room beside it.  The middle name is cut short with "…" (the whole name is the drawing's
    title); the last band widens into the room past it."""
    svg = build("figdown 0.1 block\nflow right\n"
                "group a \"Payments Card Industry Data Security Standard scope\"\nnode v \"Vault\" in=a\n"
                "group b \"Everything else outside the PCI scope, incl. analytics\"\nnode x \"App\" in=b\n"
                "group c \"Monitoring, alerting and incident response tooling\"\nnode m \"Prom\" in=c\n"
                "edge x -> v\nedge v -> m\nedge x -> m\n").svg
    drawn = bands(ET.fromstring(svg))
    for gid, b in drawn.items():
        x0, _, x1, _ = b["rect"]
        t0, _, t1, _ = b["title"]
        assert x0 + 9.9 <= t0 and t1 <= x1 - 9.9, gid
    assert drawn["a"]["name"].endswith("…") and drawn["c"]["name"] == "Monitoring, alerting and incident response tooling"
    # cut to the band's inside as a browser sets it (DejaVu Sans, the widest common face)
    from markmcp.figdown.render.text import face_px
    shown, whole = drawn["a"]["name"], "Payments Card Industry Data Security Standard scope"
    x0, _, x1, _ = drawn["a"]["rect"]
    room = x1 - x0 - 20
    assert sum(face_px(ch, 11.5) for ch in shown) <= room
    kept = len(shown) - 1
    while whole[kept] == " ":   # a space before the "…" is dropped
        kept += 1
    longer = whole[:kept + 1] + "…"   # one more character
    assert sum(face_px(ch, 11.5) for ch in longer) > room
    assert "<title>Payments Card Industry Data Security Standard scope</title>" in svg
    width = float(re.search(r'<svg[^>]* width="([\d.]+)"', svg).group(1))
    assert max(b["rect"][2] for b in drawn.values()) <= width


def test_a_name_a_browser_fits_is_not_cut() -> None:
    """The layout's table of units takes every Latin letter for an average one: it
    measured "Building B — Library and student services" 279 px, where a browser sets it
    in 241.  The cut is judged in the widest common face, so this name stays whole in a
    250 px room."""
    from markmcp.figdown.render.text import face_px, label_px, shorten
    name = "Building B — Library and student services"
    assert label_px(name, 11.5) > 250
    assert shorten(name, lambda px: px <= 250, lambda ch: face_px(ch, 11.5)) == name
    assert shorten(name, lambda px: px <= 200, lambda ch: face_px(ch, 11.5)).endswith("…")


def heads(svg: str) -> list[list[tuple[float, float]]]:
    """Every arrowhead (a filled three-point path) as its three corners."""
    return [[tuple(map(float, pt.split())) for pt in re.findall(r"[ML]([-\d.]+ [-\d.]+)", d)]
            for d in re.findall(r'<path d="(M[-\d.]+ [-\d.]+ L[-\d.]+ [-\d.]+ L[-\d.]+ [-\d.]+ z)" fill=', svg)]


def inked(triangle, rect, margin: float) -> bool:
    """Does the filled triangle come within ``margin`` of the rectangle (sampled)?"""
    (ax, ay), (bx, by), (cx, cy) = triangle
    x0, y0, x1, y1 = rect[0] - margin, rect[1] - margin, rect[2] + margin, rect[3] + margin
    steps = 24
    for i in range(steps + 1):
        for j in range(steps + 1 - i):
            u, v = i / steps, j / steps
            x, y = ax + u * (bx - ax) + v * (cx - ax), ay + u * (by - ay) + v * (cy - ay)
            if x0 < x < x1 and y0 < y < y1:
                return True
    return False


def test_a_band_name_keeps_clear_of_the_arrowheads_coming_in() -> None:
    """Two externals' slanted lines come down into the band's one top box: the name moves
    beside the lines, and beside their arrowheads too, which are wider than the lines and
    end just below the name's strip (the head of the line into "Fetch" lay on "Ingest")."""
    source = ("figdown 0.3 block\nflow down\nexternal sftp \"Acquirer SFTP drop\"\n"
              "external bank \"Bank statement (camt.053)\"\ngroup ingest \"Ingest\"\n"
              "node fetch \"Fetch settlement files\" in=ingest\nnode parse \"Parse & normalise\" in=ingest\n"
              "edge sftp -> fetch\nedge bank -> fetch\nedge fetch -> parse\n")
    svg = build(source).svg
    title = bands(ET.fromstring(svg))["ingest"]["title"]
    found = heads(svg)
    assert len(found) == 3
    assert struck(svg) == []
    assert [h for h in found if inked(h, title, 1.0)] == []


def test_a_name_struck_wherever_it_goes_takes_the_place_fewest_lines_cross() -> None:
    """Upright lines cross a band's top every 70–80 px, closer than the name is wide:
    every place is struck.  The usual place has two lines through it; the name moves
    to the nearest place with one (a substation's bay titles were struck by three)."""
    from types import SimpleNamespace

    from markmcp.figdown.render.scene.squares import SquareIndex
    from markmcp.figdown.render.scene.titles import CELL, MOST_SQUARES, _place_one

    band = SimpleNamespace(box=(0.0, 0.0, 300.0, 100.0), label="Storage tier", members=[])
    world = SquareIndex(CELL, MOST_SQUARES)
    for x in (30.0, 60.0, 140.0, 220.0, 290.0):
        world.add(("line", (x, -50.0), (x, 40.0), None), (x, -50.0, x, 40.0))
    title = _place_one(band, world, [band], widen=False)
    assert title.at == 35.0   # just past the first line, crossed by the second alone
    assert (title.left, title.right) == (0.0, 0.0)



# a dashed E2 line from the far-edge DC up into the Regional DC band, past its title
FRONTHAUL = (
    "figdown 0.5 topology\n"
    "class fh \"Fronthaul eCPRI, 25G (7.2x split)\" stroke=#dc2626\n"
    "class mh \"Midhaul F1, 10G\" stroke=#2563eb\n"
    "class sync \"PTP / SyncE timing\" style=dotted stroke=#6b7280\n"
    "group site \"Cell site\"\n"
    "node ru1 \"RU sector α\" in=site\n"
    "node ru2 \"RU sector β\" in=site\n"
    "node ru3 \"RU sector γ\" in=site\n"
    "node csr \"Cell site router\\n(T-BC)\" in=site\n"
    "node gnss \"GNSS antenna\" shape=circle in=site\n"
    "group edgedc \"Far-edge DC\"\n"
    "node fhm \"Fronthaul switch\" in=edgedc\n"
    "node du \"vDU server\\n(accelerator card)\" in=edgedc\n"
    "group regional \"Regional DC\"\n"
    "node cu \"vCU-CP / vCU-UP\" in=regional\n"
    "node ric \"Near-RT RIC\" in=regional\n"
    "external core \"Mobile core (N2/N3)\"\n"
    "edge ru1 -- csr class=fh\n"
    "edge ru3 -- csr class=fh\n"
    "edge csr -[dark fibre 8 km]- fhm class=fh\n"
    "edge fhm [et-0/0/1] -- [port 0] du class=fh id=fh1\n"
    "edge du -- cu class=mh\n"
    "edge fhm [et-0/0/2] -- [port 1] du class=fh id=fh2\n"
    "edge cu -- ric\n"
    "edge du -[E2]- ric style=dashed\n"
    "edge gnss -- csr class=sync\n"
)


def test_a_label_keeps_a_words_gap_from_a_band_title_on_its_line() -> None:
    """"E2", moved off the Regional DC band's border, stood 10 px before its title on the
    same line and read as "E2 Regional DC": a label keeps 12 px from a title beside it."""
    from markmcp.figdown.render.scene.labels import measure
    svg = build(FRONTHAUL).svg
    titles = [(float(x), float(y), t) for x, y, t in re.findall(
        r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="11.5" fill="#6f6e69">([^<]+)</text>', svg)]
    labels = [(float(x), float(y), t) for x, y, t in re.findall(
        r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="11" text-anchor="middle" fill="#(?!fff)[0-9a-f]+">([^<]+)</text>',
        svg)]
    assert "Regional DC" in {t for _x, _y, t in titles} and "E2" in {t for _x, _y, t in labels}
    for tx, ty, title in titles:
        tw, _th = measure(title, 11.5)
        for lx, ly, text in labels:
            lw, _lh = measure(text, 11.0)
            on_line = abs(ly - ty) < 6
            assert not (on_line and lx + lw / 2 > tx - 12 and lx - lw / 2 < tx + tw + 12), (text, title)
