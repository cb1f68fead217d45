"""Shared-edge grids: every boundary between two cells drawn exactly once.

A boundary belongs to both cells it divides, so drawing each cell as a
stroked rectangle would paint it twice and let the later neighbour win.
Instead each grid square records its *owner* (a cell, or a bitfield field),
and the grid is walked line by line: a unit of boundary is drawn when its two
owners differ, dashed when either owner is conditionally present, and runs of
units with the same pair of owners merge into one line.  An owner with a
stroke colour also gets a ring of its colour just inside its own side.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..svg import tag


@dataclass(frozen=True, eq=False)
class Owner:
    colour: str | None = None   # class / cell stroke, drawn as an inner ring
    dashed: bool = False        # conditional presence


def runs(vertical: bool, at: float, spans, owners):
    """Merged runs along one grid line: (start, end, before, after, continues-before…)."""
    merged = []   # [start, end, first index, last index, before, after]
    cur = None
    cur_key = None
    for i, (s, e) in enumerate(spans):
        a, b = owners[i]
        key = None if (a is None and b is None) or (a is not None and a is b) else (a, b)
        if key is not None and cur is not None and cur_key == key and abs(cur[1] - s) < 1e-9:
            cur[1] = e
            cur[3] = i
            continue
        cur, cur_key = [s, e, i, i, a, b], key
        if key is not None:
            merged.append(cur)
    n = len(spans)
    out = []
    for s, e, i0, i1, a, b in merged:
        out.append({
            "s": s, "e": e, "a": a, "b": b,
            "a0": i0 > 0 and a is not None and owners[i0 - 1][0] is a,
            "a1": i1 + 1 < n and a is not None and owners[i1 + 1][0] is a,
            "b0": i0 > 0 and b is not None and owners[i0 - 1][1] is b,
            "b1": i1 + 1 < n and b is not None and owners[i1 + 1][1] is b,
            "v": vertical, "p": at,
        })
    return out


def _line(vertical, p, s, e, colour, dashed):
    x1, y1, x2, y2 = (p, s, p, e) if vertical else (s, p, e, p)
    return tag("line", [("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2), ("stroke", colour),
                        ("stroke-dasharray", "5 3" if dashed else None)])


def draw(all_runs, default: str) -> str:
    out = []
    for r in all_runs:
        a, b = r["a"], r["b"]
        dashed = bool((a is not None and a.dashed) or (b is not None and b.dashed))
        out.append(_line(r["v"], r["p"], r["s"], r["e"], default, dashed))
        if a is not None and a.colour:
            out.append(_line(r["v"], r["p"] - 1, r["s"] + (0 if r["a0"] else 0.5),
                             r["e"] - (0 if r["a1"] else 0.5), a.colour, False))
        if b is not None and b.colour:
            out.append(_line(r["v"], r["p"] + 1, r["s"] + (0 if r["b0"] else 0.5),
                             r["e"] - (0 if r["b1"] else 0.5), b.colour, False))
    return "".join(out)
