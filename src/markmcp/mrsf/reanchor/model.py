"""What re-anchoring reads and answers: anchors, placements, and the thresholds its
stages share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..lines import Span

STATUSES = ("anchored", "shifted", "fuzzy", "ambiguous", "orphaned")
CONFIDENT = frozenset({"anchored", "shifted"})

#: Default minimum similarity for a fuzzy placement.
DEFAULT_THRESHOLD = 0.6
#: Distance (lines) beyond which a lone exact hit is doubted if the original place
#: still resembles the selection.
PROXIMITY_WINDOW = 5
#: Lines searched around the original position for an edited version of the text.
LOCAL_RADIUS = 8
#: Word recall (share of the selection's words still present) marking an in-place edit.
STRONG_RECALL = 0.6
#: Weaker recall that still makes the original place plausible when nothing better exists.
WEAK_RECALL = 0.5
#: Word recall a fuzzy candidate needs (selections of three words or more).
FUZZY_RECALL = 0.6
#: Similarity floor for that weaker, last-resort in-place placement.
WEAK_SIMILARITY = 0.4
#: A line-level fuzzy match is narrowed to part of its line only when the line is
#: longer than this many times the selection.
FUZZY_PART_REACH = 1.3
#: Scores closer than this make two fuzzy candidates indistinguishable.
TIE_MARGIN = 0.05
#: How far (source lines) a landmark may be from a comment and still vote.
LANDMARK_WINDOW = 30
#: Shift difference (lines) within which a landmark agrees with a candidate.
LANDMARK_TOLERANCE = 2


@dataclass(frozen=True)
class Anchor:
    """Where a comment was attached, as its sidecar records it (every field optional).

    ``line``/``end_line`` are 1-based (end inclusive); ``start_column`` /
    ``end_column`` are 0-based (end exclusive); ``selected_text`` may span lines.
    """

    line: int | None = None
    end_line: int | None = None
    start_column: int | None = None
    end_column: int | None = None
    selected_text: str | None = None

    @classmethod
    def from_comment(cls, comment: Mapping[str, Any]) -> "Anchor":
        """Build an anchor from a sidecar comment, ignoring missing or ill-typed fields."""
        if not isinstance(comment, Mapping):
            return cls()
        line = _integer(comment.get("line"), 1)
        end_line = _integer(comment.get("end_line"), 1)
        if line is None or (end_line is not None and end_line < line):
            end_line = None
        text = comment.get("selected_text")
        return cls(
            line=line,
            end_line=end_line,
            start_column=_integer(comment.get("start_column"), 0),
            end_column=_integer(comment.get("end_column"), 0),
            selected_text=text if isinstance(text, str) and text else None,
        )


def _integer(value: Any, minimum: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        return None
    return value


@dataclass(frozen=True)
class Placement:
    """Where a comment belongs in the target text, and how sure the engine is.

    ``line``/``end_line`` (1-based, end inclusive) are set for ``anchored``,
    ``shifted`` and ``fuzzy`` placements (except document-level comments) and are
    None for ``ambiguous`` and ``orphaned`` ones.  ``start_column``/``end_column``
    (0-based, end exclusive) are set when the placement is narrower than whole
    lines or the anchor itself had columns; otherwise None (line-level).  ``text``
    is the document text of exactly that range (what ``anchored_text`` should
    record), ``score`` the confidence from 0 to 1 and ``reason`` one sentence
    saying why.
    """

    status: str
    score: float
    line: int | None = None
    end_line: int | None = None
    start_column: int | None = None
    end_column: int | None = None
    text: str | None = None
    reason: str = ""

    @property
    def confident(self) -> bool:
        """True for ``anchored`` and ``shifted``: the engine vouches for the position."""
        return self.status in CONFIDENT


@dataclass
class Outcome:
    """A placement plus the candidates reconciliation may still pick from.

    ``candidates`` is set for ambiguous placements and for comments kept at their
    stored position although identical text exists elsewhere.  ``promote`` is the
    status a candidate gets when neighbours single it out; ``strict`` demands that
    they agree on the displacement exactly (used when overriding a kept position).
    ``verify`` marks a placement already chosen among identical candidates (the one
    on the original line): neighbours may confirm it, move it or cast doubt on it.
    ``kept`` marks a comment kept at its stored line although its text occurs exactly
    once elsewhere: when the nearby comments all moved, that place is stale and the
    exact match wins.
    """

    placement: Placement
    candidates: list[Span] | None = None
    promote: str = "anchored"
    strict: bool = False
    verify: bool = False
    kept: bool = False
