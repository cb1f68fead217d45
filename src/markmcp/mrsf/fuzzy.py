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

_WORD = re.compile(r"\w+")

#: How many extra lines (beyond the selection's own count) a fuzzy window may span.
WINDOW_SLACK = 2
#: How many whole-document candidates a global fuzzy search refines.
GLOBAL_SHORTLIST = 8


def collapse(text: str) -> str:
    """Collapse every whitespace run (newlines included) to one space and strip."""
    return " ".join(text.split())


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
    """Finds text equal to a selection up to whitespace runs and letter case.

    The selection's words become a case-insensitive pattern joined by ``\\s+``.
    To avoid scanning the whole document with a regular expression per comment,
    the selection's longest word is first located with a plain substring search
    in a lower-cased copy of the document, and the pattern is tried only around
    those hits (falling back to a full scan when the word is very common).
    """

    #: More hits of the probe word than this and a full regular-expression scan is cheaper.
    MAX_PROBES = 64

    def __init__(self, doc: TextIndex) -> None:
        self.text = doc.text
        lowered = doc.text.lower()
        self.lowered = lowered if len(lowered) == len(doc.text) else None

    def find_all(self, selection: str, limit: int = 64,
                 near: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
        """Original-text offset ranges whose loose form equals the selection's.

        ``near``: (start, end) offset ranges one of which every match overlaps (the
        lines holding one of the selection's inner words); only those are searched.
        """
        tokens = selection.split()
        if not tokens:
            return []
        pattern = re.compile(r"\s+".join(map(re.escape, tokens)), re.IGNORECASE)
        if near is not None:
            reach = 4 * len(selection) + 64
            found: set[tuple[int, int]] = set()
            for lo, hi in near:
                for m in pattern.finditer(self.text, max(0, lo - reach), hi + reach):
                    if m.start() < hi and m.end() > lo:
                        found.add(m.span())
            return sorted(found)[:limit]
        probe = max(tokens, key=len).lower()
        hits: list[int] = []
        if self.lowered is not None and len(probe) == len(max(tokens, key=len)):
            at = self.lowered.find(probe)
            while at != -1 and len(hits) <= self.MAX_PROBES:
                hits.append(at)
                at = self.lowered.find(probe, at + 1)
        else:
            hits = [-1] * (self.MAX_PROBES + 1)
        if len(hits) > self.MAX_PROBES:
            spans = [m.span() for m in pattern.finditer(self.text)]
        else:
            reach = 4 * len(selection) + 64  # room for longer whitespace runs in the text
            found: set[tuple[int, int]] = set()
            for at in hits:
                lo = max(0, at - reach)
                for m in pattern.finditer(self.text, lo, at + reach):
                    if m.start() <= at < m.end():
                        found.add(m.span())
            spans = sorted(found)
        return spans[:limit]


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


def collapsed_lines(doc: TextIndex, numbers: list[int] | None = None) -> dict[int, str]:
    """Whitespace-collapsed text of the non-blank lines (all, or those numbered), by number.

    Built once per document and handed to :func:`global_candidates`, which would
    otherwise redo it for every comment.
    """
    if numbers is None:
        numbers = list(range(1, doc.line_count + 1))
    lines = doc.lines
    return {n: collapse(lines[n - 1]) for n in numbers if lines[n - 1].strip()}


def global_candidates(
    doc: TextIndex,
    selection: str,
    *,
    choices: dict[int, str] | None = None,
    cutoff: float = 0.4,
    partial: bool = False,
) -> list[Match]:
    """Fuzzy candidates for ``selection`` anywhere in ``doc`` (or among ``choices``).

    The selection's longest line is compared with every candidate line (``choices``
    maps line numbers to collapsed text, see :func:`collapsed_lines`) through
    ``rapidfuzz.process.extract``; each short-listed line is then widened into the
    best window around it.  Returns non-overlapping matches, best first.

    ``partial`` (a one-line selection that was part of its line): lines are scored by
    their best-matching part (``fuzz.partial_ratio``) and each match is its whole line.
    """
    probe_lines = [part for part in selection.split("\n")]
    probe_index = max(range(len(probe_lines)), key=lambda i: len(probe_lines[i].strip()))
    probe = collapse(probe_lines[probe_index])
    if not probe:
        return []
    if choices is None:
        choices = collapsed_lines(doc)
    shortlist = process.extract(
        probe, choices, scorer=fuzz.partial_ratio if partial else fuzz.ratio,
        limit=GLOBAL_SHORTLIST, score_cutoff=cutoff * 100.0,
    )
    count = line_count(selection)
    matches: list[Match] = []
    if partial and count == 1:
        for _choice, score, number in shortlist:
            line = doc.lines[number - 1]
            matches.append(Match(Span(number, number, 0, len(line)), line, score / 100.0))
        matches.sort(key=lambda m: (-m.score, m.span.line))
        return matches
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
