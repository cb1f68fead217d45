"""Keeping YAML comment lines with their neighbours when a round-trip document is edited.

ruamel.yaml stores the comment lines that follow an entry in the comment slot of the
last scalar entry before them: slot 2 of ``map.ca.items[key]`` or slot 0 of
``seq.ca.items[index]``, descending into block collections.  A token's text starts with
the rest of the entry's own line (nothing, or an end-of-line ``# ...``), then a newline,
then the following full comment lines and blank lines.

Rules kept here: an end-of-line comment stays with its line (and goes away with it when
the line is deleted); full comment lines and blank lines are never dropped: when the
entry that carries them is removed they are appended after the entry that now precedes
them, and a key appended to a mapping goes before the lines that followed the old last
entry.  Used by :mod:`markmcp.mrsf.sidecar`; pure, no I/O.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark
from ruamel.yaml.tokens import CommentToken


def _is_block(value: Any) -> bool:
    return isinstance(value, (CommentedMap, CommentedSeq)) and len(value) > 0 and not value.fa.flow_style()


def _tail_slot(container: Any, key: Any) -> tuple[dict, Any, int]:
    """(ca.items dict, key, slot) holding the comment lines after ``container[key]``."""
    value = container[key]
    if _is_block(value):
        last = next(reversed(value)) if isinstance(value, CommentedMap) else len(value) - 1
        return _tail_slot(value, last)
    return container.ca.items, key, 2 if isinstance(container, CommentedMap) else 0


def _take(slot: tuple[dict, Any, int]) -> CommentToken | None:
    items, key, index = slot
    entry = items.get(key)
    if not entry or len(entry) <= index or entry[index] is None:
        return None
    token = entry[index]
    entry[index] = None
    if all(x is None for x in entry):
        del items[key]
    return token


def _split(token: CommentToken | None) -> tuple[str, str]:
    """(end-of-line part, following lines) of a comment token."""
    if token is None or not isinstance(getattr(token, "value", None), str):
        return "", ""
    head, _, rest = token.value.partition("\n")
    return head, rest


def _token(text: str, column: int) -> CommentToken:
    return CommentToken(text, CommentMark(column), None)


def _append_lines(slot: tuple[dict, Any, int], rest: str, column: int) -> None:
    """Append full comment/blank lines after the entry of ``slot``."""
    if not rest:
        return
    items, key, index = slot
    entry = items.setdefault(key, [None, None, None, None])
    while len(entry) <= index:
        entry.append(None)
    old = entry[index]
    if old is None:
        entry[index] = _token("\n" + rest, column)
    else:
        text = old.value if old.value.endswith("\n") else old.value + "\n"
        entry[index] = CommentToken(text + rest, old.start_mark or CommentMark(column), None)


def _interior_lines(node: Any, skip: tuple[dict, Any, int] | None) -> str:
    """Full comment lines inside ``node`` (in order), except those of the ``skip`` slot."""
    parts: list[str] = []
    seen: set[int] = set()

    def walk(n: Any) -> None:
        if id(n) in seen:  # a shared (aliased) node: its comments were collected once
            return
        seen.add(id(n))
        if isinstance(n, CommentedMap):
            keys = list(n)
        elif isinstance(n, CommentedSeq):
            keys = list(range(len(n)))
        else:
            return
        for k in keys:
            entry = n.ca.items.get(k)
            slot_index = 2 if isinstance(n, CommentedMap) else 0
            if _is_block(n[k]):
                walk(n[k])
            elif entry and len(entry) > slot_index and entry[slot_index] is not None:
                if skip is not None and skip[0] is n.ca.items and skip[1] == k:
                    continue
                parts.append(_split(entry[slot_index])[1])

    walk(node)
    return "".join(parts)


def set_new_key(mapping: CommentedMap, key: str, node: Any, indent: int) -> None:
    """Append ``key`` to a mapping; lines after the old last entry follow the new one."""
    if not len(mapping):
        mapping[key] = node
        return
    old_slot = _tail_slot(mapping, next(reversed(mapping)))
    token = _take(old_slot)
    head, rest = _split(token)
    if head.strip():
        items, k, index = old_slot
        entry = items.setdefault(k, [None, None, None, None])
        entry[index] = CommentToken(head + "\n", token.start_mark, None)
    mapping[key] = node
    _append_lines(_tail_slot(mapping, key), rest, indent)


def delete_map_key(mapping: CommentedMap, key: str, indent: int) -> None:
    keys = list(mapping)
    position = keys.index(key)
    slot = _tail_slot(mapping, key)
    rest = _interior_lines(mapping[key], slot) + _split(_take(slot))[1]
    del mapping[key]
    mapping.ca.items.pop(key, None)
    if not rest or not len(mapping):
        return
    neighbour = keys[position - 1] if position > 0 else next(iter(mapping))
    _append_lines(_tail_slot(mapping, neighbour), rest, indent)


def remove_item(data: CommentedMap, seq: CommentedSeq, index: int, dash_indent: int) -> None:
    slot = _tail_slot(seq, index)
    rest = _interior_lines(seq[index], slot) + _split(_take(slot))[1]
    del seq[index]
    if not len(seq):
        # an empty list is written as "[]" on the key's line: comment lines that stood
        # before the first item must move after it
        rest = _take_pre_comments(data, seq) + rest
    if not rest:
        return
    if index > 0:
        _append_lines(_tail_slot(seq, index - 1), rest, dash_indent)
    elif len(seq) > 0:
        _prepend_before_first(data, seq, rest, dash_indent)
    else:
        _park_above(data, "comments", rest)


def _park_above(data: CommentedMap, key: str, rest: str) -> None:
    """Keep comment lines just above ``key`` (used when the list under it became ``[]``)."""
    keys = list(data)
    position = keys.index(key)
    if position > 0:
        _append_lines(_tail_slot(data, keys[position - 1]), rest, 0)
        return
    lines = rest.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    tokens = [_token(line.strip() + "\n" if line.strip() else "\n", 0) for line in lines]
    if data.ca.comment is None:
        data.ca.comment = [None, []]
    if data.ca.comment[1] is None:
        data.ca.comment[1] = []
    data.ca.comment[1].extend(tokens)


def _take_pre_comments(data: CommentedMap, seq: CommentedSeq) -> str:
    """Remove and return (as indented text lines) the comment lines before a list's first item."""
    tokens: list = []
    pre = seq.ca.comment
    if pre is not None and len(pre) > 1 and pre[1]:
        tokens = list(pre[1])
        pre[1] = None
    shared = data.ca.items.get("comments")
    if shared is not None and len(shared) > 3 and shared[3]:
        if not tokens:
            tokens = list(shared[3])
        shared[3] = None
        if all(x is None for x in shared):
            del data.ca.items["comments"]
    lines = []
    for token in tokens:
        value = getattr(token, "value", "")
        column = getattr(getattr(token, "start_mark", None), "column", 0) or 0
        for line in value.split("\n")[:-1] if value.endswith("\n") else value.split("\n"):
            lines.append((" " * column + line) if line.strip() else "")
    return "".join(line + "\n" for line in lines)


def _prepend_before_first(data: CommentedMap, seq: CommentedSeq, rest: str, indent: int) -> None:
    """Put comment lines before the (new) first item of ``seq``."""
    lines = [line for line in rest.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    tokens = [_token(line.strip() + "\n" if line.strip() else "\n", indent) for line in lines]
    if not tokens:
        return
    pre = seq.ca.comment
    if pre is None:
        seq.ca.comment = [None, []]
        pre = seq.ca.comment
    if pre[1] is None:
        pre[1] = []
    shared = data.ca.items.get("comments")
    pre[1].extend(tokens)
    if shared is not None and len(shared) > 3 and shared[3] is not None and shared[3] is not pre[1]:
        shared[3].extend(tokens)
