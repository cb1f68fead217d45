"""Salvaging damaged sidecars (the ``repair`` operation).

Pure: the damaged text in, a new :class:`~markmcp.mrsf.sidecar.Sidecar` holding every
comment that still parses, plus a report of what was dropped and where.
"""

from __future__ import annotations

import json
import re
from typing import Any

from markmcp.textsafe import lone_surrogate, surrogate_name

from .errors import MrsfError
from .sidecar import Sidecar, new_sidecar, parse_sidecar, to_plain


_ITEM_START = re.compile(r"^(?P<indent>[ \t]*)- ")


def salvage(text: str, document: str) -> tuple[Sidecar, list[dict], int]:
    """Rebuild a sidecar from damaged YAML/JSON text.

    The comment list items (``- ...`` blocks at the indentation of the first item under
    ``comments:``) are parsed one by one; each that parses to a mapping is kept verbatim
    (as data), the others are reported as dropped with their line.  Top-level
    ``mrsf_version``/``document`` are recovered when readable.
    Returns (new sidecar, dropped items, salvaged count).
    """
    normalized = text.lstrip("\ufeff").replace("\r\n", "\n")
    lines = normalized.split("\n")
    version, doc = "1.0", document
    for line in lines:
        m = re.match(r"""^mrsf_version:\s*["']?([0-9]+\.[0-9]+)["']?\s*(#.*)?$""", line)
        if m:
            version = m.group(1)
        m = re.match(r"""^document:\s*(.+?)\s*$""", line)
        if m:
            try:
                value = parse_sidecar("v: " + m.group(1) + "\n", fmt="yaml").data.get("v")
                if isinstance(value, str) and value:
                    doc = value
            except MrsfError:
                pass
    sc = new_sidecar(doc)
    if version != "1.0":
        sc.set_top("mrsf_version", version)
    start = next((i for i, line in enumerate(lines) if re.match(r"^comments\s*:", line)), None)
    dropped: list[dict] = []
    salvaged = 0
    if start is None:
        return sc, dropped, 0
    blocks: list[tuple[int, list[str]]] = []
    indent = None
    current: list[str] | None = None
    for number in range(start + 1, len(lines)):
        line = lines[number]
        m = _ITEM_START.match(line)
        if m and (indent is None or m.group("indent") == indent):
            indent = m.group("indent")
            current = [line]
            blocks.append((number + 1, current))
        elif current is not None:
            if line and not line.startswith((indent or "") + " ") and not line.lstrip().startswith("#") and line.strip():
                current = None  # a new top-level key ends the list
            else:
                current.append(line)
    for index, (line_no, block) in enumerate(blocks):
        snippet = "\n".join(block) + "\n"
        try:
            item = parse_sidecar("comments:\n" + snippet, fmt="yaml").data.get("comments")
        except MrsfError as exc:
            dropped.append({"index": index, "line": line_no, "reason": exc.message.replace("sidecar: ", "")})
            continue
        if isinstance(item, list) and len(item) == 1 and isinstance(item[0], dict):
            sc.append_comment(to_plain(item[0]))
            salvaged += 1
        else:
            dropped.append({"index": index, "line": line_no, "reason": "not a comment mapping"})
    return sc, dropped, salvaged



def salvage_json(text: str, document: str) -> tuple[Sidecar, list[dict], int]:
    """Rebuild a sidecar from damaged JSON text: every ``{...}`` object directly inside the
    ``"comments"`` array that parses on its own is kept; the others are reported."""
    body = text.lstrip("\ufeff").replace("\r\n", "\n")
    data: dict[str, Any] = {"mrsf_version": "1.0", "document": document, "comments": []}
    m = re.search(r'"mrsf_version"\s*:\s*"([0-9]+\.[0-9]+)"', body)
    if m:
        data["mrsf_version"] = m.group(1)
    m = re.search(r'"document"\s*:\s*("(?:[^"\\]|\\.)*")', body)
    if m:
        try:
            named = json.loads(m.group(1))
        except ValueError:
            named = None
        if named and lone_surrogate(named) is None:  # a lone surrogate is no name (and cannot be written)
            data["document"] = named
    dropped: list[dict] = []
    m = re.search(r'"comments"\s*:\s*\[', body)
    if m is None:
        return Sidecar(fmt="json", data=data), dropped, 0
    pos, depth, start, in_string, escaped = m.end(), 0, None, False, False
    index = 0
    while pos < len(body):
        ch = body[pos]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            if depth == 0:
                start = pos
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0 and start is not None:
                chunk = body[start:pos + 1]
                line = body.count("\n", 0, start) + 1
                try:
                    item = json.loads(chunk)
                except ValueError as exc:
                    dropped.append({"index": index, "line": line, "reason": f"malformed JSON: {exc}"})
                else:
                    found = lone_surrogate(item)
                    if found is None:
                        data["comments"].append(item)
                    else:
                        dropped.append({"index": index, "line": line, "reason": (
                            f"malformed JSON: {found[0]}: {surrogate_name(found[1])} is not a character")})
                index += 1
                start = None
        elif ch == "]" and depth == 0:
            break
        pos += 1
    if start is not None:
        dropped.append({"index": index, "line": body.count("\n", 0, start) + 1, "reason": "unterminated object"})
    return Sidecar(fmt="json", data=data), dropped, len(data["comments"])
