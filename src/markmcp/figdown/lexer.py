"""FigDown lexical layer: lines, comments, tokens, comma lists (core §1).

FigDown is line-oriented.  A line ends at LF or CRLF (core §1); a bare CR is
not a line end.  Lines are never split with ``str.splitlines()``, which would
also break on form feeds, NEL, U+2028 and others the language treats as
characters.

Grammar of one directive line (after the comment is cut off)::

    line     = ws* token (ws+ token)* ws*
    token    = (bare-char | quoted)+          ; a maximal run of non-space
    quoted   = '"' (char | escape)* '"'       ; may contain whitespace
    escape   = '\\n' | '\\"' | '\\\\'
    comment  = '#' ...                        ; only after whitespace or at 0,
                                              ; outside quotes and [labels]

Every token remembers which stretches of it were written inside quotes, so a
later rule can ask "was this value quoted?" of any slice of it — ids must be
bare, closed-set values must be bare, prose values must be quoted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# --- character sets (named after the grammar) ------------------------------

#: Whitespace as the language defines it (the ECMAScript ``\s`` class, which
#: the reference grammar is written against — *not* Python's ``str.isspace``).
WS_CHARS = frozenset(
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
WS_CLASS = "\\t\\n\\x0b\\x0c\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
#: One whitespace character, as a regular-expression class.
WS = "[" + WS_CLASS + "]"
#: Characters a regular-expression ``.`` must not cross (line terminators).
NOT_EOL = "[^\\n\\r\\u2028\\u2029]"
QUOTE = '"'
BACKSLASH = "\\"
ESCAPES = {"n": "\n", '"': '"', "\\": "\\"}
#: A bare id: ``[A-Za-z_][A-Za-z0-9_-]*`` (ASCII only, no ``--`` inside).
ID_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")
NEWLINE = "\n"

# Characters XML 1.0 cannot carry (below U+0020 only TAB, LF, CR are legal).
_XML_ILLEGAL_BELOW_SPACE = frozenset(chr(c) for c in range(0x20)) - {"\t", "\n", "\r"}


class LexError(Exception):
    """A line-level lexical error; ``col`` is the 0-based column it was found at."""

    def __init__(self, message: str, col: int) -> None:
        super().__init__(message)
        self.message = message
        self.col = col


def is_ws(ch: str) -> bool:
    return ch in WS_CHARS


def trim(s: str) -> str:
    """Strip language whitespace from both ends."""
    start, end = 0, len(s)
    while start < end and s[start] in WS_CHARS:
        start += 1
    while end > start and s[end - 1] in WS_CHARS:
        end -= 1
    return s[start:end]


def trim_start(s: str) -> str:
    start = 0
    while start < len(s) and s[start] in WS_CHARS:
        start += 1
    return s[start:]


def split_lines(text: str) -> list[str]:
    """Split a document into lines at its line ends (core §1: ``eol = CRLF / LF``).

    A bare CR is not a line end (it stays in the line, where it is
    whitespace), and neither are form feed, NEL or U+2028."""
    lines = text.split(NEWLINE)
    for i in range(len(lines) - 1):
        if lines[i].endswith("\r"):
            lines[i] = lines[i][:-1]
    return lines


def is_bare_id(value: str | None) -> bool:
    return value is not None and bool(ID_RE.match(value)) and "--" not in value


# --- comments and the reserved ';' ----------------------------------------


_BARE_RUN = re.compile('[^"' + WS_CLASS + ']*')
_STRING_STOP = re.compile(r'["\\]')
_COMMENT_STOP = re.compile(r'["\[\]#]')
_SEMICOLON_STOP = re.compile(r'["\[\];]')


def skip_string(src: str, pos: int) -> int:
    """At an opening quote: return the position just past its closing quote
    (or ``len(src)`` when the string never closes).  Honours the escapes, so
    ``"a \\" # b"`` is one string."""
    pos += 1
    while True:
        m = _STRING_STOP.search(src, pos)
        if m is None:
            return len(src)
        pos = m.start()
        if src[pos] == QUOTE:
            return pos + 1
        if pos + 1 >= len(src):  # a backslash at the very end
            return len(src)
        pos += 2


def _scan_outside_strings(src: str, stops: re.Pattern, target: str, after_ws: bool) -> int:
    """First ``target`` outside strings and [labels] (optionally only after whitespace)."""
    pos, depth = 0, 0
    while True:
        m = stops.search(src, pos)
        if m is None:
            return -1
        pos = m.start()
        ch = src[pos]
        if ch == QUOTE:
            pos = skip_string(src, pos)
            continue
        if ch == "[":
            depth += 1
        elif ch == "]":
            if depth:
                depth -= 1
        elif not depth and (not after_ws or pos == 0 or src[pos - 1] in WS_CHARS):
            return pos
        pos += 1


def find_comment(src: str) -> int:
    """Column where a ``#`` comment starts, or -1.

    A ``#`` opens a comment only at column 0 or after whitespace, and never
    inside a quoted string or an ``[edge label]``."""
    return _scan_outside_strings(src, _COMMENT_STOP, "#", after_ws=True)


def find_reserved_semicolon(src: str) -> int:
    """Column of a ``;`` outside strings and ``[labels]``, or -1 (RULE 1.3)."""
    return _scan_outside_strings(src, _SEMICOLON_STOP, ";", after_ws=False)


def strip_comment(src: str) -> str:
    at = find_comment(src)
    return src if at < 0 else src[:at]


# --- tokens ----------------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    """A stretch of a token's value that was written either inside quotes or bare.

    ``start``/``end`` index the token's resolved value.  A quoted segment may be
    empty (``""``): it still marks that quoting happened at ``start``."""

    start: int
    end: int
    quoted: bool

    def overlaps(self, a: int, b: int) -> bool:
        """Does this segment share at least one character with ``v[a:b]``?"""
        return self.start < b and a < self.end


@dataclass
class Token:
    """One whitespace-delimited token: its value and how it was written.

    ``v`` is the value with quotes removed and escapes resolved.  ``segments``
    cover ``v`` from left to right, alternating as the source switched between
    bare text and quoted strings, so a rule can ask whether any slice of the
    value was written in quotes."""

    v: str
    segments: list[Segment] = field(default_factory=list)

    @property
    def q(self) -> bool:
        """The token is one string literal: some quoting and no bare character."""
        return any(s.quoted for s in self.segments) and not self._bare_in(0, len(self.v))

    def _bare_in(self, a: int, b: int) -> bool:
        return any(not s.quoted and s.overlaps(a, b) for s in self.segments)

    def _quote_opens_in(self, a: int, b: int) -> bool:
        return any(s.quoted and a <= s.start <= b for s in self.segments)

    def slice_quoted(self, a: int, b: int) -> bool:
        """Was all of ``v[a:b]`` written in quotes?  An empty slice counts as
        quoted when a quoted string began at that very offset (``key=""``)."""
        if a < b:
            return not self._bare_in(a, b)
        return self._quote_opens_in(a, b)

    def slice_has_quote(self, a: int, b: int) -> bool:
        """Was any part of ``v[a:b]`` quoted, or did a quoted string begin inside it?"""
        return any(s.quoted and s.overlaps(a, b) for s in self.segments) or self._quote_opens_in(a, b)

    def bare_commas(self, a: int = 0) -> list[int]:
        """Offsets from ``a`` on of the commas that were written outside quotes."""
        found: list[int] = []
        for s in self.segments:
            if s.quoted or s.end <= a:
                continue
            at = self.v.find(",", max(a, s.start), s.end)
            while at >= 0:
                found.append(at)
                at = self.v.find(",", at + 1, s.end)
        return found


def parse_quoted(src: str, pos: int) -> tuple[int, str]:
    """quoted = '"' (char | escape)* '"'  — at the opening quote."""
    pos += 1
    out: list[str] = []
    while pos < len(src) and src[pos] != QUOTE:
        ch = src[pos]
        if ch == BACKSLASH:
            esc = src[pos + 1] if pos + 1 < len(src) else ""
            if esc not in ESCAPES:
                raise LexError(f'unknown escape "\\{esc}" (allowed: \\n \\" \\\\)', pos)
            out.append(ESCAPES[esc])
            pos += 2
            continue
        out.append(ch)
        pos += 1
    if pos >= len(src):
        raise LexError("unterminated string", pos)
    return pos + 1, "".join(out)


def parse_token(src: str, pos: int) -> tuple[int, Token]:
    """token = (bare-char | quoted)+ up to the next whitespace."""
    pieces: list[str] = []
    segments: list[Segment] = []
    length = 0
    while pos < len(src) and src[pos] not in WS_CHARS:
        quoted = src[pos] == QUOTE
        if quoted:
            pos, text = parse_quoted(src, pos)
        else:  # a bare run: everything up to whitespace or a quote
            run_end = _BARE_RUN.match(src, pos).end()
            text, pos = src[pos:run_end], run_end
        pieces.append(text)
        segments.append(Segment(length, length + len(text), quoted))
        length += len(text)
    return pos, Token("".join(pieces), segments)


def tokenize(src: str) -> list[Token]:
    """line = ws* token (ws+ token)* ws*   — raises LexError on a bad string."""
    tokens: list[Token] = []
    pos = 0
    while True:
        while pos < len(src) and src[pos] in WS_CHARS:
            pos += 1
        if pos >= len(src):
            return tokens
        pos, tok = parse_token(src, pos)
        tokens.append(tok)


@dataclass
class ListItem:
    """One member of a comma list: value, fully quoted, contains any quote."""

    v: str
    q: bool
    h: bool


def split_list(tok: Token, off: int = 0) -> list[ListItem]:
    """comma-list = item (',' item)*  — ``tok.v[off:]`` cut at the commas written
    outside quotes (a quoted comma belongs to its item)."""
    bounds = [off - 1, *tok.bare_commas(off), len(tok.v)]
    items = []
    for left, right in zip(bounds, bounds[1:]):
        a = left + 1
        items.append(ListItem(tok.v[a:right], tok.slice_quoted(a, right), tok.slice_has_quote(a, right)))
    return items


# --- characters XML cannot carry -------------------------------------------


_XML_ILLEGAL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_illegal_errors(text: str) -> list[tuple[int, str, int]]:
    """(line, message, column): one per distinct illegal code point per line."""
    out: list[tuple[int, str, int]] = []
    if not _XML_ILLEGAL_RE.search(text):
        return out
    for index, line in enumerate(split_lines(text)):
        seen: set[int] = set()
        for col, ch in enumerate(line):
            cp = ord(ch)
            if ch in _XML_ILLEGAL_BELOW_SPACE:
                tail = " (below U+0020 only tab, newline and carriage return are allowed)"
            elif cp in (0xFFFE, 0xFFFF) or 0xD800 <= cp <= 0xDFFF:
                tail = (" (U+FFFE, U+FFFF and unpaired surrogates are not characters"
                        " — no escape writes one)")
            else:
                continue
            if cp in seen:
                continue
            seen.add(cp)
            out.append((index + 1, f"illegal character U+{cp:04X} — XML forbids it, so the "
                                   f"artifact could not be well-formed{tail}", col + 1))
    return out
