"""Line alignment between the revision a comment was written on and the current text.

:class:`LineAlignment` maps every source line that survives *unchanged* to its
target line:

1. a longest-common-subsequence diff (``difflib``) gives the in-order backbone;
2. moved text is then recovered: a source line left unmatched whose content occurs
   exactly once in each document (and whose target copy is also unmatched) is
   paired with it, and the pairing is extended over equal neighbouring lines.
   A line is not treated as moved when the place it came from now holds a similar
   line (that reads as an edit in place, and the distant copy as new text).

Lines that are not mapped were changed, deleted (source side) or inserted (target
side).  :meth:`LineAlignment.region` gives, for a run of source lines, the target
lines that now sit between its nearest surviving neighbours: where an edited
version of the text should be looked for.
"""

from __future__ import annotations

from collections import Counter
from difflib import SequenceMatcher

from rapidfuzz import fuzz

#: Similarity (0..100) above which a line at the original place counts as an edit.
IN_PLACE_RATIO = 60.0
#: Largest region inspected when checking for an in-place edit.
MAX_REGION_CHECK = 64


class LineAlignment:
    """Source line -> target line mapping for unchanged lines (0-based indexes)."""

    def __init__(self, source: list[str], target: list[str]) -> None:
        self.source = source
        self.target = target
        self.forward = [-1] * len(source)
        self.backward = [-1] * len(target)
        matcher = SequenceMatcher(None, source, target, autojunk=len(target) >= 200)
        for block in matcher.get_matching_blocks():
            for k in range(block.size):
                self._pair(block.a + k, block.b + k)
        self._recover_moves()
        self._extend_all()

    def _pair(self, s: int, t: int) -> None:
        self.forward[s] = t
        self.backward[t] = s

    def _recover_moves(self) -> None:
        source_counts = Counter(self.source)
        target_at: dict[str, int] = {}
        target_counts: Counter[str] = Counter()
        for t, text in enumerate(self.target):
            target_counts[text] += 1
            target_at[text] = t
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
