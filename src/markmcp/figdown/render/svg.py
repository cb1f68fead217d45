"""SVG text: number formatting, escaping, and the element writer.

Every byte of an artifact passes through this module, which is what keeps the
output inside the Safe SVG profile (core §15.2):

* element names come from :data:`ELEMENTS` and attribute names from
  :data:`ATTRIBUTES` — :func:`tag` refuses anything else, so a new output
  construct fails loudly the first time it is drawn;
* attribute values and text content are always escaped (:func:`esc`), so
  author text is data and never markup;
* numbers are printed by :func:`num`: rounded to 1/100 px and written in the
  shortest form that reads back to that value — the same digits on every
  machine (no clock, no randomness, no locale, no platform maths).
"""

from __future__ import annotations

import math

ELEMENTS = frozenset({
    "svg", "defs", "g", "metadata", "title", "rect", "line", "path", "polygon", "circle",
    "ellipse", "text", "tspan", "marker", "pattern",
})

ATTRIBUTES = frozenset({
    "xmlns", "viewBox", "width", "height", "id", "class", "style", "transform",
    "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "d", "points", "dy",
    "fill", "fill-opacity", "opacity", "stroke", "stroke-width", "stroke-dasharray",
    "stroke-dashoffset", "stroke-linejoin",
    "font-family", "font-size", "font-style", "font-weight", "text-anchor",
    "markerWidth", "markerHeight", "refX", "refY", "orient", "patternUnits", "patternTransform",
    "data-sha256", "data-engine-version", "data-render-options",
    "data-node", "data-edge", "data-group", "data-cell", "data-bus",
    "data-gline", "data-gtop", "data-gbot", "data-gx", "data-gy",
    "data-x", "data-y", "data-note-for", "data-note-on", "data-port-sq", "data-lasso",
})

#: the only values ``style=`` ever carries
STYLE_VALUES = frozenset({"cursor:move", "cursor:pointer", "cursor:ns-resize"})

SVG_NS = "http://www.w3.org/2000/svg"


def num(value: float | int, digits: int = 2) -> str:
    """A coordinate as text: rounded to ``digits`` decimals, shortest form, no ``-0``."""
    if value.__class__ is int:
        return str(value)
    if digits == 2 and value.__class__ is float:
        known = _NUM_TEXT.get(value)
        if known is not None:
            return known
    if value != value or value in (math.inf, -math.inf):
        return "0"
    r = round(value, digits)
    if r == 0:
        out = "0"
    elif -1e15 < r < 1e15 and int(r) == r:
        out = str(int(r))
    else:
        out = repr(r)
    if digits == 2 and value.__class__ is float:
        if len(_NUM_TEXT) >= _NUM_TEXT_MAX:
            _NUM_TEXT.clear()
        _NUM_TEXT[value] = out
    return out


#: num(x) of the floats printed lately: a drawing prints the same coordinates many
#: times over (equal floats print alike, 0.0 and -0.0 both as "0"); bounded, so a
#: long-running server does not grow it without end
_NUM_TEXT: dict[float, str] = {}
_NUM_TEXT_MAX = 1 << 16


_ESC = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})


def esc(text: str) -> str:
    """Escape text for an attribute value or character data.

    Most text has nothing to escape, and looking for the four characters costs a
    fraction of ``str.translate``'s pass over every character, so that pass runs
    only when one is there."""
    if "&" in text or "<" in text or ">" in text or '"' in text:
        return text.translate(_ESC)
    return text


def attrs(pairs) -> str:
    out = []
    for key, value in pairs:
        if value is None:
            continue
        if key not in ATTRIBUTES:
            raise ValueError(f"attribute {key!r} is outside the Safe SVG profile")
        kind = value.__class__
        if kind is str:
            text_value = esc(value)
        elif kind is float:
            text_value = _NUM_TEXT.get(value) or num(value)
        elif kind is int:
            text_value = str(value)
        else:
            raise TypeError(f"not an attribute value: {value!r}")
        out.append(f' {key}="{text_value}"')
    return "".join(out)


def tag(name: str, pairs=(), body: str | None = None) -> str:
    """One element: ``pairs`` are (attribute, value); None values are left out.

    ``body`` is already-built markup (children) — author text must go through
    :func:`esc` or :func:`text` first."""
    if name not in ELEMENTS:
        raise ValueError(f"element {name!r} is outside the Safe SVG profile")
    a = attrs(pairs)
    if body is None:
        return f"<{name}{a}/>"
    return f"<{name}{a}>{body}</{name}>"


def open_tag(name: str, pairs=()) -> str:
    if name not in ELEMENTS:
        raise ValueError(f"element {name!r} is outside the Safe SVG profile")
    return f"<{name}{attrs(pairs)}>"


HALO = (("stroke", "#fff"), ("stroke-width", 3), ("stroke-linejoin", "round"))


def text(x: float, y: float, size: float, content: str, *, anchor: str | None = None,
         fill: str | None = None, extra=(), halo: bool = False, weight: str | None = None,
         line_height: float | None = None) -> str:
    """A label.  Author line breaks become centred ``tspan`` lines.

    ``halo`` draws it twice at one point: a white under-stroke, then the ink —
    the halo survives renderers without paint-order support, and the twin is
    how readers tell an edge label from other text."""
    if halo:
        under = text(x, y, size, content, anchor=anchor, fill="#fff", weight=weight,
                     extra=tuple(extra) + HALO, line_height=line_height)
        return under + text(x, y, size, content, anchor=anchor, fill=fill, extra=extra,
                            weight=weight, line_height=line_height)
    parts = content.split("\n")
    common = [("font-size", size), ("font-weight", weight), ("text-anchor", anchor),
              ("fill", fill), *extra]
    if len(parts) == 1:
        return tag("text", [("x", x), ("y", y), *common], esc(content))
    lh = size * (line_height or 1.3)
    y0 = y - (len(parts) - 1) * lh / 2
    body = "".join(tag("tspan", [("x", x), ("dy", lh if i else 0)], esc(p))
                   for i, p in enumerate(parts))
    return tag("text", [("x", x), ("y", y0), *common], body)


def dash(style: str | None, default: str | None = None) -> str | None:
    """The dash pattern of a §5 ``style=`` (None: a solid line)."""
    if style == "dashed":
        return "6 4"
    if style == "dotted":
        return "2 4"
    if style == "solid":
        return None
    return default


def points(pts) -> str:
    return " ".join(f"{num(x)},{num(y)}" for x, y in pts)


def path_d(pts, *, closed: bool = False) -> str:
    d = "M" + " L".join(f"{num(x)} {num(y)}" for x, y in pts)
    return d + " z" if closed else d


FILLET = 10.0


def _fillets(pts):
    """Each interior vertex of ``pts`` as :func:`rounded_path` draws it: ``(vertex, None)``
    where it stays a sharp bend (a turn back, or too short a run for a fillet), else
    ``(vertex, (trim in, trim out))``, the fillet's ends on the two runs."""
    for i in range(1, len(pts) - 1):
        ax, ay = pts[i - 1]
        cx, cy = pts[i]
        bx, by = pts[i + 1]
        v1x, v1y, v2x, v2y = ax - cx, ay - cy, bx - cx, by - cy
        l1 = math.sqrt(v1x * v1x + v1y * v1y)
        l2 = math.sqrt(v2x * v2x + v2y * v2y)
        if l1 < 1e-6 or l2 < 1e-6 or (v1x * v2x + v1y * v2y) / (l1 * l2) < -0.985:
            yield pts[i], None
            continue
        r = min(FILLET, 0.4 * min(l1, l2))
        if r < 0.5:
            yield pts[i], None
            continue
        yield pts[i], ((cx + v1x / l1 * r, cy + v1y / l1 * r), (cx + v2x / l2 * r, cy + v2y / l2 * r))


def rounded_length(pts) -> float:
    """The length of :func:`rounded_path` of ``pts`` as written (its rounded coordinates),
    each fillet's curve summed in 16 chords: what a browser lays a dash pattern along."""
    def written(p):
        return float(num(p[0])), float(num(p[1]))
    total, at = 0.0, written(pts[0])
    for vertex, trims in _fillets(pts):
        if trims is None:
            total += math.dist(at, written(vertex))
            at = written(vertex)
            continue
        p1, c, p2 = written(trims[0]), written(vertex), written(trims[1])
        total += math.dist(at, p1)
        prev = p1
        for k in range(1, 17):
            t = k / 16
            u = 1 - t
            q = (u * u * p1[0] + 2 * u * t * c[0] + t * t * p2[0], u * u * p1[1] + 2 * u * t * c[1] + t * t * p2[1])
            total += math.dist(prev, q)
            prev = q
        at = p2
    return total + math.dist(at, written(pts[-1]))


def rounded_path(pts) -> str:
    """A polyline whose interior bends are softened into quadratic fillets.

    Each interior vertex v becomes ``L trim Q v trim``: the vertex is the
    control point, so a reader can recover the true polyline."""
    if len(pts) < 3:
        return path_d(pts)
    out = [f"M{num(pts[0][0])} {num(pts[0][1])}"]
    for (cx, cy), trims in _fillets(pts):
        if trims is None:
            out.append(f" L{num(cx)} {num(cy)}")
            continue
        p1, p2 = trims
        out.append(f" L{num(p1[0])} {num(p1[1])} Q{num(cx)} {num(cy)} {num(p2[0])} {num(p2[1])}")
    out.append(f" L{num(pts[-1][0])} {num(pts[-1][1])}")
    return "".join(out)
