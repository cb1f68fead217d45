"""The semantic model of one FigDown section and its canonical JSON (core §12).

A :class:`Doc` holds what one section states.  Elements are plain dicts whose
keys are already the §12 model keys, in §12 order; keys starting with ``_``
are parser bookkeeping and never reach the JSON.  The projection rules:

* absent optional attributes are OMITTED (never ``null``); an empty string
  is a written value and is kept;
* defaults the language resolves are materialised (``flow``, node
  ``shape``, ``plane: "base"``, the implicit base plane, band ``extend`` and
  ``fill``, bitfield ``word``);
* the ``sequence`` collections are appended after ``regions`` and only
  when non-empty;
* numbers follow ECMAScript: integral values print without a fraction.

:func:`dumps` writes the canonical text: two-space indent, non-ASCII
unescaped, one trailing LF.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .numbers import number_text

BAND_DEFAULT_FILL = "#e5e7eb"


@dataclass
class Doc:
    """Everything one section declares, in document order."""

    version: str | None = None
    genre: str | None = None
    title: str | None = None
    note: str | None = None
    flow: str = "right"
    classes: list[dict] = field(default_factory=list)
    nodes: list[dict] = field(default_factory=list)
    groups: list[dict] = field(default_factory=list)
    externals: list[dict] = field(default_factory=list)
    edges: list[dict] = field(default_factory=list)
    ranks: list[dict] = field(default_factory=list)
    pins: dict[str, dict] = field(default_factory=dict)
    thresholds: list[dict] = field(default_factory=list)
    bands: list[dict] = field(default_factory=list)
    bundles: list[dict] = field(default_factory=list)
    regions: list[dict] = field(default_factory=list)
    lifelines: list[dict] = field(default_factory=list)
    messages: list[dict] = field(default_factory=list)
    states: list[dict] = field(default_factory=list)
    fragments: list[dict] = field(default_factory=list)
    operands: list[dict] = field(default_factory=list)


def _clean(element: dict) -> dict:
    """Drop bookkeeping keys and absent (None) values, keeping order."""
    return {k: v for k, v in element.items() if v is not None and not k.startswith("_")}


def _region(block: dict) -> dict:
    kind = block["genre"]
    if kind == "bitfield":
        out = _clean({k: block.get(k) for k in
                      ("genre", "id", "label", "word", "numbering", "fill", "stroke", "class")})
        out["fields"] = [_clean(f) for f in block["fields"]]
        out["line"] = block["line"]
        return out
    if kind == "table":
        out = _clean({k: block.get(k) for k in ("genre", "id", "label", "fill", "stroke", "class")})
        out["heads"] = [[_clean(c) for c in row] for row in block["heads"]]
        if block.get("_sep"):
            out["aligns"] = list(block["aligns"])
        out["rows"] = [{"cells": [_clean(c) for c in r["cells"]], "line": r["line"]}
                       for r in block["rows"]]
        if block.get("width") is not None:
            out["width"] = block["width"]
        if block.get("marks"):
            out["marks"] = [_clean(m) for m in block["marks"]]
        if block.get("highlights"):
            out["highlights"] = [_clean(m) for m in block["highlights"]]
        out["line"] = block["line"]
        return out
    if kind == "timing":
        out = _clean({k: block.get(k) for k in ("genre", "id", "label", "fill", "stroke", "class")})
        out["signals"] = [_clean(s) for s in block["signals"]]
        if block["gaps"]:
            out["gaps"] = [g["t"] for g in block["gaps"]]
        out["line"] = block["line"]
        return out
    return _clean({k: block.get(k) for k in ("genre", "table", "type", "line")})


def project(doc: Doc) -> dict:
    """The canonical §12 model of one section."""
    model: dict[str, Any] = {"header": _clean({"version": doc.version or "0.1", "genre": doc.genre})}
    if doc.title is not None:
        model["title"] = doc.title
    if doc.note is not None:
        model["note"] = doc.note
    model["flow"] = doc.flow
    model["classes"] = [_clean(c) for c in doc.classes]
    model["planes"] = [{"id": "base", "z": 0}]
    model["nodes"] = [_clean(n) for n in doc.nodes]
    model["groups"] = [_clean(g) for g in doc.groups]
    if doc.externals:
        model["externals"] = [_clean(x) for x in doc.externals]
    model["edges"] = [_clean(e) for e in doc.edges]
    model["ranks"] = [_clean(r) for r in doc.ranks]
    pins = sorted(doc.pins.items(), key=lambda kv: kv[1]["line"])
    model["pins"] = [_clean({"id": pid, **p}) for pid, p in pins]
    model["thresholds"] = [_clean(t) for t in doc.thresholds]
    model["bands"] = [_clean(b) for b in doc.bands]
    model["bundles"] = [_clean(b) for b in doc.bundles]
    model["regions"] = [_region(b) for b in doc.regions]
    for key in ("lifelines", "messages", "states", "fragments", "operands"):
        items = getattr(doc, key)
        if items:
            model[key] = [_clean(x) for x in items]
    return model


# --- canonical text ----------------------------------------------------------


def js_number(value: float | int) -> str:
    """Format a number the way ECMAScript's JSON.stringify does (non-finite: ``null``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = number_text(value)
    return "null" if text in ("NaN", "Infinity", "-Infinity") else text


#: JSON string literal with non-ASCII kept as is (the C-accelerated encoder).
_string = json.encoder.encode_basestring  # type: ignore[attr-defined]


def _dump(value: Any, indent: int, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = "\n" + "  " * (indent + 1)
        out.append("{")
        first = True
        for k, v in value.items():
            out.append(inner if first else "," + inner)
            first = False
            out.append(_string(k))
            out.append(": ")
            _dump(v, indent + 1, out)
        out.append("\n" + "  " * indent + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = "\n" + "  " * (indent + 1)
        out.append("[")
        first = True
        for v in value:
            out.append(inner if first else "," + inner)
            first = False
            _dump(v, indent + 1, out)
        out.append("\n" + "  " * indent + "]")
    elif value is None:
        out.append("null")
    elif isinstance(value, (bool, int, float)):
        out.append(js_number(value))
    else:  # pragma: no cover - the model holds only JSON types
        raise TypeError(f"not a model value: {value!r}")


def dumps(value: Any) -> str:
    """Canonical JSON text: indent 2, non-ASCII as is, one trailing LF."""
    out: list[str] = []
    _dump(value, 0, out)
    out.append("\n")
    return "".join(out)
