"""Auto layout of a scene: ranks, order, cross positions, then the main axis.

Coordinates are worked out in a flow-neutral frame — ``main`` runs along
``flow``, ``cross`` across it — and turned into x/y at the end (``left`` and
``up`` mirror the main axis).  Rank gaps are FigDown's: 56 px between
columns and 44 px between rows; a gap widens for the connector tracks and
edge labels it has to carry.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..block import Budget
from ..text import END_FS, label_px
from .graph import Box, Link, Scene
from .names import EXTERNAL_FS, GAP as NAME_GAP
from .order import Item, order_ranks
from .place import Lane, Placer, Spacing
from .ranks import assign_ranks
from .straight import straighten

GAPX, GAPY = 56.0, 44.0
BAND = {"l": 14.0, "r": 14.0, "t": 26.0, "b": 12.0}
LOOP_ROOM = 32.0      # room kept beside a box for its self-loop (route.LOOP_H out, and a gap)
#: How far beyond a decision's side vertex a branch's run counts as beyond it: a nearer
#: one's column is moved out to :data:`BRANCH_RUN` where there is room ("yes" turning
#: 9 px past the vertex went round Tier-1 from the diamond's bottom point); where there
#: is none it leaves by the vertex all the same (see route._side_exits)
VERTEX_RUN = 4.0
#: Where a decision's branch that would leave by its flow-facing faces and step aside
#: within the diamond's width is moved to: this far beyond the side vertex
BRANCH_RUN = 12.0
GAP_CLEAR = 10.0   # a column kept this far from a box it passes beside
BRANCH_APART = 24.0   # and where it comes onto a box, this far from a straight line's landing


@dataclass
class Plan:
    """How a connector is routed in the flow frame."""

    kind: str                     # "chain" | "same" | "loop" | "lane"
    items: list[Item] = field(default_factory=list)   # chain: first → last in flow order
    flipped: bool = False         # the chain runs b → a
    side: int = 0                 # lane: -1 before the drawing, +1 after it
    bus: str | None = None        # chain: the merge bus whose trunk it shares (see chain_buses)


@dataclass
class Frame:
    """The auto layout, flow-neutral, plus what the router needs."""

    horizontal: bool
    mirror: bool
    ranks: list[list[Item]]
    lanes: dict[str, Lane]
    plans: dict[int, Plan]
    rank_of: dict[str, int]
    item_of: dict[str, Item]
    rank_start: list[float] = field(default_factory=list)
    rank_size: list[float] = field(default_factory=list)
    main_total: float = 0.0
    cross_lo: float = 0.0
    cross_hi: float = 0.0

    def to_xy(self, main: float, cross: float) -> tuple[float, float]:
        if self.mirror:
            main = self.main_total - main
        return (main, cross) if self.horizontal else (cross, main)

    def to_main_cross(self, x: float, y: float) -> tuple[float, float]:
        main, cross = (x, y) if self.horizontal else (y, x)
        if self.mirror:
            main = self.main_total - main
        return main, cross


def _spacing(horizontal: bool, straight: bool) -> Spacing:
    if horizontal:   # cross axis is y: top pad holds the band name
        return Spacing(node_gap=GAPY, pad_before=BAND["t"], pad_after=BAND["b"], spread_dummies=not straight)
    return Spacing(node_gap=GAPX, pad_before=BAND["l"], pad_after=BAND["r"], spread_dummies=not straight)


MAX_LAYERED = 40_000
"""The most items the layered layouts of one document (every section) place: boxes, a
connector's segment in every rank it passes through, and a group's placeholder in every
rank of its span that holds no member.  Placing costs about 0.1 ms an item (it is swept
rank by rank, many times over): a chain of 200 boxes with 200 connectors from its first
box to its last is 39,800 items, 3.1 s; 500 and 500 (21 KB of source, 250,000 items) took
34 s and 282 MB.  The largest scene of the conformance
corpus and the examples has 22 items; a random figure of 10,000 boxes and 20,000 links 10,000."""


def layered_refusal(scene: Scene, budget: Budget) -> list[tuple[int, str]]:
    """The refusal of a layout that takes the document past :data:`MAX_LAYERED` items (the
    layouts of its earlier sections count, ``budget.layered``), found before laying it out:
    the items :func:`plan_layout` would place, counted in its order (boxes, then each
    connector's segments, then the groups' placeholders), and the line of the first that
    goes past (a group's placeholders are counted for every rank of its span no box of it
    holds).  Empty, and the items added to ``budget``, when the layout is within it."""
    total = budget.layered + len(scene.order)

    def refused(line: int, what: str) -> list[tuple[int, str]]:
        return [(line, f"{what} takes this document's layouts to {total} items (boxes, and connectors and "
                       f"groups carried through ranks), more than one document lays out (at most "
                       f"{MAX_LAYERED}); the figure is not drawn rather than cut short.")]
    if total > MAX_LAYERED:
        last = scene.nodes[scene.order[MAX_LAYERED - budget.layered]]
        total = MAX_LAYERED + 1
        return refused(last.line, f'"{last.id}"')
    rank_of = assign_ranks(scene)
    for link in scene.links:
        ra, rb = rank_of[link.a], rank_of[link.b]
        if link.a != link.b and abs(ra - rb) > 1 and not ra > rb + 1:
            total += abs(ra - rb) - 1
            if total > MAX_LAYERED:
                return refused(link.line, f"the connector {link.a} {link.op} {link.b}, through "
                                          f"{abs(ra - rb) - 1} ranks,")
    for gid, group in scene.groups.items():
        if group.members:
            held = {rank_of[m] for m in group.members}
            total += max(held) - min(held) + 1 - len(held)
            if total > MAX_LAYERED:
                return refused(group.line, f'group "{gid}", across {max(held) - min(held) + 1} ranks,')
    budget.layered = total
    return []


def plan_layout(scene: Scene) -> Frame:
    horizontal = scene.horizontal
    rank_of = assign_ranks(scene)
    n_ranks = (max(rank_of.values()) + 1) if rank_of else 0
    items: dict[str, Item] = {}
    ranks: list[list[Item]] = [[] for _ in range(n_ranks)]
    for nid in scene.order:
        box = scene.nodes[nid]
        box.rank = rank_of[nid]
        it = Item(nid, box.rank, box.group, box, seq=float(box.order))
        it.size = box.h if horizontal else box.w
        it.main = box.w if horizontal else box.h
        items[nid] = it
        ranks[box.rank].append(it)
    plans: dict[int, Plan] = {}
    loops: dict[str, int] = {}
    buses = chain_buses(scene, rank_of)
    trunk: dict[tuple[str, int], Item] = {}   # a merge bus's dummy in a rank it passes
    for link in scene.links:
        ra, rb = rank_of[link.a], rank_of[link.b]
        if link.a == link.b:
            plans[link.index] = Plan("loop")
            loops[link.a] = loops.get(link.a, 0) + 1
        elif ra == rb:
            plans[link.index] = Plan("same")
        elif ra > rb and link.a not in scene.mirrored and link.b not in scene.mirrored \
                and (ra > rb + 1 or scene.nodes[link.a].shape == "diamond"):
            # against the flow: round the drawing on a lane (an anti-parallel
            # partner of a forward link is drawn beside it instead, but for a
            # decision's exit: it left by the vertex its way in arrives at, 8 px over
            # that arrow; a link ranked from the hub outward, ranks.hub_split, runs
            # with the flow read backwards)
            plans[link.index] = Plan("lane")
        else:
            flipped = ra > rb
            first, last = (link.b, link.a) if flipped else (link.a, link.b)
            chain = [items[first]]
            lo, hi = min(ra, rb), max(ra, rb)
            ga, gb = scene.nodes[first].group, scene.nodes[last].group
            inner = ga if ga is not None and ga == gb else None
            bus = buses.get(link.index)
            for r in range(lo + 1, hi):
                d = trunk.get((bus, r)) if bus is not None else None
                if d is None:
                    d = Item(f"~{link.index}.{r}", r, inner, None, seq=items[first].seq + 0.5)
                    d.size = 0.0
                    ranks[r].append(d)
                    if bus is not None:
                        trunk[(bus, r)] = d
                chain.append(d)
            chain.append(items[last])
            for u, v in zip(chain, chain[1:]):
                # the members of a bus share their trunk's dummies, joined once
                if not (bus is not None and v.node is None and v in u.downs):
                    u.downs.append(v)
                    v.ups.append(u)
            plans[link.index] = Plan("chain", chain, flipped, bus=bus)
    # group lanes: a placeholder in every rank of the span that has no member
    lanes: dict[str, Lane] = {}
    for gid, group in scene.groups.items():
        if not group.members:
            continue
        lanes[gid] = Lane(gid, group.gap)
        rs = [rank_of[m] for m in group.members]
        for r in range(min(rs), max(rs) + 1):
            if not any(it.group == gid for it in ranks[r]):
                ph = Item(f"~g{gid}.{r}", r, gid, None, seq=min(scene.nodes[m].order for m in group.members))
                ph.size, ph.placeholder = 0.0, True
                ranks[r].append(ph)
    # each placeholder joined to its group's items in the ranks beside it (order.Item.vups),
    # where connectors follow their ranks' order (a topology's straight lines cut across)
    held: dict[tuple[int, str], list[Item]] = {}
    for r, rank in enumerate(ranks if scene.genre != "topology" else ()):
        for it in rank:
            if it.group is not None:
                held.setdefault((r, it.group), []).append(it)
    for (r, gid), here in held.items():
        below = held.get((r + 1, gid), ())
        if any(it.placeholder for it in here) or any(it.placeholder for it in below):
            for u in here:
                for v in below:
                    u.vdowns.append(v)
                    v.vups.append(u)
    group_ids = [g for g in scene.groups if g in lanes]
    ordered = order_ranks(ranks, group_ids)
    loop_side, loop_room = _loop_sides(scene, plans, items, loops)
    # a box's threshold labels, right of it: across the flow when it runs down or up, else
    # in the gap on that side (they were written over the box beside it)
    for nid, it in items.items():
        room = scene.nodes[nid].beside
        if room and not horizontal:
            it.trail = max(getattr(it, "trail", 0.0), room)
        elif room:
            ch = it.rank - 1 if scene.flow == "left" else it.rank
            loop_room[ch] = max(loop_room.get(ch, 0.0), room + GAP_CLEAR)
    _name_room(scene, items, horizontal)
    _end_label_room(scene, plans, items, horizontal)
    frame = Frame(horizontal, scene.flow in ("left", "up"), ordered, lanes, plans, rank_of, items)
    frame.loop_side, frame.loop_room = loop_side, loop_room
    place_cross(scene, frame)
    return frame


def chain_buses(scene: Scene, rank_of: dict[str, int], level: int | None = None) -> dict[int, str]:
    """Connectors merged into one trunk, each keyed by its bus's name: forward arrows
    (``->``) into one box that look alike (stroke, dash) and say the same (mid and head
    label), :data:`BUS_LEAST` or more of them, one at least across two ranks or more.
    They pass the ranks between on shared dummies, so from where one joins the trunk they
    run as one line into one port, with one arrowhead: four "bus inactive 3 ms"
    transitions into Suspended were four lines side by side, three down the figure's
    side.  At ``level`` (the scene's :attr:`merge` when None) 2 a connector to the next
    rank joins too, at 1 only the longer ones merge, at 0 none (see
    scene._settle_merged, which tries each).  A topology draws straight lines, a pinned
    box's connectors are the author's, a figure of more than :data:`MERGE_MOST`
    connectors merges none, and a lane (against the flow) merges in
    :func:`route.assign_ports`."""
    level = scene.merge if level is None else level
    if scene.genre == "topology" or not level or len(scene.links) > MERGE_MOST:
        return {}
    found: dict[tuple, list[int]] = {}
    for link in scene.links:
        span = rank_of[link.b] - rank_of[link.a]
        if link.op != "->" or link.a == link.b or span < (1 if level > 1 else 2) \
                or link.a in scene.pins or link.b in scene.pins:
            continue
        ga, gb = scene.nodes[link.a].group, scene.nodes[link.b].group
        inner = ga if ga is not None and ga == gb else None
        found.setdefault((link.b, link.mid, link.head, link.stroke, link.style, inner), []).append(link.index)
    by_index = {link.index: link for link in scene.links}
    return {li: f"{key[0]}>{members[0]}" for key, members in found.items() if len(members) >= BUS_LEAST
            and any(rank_of[by_index[m].b] - rank_of[by_index[m].a] > 1 for m in members)
            for li in members}


#: The fewest connectors :func:`chain_buses` merges: two from different ranks read
#: better side by side (the later one's leg ran back across the lines between to join).
BUS_LEAST = 3
#: Past this many connectors a figure merges none along the flow: whether its buses pay
#: is found by laying it out at each merge level and counting crossings.
MERGE_MOST = 400


#: Room (px) an external's name keeps from the next box of its rank, beyond its half.
NAME_ROOM = 4.0


def _name_room(scene: Scene, items: dict, horizontal: bool) -> None:
    """An external is a point in its rank whose name is written beside it (names.py):
    across the flow it keeps room for one of the name's places to be free of the boxes
    beside it ("kubectl / CI", between two boxes 100 px apart, was written over one of
    them): where ranks are rows, half the name's width each side (centred above or below
    the point), where they are columns, the name's height and gap below it.  Where ranks
    are columns, an external in the first or the last has its name beyond the figure's
    edge and takes no room."""
    last = max((it.rank for it in items.values()), default=0)
    for nid, it in items.items():
        n = scene.nodes[nid]
        if not n.external or not n.label or (horizontal and it.rank in (0, last)):
            continue
        lines = n.label.count("\n")
        if horizontal:   # below it: the name's height and gap after the point
            room = max(0.0, NAME_GAP + lines * EXTERNAL_FS * 1.3 + EXTERNAL_FS * 1.1 + NAME_ROOM - it.size / 2)
            it.trail = max(getattr(it, "trail", 0.0), room)
            continue
        room = max(0.0, label_px(n.label, EXTERNAL_FS) / 2 + NAME_ROOM - it.size / 2)
        it.lead = max(getattr(it, "lead", 0.0), room)
        it.trail = max(getattr(it, "trail", 0.0), room)


def place_cross(scene: Scene, frame: Frame) -> None:
    """Every item's position across the flow, from scratch (for the ranks' order)."""
    placer = Placer(frame.ranks, frame.lanes, _spacing(frame.horizontal, scene.genre == "topology"))
    placer.pack()
    placer.improve()
    straighten(placer)
    _branch_columns(scene, frame, placer)
    _bus_columns(scene, frame, placer)
    _entry_columns(scene, frame, placer)
    lo, hi = placer.extent()
    placer.shift(-lo)
    frame.cross_lo, frame.cross_hi = 0.0, hi - lo


def _branch_columns(scene: Scene, frame: Frame, placer: Placer) -> None:
    """A decision's branch whose column (its dummies, one straight run to the ranks
    beyond) stands off the diamond's point but within its width would leave by a lower
    face and step aside under it, then hook round the box beside the column: the column
    moves out to ``BRANCH_RUN`` beyond the side vertex, so the branch leaves by the vertex
    (the flowchart convention) and runs clear beside the boxes.  Only where every rank it
    passes has room there, no box of the rank it ends in stands between it and its box
    (:func:`_open_between`), and it does not come onto its box beside another line's
    landing (:func:`_lands_apart`).  One a side, the farthest out first; not where another
    branch already turns beyond that vertex, a self-loop sits on that side, or a lane
    leaves the decision (it takes a vertex too, later).  Where another branch holds that
    side's vertex and none leaves by the point yet, the column comes straight down from
    the point instead, under the same conditions."""
    laned = {link.a for link in scene.links if frame.plans[link.index].kind == "lane"}
    found: dict[tuple[str, int], list] = {}
    beyond: set[tuple[str, int]] = set()
    pointed: set[str] = set()   # decisions with a branch leaving by the point already
    for li in sorted(frame.plans):
        plan = frame.plans[li]
        if plan.kind != "chain" or plan.flipped:
            continue
        first = plan.items[0]
        box = first.node
        if box.shape != "diamond" or box.external:
            continue
        off, half = plan.items[1].pos - first.pos, first.size / 2
        if abs(off) < 0.5:
            pointed.add(first.key)
        if plan.bus is not None or first.key in laned:
            continue
        side = 1 if off > 0 else -1
        if abs(off) >= half + VERTEX_RUN:
            beyond.add((first.key, side))
            continue
        column = plan.items[1:-1]
        if abs(off) < 0.5 or not column or any(abs(d.pos - column[0].pos) > 0.5 for d in column):
            continue
        found.setdefault((first.key, side), []).append((abs(off), li, first, column, plan.items[-1]))
    for (nid, side), here in sorted(found.items()):
        loops = {place for place, _level in frame.loop_side.get(nid) or ()}
        vertex = (nid, side) not in beyond and ("+c" if side > 0 else "-c") not in loops
        for _off, _li, first, column, last in sorted(here, key=lambda h: (-h[0], h[1])):
            # past the side vertex; else, where the other branch holds that side and none
            # leaves by the point, straight down from the point ("yes" left from beside
            # the point and stepped aside under the diamond, "no" taking the vertex)
            tries = ([first.pos + side * (first.size / 2 + BRANCH_RUN)] if vertex else []) \
                + ([first.pos] if (nid, side) in beyond and nid not in pointed
                   and _clear_of_corner(last, first.pos) else [])
            for to in tries:
                if all(_room(placer, d, to) for d in column) and _open_between(frame, last, to) \
                        and _lands_apart(frame, last, column[-1], to):
                    for d in column:
                        d.pos = to
                    if to == first.pos:
                        pointed.add(nid)
                    break
            else:
                continue
            break


#: A column coming onto its box keeps this far inside the box's corner, or passes this
#: far beside it: the gap detector's point stood 1 px inside the decoder's corner, and
#: the line stepped in to a port 6 px in just before its arrowhead.
CORNER_LAND = 8.0


def _clear_of_corner(last: Item, at: float) -> bool:
    """Whether a column at ``at`` meets ``last``'s face the flow meets well inside its
    corners, or passes beside it (see :data:`CORNER_LAND`)."""
    off, half = abs(at - last.pos), last.size / 2
    return off <= half - CORNER_LAND or off >= half + CORNER_LAND


def _bus_columns(scene: Scene, frame: Frame, placer: Placer) -> None:
    """The trunk of a merge bus from decisions (its members' shared dummies, one straight
    run) that stands within one of their widths leaves that one by a lower face and
    steps aside under it: the trunk moves out to ``BRANCH_RUN`` beyond the side vertex
    of the widest of them, so every member leaves its decision by that vertex, as the
    others already did (CORS's "Simple request?" said yes from beside its bottom point).
    Only where every member with dummies leaves a decision on that side, none of those
    decisions has a lane or a self-loop on it, every rank the trunk passes has room
    there, and the trunk still comes down clear onto its box (see
    :func:`_branch_columns`)."""
    laned = {link.a for link in scene.links if frame.plans[link.index].kind == "lane"}
    members: dict[str, list] = {}
    for li in sorted(frame.plans):
        plan = frame.plans[li]
        if plan.kind == "chain" and not plan.flipped and plan.bus is not None and len(plan.items) > 2:
            members.setdefault(plan.bus, []).append(plan)
    for _bus, plans in sorted(members.items()):
        column = list(dict.fromkeys(d for plan in plans for d in plan.items[1:-1]))
        if any(abs(d.pos - column[0].pos) > 0.5 for d in column):
            continue
        firsts = [plan.items[0] for plan in plans]
        if any(f.node is None or f.node.shape != "diamond" or f.node.external or f.key in laned for f in firsts):
            continue
        at = column[0].pos
        sides = {1 if at > f.pos else -1 for f in firsts}
        if len(sides) != 1 or all(abs(at - f.pos) >= f.size / 2 + VERTEX_RUN for f in firsts):
            continue
        (side,) = sides
        if any(("+c" if side > 0 else "-c") in {place for place, _level in frame.loop_side.get(f.key) or ()}
               for f in firsts):
            continue
        last = plans[0].items[-1]
        ends = [f.pos + side * (f.size / 2 + BRANCH_RUN) for f in firsts]
        to = max(ends) if side > 0 else min(ends)
        lowest = max(column, key=lambda d: d.rank)
        if all(_room(placer, d, to) for d in sorted(column, key=lambda d: -side * d.pos)) \
                and _open_between(frame, last, to) and _lands_apart(frame, last, lowest, to):
            for d in column:
                d.pos = to


def _entry_columns(scene: Scene, frame: Frame, placer: Placer) -> None:
    """A connector's column (its dummies, one straight run) that comes down just beside
    its last box, less than :data:`ENTRY_RUN` beyond its side, where another connector
    meets that box too, moves out to ``ENTRY_RUN`` beyond the side: the connector turns
    into the box's side (``route._side_entries``) instead of running on above the box
    and hooking down onto the face the flow meets beside the other's arrowhead (a "no"
    bypass came down 6 px beside "Rate shipment" and landed 22 px from the main line's
    head).  Only flowing down or up (flowing across, a column moved out ran into the
    lines beside the rank), not in a topology (straight links), only a rectangular box,
    where every rank the column passes has room there, no box of the end rank stands
    between, and no self-loop takes that side."""
    if frame.horizontal or scene.genre == "topology":
        return
    into = Counter(plan.items[-1].key for plan in frame.plans.values()
                   if plan.kind == "chain" and not plan.flipped)
    for li in sorted(frame.plans):
        plan = frame.plans[li]
        if plan.kind != "chain" or plan.flipped or plan.bus is not None or len(plan.items) < 3:
            continue
        last = plan.items[-1]
        box = last.node
        if box is None or box.external or box.shape in ("diamond", "ellipse", "circle") \
                or into[last.key] < 2:
            continue
        column = plan.items[1:-1]
        if any(abs(d.pos - column[0].pos) > 0.5 for d in column):
            continue
        off, half = column[0].pos - last.pos, last.size / 2
        if not half <= abs(off) < half + ENTRY_RUN:
            continue
        side = 1 if off > 0 else -1
        loops = {place for place, _level in frame.loop_side.get(last.key) or ()}
        if ("+c" if side > 0 else "-c") in loops:
            continue
        to = last.pos + side * (half + ENTRY_RUN)
        if all(_room(placer, d, to) for d in column) and _open_between(frame, last, to):
            for d in column:
                d.pos = to


#: How far beyond its last box's side a column turns into that side (:func:`_entry_columns`).
ENTRY_RUN = 24.0


def _open_between(frame: Frame, last: Item, to: float) -> bool:
    """Whether no other box of ``last``'s rank stands between the column at ``to`` and
    ``last`` (a column moved over a neighbour of the box it meets turned in above that
    neighbour, across its connectors)."""
    lo, hi = sorted((to, last.pos))
    return not any(it is not last and it.node is not None and it.pos - it.size / 2 - GAP_CLEAR < hi
                   and it.pos + it.size / 2 + GAP_CLEAR > lo for it in frame.ranks[last.rank])


def _lands_apart(frame: Frame, last: Item, dummy: Item, to: float) -> bool:
    """Whether a column at ``to`` that comes down onto ``last``'s side the flow meets
    (``to`` within its width) lands ``BRANCH_APART`` from where the straight lines from
    the rank before meet that side (estimated with the usual gap between the ranks): a
    moved "no" came down 18 px beside another branch's arrowhead."""
    half = last.size / 2
    if abs(to - last.pos) > half:
        return True
    for up in last.ups:
        if up is dummy or up.node is None:
            continue
        if abs(slant_landing(frame, last, up) - to) < BRANCH_APART:
            return False
    return True


def slant_landing(frame: Frame, here: Item, there: Item) -> float:
    """Where a straight line from ``here``'s middle to ``there``'s (items of neighbouring
    ranks) crosses the plane of ``here``'s side facing ``there``, estimated with the
    usual gap between the ranks (the boxes are not placed along the flow yet): on that
    side where it is within the side's half size, else beyond it (the line leaves by the
    side across the flow)."""
    depth = there.main / 2 + (GAPX if frame.horizontal else GAPY) + here.main / 2
    return here.pos + (there.pos - here.pos) * (here.main / 2) / depth


def _room(placer: Placer, item: Item, to: float) -> bool:
    """Whether ``item`` may stand at ``to`` in its rank (moving outward from where it is)
    with every separation from its neighbours, the band walls among them, kept."""
    tokens = placer._tokens(item.rank)
    k = next(i for i, tok in enumerate(tokens) if tok[0] == "item" and tok[1] is item)
    me = tokens[k]
    if to > item.pos:
        return k + 1 >= len(tokens) or to <= placer._coord(tokens[k + 1]) - placer._sep(me, tokens[k + 1])
    return k == 0 or to >= placer._coord(tokens[k - 1]) + placer._sep(tokens[k - 1], me)


def _loop_sides(scene: Scene, plans: dict[int, Plan], items: dict[str, Item],
                loops: dict[str, int]) -> tuple[dict[str, list[tuple[str, int]]], dict[int, float]]:
    """Where each self-loop of a box goes, in the box's loop order: ``(side, nesting
    level)``.  The sides no connector uses, in the order after-the-flow, cross-after,
    cross-before, before-the-flow, take the loops in turn."""
    used: dict[str, set[str]] = {nid: set() for nid in loops}
    for link in scene.links:
        plan = plans[link.index]
        ends = []
        if plan.kind == "chain":
            ends = [(plan.items[0].key, "+m"), (plan.items[-1].key, "-m")]
        elif plan.kind == "lane":
            ends = [(link.a, "+m"), (link.b, "-m")]
        elif plan.kind == "same":
            ia, ib = items[link.a], items[link.b]
            lo, hi = (ia, ib) if ia.index < ib.index else (ib, ia)
            ends = [(lo.key, "+c"), (hi.key, "-c"), (link.a, "+m"), (link.b, "+m")]
        for nid, side in ends:
            if nid in used:
                used[nid].add(side)
    sides: dict[str, list[tuple[str, int]]] = {}
    room: dict[int, float] = {}
    own: dict[str, list[Link]] = {}
    for lk in scene.links:
        if lk.a == lk.b and lk.a in loops:
            own.setdefault(lk.a, []).append(lk)
    for nid, count in loops.items():
        # the loops go round the free sides in turn, nesting only when there are more
        # loops than free sides (three loops on one side stacked their arrowheads)
        free = [s for s in ("+m", "+c", "-c", "-m") if s not in used[nid]] or ["-c"]
        places = [(free[k % len(free)], k // len(free)) for k in range(count)]
        sides[nid] = places
        it = items[nid]
        for side in dict.fromkeys(side for side, _level in places):
            here = [lk for lk, (s, _level) in zip(own.get(nid, ()), places) if s == side]
            depth = LOOP_ROOM + 8.0 * (len(here) - 1)
            label = max((_loop_label(scene, lk) for lk in here), default=0.0)
            if side == "-c":
                it.lead = depth + (0.0 if scene.horizontal else label)
            elif side == "+c":
                it.trail = depth + (0.0 if scene.horizontal else label)
            else:
                ch = it.rank if side == "+m" else it.rank - 1
                room[ch] = max(room.get(ch, 0.0), depth + (label if scene.horizontal else 0.0) + 12)
    return sides, room


END_LABEL_ROOM = 7.0 * 2 + 3 * 6.0   # two port squares, and a gap either side of each label and between them


def _end_label_room(scene: Scene, plans: dict[int, Plan], items: dict[str, Item], horizontal: bool) -> None:
    """Room between two boxes side by side in a rank for the end labels of the links
    between them (``Item.room_after`` of the first): both labels and the ports beside
    them, across the flow where the link runs (a line's height each when the flow runs
    across).  Two switches side by side 56 px apart wrote "te1/1" over "te1/2".  So too
    for a label on the link, where it runs level (the flow running down or up): its
    width and :data:`MID_LABEL_ROOM` ("WAL stream" stood 30 px above the 42 px line
    between two databases, over their bands' edges)."""
    for link in scene.links:
        if plans[link.index].kind != "same" or not (link.tail or link.head or link.mid) or link.a == link.b:
            continue
        ia, ib = items[link.a], items[link.b]
        if ia.rank != ib.rank or abs(ia.index - ib.index) != 1:
            continue
        lo = ia if ia.index < ib.index else ib
        need = 0.0
        if link.tail or link.head:
            if horizontal:
                need = sum(END_FS * 1.3 * (text.count("\n") + 1) for text in (link.tail, link.head) if text)
            else:
                need = sum(label_px(text, END_FS) for text in (link.tail, link.head) if text)
            need += END_LABEL_ROOM
        if link.mid and not horizontal:
            heads = bool(link.arrow_a) + bool(link.arrow_b)
            need += label_px(link.mid) + MID_LABEL_ROOM + heads * MID_LABEL_HEAD
        lo.room_after = max(getattr(lo, "room_after", 0.0), need)


#: Room beside a label on a level line between two boxes side by side: a gap either side.
MID_LABEL_ROOM = 2 * 10.0
#: ... and beside each arrowhead there (a label keeps clear of the heads).
MID_LABEL_HEAD = 16.0


def _loop_label(scene: Scene, link: Link) -> float:
    if not link.mid:
        return 0.0
    return label_px(link.mid) + 8


def main_axis(frame: Frame, channel_need: dict[int, float]) -> None:
    """Rank positions along the flow; ``channel_need[k]`` is the room the gap
    after rank k must give (tracks, labels); k = -1 is the margin before rank 0."""
    base = GAPX if frame.horizontal else GAPY
    sizes = [max((it.main for it in rank if it.node is not None), default=0.0) for rank in frame.ranks]
    channel_need = dict(channel_need)
    grouped = [{it.group for it in rank if it.group is not None and it.node is not None}
               for rank in frame.ranks]
    band_pads = (BAND["l"] + BAND["r"]) if frame.horizontal else (BAND["t"] + BAND["b"])
    for k in range(len(grouped) - 1):
        if grouped[k] and grouped[k + 1] and grouped[k] != grouped[k + 1]:
            channel_need[k] = max(channel_need.get(k, 0.0), band_pads + 24)
    for ch, extra in getattr(frame, "loop_room", {}).items():
        channel_need[ch] = max(channel_need.get(ch, 0.0), extra)
    start = []
    m = channel_need.get(-1, 0.0)
    for k, size in enumerate(sizes):
        start.append(m)
        gap = max(base, channel_need.get(k, 0.0))
        m += size + (gap if k + 1 < len(sizes) else channel_need.get(k, 0.0))
    frame.rank_start, frame.rank_size = start, sizes
    frame.main_total = m


#: How far a straight line between neighbouring ranks keeps off the corners of the other
#: boxes of those ranks, where the gap between them may grow for it ...
STRAIGHT_CLEAR = 6.0
#: ... by at most this many times the usual gap (a box nearly in line with the far end
#: would want a gap without end)
STRAIGHT_GROWTH = 3.0


def straight_room(scene: Scene, frame: Frame, bent: set[int], need: dict[int, float]) -> dict[int, float]:
    """``need`` with each gap between two ranks grown so the straight lines across it
    (connectors not in ``bent``) pass the other boxes of those two ranks
    ``STRAIGHT_CLEAR`` px off their corners: a hub's line to the far end of a wide row
    ran nearly level and clipped the corner of a box beside its end.  A line from the
    centre of one box to the centre of the other, with ``D`` between the ranks' axes,
    passes a box of the far rank standing a share ``t`` of the way across above its
    near corner when ``D * (1 - t)`` is at least the box's half-depth and the clearance
    (a box of the near rank: ``D * t``)."""
    out = dict(need)
    base = GAPX if frame.horizontal else GAPY
    sizes = [max((it.main for it in rank if it.node is not None), default=0.0) for rank in frame.ranks]
    for link in scene.links:
        plan = frame.plans[link.index]
        if link.index in bent or plan.kind != "chain" or len(plan.items) != 2 or link.a == link.b:
            continue
        ia, ib = plan.items
        across = ib.pos - ia.pos
        if abs(across) < 1.0:
            continue
        r = ia.rank
        axes_apart = sizes[r] / 2 + sizes[r + 1] / 2
        for it, far in [(it, True) for it in frame.ranks[r + 1]] + [(it, False) for it in frame.ranks[r]]:
            if it is ia or it is ib or it.node is None or it.node.external:
                continue
            lo, hi = it.pos - it.size / 2, it.pos + it.size / 2
            # the corner the line comes nearest: towards its end in the box's own rank
            corner = (hi if across > 0 else lo) if far else (lo if across > 0 else hi)
            t = (corner - ia.pos) / across
            if not 0.0 < t < 1.0:
                continue
            gap = (it.main / 2 + STRAIGHT_CLEAR) / (1.0 - t if far else t) - axes_apart
            if base < gap <= STRAIGHT_GROWTH * base:   # (a box nearly in line: no gap is enough)
                out[r] = max(out.get(r, 0.0), gap)
    return out


def place_boxes(scene: Scene, frame: Frame) -> None:
    """Write x/y into every box from the frame (auto positions, before pins)."""
    for nid, it in frame.item_of.items():
        box: Box = scene.nodes[nid]
        r = it.rank
        m0 = frame.rank_start[r] + (frame.rank_size[r] - it.main) / 2
        c0 = it.pos - it.size / 2
        if frame.horizontal:
            x0 = frame.main_total - (m0 + it.main) if frame.mirror else m0
            box.x, box.y = x0, c0
        else:
            y0 = frame.main_total - (m0 + it.main) if frame.mirror else m0
            box.x, box.y = c0, y0


def chain_links(scene: Scene, frame: Frame) -> list[Link]:
    return [lk for lk in scene.links if frame.plans[lk.index].kind == "chain"]
