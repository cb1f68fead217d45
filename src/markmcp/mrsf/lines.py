"""The line model MRSF anchors are measured in.

MRSF counts lines the way the reference tools do:

* only CRLF is normalised (every ``\\r\\n`` becomes ``\\n``; a lone ``\\r`` is an
  ordinary character);
* the text is split on ``\\n`` and the first piece is line 1, so a trailing newline
  yields one final empty line;
* columns are 0-based character offsets within a line, and an end column is
  exclusive (``target phrase`` in ``Prefix target phrase`` is columns 7 to 20).

A multi-line range runs from (``line``, ``start_column``) to (``end_line``,
``end_column``); when a column is absent the range starts at the beginning of its
first line or stops at the end of its last line.

:class:`TextIndex` holds one document in this model and converts between
character offsets in the normalised text and (line, column) positions.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

#: Upper bound on the occurrences :meth:`TextIndex.find_all` collects; a selection
#: occurring more often than this is hopelessly ambiguous anyway.
MAX_OCCURRENCES = 256


def normalize_newlines(text: str) -> str:
    """Return ``text`` with every CRLF turned into LF (lone CRs are kept)."""
    return text.replace("\r\n", "\n")


def split_lines(text: str) -> list[str]:
    """Split a document into MRSF lines (index 0 is line 1).

    >>> split_lines("a\\r\\nb\\n")
    ['a', 'b', '']
    """
    return normalize_newlines(text).split("\n")


@dataclass(frozen=True)
class Span:
    """A located range: 1-based lines (end inclusive), 0-based columns (end exclusive)."""

    line: int
    end_line: int
    start_column: int
    end_column: int


@dataclass
class TextIndex:
    """One document, split into lines, with offset <-> position conversion."""

    text: str
    lines: list[str] = field(init=False)
    starts: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.text = normalize_newlines(self.text)
        self.lines = self.text.split("\n")
        starts = [0]
        total = 0
        for line in self.lines[:-1]:
            total += len(line) + 1
            starts.append(total)
        self.starts = starts

    @property
    def line_count(self) -> int:
        """Number of lines (at least 1: the empty document has one empty line)."""
        return len(self.lines)

    @property
    def lines_shown(self) -> int:
        """Number of lines as an editor (and ``wc -l``) counts them, for messages: the empty
        remainder after a final newline is not a line (``"a\\nb\\n"`` has 2, ``""`` none),
        the count the validator, ``add`` and ``status`` give.  :attr:`line_count` keeps
        the model's count (that remainder is line 3 of ``"a\\nb\\n"``), which positions use."""
        return self.line_count - 1 if self.lines[-1] == "" else self.line_count

    def position(self, offset: int) -> tuple[int, int]:
        """Return the 1-based line and 0-based column of a character offset."""
        index = bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index]

    def offset(self, line: int, column: int) -> int:
        """Return the character offset of (line, column), clamping the column to the line."""
        index = min(max(line, 1), self.line_count) - 1
        return self.starts[index] + min(max(column, 0), len(self.lines[index]))

    def span(self, start: int, end: int) -> Span:
        """Convert a half-open offset range into a :class:`Span`."""
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Span(line, end_line, column, end_column)

    def has_line(self, line: int | None) -> bool:
        """True when ``line`` is a line number inside this document."""
        return line is not None and 1 <= line <= self.line_count

    def slice(
        self,
        line: int,
        end_line: int | None = None,
        start_column: int | None = None,
        end_column: int | None = None,
    ) -> str | None:
        """Return the text of a range, or None when its lines are outside the document.

        Columns are clamped to their lines; an absent column means the start of the
        first line or the end of the last one.
        """
        last = line if end_line is None else end_line
        if not (self.has_line(line) and self.has_line(last)) or last < line:
            return None
        start = self.offset(line, start_column or 0)
        if end_column is None:
            end = self.starts[last - 1] + len(self.lines[last - 1])
        else:
            end = self.offset(last, end_column)
        return self.text[start:max(start, end)]

    def find_all(
        self, needle: str, limit: int = MAX_OCCURRENCES, start: int = 0, end: int | None = None,
    ) -> list[int]:
        """Start offsets of (possibly overlapping) occurrences of ``needle``.

        At most ``limit`` offsets are returned; ``start``/``end`` bound the search
        like :meth:`str.find`.
        """
        found: list[int] = []
        if not needle:
            return found
        stop = len(self.text) if end is None else end
        at = self.text.find(needle, start, stop)
        while at != -1 and len(found) < limit:
            found.append(at)
            at = self.text.find(needle, at + 1, stop)
        return found

    def line_offset(self, line: int) -> int:
        """Offset of the start of ``line``, clamped into the document."""
        return self.starts[min(max(line, 1), self.line_count) - 1]
