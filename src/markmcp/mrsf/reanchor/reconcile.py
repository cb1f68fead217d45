"""Reconciliation: the comments of one document settle each other.

Confidently placed comments are landmarks whose displacement picks the right
one among identical candidates of an otherwise undecided comment."""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from typing import Sequence

from ..lines import Span
from .engine import Engine
from .model import CONFIDENT, LANDMARK_TOLERANCE, LANDMARK_WINDOW, Anchor, Outcome, Placement


def reconcile(anchors: Sequence[Anchor], outcomes: list[Outcome], engine: Engine) -> None:
    """Settle undecided comments by the displacement of their neighbours.

    Each confidently placed comment is a landmark (old line -> new line).  For a
    comment with a stored line and open candidates, a candidate wins when at least
    two nearby landmarks moved by the same amount as that candidate would (within
    :data:`LANDMARK_TOLERANCE` lines, or exactly for ``strict`` outcomes) and no
    landmark supports any other candidate.  Settled comments join the landmarks
    for the next round.

    A placement picked among identical candidates because it sits on the original
    line (``verify``) is checked the other way round: when nearby comments (any
    placed ones, two needed unless the text is short) all moved, the pick is either
    replaced by the candidate they agree on or downgraded to ``fuzzy``.
    """
    landmarks: list[tuple[int, int]] = []
    guesses: list[tuple[int, int]] = []
    for anchor, outcome in zip(anchors, outcomes):
        p = outcome.placement
        if anchor.line is None or p.line is None:
            continue
        guesses.append((anchor.line, p.line - anchor.line))
        if p.confident and p.score >= 0.99:
            landmarks.append((anchor.line, p.line - anchor.line))
    guesses.sort()
    for _round in range(3):
        changed = False
        landmarks.sort()
        for anchor, outcome in zip(anchors, outcomes):
            if outcome.candidates is None or anchor.line is None:
                continue
            if outcome.verify:
                changed = _verify(anchor, outcome, landmarks, guesses, engine) or changed
                continue
            near = _near(landmarks, anchor.line)
            span, count = _backed(outcome, near, anchor.line) if len(near) >= 2 else (None, 0)
            if span is None and outcome.kept:
                moved = _near(guesses, anchor.line, 3 * LANDMARK_WINDOW)
                if len(moved) >= 2 and all(abs(shift) > LANDMARK_TOLERANCE for shift in moved):
                    span, count = outcome.candidates[0], len(moved)
            if span is None:
                continue
            _promote(anchor, outcome, span, count, engine)
            if outcome.placement.confident:
                insort(landmarks, (anchor.line, span.line - anchor.line))
            changed = True
        if not changed:
            break


def _near(shifts: list[tuple[int, int]], line: int, window: int = LANDMARK_WINDOW) -> list[int]:
    """Shifts of the comments within ``window`` lines of ``line`` (``shifts`` sorted)."""
    lo = bisect_left(shifts, (line - window, -(1 << 62)))
    hi = bisect_right(shifts, (line + window, 1 << 62))
    return [shift for old, shift in shifts[lo:hi] if old != line]


def _backed(outcome: Outcome, near: list[int], line: int) -> tuple[Span | None, int]:
    """The one candidate that two or more neighbours' shifts agree with (else None)."""
    assert outcome.candidates is not None
    tolerance = 0 if outcome.strict else LANDMARK_TOLERANCE
    support = [
        sum(1 for shift in near if abs(span.line - line - shift) <= tolerance)
        for span in outcome.candidates
    ]
    backed = [i for i, count in enumerate(support) if count > 0]
    if len(backed) != 1 or support[backed[0]] < 2:
        return None, 0
    return outcome.candidates[backed[0]], support[backed[0]]


def _promote(anchor: Anchor, outcome: Outcome, span: Span, count: int, engine: Engine) -> None:
    assert outcome.candidates is not None
    confident = outcome.promote in CONFIDENT and len(outcome.candidates) <= 3
    outcome.placement = engine.place_match(
        outcome.promote if confident else "fuzzy",
        0.9 if confident else 0.6, span, anchor,
        f"Identical text occurs {len(outcome.candidates)} time(s); "
        f"{count} nearby comments moved the same way as line {span.line}.",
    )
    outcome.candidates = None


def _verify(
    anchor: Anchor, outcome: Outcome, landmarks: list[tuple[int, int]],
    guesses: list[tuple[int, int]], engine: Engine,
) -> bool:
    """Check a pick made by "closest to the original line" against the neighbours."""
    assert anchor.line is not None
    near = _near(guesses, anchor.line)
    needed = 1 if outcome.promote not in CONFIDENT else 2
    if len(near) < needed or any(abs(shift) <= LANDMARK_TOLERANCE for shift in near):
        outcome.candidates = None  # nothing to go by, or the neighbours stayed put too
        return False
    span, count = _backed(outcome, _near(landmarks, anchor.line), anchor.line)
    if span is not None:
        _promote(anchor, outcome, span, count, engine)
        return True
    chosen = outcome.placement
    outcome.placement = Placement(
        "fuzzy", min(chosen.score, 0.6), chosen.line, chosen.end_line,
        chosen.start_column, chosen.end_column, chosen.text,
        "Identical text at the original line, but the nearby comments all moved; "
        "it may be another copy.",
    )
    outcome.candidates = None
    return True
