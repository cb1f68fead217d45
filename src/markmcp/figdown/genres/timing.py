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
from ..numbers import DIGITS_RE, number_text, to_number
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


def _lane_problem(lane: str) -> str | None:
    """lane = ( '0' | '1' | 'p' | 'n' | 'x' | '=' | '.' )+ ; the retired digits are named."""
    if LEGACY_LANE_DIGIT_RE.search(lane):
        return M.LANE_DIGIT_GONE
    return None if LANE_RE.match(lane) else "lane may contain only 0 1 p n x = ."


def data_labels(sp: Split, lane: str) -> tuple[list[str] | None, str | None]:
    """data= as one label per ``=`` cell of the lane: (labels, None) or (None, problem)."""
    if "data" not in sp.opts:
        return None, None
    if sp.get("data") == "":
        return None, "data= must not be empty"
    labels = [item.v for item in sp.opts["data"].items()]
    if "" in labels:
        return None, "data= must not contain empty members"
    wanted = lane.count("=")
    if len(labels) == wanted:
        return labels, None
    noun = "label" if len(labels) == 1 else "labels"
    return None, f"data= has {len(labels)} {noun}, expected {wanted} (one per = in the lane)"


def signal_line(ctx: Context, n: int, sp: Split) -> None:
    """``signal <name> <lane> [data=…]`` — one waveform row."""
    block = ctx.current
    assert block is not None
    name, lane = sp.arg(1), sp.arg(2)
    if not (name and lane):
        problem = "signal needs <name> <lane>"
    elif len(sp.pos) > 3:
        problem = f'unexpected argument "{sp.pos[3]}"'
    else:
        problem = _lane_problem(lane)
    labels = None
    if problem is None:
        labels, problem = data_labels(sp, lane)
    if problem:
        return ctx.err(n, problem)
    block["signals"].append({"name": name, "lane": lane, "data": labels, "fill": sp.get("fill"),
                             "stroke": sp.get("stroke")})
    return None


def gap_line(ctx: Context, n: int, sp: Split) -> None:
    """``gap <cycle>`` — a break drawn across every lane at one cycle, once per cycle."""
    block = ctx.current
    assert block is not None
    written = sp.arg(1)
    if written is None or DIGITS_RE.match(written) is None:
        return ctx.err(n, "gap needs a non-negative integer cycle")
    if len(sp.pos) > 2:
        return ctx.err(n, f'unexpected argument "{sp.pos[2]}"')
    cycle = to_number(written)
    seen = block["_gap_cycles"]
    if cycle in seen:
        return ctx.err(n, f"duplicate gap at cycle {number_text(cycle)}")
    seen.add(cycle)
    block["gaps"].append({"t": cycle, "line": n})
    return None
