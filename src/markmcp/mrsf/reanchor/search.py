"""Searching the target text: exact, loose (case and blanks) and by words.

A :class:`Finder` indexes one document once (its lines by the words they hold,
collapsed lines for fuzzy searches) so that a thousand comments cost a thousand
small searches, not a thousand scans of the whole text."""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import defaultdict
from typing import Sequence

from ..fuzzy import LooseIndex, collapsed_lines, words
from .model import FUZZY_RECALL
from ..lines import MAX_OCCURRENCES, Span, TextIndex

_WORD = re.compile(r"\w+")


class Finder:
    """The target document and its search indexes, built when first needed."""

    def __init__(self, target: str) -> None:
        self.doc = TextIndex(target)
        self._loose: LooseIndex | None = None
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

    def exact_spans(self, selection: str) -> list[Span]:
        return [self.doc.span(o, o + len(selection)) for o in self.find_exact(selection)]

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

    def cuts_words(self, span: Span) -> bool:
        """True when a located span starts or ends in the middle of a word."""
        text = self.doc.text
        start = self.doc.offset(span.line, span.start_column)
        end = self.doc.offset(span.end_line, span.end_column)
        if start >= end:
            return False
        return (start > 0 and wordy(text[start - 1]) and wordy(text[start])) or (
            end < len(text) and wordy(text[end - 1]) and wordy(text[end])
        )


def wordy(char: str) -> bool:
    return char.isalnum() or char == "_"


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
