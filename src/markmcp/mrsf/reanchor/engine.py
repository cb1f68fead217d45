"""The per-document state of one re-anchoring run, and the building blocks every
stage places comments with."""

from __future__ import annotations

import re
from typing import Sequence

from rapidfuzz import fuzz

from ..align import LineAlignment
from ..fuzzy import collapsed_lines, similarity, word_recall
from ..lines import Span, TextIndex
from .model import FUZZY_PART_REACH, STRONG_RECALL, WEAK_SIMILARITY, Anchor, Placement
from .search import Finder, wordy


class Engine:
    """Per-document state shared by every comment of one :func:`reanchor` call: the
    target (with its :class:`Finder`), the source revision and the line alignment
    of the two when the source is known."""

    def __init__(self, target: str, source: str | None, threshold: float) -> None:
        self.find = Finder(target)
        self.doc = self.find.doc
        self.threshold = threshold
        self.src = TextIndex(source) if source is not None else None
        self.alignment = (
            LineAlignment(self.src.lines, self.doc.lines) if self.src is not None else None
        )
        self._unclaimed: dict[int, str] | None = None

    @property
    def unclaimed(self) -> dict[int, str]:
        """Like :attr:`Finder.collapsed`, for target lines not carried over unchanged from the source."""
        if self._unclaimed is None:
            assert self.alignment is not None
            self._unclaimed = collapsed_lines(
                self.doc, [t + 1 for t, s in enumerate(self.alignment.backward) if s == -1],
            )
        return self._unclaimed

    def place(
        self, status: str, score: float, span: Span, reason: str,
        *, columns: bool = True,
    ) -> Placement:
        """A placement at ``span``; columns are dropped when ``columns`` is false."""
        start = span.start_column if columns else None
        end = span.end_column if columns else None
        text = self.doc.slice(span.line, span.end_line, start, end)
        return Placement(
            status, round(score, 4), span.line, span.end_line, start, end, text, reason,
        )

    def place_match(
        self, status: str, score: float, span: Span, anchor: Anchor, reason: str,
    ) -> Placement:
        """Place a located text match; whole-line matches of line-level anchors stay line-level."""
        whole = span.start_column == 0 and span.end_column == len(
            self.doc.lines[span.end_line - 1]
        )
        columns = not whole or anchor.start_column is not None or anchor.end_column is not None
        return self.place(status, score, span, reason, columns=columns)

    def hint_span(self, anchor: Anchor) -> Span | None:
        """The anchor's stored range, clamped to the target, or None if its line is gone."""
        doc = self.doc
        if not doc.has_line(anchor.line):
            return None
        assert anchor.line is not None
        last = min(max(anchor.end_line or anchor.line, anchor.line), doc.line_count)
        start = anchor.start_column
        end = anchor.end_column
        if start is not None:
            start = min(start, len(doc.lines[anchor.line - 1]))
        if end is not None:
            end = min(end, len(doc.lines[last - 1]))
            if last == anchor.line and start is not None and end < start:
                end = start
        return Span(anchor.line, last, -1 if start is None else start, -1 if end is None else end)

    def place_at_hint(
        self, status: str, score: float, hint: Span, reason: str, selection: str | None = None,
    ) -> Placement:
        """A placement at the stored position (keeping only the columns it had).  A fuzzy
        one at a line-level position is narrowed to the part of the line ``selection``
        stands for when that is less than the whole line (see :meth:`aligned_part`)."""
        if status == "fuzzy" and hint.start_column < 0 and hint.end_column < 0:
            part = self.aligned_part(selection, hint, reach=FUZZY_PART_REACH)
            line = self.doc.lines[hint.line - 1]
            if part is not None and (line[:part.start_column].strip() or line[part.end_column:].strip()):
                return self.place(status, round(score, 4), part, reason)
        start = None if hint.start_column < 0 else hint.start_column
        end = None if hint.end_column < 0 else hint.end_column
        text = self.doc.slice(hint.line, hint.end_line, start, end)
        return Placement(status, round(score, 4), hint.line, hint.end_line, start, end, text, reason)

    def place_window(
        self, score: float, span: Span, anchor: Anchor, selection: str | None, reason: str,
    ) -> Placement:
        """A fuzzy placement on whole lines found by similarity.

        A one-line selection found in one line is placed on the part of that line that
        best aligns with it (widened to whole words), so a list marker or the rest of a
        sentence around it is not taken for the anchored text; when that part is the
        whole line, a line-level anchor keeps a line-level placement.  Otherwise an
        anchor with columns gets columns too (the whole range, so stale ones are not
        left behind) and a line-level anchor a line-level placement.
        """
        line_level = anchor.start_column is None and anchor.end_column is None
        # a line-level selection is looked for inside its line only when the line is
        # clearly longer (edits make a sentence somewhat longer or shorter as a whole)
        part = self.aligned_part(selection, span, reach=FUZZY_PART_REACH if line_level else 1.0)
        if part is not None:
            line = self.doc.lines[span.line - 1]
            whole = not line[:part.start_column].strip() and not line[part.end_column:].strip()
            if not (line_level and whole):
                return self.place("fuzzy", score, part, reason)
        if line_level:
            return self.place("fuzzy", score, span, reason, columns=False)
        last = len(self.doc.lines[span.end_line - 1])
        return self.place("fuzzy", score, Span(span.line, span.end_line, 0, last), reason)

    def aligned_part(self, selection: str | None, span: Span, *, reach: float = 1.0) -> Span | None:
        """The part of the single line ``span`` that a one-line ``selection`` stands
        for: the part best aligned with it (widened to whole words) when the line is
        more than ``reach`` times as long, never the line's Markdown prefix (list
        marker, quote, heading) unless the selection starts with one too, nor its
        trailing blanks.  None for other selections and spans, or when nothing is left."""
        if selection is None or "\n" in selection or span.line != span.end_line:
            return None
        line = self.doc.lines[span.line - 1]
        start, end = 0, len(line)
        if len(line) > reach * len(selection):
            aligned = fuzz.partial_ratio_alignment(selection, line)
            if aligned is not None and aligned.score >= self.threshold * 100 \
                    and aligned.dest_end > aligned.dest_start:
                start, end = aligned.dest_start, aligned.dest_end
                while start > 0 and wordy(line[start - 1]) and wordy(line[start]):
                    start -= 1  # widen to whole words: the alignment has the selection's length
                while end < len(line) and wordy(line[end - 1]) and wordy(line[end]):
                    end += 1
                # nor does it start or end in punctuation the selection does not have there
                while start < end and not wordy(line[start]) and wordy(selection[0]):
                    start += 1
                while end > start and not wordy(line[end - 1]) and wordy(selection[-1]):
                    end -= 1
        prefix = _LINE_PREFIX.match(line)
        if prefix is not None and prefix.end() > 0 and not _LINE_PREFIX.match(selection).end():
            start = max(start, prefix.end())
        while end > start and line[end - 1] in " \t":
            end -= 1
        if start >= end:
            return None
        return Span(span.line, span.line, start, end)

    def hint_fits(self, anchor: Anchor, selection: str, hint: Span) -> bool:
        """True when the stored position still looks like a place the selection was edited.

        With columns: the span is intact (not clipped), not blank and word-aligned, as
        when one word replaced another.  Without: the line resembles the selection.
        """
        if anchor.start_column is None or anchor.end_column is None:
            return similarity(selection, self.hint_lines(hint)) >= WEAK_SIMILARITY
        if (hint.start_column, hint.end_column) != (anchor.start_column, anchor.end_column):
            return False
        if hint.line == hint.end_line and hint.start_column >= hint.end_column:
            return False
        text = self.doc.slice(hint.line, hint.end_line, hint.start_column, hint.end_column)
        return bool(text and text.strip()) and not self.find.cuts_words(hint)

    def hint_lines(self, hint: Span) -> str:
        return "\n".join(self.doc.lines[hint.line - 1:hint.end_line])

    def in_place_strength(self, selection: str, hint: Span) -> tuple[float, float]:
        """(word recall, similarity) of the whole lines at the stored position."""
        text = self.hint_lines(hint)
        return word_recall(selection, text), similarity(selection, text)

    def is_edited_in_place(self, selection: str, hint: Span) -> bool:
        recall, sim = self.in_place_strength(selection, hint)
        return recall >= STRONG_RECALL and sim >= self.threshold


#: A line's Markdown prefix: indentation, then quote marks, list markers (with a task
#: box) and a heading's hashes, each followed by blanks (possibly empty).
_LINE_PREFIX = re.compile(r"[ \t]*(?:(?:>|[-*+]|\d{1,9}[.)]|#{1,6})(?:[ \t]+\[[ xX]\])?(?:[ \t]+|$))*")


def featureless(selection: str) -> bool:
    """True for text with (almost) no letters or digits: ``---``, fences, ``1.``."""
    return sum(ch.isalnum() for ch in selection) < 3


def listed(spans: Sequence[Span]) -> str:
    return ", ".join(str(s.line) for s in spans[:8]) + (" ..." if len(spans) > 8 else "")
