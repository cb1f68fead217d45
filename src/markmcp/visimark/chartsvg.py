"""Chart rendering: resolved data in, SVG bytes out, byte for byte reproducible.

An engine sees a :class:`ChartData` (series of decimals with their write precision
and decoration, the label texts, the aspect) and nothing else: no document, no
syntax tree, no evaluator.  It returns the SVG text or a refusal message.

Every coordinate is an IEEE double computed in a fixed order and written with two
decimals, halves away from zero, the way JavaScript's ``toFixed`` writes them, so the
files match the ones the reference engine writes.  Text is monospace, so a label's
width is ``0.6em`` per UTF-16 code unit and layout is plain arithmetic.  Nothing
volatile is written: the only metadata is the sheet and chart that own the file.

The vocabulary of the output is closed: ``svg``, ``metadata``, ``visimark``, ``line``,
``rect``, ``text``, ``path``, ``polyline`` and ``circle``, with fixed presentation
attributes.  Label text is escaped, so a hostile label is text, never markup.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext

from .values import CONTEXT, Decoration, quantum

WIDTH = 640
INK = "#808080"
FONT = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"
EM_ADVANCE = 0.6
DARKEST, LIGHTEST = 0x33, 0xCC
DEFAULT_ASPECT = (16, 10)

# the frame every row-and-column engine shares
PAD_LEFT, PAD_RIGHT, PAD_TOP, LABEL_BAND = 70, 16, 18, 26
LEGEND_BAND = 20
TICK_TARGET = 5
POINT_RADIUS = "2.5"
LINE_WIDTH = "1.5"
AREA_OPACITY = "0.55"
GROUP_SHARE = 0.7  # of a row's slot, filled by its bar group
PIE_RADIUS_SHARE = 0.34
PIE_LABEL_REACH = 1.28

ELEMENTS = frozenset({"svg", "metadata", "visimark", "line", "rect", "text", "path", "polyline", "circle"})

_CENT = Decimal("0.01")


class Refusal(Exception):
    """The data has no drawing in this engine (a negative pie slice, say)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Series:
    name: str
    values: tuple[Decimal, ...]
    places: int
    decoration: Decoration | None = None

    def shown(self, value: Decimal) -> str:
        """A value label as the document would write the number."""
        text = fixed_half_up(value, self.places)
        return self.decoration.apply(text) if self.decoration else text


@dataclass(frozen=True)
class ChartData:
    sheet: str
    chart: str
    series: tuple[Series, ...]
    labels: tuple[str, ...]
    aspect: tuple[int, int] = DEFAULT_ASPECT


# --------------------------------------------------------------------- numbers


def fixed_half_up(value: Decimal, places: int) -> str:
    """``value`` written with ``places`` decimals; Refusal when that takes more than the
    working digits (a 150-digit input cell, say)."""
    try:
        with localcontext(CONTEXT):
            q = value.quantize(quantum(places), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        raise Refusal("a value is too large to draw") from None
    return f"{q:f}"


def _writable(series: Series) -> bool:
    """Whether every value of ``series`` can be written as its label."""
    try:
        for value in series.values:
            fixed_half_up(value, series.places)
    except Refusal:
        return False
    return True


def two(x: float) -> str:
    """``x`` with two decimals, as JavaScript's ``Number.prototype.toFixed(2)``: the
    exact binary value rounded half away from zero; negative zero prints as zero."""
    if x == 0:
        return "0.00"
    if not math.isfinite(x):
        raise Refusal("a value is too large to draw")
    sign = "-" if x < 0 else ""
    q = Decimal(abs(x)).quantize(_CENT, rounding=ROUND_HALF_UP)
    return f"{sign}{q:f}"


def js_round(x: float) -> int:
    """``Math.round``: halves go towards positive infinity."""
    return math.floor(x + 0.5)


def js_number(x: float) -> str:
    """A number as JavaScript's ``String(x)`` writes a short one (`1`, `0.5`, `12`)."""
    return str(int(x)) if x == int(x) else repr(x)


def units(text: str) -> int:
    """A string's length in UTF-16 code units (what a JavaScript ``length`` counts)."""
    return len(text.encode("utf-16-le")) // 2


def advance(text: str, size: int) -> float:
    return units(text) * EM_ADVANCE * size


def greys(n: int) -> list[str]:
    """Fills for ``n`` series: evenly spaced from #333333 to #cccccc, first darkest."""
    if n <= 0:
        return []
    if n == 1:
        return [INK]
    step = (LIGHTEST - DARKEST) / (n - 1)
    return ["#" + f"{js_round(DARKEST + i * step):02x}" * 3 for i in range(n)]


def height_of(aspect: tuple[int, int]) -> int:
    w, h = aspect
    return js_round(WIDTH * h / w)


# characters XML 1.0 forbids even escaped become U+FFFD, so a label carrying one still
# yields a well-formed file; tab and line breaks are written as references (a raw CR
# would not survive a parser, nor the line-ending normalisation of the comparison)
_NOT_XML = {c: "\ufffd" for c in [*range(0x20), 0xFFFE, 0xFFFF]} | {0x09: "&#9;", 0x0A: "&#10;", 0x0D: "&#13;"}


def escape(text: str) -> str:
    out = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    return out.translate(_NOT_XML)


def ticks(low: float, high: float) -> list[float]:
    """Axis values by the 1 / 2 / 5 × 10^k rule over a range widened to include zero."""
    lo, hi = min(0.0, low), max(0.0, high)
    if lo == hi:
        return [0.0]
    raw = (hi - lo) / TICK_TARGET
    magnitude = math.pow(10, math.floor(math.log10(raw)))
    scaled = raw / magnitude
    for nice in (1, 2, 5):
        if scaled <= nice:
            break
    else:
        nice = 10
    step = magnitude * nice
    start = math.floor(lo / step) * step
    stop = math.ceil(hi / step) * step
    out: list[float] = []
    v = start
    while v <= stop + step / 2:
        out.append(0.0 if abs(v) < step / 1e6 else v)
        v += step
    return out


def tick_text(v: float) -> str:
    s = two(v)
    return s[:-3] if s.endswith(".00") else s


# -------------------------------------------------------------------- elements


def text(x: float, y: float, body: str, size: int = 12, anchor: str = "middle", fit: float | None = None) -> str:
    fitted = f' textLength="{two(fit)}" lengthAdjust="spacingAndGlyphs"' if fit is not None else ""
    return (f'<text x="{two(x)}" y="{two(y)}" font-family="{FONT}" font-size="{size}" '
            f'text-anchor="{anchor}" fill="{INK}"{fitted}>{escape(body)}</text>')


def rect(x: float, y: float, w: float, h: float, fill: str) -> str:
    return (f'<rect x="{two(x)}" y="{two(y)}" width="{two(w)}" height="{two(h)}" fill="{fill}" '
            f'stroke="{INK}" stroke-width="1"/>')


def dot(x: float, y: float, fill: str) -> str:
    return f'<circle cx="{two(x)}" cy="{two(y)}" r="{POINT_RADIUS}" fill="{fill}"/>'


def marker(sheet: str, chart: str) -> str:
    return f'<metadata><visimark sheet="{escape(sheet)}" chart="{escape(chart)}"/></metadata>'


def document(data: ChartData, height: int, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" role="img">'
            + marker(data.sheet, data.chart) + "".join(body) + "</svg>\n")


# ------------------------------------------------------------ cartesian frame


@dataclass
class Frame:
    """The plot box, value scale and row slots shared by bar, line, area and stacked bars."""

    height: int
    bottom: float
    plot_height: float
    slot: float
    axis: list[float]

    @classmethod
    def of(cls, data: ChartData, low: float, high: float) -> Frame:
        height = height_of(data.aspect)
        top = PAD_TOP + (LEGEND_BAND if len(data.series) > 1 else 0)
        bottom = height - LABEL_BAND
        rows = len(data.series[0].values)
        return cls(height, bottom, bottom - top, (WIDTH - PAD_LEFT - PAD_RIGHT) / max(rows, 1), ticks(low, high))

    def y(self, v: float) -> float:
        lo, hi = self.axis[0], self.axis[-1]
        span = (hi - lo) or 1
        return self.bottom - ((v - lo) / span) * self.plot_height

    def centre(self, row: int) -> float:
        return PAD_LEFT + self.slot * row + self.slot / 2

    def gridlines(self) -> list[str]:
        out = []
        for t in self.axis:
            ty = self.y(t)
            weight = "1" if t == 0 else "0.5"
            out.append(f'<line x1="{two(PAD_LEFT)}" y1="{two(ty)}" x2="{two(WIDTH - PAD_RIGHT)}" y2="{two(ty)}" '
                       f'stroke="{INK}" stroke-width="{weight}"/>')
            label = tick_text(t)
            out.append(text(PAD_LEFT - 6, ty + 4, label, 11, "end", advance(label, 11)))
        return out

    def row_label(self, row: int, label: str) -> str:
        return text(self.centre(row), self.bottom + 16, label, 11, fit=min(advance(label, 11), self.slot - 4))


def legend(data: ChartData, fills: list[str]) -> list[str]:
    """Swatches and names, drawn only when several series need telling apart."""
    if len(data.series) < 2:
        return []
    out, x = [], float(PAD_LEFT)
    for s, fill in zip(data.series, fills):
        out.append(f'<rect x="{two(x)}" y="{two(PAD_TOP - 8)}" width="10" height="10" fill="{fill}" '
                   f'stroke="{INK}" stroke-width="1"/>')
        out.append(text(x + 14, PAD_TOP + 1, s.name, 11, "start"))
        x += 14 + advance(s.name, 11) + 16
    return out


def floats(s: Series) -> list[float]:
    return [float(v) for v in s.values]


def value_labels(data: ChartData, frame: Frame, lift: float) -> list[str]:
    """A lone series carries its values above its marks (there is no legend to read)."""
    if len(data.series) != 1:
        return []
    s = data.series[0]
    return [text(frame.centre(r), frame.y(float(v)) - lift, s.shown(v), 10) for r, v in enumerate(s.values)]


def extremes(data: ChartData) -> tuple[float, float]:
    every = [x for s in data.series for x in floats(s)]
    return min(every), max(every)


# -------------------------------------------------------------------- engines


def draw_bar(data: ChartData) -> str:
    frame = Frame.of(data, *extremes(data))
    fills = greys(len(data.series))
    body = frame.gridlines()
    group = frame.slot * GROUP_SHARE
    width = group / len(data.series)
    zero = frame.y(0)
    for r in range(len(data.series[0].values)):
        left = PAD_LEFT + frame.slot * r + (frame.slot - group) / 2
        for i, s in enumerate(data.series):
            top = frame.y(float(s.values[r]))
            body.append(rect(left + width * i, min(top, zero), width, abs(top - zero), fills[i]))
        body.append(frame.row_label(r, data.labels[r]))
    body += legend(data, fills)
    body += value_labels(data, frame, 5)
    return document(data, frame.height, body)


def draw_stacked_bar(data: ChartData) -> str:
    rows = len(data.series[0].values)
    ups, downs = [], []
    for r in range(rows):
        up = down = 0.0
        for s in data.series:
            v = float(s.values[r])
            if v >= 0:
                up += v
            else:
                down += v
        ups.append(up)
        downs.append(down)
    frame = Frame.of(data, min(downs + [0.0]), max(ups + [0.0]))
    fills = greys(len(data.series))
    body = frame.gridlines()
    width = frame.slot * GROUP_SHARE
    for r in range(rows):
        left = PAD_LEFT + frame.slot * r + (frame.slot - width) / 2
        up = down = 0.0
        for i, s in enumerate(data.series):
            v = float(s.values[r])
            base = up if v >= 0 else down
            a, b = frame.y(base + v), frame.y(base)
            body.append(rect(left, min(a, b), width, abs(a - b), fills[i]))
            if v >= 0:
                up += v
            else:
                down += v
    body += [frame.row_label(r, data.labels[r]) for r in range(rows)]
    body += legend(data, fills)
    return document(data, frame.height, body)


def _points(frame: Frame, s: Series) -> list[str]:
    return [f"{two(frame.centre(r))},{two(frame.y(v))}" for r, v in enumerate(floats(s))]


def _dots(frame: Frame, s: Series, fill: str) -> list[str]:
    return [dot(frame.centre(r), frame.y(v), fill) for r, v in enumerate(floats(s))]


def _trace(points: list[str], fill: str) -> str:
    return f'<polyline points="{" ".join(points)}" fill="none" stroke="{fill}" stroke-width="{LINE_WIDTH}"/>'


def draw_line(data: ChartData) -> str:
    frame = Frame.of(data, *extremes(data))
    fills = greys(len(data.series))
    body = frame.gridlines()
    for s, fill in zip(data.series, fills):
        body.append(_trace(_points(frame, s), fill))
        body += _dots(frame, s, fill)
    body += [frame.row_label(r, data.labels[r]) for r in range(len(data.series[0].values))]
    body += legend(data, fills)
    body += value_labels(data, frame, 8)
    return document(data, frame.height, body)


def draw_area(data: ChartData) -> str:
    frame = Frame.of(data, *extremes(data))
    fills = greys(len(data.series))
    body = frame.gridlines()
    rows = len(data.series[0].values)
    base = two(frame.y(0))
    for s, fill in zip(data.series, fills):
        pts = _points(frame, s)
        outline = (f"M {two(frame.centre(0))} {base} L {' L '.join(pts)} "
                   f"L {two(frame.centre(rows - 1))} {base} Z")
        body.append(f'<path d="{outline}" fill="{fill}" fill-opacity="{AREA_OPACITY}"/>')
        body.append(_trace(pts, fill))
        body += _dots(frame, s, fill)
    body += [frame.row_label(r, data.labels[r]) for r in range(rows)]
    body += legend(data, fills)
    body += value_labels(data, frame, 8)
    return document(data, frame.height, body)


def draw_pie(data: ChartData) -> str:
    if len(data.series) != 1:
        raise Refusal("a pie takes one series")
    s = data.series[0]
    for row, v in enumerate(s.values, 1):
        if v < 0:
            raise Refusal(f"pie of `{s.name}` contains a negative value ({fixed_half_up(v, s.places)}, row {row})")
    with localcontext(CONTEXT):
        total = sum(s.values, Decimal(0))
        if total == 0:
            raise Refusal(f"pie of `{s.name}` sums to zero")
        shares = [v / total for v in s.values]
    height = height_of(data.aspect)
    cx, cy = WIDTH / 2, height / 2
    radius = min(WIDTH, height) * PIE_RADIUS_SHARE
    fills = greys(len(s.values))
    body: list[str] = []
    angle = -90.0
    for i, (v, share) in enumerate(zip(s.values, shares)):
        sweep = float(share) * 360
        if len(s.values) == 1:
            body.append(f'<circle cx="{two(cx)}" cy="{two(cy)}" r="{two(radius)}" fill="{fills[i]}" '
                        f'stroke="{INK}" stroke-width="1"/>')
        else:
            a0 = angle * math.pi / 180
            a1 = (angle + sweep) * math.pi / 180
            arc = "1" if sweep > 180 else "0"
            body.append(
                f'<path d="M {two(cx)} {two(cy)} L {two(cx + radius * math.cos(a0))} {two(cy + radius * math.sin(a0))} '
                f'A {two(radius)} {two(radius)} 0 {arc} 1 {two(cx + radius * math.cos(a1))} '
                f'{two(cy + radius * math.sin(a1))} Z" fill="{fills[i]}" stroke="{INK}" stroke-width="1"/>')
        mid = (angle + sweep / 2) * math.pi / 180
        lx = cx + radius * PIE_LABEL_REACH * math.cos(mid)
        ly = cy + radius * PIE_LABEL_REACH * math.sin(mid)
        with localcontext(CONTEXT):
            percent = fixed_half_up(share * 100, 1)
        body.append(text(lx, ly, f"{data.labels[i]} {percent}%", 12))
        body.append(text(lx, ly + 14, s.shown(v), 11))
        angle += sweep
    return document(data, height, body)


ENGINES: dict[str, Callable[[ChartData], str]] = {
    "area": draw_area,
    "bar": draw_bar,
    "line": draw_line,
    "pie": draw_pie,
    "stacked-bar": draw_stacked_bar,
}


def render(engine: str, data: ChartData) -> str:
    """The SVG text of ``data`` drawn by ``engine``; Refusal when it has no drawing."""
    draw = ENGINES.get(engine)
    if draw is None:
        raise Refusal(f"unknown chart type `{engine}`")
    if not data.series or any(not s.values for s in data.series):
        raise Refusal("a chart needs a series with at least one row")
    for s in data.series:
        if any(not math.isfinite(x) for x in floats(s)) or not _writable(s):
            raise Refusal(f"`{s.name}` has a value too large to draw")
    return draw(data)
