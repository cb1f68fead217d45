"""Group bands: inside the band is in the group, both ways (FigDown core §2.2).

A band is its members' bounding box plus the band padding.  Where the engine
chose the positions, the members are laid out together (a group is a lane) and
the band holds nothing else, however the ranks interleave; where a pin chose
them and a non-member ends up inside, the figure is refused, naming the pin.
Every check here reads the drawn SVG, not the engine's own bookkeeping.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import shared_dir
from markmcp.figdown.render import build

from .test_render_external_names import WEBHOOK_RIGHT as SHOP   # a shop backend: "Data" lies between
from .test_render_scene import nodes

PIN_INSIDE = ('pin puts "x" inside the band of group "g" — a band is the bounding box of the '
              'group\'s members, so this draws "x" as one of them. Move the pin clear of the '
              "group's extent, or say what the drawing says with in=g.")

# two pinned members 80x36, at (0,0) and (300,0): the band runs from x=-14 to 394
# and from y=-26 to 48 in pin coordinates (padding 14 left and right, 26 on top, 12 below)
TWO_PINNED = ('figdown 0.1 block\ngroup g "G"\nnode a "A" in=g\nnode b "B" in=g\nnode x "X"\n'
              "edge a -> b\nlayout\npin a at=(0,0) width=80 height=36\n"
              "pin b at=(300,0) width=80 height=36\npin x at=({x},{y}) width=80 height=36\n")


def band_intrusions(svg: str, groups: dict[str, str]) -> list[str]:
    """``"group: node"`` for every non-member box the drawn band overlaps, and
    ``"group: node outside"`` for every member the band does not contain."""
    from .test_render_band_titles import bands
    root = ET.fromstring(svg)
    boxes = {k: v["box"] for k, v in nodes(root).items() if k in groups}
    found = []
    for gid, band in bands(root).items():
        bx, by, bx1, by1 = band["rect"]
        for nid, (x, y, w, h) in boxes.items():
            if groups[nid] == gid:
                if not (bx <= x and by <= y and x + w <= bx1 and y + h <= by1):
                    found.append(f"{gid}: {nid} outside")
            elif x < bx1 and x + w > bx and y < by1 and y + h > by:
                found.append(f"{gid}: {nid}")
    return found


def membership(out) -> dict[str, str | None]:
    """node id -> its group (None when ungrouped), from the parsed model; externals left out."""
    (doc,) = out.result.docs
    return {n["id"]: n["group"] for n in doc.nodes}


def test_a_pin_inside_a_band_is_refused_naming_the_pin_line() -> None:
    out = build(TWO_PINNED.format(x=150, y=47))
    assert out.svg is None
    assert out.error_lines() == [f"Line 10: {PIN_INSIDE}"]


def test_a_pin_on_the_band_edge_is_clear_of_it() -> None:
    # the band's edge is its last pixel: a box starting there (below, to the right)
    # or ending there (to the left) is outside; one pixel further in is inside
    for (x, y), inside in (((150, 48), False), ((150, 47), True), ((394, 0), False),
                           ((393, 0), True), ((-94, 0), False), ((-93, 0), True),
                           ((150, -62), False), ((150, -61), True)):
        out = build(TWO_PINNED.format(x=x, y=y))
        assert (out.svg is None) is inside, (x, y, out.error_lines())
        if not inside:
            assert band_intrusions(out.svg, membership(out)) == []


def test_a_pinned_node_inside_a_pinned_group_band_names_its_own_pin() -> None:
    # x lies wholly inside a as well, but both are pinned: the cover is the author's
    # statement (paint order), the band is not — only the band is refused
    src = ('figdown 0.1 block\ngroup g "G"\nnode a "A" in=g\nnode x "X"\nlayout\n'
           "pin g at=(0,0)\npin a at=(0,0) width=300 height=100\npin x at=(100,30)\n")
    out = build(src)
    assert out.svg is None
    assert out.error_lines() == [f"Line 8: {PIN_INSIDE}"]


def test_an_engine_placed_box_under_a_pinned_band_steps_out() -> None:
    # a and b pinned diagonally apart, x joined to both: the engine had put x between them,
    # inside the band the two pins stretch; it moves x clear instead, and says nothing
    src = ('figdown 0.1 block\ngroup g "G"\nnode a "A" in=g\nnode b "B" in=g\nnode x "X"\n'
           "edge a -> x\nedge x -> b\nlayout\npin a at=(0,0)\npin b at=(300,300)\n")
    out = build(src)
    assert out.svg is not None, out.error_lines()
    assert band_intrusions(out.svg, membership(out)) == []


def test_an_engine_placed_group_yields_to_a_pinned_node() -> None:
    # x is pinned where the engine had put g; g's members are all the engine's to
    # move, so the group steps aside (core 2.2: the engine had freedom, so no error)
    src = ('figdown 0.1 block\ngroup g "G"\nnode a "A" in=g\nnode b "B" in=g\nnode x "X"\n'
           "edge a -> b\nlayout\npin x at=(10,10)\n")
    out = build(src)
    assert out.svg is not None, out.error_lines()
    assert band_intrusions(out.svg, membership(out)) == []


def test_a_partly_pinned_group_moves_only_its_engine_placed_members() -> None:
    # b is pinned low, x high; a (the engine's) sat between them, so the band from a
    # to b ran over x.  a moves, b and x stay on their pins
    src = ('figdown 0.1 block\nflow down\ngroup g "G"\nnode a "A" in=g\nnode b "B" in=g\n'
           'node x "X"\nedge a -- b\nedge x -- a\nlayout\npin b at=(100,235)\npin x at=(60,14)\n')
    out = build(src)
    assert out.svg is not None, out.error_lines()
    assert band_intrusions(out.svg, membership(out)) == []
    boxes = nodes(ET.fromstring(out.svg))
    assert (boxes["b"]["x"] - boxes["x"]["x"], boxes["b"]["y"] - boxes["x"]["y"]) == (40, 221)
    # with the pinned member's own extent over x there is nothing to move: refused
    covered = src.replace("pin x at=(60,14)", "pin x at=(60,200)")
    assert build(covered).error_lines() == [f"Line 11: {PIN_INSIDE}"]


def test_a_group_stepping_out_of_a_band_does_not_land_on_another_box() -> None:
    # n2's pin stretches g0's band over g1's first member: g1 (engine-placed) steps
    # aside, and its band must not then cover n3, which sat just beyond — stepping
    # only past g0's edge did, and after a dozen passes of n3 and g1 trading places
    # the figure was refused as one the layout "could not separate"
    src = ('figdown 0.1 block\nflow down\ngroup g0 "g0"\ngroup g1 "g1"\nnode n0 in=g1\n'
           "node n1 in=g0\nnode n2 in=g0\nnode n3\nnode n4 in=g1\nnode n5\nedge n0 -> n5\n"
           "layout\npin n2 at=(275,18)\n")
    out = build(src)
    assert out.svg is not None, out.error_lines()
    assert band_intrusions(out.svg, membership(out)) == []


def test_groups_whose_ranks_interleave_are_drawn_with_bands_holding_only_members() -> None:
    # each rack's switch hangs off the core and its port off a server, so the members of
    # both racks share ranks with each other and with the servers; laid out rank by
    # rank without regard to groups, a rack's band would span the other rack's box or a
    # server.  Core §2.2: where the engine chose the positions it MUST keep the members
    # together, silently — no diagnostic, and no non-member inside a band.
    src = ('figdown 0.1 topology\nnode core "Core"\ngroup r1 "Rack 1"\nnode tor1 "ToR 1" in=r1\n'
           'node p1 "Port 1" in=r1\ngroup r2 "Rack 2"\nnode tor2 "ToR 2" in=r2\n'
           'node p2 "Port 2" in=r2\nnode srv1 "Server 1"\nnode srv2 "Server 2"\n'
           "edge core -- tor1\nedge core -- tor2\nedge p1 -- srv1\nedge p2 -- srv2\n")
    out = build(src)
    assert out.svg is not None and out.diagnostics == []
    assert band_intrusions(out.svg, membership(out)) == []
    # the check itself sees an intruder: rack 1's band drawn over the whole canvas
    wide = re.sub(r'(<g data-group="r1"[^>]*><rect )x="[^"]*" y="[^"]*" width="[^"]*" height="[^"]*"',
                  r'\1x="-1000" y="-1000" width="5000" height="5000"', out.svg, count=1)
    assert wide != out.svg
    assert {"r1: srv1", "r1: srv2", "r1: tor2", "r1: core"} <= set(band_intrusions(wide, membership(out)))


def every_drawn_band(documents: list[tuple[str, str]]) -> tuple[int, list[str]]:
    """(bands checked, "name: group: node" for each intrusion) over single-section figures."""
    checked, found = 0, []
    for name, src in documents:
        out = build(src)
        if out.svg is None or out.result is None or len(out.result.docs) != 1:
            continue
        groups = membership(out)
        checked += len({g for g in groups.values() if g is not None})
        found += [f"{name}: {hit}" for hit in band_intrusions(out.svg, groups)]
    return checked, found


def test_every_conformance_band_holds_only_its_members() -> None:
    documents = [(f"{corpus}/{fd.stem}", fd.read_bytes().decode("utf-8"))
                 for corpus in ("cases", "experimental")
                 for fd in sorted(shared_dir("figdown", "conformance", corpus).glob("*.fd"))]
    checked, found = every_drawn_band(documents)
    assert checked > 10
    assert found == []


def test_every_upstream_example_band_holds_only_its_members() -> None:
    """Upstream's engine refuses ``layout-compare/srl-evpn-irb-auto.fd`` (group "leaf4"
    would enclose non-members "h2" and "srv": its rank assignment does not keep a group's
    members together, which its own guide records as an engine limitation).  Ours keeps
    them together, so every example draws, each band around its members only."""
    value = os.environ.get("FIGDOWN_UPSTREAM", "")
    root = Path(value)
    if not value or not (root / "examples").is_dir():
        pytest.skip("set FIGDOWN_UPSTREAM to an upstream FigDown checkout to check its example figures")
    paths = sorted((root / "examples").rglob("*.fd"))
    documents = [(str(p.relative_to(root)), p.read_bytes().decode("utf-8")) for p in paths]
    assert all(build(src).svg is not None for _name, src in documents)
    checked, found = every_drawn_band(documents)
    assert len(documents) >= 59 and checked >= 10
    assert found == []
    irb = build((root / "examples/layout-compare/srl-evpn-irb-auto.fd").read_bytes().decode("utf-8"))
    assert irb.diagnostics == [] and band_intrusions(irb.svg, membership(irb)) == []


def foreign_band_passes(source: str) -> list[str]:
    """``"edge: group"`` for every connector running through the band of a group neither
    of its ends belongs to (2 px inside the band's edge)."""
    from .test_render_band_titles import bands, crosses, segments
    out = build(source)
    member = membership(out)
    ends = {str(e["line"]): (e["a"], e["b"]) for e in out.result.models[0]["edges"]}
    drawn = bands(ET.fromstring(out.svg))
    found = set()
    for key, p, q in segments(out.svg):
        a, b = ends[key]
        for gid, band in drawn.items():
            x0, y0, x1, y1 = band["rect"]
            if gid not in (member.get(a), member.get(b)) and crosses(p, q, (x0 + 2, y0 + 2, x1 - 2, y1 - 2)):
                found.add(f"{key}: {gid}")
    return sorted(found)


def test_a_connector_keeps_to_one_side_of_a_band_it_does_not_belong_to() -> None:
    """The ordering counts a connector passing from one side of a band to the other,
    through a rank where the group has no member, as crossing the band: the refund
    once went out to the provider past the far side of "Data" and in through it."""
    assert foreign_band_passes(SHOP) == []
    from .test_render_lanes import crossings
    assert crossings(build(SHOP).svg) == []


def test_a_connector_past_two_bands_goes_round_them_not_through() -> None:
    """Flink feeds the lake and, directly, the feature store beyond it; the direct line
    once climbed out of "Compute", crossed the lake's lines and came back down through
    both bands."""
    from .test_render_lanes import crossings
    source = ("figdown 0.1 block\nflow right\ngroup lake \"Lake\"\nnode raw \"Raw\" in=lake\n"
              "node cur \"Curated\" in=lake\ngroup compute \"Compute\"\nnode flink \"Flink\" in=compute\n"
              "node spark \"Spark\" in=compute\nnode ml \"Feature store\"\nedge flink -> raw\n"
              "edge raw -> spark\nedge spark -> cur\nedge cur -> ml\nedge flink -> ml\n")
    assert foreign_band_passes(source) == []
    assert crossings(build(source).svg) == []
