"""Writing JSON sidecars: a changed ``comments`` element or top-level value is written in
the file's layout (indentation, escaped non-ASCII) and spliced into the text; the rest
of the text is kept."""

from __future__ import annotations

import json
from typing import Any

from .model import Sidecar, _Plan
from .values import same_value


def render_json(sc: Sidecar) -> _Plan:
    if sc._source is None or sc._json_top is None:
        return _whole_json(sc)
    text = sc._source
    comments = sc.data.get("comments")
    before = sc._orig_list
    edits: list[tuple[int, int, str]] = []
    dirty = dict(sc._top_dirty)
    array: list[str] | None = None     # the new elements' texts, when the list changed
    if comments is before and "comments" not in dirty:
        if isinstance(comments, list) and sc._items is not None:
            origin = sc._origin_map()
            texts: list[str] = []
            seen = -1
            touched = len(comments) != len(sc._orig)
            for node in comments:
                k = origin.get(id(node))
                if k is None or k <= seen:
                    texts.append(_json_value(sc, node, 2))
                    touched = True
                    continue
                seen = k
                start, end = sc._items[k]
                if k in sc._snap and not same_value(sc._snap[k], node):
                    texts.append(_json_value(sc, node, 2))
                    touched = True
                else:
                    texts.append(text[start:end])
            if touched:
                array = texts
        elif isinstance(comments, list) and (len(comments) != len(sc._orig) or sc._snap):
            dirty["comments"] = True
    elif isinstance(comments, list) and "comments" in sc._json_top and not sc._orig:
        array = [_json_value(sc, node, 2) for node in comments]
    else:
        dirty["comments"] = True
    if array is not None:
        if "comments" not in sc._json_top or text[sc._json_top["comments"][1]] != "[":
            dirty["comments"] = True
        else:
            _, vstart, vend = sc._json_top["comments"]
            edits.append((vstart, vend, _json_array(sc, text, vstart, vend, array)))
    for key in [k for k in sc.data if k in dirty]:
        value = sc.data.get(key)
        if key in sc._json_top:
            _, vstart, vend = sc._json_top[key]
            edits.append((vstart, vend, _json_value(sc, value, 1)))
        else:
            close = text.rstrip().rfind("}")
            if close < 0:
                return _whole_json(sc)
            inner = text[:close].rstrip()
            sep = "," if not inner.endswith("{") else ""
            pad = ("\n" + _json_pad(sc, 1)) if sc.json_indent is not None else " "
            piece = f"{sep}{pad}{json.dumps(key, ensure_ascii=sc.json_ascii)}: {_json_value(sc, value, 1)}"
            edits.append((len(inner), len(inner), piece))
    edits.sort(key=lambda e: (e[0], e[1]))
    out: list[str] = []
    pos = 0
    for start, end, new in edits:
        if start < pos:
            return _whole_json(sc)
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    source = "".join(out)
    return _Plan(sc._finish(source), source, None)


def _json_array(sc: Sidecar, text: str, vstart: int, vend: int, elements: list[str]) -> str:
    """The text of the ``comments`` array holding ``elements``, with the separators
    of the original array (those between the elements that stay side by side)."""
    if not elements:
        return "[]"
    items = sc._items or []
    if items:
        lead = text[vstart + 1:items[0][0]]
        trail = text[items[-1][1]:vend - 1]
        sep = text[items[0][1]:items[1][0]] if len(items) > 1 else "," + lead.rstrip(",")
        if "," not in sep:
            sep = "," + sep
    elif sc.json_indent is None:
        lead, trail, sep = "", "", ", "
    else:
        lead = "\n" + _json_pad(sc, 2)
        trail = "\n" + _json_pad(sc, 1)
        sep = "," + lead
    return "[" + lead + sep.join(elements) + trail + "]"


def _whole_json(sc: Sidecar) -> _Plan:
    source = json.dumps(sc.data, indent=sc.json_indent, ensure_ascii=sc.json_ascii)
    return _Plan(sc._finish(source), source, None)


def _json_pad(sc: Sidecar, level: int) -> str:
    indent = sc.json_indent
    if indent is None:
        return ""
    return (indent if isinstance(indent, str) else " " * indent) * level


def _json_value(sc: Sidecar, value: Any, level: int) -> str:
    text = json.dumps(value, indent=sc.json_indent, ensure_ascii=sc.json_ascii)
    if sc.json_indent is None or "\n" not in text:
        return text
    return text.replace("\n", "\n" + _json_pad(sc, level))
