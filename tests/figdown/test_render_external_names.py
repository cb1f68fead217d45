"""An external's name: beyond its open end, on the side away from the figure, unless a
connector runs through it there; then below, above, right or left, the first that no
connector crosses.  Every check reads the drawn SVG."""

from __future__ import annotations

import re

from markmcp.figdown.render import build
from markmcp.figdown.render.text import label_px

from .test_render_band_titles import crosses, segments

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


def name_rect(svg: str, name: str) -> tuple[float, float, float, float]:
    """The drawn rectangle of an external's name (size 10, one line)."""
    (x, y, anchor), = {m for m in re.findall(
        r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="10"(?: text-anchor="(\w+)")? fill="#555"[^>]*>'
        + re.escape(name) + "<", svg)}
    x, y, w = float(x), float(y), label_px(name, 10)
    lo = {"end": x - w, "middle": x - w / 2}.get(anchor, x)
    return lo, y - 8.5, lo + w, y + 2


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
