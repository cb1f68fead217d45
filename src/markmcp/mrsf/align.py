"""Line alignment between the revision a comment was written on and the current text.

:class:`LineAlignment` maps every source line that survives *unchanged* to its
target line:

1. an in-order backbone: common leading and trailing lines, then (recursively,
   inside each remaining gap) the lines that occur exactly once on each side,
   keeping the heaviest in-order subset of them (each weighted by the run of
   equal lines around it); small gaps without such lines fall back to an
   LCS diff (``difflib``);
2. moved text is then recovered: a source line left unmatched whose content occurs
   exactly once in each document (and whose target copy is also unmatched) is
   paired with it, and the pairing is extended over equal neighbouring lines.
   A line is not treated as moved when the place it came from now holds a similar
   line (that reads as an edit in place, and the distant copy as new text).

3. finally every mapped run is grown over equal neighbouring lines.

Lines that are not mapped were changed, deleted (source side) or inserted (target
side).  Queries used by the re-anchoring engine:

* :meth:`~LineAlignment.region` - the target lines that now sit between a source
  run's nearest surviving neighbours: where an edited version should be;
* :meth:`~LineAlignment.counterpart` - the line-for-line counterpart of a source
  line when that passage was rewritten but kept its shape;
* :meth:`~LineAlignment.supported` / :meth:`~LineAlignment.slides` - whether a
  pairing is trustworthy, or a guess the diff had to make (short repetitive
  lines, or a copy right next to an inserted or deleted identical line).
"""

from __future__ import annotations

from collections import Counter
from difflib import SequenceMatcher

from rapidfuzz import fuzz

#: Similarity (0..100) above which a line at the original place counts as an edit.
IN_PLACE_RATIO = 60.0
#: Largest region inspected when checking for an in-place edit.
MAX_REGION_CHECK = 64
#: Largest gap (source lines x target lines) handed to the quadratic LCS diff.
MAX_DIFF_AREA = 250_000


def _distinctive(line: str) -> bool:
    """A line with enough text to identify its place (not blank, a fence or a rule)."""
    return sum(ch.isalnum() for ch in line) >= 6


def _heaviest_increasing(pairs: list[tuple[int, int]], weights: list[int]) -> list[tuple[int, int]]:
    """The subsequence of ``pairs`` (sorted by source index) with increasing target
    indexes and the largest total weight; ties go to the earlier pairs.

    A Fenwick tree over target ranks gives the best chain ending below each rank,
    so this is O(k log k) for k pairs.
    """
    ranks = {t: r + 1 for r, t in enumerate(sorted(t for _, t in pairs))}
    size = len(ranks)
    tree_best = [0] * (size + 1)
    tree_at = [-1] * (size + 1)
    total = [0] * len(pairs)
    back = [-1] * len(pairs)
    for index, (_s, t) in enumerate(pairs):
        rank = ranks[t]
        best, at = 0, -1
        r = rank - 1
        while r > 0:
            if tree_best[r] > best:
                best, at = tree_best[r], tree_at[r]
            r -= r & -r
        total[index] = best + weights[index]
        back[index] = at
        r = rank
        while r <= size:
            if total[index] > tree_best[r]:
                tree_best[r], tree_at[r] = total[index], index
            r += r & -r
    index = max(range(len(pairs)), key=lambda i: (total[i], -i))
    chain = []
    while index != -1:
        chain.append(pairs[index])
        index = back[index]
    chain.reverse()
    return chain


class LineAlignment:
    """Source line -> target line mapping for unchanged lines (0-based indexes)."""

    def __init__(self, source: list[str], target: list[str]) -> None:
        self.source = source
        self.target = target
        self.forward = [-1] * len(source)
        self.backward = [-1] * len(target)
        self._counts: tuple[Counter[str], Counter[str]] | None = None
        self._backbone(0, len(source), 0, len(target))
        self._recover_moves()
        self._extend_all()

    def _backbone(self, s_lo: int, s_hi: int, t_lo: int, t_hi: int) -> None:
        """Pair the in-order unchanged lines of source[s_lo:s_hi] and target[t_lo:t_hi]."""
        source, target = self.source, self.target
        stack = [(s_lo, s_hi, t_lo, t_hi)]
        while stack:
            s_lo, s_hi, t_lo, t_hi = stack.pop()
            while s_lo < s_hi and t_lo < t_hi and source[s_lo] == target[t_lo]:
                self._pair(s_lo, t_lo)
                s_lo, t_lo = s_lo + 1, t_lo + 1
            while s_lo < s_hi and t_lo < t_hi and source[s_hi - 1] == target[t_hi - 1]:
                self._pair(s_hi - 1, t_hi - 1)
                s_hi, t_hi = s_hi - 1, t_hi - 1
            if s_lo >= s_hi or t_lo >= t_hi:
                continue
            anchors = self._unique_anchors(s_lo, s_hi, t_lo, t_hi)
            if not anchors:
                if (s_hi - s_lo) * (t_hi - t_lo) <= MAX_DIFF_AREA:
                    matcher = SequenceMatcher(
                        None, source[s_lo:s_hi], target[t_lo:t_hi], autojunk=False,
                    )
                    for block in matcher.get_matching_blocks():
                        for k in range(block.size):
                            self._pair(s_lo + block.a + k, t_lo + block.b + k)
                continue
            previous_s, previous_t = s_lo, t_lo
            for s, t in anchors:
                self._pair(s, t)
                stack.append((previous_s, s, previous_t, t))
                previous_s, previous_t = s + 1, t + 1
            stack.append((previous_s, s_hi, previous_t, t_hi))

    def _unique_anchors(
        self, s_lo: int, s_hi: int, t_lo: int, t_hi: int,
    ) -> list[tuple[int, int]]:
        """Heaviest in-order set of lines unique on both sides of the gap."""
        source, target = self.source, self.target
        seen_s: dict[str, int] = {}
        for s in range(s_lo, s_hi):
            text = source[s]
            seen_s[text] = -1 if text in seen_s else s
        seen_t: dict[str, int] = {}
        for t in range(t_lo, t_hi):
            text = target[t]
            seen_t[text] = -1 if text in seen_t else t
        pairs = [
            (s, seen_t[text]) for text, s in seen_s.items()
            if s >= 0 and seen_t.get(text, -1) >= 0 and text.strip()
        ]
        if not pairs:
            return []
        pairs.sort()
        before = self._run_reach(pairs, -1, s_lo - 1, t_lo - 1)
        after = self._run_reach(pairs[::-1], 1, s_hi, t_hi)[::-1]
        weights = [1 + b + a for b, a in zip(before, after)]
        return _heaviest_increasing(pairs, weights)

    def _run_reach(
        self, pairs: list[tuple[int, int]], direction: int, s_end: int, t_end: int,
    ) -> list[int]:
        """For each pair, how many equal lines continue its diagonal in ``direction``.

        ``direction`` is -1 (towards the start, ``pairs`` ascending) or +1 (towards
        the end, ``pairs`` descending); ``s_end``/``t_end`` are the first indexes
        outside the gap that way.  A walk that reaches the previous pair on the same
        diagonal reuses that pair's count, keeping the total work linear.
        """
        source, target = self.source, self.target
        reach = [0] * len(pairs)
        last_on_diagonal: dict[int, int] = {}
        for index, (s, t) in enumerate(pairs):
            previous = last_on_diagonal.get(t - s)
            stop = pairs[previous][0] if previous is not None else s_end
            i, j, count = s + direction, t + direction, 0
            while i != stop and j != t_end and source[i] == target[j]:
                i, j, count = i + direction, j + direction, count + 1
            if previous is not None and i == stop:
                count += 1 + reach[previous]
            reach[index] = count
            last_on_diagonal[t - s] = index
        return reach

    def _line_counts(self) -> tuple[Counter[str], Counter[str]]:
        """How often each line text occurs in the source and in the target."""
        if self._counts is None:
            self._counts = (Counter(self.source), Counter(self.target))
        return self._counts

    def _pair(self, s: int, t: int) -> None:
        self.forward[s] = t
        self.backward[t] = s

    def _recover_moves(self) -> None:
        source_counts, target_counts = self._line_counts()
        target_at = {text: t for t, text in enumerate(self.target)}
        for s, text in enumerate(self.source):
            if self.forward[s] != -1 or not text.strip():
                continue
            if source_counts[text] != 1 or target_counts[text] != 1:
                continue
            t = target_at[text]
            if self.backward[t] != -1 or self._edited_in_place(s, s):
                continue
            self._pair(s, t)
            self._extend(s, t, -1)
            self._extend(s, t, 1)

    def _extend_all(self) -> None:
        """Grow every mapped run over equal, still unmapped neighbours (both directions)."""
        for s in range(len(self.source)):
            if self.forward[s] != -1:
                self._extend(s, self.forward[s], 1)
        for s in range(len(self.source) - 1, -1, -1):
            if self.forward[s] != -1:
                self._extend(s, self.forward[s], -1)

    def _extend(self, s: int, t: int, step: int) -> None:
        s, t = s + step, t + step
        while (
            0 <= s < len(self.source) and 0 <= t < len(self.target)
            and self.forward[s] == -1 and self.backward[t] == -1
            and self.source[s] == self.target[t]
        ):
            self._pair(s, t)
            s, t = s + step, t + step

    def _edited_in_place(self, s_lo: int, s_hi: int) -> bool:
        """True when the region of source lines s_lo..s_hi holds a similar target line."""
        t_lo, t_hi = self.region(s_lo, s_hi)
        if t_hi - t_lo > MAX_REGION_CHECK:
            return False
        wanted = " ".join(self.source[s_lo].split())
        for t in range(t_lo, t_hi):
            if self.backward[t] != -1 or not self.target[t].strip():
                continue
            candidate = " ".join(self.target[t].split())
            if fuzz.ratio(wanted, candidate) >= IN_PLACE_RATIO:
                return True
        return False

    def supported(self, s: int) -> bool:
        """True when mapped line ``s`` is pinned by unchanged neighbours on both sides.

        Short or repetitive lines (blank lines, code fences) are paired by the diff
        wherever they happen to fit; the pairing means something only when, going
        up and going down from it, equal lines with the same displacement continue
        until a line that identifies the place (one with real text, or one that
        occurs once in each document) or the edge of the document.
        """
        t = self.forward[s]
        if t == -1:
            return False
        source_counts, target_counts = self._line_counts()
        shift = t - s
        for step in (-1, 1):
            i = s + step
            while True:
                if not 0 <= i < len(self.source):
                    if not 0 <= i + shift < len(self.target):
                        break  # both documents end here: pinned by the edge
                    return False
                if self.forward[i] != i + shift:
                    return False
                line = self.source[i]
                if line.strip() and line != self.source[s] and (
                    _distinctive(line) or source_counts[line] == target_counts[line] == 1
                ):
                    break
                i += step
        return True

    def slides(self, s: int) -> bool:
        """True when mapped source line ``s`` borders unmapped lines with the same text.

        Inserting ``A X`` before ``A Y`` can equally be read as inserting ``X A``
        after the first ``A`` (and likewise for deletions): which copy of ``A`` is
        the original is then a guess.  Both sides of the mapping are checked.
        """
        t = self.forward[s]
        if t == -1:
            return False
        for lines, back, at in ((self.target, self.backward, t), (self.source, self.forward, s)):
            text = lines[at]
            for step in (-1, 1):
                u = at + step
                while 0 <= u < len(lines) and back[u] == -1:
                    if lines[u] == text:
                        return True
                    u += step
        return False

    def counterpart(self, s_lo: int, s_hi: int) -> tuple[int, int] | None:
        """Target lines holding the same place as source lines s_lo..s_hi in a kept shape.

        When the surviving neighbours on both sides pin the region down and the
        passage between them still has as many non-blank lines as before, its lines
        correspond one to one (rewritten in place).  Returns the target indexes of
        the lines that correspond to ``s_lo`` and ``s_hi``, or None.
        """
        lo, hi, pinned = self._region(s_lo, s_hi)
        if not pinned or not self.source[s_lo].strip() or not self.source[s_hi].strip():
            return None
        gap_lo = self.gap_start(s_lo)
        gap_hi = s_hi + 1
        while gap_hi < len(self.source) and not (
            self.forward[gap_hi] != -1 and self.source[gap_hi].strip()
        ):
            gap_hi += 1
        before = [s for s in range(gap_lo, gap_hi) if self.source[s].strip()]
        after = [
            t for t in range(lo, hi)
            if self.target[t].strip() and self.backward[t] == -1
        ]
        if len(before) != len(after) or len(before) > MAX_REGION_CHECK:
            return None
        return after[before.index(s_lo)], after[before.index(s_hi)]

    def gap_start(self, s_lo: int) -> int:
        """First source index after the nearest mapped, non-blank line above ``s_lo``."""
        for s in range(s_lo - 1, -1, -1):
            if self.forward[s] != -1 and self.source[s].strip():
                return s + 1
        return 0

    def region(self, s_lo: int, s_hi: int) -> tuple[int, int]:
        """Target index range [lo, hi) between the mapped neighbours of s_lo..s_hi.

        Neighbours are the nearest mapped, non-blank source lines outside the run
        (blank lines match too readily to pin anything down).  When the neighbours
        disagree (text moved around them) or enclose far more target text than the
        source had there, only a short stretch beside the nearer neighbour is used.
        See :meth:`pinned` for whether the region is trustworthy.
        """
        return self._region(s_lo, s_hi)[:2]

    def pinned(self, s_lo: int, s_hi: int) -> bool:
        """True when both neighbours exist and agree: the region is where the text was."""
        return self._region(s_lo, s_hi)[2]

    def _region(self, s_lo: int, s_hi: int) -> tuple[int, int, bool]:
        above = below = None
        s_above, s_below = -1, len(self.source)
        for s in range(s_lo - 1, -1, -1):
            if self.forward[s] != -1 and self.source[s].strip():
                above, s_above = self.forward[s], s
                break
        for s in range(s_hi + 1, len(self.source)):
            if self.forward[s] != -1 and self.source[s].strip():
                below, s_below = self.forward[s], s
                break
        lo = 0 if above is None else above + 1
        hi = len(self.target) if below is None else below
        gap = s_below - s_above - 1
        limit = 2 * gap + 20
        if lo <= hi and hi - lo <= limit:
            return lo, hi, above is not None and below is not None
        if lo > hi:
            limit = gap + 2
        if below is None or (above is not None and s_lo - s_above <= s_below - s_hi):
            return lo, min(len(self.target), lo + limit), False
        return max(0, hi - limit), hi, False
