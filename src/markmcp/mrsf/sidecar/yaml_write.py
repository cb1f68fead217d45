"""Writing YAML sidecars: the splice writer's helpers - end-of-line comments kept on
rewritten lines, an item changed key by key when the fast reader declined it, and
aliases given a new home when the edit took their anchor away."""

from __future__ import annotations

import json
import re
from typing import Any

from ..yamledit import CannotEmit, Layout, edit_item, emit_entry, scalar_text
from ..yamlscan import Binary, Entry
from .declined import _rt_comment_lines, _rt_entries
from .values import same_value
from .yaml12 import _rt_plain, _yaml, yaml12_text

_BLOCK_HEADER = re.compile(r"(?m)(?:^|[ ])[|>][1-9+-]{0,2} *(?:#.*)?$")
#: A ``comments`` line whose value is empty, null or ``[]`` (it can be rewritten alone).
_HEADER = re.compile(r"comments:(?: *(?:\[ *\]|~|null|Null|NULL))? *(?: #.*)?$")


def _eol_after_key(line: str) -> str:
    """The end-of-line comment on a ``key:`` line (with its leading spaces), or ''."""
    colon = line.find(":")
    rest = line[colon + 1:]
    at = rest.find(" #")
    return rest[at:] if at >= 0 and rest[:at].strip() in ("", "[]") else ""


def _eol_after_value(lines: list[str], entry: Entry) -> str:
    if entry.style in ("map", "seq", "empty"):
        return _eol_after_key(lines[entry.line])
    rest = lines[entry.last][entry.end_col:]
    return rest if "#" in rest and rest.startswith(" ") else ""


def _edit_item_rt(text: str, old: dict, new: dict, layout: Layout, tail: list[str] = ()) -> list[str] | None:
    """The lines of one ``comments`` item (``text``) changed from ``old`` to ``new`` key by
    key, for an item the fast reader declined: entries that did not change keep their
    lines, comments and styles.  None (write the item anew) when a changed or removed
    entry is not one whose lines are known exactly, or the result does not read back as
    ``new``."""
    from ruamel.yaml.comments import CommentedSeq

    reader_text, back = yaml12_text(text)
    try:
        loaded = _yaml().load(reader_text)
    except Exception:  # noqa: BLE001
        return None
    if not isinstance(loaded, CommentedSeq) or len(loaded) != 1:
        return None
    lines = text.split("\n")[:-1]
    found = _rt_entries(lines, loaded[0])
    if found is None:
        return None
    entries, scalars = found
    if any(e.style == "?" for e in entries):
        # a value of unknown form may hold lines that look like comments but are text
        comments = set(_rt_comment_lines(lines))
        scalars = scalars + [(j, j) for j, line in enumerate(lines)
                             if line.lstrip(" \t").startswith("#") and j not in comments]
    own_last = entries[-1].last
    edited = edit_item(lines[:own_last + 1], entries, scalars, old, new, layout, same_value,
                       lines[own_last + 1:] + list(tail))
    if edited is None:
        return None
    again = _rt_plain("\n".join(edited) + "\n")
    if not isinstance(again, list) or len(again) != 1 or not same_value(again[0], new):
        return None
    return edited


def _rehome_aliases(source: str, data: Any, layout: Layout) -> str:
    """``source`` (a sidecar as spliced) with every alias whose anchor the edit took
    away (the anchored value was changed, removed, or written anew) made the new home
    of that anchor: its ``*name`` becomes ``&name`` and the value it stood for (its data
    is unchanged), so later aliases of the name still read the same value.  This is
    what ruamel.yaml does when the anchored node is replaced: the anchor goes with the
    node to its first place left.  An alias that cannot be given its value here (a
    mapping key, a value not found in ``data``) is left as it is: the read-back then
    refuses the write."""
    from ruamel.yaml.events import (AliasEvent, CollectionEndEvent, CollectionStartEvent,
                                    MappingStartEvent, NodeEvent)

    reader_text, _ = yaml12_text(source)
    try:
        events = list(_yaml().parse(reader_text))
    except Exception:  # noqa: BLE001 - the read-back words the error
        return source
    defined: set[str] = set()
    fixes: list[tuple[int, int, str, list[str]]] = []   # (start, end, text, lines after its line)
    # one frame per open collection: [is mapping, flow, key or index, expecting a key, key column]
    stack: list[list[Any]] = []
    for event in events:
        if not isinstance(event, (NodeEvent, CollectionEndEvent)):
            continue
        if isinstance(event, CollectionEndEvent):
            stack.pop()
            if stack:
                _advance(stack[-1])
            continue
        frame = stack[-1] if stack else None
        is_key = frame is not None and frame[0] and frame[3]
        if getattr(event, "anchor", None) and not isinstance(event, AliasEvent):
            defined.add(event.anchor)
        if isinstance(event, AliasEvent) and event.anchor not in defined:
            fix = None if is_key else _alias_fix(event, stack, data, reader_text, layout)
            if fix is None:
                return source
            fixes.append(fix)
            defined.add(event.anchor)
        if is_key:
            frame[2] = getattr(event, "value", None)
            frame[4] = event.start_mark.column
        if isinstance(event, CollectionStartEvent):
            stack.append([isinstance(event, MappingStartEvent), bool(event.flow_style), None if
                          isinstance(event, MappingStartEvent) else 0, True, 0])
        elif frame is not None:
            _advance(frame)
    if not fixes:
        return source
    out: list[str] = []
    pos = 0
    for start, end, text, after in fixes:
        out.append(source[pos:start])
        out.append(text)
        pos = end
        if after:
            stop = source.find("\n", end)
            stop = len(source) if stop < 0 else stop
            out.append(source[end:stop] + "\n" + "\n".join(after))
            pos = stop
    out.append(source[pos:])
    return "".join(out)


def _advance(frame: list[Any]) -> None:
    """One node of the collection ``frame`` read: a key, a value, or a list item."""
    if frame[0]:
        frame[3] = not frame[3]
    else:
        frame[2] += 1


def _alias_fix(event: Any, stack: list[list[Any]], data: Any, text: str,
               layout: Layout) -> tuple[int, int, str, list[str]] | None:
    """How to write the anchor and the value of a dangling alias in its place."""
    node = data
    for frame in stack:
        key = frame[2]
        if frame[0]:
            if not isinstance(node, dict) or not isinstance(key, str) or key not in node:
                return None
        elif not isinstance(node, list) or not 0 <= key < len(node):
            return None
        node = node[key]
    start, end = event.start_mark.index, event.end_mark.index
    anchor = "&" + event.anchor
    frame = stack[-1] if stack else None
    try:
        if not isinstance(node, (dict, list)):
            text_ = scalar_text(node)
            return start, end, f"{anchor} {text_}" if text_ else anchor, []
        if not node:
            return start, end, f"{anchor} {{}}" if isinstance(node, dict) else f"{anchor} []", []
        rest = text[end:text.find("\n", end) if "\n" in text[end:] else len(text)]
        if frame is not None and frame[0] and not frame[1] and re.fullmatch(r"[ \t]*(?:#.*)?", rest):
            lines = emit_entry(frame[2], node, frame[4], layout)
            return start, end, anchor, lines[1:]
        flow = json.dumps(node, ensure_ascii=False, allow_nan=False)
    except (CannotEmit, ValueError):
        return None
    if _has_binary(node):
        return None
    return start, end, f"{anchor} {flow}", []


def _has_binary(value: Any) -> bool:
    if isinstance(value, Binary):
        return True
    if isinstance(value, dict):
        return any(_has_binary(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_binary(v) for v in value)
    return False
