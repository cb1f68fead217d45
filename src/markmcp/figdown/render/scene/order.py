"""Order within ranks: few crossings, groups kept together.

Every connector that spans several ranks gets a *dummy* item in each rank it
passes, so long connectors take part in the ordering like nodes do.  A group
occupies one contiguous block in every rank from its first member's rank to
its last member's — including ranks where it has no member, so nothing else
is ever placed inside its band.  Groups keep one relative order in every rank.

A group's placeholder is joined, for the ordering only, to the group's items in
the ranks beside it: a connector passing from one side of the band to the other
there would have to go round it, so it counts as a crossing.

The order is improved by barycentre sweeps (down, then up), keeping the
order with the fewest crossings seen; ties keep the earlier order, and the
starting order is declaration order, so the result is deterministic.  With up
to four groups every relative order of the groups is tried.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations


@dataclass(eq=False)
class Item:
    key: str
    rank: int
    group: str | None = None
    node: object | None = None        # the Box, or None for a dummy
    seq: float = 0.0                  # initial ordering key
    ups: list["Item"] = field(default_factory=list)
    downs: list["Item"] = field(default_factory=list)
    index: int = 0                    # position within its rank
    pos: float = 0.0                  # cross-axis centre (placement)
    size: float = 0.0                 # cross-axis extent
    main: float = 0.0                 # main-axis extent
    placeholder: bool = False         # holds a group's lane in a rank with no member
    # a group's band through a rank where it has no member, for the ordering only: the
    # placeholder joined to the group's items in the ranks beside it, so a connector
    # passing from one side of the band to the other counts as crossing it
    vups: list["Item"] = field(default_factory=list)
    vdowns: list["Item"] = field(default_factory=list)


SWEEPS = 6
MAX_GROUP_PERMUTATIONS = 24


def _crossings(ranks: list[list[Item]]) -> int:
    """The ordering's cost: twice the connectors' crossings, plus each crossing of a
    connector with a group's band through a rank where the group has no member (the
    connector goes round it: a longer way, not a crossing of ink)."""
    return sum(_gap_crossings(ranks[r]) for r in range(len(ranks) - 1))


def _gap_crossings(rank: list[Item]) -> int:
    """:func:`_crossings` between ``rank`` and the rank after it."""
    pairs = []
    both = []
    for it in rank:
        for d in it.downs:
            pairs.append((it.index, d.index))
        for d in it.vdowns:
            both.append((it.index, d.index))
    if not both:
        pairs.sort()
        return 2 * _inversions([b for _, b in pairs])
    # crossings among connectors, and among connectors and bands together: a band's
    # own joins never cross each other (a group is one block in every rank)
    real = sorted(pairs)
    mixed = sorted(pairs + both)
    connectors = _inversions([b for _, b in real])
    return 2 * connectors + (_inversions([b for _, b in mixed]) - connectors)


def _inversions(seq: list[int]) -> int:
    if len(seq) < 2:
        return 0
    # Fenwick tree over values
    size = max(seq) + 2
    tree = [0] * (size + 1)
    count = 0
    for k, v in enumerate(seq):
        i = v + 1
        seen_le = 0
        j = i
        while j > 0:
            seen_le += tree[j]
            j -= j & -j
        count += k - seen_le
        while i <= size:
            tree[i] += 1
            i += i & -i
    return count


def _reindex(ranks: list[list[Item]]) -> None:
    for rank in ranks:
        for i, it in enumerate(rank):
            it.index = i


def _arrange(rank: list[Item], keys: dict[int, float], group_order: dict[str, int]) -> list[Item]:
    """Sort one rank by key, members of a group kept in one block, blocks of
    groups in the global group order."""
    blocks: list[tuple[float, int, str | None, list[Item]]] = []
    by_group: dict[str, list[Item]] = {}
    for it in rank:
        if it.group is None:
            blocks.append((keys[id(it)], it.index, None, [it]))
        else:
            by_group.setdefault(it.group, []).append(it)
    for g, members in by_group.items():
        members.sort(key=lambda m: (keys[id(m)], m.index))
        k = sum(keys[id(m)] for m in members) / len(members)
        blocks.append((k, min(m.index for m in members), g, members))
    blocks.sort(key=lambda b: (b[0], b[1]))
    # the groups' slots keep their places; the groups fill them in global order
    slots = [i for i, b in enumerate(blocks) if b[2] is not None]
    ordered = sorted((blocks[i] for i in slots), key=lambda b: group_order[b[2]])
    for i, b in zip(slots, ordered):
        blocks[i] = b
    return [it for b in blocks for it in b[3]]


def _sweep(ranks: list[list[Item]], down: bool, group_order: dict[str, int]) -> None:
    seq = range(1, len(ranks)) if down else range(len(ranks) - 2, -1, -1)
    for r in seq:
        rank = ranks[r]
        keys: dict[int, float] = {}
        for it in rank:
            nb = (it.ups + it.vups) if down else (it.downs + it.vdowns)
            if nb:
                keys[id(it)] = sum(n.index for n in nb) / len(nb)
            else:
                keys[id(it)] = it.index * (len(ranks[r - 1 if down else r + 1]) or 1) / max(1, len(rank))
        ranks[r] = _arrange(rank, keys, group_order)
        for i, it in enumerate(ranks[r]):
            it.index = i


def _initial(ranks: list[list[Item]], group_order: dict[str, int]) -> list[list[Item]]:
    out = []
    for rank in ranks:
        for i, it in enumerate(sorted(rank, key=lambda t: t.seq)):
            it.index = i
        keys = {id(it): float(it.index) for it in rank}
        arranged = _arrange(rank, keys, group_order)
        for i, it in enumerate(arranged):
            it.index = i
        out.append(arranged)
    return out


def order_ranks(ranks: list[list[Item]], groups: list[str]) -> list[list[Item]]:
    """The best ordering found; ``groups`` are the group ids in declaration order."""
    candidates: list[tuple[str, ...]] = [tuple(groups)]
    if 1 < len(groups) <= 4:
        candidates = list(permutations(groups))[:MAX_GROUP_PERMUTATIONS]
    best, best_cost = None, None
    for cand in candidates:
        group_order = {g: k for k, g in enumerate(cand)}
        current = _initial([list(r) for r in ranks], group_order)
        local_best = [list(r) for r in current]
        local_cost = _crossings(current)
        for k in range(SWEEPS):
            if local_cost == 0:
                break
            _sweep(current, k % 2 == 0, group_order)
            cost = _crossings(current)
            if cost < local_cost:
                local_cost = cost
                local_best = [list(r) for r in current]
        if best_cost is None or local_cost < best_cost:
            best, best_cost = local_best, local_cost
    _reindex(best)
    if best_cost and sum(len(rank) for rank in best) <= SHIFT_MOST:
        _shift_blocks(best)
    return best


#: The most items an ordering shifts block by block after its sweeps (each pass counts
#: the crossings either side of a rank for every pair of neighbouring blocks in it).
SHIFT_MOST = 600
SHIFT_PASSES = 8


def _shift_blocks(ranks: list[list[Item]]) -> None:
    """Swap neighbouring blocks of a rank (an item, or a group's items there) wherever
    that leaves fewer crossings either side of it, rank after rank, until no swap helps
    (at most :data:`SHIFT_PASSES` passes).  Two groups' blocks never swap (the groups
    keep one order in every rank).  The sweeps move an item by the mean of where its
    neighbours are, so one pulled both ways stays put: an aggregation switch joined to
    three hosts on the left and to three racks' switches stayed left of the first rack,
    its uplinks from the other two crossing every line down in that rack (18 where 6
    will do, with the hosts moved in after the first rack's switch)."""
    for _ in range(SHIFT_PASSES):
        moved = False
        for r, rank in enumerate(ranks):
            blocks: list[list[Item]] = []
            for it in rank:
                if it.group is not None and blocks and blocks[-1][0].group == it.group:
                    blocks[-1].append(it)
                else:
                    blocks.append([it])
            cost = _around(ranks, r) if len(blocks) > 1 else 0
            for k in range(len(blocks) - 1):
                if not cost:
                    break
                a, b = blocks[k], blocks[k + 1]
                if a[0].group is not None and b[0].group is not None:
                    continue
                _lay(rank, blocks, k, b, a)
                after = _around(ranks, r)
                if after < cost:
                    cost, moved = after, True
                else:
                    _lay(rank, blocks, k, a, b)
        if not moved:
            return


def _around(ranks: list[list[Item]], r: int) -> int:
    """The crossings either side of rank ``r`` (:func:`_gap_crossings`)."""
    return (_gap_crossings(ranks[r - 1]) if r else 0) + (_gap_crossings(ranks[r]) if r + 1 < len(ranks) else 0)


def _lay(rank: list[Item], blocks: list[list[Item]], k: int, first: list[Item], second: list[Item]) -> None:
    """Put ``first`` then ``second`` at blocks ``k`` and ``k + 1`` of ``rank``, reindexed."""
    blocks[k], blocks[k + 1] = first, second
    rank[:] = [it for block in blocks for it in block]
    for i, it in enumerate(rank):
        it.index = i
