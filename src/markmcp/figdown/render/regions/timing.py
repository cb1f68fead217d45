"""``timing`` (experimental): signal lanes on a shared cycle axis.

Each signal is a lane 22 px high, 26 px per cycle, its name in a monospace
gutter.  ``0``/``1`` are low/high with a vertical edge on every change, ``p``
and ``n`` a clock cycle (positive or negative first half), ``x`` an unknown
(hatched) value, ``=`` a data box that takes the next ``data=`` label; ``x`` and
``=`` absorb the ``.`` cells after them into one box, and elsewhere ``.`` repeats
the previous level or clock.  A ``gap n``
draws a break mark across every lane at the end of cycle ``n``, just short of the
boundary, so an edge that starts cycle ``n + 1`` stays in sight beside it (on the
boundary its white band wiped the edge out).

A data value is measured letter by letter in the widest common face: whole in its
box where it fits (shrinking a little, to :data:`VALUE_FS_SHRUNK`), else whole over
the unknown (hatched) cells beside its box, on a white halo ("row 0x1A3F" in one
cycle's box, beside four cycles of don't-care, had read "row…"), else smaller, and
only past that cut short with "…".

The drawing is bounded: a block of more than :data:`MAX_CELLS` cycle cells
(signals × the longest lane, plus one per gap) is refused on its ``timing``
line, instead of drawing a picture of hundreds of megabytes.
"""

from __future__ import annotations

import bisect

from ..block import Block
from ..style import paint
from ..svg import esc, num, tag, text
from ..text import (IN_FULL_FS, INK_LIGHT, INK_MUTED, face_px, face_width, in_full, is_dark, node_width, one_line,
                    shorten, title_width)
from .bound import refused

CYCLE, LANE, LANE_GAP = 26, 30, 12
VALUE_FS, VALUE_FS_MIN = 10.5, 7.0   # a data value's size, and the least it shrinks to fit its box
VALUE_FS_SHRUNK = 9.0   # the least a value shrinks to inside its box before it runs on past it
VALUE_PAD = 2.0         # between a value and its box's side
GAP_BEFORE = 6.0        # a gap's mark stands this far short of the boundary it breaks
MAX_CELLS = 65_536
"""The most cycle cells (signals × the longest lane, plus the gaps) one timing block draws:
64 signals of 1,024 cycles, about 4.5 MB of SVG in 0.2 s.  The largest timing block of the
conformance corpus and the examples has 72 (6 signals of 12 cycles)."""


def cells(block: dict) -> int:
    """The cycle cells :func:`render` draws for ``block``: signals × the longest lane, and
    one per gap (a break mark across every lane)."""
    signals = block.get("signals", ())
    return len(signals) * max([0] + [len(s.get("lane", "")) for s in signals]) + len(block.get("gaps", ()))


def _refusal(block: dict) -> Block | None:
    """What :func:`render` refuses ``block`` with, found without drawing, or None."""
    drawn = cells(block)
    if drawn <= MAX_CELLS:
        return None
    signals = block.get("signals", ())
    cycles = max([0] + [len(s.get("lane", "")) for s in signals])
    gaps = len(block.get("gaps", ()))
    return refused(block.get("line", 1),
                   f'timing "{block.get("id", "")}" has {len(signals)} signal(s) of up to {cycles} cycles'
                   + (f" and {gaps} gap(s)" if gaps else "")
                   + f": {drawn} cycle cells, more than one timing drawing holds (at most {MAX_CELLS})")


def diagnostics(block: dict) -> list[tuple[int, str]]:
    """The diagnostics :func:`render` reports for ``block``, without drawing it."""
    found = _refusal(block)
    return [] if found is None else found.diags


def render(block: dict, classes: dict, y0: float, prefix: str = "") -> Block:
    found = _refusal(block)
    if found is not None:
        return found
    label = block.get("label")
    label = block.get("id", "") if label is None else label
    signals = block.get("signals", [])
    name_w = max([60.0] + [node_width(s.get("name", "")) for s in signals])
    out = []
    values = []   # the data values' labels: drawn last, over the gaps' breaks
    cut: dict[str, str] = {}   # the values cut short, whole, by what the box shows
    gap_cycles = [t for t in block.get("gaps", ()) if isinstance(t, (int, float))]
    gap_set = set(gap_cycles)
    # (each value asks for the marks across its box by bisection: a block may hold
    # thousands of values and of gaps)
    marks = sorted(name_w + t * CYCLE - GAP_BEFORE for t in gap_cycles)
    y = y0 + 18
    out.append(tag("text", [("x", 0), ("y", y - 4), ("font-size", 13), ("font-weight", "600")], esc(one_line(label))))
    cycles = max([0] + [len(s.get("lane", "")) for s in signals])
    ink = paint(block, classes)
    for si, s in enumerate(signals):
        top = y + 8 + si * (LANE + LANE_GAP)
        bot = top + LANE - 8
        box_fill = s.get("fill") or ink["fill"] or "#eef6ff"
        wave = s.get("stroke") or ink["stroke"] or "#1d4ed8"
        out.append(tag("text", [("x", name_w - 10), ("y", top + (LANE - 8) / 2 + 4), ("font-size", 11.5),
                                ("text-anchor", "end"), ("font-family", "monospace")], esc(s.get("name", ""))))
        d = []
        prev = None
        labels = list(s.get("data") or [])
        lane = s.get("lane", "")
        unknown = _unknown_cells(lane)
        i = 0
        while i < len(lane):
            ch = lane[i]
            if ch == ".":
                ch = prev or "0"
            x = name_w + i * CYCLE
            # where the previous cell's trace ends: a clock period ends on its second half's
            # level (after ``p``, low), so ``1`` after a clock rises and a clock after ``1``
            # starts high with no edge (it drew a stroke down and back, a glitch, and went
            # on to ``1`` with no rise)
            pv = _END_LEVEL.get(prev or "")
            pv = None if pv is None else (top if pv else bot)
            if ch in "pn":
                a, b = (top, bot) if ch == "p" else (bot, top)
                d.append(f"M{num(x)},{num(a)} L{num(x + CYCLE / 2)},{num(a)} L{num(x + CYCLE / 2)},{num(b)} "
                         f"L{num(x + CYCLE)},{num(b)}")
                if pv is None and prev:   # after a box: its side
                    d.append(f"M{num(x)},{num(top)} L{num(x)},{num(bot)}")
                elif pv is not None and pv != a:
                    d.append(f"M{num(x)},{num(pv)} L{num(x)},{num(a)}")
            elif ch in "01":
                yy = top if ch == "1" else bot
                if pv is not None and pv != yy:
                    d.append(f"M{num(x)},{num(pv)} L{num(x)},{num(yy)}")
                d.append(f"M{num(x)},{num(yy)} L{num(x + CYCLE)},{num(yy)}")
            elif ch == "x":
                # one unknown value: the cells after it that carry it on (``.``) join its box
                j = i
                while j + 1 < len(lane) and lane[j + 1] == ".":
                    j += 1
                out.append(tag("rect", [("x", x), ("y", top), ("width", CYCLE * (j - i + 1)), ("height", bot - top),
                                        ("fill", f"url(#{prefix}hatch)"), ("stroke", "#999")]))
                i = j
            elif ch == "=":
                j = i
                while j + 1 < len(lane) and lane[j + 1] == ".":
                    j += 1
                span = j - i + 1
                out.append(tag("rect", [("x", x), ("y", top), ("width", CYCLE * span), ("height", bot - top),
                                        ("fill", box_fill), ("stroke", s.get("stroke") or ink["stroke"] or "#7aa7d9")]))
                caption = labels.pop(0) if labels else ""
                if caption:
                    before = _run(unknown, i - 1, -1, gap_set) * CYCLE
                    after = _run(unknown, j + 1, 1, gap_set) * CYCLE
                    x0, x1, broken = _visible(x, x + CYCLE * span, marks)
                    if x0 > x:
                        before = 0.0   # (the mark before it)
                    if x1 < x + CYCLE * span:
                        after = 0.0
                    markup, shown = _value_label(x0, x1, (top + bot) / 2 + 4, caption,
                                                 INK_LIGHT if is_dark(box_fill) else None, broken, before, after)
                    values.append(markup)
                    if shown != caption:
                        cut.setdefault(caption, shown)
                i = j
            prev = ch
            i += 1
        if d:
            out.append(tag("path", [("d", " ".join(d)), ("fill", "none"), ("stroke", wave),
                                    ("stroke-width", 1.6)]))
    height = len(signals) * (LANE + LANE_GAP)
    for t in block.get("gaps", ()):
        x = name_w + t * CYCLE - GAP_BEFORE
        wave = (f"M{num(x)},{num(y + 4)} q4,{num(height / 4)} 0,{num(height / 2)} "
                f"q-4,{num(height / 4)} 0,{num(height / 2)}")
        # a break in time: the lanes stop on either side of it (a white band under the mark)
        out.append(tag("path", [("d", wave), ("fill", "none"), ("stroke", "#fff"), ("stroke-width", 6)]))
        out.append(tag("path", [("d", wave), ("fill", "none"), ("stroke", "#999"), ("stroke-width", 2)]))
    out += values
    end = y + 8 + height
    width = name_w + cycles * CYCLE
    box = {"x0": name_w, "x1": width, "y0": y0 + 18, "y1": end}
    if cut:
        # a value cut short in its box is written whole under the block: its tooltip alone
        # showed it, and nothing printed did ("Run…", "Sele…", "Capt…" for the TAP states)
        for line in in_full(cut, width):
            out.append(text(0, end + IN_FULL_FS, IN_FULL_FS, line, anchor="start", fill=INK_MUTED))
            width = max(width, face_width(line, IN_FULL_FS))
            end += IN_FULL_FS * 1.4
        end += 4
    return Block("".join(out), end, max(width + 2, title_width(label)), box)


#: The level a cell's trace ends on (True high), by its character: a clock period ends on
#: its second half.
_END_LEVEL = {"0": False, "1": True, "p": False, "n": True}


#: How far (px) a value keeps from a gap's mark across its box, each side.
MARK_CLEAR = 6.0


def _visible(x0: float, x1: float, marks: list[float]) -> tuple[float, float, bool]:
    """The widest stretch of the box ``x0``..``x1`` that no gap's mark crosses
    (:data:`MARK_CLEAR` from each), and whether a mark crosses the box: its value is
    written there, not across the mark ("Shift-DR" was cut at its hyphen, a "2" touched)."""
    inside = marks[bisect.bisect_right(marks, x0):bisect.bisect_left(marks, x1)]   # (marks sorted)
    if not inside:
        return x0, x1, False
    edges = [x0] + [e for m in inside for e in (m - MARK_CLEAR, m + MARK_CLEAR)] + [x1]
    parts = [(a, b) for a, b in zip(edges[::2], edges[1::2]) if b > a]
    a, b = max(parts, key=lambda ab: (ab[1] - ab[0], -ab[0]), default=(x0, x1))
    return a, b, True


def _unknown_cells(lane: str) -> list[bool]:
    """Which cells of a lane show an unknown value (``x`` and the ``.`` after it)."""
    out, prev = [], None
    for ch in lane:
        if ch != ".":
            prev = ch
        out.append(prev == "x")
    return out


def _run(flags: list[bool], i: int, step: int, gaps=()) -> int:
    """How many cells from ``i`` on, going ``step``, hold ``flags`` true, stopping at a
    gap (``gaps``: the cycles after which the axis breaks; a value run on across one
    read as on both sides of it)."""
    n = 0
    while 0 <= i < len(flags) and flags[i] and (i + 1 if step < 0 else i) not in gaps:
        n += 1
        i += step
    return n


def _value_label(x0: float, x1: float, y: float, caption: str, fill: str | None, halo: bool = False,
                 before: float = 0.0, after: float = 0.0) -> tuple[str, str]:
    """A data value in its box ``x0``..``x1``, with ``before`` and ``after`` px of unknown
    cells beside it that it may run on over (see the module's text): whole in the box
    down to :data:`VALUE_FS_SHRUNK`, else whole at :data:`VALUE_FS` over those cells on
    a halo (as near the box's middle as they allow), else smaller, down to
    :data:`VALUE_FS_MIN` (in the box, then over them), and past that cut short with "…",
    the whole value then in the label's ``<title>`` (wider, it ran over its neighbours,
    the signal's name and the canvas edge).  ``(markup, what it shows)``."""
    room = x1 - x0 - 2 * VALUE_PAD
    wide = room + before + after
    need = face_width(caption, VALUE_FS)
    inside = min(VALUE_FS, VALUE_FS * room / need) if need > 0 else VALUE_FS
    if inside >= VALUE_FS_SHRUNK:
        return _value_text(x0, x1, y, caption, inside, fill, halo), caption
    if need <= wide:
        return _value_text(x0, x1, y, caption, VALUE_FS, fill, True, need, before, after), caption
    if inside >= VALUE_FS_MIN:
        return _value_text(x0, x1, y, caption, inside, fill, halo), caption
    size = VALUE_FS * wide / need
    if size >= VALUE_FS_MIN:
        return _value_text(x0, x1, y, caption, size, fill, True, need * size / VALUE_FS, before, after), caption
    shown = shorten(caption, lambda px: px <= wide + FIT_SLACK, lambda ch: face_px(ch, VALUE_FS_MIN))
    return tag("g", (), tag("title", (), esc(caption)) + _value_text(
        x0, x1, y, shown, VALUE_FS_MIN, fill, halo or wide > room, face_width(shown, VALUE_FS_MIN), before,
        after)), shown


#: How far (px) a measured width may pass its room and still fit (the sums of the
#: letters' advances round).
FIT_SLACK = 0.01


def _value_text(x0: float, x1: float, y: float, caption: str, size: float, fill, halo: bool, width: float = 0.0,
                before: float = 0.0, after: float = 0.0) -> str:
    """The value's text centred on its box, or moved toward the unknown cells beside it
    just far enough that its ``width`` stays on its box and them."""
    cx = (x0 + x1) / 2
    lo, hi = x0 + VALUE_PAD - before, x1 - VALUE_PAD + after
    if width and cx - width / 2 < lo:
        cx = lo + width / 2
    if width and cx + width / 2 > hi:
        cx = hi - width / 2
    return text(cx, y, round(size, 3), caption, anchor="middle", fill=fill, halo=halo)
