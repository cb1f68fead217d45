"""The junction dots of a merge bus are found by an index, not a walk over every segment.

Found by the review of unbounded drawings: 100 boxes in a chain and 8,000 connectors from
the last back to the first (160 KB of source) took 115 s, all of it asking, for each bend
of each member of the one bus they share, whether it lies inside a segment of every other
member.  The index must answer exactly what that walk answered.
"""

from __future__ import annotations


from hypothesis import given, settings
from hypothesis import strategies as st

from markmcp.figdown.render import build
from markmcp.figdown.render.scene import _Segments


def walked(v, index: int, links: list, paths: dict[int, list]) -> bool:
    """The answer the walk gave: strictly inside a segment of another member."""
    def inside(p, q) -> bool:
        if abs(p[0] - q[0]) < 0.01 and abs(v[0] - p[0]) < 0.01:
            return min(p[1], q[1]) + 0.5 < v[1] < max(p[1], q[1]) - 0.5
        if abs(p[1] - q[1]) < 0.01 and abs(v[1] - p[1]) < 0.01:
            return min(p[0], q[0]) + 0.5 < v[0] < max(p[0], q[0]) - 0.5
        return False
    return any(inside(p, q) for other in links if other.index != index
               for p, q in zip(paths[other.index], paths[other.index][1:]))


class Member:
    def __init__(self, index: int) -> None:
        self.index = index


# coordinates on a coarse grid, nudged by less and more than the 0.01 px tolerance and
# around the 0.5 px kept from a segment's ends
COORD = st.builds(lambda base, nudge: base + nudge, st.integers(0, 6).map(float),
                  st.sampled_from([0.0, 0.0, 0.0, 0.004, -0.004, 0.009, 0.011, -0.011, 0.5, -0.5, 0.51, 0.49]))
POINT = st.tuples(COORD, COORD)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(POINT, min_size=2, max_size=6), min_size=1, max_size=6), st.lists(POINT, max_size=8))
def test_the_index_answers_what_the_walk_answered(polylines: list, probes: list) -> None:
    links = [Member(k) for k in range(len(polylines))]
    paths = {k: pts for k, pts in enumerate(polylines)}
    index = _Segments(links, paths)
    for link in links:
        for v in list(paths[link.index]) + probes:
            assert index.inside_another(v, link.index) == walked(v, link.index, links, paths), (v, link.index)


def test_thousands_of_connectors_on_one_bus_draw() -> None:
    # (their speed, 0.5 s where the walk over every pair took 19 s, is measured by the
    # benchmarks, never asserted by a test's clock)
    n = 100
    source = ("figdown 0.1 block\n" + "".join(f"node n{i}\n" for i in range(n))
              + "".join(f"edge n{i} -> n{i + 1}\n" for i in range(n - 1))
              + "".join(f"edge n{n - 1} -> n0\n" for _ in range(4000)))
    svg = build(source).svg
    assert svg is not None and svg.count("<circle") > 1000       # the members' junction dots
