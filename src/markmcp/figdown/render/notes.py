"""The drawn annotation (``note=``): a UML note box with a folded corner.

One look, decided by the engine: a pale rectangle with a folded top-right
corner, 10 px type, greedy word wrap in a 230 px corridor.  A note on a node
or group opens with its target's label in bold.  ``data-note-on`` names the
kind of thing annotated and ``data-note-for`` which one (a node or group id,
or the connector's ``data-edge`` key)."""

from __future__ import annotations

from .svg import esc, num, tag
from .text import NOTE_CH, NOTE_FOLD, NOTE_FS, NOTE_LH, NOTE_PAD, run_width, units

NOTE_FILL = "#fdfaf0"
NOTE_STROKE = "#c9c4b2"
NOTE_INK = "#5c584c"
NOTE_LEADER = "#9c968a"


def note_svg(x: float, y: float, w: float, h: float, wrapped: list, kind: str | None,
             ref: str | None = None) -> str:
    f = NOTE_FOLD
    outline = (f"M{num(x)} {num(y)} H{num(x + w - f)} L{num(x + w)} {num(y + f)} "
               f"V{num(y + h)} H{num(x)} Z")
    fold = f"M{num(x + w - f)} {num(y)} V{num(y + f)} H{num(x + w)} Z"
    parts = [tag("path", [("d", outline), ("fill", NOTE_FILL), ("stroke", NOTE_STROKE),
                          ("stroke-width", 1)]),
             tag("path", [("d", fold), ("fill", NOTE_STROKE), ("fill-opacity", 0.35),
                          ("stroke", NOTE_STROKE), ("stroke-width", 1)])]
    first = y + NOTE_PAD + NOTE_FS * 0.85
    for i, runs in enumerate(wrapped):
        yy = first + i * NOTE_LH
        if len(runs) == 1 and not runs[0][1]:
            body = esc(runs[0][0])
        else:
            # every run carries its own x: some rasterisers restart each tspan
            off, spans = 0.0, []
            for t, bold in runs:
                if t.startswith(" "):
                    off += units(" ") * NOTE_CH
                    t = t[1:]
                spans.append(tag("tspan", [("x", x + NOTE_PAD + off), ("y", yy),
                                           ("font-weight", "600" if bold else None)], esc(t)))
                off += run_width((t, bold))
            body = "".join(spans)
        parts.append(tag("text", [("x", x + NOTE_PAD), ("y", yy), ("font-size", NOTE_FS),
                                  ("text-anchor", "start"), ("fill", NOTE_INK)], body))
    return tag("g", [("class", "fd-note"), ("data-note-on", kind), ("data-note-for", ref)],
               "".join(parts))


def leader_svg(p: tuple[float, float], q: tuple[float, float], *more: tuple[float, float]) -> str:
    """A dashed leader from ``p`` to ``q`` (and on through ``more``: a path)."""
    look = [("stroke", NOTE_LEADER), ("stroke-width", 1), ("stroke-dasharray", "4 3")]
    if not more:
        return tag("line", [("x1", p[0]), ("y1", p[1]), ("x2", q[0]), ("y2", q[1]), *look])
    d = "M" + " L".join(f"{num(x)} {num(y)}" for x, y in (p, q, *more))
    return tag("path", [("d", d), ("fill", "none"), *look])


ORIGIN_R = 2.0   # the dot a leader leaves from


def origin_svg(p: tuple[float, float]) -> str:
    """The dot where a leader leaves what its note is about: a leader from a line's end
    went on as that line's own dashes (a reply's note made the reply seem to come from a
    lifeline further on)."""
    return tag("circle", [("cx", p[0]), ("cy", p[1]), ("r", ORIGIN_R), ("fill", NOTE_LEADER)])
