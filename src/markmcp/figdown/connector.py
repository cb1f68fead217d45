"""The connector line grammar: ``edge``, ``flowline``, ``transition``, ``message``.

::

    connector = keyword ws* endpoint ws* label? ws* operator ws* label? ws* endpoint options
    operator  = opening (label closing-after-label | closing)
    opening   = '<-' | '-'
    closing   = '>' | '-'             ; after '-':  '--' or '->'
              | '>' | ''              ; after '<-': '<->' or '<-'
    closing-after-label = '->' | '-'
    label     = '[' text-with-balanced-brackets ']' | '[' quoted ']'

The three ``label`` positions are tail, mid and head.  An operator is read
as an *opening* and a *closing*; which arrow the pair spells is looked up in
:data:`ARROWS` (plain) or :data:`ARROWS_AROUND_LABEL` (split by a mid label).
The connector keyword a genre uses is checked by the caller; this module
only scans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import messages as M
from .lexer import WS_CHARS, LexError, UnterminatedString, parse_quoted, skip_ws, trim

# --- character sets and tables (named after the grammar) -------------------

#: endpoint as a connector line spells it: no "--" inside, so `a--b` is a, --, b.
ENDPOINT_RE = re.compile(r"[A-Za-z_](?:[A-Za-z0-9_]|-(?!-))*")
#: Characters that may follow an endpoint (anything else means a misspelt id).
AFTER_ENDPOINT = WS_CHARS | frozenset("[-<>")
LABEL_OPEN, LABEL_CLOSE, QUOTE = "[", "]", '"'
#: opening -> the closings it may take without a label, longest first, and the arrow each spells.
ARROWS: dict[str, tuple[tuple[str, str], ...]] = {
    "<-": ((">", "<->"), ("", "<-")),
    "-": (("-", "--"), (">", "->")),
}
#: opening -> the closings it may take after a mid label, longest first.
ARROWS_AROUND_LABEL: dict[str, tuple[tuple[str, str], ...]] = {
    "<-": (("->", "<->"), ("-", "<-")),
    "-": (("->", "->"), ("-", "--")),
}
OPENINGS = ("<-", "-")


@dataclass
class Connector:
    """One scanned connector line: endpoints, arrow, the three labels, and the
    option text left after the target endpoint."""

    a: str
    op: str
    b: str
    tail: str | None
    mid: str | None
    head: str | None
    rest: str


# --- labels ----------------------------------------------------------------


def quoted_label(src: str, pos: int) -> tuple[int, str]:
    """'[' quoted ']' — at the quote right after the bracket."""
    try:
        pos, text = parse_quoted(src, pos)
    except UnterminatedString as err:
        raise LexError("the quoted text inside [label] never closes — add the closing quote", err.col) from None
    if not src.startswith(LABEL_CLOSE, pos):
        raise LexError("a quoted [label] must close with ] straight after its closing quote", pos)
    if not text:
        raise LexError("empty [label]", pos)
    return pos + 1, text


def bracket_label(src: str, pos: int) -> tuple[int, str]:
    """'[' text-with-balanced-brackets ']' — just inside the opening bracket."""
    depth = 1
    for at in range(pos, len(src)):
        ch = src[at]
        if ch == LABEL_OPEN:
            depth += 1
        elif ch == LABEL_CLOSE:
            depth -= 1
            if depth == 0:
                text = trim(src[pos:at])
                if not text:
                    raise LexError("empty [label]", at)
                return at + 1, text
    raise LexError("unterminated [label] — for unbalanced brackets use [\"...\"]", len(src))


def parse_label(src: str, pos: int) -> tuple[int, str]:
    """label — at the opening bracket."""
    if src.startswith(QUOTE, pos + 1):
        return quoted_label(src, pos + 1)
    return bracket_label(src, pos + 1)


def optional_label(src: str, pos: int) -> tuple[int, str | None]:
    """label? — then any whitespace after it."""
    text = None
    if src.startswith(LABEL_OPEN, pos):
        pos, text = parse_label(src, pos)
    return skip_ws(src, pos), text


# --- endpoints -------------------------------------------------------------


def misspelt_at(src: str, pos: int) -> bool:
    """Is there id-like text at ``pos`` that no endpoint can be read from?"""
    return pos < len(src) and src[pos] not in AFTER_ENDPOINT


def parse_endpoint(src: str, pos: int, missing: str) -> tuple[int, str]:
    """endpoint — ``missing`` is the message when there is none at all."""
    if src.startswith(QUOTE, pos):
        raise LexError(M.ID_SPELLING, pos)
    found = ENDPOINT_RE.match(src, pos)
    if found is None:
        raise LexError(M.ID_SPELLING if misspelt_at(src, pos) else missing, pos)
    if misspelt_at(src, found.end()):
        raise LexError(M.ID_SPELLING, found.end())
    return found.end(), found.group()


# --- operators -------------------------------------------------------------


def _closing(src: str, pos: int, choices: tuple[tuple[str, str], ...]) -> tuple[int, str] | None:
    for closing, arrow in choices:
        if src.startswith(closing, pos):
            return pos + len(closing), arrow
    return None


def parse_operator(src: str, pos: int, keyword: str) -> tuple[int, str, str | None]:
    """operator -> (pos, arrow, mid label or None)."""
    opening = next((o for o in OPENINGS if src.startswith(o, pos)), None)
    if opening is None:
        raise LexError(f"{keyword} needs an operator: -> <- -- <-> (a [mid] label splits it: -[x]->)", pos)
    pos += len(opening)
    if src.startswith(LABEL_OPEN, pos):
        pos, mid = parse_label(src, pos)
        closed = _closing(src, pos, ARROWS_AROUND_LABEL[opening])
        if closed is None:
            raise LexError("expected - or -> to close the operator after [label]", pos)
        return closed[0], closed[1], mid
    closed = _closing(src, pos, ARROWS[opening])
    if closed is None:
        raise LexError(f"{keyword} needs an operator: -> <- -- <->", pos)
    return closed[0], closed[1], None


def parse_connector(src: str, keyword: str) -> Connector:
    """connector — a whole (trimmed, comment-free) line; raises LexError."""
    pos = skip_ws(src, len(keyword))
    pos, source = parse_endpoint(src, pos, f"{keyword} needs <id> ->|<-|--|<-> <id>")
    pos, tail = optional_label(src, skip_ws(src, pos))
    pos, arrow, mid = parse_operator(src, pos, keyword)
    pos, head = optional_label(src, skip_ws(src, pos))
    pos, target = parse_endpoint(src, pos, f"{keyword} needs a target id after the operator")
    return Connector(source, arrow, target, tail, mid, head, src[pos:])
