"""Similarity measures and searches for re-anchoring edited text.

Everything here works on plain strings and :class:`~markmcp.mrsf.lines.TextIndex`
documents; scores are floats from 0 to 1.  Similarity comes from ``rapidfuzz``
(normalised Indel ratio over whitespace-collapsed text), so every search is C-speed
per comparison; the searches themselves stay bounded (a window of lines, or a
``process.extract`` short list over the whole document).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from .lines import Span, TextIndex

_WHITESPACE = re.compile(r"\s+")
_NON_SPACE = re.compile(r"\S+")
_WORD = re.compile(r"\w+")

#: How many extra lines (beyond the selection's own count) a fuzzy window may span.
WINDOW_SLACK = 2
#: How many whole-document candidates a global fuzzy search refines.
GLOBAL_SHORTLIST = 8


def collapse(text: str) -> str:
    """Collapse every whitespace run (newlines included) to one space and strip."""
    return _WHITESPACE.sub(" ", text).strip()


def similarity(a: str, b: str) -> float:
    """Similarity of two texts after whitespace collapsing (0..1, case-sensitive)."""
    a, b = collapse(a), collapse(b)
    if not a and not b:
        return 1.0
    return fuzz.ratio(a, b) / 100.0


def words(text: str) -> set[str]:
    """The case-folded word tokens of ``text``."""
    return set(_WORD.findall(text.casefold()))


def word_recall(selection: str, text: str) -> float:
    """Share of the selection's distinct words that still occur in ``text``."""
    wanted = words(selection)
    if not wanted:
        return 0.0
    return len(wanted & words(text)) / len(wanted)


def is_weak(selection: str) -> bool:
    """True for selections too short or plain to identify a place on their own.

    A single word (``source``) or a few characters occur by chance all over a
    document, so an exact hit elsewhere says little about where the comment went.
    """
    return len(_WORD.findall(selection)) < 2 or len(collapse(selection)) < 8


@dataclass(frozen=True)
class Match:
    """A candidate location: its span, the text there and a similarity score."""

    span: Span
    text: str
    score: float


class LooseIndex:
    """A document with whitespace collapsed and letters lower-cased, for loose matching.

    ``positions[i]`` is the offset in the original text of character ``i`` of
    ``self.text``; a collapsed whitespace run maps to its first character.
    """

    def __init__(self, doc: TextIndex) -> None:
        pieces: list[str] = []
        positions: list[int] = []
        for match in _NON_SPACE.finditer(doc.text):
            if pieces:
                pieces.append(" ")
                positions.append(match.start() - 1)
            token = match.group()
            lowered = token.lower()
            pieces.append(lowered)
            if len(lowered) == len(token):
                positions.extend(range(match.start(), match.end()))
            else:
                for offset, char in enumerate(token, match.start()):
                    positions.extend([offset] * len(char.lower()))
        self.text = "".join(pieces)
        self.positions = positions

    @staticmethod
    def key(selection: str) -> str:
        """The loose form of a selection (what is searched for in :attr:`text`)."""
        return " ".join(selection.lower().split())

    def find_all(self, selection: str, limit: int = 64) -> list[tuple[int, int]]:
        """Original-text offset ranges whose loose form equals the selection's."""
        key = self.key(selection)
        found: list[tuple[int, int]] = []
        if not key:
            return found
        start = self.text.find(key)
        while start != -1 and len(found) < limit:
            end = self.positions[start + len(key) - 1] + 1
            found.append((self.positions[start], end))
            start = self.text.find(key, start + 1)
        return found


def line_count(selection: str) -> int:
    """Number of lines a selection spans."""
    return selection.count("\n") + 1


def best_window(
    doc: TextIndex,
    selection: str,
    lo: int,
    hi: int,
    *,
    skip: frozenset[int] | set[int] = frozenset(),
) -> Match | None:
    """Best-scoring run of whole lines inside lines ``lo..hi`` (1-based, inclusive).

    Windows span the selection's own line count give or take :data:`WINDOW_SLACK`
    lines; windows may not start or end on a blank line (unless the selection itself
    is blank there) nor touch a line in ``skip``.  Ties go to the shorter, earlier
    window.
    """
    lo, hi = max(lo, 1), min(hi, doc.line_count)
    if lo > hi:
        return None
    wanted = collapse(selection)
    if not wanted:
        return None
    count = line_count(selection)
    sizes = range(max(1, count - WINDOW_SLACK), count + WINDOW_SLACK + 1)
    lines = doc.lines
    best: Match | None = None
    best_key = (-1.0, 0)
    for first in range(lo, hi + 1):
        if first in skip or not lines[first - 1].strip():
            continue
        for size in sizes:
            last = first + size - 1
            if last > hi:
                break
            if last in skip:
                break
            if not lines[last - 1].strip():
                continue
            text = "\n".join(lines[first - 1:last])
            score = fuzz.ratio(wanted, collapse(text)) / 100.0
            key = (score, -size)
            if key > best_key:
                best_key = key
                best = Match(Span(first, last, 0, len(lines[last - 1])), text, score)
    return best


def global_candidates(
    doc: TextIndex,
    selection: str,
    *,
    lines: list[int] | None = None,
    cutoff: float = 0.4,
) -> list[Match]:
    """Fuzzy candidates for ``selection`` anywhere in ``doc`` (or among ``lines``).

    The selection's longest line is compared with every document line through
    ``rapidfuzz.process.extract``; each short-listed line is then widened into the
    best window around it.  Returns non-overlapping matches, best first.
    """
    probe_lines = [part for part in selection.split("\n")]
    probe_index = max(range(len(probe_lines)), key=lambda i: len(probe_lines[i].strip()))
    probe = collapse(probe_lines[probe_index])
    if not probe:
        return []
    numbers = lines if lines is not None else range(1, doc.line_count + 1)
    choices = {n: collapse(doc.lines[n - 1]) for n in numbers if doc.lines[n - 1].strip()}
    shortlist = process.extract(
        probe, choices, scorer=fuzz.ratio, limit=GLOBAL_SHORTLIST,
        score_cutoff=cutoff * 100.0,
    )
    count = line_count(selection)
    matches: list[Match] = []
    for _choice, _score, number in shortlist:
        first = number - probe_index
        window = best_window(
            doc, selection, first - WINDOW_SLACK, first + count - 1 + WINDOW_SLACK,
        )
        if window is not None:
            matches.append(window)
    matches.sort(key=lambda m: (-m.score, m.span.line))
    distinct: list[Match] = []
    for match in matches:
        if all(
            match.span.end_line < kept.span.line or match.span.line > kept.span.end_line
            for kept in distinct
        ):
            distinct.append(match)
    return distinct
