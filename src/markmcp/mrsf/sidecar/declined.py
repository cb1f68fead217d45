"""Items the fast reader (:mod:`markmcp.mrsf.yamlscan`) declines - a tab, an anchor, a
tag - measured with the full reader: where their entries stand and which of their
lines are comment lines, so that an edit can still keep what it does not change."""

from __future__ import annotations

import re
from typing import Any

from ..yamlscan import Entry
from .values import same_value
from .yaml12 import _rt_plain

_SIMPLE_KEY = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_.\-/]*):(?=[ \t]|$)")
_BLOCK_HEAD = re.compile(r"[|>]([1-9]?[+-]?|[+-][1-9])(?=[ \t]|$)")


def _rt_entries(lines: list[str], item: Any) -> tuple[list[Entry], list[tuple[int, int]]] | None:
    """Entries of a block-mapping item the fast reader declined (a tab, an anchor, a tag
    ...), from the full reader's key positions and the item's lines: exact for one-line
    plain and quoted scalars, empty values and block scalars; every other value gets the
    style ``other`` when it is a scalar on its key's line (a tag, an anchor: written anew
    without them), else ``?`` (its lines run to the next key: kept, never rewritten)."""
    from ruamel.yaml.comments import CommentedMap

    if not isinstance(item, CommentedMap) or item.fa.flow_style():
        return None
    keys = list(item)
    starts = [item.lc.key(k) for k in keys]
    if not keys or [line for line, _ in starts] != sorted(line for line, _ in starts):
        return None
    entries: list[Entry] = []
    scalars: list[tuple[int, int]] = []
    for n, key in enumerate(keys):
        kl, kc = starts[n]
        nxt = starts[n + 1][0] if n + 1 < len(keys) else len(lines)
        if kl >= len(lines) or (n + 1 < len(keys) and nxt == kl):
            return None
        line = lines[kl]
        m = _SIMPLE_KEY.match(line, kc)
        rest_clean = all(_comment_or_blank(lines[j]) for j in range(kl + 1, nxt))
        last, style, end_col, indent = kl, "?", len(line), 0
        if m is not None and m.group(1) == str(key):
            vc = m.end()
            while vc < len(line) and line[vc] in " \t":
                vc += 1
            first = line[vc:vc + 1]
            if first in ("", "#") and item[key] is None and rest_clean:
                style = "empty"
            elif first in ("'", '"'):
                end = _quoted_end(line, vc)
                if end is not None and rest_clean and _comment_or_blank(line[end:]) and (
                        end == len(line) or line[end] in " \t"):
                    style, end_col = first, end
            elif first in ("|", ">"):
                head = _BLOCK_HEAD.match(line, vc)
                if head is not None and _comment_or_blank(line[head.end():]):
                    body = [j for j in range(kl + 1, nxt) if lines[j].strip(" ")]
                    digits = [c for c in head.group(1) if c.isdigit()]
                    content = kc + int(digits[0]) if digits else (
                        len(lines[body[0]]) - len(lines[body[0]].lstrip(" ")) if body else kc + 1)
                    inside = [j for j in body if len(lines[j]) - len(lines[j].lstrip(" ")) >= content]
                    if content > kc and "+" not in head.group(1):
                        style, indent = first, content
                        last = inside[-1] if inside else kl
                        end_col = len(lines[last])
                        if last > kl:
                            scalars.append((kl + 1, last))
            elif first not in "&*!|>[]{}%@`" and isinstance(item[key], (str, int, float, bool)) and (
                    rest_clean or isinstance(item[key], str)):
                # a plain scalar, perhaps over several lines (no comment line can stand
                # inside one: the lines after its last are comment or blank lines)
                more = [j for j in range(kl + 1, nxt) if not _comment_or_blank(lines[j])]
                last = more[-1] if more else kl
                tail_line = lines[last]
                stop = len(tail_line)
                for i in range(vc if last == kl else 1, len(tail_line)):
                    if tail_line[i] == "#" and tail_line[i - 1] in " \t":
                        stop = i
                        break
                style, end_col = "plain", len(tail_line[:stop].rstrip(" \t"))
                if last > kl:
                    scalars.append((kl + 1, last))
        if style == "?" and rest_clean and not isinstance(item[key], (dict, list)):
            style = "other"       # a one-line scalar with a tag or anchor: rewritable without them
            if m is not None and m.group(1) == str(key):
                end_col = _scalar_end(line, m.end())   # (its end-of-line comment stays)
        if style == "?":
            content_lines = [j for j in range(kl + 1, nxt) if not _comment_or_blank(lines[j])
                             or len(lines[j]) - len(lines[j].lstrip(" ")) > kc]
            last = content_lines[-1] if content_lines else kl
            end_col = len(lines[last])
        entries.append(Entry(str(key), kl, kc, last, style, end_col, indent))
    return entries, scalars


def _rt_comment_lines(lines: list[str]) -> list[int]:
    """Indexes of the full comment lines among ``lines`` (one or more list items the
    fast reader declined), told apart from scalar content that looks like one (a line of
    a block or quoted scalar starting with ``#``) by the full reader: a comment line
    can be left out without changing the data, a content line cannot.  When the lines
    cannot be read alone (an alias of an anchor elsewhere), every line that looks like a
    comment is taken: keeping a content line as a comment costs nothing, dropping a
    comment is what must not happen."""
    looks = [j for j, line in enumerate(lines) if line.lstrip(" \t").startswith("#")]
    if not looks:
        return []
    whole = _rt_plain("\n".join(lines) + "\n")
    if whole is None:
        return looks

    def without(skip: set[int]) -> Any:
        return _rt_plain("\n".join(line for j, line in enumerate(lines) if j not in skip) + "\n")

    if same_value(without(set(looks)), whole):
        return looks
    return [j for j in looks if same_value(without({j}), whole)]


def _scalar_end(line: str, pos: int) -> int:
    """Where the one-line scalar after ``line[pos]`` (a key's colon) ends, perhaps with an
    anchor and a tag before it: what follows is white space and an end-of-line comment."""
    props = re.compile(r"[ \t]*(?:[&!][^ \t]*[ \t]+)*")
    at = props.match(line, pos).end()
    if line[at:at + 1] in ("'", '"'):
        end = _quoted_end(line, at)
        if end is not None:
            return end
    for i in range(at, len(line)):
        if line[i] == "#" and line[i - 1] in " \t":
            return len(line[:i].rstrip(" \t"))
    return len(line.rstrip(" \t"))


def _quoted_end(line: str, start: int) -> int | None:
    """Index after the quoted scalar opening at ``line[start]`` when it closes on this line."""
    quote, i = line[start], start + 1
    while i < len(line):
        ch = line[i]
        if quote == '"' and ch == "\\":
            i += 2
            continue
        if ch == quote:
            if quote == "'" and line[i + 1:i + 2] == "'":
                i += 2
                continue
            return i + 1
        i += 1
    return None


def _comment_or_blank(line: str) -> bool:
    s = line.lstrip(" \t")
    return not s or s.startswith("#")
