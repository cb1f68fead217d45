"""Resolving what an element looks like: class cascade and display labels.

A ``class`` supplies ``fill``/``stroke``/``style`` to the elements that name
it; an element's own attribute always wins, and when an element names several
classes the later one wins per channel (the CSS multi-class cascade).  An edge
takes every channel except ``fill`` (it has no interior).

The model records an omitted label as absent; only the picture substitutes
the id, and an explicitly empty label draws no text at all.
"""

from __future__ import annotations

CHANNELS = ("fill", "stroke", "style")


def class_table(model: dict) -> dict[str, dict]:
    return {c["id"]: c for c in model.get("classes", ())}


def paint(element: dict, classes: dict[str, dict], channels=CHANNELS) -> dict:
    """The element's resolved paint: {channel: value or None}."""
    out = {}
    names = element.get("class") or ()
    for ch in channels:
        value = element.get(ch)
        if value is None:
            for name in names:
                c = classes.get(name)
                if c is not None and c.get(ch) is not None:
                    value = c[ch]
        out[ch] = value
    return out


def display_label(element: dict) -> str:
    """The text drawn for an element: its label, or its id when none was written."""
    label = element.get("label")
    return element.get("id", "") if label is None else label
