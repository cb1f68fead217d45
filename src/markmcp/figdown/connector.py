"""The connector line grammar: ``edge``, ``flowline``, ``transition``, ``message``.

::

    connector = keyword ws id ws? [label]? ws? operator ws? [label]? ws? id options
    operator  = '--' | '->' | '<-' | '<->'
              | '-' [label] '-' | '-' [label] '->' | '<-' [label] '-' | '<-' [label] '->'
    label     = '[' text-with-balanced-brackets ']' | '["' quoted '"]'

The three ``[label]`` positions are tail, mid and head.  The connector
keyword a genre uses is checked by the caller; this module only scans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import messages as M
from .lexer import ESCAPES, WS_CHARS, LexError, trim

# An id as the connector sees it: no "--" inside, so `a--b` is a, --, b.
CONNECTOR_ID_RE = re.compile(r"[A-Za-z_](?:[A-Za-z0-9_]|-(?!-))*")
#: Characters that end an id on a connector line.
ID_STOP_CHARS = WS_CHARS | frozenset("[-<>")


@dataclass
class Connector:
    a: str
    op: str
    b: str
    tail: str | None
    mid: str | None
    head: str | None
    rest: str  # the option text after the target id


def skip_ws(src: str, pos: int) -> int:
    while pos < len(src) and src[pos] in WS_CHARS:
        pos += 1
    return pos


def parse_id(src: str, pos: int) -> tuple[int, str | None]:
    m = CONNECTOR_ID_RE.match(src, pos)
    if not m:
        return pos, None
    return m.end(), m.group(0)


def id_continues(src: str, pos: int) -> bool:
    """Is there more id-like text at ``pos`` (a bad id, not the end of one)?"""
    return pos < len(src) and src[pos] not in ID_STOP_CHARS


def parse_label(src: str, pos: int) -> tuple[int, str]:
    """label = '[' ... ']' — at the opening bracket."""
    pos += 1
    if pos < len(src) and src[pos] == '"':
        pos += 1
        out: list[str] = []
        while pos < len(src) and src[pos] != '"':
            if src[pos] == "\\":
                esc = src[pos + 1] if pos + 1 < len(src) else ""
                if esc not in ESCAPES:
                    raise LexError(f'unknown escape "\\{esc}" (allowed: \\n \\" \\\\)', pos)
                out.append(ESCAPES[esc])
                pos += 2
                continue
            out.append(src[pos])
            pos += 1
        if pos >= len(src):
            raise LexError("the quoted text inside [label] never closes — add the closing quote", pos)
        pos += 1
        if pos >= len(src) or src[pos] != "]":
            raise LexError("a quoted [label] must close with ] straight after its closing quote", pos)
        text = "".join(out)
        if not text:
            raise LexError("empty [label]", pos)
        return pos + 1, text
    depth, start = 1, pos
    while pos < len(src):
        ch = src[pos]
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if not depth:
                text = trim(src[start:pos])
                if not text:
                    raise LexError("empty [label]", pos)
                return pos + 1, text
        pos += 1
    raise LexError("unterminated [label] — for unbalanced brackets use [\"...\"]", pos)


def parse_endpoint(src: str, pos: int, missing: str) -> tuple[int, str]:
    if pos < len(src) and src[pos] == '"':
        raise LexError(M.ID_SPELLING, pos)
    end, ident = parse_id(src, pos)
    if ident is None:
        raise LexError(M.ID_SPELLING if id_continues(src, pos) else missing, pos)
    if id_continues(src, end):
        raise LexError(M.ID_SPELLING, end)
    return end, ident


def parse_operator(src: str, pos: int, keyword: str) -> tuple[int, str, str | None]:
    """operator (with an optional mid label) -> (pos, op, mid)."""
    if src.startswith("<-", pos):
        left, pos = "<-", pos + 2
    elif pos < len(src) and src[pos] == "-":
        left, pos = "-", pos + 1
    else:
        raise LexError(f"{keyword} needs an operator: -> <- -- <-> (a [mid] label splits it: -[x]->)", pos)
    if pos < len(src) and src[pos] == "[":
        pos, mid = parse_label(src, pos)
        if src.startswith("->", pos):
            return pos + 2, ("<->" if left == "<-" else "->"), mid
        if pos < len(src) and src[pos] == "-":
            return pos + 1, ("<-" if left == "<-" else "--"), mid
        raise LexError("expected - or -> to close the operator after [label]", pos)
    if left == "<-":
        if pos < len(src) and src[pos] == ">":
            return pos + 1, "<->", None
        return pos, "<-", None
    if pos < len(src) and src[pos] == "-":
        return pos + 1, "--", None
    if pos < len(src) and src[pos] == ">":
        return pos + 1, "->", None
    raise LexError(f"{keyword} needs an operator: -> <- -- <->", pos)


def parse_connector(src: str, keyword: str) -> Connector:
    """Scan a whole (trimmed, comment-free) connector line; raises LexError."""
    pos = skip_ws(src, len(keyword))
    pos, a = parse_endpoint(src, pos, f"{keyword} needs <id> ->|<-|--|<-> <id>")
    pos = skip_ws(src, pos)
    tail = None
    if pos < len(src) and src[pos] == "[":
        pos, tail = parse_label(src, pos)
    pos = skip_ws(src, pos)
    pos, op, mid = parse_operator(src, pos, keyword)
    pos = skip_ws(src, pos)
    head = None
    if pos < len(src) and src[pos] == "[":
        pos, head = parse_label(src, pos)
    pos = skip_ws(src, pos)
    pos, b = parse_endpoint(src, pos, f"{keyword} needs a target id after the operator")
    return Connector(a, op, b, tail, mid, head, src[pos:])
