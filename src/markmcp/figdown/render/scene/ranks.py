"""Ranks: which column (or row) of the flow each node sits in.

1. ``rank a,b,c`` lines merge their nodes into one class (union-find), so they
   share a rank without dragging their neighbours along.
2. Cycles are broken by a depth-first walk from the classes in declaration
   order: an edge that reaches a class still on the walk's stack closes a
   cycle and is left out of the ranking (it is drawn, just not ranked by).
3. Longest-path layering over what remains puts every source at rank 0 and
   every other class one past its furthest predecessor.  An external whose first
   link leaves it, sending at least as many as it takes (a client), is a source: the
   links back into it are not ranked by.
4. A source then moves up to just before the nearest class it feeds (rank 0 only
   when that is rank 1): a box feeding one far down the flow stands beside the
   ranks before that box, not at the start with a line across all of them.  An
   external stays put, and a group's sources move together, by the least any of
   them may.  A leaf only the source feeds does not hold it back; it moves along,
   one rank on.

Every step visits nodes and edges in declaration order, so the result is a
pure function of the document.

A topology figure may rank some of its links backwards (``Scene.mirrored``, chosen by
:func:`hub_split`): where many parts hang off one hub that nothing leaves (two station
switches every device is dual-homed to), the parts declared after the hub are ranked
past it, as its mirror image, instead of all standing in the one rank before it, where
every two dual-homed parts crossed.
"""

from __future__ import annotations

import heapq

from .graph import Scene


def _rank_classes(scene: Scene):
    """The union-find representative of each node's ``rank`` class."""
    rep = {i: i for i in scene.order}

    def find(u: str) -> str:
        while rep[u] != u:
            rep[u] = rep[rep[u]]
            u = rep[u]
        return u

    for members in scene.ranks:
        for other in members[1:]:
            a, b = find(members[0]), find(other)
            if a != b:
                # keep the earlier-declared id as the representative
                if scene.nodes[a].order <= scene.nodes[b].order:
                    rep[b] = a
                else:
                    rep[a] = b
    return find


def assign_ranks(scene: Scene) -> dict[str, int]:
    ids = scene.order
    find = _rank_classes(scene)
    classes = []
    seen = set()
    for i in ids:
        c = find(i)
        if c not in seen:
            seen.add(c)
            classes.append(c)
    succ: dict[str, list[str]] = {c: [] for c in classes}
    away = _away(scene)
    starts = _starts(scene)
    for link in scene.links:
        u, v = find(link.a), find(link.b)
        if u != v and link.b not in starts:
            if link.a in away or link.b in away:
                # ranked past the hub: from the hub outward, by how far out each end is
                da, db = away.get(link.a, 0), away.get(link.b, 0)
                if da == db:
                    continue   # side by side in one rank
                if da > db:
                    u, v = v, u
            succ[u].append(v)
    # iterative DFS: back edges are those reaching a class on the stack
    state: dict[str, int] = {}     # 1 on stack, 2 done
    dag: dict[str, list[str]] = {c: [] for c in classes}
    for root in classes:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(succ[root]))]
        while stack:
            u, it = stack[-1]
            v = next(it, None)
            if v is None:
                state[u] = 2
                stack.pop()
                continue
            s = state.get(v)
            if s == 1:
                continue          # closes a cycle: not ranked by
            dag[u].append(v)
            if s is None:
                state[v] = 1
                stack.append((v, iter(succ[v])))
    # longest path (Kahn order over the DAG, declaration order breaking ties)
    indeg = {c: 0 for c in classes}
    for u in classes:
        for v in dag[u]:
            indeg[v] += 1
    indeg_first = dict(indeg)
    level = {c: 0 for c in classes}
    position = {c: k for k, c in enumerate(classes)}
    ready = [(position[c], c) for c in classes if indeg[c] == 0]   # a heap: earliest first
    while ready:
        _, u = heapq.heappop(ready)
        for v in dag[u]:
            if level[u] + 1 > level[v]:
                level[v] = level[u] + 1
            indeg[v] -= 1
            if indeg[v] == 0:
                heapq.heappush(ready, (position[v], v))
    # 4. a source just before the nearest class it feeds (an HSM feeding only a store
    #    three ranks on drew a line across them all)
    #    (an external stays put: its name wants the room at the figure's edge; a group's
    #    sources move together, by what the least free of them may, so the group keeps
    #    its first rank's column)
    #    (a leaf fed by the source alone travels with it, one rank on, and does not hold
    #    it back: a playout server's contribution feed stays under it)
    slack: dict[str, int] = {}
    tails: dict[str, list[str]] = {}
    for u in classes:
        if indeg_first[u] == 0 and dag[u] and not scene.nodes[u].external:
            own = [v for v in dag[u] if indeg_first[v] == 1 and not dag[v]]
            held = [v for v in dag[u] if v not in own] or dag[u]
            slack[u] = max(0, min(level[v] for v in held) - 1 - level[u])
            tails[u] = own
    common: dict[str, int] = {}
    for u, room in slack.items():
        g = scene.nodes[u].group
        if g is not None:
            common[g] = min(common.get(g, room), room)
    for u, room in slack.items():
        g = scene.nodes[u].group
        level[u] += room if g is None else common[g]
        for v in tails[u]:
            level[v] = max(level[v], level[u] + 1)
    return {i: level[find(i)] for i in ids}


def _starts(scene: Scene) -> set[str]:
    """The externals whose first link leaves them and which send at least as many links
    as they take: where the figure starts (a client's request).  What comes back to one
    (a reply, a challenge) is not ranked by, so it stands first, not after what answers
    it with a line back across the figure.  (A card switch that sends one request and
    takes two decisions back is where the figure ends.)"""
    seen: set[str] = set()
    first_out = set()
    sent: dict[str, int] = {}
    taken: dict[str, int] = {}
    for link in scene.links:
        if link.a == link.b:
            continue
        sent[link.a] = sent.get(link.a, 0) + 1
        taken[link.b] = taken.get(link.b, 0) + 1
        for end in (link.a, link.b):
            if end not in seen:
                seen.add(end)
                if end == link.a and scene.nodes[end].external:
                    first_out.add(end)
    return {e for e in first_out if sent.get(e, 0) >= taken.get(e, 0)}


def _away(scene: Scene) -> dict[str, int]:
    """How many links out from the hub each node of ``Scene.mirrored`` stands (the parts
    :func:`hub_split` gave link nothing but the hub and each other)."""
    mirrored = scene.mirrored
    if not mirrored:
        return {}
    near: dict[str, list[str]] = {}
    away: dict[str, int] = {}
    for link in scene.links:
        a_in, b_in = link.a in mirrored, link.b in mirrored
        if a_in and b_in:
            near.setdefault(link.a, []).append(link.b)
            near.setdefault(link.b, []).append(link.a)
        elif a_in or b_in:
            away[link.a if a_in else link.b] = 1
    queue = [n for n in scene.order if away.get(n) == 1]
    for n in queue:   # (the list grows as it is read: breadth first)
        for m in near.get(n, ()):
            if m not in away:
                away[m] = away[n] + 1
                queue.append(m)
    return away


#: The least number of parts a hub's each side must have for :func:`hub_split` to offer one.
SPLIT_LEAST = 2


def hub_split(scene: Scene) -> frozenset:
    """The nodes a topology figure could rank past its hub (empty when there is no such
    choice).  The hub is the ``rank`` class (or box) with the most links in which no link
    leaves it; its parts are what the figure falls into without it (a group's members
    staying in one part: so each is linked to nothing but the hub), those linked to it and
    holding no external.
    Where at least :data:`SPLIT_LEAST` parts were declared before the hub's first box and
    as many after it, the later ones are offered: the author wrote one side, then the
    hub, then the other.  The caller keeps the split only where it crosses less."""
    if scene.genre != "topology":
        return frozenset()
    find = _rank_classes(scene)
    into: dict[str, int] = {}
    leaves = set()
    for link in scene.links:
        u, v = find(link.a), find(link.b)
        if u != v:
            leaves.add(u)
            into[v] = into.get(v, 0) + 1
    hubs = [c for c in into if c not in leaves]
    if not hubs:
        return frozenset()
    hub = max(hubs, key=lambda c: (into[c], -scene.nodes[c].order))
    core = {i for i in scene.order if find(i) == hub}
    part = {i: i for i in scene.order if i not in core}

    def top(u: str) -> str:
        while part[u] != u:
            part[u] = part[part[u]]
            u = part[u]
        return u

    def join(a: str, b: str) -> None:
        a, b = top(a), top(b)
        if a != b:
            part[max(a, b, key=lambda k: scene.nodes[k].order)] = min(a, b, key=lambda k: scene.nodes[k].order)

    for link in scene.links:
        if link.a in part and link.b in part:
            join(link.a, link.b)
    by_group: dict[str, str] = {}
    for i in part:
        g = scene.nodes[i].group
        if g is not None:
            if g in by_group:
                join(by_group[g], i)
            else:
                by_group[g] = i
    members: dict[str, list[str]] = {}
    for i in scene.order:
        if i in part:
            members.setdefault(top(i), []).append(i)
    tied = {top(i) for i in part if scene.nodes[i].external}
    linked = {top(i) for link in scene.links for i in (link.a, link.b)
              if i in part and (link.a in core or link.b in core)}
    first = min(scene.nodes[i].order for i in core)
    before = [p for p in members if p in linked and p not in tied and scene.nodes[p].order < first]
    after = [p for p in members if p in linked and p not in tied and scene.nodes[p].order > first]
    if len(before) < SPLIT_LEAST or len(after) < SPLIT_LEAST:
        return frozenset()
    return frozenset(i for p in after for i in members[p])
