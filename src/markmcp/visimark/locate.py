"""Locator: find a Markdown document's tables, ``vmark`` fences and anchors, with offsets.

Offsets are the contract for every write: each cell, block line and anchor value is
reported as a ``[start, end)`` character span of the original text, so ``fmt`` can
splice values back without ever re-serialising Markdown.  Only top-level constructs
are located (a table inside a list or block quote is prose to VisiMark).

Lines end at ``\\n``, ``\\r\\n`` or a bare ``\\r`` — the three CommonMark line endings.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from itertools import accumulate
from dataclasses import dataclass, field
from typing import NamedTuple

BOM = "\ufeff"
NO_FORMULAS_MARKER = "<!--vmark:no-formulas-->"
NO_FORMULAS_RE = re.compile(r"<!--\s*vmark\s*:\s*no-formulas\s*-->")
# a comment announcing itself as an anchor (blanks allowed after `<!--` and around `=`)
ANCHOR_PREFIX_RE = re.compile(r"<!--\s*vmark\s*=")
ANCHOR_RE = re.compile(
    r"<!--\s*vmark\s*=\s*(?P<sheet>[A-Za-z_][A-Za-z0-9_]*)\.(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"(?:\|(?P<rule>[A-Za-z_][A-Za-z0-9_]*))?\s*-->"
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
    if "\r" not in src:  # the common case, one kind of ending: a plain split is enough
        texts = src.split("\n")
        if len(texts) > 1 and not texts[-1]:
            texts.pop()
        starts = [0]
        starts += accumulate(map((1).__add__, map(len, texts[:-1])))  # each line and its LF
        return texts, starts
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

    Its body is stored flat: ``texts`` holds every body cell's trimmed text, row after
    row, each row cut or padded to the header's width; ``row_spans`` holds each body row's
    line as a (start, end) pair of offsets into ``source``.  A large table thus costs one
    list of strings and one machine-int array, not an object per row or cell, which keeps
    its memory small and the garbage collector out of the way.  A cell's offsets are
    needed only to report or rewrite it, so ``cell`` finds them when asked, by splitting
    that one row's line again.
    """

    header: tuple[Cell, ...]
    texts: list[str]
    row_spans: array[int]
    source: str = field(repr=False)
    start: int
    end: int
    line: int  # 1-based line of the header row

    @property
    def width(self) -> int:
        """The number of columns (at least one)."""
        return len(self.header)

    @property
    def height(self) -> int:
        """The number of body rows."""
        return len(self.texts) // len(self.header)

    def text(self, row: int, col: int) -> str:
        """The text of body cell ``col`` of row ``row`` (both 0-based)."""
        return self.texts[row * len(self.header) + col]

    def column(self, col: int) -> list[str]:
        """The texts of body column ``col``, top to bottom."""
        return self.texts[col :: len(self.header)]

    def cell(self, row: int, col: int) -> Cell:
        """Body cell ``col`` of row ``row`` (both 0-based) with its offsets; a cell the
        row's line lacks is empty and sits at the end of the line."""
        start, end = self.row_spans[2 * row], self.row_spans[2 * row + 1]
        pieces, offset = _row_pieces(self.source[start:end])
        if col >= len(pieces):
            return Cell("", end, end)
        piece = pieces[col]
        content = piece.lstrip()
        # the pieces before it, each with the pipe after it
        cell_start = start + offset + sum(map(len, pieces[:col])) + col + len(piece) - len(content)
        text = content.rstrip()
        return Cell(text, cell_start, cell_start + len(text))


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


def _row_pieces(text: str) -> tuple[list[str], int]:
    """A table row's raw text between its separating pipes, and the first piece's offset.

    A backslash escapes the character after it, so ``\\|`` does not separate; a bare pipe
    separates even inside a code span, as in GFM.  The pipes before the first cell and
    after the last are optional: the blank piece outside each is dropped.
    """
    if "\\" in text:
        # Escape pairs become two non-pipe characters, so the masked text splits only on
        # real separators and has the same length: its pieces' offsets are the text's.
        pieces = []
        pos = 0
        for masked in ESCAPE_RE.sub("\0\0", text).split("|"):
            pieces.append(text[pos : pos + len(masked)])
            pos += len(masked) + 1
    else:
        pieces = text.split("|")
    offset = 0
    if len(pieces) > 1:
        leading, trailing = not pieces[0].strip(), not pieces[-1].strip()
        if trailing:
            del pieces[-1]
        if leading:
            offset = len(pieces[0]) + 1
            del pieces[0]
    return pieces, offset


def row_texts(text: str) -> list[str]:
    """The trimmed texts of a table row's cells (see ``split_row``)."""
    return [piece.strip() for piece in _row_pieces(text)[0]]


def split_row(text: str, base: int) -> tuple[list[str], list[int]]:
    """Split a table row's text on its unescaped pipes: the cells' trimmed texts (escapes
    kept) and their start offsets, ``base`` being the text's offset in the document."""
    pieces, pos = _row_pieces(text)
    texts: list[str] = []
    starts: list[int] = []
    for piece in pieces:
        content = piece.lstrip()
        texts.append(content.rstrip())
        starts.append(base + pos + len(piece) - len(content))
        pos += len(piece) + 1
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


def _table_body(texts: list[str], starts: list[int], j: int, width: int) -> tuple[list[str], array[int], int]:
    """The body of a table whose first body line is ``j``: its cell texts row after row,
    each row cut or padded to ``width`` with empty cells; each row's line as a (start,
    end) pair; and the index of the first line after the table."""
    first = j
    n = len(texts)
    while j < n:
        t = texts[j]
        content = t.lstrip()
        if not content or content[0] in "#>" or (content[0] in "`~" and FENCE_OPEN_RE.match(t)):
            break  # a blank line, a heading, a block quote or a fence ends the table
        j += 1
    lines = texts[first:j]
    spans: array[int] = array("q", bytes(16 * len(lines)))
    spans[0::2] = array("q", starts[first:j])
    spans[1::2] = array("q", map(int.__add__, starts[first:j], map(len, lines)))
    cells = _regular_body(lines, width)
    if cells is None:
        cells = []
        for t in lines:
            row = row_texts(t)
            missing = width - len(row)
            if missing > 0:
                row += [""] * missing
            elif missing < 0:
                del row[width:]
            cells += row
    return cells, spans, j


def _regular_body(lines: list[str], width: int) -> list[str] | None:
    """The cell texts of table rows that are all regular (each line opens and closes
    with a pipe, has ``width`` cells and no backslash), split all at once; None when one
    is not, and the rows are split one by one."""
    if not lines:
        return []
    body = "\n".join(lines)
    if "\\" in body:
        return None
    pieces = body.split("|")
    # "" | cells of row 1 | "\n" | cells of row 2 | ... | cells of the last row | ""
    if len(pieces) != 1 + len(lines) * (width + 1):
        return None
    seams = pieces[width + 1 : -1 : width + 1]
    if pieces[0] or pieces[-1] or seams.count("\n") != len(seams):
        return None
    del pieces[:: width + 1]
    return list(map(str.strip, pieces))


def _table_at(src: str, texts: list[str], starts: list[int], i: int) -> tuple[Table, int] | None:
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
    cells, spans, j = _table_body(texts, starts, i + 2, len(header))
    return Table(header, cells, spans, src, starts[i], starts[j - 1] + len(texts[j - 1]), i + 1), j


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def locate(src: str) -> Located:
    """Scan a document once and return everything VisiMark reads or writes."""
    texts, starts = split_lines(src)
    if texts and texts[0].startswith(BOM):
        # a byte-order mark is not content: the first line starts after it
        texts[0] = texts[0][1:]
        starts[0] = 1
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
        found = _table_at(src, texts, starts, i)
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


TICK_OR_ESCAPE_RE = re.compile(r"[`\\]")


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Spans of inline code in a paragraph (matched backtick runs of equal length)."""
    spans = []
    i = 0
    n = len(text)
    while i < n:
        hit = TICK_OR_ESCAPE_RE.search(text, i)  # jump to the next backtick or backslash
        if hit is None:
            break
        i = hit.start()
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
    code_starts = [a for a, _ in codes]
    code_ending_at = {b: a for a, b in codes}

    def in_code(pos: int) -> bool:
        i = bisect_right(code_starts, pos) - 1
        return i >= 0 and pos < codes[i][1]

    pos = 0
    floor = 0  # where the text an anchor may bind to can begin: after the previous comment
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
        if NO_FORMULAS_RE.fullmatch(comment):
            out.no_formulas = (abs_k, abs_k + len(comment))
        elif ANCHOR_PREFIX_RE.match(comment):
            m = ANCHOR_RE.fullmatch(comment)
            if not m:
                out.bad_comments.append(BadComment(comment, abs_k, abs_k + len(comment), line_no))
            else:
                kind, span, url = _value_before(text, k, start, code_ending_at, _window(text, k, floor))
                out.anchors.append(
                    Anchor(m.group("sheet"), m.group("name"), m.group("rule"), abs_k,
                           abs_k + len(comment), kind, span, url, line_no)
                )
        pos = close + 3
        floor = pos


def _window(text: str, k: int, floor: int) -> int:
    """Where the inline node in front of offset ``k`` can start: no earlier than the start
    of the line before ``k``'s (a bare token may sit at the end of the previous line), and
    never before the end of the previous comment.  Bounding the look-back keeps the scan of
    a paragraph with thousands of anchors linear."""
    line = max(text.rfind("\n", floor, k), text.rfind("\r", floor, k))
    if line == -1:
        return floor
    previous = max(text.rfind("\n", floor, line), text.rfind("\r", floor, line))
    return previous + 1 if previous != -1 else floor


def _trailing_token(text: str) -> tuple[int, int] | None:
    """The span of the non-blank run that ends ``text`` (what ``(\\S+)$`` finds), or None.

    Scanned backwards in one pass: the regex search retries every start position of a
    long run, quadratic in its length.
    """
    i = len(text)
    while i > 0 and not text[i - 1].isspace():
        i -= 1
    return (i, len(text)) if i < len(text) else None


def _trailing_image(text: str) -> tuple[int, str] | None:
    """Where an image ``![alt](url)`` that ends ``text`` starts, and its url, or None.

    Equal to ``re.search(r"!\\[[^\\]]*\\]\\(([^)\\s]*)\\)$", text)`` (the leftmost such image)
    in linear time; the search retries every ``![`` and scans on from each.  The url and the
    ``](`` before it lie in the run of characters other than ``)`` and blanks that ends just
    before the final ``)``; the alt text before that ``]`` holds no ``]``.
    """
    if not text.endswith(")"):
        return None
    end = len(text) - 1
    run = end
    while run > 0 and text[run - 1] != ")" and not text[run - 1].isspace():
        run -= 1
    close = text.find("](", run, end)
    while close != -1:
        start = text.find("![", text.rfind("]", 0, close) + 1, close)
        if start != -1:
            return start, text[close + 2:end]
        close = text.find("](", close + 1, end)
    return None


def _value_before(text: str, k: int, base: int, code_ending_at: dict[int, int],
                  lo: int = 0) -> tuple[str, tuple[int, int] | None, str | None]:
    """Classify the inline node that ends right where the anchor comment begins; only
    ``text[lo:k]`` is looked at (offsets below are relative to ``lo``)."""
    before = text[lo:k]
    base += lo
    k -= lo
    if not before.strip():
        return "empty", None, None
    if before[-1] in " \t\r\n":
        # a text node ending in whitespace: its trailing word is the bare token
        tok = _trailing_token(before.rstrip())
        if tok is None or before[tok[1] - 1] in "*_`)":
            return "bad", None, None
        return "text", (base + tok[0], base + tok[1]), None
    # inline code: the paragraph's own code spans, so one that opens before the window (on an
    # earlier line) is still the node in front of the anchor
    a = code_ending_at.get(k + lo)
    if a is not None:
        ticks = 0
        while text[a + ticks] == "`":
            ticks += 1
        return "code", (base - lo + a + ticks, base + k - ticks), None
    img = _trailing_image(before)
    if img:
        return "image", (base + img[0], base + k), img[1]
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
    tok = _trailing_token(before)
    if tok:
        return "text", (base + tok[0], base + k), None
    return "bad", None, None
