"""Runs drawn one on the other: two connectors along one level (or upright) line.

Two connectors whose runs lie within :data:`ALIGN` px of one line and share more than
:data:`SHARED` px of it read as one line (060's core switch sent two links out 10 px
apart, and one stepped down onto the other's run for 52 px).  Each such pair is
parted by sliding a step: one of the two runs ends at a bend whose step (the run
across, between two bends) slides along the run, shortening it until it stops
:data:`GAP` px short of the other's run, the run before the step growing by as much.
A step at a connector's first or last run never moves (it would move the end on its
box).  A slide is kept only where the connector then passes through no box, crosses
no more lines and shares no run with another; of those, the shortest.  The members
of one merge bus share their trunk on purpose and are left alone, and a figure's
first :data:`MOST_PAIRS` pairs are all that are looked at (the work stays bounded).
"""

from __future__ import annotations

from .free import Boxes, lines_crossed
from .graph import Scene

SHARED = 10.0   # px of one line two connectors may share
ALIGN = 1.5     # px off a line that a run still reads as on it
GAP = 6.0       # px a shortened run stops short of the other's
MOST_PAIRS = 64   # pairs parted in one figure, at most


def unshare(scene: Scene, paths: dict[int, list], boxes: Boxes) -> None:
    """Part every pair of connectors sharing a run (see the module docstring)."""
    links = {lk.index: lk for lk in scene.links if len(paths.get(lk.index) or ()) >= 2 and lk.a != lk.b}
    for li, lj, i, j in _shared_pairs(links, paths):
        run_i, run_j = _run(paths[li], i), _run(paths[lj], j)
        if run_i is None or run_j is None or _overlap(run_i, run_j) <= SHARED:
            continue   # (parted by an earlier slide)
        moves = [(dist, lk, pts) for lk, k, other in ((li, i, run_j), (lj, j, run_i))
                 for dist, pts in _slides(paths[lk], k, other)]
        for _dist, lk, pts in sorted(moves, key=lambda m: (m[0], m[1])):
            link = links[lk]
            if boxes.hits(pts, (link.a, link.b)) \
                    or lines_crossed(paths, lk, pts) > lines_crossed(paths, lk, paths[lk]) \
                    or _shares(links, paths, lk, pts):
                continue
            paths[lk] = pts
            break


def _run(pts: list, k: int):
    """Segment ``k`` of ``pts`` as ``(axis, level, lo, hi)`` when it is level (axis 0,
    along x) or upright (axis 1, along y), else None."""
    (px, py), (qx, qy) = pts[k], pts[k + 1]
    if abs(py - qy) <= 0.01 and abs(px - qx) > 0.01:
        return 0, py, min(px, qx), max(px, qx)
    if abs(px - qx) <= 0.01 and abs(py - qy) > 0.01:
        return 1, px, min(py, qy), max(py, qy)
    return None


def _overlap(a, b) -> float:
    """How long runs ``a`` and ``b`` (:func:`_run`) share one line: 0 unless they are
    along one axis within :data:`ALIGN` of each other."""
    if a[0] != b[0] or abs(a[1] - b[1]) > ALIGN:
        return 0.0
    return min(a[3], b[3]) - max(a[2], b[2])


def _shared_pairs(links: dict, paths: dict[int, list]) -> list[tuple[int, int, int, int]]:
    """``(link, other link, its segment, the other's segment)`` for the pairs of runs
    sharing more than :data:`SHARED` px of one line, members of one merge bus aside: at
    most :data:`MOST_PAIRS` of them (a pile of lines on one track is past parting)."""
    runs = []
    for li in links:
        pts = paths[li]
        for k in range(len(pts) - 1):
            run = _run(pts, k)
            if run is not None:
                runs.append((run, li, k))
    # runs along one axis whose levels chain within ALIGN of each other, each such
    # cluster swept by where its runs begin: a run meets only those still open
    runs.sort(key=lambda r: (r[0][0], r[0][1], r[1], r[2]))
    found: list[tuple[int, int, int, int]] = []
    start = 0
    while start < len(runs):
        end = start + 1
        while end < len(runs) and runs[end][0][0] == runs[start][0][0] \
                and runs[end][0][1] - runs[end - 1][0][1] <= ALIGN:
            end += 1
        cluster = sorted(runs[start:end], key=lambda r: (r[0][2], r[1], r[2]))
        open_runs: list = []
        for a, li, i in cluster:
            open_runs = [r for r in open_runs if r[0][3] - a[2] > SHARED]
            for b, lj, j in open_runs:
                bus = links[li].bus
                if lj != li and not (bus is not None and bus == links[lj].bus) and _overlap(a, b) > SHARED:
                    found.append((lj, li, j, i))
                    if len(found) >= MOST_PAIRS:
                        return found
            open_runs.append((a, li, i))
        start = end
    return found


def _slides(pts: list, k: int, other) -> list[tuple[float, list]]:
    """The ways to shorten run ``k`` of ``pts`` off the ``other`` run by sliding the step
    at one of its ends (``(distance slid, new points)``): the step must lie between two
    bends, and the run before it keeps its direction."""
    axis, _level, _lo, _hi = _run(pts, k)
    out = []
    for start in (True, False):
        # the end of run k that moves (m), its far end (f), the step's other point (s)
        # and the point before that (t): the run t-s grows or shrinks with the slide
        m, f, s, t = (k, k + 1, k - 1, k - 2) if start else (k + 1, k, k + 2, k + 3)
        if s < 1 or s > len(pts) - 2 or t < 0 or t > len(pts) - 1:
            continue
        if _run(pts, min(m, s)) is None or _run(pts, min(m, s))[0] == axis:
            continue   # (not a step across the run)
        here, far = pts[m][axis], pts[f][axis]
        lo, hi = other[2] - GAP, other[3] + GAP
        if lo < far < hi:
            continue   # (the whole run lies along the other's)
        to = hi if far >= hi else lo
        if not (min(here, far) < to < max(here, far)):
            continue
        before = pts[t][axis]
        if (to - before) * (here - before) <= 0:
            continue   # (the run before the step would turn back on itself)
        moved = list(pts)
        for q in (m, s):
            p = list(moved[q])
            p[axis] = to
            moved[q] = tuple(p)
        out.append((abs(to - here), moved))
    return out


def _shares(links: dict, paths: dict[int, list], li: int, pts: list) -> bool:
    """Whether ``pts`` (in place of ``li``'s) shares a run with another connector."""
    bus = links[li].bus
    mine = [r for r in (_run(pts, k) for k in range(len(pts) - 1)) if r is not None]
    for lj, link in links.items():
        if lj == li or (bus is not None and bus == link.bus):
            continue
        other = paths[lj]
        for k in range(len(other) - 1):
            run = _run(other, k)
            if run is not None and any(_overlap(run, r) > SHARED for r in mine):
                return True
    return False
