"""Where connector labels land in whole figures (``scene/labels.py``), as a reader
checks them: an exit label beside its own decision, a label off every other line,
a label beside its own line and not past its boxes.  Each case is a figure a
reviewer read wrongly before the rule it names."""

from __future__ import annotations

import math

import pytest

from markmcp.figdown.render import build
from markmcp.figdown.render import scene as scene_mod
from markmcp.figdown.render.scene.free import seg_hits_rect


@pytest.fixture
def placed(monkeypatch):
    """Build a source and give back its scenes as labelled (boxes, routes, labels)."""
    def run(src: str):
        seen = []
        real = scene_mod._labels

        def spy(scene):
            board = real(scene)
            seen.append(scene)
            return board

        monkeypatch.setattr(scene_mod, "_labels", spy)
        result = build(src)
        assert result.svg, result.error_lines()
        monkeypatch.setattr(scene_mod, "_labels", real)
        return seen
    return run


def _rect_point_gap(r, p) -> float:
    dx = max(r[0] - p[0], 0.0, p[0] - r[2])
    dy = max(r[1] - p[1], 0.0, p[1] - r[3])
    return math.hypot(dx, dy)


def _mid(scene, text):
    (link,) = [lk for lk in scene.links if lk.mid == text]
    return link, link.mid_label


RETRY = """figdown 0.2 flowchart
flow down
terminator go "Begin"
process fetch "Fetch the batch"
decision valid "Schema valid?"
process load "Load rows"
decision counted "Counts match?"
process publish "Publish"
terminator end "End"
flowline go -> fetch
flowline fetch -> valid
flowline valid -[yes]-> load
flowline valid -[no]-> end
flowline load -> counted
flowline counted -[yes]-> publish
flowline counted -[no]-> fetch
flowline publish -> end
"""


def test_an_exit_label_stands_where_its_line_leaves_its_decision(placed) -> None:
    """A "no" leaving the first decision was drawn beside the second one, 150 px on,
    where the second seemed to have two "no" exits."""
    (scene,) = placed(RETRY)
    for link in scene.links:
        if link.mid and scene.nodes[link.a].shape == "diamond":
            gap = _rect_point_gap(link.mid_label.rect, link.points[0])
            assert gap <= 20.0, (link.a, link.mid, gap)


def test_a_diamond_is_read_as_its_outline_not_its_box() -> None:
    """An exit label may stand in the empty corner of a decision's bounding box."""
    from markmcp.figdown.render.scene.labels import Board, outline_rects
    rect = (0.0, 0.0, 200.0, 100.0)
    board = Board([rect], {}, solid=outline_rects(rect, 1.0))
    assert board.cost((4.0, 80.0, 30.0, 96.0), None, (17.0, 88.0)) < 5.0   # lower-left corner
    assert board.cost((90.0, 40.0, 110.0, 60.0), None, (100.0, 50.0)) >= 1000.0
    assert outline_rects(rect, math.inf) == [rect]
