"""FigDown lexical layer: lines, comments, tokens, comma lists (core §1).

FigDown is line-oriented.  A line ends at LF or CRLF (core §1); a bare CR is
not a line end.  Lines are never split with ``str.splitlines()``, which would
also break on form feeds, NEL, U+2028 and others the language treats as
characters.

Grammar of one directive line (after the comment is cut off)::

    line     = ws* token (ws+ token)* ws*
    token    = (bare-run | quoted)+         ; a maximal run of non-space
    bare-run = (any char but ws and '"')+
    quoted   = '"' (char | escape)* '"'     ; may contain whitespace
    escape   = '\\n' | '\\"' | '\\\\'
    comment  = '#' ...                      ; at column 0 or after ws,
                                            ; outside quotes and [labels]

Design: a token is its resolved text plus a *provenance mask*, one letter per
character of the text (``Q`` written inside quotes, ``B`` written bare), and
the offsets where a quoted string opened (so an empty ``""`` is still seen).
Every "was this part quoted?" question a later rule asks is a question about
a slice of that mask.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# --- character sets (named after the grammar) ------------------------------

#: Whitespace as the language defines it (the ECMAScript ``\s`` class the
#: specification's grammar is written against — *not* ``str.isspace``).
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
#: escape = '\n' | '\"' | '\\' — the letter after the backslash, and what it stands for.
ESCAPES = {"n": "\n", '"': '"', "\\": "\\"}
#: A bare id: ``[A-Za-z_][A-Za-z0-9_-]*`` (ASCII only, no ``--`` inside).
ID_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")
NEWLINE = "\n"
LABEL_OPEN, LABEL_CLOSE = "[", "]"
COMMENT_MARK = "#"
RESERVED_SEPARATOR = ";"

#: Provenance letters of a token's mask.
IN_QUOTES, BARE = "Q", "B"

#: Code points XML 1.0 cannot carry, as one class.
XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")

#: A bare run ends at whitespace or at a quote.
_BARE_RUN = re.compile('[^"' + WS_CLASS + "]+")
#: Inside a string only a quote or a backslash changes anything.
_STRING_SPECIAL = re.compile(r'["\\]')


class LexError(Exception):
    """A line-level lexical error; ``col`` is the 0-based column it was found at."""

    def __init__(self, message: str, col: int) -> None:
        super().__init__(message)
        self.message = message
        self.col = col


class UnterminatedString(LexError):
    """A quoted string that reaches the end of the line without its closing quote."""


# --- whitespace and lines --------------------------------------------------


def is_ws(ch: str) -> bool:
    return ch in WS_CHARS


def skip_ws(src: str, pos: int) -> int:
    """ws* — the first position at or after ``pos`` that is not whitespace."""
    end = len(src)
    while pos < end and src[pos] in WS_CHARS:
        pos += 1
    return pos


#: The whitespace characters as one string, for ``str.strip``.
_WS_STRING = "".join(sorted(WS_CHARS))


def trim_start(s: str) -> str:
    """Strip language whitespace from the left."""
    return s.lstrip(_WS_STRING)


def trim(s: str) -> str:
    """Strip language whitespace from both ends."""
    return s.strip(_WS_STRING)


def split_lines(text: str) -> list[str]:
    """document = line (eol line)*, eol = CRLF / LF (core §1).

    A bare CR is not a line end (it stays in the line, where it is
    whitespace), and neither are form feed, NEL or U+2028."""
    lines = text.split(NEWLINE)
    return [line[:-1] if line.endswith("\r") else line for line in lines[:-1]] + lines[-1:]


def is_bare_id(value: str | None) -> bool:
    return value is not None and ID_RE.match(value) is not None and "--" not in value


# --- strings ---------------------------------------------------------------


def skip_string(src: str, pos: int) -> int:
    """quoted, skimmed: at an opening quote, the position just past its closing
    quote (``len(src)`` when it never closes).  Any backslash takes the next
    character with it, so ``"a \\" # b"`` is one string; escapes are judged
    later by :func:`parse_quoted`."""
    while True:
        hit = _STRING_SPECIAL.search(src, pos + 1)
        if hit is None:
            return len(src)
        if src[hit.start()] == QUOTE:
            return hit.start() + 1
        pos = hit.start() + 1  # the backslash; the search resumes past its partner
        if pos >= len(src):
            return len(src)


def parse_quoted(src: str, pos: int) -> tuple[int, str]:
    """quoted = '"' (char | escape)* '"'  — at the opening quote; returns the
    position past the closing quote and the text with escapes resolved."""
    text: list[str] = []
    cursor = pos + 1
    while True:
        hit = _STRING_SPECIAL.search(src, cursor)
        if hit is None:
            raise UnterminatedString("unterminated string", len(src))
        text.append(src[cursor:hit.start()])
        if src[hit.start()] == QUOTE:
            return hit.start() + 1, "".join(text)
        letter = src[hit.start() + 1:hit.start() + 2]
        if letter not in ESCAPES:
            raise LexError(f'unknown escape "\\{letter}" (allowed: \\n \\" \\\\)', hit.start())
        text.append(ESCAPES[letter])
        cursor = hit.start() + 2


# --- comments and the reserved ';' ----------------------------------------


#: For each mark searched for outside strings and labels: the characters the
#: scan has to stop at (everything else is skipped in one regex step).
_SCAN_STOPS = {mark: re.compile('["' + re.escape(LABEL_OPEN + LABEL_CLOSE + mark) + "]")
               for mark in (COMMENT_MARK, RESERVED_SEPARATOR)}


def _first_free(src: str, mark: str, needs_space_before: bool) -> int:
    """Column of the first ``mark`` that stands outside strings and outside
    ``[label]`` brackets (optionally only at column 0 or after whitespace), or -1.

    A stray ``]`` with no open bracket is ignored."""
    if mark not in src:
        return -1
    stops = _SCAN_STOPS[mark]
    depth = 0
    pos = 0
    while (hit := stops.search(src, pos)) is not None:
        pos = hit.start()
        ch = src[pos]
        if ch == QUOTE:
            pos = skip_string(src, pos)
            continue
        if ch == LABEL_OPEN:
            depth += 1
        elif ch == LABEL_CLOSE:
            depth = max(depth - 1, 0)
        elif depth == 0 and (not needs_space_before or pos == 0 or src[pos - 1] in WS_CHARS):
            return pos
        pos += 1
    return -1


def find_comment(src: str) -> int:
    """Column where a ``#`` comment starts, or -1.

    A ``#`` opens a comment only at column 0 or after whitespace, and never
    inside a quoted string or an ``[edge label]``."""
    return _first_free(src, COMMENT_MARK, needs_space_before=True)


def find_reserved_semicolon(src: str) -> int:
    """Column of a ``;`` outside strings and ``[labels]``, or -1 (RULE 1.3)."""
    return _first_free(src, RESERVED_SEPARATOR, needs_space_before=False)


def strip_comment(src: str) -> str:
    at = find_comment(src)
    return src if at < 0 else src[:at]


# --- tokens ----------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    """One whitespace-delimited token.

    ``v`` is the text with quotes removed and escapes resolved.  ``mask`` has
    one provenance letter per character of ``v`` (``Q`` quoted, ``B`` bare);
    ``opens`` lists the offsets in ``v`` where a quoted string began, so an
    empty string (``key=""``) leaves a trace too."""

    v: str
    mask: str = ""
    opens: tuple[int, ...] = ()

    def _opened_within(self, a: int, b: int) -> bool:
        return any(a <= at <= b for at in self.opens)

    @property
    def q(self) -> bool:
        """The token is one string literal: some quoting and no bare character."""
        return bool(self.opens) and BARE not in self.mask

    def slice_quoted(self, a: int, b: int) -> bool:
        """Was all of ``v[a:b]`` written in quotes?  An empty slice counts as
        quoted when a quoted string began at that very offset (``key=""``)."""
        if a < b:
            return BARE not in self.mask[a:b]
        return self._opened_within(a, b)

    def _one_string_spans(self, first: int, last: int) -> bool:
        """Were characters ``first`` through ``last`` written inside one and
        the same quoted string?"""
        if first < 0 or last >= len(self.v):
            return False
        return BARE not in self.mask[first:last + 1] and not any(first < at <= last for at in self.opens)

    def slice_has_quote(self, a: int, b: int) -> bool:
        """Was any part of ``v[a:b]`` quoted, or did a quoted string begin inside it?
        An empty slice counts when it sits inside a quoted string."""
        if a < b:
            return IN_QUOTES in self.mask[a:b] or self._opened_within(a, b)
        return self._opened_within(a, b) or self._one_string_spans(b - 1, a)

    def bare_commas(self, a: int = 0) -> list[int]:
        """Offsets from ``a`` on of the commas that were written outside quotes."""
        v, mask, found = self.v, self.mask, []
        at = v.find(",", max(a, 0))
        while at >= 0:
            if mask[at] == BARE:
                found.append(at)
            at = v.find(",", at + 1)
        return found


def parse_token(src: str, pos: int) -> tuple[int, Token]:
    """token = (bare-run | quoted)+ — up to the next whitespace."""
    run = _BARE_RUN.match(src, pos)
    if run is not None:
        end = run.end()
        if end == len(src) or src[end] != QUOTE:   # one bare run: the whole token
            piece = run.group()
            return end, Token(piece, BARE * len(piece), ())
    text: list[str] = []
    mask: list[str] = []
    opens: list[int] = []
    size = 0
    while pos < len(src) and src[pos] not in WS_CHARS:
        if src[pos] == QUOTE:
            opens.append(size)
            pos, piece = parse_quoted(src, pos)
            letter = IN_QUOTES
        else:
            run = _BARE_RUN.match(src, pos)
            pos, piece = run.end(), run.group()
            letter = BARE
        text.append(piece)
        mask.append(letter * len(piece))
        size += len(piece)
    return pos, Token("".join(text), "".join(mask), tuple(opens))


def tokenize(src: str) -> list[Token]:
    """line = ws* token (ws+ token)* ws*   — raises LexError on a bad string."""
    if QUOTE not in src:   # no string on the line: the tokens are the runs between whitespace
        return [Token(piece, BARE * len(piece), ()) for piece in _BARE_RUN.findall(src)]
    tokens: list[Token] = []
    pos = skip_ws(src, 0)
    while pos < len(src):
        pos, token = parse_token(src, pos)
        tokens.append(token)
        pos = skip_ws(src, pos)
    return tokens


# --- comma lists -----------------------------------------------------------


@dataclass
class ListItem:
    """One member of a comma list: value, fully quoted, contains any quote."""

    v: str
    q: bool
    h: bool


def split_list(tok: Token, off: int = 0) -> list[ListItem]:
    """comma-list = item (',' item)*  — ``tok.v[off:]`` cut at the commas written
    outside quotes (a quoted comma belongs to its item)."""
    items: list[ListItem] = []
    start = off
    for comma in [*tok.bare_commas(off), len(tok.v)]:
        items.append(ListItem(tok.v[start:comma], tok.slice_quoted(start, comma),
                              tok.slice_has_quote(start, comma)))
        start = comma + 1
    return items


# --- characters XML cannot carry -------------------------------------------


def _xml_illegal_reason(ch: str) -> str:
    if ch < " ":
        return " (below U+0020 only tab, newline and carriage return are allowed)"
    return " (U+FFFE, U+FFFF and unpaired surrogates are not characters — no escape writes one)"


def xml_illegal_errors(text: str) -> list[tuple[int, str, int]]:
    """(line, message, column): one per distinct illegal code point per line,
    both 1-based, in reading order."""
    found: list[tuple[int, str, int]] = []
    if XML_ILLEGAL.search(text) is None:
        return found
    for number, line in enumerate(split_lines(text), start=1):
        reported: set[str] = set()
        for hit in XML_ILLEGAL.finditer(line):
            ch = hit.group()
            if ch in reported:
                continue
            reported.add(ch)
            found.append((number, f"illegal character U+{ord(ch):04X} — XML forbids it, so the "
                                  f"artifact could not be well-formed{_xml_illegal_reason(ch)}",
                          hit.start() + 1))
    return found
