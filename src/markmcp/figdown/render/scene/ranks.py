"""Ranks: which column (or row) of the flow each node sits in.

1. ``rank a,b,c`` lines merge their nodes into one class (union-find), so they
   share a rank without dragging their neighbours along.
2. Cycles are broken by a depth-first walk from the classes in declaration
   order: an edge that reaches a class still on the walk's stack closes a
   cycle and is left out of the ranking (it is drawn, just not ranked by).
3. Longest-path layering over what remains puts every source at rank 0 and
   every other class one past its furthest predecessor.
4. A source then moves up to just before the nearest class it feeds (rank 0 only
   when that is rank 1): a box feeding one far down the flow stands beside the
   ranks before that box, not at the start with a line across all of them.  An
   external stays put, and a group's sources move together, by the least any of
   them may.  A leaf only the source feeds does not hold it back; it moves along,
   one rank on.

Every step visits nodes and edges in declaration order, so the result is a
pure function of the document.
"""

from __future__ import annotations

import heapq

from .graph import Scene


def assign_ranks(scene: Scene) -> dict[str, int]:
    ids = scene.order
    rep = {i: i for i in ids}

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
    classes = []
    seen = set()
    for i in ids:
        c = find(i)
        if c not in seen:
            seen.add(c)
            classes.append(c)
    succ: dict[str, list[str]] = {c: [] for c in classes}
    for link in scene.links:
        u, v = find(link.a), find(link.b)
        if u != v:
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
