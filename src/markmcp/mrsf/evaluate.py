"""Scoring of re-anchoring results against the MRSF evaluation corpus.

A corpus case holds a ``source`` and a ``target`` document and comments with an
``anchor`` (measured in the source) and an ``expected`` outcome (measured in the
target).  Scoring follows the reference evaluator:

* *status correct* - the returned status equals ``expected.status``;
* *range correct* - true when nothing is expected; otherwise the returned range,
  each missing field filled in from the anchor (line -> anchor line, end line ->
  anchor end line or the line, columns -> anchor columns), must equal one of the
  expected ranges on ``line`` and on every other field that range specifies;
* *passed* - both;
* *incorrect confident relocation* - ``anchored``/``shifted`` returned while the
  expected outcome is ``ambiguous``/``orphaned`` or the range is wrong.

This module is pure: the caller reads the case files and passes document text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .lines import normalize_newlines
from .reanchor import CONFIDENT, Anchor, Placement, reanchor

RANGE_FIELDS = ("end_line", "start_column", "end_column")


@dataclass(frozen=True)
class CommentScore:
    """How one comment fared."""

    case_id: str
    comment_id: str
    expected: str
    placement: Placement
    status_ok: bool
    range_ok: bool

    @property
    def passed(self) -> bool:
        return self.status_ok and self.range_ok

    @property
    def incorrect_confident(self) -> bool:
        if self.placement.status not in CONFIDENT:
            return False
        return self.expected in ("ambiguous", "orphaned") or not self.range_ok

    @property
    def verdict(self) -> str:
        """``correct``, ``incorrect-confident`` or ``acceptable`` (wrong but not confident)."""
        if self.passed:
            return "correct"
        if self.incorrect_confident:
            return "incorrect-confident"
        return "acceptable"


@dataclass(frozen=True)
class Summary:
    """Totals over a set of scored comments."""

    cases: int
    comments: int
    passed: int
    status_matches: int
    range_matches: int
    incorrect_confident: int

    @property
    def failed(self) -> int:
        return self.comments - self.passed

    @property
    def pass_rate(self) -> float:
        return self.passed / self.comments if self.comments else 1.0


def range_correct(anchor: Mapping[str, Any], expected: Mapping[str, Any], got: Placement) -> bool:
    """The evaluator's range check (see the module docstring)."""
    ranges = expected.get("ranges")
    if not ranges:
        return True
    line = got.line if got.line is not None else anchor.get("line")
    end_line = got.end_line
    if end_line is None:
        end_line = anchor.get("end_line", line)
    actual = {
        "end_line": end_line,
        "start_column": got.start_column if got.start_column is not None
        else anchor.get("start_column"),
        "end_column": got.end_column if got.end_column is not None
        else anchor.get("end_column"),
    }
    for wanted in ranges:
        if wanted.get("line") != line:
            continue
        if all(f not in wanted or wanted[f] == actual[f] for f in RANGE_FIELDS):
            return True
    return False


def score_case(
    case: Mapping[str, Any], source: str, target: str, *, use_source: bool,
    threshold: float = 0.6,
) -> list[CommentScore]:
    """Re-anchor every comment of a case and score each one."""
    comments = case["comments"]
    anchors = [Anchor.from_comment(c["anchor"]) for c in comments]
    placements = reanchor(
        anchors, normalize_newlines(target),
        source=normalize_newlines(source) if use_source else None,
        threshold=threshold,
    )
    scores = []
    for comment, placement in zip(comments, placements):
        expected = comment["expected"]
        scores.append(CommentScore(
            case_id=case["id"],
            comment_id=comment["id"],
            expected=expected["status"],
            placement=placement,
            status_ok=placement.status == expected["status"],
            range_ok=range_correct(comment["anchor"], expected, placement),
        ))
    return scores


def summarize(scores: Sequence[CommentScore]) -> Summary:
    """Totals as the reference evaluator reports them."""
    return Summary(
        cases=len({s.case_id for s in scores}),
        comments=len(scores),
        passed=sum(s.passed for s in scores),
        status_matches=sum(s.status_ok for s in scores),
        range_matches=sum(s.range_ok for s in scores),
        incorrect_confident=sum(s.incorrect_confident for s in scores),
    )
