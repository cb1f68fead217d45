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
    out = []
    cur = None
    for i, (s, e) in enumerate(spans):
        a, b = owners[i]
        skip = (a is None and b is None) or (a is not None and a is b)
        key = None if skip else (a, b)
        if cur is not None and cur["key"] == key and abs(cur["e"] - s) < 1e-9 and key is not None:
            cur["e"] = e
            cur["i1"] = i
            continue
        if cur is not None and cur["key"] is not None:
            out.append(cur)
        cur = {"key": key, "s": s, "e": e, "i0": i, "i1": i, "a": a, "b": b}
    if cur is not None and cur["key"] is not None:
        out.append(cur)
    n = len(spans)
    for r in out:
        r["a0"] = r["i0"] > 0 and r["a"] is not None and owners[r["i0"] - 1][0] is r["a"]
        r["a1"] = r["i1"] + 1 < n and r["a"] is not None and owners[r["i1"] + 1][0] is r["a"]
        r["b0"] = r["i0"] > 0 and r["b"] is not None and owners[r["i0"] - 1][1] is r["b"]
        r["b1"] = r["i1"] + 1 < n and r["b"] is not None and owners[r["i1"] + 1][1] is r["b"]
        r["v"], r["p"] = vertical, at
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
