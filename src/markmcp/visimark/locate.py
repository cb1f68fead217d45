"""Locator: find a Markdown document's tables, ``vmark`` fences and anchors, with offsets.

Offsets are the contract for every write: each cell, block line and anchor value is
reported as a ``[start, end)`` character span of the original text, so ``fmt`` can
splice values back without ever re-serialising Markdown.  Only top-level constructs
are located (a table inside a list or block quote is prose to VisiMark).

Lines end at ``\\n``, ``\\r\\n`` or a bare ``\\r`` — the three CommonMark line endings.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from dataclasses import dataclass, field
from typing import NamedTuple

NO_FORMULAS_MARKER = "<!--vmark:no-formulas-->"
ANCHOR_PREFIX = "<!--vmark="
ANCHOR_RE = re.compile(
    r"<!--vmark=(?P<sheet>[A-Za-z_][A-Za-z0-9_]*)\.(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"(?:\|(?P<rule>[A-Za-z_][A-Za-z0-9_]*))?-->"
)
FENCE_OPEN_RE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
FENCE_CLOSE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*$")
DELIM_CELL_RE = re.compile(r"^\s*:?-+:?\s*$")
LINE_SPLIT_RE = re.compile(r"(\r\n|\n|\r)")
LIST_MARKER_RE = re.compile(r"^\s{0,3}([-+*]|\d{1,9}[.)])(\s|$)")
ESCAPE_RE = re.compile(r"\\.", re.DOTALL)
STRONG_RE = re.compile(r"(\*\*|__)(.+?)\1")
EMPHASIS_RE = re.compile(r"(?<![\w*])([*_])(?!\s)(.+?)(?<!\s)\1(?![\w*])")
CODE_SPAN_RE = re.compile(r"`+([^`]*)`+")


def split_lines(src: str) -> tuple[list[str], list[int]]:
    """Split on the CommonMark line endings: every line's text (ending excluded) and start
    offset.  A final line ending does not begin another line; an empty text is one line."""
    parts = LINE_SPLIT_RE.split(src)  # text, ending, text, ending, ..., text
    texts = parts[0::2]
    if len(texts) > 1 and not texts[-1]:
        texts.pop()
    starts = [0]
    starts += accumulate(map(len, parts))
    return texts, starts[0 : 2 * len(texts) : 2]


class Cell(NamedTuple):
    """A table cell: ``text`` is its trimmed source, ``plain`` with inline markup resolved."""

    text: str
    start: int
    end: int

    @property
    def plain(self) -> str:
        return plain_text(self.text)


@dataclass
class Table:
    """A top-level GFM table.

    The body is kept as plain tuples, one of cell texts and one of cell start offsets per
    row (a cell ends at its start plus its text's length), every row cut or padded to the
    header's width.  Tuples of strings and ints are invisible to the garbage collector, so
    a table of many rows costs memory, not collection time; ``cell`` makes one ``Cell``.
    """

    header: tuple[Cell, ...]
    texts: list[tuple[str, ...]]
    starts: list[tuple[int, ...]]
    start: int
    end: int
    line: int  # 1-based line of the header row

    @property
    def height(self) -> int:
        """The number of body rows."""
        return len(self.texts)

    def cell(self, row: int, col: int) -> Cell:
        """Body cell ``col`` (0-based) of row ``row`` (0-based)."""
        text = self.texts[row][col]
        start = self.starts[row][col]
        return Cell(text, start, start + len(text))

    def column(self, col: int) -> list[str]:
        """The texts of body column ``col``, top to bottom."""
        return [row[col] for row in self.texts]


@dataclass
class Fence:
    """A fenced code block; ``lines`` are the body lines as (text, start offset)."""

    lang: str
    meta: str
    start: int
    end: int
    line: int
    info_span: tuple[int, int]
    lines: list[tuple[str, int]]
    table: int | None = None  # index of the table immediately before it


@dataclass
class Anchor:
    """An anchor comment and the inline node in front of it.

    ``kind`` is strong, emphasis, code, text (a bare trailing word), image, empty
    (nothing in front) or bad (a node that cannot be rewritten).  ``value_span`` is the rewritable text.
    """

    sheet: str
    name: str
    rule: str | None
    comment_start: int
    comment_end: int
    kind: str
    value_span: tuple[int, int] | None
    image_url: str | None = None
    line: int = 0

    @property
    def id(self) -> str:
        return f"{self.sheet}.{self.name}"


@dataclass
class BadComment:
    """A comment that starts like an anchor but does not follow the anchor grammar."""

    text: str
    start: int
    end: int
    line: int


@dataclass
class Located:
    tables: list[Table] = field(default_factory=list)
    fences: list[Fence] = field(default_factory=list)
    anchors: list[Anchor] = field(default_factory=list)
    bad_comments: list[BadComment] = field(default_factory=list)
    no_formulas: tuple[int, int] | None = None


def split_row(text: str, base: int) -> tuple[list[str], list[int]]:
    """Split a table row's text on its unescaped pipes: the cells' trimmed texts and
    their start offsets (``base`` is the text's offset in the document).

    A backslash escapes the character after it, so ``\\|`` stays inside its cell (and
    in its text); a bare pipe splits even inside a code span, as in GFM.  The pipes
    before the first cell and after the last are optional.
    """
    # Escape pairs become two non-pipe characters, so the masked text splits only on
    # real separators and has the same length: its pieces' offsets are the text's.
    masked = ESCAPE_RE.sub("\0\0", text) if "\\" in text else text
    pieces = masked.split("|")
    first, stop = 0, len(pieces)
    if stop > 1:
        if not pieces[0].strip():
            first = 1  # a leading pipe
        if not pieces[-1].strip():
            stop -= 1  # a trailing pipe
    texts: list[str] = []
    starts: list[int] = []
    start = 0
    for i, piece in enumerate(pieces):
        end = start + len(piece)
        if first <= i < stop:
            raw = text[start:end]
            texts.append(raw.strip())
            starts.append(base + end - len(raw.lstrip()))
        start = end + 1
    return texts, starts


MARKUP_CHARS = frozenset("*_`\\")


def plain_text(src: str) -> str:
    """Resolve the inline markup that matters for names and labels (emphasis, code)."""
    if MARKUP_CHARS.isdisjoint(src):
        return src.strip()
    out = STRONG_RE.sub(r"\2", src)
    out = EMPHASIS_RE.sub(r"\2", out)
    out = CODE_SPAN_RE.sub(r"\1", out)
    out = out.replace("\\|", "|")
    return out.strip()


def _is_delimiter_row(text: str) -> list[str] | None:
    """The cells of a table's delimiter row (``|---|:--:|``), or None when it is not one."""
    t = text.strip()
    if "-" not in t or ("|" not in t and not DELIM_CELL_RE.match(t)):
        return None
    if len(t) > 1 and t.startswith("|") and t.endswith("|"):
        t = t[1:-1]
    elif t.startswith("|"):
        t = t[1:]
    elif t.endswith("|"):
        t = t[:-1]
    parts = t.split("|")
    if all(DELIM_CELL_RE.match(p) for p in parts):
        return parts
    return None


def _table_body(
    texts: list[str], starts: list[int], j: int, width: int
) -> tuple[list[tuple[str, ...]], list[tuple[int, ...]], int]:
    """The body of a table whose first body line is ``j``: (cell texts, cell starts) per
    row, each row cut or padded to ``width`` (a missing cell is empty, at the end of its
    line), and the index of the first line after the table."""
    rows: list[tuple[str, ...]] = []
    offsets: list[tuple[int, ...]] = []
    n = len(texts)
    while j < n:
        t = texts[j]
        if not t.strip() or FENCE_OPEN_RE.match(t) or t.lstrip().startswith(("#", ">")):
            break
        row, row_starts = split_row(t, starts[j])
        missing = width - len(row)
        if missing > 0:
            row += [""] * missing
            row_starts += [starts[j] + len(t)] * missing
        rows.append(tuple(row[:width]))
        offsets.append(tuple(row_starts[:width]))
        j += 1
    return rows, offsets, j


def _table_at(texts: list[str], starts: list[int], i: int) -> tuple[Table, int] | None:
    """The table whose header is line ``i`` (a delimiter row follows with as many cells),
    and the index of the first line after it; None when no table starts there."""
    text = texts[i]
    if (
        "|" not in text
        or i + 1 >= len(texts)
        or _indent(text) > 3
        or text.lstrip().startswith(">")
        or LIST_MARKER_RE.match(text)
    ):
        return None
    delim = _is_delimiter_row(texts[i + 1])
    if delim is None:
        return None
    head, head_starts = split_row(text, starts[i])
    if len(head) != len(delim):
        return None
    header = tuple(Cell(t, s, s + len(t)) for t, s in zip(head, head_starts))
    rows, offsets, j = _table_body(texts, starts, i + 2, len(header))
    return Table(header, rows, offsets, starts[i], starts[j - 1] + len(texts[j - 1]), i + 1), j


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def locate(src: str) -> Located:
    """Scan a document once and return everything VisiMark reads or writes."""
    texts, starts = split_lines(src)
    out = Located()
    prose: list[list[int]] = []  # paragraphs as lists of line indices
    para: list[int] = []
    last_block: str | None = None  # 'table' when the previous non-blank block was a table
    i = 0
    n = len(texts)

    def end_para() -> None:
        nonlocal para
        if para:
            prose.append(para)
            para = []

    while i < n:
        text = texts[i]
        m = FENCE_OPEN_RE.match(text)
        if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            end_para()
            fence, i = _fence_at(texts, starts, i, m)
            fence.table = len(out.tables) - 1 if last_block == "table" else None
            out.fences.append(fence)
            last_block = "fence"
            continue
        if not text.strip():
            end_para()
            i += 1
            continue
        found = _table_at(texts, starts, i)
        if found is not None:
            end_para()
            table, i = found
            out.tables.append(table)
            last_block = "table"
            continue
        para.append(i)
        last_block = "prose"
        i += 1
    end_para()

    for p in prose:
        _scan_paragraph(src, texts, starts, p, out)
    return out


def _fence_at(texts: list[str], starts: list[int], i: int, m: re.Match[str]) -> tuple[Fence, int]:
    """The fenced block opened on line ``i`` (``m`` is its FENCE_OPEN_RE match) and the
    index of the line after its closing fence; an unclosed fence runs to the end."""
    marker = m.group(2)
    info = m.group(3).strip()
    body: list[tuple[str, int]] = []
    n = len(texts)
    j = i + 1
    closed_at = None
    while j < n:
        t = texts[j]
        cm = FENCE_CLOSE_RE.match(t)
        if cm and cm.group(1)[0] == marker[0] and len(cm.group(1)) >= len(marker):
            closed_at = j
            break
        body.append((t, starts[j]))
        j += 1
    end_line = closed_at if closed_at is not None else n - 1
    lang, _, meta = info.partition(" ")
    info_start = starts[i] + m.end(2) + (len(m.group(3)) - len(m.group(3).lstrip()))
    fence = Fence(
        lang=lang,
        meta=meta.strip(),
        start=starts[i],
        end=starts[end_line] + len(texts[end_line]),
        line=i + 1,
        info_span=(info_start, info_start + len(info)),
        lines=body,
    )
    return fence, end_line + 1


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Spans of inline code in a paragraph (matched backtick runs of equal length)."""
    spans = []
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "`":
            j = i
            while j < len(text) and text[j] == "`":
                j += 1
            run = text[i:j]
            k = j
            found = -1
            while True:
                k = text.find(run, k)
                if k == -1:
                    break
                after = k + len(run)
                if (after >= len(text) or text[after] != "`") and (text[k - 1] != "`"):
                    found = k
                    break
                while k < len(text) and text[k] == "`":
                    k += 1
            if found == -1:
                i = j
                continue
            spans.append((i, found + len(run)))
            i = found + len(run)
            continue
        i += 1
    return spans


def _scan_paragraph(src: str, texts: list[str], starts: list[int], idx: list[int], out: Located) -> None:
    start = starts[idx[0]]
    end = starts[idx[-1]] + len(texts[idx[-1]])
    text = src[start:end]
    codes = _code_spans(text)

    def in_code(pos: int) -> bool:
        return any(a <= pos < b for a, b in codes)

    pos = 0
    while True:
        k = text.find("<!--", pos)
        if k == -1:
            break
        close = text.find("-->", k + 4)
        if in_code(k):
            pos = k + 4
            continue
        if close == -1:
            break
        comment = text[k : close + 3]
        abs_k = start + k
        line_no = bisect_right(starts, abs_k)  # 1-based: the lines starting at or before it
        if comment == NO_FORMULAS_MARKER:
            out.no_formulas = (abs_k, abs_k + len(comment))
        elif comment.startswith(ANCHOR_PREFIX):
            m = ANCHOR_RE.fullmatch(comment)
            if not m:
                out.bad_comments.append(BadComment(comment, abs_k, abs_k + len(comment), line_no))
            else:
                kind, span, url = _value_before(text, k, start, codes)
                out.anchors.append(
                    Anchor(m.group("sheet"), m.group("name"), m.group("rule"), abs_k,
                           abs_k + len(comment), kind, span, url, line_no)
                )
        pos = close + 3


VALUE_TOKEN_RE = re.compile(r"(\S+)$")


def _value_before(text: str, k: int, base: int, codes: list[tuple[int, int]]) -> tuple[str, tuple[int, int] | None, str | None]:
    """Classify the inline node that ends right where the anchor comment begins."""
    before = text[:k]
    if not before.strip():
        return "empty", None, None
    if before[-1] in " \t\r\n":
        # a text node ending in whitespace: its trailing word is the bare token
        tok = VALUE_TOKEN_RE.search(before.rstrip())
        if tok is None or tok.group(1)[-1] in "*_`)":
            return "bad", None, None
        return "text", (base + tok.start(1), base + tok.end(1)), None
    # inline code
    for a, b in codes:
        if b == k:
            ticks = 0
            while text[a + ticks] == "`":
                ticks += 1
            return "code", (base + a + ticks, base + b - ticks), None
    img = re.search(r"!\[[^\]]*\]\(([^)\s]*)\)$", before)
    if img:
        return "image", (base + img.start(), base + k), img.group(1)
    for marker, kind in (("**", "strong"), ("__", "strong"), ("*", "emphasis"), ("_", "emphasis")):
        if before.endswith(marker) and not (len(marker) == 1 and before.endswith(marker * 2)):
            close = k - len(marker)
            open_ = before.rfind(marker, 0, close)
            # a single marker must not be part of a double one, and an intraword `_`
            # (user_id) can neither open nor close emphasis
            while len(marker) == 1 and open_ > 0 and (
                before[open_ - 1] == marker
                or (marker == "_" and before[open_ - 1].isalnum() and before[open_ + 1:open_ + 2].isalnum())
            ):
                open_ = before.rfind(marker, 0, open_ - 1 if before[open_ - 1] == marker else open_)
            if open_ == -1:
                return "bad", None, None
            content = before[open_ + len(marker) : close]
            if not content or content != content.strip() or "\n" in content or "\r" in content:
                return "bad", None, None
            if len(marker) == 2 and marker in content:
                return "bad", None, None
            return kind, (base + open_ + len(marker), base + close), None
    tok = VALUE_TOKEN_RE.search(before)
    if tok:
        return "text", (base + tok.start(1), base + k), None
    return "bad", None, None
