"""Straight runs: chains of items that share one cross position.

The placer (``place.py``) minimises squared connector lengths, which leaves a
chain of steps slanting (each step a compromise between its neighbours) and a
long connector stepping by a few pixels at every rank it passes.  This pass
takes the placer's answer and makes the runs a reader follows straight:

* an *alignment* joins two items of neighbouring ranks that should sit on one
  axis: a connector's segments through the ranks it passes (one item above,
  one below, nothing else), and a step whose only box successor is the next
  step and which has no other predecessor (a flowchart's main path: a
  decision's "no" branch going far does not bend it); last, two joined boxes
  the placer left a few px out of line (a slant that reads as a mistake);
* alignments never cross one another, and none passes into, out of or through
  a group's band that spans both its ranks;
* each run of aligned items becomes one variable, each group band's two edges
  two more (a band may widen, never take in a non-member), and every pair of
  neighbours in a rank keeps the placer's separation;
* the variables are put as near the placer's positions as those separations
  allow: variables are taken in the order the separations impose and a
  variable pushed against its left neighbour merges with it into one block at
  their weighted mean (the ``satisfy`` step of Dwyer, Marriott and Stuckey's
  VPSC), which keeps every separation.

Alignments never cross, pass no band, and a band's two edges are variables of
their own, so the separations impose an order; should they ever not, the
placer's answer is kept.  Everything is plain IEEE arithmetic in a fixed order: deterministic.
"""

from __future__ import annotations

import heapq

from .order import Item

SLACK = 1e-6
NEARLY = 8.0   # px: two joined boxes of neighbouring ranks this near in line are put in line


def _joins(ranks: list[list[Item]]) -> list[tuple[Item, Item]]:
    """The alignments (upper item, lower item), chosen without crossings, strongest first."""
    # each band's first and last index in every rank it spans
    reach: list[dict[str, tuple[int, int]]] = [{} for _ in ranks]
    for r, rank in enumerate(ranks):
        for it in rank:
            if it.group is not None:
                lo, hi = reach[r].get(it.group, (it.index, it.index))
                reach[r][it.group] = (min(lo, it.index), max(hi, it.index))
    gaps_seen: dict[int, tuple[list[int], list[int]]] = {}

    def banded(a: Item, b: Item) -> bool:
        # every band spanning both ranks has the two ends on one side of it, or both in
        # it (bands keep one order in every rank): a run never passes through a band
        r = a.rank
        if r not in gaps_seen:
            both = [g for g in reach[r] if g in reach[r + 1]]
            gaps_seen[r] = (sorted(reach[r][g][1] for g in both), sorted(reach[r + 1][g][1] for g in both))
        lasts_a, lasts_b = gaps_seen[r]
        if a.group != b.group and (a.group in reach[r + 1] or b.group in reach[r]):
            return False
        return _count_below(lasts_a, a.index) == _count_below(lasts_b, b.index)

    candidates = []
    for r, rank in enumerate(ranks[:-1]):
        for u in rank:
            # neighbours counted once (a pair joined both ways is one way on)
            downs = list({id(d): d for d in u.downs}.values())
            boxes_down = [d for d in downs if d.node is not None]
            for v in downs:
                if v.rank != r + 1 or u.placeholder or v.placeholder:
                    continue
                ups = list({id(w): w for w in v.ups}.values())
                if len(downs) == 1 and (len(ups) == 1 or (u.node is None and v.node is None)):
                    strength = 0           # nothing else leaves u or enters v (but the legs of a
                                           # merge bus joining its trunk: the trunk runs on)
                elif u.node is not None and v.node is not None and (
                        (boxes_down == [v] and len(ups) == 1)
                        or ([w for w in ups if w.node is not None] == [u] and len(downs) == 1)):
                    strength = 1           # the only box on the way on
                elif u.node is not None and v.node is not None and abs(u.pos - v.pos) < NEARLY:
                    strength = 2           # nearly in line already: a slant of a few px
                else:
                    continue
                if not banded(u, v):
                    continue
                candidates.append((strength, abs(u.pos - v.pos), r, u.index, v.index, u, v))
    candidates.sort(key=lambda c: c[:5])
    taken_down: set[int] = set()
    taken_up: set[int] = set()
    accepted: dict[int, list[tuple[int, int]]] = {}
    out = []
    for _, _, r, ui, vi, u, v in candidates:
        if id(u) in taken_down or id(v) in taken_up:
            continue
        row = accepted.setdefault(r, [])
        # accepted joins of a gap never cross, so they are sorted on both ends
        k = _bisect(row, ui)
        if (k > 0 and row[k - 1][1] > vi) or (k < len(row) and row[k][1] < vi):
            continue
        row.insert(k, (ui, vi))
        taken_down.add(id(u))
        taken_up.add(id(v))
        out.append((u, v))
    return out


def _count_below(values: list[int], index: int) -> int:
    """How many of the sorted ``values`` are below ``index``."""
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < index:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _bisect(row: list[tuple[int, int]], ui: int) -> int:
    lo, hi = 0, len(row)
    while lo < hi:
        mid = (lo + hi) // 2
        if row[mid][0] < ui:
            lo = mid + 1
        else:
            hi = mid
    return lo


def straighten(placer) -> bool:
    """Put aligned runs on one axis, keeping every separation; False (nothing moved)
    when the alignments cannot all hold in the ranks' order."""
    joins = _joins(placer.ranks)
    if not joins or not _place(placer, joins):
        return False
    # boxes the runs brought nearly in line are joined in a second look
    again = _joins(placer.ranks)
    if len(again) > len(joins):
        _place(placer, again)
    return True


def _place(placer, joins: list[tuple[Item, Item]]) -> bool:
    """Each run of ``joins`` on one axis and every separation kept, or False (nothing
    moved) when the separations cannot all hold."""
    ranks, lanes = placer.ranks, placer.lanes
    # variables: one per run of aligned items, two per group band (its edges)
    var_of: dict[int, int] = {}
    below = {id(u): v for u, v in joins}
    has_above = {id(v) for _, v in joins}
    desired: list[float] = []
    weight: list[float] = []
    runs: list[list[Item]] = []
    for rank in ranks:
        for it in rank:
            if id(it) in has_above:
                continue
            run = [it]
            while id(run[-1]) in below:
                run.append(below[id(run[-1])])
            vid = len(runs)
            runs.append(run)
            total = w_sum = 0.0
            for m in run:
                var_of[id(m)] = vid
                w = 1.0 if (m.ups or m.downs) else 0.05
                total += w * m.pos
                w_sum += w
            desired.append(total / w_sum)
            weight.append(w_sum)
    # a band's two edges are variables of their own: it may widen (its members' runs no
    # longer line up with where the placer had them) but never takes in a non-member
    lane_var: dict[str, int] = {}
    for gid, lane in lanes.items():
        if lane.ranks:
            lane_var[gid] = len(desired)
            desired += [lane.open, lane.open + lane.size]
            weight += [0.001, 0.001]

    def var_off(tok) -> tuple[int, float]:
        kind, v = tok
        if kind == "item":
            return var_of[id(v)], 0.0
        return lane_var[v.id] + (0 if kind == "open" else 1), 0.0

    # separations: x[right] - x[left] >= gap, the largest per pair of variables
    gaps: dict[tuple[int, int], float] = {}
    for r in range(len(ranks)):
        toks = placer._tokens(r)
        for a, b in zip(toks, toks[1:]):
            va, oa = var_off(a)
            vb, ob = var_off(b)
            gap = oa + placer._sep(a, b) - ob
            if va == vb:
                if gap > SLACK:
                    return False
                continue
            key = (va, vb)
            if gaps.get(key, -1e18) < gap:
                gaps[key] = gap
    x = _satisfy(desired, weight, gaps)
    if x is None:
        return False
    for vid, run in enumerate(runs):
        for m in run:
            m.pos = x[vid]
    for gid, vid in lane_var.items():
        lanes[gid].open, lanes[gid].size = x[vid], x[vid + 1] - x[vid]
    return True


def _satisfy(desired: list[float], weight: list[float],
             gaps: dict[tuple[int, int], float]) -> list[float] | None:
    """Positions as near ``desired`` as the separations allow (VPSC's satisfy), or None
    when the separations form a cycle."""
    n = len(desired)
    ins: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    outs: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for (a, b), gap in gaps.items():
        ins[b].append((a, gap))
        outs[a].append(b)
        indeg[b] += 1
    order = [v for v in range(n) if indeg[v] == 0]
    heapq.heapify(order)
    topo = []
    while order:
        v = heapq.heappop(order)
        topo.append(v)
        for b in outs[v]:
            indeg[b] -= 1
            if indeg[b] == 0:
                heapq.heappush(order, b)
    if len(topo) != n:
        return None
    # blocks: members with offsets from the block's position
    block = list(range(n))
    offset = [0.0] * n
    members = [[v] for v in range(n)]
    wsum = list(weight)
    wpos = [w * d for w, d in zip(weight, desired)]
    pos = list(desired)
    # each block's separations from its left, most violated first: an entry holds
    # -(key - hshift[block]), so moving a block's members shifts its keys at once
    heaps: list[list] = [[] for _ in range(n)]
    hshift = [0.0] * n

    def key(left: int, gap: float, right: int) -> float:
        # where the block of ``right`` would have to stand for the separation to hold
        return pos[block[left]] + offset[left] + gap - offset[right]

    for v in topo:
        b = block[v]
        for a, gap in ins[v]:
            heapq.heappush(heaps[b], (hshift[b] - key(a, gap, v), a, v, gap))
        while heaps[b]:
            stored, a, r, gap = heaps[b][0]
            if block[a] == b:
                heapq.heappop(heaps[b])
                continue
            now = key(a, gap, r)
            if now < hshift[b] - stored - SLACK:     # its left block has moved left since
                heapq.heapreplace(heaps[b], (hshift[b] - now, a, r, gap))
                continue
            if now - pos[b] <= SLACK:                # the most violated separation holds
                break
            heapq.heappop(heaps[b])
            left = block[a]
            # merge: x[r] = x[a] + gap, i.e. block b stands ``dist`` after block left
            dist = offset[a] + gap - offset[r]
            if len(members[b]) > len(members[left]):
                big, small, shift = b, left, -dist
            else:
                big, small, shift = left, b, dist
            for m in members[small]:
                block[m] = big
                offset[m] += shift
            hshift[small] -= shift
            members[big].extend(members[small])
            members[small] = []
            wpos[big] += wpos[small] - shift * wsum[small]
            wsum[big] += wsum[small]
            pos[big] = wpos[big] / wsum[big]
            if len(heaps[small]) > len(heaps[big]):
                heaps[big], heaps[small] = heaps[small], heaps[big]
                hshift[big], hshift[small] = hshift[small], hshift[big]
            for s, ea, er, eg in heaps[small]:
                heapq.heappush(heaps[big], (s - hshift[small] + hshift[big], ea, er, eg))
            heaps[small] = []
            b = big
    x = [pos[block[v]] + offset[v] for v in range(n)]
    for (a, b), gap in gaps.items():
        if x[b] - x[a] < gap - 1e-6:
            return None
    return x
