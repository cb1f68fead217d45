"""Order within ranks: the sweeps' order is improved block by block (an item, or a group's
items in one rank) where a swap leaves fewer crossings, the groups kept whole and in one
order."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from markmcp.figdown.render import build
from markmcp.figdown.render.scene.order import Item, _crossings, _shift_blocks

from .test_render_lanes import _boxes, crossings

# an aggregation pair joined to three hosts and, by two links each, to three racks' switches
KAFKA = (
    "figdown 0.5 topology\n"
    "flow down\n"
    "class raft \"KRaft metadata quorum (logical)\" stroke=#a855f7 style=dotted\n"
    "node agg \"Aggregation switch pair\\n(MLAG)\" shape=rounded\n"
    "node producers \"Producer services\"\n"
    "node streams \"Stream processors\"\n"
    "node mirror \"MirrorMaker 2\"\n"
    "external dr \"DR region cluster\"\n"
    "group ra \"Rack A (AZ-1)\"\n"
    "node tora \"ToR A\" in=ra\n"
    "node ca \"Controller 1\" shape=rounded in=ra\n"
    "node b1 \"Broker 1\" in=ra\n"
    "node b2 \"Broker 2\" in=ra\n"
    "group rb \"Rack B (AZ-2)\"\n"
    "node torb \"ToR B\" in=rb\n"
    "node cb \"Controller 2\" shape=rounded in=rb\n"
    "node b3 \"Broker 3\" in=rb\n"
    "node b4 \"Broker 4\" in=rb\n"
    "group rc \"Rack C (AZ-3)\"\n"
    "node torc \"ToR C\" in=rc\n"
    "node cc \"Controller 3\" shape=rounded in=rc\n"
    "node b5 \"Broker 5\" in=rc\n"
    "node b6 \"Broker 6\" in=rc\n"
    "edge tora -- agg id=ua1\n"
    "edge tora -- agg id=ua2\n"
    "edge torb -- agg id=ub1\n"
    "edge torb -- agg id=ub2\n"
    "edge torc -- agg id=uc1\n"
    "edge torc -- agg id=uc2\n"
    "edge tora -- ca\n"
    "edge tora -- b1\n"
    "edge tora -- b2\n"
    "edge torb -- b3\n"
    "edge torb -- b4\n"
    "edge torc -- b5\n"
    "edge torc -- b6\n"
    "edge ca -- cb class=raft\n"
    "edge ca -- cc class=raft\n"
    "edge producers -[25G]- agg\n"
    "edge streams -[25G]- agg\n"
    "edge mirror -- agg\n"
    "edge mirror -[TLS over WAN]- dr style=dashed\n"
)


def test_a_hub_pulled_both_ways_moves_between_the_groups_it_joins() -> None:
    """The sweeps left the aggregation pair beside the racks, all three on one side of it
    (the mean of where its neighbours stand fell inside the first): the uplinks from the
    farther racks crossed every line down in the nearer ones, 12 crossings.  Swapping it
    past the first rack, between two of them, leaves 6."""
    svg = build(KAFKA).svg
    assert len(crossings(svg)) <= 6
    boxes = _boxes(svg)
    racks = [("tora", "ca", "b1", "b2"), ("torb", "cb", "b3", "b4"), ("torc", "cc", "b5", "b6")]
    left, _top, right, _bottom = boxes["agg"]
    assert any(all(boxes[n][2] < left for n in rack) for rack in racks)
    assert any(all(boxes[n][0] > right for n in rack) for rack in racks)


def _layers(seed: int) -> list[list[Item]]:
    """A random layered graph, its groups one block per rank in one order."""
    rng = random.Random(seed)
    groups = [f"g{k}" for k in range(rng.randint(0, 3))]
    ranks: list[list[Item]] = []
    for r in range(rng.randint(2, 5)):
        rank = []
        for g in [None] + groups:
            for k in range(rng.randint(0 if g else 1, 3)):
                rank.append(Item(f"{g}.{r}.{k}", r, g))
        rng.shuffle(rank)
        rank.sort(key=lambda it: -1 if it.group is None else groups.index(it.group))
        lone = [it for it in rank if it.group is None]
        placed = [it for it in rank if it.group is not None]
        for it in lone:   # the lone items anywhere between the groups' blocks
            cut = rng.choice([0] + [k + 1 for k in range(len(placed)) if k + 1 == len(placed)
                                    or placed[k].group != placed[k + 1].group])
            placed.insert(cut, it)
        ranks.append(placed)
    for upper, lower in zip(ranks, ranks[1:]):
        for it in upper:
            for d in rng.sample(lower, min(len(lower), rng.randint(0, 3))):
                it.downs.append(d)
                d.ups.append(it)
    for rank in ranks:
        for i, it in enumerate(rank):
            it.index = i
    return ranks


def _group_runs(rank: list[Item]) -> list[str]:
    runs: list[str] = []
    for it in rank:
        if it.group is not None and (not runs or runs[-1] != it.group):
            runs.append(it.group)
    return runs


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=10**9))
def test_shifting_blocks_never_adds_crossings_nor_breaks_a_group(seed: int) -> None:
    ranks = _layers(seed)
    before = _crossings(ranks)
    orders = [_group_runs(rank) for rank in ranks]
    members = [sorted(it.key for it in rank) for rank in ranks]
    _shift_blocks(ranks)
    assert _crossings(ranks) <= before
    for rank, order, keys in zip(ranks, orders, members):
        assert sorted(it.key for it in rank) == keys
        assert [it.index for it in rank] == list(range(len(rank)))
        runs = _group_runs(rank)
        assert runs == order   # each group one block, the groups in their order
