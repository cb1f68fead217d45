"""The closed registry of anchor display rules and the `nbsp` round-trip proof.

A display rule (``<!--vmark=sheet.name|rule-->``) changes only how ``fmt`` writes a
value into prose.  This module says which values each rule accepts, whether a rule can
render inside a code span, and, for ``nbsp``, whether the rendered words written between
the seed's own delimiters would read back as exactly the stored words.  The round trip
is decided by a small model of CommonMark/GFM inline parsing: any construct that could
start inside the span (emphasis, code, escapes, entities, links, raw HTML, autolinks,
strikethrough) or a delimiter that could no longer open in its context refuses the
anchor; the engine never escapes an author's string.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from .values import CellNumber, parse_cell_number


@dataclass(frozen=True)
class DisplayRule:
    """One registry entry: the phrase for the accepted type and code-span legibility."""

    name: str
    accepted: str
    inline_code: bool


REGISTRY: tuple[DisplayRule, ...] = (
    DisplayRule("percent", "numeric only", True),
    DisplayRule("nbsp", "string only", False),
    DisplayRule("unit", "numeric with a unit", True),
)
RULES = {r.name: r for r in REGISTRY}
TYPE_MESSAGE = "a display rule is only legal on a value it accepts (" + "; ".join(
    f"{r.name}: {r.accepted}" for r in REGISTRY) + ")"

MALFORMED_MESSAGE = "malformed anchor comment — expected `<!--vmark=sheet.name-->` or `<!--vmark=sheet.name|rule-->`"
NO_VALUE_MESSAGE = "no value to rewrite in front of this anchor"
BARE_SEED_MESSAGE = "a display rule needs a delimited seed — wrap a placeholder instead, such as **_**"

# characters named when a value cannot be written back, in this order of search
SYNTAX_CHARS = "\\`*_[]<&~"
ASCII_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
ENTITY_RE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]*);")
AUTOLINK_RE = re.compile(r"(?i)(?:www\.|https?://|ftp://)|[A-Za-z0-9._+-]+@[A-Za-z0-9-]+\.[A-Za-z]")
HTML_START_RE = re.compile(r"<[A-Za-z/!?]")


ISO_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


def bare_token_refusal(value: object, token: str) -> str | None:
    """Why a bare word in front of a plain anchor is not a target for this value's type.

    A number needs a number-shaped token (decorated or not), a date a strict ISO date,
    and a string is never bare prose.  Returns None when the token qualifies.
    """
    if isinstance(value, Decimal):
        if isinstance(parse_cell_number(token), CellNumber):
            return None
        return "no number to rewrite in front of this anchor — wrap a placeholder instead, such as **0** or **_**"
    if isinstance(value, date):
        if ISO_DATE_RE.fullmatch(token):
            try:
                date.fromisoformat(token)
                return None
            except ValueError:
                pass
        return ("no date to rewrite in front of this anchor — wrap a placeholder instead, "
                "such as **2026-01-01** or **_**")
    return "a string anchor cannot rewrite bare prose — wrap a placeholder instead, such as **_**"


def code_span_message(rule: str) -> str:
    return f"display rule `{rule}` cannot render inside a code span — wrap the seed in **…** or *…* instead"


def nbsp_words(value: str) -> list[str]:
    """The stored string's words: split on any Unicode whitespace, U+00A0 included."""
    return value.split()


def nbsp_render(value: str) -> str:
    """What ``fmt`` writes for ``|nbsp``: the words joined with the ``&nbsp;`` entity."""
    return "&nbsp;".join(nbsp_words(value))


def _is_space(c: str) -> bool:
    return c == "" or c.isspace()


def _is_punct(c: str) -> bool:
    return c in ASCII_PUNCT or (c != "" and unicodedata.category(c).startswith(("P", "S")))


def _can_open(delim: str, before: str, after: str) -> bool:
    """CommonMark: may a run of ``delim`` with these neighbours open emphasis?"""
    left = not _is_space(after) and (not _is_punct(after) or _is_space(before) or _is_punct(before))
    if delim == "*":
        return left
    right = not _is_space(before) and (not _is_punct(before) or _is_space(after) or _is_punct(after))
    return left and (not right or _is_punct(before))


def _can_close(delim: str, before: str, after: str) -> bool:
    right = not _is_space(before) and (not _is_punct(before) or _is_space(after) or _is_punct(after))
    if delim == "*":
        return right
    left = not _is_space(after) and (not _is_punct(after) or _is_space(before) or _is_punct(before))
    return right and (not left or _is_punct(after))


def _breaks_inline(text: str) -> bool:
    """True when ``text`` could start an inline construct of its own.

    ``text`` is the words joined with U+00A0, the form a reader sees: the ``&nbsp;``
    joiner itself always decodes, so only the author's characters are examined.
    """
    for i, c in enumerate(text):
        nxt = text[i + 1] if i + 1 < len(text) else ""
        prev = text[i - 1] if i else ""
        # an escape: before punctuation, before the `&` of the joiner, or before the closer
        if c == "\\" and (nxt in ASCII_PUNCT or nxt in ("", "\u00a0")):
            return True
        if c == "*":
            return True
        if c == "_" and not (prev.isalnum() and nxt.isalnum()):
            return True
        if c == "[" and "]" in text[i:]:
            return True
        if c == "~" and text.count("~") >= 2:
            return True
    if "`" in text:
        runs = [m.group(0) for m in re.finditer(r"`+", text)]
        if len(runs) != len(set(runs)):  # a run with an equal run after it is a code span
            return True
    if ENTITY_RE.search(text) or HTML_START_RE.search(text) or AUTOLINK_RE.search(text):
        return True
    return False


def nbsp_refusal(value: str, opener: str, closer: str, before: str, after: str) -> str | None:
    """Why ``value`` cannot be written between ``opener`` and ``closer`` and read back.

    ``before`` is the character in front of the opening delimiter ("" at a line start),
    ``after`` the one after the closing delimiter.  Returns the ANCHOR message, or None
    when the rendering reads back as the stored words.
    """
    inside = f"{opener}…{closer}"
    words = nbsp_words(value)
    if not words:
        return f"display rule `nbsp` cannot write an empty value inside {inside}"
    rendered = "\u00a0".join(words)
    ok = not _breaks_inline(rendered)
    delim = opener[0]
    if ok and not _can_open(delim, before, rendered[0]):
        ok = False
    if ok and not _can_close(delim, rendered[-1], after):
        ok = False
    if ok:
        return None
    seen: list[str] = []
    for c in value:
        if c in SYNTAX_CHARS and c not in seen:
            seen.append(c)
    message = f"display rule `nbsp` cannot write this value inside {inside} and read it back unchanged"
    if seen:
        message += " — it contains Markdown syntax: " + " ".join(seen)
    return message
