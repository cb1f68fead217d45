"""The scene genres — block, topology, flowchart, statechart.

Pipeline: size the boxes (:mod:`.graph`), rank them (:mod:`.ranks`), order the
ranks (:mod:`.order`), place them across the flow (:mod:`.place`), route the
connectors (:mod:`.route`, and :mod:`.free` where the author placed boxes),
apply pins, move engine-placed boxes out of group bands (:mod:`.separate`)
and bundle lassos (:mod:`.lassos`), check what the drawing would state
(:mod:`.checks`), place the text (:mod:`.labels`) and the annotations
(:mod:`.marks`), then write the markup (:mod:`.draw`).  A scene whose layout
that would take its document past :data:`.layout.MAX_LAYERED` items is refused
first (``budget``: what the earlier sections laid out).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter

from ..block import DRAWABLE, Block, Budget
from . import checks, draw, lassos, marks, titles
from .crowd import space_sides
from .fanout import split_departures
from .separate import separate
from .free import (CLEAR, Boxes, Effort, Ink, centre_line, detour, path_hits, reconsider, route_free,
                   segments_cross, straight)
from .graph import Scene, axes, build_scene, corner_radius, head_boxes, outline_test
from .labels import (CROWDED, FINE_ALLOWANCE, FINE_EXTRAS, Board, Label, measure, outline_rects, overlap,
                     place_end, place_mid, seg_dist)
from .layout import (Frame, chain_buses, layered_refusal, main_axis, place_boxes, place_cross, plan_layout,
                     straight_room)
from .names import external_names
from .ranks import assign_ranks, hub_split
from .route import (HEAD_APART, LAND_APART, PARALLEL_STEP, Routing, assign_ports, channel_need,
                    flow_polyline, land_apart, loop_polyline, needs_channels, plan_jogs,
                    round_side, same_rank_line, seg_gap, straight_landing, straight_link, waypoint_polyline)
from .unshare import unshare
from ..text import END_FS, LABEL_FS, label_px

ORIGIN_Y = 20.0      # pins are relative to (0, y0 + 20)
MAX_DETOURED = 160   # beyond this many author-placed connectors, only a line through a box may go
                     # round, by the quick search that reads no ink (bounded work; see free.detour)
AUTO_TOP = 6.0       # the auto layout's top (bands included) sits at y0 + 6


def pin_refusal(model: dict) -> list[tuple[int, str]]:
    """The refusal of the first pin whose coordinate or size is past ``DRAWABLE`` px, found
    before laying anything out: a pin at a coordinate of 400 digits (an infinite number)
    drew a canvas of infinite width and failed.  A box pinned 2 × 10^12 px wide is still
    drawn, in bounded work."""
    for pin in model.get("pins", ()):
        for key in ("x", "y", "width", "height"):
            v = pin.get(key)
            if v is not None and not abs(v) <= DRAWABLE:
                return [(pin.get("line", 0), f'pin "{pin.get("id", "")}": its {key} is too large a number to '
                                             f'draw; the figure is not drawn rather than cut short.')]
    return []


def render(model: dict, classes: dict, y0: float, budget: Budget | None = None) -> Block:
    far = pin_refusal(model)
    if far:
        return Block("", y0, 0.0, None, far)
    scene = build_scene(model, classes)
    refused = layered_refusal(scene, Budget() if budget is None else budget)
    if refused:
        return Block("", y0, 0.0, None, refused)
    scene, board, rings, diags = _settle_merged(scene, model, classes, y0)
    annotations = marks.annotations(scene, model, board)
    svg, box = draw.scene_svg(scene, model, board, rings, annotations)
    shift_x = -box[0] if box[0] < 0 else 0.0
    shift_y = (y0 - box[1]) if box[1] < y0 else 0.0
    if shift_x or shift_y:
        _shift_everything(scene, rings, annotations, board, shift_x, shift_y)
        svg, box = draw.scene_svg(scene, model, board, rings, annotations)
    return Block(svg, box[3] + 10, box[2] + 2, None, diags)


def diagnostics(model: dict, classes: dict, y0: float, budget: Budget | None = None) -> list[tuple[int, str]]:
    """What :func:`render` at ``y0`` reports, without its annotations and markup: every
    geometry check is made before them (and a layout past its bound is refused before it
    is laid out)."""
    far = pin_refusal(model)
    if far:
        return far
    scene = build_scene(model, classes)
    return layered_refusal(scene, Budget() if budget is None else budget) or \
        _settle_merged(scene, model, classes, y0, text=False)[3]


def _settle_merged(scene: Scene, model: dict, classes: dict, y0: float, text: bool = True):
    """:func:`_settle_levels`, with a topology's hub split (:func:`.ranks.hub_split`) where
    one is offered and it crosses less than the figure ranked as written (each laid out
    without text, so ``render`` and ``diagnostics`` choose alike)."""
    mirror = hub_split(scene)
    if mirror:
        trial = build_scene(model, classes)
        trial.mirrored = mirror
        split = _settle_levels(trial, model, classes, y0, False)
        plain = _settle_levels(build_scene(model, classes), model, classes, y0, False)
        if _crossings(split[0]) < _crossings(plain[0]):
            if not text:
                return split
            scene = build_scene(model, classes)
            scene.mirrored = mirror
        elif not text:
            return plain
    return _settle_levels(scene, model, classes, y0, text)


def _settle_levels(scene: Scene, model: dict, classes: dict, y0: float, text: bool = True):
    """:func:`_settle` at the merge level (``layout.chain_buses``: 2, connectors to the
    next rank joining the buses too; 1, only the longer ones merging; 0, none) with the
    fewest crossings, the highest of equals: a trunk whose legs run back across the
    lines between to join it is no gain.  Each level is laid out without text (no
    crossing depends on it), so ``render`` and ``diagnostics`` choose alike."""
    ranks = assign_ranks(scene)
    levels = []
    for level in (2, 1):
        buses = chain_buses(scene, ranks, level)
        if buses and all(buses != other for _level, other in levels):
            levels.append((level, buses))
    if levels:
        best = None
        for level in [lv for lv, _buses in levels] + [0]:
            trial = build_scene(model, classes)
            trial.merge, trial.mirrored = level, scene.mirrored
            settled = _settle(trial, model, y0, text=False)
            count = _crossings(settled[0])
            if best is None or count < best[0]:
                best = (count, level, settled)
        if not text:
            return best[2]
        mirrored = scene.mirrored
        scene = build_scene(model, classes)
        scene.merge, scene.mirrored = best[1], mirrored
    return _settle(scene, model, y0, text)


def _crossings(scene: Scene) -> int:
    """Proper crossings between the segments of different connectors (a merge bus's
    members share their trunk: not among themselves), by a sweep along x."""
    segs = [(min(p[0], q[0]), max(p[0], q[0]), min(p[1], q[1]), max(p[1], q[1]), k, link.bus, p, q)
            for k, link in enumerate(scene.links) for p, q in zip(link.points, link.points[1:])]
    segs.sort(key=lambda seg: seg[:5])
    count = 0
    for i, (_x0, x1, y0, y1, k, bus, a, b) in enumerate(segs):
        for j in range(i + 1, len(segs)):
            x0b, _x1b, y0b, y1b, kb, busb, c, d = segs[j]
            if x0b > x1:
                break
            if kb != k and (bus is None or bus != busb) and y0b <= y1 and y0 <= y1b and segments_cross(a, b, c, d):
                count += 1
    return count


def _settle(scene: Scene, model: dict, y0: float,
            text: bool = True) -> tuple[Scene, Board | None, list, list[tuple[int, str]]]:
    """Everything up to the markup for the ``scene`` of ``model``: the boxes, the routes,
    the text on the board, the lassos, and the geometry diagnostics.  No check reads the
    text (connector labels, ring captions), so ``text=False`` leaves it out (and the board
    is None)."""
    frame = _auto_layout(scene)
    paths = _auto_routes(scene, frame)
    _translate_auto(scene, paths, y0)
    moved = _apply_pins(scene, y0)
    _seat_externals(scene, moved)
    separate(scene, moved)
    diags: list[tuple[int, str]] = []
    _reroute(scene, frame, paths, moved)
    _loops_clear(scene, frame, paths)
    unshare(scene, paths, Boxes([(n.id, n.rect()) for n in scene.nodes.values() if not n.external]))
    for link in scene.links:
        link.points = paths[link.index]
    settled = _clear_lassos(scene, model, frame, paths, moved)
    checks.bands(scene)
    diags += checks.band_enclosures(scene)
    diags += checks.complete_covers(scene)
    if text:
        titles.place(scene, widen=not model.get("bundles"))
    board = _labels(scene, model) if text else None
    rings = settled if settled is not None else marks.rings_of(scene, model)
    lassos.refit(scene, rings)
    if board is not None:
        marks.captions(rings, board)
    diags += checks.lasso_enclosures(scene, rings)
    return scene, board, rings, diags


# --- auto layout ----------------------------------------------------------------------


def _auto_layout(scene: Scene) -> Frame | None:
    if not scene.nodes:
        return None
    frame = plan_layout(scene)
    routing = Routing()
    routing.orthogonal = {lk.index for lk in scene.links if needs_channels(scene, frame, lk)}
    rounds = replaced = 0
    while rounds < 3:
        routing.ports, routing.lanes, routing.bus = {}, {}, {}
        assign_ports(scene, frame, routing)
        plan_jogs(scene, frame, routing)
        need = _label_rows(scene, frame, channel_need(scene, frame, routing))
        main_axis(frame, straight_room(scene, frame, routing.orthogonal | routing.waypoints, need))
        place_boxes(scene, frame)
        blocked = set()
        boxes = Boxes([(n.id, n.rect()) for n in scene.nodes.values()])
        for link in scene.links:
            plan = frame.plans[link.index]
            if link.index in routing.orthogonal or plan.kind != "chain":
                continue
            a, b = scene.nodes[link.a], scene.nodes[link.b]
            if boxes.hits(straight_link(a, b), (link.a, link.b)):
                if len(plan.items) > 2:
                    routing.waypoints.add(link.index)
                else:
                    blocked.add(link.index)
            else:
                routing.waypoints.discard(link.index)
        blocked |= _fan_mates(scene, frame, routing, blocked)
        # a line bending at its dummies keeps them clear of the boxes beside them (a
        # dummy packed against a box would put the bend on its outline): place again
        fresh = [it for li in sorted(routing.waypoints) for it in frame.plans[li].items[1:-1]
                 if not getattr(it, "clear", False)]
        if fresh and replaced < 2:
            for it in fresh:
                it.clear = True
            place_cross(scene, frame)
            replaced += 1
            routing.orthogonal |= blocked
            continue
        rounds += 1
        if not blocked:
            break
        routing.orthogonal |= blocked
    frame.routing = routing
    return frame


def _fan_mates(scene: Scene, frame: Frame, routing, blocked: set) -> set:
    """The straight lines of a fan one of whose lines must go through the channels: the
    other lines from its first box to the same rank (or into its last box from the same
    rank).  Ports on a side are given out in order only among channel-routed lines, and
    a straight line leaving the same side beside them crossed them (six subscribers:
    the outer two bent round the middle four)."""
    if not blocked:
        return set()
    fans: dict[tuple, list[int]] = {}
    for link in scene.links:
        plan = frame.plans[link.index]
        if plan.kind != "chain" or len(plan.items) != 2 or link.index in routing.waypoints:
            continue
        if link.index in routing.orthogonal and link.index not in blocked:
            continue
        ra, rb = frame.rank_of[link.a], frame.rank_of[link.b]
        fans.setdefault(("out", link.a, rb), []).append(link.index)
        fans.setdefault(("in", link.b, ra), []).append(link.index)
    mates: set = set()
    for members in fans.values():
        if len(members) > 1 and any(li in blocked for li in members):
            mates.update(members)
    return mates - blocked


LABEL_ROWS_MAX = 4   # rows of labels one gap between ranks is grown for, at most
FAN_LABELS = 3       # labelled lines meeting at one box through a gap: a fan (see _label_rows)
FAN_ROOM = 48.0      # px more along a gap a fan of labelled lines crosses (flow right / left)


def _label_rows(scene: Scene, frame: Frame, need: dict[int, float]) -> dict[int, float]:
    """``need`` with each gap between two rows of boxes (a flow down or up) grown
    for the labels of the connectors crossing it straight from one row to the next:
    a label is as wide as its text, centred across between its two ends, and labels
    whose widths overlap there need rows of their own.  Five labelled connectors into
    one hub, or eight between a hub and four states, had one 44 px gap: the labels
    went over the boxes' far side or onto each other's lines.  Where ``FAN_LABELS`` or
    more of them meet at one box, a row more: they converge there, and two labels
    stood one under the other by the hub."""
    spans: dict[int, list] = {}
    fans: dict[int, list] = {}
    for link in scene.links:
        if not link.mid or link.a == link.b or frame.plans[link.index].kind != "chain":
            continue
        ia, ib = frame.item_of.get(link.a), frame.item_of.get(link.b)
        if ia is None or ib is None or abs(ia.rank - ib.rank) != 1:
            continue
        if frame.horizontal:
            fans.setdefault(min(ia.rank, ib.rank), []).append(link)
            continue
        half = label_px(link.mid, LABEL_FS) / 2 + 6
        mid = (ia.pos + ib.pos) / 2
        tall = (link.mid.count("\n") + 1) * LABEL_FS * 1.3
        spans.setdefault(min(ia.rank, ib.rank), []).append((mid - half, mid + half, tall, link.a, link.b))
    out = dict(need)
    for ch, row in spans.items():
        if len(row) < 2:
            continue
        events = sorted([(r[0], 1) for r in row] + [(r[1], -1) for r in row],
                        key=lambda e: (e[0], e[1]))
        depth = rows = 0
        for _, step in events:
            depth += step
            rows = max(rows, depth)
        if rows < 2:
            continue
        if max(Counter(e for r in row for e in r[3:]).values()) >= FAN_LABELS:
            rows += 1
        tall = max(r[2] for r in row)
        out[ch] = max(out.get(ch, 0.0), min(rows, LABEL_ROWS_MAX) * (tall + 8) + 24)
    # a flow right or left: labelled lines fanning from one box through a gap as long as
    # the widest label converge at that box, where no label fits between them; a fan
    # gets FAN_ROOM more (arp-resolution's reply label stood over a broadcast line)
    for ch, links in fans.items():
        ends = [e for lk in links for e in (lk.a, lk.b)]
        if any(ends.count(e) > 1 for e in set(ends)):
            widest = max(label_px(lk.mid, LABEL_FS) for lk in links)
            out[ch] = max(out.get(ch, 0.0), widest + 24 + FAN_ROOM)
    return out


#: How far the end of a topology link with a port (its 7 px square) keeps from the other
#: ends with ports at its box: two squares 6 px apart overlapped, read as one port (an
#: end nearly far enough stays, its line level: a 0.9 px move tilted one).
PORT_APART = 10.5


def _auto_routes(scene: Scene, frame: Frame | None) -> dict[int, list]:
    paths: dict[int, list] = {}
    if frame is None:
        return paths
    routing = frame.routing
    loop_count: dict[str, int] = {}
    for link in scene.links:
        plan = frame.plans[link.index]
        a, b = scene.nodes[link.a], scene.nodes[link.b]
        if plan.kind == "loop":
            k = loop_count.get(link.a, 0)
            loop_count[link.a] = k + 1
            side, level = _loop_place(frame, link.a, k)
            paths[link.index] = loop_polyline(frame, a, level, side)
        elif link.index in routing.orthogonal:
            pts = flow_polyline(scene, frame, routing, link)
            paths[link.index] = [frame.to_xy(m, c) for m, c in pts]
            link.bus = routing.bus.get(link.index)
            link.along = link.bus is not None and plan.kind == "chain"
        elif link.index in routing.waypoints:
            paths[link.index] = waypoint_polyline(scene, frame, link)
        elif plan.kind == "same":
            paths[link.index] = same_rank_line(scene, frame, link, 0.0)
        elif link.index in routing.landing:
            paths[link.index] = straight_landing(scene, frame, routing, link) or straight_link(a, b)
        else:
            paths[link.index] = straight_link(a, b)
    _spread_parallel(scene, paths)
    ink = Ink()
    boxes = Boxes([(n.id, n.rect()) for n in scene.nodes.values() if not n.external])
    _off_corners(scene, paths, boxes)
    for link in scene.links:   # the last word: no straight line through a box
        pts = paths[link.index]
        if len(pts) == 2 and link.a != link.b and boxes.hits(pts, (link.a, link.b)):
            others = [n.rect() for n in scene.nodes.values()
                      if n.id not in (link.a, link.b) and not n.external]
            paths[link.index] = route_free(scene.nodes[link.a], scene.nodes[link.b], others, ink)
        ink.add(paths[link.index])
    for link in scene.links:
        if link.index in routing.waypoints:
            land_apart(scene, paths, link)
    touching: dict[str, list] = {}
    for link in scene.links:
        touching.setdefault(link.a, []).append(link)
        if link.b != link.a:
            touching.setdefault(link.b, []).append(link)
    for link in scene.links:   # an arrowhead on a straight line keeps off other heads there
        # (a merge bus's members share theirs)
        pts = paths[link.index]
        if len(pts) == 2 and link.a != link.b and (link.arrow_a or link.arrow_b) and link.bus is None:
            # a line along the flow between aligned boxes stays straight where the heads
            # beside it do not touch (ports on a short side stand LAND_APART apart)
            square = abs(pts[0][0] - pts[1][0]) < 0.01 or abs(pts[0][1] - pts[1][1]) < 0.01
            land_apart(scene, paths, link, LAND_APART if square else HEAD_APART,
                       (link.arrow_a, link.arrow_b), heads=True, touching=touching)
    if scene.genre != "topology":
        for link in scene.links:   # no straight line starts or ends on another's plain end
            pts = paths[link.index]
            if len(pts) == 2 and link.a != link.b and not (link.arrow_a and link.arrow_b) and link.bus is None:
                land_apart(scene, paths, link, ENDS_APART, (not link.arrow_a, not link.arrow_b),
                           touching=touching, tails=True)
        for link in scene.links:   # nor does its arrowhead cover another's plain end
            pts = paths[link.index]
            if len(pts) == 2 and link.a != link.b and (link.arrow_a or link.arrow_b) and link.bus is None:
                land_apart(scene, paths, link, HEAD_CLEAR, (link.arrow_a, link.arrow_b),
                           touching=touching, tails=True, body=True)
    if scene.genre == "topology":
        for link in scene.links:   # a port's square keeps off the other ends at its box
            pts = paths[link.index]
            squares = (bool(link.tail) and not scene.nodes[link.a].external,
                       bool(link.head) and not scene.nodes[link.b].external)
            if len(pts) == 2 and link.a != link.b and any(squares):
                land_apart(scene, paths, link, PORT_APART, squares, touching=touching, ports=True)
    _uncross_ends(scene, paths, touching, boxes, routing.waypoints)
    if scene.genre != "topology":   # a side too crowded for the moves above, as a whole
        space_sides(scene, paths, touching, boxes)
    _unstep(scene, paths, touching)
    _square_off(scene, paths, touching)
    if scene.genre == "flowchart":
        _join_arrivals(scene, frame, paths)
    if scene.genre != "topology":
        split_departures(scene, frame.horizontal, paths, boxes)
    _bus_dots(scene, paths)
    return paths


#: How far (px) above the arrowhead's tip a flowline may join another one into its box.
JOIN_CLEAR = 14.0


def _join_arrivals(scene: Scene, frame: Frame, paths: dict[int, list]) -> None:
    """Flowlines into one box of a flowchart from the side the flow meets: one that runs
    across above the box and turns onto it beside another's arrowhead (a bypass hooking
    down 20 px beside the main line) runs on to that line and joins it, the flowchart
    convention, sharing its arrowhead (a merge bus of their own, with a junction dot).
    The line it joins is the one whose last run lands at the box's middle (within 1 px);
    a line joins only where its run across meets that line's last run
    ``JOIN_CLEAR`` or more before the tip and crosses no other line on the way, only one
    that looks like it (colour, dash, arrow: a trunk shows one look), and only one saying
    nothing or saying it at a decision's exit (its label stays at that exit)."""
    along = 0 if frame.horizontal else 1
    across = 1 - along
    by_box: dict[str, list] = {}
    for link in scene.links:
        pts = paths[link.index]
        box = scene.nodes[link.b]
        if link.a == link.b or link.bus is not None or box.external or len(pts) < 2 or link.head \
                or (link.mid and scene.nodes[link.a].shape != "diamond") or not link.arrow_b:
            continue
        p, q = pts[-2], pts[-1]
        if abs(p[across] - q[across]) > 0.01 or abs(p[along] - q[along]) < 0.01:
            continue   # its last run is not along the flow
        by_box.setdefault(link.b, []).append(link)
    for nid, links in by_box.items():
        if len(links) < 2:
            continue
        box = scene.nodes[nid]
        middle = box.cx if across == 0 else box.cy
        main = min(links, key=lambda lk: (abs(paths[lk.index][-1][across] - middle), lk.index))
        m_pts = paths[main.index]
        tip, back = m_pts[-1], m_pts[-2]
        if abs(tip[across] - middle) > 1.0:
            continue
        sign = 1.0 if tip[along] > back[along] else -1.0
        c_main = tip[across]
        joined = []
        for link in sorted((lk for lk in links if lk is not main),
                           key=lambda lk: abs(paths[lk.index][-1][across] - c_main)):
            pts = paths[link.index]
            if len(pts) < 3 or (link.stroke, link.style, link.op) != (main.stroke, main.style, main.op):
                continue   # (a dashed "none, already recovered" joined a solid line and seemed to pass its box)
            run_a, run_b = pts[-3], pts[-2]
            if abs(run_a[along] - run_b[along]) > 0.01:
                continue   # not a run across before its drop
            level = run_b[along]
            if (level - back[along]) * sign <= 0.01 or (tip[along] - level) * sign < JOIN_CLEAR:
                continue   # not on the main line's last run, or too near its head
            start = run_a[across]
            if (start - c_main) * (run_b[across] - c_main) < 0:
                continue   # its run crosses the main line already: it comes from the far side
            corner = (c_main, level) if across == 0 else (level, c_main)
            new = pts[:-2] + [corner, tip]
            seg = (run_a, corner)
            others = [(u, v) for lk in scene.links if lk.index not in (link.index, main.index)
                      and lk not in joined for u, v in zip(paths[lk.index], paths[lk.index][1:])]
            if any(segments_cross(seg[0], seg[1], u, v) for u, v in others):
                continue
            paths[link.index] = new
            joined.append(link)
        if joined:
            key = f"{nid}>join"
            for lk in [main] + joined:
                lk.bus = key


#: How near (px) another connector or box may come to a self-loop where it stands.
LOOP_CLEAR = 6.0


def _loops_clear(scene: Scene, frame: Frame, paths: dict[int, list]) -> None:
    """A self-loop that another connector crosses or comes within :data:`LOOP_CLEAR` of
    (a straight line leaving its box by the face the loop took: the layout gave the loop
    a side no routed connector used, but a straight line leaves where it points) moves
    to the box's first side where nothing does, and none of the other boxes comes that
    near, or failing that at the size it had before (16 px: it read as a hook, but less
    so than a loop knotted with a line); where every place is taken it goes where the
    fewest things do, its own first.  Only a box's lone loop on a side moves (nested ones
    keep their places round it)."""
    if frame is None:
        return
    placed, k_of = [], {}
    for link in scene.links:
        if link.a == link.b and frame.plans[link.index].kind == "loop":
            k = k_of.get(link.a, 0)
            k_of[link.a] = k + 1
            placed.append((link, *_loop_place(frame, link.a, k)))
    on_side = Counter((link.a, side) for link, side, _level in placed)
    lone = [(link, side) for link, side, level in placed if level == 0 and on_side[(link.a, side)] == 1]
    if not lone:
        return
    segs = [(min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]), p, q, lk.index)
            for lk in scene.links for p, q in zip(paths[lk.index], paths[lk.index][1:])]
    for link, side in lone:
        box = scene.nodes[link.a]
        rects = [n.rect() for n in scene.nodes.values() if n.id != box.id and not n.external]

        def cost(pts: list) -> int:
            x0 = min(p[0] for p in pts) - LOOP_CLEAR
            y0 = min(p[1] for p in pts) - LOOP_CLEAR
            x1 = max(p[0] for p in pts) + LOOP_CLEAR
            y1 = max(p[1] for p in pts) + LOOP_CLEAR
            mine = list(zip(pts, pts[1:]))
            near = sum(1 for sx0, sy0, sx1, sy1, p, q, li in segs
                       if li != link.index and sx0 <= x1 and sx1 >= x0 and sy0 <= y1 and sy1 >= y0
                       and any(_seg_gap(p, q, a, b) < LOOP_CLEAR for a, b in mine))
            hits = sum(1 for r in rects if r[0] <= x1 and r[2] >= x0 and r[1] <= y1 and r[3] >= y0
                       and path_hits(pts, [(r[0] - LOOP_CLEAR, r[1] - LOOP_CLEAR,
                                            r[2] + LOOP_CLEAR, r[3] + LOOP_CLEAR)], 0.0))
            return near + hits

        best = (cost(paths[link.index]), paths[link.index])
        if not best[0]:
            continue
        taken = {place for lk, place, _level in placed if lk.a == link.a and lk is not link}
        tries = [(other, False) for other in ("+m", "+c", "-c", "-m") if other != side and other not in taken]
        tries += [(other, True) for other in ("+m", "+c", "-c", "-m") if other not in taken]   # then small
        for other, small in tries:
            pts = loop_polyline(frame, box, 0, other, small)
            here = cost(pts)
            if here < best[0]:
                best = (here, pts)
            if not here:
                break
        if best[1] is not paths[link.index]:   # (the loops after it see where it went)
            paths[link.index] = best[1]
            segs = [seg for seg in segs if seg[6] != link.index] + [
                (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]), p, q, link.index)
                for p, q in zip(best[1], best[1][1:])]


def _seg_gap(p, q, a, b) -> float:
    """The distance between segments p–q and a–b (0 when they cross)."""
    if segments_cross(p, q, a, b):
        return 0.0
    return min(seg_dist(p[0], p[1], a, b), seg_dist(q[0], q[1], a, b),
               seg_dist(a[0], a[1], p, q), seg_dist(b[0], b[1], p, q))


#: The longest step across a routed line's first or last run that :func:`_unstep`
#: takes out (a port a few px off the run coming to it).
STEP_MOST = 12.0
#: How far a moved end keeps from the other ends at its box: an arrowhead's or a plain
#: one's (the ports' own steps, :data:`.route.HEAD_STEP` and :data:`.route.PORT_STEP`).
UNSTEP_HEAD, UNSTEP_PLAIN = 16.0, 10.0
#: How far the moved run keeps from every other line (its arrowhead's half and a stroke).
UNSTEP_CLEAR = 7.0
#: How far a moved end keeps from the ends of its box's side.
UNSTEP_MARGIN = 6.0


def _unstep(scene: Scene, paths: dict[int, list], touching: dict[str, list]) -> None:
    """A routed line that comes to a box (or leaves it) by a small step across its last
    (or first) run, a port a few px off the track that reaches it, ends level with that
    track instead where the box's side has room there (:func:`_may_land`).  "no" stepped
    down 10 px just before Roll back.  A merge bus's members and a curved outline keep
    theirs."""
    for link in scene.links:
        pts = paths.get(link.index)
        if pts is None or len(pts) < 4 or link.bus is not None or link.a == link.b:
            continue
        for at_end in (True, False):
            pts = paths[link.index]
            if len(pts) < 4:
                break
            way = pts[::-1] if not at_end else pts
            before, corner, turn, end = way[-4], way[-3], way[-2], way[-1]
            step = math.dist(corner, turn)
            if not 0.5 < step <= STEP_MOST:
                continue
            run_x = abs(turn[0] - end[0]) < 0.01          # the last run is upright
            if run_x == (abs(corner[0] - turn[0]) < 0.01) or run_x != (abs(before[0] - corner[0]) < 0.01):
                continue   # not a step across the run between two runs along it
            new_end = (corner[0], end[1]) if run_x else (end[0], corner[1])
            if not _may_land(scene, paths, touching, link, at_end, new_end, run_x):
                continue
            if not _keeps_clear(scene, paths, link, [(corner, turn), (turn, end)], [(corner, new_end)]):
                continue
            kept = way[:-3] + [new_end]
            paths[link.index] = kept if at_end else kept[::-1]


#: A straight line this few px off level (or upright) over its length is squared off.
SLANT_MOST = 8.0


def _square_off(scene: Scene, paths: dict[int, list], touching: dict[str, list]) -> None:
    """A straight line between two boxes that runs a few px off upright (or level), its
    ends moved apart along their boxes by the passes before, is made upright by moving
    one end (or both to a point between) along its box's side, where :func:`_may_land`
    and :func:`_keeps_clear` allow: "no" from All jobs green? ran 3.5 px aslant over 45 px
    into the box below."""
    for link in scene.links:
        pts = paths.get(link.index)
        if pts is None or len(pts) != 2 or link.bus is not None or link.a == link.b:
            continue
        (ax, ay), (bx, by) = pts
        dx, dy = abs(bx - ax), abs(by - ay)
        if not (0.3 < min(dx, dy) < SLANT_MOST and max(dx, dy) > 3 * SLANT_MOST):
            continue
        upright = dx < dy
        a_at, b_at = (ax, bx) if upright else (ay, by)
        for at in sorted({a_at, b_at, (a_at + b_at) / 2}, key=lambda v: (abs(v - a_at) + abs(v - b_at), v)):
            new = [((at, ay) if upright else (ax, at)), ((at, by) if upright else (bx, at))]
            moved = [(k, new[k]) for k in (0, 1) if math.dist(new[k], pts[k]) > 1e-9]
            if all(_may_land(scene, paths, touching, link, k == 1, q, upright) for k, q in moved) \
                    and _keeps_clear(scene, paths, link, [tuple(pts)], [tuple(new)]):
                paths[link.index] = new
                break


def _may_land(scene: Scene, paths: dict[int, list], touching: dict[str, list], link, at_end: bool,
              point, upright: bool) -> bool:
    """Whether ``link``'s end at its last (``at_end``) or first box may move to ``point``
    on the same flat side, its run ``upright`` (else level): a box with flat sides, the
    point :data:`UNSTEP_MARGIN` (and the corner arc) inside the side's ends, and the other
    ends there :data:`UNSTEP_HEAD` (an arrowhead's) or :data:`UNSTEP_PLAIN` off it."""
    nid = link.b if at_end else link.a
    box = scene.nodes[nid]
    if box.external or box.shape in ("diamond", "ellipse", "circle"):
        return False
    x0, y0, x1, y1 = box.rect()
    margin = max(UNSTEP_MARGIN, corner_radius(box))
    if upright:
        if not (x0 + margin <= point[0] <= x1 - margin and min(abs(point[1] - y0), abs(point[1] - y1)) < 0.01):
            return False
    elif not (y0 + margin <= point[1] <= y1 - margin and min(abs(point[0] - x0), abs(point[0] - x1)) < 0.01):
        return False
    head = link.arrow_b if at_end else link.arrow_a
    for other in touching.get(nid, ()):
        if other is link:
            continue
        opts = paths[other.index]
        for k, oid, ohead in ((0, other.a, other.arrow_a), (-1, other.b, other.arrow_b)):
            if oid == nid and math.dist(opts[k], point) < (UNSTEP_HEAD if head or ohead else UNSTEP_PLAIN):
                return False
    return True


def _keeps_clear(scene: Scene, paths: dict[int, list], link, old: list, new: list) -> bool:
    """Whether the runs ``new`` (replacing ``old`` of ``link``) keep :data:`UNSTEP_CLEAR`
    off every other line (or as far as the old ones kept, if nearer), enter no box but
    the link's own, and keep :data:`GRAZE_CLEAR` off the others (if the old ones did)."""
    # only lines within UNSTEP_CLEAR of the new runs can make them too near
    x0 = min(min(a[0], b[0]) for a, b in new) - UNSTEP_CLEAR
    y0 = min(min(a[1], b[1]) for a, b in new) - UNSTEP_CLEAR
    x1 = max(max(a[0], b[0]) for a, b in new) + UNSTEP_CLEAR
    y1 = max(max(a[1], b[1]) for a, b in new) + UNSTEP_CLEAR
    near = [(p, q) for lk in scene.links if lk is not link
            for p, q in zip(paths[lk.index], paths[lk.index][1:])
            if min(p[0], q[0]) <= x1 and max(p[0], q[0]) >= x0 and min(p[1], q[1]) <= y1 and max(p[1], q[1]) >= y0]
    after = min((seg_gap(a, b, p, q) for a, b in new for p, q in near), default=math.inf)
    if after < UNSTEP_CLEAR:
        others = [(p, q) for lk in scene.links if lk is not link
                  for p, q in zip(paths[lk.index], paths[lk.index][1:])]
        if after < min((seg_gap(a, b, p, q) for a, b in old for p, q in others), default=math.inf):
            return False
    boxes = [n.rect() for n in scene.nodes.values() if n.id not in (link.a, link.b) and not n.external]
    if any(path_hits([a, b], boxes) for a, b in new):
        return False
    # nor run along a box's side nearer than GRAZE_CLEAR, if the old runs kept that off
    return not any(path_hits([a, b], boxes, -GRAZE_CLEAR) for a, b in new) \
        or any(path_hits([a, b], boxes, -GRAZE_CLEAR) for a, b in old)


#: How far a straight line's end keeps from any other connector's end at its box: two
#: lines leaving one box 0.4 px apart read as one line that forks.
ENDS_APART = 6.0
#: How far an arrowhead on a straight line keeps off another connector's start at its box
#: (its body, not its point: done's arrowhead lay over fin's start at a rounded corner).
HEAD_CLEAR = 3.0

UNCROSS_MOST = 24   # straight lines at one box that are checked pairwise for crossing there


def _uncross_ends(scene: Scene, paths: dict[int, list], touching: dict[str, list], boxes: Boxes,
                  waypoints: set = frozenset()) -> None:
    """Two lines drawn straight to one box (or bending at their dummies,
    :func:`.route.waypoint_polyline`) whose last runs there cross each other swap their
    ends there, when that uncrosses those runs and neither new line enters a box: the
    ends were spread one line at a time, and a fan-in from far and near sources landed
    in the wrong order (host-01's line crossed host-02's just before the aggregator; two
    of an external's three lines crossed as they left it)."""
    for nid, links in touching.items():
        ends = []
        for link in links:
            pts = paths.get(link.index)
            if pts is None or link.a == link.b or (len(pts) != 2 and link.index not in waypoints):
                continue
            ends.append((link, 0 if link.a == nid else -1))
        if not 2 <= len(ends) <= UNCROSS_MOST:
            continue
        for i in range(len(ends)):
            for j in range(i + 1, len(ends)):
                (la, ka), (lb, kb) = ends[i], ends[j]
                pa, pb = paths[la.index], paths[lb.index]
                if not segments_cross(pa[ka], pa[1 if ka == 0 else -2], pb[kb], pb[1 if kb == 0 else -2]):
                    continue
                na, nb = list(pa), list(pb)
                na[ka], nb[kb] = pb[kb], pa[ka]
                if segments_cross(na[ka], na[1 if ka == 0 else -2], nb[kb], nb[1 if kb == 0 else -2]) \
                        or _nearer_a_box(boxes, na, pa, (la.a, la.b)) or _nearer_a_box(boxes, nb, pb, (lb.a, lb.b)):
                    continue
                paths[la.index], paths[lb.index] = na, nb


def _nearer_a_box(boxes: Boxes, new: list, old: list, skip: tuple) -> bool:
    """Does line ``new`` enter a box, or clip one's corner (:data:`CORNER_CLEAR`) where
    ``old`` kept clear?"""
    return boxes.hits(new, skip) or (boxes.hits(new, skip, -CORNER_CLEAR)
                                     and not boxes.hits(old, skip, -CORNER_CLEAR))


def _loop_place(frame, nid: str, k: int) -> tuple[str, int]:
    """The side and nesting level of box ``nid``'s ``k``-th self-loop."""
    places = frame.loop_side.get(nid) or [("-c", 0)]
    return places[k] if k < len(places) else (places[k % len(places)][0], k // len(places))


def _bus_dots(scene: Scene, paths: dict[int, list]) -> None:
    """A junction dot where a merge-bus member joins the shared trunk: on a bend of a member
    that lies strictly inside a straight segment of another member of its bus (the other
    runs on where it turns), or where the bends of members meet from three ways or more
    (two legs coming in from either side and turning down the trunk together), one dot to
    a place, none within :data:`DOT_CLEAR` of the end."""
    members: dict[str, list] = {}
    for link in scene.links:
        if link.bus is not None:
            members.setdefault(link.bus, []).append(link)
    for links in members.values():
        trunk = _Segments(links, paths)
        ways: dict[tuple[float, float], set] = {}
        for link in links:
            pts = paths[link.index]
            for u, v, w in zip(pts, pts[1:], pts[2:]):
                here = ways.setdefault((round(v[0], 2), round(v[1], 2)), set())
                here.add(_way(v, u))
                here.add(_way(v, w))
        dotted = set()
        held: dict[tuple[float, float], set] = {}
        for link in links:
            for v in paths[link.index][1:]:
                held.setdefault((round(v[0], 2), round(v[1], 2)), set()).add(link.index)
        for link in links:
            pts = paths[link.index]
            link.joins = next((k for k in range(1, len(pts))
                               if held[(round(pts[k][0], 2), round(pts[k][1], 2))] - {link.index}
                               or trunk.inside_another(pts[k], link.index)), len(pts) - 1)
        for link in links:
            link.dots = []
            end = paths[link.index][0 if link.splits else -1]   # where the members meet
            for v in paths[link.index][1:-1]:
                at = (round(v[0], 2), round(v[1], 2))
                if math.dist(v, end) < DOT_CLEAR:
                    continue   # the one arrowhead there shows the lines meeting
                if at not in dotted and (len(ways.get(at, ())) >= 3 or trunk.inside_another(v, link.index)):
                    dotted.add(at)
                    link.dots.append(v)


#: How near its arrowhead's tip a merge bus's junction takes no dot (it lay on the head).
DOT_CLEAR = 16.0


def _way(v, w) -> tuple[int, int]:
    """Which way from ``v`` the run to ``w`` leaves (its signs along x and y)."""
    dx, dy = w[0] - v[0], w[1] - v[1]
    return (0 if abs(dx) < 0.01 else (1 if dx > 0 else -1), 0 if abs(dy) < 0.01 else (1 if dy > 0 else -1))


class _Segments:
    """The straight segments of a bus's members, asked whether a point lies strictly inside
    one of another member (more than 0.5 px from its ends, on its line within 0.01 px).

    A bus may have thousands of members all on one trunk, so this is not a walk over every
    segment for every bend (that took 115 s for 8,000 connectors against the flow): the
    segments are grouped by their line (a vertical one's x, a horizontal one's y, exactly as
    drawn) and sorted by where their inside begins; for each prefix of that order it keeps
    the farthest end, the member that reaches it, and the farthest end of any other member,
    so a question is two binary searches."""

    def __init__(self, links: list, paths: dict[int, list]) -> None:
        spans: tuple[dict[float, list], dict[float, list]] = ({}, {})
        for link in links:
            pts = paths[link.index]
            for p, q in zip(pts, pts[1:]):
                if abs(p[0] - q[0]) < 0.01:        # vertical: its x, the inside along y
                    axis, line, a, b = 0, p[0], p[1], q[1]
                elif abs(p[1] - q[1]) < 0.01:      # horizontal: its y, the inside along x
                    axis, line, a, b = 1, p[1], p[0], q[0]
                else:
                    continue
                lo, hi = min(a, b) + 0.5, max(a, b) - 0.5
                if lo < hi:
                    spans[axis].setdefault(line, []).append((lo, hi, link.index))
        self.lines = tuple(sorted(by_line) for by_line in spans)
        self.reach: tuple[dict[float, tuple], dict[float, tuple]] = ({}, {})
        for axis, by_line in enumerate(spans):
            for line, found in by_line.items():
                found.sort(key=lambda span: span[0])
                starts, best = [], []
                far, owner, other = float("-inf"), None, float("-inf")
                for lo, hi, index in found:
                    if index == owner:
                        far = max(far, hi)
                    elif hi > far:
                        far, owner, other = hi, index, far
                    else:
                        other = max(other, hi)
                    starts.append(lo)
                    best.append((far, owner, other))
                self.reach[axis][line] = (starts, best)

    def inside_another(self, v, index: int) -> bool:
        """Is ``v`` strictly inside a segment of a member other than ``index``?"""
        for axis, across, along in ((0, v[0], v[1]), (1, v[1], v[0])):
            lines = self.lines[axis]
            # the lines within 0.01 px, looked for a little wider (across - 0.01 may round
            # onto a line the exact test keeps), then tested exactly as the walk tested them
            for k in range(bisect_left(lines, across - 0.02), bisect_right(lines, across + 0.02)):
                line = lines[k]
                if not abs(across - line) < 0.01:
                    continue
                starts, best = self.reach[axis][line]
                n = bisect_left(starts, along)      # the spans whose inside begins before v
                if n:
                    far, owner, other = best[n - 1]
                    if (far if owner != index else other) > along:
                        return True
        return False


#: A straight line passing a box's corner keeps this far off it (one through the corner
#: by a px or two read as running into the box: 028's relay, 060's SCADA server) ...
CORNER_CLEAR = 1.0
#: ... shifted across itself by the least of these that clears every corner.
CORNER_SHIFTS = (2.0, -2.0, 4.0, -4.0, 6.0, -6.0, 8.0, -8.0)
#: A line within GRAZE_SLOPE of level or upright keeps this far off a box it passes: along
#: its side, 1.5 px above it, a router's line to the imager read as ending at the
#: spectrometer under it.
GRAZE_CLEAR = 4.0
GRAZE_SLOPE = 0.1


def _off_corners(scene: Scene, paths: dict[int, list], boxes: Boxes) -> None:
    """Straight lines between two boxes (one, or a parallel group side by side) that
    clip the corner of a box between, or run level or upright along its side: shifted
    together across themselves by the least of :data:`CORNER_SHIFTS` that keeps every
    one :data:`CORNER_CLEAR` (:data:`GRAZE_CLEAR` along a side) off every box,
    their ends still leaving their boxes from inside the outlines.  A line aimed
    elsewhere than along its boxes' centre line (at a port), or a group no shift
    clears, stays as it is; a group with a line through a box (further than the router's
    tolerance) is left to be routed round."""
    groups: dict[tuple[str, str], list] = {}
    for link in scene.links:
        pts = paths[link.index]
        if len(pts) == 2 and link.a != link.b and link.bus is None:
            groups.setdefault(tuple(sorted((link.a, link.b))), []).append(link)
    for (p, q), links in groups.items():
        a, b = scene.nodes[p], scene.nodes[q]
        length = math.hypot(b.cx - a.cx, b.cy - a.cy)
        if length == 0:
            continue
        # a line level or upright runs along a box's side: it keeps GRAZE_CLEAR off it
        (x0, y0), (x1, y1) = paths[links[0].index]
        dx, dy = abs(x1 - x0), abs(y1 - y0)
        clear = GRAZE_CLEAR if dy <= GRAZE_SLOPE * dx or dx <= GRAZE_SLOPE * dy else CORNER_CLEAR
        if not any(boxes.hits(paths[lk.index], (p, q), -clear) for lk in links) \
                or any(boxes.hits(paths[lk.index], (p, q)) for lk in links):
            continue   # clear already, or through a box (that one goes round, below)
        ux, uy = (a.cy - b.cy) / length, (b.cx - a.cx) / length   # across, as straight_link
        offsets = []
        for lk in links:
            pts = paths[lk.index] if lk.a == p else paths[lk.index][::-1]
            now = (pts[0][0] - a.cx) * ux + (pts[0][1] - a.cy) * uy
            if not all(math.dist(m, n) < 1e-6 for m, n in zip(pts, straight_link(a, b, now))):
                break
            offsets.append(now)
        else:
            inside_a, inside_b = outline_test(a), outline_test(b)
            for shift in CORNER_SHIFTS:
                moved = [straight_link(a, b, now + shift) for now in offsets]
                if all(inside_a(ux * (now + shift), uy * (now + shift))
                       and inside_b(ux * (now + shift), uy * (now + shift)) for now in offsets) \
                        and not any(boxes.hits(pts, (p, q), -clear) for pts in moved):
                    for lk, pts in zip(links, moved):
                        paths[lk.index] = pts if lk.a == p else pts[::-1]
                    break


def _spread_parallel(scene: Scene, paths: dict[int, list]) -> None:
    """Several straight links between one pair of boxes: side by side, never on top.
    Lines 10 px apart leave no room between them for a label, so a label of an inner
    line stood on its neighbour's stroke: the labelled lines go outermost, two of them
    (one direction's, the one most of them share) stay straight, and each further
    labelled line goes round the pair (see :func:`_round_pair`).  A merge bus's member
    stays where its trunk meets it (moved aside, it came in beside the trunk's head)."""
    pairs: dict[tuple[str, str], list] = {}
    for link in scene.links:
        pts = paths.get(link.index)
        if pts is not None and len(pts) == 2 and link.a != link.b and link.bus is None:
            pairs.setdefault(tuple(sorted((link.a, link.b))), []).append(link)
    for (p, q), links in pairs.items():
        if len(links) < 2:
            continue
        a, b = scene.nodes[p], scene.nodes[q]
        labelled = [lk for lk in links if lk.mid]
        plain = [lk for lk in links if not lk.mid]
        if len(labelled) > 2:
            forward = [lk for lk in labelled if lk.a == p]
            backward = [lk for lk in labelled if lk.a != p]
            major = forward if len(forward) > len(backward) or (
                len(forward) == len(backward) and labelled[0].a == p) else backward
            keep = major[:2] if len(major) >= 2 else labelled[:2]
            rest = [lk for lk in labelled if lk not in keep]
            others = [n.rect() for n in scene.nodes.values() if n.id not in (p, q) and not n.external]
            rounds = _round_pair(a, b, rest, others)
            if rounds is not None:
                paths.update(rounds)
                labelled = keep
                links = [lk for lk in links if lk.index not in rounds]
        if len(labelled) >= 2:
            links = labelled[:1] + plain + labelled[1:]
        for i, link in enumerate(links):
            off = (i - (len(links) - 1) / 2) * PARALLEL_STEP
            pts = straight_link(a, b, off)
            paths[link.index] = pts if link.a == p else pts[::-1]


ROUND_GAP = 22.0   # a line round a pair of boxes: this far out, and each next one this much further


def _round_pair(a, b, links, others) -> dict[int, list] | None:
    """Lines from side to side of two boxes beside each other (or one above the
    other), round the outside: under them (right of them), then over (left), taking
    turns, each further out; None when the boxes are neither beside nor above each
    other, or a line would cross another box.  The lines on one side nest: each further
    one leaves and enters its boxes further from the other box (:data:`ROUND_LEG_STEP`
    apart), so it passes round the nearer ones and every line keeps its own legs and its
    own arrowhead."""
    level = min(a.y + a.h, b.y + b.h) > max(a.y, b.y)      # beside each other
    upright = min(a.x + a.w, b.x + b.w) > max(a.x, b.x)    # one above the other
    if level == upright:
        return None
    count = {1: (len(links) + 1) // 2, -1: len(links) // 2}
    out: dict[int, list] = {}
    depth = {1: 0, -1: 0}
    for i, link in enumerate(links):
        side = round_side(i)
        depth[side] += 1
        src, dst = (a, b) if link.a == a.id else (b, a)
        reach = ROUND_GAP * depth[side]
        n = count[side]
        if level:
            edge = (lambda n: n.y + n.h) if side > 0 else (lambda n: n.y)
            far = max(edge(a), edge(b)) + reach if side > 0 else min(edge(a), edge(b)) - reach
            sx, dx = (_round_leg(src, dst, depth[side], n, True), _round_leg(dst, src, depth[side], n, True))
            pts = [(sx, edge(src)), (sx, far), (dx, far), (dx, edge(dst))]
        else:
            edge = (lambda n: n.x + n.w) if side > 0 else (lambda n: n.x)
            far = max(edge(a), edge(b)) + reach if side > 0 else min(edge(a), edge(b)) - reach
            sy, dy = (_round_leg(src, dst, depth[side], n, False), _round_leg(dst, src, depth[side], n, False))
            pts = [(edge(src), sy), (far, sy), (far, dy), (edge(dst), dy)]
        if path_hits(pts, others, -CLEAR - 6.0):
            return None
        out[link.index] = pts
    return out


ROUND_LEG_STEP = 14.0   # between the legs of the lines round a pair, on one side of a box


def _round_leg(box, other, depth: int, count: int, across_x: bool) -> float:
    """Where on ``box`` the line ``depth`` (1: the nearest) of ``count`` round a pair
    leaves or enters it: the nearest line nearest ``other``, each further one a step
    further away, the ``count`` legs centred on the box (closer where it is narrow)."""
    centre, size = (box.cx, box.w) if across_x else (box.cy, box.h)
    toward = 1.0 if ((other.cx if across_x else other.cy) > centre) else -1.0
    step = ROUND_LEG_STEP if count < 2 else min(ROUND_LEG_STEP, max(0.0, size - 16.0) / (count - 1))
    return centre + toward * ((count - 1) / 2 - (depth - 1)) * step


def _translate_auto(scene: Scene, paths: dict[int, list], y0: float) -> None:
    if not scene.nodes:
        return
    lo_y = min(b.y for b in scene.nodes.values())
    lo_x = min(b.x for b in scene.nodes.values())
    for g in scene.groups.values():
        members = [scene.nodes[m] for m in g.members]
        if members:
            lo_y = min(lo_y, min(m.y for m in members) - 26)
            lo_x = min(lo_x, min(m.x for m in members) - 14)
    for pts in paths.values():
        for x, y in pts:
            lo_x, lo_y = min(lo_x, x), min(lo_y, y)
    dx, dy = -lo_x, y0 + AUTO_TOP - lo_y
    for b in scene.nodes.values():
        b.x += dx
        b.y += dy
    for k, pts in paths.items():
        paths[k] = [(x + dx, y + dy) for x, y in pts]
    for link in scene.links:   # a merge bus's junction dots move with its routes
        link.dots = [(x + dx, y + dy) for x, y in link.dots]


# --- pins -------------------------------------------------------------------------------


def _apply_pins(scene: Scene, y0: float) -> set[str]:
    """Move pinned groups and boxes to the author's coordinates; the moved ids."""
    moved: set[str] = set()
    auto = {nid: (b.x, b.y) for nid, b in scene.nodes.items()}
    scene.auto = auto
    ox, oy = 0.0, y0 + ORIGIN_Y
    origins: dict[str, tuple[float, float]] = {}
    for gid, g in scene.groups.items():
        members = [scene.nodes[m] for m in g.members]
        if not members:
            continue
        gx, gy = min(m.x for m in members), min(m.y for m in members)
        pin = g.pin
        if pin and pin.get("x") is not None:
            tx, ty = ox + pin["x"], oy + pin["y"]
            for m in members:
                m.x += tx - gx
                m.y += ty - gy
                moved.add(m.id)
            gx, gy = tx, ty
        origins[gid] = (gx, gy)
    for nid, box in scene.nodes.items():
        pin = scene.pins.get(nid)
        if not pin or pin.get("x") is None:
            continue
        group = scene.groups.get(box.group) if box.group is not None else None
        if group is not None and group.pin and group.pin.get("x") is not None:
            bx, by = origins[box.group]
        else:
            bx, by = ox, oy
        box.x, box.y = bx + pin["x"], by + pin["y"]
        moved.add(nid)
    for gid, g in scene.groups.items():
        g.origin = origins.get(gid)
    return moved


def _seat_externals(scene: Scene, moved: set[str]) -> None:
    """An external joined to an author-placed box sits just outside it, along the flow."""
    real = [b for b in scene.nodes.values() if not b.external]
    pinned_real = sum(1 for b in real if b.pinned)
    mostly = bool(real) and pinned_real * 2 >= len(real)
    for box in scene.nodes.values():
        if not box.external or box.pinned:
            continue
        node, downstream = None, True
        for link in scene.links:
            if link.a == box.id and link.b != box.id:
                node, downstream = scene.nodes[link.b], False
                break
            if link.b == box.id and link.a != box.id:
                node, downstream = scene.nodes[link.a], True
                break
        if node is None or not (node.id in moved or mostly):
            continue
        gap = 30.0
        sign = 1 if downstream else -1
        if scene.flow in ("left", "up"):
            sign = -sign
        if scene.horizontal:
            box.x = (node.x + node.w + gap) if sign > 0 else (node.x - gap - box.w)
            box.y = node.cy - box.h / 2
        else:
            box.y = (node.y + node.h + gap) if sign > 0 else (node.y - gap - box.h)
            box.x = node.cx - box.w / 2
        moved.add(box.id)


def _shortest_first(scene, links: list) -> None:
    """Sort ``links`` so the shortest (by the distance between its boxes' centres) is
    routed first; the index breaks ties."""
    def span(link) -> float:
        a, b = scene.nodes[link.a], scene.nodes[link.b]
        return (a.cx - b.cx) ** 2 + (a.cy - b.cy) ** 2
    links.sort(key=lambda lk: (span(lk), lk.index))


def _reroute(scene: Scene, frame, paths: dict[int, list], moved: set[str]) -> None:
    """Connectors touching a moved box, or crossing one, are routed afresh."""
    if not moved:
        return
    ink = Ink()
    todo = []
    auto = getattr(scene, "auto", {})
    disp = {nid: (b.x - auto[nid][0], b.y - auto[nid][1]) if nid in auto else (0.0, 0.0)
            for nid, b in scene.nodes.items()}
    boxes = Boxes([(b.id, b.rect()) for b in scene.nodes.values() if not b.external])
    for link in scene.links:
        (ax, ay), (bx, by) = disp[link.a], disp[link.b]
        if abs(ax - bx) > 0.01 or abs(ay - by) > 0.01 or (link.a == link.b and (ax or ay)):
            todo.append(link)
            continue
        if ax or ay:   # both ends moved alike: the route moves with them
            paths[link.index] = [(x + ax, y + ay) for x, y in paths[link.index]]
            link.dots = [(x + ax, y + ay) for x, y in link.dots]
        if boxes.hits(paths[link.index], (link.a, link.b)):
            todo.append(link)
        else:
            ink.add(paths[link.index], link.index)
    loops: dict[str, int] = {}

    _shortest_first(scene, todo)
    effort = Effort.to_route(len(todo), len(todo) <= MAX_DETOURED)
    offers: dict[int, tuple] = {}
    rects = [(n.id, n.rect()) for n in scene.nodes.values() if not n.external]   # boxes stay put now
    for link in todo:
        link.bus, link.dots, link.along, link.splits = None, [], False, False
        a, b = scene.nodes[link.a], scene.nodes[link.b]
        if link.a == link.b:
            k = loops.get(link.a, 0)
            loops[link.a] = k + 1
            side, level = _loop_place(frame, link.a, k)
            paths[link.index] = loop_polyline(frame, a, level, side)
            continue
        obstacles = [r for nid, r in rects if nid != link.a and nid != link.b]
        _route_free(link, a, b, obstacles, ink, len(todo) <= MAX_DETOURED, effort, paths, offers)
    _spread_free_pairs(scene, paths, todo, ink, len(todo) <= MAX_DETOURED, effort, offers)
    reconsider(paths, offers)
    _unlevel_crowded(scene, paths, todo, rects)


def _unlevel_crowded(scene: Scene, paths: dict[int, list], links, rects) -> None:
    """A level or upright line between two boxes (:func:`.free.straight`) whose end comes
    within ``LAND_APART`` of another connector's end at the same box goes back to the line
    between the boxes' middles, where that one is clear of the other boxes too: levelled,
    it had moved its arrowhead onto another's, 1.8 px apart."""
    ends: dict[str, dict[int, tuple]] = {}
    for lk in scene.links:
        pts = paths.get(lk.index)
        if pts:
            ends.setdefault(lk.a, {})[lk.index] = pts[0]
            ends.setdefault(lk.b, {})[-1 - lk.index] = pts[-1]
    for link in links:
        pts = paths[link.index]
        if link.a == link.b or len(pts) != 2:
            continue
        a, b = scene.nodes[link.a], scene.nodes[link.b]
        centre = centre_line(a, b)
        if pts == centre or pts != straight(a, b):
            continue
        mine = (link.index, -1 - link.index)
        if not any(k not in mine and math.dist(p, q) < LAND_APART
                   for nid, p in ((link.a, pts[0]), (link.b, pts[-1])) for k, q in ends[nid].items()):
            continue
        if path_hits(centre, [r for nid, r in rects if nid != link.a and nid != link.b], -CLEAR):
            continue
        paths[link.index] = centre
        ends[link.a][link.index], ends[link.b][-1 - link.index] = centre[0], centre[-1]


def _route_free(link, a, b, obstacles, ink: Ink, weigh: bool, effort: Effort, paths: dict, offers: dict) -> None:
    """:func:`.free.route_free` for ``link``, drawn into ``ink``; a line through a box
    and the way round it found go into ``offers`` (for :func:`.free.reconsider`)."""
    got: list = []
    paths[link.index] = route_free(a, b, obstacles, ink, weigh, effort, got)
    if got:
        offers[link.index] = got[-1]
    ink.add(paths[link.index], link.index)


def _clear_lassos(scene: Scene, model: dict, frame, paths: dict[int, list], moved: set[str]) -> list | None:
    """Engine-placed boxes a lasso encloses step out of it (:mod:`.lassos`); the
    connectors of what moved are routed afresh and the rings asked again.  Each
    time, a ring that misses one of its member links is first fitted round them
    all, so what steps out is what the ring drawn would enclose.  The rings of
    the last pass, when nothing moved after them (else None)."""
    if not model.get("bundles") or frame is None:
        return None
    cross0 = lassos.cross_start(scene)
    for _ in range(lassos.PASSES):
        rings = marks.rings_of(scene, model)
        lassos.refit(scene, rings, only_missing=True)
        shifted = lassos.step(scene, rings, cross0)
        if not shifted:
            return rings
        moved.update(shifted)
        _reroute_shifted(scene, paths, shifted)
        for link in scene.links:
            link.points = paths[link.index]
    return None


def _reroute_shifted(scene: Scene, paths: dict[int, list], shifted: dict[str, tuple[float, float]]) -> None:
    """After boxes moved by ``shifted``: a connector whose two ends moved alike
    (or a self-loop) moves with them; one with a single end moved, or now
    crossing a moved box, is routed afresh round every other box."""
    todo = []
    moved_rects = {nid: scene.nodes[nid].rect() for nid in shifted if not scene.nodes[nid].external}
    for link in scene.links:
        da, db = shifted.get(link.a), shifted.get(link.b)
        if da is not None and da == db:
            paths[link.index] = [(x + da[0], y + da[1]) for x, y in paths[link.index]]
            link.dots = [(x + da[0], y + da[1]) for x, y in link.dots]
        elif da is not None or db is not None:
            todo.append(link)
            continue
        others = [r for nid, r in moved_rects.items() if nid not in (link.a, link.b)]
        if others and path_hits(paths[link.index], others):
            todo.append(link)
    if not todo:
        return
    pending = {lk.index for lk in todo}
    ink = Ink()
    for link in scene.links:
        if link.index not in pending:
            ink.add(paths[link.index], link.index)

    _shortest_first(scene, todo)
    effort = Effort.to_route(len(todo), len(todo) <= MAX_DETOURED)
    offers: dict[int, tuple] = {}
    rects = [(n.id, n.rect()) for n in scene.nodes.values() if not n.external]   # boxes stay put now
    for link in todo:
        link.bus, link.dots, link.along, link.splits = None, [], False, False
        a, b = scene.nodes[link.a], scene.nodes[link.b]
        obstacles = [r for nid, r in rects if nid != link.a and nid != link.b]
        _route_free(link, a, b, obstacles, ink, len(todo) <= MAX_DETOURED, effort, paths, offers)
    _spread_free_pairs(scene, paths, todo, ink, len(todo) <= MAX_DETOURED, effort, offers)
    reconsider(paths, offers)
    _unlevel_crowded(scene, paths, todo, rects)
    _bus_dots(scene, paths)


def _spread_free_pairs(scene: Scene, paths: dict[int, list], todo, ink: Ink, weigh: bool,
                       effort: Effort, offers: dict) -> None:
    """Several straight links between one pair of boxes: side by side, 10 px apart.
    Where a line moved off the centre line would enter another box, the first
    keeps its line and the others go round, over the ink drawn so far, when that
    is worth it (``weigh``, ``effort``, ``offers``: see :func:`.free.detour`)."""
    pairs: dict[tuple[str, str], list] = {}
    for link in todo:
        pts = paths[link.index]
        if len(pts) == 2 and link.a != link.b:
            pairs.setdefault(tuple(sorted((link.a, link.b))), []).append(link)
    for (p, q), links in pairs.items():
        if len(links) < 2:
            continue
        a, b = scene.nodes[p], scene.nodes[q]
        spread = []
        for i, link in enumerate(links):
            off = (i - (len(links) - 1) / 2) * PARALLEL_STEP
            pts = straight_link(a, b, off)
            spread.append(pts if link.a == p else pts[::-1])
        others = [n.rect() for n in scene.nodes.values() if n.id not in (p, q) and not n.external]
        if not any(path_hits(pts, others, -CLEAR) for pts in spread):
            for link, pts in zip(links, spread):
                paths[link.index] = pts
                offers.pop(link.index, None)
            continue
        for link, pts in zip(links[1:], spread[1:]):
            got: list = []
            offers.pop(link.index, None)
            path = detour(scene.nodes[link.a], scene.nodes[link.b], others, ink, weigh, effort, pts, got)
            paths[link.index] = pts if path is None else path
            if got:
                offers[link.index] = got[-1]
            ink.add(paths[link.index], link.index)


# --- text ----------------------------------------------------------------------------------


def _labels(scene: Scene, model: dict) -> Board:
    """Every connector's text on a board holding the boxes, the lines and the other
    text: placed one by one in the order the links are written.  Then a label that
    found no free place is placed again first, before the labels near its line (a
    label crowded by those placed before it may have a free place that none of them
    needed), the others staying where they are; kept when the places moved cost
    clearly less in all (:data:`RELABEL_GAIN`), for up to :data:`RELABEL_TRIES` labels
    with at most :data:`RELABEL_NEAR` others near each."""
    jobs = _label_jobs(scene)
    order = list(range(len(jobs)))
    allowance = [FINE_ALLOWANCE]
    board, labels, costs = _place_labels(scene, model, jobs, order, allowance, math.inf)
    tried: set[int] = set()
    for _ in range(RELABEL_TRIES):
        crowded = [i for i in order if costs[i] >= CROWDED and i not in tried]
        if not crowded:
            break
        i = crowded[0]
        tried.add(i)
        reach = _label_reach(jobs[i], labels[i])
        near = [j for j in order if j != i and overlap(labels[j].rect, reach, 0.0)]
        nearby = set(near)
        before = [j for j in order[:order.index(i)] if j in nearby]   # (placed before it)
        if len(near) > RELABEL_NEAR or not before:
            # with none of its neighbours placed before it, it would be placed again on
            # the board it was placed on
            continue
        moved = [i] + near
        fixed = [(j, labels[j], costs[j]) for j in order if j not in moved]
        was = sum(costs[j] for j in moved)
        placed = _place_labels(scene, model, jobs, moved, allowance, was - RELABEL_GAIN, fixed,
                               costs[i] - RELABEL_GAIN, [labels[j].rect for j in before])
        if placed is not None:
            board, labels, costs = placed
            order = moved + [j for j in order if j not in moved]
    scene.labels = []
    for (link, at_start, _text), lab in zip(jobs, labels):
        scene.labels.append(lab)
        if at_start is None:
            link.mid_label = lab
    marks.tones(scene)
    return board


#: How many crowded labels (see :func:`_labels`) are placed again, at most, per figure;
#: by how much the places moved must cost less in all to be kept (a few px of distance
#: bought a reshuffle that a reviewer read as worse); and how many labels near a
#: crowded one may move with it (a pile of them between two boxes is left as placed).
RELABEL_TRIES = 4
RELABEL_GAIN = 50.0
RELABEL_NEAR = 16


def _label_reach(job: tuple, label: Label):
    """The rectangle a label of ``job`` may be placed in, at most: its line's bounds
    grown by the label's width and height and the farthest a place stands off."""
    pts = job[0].points
    grow = label.w + label.h + FINE_EXTRAS[-1] + 8.0
    return (min(x for x, _ in pts) - grow, min(y for _, y in pts) - grow,
            max(x for x, _ in pts) + grow, max(y for _, y in pts) + grow)


def _label_jobs(scene: Scene) -> list[tuple]:
    """The connectors' texts in the order they are drawn: ``(link, at_start, text)``,
    ``at_start`` True for a tail label, False for a head label, None for a mid label."""
    jobs = []
    for link in scene.links:
        if len(link.points) < 2:
            continue
        for text, at_start in ((link.tail, True), (link.head, False)):
            if text:
                jobs.append((link, at_start, text))
        if link.mid:
            jobs.append((link, None, link.mid))
    return jobs


#: Room a label keeps beside a band's title on its line (about a word's space at its size).
TITLE_WORD_GAP = 12.0


def _place_labels(scene: Scene, model: dict, jobs: list[tuple], order, allowance: list[int],
                  below: float, fixed=(), lead_below: float = math.inf,
                  freed=None) -> tuple[Board, list, list[float]] | None:
    """A fresh board with the labels of ``fixed`` (``(job, label, cost)``) on it as they
    are, and the ``jobs`` of ``order`` placed on it in that order: the board, each job's
    label and what its place cost (both in the jobs' order).  None as soon as the
    places of ``order`` cost ``below`` or more in all, or the first ``lead_below`` or
    more (a crowded label placed first that finds no better place frees none for the
    others: it had been placed after them).  The first looks only where the ``freed``
    rectangles are (the labels taken up that had been placed before it).
    ``allowance[0]``: the finer looks the crowded labels may still take
    (:data:`.labels.FINE_ALLOWANCE`, for all the placings of a figure)."""
    boxes = [b.rect() for b in scene.nodes.values() if not b.external]
    soft = []
    for g in scene.groups.values():
        if g.box is not None and g.label and g.title is not None:
            w, h = measure(g.label, titles.TITLE_FS)
            x = g.title.x(g.box) - (w if g.title.anchor == "end" else 0.0)
            # a word's gap either side: a label on the title's line that near reads as
            # part of it ("E2" 10 px before "Regional DC")
            soft.append((x - TITLE_WORD_GAP, g.box[1] + 4, x + w + TITLE_WORD_GAP, g.box[1] + 4 + h))
    solid = [r for b in scene.nodes.values() if not b.external
             for r in outline_rects(b.rect(), axes(b)[2])]
    outlines = [g.title.drawn(g.box) if g.title is not None else g.box
                for g in scene.groups.values() if g.box is not None]
    board = Board(boxes, {lk.index: lk.points for lk in scene.links if len(lk.points) >= 2}, soft,
                  solid, outlines, head_boxes(scene))
    # an external's name (placed from the lines alone, the same again when drawn) is
    # ink a label keeps off: "answer + citations" was written over "Employee (chat UI)"
    for _x, _baseline, _anchor, rect in external_names(scene).values():
        board.take(rect)
    for rect in draw.threshold_label_rects(scene, model):   # and a threshold's label
        board.take(rect)
    board.fine_left = allowance[0]
    topology = scene.genre == "topology"
    labels: list = [None] * len(jobs)
    costs = [0.0] * len(jobs)
    for j, lab, cost in fixed:
        board.take(lab.rect)
        labels[j], costs[j] = lab, cost
    spent = 0.0
    for k, i in enumerate(order):
        board.only_where(freed if k == 0 else None)
        # each under what is left of ``below`` (a place costing that would fail the whole)
        bound = below - spent if k else min(lead_below, below)
        labels[i], costs[i] = _place_one(board, scene, jobs[i], topology, bound)
        board.only_where(None)
        allowance[0] = board.fine_left
        spent += costs[i]
        if spent >= below:
            return None
    return board, labels, costs


def _place_one(board: Board, scene: Scene, job: tuple, topology: bool,
               bound: float = math.inf) -> tuple[Label, float]:
    """The label of ``job`` (see :func:`_label_jobs`) placed on ``board``, and what its
    place cost (infinite, and the label not placed, where none costs under ``bound``)."""
    link, at_start, text = job
    pts = link.points
    if at_start is not None:
        lab = Label(text, END_FS, colour="#555")
        lab.w, lab.h = measure(text, END_FS)
        end = pts[0] if at_start else pts[-1]
        node = scene.nodes[link.a if at_start else link.b]
        if topology and not node.external:
            lab.port = f"{end[0]:.2f},{end[1]:.2f}"
        return lab, place_end(board, lab, pts, link.index, at_start, 9.0 if lab.port else 6.0, bound)
    lab = Label(text, LABEL_FS, colour=link.stroke or "#555")
    lab.w, lab.h = measure(text, LABEL_FS)
    source = scene.nodes[link.a]
    exit_from = (source.cx, source.cy) if source.shape == "diamond" and link.a != link.b else None
    target = scene.nodes[link.b]
    ends = tuple((n.rect(), end, axes(n)[2]) for n, end in ((source, pts[0]), (target, pts[-1]))
                 if not n.external) if link.a != link.b else ()
    whole = None
    if link.along and link.bus is not None and link.joins < len(pts) - 1:
        # a merge bus's member along the flow says what it says on its own leg, up
        # to where it joins the trunk: on the trunk it would read as the trunk's
        # (the same words stacked there, once for each member); where its leg has
        # no free place, anywhere along its line
        whole = (pts, ends)
        pts, ends = pts[:link.joins + 1], ends[:1] if not source.external else ()
    return lab, place_mid(board, lab, pts, link.index, exit_from, ends, whole, bound)


def _shift_everything(scene: Scene, rings, annotations, board: Board, dx: float, dy: float) -> None:
    for b in scene.nodes.values():
        b.x += dx
        b.y += dy
    for g in scene.groups.values():
        if g.box is not None:
            x0, y0, x1, y1 = g.box
            g.box = (x0 + dx, y0 + dy, x1 + dx, y1 + dy)
        if getattr(g, "origin", None) is not None:
            g.origin = (g.origin[0] + dx, g.origin[1] + dy)
    for link in scene.links:
        link.points = [(x + dx, y + dy) for x, y in link.points]
        link.dots = [(x + dx, y + dy) for x, y in link.dots]
    for lab in scene.labels:
        lab.cx += dx
        lab.cy += dy
        if lab.port is not None:
            px, py = (float(v) for v in lab.port.split(","))
            lab.port = f"{px + dx:.2f},{py + dy:.2f}"
    marks.shift(rings, annotations, dx, dy)
