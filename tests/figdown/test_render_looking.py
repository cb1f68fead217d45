"""What one scene's labels and notes may look at is bounded.

Two hundred labelled transitions between three states, each with a note (a shape the
fuzzer found), had every label and note weigh every place beside a bundle of two
hundred lines: 2.9 million segments looked at, 12 s.  Past what a figure of its size
may look at (``WORK_BASE`` + ``WORK_EACH`` per box and connector), each label or note
takes the first place it finds; no figure of the corpus, upstream's examples or the
review sets comes near that, so they are drawn as before.  Counted, not timed.
"""

from __future__ import annotations

from markmcp.figdown.render import build
from markmcp.figdown.render.scene import labels


def _boards(monkeypatch) -> list:
    made = []
    real = labels.Board.__init__

    def counted(self, *args, **kwargs):
        real(self, *args, **kwargs)
        made.append(self)
    monkeypatch.setattr(labels.Board, "__init__", counted)
    return made


def test_a_bundle_of_two_hundred_labelled_transitions_looks_at_a_bounded_number_of_segments(monkeypatch) -> None:
    boards = _boards(monkeypatch)
    src = ("figdown 0.3 statechart\nstate a \"Armed\"\nstate b \"Busy\"\nstate c \"Cooling\"\n"
           + "".join(f'transition a -["trip {k}"]-> b note="why trip {k} happens"\n' for k in range(200))
           + "transition b -> c\n")
    out = build(src)
    assert out.svg is not None and out.svg.count('data-note-on="edge"') == 200
    assert all(f">trip {k}<" in out.svg for k in (0, 99, 199))          # every label drawn
    assert boards and all(b.work <= 2 * b.work_most for b in boards)   # (it looked at 2.9 million)
    assert any(b.spent() for b in boards)


def test_an_ordinary_figure_never_spends_its_looking(monkeypatch) -> None:
    boards = _boards(monkeypatch)
    src = ("figdown 0.3 statechart\n" + "".join(f'state s{k} "State {k}"\n' for k in range(12))
           + "".join(f'transition s{k} -["event {k}"]-> s{(k * 5 + 1) % 12}\n' for k in range(12))
           + "".join(f'transition s{k} -["back {k}"]-> s{(k + 7) % 12} note="a note on {k}"\n' for k in range(0, 12, 3)))
    assert build(src).svg is not None
    assert boards and not any(b.spent() for b in boards)
    assert max(b.work for b in boards) < labels.WORK_EACH * 24          # far within its allowance
