"""Where a ray from inside a box leaves its drawn outline (``ray_exit``), worked out for
each shape, against the outline's own inside test: just before the answer the ray is
inside, just after it outside.  (It was found by bisection, forty halvings a call, the
most of a check's time spent moving line ends apart.)"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from markmcp.figdown.render.scene.graph import Box, outline_test, ray_exit

SHAPES = ["box", "rounded", "diamond", "ellipse", "circle"]


@settings(max_examples=400, deadline=None)
@given(shape=st.sampled_from(SHAPES), w=st.floats(8, 400), h=st.floats(8, 200),
       fx=st.floats(-0.95, 0.95), fy=st.floats(-0.95, 0.95), angle=st.floats(0, 2 * math.pi))
def test_the_exit_is_where_the_ray_leaves_the_outline(shape, w, h, fx, fy, angle) -> None:
    box = Box(id="n", label="", shape=shape, w=w, h=h if shape != "circle" else w)
    inside = outline_test(box)
    # a start inside: shrink it toward the middle until the outline holds it
    x, y = fx * box.w / 2, fy * box.h / 2
    while not inside(x, y):
        x, y = x * 0.5, y * 0.5
    dx, dy = math.cos(angle), math.sin(angle)
    t = ray_exit(box, x, y, dx, dy)
    assert t >= 0.0
    assert inside(x + (t - 1e-6) * dx, y + (t - 1e-6) * dy) or t < 1e-6
    assert not inside(x + (t + 1e-6) * dx, y + (t + 1e-6) * dy)


def test_a_ray_into_a_rounded_corner_leaves_by_its_arc() -> None:
    box = Box(id="n", label="", shape="rounded", w=100, h=40)
    t = ray_exit(box, 0.0, 0.0, 5.0, 2.0)           # toward the corner (50, 20)
    ex, ey = 5.0 * t, 2.0 * t
    # on the arc round (36, 6), radius 14, short of the square corner
    assert math.isclose((ex - 36) ** 2 + (ey - 6) ** 2, 14 ** 2, rel_tol=1e-9)
    assert ex < 50 and ey < 20


def test_a_ray_that_does_not_move_leaves_where_it_stands() -> None:
    assert ray_exit(Box(id="n", label="", w=10, h=10), 1.0, 2.0, 0.0, 0.0) == 0.0
