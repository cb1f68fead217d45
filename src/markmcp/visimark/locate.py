"""Locator: find a Markdown document's tables, ``vmark`` fences and anchors, with offsets.

Offsets are the contract for every write: each cell, block line and anchor value is
reported as a ``[start, end)`` character span of the original text, so ``fmt`` can
splice values back without ever re-serialising Markdown.  Only top-level constructs
are located (a table inside a list or block quote is prose to VisiMark).

Lines end at ``\\n``, ``\\r\\n`` or a bare ``\\r`` — the three CommonMark line endings.
"""

from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass, field

NO_FORMULAS_MARKER = "<!--vmark:no-formulas-->"
ANCHOR_PREFIX = "<!--vmark="
ANCHOR_RE = re.compile(
    r"<!--vmark=(?P<sheet>[A-Za-z_][A-Za-z0-9_]*)\.(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"(?:\|(?P<rule>[A-Za-z_][A-Za-z0-9_]*))?-->"
)
FENCE_OPEN_RE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
DELIM_CELL_RE = re.compile(r"^\s*:?-+:?\s*$")
LINE_END_RE = re.compile(r"\r\n|\n|\r")
LIST_MARKER_RE = re.compile(r"^\s{0,3}([-+*]|\d{1,9}[.)])(\s|$)")


@dataclass
class Line:
    """One source line: ``start``/``end`` exclude the line ending, ``next`` is past it."""

    start: int
    end: int
    next: int
    text: str


def split_lines(src: str) -> list[Line]:
    """Split on the CommonMark line endings, keeping every offset."""
    lines: list[Line] = []
    pos = 0
    for m in LINE_END_RE.finditer(src):
        lines.append(Line(pos, m.start(), m.end(), src[pos : m.start()]))
        pos = m.end()
    if pos < len(src) or not lines:
        lines.append(Line(pos, len(src), len(src), src[pos:]))
    return lines


@dataclass
class Cell:
    """A table cell: ``text`` is its trimmed source, ``plain`` with inline markup resolved."""

    text: str
    start: int
    end: int

    @property
    def plain(self) -> str:
        return plain_text(self.text)


@dataclass
class Table:
    header: list[Cell]
    rows: list[list[Cell]]
    start: int
    end: int
    line: int  # 1-based line of the header row


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


def _split_row(line: Line) -> list[Cell]:
    """Split a table row on unescaped pipes; leading/trailing pipes are optional."""
    text = line.text
    bounds: list[int] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "|":
            bounds.append(i)
        i += 1
    pieces: list[tuple[int, int]] = []
    stripped_start = len(text) - len(text.lstrip())
    stripped_end = len(text.rstrip())
    cuts = [b for b in bounds]
    starts = [0] + [b + 1 for b in cuts]
    ends = cuts + [len(text)]
    for s, e in zip(starts, ends):
        pieces.append((s, e))
    # drop the empty piece before a leading pipe and after a trailing pipe
    if bounds and bounds[0] == stripped_start:
        pieces = pieces[1:]
    if bounds and bounds[-1] == stripped_end - 1:
        pieces = pieces[:-1]
    cells = []
    for s, e in pieces:
        raw = text[s:e]
        lead = len(raw) - len(raw.lstrip())
        content = raw.strip()
        cs = line.start + s + lead
        content = content.replace("\\|", "|") if False else content
        cells.append(Cell(content, cs, cs + len(content)))
    return cells


@lru_cache(maxsize=4096)
def plain_text(src: str) -> str:
    """Resolve the inline markup that matters for names and labels (emphasis, code)."""
    out = re.sub(r"(\*\*|__)(.+?)\1", r"\2", src)
    out = re.sub(r"(?<![\w*])([*_])(?!\s)(.+?)(?<!\s)\1(?![\w*])", r"\2", out)
    out = re.sub(r"`+([^`]*)`+", r"\1", out)
    out = out.replace("\\|", "|")
    return out.strip()


def _is_delimiter_row(text: str) -> list[str] | None:
    t = text.strip()
    if "-" not in t or (t.count("|") == 0 and not DELIM_CELL_RE.match(t)):
        return None
    parts = t.strip("|").split("|") if t.startswith("|") or t.endswith("|") else t.split("|")
    if t.startswith("|") and t.endswith("|") and len(t) > 1:
        parts = t[1:-1].split("|")
    elif t.startswith("|"):
        parts = t[1:].split("|")
    elif t.endswith("|"):
        parts = t[:-1].split("|")
    if all(DELIM_CELL_RE.match(p) for p in parts):
        return parts
    return None


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def locate(src: str) -> Located:
    """Scan a document once and return everything VisiMark reads or writes."""
    lines = split_lines(src)
    out = Located()
    prose: list[list[int]] = []  # paragraphs as lists of line indices
    para: list[int] = []
    last_block: str | None = None  # 'table' when the previous non-blank block was a table
    i = 0
    n = len(lines)

    def end_para() -> None:
        nonlocal para
        if para:
            prose.append(para)
            para = []

    while i < n:
        line = lines[i]
        text = line.text
        m = FENCE_OPEN_RE.match(text)
        if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            end_para()
            marker = m.group(2)
            info = m.group(3).strip()
            body: list[tuple[str, int]] = []
            j = i + 1
            closed_at = None
            while j < n:
                t = lines[j].text
                cm = re.match(r"^ {0,3}(`{3,}|~{3,})\s*$", t)
                if cm and cm.group(1)[0] == marker[0] and len(cm.group(1)) >= len(marker):
                    closed_at = j
                    break
                body.append((t, lines[j].start))
                j += 1
            end_line = closed_at if closed_at is not None else n - 1
            lang, _, meta = info.partition(" ")
            info_start = line.start + m.end(2) + (len(m.group(3)) - len(m.group(3).lstrip()))
            fence = Fence(
                lang=lang,
                meta=meta.strip(),
                start=line.start,
                end=lines[end_line].end,
                line=i + 1,
                info_span=(info_start, info_start + len(info)),
                lines=body,
                table=len(out.tables) - 1 if last_block == "table" else None,
            )
            out.fences.append(fence)
            last_block = "fence"
            i = end_line + 1
            continue
        if not text.strip():
            end_para()
            i += 1
            continue
        if (
            "|" in text
            and i + 1 < n
            and _indent(text) <= 3
            and not text.lstrip().startswith(">")
            and not LIST_MARKER_RE.match(text)
        ):
            delim = _is_delimiter_row(lines[i + 1].text)
            header = _split_row(line) if delim is not None else []
            if delim is not None and len(header) == len(delim):
                end_para()
                rows: list[list[Cell]] = []
                j = i + 2
                while j < n:
                    t = lines[j].text
                    if not t.strip() or FENCE_OPEN_RE.match(t) or t.lstrip().startswith(("#", ">")):
                        break
                    cells = _split_row(lines[j])
                    width = len(header)
                    if len(cells) < width:
                        cells += [Cell("", lines[j].end, lines[j].end) for _ in range(width - len(cells))]
                    rows.append(cells[:width])
                    j += 1
                out.tables.append(Table(header, rows, line.start, lines[j - 1].end, i + 1))
                last_block = "table"
                i = j
                continue
        para.append(i)
        last_block = "prose"
        i += 1
    end_para()

    for p in prose:
        _scan_paragraph(src, lines, p, out)
    return out


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


def _scan_paragraph(src: str, lines: list[Line], idx: list[int], out: Located) -> None:
    start = lines[idx[0]].start
    end = lines[idx[-1]].end
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
        line_no = _line_of(lines, abs_k)
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


def _line_of(lines: list[Line], offset: int) -> int:
    lo, hi = 0, len(lines) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if lines[mid].start <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


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
