"""Re-anchoring: place review comments in the current text of their document.

This is MRSF §7.3-§7.4 as a pure function: anchors (what a sidecar stores for each
comment) and document text in, one :class:`Placement` per anchor out.  No file or
git access happens here; the caller supplies the current text and, when it knows
it, the ``source`` revision the comments were written against.

Resolution follows the spec's order - exact text, line/column fallback,
contextual fuzzy match, orphan - with one overriding rule: never claim a
confident relocation (``anchored``/``shifted``) on weak evidence.  When the
evidence is split the answer is ``fuzzy`` (a tentative place to review) or
``ambiguous`` (several equally good places; nothing is guessed).

Statuses:

* ``anchored`` - the selected text was found (or, for a line-only comment, the
  line is still there); ``score`` 1.0 unless neighbours were needed to decide;
* ``shifted`` - a line-only comment whose line moved; the source revision's diff
  says where;
* ``fuzzy`` - the text changed; the placement is the most similar text, or the
  original position when the text there was edited in place;
* ``ambiguous`` - several places fit equally well; no position is returned;
* ``orphaned`` - the text is gone; no position is returned.

With ``source`` the engine aligns the two revisions line by line
(:mod:`.align`): unchanged lines map directly, an identical copy elsewhere that
grew out of a *different* source line is not mistaken for the comment's text,
and edited text is searched for where its neighbours now are.  Without
``source`` the same stages run on the target alone, with more conservative
guards.  Afterwards all comments of the document are reconciled together:
confidently placed comments become landmarks whose displacement can pick the
right one among identical candidates of an otherwise ambiguous comment.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right, insort
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from .align import LineAlignment
from .fuzzy import (
    LooseIndex,
    Match,
    best_window,
    collapsed_lines,
    global_candidates,
    is_weak,
    similarity,
    word_recall,
    words,
)
from .lines import MAX_OCCURRENCES, Span, TextIndex, normalize_newlines, split_lines

__all__ = [
    "STATUSES",
    "Anchor",
    "Placement",
    "reanchor",
    "split_lines",
]

_WORD = re.compile(r"\w+")

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


# --------------------------------------------------------------------------- driver


@dataclass
class _Outcome:
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


class _Engine:
    """Per-document state shared by every comment of one :func:`reanchor` call."""

    def __init__(self, target: str, source: str | None, threshold: float) -> None:
        self.doc = TextIndex(target)
        self.threshold = threshold
        self.src = TextIndex(source) if source is not None else None
        self.alignment = (
            LineAlignment(self.src.lines, self.doc.lines) if self.src is not None else None
        )
        self._loose: LooseIndex | None = None
        self._unclaimed: dict[int, str] | None = None
        self._collapsed: dict[int, str] | None = None
        self._word_lines: dict[str, list[int]] | None = None
        self._vocabulary: list[str] | None = None
        self._reversed: list[str] | None = None

    @property
    def loose(self) -> LooseIndex:
        if self._loose is None:
            self._loose = LooseIndex(self.doc)
        return self._loose

    @property
    def collapsed(self) -> dict[int, str]:
        """Collapsed text of every non-blank target line (for whole-document searches)."""
        if self._collapsed is None:
            self._collapsed = collapsed_lines(self.doc)
        return self._collapsed

    @property
    def word_lines(self) -> dict[str, list[int]]:
        """Target line numbers by the (case-folded) words they hold."""
        if self._word_lines is None:
            index: defaultdict[str, list[int]] = defaultdict(list)
            findall = _WORD.findall
            for number, line in enumerate(self.doc.lines, 1):
                if line:
                    for word in set(findall(line.casefold())):
                        index[word].append(number)
            self._word_lines = dict(index)
        return self._word_lines

    def partial_choices(self, selection: str) -> dict[int, str]:
        """The lines that could be (or hold) a fuzzy match of a one-line ``selection``.

        With ``k >= 3`` distinct words a match keeps :data:`FUZZY_RECALL` of them (the
        others are refused later anyway), so a line qualifies when it holds at least
        ``ceil(FUZZY_RECALL * k)`` of them, counted from the word index, rarest words
        first; words too common to look up within a bounded cost each lower that count
        by one instead (when that leaves nothing to require, one of the words looked up
        is required: a passage of nothing but the commonest words is not looked for).
        Shorter selections: lines holding one of their words."""
        wanted = sorted(words(selection))
        if not wanted:
            return self.collapsed
        index = self.word_lines
        wanted.sort(key=lambda w: len(index.get(w, ())))
        need = math.ceil(FUZZY_RECALL * len(wanted)) if len(wanted) >= 3 else 1
        budget = 4096
        counts: dict[int, int] = {}
        for word in wanted:
            numbers = index.get(word, ())
            if len(numbers) > budget:
                need -= 1
                continue
            budget -= len(numbers)
            for number in numbers:
                counts[number] = counts.get(number, 0) + 1
        if need <= 0:
            # the words left are very common: a match must still hold one of the others
            need = 1
        collapsed = self.collapsed
        return {n: collapsed[n] for n in sorted(counts) if counts[n] >= need and n in collapsed}

    def loose_near(self, selection: str) -> list[tuple[int, int]] | None:
        """Offsets near which a loose match of ``selection`` must lie (the lines holding
        the word of it found on the fewest lines, as for :meth:`find_exact`: a loose
        match differs in case and whitespace only, so its words stand as they do in an
        exact one), or None when no word narrows the search."""
        doc = self.doc
        if len(doc.text) < 20_000:
            return None
        limit = max(64, len(doc.text) >> 14)
        choices = self._holding_lines(selection, limit)
        if not choices:
            return None
        numbers = min(choices, key=len)
        if len(numbers) > limit:
            return None
        return [(doc.starts[n - 1], doc.starts[n - 1] + len(doc.lines[n - 1])) for n in numbers]

    @property
    def unclaimed(self) -> dict[int, str]:
        """Like :attr:`collapsed`, for target lines not carried over unchanged from the source."""
        if self._unclaimed is None:
            assert self.alignment is not None
            self._unclaimed = collapsed_lines(
                self.doc, [t + 1 for t, s in enumerate(self.alignment.backward) if s == -1],
            )
        return self._unclaimed

    # ------------------------------------------------------------- building blocks

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
                while start > 0 and _wordy(line[start - 1]) and _wordy(line[start]):
                    start -= 1  # widen to whole words: the alignment has the selection's length
                while end < len(line) and _wordy(line[end - 1]) and _wordy(line[end]):
                    end += 1
                # nor does it start or end in punctuation the selection does not have there
                while start < end and not _wordy(line[start]) and _wordy(selection[0]):
                    start += 1
                while end > start and not _wordy(line[end - 1]) and _wordy(selection[-1]):
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
        return bool(text and text.strip()) and not self.cuts_words(hint)

    def hint_lines(self, hint: Span) -> str:
        return "\n".join(self.doc.lines[hint.line - 1:hint.end_line])

    def in_place_strength(self, selection: str, hint: Span) -> tuple[float, float]:
        """(word recall, similarity) of the whole lines at the stored position."""
        text = self.hint_lines(hint)
        return word_recall(selection, text), similarity(selection, text)

    def is_edited_in_place(self, selection: str, hint: Span) -> bool:
        recall, sim = self.in_place_strength(selection, hint)
        return recall >= STRONG_RECALL and sim >= self.threshold

    def cuts_words(self, span: Span) -> bool:
        """True when a located span starts or ends in the middle of a word."""
        text = self.doc.text
        start = self.doc.offset(span.line, span.start_column)
        end = self.doc.offset(span.end_line, span.end_column)
        if start >= end:
            return False
        return (start > 0 and _wordy(text[start - 1]) and _wordy(text[start])) or (
            end < len(text) and _wordy(text[end - 1]) and _wordy(text[end])
        )

    def exact_spans(self, selection: str) -> list[Span]:
        return [self.doc.span(o, o + len(selection)) for o in self.find_exact(selection)]

    def find_exact(self, selection: str) -> list[int]:
        """Every offset where ``selection`` occurs (as ``TextIndex.find_all``), searched
        only around the lines that can hold it, found in the word index: a word inside
        the selection is a whole word wherever the selection occurs, its first word ends
        a word there and its last word starts one.  A document of N lines is indexed
        once, so a thousand comments cost a thousand small searches, not a thousand
        scans of the whole text."""
        doc = self.doc
        if len(doc.text) < 20_000:
            return doc.find_all(selection)
        limit = max(64, len(doc.text) >> 14)
        choices = sorted(self._holding_lines(selection, limit), key=len)
        if not choices:
            return doc.find_all(selection)
        numbers = choices[0]
        if len(numbers) > limit and len(choices) > 1 and "\n" not in selection:
            # two common words: the lines holding both (a one-line selection's words
            # share its line)
            numbers = sorted(set(numbers).intersection(choices[1]))
        if len(numbers) > limit:
            return doc.find_all(selection)   # common words: one scan is cheaper
        found: set[int] = set()
        size = len(selection)
        text_len = len(doc.text)
        for number in numbers:
            lo = max(0, doc.starts[number - 1] - size)
            hi = min(text_len, doc.starts[number - 1] + len(doc.lines[number - 1]) + size)
            at = doc.text.find(selection, lo, hi)
            while at != -1:
                found.add(at)
                at = doc.text.find(selection, at + 1, hi)
        return sorted(found)[:MAX_OCCURRENCES]

    def _holding_lines(self, selection: str, limit: int) -> list[Sequence[int]]:
        """For each word of ``selection`` that narrows the search, the target lines one
        of which an occurrence of the selection must touch: an inner word's lines, the
        lines of the words ending with the first word (the selection may start inside a
        word), of the words starting with the last one.  A first or last word matching
        many different words, or words on many lines, is left out."""
        index = self.word_lines
        runs = list(_WORD.finditer(selection))
        found: list[Sequence[int]] = []
        seen: set[str] = set()
        for m in runs:
            word = m.group(0).casefold()
            if not _WORD.fullmatch(word):
                continue
            at_start, at_end = m.start() == 0, m.end() == len(selection)
            if at_start and at_end:
                continue                      # one word: it may sit inside any word
            if not at_start and not at_end:
                if word not in seen:
                    seen.add(word)
                    found.append(index.get(word, ()))
                continue
            tokens = self._tokens_ending(word) if at_start else self._tokens_starting(word)
            if tokens is None or sum(len(index[token]) for token in tokens) > limit:
                continue
            found.append(sorted({n for token in tokens for n in index[token]}))
        return found

    #: A first or last word matching more words of the document than this is not looked up.
    _AFFIX_TOKENS = 64

    def _tokens_starting(self, prefix: str) -> list[str] | None:
        """The indexed words starting with ``prefix``, or None when there are too many."""
        if self._vocabulary is None:
            self._vocabulary = sorted(self.word_lines)
        return _affixed(self._vocabulary, prefix, self._AFFIX_TOKENS)

    def _tokens_ending(self, suffix: str) -> list[str] | None:
        """The indexed words ending with ``suffix``, or None when there are too many."""
        if self._reversed is None:
            self._reversed = sorted(word[::-1] for word in self.word_lines)
        reversed_tokens = _affixed(self._reversed, suffix[::-1], self._AFFIX_TOKENS)
        return None if reversed_tokens is None else [token[::-1] for token in reversed_tokens]

    def loose_spans(self, selection: str) -> list[Span]:
        near = self.loose_near(selection)
        return [self.doc.span(a, b) for a, b in self.loose.find_all(selection, near=near)]

    # ------------------------------------------------------------ entry per comment

    def resolve(self, anchor: Anchor) -> _Outcome:
        selection = (
            normalize_newlines(anchor.selected_text) if anchor.selected_text else None
        )
        if selection is None and anchor.line is None:
            return _Outcome(Placement(
                "anchored", 1.0, reason="Document-level comment: nothing to place.",
            ))
        if self.src is not None:
            outcome = self.resolve_with_source(anchor, selection)
            if outcome is not None:
                return outcome
        if selection is None:
            return _Outcome(self.line_only(anchor))
        return self.resolve_text_only(anchor, selection)

    # ------------------------------------------------------------- text-only path

    def line_only(self, anchor: Anchor) -> Placement:
        """A comment with a line but no selected text: keep it if the line exists."""
        doc = self.doc
        assert anchor.line is not None
        if not doc.has_line(anchor.line):
            return Placement(
                "orphaned", 0.0,
                reason=f"Line {anchor.line} is past the end of the document "
                f"({doc.line_count} lines).",
            )
        hint = self.hint_span(anchor)
        assert hint is not None
        clipped = anchor.end_line is not None and hint.end_line < anchor.end_line
        return self.place_at_hint(
            "fuzzy" if clipped else "anchored", 0.5, hint,
            "Line-only comment; its end line was past the end and was clipped."
            if clipped else "Line-only comment; the line still exists (unverified: no "
            "selected text or source revision to compare).",
        )

    def resolve_text_only(self, anchor: Anchor, selection: str) -> _Outcome:
        exact = self.exact_spans(selection)
        if exact:
            return self.choose_among(anchor, selection, exact, "anchored", 1.0, "Exact text")
        loose = self.loose_spans(selection)
        if loose:
            return self.choose_among(
                anchor, selection, loose, "fuzzy", 0.95, "Text equal up to whitespace/case",
            )
        return _Outcome(self.fuzzy_text_only(anchor, selection))

    def choose_among(
        self, anchor: Anchor, selection: str, spans: list[Span],
        status: str, score: float, what: str,
    ) -> _Outcome:
        """§7.4 step 1 over a list of literal candidates, with relocation guards."""
        if status in CONFIDENT and _featureless(selection):
            # Fences, rules, list markers and the like carry no identity of their own.
            status, score, what = "fuzzy", min(score, 0.6), f"{what} (featureless)"
        if anchor.line is None:
            if len(spans) == 1:
                return _Outcome(self.place_match(
                    status, score, spans[0], anchor, f"{what} match (unique).",
                ))
            return _Outcome(Placement(
                "ambiguous", 0.5,
                reason=f"{what} occurs {len(spans)} times and the comment has no line "
                f"to choose by (lines {_lines(spans)}).",
            ))
        at_line = [s for s in spans if s.line == anchor.line]
        common = (len(spans) > 2 and (
            is_weak(selection) or any(self.cuts_words(s) for s in at_line)
        )) or (len(spans) > 1 and _featureless(selection))
        if at_line and common:
            return _Outcome(
                self.place_match(
                    "fuzzy", min(score, 0.6), at_line[0], anchor,
                    f"Short or featureless text that occurs {len(spans)} times; one "
                    "occurrence is at the original line but it cannot be told apart from "
                    "the others.",
                ),
                candidates=spans, promote="fuzzy", strict=True,
            )
        if at_line:
            column = anchor.start_column or 0
            best = min(at_line, key=lambda s: abs(s.start_column - column))
            if (
                len(spans) > 1 and anchor.start_column is not None
                and best.start_column != anchor.start_column
            ):
                return _Outcome(
                    self.place_match(
                        "fuzzy", min(score, 0.7), best, anchor,
                        f"{what} occurs {len(spans)} times; the one on the original line is "
                        "at another column, so it may be a different occurrence.",
                    ),
                    candidates=spans, promote=status, strict=True,
                )
            placement = self.place_match(
                status, score, best, anchor, f"{what} match at the original line.",
            )
            if len(spans) == 1:
                return _Outcome(placement)
            return _Outcome(
                placement, candidates=spans, verify=True, strict=True,
                promote="fuzzy" if is_weak(selection) else status,
            )
        hint = self.hint_span(anchor)
        if hint is not None:
            kept = self.keep_in_place(anchor, selection, hint, spans)
            if kept is not None:
                promote = "fuzzy" if is_weak(selection) else status
                # a unique copy elsewhere is the likelier answer: neighbours that moved
                # about as far as it settle it (exactly as far, among several copies)
                strict = len(spans) > 1 or is_weak(selection)
                return _Outcome(kept, candidates=spans, promote=promote, strict=strict,
                                kept=not strict)
        if len(spans) == 1:
            only = spans[0]
            if status in CONFIDENT and (
                is_weak(selection) or ("\n" not in selection and self.cuts_words(only))
            ):
                return _Outcome(
                    self.place_match(
                        "fuzzy", 0.7, only, anchor,
                        f"The only match (line {only.line}) is short or starts or ends inside "
                        "a word: it may be a chance copy of other text, so the move is tentative.",
                    ),
                    candidates=spans, promote=status, strict=True,
                )
            return _Outcome(self.place_match(
                status, score, only, anchor,
                f"{what} match (unique), moved from line {anchor.line} to {only.line}.",
            ))
        return _Outcome(
            Placement(
                "ambiguous", 0.5,
                reason=f"{what} occurs {len(spans)} times, none at the original line "
                f"{anchor.line} (lines {_lines(spans)}).",
            ),
            candidates=spans, promote="fuzzy" if is_weak(selection) else status,
        )

    def keep_in_place(
        self, anchor: Anchor, selection: str, hint: Span, spans: list[Span],
    ) -> Placement | None:
        """Keep a comment at its stored place when that place looks edited in place.

        A distant identical copy is a weaker clue than a near-identical line right
        where the comment was: the copy is more likely other text that happens to
        match (or was duplicated) than the commented text having moved.
        """
        recall, sim = self.in_place_strength(selection, hint)
        nearest = min(abs(s.line - hint.line) for s in spans)
        if len(spans) == 1 and is_weak(selection):
            if self.hint_fits(anchor, selection, hint):
                return self.place_at_hint(
                    "fuzzy", max(0.3, sim) * 0.6, hint,
                    "The short selection is no longer at its position; a copy elsewhere "
                    f"(line {spans[0].line}) is not enough to move it, kept in place.",
                    selection=selection,
                )
            return self.place_match(
                "fuzzy", 0.6, spans[0], anchor,
                f"The short selection occurs once, at line {spans[0].line}; too little "
                "text to be sure it is the same, so the move is tentative.",
            )
        if recall >= STRONG_RECALL and sim >= self.threshold:
            return self.place_at_hint(
                "fuzzy", sim, hint,
                f"Text at the original line was edited (similarity {sim:.2f}); "
                f"identical text elsewhere (line {_lines(spans)}) treated as a copy.",
                selection=selection,
            )
        if len(spans) == 1 and nearest > PROXIMITY_WINDOW and recall >= WEAK_RECALL \
                and sim >= WEAK_SIMILARITY:
            return self.place_at_hint(
                "fuzzy", sim, hint,
                f"Lone exact match at line {spans[0].line} is far from line {hint.line}, "
                "whose text still resembles the selection; kept in place.",
                selection=selection,
            )
        return None

    def fuzzy_text_only(self, anchor: Anchor, selection: str) -> Placement:
        """§7.4 steps 2-4 without a source revision."""
        hint = self.hint_span(anchor)
        local: Match | None = None
        if hint is not None:
            local = best_window(
                self.doc, selection, hint.line - LOCAL_RADIUS, hint.end_line + LOCAL_RADIUS,
            )
        part = "\n" not in selection and (anchor.start_column is not None or anchor.end_column is not None)
        found = global_candidates(
            self.doc, selection, choices=self.partial_choices(selection) if "\n" not in selection else self.collapsed,
            cutoff=self.threshold, partial=part,
        )
        return self.decide_fuzzy(anchor, selection, hint, local, found)

    def decide_fuzzy(
        self, anchor: Anchor, selection: str, hint: Span | None,
        local: Match | None, found: list[Match],
    ) -> Placement:
        """Pick among a near-origin match and whole-document fuzzy candidates."""
        threshold = self.threshold
        # Similar-looking text that lost most of the selection's words is other text
        # (a sibling list item, a table row of the same shape), not an edit of it.
        floor = FUZZY_RECALL if len(words(selection)) >= 3 else 0.0
        good = [m for m in found if m.score >= threshold and word_recall(selection, m.text) >= floor]
        if local is not None and word_recall(selection, local.text) < floor:
            local = None
        if local is not None and local.score >= threshold:
            rivals = [m for m in good if m.score > local.score + 0.1 and not _overlaps(m, local)]
            if not rivals:
                return self.place_window(
                    local.score, local.span, anchor, selection,
                    f"Similar text near the original position (score {local.score:.2f}).",
                )
        if good:
            best = good[0]
            close = [m for m in good[1:] if m.score >= best.score - TIE_MARGIN]
            if close:
                return Placement(
                    "ambiguous", best.score,
                    reason=f"{len(close) + 1} similar passages (best score {best.score:.2f},"
                    f" lines {_lines([best.span] + [m.span for m in close])}).",
                )
            return self.place_window(
                best.score, best.span, anchor, selection,
                f"Most similar text in the document (score {best.score:.2f}).",
            )
        if hint is not None:
            recall, sim = self.in_place_strength(selection, hint)
            if recall >= max(WEAK_RECALL, floor) and sim >= WEAK_SIMILARITY:
                return self.place_at_hint(
                    "fuzzy", sim, hint,
                    f"Text at the original line still partly matches (similarity {sim:.2f}).",
                    selection=selection,
                )
        return Placement("orphaned", 0.0, reason="The selected text is gone from the document.")

    # ------------------------------------------------------------- source path

    def locate_in_source(self, anchor: Anchor, selection: str) -> Span | None:
        """Where the selection was in the source revision (None if unknown).

        The stored position is checked first; otherwise the occurrence nearest to
        the stored line (searching outwards in widening bands) is taken.  Without a
        stored line the selection must occur exactly once.
        """
        assert self.src is not None
        src = self.src
        if anchor.line is None:
            found = src.find_all(selection, limit=2)
            return src.span(found[0], found[0] + len(selection)) if len(found) == 1 else None
        if src.has_line(anchor.line):
            at = src.offset(anchor.line, anchor.start_column or 0)
            if src.text.startswith(selection, at):
                return src.span(at, at + len(selection))
        column = anchor.start_column or 0
        radius = 64
        while True:
            lo = src.line_offset(anchor.line - radius)
            hi = src.line_offset(anchor.line + radius + 1)
            whole = lo == 0 and hi >= src.starts[-1]
            hits = src.find_all(selection, start=lo, end=len(src.text) if whole else hi)
            if hits or whole:
                break
            radius *= 4
        spans = [src.span(o, o + len(selection)) for o in hits]
        if not spans:
            return None
        return min(
            spans, key=lambda s: (abs(s.line - anchor.line), abs(s.start_column - column)),
        )

    def resolve_with_source(self, anchor: Anchor, selection: str | None) -> _Outcome | None:
        """Resolve using the source revision; None means "fall back to text only"."""
        assert self.src is not None and self.alignment is not None
        if selection is None:
            return self.project_line_only(anchor)
        exact = self.exact_spans(selection)
        if anchor.line is None and len(exact) > 1:
            return _Outcome(Placement(
                "ambiguous", 0.5,
                reason=f"Exact text occurs {len(exact)} times and the comment has no line "
                f"to choose by (lines {_lines(exact)}).",
            ))
        origin = self.locate_in_source(anchor, selection)
        if origin is None:
            return None
        al = self.alignment
        s_lo, s_hi = origin.line - 1, origin.end_line - 1
        mapped = al.forward[s_lo]
        if mapped != -1:
            at = self.doc.starts[mapped] + origin.start_column
            if self.doc.text.startswith(selection, at):
                own = self.doc.span(at, at + len(selection))
                return self.own_exact(anchor, selection, origin, own, exact)
        t_lo, t_hi = al.region(s_lo, s_hi)
        unclaimed = [s for s in exact if al.backward[s.line - 1] == -1]
        local = [s for s in unclaimed if t_lo < s.line <= t_hi]
        remote = [s for s in unclaimed if not t_lo < s.line <= t_hi]
        weak = is_weak(selection)
        if local:
            sure = not _featureless(selection) and (not weak or al.pinned(s_lo, s_hi))
            return self.choose_local(
                anchor, origin, local, t_lo, "anchored" if sure else "fuzzy",
                1.0 if sure else 0.7, "Exact text",
            )
        in_place = self.in_place_match(origin, selection, t_lo, t_hi)
        strong = in_place is not None and in_place[1] >= self.threshold
        if remote:
            if strong:
                assert in_place is not None
                return _Outcome(self.place_in_place(anchor, in_place, remote))
            if len(remote) == 1:
                if weak or ("\n" not in selection and self.cuts_words(remote[0])):
                    return _Outcome(self.place_match(
                        "fuzzy", 0.6, remote[0], anchor,
                        f"The selection occurs once in new text (line {remote[0].line}),"
                        " but it is too short or cut mid-word to be sure it is the same text.",
                    ))
                return _Outcome(self.place_match(
                    "anchored", 1.0, remote[0], anchor,
                    f"Exact text moved from line {origin.line} to line {remote[0].line}.",
                ))
            return _Outcome(
                Placement(
                    "ambiguous", 0.5,
                    reason=f"Exact text occurs {len(remote)} times in new text "
                    f"(lines {_lines(remote)}); none is where the original was.",
                ),
                candidates=remote,
            )
        loose = [
            s for s in self.loose_spans(selection)
            if al.backward[s.line - 1] == -1 or s_lo <= al.backward[s.line - 1] <= s_hi
        ]
        loose_local = [s for s in loose if t_lo < s.line <= t_hi]
        if loose_local:
            return self.choose_local(
                anchor, origin, loose_local, t_lo, "fuzzy", 0.95,
                "Text equal up to whitespace/case",
            )
        if loose and not strong:
            if len(loose) == 1:
                return _Outcome(self.place_match(
                    "fuzzy", 0.9, loose[0], anchor,
                    "Text equal up to whitespace/case moved to line "
                    f"{loose[0].line}.",
                ))
            return _Outcome(Placement(
                "ambiguous", 0.5,
                reason=f"Text equal up to whitespace/case occurs {len(loose)} times "
                f"(lines {_lines(loose)}).",
            ))
        if strong:
            assert in_place is not None
            return _Outcome(self.place_in_place(anchor, in_place, []))
        found = global_candidates(
            self.doc, selection, choices=self.unclaimed, cutoff=self.threshold,
        )
        found = [m for m in found if not _claimed(al, m.span)]
        good = [m for m in found if m.score >= self.threshold]
        if good:
            best = good[0]
            close = [m for m in good[1:] if m.score >= best.score - TIE_MARGIN]
            if close:
                return _Outcome(Placement(
                    "ambiguous", best.score,
                    reason=f"{len(close) + 1} similar passages in new text "
                    f"(lines {_lines([best.span] + [m.span for m in close])}).",
                ))
            return _Outcome(self.place_window(
                best.score, best.span, anchor, selection,
                f"Edited text found in new text at line {best.span.line} "
                f"(score {best.score:.2f}).",
            ))
        if in_place is not None:
            match, score = in_place
            recall = word_recall(selection, self.hint_lines(match.span))
            if recall >= WEAK_RECALL and score >= WEAK_SIMILARITY:
                return _Outcome(self.place_in_place(anchor, in_place, []))
        rewritten = self.rewritten_in_place(anchor, origin, selection)
        if rewritten is not None:
            return _Outcome(rewritten)
        return _Outcome(Placement(
            "orphaned", 0.0,
            reason="The selected text was removed and nothing similar took its place.",
        ))

    def rewritten_in_place(
        self, anchor: Anchor, origin: Span, selection: str,
    ) -> Placement | None:
        """A rewrite in a passage that kept its shape: same slot, same kind of block.

        Unchanged neighbours on both sides, the same number of lines between them,
        the corresponding line of the same Markdown kind (heading level, list item,
        table row, quote, paragraph) and still loosely similar: the text was
        rewritten where it stood.
        """
        assert self.src is not None and self.alignment is not None
        pair = self.alignment.counterpart(origin.line - 1, origin.end_line - 1)
        if pair is None:
            return None
        first, last = pair
        before = self.src.lines[origin.line - 1:origin.end_line]
        after = self.doc.lines[first:last + 1]
        if _block_kind(before[0]) != _block_kind(after[0]):
            return None
        score = similarity("\n".join(before), "\n".join(after))
        if score < WEAK_SIMILARITY:
            return None
        span = Span(first + 1, last + 1, 0, len(after[-1]))
        return self.place_window(
            score, span, anchor, selection,
            f"Rewritten in place (similarity {score:.2f}): its neighbours are unchanged and "
            "the passage between them kept its shape.",
        )

    def own_exact(
        self, anchor: Anchor, selection: str, origin: Span, span: Span, exact: list[Span],
    ) -> _Outcome:
        """The comment's own text survived unchanged (possibly moved).

        Confident unless the diff's pairing is itself a guess: a copy of the line
        right next to an insertion or deletion (either copy could be the original),
        or a short line not pinned down by unchanged neighbours.  Then the placement
        is tentative and neighbours may still settle it.
        """
        hint = self.hint_span(anchor)
        if (
            hint is not None and span.line != hint.line
            and self.alignment is not None and self.alignment.backward[hint.line - 1] == -1
            and self.is_edited_in_place(selection, hint)
        ):
            recall, sim = self.in_place_strength(selection, hint)
            return _Outcome(self.place_at_hint(
                "fuzzy", sim, hint,
                f"New text at the original line resembles the selection (similarity "
                f"{sim:.2f}); the unchanged copy at line {span.line} is treated as moved away.",
                selection=selection,
            ))
        if span.line == origin.line:
            reason = "Exact text unchanged at its position."
        else:
            reason = f"Exact text unchanged, moved from line {origin.line} to {span.line}."
        assert self.alignment is not None
        weak = is_weak(selection)
        assert self.src is not None
        key_line = next(
            (i for i in range(origin.line - 1, origin.end_line) if self.src.lines[i].strip()),
            origin.line - 1,
        )
        if self.alignment.slides(key_line) or (
            weak and not self.alignment.supported(origin.line - 1)
        ):
            return _Outcome(
                self.place_match(
                    "fuzzy", 0.7, span, anchor,
                    "The text is unchanged, but an identical copy borders the edit next to "
                    "it (or nothing distinctive pins it), so this copy may not be the original.",
                ),
                candidates=exact if len(exact) > 1 else None, strict=True,
                promote="fuzzy" if weak or _featureless(selection) else "anchored",
            )
        return _Outcome(self.place_match("anchored", 1.0, span, anchor, reason))

    def choose_local(
        self, anchor: Anchor, origin: Span, spans: list[Span], t_lo: int,
        status: str, score: float, what: str,
    ) -> _Outcome:
        """Pick among candidates inside the edited region the original text was in."""
        assert self.alignment is not None
        offset = origin.line - 1 - self.alignment.gap_start(origin.line - 1)
        expected = t_lo + 1 + offset

        def key(span: Span) -> tuple[int, int]:
            return abs(span.line - expected), abs(span.start_column - origin.start_column)

        ranked = sorted(spans, key=key)
        if len(ranked) > 1 and key(ranked[0]) == key(ranked[1]):
            return _Outcome(
                Placement(
                    "ambiguous", 0.5,
                    reason=f"{what} occurs {len(spans)} times in the edited passage "
                    f"(lines {_lines(spans)}).",
                ),
                candidates=spans,
            )
        return _Outcome(self.place_match(
            status, score, ranked[0], anchor,
            f"{what} kept inside the edited passage (line {ranked[0].line}).",
        ))

    def in_place_match(
        self, origin: Span, selection: str, t_lo: int, t_hi: int,
    ) -> tuple[Match, float] | None:
        """The edited counterpart of the origin's lines in region [t_lo, t_hi).

        Returns the placement range (the selection's columns carried through a
        character alignment when it covered only part of its lines) and the
        similarity of the whole lines, which is what says "same passage, edited".
        """
        assert self.src is not None and self.alignment is not None
        if t_lo >= t_hi:
            return None
        src = self.src
        context = "\n".join(src.lines[origin.line - 1:origin.end_line])
        skip = {
            t + 1 for t in range(t_lo, t_hi)
            if self.alignment.backward[t] != -1 and self.doc.lines[t].strip()
        }
        window = best_window(self.doc, context, t_lo + 1, t_hi, skip=skip)
        if window is None:
            return None
        if context == selection:
            return window, window.score
        start_in = origin.start_column
        end_in = src.offset(origin.end_line, origin.end_column) - src.starts[origin.line - 1]
        ops = Levenshtein.opcodes(context, window.text)
        start = _carry(ops, start_in, False)
        end = max(start, _carry(ops, end_in, True))
        base = self.doc.starts[window.span.line - 1]
        span = self.doc.span(base + start, base + end)
        text = window.text[start:end]
        return Match(span, text, window.score), window.score

    def place_in_place(
        self, anchor: Anchor, in_place: tuple[Match, float], copies: list[Span],
    ) -> Placement:
        match, context_score = in_place
        inline = anchor.start_column is not None or anchor.end_column is not None
        columns = inline or match.span.start_column != 0 or match.span.end_column != len(
            self.doc.lines[match.span.end_line - 1]
        )
        reason = f"Text edited in place (similarity of its lines {context_score:.2f})"
        if copies:
            reason += f"; identical text at line {_lines(copies)} is newer text, not the original"
        return self.place("fuzzy", context_score, match.span, reason + ".", columns=columns)

    def project_line_only(self, anchor: Anchor) -> _Outcome | None:
        """Carry a line-only comment through the diff of source and target."""
        assert self.src is not None and self.alignment is not None
        al = self.alignment
        line = anchor.line
        assert line is not None
        if not self.src.has_line(line):
            return None
        last = min(anchor.end_line or line, self.src.line_count)
        mapped = al.forward[line - 1]
        if mapped != -1:
            end_mapped = al.forward[last - 1]
            new_last = end_mapped + 1 if end_mapped >= mapped else mapped + 1 + (last - line)
            new_last = min(new_last, self.doc.line_count)
            span = Span(mapped + 1, new_last, -1, -1)
            if mapped + 1 == line:
                return _Outcome(self.place_at_hint(
                    "anchored", 1.0, _with_columns(span, anchor),
                    "Line-only comment; the line is unchanged.",
                ))
            return _Outcome(self.place_at_hint(
                "shifted", 1.0, _with_columns(span, anchor),
                f"Line-only comment; the line moved from {line} to {mapped + 1}.",
            ))
        t_lo, t_hi = al.region(line - 1, last - 1)
        context = "\n".join(self.src.lines[line - 1:last])
        window = best_window(self.doc, context, t_lo + 1, t_hi) if context.strip() else None
        if window is not None and window.score >= self.threshold:
            return _Outcome(self.place_window(
                window.score, window.span, anchor, None,
                f"Line-only comment; its line was edited (similarity {window.score:.2f}).",
            ))
        return _Outcome(Placement(
            "orphaned", 0.0, reason=f"Line-only comment; line {line} was removed.",
        ))


#: A line's Markdown prefix: indentation, then quote marks, list markers (with a task
#: box) and a heading's hashes, each followed by blanks (possibly empty).
_LINE_PREFIX = re.compile(r"[ \t]*(?:(?:>|[-*+]|\d{1,9}[.)]|#{1,6})(?:[ \t]+\[[ xX]\])?(?:[ \t]+|$))*")
_BLOCK_MARKER = re.compile(r"\s*(#{1,6}(?=\s)|[-*+](?=\s)|\d+[.)](?=\s)|>|\|)")


def _block_kind(line: str) -> str:
    """The Markdown block marker a line starts with (``p`` for plain text)."""
    match = _BLOCK_MARKER.match(line)
    if match is None:
        return "p"
    marker = match.group(1)
    return "1." if marker[0].isdigit() else marker


def _featureless(selection: str) -> bool:
    """True for text with (almost) no letters or digits: ``---``, fences, ``1.``."""
    return sum(ch.isalnum() for ch in selection) < 3


def _wordy(char: str) -> bool:
    return char.isalnum() or char == "_"


def _with_columns(span: Span, anchor: Anchor) -> Span:
    return Span(
        span.line, span.end_line,
        -1 if anchor.start_column is None else anchor.start_column,
        -1 if anchor.end_column is None else anchor.end_column,
    )


def _carry(ops: Any, position: int, is_end: bool) -> int:
    """Map a character position through Levenshtein opcodes (source -> target)."""
    result = 0
    for op in ops:
        tag, i1, i2, j1, j2 = tuple(op)
        inside = (i1 < position <= i2) if is_end else (i1 <= position < i2)
        if inside:
            if tag == "equal":
                return j1 + (position - i1)
            return j2 if is_end else j1
        if i2 <= position:
            result = j2
    return result


def _affixed(ordered: list[str], prefix: str, most: int) -> list[str] | None:
    """The words of the sorted list ``ordered`` that start with ``prefix``; None when
    more than ``most`` do."""
    at = bisect_left(ordered, prefix)
    found: list[str] = []
    while at < len(ordered) and ordered[at].startswith(prefix):
        if len(found) == most:
            return None
        found.append(ordered[at])
        at += 1
    return found


def _claimed(al: LineAlignment, span: Span) -> bool:
    return any(al.backward[t - 1] != -1 for t in range(span.line, span.end_line + 1)
               if al.target[t - 1].strip())


def _overlaps(a: Match, b: Match) -> bool:
    return not (a.span.end_line < b.span.line or a.span.line > b.span.end_line)


def _lines(spans: Sequence[Span]) -> str:
    return ", ".join(str(s.line) for s in spans[:8]) + (" ..." if len(spans) > 8 else "")


# --------------------------------------------------------------------- reconciliation


def _reconcile(anchors: Sequence[Anchor], outcomes: list[_Outcome], engine: _Engine) -> None:
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


def _backed(outcome: _Outcome, near: list[int], line: int) -> tuple[Span | None, int]:
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


def _promote(anchor: Anchor, outcome: _Outcome, span: Span, count: int, engine: _Engine) -> None:
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
    anchor: Anchor, outcome: _Outcome, landmarks: list[tuple[int, int]],
    guesses: list[tuple[int, int]], engine: _Engine,
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


def reanchor(
    anchors: Sequence[Anchor],
    target: str,
    *,
    source: str | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> list[Placement]:
    """Place every comment of one document in its current text.

    ``anchors`` are the comments' stored anchors, ``target`` the document now,
    ``source`` (optional) the revision the anchors were measured in.  All comments
    of a document should be passed together: neighbours help settle ambiguous
    ones.  ``threshold`` is the minimum similarity (0..1) for a fuzzy placement.
    Returns one :class:`Placement` per anchor, in order (a plain comment mapping is
    accepted in place of an :class:`Anchor` and read with :meth:`Anchor.from_comment`).
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) \
            or not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be a number from 0 to 1, got {threshold!r}")
    if not isinstance(target, str) or not (source is None or isinstance(source, str)):
        raise TypeError("target and source must be document text (str)")
    anchors = [a if isinstance(a, Anchor) else Anchor.from_comment(a) for a in anchors]
    engine = _Engine(target, source, threshold)
    outcomes = [engine.resolve(anchor) for anchor in anchors]
    _reconcile(anchors, outcomes, engine)
    return [outcome.placement for outcome in outcomes]
