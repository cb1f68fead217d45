"""Cross-axis placement: where along its rank each item sits.

For a fixed order the positions minimise the weighted squared length of
every connector's cross-axis run (so connectors come out straight where they
can), subject to the order and to minimum separations.  A group is one
*lane*: a variable ``open`` with a fixed width that is the same in every rank
of its span, so its band is a clean rectangle with only members inside.

The solver is block coordinate descent:

* one rank at a time, the items between two fixed walls (group edges, or the
  ends of the rank) are solved exactly as a weighted isotonic regression (the
  pool-adjacent-violators algorithm on positions with their separations taken
  out), clamped between the walls;
* then each group lane moves as a whole toward where its members want to be,
  as far as its neighbours in every rank allow.

Every step keeps the layout feasible, the iteration count is fixed, and all
arithmetic is plain IEEE addition, multiplication and division, so the
result is identical on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass

from .order import Item

ITERATIONS = 10


@dataclass
class Spacing:
    node_gap: float          # between two nodes of a rank
    pad_before: float        # band edge to first member
    pad_after: float         # last member to band edge
    out_gap: float = 16.0    # band edge to a non-member
    band_gap: float = 8.0    # between two bands
    dummy_gap: float = 12.0  # between two connectors passing a rank
    mixed_gap: float = 20.0  # between a connector and a node
    # connectors passing a rank keep those gaps only where they are drawn orthogonally;
    # topology's straight lines through their dummies read best packed (fewer crossings),
    # except a dummy marked ``clear``: its line bends there, round the boxes beside it
    spread_dummies: bool = True


class Lane:
    def __init__(self, gid: str, gap: float | None):
        self.id = gid
        self.gap = gap
        self.open = 0.0
        self.size = 0.0
        self.ranks: dict[int, list[Item]] = {}


def _item_gap(a: Item, b: Item, sp: Spacing, lanes: dict[str, Lane]) -> float:
    if a.node is None and b.node is None:
        gap = sp.dummy_gap
    elif a.node is None or b.node is None:
        gap = sp.mixed_gap
    else:
        gap = sp.node_gap
        if a.group is not None and a.group == b.group:
            lane_gap = lanes[a.group].gap
            if lane_gap is not None:
                gap = float(lane_gap)
    if a.placeholder or b.placeholder:   # a group lane's placeholder takes no room
        gap = 0.0
    elif not sp.spread_dummies and (a.node is None or b.node is None) \
            and not (getattr(a, "clear", False) or getattr(b, "clear", False)):
        # packed, but two boxes either side of one dummy keep their gap between them
        gap = max(getattr(a, "between", 0.0), getattr(b, "between", 0.0))
    gap = max(gap, getattr(a, "room_after", 0.0))   # its links' end labels to b need this much
    return (a.size + b.size) / 2 + gap + getattr(a, "trail", 0.0) + getattr(b, "lead", 0.0)


def _inner(a: Item) -> tuple[float, float]:
    return a.size / 2 + getattr(a, "lead", 0.0), a.size / 2 + getattr(a, "trail", 0.0)


class Placer:
    def __init__(self, ranks: list[list[Item]], lanes: dict[str, Lane], sp: Spacing):
        self.ranks = ranks
        self.lanes = lanes
        self.sp = sp
        for lane in lanes.values():
            lane.ranks = {}
        for rank in ranks:
            for k, it in enumerate(rank):
                if it.node is None:
                    boxed = 0 < k < len(rank) - 1 and rank[k - 1].node is not None \
                        and rank[k + 1].node is not None
                    it.between = sp.node_gap / 2 if boxed else 0.0
        for r, rank in enumerate(ranks):
            for it in rank:
                if it.group is not None:
                    lanes[it.group].ranks.setdefault(r, []).append(it)
        for lane in lanes.values():
            size = 0.0
            for members in lane.ranks.values():
                total = sp.pad_before + sp.pad_after + _inner(members[0])[0] + _inner(members[-1])[1]
                for a, b in zip(members, members[1:]):
                    total += _item_gap(a, b, sp, lanes)
                size = max(size, total)
            lane.size = size

    # --- the rank as a chain of tokens ----------------------------------------------

    def _tokens(self, r: int):
        """The rank as ('item', it) / ('open', lane) / ('close', lane) tokens."""
        out = []
        current = None
        for it in self.ranks[r]:
            if it.group != current:
                if current is not None:
                    out.append(("close", self.lanes[current]))
                if it.group is not None:
                    out.append(("open", self.lanes[it.group]))
                current = it.group
            out.append(("item", it))
        if current is not None:
            out.append(("close", self.lanes[current]))
        return out

    def _sep(self, a, b) -> float:
        ka, va = a
        kb, vb = b
        sp = self.sp
        if ka == "item" and kb == "item":
            return _item_gap(va, vb, sp, self.lanes)
        if ka == "item" and kb == "open":
            return _inner(va)[1] + (sp.out_gap if va.node is not None else sp.out_gap / 2)
        if ka == "close" and kb == "item":
            return _inner(vb)[0] + (sp.out_gap if vb.node is not None else sp.out_gap / 2)
        if ka == "open" and kb == "item":
            return sp.pad_before + _inner(vb)[0]
        if ka == "item" and kb == "close":
            return _inner(va)[1] + sp.pad_after
        if ka == "close" and kb == "open":
            return sp.band_gap
        return va.size if ka == "open" else 0.0

    @staticmethod
    def _coord(tok) -> float:
        kind, v = tok
        if kind == "item":
            return v.pos
        if kind == "open":
            return v.open
        return v.open + v.size

    # --- a feasible start --------------------------------------------------------------

    def pack(self) -> None:
        for lane in self.lanes.values():
            lane.open = -1e18
        for rank in self.ranks:
            for it in rank:
                it.pos = -1e18
        for _ in range(len(self.lanes) + 2):
            changed = False
            for r in range(len(self.ranks)):
                prev = None
                for tok in self._tokens(r):
                    kind, v = tok
                    need = 0.0 if prev is None else self._coord(prev) + self._sep(prev, tok)
                    if kind == "item":
                        if prev is None:
                            need = _inner(v)[0]
                        if v.pos < need:
                            v.pos, changed = need, True
                    elif kind == "open":
                        if v.open < need:
                            v.open, changed = need, True
                    else:
                        if v.open + v.size < need:   # cannot happen: size is the packed size
                            v.open, changed = need - v.size, True
                    prev = tok
            if not changed:
                break

    # --- improvement ------------------------------------------------------------------

    @staticmethod
    def _pulls(it: Item) -> tuple[list[tuple[Item, float]], float]:
        """The neighbours that pull ``it`` with their weights, and the weights' sum."""
        pulls, weight = [], 0.0
        for n in it.ups + it.downs:
            w = 2.0
            if it.node is None and n.node is None:
                w = 8.0
            elif it.node is None or n.node is None:
                w = 2.0
            pulls.append((n, w))
            weight += w
        return pulls, weight

    def _desire(self, it: Item) -> tuple[float, float]:
        """Where ``it``'s connectors want it (weighted mean of its neighbours), and how hard."""
        pulls, weight = self._pull[id(it)]
        if weight == 0:
            return it.pos, 0.05
        total = 0.0
        for n, w in pulls:
            total += w * n.pos
        return total / weight, weight

    def _runs(self, toks: list) -> list[tuple]:
        """A rank's items between walls, each run with what does not move while the
        positions do: (its items, each item's pulls and their weight (``_pulls``),
        offsets from its first item, left wall, its separation, right wall, its
        separation)."""
        out = []
        left = None
        run: list = []
        pull = self._pull
        for tok in [*toks, None]:
            if tok is not None and tok[0] == "item":
                run.append(tok)
                continue
            if run:
                offsets = [0.0]
                for a, b in zip(run, run[1:]):
                    offsets.append(offsets[-1] + self._sep(a, b))
                items = [t[1] for t in run]
                out.append((items, [pull[id(it)] for it in items], offsets,
                            left, None if left is None else self._sep(left, run[0]),
                            tok, None if tok is None else self._sep(run[-1], tok)))
            run, left = [], tok
        return out

    def _solve_run(self, items: list, pulls: list, offsets: list[float],
                   left, left_sep, right, right_sep) -> None:
        """Items between two walls (or rank ends): PAV, then clamp into the walls.

        This is the hot loop of a big figure, so it is written out: each item's
        desire is ``_desire`` (the pulls summed in their order), and the pooled
        blocks are three parallel stacks (weighted sum, weight, item count) with
        the newest block held in locals until the next item arrives."""
        sums: list[float] = []
        weights: list[float] = []
        counts: list[int] = []
        s = w = 0.0
        c = 0
        for it, (pl, pw), off in zip(items, pulls, offsets):
            if c:
                sums.append(s)
                weights.append(w)
                counts.append(c)
            if pw == 0:
                d, w = it.pos, 0.05
            else:
                total = 0.0
                for n, nw in pl:
                    total += nw * n.pos
                d, w = total / pw, pw
            s, c = w * (d - off), 1
            while sums and (sums[-1] / weights[-1]) > (s / w):
                s = sums.pop() + s
                w = weights.pop() + w
                c = counts.pop() + c
        sums.append(s)
        weights.append(w)
        counts.append(c)
        lo = -1e18 if left is None else self._coord(left) + left_sep
        hi = 1e18 if right is None else self._coord(right) - right_sep - offsets[-1]
        if lo > hi:
            return
        k = 0
        for s, w, c in zip(sums, weights, counts):
            y = s / w
            # min(max(y, lo), hi), written out
            if lo > y:
                y = lo
            if hi < y:
                y = hi
            for j in range(k, k + c):
                items[j].pos = y + offsets[j]
            k += c

    def _solve_rank(self, r: int) -> None:
        for plan in self._plan[r]:
            self._solve_run(*plan)

    def _move_lane(self, lane: Lane) -> None:
        shift, weight = 0.0, 0.0
        for members in lane.ranks.values():
            for m in members:
                d, w = self._desire(m)
                if w > 0.05:
                    shift += w * (d - m.pos)
                    weight += w
        if weight == 0:
            return
        want = shift / weight
        lo, hi = -1e18, 1e18
        for r in lane.ranks:
            toks = self._toks[r]
            for k, tok in enumerate(toks):
                if tok[0] == "open" and tok[1] is lane and k > 0:
                    lo = max(lo, self._coord(toks[k - 1]) + self._sep(toks[k - 1], tok))
                if tok[0] == "close" and tok[1] is lane and k + 1 < len(toks):
                    nxt = toks[k + 1]
                    hi = min(hi, self._coord(nxt) - self._sep(tok, nxt) - lane.size)
        target = min(max(lane.open + want, lo), hi)
        if lo > hi:
            return
        delta = target - lane.open
        lane.open = target
        for members in lane.ranks.values():
            for m in members:
                m.pos += delta

    def improve(self, iterations: int = ITERATIONS) -> None:
        n = len(self.ranks)
        # the order, the sizes and the separations stay fixed while positions move:
        # each rank's tokens, runs and pulls are worked out once
        self._toks = [self._tokens(r) for r in range(n)]
        self._pull = {id(it): self._pulls(it) for rank in self.ranks for it in rank}
        self._plan = [self._runs(toks) for toks in self._toks]
        try:
            for _ in range(iterations):
                for r in range(n):
                    self._solve_rank(r)
                for r in range(n - 1, -1, -1):
                    self._solve_rank(r)
                for lane in self.lanes.values():
                    self._move_lane(lane)
        finally:
            del self._toks, self._plan, self._pull

    def extent(self) -> tuple[float, float]:
        lo, hi = 1e18, -1e18
        for rank in self.ranks:
            for it in rank:
                a, b = _inner(it)
                lo = min(lo, it.pos - a)
                hi = max(hi, it.pos + b)
        for lane in self.lanes.values():
            if lane.ranks:
                lo = min(lo, lane.open)
                hi = max(hi, lane.open + lane.size)
        return lo, hi

    def shift(self, delta: float) -> None:
        for rank in self.ranks:
            for it in rank:
                it.pos += delta
        for lane in self.lanes.values():
            lane.open += delta
