"""Reading JSON sidecars: the data (duplicate keys and non-JSON constants refused), the
file's layout (indentation, escaped non-ASCII) and where its top-level values and
``comments`` elements stand."""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import MrsfError
from .model import Sidecar
from .values import MAX_DEPTH

def _parse_json(text: str, label: str) -> Sidecar:
    def pairs(items: list[tuple[str, Any]]) -> dict:
        out: dict = {}
        for key, value in items:
            if key in out:
                raise ValueError(f"duplicate key {key!r}")
            out[key] = value
        return out

    def bad_constant(name: str) -> Any:
        raise ValueError(f"{name} is not valid JSON")

    decoder = json.JSONDecoder(object_pairs_hook=pairs, parse_constant=bad_constant)
    try:
        data = decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise MrsfError(
            "malformed-json",
            f"{label}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
            line=exc.lineno,
            column=exc.colno,
        ) from None
    except RecursionError:
        line, column = _too_deep(text)
        raise MrsfError("invalid-sidecar", f"{label}: values are nested more than {MAX_DEPTH} levels deep "
                        f"(line {line}, column {column})", line=line, column=column) from None
    except ValueError as exc:
        raise MrsfError("malformed-json", f"{label}: malformed JSON: {exc}") from None
    indent: int | str | None = None
    nl = text.find("\n")
    if nl >= 0:
        for line in text[nl + 1:].split("\n", 64):
            stripped = line.lstrip(" \t")
            if stripped:
                lead = line[: len(line) - len(stripped)]
                indent = "\t" if lead.startswith("\t") else len(lead)
                break
    ascii_escaped = bool(re.search(r"\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])", text))
    sc = Sidecar(fmt="json", data=data, json_indent=indent, json_ascii=ascii_escaped)
    try:
        sc._json_top, sc._items = _json_layout(text, decoder)
    except Exception:
        sc._json_top, sc._items = None, None
    return sc


def _too_deep(text: str) -> tuple[int, int]:
    """Where JSON ``text`` first opens a value more than MAX_DEPTH levels deep, as a
    1-based line and column (read only after the decoder gave up on the depth; brackets
    inside strings do not count)."""
    depth = 0
    at = 0
    for m in _BRACKETS.finditer(text):
        token = m.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                at = m.start()
                break
        elif token in "]}":
            depth -= 1
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_WS = re.compile(r"[ \t\n\r]*")


def _json_layout(text: str, decoder: json.JSONDecoder):
    """(top-level key -> (key start, value start, value end), comments element spans)
    found with the C scanner (each value is scanned once more; no Python-level parse)."""
    scan = decoder.scan_once
    pos = _WS.match(text, 0).end()
    if text[pos] != "{":
        return None, None
    pos = _WS.match(text, pos + 1).end()
    top: dict = {}
    items = None
    if text[pos] == "}":
        return top, None
    while True:
        key_start = pos
        key, pos = scan(text, pos)
        pos = _WS.match(text, pos).end()
        pos = _WS.match(text, pos + 1).end()       # the ':'
        value_start = pos
        if key == "comments" and text[pos] == "[":
            spans = []
            p = _WS.match(text, pos + 1).end()
            if text[p] != "]":
                while True:
                    _, e = scan(text, p)
                    spans.append((p, e))
                    p = _WS.match(text, e).end()
                    if text[p] == ",":
                        p = _WS.match(text, p + 1).end()
                        continue
                    break
            pos = p + 1
            items = spans
        else:
            _, pos = scan(text, pos)
        top[key] = (key_start, value_start, pos)
        pos = _WS.match(text, pos).end()
        if text[pos] == ",":
            pos = _WS.match(text, pos + 1).end()
            continue
        break
    return top, items
