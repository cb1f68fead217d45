"""Runs drawn one on the other (``scene/unshare.py``): two connectors sharing more than
SHARED px of one level or upright line are parted by sliding a step between two bends."""

from __future__ import annotations

from types import SimpleNamespace

from markmcp.figdown.render.scene.free import Boxes
from markmcp.figdown.render.scene.unshare import GAP, SHARED, _run, _overlap, unshare


def _scene(*ends, buses=()):
    links = [SimpleNamespace(index=k, a=a, b=b, bus=(buses[k] if k < len(buses) else None))
             for k, (a, b) in enumerate(ends)]
    return SimpleNamespace(links=links)


def _shared(paths) -> list[tuple[int, int]]:
    found = []
    keys = sorted(paths)
    for n, li in enumerate(keys):
        for lj in keys[n + 1:]:
            for i in range(len(paths[li]) - 1):
                for j in range(len(paths[lj]) - 1):
                    a, b = _run(paths[li], i), _run(paths[lj], j)
                    if a is not None and b is not None and _overlap(a, b) > SHARED:
                        found.append((li, lj))
    return found


# the core switch's two links of 060: the first steps down onto the second's run
CORE = {0: [(351.0, 40.0), (414.0, 40.0), (414.0, 51.0), (528.0, 51.0)],
        1: [(351.0, 50.0), (466.0, 50.0), (466.0, 147.0), (492.0, 147.0)]}


def test_a_step_onto_another_run_slides_past_it() -> None:
    paths = {k: list(v) for k, v in CORE.items()}
    unshare(_scene(("core", "vms"), ("core", "pa")), paths, Boxes([]))
    assert _shared(paths) == []
    # the step slid along, to GAP px past the other's run; the other is as it was
    assert paths[0] == [(351.0, 40.0), (466.0 + GAP, 40.0), (466.0 + GAP, 51.0), (528.0, 51.0)]
    assert paths[1] == CORE[1]


def test_a_slide_through_a_box_is_not_taken() -> None:
    paths = {k: list(v) for k, v in CORE.items()}
    boxes = [("over", (400.0, 30.0, 470.0, 45.0)),    # over the run the first one's slide grows
             ("under", (400.0, 60.0, 416.0, 80.0))]   # under the step the second's would move
    unshare(_scene(("core", "vms"), ("core", "pa")), paths, Boxes(boxes))
    assert paths == CORE


def test_an_end_on_a_box_never_moves() -> None:
    """A step at a connector's first run would move its end along its box: the runs
    stay shared rather than that (a port is placed by the ends beside it)."""
    paths = {0: [(0.0, 0.0), (0.0, 10.0), (100.0, 10.0)], 1: [(0.0, 10.5), (100.0, 10.5)]}
    unshare(_scene(("p", "q"), ("p", "q")), paths, Boxes([]))
    assert paths == {0: [(0.0, 0.0), (0.0, 10.0), (100.0, 10.0)], 1: [(0.0, 10.5), (100.0, 10.5)]}


def test_the_members_of_one_merge_bus_keep_their_trunk() -> None:
    paths = {k: list(v) for k, v in CORE.items()}
    unshare(_scene(("core", "vms"), ("core", "pa"), buses=("bus", "bus")), paths, Boxes([]))
    assert paths == CORE


def test_a_slide_that_would_cross_more_lines_is_not_taken() -> None:
    """Each of the two runs crosses the other once where they meet; either slide parts
    them, and is refused where it would cross three lines instead."""
    paths = {k: list(v) for k, v in CORE.items()}
    ends = [("core", "vms"), ("core", "pa")]
    for x in (430.0, 440.0, 450.0):   # down across the run the first one's slide grows
        paths[len(paths)] = [(x, 0.0), (x, 45.0)]
        ends.append(("x", "y"))
    for y in (90.0, 100.0, 110.0):    # across where the second one's step would move to
        paths[len(paths)] = [(380.0, y), (420.0, y)]
        ends.append(("x", "y"))
    before = {k: list(v) for k, v in paths.items()}
    unshare(_scene(*ends), paths, Boxes([]))
    assert paths == before
    del paths[2], paths[5]   # two lines fewer each way: as many crossings as before, taken
    unshare(_scene(*ends), paths, Boxes([]))
    assert _shared({0: paths[0], 1: paths[1]}) == []


def _drawn_shared(src: str, monkeypatch) -> list[tuple[str, str]]:
    """The pairs of connectors of a drawn figure sharing a run, members of one merge bus
    aside (read off the scene as laid out, where the bus is known)."""
    from markmcp.figdown.render import build
    from markmcp.figdown.render import scene as scene_mod

    seen = []
    real = scene_mod._settle

    def spy(scene, model, y0, text=True):
        out = real(scene, model, y0, text)
        if text:
            seen.append(out[0])
        return out

    monkeypatch.setattr(scene_mod, "_settle", spy)
    assert build(src).svg is not None
    monkeypatch.setattr(scene_mod, "_settle", real)
    found = []
    for scene in seen:
        links = [lk for lk in scene.links if len(lk.points) >= 2 and lk.a != lk.b]
        for n, la in enumerate(links):
            for lb in links[n + 1:]:
                if la.bus is not None and la.bus == lb.bus:
                    continue
                if any(_overlap(a, b) > SHARED
                       for a in (_run(la.points, i) for i in range(len(la.points) - 1)) if a is not None
                       for b in (_run(lb.points, j) for j in range(len(lb.points) - 1)) if b is not None):
                    found.append((f"{la.a}->{la.b}", f"{lb.a}->{lb.b}"))
    return found


def test_the_conformance_corpus_draws_no_two_connectors_on_one_run(monkeypatch) -> None:
    from conftest import shared_dir
    from markmcp.figdown.render import build

    found, count = [], 0
    for path in sorted(shared_dir("figdown", "conformance").rglob("*.fd")):
        src = path.read_bytes().decode("utf-8")
        if build(src).svg is None:
            continue
        count += 1
        found += [(path.name, hit) for hit in _drawn_shared(src, monkeypatch)]
    assert count > 100
    assert found == []
