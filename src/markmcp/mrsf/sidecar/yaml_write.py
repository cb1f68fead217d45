"""Writing YAML sidecars: the splice writer.

New text is spliced in for exactly the changed comments (within a comment, for exactly
the changed entries: :mod:`markmcp.mrsf.yamledit`) and top-level keys; every other
line is kept.  Comment lines inside a removed or rewritten item stay in the file, a
rewritten top-level key keeps its end-of-line comment, an item the fast reader declined
is still changed key by key, and an alias whose anchor the edit took away becomes the
anchor's new home.  The whole document is written anew only for a new sidecar or a
layout that is not kept."""

from __future__ import annotations

import json
import re
from typing import Any

from .. import yamlscan
from ..yamledit import (CannotEmit, Layout, edit_item, emit_entry, emit_items, may_end_in_block, outside_block,
                        scalar_text)
from ..yamlscan import Binary, Entry, Span, Unsupported
from .declined import _rt_comment_lines, _rt_entries
from .model import Sidecar, _Plan
from .values import same_value
from .yaml12 import _rt_plain, _yaml, yaml12_text

def render_yaml(sc: Sidecar) -> _Plan:
    if sc._lines is None or sc._top is None:
        return _whole_yaml(sc)
    try:
        plan = _splice_yaml(sc)
    except CannotEmit:
        return _whole_yaml(sc)
    if plan.fragments is None and not sc._exact and "*" in plan.source:
        source = _rehome_aliases(plan.source, sc.data, sc.yaml_style)
        if source != plan.source:
            plan = _Plan(sc._finish(source), source, None)
    return plan


def _whole_yaml(sc: Sidecar) -> _Plan:
    """The whole document written anew (a new sidecar, or a layout not kept)."""
    out: list[str] = []
    if sc._lines is None and sc.yaml_style.explicit_start:
        out.append("---")
    try:
        for key, value in sc.data.items():
            out.extend(_emit_top(sc, key, value))
        source = "\n".join(out) + "\n"
    except CannotEmit:  # a value the emitter does not write: ruamel.yaml writes it all
        import io

        y = _yaml()
        st = sc.yaml_style
        y.indent(mapping=st.mapping, sequence=st.sequence, offset=st.offset)
        buf = io.StringIO()
        y.dump(sc.data, buf)
        source = buf.getvalue()
    return _Plan(sc._finish(source), source, None)


def _emit_top(sc: Sidecar, key: str, value: Any, style: str | None = None) -> list[str]:
    st = sc.yaml_style
    if key == "comments" and isinstance(value, list) and value:
        return ["comments:"] + emit_items(value, st.offset, st.sequence, st)
    return emit_entry(key, value, 0, st, style)


def _splice_yaml(sc: Sidecar) -> _Plan:
    lines = sc._lines
    st = sc.yaml_style
    real = len(lines) - 1 if sc._source.endswith("\n") else len(lines)
    top = sc._top
    top_index = {e.key: n for n, e in enumerate(top)}
    # (start, order, end, new lines, tag): lines[start:end] become the new lines
    edits: list[tuple[int, int, int, list[str], Any]] = []
    fragments: list[tuple[str, Any]] | None = []
    comments = sc.data.get("comments")
    before = sc._orig_list
    had_items = bool(sc._orig)
    nc = top_index.get("comments")
    region_end = top[nc + 1].line if nc is not None and nc + 1 < len(top) else real
    whole = False
    kept: list[int] = []
    removed: list[int] = []
    changed: dict[int, list[str]] = {}
    appended: list[Any] = []
    if comments is before and "comments" not in sc._top_dirty:
        if isinstance(comments, list):
            origin = sc._origin_map()
            for node in comments:
                k = origin.get(id(node))
                if k is None:
                    appended.append(node)
                elif appended or (kept and k <= kept[-1]):
                    whole = True
                    break
                else:
                    kept.append(k)
            kept_set = set(kept)
            removed = [k for k in range(len(sc._orig)) if k not in kept_set]
    elif isinstance(comments, list) and not had_items:
        appended = list(comments)
    else:
        whole = True
    removed_set = set(removed)
    if not whole:
        for k in kept:
            if k in sc._snap and not same_value(sc._snap[k], sc._orig[k]):
                changed[k] = []
        if sc._items is None and (removed or changed or (appended and had_items)):
            whole = True
    has_items = isinstance(comments, list) and bool(comments)
    header: str | None = None
    if not whole and isinstance(comments, list) and (
            nc is None or has_items != had_items or not isinstance(before, list)):
        header = "comments:" if has_items else "comments: []"
        if nc is not None:
            e = top[nc]
            if not _HEADER.match(lines[e.line]) or (not had_items and (e.last != e.line or not sc._exact)):
                whole = True
    if whole:
        fragments = None
        new = _emit_top(sc, "comments", comments)
        if nc is None:
            edits.append((real, 1, real, new, None))
        else:
            e = top[nc]
            edits.append((e.line, 0, e.last + 1 if sc._exact else region_end, new, None))
    else:
        if not sc.final_newline and kept and region_end == real and (appended or (
                removed and removed[-1] > kept[-1]) or kept[-1] in changed):
            # the last item's last line gains (or keeps) no line break after it: a
            # block scalar there would change value, so that item is written anew
            # without block scalars
            changed[kept[-1]] = ["whole"]
        for k in list(changed):
            span = sc._items[k]
            if changed[k] == ["whole"] and _BLOCK_HEADER.search(sc._item_text(span)):
                new = changed[k] = emit_items([sc._orig[k]], st.offset, st.sequence, st) + \
                    _kept_comment_lines(sc, span)
            elif k in sc._snap:
                # comment lines after the item that a block scalar ending it could take
                # in are handed over with it (and moved left when needed)
                tail = _exposed_tail(sc, span, region_end)
                new = changed[k] = _edit_item(sc, k, tail)
                if tail:
                    edits.append((span.first, 0, span.last + 1 + len(tail), new, ("item", k, len(tail))))
                    if fragments is not None:
                        fragments.append(("\n".join(new) + "\n", sc._orig[k]))
                    continue
            else:
                del changed[k]
                continue
            edits.append((span.first, 0, span.last + 1, new, ("item", k, 0)))
            if fragments is not None:
                fragments.append(("\n".join(new) + "\n", sc._orig[k]))
        for k in removed:
            span = sc._items[k]
            kept_lines = _kept_comment_lines(sc, span)
            before_k = max((j for j in range(k) if j not in removed_set), default=None)
            if before_k is not None and may_end_in_block(
                    changed.get(before_k) or lines[sc._items[before_k].first:sc._items[before_k].last + 1]):
                # what the item leaves behind (its comment lines, and those after it)
                # now follows the item before, which may end in a block scalar (the
                # whole text is read back then: that item is not a fragment)
                fragments = None
                tail = _exposed_tail(sc, span, region_end)
                edits.append((span.first, 0, span.last + 1 + len(tail),
                              outside_block(kept_lines + tail, st.sequence), None))
                continue
            edits.append((span.first, 0, span.last + 1, kept_lines, None))
        if header is not None:
            fragments = None
            if nc is not None:
                e = top[nc]
                edits.append((e.line, 0, e.line + 1, [header + _eol_after_key(lines[e.line])], None))
        if appended or (header is not None and nc is None):
            new = []
            counts = []
            for node in appended:
                emitted = emit_items([node], st.offset, st.sequence, st)
                counts.append(len(emitted))
                if fragments is not None:
                    fragments.append(("\n".join(emitted) + "\n", node))
                new.extend(emitted)
            if nc is None:
                edits.append((real, 1, real, [header] + new, None))
            else:
                edits.append((region_end, 1, region_end, new, ("append", counts)))
    for key in [k for k in sc.data if k in sc._top_dirty]:
        if key == "comments":
            continue
        fragments = None
        value = sc.data.get(key)
        if key in top_index:
            e = top[top_index[key]]
            new = emit_entry(key, value, 0, st, e.style)
            eol = _eol_after_value(lines, e)
            if eol:
                new[0] += eol
            edits.append((e.line, 0, e.last + 1, new, None))
        else:
            edits.append((real, 2, real, emit_entry(key, value, 0, st), None))
    if fragments is not None and not sc._exact:
        fragments = None
    edits.sort(key=lambda x: (x[0], x[1]))
    new_lines: list[str] = []
    pos = 0
    items = sc._items
    moved: dict[int, Span] = {}
    appended_spans: list[Span] = []
    ptr = 0
    for start, _, end, repl, tag in edits:
        if start < pos:
            return _whole_yaml(sc)
        if fragments is not None:
            shift = len(new_lines) - pos
            while ptr < len(kept) and items[kept[ptr]].first < start:
                k = kept[ptr]
                if k not in changed:
                    moved[k] = Span(items[k].first + shift, items[k].last + shift)
                ptr += 1
        new_lines.extend(lines[pos:start])
        if tag is not None and fragments is not None:
            at = len(new_lines)
            if tag[0] == "item":
                moved[tag[1]] = Span(at, at + len(repl) - 1 - tag[2])
            else:
                for count in tag[1]:
                    appended_spans.append(Span(at, at + count - 1))
                    at += count
        new_lines.extend(repl)
        pos = end
    if fragments is not None:
        shift = len(new_lines) - pos
        for k in kept[ptr:]:
            if k not in changed:
                moved[k] = Span(items[k].first + shift, items[k].last + shift)
    new_lines.extend(lines[pos:])
    source = "\n".join(new_lines)
    plan = _Plan(sc._finish(source), source, None)
    if fragments is not None and _safe_fragments(sc, edits, lines, real):
        plan.fragments = fragments
        plan.lines = new_lines
        plan.items = [moved[k] for k in kept] + appended_spans
        plan.delta = len(new_lines) - len(lines)
        plan.after_line = top[nc].line if nc is not None else -1
    return plan


def _safe_fragments(sc: Sidecar, edits: list, lines: list[str], real: int) -> bool:
    """True when reading back only the spliced items decides the whole new text: each
    splice sits between whole items, and what follows it cannot be read as part of it."""
    dash = sc.yaml_style.offset
    for start, _, end, repl, _ in edits:
        if end >= real and not sc.final_newline:
            return False
        j = end
        while j < real and not lines[j].strip(" "):
            j += 1
        if j >= real:
            continue
        following = lines[j]
        indent = len(following) - len(following.lstrip(" "))
        if indent <= dash:
            continue
        if following.lstrip(" ").startswith("#") and not _BLOCK_HEADER.search("\n".join(repl)):
            # a comment line ends plain and quoted scalars; only a block scalar could
            # take it in (the item before a removal was checked the same way)
            if end > start and not repl:
                return False
            continue
        return False
    return True


def _kept_comment_lines(sc: Sidecar, span: Span) -> list[str]:
    """Full comment lines inside a removed item (they stay where it stood)."""
    text = sc._item_text(span)
    if "#" not in text:
        return []
    lines = text.split("\n")[:-1]
    try:
        read = yamlscan.read_items(text, sc.yaml_style.offset)
    except (Unsupported, RecursionError):
        return [lines[j] for j in _rt_comment_lines(lines)]
    out = []
    for j, line in enumerate(lines):
        s = line.lstrip(" ")
        if s.startswith("#") and not any(a <= j <= b for a, b in read.scalars):
            out.append(line)
    return out


def _exposed_tail(sc: Sidecar, span: Span, stop: int) -> list[str]:
    """The comment and blank lines after item ``span`` (before line ``stop``) when one
    of them would be read into a block scalar ending the item (indented past the
    items' dashes, or spaces only); else none."""
    lines = sc._lines
    j = span.last + 1
    exposed = False
    while j < stop:
        s = lines[j].lstrip(" ")
        if s and s[0] != "#":
            break
        if (s and len(lines[j]) - len(s) > sc.yaml_style.offset) or (not s and lines[j]):
            exposed = True
        j += 1
    return lines[span.last + 1:j] if exposed else []


def _edit_item(sc: Sidecar, k: int, tail: list[str] = ()) -> list[str]:
    """New lines of original item ``k`` (changed in place), followed by ``tail`` (the
    lines after it: kept, moved left of a block scalar that now ends the item)."""
    span = sc._items[k]
    old, new = sc._snap[k], sc._orig[k]
    st = sc.yaml_style
    tail = list(tail)
    if isinstance(old, dict) and isinstance(new, dict):
        text = sc._item_text(span)
        try:
            read = yamlscan.read_items(text, st.offset, entries=True)
        except (Unsupported, RecursionError):
            read = None
        if read is not None and read.item_entries and read.item_entries[0]:
            lines = text.split("\n")[:-1]
            own_last = read.items[0].last
            edited = edit_item(lines[:own_last + 1], read.item_entries[0], read.scalars, old, new, st,
                               same_value, lines[own_last + 1:] + tail)
            if edited is not None:
                return edited
        elif read is None:
            edited = _edit_item_rt(text, old, new, st, tail)
            if edited is not None:
                return edited
    # written anew: the comment lines inside it follow it (their places are lost,
    # not they; end-of-line comments inside it go with their lines)
    out = emit_items([new], st.offset, st.sequence, st)
    after = _kept_comment_lines(sc, span) + tail
    return out + (outside_block(after, st.sequence) if may_end_in_block(out) else after)


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
