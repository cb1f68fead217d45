"""An external's name: beyond its open end, on the side away from the figure, unless a
connector runs through it there; then below, above, right or left, the first that no
connector crosses.  Every check reads the drawn SVG."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from markmcp.figdown.render import build
from markmcp.figdown.render.scene.free import seg_hits_rect
from markmcp.figdown.render.scene.graph import Box
from markmcp.figdown.render.scene.names import CELL, MOST_SQUARES, _choose, _places
from markmcp.figdown.render.scene.squares import SquareIndex
from markmcp.figdown.render.text import label_px

from .test_render_band_titles import crosses, segments
from .test_render_scene import nodes

# flowing right: the refund arrives from the left and the webhook leaves to the right
# and runs back under everything: the name's first place, on the right, is in its way
WEBHOOK_RIGHT = """figdown 0.1 block
external psp "Payment provider"
group app "Application"
node api "Order API" in=app
node worker "Worker" in=app
group data "Data"
node db "Orders DB" shape=cylinder in=data
node queue "Queue" in=data
edge api -> queue
edge queue -> worker
edge worker -> db
edge worker -[refund]-> psp
edge psp -[webhook]-> api
"""


def text_rect(svg: str, text: str, size: int) -> tuple[float, float, float, float]:
    """The drawn rectangle of a one-line text of ``size`` px (its ink, not its halo)."""
    (x, y, anchor), = {m for m in re.findall(
        r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="' + str(size) + r'"(?: text-anchor="(\w+)")?[^>]*>'
        + re.escape(text) + "<", svg)}
    x, y, w = float(x), float(y), label_px(text, size)
    lo = {"end": x - w, "middle": x - w / 2}.get(anchor, x)
    return lo, y - 0.85 * size, lo + w, y + 0.2 * size


def name_rect(svg: str, name: str) -> tuple[float, float, float, float]:
    """The drawn rectangle of an external's name (size 10, one line)."""
    return text_rect(svg, name, 10)


def struck(svg: str, name: str) -> list[str]:
    rect = name_rect(svg, name)
    return sorted({key for key, p, q in segments(svg) if crosses(p, q, rect)})


def test_a_name_moves_off_the_connector_leaving_through_it() -> None:
    svg = build(WEBHOOK_RIGHT).svg
    assert struck(svg, "Payment provider") == []


def test_a_name_keeps_the_side_away_from_the_figure_when_that_is_clear() -> None:
    """One connector, arriving from above: the name goes below the open end, centred."""
    svg = build("figdown 0.1 block\nflow down\nnode api \"Order API\"\nexternal psp \"Payment provider\"\n"
                "edge api -> psp\n").svg
    x0, y0, x1, _ = name_rect(svg, "Payment provider")
    (end,) = [q for key, p, q in segments(svg)]
    assert abs((x0 + x1) / 2 - end[0]) < 0.5 and y0 > end[1]
    # arriving from the left (flow right): the name is written rightwards from beyond the end
    svg = build("figdown 0.1 block\nnode api \"Order API\"\nexternal psp \"Payment provider\"\n"
                "edge api -> psp\n").svg
    x0, _, _, _ = name_rect(svg, "Payment provider")
    (end,) = [q for key, p, q in segments(svg)]
    assert x0 > end[0]


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_names_of_neighbouring_externals_do_not_overprint() -> None:
    """Four externals above two firewalls: "Partner VPN" and "Cloud interconnect" were
    written over each other."""
    source = ("figdown 0.1 topology\nflow down\nexternal isp1 \"ISP 1\"\nexternal isp2 \"ISP 2\"\n"
              "external partner \"Partner VPN\"\nexternal cloud \"Cloud interconnect\"\n"
              "node fw1 \"Firewall A\"\nnode fw2 \"Firewall B\"\nedge isp1 -- fw1\nedge isp2 -- fw2\n"
              "edge partner -- fw1\nedge partner -- fw2\nedge cloud -- fw1\nedge cloud -- fw2\n"
              "rank fw1,fw2\n")
    svg = build(source).svg
    rects = [name_rect(svg, n) for n in ("ISP 1", "ISP 2", "Partner VPN", "Cloud interconnect")]
    assert not any(_overlap(a, b) for i, a in enumerate(rects) for b in rects[i + 1:])


def boxes_under_name(svg: str, name: str, count: int) -> list[str]:
    """The boxes (of the ``count`` the figure draws) an external's name is written over."""
    rect = name_rect(svg, name)
    boxes = nodes(ET.fromstring(svg))
    assert len(boxes) == count
    return [k for k, v in boxes.items()
            if _overlap(rect, (v["box"][0], v["box"][1], v["box"][0] + v["box"][2], v["box"][1] + v["box"][3]))]


def test_an_external_name_keeps_off_a_box() -> None:
    """Flowing left, two refunds feed the payment gateway, which closes the case: the
    gateway's name, on the side away from its first connector, was written across
    "Case closed"."""
    source = ("figdown 0.2 flowchart\nflow left\nprocess p \"Partial refund\"\nprocess f \"Full refund\"\n"
              "external bank \"Payment gateway\"\nterminator end \"Case closed\"\n"
              "flowline p -> bank\nflowline f -> bank\nflowline bank -> end\n")
    assert boxes_under_name(build(source).svg, "Payment gateway", 3) == []


def test_connector_labels_keep_off_an_externals_name() -> None:
    """The employee in the middle of a chain: the answer comes in from the guardrails and a
    rating goes on to the log, and both labels were written over "Employee (chat UI)"."""
    source = ("figdown 0.1 block\nexternal user \"Employee (chat UI)\"\nnode guard \"Output guardrails\"\n"
              "node log \"Thumbs up/down log\" shape=cylinder\nnode rewrite \"Query rewrite\"\n"
              "edge user -> rewrite\nedge rewrite -> guard\nedge guard -[answer + citations]-> user\n"
              "edge user -[rating]-> log style=dotted\n")
    svg = build(source).svg
    name = name_rect(svg, "Employee (chat UI)")
    for label in ("answer + citations", "rating"):
        assert not _overlap(name, text_rect(svg, label, 11)), label


def test_an_external_between_two_boxes_of_its_rank_has_room_for_its_name() -> None:
    """Flowing down, "kubectl / CI" stood between the cloud controller and the worker
    band, 100 px apart: every place round its point met a box, and its name was written
    over "kube-proxy"."""
    source = ("figdown 0.1 block\nflow down\ngroup cp \"Control plane\"\n"
              "node api \"kube-apiserver\" in=cp\nnode etcd \"etcd (3 members)\" shape=cylinder in=cp\n"
              "node sched \"kube-scheduler\" in=cp\nnode cm \"controller-manager\" in=cp\n"
              "group worker \"Worker node\"\nnode kubelet \"kubelet\" in=worker\n"
              "node cri \"containerd\" in=worker\nnode proxy \"kube-proxy\" in=worker\n"
              "node cni \"CNI plugin\" in=worker\nexternal kubectl \"kubectl / CI\"\n"
              "node ccm \"cloud-controller-manager\"\nedge kubectl -> api\nedge api <-> etcd\n"
              "edge sched -[watch unscheduled pods]-> api\nedge cm -[reconcile]-> api\nedge ccm -> api\n"
              "edge kubelet -[watch pods bound to node]-> api\nedge kubelet -[CRI gRPC]-> cri\n"
              "edge kubelet -> cni\nedge proxy -[watch Services, EndpointSlices]-> api\n")
    assert boxes_under_name(build(source).svg, "kubectl / CI", 9) == []


def test_an_external_in_the_first_rank_is_named_beyond_the_figures_edge() -> None:
    """Flowing down, a source external whose line slants more across than down was named
    beside its point, level with the first rank's boxes (and its line's label went to the
    far side of the point, by the source beside it); in the first rank the name goes
    above the point, beyond the figure's edge."""
    source = ("figdown 0.2 flowchart\nterminator a \"Application received by the office\"\n"
              "process t \"Check\"\nprocess u \"Decide\"\nexternal e \"Registry\"\nflowline a -> t\n"
              "flowline e -[record]-> t\nflowline t -> u\n")
    svg = build(source).svg
    (point,) = [p for key, p, q in segments(svg) if key == "7"]   # the registry's line
    x0, _, x1, y1 = name_rect(svg, "Registry")
    assert abs((x0 + x1) / 2 - point[0]) < 8 and y1 < point[1]


def test_a_name_struck_in_its_four_places_moves_half_a_line_up_or_down() -> None:
    """"Shopper (web / app)": its tiles arrive from above, its clicks leave below, a lane
    leaves its right side going down and another lane runs down 3 px inside its left
    place; beside the end and half a line up, nothing meets it."""
    end = Box("shopper", "Shopper (web / app)", w=12, h=12, x=240.5, y=422, external=True)
    cx, cy = end.cx, end.cy
    runs = [((cx, cy - 50), (cx, cy - 6)), ((cx, cy + 6), (cx, cy + 54)),
            ((cx + 12, cy + 6), (cx + 12, cy + 30)), ((cx - 121.6, cy - 160), (cx - 121.6, cy + 230))]
    segs, taken = SquareIndex(CELL, MOST_SQUARES), SquareIndex(CELL, MOST_SQUARES)
    for p, q in runs:
        segs.add((p, q), (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1])))
    places = _places(end)
    assert all(any(seg_hits_rect(p, q, places[side][3], -1.0) for p, q in runs)
               for side in ("right", "left", "below", "above"))
    x, y, anchor, rect = _choose(end, (0.0, 1.0), segs, taken)
    assert not any(seg_hits_rect(p, q, rect, -1.0) for p, q in runs)
    assert rect[0] > cx and rect[3] <= cy + 6       # right of the end, not lower than it
