"""The ``timing`` typed block (genres/experimental/timing.md).

::

    timing <id> ["label"]
    signal <name> <lane> [data=a,b,…]    lane alphabet: 0 1 p n x = .
    gap <cycle>

``data=`` names the ``=`` cells, one label each.  Unregistered ``key=``
tokens stay positional on a ``signal`` line, because ``=`` is a lane
character.
"""

from __future__ import annotations

import re

from .. import messages as M
from ..context import Context
from ..numbers import DIGITS_RE, to_number
from ..options import Split, parse_class_list
from .blockhead import claim_block

LANE_RE = re.compile(r"[01pnx=.]+\Z")
LEGACY_LANE_DIGIT_RE = re.compile(r"[2-9]")


def open_block(ctx: Context, n: int, sp: Split) -> None:
    """``timing <id> ["label"]`` opens a block of signal lanes."""
    ident = claim_block(ctx, n, sp, "timing")
    if ident is None:
        return None
    ctx.current = {"genre": "timing", "id": ident, "label": sp.arg(2), "fill": sp.get("fill"),
                   "stroke": sp.get("stroke"), "class": parse_class_list(sp.opts.get("class"))[0],
                   "signals": [], "gaps": [], "line": n, "_gap_cycles": set()}
    ctx.doc.regions.append(ctx.current)
    return None


def signal_line(ctx: Context, n: int, sp: Split) -> None:
    block = ctx.current
    assert block is not None
    name, lane = sp.arg(1), sp.arg(2)
    if not name or not lane:
        return ctx.err(n, "signal needs <name> <lane>")
    if len(sp.pos) > 3:
        return ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
    if LEGACY_LANE_DIGIT_RE.search(lane):
        return ctx.err(n, M.LANE_DIGIT_GONE)
    if not LANE_RE.match(lane):
        return ctx.err(n, "lane may contain only 0 1 p n x = .")
    labels = None
    if "data" in sp.opts:
        if sp.get("data") == "":
            return ctx.err(n, "data= must not be empty")
        parts = [i.v for i in sp.opts["data"].items()]
        if any(p == "" for p in parts):
            return ctx.err(n, "data= must not contain empty members")
        cells = lane.count("=")
        if len(parts) != cells:
            plural = "" if len(parts) == 1 else "s"
            return ctx.err(n, f"data= has {len(parts)} label{plural}, expected {cells} "
                              "(one per = in the lane)")
        labels = parts
    block["signals"].append({"name": name, "lane": lane, "data": labels, "fill": sp.get("fill"),
                             "stroke": sp.get("stroke")})
    return None


def gap_line(ctx: Context, n: int, sp: Split) -> None:
    block = ctx.current
    assert block is not None
    raw = sp.arg(1)
    if raw is None or not DIGITS_RE.match(raw):
        return ctx.err(n, "gap needs a non-negative integer cycle")
    if len(sp.pos) > 2:
        return ctx.err(n, f'unexpected argument "{sp.pos[2]}"')
    cycle = to_number(raw)
    if cycle in block["_gap_cycles"]:
        return ctx.err(n, f"duplicate gap at cycle {cycle}")
    block["_gap_cycles"].add(cycle)
    block["gaps"].append({"t": cycle, "line": n})
    return None
