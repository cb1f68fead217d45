"""Writing YAML for sidecar edits: scalars and entries in a file's own layout, and one
comment item edited key by key with every untouched line kept as it was.

An edit never re-serialises a whole sidecar.  :func:`edit_item` rebuilds the lines of one
``comments`` item from its old lines (as read by :mod:`markmcp.mrsf.yamlscan`), the old
and the new data: entries whose value did not change keep their lines byte for byte
(quoting, folding, end-of-line comments), a changed entry is written anew where it stood
(keeping its end-of-line comment), a removed entry leaves its full comment lines behind,
new keys follow the last entry.  :func:`emit_item` writes a new item.

Rules kept: an end-of-line comment stays with its line (and goes away with it when the
line is deleted, as do those inside a nested value written anew); full comment lines and
blank lines between entries are never dropped; a key that moves (removed and set again)
takes its lines and comments along; comment lines never come to stand where a block
scalar would read them as text; a new value takes the scalar style of the value it
replaces (single or double quotes, literal or folded block) when that style can hold it.
An item that cannot be edited entry by entry (its keys not read in order, a changed
value of unknown form starting on its key's line) is written anew by the caller, its full
comment lines after it.

The emitter writes what ruamel.yaml would write for the same value in the same layout
(the text is always verified by reading it back before it replaces a file).  Pure.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from .yamlscan import Binary, Entry, resolve_plain

#: A string written as a plain scalar must look like this (and not be a YAML word).
_PLAIN_SAFE = re.compile(r"[A-Za-z_][A-Za-z0-9 _./()@+\-]*")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf"}
#: A key written plain.
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
#: Characters written as-is inside double quotes (everything else is escaped).
_DQ_PLAIN = re.compile(r'[^\x00-\x1f\x7f-\x9f"\\\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]*')
_DQ_NAMED = {
    "\x00": "\\0", "\x07": "\\a", "\x08": "\\b", "\t": "\\t", "\n": "\\n", "\x0b": "\\v",
    "\x0c": "\\f", "\r": "\\r", "\x1b": "\\e", '"': '\\"', "\\": "\\\\", "\x85": "\\N",
    "\xa0": "\\_", "\u2028": "\\L", "\u2029": "\\P",
}
#: Characters a single-quoted or block scalar may hold as they are.
_PRINTABLE = re.compile(r"[^\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]*")


@dataclass
class Layout:
    """Where a sidecar puts things: how far a nested mapping, a list's ``-`` and the
    content of a list item are indented from their parent (the ``comments`` items: from
    column 0), and whether the file starts with ``---``."""

    mapping: int = 2
    offset: int = 2
    sequence: int = 4
    explicit_start: bool = False


class CannotEmit(Exception):
    """A value this emitter does not write (the caller falls back)."""


# ---------------------------------------------------------------------------
# Scalars
# ---------------------------------------------------------------------------


def plain_ok(value: str) -> bool:
    """True when ``value`` can be written as a plain scalar and reads back as itself."""
    return (
        bool(_PLAIN_SAFE.fullmatch(value))
        and value.lower() not in _YAML_WORDS
        and not value.endswith(" ")
        and " #" not in value
        and resolve_plain(value) == value
    )


def double_quoted(value: str) -> str:
    out = ['"']
    pos = 0
    n = len(value)
    while pos < n:
        m = _DQ_PLAIN.match(value, pos)
        end = m.end()
        if end > pos:
            out.append(value[pos:end])
            pos = end
            continue
        ch = value[pos]
        named = _DQ_NAMED.get(ch)
        if named is not None:
            out.append(named)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02X}" if code <= 0xFF else f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}")
        pos += 1
    out.append('"')
    return "".join(out)


def single_quoted(value: str) -> str | None:
    if not value or value[0] == " " or value[-1] == " " or not _PRINTABLE.fullmatch(value):
        return None
    return "'" + value.replace("'", "''") + "'"


def float_text(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    back = resolve_plain(text)
    if not isinstance(back, float) or back != value:
        raise CannotEmit(f"float {value!r}")
    return text


def scalar_text(value: Any, style: str | None = None) -> str:
    """One-line text of a scalar; ``style`` is the style of the value it replaces
    (``plain``, ``'``, ``"``); strings otherwise follow :func:`plain_ok`."""
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return float_text(value)
    if isinstance(value, Binary):
        return "!!binary " + value
    if isinstance(value, str):
        if style == "'" and "\n" not in value:
            text = single_quoted(value)
            if text is not None:
                return text
        if style != '"' and plain_ok(value):
            return value
        return double_quoted(value)
    raise CannotEmit(f"value of type {type(value).__name__}")


def key_text(key: str) -> str:
    if _PLAIN_KEY.fullmatch(key) and resolve_plain(key) == key:
        return key
    return double_quoted(key)


def block_lines(value: str, style: str, indent: int) -> list[str] | None:
    """``["|-", line, ...]`` for a literal (or one-line folded) block scalar holding
    ``value`` with content at column ``indent``; None when a block cannot hold it."""
    if not value or value.endswith("\n\n") or not _PRINTABLE.fullmatch(value.replace("\n", "")):
        return None
    body = value[:-1] if value.endswith("\n") else value
    chomp = "" if value.endswith("\n") else "-"
    parts = body.split("\n")
    if parts[0] == "" or parts[0][0] == " " or parts[-1] == "":
        return None
    if style == ">" and len(parts) == 1:
        head = ">" + chomp
    else:
        head = "|" + chomp
    pad = " " * indent
    return [head] + [pad + p if p else "" for p in parts]


# ---------------------------------------------------------------------------
# Entries and items
# ---------------------------------------------------------------------------


def emit_entry(key: str, value: Any, col: int, layout: Layout, style: str | None = None) -> list[str]:
    """Lines of ``key: value`` in a block mapping at ``col``."""
    pad = " " * col
    k = key_text(key)
    if isinstance(value, dict):
        if not value:
            return [f"{pad}{k}: {{}}"]
        out = [f"{pad}{k}:"]
        for kk, vv in value.items():
            out.extend(emit_entry(kk, vv, col + layout.mapping, layout))
        return out
    if isinstance(value, list):
        if not value:
            return [f"{pad}{k}: []"]
        return [f"{pad}{k}:"] + emit_items(value, col + layout.offset, col + layout.sequence, layout)
    if isinstance(value, str) and not isinstance(value, Binary) and style in ("|", ">"):
        multi = "\n" in value.rstrip("\n")
        block = block_lines(value, "|" if multi else style, col + layout.mapping)
        if block is not None:
            return [f"{pad}{k}: {block[0]}"] + block[1:]
        style = '"'
    text = scalar_text(value, style)
    return [f"{pad}{k}: {text}" if text else f"{pad}{k}:"]


def emit_items(items: list, dash: int, content: int, layout: Layout) -> list[str]:
    """Lines of the items of a block list (``-`` at ``dash``, content at ``content``)."""
    lead = " " * dash + "-" + " " * (content - dash - 1)
    out: list[str] = []
    for item in items:
        if isinstance(item, dict) and item:
            lines: list[str] = []
            for kk, vv in item.items():
                lines.extend(emit_entry(kk, vv, content, layout))
        elif isinstance(item, list) and item:
            lines = emit_items(item, content + layout.offset, content + layout.sequence, layout)
            lines[0] = " " * content + lines[0].lstrip(" ")
        else:
            text = "{}" if item == {} else "[]" if item == [] else scalar_text(item)
            out.append((lead + text) if text else lead.rstrip(" "))
            continue
        lines[0] = lead + lines[0][content:]
        out.extend(lines)
    return out


def emit_item(item: Any, layout: Layout) -> list[str]:
    """Lines of one new ``comments`` item."""
    return emit_items([item], layout.offset, layout.sequence, layout)


# ---------------------------------------------------------------------------
# Editing one item in place
# ---------------------------------------------------------------------------


def _comment_lines(lines: list[str], start: int, end: int, scalars: list[tuple[int, int]]) -> list[str]:
    """Full comment lines among ``lines[start:end]`` that are not inside a scalar."""
    out = []
    for j in range(start, end):
        s = lines[j].lstrip(" ")
        if s.startswith("#") and not any(a <= j <= b for a, b in scalars):
            out.append(lines[j])
    return out


#: What may follow the colon of a key whose value starts on the next line: an anchor, a
#: tag, then perhaps an end-of-line comment (group 1).
_PROPS_THEN_EOL = re.compile(r"(?:[ \t]+[&!][^ \t]*)*([ \t]+#.*)?[ \t]*")


def _eol(lines: list[str], entry: Entry) -> str | None:
    """The end-of-line comment after an entry's value (with its leading spaces), or '';
    None when it cannot be told (a value of unknown form that starts on its key's line)."""
    if entry.style in ("map", "seq", "empty", "?"):
        line = lines[entry.line]
        if entry.style == "?":
            key = re.match(re.escape(str(entry.key)) + r":(?=[ \t]|$)", line[entry.col:])
            m = _PROPS_THEN_EOL.fullmatch(line, entry.col + key.end()) if key else None
            if m is None:
                return None
            rest = m.group(1) or ""
        else:
            colon = line.index(":", entry.col)
            rest = line[colon + 1:]
    else:
        rest = lines[entry.last][entry.end_col:]
    if "#" not in rest:
        return ""
    return rest if rest.startswith(" ") else " " + rest


#: A line that may open a block scalar (its header ends the line; an end-of-line comment
#: may follow).  Over-matching is harmless: it only makes comment lines after it move left.
_BLOCK_OPENS = re.compile(r"(?:^|[ \t:-])[|>](?:[1-9][-+]?|[-+][1-9]?)?(?:[ \t]+#.*)?[ \t]*$")


def may_end_in_block(lines: list[str]) -> bool:
    """True when the value these lines end with may be a block scalar (a comment line
    indented as far as its content would then be read as part of it)."""
    return any(_BLOCK_OPENS.search(line) for line in lines)


def outside_block(lines: list[str], col: int) -> list[str]:
    """``lines`` (comment and blank lines that now follow a value which may be a block
    scalar) moved out of its reach: a comment line indented past ``col`` (the column of
    the entries the value belongs to, left of any block content) is put at ``col``, a
    line of spaces only is emptied (as block content it would be text).  Other lines are
    kept as they are."""
    out = []
    for line in lines:
        s = line.lstrip(" ")
        if not s:
            out.append("")
        elif s[0] == "#" and len(line) - len(s) > col:
            out.append(" " * col + s)
        else:
            out.append(line)
    return out


def edit_item(lines: list[str], entries: list[Entry], scalars: list[tuple[int, int]],
              old: dict, new: dict, layout: Layout, same, tail: list[str] = ()) -> list[str] | None:
    """The new lines of a block-mapping item whose old lines are ``lines`` (its entries
    ``entries``; ``scalars``: line ranges inside scalars, where a ``#`` line is text),
    changed from ``old`` to ``new``, followed by ``tail`` (the comment and blank lines
    after the item, kept after it); None when the change cannot be made entry by entry
    (the keys read are not the item's, or the end-of-line comment of a changed value of
    unknown form cannot be told from it).

    ``new``'s keys are written in its own order: its longest leading run that keeps
    ``old``'s order stays where it was, and each key after that run (new, or moved, as
    a key removed and set again is) is written at the end.  A moved key takes its
    comments along: its lines as they were when its value is unchanged (anchor, tag,
    style and all), else its new value with its end-of-line comment and the comment
    lines inside its old value.  A removed key leaves its comment lines where it stood.
    When no key keeps its place, the first key of ``new`` opens the item; when ``new``
    is empty, the item is ``{}``, its comment lines after it.

    Comment lines that come to follow another value than before (those a removed entry
    leaves, and those after a value written anew) stay comment lines: when that value
    may be a block scalar, they are moved left of its content (:func:`outside_block`)."""
    old_keys = [e.key for e in entries]
    if old_keys != list(old):
        return None
    by_key = {e.key: e for e in entries}
    at = {key: n for n, key in enumerate(old_keys)}
    head: set[Any] = set()
    last = -1
    for key in new:
        n = at.get(key, -1)
        if n < last or n < 0:
            break
        head.add(key)
        last = n
    col = entries[0].col
    lead = lines[0][:col] if entries[0].line == 0 else None   # the item's "- "
    out: list[str] = list(lines[:entries[0].line])
    early: list[str] | None = [] if lead is not None else None   # lines that would come before the dash
    block = False                   # the value written last may be a block scalar
    moved = False                   # ... and it is not the value its next lines followed

    def put(extra: list[str]) -> None:
        if early is not None:
            early.extend(extra)
        else:
            out.extend(outside_block(extra, col) if block and moved else extra)

    def own_lines(e: Entry) -> list[str]:
        own = list(lines[e.line:e.last + 1])
        if e.line == 0:
            own[0] = " " * e.col + own[0][e.col:]
        return own

    def rewritten(key: Any) -> tuple[list[str], bool] | None:
        """The lines of a key written anew or moved, and whether they may end in a block."""
        e = by_key.get(key)
        if e is None:
            own = emit_entry(key, new[key], col, layout)
            return own, False
        if same(old[key], new[key]):
            own = own_lines(e)
            return own, e.style in ("|", ">") or (e.style in ("map", "seq", "?") and may_end_in_block(own))
        style = e.style if e.style in ("plain", "'", '"', "|", ">") else None
        eol = _eol(lines, e)
        if eol is None:
            return None
        own = emit_entry(key, new[key], e.col, layout, style)
        own[0] += eol
        may_block = may_end_in_block(own)
        inner = _comment_lines(lines, e.line + 1, e.last + 1, scalars)
        own.extend(outside_block(inner, col) if may_block else inner)
        return own, may_block

    def write(own: list[str], may_block: bool, same_place: bool) -> None:
        nonlocal early, block, moved
        if early is not None:
            own[0] = lead + own[0][col:]
            out.extend(own)
            block, moved = may_block, True
            waiting, early = early, None
            put(waiting)
        else:
            out.extend(own)
        block, moved = may_block, not same_place

    if not head:
        # no key keeps its place: the first new key opens the item
        if new:
            first = next(iter(new))
            got = rewritten(first)
            if got is None:
                return None
            write(got[0], got[1], False)
            head_done = {first}
        else:
            out.append((lead if lead is not None else " " * col) + "{}")
            early, block, moved = None, False, True
            head_done = set()
    else:
        head_done = set()
    for idx, e in enumerate(entries):
        seg_end = entries[idx + 1].line if idx + 1 < len(entries) else len(lines)
        between = lines[e.last + 1:seg_end]
        if e.key not in head:
            if e.key not in new:
                moved = True
                put(_comment_lines(lines, e.line + 1, e.last + 1, scalars))
            moved = True
            put(between)
            continue
        if same(old[e.key], new[e.key]):
            own = list(lines[e.line:e.last + 1])
            write(own, e.style in ("|", ">") or (e.style in ("map", "seq", "?") and may_end_in_block(own)), True)
        else:
            got = rewritten(e.key)
            if got is None:
                return None
            write(got[0], got[1], False)
        put(between)
    if early is not None:
        return None
    for key in new:
        if key not in head and key not in head_done:
            got = rewritten(key)
            if got is None:
                return None
            out.extend(got[0])
            block, moved = got[1], True
    put(list(tail))
    return out
